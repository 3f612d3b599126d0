"""Numba's start-up without the optional packages bioaccel's kernels never use (the command line only).

On its first compile or cache load in a process, Numba's CPU target imports every implementation it
offers, and two of them look for optional packages:

- ``numba.np.arraymath`` imports ``scipy.linalg.cython_blas`` (``_HAVE_BLAS = _check_blas()``, at
  import) to learn whether ``np.dot`` and ``np.linalg`` can be compiled; SciPy's import clones NumPy's
  namespace, which loads ``numpy.f2py``: 0.15-0.2 s of a 0.75 s warm ``bioaccel fold`` on the 2-core
  machine. (``import numba`` itself imports ``scipy`` to check its version.)
- the typing context imports ``cffi`` (and pycparser, 0.04 s) to type cffi functions.

bioaccel's kernels use neither (no ``np.dot``, ``np.linalg`` or cffi inside a kernel). Numba has no
setting that skips these look-ups, and each is guarded by ``except ImportError``: where the package is
not installed Numba runs on without the feature. So the command line, a process that runs only
bioaccel's kernels, answers *Numba's own* imports of these packages with ImportError (a finder on
``sys.meta_path``, which Python consults before any other): Numba then starts as where they are not
installed. Nothing of Numba is patched, and the same packages imported from anywhere else (bioaccel, a
plug-in) load as usual. A library user's process is never touched: their own jitted code may use
``np.dot``.

:func:`start_cpu_target` does the rest of that first load's one-off work (Numba's CPU target made
ready: every implementation registered) at a moment the caller chooses: ``bioaccel interact --backend
gpu`` makes it while the CUDA context is created in another thread (a call that releases the GIL),
rather than after it, in the first pair.
"""
import sys

#: Optional packages Numba looks for at start-up that bioaccel's kernels never need.
UNUSED_BY_KERNELS = ("scipy", "cffi")


class NumbaOptionalsFinder:
    """A ``sys.meta_path`` finder that refuses Numba's own imports of :data:`UNUSED_BY_KERNELS` (and
    their submodules) and lets every other import through (it finds nothing itself).

    >>> finder = NumbaOptionalsFinder()
    >>> finder.find_spec("json") is None        # not one of them: the other finders look
    True
    >>> finder.find_spec("scipy.linalg") is None  # asked from here (a doctest), not from Numba
    True
    """

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        """None (the other finders look), or ModuleNotFoundError when Numba asks for a package of
        :data:`UNUSED_BY_KERNELS`."""
        if name.partition(".")[0] in UNUSED_BY_KERNELS and \
                _importer(sys._getframe(1)).partition(".")[0] == "numba":
            raise ModuleNotFoundError(f"{name} is not offered to Numba in bioaccel's command line", name=name)
        return None


def _importer(frame) -> str:
    """The module whose code runs the import under way at ``frame``: the first caller outside the import
    machinery (``importlib``'s frozen bootstrap and ``importlib.import_module``)."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not (name.startswith("importlib") or name.startswith("_frozen_importlib")
                or frame.f_code.co_filename.startswith("<frozen importlib")):
            return name
        frame = frame.f_back
    return ""


def skip_numba_optionals() -> bool:
    """Install :class:`NumbaOptionalsFinder` first on ``sys.meta_path`` (once) unless Numba has already
    started (then it is too late to matter); True when it is installed.

    Call it only in a process that runs nothing but bioaccel's kernels (the ``bioaccel`` executable).

    >>> import subprocess, sys
    >>> code = ("from bioaccel.runtime.numba_start import skip_numba_optionals as s; "
    ...         "print(s(), s())")
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    ['True', 'True']
    """
    if any(isinstance(finder, NumbaOptionalsFinder) for finder in sys.meta_path):
        return True
    if "numba" in sys.modules:
        return False
    sys.meta_path.insert(0, NumbaOptionalsFinder())
    return True


def start_cpu_target() -> float:
    """Make Numba's CPU target ready now (its implementations and typing registered: the one-off part
    of a process's first compile or cache load, 0.1-0.3 s), as that first load would, under Numba's
    compiler lock (a compile in another thread waits, as for any compile); the seconds it took (about
    0 when it was ready already).

    >>> import subprocess, sys
    >>> code = ("from bioaccel.runtime.numba_start import start_cpu_target as s; "
    ...         "first, again = s(), s(); print(first > again)")
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    ['True']
    """
    import time

    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    start = time.perf_counter()
    with global_compiler_lock:
        cpu_target.target_context.refresh()       # what Numba's cache load calls first (caching.Cache)
    return time.perf_counter() - start
