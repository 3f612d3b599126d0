"""The batch traceback's scans for a split test only the m where (i, m-1) may pair (batch_walk 3 and 4: issue 29,
helper nbedge), on the argument that the smallest m with V(i, m) + V(m, c) = V(i, c) always has V(i, m) made by
that pair. Checked here on CPU tables (plain Python over the dense fill): at every scan the held walk makes, the
smallest m over all m and the smallest over the pairable m are the same, for the default model, min_loop 0 with
unequal weights, and sequences with N (no pair)."""
import random

import numpy as np
import pytest

from bioaccel.fold import FoldParams
from bioaccel.fold._cpu import fill_table
from bioaccel.inputs.alphabet import encode


def scans(V, codes, pairs, min_loop):
    """Every scan of the held walk: ``(smallest m, smallest pairable m)`` (half-open, V[i, c - 1] = V(i, c))."""
    out, stack = [], [(0, len(codes))]
    while stack:
        i, c = stack.pop()
        while c - i >= 2 and V[i, c - 1] > 0:
            v = V[i, c - 1]
            inner = V[i + 1, c - 2] if c - 2 >= i + 1 else 0
            w = pairs[codes[i], codes[c - 1]] if c - 2 - i >= min_loop else 0
            if w > 0 and inner + w == v:
                i, c = i + 1, c - 1
                continue
            if V[i + 1, c - 1] == v:
                i += 1
                continue
            hits = [m for m in range(i + 2, c) if V[i, m - 1] + V[m, c - 1] == v]
            may_pair = [m for m in hits if m - 2 - i >= min_loop and pairs[codes[i], codes[m - 1]] > 0]
            out.append((hits[0], may_pair[0] if may_pair else None))
            stack.append((hits[0], c))
            c = hits[0]
    return out


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=1)],
                         ids=["default", "min_loop 0, unequal weights"])
def test_the_smallest_split_is_closed_by_a_pair(params):
    rng = random.Random(29)
    pairs = params.pair_table()
    found = 0
    for n in (40, 97, 250, 400):
        codes = encode("".join(rng.choice("ACGUACGUN") for _ in range(n)))
        table, _ = fill_table(codes, params, "naive")
        for every, pairable in scans(table.reshape(n, n), codes, pairs, params.min_loop):
            assert every == pairable
            found += 1
    assert found > 20
