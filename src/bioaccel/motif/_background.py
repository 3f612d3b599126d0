"""Backgrounds: Markov chains of order k >= 0 over A, C, G, T (:class:`Background`).

``initial`` holds the probabilities of the first k letters (4**k entries, k-mer index
``sum(code_i * 4**(k-1-i))``) and ``transition[ctx, x]`` the probability of letter x after the k-mer
``ctx``. Order 0 is the iid model: ``initial == [1.0]`` and ``transition`` is one row of letter
frequencies. Log-odds use the background's single-letter frequencies (its ``letter_frequencies``);
P-values use the whole chain. Backgrounds are given as presets, four frequencies, or estimated from a
FASTA file (:meth:`Background.parse`).
"""
from dataclasses import dataclass
import math
import re

import numpy as np

from ..errors import InvalidParameter

LETTERS = "ACGT"


@dataclass(frozen=True)
class Background:
    """A Markov chain of order ``order`` over A, C, G, T (order 0: independent letters).

    >>> Background.uniform().order, Background.from_frequencies([2, 1, 1, 2]).letter_frequencies.tolist()[0]
    (0, 0.3333333333333333)
    """

    initial: np.ndarray          # (4**order,) probabilities of the first ``order`` letters
    transition: np.ndarray       # (4**order, 4) probability of the next letter given the last ``order``
    description: str = "uniform"

    @property
    def order(self) -> int:
        """The chain's order k (the letters a letter depends on)."""
        return int(round(math.log(len(self.initial), 4))) if len(self.initial) > 1 else 0

    @property
    def letter_frequencies(self) -> np.ndarray:
        """Single-letter frequencies: the chain's distribution one step after its initial k-mer."""
        if self.order == 0:
            return self.transition[0].copy()
        return self.initial @ self.transition

    def to_dict(self) -> dict:
        """Order, description and letter frequencies (and the chain, for order > 0) as plain values."""
        out = {"order": self.order, "description": self.description,
               "frequencies": dict(zip(LETTERS, map(float, self.letter_frequencies)))}
        if self.order:
            out["initial"] = self.initial.tolist()
            out["transition"] = self.transition.tolist()
        return out

    @staticmethod
    def uniform() -> "Background":
        """Every letter 1/4, independently."""
        return Background(np.ones(1), np.full((1, 4), 0.25), "uniform")

    @staticmethod
    def from_frequencies(freqs, description=None) -> "Background":
        """``freqs``: 4 numbers (A, C, G, T) or a dict by letter; normalised to sum 1.

        >>> Background.from_frequencies({"A": 3, "C": 2, "G": 2, "T": 3}).letter_frequencies.tolist()
        [0.3, 0.2, 0.2, 0.3]
        >>> Background.from_frequencies([0, 0, 0, 1])
        Traceback (most recent call last):
        ...
        bioaccel.errors.InvalidParameter: background: the frequency of A must be a positive finite number, got 0
        """
        if isinstance(freqs, dict):
            letters = {str(k).upper().replace("U", "T"): v for k, v in freqs.items()}
            unknown = [k for k in letters if k not in LETTERS]
            if unknown:
                raise InvalidParameter(f"background: unknown letter {unknown[0]!r}; expected A, C, G and T")
            missing = [k for k in LETTERS if k not in letters]
            if missing:
                raise InvalidParameter(f"background: no frequency for letter {missing[0]}")
            freqs = [letters[k] for k in LETTERS]
        try:
            f = np.asarray(freqs, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise InvalidParameter(f"background: expected 4 numbers (A, C, G, T), got {freqs!r}") from None
        if f.size != 4:
            raise InvalidParameter(f"background: expected 4 frequencies (A, C, G, T), got {f.size}")
        for letter, value in zip(LETTERS, f):
            if not (np.isfinite(value) and value > 0):
                raise InvalidParameter(f"background: the frequency of {letter} must be a positive finite number, "
                                       f"got {_shown(value)}")
        with np.errstate(over="ignore"):
            total = f.sum()
        if not np.isfinite(total):
            raise InvalidParameter("background: the frequencies are too large to add up")
        f = f / total
        desc = description or "frequencies " + ",".join(f"{v:.4g}" for v in f)
        return Background(np.ones(1), f.reshape(1, 4), desc)

    @staticmethod
    def markov(initial, transition, description="Markov") -> "Background":
        """An order-k chain from its 4**k initial probabilities and (4**k, 4) transitions (normalised).

        >>> Background.markov(np.full(4, 0.25), np.full((4, 4), 1.0)).order
        1
        """
        initial = np.asarray(initial, dtype=np.float64).ravel()
        transition = np.asarray(transition, dtype=np.float64)
        k = int(round(math.log(len(initial), 4))) if len(initial) > 1 else 0
        if 4 ** k != len(initial) or transition.shape != (4 ** k, 4):
            raise InvalidParameter(
                f"background: a Markov chain of order k needs 4**k initial probabilities and a "
                f"(4**k, 4) transition table, got {initial.shape} and {transition.shape}")
        if np.any(initial < 0) or np.any(transition <= 0):
            raise InvalidParameter("background: probabilities must be positive")
        return Background(initial / initial.sum(), transition / transition.sum(axis=1, keepdims=True),
                          description)

    @staticmethod
    def from_fasta(path, order=0, pseudocount=1.0, name=None) -> "Background":
        """Estimate an order-``order`` chain from the A, C, G, T letters of a FASTA file (its description
        names ``name``, default ``path``).

        Counts (k+1)-mers within each record (windows holding another letter are skipped), adds
        ``pseudocount`` to every count, and takes the k-mer frequencies as the initial distribution.

        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
        ...     _ = f.write(">s\\nAACG\\n")
        >>> Background.from_fasta(f.name).letter_frequencies.tolist()    # A 2+1, C 1+1, G 1+1, T 0+1
        [0.375, 0.25, 0.25, 0.125]
        """
        from ..inputs.fasta import read_fasta

        if order < 0 or order > 5:
            raise InvalidParameter(f"background order must be between 0 and 5, got {order}")
        k = order
        counts = np.zeros(4 ** (k + 1), dtype=np.float64)
        kmer_counts = np.zeros(4 ** k, dtype=np.float64)
        for rec in read_fasta(path):
            codes = rec.codes.astype(np.int64)
            n = codes.size
            if n < k + 1:
                continue
            valid = codes < 4
            win = n - k
            ok = np.ones(win, dtype=bool)
            index = np.zeros(win, dtype=np.int64)
            for j in range(k + 1):
                ok &= valid[j:j + win]
                index = index * 4 + np.where(valid[j:j + win], codes[j:j + win], 0)
            counts += np.bincount(index[ok], minlength=4 ** (k + 1))
            if k:
                kmer_counts += np.bincount(index[ok] // 4, minlength=4 ** k)
        if counts.sum() == 0:
            raise InvalidParameter(f"{path}: no window of {k + 1} A/C/G/T letters to estimate a background from")
        table = (counts + pseudocount).reshape(4 ** k, 4)
        desc = f"{path if name is None else name} (order {k})"
        if k == 0:
            return Background.from_frequencies(table[0], desc)
        return Background.markov(kmer_counts + pseudocount, table, desc)

    @staticmethod
    def parse(spec, order=0) -> "Background":
        """Read ``--background``: ``uniform``, four frequencies ``0.3,0.2,0.2,0.3`` (or
        ``A=0.3,C=0.2,...``), or a FASTA file to estimate an order-``order`` chain from; a Background
        is returned as it is. Only a FASTA file gives a chain of order > 0.

        >>> Background.parse("A=0.3,C=0.2,G=0.2,T=0.3").description
        'frequencies 0.3,0.2,0.2,0.3'
        >>> Background.parse("0.3,0.2,0.2")
        Traceback (most recent call last):
        ...
        bioaccel.errors.InvalidParameter: background '0.3,0.2,0.2': expected 4 frequencies (A,C,G,T), got 3
        """
        import os

        if isinstance(spec, Background):
            return spec
        if spec is None or str(spec).strip().lower() == "uniform":
            if order:
                raise InvalidParameter(f"background order {order} needs a FASTA file to estimate the chain from; "
                                       "a uniform background is of order 0")
            return Background.uniform()
        text = os.fspath(spec) if hasattr(spec, "__fspath__") else str(spec)
        if not text.strip():
            raise InvalidParameter("background is empty; expected 'uniform', four frequencies A,C,G,T or a "
                                   "FASTA file")
        if text != "-" and not os.path.exists(text) and _looks_like_frequencies(text):
            if order:
                raise InvalidParameter(f"background order {order} needs a FASTA file to estimate the chain from; "
                                       f"frequencies ({text}) give an order-0 background")
            values = _parse_frequencies(text)
            _check_proportions(text, values)
            return Background.from_frequencies(values)
        with _regular(text) as path:            # a pipe or standard input: read once, into a file
            meme = _meme_background_file(path)
            if meme is not None:                # MEME's background file (FIMO's --bfile): its letter frequencies
                if order:
                    raise InvalidParameter(f"background order {order} needs a FASTA file; {text} is a MEME "
                                           "background file, read for its letter frequencies (order 0)")
                return Background.from_frequencies(meme, f"MEME background file {text}")
            return Background.from_fasta(path, order=order, name=text)


def _regular(path):
    """A context giving a path that can be read twice: ``path`` itself when it is a regular file (or
    missing: the reader names it), else (standard input, a named pipe such as ``<(cat bg.txt)``) a
    temporary file holding its bytes, copied once in blocks and removed afterwards; messages about it
    name ``path``."""
    import contextlib
    import os
    import shutil
    import sys
    import tempfile

    from ..errors import BioaccelError
    from ..inputs.files import display_name, is_regular_file

    @contextlib.contextmanager
    def copied():
        if path != "-" and (is_regular_file(path) or not os.path.exists(path) or os.path.isdir(path)):
            yield path
            return
        handle, copy = tempfile.mkstemp(prefix="bioaccel-background-")
        try:
            with os.fdopen(handle, "wb") as out:
                if path == "-":
                    shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
                else:
                    with open(path, "rb") as source:
                        shutil.copyfileobj(source, out, 1 << 20)
            try:
                yield copy
            except BioaccelError as error:
                raise type(error)(str(error).replace(copy, display_name(path))) from None
        finally:
            os.unlink(copy)

    return copied()


_MEME_ENTRY = re.compile(r"^([ACGTUacgtu]+)\s+([0-9.eE+-]+)\s*$")


def _meme_background_file(path) -> "dict | None":
    """The letter frequencies of a MEME background file (``#`` comments, then ``WORD frequency`` lines,
    the single letters the order-0 part; FIMO's ``--bfile``), or None when ``path`` is no such file
    (a FASTA file, standard input, a pipe: those are read once, as sequences).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".bg", delete=False) as f:
    ...     _ = f.write("# order 0\\nA 3.0e-01\\nC 2.0e-01\\nG 2.0e-01\\nT 3.0e-01\\n# order 1\\nAA 0.09\\n")
    >>> _meme_background_file(f.name)
    {'A': 0.3, 'C': 0.2, 'G': 0.2, 'T': 0.3}
    """
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or os.path.getsize(path) > 1 << 20:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip() and not line.lstrip().startswith("#")]
    except OSError:
        return None
    entries = [_MEME_ENTRY.match(line) for line in lines]
    if not lines or not all(entries):
        return None
    letters = {m.group(1).upper().replace("U", "T"): float(m.group(2)) for m in entries if len(m.group(1)) == 1}
    return letters if set(letters) == set(LETTERS) else None


def _check_proportions(text, values) -> None:
    """Frequencies written as proportions (every one at most 1) must add up to 1, within the rounding of
    a written number: ``0.5,0.5,0.5,0.5`` is a slip, not a uniform background (counts such as
    ``30,20,20,30`` are read as counts).

    >>> _check_proportions("0.5,0.5,0.5,0.5", [0.5, 0.5, 0.5, 0.5])
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: background 0.5,0.5,0.5,0.5: frequencies must add up to 1, got 2 (or give counts, such as 30,20,20,30)
    """
    numbers = list(values.values()) if isinstance(values, dict) else list(values)
    try:
        numbers = [float(v) for v in numbers]
    except (TypeError, ValueError):
        return                                   # from_frequencies says what is wrong with them
    if len(numbers) == 4 and all(0 < v <= 1 for v in numbers) and abs(sum(numbers) - 1) > 1e-3:
        raise InvalidParameter(f"background {text}: frequencies must add up to 1, got {_shown(sum(numbers))} "
                               "(or give counts, such as 30,20,20,30)")


def _shown(value) -> str:
    """A number in a message: as ``format_number`` writes it (never a NumPy repr)."""
    from ..results.values import shown

    return shown(value)


def _looks_like_frequencies(text) -> bool:
    """Whether ``--background`` text is meant as frequencies rather than a file name."""
    import re

    return bool(re.fullmatch(r"[\s,;=0-9.eE+\-a-zA-Z]*", text)) and ("," in text or ";" in text or "=" in text
                                                                   or _number(text.strip()) is not None)


def _number(token):
    try:
        return float(token)
    except ValueError:
        return None


def _parse_frequencies(text):
    """``0.3,0.2,0.2,0.3`` or ``A=0.3,C=0.2,G=0.2,T=0.3`` as 4 numbers (A, C, G, T), each checked as the
    user wrote it."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    where = f"background {text!r}"
    if any("=" in p for p in parts):
        values = {}
        for part in parts:
            letter, _, number = part.partition("=")
            letter = letter.strip().upper().replace("U", "T")
            if letter not in LETTERS:
                raise InvalidParameter(f"{where}: unknown letter {part.partition('=')[0].strip()!r} in {part!r}; "
                                       "expected A, C, G and T")
            if letter in values:
                raise InvalidParameter(f"{where}: letter {letter} given twice")
            values[letter] = _frequency(where, letter, number.strip())
        missing = [k for k in LETTERS if k not in values]
        if missing:
            raise InvalidParameter(f"{where}: no frequency for letter {missing[0]}")
        return [values[k] for k in LETTERS]
    if len(parts) != 4:
        raise InvalidParameter(f"{where}: expected 4 frequencies (A,C,G,T), got {len(parts)}")
    return [_frequency(where, letter, part) for letter, part in zip(LETTERS, parts)]


def _frequency(where, letter, token):
    value = _number(token)
    if value is None:
        raise InvalidParameter(f"{where}: {token!r} (letter {letter}) is not a number")
    if not (math.isfinite(value) and value > 0):
        raise InvalidParameter(f"{where}: the frequency of {letter} must be a positive finite number, got {token}")
    return value
