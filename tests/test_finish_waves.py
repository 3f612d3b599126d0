"""The model of interact/_finish_waves.py (issue 29, helper bpmaxwave): a level's fitted segments are never longer
than the largest, never take more of the model's time, and on the production shape (23 x 20,000 nt, window 128, 132
SMs) fill whole waves where the largest segments leave partial ones. Pure Python."""
import pytest

from bioaccel.interact._finish_waves import fitted_segment, level_time


@pytest.mark.parametrize("N", [1, 95, 700, 20_000, 123_457])
@pytest.mark.parametrize("halo", [4, 128])
@pytest.mark.parametrize("fixed", [0, 224])
def test_fitted_segment_is_no_longer_and_no_slower(N, halo, fixed):
    for mats in (1, 2, 7, 23):
        for seg_max, sms in ((8, 4), (288, 132)):
            seg = fitted_segment(mats, N, halo, seg_max, sms, fixed, 525)
            assert 1 <= seg <= seg_max
            assert level_time(mats, N, halo, seg, sms, fixed, 525) <= level_time(mats, N, halo, seg_max, sms, fixed,
                                                                                  525)


def test_production_levels_fill_their_waves():
    N, halo, blocks_an_sm = 20_000, 128, 132
    last_waves = []
    for mats in range(23, 0, -1):
        seg = fitted_segment(mats, N, halo, 288, blocks_an_sm, 224, 525)
        blocks = mats * -(-N // seg)
        last_waves.append(blocks / blocks_an_sm % 1 or 1.0)
    # the largest segments' levels end in a wave 9% to 91% full (1,610 blocks: 12.2 waves); fitted, at least 80%
    assert min(last_waves) >= 0.8, last_waves
    total = sum(level_time(m, N, halo, fitted_segment(m, N, halo, 288, 132, 224, 525), 132, 224, 525)
                for m in range(1, 24))
    assert total < 0.97 * sum(level_time(m, N, halo, 288, 132, 224, 525) for m in range(1, 24))
