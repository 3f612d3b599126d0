"""McCaskill's partition function and every base-pair probability of ONE long RNA on the GPU (variant
``tiled`` of the Turner 2004 partition function; kernels/turner_pf_long.cu and .cuh), FP64.

The CPU's recurrences (:mod:`._turner_pf_fill`, docs/mccaskill.md) over five n x n float64 tables in
device memory, tile-diagonal by tile-diagonal as the GPU MFE (:mod:`._turner_tiled_gpu`): per
tile-diagonal a register-tiled FP64 product of finished tiles for the O(n^3) multiloop sums (one inside,
two outside: the multiloop sum S(i, j) is kept as a table of its own, so that the inside has one and the
outside two), then one block per tile finishing its cells anti-diagonal by anti-diagonal (hairpin,
interior loops of at most 30 unpaired bases, the rest of the sums). Between inside and outside, q5 and q3
on two blocks; at the end P(i, j) = qb ob / Z on the device, and the n x n matrix comes back.

Scaling as the CPU's (every value carries the product of a per-base scale over its bases): by default
uniform, from the minimum free energy (the GPU MFE, :mod:`._turner_tiled_gpu`) times :data:`RATIO` (the
ensemble free energy of long RNAs lies a few percent below the MFE); where the scaled Z leaves double
range or e^+-:data:`LOG_RANGE`, the inside is redone with a corrected scale (bisection, then the exact one
from ln Z). The same numbers as :func:`._turner_pf_cpu.partition` within rounding (tests: ln Z to 1e-10
relative, probabilities to 1e-9; tests/test_turner_pf_long_gpu.py).

Memory: 40 N^2 bytes on the device (N = n rounded up to the tile; 35.9 GB at 29,903 nt), refused up front
(:func:`check_fits`). Pure Python until :func:`partition` runs: importing this needs no GPU.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InternalError, ResourceError
from ..runtime.launch import LaunchSizes
from ..runtime.memory import format_bytes
from ._turner_gpu import MAX_GPU_LENGTH, _device_codes

#: The ensemble free energy of long RNAs over their MFE (ViennaRNA 2.8: random 1,000 nt 1.066, 3,000 nt
#: 1.055): the default scale assumes this much more than the MFE, so that the scaled Z starts near 1.
RATIO = 1.05
#: the scaled Z is accepted within e^+-LOG_RANGE, else the inside is redone with a corrected scale
LOG_RANGE = 300
#: fills tried before giving up on a scale
MAX_REFILLS = 12
#: n x n float64 tables on the device
TABLES = 5
#: share of the GPU's free memory one partition function may take
GPU_MEMORY_FRACTION = 0.9
#: sequences longer than this take this path with the GPU's default variant (shorter: the batch's)
LONG_LENGTH = MAX_GPU_LENGTH


@dataclass(frozen=True)
class PfLongSizes(LaunchSizes):
    """Launch sizes of the long partition function (tests patch small ones).

    >>> SIZES.tile, SIZES.replace(tile=16).tile
    (64, 16)
    """

    tile: int = 64       # tile edge: a multiple of 16 (the product's 256 threads hold (tile / 16)^2 cells)
    stage: int = 16      # splits k of a product stage (stage * tile a multiple of 256)
    lanes: int = 4       # threads of a finish sharing a cell (a power of two, tile * lanes <= 1024)


SIZES = PfLongSizes()


def padded(n, sizes=None) -> int:
    """n rounded up to a whole number of tiles.

    >>> padded(29_903), padded(64), padded(0)
    (29952, 64, 0)
    """
    T = (sizes or SIZES).tile
    return -(-n // T) * T


def device_bytes(n, sizes=None) -> int:
    """Device bytes of one n-long partition function: five N x N float64 tables, two scratch tile rows,
    the per-base vectors.

    >>> round(device_bytes(29_903) / 1e9, 1)
    35.9
    """
    sizes = sizes or SIZES
    N = padded(n, sizes)
    return TABLES * 8 * N * N + 2 * 8 * N * sizes.tile + 8 * (n + 1) * 40 + 8 * (n + 1) * 4


def check_fits(n, free_bytes, sizes=None) -> None:
    """Refuse (ResourceError, one line with the estimate), before anything is allocated, a partition
    function whose tables will not fit in ``free_bytes`` of device memory.

    >>> check_fits(29_903, 80 << 30)
    >>> check_fits(50_000, 80 << 30)
    Traceback (most recent call last):
    ...
    bioaccel.errors.ResourceError: the partition function of a sequence of length 50,000 on the GPU needs about 93.4 GiB of device memory (five n x n float64 tables) but only 80.0 GiB is free; run it on a GPU with more memory, or fold shorter pieces (a window)
    """
    need = device_bytes(n, sizes)
    if need > GPU_MEMORY_FRACTION * free_bytes:
        raise ResourceError(f"the partition function of a sequence of length {n:,} on the GPU needs about "
                            f"{format_bytes(need)} of device memory (five n x n float64 tables) but only "
                            f"{format_bytes(free_bytes)} is free; run it on a GPU with more memory, or fold "
                            "shorter pieces (a window)")


def check_lengths(lengths) -> None:
    """Refuse, before any is computed, a longest sequence whose tables will not fit the GPU here (no GPU:
    nothing to check; the call itself then says so).

    >>> check_lengths([])
    """
    from ..runtime import gpu as _gpu

    if lengths and _gpu.gpu_available():
        check_fits(max(lengths), _gpu.free_memory())


def goes_long(n, variant="batch") -> bool:
    """Whether an n-long sequence takes this path: with variant ``tiled`` always, with the GPU's default
    when it is longer than the batch takes.

    >>> goes_long(4_000), goes_long(4_001), goes_long(300, "tiled")
    (False, True, True)
    """
    return variant == "tiled" or n > LONG_LENGTH


def _kernels(sizes):
    """The five kernels of turner_pf_long.cu for these sizes, from one NVRTC compile."""
    from ..runtime import gpu as _gpu
    from ..runtime.launch import expression

    T = sizes.tile
    names = (expression("pf_product", (T, sizes.stage)), expression("pf_inside_finish", (T, sizes.lanes)),
             "pf_exterior", expression("pf_outside_finish", (T, sizes.lanes)), "pf_probabilities")
    module = _gpu.load_module("bioaccel.fold.kernels", "turner_pf_long.cu", names)
    return tuple(module.get_function(name) for name in names)


def hairpin_factors(B, kT, lxc, longest) -> np.ndarray:
    """The size factor of a hairpin of u unpaired bases, u = 0..longest (past 30 extrapolated unrounded,
    as :func:`._turner_pf_loops.exp_hairpin`), made on the host.

    >>> from ._turner_pf_params import boltzmann_tables
    >>> from ._turner_tables import HAIRPIN, kernel_inputs
    >>> B, kT = boltzmann_tables(37.0)
    >>> h = hairpin_factors(B, kT, kernel_inputs(None)[1], 40)
    >>> bool(h[5] == B[HAIRPIN + 5]), bool(h[40] < h[30])
    (True, True)
    """
    from ._turner_pf_params import exp_hairpin_long
    from ._turner_tables import HAIRPIN

    out = np.array(B[HAIRPIN + np.minimum(np.arange(longest + 1), 30)], dtype=np.float64)
    for u in range(31, longest + 1):
        out[u] = exp_hairpin_long(B, kT, lxc, u)
    return out


def mfe_estimate(codes, model) -> int:
    """The minimum free energy (dcal/mol) of ``codes`` on the GPU (:mod:`._turner_tiled_gpu`), for the
    scale; its tables are given back to the memory pool before the partition function's."""
    from ..runtime import gpu as _gpu
    from ._turner_tiled_gpu import fold

    energy = fold([codes], model, "tiled", False)[0][0]     # one compile for every length
    _gpu.require_gpu().get_default_memory_pool().free_all_blocks()
    return int(energy)


