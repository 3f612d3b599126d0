"""GPU Nussinov benchmark in the shape of Li, Ranka & Sahni's Table 2, on an H100/H200.

For each length: fill time, traceback time and end-to-end time of every GPU variant (the seed ones
are skipped where their predicted time passes --budget, from the n^3 growth of their last time), the
fraction of the max-plus ceiling of the project's limits.md reached by the fill (useful updates
n^3/6 over time, against 30.8 T/s for int16x2 DPX and 15.5 T/s for int32), and the fastest CPU variant
at small n. Every variant's score at a length must agree; the table says so.

    python3 bench/nussinov_gpu.py [--lengths 2000,6000,...] [--budget 60] [--cpu-max 6000] [--compare-int32]

Past 65,535 nt bioaccel keeps int16 cells over an int32 base per tile (fold/_gpu_tiled.py,
cell_encoding): its fill counts against the int16x2 ceiling there too. ``--compare-int32`` also times
the int32 cells at those lengths (the path before the offset encoding), with the same score required.
The ``fill+tb`` column is the fraction of the ceiling counting the traceback's time with the fill's.

``--batch`` times batches of many RNAs instead (issue 14's rows, or ``--rows 20000x200,...``): end to
end through ``nussinov_batch(list of str, backend="gpu")`` (encoding, fold, traceback, scores and
dot-brackets in host memory), the fold on the device alone, the per-record API ``nussinov`` beside it
on the smaller rows, and the CPU default (``nussinov_batch(backend="cpu")``, all cores of the machine)
where its predicted time stays under --budget; the fraction of the int16x2 ceiling counts n^3/6 per
sequence. Each GPU time is the median of --repeats runs. ViennaRNA's RNAfold (``RNA.fold``, minimum
free energy: a different model, for scale; ``pip install ViennaRNA``) folds the same batch on every
core, a process per core, where a probe of its first sequences predicts at most --budget seconds.
``--settings b1:64:host,x2:64:gpu`` times the old and the new batch code one after the other in the same
run (short-RNA kernel, tiled batch tile, host or device encoding) and compares their digests. The tile
may carry the tiled batch's form and options: ``64w`` the wavefront form (before issue 29's sub-tiled
one), then after "/" ``s64`` 64-byte bulk stages (``s0``: a tile row), ``x1`` one stream, ``t32``
32-thread traceback blocks, ``c0`` the sub-tiles' closure before its tests became mask bits (``c1``;
``c2``: its loads predicated too), ``d0`` the diagonal's tiles by batch_finish (``d1``: batch_finish_diag; ``d2``: batch_finish_sub_diag),
``w0`` the traceback's walk before the interval in hand was held in registers (``w1``; ``w3``: its scans only
at the m where (i, m-1) may pair), ``h0`` a kept plan's upload made again by each fold before its first launch
(issue 29's nbhost2: ``h1`` keeps it on the device), production's value
where unnamed (``64w/x1/s0``: the form before issue 29).
``--phases`` adds each kernel's device seconds in one fold of every setting (with several streams the
kernels overlap: their sum passes the fold), and where the time outside them goes: on the device before the
first kernel starts, between kernels, after the last one ends; on the host, the seconds from the call to the
first launch and to the return, and a host profile of one fold queued (cProfile: the functions that take
the host's time, CuPy's C ones included). ENCODE
``gpuend`` is the device-encoded path before the per-chunk copies (8 chunks, results copied at the end).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.inputs.alphabet import encode  # noqa: E402
from bioaccel.fold import VARIANTS, FoldParams, fold_table  # noqa: E402
from bioaccel.fold import _gpu as gpu  # noqa: E402
from bioaccel.fold import _gpu_table, _launch  # noqa: E402
from _results import save_json  # noqa: E402
from _ceilings import INT16X2_DPX, INT32_DPX  # noqa: E402

PARAMS = FoldParams()                    # made once: the timed folds time fold_packed, not the model's making
CEILING = {"int16x2": INT16X2_DPX, "int32": INT32_DPX}
SEED_NAMES = {v: VARIANTS.variants[v].paper_name or "bioaccel" for v in VARIANTS.names("gpu")}
DEFAULT_LENGTHS = "2000,6000,10000,14000,18000,22000,26000,37000,65000,100000"


def random_rna(n, seed):
    rng = np.random.default_rng(seed)
    return "".join(np.array(list("ACGU"))[rng.integers(0, 4, n)])


def time_variant(cp, seq, params, variant, encoding=None):
    from bioaccel.fold._gpu_tiled import cell_encoding, fill_tiled

    codes = encode(seq)
    n = len(seq)
    pm = _gpu_table.pair_model(cp, params)
    gpu.check_fits(n, variant, params)
    start, filled, traced = cp.cuda.Event(), cp.cuda.Event(), cp.cuda.Event()
    t0 = time.perf_counter()
    codes_dev = cp.asarray(codes)
    start.record()
    if encoding:
        table = fill_tiled(codes_dev, n, params, pm, encoding=encoding)
    else:
        table = gpu.fill(codes_dev, n, params, pm, variant)
    filled.record()
    pair_to = _gpu_table.trace_structure(table, codes_dev, pm)
    traced.record()
    traced.synchronize()
    score = _gpu_table.score_units(table)
    total = time.perf_counter() - t0
    fill_s = cp.cuda.get_elapsed_time(start, filled) / 1e3
    trace_s = cp.cuda.get_elapsed_time(filled, traced) / 1e3
    lanes = "int16x2" if variant == "tiled" and table.values.dtype == np.int16 else "int32"
    del table
    cp.get_default_memory_pool().free_all_blocks()
    result = {"score": score, "fill_s": fill_s, "traceback_s": trace_s, "end_to_end_s": total,
              "pairs": int((pair_to >= 0).sum() // 2), "lanes": lanes,
              "ceiling_fraction": (n ** 3 / 6) / fill_s / CEILING[lanes],
              "ceiling_fraction_with_traceback": (n ** 3 / 6) / (fill_s + trace_s) / CEILING[lanes]}
    if variant == "tiled":
        result["encoding"] = encoding or cell_encoding(n, params, _launch.SIZES.tile)
    return result


def time_cpu(seq, params):
    codes = encode(seq)
    fold_table(codes[:50], params=params)          # compile outside the timing
    t0 = time.perf_counter()
    table = fold_table(codes, params=params)
    return {"score": int(table[0, len(seq) - 1]), "fill_s": time.perf_counter() - t0}


BATCH_ROWS = "20000x200,100000x120,2000x1000,1000000x200"
RECORD_API_MAX = 100_000            # rows of at most this many sequences also go through nussinov()


def random_batch(count, n, seed):
    """``count`` random RNAs of n nt as Python strings (built vectorised: the setup is not timed)."""
    picks = np.random.default_rng(seed).integers(0, 4, count * n, dtype=np.uint8)
    letters = np.frombuffer(b"ACGU", dtype=np.uint8)[picks]
    text = letters.tobytes().decode("ascii")
    return [text[k * n:(k + 1) * n] for k in range(count)]


def _rnafold(seq):
    import RNA

    return RNA.fold(seq)[1]


def time_rnafold(seqs, budget):
    """Seconds for ViennaRNA's RNAfold over ``seqs`` on every core (a forked process per core; the
    children touch no GPU), or None where ViennaRNA is missing or a probe predicts over ``budget``."""
    try:
        import RNA
    except ImportError:
        return None
    import multiprocessing

    probe = seqs[:4]
    t0 = time.perf_counter()
    for seq in probe:
        RNA.fold(seq)
    cores = os.cpu_count() or 1
    if (time.perf_counter() - t0) / max(len(probe), 1) * len(seqs) / cores > budget:
        return None
    with multiprocessing.get_context("fork").Pool(cores) as pool:
        t0 = time.perf_counter()
        pool.map(_rnafold, seqs, chunksize=max(1, len(seqs) // (cores * 8)))
        return time.perf_counter() - t0


def _batch_setting(kernel, tile):
    """Select the short-RNA kernel (b1, x2, x2t, x4t, x2tr, x4tr; a trailing s: int16 cells, then c: carveout 100%)
    and the tiled batch's tile edge and options (``"64"``, ``"64w"``, ``"64/s64/x1/t32"``) for the next runs."""
    from dataclasses import replace

    # 64w: the wavefront form; options after "/": s64 64-byte bulk stages (int16 cells; s0: a tile row, at
    # most 128 bytes), x1 one stream, t32 32-thread traceback blocks (64/s64/x1/t32; 64w/x1/s0: before issue 29), c0 the
    # sub-tiles' closure before its tests became mask bits (c1; c2 its loads predicated too; c3 c1's closure after
    # c2's tile read; c4 c3 with a slimmer closure step, c5 c4 with the loads only where the cell lies in the sub-tile), d0 the diagonal's tiles by batch_finish (d1: batch_finish_diag, d2: batch_finish_sub_diag), w0 the traceback's walk
    # before the interval held in registers (w1; w3 its scans only where (i, m-1) may pair; w5 w3 stepping in a window staged in shared memory), p0 no launch plan kept for a batch of the same starts, z1 no bulk launch at d = 1, h0 a kept plan's upload made again each fold before the first launch, r0 the status read into pageable memory (r1: pinned)
    tile, *options = str(tile).split("/")
    form = "wavefront" if tile.endswith("w") else "sub"
    tile = int(tile.rstrip("w"))
    option, default = {o[0]: int(o[1:]) for o in options}, _launch.FoldSizes()     # unnamed: production's
    tiled = dict(batch_finish=form, batch_stage_bytes=option.get("s", default.batch_stage_bytes),
                 batch_streams=option.get("x", default.batch_streams),
                 batch_traceback_threads=option.get("t", default.batch_traceback_threads),
                 batch_closure=option.get("c", default.batch_closure),
                 batch_diagonal=option.get("d", default.batch_diagonal),
                 batch_walk=option.get("w", default.batch_walk),
                 batch_skip_first_bulk=option.get("z", default.batch_skip_first_bulk))

    from bioaccel.fold import _gpu_batch

    carveout = kernel.endswith("c")                        # x2c, x2tc, ...: the kernel with all shared memory
    kernel = kernel[:-1] if carveout else kernel
    short = kernel.endswith("s")                           # x2ts, ...: int16 cells even where int8 ones hold
    _gpu_batch.SHORT_KERNEL = kernel[:-1] if short else kernel
    _gpu_batch.SHARED_CARVEOUT = 100 if carveout else None
    _gpu_batch.X2_MAX_SCORE = (-1 if short else 127, 16_383)
    _launch.SIZES = replace(_launch.SIZES, batch_tile=tile, **tiled)
    _gpu_batch.PLAN_CACHE_MAX = 65_536 if option.get("p", 1) else 0
    _gpu_batch.KEEP_UPLOADS = bool(option.get("h", 1))
    _gpu_batch.PINNED_STATUS = bool(option.get("r", 1))


