"""The GPU scan against the CPU's. The coarse tables' promise (no hit is lost by the int32 filter) is
checked on the CPU by emulating the kernels' sums with NumPy; the kernels themselves (marker ``gpu``,
skipped with the reason where there is no CUDA device) must give exactly the CPU's hits, with the
production launch sizes and with the small ones of tests/conftest.py (tiny segments, groups and hit
buffers, so every border and the column-by-column fallback for long motifs run)."""
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.motif import PSSM, Background
from bioaccel.scan import _gpu as _scan_gpu
from bioaccel.scan._pipeline import Scanner
from bioaccel.scan._setup import prepare
from bioaccel.scan._api import scan

SKEWED = Background.from_frequencies([0.1, 0.4, 0.3, 0.2])


def random_motifs(rng, lengths, background=None):
    return [PSSM(np.round(rng.normal(size=(m, 4)) * 2, 2), motif_id=f"m{k}",
                 background=background or Background.uniform()) for k, m in enumerate(lengths)]


def random_codes(rng, n, n_rate=0.02):
    codes = rng.integers(0, 4, size=n).astype(np.uint8)
    codes[rng.random(n) < n_rate] = 4                     # N
    return codes


def exact_scores(plan, e, codes):
    """Every window's exact grid score for entry e (windows with a letter past T read as -inf)."""
    m = int(plan.length[e])
    u = plan.units_flat[plan.units_start[e]:plan.units_start[e] + m]
    n = codes.shape[0] - m + 1
    if n <= 0:
        return np.zeros(0, np.int64), np.zeros(0, bool)
    windows = np.lib.stride_tricks.sliding_window_view(codes, m)
    good = (windows <= 3).all(axis=1)
    scores = u[np.arange(m)[None, :], np.minimum(windows, 3)].sum(axis=1)
    return scores, good


def coarse_sums(layout, local, codes):
    """What the fused kernel sums for entry ``local`` of ``layout`` at every window (other letters as A)."""
    L = layout.L
    clean = np.where(codes > 3, 0, codes).astype(np.int64)
    padded = np.concatenate([clean, np.zeros(64 + L, np.int64)])
    word = np.zeros(codes.shape[0] + 64, np.int64)
    for k in range(L):
        word = word * 4 + padded[k:k + word.shape[0]]
    g = np.searchsorted(layout.group_entry, local, side="right") - 1
    base = layout.group_table[g]
    total = np.zeros(codes.shape[0], np.int64)
    for s in range(layout.entry_slice[local], layout.entry_slice[local + 1]):
        offset, start = layout.slice_meta[s] >> 16, layout.slice_meta[s] & 0xFFFF
        table = layout.coarse[base + start:base + start + 4 ** L]
        total += table[word[offset:offset + codes.shape[0]]]
    return total