def partition(codes, model=None, *, want_bpp=True, log_scale=None, estimate=None, sizes=None, phases=None):
    """``(log_z, P)`` of one sequence (bioaccel.inputs.alphabet codes), as :func:`._turner_pf_cpu.partition`:
    ln Z, and with ``want_bpp`` the n x n base-pair probabilities (upper triangle, 0-based; numpy), else
    None. ``log_scale``: per-base natural-log scales (then one fill, no rescue); ``estimate``: the free
    energy (dcal/mol) the default scale starts from (default: the GPU MFE times RATIO). ``phases``
    (benchmarks): a dict that gets seconds per phase (``mfe``, ``inside``, ``outside``, ``copy``) and the
    number of fills."""
    import time

    from ..runtime import gpu as _gpu
    from ._turner_pf_cpu import _scales
    from ._turner_pf_params import boltzmann_tables
    from ._turner_tables import kernel_inputs, table_codes

    sizes = sizes or SIZES
    n = len(codes)
    if n < 5:                       # no pair fits: the unfolded chain alone, Z = 1
        return 0.0, (np.zeros((n, n)) if want_bpp else None)
    cp = _gpu.require_gpu()
    check_fits(n, _gpu.free_memory(), sizes)
    phases = {} if phases is None else phases
    clock = time.perf_counter()
    E, lxc, no_lp = kernel_inputs(model)
    temperature = 37.0 if model is None else model.temperature
    B, kT = boltzmann_tables(temperature, False if model is None else model.no_gu)
    if log_scale is None and estimate is None:
        estimate = mfe_estimate(codes, model) * RATIO
    phases["mfe"] = time.perf_counter() - clock
    product, inside_finish, exterior, outside_finish, probabilities = _kernels(sizes)
    T, N = sizes.tile, padded(n, sizes)
    tiles = N // T
    codes_dev = _device_codes(cp, np.ascontiguousarray(codes))
    common = [cp.asarray(B), cp.asarray(E), cp.asarray(hairpin_factors(B, kT, lxc, n)), codes_dev]
    tables = [cp.zeros((N, N), dtype=np.float64) for _ in range(TABLES)]        # QB, QM, QM1, X, QI
    scratch = cp.zeros(2 * tiles * T * T, dtype=np.float64)
    q5, q3 = cp.zeros(n + 1), cp.zeros(n + 1)
    n_, N_, lanes = np.int32(n), np.int64(N), T * sizes.lanes
    target = None if log_scale is not None else -estimate * 10.0 / kT       # the ln Z the scale assumes
    low = high = None
    fills = 0
    clock = time.perf_counter()
    for _ in range(MAX_REFILLS):
        logs = np.asarray(log_scale, float) if log_scale is not None else np.full(n, -target / n)
        host = _scales(n, logs)                                        # sc, seg, cum
        vectors = [cp.asarray(v) for v in host]
        args = common + vectors + [n_, np.int32(no_lp)]
        if fills:
            for t in tables:
                t.fill(0)
        fills += 1
        for d in range(tiles):
            product((tiles - d, 1), (256,), (tables[1], tables[2], scratch, n_, N_, np.int32(d), np.int32(0)))
            inside_finish((tiles - d,), (lanes,), (*args, *tables, scratch, N_, np.int32(d)))
        exterior((2,), (1024,), (*args, tables[0], N_, q5, q3))
        z = float(q5[n].get())
        cum_n = float(host[2][n])
        ok = 0 < z < math.inf
        log_z = math.log(z) - cum_n if ok else math.nan
        if log_scale is not None or (ok and abs(math.log(z)) < LOG_RANGE):
            break
        if ok:                  # in range but far from 1: the next scale is exact
            target = log_z
            continue
        if z == 0:              # underflow: the scale assumed too much
            high = target
        else:                   # inf or nan: too little
            low = target
        if low is not None and high is not None:
            target = (low + high) / 2
        else:
            target = target - max(2.0 * LOG_RANGE, abs(target)) if z == 0 else target + max(2.0 * LOG_RANGE,
                                                                                           abs(target))
    cp.cuda.Device().synchronize()
    phases["inside"], phases["fills"] = time.perf_counter() - clock, fills
    if not math.isfinite(log_z):
        raise InternalError(f"the partition function of a sequence of {n:,} bases left double range at every scale")
    if not want_bpp:
        return log_z, None
    clock = time.perf_counter()
    for d in range(tiles - 1, -1, -1):
        product((tiles - d, 2), (256,), (tables[1], tables[2], scratch, n_, N_, np.int32(d), np.int32(1)))
        outside_finish((tiles - d,), (lanes,), (*args, *tables, scratch, q5, q3, N_, np.int32(d)))
    out = tables[3].reshape(-1)[:n * n].reshape(n, n)           # X is free now: P, n x n
    probabilities((math.ceil(n * n / 256),), (256,), (tables[0], N_, n_, np.float64(1.0 / z), out))
    cp.cuda.Device().synchronize()
    phases["outside"] = time.perf_counter() - clock
    clock = time.perf_counter()
    P = cp.asnumpy(out)
    phases["copy"] = time.perf_counter() - clock
    return log_z, P


def partition_many(codes_list, model=None, *, want_bpp=True) -> list:
    """:func:`partition` of each sequence, one after another (each takes the whole GPU)."""
    return [partition(codes, model, want_bpp=want_bpp) for codes in codes_list]
