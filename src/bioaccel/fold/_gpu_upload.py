"""A batch's small host arrays (starts, ids, the pair model, the scores' first values) sent to the device by
one copy from pinned memory (issue 29, helper nbhost), while the GPU waits for the batch's first launch:
``cupy.asarray`` stages each array through CuPy's pinned pool and records an event (four arrays of a
2,000-sequence batch 0.38-0.52 ms of host time on the H100 machine's host, the same bytes packed 0.23-0.35
ms, cProfile); this copy 0.05 ms (docs/gpu-notes.md)."""
import threading

import numpy as np


class Staging:
    """Pinned host buffers that the uploads are copied from, used in turn: a buffer is written again only
    once the copy out of it has run (its event), so a caller queueing folds ahead never overwrites one."""

    SLOTS = 4

    def __init__(self):
        self.buffers, self.events, self.turn = [None] * self.SLOTS, [None] * self.SLOTS, 0
        self.lock = threading.Lock()             # two threads never fill one buffer

    def upload(self, cp, arrays):
        """One device buffer holding ``arrays`` (each at a multiple of 16 bytes), filled by one copy on the
        current stream; a 1-D device array for each, a view of that buffer.

        >>> Staging().turn
        0
        """
        offsets = np.cumsum([0] + [(a.nbytes + 15) // 16 * 16 for a in arrays]).tolist()
        with self.lock:
            return self._upload(cp, arrays, offsets, max(offsets[-1], 16))

    def _upload(self, cp, arrays, offsets, total):
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
        host = np.frombuffer(memory, np.uint8, total)
        for array, offset in zip(arrays, offsets):
            host[offset:offset + array.nbytes] = np.ascontiguousarray(array).view(np.uint8).ravel()
        device = cp.empty(total, dtype=np.uint8)
        stream = cp.cuda.get_current_stream()
        device.data.copy_from_host_async(memory.ptr, total, stream)
        self.events[k].record(stream)
        return [cp.ndarray((a.size,), dtype=a.dtype, memptr=device.data + offset) for a, offset in zip(arrays, offsets)]


_stagings = {}                                   # by device: its events and copies belong to it


def upload(cp, arrays):
    """Device copies of host ``arrays`` made by one host-to-device copy (:class:`Staging`), flattened.

    >>> from bioaccel.runtime.gpu import gpu_available
    >>> gpu_available() or upload(None, []) == []
    True
    """
    if not arrays:
        return []
    device = cp.cuda.Device().id
    if device not in _stagings:
        _stagings.setdefault(device, Staging())
    return _stagings[device].upload(cp, arrays)
