import pytest


def _gpu_reason():
    """None when a CUDA device can be used, else why not."""
    try:
        from bioaccel.runtime.gpu import require_gpu

        require_gpu()
        return None
    except Exception as exc:  # GPUUnavailable, or anything CuPy raises while probing
        return str(exc)


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            if reason is None:
                reason = _gpu_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"needs a CUDA GPU: {reason}"))


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request):
    """Each backend in turn: "cpu", then "gpu" (skipped, with the reason, where there is no CUDA GPU)."""
    return request.param


@pytest.fixture
def tmp_fasta(tmp_path):
    """Write FASTA text (str or bytes) to a file and return its path."""
    def write(text, name="in.fa"):
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return str(path)

    return write


@pytest.fixture(scope="session")
def dask_client():
    """One local Dask cluster for the whole session (started by the first test that asks): 2 worker
    processes of 1 thread, as ``--workers 2`` starts them; tests join it as a client or through
    ``--scheduler``. A test that kills a worker waits for the nanny to restart it."""
    import dask.distributed as dd

    from bioaccel.distribution.cluster import local_cluster

    with local_cluster(workers=2) as cluster, dd.Client(cluster) as client:
        client.wait_for_workers(2)
        yield client
