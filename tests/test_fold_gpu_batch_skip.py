"""The tiled batch without batch_bulk_direct's launch at d = 1 (SIZES.batch_skip_first_bulk 1; issue 29, helper nbtail),
scores and structures against the CPU.

Tiles (I, I + 1) have no tile strictly between, so the finish starts from zeros there instead of reading the tile,
which ``cp.empty`` leaves unset once the launch is skipped: a finish that still read it would fold garbage. At 32-,
64- and 128-tiles, one and two streams, int16 cells in closure forms 0-4 and 8 and int32 cells. Marked ``gpu``.
"""
import pytest
from test_fold_gpu import assert_tiled_batch_equals_cpu

from bioaccel.fold._model import FoldParams

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=1),
                                    FoldParams(min_loop=0, au=1000, gc=700, gu=0)],
                         ids=["unit weights", "min_loop 0", "int32 cells"])
@pytest.mark.parametrize("tile, stage, streams, closure", [
    pytest.param(*row, id=f"sub{row[0]}-s{row[1]}-x{row[2]}-c{row[3]}-z1")
    for row in [(64, 64, 1, 4), (32, 0, 2, 4), (128, 64, 1, 8), (64, 64, 1, 8), (32, 0, 1, 0), (64, 64, 1, 3)]])
def test_tiled_batch_skip_first_bulk_equals_cpu(tile, stage, streams, closure, params, monkeypatch):
    """batch_skip_first_bulk 1 folds short, odd and 257-1,100 nt lengths to the CPU's scores and structures."""
    from bioaccel.fold import _launch

    if str(params.cell_dtype(1100)) == "int32" and closure not in (4, 0):
        pytest.skip("int32 cells have one closure")
    sizes = _launch.SIZES.replace(batch_tile=tile, batch_finish="sub", batch_stage_bytes=stage, batch_streams=streams,
                                  batch_shared_max=1, batch_closure=closure, batch_skip_first_bulk=1)
    monkeypatch.setattr(_launch, "SIZES", sizes)
    assert_tiled_batch_equals_cpu(params, tile + stage + streams + closure + 1)
