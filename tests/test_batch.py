"""The batch layer: items run here or on Dask (every item exactly once, a killed worker's items run
again), a bad item failing alone, the journal that --resume reads back, and the API's client=."""
import json
import os
import threading
import time

import pytest

from bioaccel.distribution.batch import Item, plan_tasks, run_items, run_task
from bioaccel.cli.journal import Journal
from bioaccel.errors import InputError, InternalError, InvalidParameter


def _slow_squares(values):
    time.sleep(0.15)
    return [(v * v, os.getpid()) for v in values]


def _odd_fails(values):
    if any(v % 2 for v in values):
        raise InvalidParameter(f"odd values: {[v for v in values if v % 2]}")
    return [v // 2 for v in values]


def _bug(values):
    raise InternalError("a table that does not reproduce its optimum")


def _die_soon():
    threading.Timer(0.05, os._exit, [1]).start()


def _items(n, cost=lambda k: 1.0):
    return [Item(k, f"item {k}", cost(k), k) for k in range(n)]


def test_tasks_are_contiguous_balanced_and_cover_every_item():
    items = _items(100, cost=lambda k: 1000.0 if k == 0 else 1.0)
    tasks = plan_tasks(items, workers=2)
    assert [i.key for task in tasks for i in task] == list(range(100))
    assert [i.key for i in tasks[0]] == [0]               # the costly item alone
    assert len(tasks) <= 16 and max(len(t) for t in tasks) <= 256
    assert len(plan_tasks(_items(2000), workers=1)) >= 2000 / 256


def test_here_every_item_once_and_a_bad_item_fails_alone():
    outcomes = list(run_items(_odd_fails, _items(20)))
    assert sorted(o.key for o in outcomes) == list(range(20))
    for o in outcomes:
        if o.key % 2:
            assert o.value is None and isinstance(o.error, InvalidParameter) and f"[{o.key}]" in str(o.error)
        else:
            assert o.error is None and o.value == o.key // 2


def test_a_bug_stops_the_batch():
    with pytest.raises(InternalError):
        run_task(_bug, [0], [0])
    with pytest.raises(InternalError):
        list(run_items(_bug, _items(3)))


def test_on_dask_every_item_once_in_other_processes(dask_client):
    outcomes = list(run_items(_slow_squares, _items(30), client=dask_client))
    assert sorted(o.key for o in outcomes) == list(range(30))
    assert all(o.value[0] == o.key ** 2 for o in outcomes)
    assert os.getpid() not in {o.value[1] for o in outcomes} and len({o.value[1] for o in outcomes}) == 2


def test_a_killed_worker_items_run_again_never_twice(dask_client):
    keys, pids = [], set()
    for outcome in run_items(_slow_squares, _items(40), client=dask_client):
        if not keys:                                    # mid-batch: one worker dies
            victim = sorted(dask_client.scheduler_info()["workers"])[0]
            dask_client.run(_die_soon, workers=[victim])
        keys.append(outcome.key)
        pids.add(outcome.value[1])
    assert sorted(keys) == list(range(40))              # every item, exactly once
    assert len(pids) == 3                               # the two first workers, and the one restarted
    dask_client.wait_for_workers(2, timeout=60)


def test_gpu_work_is_refused_where_no_worker_has_a_gpu(dask_client):
    from bioaccel.distribution.cluster import placement

    with pytest.raises(InvalidParameter, match="none of the 2 Dask workers has a GPU"):
        placement(dask_client, gpu=True)
    assert placement(dask_client, gpu=False) == {}


def test_the_journal_resumes_what_was_done(tmp_path):
    path = str(tmp_path / "out.partial")
    journal = Journal(path, "run")
    assert not os.path.exists(path)                     # created with the first entry only
    assert journal.add(3, {"text": "d"}) and journal.add(0, {"text": "a"})
    assert journal.add(1, error=InputError("record 'b' is empty"))
    assert not journal.add(3, {"text": "again"})        # a key is written once
    journal.close()
    with open(path, "ab") as handle:
        handle.write(b'{"key":2,"entry":{"te')          # the process died while writing
    resumed = Journal(path, "run", resume=True)
    assert resumed.done == {0, 3} and resumed.failed == {1: "record 'b' is empty"}
    assert resumed.entry(3) == {"text": "d"} and resumed.entry(1) is None
    assert resumed.add(1, {"text": "b"}) and resumed.add(2, {"text": "c"})   # a failed item is run again
    resumed.close()
    lines = open(path, "rb").read().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) == 6      # the cut line is gone
    again = Journal(path, "run", resume=True)
    assert again.done == {0, 1, 2, 3} and not again.failed and again.entry(2) == {"text": "c"}
    again.remove()
    assert not os.path.exists(path)


