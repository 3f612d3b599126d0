"""Every module's docstring examples run, and every public name of the API shows one."""
import doctest
import importlib
import inspect
import pkgutil

import pytest

import bioaccel

# GPU modules need a device for their examples; they have none that run on import alone
MODULES = sorted(m.name for m in pkgutil.walk_packages(bioaccel.__path__, "bioaccel.")
                 if not m.name.endswith(".kernels"))
PUBLIC = ("bioaccel", "bioaccel.fold", "bioaccel.interact", "bioaccel.motif")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert outcome.failed == 0, f"{outcome.failed} of {outcome.attempted} examples failed in {name}"


@pytest.mark.parametrize("package", PUBLIC)
def test_every_public_function_and_class_has_an_example(package):
    module = importlib.import_module(package)
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue            # errors: bioaccel.errors shows them in its own examples
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and ">>>" not in (inspect.getdoc(obj) or ""):
            missing.append(name)
    assert not missing, f"{package}: no example in the docstring of {', '.join(missing)}"
