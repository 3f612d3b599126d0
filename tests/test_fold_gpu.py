"""GPU Nussinov: every variant equal to the CPU, cell by cell, score and structure.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none). The kernels run
with the small launch sizes of tests/conftest.py (32-tiles, 8-tiles for the papers' blocked
kernels, 32-thread blocks, early stage switches), so inputs of a few hundred bases cross many tiles and
every stage; tables are poisoned before each fill and every cell must have been written.
"""
import random

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.fold import VARIANTS
from bioaccel.fold._model import FoldParams
from bioaccel.fold._dense_cpu import fill_naive
from naive import structure_score

pytestmark = pytest.mark.gpu
GPU_VARIANTS = VARIANTS.names("gpu")


@pytest.fixture(params=["test sizes", "production sizes"])
def sizes(request):
    """Run a test with the small launch sizes, then with the production ones."""
    from bioaccel.fold import _launch

    if request.param == "test sizes":
        return request.getfixturevalue("small_launch_sizes").fold
    return _launch.SIZES


@pytest.fixture
def small_sizes(small_launch_sizes):
    return small_launch_sizes.fold

PARAMS = [
    FoldParams(min_loop=0),
    FoldParams(min_loop=1),
    FoldParams(min_loop=3),
    FoldParams(min_loop=3, gu=0),
    FoldParams.bpmax(),                  # weighted, half-units
    FoldParams(min_loop=1, au=2, gc=3, gu=0),
]


def _gpu():
    from bioaccel.fold import _gpu as gpu

    return gpu


def _table():
    from bioaccel.fold import _gpu_table

    return _gpu_table


def _random_seqs(count, lo, hi, seed):
    rng = random.Random(seed)
    lengths = [0, 1, 2, 3, 127, 128, 129, 255, 256, 257] + [rng.randint(lo, hi) for _ in range(count)]
    return ["".join(rng.choice("ACGUN" if k % 7 == 0 else "ACGU") for _ in range(n)) for k, n in enumerate(lengths)]


def _closed_to_half_open(C):
    """CPU table C(i, j) (closed) -> V(i, c) = C(i, c-1) on n+1 posts."""
    n = C.shape[0]
    V = np.zeros((n + 1, n + 1), dtype=np.int64)
    V[:n, 1:] = np.triu(C)
    return np.triu(V, k=2)


def _pair_to(structure):
    stack, pair_to = [], [-1] * len(structure)
    for j, ch in enumerate(structure):
        if ch == "(":
            stack.append(j)
        elif ch == ")":
            i = stack.pop()
            pair_to[i], pair_to[j] = j, i
    return pair_to


def _dot_bracket(pair_to):
    return "".join("." if p < 0 else ("(" if p > k else ")") for k, p in enumerate(pair_to))


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_every_cell_equals_cpu(variant, sizes):
    gpu, table_ops = _gpu(), _table()
    cp = gpu._gpu.cupy()
    for k, seq in enumerate(_random_seqs(100, 3, 300, seed=1000 + GPU_VARIANTS.index(variant))):
        params = PARAMS[k % len(PARAMS)]
        codes = encode(seq)
        pm = table_ops.pair_model(cp, params)
        codes_dev = cp.asarray(codes) if len(seq) else cp.zeros(1, np.uint8)
        table = gpu.fill(codes_dev, len(seq), params, pm, variant)
        assert table_ops.unwritten_cells(table) == 0, (variant, len(seq), params)
        expect = _closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop)) if seq else 0
        got = table_ops.to_dense(table)
        assert np.array_equal(got, expect if seq else np.zeros((1, 1))), (variant, len(seq), params)
        pair_to = table_ops.trace_structure(table, codes_dev, pm)
        structure = _dot_bracket(pair_to)
        assert structure_score(seq, structure, params) == table_ops.score_units(table)


def test_structures_identical_across_variants_and_batch(sizes):
    gpu = _gpu()
    seqs = _random_seqs(40, 3, 250, seed=7)
    for params in PARAMS:
        codes = [encode(s) for s in seqs]
        results = {v: gpu.fold_many(codes, params, variant=v) for v in GPU_VARIANTS}
        reference = results["blocked"]
        for variant, got in results.items():
            for (s1, p1), (s2, p2), seq in zip(got, reference, seqs):
                assert s1 == s2 and list(p1) == list(p2), (variant, seq, params)


