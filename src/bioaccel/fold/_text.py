"""The vienna and JSON Lines texts of packed folds, built a chunk at a time without a Python step per
record: the same bytes as :class:`._formats.FoldWriter` writes for the same records.

A record's text is a row of fields (literal text, its header, its letters, its dot-bracket, a
formatted value); each field is a buffer with offsets and, per record, which of its pieces it takes.
The values are formatted once per distinct value, by the model's own formatter (``vienna_value``, or
``json.dumps`` of the FoldResult's field), so the numbers read exactly as the per-record writers'.
"""
import json
import types

import numpy as np
from numba import njit

#: The formats :func:`packed_text` writes.
PACKED_FORMATS = ("vienna", "json")
_T_AS_U = bytes.maketrans(b"Tt", b"Uu")


@njit(cache=True, nogil=True)
def _place(out, pos, buf, bstarts, pick):
    for k in range(pos.shape[0]):
        a = bstarts[pick[k]]
        n = bstarts[pick[k] + 1] - a
        p = pos[k]
        if n <= 16:                       # a few bytes: a loop costs less than two slices
            for i in range(n):
                out[p + i] = buf[a + i]
        else:
            out[p:p + n] = buf[a:a + n]
        pos[k] = p + n


class _Rows:
    """The fields of a chunk's rows, in order."""

    def __init__(self, count):
        self.count = count
        self.every = np.arange(count, dtype=np.int64)
        self.fields = []

    def text(self, literal: str):
        data = np.frombuffer(literal.encode("utf-8"), dtype=np.uint8)
        self.fields.append((data, np.array([0, len(data)], dtype=np.int64), np.zeros(self.count, np.int64)))

    def each(self, buf, starts, pick=None):
        self.fields.append((buf, starts, self.every if pick is None else pick))

    def formatted(self, values, format_one):
        """One field per distinct value of ``values`` (an int array), each formatted once."""
        distinct, pick = np.unique(values, return_inverse=True)
        texts = [format_one(v).encode("utf-8") for v in distinct.tolist()]
        starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in texts], out=starts[1:])
        self.each(np.frombuffer(b"".join(texts), dtype=np.uint8), starts, pick.reshape(-1).astype(np.int64))

    def join(self) -> np.ndarray:
        sizes = np.zeros(self.count, dtype=np.int64)
        for _, starts, pick in self.fields:
            sizes += np.diff(starts)[pick]
        pos = np.zeros(self.count, dtype=np.int64)
        np.cumsum(sizes[:-1], out=pos[1:])
        out = np.empty(int(sizes.sum()), dtype=np.uint8)
        for buf, starts, pick in self.fields:
            _place(out, pos, buf, starts, pick)
        return out


def _letters(records, noconv):
    if noconv or not records.has_t:
        return records.letters
    return np.frombuffer(records.letters.tobytes().translate(_T_AS_U), dtype=np.uint8)


def packed_text(fmt: str, records, units: np.ndarray, chars: np.ndarray, *, params, variant: str, backend: str,
                noconv: bool = False) -> np.ndarray:
    """The text (UTF-8 bytes, uint8) that ``FoldWriter(handle, fmt)`` writes for these folds:
    ``records`` (:class:`bioaccel.inputs.fasta_bulk.FastaArrays`), ``units`` and ``chars`` as
    :func:`bioaccel.fold.fold_packed` gives them, the model ``params`` and the call's variant and
    backend (JSON columns); T written as U unless ``noconv``, as the command does.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.fasta_bulk import FastaArrays
    >>> r = FastaArrays(np.frombuffer(b"GGTAAACCgg", np.uint8), np.array([0, 8, 10]),
    ...                 np.frombuffer(b"a descb", np.uint8), np.array([0, 6, 7]), np.array([1, 1]))
    >>> text = packed_text("vienna", r, np.array([2, 0]), np.frombuffer(b"((....)).." , np.uint8),
    ...                    params=FoldParams(), variant="tiled", backend="cpu")
    >>> print(text.tobytes().decode(), end="")
    >a desc
    GGUAAACC
    ((....)) ( 2)
    >b
    gg
    .. ( 0)
    """
    rows = _Rows(len(records))
    letters = _letters(records, noconv)
    if fmt == "vienna":
        rows.text(">")
        rows.each(records.headers, records.hstarts)
        rows.text("\n")
        rows.each(letters, records.starts)
        rows.text("\n")
        rows.each(chars, records.starts)
        rows.text(" (")
        rows.formatted(units, lambda u: params.vienna_value(types.SimpleNamespace(**params.result_values(u))))
        rows.text(")\n")
        return rows.join()
    if fmt != "json":
        raise ValueError(f"packed_text writes {', '.join(PACKED_FORMATS)}, not {fmt}")
    for at, column in enumerate(params.json_columns):
        rows.text(("{" if at == 0 else ", ") + json.dumps(column) + ": ")
        _json_column(rows, column, records, letters, units, chars, params, {"variant": variant, "backend": backend})
    rows.text("}\n")
    return rows.join()


