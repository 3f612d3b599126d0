"""The threshold cache on disk: the ``exact`` variant's thresholds (PVALUETOSCORE on the CPU) kept in one
sqlite3 database, so that a second run over the same motifs reads them instead of searching again (the
searches take 3.65 s of the 8.9 s scan of all 2,346 JASPAR 2024 CORE matrices on 2 cores).

Where (:func:`cache_path`): ``$BIOACCEL_CACHE_DIR/thresholds.sqlite3`` when that variable is set, else
under ``$XDG_CACHE_HOME/bioaccel`` or ``~/.cache/bioaccel``. Deleting the file empties the cache.

A key (:func:`threshold_key`) is a SHA-256 of everything the answer depends on: the cache's format
version and the search's work budget (``_exact``'s limits, which decide where an answer stops being
proven optimal), the motif's integer grid (its units matrix and bits: the pseudocounts, preset and log
base are in them), the background's chain (order, initial and transition probabilities), the P-value and
the precision asked. The motif's id is not in it: two motifs with one matrix share an entry. A value is
the :class:`Threshold`'s computed fields as JSON, whose floats are their ``repr`` and so come back bit for
bit: a cached answer is equal, field for field, to a computed one.

The cache never fails a run: a directory that cannot be made, a database that cannot be opened, read or
written (a read-only home, a full disk, a lock held past ``TIMEOUT`` seconds, a corrupt file) is skipped
silently, and the thresholds computed as without it. Concurrent runs rely on sqlite's locking (WAL
mode, a busy timeout); two runs that compute one entry compute it alike, so the second insert is ignored.
"""
import dataclasses
import hashlib
import json
import os
import sqlite3
import struct
from pathlib import Path

from . import _exact
from ._grid import chain, check_p
from ._result import Threshold

FORMAT_VERSION = 1       # bump when the search or the fields of Threshold change what an entry means
TIMEOUT = 10.0           # seconds a run waits for another run's write lock before it skips the cache
LOOKUP_BATCH = 500       # keys per query (older sqlite builds allow 999 bound parameters)
FILE_NAME = "thresholds.sqlite3"
#: the fields an entry stores; motif_id, p and precision come from the question
STORED = tuple(f.name for f in dataclasses.fields(Threshold) if f.name not in ("motif_id", "p", "precision"))
BUDGET = ("FIRST_CELLS", "MAX_CELLS", "LIST_TARGET", "LIST_CAP", "NODE_CAP", "SUFFIX_COLUMNS")


def cache_path(environ=os.environ) -> Path:
    """The database's path: ``$BIOACCEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/bioaccel``, else
    ``~/.cache/bioaccel``, then ``thresholds.sqlite3``.

    >>> str(cache_path({"BIOACCEL_CACHE_DIR": "/tmp/c"}))
    '/tmp/c/thresholds.sqlite3'
    >>> str(cache_path({"XDG_CACHE_HOME": "/var/cache/me"}))
    '/var/cache/me/bioaccel/thresholds.sqlite3'
    """
    if environ.get("BIOACCEL_CACHE_DIR"):
        return Path(environ["BIOACCEL_CACHE_DIR"]) / FILE_NAME
    base = Path(environ["XDG_CACHE_HOME"]) if environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "bioaccel" / FILE_NAME


def _version() -> bytes:
    budget = ",".join(f"{name}={getattr(_exact, name)}" for name in BUDGET)
    return f"bioaccel-threshold-cache {FORMAT_VERSION} {','.join(STORED)} {budget}".encode()


def background_digest(background) -> bytes:
    """A digest of a background's chain (order, initial and transition probabilities, as the search
    reads them).

    >>> from bioaccel.motif import Background
    >>> background_digest(Background.uniform()) == background_digest(Background.from_frequencies([1, 1, 1, 1]))
    True
    """
    initial, transition, order = chain(background)
    h = hashlib.sha256(struct.pack("<q", order))
    for table in (initial, transition):
        h.update(struct.pack("<2q", *table.reshape(len(table), -1).shape))
        h.update(table.astype("<f8").tobytes())
    return h.digest()


def threshold_key(grid, background, p, precision, version=None) -> bytes:
    """The key of the threshold of a motif (its :class:`~._exact.Grid`) under a background (its
    :func:`background_digest`) at P-value ``p`` and ``precision`` (None: exact).

    >>> from bioaccel.motif import PSSM, Background
    >>> import numpy as np
    >>> g, bg = _exact.Grid.of(PSSM(np.eye(4)[:2])), background_digest(Background.uniform())
    >>> len(threshold_key(g, bg, 0.1, None)), threshold_key(g, bg, 0.1, None) == threshold_key(g, bg, 0.2, None)
    (32, False)
    """
    h = hashlib.sha256(_version() if version is None else version)      # (given: made once for many keys)
    h.update(struct.pack("<3q", grid.bits, *grid.units.shape))
    h.update(grid.units.astype("<i8").tobytes())
    h.update(background)
    h.update(float(p).hex().encode())
    h.update(b"exact" if precision is None else float(precision).hex().encode())
    return h.digest()


#: the tables of the database: thresholds (JSON text values), the scan's hit P-values (blobs,
#: bioaccel.scan._price_store) and files' scored motifs (blobs, ._motif_cache)
TABLES = {"thresholds": "TEXT", "pvalues": "BLOB", "motifs": "BLOB"}