def _end_to_end_host_encoded(cp, seqs):
    """The b1 path of nussinov_batch(backend="gpu"): encoded on the host, codes copied to the device."""
    from bioaccel.fold._arrays import FoldBatch, _scores, encode_packed, structure_array
    from bioaccel.fold._gpu_batch import fold_packed

    codes, starts = encode_packed(seqs)
    out = fold_packed(cp.asarray(codes), starts, FoldParams())
    return FoldBatch(_scores(cp.asnumpy(out.scores), FoldParams()),
                     structure_array(starts, chars=cp.asnumpy(out.chars)))


def _end_to_end_copied_at_end(cp, seqs, chunk=1 << 17):
    """The device-encoded path as it was before the per-chunk copies (issue 29, x2t's session): chunks of
    ``chunk`` sequences, each joined while the GPU folds the one before, every result copied back at the end."""
    from bioaccel.fold._arrays import FoldBatch, _scores, structure_array
    from bioaccel.fold._arrays_gpu import joined_letters
    from bioaccel.fold._gpu_batch import check_packed, fold_packed
    from bioaccel.inputs.alphabet import OTHER, code_of_byte

    table, runs = cp.asarray(code_of_byte()), []
    for a in range(0, len(seqs), chunk):
        letters, starts = joined_letters(seqs[a:a + chunk])
        codes = cp.minimum(table[cp.asarray(letters)], OTHER)
        runs.append((starts, fold_packed(codes, starts, FoldParams(), check=False)))
    offsets = np.cumsum([0] + [int(starts[-1]) for starts, _ in runs])
    all_starts = np.concatenate([starts[:-1] + offset for (starts, _), offset in zip(runs, offsets)]
                                + [offsets[-1:]]).astype(np.int64)
    units = np.concatenate([cp.asnumpy(out.scores) for _, out in runs])
    chars = np.empty(int(offsets[-1]), dtype=np.uint8)
    for (starts, out), offset in zip(runs, offsets):
        check_packed(out)
        out.chars[:int(starts[-1])].get(out=chars[offset:offset + int(starts[-1])])
    return FoldBatch(_scores(units, FoldParams()), structure_array(all_starts, chars=chars))


