"""The command line's own costs around the computing (issue 25): results computed in a thread of their
own and written in bursts (bioaccel.cli.bursts), a batch task's pairs formatted together
(bioaccel.cli.interact_batch), a GPU batch in this process computing beside its journal
(bioaccel.cli.batch_run), the GPU's start made in the background (bioaccel.runtime.gpu.warm_up); every
output the text of writing each row alone."""
import dataclasses
import io
import threading

import pytest

from bioaccel.cli import batch_run
from bioaccel.cli.bursts import bursts
from bioaccel.cli.interact_batch import _texts, pair_entries
from bioaccel.cli.main import main
from bioaccel.distribution.batch import Item
from bioaccel.inputs.fasta import Record
from bioaccel.interact import InteractParams, bpmax, bpmax_work, interaction_columns, interaction_writer
from bioaccel.runtime import gpu


def test_results_ready_together_come_in_one_burst_in_order():
    ready, queued = threading.Event(), threading.Event()

    def results():
        yield 0
        ready.wait(10)
        yield from (1, 2, 3)
        queued.set()                    # runs once the third is queued (the next result is asked for)

    handed = []
    for burst in bursts(results()):
        handed.append(burst)
        if burst == [0]:
            ready.set()
            assert queued.wait(10)      # the command writes; the three are computed meanwhile
    assert handed == [[0], [1, 2, 3]]


def test_a_result_computed_alone_is_handed_out_before_the_next_is_computed():
    handed = threading.Event()

    def results():
        yield "first"
        assert handed.wait(10), "the first result was held back until the next one"
        yield "second"

    seen = []
    for burst in bursts(results()):
        seen.append(burst)
        handed.set()
    assert seen == [["first"], ["second"]]


def test_an_error_comes_after_the_results_before_it():
    def results():
        yield 1
        raise ValueError("bad input")

    seen = []
    with pytest.raises(ValueError, match="bad input"):
        for burst in bursts(results()):
            seen += burst
    assert seen == [1]


def test_first_runs_in_the_computing_thread_before_the_first_result():
    seen = []

    def results():
        seen.append(("result", threading.current_thread().name))
        yield 1

    def first():
        seen.append(("first", threading.current_thread().name))

    assert list(bursts(results(), first=first)) == [[1]]
    assert seen == [("first", "bioaccel-compute"), ("result", "bioaccel-compute")]


def test_a_reader_that_stops_stops_the_computing():
    computed = []
    gate = threading.Event()

    def results():
        for k in range(1000):
            computed.append(k)
            yield k
            gate.wait(10)

    stream = bursts(results())
    next(stream)
    stream.close()
    gate.set()
    for _ in range(100):
        threading.Event().wait(0.01)
    assert len(computed) <= 2


def _rows(sites=2, structure=True):
    params = InteractParams(window_target=8)
    queries = [Record("q1", "GGGAAACCC"), Record("q\u2028odd", "AAAA"), Record("q3", "")]
    targets = [Record("t1", "GGGUUUCCCAAAAAGGGUUUCC"), Record("t2", "UUUUAAAAGGGCCCAUGC")]
    names = interaction_columns(params, structure=structure, sites=sites)
    rows = bpmax(queries, targets, params=params, sites=sites, structure=structure)
    pairs = {}
    for row in rows:
        pairs.setdefault((row.target, row.query), []).append(row)
    return list(pairs.values()), names


def _alone(rows, names, fmt):
    text = io.StringIO()
    interaction_writer(text, names, fmt, header=False).write(rows)
    return text.getvalue()


@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_pairs_formatted_together_as_each_alone(fmt):
    pairs, names = _rows()
    assert sum(len(rows) for rows in pairs) > len(pairs)       # several sites a pair
    assert _texts(pairs, names, fmt) == [_alone(rows, names, fmt) for rows in pairs]
    assert _texts(pairs + [[]], names, fmt)[-1] == ""


def test_a_row_of_several_lines_falls_back_to_each_pair_alone():
    pairs, names = _rows(sites=1, structure=False)
    odd = [[dataclasses.replace(row, target="t\nsplit") for row in rows] for rows in pairs]
    assert _texts(odd, names, "tsv") == [_alone(rows, names, "tsv") for rows in odd]


