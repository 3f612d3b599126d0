"""A batch's small host arrays (starts, ids, the pair model, the scores' first values) sent to the device by
one copy from pinned memory (issue 29, helper nbhost), while the GPU waits for the batch's first launch:
``cupy.asarray`` stages each array through CuPy's pinned pool and records an event (four arrays of a
2,000-sequence batch 0.38-0.52 ms of host time on the H100 machine's host, the same bytes packed 0.23-0.35
ms, cProfile); this copy 0.05 ms (docs/gpu-notes.md). The batch's few status words come back through pinned
memory too (``runtime.gpu.to_host``)."""
import threading

import numpy as np


class Staging:
    """Pinned host buffers that the uploads are copied from, used in turn: a buffer is written again only
    once the copy out of it has run (its event), so a caller queueing folds ahead never overwrites one."""

    SLOTS = 4

    def __init__(self):
        self.buffers, self.events, self.turn = [None] * self.SLOTS, [None] * self.SLOTS, 0
        self.lock = threading.Lock()             # two threads never fill one buffer

    def upload(self, cp, packed, layout):
        """One device buffer holding ``packed`` (:func:`pack`), filled by one copy on the current stream; a
        1-D device array for each of ``layout``'s arrays, a view of that buffer.

        >>> Staging().turn
        0
        """
        with self.lock:
            return self._upload(cp, packed, layout)

    def _upload(self, cp, packed, layout):
        total = packed.nbytes
        k = self.turn
        self.turn = (k + 1) % self.SLOTS
        if self.events[k] is not None:
            self.events[k].synchronize()
        else:
            self.events[k] = cp.cuda.Event(block=False, disable_timing=True)
        if self.buffers[k] is None or self.buffers[k][1] < total:
            size = max(total, 1 << 16)
            self.buffers[k] = (cp.cuda.alloc_pinned_memory(size), size)
        memory = self.buffers[k][0]
        np.frombuffer(memory, np.uint8, total)[:] = packed
        device = cp.empty(total, dtype=np.uint8)
        stream = cp.cuda.get_current_stream()
        device.data.copy_from_host_async(memory.ptr, total, stream)
        self.events[k].record(stream)
        return [cp.ndarray((size,), dtype=dtype, memptr=device.data + offset) for dtype, size, offset in layout]


def pack(arrays):
    """``(packed, layout)``: host ``arrays`` back to back in one uint8 array, each at a multiple of 16 bytes
    (at least 16 bytes in all), and each one's ``(dtype, size, offset)``. A batch of the same starts packs
    once (fold/_gpu_batch.py _plan): its upload is then one copy into pinned memory (issue 29, helper nbfin).

    >>> packed, layout = pack([np.arange(3, dtype=np.int32), np.ones(1, np.int64)])
    >>> packed.nbytes, [(str(d), n, o) for d, n, o in layout], packed[16:24].view(np.int64).tolist()
    (32, [('int32', 3, 0), ('int64', 1, 16)], [1])
    """
    offsets = np.cumsum([0] + [(a.nbytes + 15) // 16 * 16 for a in arrays]).tolist()
    packed = np.zeros(max(offsets[-1], 16), dtype=np.uint8)
    for array, offset in zip(arrays, offsets):
        packed[offset:offset + array.nbytes] = np.ascontiguousarray(array).view(np.uint8).ravel()
    return packed, [(array.dtype, array.size, offset) for array, offset in zip(arrays, offsets)]


_stagings = {}                                   # by device: its events and copies belong to it


def upload(cp, arrays):
    """Device copies of host ``arrays`` made by one host-to-device copy (:class:`Staging`), flattened.

    >>> from bioaccel.runtime.gpu import gpu_available
    >>> gpu_available() or upload(None, []) == []
    True
    """
    return upload_packed(cp, *pack(arrays)) if arrays else []


def upload_packed(cp, packed, layout):
    """:func:`upload` of arrays already packed (:func:`pack`).

    >>> from bioaccel.runtime.gpu import gpu_available
    >>> gpu_available() or upload_packed(None, np.zeros(16, np.uint8), []) == []
    True
    """
    if not layout:
        return []
    device = cp.cuda.Device().id
    if device not in _stagings:
        _stagings.setdefault(device, Staging())
    return _stagings[device].upload(cp, packed, layout)