def test_long_sequences_match_cpu():
    gpu = _gpu()
    rng = random.Random(3)
    for n, params in ((2000, FoldParams()), (3001, FoldParams.bpmax()), (4500, FoldParams(min_loop=1, gu=0))):
        seq = "".join(rng.choice("ACGU") for _ in range(n))
        codes = encode(seq)
        expect = int(fill_naive(codes, params.pair_table(), params.min_loop)[0, n - 1])
        (score, pair_to), = gpu.fold_many([codes], params, variant="tiled")
        assert score == expect
        assert structure_score(seq, _dot_bracket(pair_to), params) == expect


def test_size_refused_before_allocating():
    from bioaccel.errors import ResourceError

    gpu = _gpu()
    with pytest.raises(ResourceError, match="longest that fits"):
        gpu.check_fits(3_000_000, "tiled", FoldParams())
    assert gpu.table_bytes(100_000, "tiled", FoldParams()) < 30 * 2**30   # n = 100,000 fits in 80 GB


@pytest.mark.parametrize("lanes, finish", [("Int16x2Pre", "sub"), ("Int16x2Dup", "sub"), ("Int16x2", "sub"),
                                           ("Int16x2Dup", "wavefront")])
def test_split_k_and_interior_products_cell_by_cell(lanes, finish, monkeypatch):
    """Long enough for interior products on the side streams; splits forced down to one product,
    with production tiles (128) and test tiles (32), with both forms of the int16 bulk and both
    finishes of the tiles off the diagonal."""
    from dataclasses import replace

    from bioaccel.fold import _launch

    gpu, table_ops = _gpu(), _table()
    cp = gpu._gpu.cupy()
    rng = random.Random(11)
    for tile in (128, 32):
        monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tile=tile, bulk_min_products=1, int16_lanes=lanes,
                                                        finish=finish))
        for n, params in ((1500, FoldParams()), (1100, FoldParams.bpmax())):
            seq = "".join(rng.choice("ACGU") for _ in range(n))
            codes = encode(seq)
            table = gpu.fill(cp.asarray(codes), n, params, table_ops.pair_model(cp, params), "tiled")
            assert table_ops.unwritten_cells(table) == 0
            expect = _closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop))
            assert np.array_equal(table_ops.to_dense(table), expect)


def test_a_kernel_that_skips_a_tile_is_caught(small_sizes, monkeypatch):
    """The mutation check: a fill that leaves one tile unwritten fails the poison check (and the table
    comparison), so the tests above can fail."""
    from bioaccel.fold import _gpu_tiled

    gpu, table_ops = _gpu(), _table()
    cp = gpu._gpu.cupy()
    real = _gpu_tiled.fill_tiled

    def skipping(codes_dev, n, params, pm):
        table = real(codes_dev, n, params, pm)
        T = table.tile
        start = table_ops.cell_index(table, 0, 2 * T)          # tile (0, 2): the first cell of it
        table.values[start:start + T * T] = table_ops.POISON    # as if its finish had never run
        return table

    monkeypatch.setattr(_gpu_tiled, "fill_tiled", skipping)   # as fold._gpu_fill.fill calls it
    seq = "".join(random.Random(4).choice("ACGU") for _ in range(200))
    codes = encode(seq)
    params = FoldParams()
    table = gpu.fill(cp.asarray(codes), len(seq), params, table_ops.pair_model(cp, params), "tiled")
    assert table_ops.unwritten_cells(table) > 0
    expect = _closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop))
    assert not np.array_equal(table_ops.to_dense(table), expect)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_api_gpu_equals_cpu_score_and_structure(variant, sizes):
    from bioaccel.fold import nussinov

    seqs = _random_seqs(100, 0, 300, seed=5)
    for params in PARAMS:
        cpu = nussinov(seqs, params=params)
        got = nussinov(seqs, params=params, backend="gpu", variant=variant)
        for a, b in zip(cpu, got):
            assert (a.score, a.structure) == (b.score, b.structure), (variant, a.sequence, params)


