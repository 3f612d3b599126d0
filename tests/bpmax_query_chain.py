"""The query-inner order's in-tile chain by PUSHES (issue 29), in plain Python, so that a kernel can follow its
schedule: tests/bpmax_query_inner.py's recurrence, the target cut into T x T tiles (I, J) filled by tile diagonal
delta = J - I, as bench/bpmax_query_inner.cu runs it.

A cell (u, v) of tile (I, J) is target cell (i2, j2) = (T I + u, T J + v). Its splits k2 through other tiles (the
bulk: k2 in [T I + T - 1, T J - 1] where delta >= 1) read only tiles of smaller delta. Its other splits (its OWN
splits) read this tile: with k = k2 - T I (the split's offset from the tile's first row),
- the right operand B = (k2 + 1, j2) is this tile's cell (k + 1, v) where k + 1 <= T - 1 (a row below u), the left
  operand A = (i2, k2) then cell (u, k) of diagonal tile (I, I);
- the left operand A = (i2, k2) is this tile's cell (u, k - T delta) where k >= T delta (a column left of v), the
  right operand B = (k2 + 1, j2) then cell (k + 1 - T delta, v) of diagonal tile (J, J);
- on a diagonal tile (delta = 0) both: A = (u, k), B = (k + 1, v), both of this tile.

The prototype PULLS (each cell, at its anti-diagonal step, runs its own splits one after the other). Here a cell that
closes (is final) PUSHES at once every own split it is the last in-tile operand of: the product into the target's
accumulators (max). A cell closes (pair term, base case, closure over the query) once every own split of it has been
pushed. `tile_schedule` lists the steps; `fill_query_chain` runs them over the reference's dense F and checks that
no cell is read before it is final.
"""
from typing import NamedTuple

import numpy as np

from bpmax_query_inner import apply_cell_terms, apply_split, query_closure, triangle_product


class Push(NamedTuple):
    """One own split k2 = T I + k of ``target``, run when ``source`` (its last in-tile operand) closes; ``role`` "A":
    the source is the left operand (k2 = its column), "B": the right operand (k2 + 1 = its row)."""
    source: tuple
    target: tuple
    k: int
    role: str


class Step(NamedTuple):
    """One step of a tile's chain: the cells that close (none reads another), then the pushes they make."""
    close: list
    pushes: list


def tile_cells(I: int, J: int, T: int, N: int, L2: int) -> list:
    """The cells (u, v) of tile (I, J) inside the target (j2 < N), the band (j2 - i2 < L2) and, on a diagonal tile,
    the upper triangle (u <= v).

    >>> tile_cells(0, 0, 2, 3, 5), tile_cells(0, 1, 2, 4, 3)
    ([(0, 0), (0, 1), (1, 1)], [(0, 0), (1, 0), (1, 1)])
    """
    return [(u, v) for u in range(T) for v in range(T)
            if T * J + v < N and T * (J - I) + v - u < L2 and (J > I or u <= v)]


def own_operands(cell: tuple, k: int, delta: int, T: int) -> tuple:
    """The operands of own split k of ``cell`` that lie in its tile: ((A cell or None), (B cell or None)).

    >>> own_operands((0, 3), 1, 0, 4), own_operands((0, 3), 1, 1, 4), own_operands((0, 3), 5, 1, 4)
    (((0, 1), (2, 3)), (None, (2, 3)), ((0, 1), None))
    """
    u, v = cell
    return ((u, k - T * delta) if k >= T * delta else None, (k + 1, v) if k + 1 <= T - 1 else None)


def own_splits(cell: tuple, delta: int, T: int) -> list:
    """The offsets k = k2 - T I of ``cell``'s own splits: k in [u, T - 2] (B in the tile) and, where delta >= 1,
    [T delta, T delta + v - 1] (A in the tile); on a diagonal tile every split, [u, v - 1].

    >>> own_splits((1, 2), 0, 4), own_splits((1, 2), 1, 4)
    ([1], [1, 2, 4, 5])
    """
    u, v = cell
    if delta == 0:
        return list(range(u, v))
    return list(range(u, T - 1)) + list(range(T * delta, T * delta + v))


def tile_schedule(delta: int, T: int, cells: list) -> list:
    """The steps of the chain of a tile of diagonal ``delta`` holding ``cells`` (tile_cells'): each step the cells
    whose own splits have all been pushed close, then every own split whose in-tile operands are now all final is
    pushed by the one of them that closed last (a tie: the A operand). Every own split is pushed exactly once.

    >>> steps = tile_schedule(1, 2, tile_cells(0, 1, 2, 4, 9))
    >>> for step in steps:
    ...     print(step.close, [(p.source, p.target, p.k, p.role) for p in step.pushes])
    [(1, 0)] [((1, 0), (0, 0), 0, 'B'), ((1, 0), (1, 1), 2, 'A')]
    [(0, 0), (1, 1)] [((1, 1), (0, 1), 0, 'B'), ((0, 0), (0, 1), 2, 'A')]
    [(0, 1)] []
    """
    present = set(cells)
    waiting = {cell: own_splits(cell, delta, T) for cell in cells}
    left = {cell: len(splits) for cell, splits in waiting.items()}
    closed_at, steps = {}, []
    while len(closed_at) < len(present):
        close = [cell for cell in cells if cell not in closed_at and left[cell] == 0]
        assert close, "no cell can close: the tile's own splits form a cycle"
        for cell in close:
            closed_at[cell] = len(steps)
        pushes = []
        for target in cells:
            still = []
            for k in waiting[target]:
                A, B = own_operands(target, k, delta, T)
                operands = [op for op in (A, B) if op is not None]
                assert all(op in present for op in operands), (target, k, operands)
                if not all(op in closed_at for op in operands):
                    still.append(k)
                    continue
                source = max(operands, key=lambda op: (closed_at[op], op == A))
                pushes.append(Push(source, target, k, "A" if source == A else "B"))
                left[target] -= 1
            waiting[target] = still
        steps.append(Step(close, pushes))
    return steps


