"""Errors bioaccel raises on purpose.

Each one carries a message meant for a person: it names the file, record and position, or the value
that was wrong and what was expected. The command line prints it on one line and exits with status 2
(status 70 for :class:`InternalError`, which is a bug in bioaccel, never the user's fault).

>>> issubclass(InvalidParameter, ValueError), issubclass(NotAvailable, InvalidParameter)
(True, True)
"""


class BioaccelError(Exception):
    """Base class of every error bioaccel raises on purpose."""


class InputError(BioaccelError, ValueError):
    """Bad input data: an unreadable file, a malformed record, an invalid letter."""


class InvalidParameter(BioaccelError, ValueError):
    """A parameter outside its allowed range or an unknown choice."""


class NotAvailable(InvalidParameter):
    """A known variant (or feature) asked for on a backend that does not have it.

    Built by :func:`not_available`, so every family words it the same way.
    """


class ResourceError(BioaccelError, MemoryError):
    """A problem that will not fit in the memory available; the message gives the estimate and a way out."""


class OutputError(BioaccelError, OSError):
    """An output that could not be written (a full disk, a file system gone read-only): the message
    names the option and the path; nothing half-written is left in place."""


class GPUUnavailable(BioaccelError, RuntimeError):
    """The GPU backend was asked for but there is no usable CUDA device or no CuPy."""


class InternalError(BioaccelError, RuntimeError):
    """Something bioaccel checks about its own work failed (a table that does not reproduce its own
    optimum, a kernel that skipped cells): a bug, never bad input. The message asks for a report."""

    def __init__(self, what):
        super().__init__(f"internal error: {what}. This is a bug in bioaccel; please report it with the "
                         "command and input that caused it")


def not_available(what, backend, available):
    """The one wording of "this variant is not on this backend", listing where it is.

    >>> str(not_available("variant 'naive'", "gpu", ["cpu"]))
    "variant 'naive' is not available on the gpu backend (available on: cpu)"
    """
    where = ", ".join(available) if available else "no backend"
    return NotAvailable(f"{what} is not available on the {backend} backend (available on: {where})")