def test_api_long_sequences_equal_cpu():
    from bioaccel.fold import nussinov

    rng = random.Random(9)
    seqs = ["".join(rng.choice("ACGU") for _ in range(n)) for n in (2000, 3500, 5000)]
    for params in (FoldParams(), FoldParams(min_loop=0, gu=0), FoldParams.bpmax()):
        for a, b in zip(nussinov(seqs, params=params), nussinov(seqs, params=params, backend="gpu")):
            assert (a.score, a.structure) == (b.score, b.structure)


def _genome():
    import os

    from bioaccel.inputs.fasta import read_fasta

    path = os.path.join(os.path.dirname(__file__), "..", "examples", "sars-cov-2.fasta")
    return next(read_fasta(path)), path


def test_sars_cov_2_genome_gpu_score_equals_fastest_cpu():
    from bioaccel.fold import nussinov

    record, _ = _genome()
    assert len(record) == 29903
    gpu_result = nussinov([record], backend="gpu")[0]
    cpu_result = nussinov([record], backend="cpu")[0]      # "tiled", the fastest CPU variant
    assert gpu_result.score == cpu_result.score
    assert gpu_result.structure == cpu_result.structure


def test_cli_folds_whole_genome_on_gpu():
    import io

    from bioaccel.cli.main import main

    _, path = _genome()
    out, err = io.StringIO(), io.StringIO()
    assert main(["fold", path, "--model", "nussinov", "--backend", "gpu"], stdout=out, stderr=err) == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(">MN908947")
    assert len(lines[1]) == 29903
    structure, score = lines[2].split(" ", 1)
    assert len(structure) == 29903 and structure.count("(") == structure.count(")") > 5000
    assert score.strip("() ").isdigit()


def _batch_case(seed, longest=3000):
    """Lengths 0 to ``longest``, every path's edges (shared-memory blocks, tiled batches, one alone),
    with N and lower case."""
    rng = random.Random(seed)
    lengths = [0, 1, 2, 3, 31, 32, 33, 65, 66, 255, 256, 257, 511, 1000, 2047, longest]
    lengths += [rng.randint(0, 400) for _ in range(40)] + [rng.randint(400, longest) for _ in range(6)]
    seqs = []
    for k, n in enumerate(lengths):
        seq = "".join(rng.choice("ACGUACGUN") for _ in range(n))
        seqs.append(seq.lower().replace("u", "t") if k % 4 == 1 else seq)
    return seqs


@pytest.mark.parametrize("seed, params", [(1, FoldParams()), (2, FoldParams.bpmax()),
                                          (3, FoldParams(min_loop=0, au=1000, gc=700, gu=0))],
                         ids=["default", "bpmax", "int32 cells above 65 nt"])
def test_batch_of_mixed_lengths_equals_cpu_one_by_one(seed, params, sizes, monkeypatch):
    """nussinov_batch and nussinov on the GPU against the CPU one sequence at a time; sequences over
    2,000 nt go alone (as they would over BATCH_TILED_MAX), the rest in shared-memory and tiled bins."""
    from bioaccel.fold import _gpu_batch, nussinov, nussinov_batch

    monkeypatch.setattr(_gpu_batch, "BATCH_TILED_MAX", 2000)
    seqs = _batch_case(seed)
    expect = [nussinov([s], params=params)[0] for s in seqs]
    scores, structures = nussinov_batch(seqs, params=params, backend="gpu")
    assert scores.tolist() == [r.score for r in expect]
    assert structures.astype(str).tolist() == [r.structure for r in expect]
    assert nussinov_batch(seqs, params=params, backend="gpu", traceback=False).scores.tolist() == scores.tolist()
    got = nussinov(seqs, params=params, backend="gpu")
    assert [(r.score, r.structure) for r in got] == [(r.score, r.structure) for r in expect]


def test_batch_of_one_length_many_tables(sizes, monkeypatch):
    """Many tables of one bin in one launch group (and several groups), in input order."""
    from bioaccel.fold import _gpu_batch_tiled, nussinov_batch

    rng = random.Random(8)
    seqs = ["".join(rng.choice("ACGU") for _ in range(n)) for n in [200] * 300 + [700] * 40]
    rng.shuffle(seqs)
    cpu = nussinov_batch(seqs)
    monkeypatch.setattr(_gpu_batch_tiled, "BATCH_TABLE_BYTES", 8 * _gpu_batch_tiled.tiled_bytes(700, 2, sizes.batch_tile))
    gpu = nussinov_batch(seqs, backend="gpu")                                   # groups of 8 tables
    assert gpu.scores.tolist() == cpu.scores.tolist()
    assert gpu.structures.tolist() == cpu.structures.tolist()


