"""The array form of the folding API: ``scores, structures = nussinov_batch(sequences)``.

For a million sequences, a FoldResult (and a Python string) per sequence costs more than the fold on a
GPU. Here the sequences are encoded in one pass over their concatenation, folded as one packed batch
(CPU: :func:`._packed_cpu.fold_packed`; GPU: :func:`._gpu_batch.fold_packed`) and the results come back
as two arrays in input order, built without a Python loop per sequence.
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import InputError
from ..inputs.alphabet import encode
from ..inputs.fasta import Record, is_pair
from ..runtime.contract import check_call
from ..runtime.parallel import threads as using_threads
from ._model import FoldParams
from ._variants import VARIANTS


class FoldBatch(NamedTuple):
    """Scores and structures of a batch, in input order.

    ``scores``: one per sequence, int64 when the weights are whole numbers, else float64 (as
    ``FoldResult.score``). ``structures``: the dot-brackets as a NumPy array of ASCII byte strings
    (dtype ``S<longest>``; ``structures.astype(str)`` gives Python strings, ``structures[k].decode()``
    one), or None when folded with ``traceback=False``.

    >>> scores, structures = FoldBatch(np.array([3]), np.array([b"(((...)))"]))
    >>> int(scores[0]), structures[0].decode()
    (3, '(((...)))')
    """

    scores: np.ndarray
    structures: "np.ndarray | None"


def _letters(sequences):
    """The sequences as a list of strings (what as_records accepts, without a Record each)."""
    if isinstance(sequences, (str, bytes, Record)) or is_pair(sequences):
        sequences = [sequences]
    out = []
    for item in sequences:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Record):
            out.append(item.sequence)
        elif isinstance(item, (bytes, bytearray)):
            out.append(bytes(item).decode("ascii", errors="replace"))
        elif is_pair(item):
            out.append(item[1])
        else:
            raise InputError("expected a sequence string, a Record or an (id, sequence) pair, "
                             f"got {type(item).__name__}")
    return out


def encode_packed(sequences):
    """``(codes, starts)``: the codes of every sequence back to back (uint8) and where each starts
    (int64, one more than the sequences), from one pass over their concatenation.

    >>> codes, starts = encode_packed(["GGa", "", "uN"])
    >>> codes.tolist(), starts.tolist()
    ([2, 2, 0, 3, 4], [0, 3, 3, 5])
    """
    letters = _letters(sequences)
    starts = np.zeros(len(letters) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, letters), dtype=np.int64, count=len(letters)), out=starts[1:])
    try:
        return encode("".join(letters)), starts
    except InputError:                    # name the sequence and the position within it
        for k, seq in enumerate(letters, start=1):
            encode(seq, where=f"sequence {k}")
        raise


@njit(cache=True, nogil=True)
def _rows_from_letters(chars, starts, width):
    out = np.zeros((starts.shape[0] - 1, width), dtype=np.uint8)
    for k in range(starts.shape[0] - 1):
        out[k, :starts[k + 1] - starts[k]] = chars[starts[k]:starts[k + 1]]
    return out


@njit(cache=True, nogil=True)
def _rows_from_partners(pair_to, starts, width):
    out = np.zeros((starts.shape[0] - 1, width), dtype=np.uint8)
    for k in range(starts.shape[0] - 1):
        for x in range(starts[k + 1] - starts[k]):
            p = pair_to[starts[k] + x]
            out[k, x] = 46 if p < 0 else (40 if p > x else 41)      # '.', '(', ')'
    return out


def structure_array(starts, *, chars=None, pair_to=None):
    """Dot-brackets of a packed batch as an ``S<longest>`` array, from its letters (``chars``, uint8)
    or its partners (``pair_to``, 0-based within each sequence, -1 unpaired).

    >>> structure_array(np.array([0, 5, 5, 7]), pair_to=np.array([4, -1, -1, -1, 0, 1, 0])).tolist()
    [b'(...)', b'', b'()']
    """
    lengths = np.diff(starts)
    width = max(1, int(lengths.max(initial=0)))
    if chars is not None and len(lengths) and lengths.min() == width:     # one length: a view, no copy
        rows = np.ascontiguousarray(chars[:int(starts[-1])]).reshape(len(lengths), width)
    elif chars is not None:
        rows = _rows_from_letters(np.ascontiguousarray(chars, dtype=np.uint8), starts, width)
    else:
        rows = _rows_from_partners(np.ascontiguousarray(pair_to, dtype=np.int32), starts, width)
    return rows.view(f"S{width}").reshape(len(lengths))


def _scores(units, params):
    unit = params.unit
    units = np.asarray(units, dtype=np.int64)
    return units // unit if unit == 1 else units / unit


def nussinov_batch(sequences, *, params: "FoldParams | None" = None, backend: str = "cpu", threads: int = 0,
                   traceback: bool = True) -> FoldBatch:
    """Fold many sequences at once; ``(scores, structures)`` arrays in input order (:class:`FoldBatch`).

    The same folds as :func:`nussinov` (its default variant, ``tiled``: identical scores and
    structures), for batches too large for a FoldResult per sequence. ``sequences``: strings (any case,
    T read as U, IUPAC codes pair with nothing), Records or ``(id, sequence)`` pairs. ``backend``:
    "cpu" (each short sequence on one core, all cores busy; sequences over
    ``bioaccel.fold._cpu.ONE_CORE_MAX_LENGTH`` nt each on all cores) or "gpu" (binned by length, many
    sequences per launch, tables and traceback on the device). ``traceback=False``: scores only.

    >>> scores, structures = nussinov_batch(["GGGAAAUCC", "gggaaaTcc", "A"])
    >>> scores.tolist(), structures.astype(str).tolist()
    ([3, 3, 0], ['(((...)))', '(((...)))', '.'])
    """
    call = check_call(VARIANTS, params, FoldParams, backend=backend, threads=threads)
    if backend == "gpu":
        return _on_gpu(sequences, call, traceback)
    codes, starts = encode_packed(sequences)
    return BY_BACKEND[backend](codes, starts, call, traceback)


def _on_cpu(codes, starts, call, traceback):
    with using_threads(call.threads):
        units, pair_to = _packed_or_alone(codes, starts, call.params, traceback)
    return FoldBatch(_scores(units, call.params), structure_array(starts, pair_to=pair_to) if traceback else None)


def _on_gpu(sequences, call, traceback):
    from ._arrays_gpu import fold_on_gpu

    units, starts, chars = fold_on_gpu(sequences, call.params, traceback, encode_packed)
    return FoldBatch(_scores(units, call.params), structure_array(starts, chars=chars) if traceback else None)


#: backend -> how a packed batch is folded there (the GPU's is called with the sequences: it encodes them there)
BY_BACKEND = {"cpu": _on_cpu}


#: Sequences longer than ONE_CORE_MAX_LENGTH still join the packed batch (one per core, a table each) when
#: there are at least this many per core and they are at most PACKED_MAX_LENGTH nt: then every core has
#: whole sequences to fold, which beats each folded on all cores in turn (2,000 x 1,000 nt took 16.6 s
#: one at a time on 16 cores of an H100 machine; 24 x 1,000 nt on 2 cores: 0.34-0.36 s packed against
#: 0.39-0.44 s one at a time, one run each, CI running beside it).
LONG_PER_CORE = 2
PACKED_MAX_LENGTH = 4000


def _packed_or_alone(codes, starts, params, traceback):
    """Short sequences (and long ones when there are enough of them) as one packed batch on all cores;
    the rest one after another, each on all cores."""
    from numba import get_num_threads

    from . import _cpu
    from ._packed_cpu import fold_packed

    lengths = np.diff(starts)
    short = lengths <= _cpu.ONE_CORE_MAX_LENGTH
    long_enough = (lengths > _cpu.ONE_CORE_MAX_LENGTH) & (lengths <= PACKED_MAX_LENGTH)
    if long_enough.sum() >= LONG_PER_CORE * get_num_threads():
        short |= long_enough
    if short.all():
        return fold_packed(codes, starts, params, traceback=traceback)
    units = np.zeros(len(lengths), dtype=np.int64)
    pair_to = np.full(codes.shape[0], -1, dtype=np.int32)
    in_short = np.repeat(short, lengths)                      # which letters belong to short sequences
    short_starts = np.zeros(int(short.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[short], out=short_starts[1:])
    units[short], pair_to[in_short] = fold_packed(codes[in_short], short_starts, params, traceback=traceback)
    for k in np.flatnonzero(~short).tolist():
        a, b = int(starts[k]), int(starts[k + 1])
        units[k], partners = _cpu.fold_one(codes[a:b], params, "tiled", traceback)
        if traceback:
            pair_to[a:b] = partners
    return units, pair_to
