"""Numba's cache on a disk that cannot take it: the command line runs on (the command line only).

A first run compiles the kernels and Numba writes them to its cache on disk (next to the package, or
``NUMBA_CACHE_DIR``). Where that write fails (a full disk, a quota, a file size limit), Numba raises
the ``OSError`` out of the compile (it forgives only Windows' sharing errors), so the run ended in a
traceback before its first record although the kernel was compiled and ready in memory. Here a failed
cache write is skipped, as for a cache folder Numba cannot create: the kernel runs from memory and the
next run compiles it again. Numba cleans up its own temporary file, and reads an index entry whose data
file is missing as a cache miss.

The patch is made when Numba's ``caching`` module is imported (a finder on ``sys.meta_path`` that loads
it as the other finders would, then wraps one method), so that a command that never uses Numba does
not import it; a library user's process is never touched.
"""
import sys

MODULE = "numba.core.caching"


def _tolerant(save_overload):
    def save_overload_or_skip(self, sig, data):
        try:
            save_overload(self, sig, data)
        except OSError:            # the compiled kernel is kept in memory; the next run compiles it again
            pass

    save_overload_or_skip.bioaccel_tolerant = True
    return save_overload_or_skip


def patch(module) -> None:
    """Make ``module`` (``numba.core.caching``)'s cache writes skip an ``OSError`` (once).

    >>> import types
    >>> class Cache:
    ...     def save_overload(self, sig, data):
    ...         raise OSError(28, "No space left on device")
    >>> patch(types.SimpleNamespace(Cache=Cache)); Cache().save_overload(None, None) is None
    True
    """
    if not getattr(module.Cache.save_overload, "bioaccel_tolerant", False):
        module.Cache.save_overload = _tolerant(module.Cache.save_overload)


class CacheWriteFinder:
    """A ``sys.meta_path`` finder that finds nothing itself: for :data:`MODULE` it asks the finders
    after it and has the module patched once it is loaded.

    >>> CacheWriteFinder().find_spec("json") is None
    True
    """

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        """The spec the other finders give :data:`MODULE`, its loader patching the module once run;
        None for any other name."""
        if name != MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                run = spec.loader.exec_module

                def exec_module(module, run=run):
                    run(module)
                    patch(module)

                spec.loader.exec_module = exec_module      # this module's loader object only
                return spec
        return None


def tolerate_cache_write_errors() -> None:
    """Have Numba's failed cache writes skipped in this process (the ``bioaccel`` executable): at once
    where Numba is loaded, else when it is.

    >>> import subprocess, sys
    >>> code = ("from bioaccel.cli.numba_cache import tolerate_cache_write_errors as t; t(); "
    ...         "import numba.core.caching as c; print(c.Cache.save_overload.bioaccel_tolerant)")
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    ['True']
    """
    if MODULE in sys.modules:
        patch(sys.modules[MODULE])
    elif not any(isinstance(finder, CacheWriteFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, CacheWriteFinder())
