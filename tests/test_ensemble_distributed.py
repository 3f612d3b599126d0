"""ensemble(client=) and local_ensemble(client=): the same results as in this process, from a local Dask
cluster (the session's, tests/conftest.py), one record per task."""
import numpy as np
import pytest

from bioaccel.errors import InvalidParameter, ResourceError
from bioaccel.fold import TurnerModel, ensemble, local_ensemble

SEQUENCES = ["GGGGAAACCCC", ("r2", "GCGCAUAUAGCGCGAUUAGCGCUAAUCGGGAAAUCC"), "", "ACGUACGUAAAACGUACGUGGGCCC" * 3]


def test_ensemble_client_gives_the_in_process_results(dask_client):
    model = TurnerModel(temperature=30.0)
    here = ensemble(SEQUENCES, params=model)
    there = ensemble(SEQUENCES, params=model, client=dask_client)
    assert [r.to_dict() for r in there] == [r.to_dict() for r in here]
    assert all(np.array_equal(a.bpp, b.bpp) for a, b in zip(here, there))
    address = dask_client.scheduler.address                              # a scheduler's address works too
    assert [r.log_z for r in ensemble(SEQUENCES[:2], client=address)] == [r.log_z for r in ensemble(SEQUENCES[:2])]


def test_local_ensemble_client_gives_the_in_process_results(dask_client):
    options = dict(window=30, span=20, cutoff=1e-3, unpaired=True, params=TurnerModel(no_lp=True))
    here = local_ensemble(SEQUENCES, **options)
    there = local_ensemble(SEQUENCES, client=dask_client, **options)
    assert [r.to_dict() for r in there] == [r.to_dict() for r in here] and here[3].pairs > 0
    for a, b in zip(here, there):
        assert np.array_equal(a.i, b.i) and np.array_equal(a.j, b.j) and np.array_equal(a.p, b.p)
        assert np.array_equal(a.unpaired, b.unpaired)


def test_client_raises_as_in_process(dask_client):
    with pytest.raises(InvalidParameter, match="span"):                  # checked before any task
        local_ensemble(SEQUENCES, window=10, span=20, client=dask_client)
    with pytest.raises(ResourceError):
        ensemble(["GGGAAAUCC", "A" * 200_000], client=dask_client)
