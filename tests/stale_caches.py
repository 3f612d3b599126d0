"""Numba's cached machine code that an edit made stale, found and removed before the tests run.

Numba keys a function's cache by its own source file alone (modification time and size). A function
that calls an njit function of another module carries that function's machine code in its own cache,
so after an edit of the callee's module alone it keeps running the old code, silently, until its own
file changes: a test could pass on code that no longer exists. A clean checkout (CI) has no caches;
a working tree does. This module removes, for every module of the package, each cached function
(index and object files) older than the newest source among the modules it imports from the package,
directly or through others: Numba then compiles it again from what is on disk.

    python3 tests/stale_caches.py          # from the repository root: what was removed, one line
"""
import ast
import os
import re
import sys
from pathlib import Path

#: a cache file of Numba: ``<module>.<function>-<line>.py<version>.nbi`` (the index) or ``...<n>.nbc``
CACHE_FILE = re.compile(r"^(?P<module>[^.]+)\.(?P<function>.+)\.py\d+(\.\d+)?\.nb[ic]$")


def imported_modules(source: Path, root: Path) -> set:
    """The source files of the package under ``root`` (its folder's parent holds the package) that
    ``source`` imports, at module level or inside functions, relative or absolute.

    >>> sorted(p.name for p in imported_modules(Path(__file__), Path(__file__).parent))
    []
    """
    tree = ast.parse(source.read_text(), filename=str(source))
    here = source.relative_to(root.parent).with_suffix("").parts[:-1]   # the module's package
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else ()
            target = base + tuple(node.module.split(".") if node.module else ())
            names = [target] + [target + (alias.name,) for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [tuple(alias.name.split(".")) for alias in node.names]
        else:
            continue
        for name in names:
            if name and name[0] == root.name:
                for parts in (name[:k] for k in range(1, len(name) + 1)):   # and each package on the way
                    path = root.parent.joinpath(*parts)
                    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
                        if candidate.is_file():
                            found.add(candidate)
    found.discard(source)
    return found


def newest_sources(root: Path) -> dict:
    """For each source file of the package under ``root``: the newest modification time among it and
    every module it imports from the package, transitively."""
    sources = sorted(root.rglob("*.py"))
    imports = {path: imported_modules(path, root) for path in sources}
    newest = {}
    for start in sources:
        seen, todo = {start}, [start]
        while todo:
            for module in imports.get(todo.pop(), ()):
                if module not in seen:
                    seen.add(module)
                    todo.append(module)
        newest[start] = max(path.stat().st_mtime for path in seen)
    return newest


def cache_folder(source_folder: Path) -> Path:
    """Where Numba keeps the caches of the modules in ``source_folder``: beside them, or under
    NUMBA_CACHE_DIR in a copy of their absolute path."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base) / source_folder.resolve().relative_to(source_folder.resolve().anchor)
    return source_folder / "__pycache__"


def remove_stale(root: Path) -> int:
    """Remove every cached function of the package under ``root`` that is older than the newest source
    it depends on (see the module's text); return how many functions were removed.

    >>> import tempfile
    >>> remove_stale(Path(tempfile.mkdtemp()) / "nothing")
    0
    """
    if not root.is_dir():
        return 0
    newest = newest_sources(root)
    removed = 0
    for folder in sorted({path.parent for path in newest}):
        caches = cache_folder(folder)
        if not caches.is_dir():
            continue
        functions = {}
        for entry in caches.iterdir():
            match = CACHE_FILE.match(entry.name)
            source = folder / f"{match['module']}.py" if match else None
            if source in newest:
                functions.setdefault((source, match["module"], match["function"]), []).append(entry)
        for (source, _, _), files in functions.items():
            if any(path.stat().st_mtime < newest[source] for path in files):
                for path in files:
                    path.unlink(missing_ok=True)
                removed += 1
    return removed


def main() -> int:
    root = Path(__file__).resolve().parent.parent / "src" / "bioaccel"
    removed = remove_stale(root)
    print(f"removed the Numba caches of {removed} functions older than a module they import")
    return 0


if __name__ == "__main__":
    sys.exit(main())
