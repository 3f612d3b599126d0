"""How numbers and values are shown: the one number formatter of every text output, values in
error messages, and plain Python values for JSON."""
import math

import numpy as np


def format_number(value, digits=None) -> str:
    """A number as text: whole numbers without a decimal point, others as the shortest text that
    reads back to the same float (or ``digits`` significant digits); missing values as ``NA``.

    >>> [format_number(x) for x in (3, 3.0, 2.5, 0.1 + 0.2, None, float("inf"))]
    ['3', '3', '2.5', '0.30000000000000004', 'NA', 'inf']
    >>> format_number(1.0014e-04, digits=3)
    '0.0001'
    """
    if value is None:
        return "NA"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "NA"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}" if digits else repr(value)


def shown(value) -> str:
    """A value in an error message, as a person would write it (never a NumPy repr): numbers as
    :func:`format_number` writes them, but NaN as ``nan``; anything else as its ``repr``.

    >>> shown(0.0), shown(float("nan")), shown(1e-4), shown(np.float64(2.5)), shown("x")
    ('0', 'nan', '0.0001', '2.5', "'x'")
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return repr(value)
    if math.isnan(value):
        return "nan"
    return format_number(value)


def plain(value):
    """``value`` as plain Python for JSON: NumPy scalars and arrays unwrapped, NaN as None.

    >>> plain(np.int16(3)), plain(np.array([1, 2])), plain(float("nan"))
    (3, [1, 2], None)
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
