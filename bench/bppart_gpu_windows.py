"""BPPart with target windows on the GPU (kernels/bppart_band.cu, FP64) in one run with its peers: the
CPU's windowed sweep (all cores) on the shorter pair, the cross products' other tile shapes, and the
svRNA screen (3 queries x many transcripts, --window-target 128).

Rows:
- 23 x N nt, window 128: ``bppart(..., backend="gpu")`` end to end (median of --repeats), the device
  seconds of its launch families (single: the target folded alone; cross: the tiled banded products of
  QIa and QIm; sweep: every cell by tiles), useful multiply-adds a second (:func:`bppart_gpu.useful_fma`
  over the band) and their fraction of the FP64 FMA ceiling of ../shared/design/limits.md;
- the CPU's windowed sweep on all cores where N <= --cpu-max, and the relative difference of log Z;
- at the longest N, the device seconds of the cross products at each shape of --shapes and of the sweep
  at each of --sweeps (the first designs' peers), each one's log Z and window probabilities against the
  production's; end to end with the previous production's sizes (--baseline) in the same run;
- the screen: --screen-queries queries of 23 nt against --screen-transcripts random transcripts of
  --screen-min .. --screen-max nt (one ``bppart`` call), pairs a second and the hours for 32,000
  transcripts of the same mean length on one GPU (time is linear in the bases), with the production's
  sizes and with --baseline's (--screen-transcripts 0: no screen);
- --screen-svrnas (on unless --no-screen-svrnas): the same screen with the three SARS-CoV svRNAs of
  examples/sars-cov-svrna.fa (18, 22, 21 nt) as the queries, against the same transcripts, and against
  transcripts drawn as bench/bpmax_gpu.py draws them (log-normal, median 2,500 nt, sigma 0.75, clipped
  200 .. 20,000, seed 7; as many as --screen-transcripts), each with pairs a second and the hours for 32,000
  transcripts of its mean length; with the production's sizes and each --svrna-forms entry;
- --screen-trace: the screen once more with each form of the screen (production and --screen-forms), every
  launch's device start and end from CUDA events (nothing synchronised): how long the device holds two
  launches, one, none, before the first and after the last (the host gap of two streams);
- end to end, each size's first call in the process apart from the repeats (median);
- --timeline: the host stages of a call (``gpu_windows(timeline=...)``: perf_counter, the device
  synchronised at each stage's end) for the first call at a size and a later one, and what is left
  outside ``gpu_windows`` (encoding, rows).

    python3 bench/bppart_gpu_windows.py                 # 23 x 1,000 and 20,000 nt, the screen
    python3 bench/bppart_gpu_windows.py --quick         # 23 x 1,000, a small screen
"""
import argparse
import math
import os
import platform
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _results import save_json  # noqa: E402
from bppart_gpu import CEILING_FP64_FMA, random_rna, useful_cross_fma_by_level, useful_fma  # noqa: E402

WINDOW = 128
SCREEN_GOAL = 32_000


def _median(values):
    return statistics.median(values)


def device_phases(q, t, params, sizes=None, by_diagonal_out=None, settings=None, by_level_out=None) -> dict:
    import numpy as np

    from bioaccel.inputs.alphabet import encode
    from bioaccel.interact._partition_band_gpu import gpu_windows

    phases = {}
    _, found = timed(sizes, lambda: gpu_windows(encode(q), [np.ascontiguousarray(encode(t)[::-1])], params, sizes=sizes,
                                                timings=phases), settings)
    by_diagonal = phases.pop("sweep_by_diagonal", None)     # (within "sweep"; older trees lack it)
    if by_diagonal is not None and by_diagonal_out is not None:
        by_diagonal_out.update(by_diagonal)
    by_level = phases.pop("cross_by_level", None)           # (within "cross"; v28)
    if by_level is not None and by_level_out is not None:
        by_level_out.update({str(l1): t for l1, t in sorted(by_level.items())})
    return phases, found[0]


def _against(w, reference) -> dict:
    """How far a variant's windows are from the production's: log Z (relative), window probabilities."""
    import numpy as np

    def z_rel(x, y):           # the largest relative difference of the windows' Z (from their logs); inf: -inf apart
        if not (np.isfinite(x) == np.isfinite(y)).all():
            return math.inf
        both = np.isfinite(y)
        return float(np.max(np.abs(np.expm1(x[both] - y[both])), initial=0.0))

    return dict(log_z_rel_diff=abs(w.log_z - reference.log_z) / abs(reference.log_z),
                probability_max_diff=float(np.max(np.abs(w.probabilities - reference.probabilities))),
                window_z_max_rel_diff=max(z_rel(w.log_zs, reference.log_zs),
                                          z_rel(w.log_zs_interaction, reference.log_zs_interaction)))


