"""tests/stale_caches.py: a cached Numba function whose callee's module changed is compiled again."""
import os
import subprocess
import sys
import textwrap

from stale_caches import remove_stale


def _run(src, env):
    code = "from pkgx.a import f; print(f())"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=src, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_caller_of_an_edited_module_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    package = tmp_path / "pkgx"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(textwrap.dedent("""
        from numba import njit
        from .b import g

        @njit(cache=True)
        def f():
            return g() + 1
    """))
    callee = package / "b.py"
    callee.write_text("from numba import njit\n\n@njit(cache=True)\ndef g():\n    return 1\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)
    assert _run(tmp_path, env) == "2"
    assert any(name.endswith(".nbc") for name in os.listdir(package / "__pycache__"))
    assert remove_stale(package) == 0                       # nothing changed: every cache kept

    for entry in (package / "__pycache__").iterdir():      # the caches written well before the edit below
        earlier = entry.stat().st_mtime - 10
        os.utime(entry, (earlier, earlier))
    callee.write_text("from numba import njit\n\n@njit(cache=True)\ndef g():\n    return 10\n")
    assert remove_stale(package) == 2                       # f (its callee changed) and g (its own file)
    assert _run(tmp_path, env) == "11"
    assert remove_stale(package) == 0