def test_pair_entries_keep_each_pair_and_its_failure_in_place():
    from bioaccel.errors import ResourceError

    made = bpmax_work([Record("q", "GGGAAACCC")], [Record("t1", "GGGUUUCCC"), Record("t2", "AAAA")])
    failure = ResourceError("too large")

    def compute(payloads):
        values = made.function(payloads)
        return [values[0], failure, values[1]]

    payloads = [item.payload for item in made.items]
    entries = pair_entries(compute, payloads, names=["query", "target", "score"], fmt="tsv", profile=True)
    assert entries[0]["-o"] == "q\tt1\t21\n" and entries[1] is failure and entries[2]["-o"] == "q\tt2\t9\n"
    assert entries[0]["--profile"].startswith('track type=bedGraph name="q vs t1"')


def _squares(values):
    return [{"-o": f"{v * v}\n"} for v in values]


def _write(outputs, pairs):
    for _, entry in pairs:
        outputs["-o"].write(entry["-o"])


@pytest.mark.parametrize("gpu", [False, True])
def test_a_batch_here_writes_the_same_with_its_computing_in_a_thread(tmp_path, gpu):
    job = batch_run.Job(prog="bioaccel demo", unit="item", items=[Item(k, f"item {k}", 1.0, k) for k in range(50)],
                        function=_squares, write=_write, outputs={"-o": str(tmp_path / "out.txt")},
                        fingerprint="demo", gpu=gpu)
    args = type("Args", (), dict(workers=None, scheduler=None, gpus=None, resume=False, quiet=True,
                                 output=str(tmp_path / "out.txt")))()
    assert batch_run.run(job, args, io.StringIO(), io.StringIO()) == 0
    assert (tmp_path / "out.txt").read_text() == "".join(f"{k * k}\n" for k in range(50))
    assert not (tmp_path / "out.txt.partial").exists()


@pytest.mark.parametrize("output", [[], ["-o", "OUT"]])
def test_the_gpu_backend_without_a_gpu_fails_in_one_line(tmp_path, output):
    if gpu.gpu_available():
        pytest.skip("a GPU is here")
    queries, targets = tmp_path / "q.fa", tmp_path / "t.fa"
    queries.write_text(">q\nGGGAAACCC\n")
    targets.write_text(">t\nGGGUUUCCC\n")
    out, err = io.StringIO(), io.StringIO()
    argv = ["interact", str(queries), str(targets), "--backend", "gpu",
            *[str(tmp_path / "out.tsv") if a == "OUT" else a for a in output]]
    assert main(argv, stdout=out, stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and "GPU backend is not available" in err.getvalue()
    assert out.getvalue() == "" and not (tmp_path / "out.tsv").exists()


def test_warm_up_then_require_gpu_answers_as_without_it():
    gpu.warm_up()
    gpu._STATE["warm"].join(60)
    if gpu.gpu_available():
        assert gpu.require_gpu() is gpu.cupy()
    else:
        with pytest.raises(gpu.GPUUnavailable):
            gpu.require_gpu()


@pytest.mark.gpu
def test_the_gpu_screen_writes_what_the_cpu_writes(tmp_path):
    """The GPU's warm-up (a tiny pair in the background), the computing thread and the bursts leave
    the text of the CPU's, to standard output and through the batch layer (-o)."""
    queries, targets = tmp_path / "q.fa", tmp_path / "t.fa"
    queries.write_text(">q1\nGAGGAAGAAGAGGACGAT\n>q2\nAGGAACTGGCCCAGAAGCTTC\n")
    targets.write_text("".join(f">t{k}\n" + "GGGAAAUCCCAUGCAUGCAUCGAUCGAUGCUUAGC"[k:] * 3 + "\n" for k in range(5)))
    texts = []
    for backend in ("cpu", "gpu"):
        argv = ["interact", str(queries), str(targets), "--window-target", "16", "--sites", "2", "--backend",
                backend, "-q"]
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
        texts.append(out.getvalue())
        path = tmp_path / f"{backend}.tsv"
        assert main([*argv, "-o", str(path)], stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
        texts.append(path.read_text())
    assert len(set(texts)) == 1 and texts[0].count("\n") == 1 + 2 * 5 * 2
    assert "warm" in gpu._STATE