def windows_hash(w) -> str:
    """A digest of a Windowed's logs and per-window arrays (trees compared by their bits)."""
    import hashlib

    import numpy as np

    digest = hashlib.sha256(np.array([w.log_z, w.log_z_interaction, w.log_z_query, w.log_z_target]).tobytes())
    for x in (w.log_zs, w.log_zs_interaction, w.probabilities):
        digest.update(np.ascontiguousarray(x).tobytes())
    return digest.hexdigest()[:16]


def rows_hash(rows) -> str:
    """A digest of a screen's rows (every log and window number): forms compared by their bits."""
    import hashlib

    import numpy as np

    return hashlib.sha256(np.array([(r.log_z, r.log_z_interaction, r.log_z_query, r.log_z_target, r.window_log_z,
                                     r.window_probability) for r in rows], dtype=float).tobytes()).hexdigest()[:16]


def shape_sizes(base, shape):
    """Launch sizes ``base`` with the cross products of a --shapes entry."""
    if shape[0] in "ms":
        r, c, k, blocks, *ring = shape[1:].split("x")      # m...x stages x skip (T/F) x query splits a launch: v8
        more = {}
        if hasattr(base, "band_ring"):                     # (older trees lack it)
            more = dict(band_ring=int(ring[0]) if ring else 0, band_skip=ring[1:2] in (["T"], ["C"], ["R"], ["B"]),
                        band_group=int(ring[2]) if ring[2:] else 0)
            if hasattr(base, "band_skip_form"):            # skip C: a chunk at a time, R: roles rotated, B: both (v12)
                more.update(band_skip_form="TCRB".index(ring[1]) if ring[1:2] in (["T"], ["C"], ["R"], ["B"]) else 0)
        return base.replace(band_mma=True, band_strip=shape[0] == "s", band_rows=int(r), band_cols=int(c),
                            band_chunk=int(k), band_blocks=int(blocks), **more)
    r, c, k, prefetch, blocks = shape.split("x")
    return base.replace(band_mma=False, band_rows=int(r), band_cols=int(c), band_chunk=int(k),
                        band_prefetch=prefetch == "T", band_blocks=int(blocks))


def sweep_sizes(base, sweep):
    """Launch sizes ``base`` with the sweep of a --sweeps entry."""
    tile, mode, split, blocks, lanes, *more_fields = sweep.split("x")
    trim, pipe, far = more_fields + ["F", "0", "0"][len(more_fields):]
    more = {"band_trim": trim == "T"} if hasattr(base, "band_trim") else {}    # (older trees lack it)
    if hasattr(base, "band_dynamic"):  # ring "3d": its stages in dynamic shared memory (rows padded to B + 4)
        more.update(band_dynamic=pipe.endswith("d"))
    if hasattr(base, "band_pipe"):
        more.update(band_pipe=int(pipe.rstrip("d")), band_far=int(far))
    if hasattr(base, "band_warp"):     # lanes "W": the near part by one warp (v7); older trees lack it
        more.update(band_warp=lanes == "W")
    return base.replace(band_tile=int(tile), band_sweep=mode, band_split=split == "T", band_tile_blocks=int(blocks),
                        band_lanes=lanes in "TW", **more)


def entry_sizes(base, entry):
    """Launch sizes of a --production or --baseline entry: "SHAPE,SWEEP", then optional fields "sK" (K streams,
    v8; 1 when left out), "q1" (a round's queries in one schedule, v9; else a drain after each query) and "e1"
    (the tiles past a piece's bases skipped, v9; else every tile computed)."""
    shape, sweep, *more = entry.split(",")
    sizes = sweep_sizes(shape_sizes(base, shape), sweep)
    streams = [x for x in more if x.startswith("s")]
    if hasattr(base, "band_streams"):
        sizes = sizes.replace(band_streams=int(streams[0][1:]) if streams else 1)
    if hasattr(base, "band_queries"):
        sizes = sizes.replace(band_queries="q1" in more, band_ends="e1" in more)
    return with_fields(sizes, [x for x in more if "=" in x and not x.startswith("gpu.")])


def with_fields(sizes, fields):
    """``sizes`` with launch-size fields "name=value" (integers; v9's hints: band_hint_cross=2)."""
    return sizes.replace(**{k: int(v) if not isinstance(getattr(sizes, k), bool) else v in ("1", "T", "True")
                            for k, v in (x.split("=") for x in fields)})


def one_stream(sizes):
    """``sizes`` on one stream: the device seconds of each launch family add up only where nothing overlaps."""
    return sizes.replace(band_streams=1) if hasattr(sizes, "band_streams") else sizes


def timed(sizes, call, settings=None):
    """``call()`` run with ``sizes`` as the production's launch sizes and ``settings`` ({name: value} of
    interact/_partition_band_gpu's module settings, e.g. MEMORY_MARGIN); (seconds, its result)."""
    from bioaccel.interact import _partition_band_gpu, _partition_launch

    saved = _partition_launch.SIZES
    saved_settings = {k: getattr(_partition_band_gpu, k) for k in settings or {}}
    _partition_launch.SIZES = sizes
    for k, v in (settings or {}).items():
        setattr(_partition_band_gpu, k, v)
    try:
        start = time.perf_counter()
        found = call()
        return time.perf_counter() - start, found
    finally:
        _partition_launch.SIZES = saved
        for k, v in saved_settings.items():
            setattr(_partition_band_gpu, k, v)


