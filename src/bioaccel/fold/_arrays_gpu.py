"""``nussinov_batch(backend="gpu")`` from the Python strings to host arrays, with the host and the GPU
busy at once.

A plain list of strings is cut in chunks (:func:`chunk_bounds`: a small first chunk, so that the device
starts early, then each chunk larger by :data:`CHUNK_GROWTH`, up to :data:`CHUNK` sequences). For each
chunk the host joins the strings and takes their ASCII bytes (one ``str.join``, no Python step per
sequence), copies the raw bytes to the device, where one table look-up encodes them, and queues the
chunk's fold without waiting for it (:func:`._gpu_batch.fold_packed` with ``check=False``): the host
joins the next chunk while the GPU folds this one. The scores and dot-bracket letters of a chunk come
back as soon as its fold is done (a copy on a second stream, started between two joins or, once every
chunk is queued, while the device folds the next ones): after the last fold only the last chunk's copy is
left. Letters that are not nucleotides are noted on the device (their codes folded as N meanwhile) and,
once everything is back, :func:`._arrays.encode_packed` is run over the input to raise its message naming
the sequence and position. Anything other than a list of strings (Records, pairs, bytes) is encoded on
the host, as one chunk.
"""
import numpy as np

from ..errors import InternalError
from ..inputs.alphabet import OTHER, code_of_byte
from ..runtime import gpu as _gpu
from ._gpu_batch import check_packed, fold_packed

#: Most sequences a chunk (1,000,000 x 200 nt: ~26 MB of letters).
CHUNK = 1 << 17
#: Sequences of the first chunk: the device waits for its join alone.
FIRST_CHUNK = 1 << 13
#: Each chunk this much larger than the one before, up to CHUNK: the join of a chunk (0.34 us a 200-nt
#: sequence on an H100 machine's host) must stay shorter than the fold of the one before (0.46 us).
CHUNK_GROWTH = 1.25


def joined_letters(sequences):
    """``(letters, starts)`` of a plain list of strings: their ASCII bytes back to back (uint8, other
    characters as '?') and where each starts; None for anything else (Records, pairs, bytes, one string).

    >>> letters, starts = joined_letters(["GGa", "", "uN"])
    >>> letters.tobytes(), starts.tolist()
    (b'GGauN', [0, 3, 3, 5])
    >>> joined_letters(("x", "GGA")) is None
    True
    """
    if type(sequences) is not list:
        return None
    try:
        text = "".join(sequences)
    except TypeError:                     # not all strings
        return None
    starts = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences)), out=starts[1:])
    return np.frombuffer(text.encode("ascii", errors="replace"), dtype=np.uint8), starts


def chunk_bounds(count, chunk=CHUNK, first=FIRST_CHUNK, growth=CHUNK_GROWTH):
    """``(start, stop)`` of each chunk of ``count`` sequences: ``first`` (at most ``chunk``), then each
    ``growth`` times the one before, at most ``chunk``; ``chunk`` 0: one chunk.

    >>> chunk_bounds(10, chunk=4, first=1, growth=2)
    [(0, 1), (1, 3), (3, 7), (7, 10)]
    >>> chunk_bounds(5, chunk=0), chunk_bounds(0)
    ([(0, 5)], [])
    """
    if not chunk:
        return [(0, count)] if count else []
    bounds, size, start = [], min(first, chunk), 0
    while start < count:
        bounds.append((start, min(count, start + int(size))))
        start, size = bounds[-1][1], min(chunk, max(size + 1, size * growth))
    return bounds


class _Results:
    """The host arrays of the results and the copies into them, each on ``stream`` after its chunk's fold."""

    def __init__(self, cp, count, letters, traceback):
        self.cp, self.stream = cp, cp.cuda.Stream(non_blocking=True)
        self.units = np.empty(count, dtype=np.int32)
        self.chars = np.empty(letters, dtype=np.uint8) if traceback else None
        self.pending = []                    # (fold done event, first sequence, first letter, starts, folds)

    def add(self, first, offset, starts, out):
        done = self.cp.cuda.Event(block=False, disable_timing=True)
        done.record()
        self.pending.append((done, first, offset, starts, out))

    def copy(self, wait):
        """Copy the chunks whose fold is done (``wait``: every chunk, in order, waiting for each)."""
        while self.pending and (wait or self.pending[0][0].done):
            done, first, offset, starts, out = self.pending.pop(0)
            self.stream.wait_event(done)
            count, letters = len(starts) - 1, int(starts[-1])
            units = self.units[first:first + count]
            out.scores.get(stream=self.stream, out=units)
            if self.chars is not None and letters:
                out.chars[:letters].get(stream=self.stream, out=self.chars[offset:offset + letters])
            check_packed(out, units=units, stream=self.stream)


def fold_on_gpu(sequences, params, traceback, encode_packed, chunk=CHUNK):
    """``(units, starts, chars)`` of every sequence on the host: scores in units (int32), where each
    sequence starts (int64) and the dot-bracket letters back to back (uint8; None without traceback).
    ``encode_packed``: the host encoder (fold/_arrays.py), for inputs other than a list of strings and
    for the message of a bad letter. ``chunk`` 0: the whole input as one chunk."""
    cp = _gpu.require_gpu()
    strings = type(sequences) is list
    bounds = chunk_bounds(len(sequences), chunk if strings else 0) or [(0, 0)]
    table = cp.asarray(code_of_byte())
    bad = cp.zeros((), dtype=np.bool_)
    results, all_starts, offset = None, [], 0
    for first, stop in bounds:
        piece = sequences[first:stop] if len(bounds) > 1 else sequences
        joined = joined_letters(piece)
        if joined is None and len(bounds) > 1:        # not all strings: one chunk, so that messages count right
            return fold_on_gpu(sequences, params, traceback, encode_packed, chunk=0)
        if joined is None:
            codes, starts = encode_packed(piece)
            codes = cp.asarray(codes)
        else:
            letters, starts = joined
            codes = table[cp.asarray(letters)] if letters.size else cp.zeros(0, dtype=np.uint8)
            bad |= (codes == 255).any()
            codes = cp.minimum(codes, OTHER)            # fold a bad letter as N until the message is raised
        out = fold_packed(codes, starts, params, traceback=traceback, check=False)
        if results is None:                           # (the letters counted while the device folds)
            count, letters = (len(starts) - 1, int(starts[-1])) if len(bounds) == 1 else \
                (len(sequences), sum(map(len, sequences)))
            results = _Results(cp, count, letters, traceback)
        results.add(first, offset, starts, out)
        all_starts.append(starts[:-1] + offset)
        offset += int(starts[-1])
        results.copy(wait=False)
    results.copy(wait=True)
    results.stream.synchronize()
    if bool(bad):
        encode_packed(sequences)                        # raises InputError naming sequence and position
        raise InternalError("the GPU encoding found a bad letter that the host encoder accepts")
    all_starts.append(np.array([offset], dtype=np.int64))
    return results.units, np.concatenate(all_starts).astype(np.int64, copy=False), results.chars
