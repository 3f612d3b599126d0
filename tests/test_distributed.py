"""Which cluster a batch runs on: balanced chunks, --gpus, addresses; no worker is started here
(tests/test_batch.py and tests/test_batch_cli.py share one local cluster)."""
import io

import pytest

from bioaccel.distribution.cluster import balanced_chunks, connect, parse_gpus, resolve_gpus
from bioaccel.errors import InvalidParameter


def test_balanced_chunks_cover_in_order_and_balance_cost():
    costs = [1000] + [1] * 999
    ranges = balanced_chunks(costs, 4)
    assert ranges[0] == (0, 1)                       # the expensive item alone
    assert [a for a, _ in ranges][1:] == [b for _, b in ranges][:-1]
    assert ranges[-1][1] == 1000
    assert balanced_chunks([], 3) == []
    assert balanced_chunks([5, 5, 5, 5], 2) == [(0, 2), (2, 4)]
    assert balanced_chunks([1], 8) == [(0, 1)]


def test_gpu_lists():
    assert parse_gpus("all") == "all" and parse_gpus("0") == [0] and parse_gpus(" 2,0 ") == [2, 0]
    for bad in ("", "x", "0,,1", "-1", "1.5"):
        with pytest.raises(InvalidParameter, match="device numbers"):
            parse_gpus(bad)
    with pytest.raises(InvalidParameter, match="not visible here"):
        resolve_gpus([99])


def test_bad_client_is_a_clear_error():
    with pytest.raises(InvalidParameter, match="client must be"):
        with connect(42):
            pass


@pytest.mark.parametrize("address, needle", [("tcp://127.0.0.1:1", "cannot reach the Dask scheduler"),
                                             ("foo://bar", "not a Dask scheduler address"),
                                             ("", "expected a scheduler address")])
@pytest.mark.parametrize("command", [["fold", "{fa}"], ["interact", "{fa}", "{fa}"], ["scan", "{motifs}", "{fa}"]])
def test_cli_unreachable_or_bad_scheduler_is_one_line(tmp_path, monkeypatch, command, address, needle):
    import os

    import bioaccel.distribution.cluster as distributed
    from bioaccel.cli.main import main

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 1)
    fasta = tmp_path / "in.fa"
    fasta.write_text(">a\nGGGAAAUCC\n")
    motifs = os.path.join(os.path.dirname(__file__), "..", "examples", "MA0066.1.jaspar")
    argv = [a.replace("{fa}", str(fasta)).replace("{motifs}", motifs) for a in command]
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--scheduler", address, "-o", str(tmp_path / "out.txt")], stdout=out, stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and needle in err.getvalue() and out.getvalue() == ""
    assert sorted(os.listdir(tmp_path)) == ["in.fa"]          # no output, no journal
