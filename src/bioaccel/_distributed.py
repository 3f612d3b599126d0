"""Scale-out through Dask: the same compiled core on every worker, results back in input order.

Like STUMPY's ``stumped``, nothing here re-implements an algorithm: ``map_chunks`` cuts the work into
contiguous chunks of about equal cost (not equal count: folding costs n^3), submits ``function(chunk)``
for each to the workers, and yields the results of every item in input order as they arrive.

``client`` may be a ``dask.distributed.Client``, a scheduler address, or ``"local"`` for a LocalCluster
on this machine (one worker per core, or one worker per GPU with ``gpus=True``: each worker sees one
device through CUDA_VISIBLE_DEVICES). Dask is imported only here, only when asked for.
"""
import contextlib

import numpy as np

from .errors import InvalidParameter

#: Seconds to wait for a scheduler given by its address before giving up (one line, exit status 2).
CONNECT_TIMEOUT = 5


def _dask():
    try:
        import dask.distributed as dd
    except ImportError:
        raise InvalidParameter(
            "Dask is not installed: install bioaccel[dask] (dask[distributed]) to run on a cluster"
        ) from None
    return dd


def gpu_count():
    """CUDA devices visible here (0 without CuPy or a GPU)."""
    try:
        from ._gpu import require_gpu

        return int(require_gpu().cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def local_cluster(*, gpus=False, workers=None):
    """A LocalCluster: one single-threaded worker per GPU (``gpus=True``) or per core."""
    dd = _dask()
    if not gpus:
        return dd.LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    count = workers or gpu_count()
    if count < 1:
        raise InvalidParameter("a GPU cluster was asked for but no CUDA device is visible")
    specs = {
        f"gpu-{k}": {"cls": dd.Nanny, "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(k)}}}
        for k in range(count)
    }
    return dd.SpecCluster(workers=specs, scheduler={"cls": dd.Scheduler, "options": {"dashboard_address": None}})


@contextlib.contextmanager
def connect(client, *, gpus=False):
    """Yield a Client for ``client`` (a Client, an address, or "local"); close what this opened."""
    dd = _dask()
    if isinstance(client, dd.Client):
        yield client
        return
    if client == "local":
        with local_cluster(gpus=gpus) as cluster, dd.Client(cluster) as opened:
            yield opened
        return
    if isinstance(client, str):
        if not client.strip():
            raise InvalidParameter("the Dask scheduler address is empty; give tcp://HOST:PORT or 'local'")
        import logging

        quiet = logging.getLogger("distributed")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)        # its own retry warnings: our one line says it all
        try:
            opened = dd.Client(client, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise InvalidParameter(f"cannot reach the Dask scheduler at {client} (no answer within "
                                   f"{CONNECT_TIMEOUT} s: {exc.__class__.__name__})") from None
        except (ValueError, TypeError) as exc:
            raise InvalidParameter(f"{client!r} is not a Dask scheduler address ({exc}); give tcp://HOST:PORT "
                                   "or 'local'") from None
        finally:
            quiet.setLevel(level)
        with opened:
            yield opened
        return
    raise InvalidParameter(f"client must be a dask Client, a scheduler address or 'local', got {client!r}")


def balanced_chunks(costs, parts):
    """Cut range(len(costs)) into at most ``parts`` contiguous [start, stop) ranges of about equal cost."""
    costs = np.asarray(costs, dtype=float)
    if costs.size == 0:
        return []
    parts = max(1, min(int(parts), costs.size))
    cumulative = np.cumsum(costs)
    targets = cumulative[-1] * np.arange(1, parts) / parts
    cuts = np.unique(np.searchsorted(cumulative, targets, side="left") + 1)
    bounds = [0] + [int(c) for c in cuts if 0 < c < costs.size] + [costs.size]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def map_chunks(function, items, costs, *, client, chunks_per_worker=4, gpus=False):
    """Yield ``function(items[a:b])``'s results item by item, in input order, computed on ``client``.

    ``function`` takes a list and returns a list of the same length; it must be importable on the
    workers (a module-level function). ``costs`` weighs each item for balancing.
    """
    items = list(items)
    with connect(client, gpus=gpus) as dask_client:
        workers = max(1, len(dask_client.scheduler_info().get("workers", {})))
        ranges = balanced_chunks(costs, workers * chunks_per_worker)
        futures = [dask_client.submit(function, items[a:b], pure=False) for a, b in ranges]
        for future in futures:             # in order; later chunks keep running meanwhile
            yield from future.result()