NAMED = {}      # the settings of the rows named "production" and "baseline" (main: from --production, --baseline)


def entry_settings(entry) -> dict:
    """The module settings of interact/_partition_band_gpu in an entry's fields "gpu.NAME=value" (e.g.
    gpu.MEMORY_MARGIN=0.85; v14's calls: gpu.BALANCE=1, gpu.AHEAD=1, forms not kept), integers, booleans or
    floats; "production" and "baseline": those of --production and --baseline."""
    from bioaccel.interact import _partition_band_gpu

    if entry in NAMED:
        return NAMED[entry]
    out = {}
    for x in entry.split(","):
        if x.startswith("gpu.") and "=" in x:
            k, v = x[4:].split("=")
            old = getattr(_partition_band_gpu, k)
            out[k] = v in ("1", "T", "True") if isinstance(old, bool) else type(old)(v) if old is not None else float(v)
    return out


def _entry(module) -> str:
    """The name of the windowed GPU fill's function the API calls: gpu_windows_round (v9), gpu_windows before."""
    return "gpu_windows_round" if hasattr(module, "gpu_windows_round") else "gpu_windows"


def traced(sizes, call, settings=None):
    """``call()`` as :func:`timed` with every ``gpu_windows`` it makes keeping a timeline: (seconds, its
    result, [(stage, host seconds)], the stages summed)."""
    import functools

    from bioaccel.interact import _partition_band_gpu

    name = _entry(_partition_band_gpu)
    stages, saved = [], getattr(_partition_band_gpu, name)
    setattr(_partition_band_gpu, name, functools.partial(saved, timeline=stages))
    try:
        seconds, found = timed(sizes, call, settings)
    finally:
        setattr(_partition_band_gpu, name, saved)
    summed = {}
    for stage, t in stages:
        summed[stage] = summed.get(stage, 0.0) + t
    summed["outside gpu_windows"] = seconds - sum(t for _, t in stages)
    return seconds, found, summed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--cpu-max", type=int, default=1000, help="largest target run on the CPU too")
    parser.add_argument("--shapes", default="m32x64x32x3x2xF,m32x64x16x4x2xF,m32x64x16x4,m32x64x16x4x3xF,m32x64x16x4x2xFx4,"
                                            "m32x32x16x8x2xF,32x32x16xTx8,s32x160x8x2",
                        help="cross product tiles rows x columns x chunk x prefetch (T/F) x blocks (FMA), or "
                             "m rows x columns x chunk x blocks [x ring stages x skip (T/F; v12: C a chunk at a time, R roles "
                             "rotated, B both) [x query splits a launch]] "
                             "(tensor cores, absolute tiles; no ring: v3-v7's two buffers a split), or s ... (tensor "
                             "cores, strips), compared at the longest size (the first: the production's)")
    parser.add_argument("--sweeps", default="16xlaunchesxTx4xWxTx3x2,16xlaunchesxTx4xTxTx2x2,16xlaunchesxTx4xWxTx2x2,"
                                            "16xlaunchesxTx4xWxTx3dx2,16xlaunchesxTx5xWxTx2x2,16xlaunchesxTx4xFxTx2x2,"
                                            "16xlaunchesxTx4xTxT",
                        help="sweep tile x mode x split (T/F) x blocks a multiprocessor x lanes (T/F; W: one warp, v7) [x trim (T/F; "
                             "F when left out) [x cp.async ring stages of the far part (0, 2, 3; 0 when left out; 2d, 3d: dynamic shared memory) [x far products: 0 a thread a "
                             "cell, 1 two k a row load, 2 tensor cores]]], "
                             "compared at the longest size (the first: the production's)")
    parser.add_argument("--baseline", default="m32x64x16x4x2xF,16xlaunchesxTx4xWxTx3x2,s2,q1,e1",
                        help="the previous production (a --shapes and a --sweeps entry), timed end to end too")
    parser.add_argument("--production", default="",
                        help="a --shapes and a --sweeps entry run as the production's sizes in every row (a candidate "
                             "against --baseline); empty: the package's launch sizes")
    parser.add_argument("--variants", default="",
                        help="launch-size fields name=value (',' within one variant, ';' between), each timed against "
                             "the production at the longest size (device seconds, windows digest)")
    parser.add_argument("--screen-forms", default="",
                        help="more screen rows: production / baseline entries (SHAPE,SWEEP[,sK][,q1][,e1]) joined by ';'")
    parser.add_argument("--screen-phases", action="store_true",
                        help="the screen once more on one stream with each launch family's device seconds")
    parser.add_argument("--timeline", action="store_true", help="print the host stages of a first and a later call")
    parser.add_argument("--screen-svrnas", action=argparse.BooleanOptionalAction, default=True,
                        help="the screen's rows with the three SARS-CoV svRNAs: the same transcripts, and log-normal ones")
    parser.add_argument("--svrna-forms", default="",
                        help="more forms for the svRNA rows (as --screen-forms); the production's always")
    parser.add_argument("--screen-trace", action="store_true",
                        help="each screen form once more with every launch's device start and end (CUDA events)")
    parser.add_argument("--screen-queries", type=int, default=3)
    parser.add_argument("--screen-transcripts", type=int, default=48)
    parser.add_argument("--screen-min", type=int, default=500)
    parser.add_argument("--screen-max", type=int, default=3500)
    parser.add_argument("--json", default=os.path.join(HERE, "..", "docs", "results", "bppart_gpu_windows_h100.json"))
    args = parser.parse_args(argv)

    from bioaccel.interact import PartitionParams, bppart
    from bioaccel.interact import _partition_launch
    from bioaccel.runtime import gpu as _gpu

    sizes = [1000] if args.quick else args.sizes
    transcripts = 8 if args.quick else args.screen_transcripts
    load_before = os.getloadavg()
    print(f"# {_gpu.device_name()}, {os.cpu_count()} CPU cores, load average {load_before}", flush=True)
    params = PartitionParams(window_target=WINDOW)
    rng = random.Random(2028)
    query = random_rna(rng, 23)
    production = _partition_launch.SIZES
    if args.production:
        production = entry_sizes(production, args.production)
    base_shape, base_sweep = args.baseline.split(",")[:2]
    baseline = entry_sizes(_partition_launch.SIZES, args.baseline)
    NAMED.update(production=entry_settings(args.production) if args.production else {})
    NAMED.update(baseline=entry_settings(args.baseline))
    psets, bsets = NAMED["production"], NAMED["baseline"]
    for sizes_ in (production, baseline):      # compiles the kernels
        timed(sizes_, lambda: bppart(query, random_rna(rng, 300), params=params, backend="gpu"), psets)
    rows, timelines = [], []
    for N in sizes:
        target = random_rna(rng, N)

        def run():
            return bppart(query, target, params=params, backend="gpu")

        times, base_times = [], []
        if args.timeline:              # the first call at this size: its tables allocated
            first, found, stages = traced(production, run, psets)
            timelines.append(dict(N=N, call="production, first at this size", total_s=first, **stages))
        else:
            first, found = timed(production, run, psets)
        for _ in range(args.repeats):  # (each form's calls together: streams keep their own memory)
            seconds, found = timed(production, run, psets)
            times.append(seconds)
            grow = found[0]
        base_first, _ = timed(baseline, run, bsets)
        for _ in range(args.repeats):
            seconds, found = timed(baseline, run, bsets)
            base_times.append(seconds)
            brow = found[0]
        if args.timeline:
            seconds, _, stages = traced(production, run, psets)
            timelines.append(dict(N=N, call="production, later", total_s=seconds, **stages))
        by_diagonal, by_level, base_by_level = {}, {}, {}
        phases, w = device_phases(query, target, params, one_stream(production), by_diagonal_out=by_diagonal,
                                  settings=psets, by_level_out=by_level)
        base_phases, bw = device_phases(query, target, params, one_stream(baseline), settings=bsets,
                                        by_level_out=base_by_level)
        fma = useful_fma(23, N, WINDOW + 1)
        device = sum(phases.values())
        row = dict(M=23, N=N, window=WINDOW, gpu_s=_median(times), gpu_all_s=times, first_s=first,
                   baseline_first_s=base_first, **{f"{k}_s": v for k, v in phases.items()},
                   useful_fma=fma, fma_per_s=fma / _median(times), ceiling_fraction=fma / _median(times) / CEILING_FP64_FMA,
                   device_ceiling_fraction=fma / device / CEILING_FP64_FMA, log_z=grow.log_z,
                   baseline_gpu_s=_median(base_times), baseline_gpu_all_s=base_times,
                   **{f"baseline_{k}_s": v for k, v in base_phases.items()},
                   baseline_log_z_rel_diff=abs(brow.log_z - grow.log_z) / abs(grow.log_z),
                   baseline_windows=_against(bw, w))
        row["host_gap_s"] = row["gpu_s"] - device
        row["windows_sha256"] = windows_hash(w)
        row["baseline_windows_sha256"] = windows_hash(bw)
        row["sweep_by_diagonal_s"] = {str(d): t for d, t in sorted(by_diagonal.items())}
        row["cross_by_level_s"], row["baseline_cross_by_level_s"] = by_level, base_by_level
        row["useful_cross_fma_by_level"] = {str(l1): f for l1, f in useful_cross_fma_by_level(23, N, WINDOW + 1).items()}
        if N <= args.cpu_max:
            bppart(query, random_rna(rng, 200), params=params)          # the CPU sweep compiled / loaded
            start = time.perf_counter()
            crow = bppart(query, target, params=params)[0]
            row.update(cpu_s=time.perf_counter() - start, rel_diff=abs(grow.log_z - crow.log_z) / abs(crow.log_z))
            row["speedup"] = row["cpu_s"] / row["gpu_s"]
        rows.append(row)
        print(row, flush=True)
    shapes, sweeps = [], []
    reference = w                      # the production's windows at the longest size
    for shape in filter(None, args.shapes.split(",")):
        phases, w = device_phases(query, target, params, shape_sizes(one_stream(production), shape))
        shapes.append(dict(shape=shape, cross_s=phases["cross"], sweep_s=phases["sweep"], **_against(w, reference),
                           windows_sha256=windows_hash(w)))
        print(shapes[-1], flush=True)
    for variant in filter(None, args.variants.split(";")):
        by_level, by_diagonal = {}, {}
        phases, w = device_phases(query, target, params, with_fields(one_stream(production), variant.split(",")),
                                  by_level_out=by_level, by_diagonal_out=by_diagonal)
        sweeps.append(dict(sweep=variant, cross_s=phases["cross"], outer_s=phases["outer"], sweep_s=phases["sweep"],
                           **_against(w, reference), windows_sha256=windows_hash(w), cross_by_level_s=by_level,
                           sweep_by_diagonal_s={str(d): t for d, t in sorted(by_diagonal.items())}))   # (v31)
        print(sweeps[-1], flush=True)
    for sweep in filter(None, args.sweeps.split(",")):
        phases, w = device_phases(query, target, params, sweep_sizes(one_stream(production), sweep))
        sweeps.append(dict(sweep=sweep, cross_s=phases["cross"], outer_s=phases["outer"], sweep_s=phases["sweep"],
                           **_against(w, reference), windows_sha256=windows_hash(w)))
        print(sweeps[-1], flush=True)

    screens = screen(args, transcripts, rng, params, production, baseline) if transcripts else {}
    load_after = os.getloadavg()
    report(args, sizes, rows, shapes, sweeps, screens, timelines, base_shape, base_sweep, load_before, load_after)
    save_json(dict(device=_gpu.device_name(), host=platform.node(), cpu_cores=os.cpu_count(), load_before=load_before,
                   load_after=load_after, ceiling_fp64_fma=CEILING_FP64_FMA, baseline=args.baseline,
                   production=args.production or "package launch sizes", rows=rows,
                   shapes=shapes, sweeps=sweeps, screen=screens.get("production"),
                   baseline_screen=screens.get("baseline"), screens=screens, timelines=timelines), args.json)
    return 0


