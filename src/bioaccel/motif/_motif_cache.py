"""Scored motifs of a file kept in the threshold cache's database (table ``motifs``), so that a second
run over the same file reads them back instead of parsing and scoring them again (2,346 JASPAR 2024
CORE matrices: about 0.5 s parsed and scored, a few hundredths read back: docs/scan-notes.md).

A key is a SHA-256 of the format version, the format and matrix kind the file was read as, its text, and
what scoring depends on (the background's chain, the preset, the pseudocount and the log base); the
file's name is not in it (each motif's ``source`` is set from the name given at each read). A value
holds every field of each :class:`PSSM` but the background (the one of the parameters, shared) and
the source: the arrays as little-endian float64 and the rest as JSON, whose floats are their ``repr``,
so a motif read back equals the scored one bit for bit. ``--no-cache`` (``cache=False``) neither reads
nor writes; a cache that cannot be opened is skipped, as the thresholds' is.
"""
import hashlib
import json
import struct

import numpy as np

from ._pssm import PSSM
from ._threshold_cache import background_digest, read_cache_values, write_cache_values

FORMAT_VERSION = 1           # bump when reading or scoring changes what a file's motifs are


def motif_key(text: str, fmt: str, kind: str, scoring: dict) -> bytes:
    """The key of ``text`` read as format ``fmt`` and kind ``kind``, scored with ``scoring``
    (:meth:`MotifParams.scoring`).

    >>> from bioaccel.motif import MotifParams
    >>> a = motif_key("A [1]", "jaspar", "auto", MotifParams().scoring())
    >>> a == motif_key("A [1]", "jaspar", "auto", MotifParams(preset="moods").scoring()), len(a)
    (False, 32)
    """
    h = hashlib.sha256(f"bioaccel-motif-cache {FORMAT_VERSION} {fmt} {kind}".encode())
    h.update(background_digest(scoring["background"]))
    h.update(repr((scoring["preset"], scoring["pseudocount"], scoring["log_base"])).encode())
    h.update(struct.pack("<q", len(text)))
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.digest()


def pack(motifs) -> bytes:
    """``motifs`` (PSSMs) as one value: a JSON header's length (8 bytes), the header, then the arrays."""
    header, arrays = [], []
    for m in motifs:
        full = m.counts is not None and m.probabilities is not None
        header.append([m.motif_id, m.name, m.length, full, m.pseudocount, m.log_base, m.file_threshold])
        arrays += [m.scores] + ([m.counts, m.probabilities] if full else [])
    text = json.dumps(header).encode()
    body = np.concatenate([np.ravel(a) for a in arrays]).astype("<f8") if arrays else np.zeros(0, "<f8")
    return struct.pack("<q", len(text)) + text + body.tobytes()


def unpack(value: bytes, background, source: str) -> list:
    """The PSSMs of a :func:`pack`'d value, each with ``background`` and ``source``.

    >>> from bioaccel.motif import Background
    >>> m = PSSM.from_counts([[4, 2, 1, 1], [1, 1, 2, 4]], motif_id="m", name="n")
    >>> back = unpack(pack([m]), m.background, "f.jaspar")[0]
    >>> back.motif_id, back.source, np.array_equal(back.scores, m.scores), back.pseudocount == m.pseudocount
    ('m', 'f.jaspar', True, True)
    """
    size = struct.unpack_from("<q", value)[0]
    header = json.loads(bytes(value[8:8 + size]))
    body = np.frombuffer(value, "<f8", offset=8 + size).astype(np.float64)
    out, at = [], 0
    for motif_id, name, length, full, pseudocount, log_base, file_threshold in header:
        arrays = []
        for _ in range(3 if full else 1):
            arrays.append(body[at:at + 4 * length].reshape(length, 4))
            at += 4 * length
        counts, probabilities = (arrays[1], arrays[2]) if full else (None, None)
        out.append(PSSM(arrays[0], motif_id=motif_id, name=name, background=background, counts=counts,
                        probabilities=probabilities, pseudocount=pseudocount, log_base=log_base, source=source,
                        file_threshold=file_threshold))
    return out


def read_cached(key: bytes, background, source: str) -> "list | None":
    """The motifs stored under ``key``, None when they are not there (or the cache cannot be read)."""
    value = read_cache_values([key], table="motifs").get(key)
    if value is None:
        return None
    try:
        return unpack(value, background, source)
    except (ValueError, struct.error, TypeError):
        return None                     # a damaged entry: read the file as without a cache


def write_cached(key: bytes, motifs) -> None:
    """Store ``motifs`` under ``key`` (kept if it is there already; nothing if the cache cannot be
    written)."""
    write_cache_values({key: pack(motifs)}, table="motifs")