def pull_steps(delta: int, T: int, cells: list) -> list:
    """The prototype's steps (bench/bpmax_query_inner.cu's chain_tile): anti-diagonal t = v - u, each cell running
    its own splits in sequence: per step, [(cell, its own splits' count)].

    >>> pull_steps(1, 2, tile_cells(0, 1, 2, 4, 9))
    [[((1, 0), 0)], [((0, 0), 1), ((1, 1), 1)], [((0, 1), 2)]]
    """
    present = set(cells)
    return [[((u, u + t), len(own_splits((u, u + t), delta, T))) for u in range(T) if (u, u + t) in present]
            for t in range(-(T - 1) if delta else 0, T)]


class _Fill(NamedTuple):
    """What a tile reads and writes: the dense F, which target cells are final, and the problem."""
    F: np.ndarray
    final: np.ndarray
    a: object
    rb: object
    pairs: np.ndarray
    S1: np.ndarray
    S2: np.ndarray
    L1: int
    product: object
    log: "list | None"


def _split(fill: _Fill, cell: np.ndarray, i2: int, k2: int, j2: int, part: str) -> None:
    """Split k2 into (i2, j2)'s accumulators, its two operands final (asserted) and the split logged."""
    assert fill.final[i2, k2] and fill.final[k2 + 1, j2], f"{part} split {k2} of {(i2, j2)} reads a cell not final"
    apply_split(cell, fill.F, fill.S2, fill.L1, i2, k2, j2, fill.product)
    if fill.log is not None:
        fill.log.append((part, i2, j2, k2))


def _close(fill: _Fill, cell: np.ndarray, i2: int, j2: int) -> None:
    """The cell's pair term and base case, its closure over the query, F written and the cell final."""
    assert not fill.final[i2, j2], f"{(i2, j2)} closes twice"
    if j2 - i2 >= 4:
        assert fill.final[i2 + 1, j2 - 1], f"the pair term of {(i2, j2)} reads a cell not final"
    apply_cell_terms(cell, fill.F, fill.a, fill.rb, fill.pairs, fill.L1, i2, j2)
    fill.F[:, :, i2, j2] = query_closure(cell, fill.a, fill.pairs, fill.S1, fill.L1)
    fill.final[i2, j2] = True


def run_tile(fill: _Fill, I: int, J: int, T: int, cells: list, steps: list) -> None:
    """Tile (I, J): every cell's bulk (splits through other tiles), then the chain by ``steps``.

    >>> pairs = np.zeros((5, 5), dtype=np.int32); pairs[1, 2] = pairs[2, 1] = 6        # C-G only
    >>> S = np.zeros((2, 2), dtype=np.int32)
    >>> fill = _Fill(np.zeros((1, 1, 2, 2), np.int32), np.zeros((2, 2), bool), [2], [1, 2], pairs, S[:1, :1], S, 1,
    ...              triangle_product, None)
    >>> cells = tile_cells(0, 0, 2, 2, 2)
    >>> run_tile(fill, 0, 0, 2, cells, tile_schedule(0, 2, cells))
    >>> fill.F[0, 0].tolist()                                                            # G.C, then G.C + nothing
    [[6, 6], [0, 0]]
    """
    acc = {}
    for u, v in cells:
        i2, j2 = T * I + u, T * J + v
        acc[u, v] = np.zeros(fill.F.shape[:2], dtype=np.int64)     # F's initial 0
        for k2 in range(max(i2, T * I + T - 1), min(j2, T * J)):
            _split(fill, acc[u, v], i2, k2, j2, "bulk")
    for step in steps:
        for u, v in step.close:
            _close(fill, acc.pop((u, v)), T * I + u, T * J + v)
        for push in step.pushes:
            u, v = push.target
            _split(fill, acc[u, v], T * I + u, T * I + push.k, T * J + v, "chain")
    assert not acc, f"cells never closed: {sorted(acc)}"


def fill_query_chain(a, rb, pairs, S1: np.ndarray, S2: np.ndarray, L1: int, L2: int, T: int = 8,
                     product=triangle_product, log: "list | None" = None, schedule=tile_schedule) -> np.ndarray:
    """Dense F (fill_naive's arguments and result) by T x T target tiles in tile-diagonal order, each tile's bulk
    then its chain by pushes (``schedule``, tile_schedule's signature). ``log``, when given, gets each split
    applied: (part "bulk" or "chain", i2, j2, k2).

    >>> pairs = np.zeros((5, 5), dtype=np.int32); pairs[1, 2] = pairs[2, 1] = 6         # C-G only
    >>> S = np.zeros((2, 2), dtype=np.int32)
    >>> F = fill_query_chain([2, 1], [1, 2], pairs, S, S, 2, 2, T=1)                     # GC against GC
    >>> int(F[0, 1, 0, 1]), int(F[0, 0, 0, 1]), int(F[0, 1, 1, 1])
    (12, 6, 6)
    """
    M, N = len(a), len(rb)
    fill = _Fill(np.zeros((M, M, N, N), dtype=np.int32), np.zeros((N, N), dtype=bool), a, rb, pairs, S1, S2, L1,
                 product, log)
    count = -(-N // T)
    for delta in range(count):
        for I in range(count - delta):
            cells = tile_cells(I, I + delta, T, N, L2)
            if cells:
                run_tile(fill, I, I + delta, T, cells, schedule(delta, T, cells))
    return fill.F
