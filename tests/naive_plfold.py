"""Plain-Python RNAplfold: the windowed base-pair probabilities by their definition. Every window of W
bases is folded on its own (McCaskill's inside and outside, unscaled, as tests/naive_mccaskill.py writes
them; pairs spanning fewer than L bases), and each pair's probability is the mean of its probabilities
over the windows that hold it. The one thing a window takes from the rest of the sequence is what
ViennaRNA's RNAplfold takes: the bases just outside it, as the dangles (mismatches) of its exterior
stems. No running sums, band tables, stretches or scaling: the reference the Numba kernel is tested
against on small inputs.
"""
import math

from bioaccel.fold._turner_pf_params import boltzmann_tables
from bioaccel.fold._turner_tables import kernel_tables_at, table_codes
from naive_mccaskill import fold_window


def plfold(codes, window, span=None, temperature=37.0, no_lp=False, no_gu=False):
    """``(P, unpaired)``: {(i, j): windowed probability} (1-based, every pair above 0) and each base's
    windowed probability of being unpaired (a list), as RNAplfold -W window -L span -u 1. A window longer
    than the sequence is the sequence."""
    S = [int(x) for x in table_codes(codes)]
    n = len(S)
    W = min(window, n)
    span = W if span is None else min(span, W)
    E, lxc = kernel_tables_at(temperature, no_gu)
    B, kT = boltzmann_tables(temperature, no_gu)
    total, count = {}, {}
    paired, covered = [0.0] * n, [0] * n
    for a in range(0, n - W + 1):
        _, P = fold_window(S, a, a + W - 1, span, no_lp, E, lxc, B, kT)
        for (i, j), p in P.items():
            total[i, j] = total.get((i, j), 0.0) + p
            paired[i] += p
            paired[j] += p
        for k in range(a, a + W):
            covered[k] += 1
    for (i, j) in total:
        count[i, j] = sum(1 for a in range(0, n - W + 1) if a <= i and j <= a + W - 1)
    P = {(i + 1, j + 1): total[i, j] / count[i, j] for (i, j) in total}
    unpaired = [1.0 - paired[k] / covered[k] for k in range(n)] if n else []
    assert all(math.isfinite(p) for p in P.values())
    return P, unpaired
