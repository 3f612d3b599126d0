"""The end of a command-line process without the interpreter's finalization.

When Python exits it first joins the threads that are not daemons and runs the ``atexit`` handlers
(which close files, Dask clusters, temporary folders), then tears down every module and collects every
object, and C++ libraries run their static destructors (LLVM's, the threading layer's). For a process
that has loaded NumPy and Numba the last part costs 0.12-0.15 s on the 2-core machine, a fifth of a
warm ``bioaccel fold`` of three RNAs, and nothing in it matters once the command's output is written
and flushed. :func:`finish_process` does the first part as Python does, then ends the process at once.
"""
import atexit
import os
import sys
import threading
from typing import NoReturn


def finish_process(code: int) -> NoReturn:
    """Join the threads that are not daemons (as the interpreter's exit does), run the ``atexit``
    handlers, flush standard output and error, and end the process with status ``code`` (``os._exit``:
    no module teardown).

    Only for the ``bioaccel`` executable's last step, once its output is written. Under a tracer or a
    profiler (``sys.settrace``, ``sys.setprofile``: coverage, ``python -m cProfile``) the process ends
    as Python ends it, so that they can write what they gathered.

    >>> import subprocess, sys
    >>> code = ("import atexit; atexit.register(print, 'handlers run'); "
    ...         "from bioaccel.runtime.finish import finish_process; print('done', end=' '); finish_process(3)")
    >>> run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    >>> run.stdout, run.returncode
    ('done handlers run\\n', 3)
    """
    if sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)         # a tracer or profiler (coverage, cProfile) writes its results after this
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None and threading.current_thread() is threading.main_thread():
        # what the interpreter's exit runs first: the threading module's exit calls (an idle thread
        # pool's workers are told to end), then every thread that is not a daemon joined
        shutdown()
    else:
        for thread in threading.enumerate():
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:          # a closed or broken stream: nothing more can be said on it
            pass
    os._exit(code)