def _digest(scores, structures):
    import hashlib

    return hashlib.sha256(np.asarray(scores, dtype=np.int64).tobytes() + structures.tobytes()).hexdigest()[:16]


def time_setting(cp, seqs, setting, repeats):
    """End to end and fold seconds (medians) of one ``kernel:tile:encode`` setting, and its digest."""
    from bioaccel.fold import nussinov_batch
    from bioaccel.fold._arrays import encode_packed
    from bioaccel.fold._gpu_batch import fold_packed

    kernel, tile, where = setting.split(":")
    _batch_setting(kernel, tile)
    ends, folds = [], []
    codes, starts = encode_packed(seqs)
    for _ in range(repeats):
        t0 = time.perf_counter()
        if where == "host":
            scores, structures = _end_to_end_host_encoded(cp, seqs)
        elif where == "gpuend":
            scores, structures = _end_to_end_copied_at_end(cp, seqs)
        else:
            scores, structures = nussinov_batch(seqs, backend="gpu")
        ends.append(time.perf_counter() - t0)
        codes_dev = cp.asarray(codes)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fold_packed(codes_dev, starts, PARAMS)
        stop.record()
        stop.synchronize()
        folds.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        del codes_dev
    return {"setting": setting, "end_to_end_s": float(np.median(ends)), "end_to_end_runs": ends,
            "fold_s": float(np.median(folds)), "fold_runs": folds, "digest": _digest(scores, structures)}, \
        (scores, structures)


