"""Reading motifs: JASPAR (.jaspar, .pfm), MEME minimal format, TRANSFAC, HOMER, plain count /
frequency / log-odds matrices, and the JASPAR database shipped in pyjaspar (``jaspar:...``).

Biopython's ``Bio.motifs`` parses JASPAR, MEME, TRANSFAC and HOMER files; a light line-by-line check
runs first so that a malformed file is reported on one line naming the file and the 1-based line
(Biopython's own errors rarely say where). Plain matrices are read here: 4 rows (optionally headed
by the letter, ``A [ ... ]`` or ``A: ...``) or 4 columns, one motif per file; ``kind`` is detected
(rows summing to 1: frequencies; otherwise counts) unless given; a log-odds matrix must be named so
(``kind="logodds"``): a negative number in a matrix read with ``kind="auto"`` is an error, never a
silent switch to log-odds.
"""
import io
import math
import os
import re
from collections.abc import Iterator  # noqa: F401  (in string annotations)

import numpy as np

from ..inputs.files import display_name, read_text
from ..errors import InputError, InvalidParameter
from ._checks import NUM_RE, check_homer, check_jaspar, check_numeric_row, check_transfac, fail
from ._params import MotifParams
from ._pssm import PSSM
from ._raw import RawMotif

FORMATS = ("auto", "jaspar", "pfm", "meme", "transfac", "homer", "matrix")
KINDS = ("auto", "counts", "frequencies", "logodds")
_EXTENSIONS = {".jaspar": "jaspar", ".pfm": "pfm", ".meme": "meme", ".transfac": "transfac",
               ".dat": "transfac", ".motif": "homer", ".motifs": "homer", ".homer": "homer"}
_U_ROW = re.compile(r"^(\s*)[Uu](?=\s*[\[:]|\s)", re.MULTILINE)


def _read_text(path):
    """The text of ``path`` (plain, gzip, bzip2 or xz; ``-``: standard input), which must be UTF-8."""
    text = read_text(path, expected="a motif file")       # Latin-1: one character per byte
    raw = text.encode("latin-1")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(f"{display_name(path)}: line {line}: not a text file (byte {raw[exc.start]:#x})") from None


_COMPRESSED = (".gz", ".bgz", ".bz2", ".xz")


def detect_format(path, text) -> str:
    """The format of a motif file: from its extension (under a compression suffix), else its content.

    >>> detect_format("x.txt", "MEME version 5\\n"), detect_format("m.jaspar.gz", "")
    ('meme', 'jaspar')
    """
    path = str(path)
    stem = next((path[:-len(ext)] for ext in _COMPRESSED if path.lower().endswith(ext)), path)
    ext = os.path.splitext(stem)[1].lower()
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if not lines:
        raise InputError(f"{path}: empty file, expected a motif")
    first = lines[0]
    if first.startswith("MEME version"):
        return "meme"
    if re.match(r"^(AC|ID|NA|P0|PO|DE|BF|XX|//)(\s|$)", first):
        return "transfac"
    if first.startswith(">"):
        second = lines[1] if len(lines) > 1 else ""
        return "jaspar" if re.match(r"^[ACGTU]\s*[:\[]?\s*\[?", second) and second[0] in "ACGTU" else "homer"
    return "matrix"


