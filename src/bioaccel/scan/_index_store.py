"""The ``index`` variant's q-gram index kept on disk, beside the thresholds and the hits' P-values (the
threshold cache's blob table, :func:`bioaccel.motif.read_cache_values`): a second scan of the same
motifs at the same thresholds reads it back instead of building it again (0.05 s of a 0.8 s second scan
of 200 JASPAR matrices over 1 Mb on the 2-core machine, where the whole MOODS-python command is 0.35 s).

The key is a SHA-256 of this store's format version, the index's settings (q, candidates) and every
array the index is built from (each entry's grid matrix, its length and its threshold), so a stored
index is the very index :func:`._plan.build_index` would build. The value: q, the two arrays' lengths,
``gram_start`` and ``gram_entry`` as int32 (``gram_start`` counts pairs: far below 2**31), little-endian
(0.26 MB for q = 8 and 200 matrices). A cache that cannot be read or
written is skipped, and the index is built as without it.
"""
import hashlib
import struct

import numpy as np

from ..motif import read_cache_values, write_cache_values
from ._plan import ScanIndex, build_index

FORMAT_VERSION = 1      # bump when build_index changes what an index is
HEAD = struct.Struct("<3q")


def index_key(plan, q: int, candidates: int) -> bytes:
    """The key of ``plan``'s index with ``q`` and ``candidates``.

    >>> from bioaccel.motif import PSSM
    >>> from ._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[:2])], [2 << 44])
    >>> index_key(plan, 8, 3) == index_key(plan, 8, 3), index_key(plan, 8, 3) == index_key(plan, 7, 3)
    (True, False)
    """
    h = hashlib.sha256(f"bioaccel-scan-index {FORMAT_VERSION} q={q} candidates={candidates}".encode())
    for array in (plan.units_flat, plan.units_start, plan.length, plan.threshold):
        array = np.ascontiguousarray(array, dtype="<i8")
        h.update(struct.pack("<2q", array.ndim, array.size))
        h.update(array.tobytes())
    return h.digest()


def encode(index: ScanIndex) -> bytes:
    """A stored index.

    >>> back = decode(encode(ScanIndex(3, np.array([0, 2]), np.array([5, 6], np.int32))))
    >>> back.q, back.gram_start.tolist(), back.gram_entry.tolist(), back.gram_entry.dtype.name
    (3, [0, 2], [5, 6], 'int32')
    """
    start = np.ascontiguousarray(index.gram_start, dtype="<i4")
    entry = np.ascontiguousarray(index.gram_entry, dtype="<i4")
    return HEAD.pack(index.q, start.size, entry.size) + start.tobytes() + entry.tobytes()


def decode(value) -> "ScanIndex | None":
    """The index of a stored value; None if it is not one."""
    value = bytes(value)
    if len(value) < HEAD.size:
        return None
    q, starts, entries = HEAD.unpack_from(value)
    if len(value) != HEAD.size + 4 * (starts + entries):
        return None
    start = np.frombuffer(value, dtype="<i4", count=starts, offset=HEAD.size).astype(np.int64)
    entry = np.frombuffer(value, dtype="<i4", count=entries, offset=HEAD.size + 4 * starts).astype(np.int32)
    return ScanIndex(int(q), start, entry)


def stored_index(plan, q: int = 8, candidates: int = 3) -> ScanIndex:
    """``plan``'s index (:func:`._plan.build_index`), read from the cache when it is there, else built
    and kept there.

    >>> from bioaccel.motif import PSSM
    >>> from ._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[:2])], [2 << 44])
    >>> int(stored_index(plan, q=3).gram_start[-1])     # as build_index: 8 pairs
    8
    """
    key = index_key(plan, q, candidates)
    value = read_cache_values([key]).get(key)
    index = None if value is None else decode(value)
    if index is None or index.q != q:
        index = build_index(plan, q, candidates)
        write_cache_values({key: encode(index)})
    return index


def keep_stored_index(setup, backend: str, variant: str) -> None:
    """Give ``setup``'s plan its index from the cache (:func:`stored_index`) when the scan will use one (the
    CPU's ``index`` variant on more than a few matrices) and the cache is on (``setup.store``)."""
    from ._cpu import uses_index

    if setup.store is not None and backend == "cpu" and uses_index(setup.plan, variant):
        setup.plan.keep_index(stored_index(setup.plan, setup.plan.index_q))