@pytest.mark.parametrize("keep", [True, False], ids=["kept uploads", "uploaded each fold"])
def test_a_batch_folded_again_with_its_kept_upload_equals_cpu(sizes, keep, monkeypatch):
    """A batch of the same starts folded three times (fold/_gpu_batch.py: the plan and, ``keep``, its upload kept on
    the device; the scores and status copied from the kept head behind the first launch), the third on another
    stream (which waits for the upload's event): every fold's scores and letters are the CPU's, and the kept head
    still holds the scores' first values (the kernels write each fold's own copy)."""
    from bioaccel.fold import _gpu_batch, nussinov_batch
    from bioaccel.fold._arrays import encode_packed, structure_array

    cp = _gpu()._gpu.cupy()
    monkeypatch.setattr(_gpu_batch, "KEEP_UPLOADS", keep)
    monkeypatch.setattr(_gpu_batch, "_plans", type(_gpu_batch._plans)())
    rng = random.Random(29)
    seqs = ["".join(rng.choice("ACGUN") for _ in range(n)) for n in [0, 1, 2, 40, 255, 257, 700, 1000, 999, 300]]
    cpu = nussinov_batch(seqs)
    codes, starts = encode_packed(seqs)
    codes_dev = cp.asarray(codes)
    for run in range(3):
        stream = cp.cuda.Stream(non_blocking=True) if run == 2 else cp.cuda.Stream.null
        with stream:
            out = _gpu_batch.fold_packed(codes_dev, starts, FoldParams())
            scores, chars = out.scores.get(), out.chars.get()
        assert scores.tolist() == cpu.scores.tolist(), run
        assert structure_array(starts, chars=chars).tolist() == cpu.structures.tolist(), run
    (plan,) = _gpu_batch._plans.values()
    if keep:
        head = plan.on_device[cp.cuda.Device().id][0][0]
        assert head.get().tolist() == [0, 0, 0, 0] + [-1] * 8
    else:
        assert plan.on_device == {}


def _helix_seqs(rng):
    """Random sequences, and helices whose halves lie tiles apart (products far below their tile, which
    the offset encoding skips with a tight threshold)."""
    seqs = ["".join(rng.choice("ACGUN") for _ in range(n)) for n in (0, 1, 2, 3, 31, 32, 33, 64, 200, 301)]
    return seqs + ["G" * 70 + "".join(rng.choice("ACGU") for _ in range(40)) + "C" * 70, "A" * 150 + "U" * 150]


@pytest.mark.parametrize("tight", [False, True], ids=["threshold", "tight threshold"])
def test_offset_encoding_every_cell_equals_cpu(sizes, tight, monkeypatch):
    """int16 cells over an int32 base per tile (the encoding past 65,535 nt), forced on short sequences:
    every cell, the structure and the score equal the CPU's and the plain int16 path's."""
    from bioaccel.fold import _gpu_tiled

    gpu, table_ops = _gpu(), _table()
    cp = gpu._gpu.cupy()
    if tight:           # the least negative valid threshold: more products skipped
        monkeypatch.setattr(_gpu_tiled, "skip_below", lambda params, tile: -4 * tile * int(params.pair_table().max()))
    rng = random.Random(21)
    for k, seq in enumerate(_helix_seqs(rng)):
        params = PARAMS[k % len(PARAMS)]
        codes = encode(seq)
        n = len(seq)
        pm = table_ops.pair_model(cp, params)
        codes_dev = cp.asarray(codes) if n else cp.zeros(1, np.uint8)
        table = _gpu_tiled.fill_tiled(codes_dev, n, params, pm, encoding="offset")
        assert table_ops.unwritten_cells(table) == 0, (n, params)
        expect = (_closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop)) if n
                  else np.zeros((1, 1)))
        assert np.array_equal(table_ops.to_dense(table), expect), (n, params)
        plain = _gpu_tiled.fill_tiled(codes_dev, n, params, pm, encoding="int16")
        assert table_ops.score_units(table) == table_ops.score_units(plain)
        pair_to = table_ops.trace_structure(table, codes_dev, pm)
        assert list(pair_to) == list(table_ops.trace_structure(plain, codes_dev, pm)), (n, params)


