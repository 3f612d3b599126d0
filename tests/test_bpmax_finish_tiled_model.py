"""bench/bpmax_finish_tiled_model.py: its per-row DPX counts' shape and its printed table (the counts themselves
against the tiled schedule's, split by split: tests/test_bpmax_tiled_finish.py)."""
import pytest

from bench_module import bench_module


@pytest.fixture(scope="module")
def model():
    return bench_module("bpmax_finish_tiled_model")


def test_more_dpx_than_today_and_less_chain_with_smaller_tiles(model):
    counts = [model.split_dpx(T, 129) for T in (16, 32, 64)]
    assert all(c["bulk"] + c["chain"] > c["today"] for c in counts)
    assert counts[0]["chain"] < counts[1]["chain"] < counts[2]["chain"]


def test_prints_a_row_a_tile(model, tmp_path, capsys):
    assert model.main(["--tiles", "16,32", "--json", str(tmp_path / "m.json")]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 16 |") or line.startswith("| 32 |")]
    assert len(lines) == 2 and "1.40x" in lines[1]
