"""Writing motif files: JASPAR (counts) and MEME minimal format (letter probabilities with nsites and
the background), from any matrix a reader found (:class:`RawMotif`): ``bioaccel motif export``.

Counts are written as they are; frequencies become counts times their ``nsites`` (20, MEME's default,
when the source gives none) for JASPAR, and stay frequencies for MEME. Numbers are written to every
digit (the shortest text that reads back to the same float), so a file read back gives the same
matrix. A log-odds matrix has neither counts nor frequencies and cannot be exported.

>>> import io
>>> from bioaccel.motif._raw import RawMotif
>>> out = io.StringIO()
>>> write_jaspar([RawMotif("M1", "one", [[4, 2, 1, 1], [0, 0, 8, 0]], "counts")], out)
>>> print(out.getvalue(), end="")
>M1 one
A [ 4 0 ]
C [ 2 0 ]
G [ 1 8 ]
T [ 1 0 ]
"""
import numpy as np

from ..results.values import format_number
from ..errors import InvalidParameter
from ._pssm import DEFAULT_NSITES, LETTERS, Background

FORMATS = ("jaspar", "meme")


def _exportable(raw):
    if raw.kind == "logodds":
        raise InvalidParameter(f"{raw.motif_id}: a log-odds matrix has no counts or frequencies to export")
    return np.asarray(raw.values, dtype=np.float64)


def _nsites(raw):
    """MEME's site count: the file's nsites, a count matrix's first column total (as jaspar2meme)."""
    if raw.kind == "counts":
        return float(raw.values[0].sum())
    return float(raw.nsites or DEFAULT_NSITES)


def write_jaspar(raws, handle):
    """Each matrix as a JASPAR count matrix (rows A, C, G, T)."""
    for raw in raws:
        values = _exportable(raw)
        if raw.kind == "frequencies":
            values = values * _nsites(raw)
        handle.write(f">{raw.motif_id}" + (f" {raw.name}" if raw.name else "") + "\n")
        for column, letter in enumerate(LETTERS):
            handle.write(f"{letter} [ " + " ".join(format_number(v) for v in values[:, column]) + " ]\n")


def write_meme(raws, handle, background=None):
    """A MEME minimal-format file: the header with ``background``'s letter frequencies (uniform by
    default), then each matrix as letter probabilities with its nsites."""
    background = Background.uniform() if background is None else background
    freqs = background.letter_frequencies
    handle.write("MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\n")
    handle.write(" ".join(f"{letter} {format_number(f)}" for letter, f in zip(LETTERS, freqs)) + "\n")
    for raw in raws:
        values = _exportable(raw)
        totals = values.sum(axis=1, keepdims=True)
        if np.any(totals <= 0):
            raise InvalidParameter(f"{raw.motif_id}: a column with no counts has no letter probabilities")
        probabilities = values / totals
        handle.write(f"\nMOTIF {raw.motif_id}" + (f" {raw.name}" if raw.name else "") + "\n")
        handle.write(f"letter-probability matrix: alength= 4 w= {len(values)} nsites= "
                     f"{format_number(_nsites(raw))} E= 0\n")
        for row in probabilities:
            handle.write(" ".join(format_number(v) for v in row) + "\n")


def write_motifs(raws, handle, fmt="jaspar", background=None):
    """Write ``raws`` (:class:`RawMotif`: what :func:`~bioaccel.motif.read_raw_spec` reads) in ``fmt``
    (one of FORMATS: ``jaspar`` counts or ``meme`` letter probabilities) to ``handle``; ``background``:
    the MEME header's letter frequencies.

    >>> import io
    >>> from bioaccel.motif import RawMotif
    >>> out = io.StringIO()
    >>> write_motifs([RawMotif("M1", "", [[4, 2, 1, 1]], "counts")], out, "meme")
    >>> out.getvalue().splitlines()[-2:]
    ['letter-probability matrix: alength= 4 w= 1 nsites= 8 E= 0', '0.5 0.25 0.125 0.125']
    """
    if fmt not in FORMATS:
        raise InvalidParameter(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    raws = list(raws)
    for raw in raws:
        _exportable(raw)                # before anything is written
    if fmt == "jaspar":
        write_jaspar(raws, handle)
    else:
        write_meme(raws, handle, background)