def screen(args, transcripts, rng, params, production, baseline) -> dict:
    """The screen's rows at the production's sizes and the baseline's."""
    from bioaccel.interact import bppart

    queries = [(f"sv{i}", random_rna(rng, 23)) for i in range(args.screen_queries)]
    targets = [(f"tx{i}", random_rna(rng, rng.randint(args.screen_min, args.screen_max))) for i in range(transcripts)]
    bases = sum(len(t) for _, t in targets)
    pairs = len(queries) * len(targets)
    mean = bases / len(targets)
    fma = sum(useful_fma(23, len(t), WINDOW + 1) for _, t in targets) * len(queries)
    screens, found = {}, {}
    forms = [("production", production), ("baseline", baseline)]
    if args.screen_forms:              # more forms: --shapes / --sweeps entries joined by "," and ";" between forms
        forms += [(entry, entry_sizes(production, entry)) for entry in args.screen_forms.split(";")]
    for name, sizes_ in forms:
        screen_s, found[name] = timed(sizes_, lambda: bppart(queries, targets, params=params, backend="gpu"),
                                      entry_settings(name))
        screens[name] = dict(queries=len(queries), transcripts=len(targets), bases=bases, mean_length=mean,
                             rows=len(found[name]), gpu_s=screen_s, pairs_per_s=pairs / screen_s,
                             hours_for_32000=screen_s / bases * mean * SCREEN_GOAL / 3600,
                             ceiling_fraction=fma / screen_s / CEILING_FP64_FMA)
        print(name, screens[name], flush=True)
    if args.screen_phases:             # the production's kernels on one stream, each family's device seconds
        import functools

        from bioaccel.interact import _partition_band_gpu

        name = _entry(_partition_band_gpu)
        phases, saved = {}, getattr(_partition_band_gpu, name)
        setattr(_partition_band_gpu, name, functools.partial(saved, timings=phases))
        try:
            screen_s, _ = timed(one_stream(production), lambda: bppart(queries, targets, params=params, backend="gpu"))
        finally:
            setattr(_partition_band_gpu, name, saved)
        phases.pop("sweep_by_diagonal", None), phases.pop("cross_by_level", None)
        screens["production_phases"] = dict(gpu_s=screen_s, device_s=sum(phases.values()),
                                            host_gap_s=screen_s - sum(phases.values()),
                                            **{f"{k}_s": v for k, v in phases.items()})
        print("production, one stream, device phases", screens["production_phases"], flush=True)
    if args.screen_trace:              # each form once more, every launch's device interval (nothing synchronised)
        for name, sizes_ in forms:
            if name != "baseline":
                screens[f"trace {name}"] = traced_screen(sizes_, entry_settings(name), queries, targets, params)
                print(f"trace {name}", screens[f"trace {name}"], flush=True)
    for name in found:
        screens[name]["windows_sha256"] = rows_hash(found[name])
    screens["baseline"]["log_z_max_rel_diff"] = max(abs(b.log_z - p.log_z) / abs(p.log_z)
                                                    for p, b in zip(found["production"], found["baseline"]))
    screens["baseline"]["window_probability_max_diff"] = max(
        abs(b.window_probability - p.window_probability) for p, b in zip(found["production"], found["baseline"]))
    if args.screen_svrnas:
        screens.update(svrna_screens(args, transcripts, targets, params, production))
    return screens


