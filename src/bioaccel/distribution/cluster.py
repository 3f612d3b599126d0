"""Dask: the cluster a batch runs on, and which of its workers may take GPU work.

A batch runs on the caller's own ``dask.distributed.Client``, on a running cluster joined by its
scheduler's address, or on a cluster started here (:func:`local_cluster`): ``workers`` single-threaded
CPU workers and one worker per GPU, each pinned to its device through ``CUDA_VISIBLE_DEVICES`` and
declaring the resource ``GPU=1``. GPU work goes only to workers that declare that resource (in a
mixed cluster CPU work may run on any worker, GPU work on the GPU workers only); on a cluster whose
workers declare none, to the workers that see a CUDA device (:func:`placement`).

Dask is imported only here, only when asked for: ``import bioaccel`` never needs it.
"""
import contextlib
import gc
import logging
import os

import numpy as np

from ..errors import InvalidParameter

#: Seconds to wait for a scheduler given by its address before giving up (one line, exit status 2).
CONNECT_TIMEOUT = 5
#: The Dask resource a GPU worker declares (``dask worker ADDRESS --resources GPU=1``).
GPU = "GPU"


def _dask():
    try:
        import dask.distributed as dd
    except ImportError:
        raise InvalidParameter(
            "Dask is not installed: install bioaccel[dask] (dask[distributed]) to run on several workers"
        ) from None
    return dd


def gpu_count() -> int:
    """CUDA devices visible here (0 without CuPy or a GPU).

    >>> gpu_count() >= 0
    True
    """
    try:
        from ..runtime.gpu import require_gpu

        return int(require_gpu().cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def parse_gpus(text) -> "list[int] | str":
    """``--gpus``: ``all`` or device numbers ``0,1,...`` (each once).

    >>> parse_gpus("all"), parse_gpus("1, 0")
    ('all', [1, 0])
    >>> parse_gpus("0,0")
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: --gpus names device 0 twice
    """
    text = str(text).strip()
    if text == "all":
        return "all"
    devices = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise InvalidParameter(f"--gpus expects 'all' or device numbers such as 0,1; got {text!r}")
        if int(part) in devices:
            raise InvalidParameter(f"--gpus names device {int(part)} twice")
        devices.append(int(part))
    return devices


def resolve_gpus(gpus) -> list:
    """The device numbers of ``gpus`` (``"all"`` or a list), checked against the devices visible here."""
    visible = gpu_count()
    if gpus == "all":
        if visible < 1:
            raise InvalidParameter("--gpus all: no CUDA device is visible here (or CuPy is not installed)")
        return list(range(visible))
    missing = [g for g in gpus if g >= visible]
    if missing:
        raise InvalidParameter(f"--gpus {','.join(map(str, gpus))}: device {missing[0]} is not visible here "
                               f"({visible} CUDA device{'s' if visible != 1 else ''} found)")
    return list(gpus)


def _quiet_resource_tracker():
    """Start multiprocessing's resource tracker (once per process) with its warnings off. A run stopped
    by Ctrl-C exits without closing its local cluster (the workers end with it), and the tracker would
    then print a warning about the workers' semaphores that means nothing to a person."""
    from multiprocessing import resource_tracker

    before = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = "ignore"      # read by the tracker's process as it starts
    try:
        resource_tracker.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = before


def local_cluster(*, workers=0, gpus=()):
    """A cluster on this machine: ``workers`` CPU workers and one worker per device of ``gpus``, each a
    process of one Dask thread (the family's code uses several cores inside one item), without
    Dask's memory limit (bioaccel refuses what will not fit before it allocates) and without logs."""
    dd = _dask()
    quiet = {"nthreads": 1, "memory_limit": 0, "silence_logs": logging.CRITICAL}
    specs = {f"cpu-{k}": {"cls": dd.Nanny, "options": dict(quiet)} for k in range(workers)}
    for device in gpus:
        specs[f"gpu-{device}"] = {"cls": dd.Nanny, "options": dict(
            quiet, resources={GPU: 1}, env={"CUDA_VISIBLE_DEVICES": str(device)})}
    if not specs:
        raise InvalidParameter("a local cluster needs at least one worker (--workers N or --gpus)")
    _quiet_resource_tracker()
    # the scheduler always serves HTTP: on a free port, never a busy 8787 (another cluster's)
    return dd.SpecCluster(workers=specs, silence_logs=logging.CRITICAL,
                          scheduler={"cls": dd.Scheduler, "options": {"dashboard_address": ":0"}})


def _join(address):
    dd = _dask()
    if not address.strip():
        raise InvalidParameter("the Dask scheduler address is empty; give tcp://HOST:PORT")
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)        # its own retry warnings: our one line says it all
    try:
        return dd.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        problem = (f"cannot reach the Dask scheduler at {address} (no answer within {CONNECT_TIMEOUT} s: "
                   f"{exc.__class__.__name__})")
    except (ValueError, TypeError) as exc:
        problem = f"{address!r} is not a Dask scheduler address ({exc}); give tcp://HOST:PORT"
    finally:
        quiet.setLevel(level)
    # The half-built Client of a failed connection, kept alive by the exception's frames, is closed now
    # by the collector, not at some later collection: one that fell inside the next Client's start
    # closed it there and deadlocked on distributed's loop-runner lock (seen in the test suite).
    gc.collect()
    raise InvalidParameter(problem)


