"""finish_closure 6 (FINISH_WIDE, issue 29, helper nb16warps): two warps a sub-tile in the split chain's finish,
and no fused form of it. Runs without a GPU (the check comes before any compile)."""
import numpy as np
import pytest

from bioaccel.fold import _gpu_tiled, _launch


@pytest.mark.parametrize("tile", [32, 64, 128])
def test_wide_finish_has_twice_the_warps(tile):
    assert _launch.finish_warps(6, tile) == 2 * _launch.finish_warps(2, tile) == tile // 8
    assert _launch.closure_form(6, "finish") == _launch.closure_form(2, "finish") | _launch.FINISH_WIDE


def test_fused_chain_refuses_the_wide_finish():
    with pytest.raises(ValueError, match="split chain"):
        _gpu_tiled.chain_kernel(np.int16, 128, "Int16x2Dup", 6)
