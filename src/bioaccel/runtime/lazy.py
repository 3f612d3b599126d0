"""Names of a package that load on first use (PEP 562), so that importing the package (the command
line reading a variant registry) does not import NumPy or Numba.

Pure Python: imports nothing of bioaccel.
"""
import importlib
import sys
from typing import Callable


def lazy_names(package: str, modules: "dict[str, str]",
               names: "list[str]") -> "tuple[Callable[[str], object], Callable[[], list[str]]]":
    """The ``(__getattr__, __dir__)`` of ``package``: a name of ``modules`` (name -> relative module) is
    imported from its module when first asked for and kept in the package, so later look-ups are plain;
    ``__dir__`` lists the package's globals and ``names`` (its ``__all__``), loaded or not.

    >>> import types
    >>> sys.modules["lazy_demo"] = types.ModuleType("lazy_demo")
    >>> getattr_, dir_ = lazy_names("lazy_demo", {"dumps": "json"}, ["dumps"])
    >>> "dumps" in dir_(), getattr_("dumps").__module__, "dumps" in vars(sys.modules["lazy_demo"])
    (True, 'json', True)
    >>> getattr_("loads")
    Traceback (most recent call last):
    AttributeError: module 'lazy_demo' has no attribute 'loads'
    >>> del sys.modules["lazy_demo"]
    """
    def __getattr__(name: str) -> object:
        if name in modules:
            value = getattr(importlib.import_module(modules[name], package), name)
            vars(sys.modules[package])[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> "list[str]":
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__
