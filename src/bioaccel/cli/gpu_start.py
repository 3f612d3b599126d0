"""The start of a command that computes on this process's GPU, made as short as the process allows.

Until the first launch such a command does little but Python work that holds the GIL: the imports of
NumPy, Numba, CuPy and the family's modules, reading the inputs, loading the kernels. The only work
that runs beside it is the CUDA driver's start and the device's context (the GIL released). So
:func:`start`

* begins the context first (before NumPy's import, which :func:`bioaccel.runtime.gpu.warm_up` makes
  before its own threads start);
* pauses Python's cyclic garbage collector until the GPU is ready (:func:`ready`): the imports make
  some 150,000 objects and none of them is garbage, yet the collector went over them again and again
  (10-15 % of the imports' time on the 2-core machine: NumPy, Numba, pandas and the interaction wing
  0.40 s with it, 0.34 s without);
* starts the warm-up (CuPy's import, the device check, the caller's tiny computation).

:func:`ready` waits for the warm-up, then lets the collector run again; the command's run calls
:func:`resume` on its way out in any case, so that an error or an interruption never leaves it paused.
In the ``bioaccel`` executable (:func:`freeze_on_resume`) the objects of the start are moved out of
every later collection (``gc.freeze``) as the collector resumes; a test calling ``main`` in process
keeps them collectable.
"""
import gc
import threading

_STATE: dict = {}
_LOCK = threading.Lock()


def start(then=None) -> None:
    """Begin the CUDA context, pause the garbage collector and start the GPU's warm-up (``then``: see
    :func:`bioaccel.runtime.gpu.warm_up`). Without a GPU (or CuPy) nothing is said here: the
    computation's own :func:`bioaccel.runtime.gpu.require_gpu` says why.

    >>> start(); ready(); gc.isenabled()
    True
    """
    from ..runtime.gpu import retain_primary_context, warm_up

    threading.Thread(target=retain_primary_context, name="bioaccel-gpu-context-first", daemon=True).start()
    with _LOCK:
        if gc.isenabled():
            gc.disable()
            _STATE["paused"] = True
    warm_up(then)


def ready() -> None:
    """Wait for the warm-up that :func:`start` began (the first launch follows), then resume the
    garbage collector.

    >>> ready()
    """
    from ..runtime.gpu import warmed

    try:
        warmed()
    finally:
        resume()


def resume() -> None:
    """Let the garbage collector run again if :func:`start` paused it (else nothing).

    >>> resume(); gc.isenabled()
    True
    """
    with _LOCK:
        if not _STATE.pop("paused", False):
            return
        if _STATE.get("freeze"):
            gc.freeze()            # the start's modules and functions: never garbage, never scanned again
        gc.enable()


def freeze_on_resume() -> None:
    """In the ``bioaccel`` executable: :func:`resume` also freezes what the start made (one process, one
    command; a test process keeps collecting it).

    >>> freeze_on_resume.__name__
    'freeze_on_resume'
    """
    _STATE["freeze"] = True
