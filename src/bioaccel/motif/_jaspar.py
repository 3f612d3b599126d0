"""The JASPAR database shipped inside the ``pyjaspar`` package (one SQLite file per release).

Specs (the release is a year; without one, DEFAULT_RELEASE, 2024, for IDs and collections alike):

* ``jaspar:MA0066.1``, ``jaspar:2024/MA0066.1``   one matrix, one version
* ``jaspar:MA0066``                              the latest version of that matrix
* ``jaspar:2024/CORE/vertebrates``               the latest version of every matrix of a collection and
                                                  taxonomic group (``jaspar:2024/CORE`` for all groups)

The SQLite file is read directly (one query per table rather than several per matrix, as
``pyjaspar.jaspardb.fetch_motifs`` does), which keeps loading all of JASPAR CORE well under a second.
"""
import os
import sqlite3

import numpy as np

from ..errors import InputError
from ._raw import RawMotif

#: The release a spec without a year reads (IDs and collections alike); ``jaspar:2026/MA0066.1`` picks
#: another one that pyjaspar ships.
DEFAULT_RELEASE = "2024"


def database_path(release=None):
    try:
        import pyjaspar
    except ImportError:
        raise InputError("jaspar: specs need the pyjaspar package (pip install pyjaspar)") from None
    name = f"JASPAR{release or DEFAULT_RELEASE}"
    if name not in pyjaspar.jaspar_releases:
        known = ", ".join(sorted(r.replace("JASPAR", "") for r in pyjaspar.jaspar_releases))
        raise InputError(f"jaspar: unknown release {release!r}; pyjaspar ships {known}")
    return os.path.join(os.path.dirname(pyjaspar.__file__), "data", pyjaspar.jaspar_releases[name]), name


def _matrices(conn, ids):
    """{internal id: (m, 4) counts} for the given internal ids."""
    rows = {}
    ids = list(ids)
    for start in range(0, len(ids), 900):           # SQLite's limit on bound parameters
        chunk = ids[start:start + 900]
        marks = ",".join("?" * len(chunk))
        for mid, letter, col, val in conn.execute(
                f"SELECT ID, row, col, val FROM MATRIX_DATA WHERE ID IN ({marks})", chunk):
            rows.setdefault(mid, []).append(("ACGT".index(letter.upper()), int(col), float(val)))
    out = {}
    for mid, cells in rows.items():
        m = max(c for _, c, _ in cells)
        mat = np.zeros((m, 4))
        for r, c, v in cells:
            mat[c - 1, r] = v
        out[mid] = mat
    return out


def fetch(spec):
    """The :class:`RawMotif` counts named by a ``jaspar:`` spec."""
    body = spec[len("jaspar:"):].strip().strip("/")
    parts = body.split("/") if body else []
    release = None
    if parts and parts[0].isdigit():
        release = parts.pop(0)
    if not parts:
        raise InputError(f"{spec}: expected jaspar:ID (MA0066.1), jaspar:YEAR/COLLECTION[/TAXON]")
    path, release_name = database_path(release or DEFAULT_RELEASE)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if parts[0].isalpha():                            # a collection, maybe a taxonomic group
            collection = parts[0].upper()
            taxon = parts[1].lower() if len(parts) > 1 else None
            found = conn.execute("SELECT ID, BASE_ID, VERSION, NAME FROM MATRIX WHERE COLLECTION = ?",
                                 (collection,)).fetchall()
            if not found:
                raise InputError(f"{spec}: no collection {collection} in {release_name}")
            latest = {}
            for mid, base, version, name in found:
                if base not in latest or version > latest[base][1]:
                    latest[base] = (mid, version, name)
            if taxon:
                groups = dict(conn.execute("SELECT ID, VAL FROM MATRIX_ANNOTATION WHERE TAG = 'tax_group'"))
                latest = {b: v for b, v in latest.items() if str(groups.get(v[0], "")).lower() == taxon}
                if not latest:
                    known = sorted({str(g).lower() for g in groups.values()})
                    raise InputError(f"{spec}: no matrix of taxonomic group {taxon!r} in {release_name} "
                                     f"{collection} (groups: {', '.join(known)})")
            chosen = sorted(latest.items())
        else:
            base, _, version = parts[0].upper().partition(".")
            found = conn.execute("SELECT ID, BASE_ID, VERSION, NAME FROM MATRIX WHERE BASE_ID = ?", (base,)).fetchall()
            if version:
                found = [f for f in found if str(f[2]) == version]
            if not found:
                raise InputError(f"{spec}: no matrix {parts[0]} in {release_name}")
            mid, base, version, name = max(found, key=lambda f: f[2])
            chosen = [(base, (mid, version, name))]
        mats = _matrices(conn, [v[0] for _, v in chosen])
    finally:
        conn.close()
    return [RawMotif(f"{base}.{version}", name, mats[mid], "counts", source=f"{release_name}")
            for base, (mid, version, name) in chosen]
