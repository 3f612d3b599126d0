"""No function of the package reads a module-level name that it binds again later in its own body.

Python makes such a name local to the whole function, so the earlier read raises UnboundLocalError, and
only when that code runs: stop 53's move of the BPMax finish into interact/_gpu_finish.py named a loop
variable ``kernel`` after the module's ``kernel()`` it had just called, and every segment finish failed on
the GPU while every CPU test passed. This check reads the source, so it runs where no GPU is.
"""
import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(__file__), os.pardir, "src", "bioaccel")
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def module_names(tree: ast.Module) -> set:
    """Names bound at a module's top level (definitions, imports, assignments at any depth outside functions)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        else:
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
    return names


def own_nodes(function):
    """The nodes a function evaluates in its own scope: not inside nested functions, classes or
    comprehensions (whose first iterable alone is evaluated in the enclosing scope)."""
    stack = [node for node in ast.iter_child_nodes(function) if node is not function.args]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES):
            stack.extend(getattr(node, "decorator_list", []))
        elif isinstance(node, COMPREHENSIONS):
            stack.append(node.generators[0].iter)
        else:
            stack.extend(ast.iter_child_nodes(node))


def bound_names(node: ast.AST) -> list:
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def reads_before_binding(source: str) -> list:
    """``(function, name, line read, line bound)`` for each module-level name a function reads on a line
    before the one where it first binds the name itself.

    >>> reads_before_binding("def kernel(): pass\\ndef f(ks):\\n    k = kernel()\\n    for kernel in ks: pass")
    [('f', 'kernel', 3, 4)]
    """
    tree = ast.parse(source)
    module = module_names(tree)
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = list(own_nodes(function))
        declared = {name for node in nodes if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
        parameters = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        first = {}
        for node in nodes:
            for name in bound_names(node):
                first[name] = min(first.get(name, node.lineno), node.lineno)
        for node in nodes:
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in module
                    and node.id in first and node.id not in declared | parameters and node.lineno < first[node.id]):
                found.append((function.name, node.id, node.lineno, first[node.id]))
    return sorted(found)


def test_the_check_finds_stop_53s_shadowed_kernel():
    source = ("def kernel(name):\n    return name\n\n"
              "def finisher(sizes):\n    kernels = {False: kernel('packed')}\n"
              "    for kernel in kernels.values():\n        kernel.limit = sizes\n")
    assert reads_before_binding(source) == [("finisher", "kernel", 5, 6)]
    assert reads_before_binding(source.replace("for kernel in kernels.values():\n        kernel.",
                                               "for launch in kernels.values():\n        launch.")) == []


@pytest.mark.parametrize("folder", ["."] + sorted(name for name in os.listdir(PACKAGE)
                                                  if os.path.isdir(os.path.join(PACKAGE, name)) and name != "__pycache__"))
def test_no_function_reads_a_module_name_it_binds_later(folder):
    found = []
    for root, _, files in os.walk(os.path.join(PACKAGE, folder)):
        if folder == "." and root != os.path.join(PACKAGE, "."):
            continue   # the package's own modules here; each sub-package is a case of its own
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path) as handle:
                    found += [f"{os.path.relpath(path, PACKAGE)}:{line}: {function}() reads {read} before binding "
                              f"it on line {bound}" for function, read, line, bound in reads_before_binding(handle.read())]
    assert found == []
