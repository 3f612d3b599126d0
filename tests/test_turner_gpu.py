"""Turner 2004 MFE on the GPU (fold/_turner_gpu.py, kernels/turner_batch.cu): every energy equal (==) to
the CPU's ``mfe_many``, every structure identical to the CPU's (the same tie-break) and scoring its
energy in ``eval_structure``, under each option.

The GPU tests are marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
They run with the production launch sizes and with tests/conftest.py's small ones (32-thread blocks,
launches of at most 8 sequences, tables for one or two blocks), so a batch crosses many launches and
block widths, and a block folds several sequences in turn. The first tests
need no GPU: the kernels' table offsets, the launch plan and the length limit.
"""
import random
import re
from importlib import resources

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.errors import InvalidParameter, ResourceError
from bioaccel.fold import _turner_gpu, _turner_tables, _turner_tiled_gpu
from bioaccel.fold._turner_model import TurnerModel

MODELS = [TurnerModel(), TurnerModel(no_lp=True), TurnerModel(temperature=25), TurnerModel(temperature=50),
          TurnerModel(no_gu=True)]


def test_kernel_offsets_are_the_models():
    """turner_energy.cuh hard-codes the flat tables' offsets: they must be those of _turner_tables."""
    text = resources.files("bioaccel.fold.kernels").joinpath("turner_energy.cuh").read_text()
    declared = dict(re.findall(r"\b([A-Z][A-Z0-9_]*) = (\d+)\b", text))
    names = {"STACK": "STACK", "HAIRPIN": "HAIRPIN", "BULGE": "BULGE", "INTERIOR": "INTERIOR",
             "MM_HAIRPIN": "MM_HAIRPIN", "MM_INTERIOR": "MM_INTERIOR", "MM_1N": "MM_1N", "MM_23": "MM_23",
             "MM_MULTI": "MM_MULTI", "MM_EXTERIOR": "MM_EXTERIOR", "DANGLE5": "DANGLE5", "DANGLE3": "DANGLE3",
             "INT11": "INT11", "INT21": "INT21", "INT22": "INT22", "TETRALOOPS": "TETRALOOPS",
             "TRILOOPS": "TRILOOPS", "HEXALOOPS": "HEXALOOPS", "GENERIC": "GENERIC", "ONE_N": "ONE_N",
             "PAIR_TYPE": "PAIR_TYPE", "SCALARS": "SCALARS", "TABLE_SIZE": "KERNEL_TABLE_SIZE",
             "INF": "INFINITE", "MAX_LOOP": "MAX_LOOP", "MAX_SPECIAL": "MAX_SPECIAL"}
    for cuda, python in names.items():
        assert int(declared[cuda]) == getattr(_turner_tables, python), cuda


def test_longer_than_the_batch_goes_tiled_and_what_will_not_fit_is_refused(monkeypatch):
    """Past 4,000 nt the GPU folds by the tiled fill; a sequence whose tables pass the GPU's free memory,
    or longer than the fill accepts, is refused before anything is folded (one line, with the way out)."""
    from bioaccel.runtime import gpu

    model = TurnerModel()
    with pytest.raises(InvalidParameter, match="at most 4,000.*--backend cpu"):
        _turner_gpu.check_lengths([_turner_gpu.MAX_GPU_LENGTH + 1])
    assert _turner_tiled_gpu.goes_tiled(_turner_gpu.MAX_GPU_LENGTH + 1, "batch")
    monkeypatch.setattr(gpu, "gpu_available", lambda: True)
    monkeypatch.setattr(gpu, "free_memory", lambda: 4 << 30)
    model.check_sizes([10, 15_000], "batch", backend="gpu")            # 2.5 GiB
    with pytest.raises(ResourceError, match="length 20,000 on the GPU needs about 4.5 GiB.*--backend cpu"):
        model.check_sizes([10, 20_000], "batch", backend="gpu")
    with pytest.raises(ResourceError, match="length 20,000"):
        model.check_sizes([20_000], "tiled", backend="gpu")
    with pytest.raises(InvalidParameter, match="at most 300,000"):
        model.check_sizes([300_001], "batch", backend="gpu")
    assert _turner_tiled_gpu.device_bytes(20_000) > 0.9 * (4 << 30) > _turner_tiled_gpu.device_bytes(15_000)


