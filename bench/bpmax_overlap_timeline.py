"""BPMax on the GPU: where the next level's interior products run against a level's finish (issue 29, helper bpmaxco;
``BPMaxSizes.overlap_products``, interact/_gpu_levels.py), on the production row (a 23 nt query against a 20,000 nt
target, target window 128).

Each setting runs once to warm up, then once with every level's launches bracketed by CUDA events on their own streams
(interact/_gpu_levels.TRACE; nothing synchronised, so the streams overlap as untraced). An event is reached when the
work before it on its stream is done, so a launch's start is when it could start (its blocks may wait for SMs) and its
stop when its last block ended. Printed: per setting the levels' span (first start to last stop), the sums of the
launches' spans by kind, and the time an interior pass and the finish before its edge pass both run (their spans'
intersection, summed over levels); then, per level, each kind's span.

    python3 bench/bpmax_overlap_timeline.py [--sizes "overlap_products=1,finish_bytes=174080;..."] [--json PATH]

``--sizes``: BPMaxSizes changes (integers), ``;`` between settings; the default is always first.
"""
import argparse
import os
import random
import sys
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bpmax_gpu import random_codes   # noqa: E402
from _results import save_json       # noqa: E402

KINDS = ("products 0", "products 1", "products 2", "finish")


def parse_sizes(text):
    """Settings from ``--sizes``: a list of dicts of integer BPMaxSizes fields (the default's {} first).

    >>> parse_sizes("overlap_products=1,finish_bytes=174080;overlap_products=2")
    [{}, {'overlap_products': 1, 'finish_bytes': 174080}, {'overlap_products': 2}]
    """
    settings = [{}]
    for setting in filter(None, text.split(";")):
        settings.append({key: int(value) for key, value in (item.split("=") for item in setting.split(","))})
    return settings


def spans_by_level(trace, cp):
    """{level: {kind: (start ms, stop ms)}} from a TRACE, times from its earliest start."""
    origin = min(trace, key=lambda item: cp.cuda.get_elapsed_time(trace[0][2], item[2]))[2]
    out = {}
    for level, kind, start, stop in trace:
        out.setdefault(level, {})[kind] = (cp.cuda.get_elapsed_time(origin, start),
                                            cp.cuda.get_elapsed_time(origin, stop))
    return out


def summary(levels):
    """The levels' span, each kind's summed spans, and an interior pass's time beside the finish of the level below
    (ms)."""
    ends = [t for kinds in levels.values() for span in kinds.values() for t in span]
    sums = {kind: sum(k[kind][1] - k[kind][0] for k in levels.values() if kind in k) for kind in KINDS}
    beside = 0.0
    for level, kinds in levels.items():
        if "products 1" in kinds and "finish" in levels.get(level - 1, {}):
            (a, b), (c, d) = kinds["products 1"], levels[level - 1]["finish"]
            beside += max(0.0, min(b, d) - max(a, c))
    return dict(span_ms=max(ends) - min(ends), beside_ms=beside, **{f"{kind} ms": v for kind, v in sums.items()})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="overlap_products=1,finish_bytes=174080;overlap_products=2,"
                        "finish_bytes=174080")
    parser.add_argument("--target", type=int, default=20_000)
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_overlap_timeline.json"))
    args = parser.parse_args(argv)
    import cupy as cp

    from bioaccel.interact import InteractParams, _gpu_levels
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._gpu_launch import SIZES
    from bioaccel.interact._strands import strand_band

    params = InteractParams(window_target=128)
    rng = random.Random(5)
    a, rb = random_codes(rng, 23), random_codes(rng, args.target)
    S1 = strand_band(a, params.fold_params, params.spans(23, args.target)[0])
    rows = []
    for change in parse_sizes(args.sizes):
        sizes = replace(SIZES, **change)
        window_scores(a, S1, [rb], params, sizes=sizes)                    # warm up: compiles
        _gpu_levels.TRACE = []
        try:
            window_scores(a, S1, [rb], params, sizes=sizes)
            cp.cuda.Device().synchronize()
            levels = spans_by_level(_gpu_levels.TRACE, cp)
        finally:
            _gpu_levels.TRACE = None
        rows.append(dict(sizes=change, **summary(levels), levels={str(k): v for k, v in levels.items()}))
    print("## levels of 23 x 20,000 nt, window 128, traced by events (ms): span, summed launch spans by kind, and "
          "an interior pass beside the finish of the level below")
    print("| setting | span | products 0 | products 1 (interior) | products 2 (edge) | finish + copy | interior "
          "beside the finish |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['sizes'] or 'the default'} | {r['span_ms']:.2f} | " +
              " | ".join(f"{r[f'{kind} ms']:.2f}" for kind in KINDS) + f" | {r['beside_ms']:.2f} |")
    for r in rows[1:]:
        print(f"## per level, {r['sizes']}: start-stop (ms) of each kind")
        print("| level | " + " | ".join(KINDS) + " |")
        print("|---|" + "---|" * len(KINDS))
        for level, kinds in r["levels"].items():
            print(f"| {level} | " + " | ".join(
                f"{kinds[k][0]:.2f}-{kinds[k][1]:.2f}" if k in kinds else "" for k in KINDS) + " |")
    save_json(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
