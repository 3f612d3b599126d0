"""The tiled batch's diagonal tiles sub-tiled (issue 29, helper nbdiag), scores and structures against the CPU.

``SIZES.batch_diagonal`` 2: batch_finish_sub_diag, finish_sub_tile's DIAG path: each diagonal sub-tile a triangle closed
by a warp (close_diagonal_sub_tile), then the tile's off-diagonal sub-tiles by sub-wavefront with the products of the
sub-tiles between and the closure of ``SIZES.batch_closure``'s form. At 32-, 64- and 128-tiles, one and two streams,
int16 cells in closure forms 0-4, 7 and 8 (batch_closure 11) and int32 cells, with the weights and min_loop that reach the pair term's edge cases
(as test_tiled_batch_forms_equal_cpu in tests/test_fold_gpu.py). Marked ``gpu``: skipped where there is no CUDA device.
"""
import pytest
from test_fold_gpu import assert_tiled_batch_equals_cpu

from bioaccel.fold._model import FoldParams

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=1),
                                    FoldParams(min_loop=4, au=5, gc=9, gu=0),
                                    FoldParams(min_loop=0, au=1000, gc=700, gu=0)],
                         ids=["unit weights", "min_loop 0", "min_loop 4", "int32 cells"])
@pytest.mark.parametrize("tile, stage, streams, closure", [
    pytest.param(*row, id=f"sub{row[0]}-s{row[1]}-x{row[2]}-c{row[3]}-d2")
    for row in [(64, 64, 1, 4), (32, 0, 2, 4), (128, 64, 1, 4), (64, 64, 2, 1), (32, 0, 1, 0), (64, 64, 1, 3),
                (32, 0, 1, 2), (64, 64, 1, 7), (32, 0, 2, 7), (64, 64, 1, 11),
                (32, 0, 2, 11)]])
def test_tiled_batch_sub_diagonal_equals_cpu(tile, stage, streams, closure, params, monkeypatch):
    """batch_diagonal 2 folds short, odd and 257-1,100 nt lengths (the shared-memory kernels switched off, so that
    they take the tiled path too) to the CPU's scores and structures."""
    from bioaccel.fold import _launch

    if str(params.cell_dtype(1100)) == "int32" and closure not in (4, 0):
        pytest.skip("int32 cells have one closure")
    sizes = _launch.SIZES.replace(batch_tile=tile, batch_finish="sub", batch_stage_bytes=stage, batch_streams=streams,
                                  batch_shared_max=1, batch_closure=closure, batch_diagonal=2)
    monkeypatch.setattr(_launch, "SIZES", sizes)
    assert_tiled_batch_equals_cpu(params, tile + stage + streams + closure)