def test_the_plan_covers_the_batch_in_order_and_the_grid_fits_its_budget():
    rng = np.random.default_rng(3)
    lengths = np.sort(rng.integers(5, 1200, 500))[::-1]
    sizes = _turner_gpu.TurnerSizes(threads=128, table_bytes=50 << 20, max_blocks=40)
    launches = _turner_gpu.plan(lengths, sizes)
    assert launches[0][0] == 0 and launches[-1][1] == len(lengths)
    for (first, last, threads), following in zip(launches, launches[1:] + [(len(lengths), 0, 0)]):
        assert last == following[0] and 0 < last - first <= sizes.max_blocks
        assert 2 * lengths[last - 1] >= lengths[first] and threads <= 128
        blocks = _turner_gpu.grid_blocks(last - first, lengths[first], sizes, sizes.table_bytes, 132)
        assert 1 <= blocks <= min(last - first, 132 * _turner_gpu.BLOCKS_PER_SM)
        assert blocks == 1 or 4 * blocks * _turner_gpu.sequence_ints(lengths[first]) <= sizes.table_bytes


def _random_batch(count, seed, longest=300):
    rng = random.Random(seed)
    lengths = [0, 1, 4, 5, 6, 7, longest] + [rng.randint(1, longest) for _ in range(count)]
    alphabets = ["ACGU", "ACGU", "ACGUN", "GC", "AU"]
    return ["".join(rng.choice(alphabets[k % 5]) for _ in range(n)) for k, n in enumerate(lengths)]


def _check(seqs, model, got):
    from bioaccel.fold._turner_cpu import mfe_many
    from bioaccel.fold._turner_energy import eval_structure

    codes = [encode(s) for s in seqs]
    want = mfe_many(codes, model)
    assert len(got) == len(want)
    for seq, code, (energy, pair_to), (cpu_energy, cpu_pair_to) in zip(seqs, codes, got, want):
        assert isinstance(energy, int) and energy == cpu_energy, (model, seq)
        assert pair_to.dtype == np.int64 and np.array_equal(pair_to, cpu_pair_to), (model, seq)
        assert eval_structure(code, pair_to, model) == energy, (model, seq)


@pytest.fixture(params=["production sizes", "test sizes"])
def sizes(request):
    if request.param == "test sizes":
        return request.getfixturevalue("small_turner_sizes")
    return _turner_gpu.SIZES


@pytest.mark.gpu
@pytest.mark.parametrize("model", MODELS, ids=["37C", "noLP", "25C", "50C", "noGU"])
def test_equal_to_the_cpu(model, sizes):
    seqs = _random_batch(60, seed=int(model.temperature) + 2 * model.no_lp + 3 * model.no_gu)
    _check(seqs, model, _turner_gpu.fold([encode(s) for s in seqs], model))


@pytest.mark.gpu
def test_a_batch_of_many_launches(small_turner_sizes):
    seqs = _random_batch(150, seed=11, longest=120)
    lengths = np.sort([len(s) for s in seqs if len(s) >= _turner_gpu.MIN_PAIRED])[::-1]
    assert len(_turner_gpu.plan(lengths, small_turner_sizes)) > 10
    _check(seqs, TurnerModel(), _turner_gpu.fold([encode(s) for s in seqs]))


@pytest.mark.gpu
def test_vectors_empty_and_without_traceback():
    seqs = ["GGGGAAACCCC", "GGGCUUCGGCCC", "ACGUACGUNNACGUACGUGGGAAAUCCC", "UUUAAAGGGCCCAAAUUUGGGCCCAAA", "", "NNNNNNNN"]
    got = TurnerModel().fold_gpu([encode(s) for s in seqs], "batch", True)
    assert [e for e, _ in got] == [-450, -630, -1090, -1510, 0, 0]
    assert got[4][1].shape == (0,)
    quiet = _turner_gpu.fold([encode(s) for s in seqs], traceback=False)
    assert quiet == [(e, None) for e, _ in got]
    assert _turner_gpu.fold([]) == []


@pytest.mark.gpu
def test_the_command_line_folds_on_the_gpu(tmp_fasta):
    import io

    from bioaccel.cli.main import main

    seqs = _random_batch(20, seed=5, longest=200)
    path = tmp_fasta("".join(f">r{k}\n{s}\n" for k, s in enumerate(seqs)))
    outputs = []
    for backend in ("cpu", "gpu"):
        out, err = io.StringIO(), io.StringIO()
        code = main(["fold", path, "--model", "turner2004", "--backend", backend, "--noLP"], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] and outputs[0].count(">") == len(seqs)


# ---- the tiled fill of one long RNA (variant "tiled", fold/_turner_tiled_gpu.py) -------------------------


def _check_one(seq, model, got):
    """The tiled fill's (energy, pair_to) of one sequence against the CPU's mfe: ==, and scored at it."""
    from bioaccel.fold._turner_cpu import mfe
    from bioaccel.fold._turner_energy import eval_structure

    energy, pair_to = got
    cpu_energy, cpu_pair_to = mfe(encode(seq), model)
    assert isinstance(energy, int) and energy == cpu_energy, (model, len(seq), seq[:60])
    assert pair_to.dtype == np.int64 and np.array_equal(pair_to, cpu_pair_to), (model, len(seq), seq[:60])
    assert eval_structure(encode(seq), pair_to, model) == energy


