"""The windowed BPPart fill with v25's defaults for the outer terms (``band_align`` 16: a launch's matrices aligned;
``band_outer_pair`` 2: the levels in pairs with R's sums in the other order): the unaligned matrices equal to the
aligned to the last bit. (The production sizes against the CPU, alone, in pieces and on one stream, are rows of
test_bppart_gpu_windows.py's test_gpu_windows_production_sizes_at_window_128; v25's other form, the cross products'
steps chunk by chunk, lost and was reverted: docs/bppart-gpu-notes.md.) Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import _form_same_bits_and_cpu

pytestmark = pytest.mark.gpu


def test_gpu_windows_v25_unaligned_same_bits_and_cpu(monkeypatch):
    """The production with unaligned matrices (``band_align`` 0) and R's sums in the production's order: against the
    CPU, and 23 x 700 after 333 nt equal to the aligned production's to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_align=0), {})
