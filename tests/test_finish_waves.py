"""The model of interact/_finish_waves.py (issue 29, helper bpmaxwave): a level's fitted segments are never longer
than the largest, never take more of the model's time, and on the production shape (23 x 20,000 nt, window 128, 132
SMs) fill whole waves where the largest segments leave partial ones; with blocks sliding over consecutive segments
(helper bpmaxring) the fit is no slower than a segment a block and saves halos where matrices fill the waves. Pure
Python."""
import pytest

from bioaccel.interact._finish_waves import fitted_segment, fitted_slide, level_time, starts_a_block


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


@pytest.mark.parametrize("N", [1, 95, 700, 20_000])
@pytest.mark.parametrize("halo", [4, 128])
@pytest.mark.parametrize("fixed", [0, 84, 224])
def test_fitted_slide_is_no_longer_and_no_slower_than_a_segment_a_block(N, halo, fixed):
    for mats in (1, 2, 7, 23):
        for seg_max, sms in ((8, 4), (288, 132)):
            seg, per = fitted_slide(mats, N, halo, seg_max, sms, fixed, 525)
            assert 1 <= seg <= seg_max and 1 <= per
            one = fitted_segment(mats, N, halo, seg_max, sms, fixed, 525)
            assert level_time(mats, N, halo, seg, sms, fixed, 525, per=per) <= level_time(mats, N, halo, one, sms,
                                                                                          fixed, 525)


def test_sliding_halves_the_halo_where_a_block_starts_two_matrices():
    # 23 x 70 segments of 288 rows in blocks of 13: 124 blocks, one wave; a block's rows 13 segments and two halos
    assert starts_a_block(13, 70) == 2 and starts_a_block(1, 70) == 1 and starts_a_block(141, 70) == 3
    assert level_time(23, 20_000, 128, 288, 132, 0, 525, per=13) == 13 * 288 + 2 * 128
    assert level_time(23, 20_000, 128, 288, 132, 0, 525) == 13 * (288 + 128)


def test_production_levels_slide_where_matrices_fill_the_waves():
    N, halo, sms = 20_000, 128, 132
    fitted = [fitted_slide(mats, N, halo, 288, sms, 224, 525) for mats in range(23, 0, -1)]
    pers = [per for _, per in fitted]
    assert pers[0] >= 10 and pers[-1] == 1, pers   # level 1 (23 matrices) slides; level 23 (one) fills 132 SMs
    assert pers == sorted(pers, reverse=True)
    now = sum(level_time(m, N, halo, fitted_segment(m, N, halo, 288, sms, 224, 525), sms, 224, 525)
              for m in range(1, 24))
    slide = sum(level_time(m, N, halo, seg, sms, 224, 525, per=per) for m, (seg, per) in zip(range(23, 0, -1), fitted))
    assert slide < 0.9 * now
