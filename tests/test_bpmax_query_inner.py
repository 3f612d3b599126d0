"""BPMax in query-inner order (tests/bpmax_query_inner.py: target diagonal outer, per target cell the products over
k2 through explicit extended operands, the strand-2 pair term, the query closure) equals the dense reference
bioaccel.interact._naive.fill_naive cell by cell on random pairs with and without windows, gives docs/bpmax.md's
test vectors, and its triangle product issues exactly the terms of the recurrence."""
import doctest
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpmax_query_inner
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import InteractParams
from bioaccel.interact._naive import fill_naive
from bioaccel.interact._strands import single_strand_table
from bpmax_query_inner import NEG, fill_query_inner, triangle_product
from test_interact import VECTORS, WEIGHTS


def both_fills(a: str, b: str, params: InteractParams, product=triangle_product) -> tuple:
    """(fill_query_inner with the split products by ``product``, fill_naive) of query ``a`` and target ``b``: dense F
    in units over the window domain."""
    ca, crb = encode(a), np.ascontiguousarray(encode(b)[::-1])
    S1, S2 = single_strand_table(ca, params.fold_params), single_strand_table(crb, params.fold_params)
    L1, L2 = params.spans(len(a), len(b))
    pairs = params.pair_table()
    return (fill_query_inner(ca, crb, pairs, S1, S2, L1, L2, product), fill_naive(ca, crb, pairs, S1, S2, L1, L2))


@st.composite
def random_pairs(draw) -> tuple:
    """A query and a target of 0 to 9 nt, one of docs/bpmax.md's weight sets, windows (None or 1 to 8 nt past
    the first base) on either strand."""
    a, b = (draw(st.text(alphabet="ACGU", min_size=n, max_size=n)) for n in draw(st.tuples(*[st.integers(0, 9)] * 2)))
    window = st.one_of(st.none(), st.integers(1, 8))
    au, gu = draw(st.sampled_from(WEIGHTS))
    return a, b, InteractParams(au=au, gu=gu, window_query=draw(window), window_target=draw(window))


@settings(max_examples=400, deadline=None)
@given(random_pairs())
def test_equals_the_dense_reference_cell_by_cell(case):
    a, b, params = case
    query_inner, naive = both_fills(a, b, params)
    differ = np.argwhere(query_inner != naive)
    assert query_inner.shape == naive.shape and differ.size == 0, (a, b, params.spans(len(a), len(b)), differ[:3])


def test_windows_and_every_term_are_exercised():
    # the cases above could not tell a blind form from this one were the values trivial: on a 9 x 9 pair with
    # windows on both strands, the domain's cells take many values, and cells past the windows stay 0
    params = InteractParams(au=2, gu=1, window_query=5, window_target=6)
    query_inner, naive = both_fills("GGGAAACCC", "GGGUUUCCC", params)
    assert np.array_equal(query_inner, naive)
    assert len(np.unique(query_inner)) > 10
    assert not query_inner[0, 6:].any() and not query_inner[:, :, 0, 7:].any()


def check_vector(a: str, b: str, expected: tuple) -> None:
    """One row of docs/bpmax.md's test vectors: F(0, M-1, 0, N-1), S1(0, M-1), S2(0, N-1) at both weight sets."""
    for (au, gu), (score, fold_a, fold_b) in zip(WEIGHTS, expected):
        params = InteractParams(au=au, gu=gu)
        query_inner, naive = both_fills(a, b, params)
        assert np.array_equal(query_inner, naive)
        assert params.to_score(int(query_inner[0, len(a) - 1, 0, len(b) - 1])) == score, (a, b, au, gu)
        folds = [single_strand_table(encode(s), params.fold_params)[0, -1] for s in (a, b)]
        assert [params.to_score(int(f)) for f in folds] == [fold_a, fold_b]


@pytest.mark.parametrize("a, b, first, second", VECTORS[:5])
def test_the_vectors_of_bpmax_md(a, b, first, second):
    check_vector(a, b, (first, second))


@pytest.mark.slow
@pytest.mark.parametrize("a, b, first, second", VECTORS[5:6])
def test_the_20_x_32_vector(a, b, first, second):
    """About 7 s in plain Python (the 28 x 35 row would take about 20)."""
    check_vector(a, b, (first, second))


def random_triangles(rng: np.random.Generator, n: int) -> tuple:
    """Random extended operands of n - 1 query bases: values in [0, 40) on L's rows 0 .. n - 2 from the diagonal on
    and on R's upper triangle, NEG elsewhere."""
    upper = np.triu(np.ones((n, n), dtype=bool))
    L = np.where(upper, rng.integers(0, 40, (n, n)), NEG)
    L[n - 1] = NEG
    R = np.where(upper, rng.integers(0, 40, (n, n)), NEG)
    return L, R


def test_the_triangle_product_issues_2576_terms_and_equals_the_brute_force():
    """For M = 23 (24 x 24 extended operands): 276 outputs, output (i, j') with j' - i + 1 terms (j1 - i1 + 2), each
    m in [i, j'] once, 2,576 in all; the values equal the maximum over every m of the whole 24 x 24 matrices."""
    rng = np.random.default_rng(29)
    n = 24
    for _ in range(5):
        L, R = random_triangles(rng, n)
        terms = []
        C = triangle_product(L, R, terms)
        assert len(terms) == 2576 == len(set(terms))
        assert set(terms) == {(i, m, j) for i in range(n) for j in range(i + 1, n) for m in range(i, j + 1)}
        per_output = Counter((i, j) for i, _, j in terms)
        assert len(per_output) == 276 and all(count == j - i + 1 for (i, j), count in per_output.items())
        brute = (L[:, :, None] + R[None, :, :]).max(axis=1)
        outputs = np.triu(np.ones((n, n), dtype=bool), 1)
        assert np.array_equal(C[outputs], brute[outputs]) and (C[~outputs] == NEG).all()


def test_doctests():
    assert doctest.testmod(bpmax_query_inner).failed == 0
