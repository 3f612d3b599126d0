"""Scores on a motif's own integer grid: the one definition of a word's score that every exact answer
(P-values, thresholds, COMPARE, scanning) uses.

A PSSM's float entries are scaled by 2**bits and rounded once, to int64 ``units``; a word's score is
the integer sum of its columns' units, and its score in the motif's own units is that sum / 2**bits
(exactly representable as a float). Integer sums do not depend on the order of the terms, so two words
made of the same entries in another order always tie, and a threshold never splits them. ``bits`` is
44 (scores resolved to 2**-44 = 5.7e-14) unless the matrix is so large that the sums would not fit in
int64 with room to spare; a word's grid score then differs from its float sum by at most
m * 2**-(bits+1), under 1e-12 for any JASPAR matrix.

A score typed by a person (or computed by float summation elsewhere) is read onto the grid with a
tolerance of m/2 + 2 units, so that the float sum of a word's own entries, in any order, always counts
that word.
"""
import math

import numpy as np

#: Finest grid: 2**-44 of a score unit.
MAX_BITS = 44


def grid_bits(scores) -> int:
    """The scale (a power of two) of the integer grid of ``scores``: at most :data:`MAX_BITS`, and
    small enough that any sum of one entry per column stays below 2**61.

    >>> grid_bits(np.zeros((3, 4))), grid_bits(np.full((2, 4), 1e12))
    (44, 20)
    """
    largest = float(np.abs(np.asarray(scores, dtype=np.float64)).max(axis=1).sum()) + 1.0
    return int(min(MAX_BITS, 61 - math.ceil(math.log2(largest))))


def to_units(scores, bits: int) -> np.ndarray:
    """The (m, 4) int64 grid matrix: each entry scaled by 2**bits and rounded to the nearest integer.

    >>> to_units([[0.5, -0.25, 0, 1]], 2).tolist()
    [[2, -1, 0, 4]]
    """
    return np.rint(np.asarray(scores, dtype=np.float64) * 2.0 ** bits).astype(np.int64)


def to_score(units, bits: int) -> float:
    """A grid value back in the motif's own units (exact: a power-of-two scale).

    >>> to_score(3, 1)
    1.5
    """
    return float(int(units)) / 2.0 ** bits


def score_to_units(score: float, bits: int, columns: int) -> int:
    """The smallest grid value that ``score`` admits: words whose grid score is at least this value
    are those scoring >= ``score``, up to the grid's own rounding (m/2 + 2 units: the float sum of a
    word's entries, in any order, counts that word).

    >>> score_to_units(1.5, 1, 1)     # 3 units, minus the tolerance of 2.5 units, rounded up
    1
    """
    if not math.isfinite(score):
        return -(1 << 62) if score < 0 else (1 << 62)
    return int(math.ceil(score * 2.0 ** bits - (columns / 2.0 + 2.0)))


def word_units(units: np.ndarray, codes) -> int:
    """The grid score of one word (codes 0..3 for A, C, G, T), one entry per column.

    >>> word_units(np.array([[1, 2, 3, 4], [10, 20, 30, 40]]), [3, 0])
    14
    """
    codes = np.asarray(codes, dtype=np.int64)
    return int(units[np.arange(units.shape[0]), codes].sum())