@contextlib.contextmanager
def connect(client=None, *, workers=0, gpus=()):
    """Yield a Client: ``client`` itself (a Client), one joined to the scheduler at ``client`` (an
    address), or one of a :func:`local_cluster` (``client="local"``: one worker per core, or per GPU
    with ``gpus="all"``; ``client=None``: ``workers`` and ``gpus`` as given). What this opened it
    closes."""
    dd = _dask()
    if isinstance(client, dd.Client):
        yield client
        return
    if isinstance(client, str) and client != "local":
        with _join(client) as opened:
            yield opened
        return
    if client not in (None, "local"):
        raise InvalidParameter(f"client must be a dask Client, a scheduler address or 'local', got {client!r}")
    if client == "local" and not workers and not gpus:
        workers = os.cpu_count() or 1
    devices = resolve_gpus(gpus) if gpus else []
    with local_cluster(workers=workers, gpus=devices) as cluster, dd.Client(cluster) as opened:
        yield opened


def _sees_gpu():
    return gpu_count() > 0


def _workers(client) -> dict:
    """{address: info} of every worker (newer Dask lists only 5 unless asked for all)."""
    try:
        info = client.scheduler_info(n_workers=-1)
    except TypeError:
        info = client.scheduler_info()
    return info.get("workers", {})


def placement(client, gpu) -> dict:
    """Keywords of ``client.submit`` that send work where it can run: nothing for CPU work; for GPU
    work, the ``GPU`` resource where workers declare it, else the workers that see a device.

    Raises InvalidParameter when no worker can take GPU work (it would wait forever)."""
    if not gpu:
        return {}
    workers = _workers(client)
    if any(info.get("resources", {}).get(GPU, 0) >= 1 for info in workers.values()):
        return {"resources": {GPU: 1}}
    seeing = [address for address, sees in client.run(_sees_gpu).items() if sees]
    if not seeing:
        raise InvalidParameter(f"none of the {len(workers)} Dask workers has a GPU (declare it with "
                               "'dask worker ADDRESS --resources GPU=1', or use --gpus on a machine with GPUs)")
    return {"workers": seeing, "allow_other_workers": False}


def worker_count(client, where) -> int:
    """How many workers may run work placed by ``where`` (a :func:`placement`)."""
    workers = _workers(client)
    if "resources" in where:
        return max(1, sum(1 for info in workers.values() if info.get("resources", {}).get(GPU, 0) >= 1))
    if "workers" in where:
        return max(1, len(where["workers"]))
    return max(1, len(workers))


def balanced_chunks(costs, parts):
    """Cut range(len(costs)) into at most ``parts`` contiguous [start, stop) ranges of about equal cost.

    >>> balanced_chunks([1000, 1, 1, 1], 2), balanced_chunks([5, 5, 5, 5], 2)
    ([(0, 1), (1, 4)], [(0, 2), (2, 4)])
    """
    costs = np.asarray(costs, dtype=float)
    if costs.size == 0:
        return []
    parts = max(1, min(int(parts), costs.size))
    cumulative = np.cumsum(costs)
    targets = cumulative[-1] * np.arange(1, parts) / parts
    cuts = np.unique(np.searchsorted(cumulative, targets, side="left") + 1)
    bounds = [0] + [int(c) for c in cuts if 0 < c < costs.size] + [costs.size]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
