"""Plain-Python reference of a tiled BPMax finish (issue 29, stop 61; bench/bpmax_finish_tiled_model.py counts its
DPX): one matrix's band closure, F(i, j) = max(E(i, j), S2(i, k) + F(k + 1, j), F(i, k) + S2(k + 1, j) for k in
[i, j), score(i, j) + F(i + 1, j - 1) where j - i >= 4), as the direct diagonal order computes it and as a schedule
by T x T tiles would: tiles by tile diagonal, each tile's terms whose F operand lies in another tile first (the bulk,
final there), then its own terms in order (the chain). E holds what the products and the start values leave in a
cell (docs/bpmax.md's other terms). No GPU, no NumPy: for tests on short bands.
"""


def direct(E: dict, S2: dict, score: dict, N: int, W: int) -> dict:
    """The band's closure by diagonal: cells (i, i + e), e < W, i + e < N.

    >>> E = {(0, 0): 1, (1, 1): 2, (0, 1): 0}
    >>> S2 = {(0, 0): 0, (1, 1): 0, (0, 1): 0}
    >>> direct(E, S2, {}, 2, 2)[0, 1]   # S2(0, 0) + F(1, 1)
    2
    """
    F = {}
    for e in range(W):
        for i in range(N - e):
            j = i + e
            F[i, j] = with_pair(score, F, i, j, splits(S2, F, i, j, E[i, j], lambda k: True, lambda k: True)[0])
    return F


def splits(S2: dict, F: dict, i: int, j: int, best: int, r1, r2) -> tuple:
    """``best`` raised by cell (i, j)'s split terms S2(i, k) + F(k + 1, j) where ``r1(k)`` and F(i, k) + S2(k + 1, j)
    where ``r2(k)``, k in [i, j), and the DPX they take (one a split with either term): (maximum, DPX)."""
    dpx = 0
    for k in range(i, j):
        one, two = r1(k), r2(k)
        dpx += one or two
        if one:
            best = max(best, S2[i, k] + F[k + 1, j])
        if two:
            best = max(best, F[i, k] + S2[k + 1, j])
    return best, dpx


def with_pair(score: dict, F: dict, i: int, j: int, best: int) -> int:
    """``best`` raised by cell (i, j)'s pair term, score(i, j) + F(i + 1, j - 1), where j - i >= 4."""
    return max(best, score.get((i, j), 0) + F[i + 1, j - 1]) if j - i >= 4 else best


def tiled(E: dict, S2: dict, score: dict, N: int, W: int, T: int) -> tuple:
    """The same closure by T x T tiles, and the DPX the tiled kernel would issue for it, by row: (F, bulk, chain).

    The bulk of tile (I, J) takes every term whose F operand lies in another tile (a split with neither F operand in
    the tile one packed DPX, a split with one of them in the tile one DPX for its other term); the chain takes the
    terms on the tile's own cells (one DPX each; a diagonal tile's splits packed), cell by cell in diagonal order,
    with the pair term.

    >>> E = {(i, j): (3 * i + j) % 5 for i in range(6) for j in range(i, min(i + 4, 6))}
    >>> S2 = {(i, j): (i + 2 * j) % 3 for i in range(6) for j in range(i, min(i + 4, 6))}
    >>> tiled(E, S2, {}, 6, 4, 2)[0] == direct(E, S2, {}, 6, 4)
    True
    """
    F, partial, bulk, chain = {}, {}, [0] * N, [0] * N
    tiles = (N + T - 1) // T
    for delta in range((W - 1 + T - 1) // T + 1):
        for I in range(tiles - delta):
            J = I + delta
            cells = [(i, j) for i in range(I * T, min(I * T + T, N)) for j in range(J * T, min(J * T + T, N))
                     if 0 <= j - i < W]

            def own(a, b, I=I, J=J):   # cell (a, b) is one of this tile's
                return (a // T, b // T) == (I, J)

            for i, j in cells:   # the bulk: terms on final tiles (none in a diagonal tile)
                partial[i, j], dpx = splits(S2, F, i, j, E[i, j], lambda k: not own(k + 1, j), lambda k: not own(i, k))
                bulk[i] += dpx
            for i, j in sorted(cells, key=lambda c: c[1] - c[0]):   # the chain: the tile's own cells in order
                best, dpx = splits(S2, F, i, j, partial[i, j], lambda k: own(k + 1, j), lambda k: own(i, k))
                chain[i] += dpx
                F[i, j] = with_pair(score, F, i, j, best)
    return F, bulk, chain
