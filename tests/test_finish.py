"""The command line's exit (bioaccel.runtime.finish): what Python's own exit does before its teardown."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = """
import atexit, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from bioaccel.runtime.finish import finish_process

pool = ThreadPoolExecutor(max_workers=1)         # left open: its idle worker is not a daemon
pool.submit(time.sleep, 0.01).result()
late = threading.Thread(target=lambda: (time.sleep(0.3), print("thread done")))
late.start()
atexit.register(lambda: print("handler run"))
out = open(sys.argv[1], "w")
atexit.register(out.close)                        # a file closed by its handler: its text is written
out.write("kept")
sys.stdout.write("unflushed ")
finish_process(5)
"""


def test_exit_joins_threads_runs_handlers_and_flushes(tmp_path):
    target = tmp_path / "out.txt"
    proc = subprocess.run([sys.executable, "-c", PROGRAM, str(target)], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout.split() == ["unflushed", "thread", "done", "handler", "run"]
    assert target.read_text() == "kept"


def test_a_profiler_still_writes_its_results(tmp_path):
    """Under ``python -m cProfile -o`` the command ends as Python ends it: the profile is written."""
    profile = tmp_path / "fold.prof"
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "bioaccel", "fold",
                           os.path.join(ROOT, "examples", "rnas.fa")], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("(-") == 3 and profile.stat().st_size > 0
