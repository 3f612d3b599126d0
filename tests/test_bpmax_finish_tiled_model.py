"""bench/bpmax_finish_tiled_model.py: its per-row DPX counts against a split-by-split classification of a tiled band
(every split of every cell: packed through other tiles, or one term chained on the tile's own word and one on a final
tile), and its printed table."""
import pytest

from bench_module import bench_module


@pytest.fixture(scope="module")
def model():
    return bench_module("bpmax_finish_tiled_model")


def classified(T, band, rows):
    """DPX lane operations of rows 0 .. rows - 1 of a band (rows a multiple of T), split by split: tile of a cell
    (i, j) is (i // T, j // T); a split k reads the row word (i, k) and the column word (k + 1, j)."""
    today = bulk = chain = 0
    for i in range(rows):
        for j in range(i, i + band):
            own = (i // T, j // T)
            for k in range(i, j):
                today += 1
                row_own, column_own = (i // T, k // T) == own, ((k + 1) // T, j // T) == own
                if own[0] == own[1]:
                    chain += 1              # a diagonal tile: packed, chained
                elif row_own or column_own:
                    chain += 1              # the tile's own word's term
                    bulk += 1               # the other term, on a final tile, alone in its DPX
                else:
                    bulk += 1               # both terms packed, both words final
    return {"today": today / rows, "bulk": bulk / rows, "chain": chain / rows}


@pytest.mark.parametrize("T, band", [(4, 9), (8, 17), (8, 30), (16, 40), (3, 7)])
def test_counts_split_by_split(model, T, band):
    assert model.split_dpx(T, band) == classified(T, band, 2 * T)


def test_more_dpx_than_today_and_less_chain_with_smaller_tiles(model):
    counts = [model.split_dpx(T, 129) for T in (16, 32, 64)]
    assert all(c["bulk"] + c["chain"] > c["today"] for c in counts)
    assert counts[0]["chain"] < counts[1]["chain"] < counts[2]["chain"]


def test_prints_a_row_a_tile(model, tmp_path, capsys):
    assert model.main(["--tiles", "16,32", "--json", str(tmp_path / "m.json")]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 16 |") or line.startswith("| 32 |")]
    assert len(lines) == 2 and "1.40x" in lines[1]