@pytest.mark.parametrize("L", [1, 4])
def test_coarse_filter_never_loses_a_hit(L):
    rng = np.random.default_rng(3 + L)
    motifs = random_motifs(rng, [1, 2, 3, 5, 9, 12, 20, 33])
    codes = random_codes(rng, 3000)
    for pvalue in (0.3, 1e-2, 1e-4):
        setup = prepare(motifs, pvalue=pvalue)
        plan = setup.plan
        layout = _scan_gpu.build_layout(plan, np.arange(plan.entries), L, 4096)
        assert (layout.group_words <= 4096).all()
        passed = tight = 0
        for local, e in enumerate(layout.members):
            scores, good = exact_scores(plan, e, codes)
            coarse = coarse_sums(layout, local, codes)[:scores.shape[0]]
            hits = good & (scores >= plan.threshold[e])
            assert (coarse[hits] >= layout.coarse_threshold[local]).all()      # no hit is lost
            passed += int((good & (coarse >= layout.coarse_threshold[local])).sum())
            tight += int(hits.sum())
        assert passed <= tight + max(5, tight // 100)          # and hardly any other window passes


@pytest.mark.parametrize("seed", [0, 1])
def test_lanes_never_lose_a_hit(seed):
    """The ``lanes`` form's packed tables (8 entries a 16-byte row, 16-bit sums started at 0x8000 - Tc):
    emulated from the packed bytes, every hit's lane reaches its top bit, hardly any other window's does,
    no lane's sum ever carries into the next, and empty lanes never pass."""
    from bioaccel.scan._lanes import LANE_TOP, build_lanes, lane_sums

    rng = np.random.default_rng(40 + seed)
    motifs = random_motifs(rng, [1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 20, 21])
    codes = random_codes(rng, 4000)
    for pvalue in (0.5, 1e-2, 1e-4):
        plan = prepare(motifs, pvalue=pvalue).plan
        layout = build_lanes(plan, np.arange(plan.entries), 6 * 1024)       # groups of at most 6 tables
        assert layout.groups >= 2 and (layout.group_words <= 6 * 1024).all()
        assert sorted(layout.members[layout.length > 0].tolist()) == list(range(plan.entries))
        init = layout.octet_init.view(np.uint16).astype(np.int64)
        passed = tight = 0
        for lane in range(layout.length.shape[0]):
            total = lane_sums(layout, lane, codes)
            assert total.max() <= LANE_TOP and init[lane] + total.max() <= 0xFFFF     # no carry
            top = init[lane] + total >= 0x8000
            if layout.length[lane] == 0:
                assert not top.any()
                continue
            e = layout.members[lane]
            assert init[lane] == 0x8000 - layout.coarse_threshold[lane]
            scores, good = exact_scores(plan, e, codes)
            hits = good & (scores >= plan.threshold[e])
            assert top[:scores.shape[0]][hits].all()                             # no hit is lost
            passed += int((good & top[:scores.shape[0]]).sum())
            tight += int(hits.sum())
        assert passed <= tight + max(5, tight // 50)


def test_layouts_split_groups_within_budget():
    rng = np.random.default_rng(1)
    plan = prepare(random_motifs(rng, [4, 8, 12, 16, 30]), pvalue=1e-3).plan
    layout = _scan_gpu.build_layout(plan, np.arange(plan.entries - 2), 4, 1024)     # the length-30 one left out
    assert layout.groups > 1 and (layout.group_words <= 1024).all()
    assert layout.group_entry[0] == 0 and layout.group_entry[-1] == plan.entries - 2
    assert np.array_equal(np.diff(layout.group_table), layout.group_words[:-1])   # back to back
    with pytest.raises(Exception, match="too long for the GPU"):
        _scan_gpu.build_layout(plan, np.arange(plan.entries), 4, 1024)


# ---- on the GPU -------------------------------------------------------------------------------------------

def cpu_hits(plan, codes, windows):
    entry, pos, units = Scanner(plan, "cpu", "naive").scan(codes, windows)
    return sorted(zip(entry.tolist(), pos.tolist(), units.tolist()))


#: The fused kernel's forms (ScanSizes.form), each variant's: the GPU tests run every one.
FORMS = [("fused", "lanes"), ("fused", "words"), ("segments", "words")]


def use_form(monkeypatch, form, small=False):
    """SIZES with the fused kernel's ``form``; with ``small`` (the small_launch_sizes fixture already
    applied) lane groups of 2 tables too, so octets of long entries, group borders and the first form's
    column-by-column fallback (entries over 8 columns) all run."""
    sizes = _scan_gpu.SIZES.replace(form=form)
    monkeypatch.setattr(_scan_gpu, "SIZES", sizes.replace(lane_words=2048) if small else sizes)


@pytest.mark.gpu
@pytest.mark.parametrize("variant,form", FORMS)
@pytest.mark.parametrize("small", [False, True], ids=["sizes", "test-sizes"])
def test_gpu_chunk_hits_equal_cpu(request, monkeypatch, variant, form, small):
    if small:
        request.getfixturevalue("small_launch_sizes")
    use_form(monkeypatch, form, small)
    rng = np.random.default_rng(11)
    motifs = random_motifs(rng, [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 21, 31, 40])
    for pvalue, n in [(1e-4, 20000), (1e-2, 5000), (0.5, 700), (1e-3, 1), (1e-3, 0)]:
        plan = prepare(motifs, pvalue=pvalue).plan
        codes = random_codes(rng, n)
        for windows in {n, max(0, n - 45), n // 3}:
            gpu = Scanner(plan, "gpu", variant)
            entry, pos, units = gpu.scan(codes, windows)
            assert sorted(zip(entry.tolist(), pos.tolist(), units.tolist())) == cpu_hits(plan, codes, windows), \
                (variant, pvalue, n, windows)


@pytest.mark.gpu
@pytest.mark.parametrize("variant,form", FORMS)
def test_gpu_hit_buffers_grow(monkeypatch, variant, form):
    use_form(monkeypatch, form)
    rng = np.random.default_rng(12)
    plan = prepare(random_motifs(rng, [3, 6, 10]), pvalue=0.9).plan       # most windows are hits
    codes = random_codes(rng, 40000)
    scanner = Scanner(plan, "gpu", variant)
    scanner._engine.capacity = 8
    entry, pos, units = scanner.scan(codes, codes.shape[0])
    assert len(entry) > 50000
    assert sorted(zip(entry.tolist(), pos.tolist(), units.tolist())) == cpu_hits(plan, codes, codes.shape[0])


@pytest.mark.gpu
@pytest.mark.parametrize("variant,form", FORMS)
def test_gpu_scan_api_equals_cpu(monkeypatch, variant, form):
    """Whole scans through the API: chunk borders (tiny chunks and pipelined streams), several records,
    a skewed background (the reverse strand's own thresholds), P-values and q-values."""
    use_form(monkeypatch, form)
    rng = np.random.default_rng(13)
    motifs = random_motifs(rng, [1, 6, 11, 19, 30], background=SKEWED)
    records = [(f"r{k}", "".join("ACGTN"[c] for c in random_codes(rng, n))) for k, n in enumerate([0, 3, 500, 9000])]
    for chunk_size in (7, 1000, 1 << 22):
        cpu = scan(motifs, records, pvalue=1e-2, chunk_size=chunk_size)
        gpu = scan(motifs, records, pvalue=1e-2, chunk_size=chunk_size, backend="gpu", variant=variant)
        assert len(cpu) > 100
        assert cpu.equals(gpu), chunk_size


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["lanes", "words"])
def test_gpu_withholds_exactly_the_hits_below_the_floor(request, monkeypatch, form):
    """withhold_below: the fused kernels copy out the hits at or above each entry's floor and count the
    rest; the segments kernel (the paper's) copies out every hit as before. Test sizes: every fused path."""
    request.getfixturevalue("small_launch_sizes")
    use_form(monkeypatch, form, small=True)
    rng = np.random.default_rng(14)
    plan = prepare(random_motifs(rng, [2, 5, 9, 14, 30]), pvalue=1e-2).plan
    codes = random_codes(rng, 30000)
    every = cpu_hits(plan, codes, codes.shape[0])
    floor = plan.threshold + rng.integers(0, 2, plan.entries) * (np.abs(plan.threshold) // 8 + 1)
    for variant in ("fused", "segments"):
        scanner = Scanner(plan, "gpu", variant)
        scanner.withhold_below(floor)
        entry, pos, units = scanner.scan(codes, codes.shape[0])
        got = sorted(zip(entry.tolist(), pos.tolist(), units.tolist()))
        kept = every if variant == "segments" else [h for h in every if h[2] >= floor[h[0]]]
        assert got == kept and scanner.take_withheld() == len(every) - len(kept) and scanner.take_withheld() == 0
        assert 0 < len(kept) < len(every) or variant == "segments"


@pytest.mark.gpu
@pytest.mark.parametrize("variant,form", FORMS)
def test_gpu_stored_path_equals_cpu(monkeypatch, variant, form):
    """--max-stored-hits on the GPU, where each batch's certified bounds raise the floors the kernels
    withhold below: the hits kept, their P-values, the count dropped and the cut are the CPU's."""
    from bioaccel.scan._pipeline import collect

    use_form(monkeypatch, form)
    rng = np.random.default_rng(15)
    motifs = random_motifs(rng, [4, 6, 8, 11, 15])
    records = [(f"r{k}", "".join("ACGTN"[c] for c in random_codes(rng, n))) for k, n in enumerate([4000, 30000])]
    for keep in (1, 50, 300):
        runs = [collect(prepare(motifs, pvalue=1e-2), records, max_stored_hits=keep, chunk_size=2000, batch=300,
                        **options) for options in ({}, {"backend": "gpu", "variant": variant})]
        (cpu, cpu_state), (gpu, gpu_state) = runs
        assert cpu_state.dropped > 5 * keep
        assert (gpu_state.dropped, gpu_state.cut) == (cpu_state.dropped, cpu_state.cut), keep
        for field in ("motif", "strand", "sequence", "start", "units", "pvalue", "qvalue"):
            assert np.array_equal(getattr(cpu, field), getattr(gpu, field), equal_nan=True), (keep, field)


@pytest.mark.gpu
def test_gpu_scan_shipped_example_equals_cpu(monkeypatch):
    cpu = scan("examples/motifs.meme", "examples/sars-cov-2.fasta", pvalue=1e-3)
    for variant, form in FORMS:
        use_form(monkeypatch, form)
        assert cpu.equals(scan("examples/motifs.meme", "examples/sars-cov-2.fasta", pvalue=1e-3,
                               backend="gpu", variant=variant)), (variant, form)


def test_encode_roundtrip_for_gpu_inputs():
    """The kernels read codes 0-3 as A, C, G, T and anything larger as a letter to refuse."""
    assert encode("ACGTN").tolist()[:4] == [0, 1, 2, 3] and encode("N")[0] > 3