def _read_meme(path, text, kind):
    """The motifs of a MEME (minimal) file, read here rather than by Biopython, which rounds each
    probability times nsites to a whole count: frequencies are kept to every digit, with their nsites.
    Every matrix must hold exactly ``w`` rows of 4 probabilities."""
    lines = text.splitlines()
    if not any(ln.startswith("MEME version") for ln in lines):
        fail(path, 1, "not a MEME file (no 'MEME version' line)")
    out = []
    ident = name = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("MOTIF"):
            fields = line.split()
            if len(fields) < 2:
                fail(path, i + 1, "MOTIF line without an identifier")
            ident, name = fields[1], " ".join(fields[2:])
        elif "letter-probability matrix" in line:
            if ident is None:
                fail(path, i + 1, "letter-probability matrix before any MOTIF line")
            found = re.search(r"w=\s*(\S+)", line)
            if not found:
                fail(path, i + 1, "letter-probability matrix without 'w='")
            if not re.fullmatch(r"\d+", found.group(1)) or int(found.group(1)) < 1:
                fail(path, i + 1, f"w= {found.group(1)}: expected the number of matrix rows, a whole number >= 1")
            width = int(found.group(1))
            alen = re.search(r"alength=\s*(\S+)", line)
            if alen and alen.group(1) != "4":
                fail(path, i + 1, f"alength= {alen.group(1)}: only DNA/RNA motifs (4 letters) are read")
            nsites = None
            sites = re.search(r"nsites=\s*(\S+)", line)
            if sites:
                try:
                    nsites = float(sites.group(1))
                except ValueError:
                    fail(path, i + 1, f"nsites= {sites.group(1)} is not a number")
                if not (nsites > 0 and np.isfinite(nsites)):
                    fail(path, i + 1, f"nsites= {sites.group(1)}: expected a number of sites > 0")
            rows = []
            j = i + 1
            while j < len(lines) and lines[j].strip() and NUM_RE.match(lines[j].strip()):
                values = check_numeric_row(path, j + 1, lines[j], expect=4)
                if any(v < 0 for v in values):
                    fail(path, j + 1, "negative probability")
                rows.append(values)
                j += 1
            if len(rows) != width:
                fail(path, i + 1, f"w= {width} but the matrix has {len(rows)} rows")
            out.append(RawMotif(ident, name, np.array(rows), "frequencies" if kind == "auto" else kind,
                                nsites=nsites, source=path))
            i = j
            continue
        i += 1
    if not out:
        raise InputError(f"{path}: no MOTIF with a letter-probability matrix found")
    return out


# --------------------------------------------------------------------------------------- readers

def _biopython(path, text, fmt):
    from Bio import motifs

    try:
        return list(motifs.parse(io.StringIO(text), fmt))
    except Exception as exc:  # the check above should have caught it; say so on one line anyway
        raise InputError(f"{path}: malformed {fmt} file ({exc.__class__.__name__}: {exc})") from None


def _counts_array(motif):
    # a row per letter, then transposed: Biopython's matrix answers cell by cell in Python (0.37 s of the
    # 0.84 s that reading the 2,346 JASPAR 2024 CORE matrices took)
    counts = motif.counts
    return np.array([list(counts[letter]) for letter in "ACGT"], dtype=np.float64).T.copy()


def _number_text(value):
    from ..results.values import format_number

    return format_number(value)


def _detect_kind(values):
    if np.any(values < 0):
        return "logodds"
    sums = values.sum(axis=1)
    if np.allclose(sums, 1.0, atol=0.02):
        return "frequencies"
    return "counts"


