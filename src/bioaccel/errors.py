"""Errors bioaccel raises on purpose.

Each one carries a message meant for a person: it names the file, record and position, or the value
that was wrong and what was expected. The command line prints it on one line and exits with status 2.
"""


class BioaccelError(Exception):
    """Base class of every error bioaccel raises on purpose."""


class InputError(BioaccelError, ValueError):
    """Bad input data: an unreadable file, a malformed record, an invalid letter."""


class InvalidParameter(BioaccelError, ValueError):
    """A parameter outside its allowed range or an unknown choice."""


class ResourceError(BioaccelError, MemoryError):
    """A problem that will not fit in the memory available; the message gives the estimate and a way out."""


class GPUUnavailable(BioaccelError, RuntimeError):
    """The GPU backend was asked for but there is no usable CUDA device or no CuPy."""
