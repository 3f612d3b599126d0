"""Decimal text written by Numba into byte buffers: the formatters that write millions of rows (a scan's
hits, the base-pair probabilities of many RNAs) without a Python step per number.
"""
from numba import njit


@njit(cache=True, nogil=True)
def put_int(buf, pos: int, value: int) -> int:
    """Write the decimal digits of ``value`` (a ``-`` first when negative) into the uint8 array ``buf`` at
    ``pos``; return the position after them.

    >>> import numpy as np
    >>> buf = np.zeros(8, np.uint8)
    >>> end = put_int(buf, put_int(buf, 0, -42), 7)
    >>> buf[:end].tobytes()
    b'-427'
    """
    if value < 0:
        buf[pos] = 45           # '-'
        pos += 1
        value = -value
    if value == 0:
        buf[pos] = 48
        return pos + 1
    n = 0
    v = value
    while v > 0:
        n += 1
        v //= 10
    for i in range(n - 1, -1, -1):
        buf[pos + i] = 48 + value % 10
        value //= 10
    return pos + n
