"""The house's rules, checked on the source tree (docs/architecture.md states them):

- no module over 400 lines;
- no import cycle between bioaccel's modules, imports inside functions included;
- no wing (fold, interact, motif, scan) importing another wing's private modules or names;
- the command line's help, and ``import bioaccel``, load neither NumPy nor Numba, CuPy or Dask.
"""
import ast
import os
import subprocess
import sys

import pytest

SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")
PACKAGE = os.path.join(SRC, "bioaccel")
WINGS = ("fold", "interact", "motif", "scan")
MAX_LINES = 400


def _modules() -> dict:
    """``{dotted name: path}`` of every Python module of the package."""
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, SRC)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(module: str, path: str):
    """``(imported module, imported name or None, line)`` of every import in ``module``, at any depth,
    relative ones resolved; a name imported from a package that is itself a module counts as that module."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    with open(path) as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:
                    yield f"{source}.{alias.name}", None, node.lineno
                else:
                    yield source, alias.name, node.lineno


def _graph() -> dict:
    graph = {}
    for module, path in MODULES.items():
        targets = set()
        for source, _, _ in _imports(module, path):
            # importing a.b.c runs a and a.b first: their __init__ modules are edges too
            while source and source in MODULES and source != module:
                targets.add(source)
                break
        graph[module] = targets
    return graph


def test_no_module_is_over_400_lines():
    long = {m: n for m, path in MODULES.items() if (n := sum(1 for _ in open(path))) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_no_import_cycle_even_through_imports_inside_functions():
    graph = _graph()
    # a package's __init__ re-exports its modules, and they import their siblings through it: such an
    # edge into one's own package is how Python packages work, not a cycle of the design
    for module in graph:
        graph[module] = {t for t in graph[module] if not module.startswith(t + ".")}
    state, path, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _wing(module: str) -> "str | None":
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def test_no_wing_imports_another_wings_private_names():
    crossings = []
    for module, path in MODULES.items():
        home = _wing(module)
        for source, name, line in _imports(module, path):
            there = _wing(source) if source.startswith("bioaccel.") else None
            if there is None or there == home:
                continue
            private_module = any(part.startswith("_") and part != "__init__" for part in source.split("."))
            if private_module or (name or "").startswith("_"):
                crossings.append(f"{path}:{line}: {source}{'.' + name if name else ''}")
    assert crossings == []


def _loaded_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("heavy", ["numpy", "numba", "cupy", "dask"])
def test_the_help_loads_no_heavy_library(heavy):
    loaded = _loaded_after("import io, contextlib\nfrom bioaccel.cli.main import main\n"
                           "with contextlib.redirect_stdout(io.StringIO()):\n"
                           "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert heavy not in loaded


@pytest.mark.parametrize("heavy", ["cupy", "dask", "numba"])
def test_importing_bioaccel_needs_no_gpu_nor_cluster(heavy):
    assert heavy not in _loaded_after("import bioaccel, bioaccel.fold, bioaccel.interact, bioaccel.motif, bioaccel.scan")
