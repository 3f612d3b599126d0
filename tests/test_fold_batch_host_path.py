"""fold_packed's host path before and around its first launch (fold/_gpu_batch.py; issue 29, helper nbhost2), on
a stand-in for CuPy (tests/batch_host_stand_in.py), any machine: a kept plan's upload (the starts, the pair model,
each launch's ids, the scores' first values) is made once per device, so that a batch of the same starts queues
nothing before its first launch and copies its scores and status from the kept head behind it; the kernels write
only the fold's own copy; another stream waits for the upload; with KEEP_UPLOADS off, or a plan not kept, each
fold uploads before its first launch, as before. tests/test_fold_gpu.py runs the same path on the device."""
import numpy as np
import pytest

from bioaccel.fold import FoldParams, _gpu_batch
import batch_host_stand_in
from batch_host_stand_in import stand_in

#: shared-memory (0, 1, 2, 150 nt), tiled (300, 1000, 999 nt: two bins) sequences
LENGTHS = [0, 1, 2, 150, 300, 1000, 999, 300]


def _fold(cp, lengths=LENGTHS):
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    cp.log.clear()
    out = _gpu_batch.fold_packed(cp.zeros(int(starts[-1]), dtype=np.uint8), starts, FoldParams(), check=False)
    return out, [op[0] for op in cp.log]


def _first_launch(kinds):
    return kinds.index("launch")


def _kept_head(cp):
    (plan,) = _gpu_batch._plans.values()
    return plan.on_device[0][0][0]


def test_a_kept_plan_uploads_once_and_its_scores_are_copied_behind_the_first_launch():
    with stand_in() as cp:
        first, kinds = _fold(cp, [300, 1000, 999, 300])                 # tiled only: the diagonal's finish first
        assert kinds.count("copy to device") == 1 and kinds.index("copy to device") < _first_launch(kinds)
        head = _kept_head(cp)
        assert head.tolist() == [0, 0, -1, -1, -1, -1]                   # status, then the scores' first values
        for array in (first.scores, first.status):
            assert not np.shares_memory(array, head)
        second, kinds = _fold(cp, [300, 1000, 999, 300])
        assert "copy to device" not in kinds and _first_launch(kinds) == 0
        assert kinds[1:4] == ["copy on device", "memset", "memset"]
        assert second.scores.tolist() == [-1] * 4 and second.status.tolist() == [0, 0]
        assert not np.shares_memory(second.scores, first.scores) and second.inputs[0] is head


def test_the_kernels_write_the_folds_own_scores_never_the_kept_head():
    with stand_in() as cp:
        _fold(cp)
        out, _ = _fold(cp)
        head = _kept_head(cp)
        written = [op[2] for op in cp.log if op[0] == "launch" and op[1] in ("batch_traceback", "batch_fold_x2t")]
        assert len(written) >= 3                                          # two tiled bins, the shared launches
        for args in written:
            assert any(a is out.scores for a in args) and any(a is out.status for a in args)
            assert not any(isinstance(a, np.ndarray) and np.shares_memory(a, head) for a in args)
        out.scores[:] = 7                                                 # as a traceback would
        again, _ = _fold(cp)
        assert again.scores.tolist() == [0, 0] + [-1] * 6 and head[2:].tolist() == [0, 0] + [-1] * 6


def test_the_launches_read_the_plans_arrays():
    with stand_in() as cp:
        _fold(cp)
        out, _ = _fold(cp)
        (plan,) = _gpu_batch._plans.values()
        _, starts_dev, pm, *ids_dev = plan.on_device[0][0]
        starts = np.concatenate([[0], np.cumsum(LENGTHS)])
        assert starts_dev.tolist() == starts.tolist() and pm.tolist()[-1] == FoldParams().min_loop
        launched = [op[2] for op in cp.log if op[0] == "launch" and op[1] != "batch_bulk_direct"]
        assert sorted(int(k) for ids in ids_dev for k in ids) == [2, 3, 4, 5, 6, 7]
        for ids in ids_dev:                                               # each launch group's ids reach a kernel
            assert any(any(a is ids for a in args) for args in launched)


def test_another_stream_waits_for_the_kept_upload():
    with stand_in() as cp:
        _fold(cp)
        with cp.cuda.Stream(non_blocking=True):
            _, kinds = _fold(cp)
        assert kinds[0] == "wait" and cp.log[0][1] == 0 and "copy to device" not in kinds
        _, kinds = _fold(cp)                                              # the upload's own stream: no wait
        assert "wait" not in kinds


@pytest.mark.parametrize("switch", ["KEEP_UPLOADS", "PLAN_CACHE_MAX"])
def test_without_kept_uploads_each_fold_uploads_before_its_first_launch(monkeypatch, switch):
    monkeypatch.setattr(_gpu_batch, switch, 0)
    with stand_in() as cp:
        for _ in range(2):
            out, kinds = _fold(cp)
            assert kinds.count("copy to device") == 1 and kinds.index("copy to device") < _first_launch(kinds)
            assert "copy on device" not in kinds and out.scores.tolist() == [0, 0] + [-1] * 6
            assert np.shares_memory(out.scores, out.inputs[0])           # the fresh upload is the fold's own


def test_status_words_come_back_in_one_pinned_copy_on_the_batchs_stream():
    """check_packed reads a device batch's two status words through runtime.gpu.to_host (one copy into pinned
    memory on the batch's stream, then one wait: the stand-in's log), and a failed traceback's word still raises."""
    from bioaccel.errors import InternalError

    class OnDevice:                                     # status words on the device: not a NumPy array
        def __init__(self, words):
            self.words = np.asarray(words, np.int32).view(batch_host_stand_in.DeviceArray)
            self.data, self.nbytes, self.dtype, self.size, self.shape = (
                self.words.data, self.words.nbytes, self.words.dtype, self.words.size, self.words.shape)

        def __len__(self):
            return len(self.words)

    with stand_in() as cp:
        stream = cp.cuda.Stream()
        _gpu_batch.check_packed(_gpu_batch.PackedFolds(np.zeros(2, np.int32), None, None, OnDevice([0, 0])),
                                units=np.zeros(2), stream=stream)
        assert cp.log == [("copy to host", 8), ("host waits", stream.ptr)]
        with pytest.raises(InternalError):
            _gpu_batch.check_packed(_gpu_batch.PackedFolds(np.zeros(2, np.int32), None, None, OnDevice([1, 0])),
                                    units=np.zeros(2), stream=stream)