def _other_products(monkeypatch, sizes):
    """``sizes`` with the products in the form the default does not take (cell by cell or by rows,
    TiledSizes.rows), patched over the tiled fill's SIZES."""
    sizes = sizes.replace(rows=1 - sizes.rows)
    monkeypatch.setattr(_turner_tiled_gpu, "SIZES", sizes)
    return sizes


@pytest.fixture(params=["production sizes", "test sizes", "production sizes, other products",
                        "test sizes, other products"])
def tiled_sizes(request, monkeypatch):
    sizes = (request.getfixturevalue("small_turner_tiled_sizes") if request.param.startswith("test")
             else _turner_tiled_gpu.SIZES)
    return _other_products(monkeypatch, sizes) if request.param.endswith("other products") else sizes


@pytest.mark.gpu
@pytest.mark.parametrize("model", [TurnerModel(), TurnerModel(no_lp=True), TurnerModel(temperature=25),
                                   TurnerModel(no_gu=True)], ids=["37C", "noLP", "25C", "noGU"])
def test_tiled_equal_to_the_cpu(model, tiled_sizes):
    """Random RNAs of 1 to 600 nt (lengths off the tile's multiples too; uniform, with N, GC-only,
    AU-only), each folded alone over the whole GPU: the CPU's energy and structure."""
    rng = random.Random(26 + int(model.temperature) + 2 * model.no_lp + 3 * model.no_gu)
    lengths = [1, 4, 5, 17, 33, 129, 257, 600] + [rng.randint(1, 600) for _ in range(6)]
    alphabets = ["ACGU", "ACGU", "ACGUN", "GC", "AU"]
    for k, n in enumerate(lengths):
        seq = "".join(rng.choice(alphabets[k % 5]) for _ in range(n))
        _check_one(seq, model, _turner_tiled_gpu.fold_one(encode(seq), model))


@pytest.mark.gpu
def test_tiled_special_sequences_and_the_vectors(small_turner_tiled_sizes):
    seqs = ["GGGGAAACCCC", "GGGCUUCGGCCC", "ACGUACGUNNACGUACGUGGGAAAUCCC", "UUUAAAGGGCCCAAAUUUGGGCCCAAA",
            "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA", "N" * 50,
            "GC" * 150, "A" * 80 + "U" * 80, ("GGGAAAUCCC" * 30)[:-1]]
    got = [_turner_tiled_gpu.fold_one(encode(s), TurnerModel()) for s in seqs]
    assert [e for e, _ in got[:5]] == [-450, -630, -1090, -1510, -2240]
    for seq, result in zip(seqs, got):
        _check_one(seq, TurnerModel(), result)
    assert _turner_tiled_gpu.fold_one(encode(seqs[1]), traceback=False) == (-630, None)


@pytest.mark.gpu
@pytest.mark.parametrize("other_products", [False, True], ids=["default products", "other products"])
@pytest.mark.parametrize("n", [2_000, 3_517])
def test_tiled_long_rnas(n, other_products, small_turner_tiled_sizes, monkeypatch):
    """A few thousand bases with 16-nt tiles: hundreds of tile-diagonals, products split over blocks; in
    either form of the products (their minima cell by cell or by rows)."""
    if other_products:
        _other_products(monkeypatch, small_turner_tiled_sizes)
    rng = random.Random(n)
    seq = "".join(rng.choice("ACGU") for _ in range(n))
    model = TurnerModel(no_lp=n > 3000)
    _check_one(seq, model, _turner_tiled_gpu.fold_one(encode(seq), model))


@pytest.mark.gpu
def test_the_gpu_default_sends_the_long_ones_to_the_tiled_fill(monkeypatch, small_turner_tiled_sizes):
    """A mixed batch through the model's fold_gpu: the short ones by the batch, the long ones (here past a
    patched limit of 100 nt) by the tiled fill, in input order; variant tiled folds all alone."""
    monkeypatch.setattr(_turner_tiled_gpu, "MAX_GPU_LENGTH", 100)
    seqs = _random_batch(8, seed=9, longest=250)
    codes = [encode(s) for s in seqs]
    asked = []
    one = _turner_tiled_gpu.fold_one
    monkeypatch.setattr(_turner_tiled_gpu, "fold_one", lambda c, *a, **k: asked.append(len(c)) or one(c, *a, **k))
    _check(seqs, TurnerModel(), TurnerModel().fold_gpu(codes, "batch", True))
    assert sorted(asked) == sorted(len(s) for s in seqs if len(s) > 100) and asked
    asked.clear()
    _check(seqs, TurnerModel(no_lp=True), TurnerModel(no_lp=True).fold_gpu(codes, "tiled", True))
    assert len(asked) == len(seqs)
