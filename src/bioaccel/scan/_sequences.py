"""The sequences of a scan, in chunks: read from a FASTA file (genome-sized, in bounded memory) or from
records in memory, each chunk overlapping the next by the longest motif less one letter (a window lies
whole in exactly one chunk); read ahead on a thread of their own; and the windows each chunk tests
(those holding only A, C, G, T: a window with another letter is skipped, as FIMO skips it).
"""
import dataclasses
import os
import queue
import threading

import numpy as np
from numba import njit

from ..inputs.chunks import read_chunks, split_codes
from ..inputs.fasta import as_records
from ._defaults import CHUNK_SIZE

#: Chunks read ahead on a thread of their own (each ~4 MB of codes).
READ_AHEAD = 2


def is_path(sequences) -> bool:
    """Whether ``sequences`` names a file to read: ``-``, a path object, or a string naming anything
    there but a folder (a regular file, or a named pipe such as a shell's ``<(zcat x.fa.gz)``).

    >>> is_path("-"), is_path("/dev/stdin"), is_path("ACGT"), is_path("/")
    (True, True, False, False)
    """
    if isinstance(sequences, os.PathLike):
        return True
    return isinstance(sequences, str) and (sequences == "-" or (os.path.exists(sequences)
                                                                 and not os.path.isdir(sequences)))


def chunks(sequences, *, size=CHUNK_SIZE, overlap=0):
    """The chunks of ``sequences``: a FASTA file (path, ``-`` for standard input), or what
    :func:`bioaccel.inputs.fasta.as_records` takes (strings, records, (id, sequence) pairs). Empty
    sequences have no chunks."""
    if is_path(sequences):
        yield from read_chunks(os.fspath(sequences), size=size, overlap=overlap)
        return
    for record in as_records(sequences):
        yield from split_codes(record.id, record.description, record.codes, size=size, overlap=overlap)


def read_ahead(source, depth=READ_AHEAD):
    """The chunks of ``source`` (an iterator of :class:`~bioaccel.inputs.chunks.Chunk`), read on a
    thread of their own up to ``depth`` ahead, each with its own copy of its codes (the reader reuses
    its buffer): reading 100 Mb of FASTA took 1.4-2 s of the scan's host thread on an H100 machine.
    An error of the reader is raised here, where the chunk it stopped would have come.

    >>> from bioaccel.inputs.chunks import split_codes
    >>> [c.start for c in read_ahead(split_codes("r", "", np.arange(7), size=3))]
    [0, 3, 6]
    """
    done = object()
    ready = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def work():
        try:
            for chunk in source:
                if not put(dataclasses.replace(chunk, codes=chunk.codes.copy())):
                    return
            put(done)
        except BaseException as exc:       # noqa: BLE001 -- handed to the consumer, raised there
            put(exc)

    reader = threading.Thread(target=work, name="bioaccel-read", daemon=True)
    reader.start()
    try:
        while True:
            item = ready.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        reader.join()


def valid_windows(codes, windows, lengths) -> np.ndarray:
    """For each length m of ``lengths``: how many of the first ``windows`` windows of m letters of
    ``codes`` hold only A, C, G, T (the windows a scan tests).

    >>> from bioaccel.inputs.alphabet import encode
    >>> valid_windows(encode("ACGNACGT"), 8, np.array([1, 3])).tolist()     # runs of 3 and 4 letters
    [7, 3]
    """
    return _valid_windows(codes, int(windows), np.asarray(lengths, np.int64))


@njit(cache=True, nogil=True)
def _valid_windows(codes, windows, lengths):
    # one pass over the runs of A, C, G, T without the GIL: NumPy's six passes over each chunk (compare,
    # pad, cast, diff, ...) held the scan's host thread 0.7 s in 100 Mb (an H100 machine)
    out = np.zeros(lengths.shape[0], np.int64)
    n = codes.shape[0]
    i = 0
    while i < n:
        if codes[i] > 3:
            i += 1
            continue
        start = i
        while i < n and codes[i] <= 3:
            i += 1
        if start >= windows:                    # the runs from here on start no window tested
            break
        for k in range(lengths.shape[0]):       # window starts in the run [start, i): [start, last)
            last = min(i - lengths[k] + 1, windows)
            if last > start:
                out[k] += last - start
    return out