def _same_table(offset, plain):
    """Every stored cell of an offset-encoded table, plus its tile's base, equals the int32 table's
    (compared on the device, a few thousand tiles at a time); the same cells are unwritten in both."""
    cp = _gpu()._gpu.cupy()
    cells = offset.tile ** 2
    tiles = offset.bases.size
    assert plain.values.size == tiles * cells
    assert not bool((offset.bases == _table().BASE_POISON).any())
    for first in range(0, tiles, 4096):
        last = min(tiles, first + 4096)
        a = offset.values[first * cells:last * cells].reshape(-1, cells).astype(cp.int32)
        b = plain.values[first * cells:last * cells].reshape(-1, cells)
        written = b != _table().POISON
        assert bool(((a != _table().POISON) == written).all())
        assert not bool(cp.where(written, a + offset.bases[first:last, None] - b, 0).any())


@pytest.mark.parametrize("n, params", [(70_000, FoldParams()), (12_001, FoldParams.bpmax())],
                         ids=["70,000 nt", "bpmax 12,001 nt"])
def test_offset_encoding_equals_int32_where_int16_overflows(n, params):
    """Sequences whose scores pass int16 (the default encoding is then the offset one): the whole table,
    the score and the structure equal the int32 path's."""
    from bioaccel.fold import _gpu_tiled

    gpu, table_ops = _gpu(), _table()
    cp = gpu._gpu.cupy()
    assert params.cell_dtype(n) == np.int32 and _gpu_tiled.cell_encoding(n, params, 128) == "offset"
    rng = np.random.default_rng(n)
    codes = rng.integers(0, 4, n).astype(np.uint8)
    codes_dev = cp.asarray(codes)
    pm = table_ops.pair_model(cp, params)
    offset = gpu.fill(codes_dev, n, params, pm, "tiled")
    assert offset.bases is not None and offset.values.dtype == np.int16
    plain = _gpu_tiled.fill_tiled(codes_dev, n, params, pm, encoding="int32")
    _same_table(offset, plain)
    score = table_ops.score_units(offset)
    assert score == table_ops.score_units(plain) > np.iinfo(np.int16).max // 2
    pair_to = table_ops.trace_structure(offset, codes_dev, pm)
    assert np.array_equal(pair_to, table_ops.trace_structure(plain, codes_dev, pm))
    seq = "".join("ACGU"[x] for x in codes)
    assert structure_score(seq, _dot_bracket(pair_to), params) == score


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=127, gc=127, gu=127),
                                    FoldParams(min_loop=1, au=128, gc=200, gu=1)],
                         ids=["default", "scores up to the x2 limit", "past the x2 limit (b1)"])
def test_short_kernels_x2_and_b1_agree_with_the_cpu(params, sizes, monkeypatch):
    """batch_fold_x4t (4 x 4 cells a thread), batch_fold_x2t (2 x 2 cells a thread; x2t5: its traceback stack
    in the row copy; x2t5w: x2t5 with the traceback by warp 0 alone), both also with the blocks of an SM taking turns (x4tr, x2tr), batch_fold_x2 (a thread a
    cell) and b1 against the CPU,
    every length to 256 nt's edges (chunks of 8 and 16, groups of 8 rows and columns), with N; weights
    whose scores reach 16,256 (x2, x2t) and 25,600 (over X2_MAX_SCORE: those sequences go to b1)."""
    from bioaccel.fold import _gpu_batch, nussinov_batch

    rng = random.Random(29)
    lengths = [2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 120, 200, 255, 256] + [rng.randint(2, 256) for _ in range(20)]
    seqs = ["".join(rng.choice("ACGUACGUN") for _ in range(n)) for n in lengths] + ["GC" * 128, "G" * 128 + "C" * 128]
    cpu = nussinov_batch(seqs, params=params)
    for kernel in ("x4t", "x4tr", "x2t", "x2t5", "x2t5w", "x2tr", "x2", "b1"):
        monkeypatch.setattr(_gpu_batch, "SHORT_KERNEL", kernel)
        gpu = nussinov_batch(seqs, params=params, backend="gpu")
        assert gpu.scores.tolist() == cpu.scores.tolist(), kernel
        assert gpu.structures.tolist() == cpu.structures.tolist(), kernel


