"""Plain-Python reference of BPMax in "query-inner" order (issue 29): the recurrence of docs/bpmax.md with the
target diagonal d = j2 - i2 outer, each target cell (i2, j2) holding the vector of all query intervals (i1, j1).

Every fast path runs query levels outer (l1, then l2). Here a target cell reads only target cells of smaller d
(D, R1, R2, the strand-2 pair term) and itself (R3, R4, the strand-1 pair term), so after the cells of smaller d
are final one cell is, in this order:

1. the products: for each interior target split k2 in [i2, j2 - 1], one upper-triangular max-plus product of the
   extended operands L' (M + 1) x (M + 1) and R' (docs/bpmax.md's empty-interval border put on their diagonals:
   S2(i2, k2) and S2(k2 + 1, j2)); C[i][j'] = max over m in [i, j'] of L'[i][m] + R'[m][j'] is D + R1 + R2 of
   (i1, j1) = (i, j' - 1): m = i is R1 (k1 = i1 - 1), m = j' is R2 (k1 = j1), the rest D;
2. the strand-2 pair term and the 1 x 1 base case;
3. the closure over the query in l1 order: R3, R4 and the strand-1 pair term, inside the cell.

The reference a GPU kernel of this order is checked against; tests/test_bpmax_query_inner.py checks it against
bioaccel.interact._naive.fill_naive cell by cell. Slow on purpose: for tests on short strands.
"""
import numpy as np

# minus infinity of the extended operands (outside their triangles and the query window): far below any sum of two
# table values, and NEG + NEG still exact in int64
NEG = -(1 << 40)


def extended_operands(F: np.ndarray, S2: np.ndarray, i2: int, k2: int, j2: int, L1: int) -> tuple:
    """The extended operands (L', R') of target split k2 of cell (i2, j2), each (M + 1) x (M + 1) int64, M = F.shape[0].

    L'[i][i] = S2(i2, k2) and L'[i][m] = F(i, m - 1, i2, k2) for 0 <= i <= M - 1, i < m <= M, m - 1 - i < L1;
    R'[m][m] = S2(k2 + 1, j2) and R'[m][j'] = F(m, j' - 1, k2 + 1, j2) for 0 <= m < j' <= M, j' - 1 - m < L1;
    NEG elsewhere (below the diagonal, past the query window, row M of L').

    >>> F = np.zeros((1, 1, 2, 2), dtype=np.int32)
    >>> F[0, 0, 0, 0], F[0, 0, 1, 1] = 2, 3          # a 1-nt query against a 2-nt target
    >>> S2 = np.array([[0, 0], [0, 1]])
    >>> L, R = extended_operands(F, S2, 0, 0, 1, 1)
    >>> L[0].tolist(), R[0].tolist(), R[1].tolist() == [NEG, 1], L[1].tolist() == [NEG, NEG]
    ([0, 2], [1, 3], True, True)
    """
    M = F.shape[0]
    L = np.full((M + 1, M + 1), NEG, dtype=np.int64)
    R = np.full((M + 1, M + 1), NEG, dtype=np.int64)
    for i in range(M):
        L[i, i] = S2[i2, k2]                        # the query part empty: the target's left part folded alone
        for m in range(i + 1, min(M, i + L1) + 1):
            L[i, m] = F[i, m - 1, i2, k2]
    for m in range(M + 1):
        R[m, m] = S2[k2 + 1, j2]
        for j in range(m + 1, min(M, m + L1) + 1):
            R[m, j] = F[m, j - 1, k2 + 1, j2]
    return L, R


def triangle_product(L: np.ndarray, R: np.ndarray, terms: "list | None" = None) -> np.ndarray:
    """The upper-triangular max-plus product C[i][j'] = max over m in [i, j'] of L[i][m] + R[m][j'], for every
    0 <= i < j' < n (n = L.shape[0]); NEG elsewhere. ``terms``, when given, gets each issued term's (i, m, j').

    >>> L = np.array([[0, 2], [NEG, NEG]])
    >>> R = np.array([[0, 3], [NEG, 1]])
    >>> terms = []
    >>> int(triangle_product(L, R, terms)[0, 1]), terms      # max(0 + 3, 2 + 1)
    (3, [(0, 0, 1), (0, 1, 1)])
    """
    n = L.shape[0]
    left, right = L.tolist(), R.tolist()            # Python ints: exact, and fast to index
    C = np.full((n, n), NEG, dtype=np.int64)
    for i in range(n - 1):
        for j in range(i + 1, n):
            best = NEG
            for m in range(i, j + 1):
                best = max(best, left[i][m] + right[m][j])
                if terms is not None:
                    terms.append((i, m, j))
            C[i, j] = best
    return C


def query_intervals(M: int, L1: int) -> list:
    """The query intervals (i1, j1) of the window domain (j1 - i1 < L1) in l1 order, the closure's order.

    >>> query_intervals(3, 2)
    [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)]
    """
    return [(i1, i1 + l1 - 1) for l1 in range(1, L1 + 1) for i1 in range(M - l1 + 1)]


def apply_split(cell: np.ndarray, F: np.ndarray, S2: np.ndarray, L1: int, i2: int, k2: int, j2: int,
                product=triangle_product) -> np.ndarray:
    """``cell`` (target cell (i2, j2)'s (M, M) query vector, in place) raised by split k2's product (D + R1 + R2 at
    every query interval of the window); it reads F of (i2, k2) and (k2 + 1, j2).

    >>> F = np.zeros((1, 1, 2, 2), dtype=np.int32)
    >>> F[0, 0, 0, 0], F[0, 0, 1, 1] = 2, 3
    >>> apply_split(np.zeros((1, 1), dtype=np.int64), F, np.zeros((2, 2)), 1, 0, 0, 1).tolist()   # max(0 + 3, 2 + 0)
    [[3]]
    """
    C = product(*extended_operands(F, S2, i2, k2, j2, L1))
    for i1, j1 in query_intervals(len(cell), L1):
        cell[i1, j1] = max(cell[i1, j1], C[i1, j1 + 1])
    return cell


