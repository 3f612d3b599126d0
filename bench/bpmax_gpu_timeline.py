"""BPMax on the GPU: where the end to end of one run goes, outside the kernels too (issue 29, helper bpmaxhost).

The production row of bench/bpmax_gpu.py (``gpu_row``: a 23 nt query against a 20,000 nt target, target window 128;
the host's S1 fold, then ``interact._gpu.window_scores``), run with every device operation of window_scores and
_launch traced: the CuPy calls (``asarray``, ``full``, ``empty``, ``asnumpy``), every kernel launch and the host's
own steps (``free_memory``, the finisher, the paired copy's set-up) get host timestamps, and each device operation
a CUDA event before and after it, all on the one stream, read after the run. Since the stream runs them in order,
the wall time splits exactly into: the host before the first device operation, each operation, the gaps between
them (the device idle: "waiting on the host" where the host enqueued the next one after the device had finished the
last, else the launch's own latency) and the end after the last one (the host's copies out).

The tracer's events cost a little host and device time: the untraced end to end (median of --repeats, as
bench/bpmax_gpu.py times it) is printed beside the traced one. Also: a cProfile of one untraced run (the host's
functions by own time) and the table's poisoning fill timed alone, three ways, on the production table's size.

    python3 bench/bpmax_gpu_timeline.py [--repeats 5] [--sizes "fill_form=1;segment_fit=0"] [--json PATH]

``--sizes``: BPMaxSizes changes, ``;`` between settings (each traced and timed; the default is always first).
"""
import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import time
from dataclasses import replace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bpmax_gpu import random_codes   # noqa: E402
from _results import save_json       # noqa: E402

DEVICE_CALLS = ("asarray", "full", "asnumpy")    # CuPy calls that queue device work (empty only takes memory)
HOST_CALLS = ("empty", "free_memory")


class Tracer:
    """The trace of one run: ``ops`` as (label, device, host enter, host exit, start event, stop event)."""

    def __init__(self, cp):
        self.cp, self.ops = cp, []

    def call(self, label, device, fn, *args, **kwargs):
        start = stop = None
        enter = time.perf_counter()
        if device:
            start = self.cp.cuda.Event()
            start.record()
        out = fn(*args, **kwargs)
        if device:
            stop = self.cp.cuda.Event()
            stop.record()
        self.ops.append((label, device, enter, time.perf_counter(), start, stop))
        return out

    def wrap(self, label, device, fn):
        return lambda *args, **kwargs: self.call(label, device, fn, *args, **kwargs)


class TracedKernel:
    """A kernel whose launches are traced; attributes (the shared-memory limit) set on the kernel itself."""

    def __init__(self, tracer, label, kernel):
        object.__setattr__(self, "_launch", tracer.wrap(label, True, kernel))
        object.__setattr__(self, "_kernel", kernel)

    def __call__(self, *args, **kwargs):
        return self._launch(*args, **kwargs)

    def __setattr__(self, name, value):
        setattr(self._kernel, name, value)


class Namespace:
    """A module with some of its functions replaced."""

    def __init__(self, module, **replaced):
        self._module, self._replaced = module, replaced

    def __getattr__(self, name):
        return self._replaced[name] if name in self._replaced else getattr(self._module, name)


def phase(name):
    """The phase of a kernel by its name expression (bench/bpmax_gpu_sizes.py's --levels keys)."""
    for key, phase_name in (("products", "products"), ("finish", "finish"), ("pair_rows", "pairing"),
                            ("gather", "gather")):
        if key in name:
            return phase_name
    return name


