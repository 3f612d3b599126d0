"""A bench/ script imported by its file name (bench/ is not a package), for the tests of the models and bounds there."""
import importlib.util
import pathlib
import types

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> types.ModuleType:
    """bench/``name``.py, imported as a module of that name.

    >>> bench_module("bpmax_finish_tiled_model").split_dpx(32, 129)["today"]
    8256.0
    """
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
