"""The tiled GPU fill of one sequence under several chain settings, old and new in one process (issue 29).

For each length and setting: the fill's seconds (device events around ``gpu.fill``, median of --repeats,
the settings interleaved run by run so that drift of the card touches them alike), the fraction of the
int16x2 ceiling (limits.md: 30.8 T updates/s, n^3/6 useful), and a digest of the table (a checksum made
on the device: every setting of a length must give the same). ``--timeline N`` then records an event at
the start and end of every launch of the fill at length N (each setting once) and prints where the chain's
time goes: edge products, the wait for the interior products, the finish, by ranges of tile diagonals; and
the chain alone (its launches only, one stream, no interior products) for comparison.

A setting is tokens joined by "/": ``split`` or ``fused`` (SIZES.chain), ``c0`` or ``c1`` (finish_closure),
``bN`` (bulk_blocks_per_sm), ``mN`` (bulk_min_products), ``tN`` (tile), ``sN`` (tiled_stage_bytes), ``kN`` (tiled_bulk_blocks), ``pN`` (bulk_shared_pad), ``wN`` (bulk_pad_products), ``dup``
(int16_lanes Int16x2Dup), ``eN`` (edge_rows), ``rN`` (bulk_rows), ``fN`` (table_fill), ``xN`` (bulk_mix), ``yN`` (edge_mix); unnamed fields keep
production's value.

    python3 bench/nussinov_gpu_chain.py --lengths 10000,16000,26000,65000 --settings split/c0,fused/c1 \
        --repeats 5 --timeline 16000 --json docs/results/nussinov_gpu_chain_h100.json
"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.runtime import gpu as _gpu  # noqa: E402
from bioaccel.fold import FoldParams  # noqa: E402
from bioaccel.fold import _gpu as gpu  # noqa: E402
from bioaccel.fold import _gpu_table, _gpu_tiled, _launch  # noqa: E402
from _results import save_json  # noqa: E402
from _ceilings import INT16X2_DPX  # noqa: E402

CEILING = INT16X2_DPX
PRODUCTION = _launch.SIZES


#: a token's first letter and the FoldSizes field its number sets (see the module's docstring)
NUMBERED = {"t": "tile", "p": "bulk_shared_pad", "w": "bulk_pad_products", "k": "tiled_bulk_blocks",
            "s": "tiled_stage_bytes", "c": "finish_closure", "b": "bulk_blocks_per_sm", "m": "bulk_min_products"}
NUMBERED.update({"e": "edge_rows", "r": "bulk_rows"})     # issue 29, nbedges: the atomics by rows of consecutive cells
NUMBERED["f"] = "table_fill"    # issue 29, stop 57: the table's poisoning fill (0 cupy.full, 1 runtime.gpu.filled)
NUMBERED.update({"x": "bulk_mix", "y": "edge_mix"})   # issue 29, nbmix: accumulator words with their adds on the FMA pipe


def sizes_of(setting):
    """FoldSizes for a setting string (see the module's docstring)."""
    fields = {}
    for token in filter(None, setting.split("/")):
        if token in ("split", "fused"):
            fields["chain"] = token
        elif token == "dup":
            fields["int16_lanes"] = "Int16x2Dup"
        elif token[0] in NUMBERED:
            fields[NUMBERED[token[0]]] = int(token[1:])
        else:
            raise SystemExit(f"unknown token {token!r} in setting {setting!r}")
    return PRODUCTION.replace(**fields)


def digest(cp, values):
    """A checksum of the table's cells, made on the device in slices (tables of GBs stay there)."""
    total, step = 0, 1 << 26
    flat = values.ravel()
    for first in range(0, flat.size, step):
        part = flat[first:first + step].astype(cp.int64)
        weight = (cp.arange(first, first + part.size, dtype=cp.int64) * 2654435761) % 2147483629 + 1
        total = (total + int((part * weight).sum())) % (1 << 61)
    return f"{total:016x}"


def one_fill(cp, codes_dev, n, params, pm):
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record()
    table = gpu.fill(codes_dev, n, params, pm, "tiled")
    b.record()
    b.synchronize()
    return cp.cuda.get_elapsed_time(a, b) / 1e3, table


def timeline(cp, codes_dev, n, params, pm):
    """Per tile diagonal: the chain's edge products, its wait for the interior products, its finish (ms)."""
    events = []
    start = cp.cuda.Event()
    start.record()
    _gpu_tiled.fill_tiled(codes_dev, n, params, pm, timeline=events)
    cp.cuda.Device().synchronize()
    at = {(d, what): cp.cuda.get_elapsed_time(start, event) for d, what, event in events}
    nt = _gpu_tiled.tiles_per_side(n, _launch.SIZES.tile)
    rows = []
    for d in range(nt):
        finish0, finish1 = at[(d, "finish start")], at[(d, "finish end")]
        chain_start = at.get((d, "edges start"), at[(d - 1, "finish end")] if d else 0.0)
        edges_end = at.get((d, "edges end"), chain_start)
        rows.append({"d": d, "chain_start": chain_start, "edges": edges_end - chain_start,
                     "wait_interior": finish0 - edges_end, "finish": finish1 - finish0,
                     "interior": (at[(d, "interior end")] - at[(d, "interior start")]) if (d, "interior end") in at
                     else 0.0})
    return rows


def chain_alone(cp, codes_dev, n, params, pm):
    """The chain's launches of one fill on one stream without the interior products (their scratch holds
    zeros: the tables are meaningless, the time is the chain's own), in seconds."""
    sizes = _launch.SIZES
    T = sizes.tile
    nt = _gpu_tiled.tiles_per_side(n, T)
    table = cp.zeros(nt * (nt + 1) // 2 * T * T, dtype=np.int16)
    scratch = cp.zeros(nt * T * T, dtype=np.int32)
    adup = cp.zeros(table.size, dtype=np.uint32)
    edge, edge_shared = _gpu_tiled.edge_kernel(np.int16, T, sizes.edge_rows, sizes.edge_mix)
    finishes = _gpu_tiled.finish_kernels(np.int16, T, "sub", sizes.finish_closure)
    if sizes.chain == "fused":
        finishes[1] = _gpu_tiled.chain_kernel(np.int16, T, "Int16x2Dup", sizes.finish_closure)
    skip = np.int32(0)

    def run():
        for d in range(nt):
            if d >= 2 and sizes.chain != "fused":
                edge((nt - d, 2), ((T // 8) ** 2,), (table, scratch, np.int32(nt), np.int32(d), np.int32(1),
                                                     np.int32(1), None, skip, adup), shared_mem=edge_shared)
            finish, threads, shared = finishes[min(d, 1)]
            args = (table, scratch, codes_dev, pm, np.int32(n), np.int32(nt), np.int32(d), None)
            if d:
                args += (skip, adup) if sizes.chain == "fused" else (adup,)
            finish((nt - d,), (threads,), args, shared_mem=shared)

    run()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record()
    run()
    b.record()
    b.synchronize()
    return cp.cuda.get_elapsed_time(a, b) / 1e3


def summarize(rows, nt):
    ranges = {"head d < 20": lambda d: d < 20, "middle": lambda d: 20 <= d < nt - 20, "tail d >= nt - 20":
              lambda d: d >= nt - 20}
    out = {}
    for name, keep in ranges.items():
        part = [r for r in rows if keep(r["d"])]
        out[name] = {k: round(sum(r[k] for r in part), 3) for k in ("edges", "wait_interior", "finish", "interior")}
        out[name]["diagonals"] = len(part)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", default="10000,16000,26000,65000")
    ap.add_argument("--settings", default="split/c0,fused/c0,split/c1,fused/c1")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--timeline", type=int, default=0, help="length whose launches are timed one by one")
    ap.add_argument("--json", default="docs/results/nussinov_gpu_chain_h100.json")
    args = ap.parse_args()
    cp = _gpu.require_gpu()
    params = FoldParams()
    pm = _gpu_table.pair_model(cp, params)
    settings = args.settings.split(",")
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device {device}; load average {os.getloadavg()[0]:.2f}; settings {settings}", flush=True)
    result = {"device": device, "ceiling": CEILING, "settings": settings, "rows": [], "timeline": {}}
    for n in [int(x) for x in args.lengths.split(",")]:
        codes_dev = cp.asarray(np.random.default_rng(n).integers(0, 4, n).astype(np.uint8))
        times = {s: [] for s in settings}
        digests = {}
        for s in settings:                             # warm-up: compiles, and the digest
            _launch.SIZES = sizes_of(s)
            _, table = one_fill(cp, codes_dev, n, params, pm)
            digests[s] = digest(cp, table.values)
            del table
        for _ in range(args.repeats):
            for s in settings:
                _launch.SIZES = sizes_of(s)
                seconds, table = one_fill(cp, codes_dev, n, params, pm)
                times[s].append(seconds)
                del table
        _launch.SIZES = PRODUCTION
        useful = n ** 3 / 6
        row = {"n": n, "settings": {}}
        for s in settings:
            median = float(np.median(times[s]))
            row["settings"][s] = {"fill_s": median, "runs": times[s], "ceiling_fraction": useful / median / CEILING,
                                  "digest": digests[s]}
            print(f"n={n:>7,} {s:<24} fill {median:.4f} s ({useful / median / CEILING:.1%}) runs "
                  f"{' '.join(f'{t:.4f}' for t in times[s])} digest {digests[s]}", flush=True)
        row["same_tables"] = len(set(digests.values())) == 1
        print(f"n={n:>7,} every setting's table the same: {row['same_tables']}", flush=True)
        result["rows"].append(row)
    if args.timeline:
        n = args.timeline
        codes_dev = cp.asarray(np.random.default_rng(n).integers(0, 4, n).astype(np.uint8))
        for s in settings:
            _launch.SIZES = sizes_of(s)
            nt = _gpu_tiled.tiles_per_side(n, _launch.SIZES.tile)
            rows = timeline(cp, codes_dev, n, params, pm)
            alone = chain_alone(cp, codes_dev, n, params, pm)
            end = rows[-1]["chain_start"] + rows[-1]["edges"] + rows[-1]["wait_interior"] + rows[-1]["finish"]
            summary = summarize(rows, nt)
            result["timeline"][s] = {"n": n, "chain_alone_s": alone, "end_ms": end, "summary": summary, "rows": rows}
            print(f"timeline n={n:,} {s}: fill ends at {end:.2f} ms; chain alone {alone * 1e3:.2f} ms "
                  f"({alone * 1e6 / nt:.0f} us a diagonal)", flush=True)
            for name, part in summary.items():
                k = part["diagonals"]
                print(f"   {name:<18} {k:>3} diagonals: edges {part['edges']:7.2f} ms, wait for interior "
                      f"{part['wait_interior']:7.2f} ms, finish {part['finish']:7.2f} ms "
                      f"({(part['edges'] + part['wait_interior'] + part['finish']) * 1e3 / max(k, 1):.0f} us a "
                      f"diagonal); interior launches {part['interior']:7.2f} ms", flush=True)
        _launch.SIZES = PRODUCTION
    save_json(result, args.json)
    print(f"{'n':>7} " + " ".join(f"{s:>22}" for s in settings))
    for row in result["rows"]:
        cells = [row["settings"][s] for s in settings]
        print(f"{row['n']:>7,} " + " ".join(f"{c['fill_s']:>14.4f} ({c['ceiling_fraction']:.1%})" for c in cells)
              + ("" if row["same_tables"] else "  TABLES DIFFER"))
    return 0 if all(row["same_tables"] for row in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
