"""Scale-out through Dask: balanced chunks, input order kept, the same core on every worker."""
import pytest

from bioaccel._distributed import balanced_chunks, map_chunks
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


def _square_all(values):
    return [v * v for v in values]


@pytest.fixture(scope="module")
def client():
    dd = pytest.importorskip("dask.distributed", reason="dask[distributed] is a test dependency")
    with dd.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
        yield c


def test_map_chunks_keeps_input_order(client):
    values = list(range(57))
    got = list(map_chunks(_square_all, values, [v + 1 for v in values], client=client))
    assert got == [v * v for v in values]


def test_fold_on_dask_equals_local(client):
    from bioaccel.fold import nussinov

    seqs = ["GGGAAAUCC", "ACGUACGUAAAACGUACGU", "", "GCGCAAAAGCGC" * 5, "UUUU"]
    local = nussinov(seqs)
    remote = nussinov(seqs, client=client)
    assert [(r.id, r.structure, r.score) for r in remote] == [(r.id, r.structure, r.score) for r in local]


def test_bad_client_is_a_clear_error():
    with pytest.raises(InvalidParameter, match="client must be"):
        list(map_chunks(_square_all, [1], [1], client=42))


@pytest.mark.slow
def test_cli_fold_on_a_local_cluster(tmp_path):
    """Starts real worker processes: slow, so outside the default run."""
    import io

    from bioaccel.cli import main

    fasta = tmp_path / "in.fa"
    fasta.write_text(">a\nGGGAAAUCC\n>b\nGCGCAAAAGCGC\n")
    outputs = []
    for extra in ([], ["--dask", "local"]):
        out, err = io.StringIO(), io.StringIO()
        assert main(["fold", str(fasta), *extra], stdout=out, stderr=err) == 0, err.getvalue()
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] and outputs[0].startswith(">a\nGGGAAAUCC\n(((...)))")


@pytest.mark.parametrize("address, needle", [("tcp://127.0.0.1:1", "cannot reach the Dask scheduler"),
                                             ("foo://bar", "not a Dask scheduler address"),
                                             ("", "expected a scheduler address")])
def test_cli_unreachable_or_bad_scheduler_is_one_line(tmp_path, monkeypatch, address, needle):
    import io

    import bioaccel._distributed as distributed
    from bioaccel.cli import main

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 1)
    fasta = tmp_path / "in.fa"
    fasta.write_text(">a\nGGGAAAUCC\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["fold", str(fasta), "--dask", address], stdout=out, stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and needle in err.getvalue() and out.getvalue() == ""