def _connect(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), timeout=TIMEOUT)
    try:
        db.execute("PRAGMA journal_mode=WAL")       # readers never wait for a writer
        for table, kind in TABLES.items():
            db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key BLOB PRIMARY KEY, value {kind} NOT NULL) "
                       "WITHOUT ROWID")
        db.commit()
    except sqlite3.OperationalError:
        pass                                        # read-only or locked: reads may still work
    return db


def read_cache_values(keys, table="pvalues", path=None) -> dict:
    """The stored values (as stored: bytes for ``pvalues``) of ``keys`` in ``table`` of the cache at
    ``path`` (default :func:`cache_path`); {} when the cache cannot be read. The store other wings use
    (the scan keeps its hits' P-values here), keyed by what they hash.

    >>> read_cache_values([b"k"], path=Path("/nonexistent/dir/x.sqlite3"))
    {}
    """
    found = {}
    if not keys or table not in TABLES:
        return found
    try:
        db = _connect(cache_path() if path is None else path)
        try:
            for start in range(0, len(keys), LOOKUP_BATCH):
                batch = keys[start:start + LOOKUP_BATCH]
                marks = ",".join("?" * len(batch))
                for key, value in db.execute(f"SELECT key, value FROM {table} WHERE key IN ({marks})", batch):
                    found[bytes(key)] = value
        finally:
            db.close()
    except (OSError, sqlite3.Error, ValueError):
        return {}
    return found


def write_cache_values(entries, table="pvalues", path=None) -> bool:
    """Store ``entries`` (key -> value) in ``table`` in one transaction (a key already there is kept:
    two runs computing one entry compute it alike); False when the cache cannot be written.

    >>> write_cache_values({b"k": b"v"}, path=Path("/dev/null/x.sqlite3"))
    False
    """
    if not entries or table not in TABLES:
        return not entries
    try:
        db = _connect(cache_path() if path is None else path)
        try:
            with db:
                db.executemany(f"INSERT OR IGNORE INTO {table} (key, value) VALUES (?, ?)", list(entries.items()))
        finally:
            db.close()
    except (OSError, sqlite3.Error):
        return False
    return True


def read_entries(path, keys) -> dict:
    """The stored values of ``keys`` (key -> the stored fields, a dict); {} when the cache cannot be read.

    >>> read_entries(Path("/nonexistent/dir/x.sqlite3"), [b"k"])
    {}
    """
    found = {}
    if not keys:
        return found
    try:
        db = _connect(path)
        try:
            for start in range(0, len(keys), LOOKUP_BATCH):
                batch = keys[start:start + LOOKUP_BATCH]
                marks = ",".join("?" * len(batch))
                for key, value in db.execute(f"SELECT key, value FROM thresholds WHERE key IN ({marks})", batch):
                    found[bytes(key)] = dict(zip(STORED, json.loads(value)))
        finally:
            db.close()
    except (OSError, sqlite3.Error, ValueError):
        return {}
    return found


def write_entries(path, entries) -> bool:
    """Store ``entries`` (key -> Threshold) in one transaction; False when the cache cannot be written.

    >>> write_entries(Path("/dev/null/x.sqlite3"), {b"k": Threshold("m", 0.1, 2.0, 0.0625, 0.0625, 0.0625, 1.0)})
    False
    """
    if not entries:
        return True
    rows = [(key, json.dumps([getattr(t, name) for name in STORED])) for key, t in entries.items()]
    try:
        db = _connect(path)
        try:
            with db:
                db.executemany("INSERT OR IGNORE INTO thresholds (key, value) VALUES (?, ?)", rows)
        finally:
            db.close()
    except (OSError, sqlite3.Error):
        return False
    return True


def cached_exact_thresholds(items, *, precision=None, on_answer=None) -> list:
    """:func:`~._exact.exact_thresholds` of the (pssm, p) ``items``, in order, each answer read from the
    cache where it is there and computed (then stored) where it is not: the same results either way.
    ``on_answer(pssm, searched)`` is called for each item as its answer is found (``searched`` False:
    read from the cache, first).

    >>> import numpy as np
    >>> from bioaccel.motif import PSSM
    >>> [t.score for t in cached_exact_thresholds([(PSSM(np.eye(4)[:2]), 0.1), (PSSM(np.eye(4)[:3]), 0.1)])]
    [2.0, 3.0]
    """
    items = [(m, check_p(p)) for m, p in items]
    backgrounds = {}
    keys = []
    version = _version()
    for m, p in items:
        bg = backgrounds.get(id(m.background))
        if bg is None:
            bg = backgrounds[id(m.background)] = background_digest(m.background)
        keys.append(threshold_key(_exact.Grid.of(m), bg, p, precision, version))
    path = cache_path()
    stored = read_entries(path, list(set(keys)))
    missing = [i for i, key in enumerate(keys) if key not in stored]
    if on_answer is not None:
        for (m, _), key in zip(items, keys):
            if key in stored:
                on_answer(m, False)
    computed = _exact.exact_thresholds([items[i] for i in missing], precision=precision,
                                       on_answer=on_answer) if missing else []
    write_entries(path, {keys[i]: t for i, t in zip(missing, computed)})
    out = [None] * len(items)
    for i, t in zip(missing, computed):
        out[i] = t
    for i, ((m, p), key) in enumerate(zip(items, keys)):
        if out[i] is None:
            out[i] = Threshold(motif_id=m.motif_id, p=p, precision=precision, **stored[key])
    return out
