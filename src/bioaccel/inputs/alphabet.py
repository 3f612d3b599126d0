"""Nucleotide letters to small integer codes, shared by every algorithm.

Codes: A=0, C=1, G=2, U=3 (T is read as U), and 4 for every other IUPAC letter (N, R, Y, ...),
which pairs with nothing and scores nothing. Lower case is accepted. Anything else is an error that
names the record and the 1-based position.
"""
import numpy as np

from ..errors import InputError

A, C, G, U, OTHER = 0, 1, 2, 3, 4
LETTERS = "ACGU"
IUPAC_OTHER = "NRYKMSWBDHV"

_INVALID = 255
_CODE_OF_BYTE = np.full(256, _INVALID, dtype=np.uint8)
for _letter, _code in (("A", A), ("C", C), ("G", G), ("U", U), ("T", U)):
    _CODE_OF_BYTE[ord(_letter)] = _code
    _CODE_OF_BYTE[ord(_letter.lower())] = _code
for _letter in IUPAC_OTHER:
    _CODE_OF_BYTE[ord(_letter)] = OTHER
    _CODE_OF_BYTE[ord(_letter.lower())] = OTHER


_CODE_TABLE = _CODE_OF_BYTE.tobytes()


def _lookup(sequence):
    # bytes.translate (a C loop) rather than a NumPy gather over the bytes: 2-3x faster over a genome's
    # chunks, which a scan's reading thread encodes while holding the interpreter's lock
    raw = sequence.encode("ascii", errors="replace") if isinstance(sequence, str) else bytes(sequence)
    return raw, np.frombuffer(bytearray(raw.translate(_CODE_TABLE)), dtype=np.uint8)


def code_of_byte() -> np.ndarray:
    """The code of every byte value (uint8, 256 entries; 255 where the byte is no letter), for encoders
    elsewhere (a GPU look-up over raw bytes).

    >>> table = code_of_byte()
    >>> table[[ord("A"), ord("t"), ord("N"), ord("-")]].tolist()
    [0, 3, 4, 255]
    """
    return _CODE_OF_BYTE.copy()


def describe_letter(letter):
    """How an error message shows a letter: quoted when printable ASCII, else by its byte value.

    >>> describe_letter("X"), describe_letter("\xff")
    ("'X'", 'byte 0xff')
    """
    code = ord(letter)
    return repr(letter) if 32 < code < 127 else f"byte {code:#04x}"


def first_invalid(sequence):
    """0-based index of the first letter that is not a nucleotide or IUPAC code, or -1."""
    bad = np.flatnonzero(_lookup(sequence)[1] == _INVALID)
    return int(bad[0]) if bad.size else -1


def encode(sequence, *, where="sequence"):
    """Return the codes of ``sequence`` (str or bytes) as a uint8 array.

    ``where`` names the source in the error message, for example ``"genome.fa: record 'chr1'"``.
    """
    raw, codes = _lookup(sequence)
    bad = np.flatnonzero(codes == _INVALID)
    if bad.size:
        pos = int(bad[0])
        letter = sequence[pos] if isinstance(sequence, str) else chr(raw[pos])
        raise InputError(
            f"{where}: invalid character {describe_letter(letter)} at position {pos + 1} "
            f"(expected A, C, G, U/T or an IUPAC code)"
        )
    return codes


def lenient_codes(sequence):
    """The codes of any text (str, bytes, or an object whose ``str`` is the letters, such as Biopython's
    Seq): A, C, G, T/U in either case 0-3, and 4 for every other byte, IUPAC or not, where
    :func:`encode` would refuse one (Biopython's ``pssm.search`` takes any text and skips the windows
    holding other letters; non-ASCII letters read as 4 too).

    >>> lenient_codes("aCgTu N-\u00e9").tolist()
    [0, 1, 2, 3, 3, 4, 4, 4, 4]
    """
    if not isinstance(sequence, (str, bytes, bytearray, memoryview)):
        sequence = str(sequence)
    return np.minimum(_lookup(sequence)[1], OTHER)


def decode(codes):
    """Return the RNA string of ``codes`` (other IUPAC codes come back as N)."""
    return "".join("ACGUN"[c] for c in np.asarray(codes).tolist())

