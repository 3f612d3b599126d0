"""Launch sizes of the GPU kernels, and the C++ name expression of one kernel instantiation.

Every family keeps its launch sizes in one frozen dataclass that subclasses :class:`LaunchSizes`: its
fields are the kernels' template arguments and block sizes, its defaults the production values, and
the family's ``SIZES`` (read at call time, never bound as a default argument) the sizes a run uses. The
GPU tests patch small sizes over ``SIZES`` (tests/conftest.py), so that inputs of a few hundred bases
cross many tiles and blocks; production modules hold no test sizes. A kernel is compiled only when a
call launches it: :func:`bioaccel.runtime.gpu.kernel` builds its :func:`expression` and hands it to
CuPy, whose ``name_expressions`` instantiate the template (the .cu files list no instantiation).
Pure Python: nothing here needs a GPU.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Sizes(LaunchSizes):
...     tile: int = 128
>>> Sizes().replace(tile=32)
Sizes(tile=32)
>>> expression("fill", ("short", Sizes().tile, True))
'fill<short, 128, true>'
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class LaunchSizes:
    """The base of every family's launch sizes (fold/_launch.FoldSizes, interact/_gpu_launch.BPMaxSizes,
    interact/_maxplus_gpu.ProductSizes, motif/_launch.BucketSizes, scan/_gpu.ScanSizes)."""

    def replace(self, **changes):
        """These sizes with ``changes`` (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)


def template_argument(value) -> str:
    """One C++ template argument: ``true``/``false`` for a bool, the text of anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def expression(name: str, arguments=()) -> str:
    """The C++ name expression of kernel ``name`` instantiated with template ``arguments`` (none: the
    plain name of a kernel that is no template).

    >>> expression("scan_fused", (4, 256, 16)), expression("slice_histogram_markov")
    ('scan_fused<4, 256, 16>', 'slice_histogram_markov')
    """
    if not arguments:
        return name
    return f"{name}<{', '.join(map(template_argument, arguments))}>"
