"""What a tiled BPMax finish would cost, counted on paper (issue 29, stop 61): the finish (R1/R2 of the windowed
fill) rebuilt as the Nussinov fill is, a matrix's band cut into T x T tiles filled by tile diagonal, each tile's
splits through other tiles one register-tiled product, its own in-tile closure a chain (docs/bpmax-gpu-notes.md,
"What is left").

Today one DPX does both terms of a split, F(i, k) + S2(k + 1, j) and S2(i, k) + F(k + 1, j), from (F, S2) words. In a
tile (I, J) off the diagonal a split whose row word (i, k) or column word (k + 1, j) lies in the tile itself has one
term chained (that word is the tile's own, not final when the tile starts) and one term on a final tile: the packing
is lost there, one DPX a term. Diagonal tiles stay packed and wholly chained. No timing runs here: the time is the
counted DPX at assumed shares of the DPX peak (bulk) and of the shared-memory pipe at one load a chained DPX (chain),
without the tile diagonals' launch tails.

    python3 bench/bpmax_finish_tiled_model.py [--tiles 16,32,64] [--band 129] [--json docs/results/bpmax_finish_tiled_model.json]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ceilings import INT16X2_DPX   # noqa: E402 (updates/s; a DPX lane operation is two)
from _results import save_json      # noqa: E402
from bpmax_row_bound import terms   # noqa: E402

FINISH_MEASURED_S = 0.0144   # stop 61's final call (docs/results/stop61_final/bpmax.txt), H200
LANE_DPX_PER_S = INT16X2_DPX / 2
SHARED_LOADS_PER_S = LANE_DPX_PER_S / 2   # 32 words a cycle an SM against 64 DPX lane operations (limits.md)


def split_dpx(T: int, band: int) -> dict:
    """DPX lane operations a band row (the mean over a tile's T rows) of today's finish and of the tiled one: every
    cell (i, i + e), e < band, has e splits k in [i, i + e).

    >>> c = split_dpx(32, 129)
    >>> c["today"], c["bulk"], c["chain"]
    (8256.0, 8085.5, 3487.5)
    >>> split_dpx(1, 5)["chain"]   # one-cell tiles: no split reads the cell itself
    0.0
    """
    today = bulk = chain = 0
    for u in range(T):   # the row's offset in its row tile
        for e in range(band):
            delta, v = divmod(u + e, T)   # tile diagonal and column offset of cell (i, i + e)
            today += e
            if delta == 0:
                chain += e                # the diagonal tile: packed, every split chained
                continue
            own_column = T - 1 - u        # k + 1 in the row tile: the column word is the tile's own
            own_row = v                   # k in the column tile: the row word is the tile's own
            bulk += e                     # every split's other term (packed where neither word is the tile's)
            chain += own_column + own_row
    return {"today": today / T, "bulk": bulk / T, "chain": chain / T}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiles", default="16,32,64")
    parser.add_argument("--band", type=int, default=129)
    parser.add_argument("--bulk-share", type=float, default=0.5,
                        help="the bulk's share of the DPX peak (the products issue at ~0.53 of it today)")
    parser.add_argument("--chain-share", type=float, default=0.6,
                        help="the chain's share of the shared-memory pipe, one load a chained DPX")
    parser.add_argument("--json", default="docs/results/bpmax_finish_tiled_model.json")
    args = parser.parse_args(argv)

    packed_today = terms(23, 20000, 23, args.band)["R1/R2"] / 2   # DPX lane operations of the row's finish
    print(f"BPMax 23 x 20,000 nt, band {args.band}: the finish's R1/R2 as {packed_today:.3e} DPX lane operations "
          f"today; measured {FINISH_MEASURED_S * 1e3:.1f} ms ({packed_today / FINISH_MEASURED_S / LANE_DPX_PER_S:.1%}"
          f" of the DPX peak)")
    print(f"| tile | DPX a row: today | tiled bulk | tiled chain | DPX against today | bulk ms at {args.bulk_share:.0%} "
          f"of the DPX peak | chain ms at {args.chain_share:.0%} of the shared pipe | sum ms |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for T in (int(t) for t in args.tiles.split(",")):
        c = split_dpx(T, args.band)
        bulk_s = packed_today * c["bulk"] / c["today"] / (args.bulk_share * LANE_DPX_PER_S)
        chain_s = packed_today * c["chain"] / c["today"] / (args.chain_share * SHARED_LOADS_PER_S)
        ratio = (c["bulk"] + c["chain"]) / c["today"]
        print(f"| {T} | {c['today']:,.0f} | {c['bulk']:,.0f} | {c['chain']:,.0f} | {ratio:.2f}x | {bulk_s * 1e3:.1f} "
              f"| {chain_s * 1e3:.1f} | {(bulk_s + chain_s) * 1e3:.1f} |")
        rows.append(dict(tile=T, per_row=c, dpx_ratio=ratio, bulk_s=bulk_s, chain_s=chain_s))
    print("(without the tile diagonals' launch tails: band / T + 1 dependent phases a level)")
    save_json(dict(band=args.band, bulk_share=args.bulk_share, chain_share=args.chain_share,
                   finish_measured_s=FINISH_MEASURED_S, rows=rows), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