def _json_column(rows, column, records, letters, units, chars, params, constants):
    from ..results.values import plain

    if column in ("id", "description"):
        buf, starts = _json_ids(records) if column == "id" else _json_descriptions(records)
        rows.each(buf, starts)
    elif column in ("sequence", "structure"):
        rows.text('"')
        rows.each(letters if column == "sequence" else chars, records.starts)
        rows.text('"')
    elif column == "length":
        rows.formatted(records.lengths, lambda n: json.dumps(n))
    elif column == "pairs":
        opened = np.concatenate(([0], np.cumsum(chars == 40)))
        rows.formatted(opened[records.starts[1:]] - opened[records.starts[:-1]], lambda n: json.dumps(n))
    elif column in constants:
        rows.text(json.dumps(constants[column]))
    elif column in params.result_values(0):
        rows.formatted(units, lambda u: json.dumps(plain(params.result_values(u)[column])))
    else:
        raise ValueError(f"packed_text cannot write the JSON column {column!r}")


def _json_ids(records):
    """The ids as JSON strings (quoted; escaped as ``json.dumps`` escapes them) back to back."""
    return _json_strings(records.headers, records.hstarts[:-1], records.id_bytes)


def _json_descriptions(records):
    """The descriptions (a header's text after its id and one space; "" where there is none) as JSON
    strings back to back."""
    hstarts, id_bytes = records.hstarts, records.id_bytes
    sizes = np.maximum(np.diff(hstarts) - id_bytes - 1, 0)
    return _json_strings(records.headers, np.where(sizes > 0, hstarts[:-1] + id_bytes + 1, 0), sizes)


def _json_strings(heads, begins, nbytes):
    """The texts ``heads[begins[k]:begins[k] + nbytes[k]]`` as JSON strings (quoted; escaped as
    ``json.dumps`` escapes them) back to back, and their offsets."""
    plain_byte = (heads >= 32) & (heads < 127) & (heads != 34) & (heads != 92)
    bad_before = np.concatenate(([0], np.cumsum(~plain_byte)))
    escaped = bad_before[begins + nbytes] != bad_before[begins]
    texts = []
    sizes = nbytes + 2
    for k in np.flatnonzero(escaped).tolist():
        a = int(begins[k])
        texts.append(json.dumps(heads[a:a + int(nbytes[k])].tobytes().decode("utf-8")).encode("ascii"))
        sizes[k] = len(texts[-1])
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    out = np.empty(int(starts[-1]), dtype=np.uint8)
    simple = np.flatnonzero(~escaped)
    out[starts[simple]] = 34
    out[starts[simple + 1] - 1] = 34
    _place_ids(out, starts + 1, heads, begins, nbytes, simple)
    for k, text in zip(np.flatnonzero(escaped).tolist(), texts):
        out[starts[k]:starts[k + 1]] = np.frombuffer(text, dtype=np.uint8)
    return out, starts


@njit(cache=True, nogil=True)
def _place_ids(out, at, heads, hstarts, id_bytes, which):
    for k in which:
        out[at[k]:at[k] + id_bytes[k]] = heads[hstarts[k]:hstarts[k] + id_bytes[k]]
