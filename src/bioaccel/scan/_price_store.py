"""The hits' P-values kept on disk, beside the thresholds (table ``pvalues`` of the threshold cache,
:func:`bioaccel.motif.cache_path`): a second scan of the same motifs over the same sequences asks the
same questions and reads their answers instead of searching again (over the SARS-CoV-2 genome with all
2,346 JASPAR 2024 CORE matrices, the searches were 4 of the 6 seconds of a second scan on 2 cores).

A question is one search of :func:`._pvalues.tails_of`: a score distribution (the motif's integer grid
on one strand, its background) and the sorted grid values asked about together. Its key is a SHA-256 of
everything the answer depends on: this store's format version, the search's budget (node cap, grid
bound's cells, the leaf rule's ratio, the words cap), the grid (bits, tie tolerance, units), the
background's chain (:func:`bioaccel.motif.background_digest`) and every value asked. The values asked
are in the key, not looked up one by one, because which values are asked together decides, for the
long matrices over the budget, whether the answers are exact or bounds: a stored answer is then the
very answer the search would give, bit for bit. A value is ``exact`` (1 byte), the gap (float64) and
the tails (float64 each), little-endian.

Concurrent runs rely on sqlite's locking (:mod:`bioaccel.motif` keeps the database); a cache that cannot
be read or written is skipped and the searches run as without it.
"""
import hashlib
import struct

import numpy as np

from ..motif import background_digest, read_cache_values, write_cache_values
from . import _pvalues

FORMAT_VERSION = 1      # bump when the search changes what an answer is
HEAD = struct.Struct("<?d")


def _version() -> bytes:
    return (f"bioaccel-pvalue-cache {FORMAT_VERSION} node_cap={_pvalues.NODE_CAP} cells={_pvalues.BOUND_CELLS} "
            f"merge={_pvalues.MERGE_RATIO} words_cap={_pvalues.WORDS_CAP!r}").encode()


def encode(tails, exact, gap) -> bytes:
    """A stored answer.

    >>> tails, exact, gap = decode(encode(np.array([0.5, 0.25]), True, 0.0), 2)
    >>> tails.tolist(), exact, gap
    ([0.5, 0.25], True, 0.0)
    """
    return HEAD.pack(bool(exact), float(gap)) + np.asarray(tails, dtype="<f8").tobytes()


def decode(value, size):
    """(tails, exact, gap) of a stored answer of ``size`` values; None if it is not one."""
    value = bytes(value)
    if len(value) != HEAD.size + 8 * size:
        return None
    exact, gap = HEAD.unpack_from(value)
    return np.frombuffer(value, dtype="<f8", offset=HEAD.size).astype(np.float64), bool(exact), float(gap)


class PriceStore:
    """The keys and stored answers of a scan's score distributions (``dists``: (Grid, Background) pairs).

    >>> from bioaccel.motif import PSSM, Grid
    >>> pssm = PSSM(np.eye(4)[:2])
    >>> store = PriceStore([(Grid.of(pssm), pssm.background)])
    >>> store.key(0, np.array([5, 9])) == store.key(0, np.array([5, 9])), store.key(0, np.array([5])) == store.key(0, np.array([9]))
    (True, False)
    """

    def __init__(self, dists):
        self.dists = dists
        self._heads = {}
        self._backgrounds = {}

    def _head(self, d):
        head = self._heads.get(d)
        if head is None:
            grid, background = self.dists[d]
            digest = self._backgrounds.get(id(background))
            if digest is None:
                digest = self._backgrounds[id(background)] = background_digest(background)
            head = hashlib.sha256(_version())
            head.update(struct.pack("<4q", grid.bits, grid.tol, *grid.units.shape))
            head.update(np.ascontiguousarray(grid.units, dtype="<i8").tobytes())
            head.update(digest)
            head = self._heads[d] = head.digest()
        return head

    def key(self, d, asked) -> bytes:
        """The key of distribution d's search of the values ``asked`` (ascending grid values)."""
        h = hashlib.sha256(self._head(d))
        h.update(struct.pack("<q", len(asked)))
        h.update(np.ascontiguousarray(asked, dtype="<i8").tobytes())
        return h.digest()

    def read(self, questions) -> dict:
        """{d: (tails, exact, gap)} of the ``questions`` {d: asked} found on disk."""
        keys = {d: self.key(d, asked) for d, asked in questions.items()}
        stored = read_cache_values(list(set(keys.values())))
        found = {}
        for d, key in keys.items():
            value = stored.get(key)
            answer = None if value is None else decode(value, len(questions[d]))
            if answer is not None:
                found[d] = answer
        return found

    def write(self, questions, answers) -> bool:
        """Keep ``answers`` {d: (tails, exact, gap)} of the ``questions`` {d: asked}."""
        return write_cache_values({self.key(d, questions[d]): encode(*answer) for d, answer in answers.items()})
