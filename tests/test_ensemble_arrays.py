"""The ensemble of many records by chunks (fold/_ensemble_arrays.py, _ensemble_sparse.py, _ensemble_energy.py,
_ensemble_text.py, cli/fold_ensemble_arrays.py) against the record-by-record path: the derived quantities
from sparse pair lists bit for bit equal to _ensemble_derived's on the dense P (itself equal to the plain
NumPy reference, tests/naive_ensemble_derived.py), every result field equal to iter_ensemble's, and the
command line's bytes (vienna, JSON Lines, --bpp) equal to what the per-record formatters write, on the CPU
and on the simulated GPU (the device kernel emulated by its host build, test_turner_pf_gpu.py)."""
import io
import random

import numpy as np
import pytest

from bioaccel.cli.fold_ensemble import bpp_lines, json_columns, vienna
from bioaccel.cli.main import main
from bioaccel.fold import FoldParams, TurnerModel, bpp_text, iter_ensemble, iter_ensemble_chunks
from bioaccel.fold import _ensemble_derived as dense
from bioaccel.fold._ensemble_sparse import SYMBOLS, derive_sparse
from bioaccel.inputs.alphabet import encode
from bioaccel.results.tables import TableWriter

import naive_ensemble_derived as naive


def mixed_records(count, seed, longest=140):
    """Lengths 0..longest, with N, with T (written as U), empty, all unpaired, a fixed hairpin."""
    rng = random.Random(seed)
    out = [("hairpin", "GGGGAAACCCC"), ("empty", ""), ("one", "A"), ("tee", "GGGGTTTCCCC"), ("unpaired", "A" * 40)]
    for k in range(count):
        alphabet = "ACGUN" if k % 5 == 0 else ("ACGT" if k % 7 == 0 else "ACGU")
        out.append((f"r{k} note {k}", "".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest)))))
    return out


def random_matrices(count, seed):
    """Made-up P with ties, values at 0.5 and the MEA threshold, conflicting pairs above 0.5."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 40))
        P = np.zeros((n, n))
        for _ in range(int(rng.integers(0, 2 * n))):
            i, j = sorted(rng.integers(0, n, 2).tolist())
            if j > i:
                P[i, j] = rng.choice([0.25, 0.5, 0.3, 1e-5, 0.1, 0.9, 5e-5, rng.random() / 3, rng.random()])
        out.append(P)
    return out


def test_sparse_derived_equal_the_dense_bit_for_bit():
    model = TurnerModel()
    seqs = [s for _, s in mixed_records(10, seed=5, longest=260)]
    matrices = [P for _, P in model.partition_cpu([encode(s) for s in seqs], True)] + random_matrices(150, 3)
    lengths = np.array([P.shape[0] for P in matrices])
    found = [np.nonzero(P) for P in matrices]
    offsets = np.concatenate(([0], np.cumsum([len(a) for a, _ in found])))
    i = np.concatenate([a for a, _ in found])
    j = np.concatenate([b for _, b in found])
    p = np.concatenate([P[a, b] for P, (a, b) in zip(matrices, found)])
    diversity, c_to, c_dist, m_to, m_acc, line, ok = derive_sparse(lengths, offsets, i, j, p)
    assert ok.all()
    s = 0
    for k, P in enumerate(matrices):
        n = P.shape[0]
        assert diversity[k] == dense.ensemble_diversity(P) == naive.ensemble_diversity(P)
        want_to, want_d = dense.centroid(P)
        assert np.array_equal(c_to[s:s + n], want_to) and c_dist[k] == want_d
        want_to, want_acc = dense.mea(P)
        assert np.array_equal(m_to[s:s + n], want_to) and m_acc[k] == want_acc
        assert bytes(SYMBOLS[c] for c in line[s:s + n]).decode() == dense.pseudo_bracket(P)
        s += n


def test_bpp_text_is_pythons_formatting():
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.random(20_000), 10 ** rng.uniform(-6, 0, 20_000),
                             [1e-5, 1e-4, 1e-3, 0.1, 1.0, 0.5, 0.999999, 0.9999995, 0.99999949999, 1.0000001,
                              1.234565e-3, 0.1234565, 9.999995e-5, 9.9999949e-5, 0.00012345650000001]])
    offsets = np.array([0, 7, len(values) // 2, len(values)])
    i, j = rng.integers(0, 5000, len(values)), rng.integers(0, 12_000, len(values))
    ids = ["a", "é x", "r3"]
    want = "".join(f"{ids[int(np.searchsorted(offsets, k, 'right')) - 1]}\t{i[k] + 1}\t{j[k] + 1}\t{values[k]:.6g}\n"
                   for k in range(len(values)) if values[k] >= 1e-5)
    assert bpp_text(ids, offsets, i, j, values, 1e-5) == want


@pytest.mark.parametrize("params", [TurnerModel(), TurnerModel(no_lp=True, temperature=25),
                                    FoldParams(gc=3, au=2, min_loop=3)], ids=["37C", "noLP25C", "nussinov"])
def test_chunks_equal_iter_ensemble(params):
    records = mixed_records(30, seed=11, longest=90)
    want = list(iter_ensemble(records, params=params))
    chunks = list(iter_ensemble_chunks(records, params=params))
    got = [r for c in chunks for r in c.results]
    assert [r.to_dict() for r in got] == [r.to_dict() for r in want]
    assert [r.description for r in got] == [r.description for r in want]
    for c in chunks:
        for k, r in enumerate(c.results):
            a, b = c.offsets[k], c.offsets[k + 1]
            pairs = [(x + 1, y + 1, float(q)) for x, y, q in zip(c.i[a:b].tolist(), c.j[a:b].tolist(), c.p[a:b])]
            assert [t for t in pairs if t[2] >= 1e-5] == next(w for w in want if w.id == r.id).pairs_above(1e-5)


def per_record_text(path, fmt, noconv=False, backend="cpu"):
    """What the record-by-record path writes: its formatters over iter_ensemble's results."""
    from bioaccel.cli.fold_batch import written
    from bioaccel.inputs.fasta import read_fasta

    out, bpp = io.StringIO(), io.StringIO()
    bpp.write("id\ti\tj\tprobability\n")
    table = None
    for result in iter_ensemble(read_fasta(path), backend=backend):
        (result,) = written([result], noconv)
        if fmt == "json":
            table = table or TableWriter(out, json_columns(result), "json")
            table.write([result])
        else:
            out.write(vienna(result))
        bpp.write(bpp_lines(result))
    return out.getvalue(), bpp.getvalue()


