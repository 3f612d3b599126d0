"""``nussinov_batch(backend="gpu")``'s pipeline (fold/_arrays_gpu.py) with a stand-in for the device, on any
machine: chunks that grow from a small first one, each chunk's scores and letters copied back on a second
stream once its fold is done (never before: the stand-in's copy checks that the stream waited for the
chunk's event, and folds finish late, so that some copies wait and some are made between two joins), the
results equal to the CPU's in input order. tests/test_fold_gpu.py runs the same path on the device."""
import types

import numpy as np
import pytest

from bioaccel.fold import FoldParams, _arrays_gpu, nussinov_batch
from bioaccel.fold._arrays import _packed_or_alone, _scores, encode_packed, structure_array
from bioaccel.fold._gpu_batch import PackedFolds


class _DeviceArray(np.ndarray):
    """A NumPy array standing for a device one: ``get`` copies out only after the stream waited for the
    event recorded after the array's fold."""

    def get(self, stream=None, out=None):
        assert stream is not None and self.base_event() in stream.waited, "copied before its fold was done"
        out[...] = self
        return out

    def base_event(self):
        root = self
        while isinstance(root.base, _DeviceArray):
            root = root.base
        return getattr(root, "event", None)


class _Event:
    def __init__(self, device, **_):
        self.device, self.queries = device, 0

    def record(self):
        for array in self.device.unrecorded:       # the event follows these folds
            array.event = self
        self.device.unrecorded.clear()

    @property
    def done(self):                                 # each fold finishes only on the second query
        self.queries += 1
        return self.queries > 1


class _Stream:
    def __init__(self, **_):
        self.waited = set()

    def wait_event(self, event):
        self.waited.add(event)

    def synchronize(self):
        pass


def _device():
    device = types.SimpleNamespace(unrecorded=[])
    device.asarray = lambda a: np.asarray(a).view(_DeviceArray)
    device.zeros = lambda shape, dtype=None: np.zeros(shape, dtype).view(_DeviceArray)
    device.minimum = np.minimum
    device.cuda = types.SimpleNamespace(Stream=_Stream, Event=lambda **kw: _Event(device, **kw))
    return device


def _stand_in_fold(device, codes, starts, params, traceback):
    """The CPU's folds of a packed chunk, as the device's PackedFolds (letters back to back)."""
    units, pair_to = _packed_or_alone(np.asarray(codes, dtype=np.uint8), starts, params, True)
    rows = structure_array(starts, pair_to=pair_to)
    chars = np.frombuffer(b"".join(r for r in rows.tolist()) or b".", dtype=np.uint8).copy()
    out = PackedFolds(np.asarray(units, dtype=np.int32).view(_DeviceArray), None, chars.view(_DeviceArray),
                      np.zeros(1, dtype=np.int32))
    device.unrecorded += [out.scores, out.chars]
    return out


@pytest.mark.parametrize("count, chunk, first", [(23, 5, 1), (7, 0, 1), (1, 4, 2), (0, 4, 1)])
def test_chunks_come_back_in_order_after_their_folds(monkeypatch, count, chunk, first):
    device = _device()
    monkeypatch.setattr(_arrays_gpu._gpu, "require_gpu", lambda: device)
    monkeypatch.setattr(_arrays_gpu, "fold_packed", lambda codes, starts, params, traceback, check:
                        _stand_in_fold(device, codes, starts, params, traceback))
    monkeypatch.setattr(_arrays_gpu, "FIRST_CHUNK", first)
    monkeypatch.setattr(_arrays_gpu, "CHUNK_GROWTH", 2.0)
    rng = np.random.default_rng(count)
    seqs = ["".join("ACGUacgtN"[x] for x in rng.integers(0, 9, int(n))) for n in rng.integers(0, 40, count)]
    units, starts, chars = _arrays_gpu.fold_on_gpu(seqs, FoldParams(), True, encode_packed, chunk=chunk)
    want = nussinov_batch(seqs)
    assert _scores(units, FoldParams()).tolist() == want.scores.tolist()
    assert starts.tolist() == np.cumsum([0] + [len(s) for s in seqs]).tolist()
    assert structure_array(starts, chars=chars).tolist() == want.structures.tolist()


def test_chunk_bounds_cover_every_sequence_once():
    for count in (0, 1, 9, 1000):
        bounds = _arrays_gpu.chunk_bounds(count, chunk=64, first=3, growth=1.25)
        assert [k for a, b in bounds for k in range(a, b)] == list(range(count))
        sizes = [b - a for a, b in bounds]
        assert all(x <= 64 for x in sizes) and sizes[:-1] == sorted(sizes[:-1])