def test_the_journal_refuses_another_run_a_damaged_file_and_a_second_writer(tmp_path):
    path = str(tmp_path / "out.partial")
    journal = Journal(path, "run")
    journal.add(0, {"text": "a"})
    with pytest.raises(InvalidParameter, match="another bioaccel run is writing it"):
        Journal(path, "run", resume=True)
    journal.close()
    with pytest.raises(InvalidParameter, match="holds the results of another run"):
        Journal(path, "other options", resume=True)
    fresh = Journal(path, "other options")              # without --resume: starts over
    fresh.add(5, {"text": "f"})
    fresh.close()
    assert Journal(path, "other options", resume=True).done == {5}
    with open(path, "r+b") as handle:
        handle.write(b"{" * 40)
    with pytest.raises(InputError, match="line 1 is damaged"):
        Journal(path, "other options", resume=True)


def test_in_memory_without_a_file():
    journal = Journal(None, "run")
    journal.add(1, {"text": "b"})
    journal.add(0, error="bad")
    assert journal.entry(1) == {"text": "b"} and journal.done == {1} and journal.failed == {0: "bad"}


def test_api_clients_give_the_in_process_results(dask_client):
    from bioaccel.fold import nussinov
    from bioaccel.interact import InteractParams, bpmax

    seqs = ["GGGAAAUCC", "ACGUACGUAAAACGUACGU", "", "GCGCAAAAGCGC" * 5, "UUUU"]
    local = nussinov(seqs)
    remote = nussinov(seqs, client=dask_client)
    assert [(r.id, r.structure, r.score) for r in remote] == [(r.id, r.structure, r.score) for r in local]
    pairs = dict(queries=["GGGAAACCC", "AGGAACUGG"], targets=[("t1", "GGGUUUCCCAUGGUUCCUAA"), ("t2", "CCAGUUCC")],
                 params=InteractParams(window_target=6), sites=2, structure=True)
    assert [r.to_dict() for r in bpmax(**pairs, client=dask_client)] == [r.to_dict() for r in bpmax(**pairs)]
    address = dask_client.scheduler.address                              # a scheduler's address works too
    assert [r.score for r in nussinov(seqs, client=address)] == [r.score for r in local]


def test_api_client_raises_the_first_bad_item_as_in_process(dask_client):
    from bioaccel.errors import ResourceError
    from bioaccel.fold import nussinov

    with pytest.raises(ResourceError, match="will not fit|memory"):
        nussinov(["GGGAAAUCC", "A" * 2_000_000], client=dask_client)


def _where_am_i(values):
    return [os.environ.get("CUDA_VISIBLE_DEVICES", "none") for _ in values]


def test_a_mixed_cluster_sends_gpu_work_to_its_gpu_workers_only():
    """One CPU worker and one worker pinned to device 3 and declaring GPU=1 (no device is used here:
    the routing is what is tested)."""
    import dask.distributed as dd

    from bioaccel.distribution.cluster import local_cluster, placement, worker_count

    with local_cluster(workers=1, gpus=[3]) as cluster, dd.Client(cluster) as client:
        client.wait_for_workers(2)
        assert placement(client, gpu=True) == {"resources": {"GPU": 1}}
        assert worker_count(client, placement(client, gpu=True)) == 1
        gpu = {o.value for o in run_items(_where_am_i, _items(24), client=client, gpu=True)}
        assert gpu == {"3"}
        anywhere = {o.value for o in run_items(_slow_squares_where, _items(8), client=client)}
        assert anywhere == {"3", "none"}


def _slow_squares_where(values):
    time.sleep(0.2)
    return _where_am_i(values)


@pytest.mark.gpu
def test_gpu_workers_fold_as_the_gpu_does_here():
    from bioaccel.fold import nussinov

    seqs = ["GGGAAAUCC", "ACGUACGUAAAACGUACGU" * 7, "GCGCAAAAGCGC" * 30, "UUUU"]
    here = nussinov(seqs, backend="gpu")
    remote = nussinov(seqs, backend="gpu", client="local")      # one worker per GPU of this machine
    assert [(r.structure, r.score, r.backend) for r in remote] == [(r.structure, r.score, r.backend) for r in here]


def test_api_scan_client_gives_the_in_process_frame(dask_client, monkeypatch):
    import bioaccel.scan._work as jobs
    from bioaccel.motif import MotifParams
    from bioaccel.scan import scan

    monkeypatch.setattr(jobs, "GROUP_MOTIFS", 2)
    root = os.path.join(os.path.dirname(__file__), "..", "examples")
    motifs, genome = os.path.join(root, "motifs.meme"), os.path.join(root, "sars-cov-2.fasta")
    seq = "".join(line.strip() for line in open(genome) if not line.startswith(">"))
    for sequences, options in ((genome, dict(pvalue=1e-3, max_stored_hits=40)),
                               ([("a", seq[:9000]), "", ("a", seq[9000:20000]), seq[20000:]],
                                dict(pvalue=1e-3, params=MotifParams(background="0.3,0.2,0.2,0.3"), strands="+"))):
        here = scan(motifs, sequences, **options)
        there = scan(motifs, sequences, client=dask_client, **options)
        assert there.equals(here) and len(here) and there.attrs == here.attrs
