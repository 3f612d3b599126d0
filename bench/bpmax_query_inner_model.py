"""What BPMax in query-inner order would cost at issue 29's row, counted on paper from the measured product rate.

In query-inner order (tests/bpmax_query_inner.py) each target cell holds the vector of all query intervals; D, R1
and R2 of a cell are one 24 x 24 triangular product a target split (2,576 terms for a 23-nt query), and R3, R4 and
the strand-1 pair a closure over the query inside the cell. With the target cut into T x T tiles filled by tile
diagonal (as the Nussinov fill is), a cell's splits through other tiles are the "bulk": operands final when the tile
starts, a register-tiled product whose rate bench/bpmax_query_product.py measures (65.4% of the int16x2 DPX ceiling
on useful terms, H200, stop 62). Its other splits read cells of its own tile (the row tile's rows below it, the
column tile's columns left of it): the "chain", in-tile anti-diagonal steps, each cell closed over the query before
the next step reads it. No kernel of the chain or the closure exists yet: their rates are parameters, and the table
gives the time at a range of them.

    python3 bench/bpmax_query_inner_model.py [--tile 8] [--band 129] [--json docs/results/bpmax_query_inner_model.json]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _ceilings import INT16X2_DPX   # noqa: E402 (updates/s)
from _results import save_json      # noqa: E402

TERMS_A_SPLIT = 2576     # a 23-nt query's triangle: D 2,024 + R1/R2 552 (tests/test_bpmax_query_inner.py)
CLOSURE_TERMS = 4048     # a cell's R3 + R4 terms (its 190 strand-1 pair terms are not counted, as _model.work does not)
BULK_MEASURED = 0.654    # bench/bpmax_query_product.py, H200, stop 62 call 4: 1 split a stage, 4 blocks an SM
OUTSIDE_S = 0.0017       # today's end to end outside the kernels (bench/bpmax_row_bound.py's row), H200
CELL_BYTES = 1344 + 672  # a final cell written twice: as a left operand (336 words, its value in both halves, blocks
                         # column by column) and as half of a right operand's pair word (bench/bpmax_query_product.cu)
WRITE_BYTES_PER_S = 3.0e12   # HBM writes, an assumed rate for an H200 (4.8 TB/s peak)


def split_counts(T: int, band: int) -> dict:
    """Splits a target row (the mean over a tile's T rows) of every cell (i, i + e), e < band: all of them, those
    through other tiles (bulk), those reading the cell's own tile (chain), and the bulk that tiles straddling the
    band's edge issue for cells past it (waste, computed and dropped).

    >>> c = split_counts(8, 129)
    >>> c["all"], c["bulk"] + c["chain"] == c["all"], round(c["chain"] / c["all"], 3)
    (8256.0, True, 0.106)
    >>> split_counts(1, 5)["chain"]   # one-cell tiles: no split reads the cell's own tile
    0.0
    """
    total = bulk = chain = waste = 0
    for u in range(T):                     # the row's offset in its row tile
        for e in range(band + T):          # cells past the band's edge but in a tile that holds some inside
            delta, v = divmod(u + e, T)    # tile diagonal, column offset
            if e >= band and delta * T - (T - 1) >= band:
                continue                   # the whole tile lies past the edge: not launched
            own = e if delta == 0 else min(e, (T - 1 - u) + v)
            if e >= band:
                waste += e - own
                continue
            total += e
            chain += own
            bulk += e - own
    return {"all": total / T, "bulk": bulk / T, "chain": chain / T, "waste": waste / T}


def target_counts(target: int, band: int) -> tuple:
    """The target's splits and cells in the band (cells (i, i + e), e < band, i + e < target).

    >>> target_counts(20000, 129)
    (164412736, 2571744)
    """
    splits = sum((target - e) * e for e in range(min(band, target)))
    cells = sum(target - e for e in range(min(band, target)))
    return splits, cells


def row_time(counts: dict, target: int, bulk_share: float, chain_share: float, closure_share: float,
             band: int) -> dict:
    """Seconds of each part of the row at the given shares of the int16x2 DPX ceiling (terms a second); a row's
    split counts scaled to the target's (its last rows are shorter).

    >>> t = row_time(split_counts(8, 129), 20000, 0.5, 0.5, 0.5, 129)
    >>> round(t["bulk_s"] + t["chain_s"] + t["closure_s"], 4)      # 4.339e11 terms and the edge's waste at half rate
    0.0296
    """
    splits, cells = target_counts(target, band)
    rows = splits / counts["all"]
    bulk = rows * (counts["bulk"] + counts["waste"]) * TERMS_A_SPLIT / (bulk_share * INT16X2_DPX)
    chain = rows * counts["chain"] * TERMS_A_SPLIT / (chain_share * INT16X2_DPX)
    closure = cells * CLOSURE_TERMS / (closure_share * INT16X2_DPX)
    return {"bulk_s": bulk, "chain_s": chain, "closure_s": closure,
            "sum_s": bulk + chain + closure + OUTSIDE_S}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile", type=int, default=8)
    parser.add_argument("--band", type=int, default=129)
    parser.add_argument("--target", type=int, default=20000)
    parser.add_argument("--bulk-share", type=float, default=BULK_MEASURED)
    parser.add_argument("--json", default="docs/results/bpmax_query_inner_model.json")
    args = parser.parse_args(argv)
    counts = split_counts(args.tile, args.band)
    splits, cells = target_counts(args.target, args.band)
    useful = splits * TERMS_A_SPLIT + cells * CLOSURE_TERMS
    print(f"BPMax 23 x {args.target:,} nt, band {args.band}, {args.tile} x {args.tile} target tiles: "
          f"{useful:.3e} useful terms ({useful / INT16X2_DPX * 1e3:.1f} ms at the int16x2 DPX ceiling)")
    print(f"splits a row: {counts['all']:,.0f} (bulk {counts['bulk']:,.0f}, chain {counts['chain']:,.0f} = "
          f"{counts['chain'] / counts['all']:.1%}; bulk issued past the band's edge {counts['waste']:,.0f})")
    writes = cells * CELL_BYTES
    print(f"the final cells written in both layouts: {writes / 1e9:.1f} GB, {writes / WRITE_BYTES_PER_S * 1e3:.1f} ms at "
          f"{WRITE_BYTES_PER_S / 1e12:.0f} TB/s if no compute hides them (not in the sums below)")
    print(f"| bulk share | chain share | closure share | bulk ms | chain ms | closure ms | outside ms | row ms |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for chain_share in (args.bulk_share, 0.4, 0.25, 0.15):
        for closure_share in (0.2, 0.05):
            t = row_time(counts, args.target, args.bulk_share, chain_share, closure_share, args.band)
            print(f"| {args.bulk_share:.1%} | {chain_share:.1%} | {closure_share:.1%} | {t['bulk_s'] * 1e3:.1f} | "
                  f"{t['chain_s'] * 1e3:.1f} | {t['closure_s'] * 1e3:.1f} | {OUTSIDE_S * 1e3:.1f} | "
                  f"{t['sum_s'] * 1e3:.1f} |")
            rows.append(dict(chain_share=chain_share, closure_share=closure_share, **t))
    save_json({"tile": args.tile, "band": args.band, "target": args.target, "bulk_share": args.bulk_share,
               "counts": counts, "useful_terms": useful, "write_bytes": writes, "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