def _read_matrix(path, text, kind):
    rows, labels = [], []
    for i, line in enumerate(text.splitlines()):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith(">"):
            continue
        label = None
        m = re.match(r"^([ACGTUacgtu])\s*[:\[|]?", s)
        if m and not NUM_RE.match(s):
            label = m.group(1).upper().replace("U", "T")
            s = s[m.end():]
        rows.append(check_numeric_row(path, i + 1, s))
        labels.append((label, i + 1))
    if not rows:
        raise InputError(f"{path}: no matrix rows found")
    widths = {len(r) for r in rows}
    if len(rows) == 4 and len(widths) == 1 and (rows[0] and len(rows[0]) != 4 or labels[0][0]):
        values = np.array(rows).T                       # 4 rows: A, C, G, T
        if labels[0][0] and [lab for lab, _ in labels] != list("ACGT"):
            fail(path, labels[0][1], "rows must be labelled A, C, G, T in this order")
    else:
        for r, (_lab, lineno) in zip(rows, labels):
            if len(r) != 4:
                fail(path, lineno, f"expected 4 numbers (A C G T) per row, found {len(r)}")
        values = np.array(rows)
    if kind == "auto" and np.any(values < 0):
        row, col = (int(x) for x in np.argwhere(values < 0)[0])
        raise InputError(f"{path}: negative number {_number_text(values[row, col])} (position {row + 1}, letter "
                         f"{'ACGT'[col]}) in a matrix read as counts or frequencies; if it holds log-odds scores, "
                         "pass --kind logodds")
    k = _detect_kind(values) if kind == "auto" else kind
    if k != "logodds" and np.any(values < 0):
        raise InputError(f"{path}: negative values in a {k} matrix")
    name = "stdin" if path == display_name("-") else os.path.splitext(os.path.basename(path))[0]
    header = next((ln[1:].split() for ln in text.splitlines() if ln.startswith(">")), None)
    motif_id = header[0] if header else name
    return [RawMotif(motif_id, " ".join(header[1:]) if header else "", values, k, source=path)]


def read_raw(path, fmt: str = "auto", kind: str = "auto") -> "list[RawMotif]":
    """The matrices in ``path`` as :class:`RawMotif` objects (``fmt``: one of FORMATS, ``kind``: one
    of KINDS; "auto" detects them).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("A 1 2\\nC 0 0\\nG 0 0\\nT 1 0\\n")
    >>> [(r.kind, r.values.shape) for r in read_raw(f.name)]
    [('counts', (2, 4))]
    """
    _check_format(fmt, kind)
    return _raw_of_text(display_name(path), _read_text(path), fmt, kind)