@pytest.mark.parametrize("chunk", [0, 2])
def test_gpu_encoding_of_a_list_and_its_bad_letters(chunk, monkeypatch):
    """A list of strings is encoded on the device (lower case, T, N), in chunks of ``chunk`` sequences
    (0: one); a bad or non-ASCII letter still gets the host's message naming the sequence and position;
    Records and pairs take the host path."""
    from bioaccel.errors import InputError
    from bioaccel.fold import _arrays_gpu, nussinov_batch
    from bioaccel.inputs.fasta import Record

    monkeypatch.setattr(_arrays_gpu, "CHUNK", chunk)
    scores, structures = nussinov_batch(["gggaaaTcc", "", "GGGNAAACCC", "A"], backend="gpu")
    assert scores.tolist() == [3, 0, 3, 0] and structures.tolist() == [b"(((...)))", b"", b"(((....)))", b"."]
    mixed = ["GGGAAAUCC", "A", "GGGAAAUCC", Record("r", "GGGAAAUCC"), ("p", "gggaaatcc")]
    assert nussinov_batch(mixed, backend="gpu").scores.tolist() == [3, 0, 3, 3, 3]
    assert nussinov_batch([], backend="gpu").scores.shape == (0,)
    with pytest.raises(InputError, match="sequence 4: invalid character 'X' at position 3"):
        nussinov_batch(["ACGU", "GGGAAACCC", "A", "ACXU", "GGGAAACCC"], backend="gpu")
    with pytest.raises(InputError, match="sequence 1: invalid character"):
        nussinov_batch(["AC\u00e9U"], backend="gpu")


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=1),
                                    FoldParams(min_loop=0, au=1000, gc=700, gu=0)],
                         ids=["int16 cells", "int16 cells, min_loop 0", "int32 cells"])
@pytest.mark.parametrize("form, tile, stage, streams, threads, closure, diagonal, walk", [
    pytest.param(*row, id=f"{row[0]}{row[1]}-s{row[2]}-x{row[3]}-t{row[4]}"
                 + (f"-c{row[5]}" + ("-d0" if row[6] == 0 else "") if row[0] == "sub" else "")
                 + f"-w{row[7]}")
    for row in [("sub", 32, 0, 1, 32, 1, 1, 1), ("sub", 64, 64, 2, 128, 1, 1, 1), ("sub", 64, 0, 3, 32, 1, 1, 1),
                ("sub", 128, 64, 2, 128, 1, 1, 1), ("sub", 64, 64, 1, 128, 0, 1, 1), ("sub", 32, 0, 1, 32, 0, 1, 1),
                ("sub", 64, 64, 1, 128, 2, 1, 1), ("sub", 32, 0, 2, 32, 2, 1, 1), ("sub", 128, 64, 1, 128, 2, 1, 1),
                ("sub", 64, 64, 1, 128, 1, 0, 1), ("sub", 32, 0, 2, 32, 1, 0, 1),
                ("sub", 64, 64, 1, 128, 1, 1, 0), ("sub", 32, 0, 1, 32, 1, 1, 0),
                ("sub", 64, 64, 1, 128, 3, 1, 1), ("sub", 32, 0, 2, 32, 3, 1, 1), ("sub", 128, 64, 1, 128, 3, 1, 1),
                ("wavefront", 64, 0, 1, 128, 1, 1, 1), ("wavefront", 32, 0, 2, 64, 1, 1, 1),
                ("sub", 64, 64, 1, 128, 4, 2, 3), ("sub", 64, 64, 1, 128, 1, 1, 3), ("sub", 32, 0, 2, 32, 1, 1, 3),
                ("sub", 128, 64, 1, 128, 3, 1, 3),
                ("sub", 64, 64, 1, 128, 4, 2, 5), ("sub", 64, 64, 1, 128, 1, 1, 5), ("sub", 32, 0, 2, 32, 1, 1, 5),
                ("sub", 128, 64, 1, 128, 3, 1, 5),
                ("sub", 64, 64, 1, 128, 4, 2, 6), ("sub", 64, 64, 1, 128, 1, 1, 6), ("sub", 32, 0, 2, 32, 1, 1, 6),
                ("sub", 128, 64, 1, 128, 3, 1, 6)]])
