"""BPMax on the GPU, finish blocks sliding up consecutive segments (issue 29, helper bpmaxring;
``BPMaxSizes.finish_slide``): a segment's halo is the rows its block stored before, read back final, so only a
block's first segment of each matrix recomputes one. Equal to the CPU cell by cell on random pairs at 8- and 40-row
segments (blocks of 3 segments, and blocks of 1,000: a whole level, across its matrices), and to the default's device
tables on the production band, on short windows and across streamed pieces, fitted per level (with the device's SMs
and with 2, so that the fit gives blocks several segments there too).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from bioaccel.runtime import gpu as runtime_gpu
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: segments a block fixed (3: a level's matrices cut mid-way; 1,000: a level a block), at 8-row segments fitted and
#: not, with 4- and 8-diagonal groups and finish form 5, and at 40-row segments
SMALL = (dict(finish_slide=3, segment_fit=224, segment_rows=8), dict(finish_slide=3, segment_fit=0, segment_rows=8),
         dict(finish_slide=1000, segment_fit=224, segment_rows=8, finish_diagonals=4),
         dict(finish_slide=3, segment_fit=224, segment_rows=8, finish_form=5),
         dict(finish_slide=1000, segment_fit=0, segment_rows=8, finish_form=5, finish_diagonals=2),
         dict(finish_slide=2, segment_fit=0, segment_rows=40), dict(finish_slide=1, segment_fit=224, segment_rows=8))
#: a segment a block, bench/bpmax_gpu_sizes.py's row 75 (the fit), and 2 segments a block at every level
SETTINGS = (dict(finish_slide=0), dict(finish_slide=1), dict(finish_slide=2))


def test_sliding_blocks_equal_tiled_cell_by_cell_on_random_pairs(monkeypatch):
    monkeypatch.setattr(runtime_gpu, "multiprocessors", lambda: 2)   # the fitted setting: blocks of several segments
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SMALL])


@pytest.mark.parametrize("sms", [None, 2])
def test_sliding_blocks_equal_the_default_on_a_production_band(sms, monkeypatch):
    if sms:
        monkeypatch.setattr(runtime_gpu, "multiprocessors", lambda: sms)
    same_as_default_on_a_production_band(SETTINGS, 31)


@pytest.mark.parametrize("sms", [None, 2])
def test_sliding_blocks_equal_the_default_on_short_windows_and_pieces(sms, monkeypatch):
    if sms:
        monkeypatch.setattr(runtime_gpu, "multiprocessors", lambda: sms)
    same_as_default_on_short_windows_and_pieces(SETTINGS, 32)