def svrna_screens(args, transcripts, targets, params, production) -> dict:
    """The svRNA rows: the three SARS-CoV svRNAs against the screen's transcripts and against log-normal ones
    (bench/bpmax_gpu.py's draw), with the production's sizes and each --svrna-forms entry."""
    import numpy as np

    from bioaccel.inputs.fasta import read_fasta
    from bioaccel.interact import bppart

    svrnas = [(r.id, r.sequence) for r in read_fasta(os.path.join(HERE, "..", "examples", "sars-cov-svrna.fa"))]
    def drawn(count):
        return np.clip(np.random.default_rng(7).lognormal(np.log(2500), 0.75, count), 200, 20_000).astype(int)

    lengths = drawn(transcripts)
    population = float(drawn(SCREEN_GOAL).mean())     # the draw's mean over 32,000 transcripts (its tail: longer)
    rng = random.Random(2021)
    lognormal = [(f"t{k}", random_rna(rng, int(n))) for k, n in enumerate(lengths)]
    forms = [("production", production)] + [(e, entry_sizes(production, e)) for e in filter(None, args.svrna_forms.split(";"))]
    out = {}
    for label, tx in (("svRNAs", targets), ("svRNAs, log-normal transcripts", lognormal)):
        bases = sum(len(t) for _, t in tx)
        fma = sum(useful_fma(len(q), len(t), WINDOW + 1) for _, t in tx for _, q in svrnas)
        for name, sizes_ in forms:
            seconds, found = timed(sizes_, lambda: bppart(svrnas, tx, params=params, backend="gpu"), entry_settings(name))
            out[f"{label}: {name}"] = dict(
                queries=len(svrnas), query_lengths=[len(q) for _, q in svrnas], transcripts=len(tx), bases=bases,
                mean_length=bases / len(tx), median_length=float(np.median([len(t) for _, t in tx])), rows=len(found),
                gpu_s=seconds, pairs_per_s=len(svrnas) * len(tx) / seconds,
                hours_for_32000=seconds / bases * (bases / len(tx)) * SCREEN_GOAL / 3600,
                ceiling_fraction=fma / seconds / CEILING_FP64_FMA, windows_sha256=rows_hash(found))
            if tx is lognormal:        # the same rate a base at the mean of 32,000 draws
                out[f"{label}: {name}"].update(mean_length_32000_draws=population,
                                               hours_for_32000_draws=seconds / bases * population * SCREEN_GOAL / 3600)
            print(f"{label}: {name}", out[f"{label}: {name}"], flush=True)
        if args.screen_trace:          # the production's launches (queries of three lengths: three table sizes)
            out[f"trace {label}"] = traced_screen(production, entry_settings("production"), svrnas, tx, params)
            print(f"trace {label}", out[f"trace {label}"], flush=True)
    return out


