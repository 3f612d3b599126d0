"""The thread a command runs on (:func:`.main._run_in_worker`): a new daemon thread per run, or, in a
process that runs several commands (a warm server's spare: its rehearsals, then its run), one thread
kept between them (:func:`keep_worker`).

Why keep it: in spare-like processes on the 2-core machine (stop 48), BPPart at 23 x 100 nt took about
10 ms less on the thread that had run the rehearsals than on a thread of its own (``bppart()`` 74-81
against 83-96 ms; a spare's first ``main()`` 85-101 against 96-107 ms), a second run on the same thread
alike. The parallel fill's OpenMP team belongs to the thread that opens the parallel region (GNU OpenMP
keeps a pool per such thread), but a team's start alone measured 0.07 ms: the rest is not broken down.
"""
import threading

#: The jobs of the thread kept by :func:`keep_worker`, or None: each run starts a thread of its own.
resident = None


class _Job:
    """One run on the :data:`resident` thread, waited for as a thread is (``start``, ``is_alive``, ``join``).

    >>> job = _Job(lambda: None); job.run(); job.is_alive()
    False
    """

    def __init__(self, work):
        self.work, self.done = work, threading.Event()

    def start(self):
        resident.put(self)

    def run(self):
        try:
            self.work()
        finally:
            self.done.set()

    def is_alive(self) -> bool:
        return not self.done.is_set()

    def join(self, timeout=None):
        self.done.wait(timeout)


def keep_worker() -> None:
    """Run this process's commands, from now on, on one daemon thread kept between them (once per
    process). For a warm server's spare, before its rehearsals: they then warm the thread its run uses.

    >>> callable(keep_worker)
    True
    """
    global resident
    import queue

    if resident is not None:
        return
    jobs = queue.SimpleQueue()

    def serve():
        while True:
            jobs.get().run()

    threading.Thread(target=serve, name="bioaccel-run", daemon=True).start()
    resident = jobs


def worker(work):
    """What runs ``work`` once started (``start``, ``is_alive``, ``join``): a job of the kept thread
    where :func:`keep_worker` was called, else a new daemon thread.

    >>> worker(lambda: None).name
    'bioaccel-run'
    """
    if resident is not None:
        return _Job(work)
    return threading.Thread(target=work, name="bioaccel-run", daemon=True)