def time_phases(cp, seqs, setting):
    """Device seconds of each kernel of one ``fold_packed`` under ``setting`` (an event pair around every
    launch, summed by kernel name), and of the whole fold: where the tiled batch's time goes."""
    from bioaccel.fold import _gpu_batch, _gpu_batch_tiled
    from bioaccel.fold._arrays import encode_packed

    kernel, tile, _ = setting.split(":")
    _batch_setting(kernel, tile)
    events = []

    class Timed:
        def __init__(self, fn, name):
            object.__setattr__(self, "fn", fn)
            object.__setattr__(self, "name", name)

        def __setattr__(self, key, value):
            setattr(self.fn, key, value)

        def __call__(self, *args, **kwargs):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            launched = time.perf_counter()
            start.record()
            self.fn(*args, **kwargs)
            stop.record()
            events.append((self.name, start, stop, launched))

    plain_kernel, plain_bulk = _gpu_batch.kernel, _gpu_batch_tiled.bulk_kernel
    timed_kernel = lambda filename, name, *a: Timed(plain_kernel(filename, name, *a), name)
    _gpu_batch.kernel = _gpu_batch_tiled.kernel = timed_kernel
    _gpu_batch_tiled.bulk_kernel = lambda *a, **k: (lambda b: (Timed(b[0], k.get("kernel_name", a[3] if len(a) > 3 else "bulk")),
                                                                b[1]))(plain_bulk(*a, **k))
    _gpu_batch_tiled.tiled_kernels.cache_clear()            # the group's kernels are kept: timed ones for these runs
    try:
        codes, starts = encode_packed(seqs)
        codes_dev = cp.asarray(codes)
        phases = {}
        for _ in range(2):                                  # the second run counts
            events.clear()
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            called = time.perf_counter()
            _gpu_batch.fold_packed(codes_dev, starts, PARAMS)
            returned = time.perf_counter()
            stop.record()
            stop.synchronize()
            phases = {"fold": cp.cuda.get_elapsed_time(start, stop) / 1e3}
            for name, a, b, _ in events:
                phases[name] = phases.get(name, 0.0) + cp.cuda.get_elapsed_time(a, b) / 1e3
            phases["outside kernels"] = phases["fold"] - sum(v for k, v in phases.items() if k != "fold")
            # where the time outside kernels goes (single stream: events in launch order)
            before = cp.cuda.get_elapsed_time(start, events[0][1]) / 1e3
            after = cp.cuda.get_elapsed_time(events[-1][2], stop) / 1e3
            phases.update({"outside: before the first kernel": before, "outside: after the last kernel": after,
                           "outside: between kernels": phases["outside kernels"] - before - after,
                           "host: call to first launch": events[0][3] - called,
                           "host: call to return": returned - called})
    finally:
        _gpu_batch.kernel = _gpu_batch_tiled.kernel = plain_kernel
        _gpu_batch_tiled.bulk_kernel = plain_bulk
        _gpu_batch_tiled.tiled_kernels.cache_clear()
    _gpu_batch.fold_packed(codes_dev, starts, FoldParams())          # the untimed kernels kept again, not profiled
    phases["host profile"] = _host_profile(cp, lambda: _gpu_batch.fold_packed(codes_dev, starts, FoldParams(), check=False))
    return phases


