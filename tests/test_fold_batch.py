"""The array form ``nussinov_batch`` on the CPU: the same scores and structures as ``nussinov`` one
sequence at a time (which the naive reference checks in test_fold_cpu.py), for every shape of batch."""
import numpy as np
import pytest

from bioaccel.errors import InputError
from bioaccel.fold import FoldParams, nussinov, nussinov_batch
from bioaccel.fold import _arrays, _cpu, _packed_cpu

PARAMS = [FoldParams(), FoldParams(min_loop=0, gu=0), FoldParams.bpmax(), FoldParams(min_loop=1, au=1.5, gc=3, gu=0.5)]


def _mixed(count, longest, seed):
    rng = np.random.default_rng(seed)
    lengths = [0, 1, 2, 3, 4, 33, longest] + rng.integers(0, longest, count).tolist()
    seqs = []
    for k, n in enumerate(lengths):
        seq = "".join(rng.choice(list("ACGUACGUACGUN"), n))
        seqs.append(seq.lower().replace("u", "t") if k % 5 == 2 else seq)
    return seqs


def _one_by_one(seqs, params):
    results = [nussinov([s], params=params)[0] for s in seqs]
    return [r.score for r in results], [r.structure for r in results]


@pytest.mark.parametrize("long_per_core", [10_000, 1])        # long ones one at a time / in the packed batch
@pytest.mark.parametrize("params", PARAMS, ids=range(len(PARAMS)))
def test_batch_equals_one_at_a_time(params, long_per_core, monkeypatch):
    monkeypatch.setattr(_cpu, "ONE_CORE_MAX_LENGTH", 60)           # "long" from 61 nt
    monkeypatch.setattr(_arrays, "LONG_PER_CORE", long_per_core)
    monkeypatch.setattr(_arrays, "PACKED_MAX_LENGTH", 120)   # and the longest still one at a time
    seqs = _mixed(60, 150, seed=17)
    scores, structures = nussinov_batch(seqs, params=params)
    expect_scores, expect_structures = _one_by_one(seqs, params)
    assert scores.tolist() == expect_scores
    assert structures.astype(str).tolist() == expect_structures
    assert scores.dtype == (np.int64 if params.unit == 1 else np.float64)
    only, none = nussinov_batch(seqs, params=params, traceback=False)
    assert only.tolist() == expect_scores and none is None


def test_equal_lengths_and_a_heap_or_snake_deal(monkeypatch):
    for per_core in (0, 10_000):                               # snake order / heap, same results
        monkeypatch.setattr(_packed_cpu, "HEAP_PER_CORE", per_core)
        seqs = ["".join(np.random.default_rng(k).choice(list("ACGU"), 40)) for k in range(50)]
        scores, structures = nussinov_batch(seqs, threads=2)
        assert structures.dtype == np.dtype("S40")
        assert (scores.tolist(), structures.astype(str).tolist()) == _one_by_one(seqs, FoldParams())


def test_deal_balances_cost_and_covers_every_sequence():
    lengths = np.random.default_rng(1).integers(0, 500, 2000)
    start, items = _packed_cpu._deal(lengths, 7)
    assert sorted(items.tolist()) == list(range(2000))
    loads = [float(np.sum(lengths[items[start[w]:start[w + 1]]].astype(float) ** 3)) for w in range(7)]
    assert max(loads) < 1.05 * min(loads)


def test_inputs_records_pairs_and_a_bad_letter():
    from bioaccel.inputs.fasta import Record

    scores, structures = nussinov_batch([Record("r", "GGGAAAUCC"), ("p", "gggaaatcc"), b"GGGAAAUCC"])
    assert scores.tolist() == [3, 3, 3] and set(structures.tolist()) == {b"(((...)))"}
    assert nussinov_batch([]).scores.shape == (0,)
    with pytest.raises(InputError, match="sequence 2: invalid character 'X' at position 3"):
        nussinov_batch(["ACGU", "ACXU"])


def test_structure_array_from_letters_and_from_partners_agree():
    starts = np.array([0, 5, 5, 9])
    pair_to = np.array([4, -1, -1, -1, 0, 3, -1, -1, 0], dtype=np.int32)
    chars = np.frombuffer(b"(...)(..)", dtype=np.uint8)
    assert _arrays.structure_array(starts, pair_to=pair_to).tolist() == [b"(...)", b"", b"(..)"]
    assert _arrays.structure_array(starts, chars=chars).tolist() == [b"(...)", b"", b"(..)"]