def _check_format(fmt, kind) -> None:
    """An error naming ``fmt`` or ``kind`` when it is not one of FORMATS or KINDS."""
    if fmt not in FORMATS:
        raise InvalidParameter(f"unknown motif format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if kind not in KINDS:
        raise InvalidParameter(f"unknown matrix kind {kind!r}; expected one of {', '.join(KINDS)}")


def _raw_of_text(path, text, fmt, kind):
    """:func:`read_raw` of the text of the file named ``path`` (its display name)."""
    if not text.strip():
        raise InputError(f"{path}: empty file, expected a motif")
    fmt = detect_format(path, text) if fmt == "auto" else fmt
    if fmt == "jaspar":
        check_jaspar(path, text)
        text = _U_ROW.sub(r"\1T", text)                 # an RNA matrix: its U row is the T row
        out = []
        for m in _biopython(path, text, "jaspar"):
            out.append(RawMotif(m.matrix_id or m.name, m.name if m.matrix_id else "", _counts_array(m),
                                "counts" if kind == "auto" else kind, source=path))
        return out
    if fmt == "meme":
        return _read_meme(path, text, kind)
    if fmt == "transfac":
        check_transfac(path, text)
        out = []
        for m in _biopython(path, text, "TRANSFAC"):
            values = _counts_array(m)
            ident = m.get("AC") or m.get("ID") or "motif"
            out.append(RawMotif(ident, m.get("ID", "") if m.get("AC") else "", values,
                                _detect_kind(values) if kind == "auto" else kind, source=path))
        return out
    if fmt == "homer":
        check_homer(path, text)
        out = []
        for m in _biopython(path, text, "pfm-four-columns"):
            fields = m.name.split("\t")
            ident = fields[1] if len(fields) > 1 and fields[1] else fields[0]
            out.append(RawMotif(ident, fields[0] if len(fields) > 1 else "", _counts_array(m),
                                "frequencies" if kind == "auto" else kind, source=path,
                                threshold=_homer_threshold(fields)))
        return out
    return _read_matrix(path, text, kind)          # pfm and plain matrices


def _homer_threshold(fields):
    """A HOMER header's third column, its log-odds detection threshold (None when absent or not a
    finite number)."""
    try:
        value = float(fields[2]) if len(fields) > 2 else math.nan
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_raw_spec(spec, fmt: str = "auto", kind: str = "auto") -> "list[RawMotif]":
    """The matrices named by ``spec``, unscored: a ``jaspar:`` spec or a file (see :func:`read_raw`).

    >>> [r.motif_id for r in read_raw_spec("jaspar:MA0004.1")]
    ['MA0004.1']
    """
    spec = os.fspath(spec)
    if spec.startswith("jaspar:"):
        from ._jaspar import fetch

        return fetch(spec)
    return read_raw(spec, fmt=fmt, kind=kind)


def _checked_params(params) -> MotifParams:
    params = MotifParams() if params is None else params
    if not isinstance(params, MotifParams):
        raise InvalidParameter(f"params must be a MotifParams, got {type(params).__name__}")
    return params


def read_motifs(spec, *, params: "MotifParams | None" = None, fmt: str = "auto", kind: str = "auto",
                cache: bool = False) -> "list[PSSM]":
    """The PSSMs named by ``spec``, scored under ``params`` (a :class:`MotifParams`; default: uniform
    background, FIMO's pseudocount and bits). ``spec``: a file (plain or compressed, possibly holding
    many motifs; ``-``: standard input), a ``jaspar:`` spec (``jaspar:MA0066.1``, ``jaspar:MA0066``,
    ``jaspar:2024/CORE/vertebrates``; see ``_jaspar``), a :class:`PSSM` (kept as it is), or an iterable
    of them, read in order (:func:`iter_motifs` reads them as they are used). With ``cache``, a file's
    scored motifs are kept on disk, keyed by its text (``_motif_cache``): a second read is a look-up.

    >>> [m.motif_id for m in read_motifs("jaspar:MA0004.1", params=MotifParams(preset="moods"))]
    ['MA0004.1']
    """
    return list(iter_motifs(spec, params=params, fmt=fmt, kind=kind, cache=cache))


def iter_motifs(motifs, *, params: "MotifParams | None" = None, fmt: str = "auto",
                kind: str = "auto", cache: bool = False) -> "Iterator[PSSM]":
    """The PSSMs of one motif or many, in order, each spec read when the motifs before it are used:
    ``motifs`` is what :func:`read_motifs` takes (a PSSM, a file, a ``jaspar:`` spec, or an iterable
    of them); ``params`` is checked here, before any motif is read.

    >>> motifs = iter_motifs([PSSM(np.eye(4)[:2], motif_id="a"), "jaspar:MA0004.1"])
    >>> next(motifs).motif_id, next(motifs).motif_id
    ('a', 'MA0004.1')
    """
    return _each_motif(motifs, _checked_params(params), fmt, kind, cache)


def _each_motif(spec, params, fmt, kind, cache):
    if isinstance(spec, PSSM):
        yield spec
        return
    if not isinstance(spec, (str, os.PathLike)):
        for item in spec:
            yield from _each_motif(item, params, fmt, kind, cache)
        return
    spec = os.fspath(spec)
    if spec.startswith("jaspar:"):
        from ._jaspar import fetch

        raws = fetch(spec)
    elif cache:
        yield from _cached_file(spec, params, fmt, kind)
        return
    else:
        raws = read_raw(spec, fmt=fmt, kind=kind)
    for raw in raws:
        yield raw.to_pssm(params)


def _cached_file(path, params, fmt, kind) -> list:
    """The scored motifs of the file ``path``: from the cache when its text was scored so before."""
    from ._motif_cache import motif_key, read_cached, write_cached

    _check_format(fmt, kind)
    name, text = display_name(path), _read_text(path)
    scoring = params.scoring()
    key = motif_key(text, detect_format(name, text) if fmt == "auto" else fmt, kind, scoring)
    motifs = read_cached(key, scoring["background"], name)
    if motifs is None:
        motifs = [raw.to_pssm(params) for raw in _raw_of_text(name, text, fmt, kind)]
        write_cached(key, motifs)
    return motifs