def apply_cell_terms(cell: np.ndarray, F: np.ndarray, a, rb, pairs, L1: int, i2: int, j2: int) -> np.ndarray:
    """``cell`` (in place) raised by its own target terms: the strand-2 pair term (j2 - i2 >= 4; it reads F of
    (i2 + 1, j2 - 1)) and the 1 x 1 base case (i2 == j2).

    >>> pairs = np.zeros((5, 5), dtype=np.int32); pairs[1, 2] = pairs[2, 1] = 6         # C-G only
    >>> apply_cell_terms(np.zeros((1, 1), dtype=np.int64), None, [2], [1], pairs, 1, 0, 0).tolist()
    [[6]]
    """
    intervals = query_intervals(len(a), L1)
    if j2 - i2 >= 4:
        pair = pairs[rb[i2], rb[j2]]
        for i1, j1 in intervals:
            cell[i1, j1] = max(cell[i1, j1], pair + F[i1, j1, i2 + 1, j2 - 1])
    if i2 == j2:
        for i1 in range(len(a)):
            cell[i1, i1] = max(cell[i1, i1], pairs[a[i1], rb[i2]])
    return cell


def target_cell_start(F: np.ndarray, a, rb, pairs, S2: np.ndarray, L1: int, i2: int, j2: int,
                      product=triangle_product) -> np.ndarray:
    """Steps 1 and 2 of target cell (i2, j2): the (M, M) int64 query vector (zero outside the query window) after the
    products over every interior split k2 (by ``product``, triangle_product's signature), the strand-2 pair term and
    the 1 x 1 base case; it reads only target cells of smaller d.

    >>> pairs = np.zeros((5, 5), dtype=np.int32); pairs[1, 2] = pairs[2, 1] = 6         # C-G only
    >>> F = np.zeros((2, 2, 2, 2), dtype=np.int32)
    >>> F[0, 0, 0, 0] = F[1, 1, 1, 1] = 6                                               # G.C, C.G
    >>> target_cell_start(F, [2, 1], [1, 2], pairs, np.zeros((2, 2)), 2, 0, 1).tolist()
    [[6, 12], [0, 6]]
    """
    cell = np.zeros((len(a), len(a)), dtype=np.int64)
    for k2 in range(i2, j2):
        apply_split(cell, F, S2, L1, i2, k2, j2, product)
    return apply_cell_terms(cell, F, a, rb, pairs, L1, i2, j2)


def query_closure(cell: np.ndarray, a, pairs, S1: np.ndarray, L1: int) -> np.ndarray:
    """Step 3: ``cell`` (one target cell's query vector, in place) closed over the query in l1 order, each interval
    raised by R4 (F(i1, k1) + S1(k1 + 1, j1)), R3 (S1(i1, k1) + F(k1 + 1, j1)) and the strand-1 pair term.

    >>> pairs = np.zeros((5, 5), dtype=np.int32)
    >>> S1 = np.zeros((2, 2), dtype=np.int32)
    >>> query_closure(np.array([[4, 0], [0, 5]]), [0, 0], pairs, S1, 2).tolist()    # F(0, 1) >= F(1, 1) + S1(0, 0)
    [[4, 5], [0, 5]]
    """
    for i1, j1 in query_intervals(len(a), L1):
        best = cell[i1, j1]
        for k1 in range(i1, j1):
            best = max(best, cell[i1, k1] + S1[k1 + 1, j1], S1[i1, k1] + cell[k1 + 1, j1])
        if j1 - i1 >= 4:
            best = max(best, pairs[a[i1], a[j1]] + cell[i1 + 1, j1 - 1])
        cell[i1, j1] = best
    return cell


def fill_query_inner(a, rb, pairs, S1: np.ndarray, S2: np.ndarray, L1: int, L2: int,
                     product=triangle_product) -> np.ndarray:
    """Dense F[i1, j1, i2, j2] (int32, units) over the window domain j1 - i1 < L1, j2 - i2 < L2, zero elsewhere, as
    bioaccel.interact._naive.fill_naive gives it (same arguments), computed target diagonal d = j2 - i2 outer; the
    split products by ``product`` (e.g. tests/bpmax_query_tiles.py's tiled form, where M + 1 is a multiple of 4).

    >>> pairs = np.zeros((5, 5), dtype=np.int32); pairs[1, 2] = pairs[2, 1] = 6         # C-G only
    >>> S = np.zeros((2, 2), dtype=np.int32)
    >>> F = fill_query_inner([2, 1], [1, 2], pairs, S, S, 2, 2)                          # GC against GC
    >>> int(F[0, 1, 0, 1]), int(F[0, 0, 0, 1]), int(F[0, 1, 1, 1])
    (12, 6, 6)
    """
    M, N = len(a), len(rb)
    F = np.zeros((M, M, N, N), dtype=np.int32)
    for d in range(L2):
        for i2 in range(N - d):
            j2 = i2 + d
            cell = target_cell_start(F, a, rb, pairs, S2, L1, i2, j2, product)
            F[:, :, i2, j2] = query_closure(cell, a, pairs, S1, L1)
    return F