def traced_screen(sizes, settings, queries, targets, params) -> dict:
    """The screen with every ``gpu_windows_round`` keeping a launch trace: seconds end to end, and the device's
    time with two launches or more, one, none (between the first launch's start and the last one's end), before
    the first, after the last, and outside the rounds (the API's encoding and rows)."""
    import functools

    from bioaccel.interact import _partition_band_gpu, bppart

    trace, saved = [], _partition_band_gpu.gpu_windows_round
    _partition_band_gpu.gpu_windows_round = functools.partial(saved, trace=trace)
    try:
        seconds, _ = timed(sizes, lambda: bppart(queries, targets, params=params, backend="gpu"), settings)
    finally:
        _partition_band_gpu.gpu_windows_round = saved
    out = dict(gpu_s=seconds, rounds=0, launches=0, before_s=0.0, after_s=0.0, both_s=0.0, one_s=0.0, none_s=0.0,
               rounds_s=0.0, alone_at_end_s=0.0, rows=[])
    launches = []
    for item in trace:
        if "call_s" not in item:
            launches.append(item)
            continue
        out["rounds"] += 1
        out["rounds_s"] += item["call_s"]
        out["launches"] += len(launches)
        out["rows"] += [x["rows"] for x in launches]
        first, last = min(x["start_ms"] for x in launches), max(x["end_ms"] for x in launches)
        out["before_s"] += first / 1e3
        out["after_s"] += item["call_s"] - last / 1e3
        points = sorted({x["start_ms"] for x in launches} | {x["end_ms"] for x in launches})
        for a, b in zip(points, points[1:]):
            held = sum(1 for x in launches if x["start_ms"] <= a and x["end_ms"] >= b)
            out["both_s" if held >= 2 else "one_s" if held == 1 else "none_s"] += (b - a) / 1e3
        ends = sorted(max(x["end_ms"] for x in launches if x["stream"] == s) for s in {x["stream"] for x in launches})
        out["alone_at_end_s"] += (ends[-1] - ends[-2]) / 1e3 if len(ends) > 1 else 0.0
        launches = []
    out["outside_s"] = seconds - out["rounds_s"]
    return out