def write_fasta(path, records):
    path.write_text("".join(f">{name}\n{seq}\n" for name, seq in records))
    return str(path)


@pytest.mark.parametrize("fmt", ["vienna", "json"])
def test_command_line_bytes_equal_the_per_record_path(tmp_path, fmt):
    fasta = write_fasta(tmp_path / "in.fa", mixed_records(40, seed=17))
    code = main(["fold", fasta, "-p", "--format", fmt, "-o", str(tmp_path / "out"), "--bpp", str(tmp_path / "bpp"),
                 "-q"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    text, bpp = per_record_text(fasta, fmt)
    assert (tmp_path / "out").read_bytes() == text.encode() and (tmp_path / "bpp").read_bytes() == bpp.encode()




def test_bpp_to_standard_output_alone(tmp_path):
    """--bpp - with -o FILE: the pairs on standard output, as record by record."""
    fasta = write_fasta(tmp_path / "in.fa", mixed_records(6, seed=29, longest=50))
    out = io.StringIO()
    assert main(["fold", fasta, "-p", "-o", str(tmp_path / "out"), "--bpp", "-", "-q"], stdout=out,
                stderr=io.StringIO()) == 0
    text, bpp = per_record_text(fasta, "vienna")
    assert out.getvalue() == bpp and (tmp_path / "out").read_text() == text

# ---- the GPU, simulated: the device kernel emulated by its host build (test_turner_pf_gpu.py) ---------

from test_turner_pf_gpu import _fake_gpu, host_library, host_pf  # noqa: E402,F401  (fixtures)


@pytest.fixture
def simulated_gpu(host_library, monkeypatch):  # noqa: F811
    _, launch = _fake_gpu(host_library, monkeypatch)
    # small groups and a pair buffer that overflows (redone in halves); the MFE by the CPU's fold
    monkeypatch.setattr(launch, "SIZES", launch.SIZES.replace(threads=32, group=5, pair_bytes=16 * 12_000))
    monkeypatch.setattr(TurnerModel, "fold_gpu", lambda self, codes, variant, tb: self.fold_cpu(codes, "auto", tb))


@pytest.mark.parametrize("fmt", ["vienna", "json"])
def test_simulated_gpu_bytes_equal_the_per_record_path(tmp_path, simulated_gpu, fmt):
    records = mixed_records(8, seed=23, longest=60)
    fasta = write_fasta(tmp_path / "in.fa", records)
    chunks = list(iter_ensemble_chunks(records, backend="gpu"))
    want = list(iter_ensemble(records, backend="gpu"))
    assert [r.to_dict() for c in chunks for r in c.results] == [r.to_dict() for r in want]
    code = main(["fold", fasta, "-p", "--backend", "gpu", "--format", fmt, "-o", str(tmp_path / "out"),
                 "--bpp", str(tmp_path / "bpp"), "-q"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    text, bpp = per_record_text(fasta, fmt, backend="gpu")
    assert (tmp_path / "out").read_bytes() == text.encode() and (tmp_path / "bpp").read_bytes() == bpp.encode()


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["vienna", "json"])
def test_gpu_chunks_and_command_line_equal_the_per_record_path(tmp_path, fmt):
    """On the device: the chunk path's results and bytes as the per-record path's, both on the GPU."""
    records = mixed_records(40, seed=31, longest=200)
    want = list(iter_ensemble(records, backend="gpu"))
    assert [r.to_dict() for c in iter_ensemble_chunks(records, backend="gpu") for r in c.results] == \
        [r.to_dict() for r in want]
    fasta = write_fasta(tmp_path / "in.fa", records)
    code = main(["fold", fasta, "-p", "--backend", "gpu", "--format", fmt, "-o", str(tmp_path / "out"),
                 "--bpp", str(tmp_path / "bpp"), "-q"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    text, bpp = per_record_text(fasta, fmt, backend="gpu")
    assert (tmp_path / "out").read_bytes() == text.encode() and (tmp_path / "bpp").read_bytes() == bpp.encode()