def test_tiled_batch_forms_equal_cpu(form, tile, stage, streams, threads, closure, diagonal, walk, params,
                                     monkeypatch):
    """Every form of the tiled batch (issue 29's "sub": the products' maxima straight into the tile, the
    sub-tiled finish, its closure's tests as mask bits, also its loads predicated (``closure`` 2), form 1's
    closure after form 2's read (3) or (0) as before; the diagonal's tiles by batch_finish_diag or (``diagonal`` 0) batch_finish; the "wavefront" form
    before it), the traceback's walk with the interval in hand in registers, scanning for a split only the m where
    (i, m-1) may pair (``walk`` 3; 5 stepping in a window staged in shared memory; 6 that with the codes and pair
    model in shared memory, V on the stack) or every m (1), or (0) the walk before it, 32- to 128-tiles, 64-byte
    stages, one to three streams, against the CPU: short and odd
    lengths (the shared-memory kernels switched off, so that they take the tiled path too) and bins from
    257 to 1,100 nt, scores and structures identical; min_loop 0 with unequal weights reaches the pair
    term's edge cases (an inner interval of at most one letter, pairs the loop length forbids)."""
    from bioaccel.fold import _launch

    if params.cell_dtype(1100) == np.int32 and (tile, stage) not in ((64, 64), (32, 0)):
        pytest.skip("int32 cells: the production and the tests' tile suffice")
    if params.cell_dtype(1100) == np.int32 and closure != 1:
        pytest.skip("int32 cells have one closure")
    if params.cell_dtype(1100) == np.int32 and diagonal == 0 and tile != 64:
        pytest.skip("int32 cells: the diagonal's old kernel at the production tile suffices")
    if params.cell_dtype(1100) == np.int32 and walk != 3 and tile != 64:
        pytest.skip("int32 cells: the old walk at the production tile suffices")
    sizes = _launch.SIZES.replace(batch_tile=tile, batch_finish=form, batch_stage_bytes=stage, batch_streams=streams,
                                  batch_traceback_threads=threads, batch_shared_max=1, batch_closure=closure,
                                  batch_diagonal=diagonal, batch_walk=walk)
    monkeypatch.setattr(_launch, "SIZES", sizes)
    assert_tiled_batch_equals_cpu(params, tile + stage + streams)


def assert_tiled_batch_equals_cpu(params, seed):
    """The GPU's scores and structures of short, odd and 257-1,100 nt random RNAs (the tiled path where the caller's
    SIZES switch the shared-memory kernels off) are the CPU's; tests/test_fold_gpu_batch_diag.py uses it too."""
    from bioaccel.fold import nussinov_batch

    rng = random.Random(seed)
    lengths = [2, 3, 5, 17, 31, 33, 64, 65, 127, 129, 200, 257, 258, 301, 383, 385, 511, 513, 640, 777, 999, 1000,
               1023, 1099, 1100] + [rng.randint(257, 1100) for _ in range(6)] + [1000] * 4
    seqs = ["".join(rng.choice("ACGUACGUN") for _ in range(n)) for n in lengths]
    cpu = nussinov_batch(seqs, params=params)
    gpu = nussinov_batch(seqs, params=params, backend="gpu")
    assert gpu.scores.tolist() == cpu.scores.tolist()
    assert gpu.structures.tolist() == cpu.structures.tolist()
    assert max(cpu.scores.tolist()) > 0


def test_check_packed_finds_a_sequence_left_unscored_on_the_device():
    """check_packed without host scores tests them on the device (batch_unscored into status[1]) and
    fetches status once: a negative score anywhere is caught, none passes."""
    from bioaccel.errors import InternalError
    from bioaccel.fold._gpu_batch import PackedFolds, check_packed

    cp = _gpu()._gpu.cupy()
    scores = np.zeros(70_000, dtype=np.int32)
    check_packed(PackedFolds(cp.asarray(scores), None, None, cp.zeros(2, dtype=np.int32)))
    scores[65_537] = -1
    with pytest.raises(InternalError, match="without a score"):
        check_packed(PackedFolds(cp.asarray(scores), None, None, cp.zeros(2, dtype=np.int32)))
    with pytest.raises(InternalError, match="no split reproduces"):
        check_packed(PackedFolds(cp.zeros(3, dtype=np.int32), None, None, cp.asarray(np.array([1, 0], np.int32))))
