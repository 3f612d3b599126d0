"""PWM scanning benchmarks (Giraud & Varré's SCAN and MULTIPLESCAN, issue: scanning genomes).

1. CPU (``--cpu``): one motif, 20 motifs and every JASPAR 2024 CORE vertebrate matrix over a real
   sequence (the 1 Mb human chromosome 22 slice of Debian's hisat2 examples), both strands, the score
   thresholds of P = 1e-4 from bioaccel's exact method given to every tool that takes a score
   threshold: MOODS (``MOODS.scan.scan_dna``), lightmotif (``lightmotif.scan``), Biopython
   (``PSSM.search``), and memelite's ``fimo`` (which takes PWMs and a P-value and makes its own
   binned thresholds); FIMO itself (``pymemesuite``) when it can be installed. Every bioaccel variant
   beside them. Throughput in positions x matrices per second (a matrix scanned on both strands
   counts once), and each tool's ratio to bioaccel's default, all measured in this one run; the load
   average printed, since the machine is shared.
2. GPU (``--gpu``): every JASPAR 2024 CORE matrix (latest versions), both strands, P = 1e-4, over
   100 Mb (the real slice repeated), hits written to a file, the time split into thresholds, scanning,
   P-values and writing, and the whole ``bioaccel scan`` command timed end to end; scanning's fraction
   of the shared-memory look-up ceiling (SMs x 32 lanes x clock: the kernels' inner loop is table
   look-ups in shared memory; reading the sequence is far below the memory bandwidth).

Prints tables and writes JSON to bench/results/scan.json (scan-gpu.json for --gpu).

    python3 bench/scan.py --cpu                       # the CPU table (a few minutes on 2 cores)
    python3 bench/scan.py --cpu --quick               # one and 20 motifs only
    python3 bench/scan.py --gpu --motifs core.jaspar  # on a GPU machine (no pyjaspar there: export first,
                                                      # bioaccel motif export jaspar:2024/CORE -o core.jaspar)
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from bioaccel.runtime.parallel import threads as using_threads  # noqa: E402
from _results import save_json  # noqa: E402
from bioaccel.inputs.fasta import read_fasta  # noqa: E402
from bioaccel.motif import read_motifs  # noqa: E402
from bioaccel.scan._pipeline import Scanner  # noqa: E402
from bioaccel.scan._sequences import chunks  # noqa: E402
from bioaccel.scan._setup import prepare  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHR22 = "/work/data/out/usr/share/doc/hisat2/examples/reference/22_20-21M.fa"
P = 1e-4


def timed(fn, repeats=1):
    best, out = math.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def sequence_of(path):
    record = next(iter(read_fasta(path)))
    return record.sequence.upper().replace("U", "T")


def write_repeated(text, repeat, path):
    """``text`` ``repeat`` times over as one FASTA record of 60-letter lines (the GPU benches' 100 Mb);
    returns ``path``."""
    with open(path, "w") as f:
        f.write(">chr22_slice_x%d\n" % repeat)
        for _ in range(repeat):
            for i in range(0, len(text), 60):
                f.write(text[i:i + 60] + "\n")
    return path


def score_thresholds(setup):
    """Each motif's forward-strand threshold as a score (the same number every tool is given)."""
    plan = setup.plan
    out = {k: m.max_score + 1.0 for k, m in enumerate(setup.motifs)}    # unreachable at P: no hits
    for e in range(plan.entries):
        k = int(plan.motif_of[e])
        if plan.strand_of[e] == 0:
            out[k] = plan.grids[k].score(int(plan.threshold[e]))
    return out


# ---- the tools ------------------------------------------------------------------------------------------

def run_bioaccel(setup, codes, variant):
    scanner = Scanner(setup.plan, "cpu", variant)
    if variant == "index":
        setup.plan.index                               # built once per motif set, timed apart
    return len(scanner.scan(codes, codes.shape[0])[0])


def run_moods(pssms, thresholds, text):
    import MOODS.scan
    import MOODS.tools

    mats, ths = [], []
    for k, m in enumerate(pssms):
        mat = [list(map(float, m.scores[:, b])) for b in range(4)]
        mats += [mat, MOODS.tools.reverse_complement(mat)]
        ths += [thresholds[k] - 1e-9] * 2
    return lambda: sum(len(r) for r in MOODS.scan.scan_dna(text, mats, [0.25] * 4, ths, 7))


def run_lightmotif(pssms, thresholds, text):
    import lightmotif

    striped = lightmotif.stripe(text.replace("N", "A"))
    mats = []
    for k, m in enumerate(pssms):
        sm = lightmotif.ScoringMatrix({b: list(map(float, m.scores[:, i])) for i, b in enumerate("ACGT")})
        mats += [(sm, thresholds[k] - 1e-4), (sm.reverse_complement(), thresholds[k] - 1e-4)]
    return lambda: sum(len(list(lightmotif.scan(sm, striped, threshold=t))) for sm, t in mats)


def run_biopython(pssms, thresholds, text):
    from Bio.Seq import Seq
    from Bio.motifs.matrix import PositionSpecificScoringMatrix

    seq = Seq(text)
    mats = [(PositionSpecificScoringMatrix("ACGT", {b: list(m.scores[:, i]) for i, b in enumerate("ACGT")}),
             thresholds[k] - 1e-9) for k, m in enumerate(pssms)]
    return lambda: sum(sum(1 for _ in pm.search(seq, threshold=t, both=True)) for pm, t in mats)


def run_memelite(pssms, text):
    from memelite import fimo

    one_hot = np.zeros((1, 4, len(text)), dtype=np.float32)
    codes = np.frombuffer(text.encode(), dtype=np.uint8)
    for i, b in enumerate(b"ACGT"):
        one_hot[0, i, codes == b] = 1
    pwms = {m.motif_id: (m.probabilities if m.probabilities is not None else 0.25 * 2.0 ** m.scores).T
            for m in pssms}
    return lambda: int(np.sum(fimo(pwms, one_hot, threshold=P, return_counts=True)))


def fimo_available():
    try:
        import pymemesuite  # noqa: F401
        return None
    except Exception as exc:
        return f"pymemesuite is not installable here ({exc.__class__.__name__}); FIMO not run"


# ---- CPU ------------------------------------------------------------------------------------------------

def cpu_bench(args):
    text = sequence_of(args.sequence)
    from bioaccel.inputs.alphabet import encode

    codes = encode(text)
    everything = read_motifs(args.motifs)
    sets = [("1 motif", everything[:1]), ("20 motifs", everything[:20])]
    if not args.quick:
        sets.append((f"{len(everything)} motifs", everything))
    rows = []
    load = os.getloadavg()
    print(f"# {platform.node()}: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"# sequence {args.sequence}: {len(text):,} letters; both strands; P = {P} thresholds")
    why_no_fimo = fimo_available()
    for label, pssms in sets:
        t_prepare, setup = timed(lambda: prepare(pssms, pvalue=P))
        thresholds = score_thresholds(setup)
        pm = len(text) * len(pssms)
        results = {}
        with using_threads(args.threads):
            t_index, _ = timed(lambda: setup.plan.index)
            for variant in ("index", "lookahead", "slices", "naive"):
                if variant == "naive" and len(pssms) > 100 and args.quick:
                    continue
                run_bioaccel(setup, codes[:1000], variant)           # compile
                t, hits = timed(lambda: run_bioaccel(setup, codes, variant), args.repeats)
                if t < 0.2:                                           # short: the best of more runs
                    t, hits = timed(lambda: run_bioaccel(setup, codes, variant), 10)
                results[f"bioaccel {variant}"] = (t, hits)
        peers = [("MOODS", lambda: run_moods(pssms, thresholds, text)),
                 ("lightmotif", lambda: run_lightmotif(pssms, thresholds, text)),
                 ("memelite fimo", lambda: run_memelite(pssms, text)),
                 ("Biopython PSSM.search", lambda: run_biopython(pssms, thresholds, text))]
        for name, make in peers:
            if name == "Biopython PSSM.search" and len(pssms) > 20:
                results[name] = (None, "skipped: about 1.5 s a motif")
                continue
            try:
                fn = make()
                if name == "memelite fimo":
                    fn()                                             # compile
                results[name] = timed(fn, args.repeats)
                if results[name][0] < 0.2:
                    results[name] = timed(fn, 10)
            except Exception as exc:
                results[name] = (None, f"failed: {exc.__class__.__name__}: {exc}")
        base = results["bioaccel index"][0]
        print(f"\n## {label} (thresholds {t_prepare:.2f} s, index {t_index:.2f} s, not in the times below)")
        print(f"{'tool':24} {'time s':>9} {'hits':>9} {'pos x mat / s':>14} {'bioaccel is':>12}")
        for name, (t, hits) in results.items():
            if t is None:
                print(f"{name:24} {hits}")
                rows.append({"set": label, "tool": name, "note": hits})
                continue
            rate = pm / t
            print(f"{name:24} {t:9.3f} {hits:9,} {rate:14.3e} {t / base:11.1f}x")
            rows.append({"set": label, "tool": name, "seconds": t, "hits": hits, "rate": rate,
                         "bioaccel_speedup": t / base, "thresholds_s": t_prepare, "index_s": t_index})
        if why_no_fimo:
            print(f"{'FIMO (pymemesuite)':24} {why_no_fimo}")
    out = {"machine": platform.node(), "cores": os.cpu_count(), "load": load, "sequence": args.sequence,
           "letters": len(text), "pvalue": P, "rows": rows, "fimo": why_no_fimo}
    write_json(out, "scan.json")


# ---- GPU ------------------------------------------------------------------------------------------------

def gpu_bench(args):
    from bioaccel.runtime.gpu import device_name, require_gpu

    cp = require_gpu()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    ceiling = props["multiProcessorCount"] * 32 * props["clockRate"] * 1e3        # look-ups / s
    text = sequence_of(args.sequence)
    repeat = max(1, round(args.megabases * 1e6 / len(text)))
    big = write_repeated(text, repeat, os.path.join(args.workdir, "scan-big.fa"))
    letters = len(text) * repeat
    pssms = read_motifs(args.motifs)
    print(f"# {device_name()}: {props['multiProcessorCount']} SMs at {props['clockRate'] / 1e6:.2f} GHz; "
          f"look-up ceiling {ceiling:.3e}/s")
    print(f"# {len(pssms)} matrices ({args.motifs}), {letters / 1e6:.0f} Mb, both strands, P = {P}")
    prepare(pssms[:50], pvalue=P)                                   # compile (Numba) before timing
    t_thr, setup = timed(lambda: prepare(pssms, pvalue=P))
    plan = setup.plan
    lookups = letters * int(sum(-(-plan.length // 4)))            # one table look-up per slice of 4
    t_read, held = timed(lambda: [(c.codes.copy(), c.windows) for c in chunks(big, overlap=setup.longest - 1)])
    print(f"thresholds {t_thr:.2f} s; reading the FASTA in chunks {t_read:.2f} s")
    rows = []
    import bioaccel.scan._gpu as scan_gpu
    production = scan_gpu.SIZES
    for spec in args.variants.split(","):
        # "fused:lanes", "fused:words" (the fused kernel's forms, ScanSizes.form), "segments"
        variant, _, form = spec.partition(":")
        scan_gpu.SIZES = production.replace(form=form or production.form)
        scanner = Scanner(plan, "gpu", variant)
        scanner.scan(np.zeros(1000, np.uint8), 1000)                 # compile

        def scan_all():                  # chunks held in memory: the GPU's part alone, copies included
            found, last = 0, None
            for codes, windows in held:
                job = scanner.submit(codes, windows)
                if last is not None:
                    found += len(last()[0])
                last = job
            return found + len(last()[0])

        t_scan, hits = timed(scan_all, args.repeats)
        t_kernel = min(kernels_alone(scanner, held) for _ in range(args.repeats))
        frac = lookups / t_scan / ceiling if variant == "fused" else None
        kfrac = lookups / t_kernel / ceiling if variant == "fused" else None
        digest = hits_digest(scanner, held) if args.digest else None
        rows.append({"variant": spec, "scan_s": t_scan, "hits": hits, "lookup_fraction": frac, "kernels_s": t_kernel,
                     "kernels_lookup_fraction": kfrac, "hits_sha256": digest})
        print(f"{spec:12} scan {t_scan:7.3f} s (kernels alone {t_kernel:.3f} s)  {hits:,} hits  "
              f"{letters * len(pssms) / t_scan:.3e} pos x mat/s"
              + (f"  {100 * frac:.1f}% of the look-up ceiling (kernels alone {100 * kfrac:.1f}%)" if frac else "")
              + (f"  hits sha256 {digest[:16]}" if digest else ""))
        scan_gpu.SIZES = production
    del held
    if "batches" not in args.parts and "cli" not in args.parts:
        write_json({"device": device_name(), "ceiling_lookups": ceiling, "letters": letters, "matrices": len(pssms),
                    "lookups": lookups, "thresholds_s": t_thr, "read_s": t_read, "rows": rows}, args.json)
        return
    t_all = t_price = t_write = breakdown = None
    hits = []
    if "batches" in args.parts:
        t_all, t_price, t_write, hits, breakdown = batches_bench(args, setup, big)
    ends = cli_runs(args, big) if "cli" in args.parts else {}
    write_json({"device": device_name(), "ceiling_lookups": ceiling, "letters": letters, "matrices": len(pssms),
                "lookups": lookups, "thresholds_s": t_thr, "read_s": t_read, "rows": rows, "scan_batches_s": t_all,
                "pvalues_s": t_price, "hits": len(hits), "write_s": t_write, "end_to_end_s": ends,
                "collect_breakdown_s": breakdown}, args.json)


def kernels_alone(scanner, held):
    """The kernels of every chunk alone, timed by CUDA events on one stream: the chunks already on the
    device, hit buffers as large as the chunks need, no copy out and no sort (what the fused scan's time
    adds to them)."""
    import cupy as cp

    engine = scanner._engine
    chunks_on_device = [(cp.asarray(codes), windows) for codes, windows in held]
    stream = cp.cuda.Stream(non_blocking=True)
    uploaded = cp.cuda.Event()
    uploaded.record()
    stream.wait_event(uploaded)                          # after the uploads on the default stream
    with stream:
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for codes, windows in chunks_on_device:
            for job, arrays, keep in zip(engine.jobs, engine.device, engine.keep_from):
                engine._run(job, arrays, codes, int(codes.shape[0]), windows, engine.capacity, keep)
        end.record()
        end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / 1e3


def hits_digest(scanner, held):
    """SHA-256 of every chunk's hits (entry, start, units as int64, in the order the scanner gives them:
    sorted by position, then entry): the same digest means the same hits."""
    import hashlib

    digest = hashlib.sha256()
    for codes, windows in held:
        for array in scanner.scan(codes, windows):
            digest.update(np.ascontiguousarray(array, np.int64).tobytes())
    return digest.hexdigest()


def batches_bench(args, setup, big):
    from bioaccel.scan._pipeline import ScanState
    from bioaccel.scan._price import price
    from bioaccel.scan._hits import Hits
    from bioaccel.scan._write import HitWriter

    # P-values and writing, on the hits of one pass (through the API's own pieces)
    state = ScanState()
    from bioaccel.scan._pipeline import scan_batches
    import cProfile
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    t_all, batches = timed(lambda: list(scan_batches(setup, big, backend="gpu", state=state)))
    profile.disable()
    if args.profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(14)
    hits = Hits.concat(batches)
    setup.priced.clear()                           # every P-value computed again, no cache
    t_price, _ = timed(lambda: price(setup, hits))
    out_path = os.path.join(args.workdir, "scan-hits.tsv")

    def write():
        with open(out_path, "w") as handle:
            writer = HitWriter(handle, "fimo", setup.motifs, state.names, qvalues=False)
            writer.header()
            writer.write(hits)
    t_write, _ = timed(write)
    print(f"read + scan + P-values (scan_batches) {t_all:.2f} s; P-values alone, no cache {t_price:.2f} s "
          f"for {len(hits):,} hits; writing them {t_write:.2f} s ({os.path.getsize(out_path) / 1e9:.2f} GB)")
    breakdown = profile_collect(setup, big)
    print("in-process `collect` (the stored path), seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in breakdown.items()))
    return t_all, t_price, t_write, hits, breakdown


def cli_runs(args, big):
    """``bioaccel scan`` end to end, each output kind (stored; ``--text`` where --parts names text): a first
    run with empty threshold and P-value caches (a new BIOACCEL_CACHE_DIR; Numba's cache warm), then the
    user's second run of the same scan (those caches warm), then the second run traced."""
    import tempfile

    ends = {}
    kinds = [("stored (FIMO's default, best 100,000 written)", [])]
    if "text" in args.parts:
        kinds.append(("--text (every hit written)", ["--text"]))
    for label, extra in kinds:
        out = os.path.join(args.workdir, "scan-cli.out")
        cache = tempfile.mkdtemp(prefix="scan-cache-", dir=args.workdir)
        env = dict(os.environ, BIOACCEL_CACHE_DIR=cache)
        cmd = [sys.executable, "-m", "bioaccel", "scan", args.motifs, big, "--backend", "gpu", "-q", "-o", out, *extra]
        # each run writes a new file: replacing the last run's 3.9 GB one cost 3 s of unlinking (H100 machine)
        fresh = lambda: os.path.exists(out) and os.remove(out)     # noqa: E731
        for run in ("first run, empty caches", "second run, caches warm"):
            fresh()
            t, proc = timed(lambda: subprocess.run(cmd, capture_output=True, text=True, env=env))
            ends[f"{label}, {run}"] = t
            print(f"bioaccel scan end to end, {label}, {run}: {t:.2f} s (exit {proc.returncode}) "
                  f"{proc.stderr.strip()[:200]}")
        fresh()
        t, timeline = traced(args.motifs, big, out, extra, env)
        ends[f"{label}, second run traced"] = t
        batchwise = lambda line: "ThreadPoolExec" in line and (" _priced " in line or " write " in line)  # noqa: E731
        timeline = "\n".join(line for line in timeline.splitlines() if not batchwise(line))
        print(f"the second run, traced ({t:.2f} s; each batch's pricing and writing left out):\n{timeline.rstrip()}")
        fresh()
    return ends


#: Run as ``python3 -c TRACE MOTIFS FASTA [OPTIONS]``: ``bioaccel scan`` in this process with a clock on
#: its steps (seconds since the process started, from /proc), printed to stderr when it exits.
TRACE = r"""
import atexit, os, sys, threading, time
stat = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
# the process's start in seconds since boot (to 10 ms), on the clock since boot (/proc/stat's btime is
# whole seconds: an offset of up to 1 s in every time of earlier traces)
born = int(stat[19]) / os.sysconf("SC_CLK_TCK")
shift = time.clock_gettime(time.CLOCK_BOOTTIME) - time.perf_counter()
events = []
def note(what):
    events.append((time.perf_counter() + shift - born, threading.current_thread().name, what))
note("python up")
import bioaccel.cli.main as C, bioaccel.cli.motif_options as MO, bioaccel.scan._pipeline as S, bioaccel.scan._gpu as G
import bioaccel.scan._api as A, bioaccel.scan._write as W
note("imports done")
if os.environ.get("SCAN_STAND_IN"):        # --emulate: the GPU replaced by each chunk's hits made beforehand
    sys.path.insert(0, os.environ["SCAN_BENCH_DIR"])
    import scan as bench
    bench.install_stand_in(os.environ["SCAN_STAND_IN"])
def around(owner, name, label=None):
    fn = getattr(owner, name)
    def wrapped(*a, **k):
        note((label or name) + " start")
        try:
            return fn(*a, **k)
        finally:
            note((label or name) + " end")
    setattr(owner, name, wrapped)
for owner, name in [(MO.MotifSource, "read"), (A, "prepare"), (G, "warm_up"), (A, "collect"), (S, "_priced"),
                    (W.HitWriter, "write"), (G.GpuScanner, "__init__")]:
    around(owner, name)
first = []
add = S._Found.add
def counted(self, *a):
    if not first:
        first.append(1); note("first chunk's hits")
    return add(self, *a)
S._Found.add = counted
def report():
    note("exit")
    for t, who, what in events:
        print(f"  {t:7.3f} s  {who[:14]:14} {what}", file=sys.stderr)
atexit.register(report)
sys.exit(C.main(["scan", *sys.argv[1:]]))
"""


class StandInGpu:
    """--emulate: the GPU scanner replaced by each chunk's hits read from files made beforehand
    (:func:`emulate`), the floors applied as the fused kernels apply them, its own seconds counted."""

    folder = None
    spent = 0.0

    def __init__(self, plan, variant):
        self.k, self.floor, self.withheld = 0, None, 0

    def withhold_below(self, floor):
        self.floor = np.asarray(floor, np.int64).copy()

    def take_withheld(self):
        count, self.withheld = self.withheld, 0
        return count

    def submit(self, codes, windows):
        t = time.perf_counter()
        k, self.k = self.k, self.k + 1
        entry, pos, units = (np.load(os.path.join(self.folder, f"{k}_{x}.npy")) for x in "epu")
        held = 0
        if self.floor is not None:
            keep = units >= self.floor[entry]
            held = int(keep.size - np.count_nonzero(keep))
            entry, pos, units = entry[keep], pos[keep], units[keep]
        StandInGpu.spent += time.perf_counter() - t

        def result():
            self.withheld += held          # counted when the chunk's result is taken, as the GPU counts
            return entry, pos, units
        return result


def install_stand_in(folder):
    """The GPU backend answered by :class:`StandInGpu` in this process (no CuPy, no device)."""
    import atexit
    import bioaccel.runtime.gpu as gpu
    import bioaccel.scan._api as api
    import bioaccel.scan._pipeline as pipeline

    StandInGpu.folder = folder
    pipeline.SCANNERS["gpu"] = StandInGpu
    api._warm_gpu = lambda: None
    gpu.require_gpu = lambda: None
    atexit.register(lambda: print(f"  (the stand-in GPU's own work: {StandInGpu.spent:.3f} s of the scan's thread)",
                                  file=sys.stderr))


def emulate(args):
    """The command's host side without a GPU: the bench's 100 Mb (the slice repeated), every chunk's hits
    made once by the CPU scan of the slice twice over (a window may cross into the next copy), then
    ``bioaccel scan --backend gpu`` traced, twice (caches cold, then warm), with :class:`StandInGpu`.
    ``--stand-in DIR`` keeps (or reuses) those hits; ``--baseline SRC`` (another tree's ``src``) runs the
    same pair with that tree too, alternating, ``--rounds`` times, and compares the outputs."""
    import filecmp
    import tempfile

    text = sequence_of(args.sequence)
    repeat = max(1, round(args.megabases * 1e6 / len(text)))
    big = write_repeated(text, repeat, os.path.join(args.workdir, "scan-big.fa"))
    folder = args.stand_in or tempfile.mkdtemp(prefix="scan-stand-in-", dir=args.workdir)
    if not os.path.exists(os.path.join(folder, "0_e.npy")):
        stand_in_hits(args, text, repeat, big, folder)
    trees = [("this tree", None)] + ([("baseline", os.path.abspath(args.baseline))] if args.baseline else [])
    if args.price_first:
        price_first(args, folder, trees)
        return
    outs = {}
    for r in range(args.rounds):
        for name, src in (trees if r % 2 == 0 else trees[::-1]):
            env = dict(os.environ, SCAN_STAND_IN=folder, SCAN_BENCH_DIR=HERE,
                       BIOACCEL_CACHE_DIR=tempfile.mkdtemp(prefix="runs-", dir=folder))
            if src is not None:
                env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
            for run in ("first run, empty caches", "second run, caches warm"):
                out = os.path.join(folder, f"hits-{name.replace(' ', '-')}-{run.split()[0]}.tsv")
                t, timeline = traced(args.motifs, big, out, [], env)
                outs.setdefault(run, []).append(out)
                print(f"## {name}, round {r + 1}, {run}: {t:.2f} s (load average {os.getloadavg()[0]:.2f})\n"
                      f"{timeline.rstrip()}", flush=True)
    for run, paths in outs.items():
        same = all(filecmp.cmp(paths[0], p, shallow=False) for p in paths[1:])
        print(f"outputs, {run}: {'the same bytes' if same else 'DIFFERENT'} ({len(paths)} files)")


#: Run as ``python3 -c PRICE_FIRST FOLDER MOTIFS REPEATS`` (--price-first): the emulated command's first
#: batch (pickled by :data:`TRACE`'s run with SCAN_DUMP_FIRST) priced by ``_priced`` as its pricing thread
#: prices it, REPEATS times in one process (the P-value store warm, the scan's own cache emptied each time).
PRICE_FIRST = r"""
import copy, pickle, sys, time
from bioaccel.motif import read_motifs
from bioaccel.scan._setup import prepare
import bioaccel.scan._pipeline as S
folder, motifs, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
pending, bound_cut = pickle.load(open(folder + "/first-batch.pkl", "rb"))
setup = prepare(read_motifs(motifs), pvalue=1e-4)
setup.bounds.make()                            # (made by the scan thread's floors before the batch is priced)
for r in range(repeats):
    setup.priced.clear(); setup.inexact.clear()
    parts = copy.deepcopy(pending)
    t = time.perf_counter()
    kept = S._priced(setup, parts, 0, S.ScanState(), 100000, bound_cut, True)
    print(f"{time.perf_counter() - t:.3f} {len(kept)}", flush=True)
"""


def price_first(args, folder, trees):
    """--price-first: the first batch (5.95 M hits of 3 chunks) priced in one process per tree,
    alternating, each ``--repeats`` times: the pricing thread's critical step alone, no scan beside it."""
    import pickle

    import bioaccel.scan._pipeline as S

    dump = os.path.join(folder, "first-batch.pkl")
    if not os.path.exists(dump):
        install_stand_in(folder)
        priced = S._priced

        def first(setup, pending, threads, state, best=None, bound_cut=math.inf, lazy=False):
            if not os.path.exists(dump):
                with open(dump, "wb") as f:
                    pickle.dump((pending, bound_cut), f)
            return priced(setup, pending, threads, state, best, bound_cut, lazy)
        S._priced = first
        os.environ["BIOACCEL_CACHE_DIR"] = os.path.join(folder, "price-first-cache")
        from bioaccel.scan._setup import prepare
        S.collect(prepare(read_motifs(args.motifs), pvalue=P), os.path.join(args.workdir, "scan-big.fa"),
                  backend="gpu")
        S._priced = priced
    env = dict(os.environ, BIOACCEL_CACHE_DIR=os.path.join(folder, "price-first-cache"))
    for r in range(2):
        for name, src in (trees if r % 2 == 0 else trees[::-1]):
            e = dict(env, PYTHONPATH=(src + os.pathsep if src else "") + env.get("PYTHONPATH", ""))
            out = subprocess.run([sys.executable, "-c", PRICE_FIRST, folder, args.motifs, str(args.repeats)],
                                 capture_output=True, text=True, env=e, check=True).stdout.split("\n")
            times = [float(line.split()[0]) for line in out if line]
            kept = {line.split()[1] for line in out if line}
            print(f"first batch priced, {name}: " + ", ".join(f"{t:.3f}" for t in times) +
                  f" s (kept {'/'.join(sorted(kept))}; load average {os.getloadavg()[0]:.2f})", flush=True)


def stand_in_hits(args, text, repeat, big, folder):
    """Each chunk's hits of the big file, as the GPU would give them (:func:`emulate`), in ``folder``."""
    from bioaccel.inputs.alphabet import encode

    os.makedirs(folder, exist_ok=True)
    os.environ["BIOACCEL_CACHE_DIR"] = os.path.join(folder, "cache")
    setup = prepare(read_motifs(args.motifs), pvalue=P)
    period, total = len(text), len(text) * repeat
    entry, pos, units = Scanner(setup.plan, "cpu", "index").scan(encode(text + text), period)
    for k, chunk in enumerate(chunks(big, overlap=setup.longest - 1)):
        s, e = chunk.start, chunk.start + chunk.windows
        parts = []
        for r in range(s // period, (e - 1) // period + 1):
            at = r * period + pos
            keep = (at >= s) & (at < e) & (at + setup.plan.length[entry] <= total)
            parts.append((entry[keep], at[keep] - s, units[keep]))
        found = [np.concatenate([p[i] for p in parts]).astype(np.int64) for i in range(3)]
        order = np.argsort(found[1] * max(setup.plan.entries, 1) + found[0], kind="stable")   # as the GPU's
        for x, a in zip("epu", found):
            np.save(os.path.join(folder, f"{k}_{x}.npy"), a[order])


def traced(motifs, fasta, out, extra, env=None):
    """The timeline of one ``bioaccel scan`` (:data:`TRACE`): where an end-to-end run's seconds go."""
    cmd = [sys.executable, "-c", TRACE, motifs, fasta, "--backend", "gpu", "-q", "-o", out, *extra]
    t, proc = timed(lambda: subprocess.run(cmd, capture_output=True, text=True, env=env))
    return t, proc.stderr


def profile_collect(setup, path):
    """Where the stored path's time goes: each piece wrapped with a timer (pricing runs on its own
    thread, so the pieces may add up to more than the whole)."""
    import bioaccel.scan._pipeline as S

    spent = {}

    def timing(name, fn):
        def wrapped(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return wrapped

    saved = {name: getattr(S, name) for name in ("price", "price_best", "bound_floor", "_hits_of_chunk",
                                                 "valid_windows", "add_qvalues")}
    for name, fn in saved.items():
        setattr(S, name, timing(name, fn))
    setup.priced.clear()
    try:
        t = time.perf_counter()
        S.collect(setup, path, backend="gpu")
        spent["whole"] = time.perf_counter() - t
    finally:
        for name, fn in saved.items():
            setattr(S, name, fn)
    return spent


# ---- the command line against MOODS (--cli) ----------------------------------------------------------

MOODS_SCRIPT = """
import json, sys, MOODS.scan
job = json.load(open(sys.argv[1]))
text = "".join(line.strip() for line in open(sys.argv[2]) if not line.startswith(">")).upper()
hits = MOODS.scan.scan_dna(text, job["matrices"], [0.25] * 4, job["thresholds"], 7)
with open(sys.argv[3], "w") as out:
    for k, found in enumerate(hits):
        for h in found:
            out.write(f"{job['ids'][k // 2]}\\t{h.pos + 1}\\t{'+-'[k % 2]}\\t{h.score!r}\\n")
"""


def cli_bench(args):
    """``bioaccel scan`` of --cli-motifs vertebrate matrices over the sequence through the command line (a
    second run: thresholds and P-values cached), against MOODS-python scanning the same log-odds matrices
    with the same score thresholds in this process (``MOODS.scan.scan_dna`` alone: the issue's yardstick)
    and as a command (Python's start, reading, scanning and writing the hits), in this one run."""
    import tempfile

    from bioaccel.motif import read_raw_spec, write_motifs

    folder = tempfile.mkdtemp(prefix="scan-cli-", dir=args.workdir)
    motif_file = os.path.join(folder, "motifs.jaspar")
    with open(motif_file, "w") as handle:
        write_motifs(read_raw_spec(args.motifs)[:args.cli_motifs], handle)
    pssms = read_motifs(motif_file)
    setup = prepare(pssms, pvalue=P)
    thresholds = score_thresholds(setup)
    text = sequence_of(args.sequence)
    env = dict(os.environ, BIOACCEL_CACHE_DIR=os.path.join(folder, "cache"))
    out = os.path.join(folder, "hits.tsv")
    command = [sys.executable, "-m", "bioaccel", "scan", motif_file, args.sequence, "-q", "-o", out]
    subprocess.run(command, env=env, check=True)                 # fills the caches
    job = os.path.join(folder, "moods.json")
    mats, ths = [], []
    import MOODS.tools

    for k, m in enumerate(pssms):
        mat = [list(map(float, m.scores[:, b])) for b in range(4)]
        mats += [mat, MOODS.tools.reverse_complement(mat)]
        ths += [thresholds[k] - 1e-9] * 2
    with open(job, "w") as handle:
        json.dump({"matrices": mats, "thresholds": ths, "ids": [m.motif_id for m in pssms]}, handle)
    moods_out = os.path.join(folder, "moods.tsv")
    moods_command = [sys.executable, "-c", MOODS_SCRIPT, job, args.sequence, moods_out]
    in_process = run_moods(pssms, thresholds, text)
    rows = {"bioaccel scan (command, second run)": [], "MOODS scan_dna (in process, scan only)": [],
            "MOODS-python (command: start, read, scan, write)": []}
    loads = []
    for _ in range(args.repeats + 1):
        loads.append(os.getloadavg()[0])
        t = time.perf_counter()
        subprocess.run(command, env=env, check=True)
        rows["bioaccel scan (command, second run)"].append(time.perf_counter() - t)
        t = time.perf_counter()
        moods_hits = in_process()
        rows["MOODS scan_dna (in process, scan only)"].append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(moods_command, check=True)
        rows["MOODS-python (command: start, read, scan, write)"].append(time.perf_counter() - t)
    hits = sum(1 for _ in open(out)) - 1
    moods_lines = sum(1 for _ in open(moods_out))
    base = min(rows["bioaccel scan (command, second run)"])
    print(f"\n## {len(pssms)} matrices ({args.motifs}) over {len(text):,} letters, both strands, P = {P}; "
          f"load average {min(loads):.2f}-{max(loads):.2f}")
    print(f"hits: bioaccel {hits:,} (with exact P-values and q-values), MOODS {moods_hits:,} (in process), "
          f"{moods_lines:,} (command)")
    print(f"{'tool':52} {'best s':>8} {'median s':>9} {'vs bioaccel':>12}")
    table = []
    for name, times in rows.items():
        times = sorted(times)
        print(f"{name:52} {times[0]:8.3f} {times[len(times) // 2]:9.3f} {times[0] / base:11.2f}x")
        table.append({"tool": name, "best_s": times[0], "median_s": times[len(times) // 2], "times": times})
    write_json({"machine": platform.node(), "cores": os.cpu_count(), "loads": loads, "motifs": args.motifs,
                "matrices": len(pssms), "sequence": args.sequence, "letters": len(text), "hits": hits,
                "moods_hits": moods_hits, "rows": table},
               os.path.join(os.path.dirname(HERE), "docs", "results", "scan_cli_vm.json"))   # absolute: kept
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            for f in os.listdir(path):
                os.unlink(os.path.join(path, f))
            os.rmdir(path)
        else:
            os.unlink(path)
    os.rmdir(folder)


def write_json(out, name):
    # through json once with default=str: the rows hold numpy numbers that json alone refuses
    save_json(json.loads(json.dumps(out, default=str)), os.path.join(HERE, "results", name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sequence", default=CHR22)
    parser.add_argument("--motifs", default="jaspar:2024/CORE/vertebrates")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--megabases", type=float, default=100)
    parser.add_argument("--variants", default="fused:lanes,fused:words,segments",
                        help="GPU variants, the fused kernel's forms as fused:FORM (lanes, words: the first)")
    parser.add_argument("--parts", default="kernels,batches,cli",
                        help="--gpu: kernels (the variants' scans), batches (scan_batches, P-values, writing, "
                             "collect), cli (the command, first and second run), text (cli with --text too)")
    parser.add_argument("--digest", action="store_true", help="--gpu: a SHA-256 of each variant's hits")
    parser.add_argument("--json", default="scan-gpu.json", help="--gpu: the JSON's name (bench/results/ unless a path)")
    parser.add_argument("--workdir", default="/tmp")
    parser.add_argument("--profile", action="store_true", help="print where scan_batches spends its time")
    parser.add_argument("--cli", action="store_true", help="the command line against MOODS (cli_bench)")
    parser.add_argument("--emulate", action="store_true",
                        help="the GPU command's host side, traced, with the GPU replaced by each chunk's hits (emulate)")
    parser.add_argument("--stand-in", help="--emulate: the folder of the chunks' hits (made there if empty)")
    parser.add_argument("--baseline", help="--emulate: another tree's src/, run alternating with this one")
    parser.add_argument("--price-first", action="store_true",
                        help="--emulate: only the first batch's pricing, in one process per tree (price_first)")
    parser.add_argument("--rounds", type=int, default=1, help="--emulate: rounds of (first, second) runs a tree")
    parser.add_argument("--cli-motifs", type=int, default=200, help="matrices of --motifs for --cli")
    args = parser.parse_args()
    if args.cli:
        cli_bench(args)
        return
    if args.emulate:
        emulate(args)
        return
    if args.gpu:
        gpu_bench(args)
    if args.cpu or not args.gpu:
        cpu_bench(args)


if __name__ == "__main__":
    main()