def traced_run(cp, a, rb, params, sizes):
    """One run of gpu_row's timed region with every operation traced; returns (wall s, tracer, reference)."""
    from bioaccel.interact import _gpu, _gpu_finish, _gpu_paired
    from bioaccel.interact._strands import strand_band
    from bioaccel.runtime import gpu as runtime

    tracer = Tracer(cp)
    calls = {name: tracer.wrap(name, name in DEVICE_CALLS, getattr(cp, name)) for name in DEVICE_CALLS + ("empty",)}
    calls["full"] = lambda n, *args, **kwargs: tracer.call("fill F" if n > 1 << 24 else "fill S2", True, cp.full, n,
                                                           *args, **kwargs)
    cupy = Namespace(cp, **calls)
    extra = {"to_host": tracer.wrap("to_host (pinned)", True, runtime.to_host)} if hasattr(runtime, "to_host") else {}
    if hasattr(runtime, "filled"):   # BPMaxSizes.table_fill 1 (stop 57): the tables' fill by runtime.gpu.filled
        extra["filled"] = lambda n, *args: tracer.call("fill F" if n > 1 << 24 else "fill S2", True, runtime.filled, n,
                                                       *args)
    proxy = Namespace(runtime, require_gpu=lambda: cupy, cupy=lambda: cupy,    # (to_host: since bpmaxhost)
                      free_memory=tracer.wrap("free_memory", False, runtime.free_memory), **extra)
    kernel = _gpu_finish.kernel

    def traced_kernel(name, *arguments):
        return TracedKernel(tracer, phase(name), kernel(name, *arguments))

    saved = [(m, n, getattr(m, n)) for m, n in ((_gpu, "_gpu"), (_gpu_paired, "_gpu"), (_gpu_finish, "_gpu"),
                                                 (_gpu, "_kernel"), (_gpu_finish, "kernel"), (_gpu, "_finisher"),
                                                 (_gpu, "Paired"))]
    for module in (_gpu, _gpu_paired, _gpu_finish):
        module._gpu = proxy
    _gpu._kernel = _gpu_finish.kernel = traced_kernel
    _gpu._finisher = tracer.wrap("finisher set-up", False, saved[5][2])
    _gpu.Paired = tracer.wrap("paired copy set-up", False, saved[6][2])
    try:
        cp.cuda.Device().synchronize()
        reference = cp.cuda.Event()
        reference.record()
        start = time.perf_counter()
        S1 = tracer.call("S1 fold (strand_band)", False, strand_band, a, params.fold_params, params.spans(len(a), 1)[0])
        tracer.call("window_scores", False, _gpu.window_scores, a, S1, [rb], params, sizes=sizes)
        wall = time.perf_counter() - start
        cp.cuda.Device().synchronize()
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
    return wall, tracer, (reference, start)


def split(tracer, reference, wall):
    """The wall time split: device operations by kind, the gaps between them, before the first and after the last;
    every operation as a row (ms from the run's start)."""
    cp = tracer.cp
    ref_event, t0 = reference
    ms = lambda event: cp.cuda.get_elapsed_time(ref_event, event)   # noqa: E731
    rows, device = [], []
    for label, on_device, enter, leave, start, stop in tracer.ops:
        row = dict(label=label, device=on_device, host_enter_ms=1e3 * (enter - t0), host_leave_ms=1e3 * (leave - t0))
        if on_device:
            row |= dict(start_ms=ms(start), stop_ms=ms(stop))
            device.append(row)
        rows.append(row)
    kinds, gaps = {}, dict(waiting_on_host=0.0, launch=0.0)
    gap_by_next = {}
    for previous, row in zip([None] + device, device):
        took = row["stop_ms"] - row["start_ms"]
        kind = kinds.setdefault(row["label"], [0, 0.0])
        kind[0] += 1
        kind[1] += took
        if previous is None:
            continue
        gap = row["start_ms"] - previous["stop_ms"]
        late = min(gap, max(0.0, row["host_enter_ms"] - previous["stop_ms"]))   # the host enqueued it after
        gaps["waiting_on_host"] += late
        gaps["launch"] += gap - late
        gap_by_next[row["label"]] = gap_by_next.get(row["label"], 0.0) + gap
    first, last = device[0], device[-1]
    host = {label: 0.0 for label, on_device, *_ in tracer.ops if not on_device}
    for label, on_device, enter, leave, *_ in tracer.ops:
        if not on_device and label == "window_scores":
            host.pop(label, None)
        elif not on_device:
            host[label] += 1e3 * (leave - enter)
    return dict(wall_ms=1e3 * wall, before_first_ms=first["start_ms"], first_enqueued_ms=first["host_enter_ms"],
                after_last_ms=1e3 * wall - last["stop_ms"], kinds=kinds, gaps=gaps, gap_by_next=gap_by_next,
                host_calls_ms=host, ops=rows)


def untraced(cp, a, rb, params, sizes, repeats):
    """gpu_row's end to end (S1 on the host, then window_scores), median of ``repeats``, and the window scores."""
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band

    L1 = params.spans(len(a), 1)[0]
    times = []
    for _ in range(repeats):
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        found = window_scores(a, strand_band(a, params.fold_params, L1), [rb], params, sizes=sizes)
        times.append(time.perf_counter() - start)
    import hashlib
    digest = hashlib.sha256(found[0][0].tobytes() + found[0][1].tobytes()).hexdigest()[:16]
    return float(np.median(times)), times, digest


