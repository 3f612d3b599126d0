"""Host memory: how much is available, and the one up-front refusal every table size goes through.

A size that will not fit is refused before anything is allocated, with the estimate, what is
available, and a way out (a window, packed storage, another backend).
"""
import os

from ..errors import ResourceError

#: Share of the available memory one table may take.
MEMORY_FRACTION = 0.85


def available_memory():
    """Bytes of memory available to a new allocation (MemAvailable on Linux), or None if unknown."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def require_memory(estimate, what, way_out=None):
    """Raise ResourceError when ``estimate`` bytes will not fit in the memory available now.

    ``what`` names the table ("folding a sequence of length 5,000"); ``way_out`` is a hint, or a
    function of the byte limit returning one (e.g. the window that would fit) or None.
    """
    available = available_memory()
    if available is None:
        return
    limit = int(available * MEMORY_FRACTION)
    if estimate > limit:
        hint = way_out(limit) if callable(way_out) else way_out
        raise ResourceError(
            f"{what} needs about {format_bytes(estimate)} but only {format_bytes(available)} of memory "
            f"is available" + (f"; {hint}" if hint else "")
        )
