"""Traceback: from a filled Nussinov table to one optimal structure, by one rule shared by every backend.

The rule (the GPU backend follows it too, so every variant gives the identical structure)::

    stack = [(0, n-1)]; pairs = []
    while stack: pop (i, j)
      if j - i < 1 or C(i, j) == 0: continue       # weights are positive: 0 means no pair inside
      v = C(i, j)
      if (i, j) may pair (w(s[i], s[j]) > 0 and j - i - 1 >= min_loop)
         and C(i+1, j-1) + w == v                   # C of an empty interval is 0
          record pair (i, j); push (i+1, j-1)
      else
          k = the SMALLEST k in [i, j-1] with C(i, k) + C(k+1, j) == v
          push (k+1, j); push (i, k)

So a pair of the outer ends wins over a split, and among splits the leftmost. No recursion (an explicit
stack, so genome-length sequences are fine) and O(n^2) time in the worst case.

The table is read through one accessor whatever its layout: ``table[base[i] + j]`` = C(i, j), with
``table`` one-dimensional (a raveled dense table: ``base[i] = i * n``; the packed upper triangle of the
blocked variant: see bioaccel.fold._cpu.packed_base).
"""
import numpy as np
from numba import njit

from ..errors import InputError, InternalError

#: pair_to[0] when no case of the recurrence reproduces a table value (a corrupt table)
CORRUPT = -2


@njit(cache=True, nogil=True)
def traceback_pairs(table, base, codes, pairs, min_loop):
    """Return ``pair_to`` (int32, length n): the partner of each position, or -1 when unpaired."""
    n = codes.shape[0]
    pair_to = np.full(n, -1, dtype=np.int32)
    if n == 0:
        return pair_to
    # every interval on the stack is disjoint from the others, so 2n + 2 entries always suffice
    stack = np.empty((2 * n + 2, 2), dtype=np.int64)
    stack[0, 0] = 0
    stack[0, 1] = n - 1
    top = 1
    while top > 0:
        top -= 1
        i = stack[top, 0]
        j = stack[top, 1]
        if j - i < 1:
            continue
        v = table[base[i] + j]
        if v == 0:
            continue
        w = pairs[codes[i], codes[j]]
        if w > 0 and j - i - 1 >= min_loop:
            inner = table[base[i + 1] + j - 1] if i + 1 <= j - 1 else 0
            if inner + w == v:
                pair_to[i] = j
                pair_to[j] = i
                stack[top, 0] = i + 1
                stack[top, 1] = j - 1
                top += 1
                continue
        k = i
        while k < j and table[base[i] + k] + table[base[k + 1] + j] != v:
            k += 1
        if k == j:
            pair_to[0] = CORRUPT  # no split reproduces the value: check_traced raises InternalError
            return pair_to
        stack[top, 0] = k + 1
        stack[top, 1] = j
        stack[top + 1, 0] = i
        stack[top + 1, 1] = k
        top += 2
    return pair_to


def check_traced(pair_to, what="the folding table"):
    """``pair_to`` itself, or InternalError if its traceback found the table inconsistent."""
    if pair_to is not None and len(pair_to) and pair_to[0] == CORRUPT:
        raise InternalError(f"the traceback of {what} found a value no case of the recurrence reproduces")
    return pair_to


def dot_bracket(pair_to):
    """Dot-bracket string of ``pair_to``: '(' opens a pair, ')' closes it, '.' is unpaired.

    >>> dot_bracket([4, -1, -1, -1, 0])
    '(...)'
    """
    pair_to = np.asarray(pair_to)
    index = np.arange(pair_to.shape[0])
    chars = np.full(pair_to.shape[0], ord("."), dtype=np.uint8)
    chars[(pair_to >= 0) & (pair_to > index)] = ord("(")
    chars[(pair_to >= 0) & (pair_to < index)] = ord(")")
    return chars.tobytes().decode("ascii")


def parse_dot_bracket(structure: str) -> np.ndarray:
    """Dot-bracket to ``pair_to`` (int64, -1 for unpaired); only '(', ')' and '.' are accepted.

    >>> parse_dot_bracket("((..))").tolist()
    [5, 4, -1, -1, 1, 0]
    """
    pair_to = np.full(len(structure), -1, dtype=np.int64)
    opened = []
    for i, char in enumerate(structure):
        if char == "(":
            opened.append(i)
        elif char == ")":
            if not opened:
                raise InputError(f"structure: unmatched ')' at position {i + 1}")
            j = opened.pop()
            pair_to[i], pair_to[j] = j, i
        elif char != ".":
            raise InputError(f"structure: unexpected character {char!r} at position {i + 1} "
                             "(expected '(', ')' or '.')")
    if opened:
        raise InputError(f"structure: unmatched '(' at position {opened[-1] + 1}")
    return pair_to


def check_nested(pair_to, n: int) -> np.ndarray:
    """``pair_to`` as int64 if it is a structure over n positions: each partner pairs back, no pair
    crosses another (pseudoknots are not folded); else InputError naming the first position at fault.

    >>> check_nested([3, -1, -1, 0], 4).tolist()
    [3, -1, -1, 0]
    >>> check_nested([2, 3, 0, 1], 4)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InputError: pair (1, 3) crosses another pair (pseudoknots are not supported)
    """
    pair_to = np.asarray(pair_to, dtype=np.int64)
    if pair_to.shape != (n,):
        raise InputError(f"structure has {pair_to.shape[0] if pair_to.ndim == 1 else pair_to.shape} "
                         f"positions, the sequence {n}")
    stack = []
    for i, j in enumerate(pair_to.tolist()):
        if j == -1:
            continue
        if not 0 <= j < n or j == i or pair_to[j] != i:
            raise InputError(f"position {i + 1} pairs with {j + 1 if j >= 0 else j}, which does not pair back")
        if j > i:
            stack.append(j)
        elif not stack or stack[-1] != i:
            raise InputError(f"pair ({j + 1}, {i + 1}) crosses another pair (pseudoknots are not supported)")
        else:
            stack.pop()
    return pair_to
