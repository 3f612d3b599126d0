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
from bioaccel.errors import InvalidParameter
from bioaccel.fold import _turner_gpu, _turner_tables
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


def test_longer_than_the_kernel_is_refused_before_folding():
    model = TurnerModel()
    model.check_sizes([10, _turner_gpu.MAX_GPU_LENGTH], "batch", backend="gpu")
    with pytest.raises(InvalidParameter, match="at most 4,000.*--backend cpu"):
        model.check_sizes([10, _turner_gpu.MAX_GPU_LENGTH + 1], "batch", backend="gpu")


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
