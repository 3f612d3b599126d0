"""``nussinov_batch(backend="gpu")`` from the Python strings to host arrays, with the host and the GPU
busy at once.

A plain list of strings is cut in chunks of :data:`CHUNK` sequences. For each chunk the host joins the
strings and takes their ASCII bytes (one ``str.join``, no Python step per sequence), copies the raw
bytes to the device, where one table look-up encodes them, and queues the chunk's fold without waiting
for it (:func:`._gpu_batch.fold_packed` with ``check=False``): the host joins the next chunk while the
GPU folds this one. Letters that are not nucleotides are noted on the device (their codes folded as N
meanwhile) and, once everything is queued, :func:`._arrays.encode_packed` is run over the input to raise
its message naming the sequence and position. Scores and dot-bracket letters come back once, at the end.
Anything other than a list of strings (Records, pairs, bytes) is encoded on the host, as one chunk.
"""
import numpy as np

from ..errors import InternalError
from ..inputs.alphabet import OTHER, code_of_byte
from ..runtime import gpu as _gpu
from ._gpu_batch import check_packed, fold_packed

#: Sequences per chunk (1,000,000 x 200 nt: 8 chunks of ~26 MB of letters).
CHUNK = 1 << 17


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


def fold_on_gpu(sequences, params, traceback, encode_packed, chunk=CHUNK):
    """``(units, starts, chars)`` of every sequence on the host: scores in units (int32), where each
    sequence starts (int64) and the dot-bracket letters back to back (uint8; None without traceback).
    ``encode_packed``: the host encoder (fold/_arrays.py), for inputs other than a list of strings and
    for the message of a bad letter. ``chunk`` 0: the whole input as one chunk."""
    cp = _gpu.require_gpu()
    pieces = [sequences]
    if chunk and type(sequences) is list and len(sequences) > chunk:
        pieces = [sequences[a:a + chunk] for a in range(0, len(sequences), chunk)]
    table = cp.asarray(code_of_byte())
    bad = cp.zeros((), dtype=np.bool_)
    runs = []
    for piece in pieces:
        joined = joined_letters(piece)
        if joined is None and len(pieces) > 1:        # not all strings: one chunk, so that messages count right
            return fold_on_gpu(sequences, params, traceback, encode_packed, chunk=0)
        if joined is None:
            codes, starts = encode_packed(piece)
            codes = cp.asarray(codes)
        else:
            letters, starts = joined
            codes = table[cp.asarray(letters)] if letters.size else cp.zeros(0, dtype=np.uint8)
            bad |= (codes == 255).any()
            codes = cp.minimum(codes, OTHER)            # fold a bad letter as N until the message is raised
        runs.append((starts, fold_packed(codes, starts, params, traceback=traceback, check=False)))
    if bool(bad):
        encode_packed(sequences)                        # raises InputError naming sequence and position
        raise InternalError("the GPU encoding found a bad letter that the host encoder accepts")
    offsets = np.cumsum([0] + [int(starts[-1]) for starts, _ in runs])
    all_starts = np.concatenate([starts[:-1] + offset for (starts, _), offset in zip(runs, offsets)]
                                + [offsets[-1:]]).astype(np.int64)
    units = np.concatenate([cp.asnumpy(out.scores) for _, out in runs])
    chars = np.empty(int(offsets[-1]), dtype=np.uint8) if traceback else None
    for (starts, out), offset in zip(runs, offsets):
        check_packed(out)
        if traceback and starts[-1] > 0:
            out.chars[:int(starts[-1])].get(out=chars[offset:offset + int(starts[-1])])
    return units, all_starts, chars