def _host_profile(cp, call, top=16):
    """The host's seconds in ``call`` (one fold queued, not waited for: check=False), by function, C ones
    included (CuPy's and the CUDA runtime's wrappers): what the host does before and between the launches."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    call()
    profile.disable()
    cp.cuda.get_current_stream().synchronize()
    stats = pstats.Stats(profile).stats                   # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    rows = sorted(((v[2], f"{k[2]} ({os.path.basename(k[0])}:{k[1]})", v[1]) for k, v in stats.items()), reverse=True)
    return {name: {"tottime_s": t, "calls": n} for t, name, n in rows[:top]}


def time_stages(cp, seqs):
    """Seconds of each step of the GPU end to end, one after the other (no overlap): the strings joined,
    copied as bytes and encoded on the device, folded, the letters copied back, the S array made."""
    from bioaccel.fold._arrays import structure_array
    from bioaccel.fold._arrays_gpu import joined_letters
    from bioaccel.fold._gpu_batch import fold_packed
    from bioaccel.inputs.alphabet import code_of_byte

    stages, t0 = {}, time.perf_counter()

    def lap(name):
        nonlocal t0
        cp.cuda.get_current_stream().synchronize()
        stages[name] = time.perf_counter() - t0
        t0 = time.perf_counter()

    letters, starts = joined_letters(seqs)
    lap("join")
    letters_dev = cp.asarray(letters)
    lap("copy_in")
    codes = cp.minimum(cp.asarray(code_of_byte())[letters_dev], 4)
    lap("encode_on_device")
    fold_packed(codes, starts, FoldParams(), traceback=False)
    lap("fold_without_traceback")
    out = fold_packed(codes, starts, FoldParams())
    lap("fold")
    chars = cp.asnumpy(out.chars)
    lap("copy_out")
    structure_array(starts, chars=chars)
    lap("structure_array")
    return stages


def time_batch_row(cp, count, n, args):
    from bioaccel.fold import nussinov, nussinov_batch
    from bioaccel.fold._arrays import encode_packed
    from bioaccel.fold._gpu_batch import ceiling_fraction

    seqs = random_batch(count, n, seed=count + n)
    lengths = [n] * count
    row = {"count": count, "n": n, "useful_updates": count * n ** 3 / 6, "settings": []}
    for setting in args.settings.split(","):
        timed, (scores, structures) = time_setting(cp, seqs, setting, args.repeats)
        timed["ceiling_fraction_fold"] = ceiling_fraction(lengths, timed["fold_s"])
        row["settings"].append(timed)
    row["same_digest"] = len({s["digest"] for s in row["settings"]}) == 1
    if args.stages_each:                       # each setting's stages (fold with and without the traceback)
        for timed in row["settings"]:
            _batch_setting(*timed["setting"].split(":")[:2])
            timed["stages_s"] = time_stages(cp, seqs)
            print(f"    {timed['setting']:>12} stages: "
                  + ", ".join(f"{k} {v:.4f} s" for k, v in timed["stages_s"].items()), flush=True)
        _batch_setting(*args.settings.split(",")[-1].split(":")[:2])
    if args.phases:
        for timed in row["settings"]:
            timed["phases_s"] = time_phases(cp, seqs, timed["setting"])
            print(f"    {timed['setting']:>12} phases: "
                  + ", ".join(f"{k} {v:.4f} s" for k, v in timed["phases_s"].items() if isinstance(v, float)), flush=True)
            print(f"    {timed['setting']:>12} host profile (tottime): " + ", ".join(
                f"{k} {v['tottime_s'] * 1e3:.3f} ms x{v['calls']}" for k, v in timed["phases_s"]["host profile"].items()))
        _batch_setting(*args.settings.split(",")[-1].split(":")[:2])
    last = row["settings"][-1]                 # the new default: the row's main numbers
    row["gpu_end_to_end_s"], row["gpu_end_to_end_runs"] = last["end_to_end_s"], last["end_to_end_runs"]
    row["gpu_fold_s"], row["gpu_fold_runs"] = last["fold_s"], last["fold_runs"]
    row["stages_s"] = time_stages(cp, seqs)
    t0 = time.perf_counter()
    encode_packed(seqs)
    row["encode_s"] = time.perf_counter() - t0
    row["seq_per_s"] = count / row["gpu_end_to_end_s"]
    row["ceiling_fraction_end_to_end"] = ceiling_fraction(lengths, row["gpu_end_to_end_s"])
    row["ceiling_fraction_fold"] = ceiling_fraction(lengths, row["gpu_fold_s"])
    row["pairs_checksum"] = int(sum(s.count(b"(") for s in structures[:1000].tolist()))
    if count <= RECORD_API_MAX:
        t0 = time.perf_counter()
        results = nussinov(seqs, backend="gpu")
        row["gpu_records_api_s"] = time.perf_counter() - t0
        assert [r.score for r in results[:1000]] == scores[:1000].tolist()
    predicted_cpu = count * n ** 3 / (3.2e10 * (os.cpu_count() or 1))   # n^3/s a core, batches of 200 nt
    if predicted_cpu <= args.budget:
        t0 = time.perf_counter()
        cpu_scores, cpu_structures = nussinov_batch(seqs, backend="cpu")
        row["cpu_s"] = time.perf_counter() - t0
        row["cpu_cores"] = os.cpu_count()
        row["agree"] = bool(np.array_equal(cpu_scores, scores) and np.array_equal(cpu_structures, structures))
    rnafold = time_rnafold(seqs, args.budget)
    if rnafold is not None:
        row["rnafold_s"] = rnafold
    print(f"  {count:>9,} x {n:>5}: {json.dumps({k: v for k, v in row.items() if not k.endswith('runs')})}",
          flush=True)
    for s in row["settings"]:
        print(f"    {s['setting']:>12}: end to end {s['end_to_end_s']:.3f} s (runs "
              f"{', '.join(f'{x:.3f}' for x in s['end_to_end_runs'])}), fold {s['fold_s']:.4f} s "
              f"({s['ceiling_fraction_fold']:.1%}; runs {', '.join(f'{x:.4f}' for x in s['fold_runs'])}), "
              f"digest {s['digest']}", flush=True)
    return row


def main_batch(args):
    from bioaccel.fold import nussinov_batch

    cp = gpu._gpu.require_gpu()
    device = gpu._gpu.device_name()
    warm = [random_rna(n, n) for n in (0, 1, 120, 200, 300, 1000, 3000)]
    for setting in args.settings.split(","):                # compile every kernel outside the timings
        _batch_setting(setting.split(":")[0], setting.split(":")[1])
        nussinov_batch(warm, backend="gpu")
    specs = [tuple(int(x) for x in spec.lower().split("x")) for spec in args.rows.split(",")]
    if any(count * n ** 3 / (3.2e10 * (os.cpu_count() or 1)) <= args.budget for count, n in specs):
        nussinov_batch(warm, backend="cpu")                 # (compiled only where a row times the CPU)
    rows = []
    for spec in args.rows.split(","):
        count, n = (int(x) for x in spec.lower().split("x"))
        rows.append(time_batch_row(cp, count, n, args))
    print(f"\nNussinov batches on {device} (CPU: {os.cpu_count()} cores): seconds, sequences per second, "
          "fraction of the int16x2 ceiling (n^3/6 per sequence)")
    print(f"{'batch':>16} {'GPU end to end':>15} {'seq/s':>10} {'ceiling':>8} {'GPU fold':>9} {'ceiling':>8} "
          f"{'encode':>7} {'nussinov()':>10} {'CPU':>8} {'RNAfold':>8} agree same-digest")
    for r in rows:
        print(f"{r['count']:>9,} x {r['n']:>4} {r['gpu_end_to_end_s']:>15.3f} {r['seq_per_s']:>10,.0f} "
              f"{r['ceiling_fraction_end_to_end']:>8.1%} {r['gpu_fold_s']:>9.3f} {r['ceiling_fraction_fold']:>8.1%} "
              f"{r['encode_s']:>7.3f} {r.get('gpu_records_api_s', float('nan')):>10.3f} "
              f"{r.get('cpu_s', float('nan')):>8.2f} {r.get('rnafold_s', float('nan')):>8.2f} "
              f"{'-' if 'agree' not in r else 'yes' if r['agree'] else 'NO'} {r['same_digest']}")
    print(f"CPU load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    payload = {"device": device, "cpu_cores": os.cpu_count(), "ceilings": CEILING, "rows": rows,
               "load_average": list(os.getloadavg())}
    save_json(payload, args.json.replace(".json", "_batch.json"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", action="store_true", help="time batches of many RNAs (see --rows)")
    parser.add_argument("--rows", default=BATCH_ROWS, help="batch rows, COUNTxLENGTH,...")
    parser.add_argument("--repeats", type=int, default=3, help="GPU runs per batch row (median)")
    parser.add_argument("--settings", default="x2t:64:gpu",
                        help="batch settings timed one after the other, KERNEL:TILE:ENCODE,... (KERNEL b1, x2, "
                             "x2t (2 x 2 cells a thread), x2t5 (x2t, five blocks an SM: the default), x2t5w (x2t5, the traceback by one "
                             "warp), x4t (4 x 4 cells a thread), x2tr and x4tr (blocks of an SM "
                             "taking turns at the busiest warp); a trailing s: int16 cells even where int8 hold, "
                             "then a trailing c: shared-memory carveout 100%%: the short-RNA kernel; TILE: the tiled batch's tile edge; ENCODE host (the "
                             "b1 path: encoded on the host), gpu (raw bytes encoded on the device, results copied back a chunk at a "
                             "time) or gpuend (the same with every result copied at the end, as before)); the "
                             "last one gives the row's main numbers; digests of scores and structures compared")
    parser.add_argument("--phases", action="store_true",
                        help="with --batch: also the device seconds of each kernel of one fold, by setting")
    parser.add_argument("--stages-each", action="store_true",
                        help="with --batch: the stages (fold with and without the traceback, ...) of every setting, "
                             "not only of the last")
    parser.add_argument("--lengths", default=DEFAULT_LENGTHS)
    parser.add_argument("--variants", default=",".join(VARIANTS.names("gpu")))
    parser.add_argument("--budget", type=float, default=30.0, help="skip a run predicted to take longer (s)")
    parser.add_argument("--cpu-max", type=int, default=6000, help="longest length timed on the CPU")
    parser.add_argument("--int16-lanes", choices=["Int16x2Pre", "Int16x2Dup", "Int16x2"],
                        help="the int16 bulk of bioaccel's fill (default: fold/_launch.py SIZES.int16_lanes)")
    parser.add_argument("--compare-int32", action="store_true",
                        help="where the offset encoding is used, also time bioaccel's fill with int32 cells")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "results", "nussinov_gpu.json"))
    args = parser.parse_args()
    if args.batch:
        return main_batch(args)

    if args.int16_lanes:
        from dataclasses import replace

        _launch.SIZES = replace(_launch.SIZES, int16_lanes=args.int16_lanes)
    cp = gpu._gpu.require_gpu()
    device = gpu._gpu.device_name()
    params = FoldParams()
    lengths = [int(x) for x in args.lengths.split(",")]
    variants = args.variants.split(",")
    warm = random_rna(700, 0)
    for v in variants:                                             # compile and warm every kernel
        time_variant(cp, warm, params, v)
    if "tiled" in variants:
        for encoding in ("offset", "int32"):
            time_variant(cp, warm, params, "tiled", encoding=encoding)

    rows, last = [], {}
    for n in lengths:
        seq = random_rna(n, n)
        row = {"n": n, "variants": {}}
        for v in variants:
            if v in last:
                n0, t0 = last[v]
                if t0 * (n / n0) ** 3 > args.budget:
                    continue
            try:
                result = time_variant(cp, seq, params, v)
            except MemoryError as exc:                              # ResourceError: refused up front
                result = {"refused": str(exc)}
            row["variants"][v] = result
            if "fill_s" in result:
                last[v] = (n, result["end_to_end_s"])
            print(f"  n={n:>7} {v:<15} {json.dumps(result)}", flush=True)
            if v == "tiled" and args.compare_int32 and result.get("encoding") == "offset":
                row["tiled_int32"] = time_variant(cp, seq, params, v, encoding="int32")
                print(f"  n={n:>7} {'tiled, int32':<15} {json.dumps(row['tiled_int32'])}", flush=True)
        if n <= args.cpu_max:
            row["cpu"] = time_cpu(seq, params)
        scores = {r["score"] for r in list(row["variants"].values()) + [row.get("tiled_int32", {})] if "score" in r}
        if row.get("cpu"):
            scores.add(row["cpu"]["score"])
        row["scores_agree"] = len(scores) == 1
        rows.append(row)

    print(f"\nNussinov fill on {device}, int16 bulk {_launch.SIZES.int16_lanes}: seconds (fraction of the max-plus "
          "ceiling of limits.md)")
    header = f"{'n':>7} " + " ".join(f"{SEED_NAMES[v]:>18}" for v in variants)
    header += f" {'trace(tiled)':>12} {'fill+tb':>8} {'e2e(tiled)':>10} {'encoding':>8} {'CPU best':>9} agree"
    print(header)
    for row in rows:
        cells = []
        for v in variants:
            r = row["variants"].get(v)
            if not r:
                cells.append(f"{'-':>18}")
            elif "refused" in r:
                cells.append(f"{'too big':>18}")
            else:
                cells.append(f"{r['fill_s']:>9.3f} ({r['ceiling_fraction']:5.1%})")
        fast = row["variants"].get("tiled", {})
        cpu = row.get("cpu")
        print(f"{row['n']:>7} " + " ".join(cells)
              + f" {fast.get('traceback_s', float('nan')):>12.3f}"
              + f" {fast.get('ceiling_fraction_with_traceback', float('nan')):>8.1%}"
              + f" {fast.get('end_to_end_s', float('nan')):>10.3f} {fast.get('encoding', '-'):>8}"
              + f" {cpu['fill_s'] if cpu else float('nan'):>9.2f} {'yes' if row['scores_agree'] else 'NO'}")
        if "tiled_int32" in row:
            r = row["tiled_int32"]
            print(f"{'':>7} {'int32 cells:':>18} {r['fill_s']:>9.3f} ({r['ceiling_fraction']:5.1%} of int32), "
                  f"traceback {r['traceback_s']:.3f}, end to end {r['end_to_end_s']:.3f}")
    payload = {"device": device, "ceilings": CEILING, "int16_lanes": _launch.SIZES.int16_lanes, "rows": rows}
    save_json(payload, args.json)


if __name__ == "__main__":
    main()