def synced_launches(a, rb, params, sizes) -> dict:
    """The launches' sums (ms) by phase as bench/bpmax_gpu_sizes.py --levels takes them: each launch alone between
    an event pair, synchronised (window_scores' ``timings``)."""
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band

    timings = {"launches": []}
    window_scores(a, strand_band(a, params.fold_params, params.spans(len(a), 1)[0]), [rb], params, sizes=sizes,
                  timings=timings)
    out = {}
    for key, seconds in timings["launches"]:
        out[key] = out.get(key, 0.0) + 1e3 * seconds
    return out


def host_profile(cp, a, rb, params, sizes, top=18):
    """The host's functions of one untraced run by own time (cProfile; CuPy's C calls included), as text."""
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band

    cp.cuda.Device().synchronize()
    profile = cProfile.Profile()
    profile.enable()
    window_scores(a, strand_band(a, params.fold_params, params.spans(len(a), 1)[0]), [rb], params, sizes=sizes)
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def fill_alone(cp, cells, repeats=5):
    """The table's poisoning fill of ``cells`` int16 cells timed alone (events, median ms): CuPy's fill of int16
    (cp.full's), the same bits through an int64 view (8-byte stores), and a zero memset (the bytes' floor)."""
    from bioaccel.runtime.gpu import SHARED_KERNELS, kernel

    table = cp.empty(cells, dtype=np.int16)
    word = np.full(4, -16384, np.int16).view(np.int64)[0]
    # runtime.gpu.filled's 16-byte stores (table_fill 1), run over this table in place
    stores, vectors = kernel(SHARED_KERNELS, "fill.cu", "fill_vectors"), table.nbytes // 16
    pattern = np.full(8, -16384, np.int16).view(np.uint32)
    forms = {"cupy int16 fill (cp.full's)": lambda: table.fill(np.int16(-16384)),
             "int64 view fill (same bits)": lambda: table.view(np.int64).fill(word),
             "16-byte stores (table_fill 1)": lambda: stores((min(-(-vectors // 256), 1 << 20),), (256,),
                                                             (table, np.int64(vectors), *pattern)),
             "memset 0 (cudaMemsetAsync)": lambda: cp.cuda.runtime.memsetAsync(table.data.ptr, 0, table.nbytes, 0)}
    out = {}
    for name, fill in forms.items():
        times = []
        for _ in range(repeats + 1):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fill()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        out[name] = float(np.median(times[1:]))
    same = {}
    for name in ("int64 view fill (same bits)", "16-byte stores (table_fill 1)"):
        cp.cuda.runtime.memsetAsync(table.data.ptr, 0, table.nbytes, 0)
        forms[name]()
        same[name] = bool((table == -16384).all())
    del table
    return dict(cells=cells, gb=cells * 2 / 1e9, ms=out, same_bits=same)


def parse_sizes(text, sizes) -> dict:
    """BPMaxSizes changes from ``k=v,k=v`` ("default": none), each value of its field's type.

    >>> from bioaccel.interact._gpu_launch import SIZES
    >>> parse_sizes("segment_fit=0,products_skip=0", SIZES), parse_sizes("default", SIZES)
    ({'segment_fit': 0, 'products_skip': False}, {})
    """
    if text == "default":
        return {}
    out = {}
    for key, value in (item.split("=") for item in text.split(",")):
        kind = type(getattr(sizes, key))
        out[key] = value not in ("0", "False") if kind is bool else kind(value)
    return out


def print_ops(row, head=16, tail=10):
    """The first ``head`` and last ``tail`` operations of a traced run (ms from its start)."""
    print(f"\n## operations of '{row['setting']}' in order (host enter / leave; device start / stop, ms)")
    ops = row["ops"]
    for op in ops[:head] + [None] + ops[-tail:]:
        if op is None:
            print("...")
            continue
        device = f"{op['start_ms']:.3f} / {op['stop_ms']:.3f}" if op["device"] else "host"
        print(f"| {op['label']} | {op['host_enter_ms']:.3f} / {op['host_leave_ms']:.3f} | {device} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--target", type=int, default=20_000)
    parser.add_argument("--sizes", default="", help="BPMaxSizes changes (k=v,k=v), ';' between settings")
    parser.add_argument("--no-fill", action="store_true", help="skip the fill alone (a tree before bpmaxhost's "
                        "kernel: bench/calls/bpmax_host_call.sh's old code)")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_gpu_timeline.json"))
    args = parser.parse_args(argv)
    import cupy as cp

    from bioaccel.interact import InteractParams
    from bioaccel.interact._gpu import matrices, row_stride
    from bioaccel.interact._gpu_launch import SIZES

    params = InteractParams(window_target=128)
    rng = random.Random(5)
    a, rb = random_codes(rng, 23), random_codes(rng, args.target)
    settings = [("default", {})] + [(text, parse_sizes(text, SIZES)) for text in args.sizes.split(";") if text]
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, load average {os.getloadavg()}", flush=True)
    results = []
    for name, change in settings:
        sizes = replace(SIZES, **change)
        untraced(cp, a, rb, params, sizes, 2)                      # warm up: compiles, the pool's blocks
        traced_run(cp, a, rb, params, sizes)
        wall, tracer, reference = traced_run(cp, a, rb, params, sizes)
        row = dict(setting=name, sizes=change, **split(tracer, reference, wall))
        row["untraced_s"], row["untraced_runs_s"], row["scores_sha256"] = untraced(cp, a, rb, params, sizes,
                                                                                     args.repeats)
        row["host_profile"] = host_profile(cp, a, rb, params, sizes)
        row["synced_launches_ms"] = synced_launches(a, rb, params, sizes)
        results.append(row)
        print(name, row["untraced_s"], row["wall_ms"], row["scores_sha256"], flush=True)
    fill = None if args.no_fill else fill_alone(cp, matrices(23, 23) * (args.target + 1) * row_stride(129))
    for row in results:
        print_ops(row)
        print(f"\n## cProfile of one untraced run, '{row['setting']}' (own time)\n" +
              "\n".join(row["host_profile"].splitlines()[:40]))
    print(f"\n## the end to end of 23 x {args.target:,} nt, window 128, split (ms; one traced run each; untraced: "
          f"median of {args.repeats})")
    print("| | " + " | ".join(r["setting"] for r in results) + " |")
    print("|---|" + "---|" * len(results))
    lines = [("untraced end to end", lambda r: 1e3 * r["untraced_s"]), ("traced wall", lambda r: r["wall_ms"]),
             ("host before the first device op (enqueued at)", lambda r: r["first_enqueued_ms"]),
             ("device idle before its first op", lambda r: r["before_first_ms"])]
    union = lambda key: list(dict.fromkeys(k for r in results for k in r[key]))   # noqa: E731
    lines += [(f"host call: {k}", (lambda k: lambda r: r["host_calls_ms"].get(k, 0.0))(k))
              for k in union("host_calls_ms")]
    lines += [(f"device: {k} (x{'/'.join(str(r['kinds'].get(k, [0])[0]) for r in results)})",
               (lambda k: lambda r: r["kinds"].get(k, [0, 0.0])[1])(k)) for k in union("kinds")]
    lines += [("device: all ops", lambda r: sum(t for _, t in r["kinds"].values())),
              ("launches synced one by one (as --levels): products + finish + pairing",
               lambda r: sum(r["synced_launches_ms"].values())),
              ("the same three traced in the run", lambda r: sum(r["kinds"].get(k, [0, 0.0])[1]
                                                                 for k in ("products", "finish", "pairing"))),
              ("gaps: the device waiting on the host", lambda r: r["gaps"]["waiting_on_host"]),
              ("gaps: launch latency (host ahead)", lambda r: r["gaps"]["launch"])]
    lines += [(f"gaps before: {k}", (lambda k: lambda r: r["gap_by_next"].get(k, 0.0))(k))
              for k in union("gap_by_next")]
    lines += [("after the last device op (host)", lambda r: r["after_last_ms"])]
    for label, value in lines:
        print(f"| {label} | " + " | ".join(f"{value(r):.3f}" for r in results) + " |")
    if fill:
        print(f"\n## the poisoning fill alone: {fill['cells']:,} int16 cells ({fill['gb']:.2f} GB), median ms")
        for name, ms in fill["ms"].items():
            print(f"| {name} | {ms:.3f} | {fill['gb'] / ms:.2f} TB/s |")
        print(f"every cell the sentinel after the fill: {fill['same_bits']}")
    same = len({r["scores_sha256"] for r in results}) == 1
    print(f"every setting's window scores the same (SHA-256): {same}: {results[0]['scores_sha256']}")
    save_json(dict(rows=results, fill=fill), args.json)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