def report(args, sizes, rows, shapes, sweeps, screens, timelines, base_shape, base_sweep, load_before, load_after):
    """The tables of the run (markdown)."""
    from bioaccel.runtime import gpu as _gpu

    print(f"\n## BPPart windows ({WINDOW}) on {_gpu.device_name()} (FP64) and the CPU ({os.cpu_count()} cores)")
    print(f"load average before {load_before}, after {load_after}; FP64 FMA ceiling {CEILING_FP64_FMA / 1e12} T/s")
    print(f"baseline (the previous production): cross {base_shape}, sweep {base_sweep}")
    print("| pair | sizes | GPU end to end (s) | single (s) | cross (s) | outer (s) | sweep (s) | useful G FMA/s | "
          "of ceiling (device only) | CPU (s) | CPU / GPU | log Z rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cpu = f"{r['cpu_s']:.2f} | {r['speedup']:.0f}x | {r['rel_diff']:.1e}" if "cpu_s" in r else "not run | | "
        print(f"| 23 x {r['N']:,} | production | {r['gpu_s']:.3f} | {r['single_s']:.4f} | {r['cross_s']:.4f} | "
              f"{r['outer_s']:.4f} | {r['sweep_s']:.4f} | {r['fma_per_s'] / 1e9:.0f} | {r['ceiling_fraction']:.1%} "
              f"({r['device_ceiling_fraction']:.1%}) | {cpu} |")
        print(f"| 23 x {r['N']:,} | baseline | {r['baseline_gpu_s']:.3f} | {r['baseline_single_s']:.4f} | "
              f"{r['baseline_cross_s']:.4f} | {r['baseline_outer_s']:.4f} | {r['baseline_sweep_s']:.4f} | "
              f"{r['useful_fma'] / r['baseline_gpu_s'] / 1e9:.0f} | | | | log Z {r['baseline_log_z_rel_diff']:.1e}, "
              f"probabilities {r['baseline_windows']['probability_max_diff']:.1e} from the production's |")
    print("\n| pair | end to end, first call (s) | median of repeats (s) | all (s) | device, phases summed (s) | "
          "host gap (s) | baseline: first, median (s) |\n|---|---|---|---|---|---|---|")
    for r in rows:
        device = r["gpu_s"] - r["host_gap_s"]
        print(f"| 23 x {r['N']:,} | {r['first_s']:.3f} | {r['gpu_s']:.3f} | {', '.join(f'{x:.3f}' for x in r['gpu_all_s'])} "
              f"| {device:.3f} | {r['host_gap_s']:.3f} | {r['baseline_first_s']:.3f}, {r['baseline_gpu_s']:.3f} |")
    for r in rows:
        if r["sweep_by_diagonal_s"]:
            print(f"\nsweep by tile diagonal at 23 x {r['N']:,} (device s, all levels; d = 0: the near part alone):\n| "
                  + " | ".join(r["sweep_by_diagonal_s"]) + " |\n|" + "---|" * len(r["sweep_by_diagonal_s"]) + "\n| "
                  + " | ".join(f"{t:.4f}" for t in r["sweep_by_diagonal_s"].values()) + " |")
    if rows and rows[-1].get("cross_by_level_s"):
        cross_levels(rows[-1], sweeps)
    if timelines:
        names = list(dict.fromkeys(k for t in timelines for k in t if k not in ("N", "call")))
        print("\nhost stages (s; the device synchronised at each stage's end):\n| N | call | " + " | ".join(names)
              + " |\n|---|---|" + "---|" * len(names))
        for t in timelines:
            print(f"| {t['N']:,} | {t['call']} | " + " | ".join(f"{t.get(k, 0.0):.4f}" for k in names) + " |")
    print(f"\nat 23 x {sizes[-1]:,} (device seconds; log Z against the first shape's):")
    print("| cross tiles (rows x cols x chunk x prefetch x blocks; m, s: tensor cores, s: strips) | cross (s) | log Z rel. diff | "
          "window probability max diff | windows digest |\n|---|---|---|---|---|")
    for x in shapes:
        print(f"| {x['shape']} | {x['cross_s']:.4f} | {x['log_z_rel_diff']:.1e} | {x['probability_max_diff']:.1e} | "
              f"{x.get('windows_sha256', '')} |")
    print("| sweep (tile x mode x split x blocks x lanes x trim x ring x far), or --variants | cross, outer + sweep (s) | "
          "log Z rel. diff | window probability max diff | windows' Z max rel. diff | windows digest |\n"
          "|---|---|---|---|---|---|")
    for x in sweeps:
        print(f"| {x['sweep']} | {x['cross_s']:.4f}, {x['outer_s']:.4f} + {x['sweep_s']:.4f} | {x['log_z_rel_diff']:.1e} | "
              f"{x['probability_max_diff']:.1e} | {x.get('window_z_max_rel_diff', math.nan):.1e} | "
              f"{x.get('windows_sha256', '')} |")
    for name, x in screens.items():
        if name.startswith("trace "):
            print(f"\nscreen {name[6:]}, launch trace: {x['gpu_s']:.2f} s end to end = outside the rounds "
                  f"{x['outside_s']:.3f} + before the first launch {x['before_s']:.3f} + device with two launches or more "
                  f"{x['both_s']:.3f}, one {x['one_s']:.3f}, none {x['none_s']:.3f} + after the last {x['after_s']:.3f} s "
                  f"({x['launches']} launches in {x['rounds']} round(s); one stream alone at the end "
                  f"{x['alone_at_end_s']:.3f} s; rows {x['rows']})")
            continue
        if name.startswith("svRNAs"):
            print(f"\nscreen, {name}: {x['queries']} svRNAs ({x['query_lengths']} nt) x {x['transcripts']} transcripts "
                  f"({x['bases']:,} nt, mean {x['mean_length']:.0f}, median {x['median_length']:.0f}): {x['gpu_s']:.2f} s, "
                  f"{x['pairs_per_s']:.1f} pairs/s, {x['ceiling_fraction']:.1%} of the ceiling; {SCREEN_GOAL:,} transcripts "
                  f"of that mean length: {x['hours_for_32000']:.2f} h on one GPU; rows digest {x['windows_sha256']}")
            if "hours_for_32000_draws" in x:
                print(f"  32,000 transcripts of the draw (mean {x['mean_length_32000_draws']:.0f} nt): "
                      f"{x['hours_for_32000_draws']:.2f} h on one GPU")
            continue
        if name == "production_phases":
            print(f"\nscreen, production's kernels on one stream: {x['gpu_s']:.2f} s, device " + " + ".join(
                f"{k[:-2]} {v:.3f}" for k, v in x.items() if k not in ("gpu_s", "device_s", "host_gap_s"))
                + f" = {x['device_s']:.3f} s, host gap {x['host_gap_s']:.3f} s")
            continue
        print(f"\nscreen, {name}: {x['queries']} x {x['transcripts']} transcripts ({x['bases']:,} nt, mean "
              f"{x['mean_length']:.0f}): {x['gpu_s']:.2f} s, {x['pairs_per_s']:.1f} pairs/s, {x['ceiling_fraction']:.1%} "
              f"of the ceiling; {SCREEN_GOAL:,} transcripts of that mean length: {x['hours_for_32000']:.2f} h on one GPU; "
              f"rows digest {x.get('windows_sha256', '')}")
    if screens:
        print(f"baseline screen against the production's: log Z {screens['baseline']['log_z_max_rel_diff']:.1e}, window "
              f"probability {screens['baseline']['window_probability_max_diff']:.1e}")


def cross_levels(row, sweeps):
    """The cross products' device ms per query length l1 at the longest size, for the production, the baseline and
    each variant (one stream), with the useful multiply-adds' rate (T FMA/s) of each: which levels cost what (v28)."""
    forms = [("production", row["cross_by_level_s"]), ("baseline", row.get("baseline_cross_by_level_s") or {})]
    forms += [(x["sweep"], x["cross_by_level_s"]) for x in sweeps if x.get("cross_by_level_s")]
    useful = row["useful_cross_fma_by_level"]
    print(f"\ncross products by level at 23 x {row['N']:,} (device ms, one stream; useful T FMA/s):\n| l1 | useful G FMA | "
          + " | ".join(name for name, _ in forms) + " |\n|---|---|" + "---|" * len(forms))
    for l1, fma in useful.items():
        cells = [f"{1e3 * by[l1]:.3f} ({fma / by[l1] / 1e12:.2f})" if by.get(l1) else "" for _, by in forms]
        print(f"| {l1} | {fma / 1e9:.1f} | " + " | ".join(cells) + " |")
    total = sum(useful.values())
    print(f"| all | {total / 1e9:.1f} | " + " | ".join(
        f"{1e3 * sum(by.get(l1, 0.0) for l1 in useful):.2f} ({total / max(1e-12, sum(by.get(l1, 0.0) for l1 in useful)) / 1e12:.2f})"
        for _, by in forms) + " |")


if __name__ == "__main__":
    sys.exit(main())
