"""A first run's kernels compiled on a second core. When Numba's cache on disk is empty (the first run
after installing), a scan compiles two chains of kernels one after the other: the exact threshold
search, then the scan, P-value and writing kernels, about half each (27 s on the 2-core machine for
``bioaccel scan jaspar:MA0066.1`` over the SARS-CoV-2 genome). Numba compiles on one thread of a process
at a time, so while this process compiles the first chain, a child process (:func:`start`) compiles the
second into the same cache, by scanning a few letters with the same motifs and options: each motif's
best word on both strands, at each motif's best score (so no threshold search), written to nowhere. When
this process comes to those kernels it loads them from the cache; where the child is not done yet it
compiles them itself, as it would have anyway (the cache's files are written whole, then renamed).

Nothing of the child's reaches the output: its hits are written to the null device, and it reads and
writes no threshold or P-value cache. It is stopped when the scan ends (:meth:`Warming.stop`).
"""
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

import numpy as np

LETTERS = "ACGT"


def cold() -> bool:
    """Whether Numba's cache on disk lacks the scan's writer kernel (then it lacks the others too: a
    first run, a new version, or a cleared cache).

    >>> isinstance(cold(), bool)
    True
    """
    try:
        from ._write import format_rows

        return not os.path.exists(format_rows._cache._cache_file._index_path)
    except Exception:        # another Numba's layout: no warming, the run compiles as before
        return False


def best_words(motifs) -> str:
    """Each motif's best word and its reverse complement, one after the other (the text the child scans).

    >>> from bioaccel.motif import PSSM
    >>> best_words([PSSM(np.eye(4)[:3])])
    'ACGCGT'
    """
    words = []
    for m in motifs:
        word = "".join(LETTERS[int(i)] for i in np.argmax(m.scores, axis=1))
        words += [word, word[::-1].translate(str.maketrans(LETTERS, "TGCA"))]
    return "".join(words)


class Warming:
    """The child process compiling the scan's kernels (see the module's docstring)."""

    def __init__(self, process, folder):
        self.process = process
        self.folder = folder

    def stop(self) -> None:
        """End the child if it is still compiling (what it cached so far stays) and remove its files."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


#: The child's program: a process that runs only bioaccel's kernels, so Numba starts without SciPy and
#: cffi (:mod:`bioaccel.runtime.numba_start`: 0.2 s), as in the command itself.
CHILD = ("from bioaccel.runtime.numba_start import skip_numba_optionals; skip_numba_optionals(); "
         "from bioaccel.scan._warm import main; main()")


def start(motifs, *, fmt, text, strands, slice_length, backend, variant) -> "Warming | None":
    """A child process compiling the scan's kernels for ``motifs`` (PSSMs) and these options, when
    Numba's cache is cold and the machine has a second core; else None."""
    if backend != "cpu" or (os.cpu_count() or 1) < 2 or not motifs or not cold():
        return None
    folder = None
    try:         # a warming that cannot start (no temporary folder, no interpreter to run) is skipped
        folder = tempfile.mkdtemp(prefix="bioaccel-warm-")
        with open(os.path.join(folder, "job.pickle"), "wb") as handle:
            pickle.dump((list(motifs), dict(fmt=fmt, text=text, strands=strands, slice_length=slice_length,
                                             variant=variant)), handle)
        process = subprocess.Popen([sys.executable, "-c", CHILD, folder],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=os.environ.copy())
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        return None
    return Warming(process, folder)


def main() -> None:
    """The child: scan each motif's best words at its best score, every hit written to the null device."""
    from ._run import run_setup
    from ._setup import prepare

    folder = sys.argv[1]
    with open(os.path.join(folder, "job.pickle"), "rb") as handle:
        motifs, options = pickle.load(handle)
    fasta = os.path.join(folder, "best.fa")
    with open(fasta, "w") as handle:
        handle.write(">best\n" + best_words(motifs) + "\n")
    setup = prepare(motifs, threshold=[m.max_score for m in motifs], strands=options["strands"],
                    slice_length=options["slice_length"], cache=False)
    with open(os.devnull, "w") as out:
        run_setup(out, setup, fasta, fmt=options["fmt"], text=options["text"], backend="cpu",
                  variant=options["variant"])
