"""Local folding (RNAplfold): bioaccel.fold.local_ensemble against the plain-Python windowed definition
(tests/naive_plfold.py) and against ViennaRNA's RNA.pfl_fold / pfl_fold_up, the stretches and threads
changing nothing, the scale holding at any length, and the command line."""
import io
import math
import random

import numpy as np
import pytest

import bioaccel.fold._turner_plfold as plfold_driver
from bioaccel.cli.main import main
from bioaccel.errors import InvalidParameter
from bioaccel.fold import TurnerModel, iter_local_chunks, local_ensemble
from bioaccel.inputs.alphabet import encode
from naive_plfold import plfold as naive_plfold

RNA = pytest.importorskip("RNA")


def random_rna(rng, n, letters="ACGU"):
    return "".join(rng.choice(letters) for _ in range(n))


def pairs_of(result):
    return {(i, j): p for i, j, p in result.pairs_above(0.0)}


def vienna_plfold(seq, window, span, cutoff, model):
    """RNA.pfl_fold's pairs {(i, j): p} and pfl_fold_up's unpaired probabilities under ``model`` (the
    old API reads the temperature and noLP from ViennaRNA's global defaults: set and restored)."""
    before = RNA.cvar.temperature, RNA.cvar.noLP, RNA.cvar.noGU
    RNA.cvar.temperature, RNA.cvar.noLP, RNA.cvar.noGU = model.temperature, int(model.no_lp), int(model.no_gu)
    try:
        pairs = {(e.i, e.j): e.p for e in RNA.pfl_fold(seq, window, span, cutoff)}
        if len(seq) < 5:                # no pair fits (and pfl_fold_up corrupts its heap on 2-4 bases)
            return pairs, [1.0] * len(seq)
        up = RNA.pfl_fold_up(seq, 1, min(window, len(seq)), min(span, window, len(seq)))
    finally:
        RNA.cvar.temperature, RNA.cvar.noLP, RNA.cvar.noGU = before
    return pairs, [up[k][1] for k in range(1, len(seq) + 1)]


@pytest.fixture
def short_stretches(monkeypatch):
    """Stretches of four windows (the least the plan takes), so that short inputs cross many."""
    monkeypatch.setattr(plfold_driver, "STRETCH_BYTES", 1)


@pytest.mark.parametrize("n, window, span, model, workers", [
    (44, 18, 14, TurnerModel(), 1),
    (50, 22, 22, TurnerModel(temperature=25.0, no_lp=True), 2),
    (38, 16, 9, TurnerModel(temperature=50.0), 2),
    (30, 45, 20, TurnerModel(no_lp=True), 1),                 # the window longer than the sequence
])
def test_equals_naive_definition(short_stretches, n, window, span, model, workers):
    rng = random.Random(n * 7 + window)
    for seq in (random_rna(rng, n), random_rna(rng, n, "GCAU" * 2 + "GC")):
        want, want_up = naive_plfold(encode(seq), window, span, model.temperature, model.no_lp)
        r = local_ensemble(seq, window=window, span=span, cutoff=0.0, unpaired=True, params=model,
                           threads=workers)[0]
        got = pairs_of(r)
        assert got.keys() == want.keys()
        assert max(abs(got[k] - want[k]) for k in want) < 1e-12
        assert np.abs(r.unpaired - np.array(want_up)).max() < 1e-12
        assert all(j - i < span for i, j in got)


@pytest.mark.parametrize("model", [TurnerModel(), TurnerModel(temperature=25.0), TurnerModel(no_lp=True),
                                   TurnerModel(temperature=50.0, no_lp=True), TurnerModel(no_gu=True)])
def test_equals_rnaplfold(model):
    """Every pair RNA.pfl_fold reports (probability >= cutoff) and no other, to 1e-6 (ViennaRNA's list
    holds single-precision floats), and every base's unpaired probability (pfl_fold_up); pairs within
    1e-6 of the cutoff may fall either side. Random RNAs of 1-300 nt, a third with N."""
    rng = random.Random(int(model.temperature) + 2 * model.no_lp + 3 * model.no_gu)
    cases = [(1, 70, None, 0.01), (5, 70, None, 0.0)]
    cases += [(rng.randint(6, 300), rng.randint(5, 120), None, rng.choice([0.0, 0.01, 0.1])) for _ in range(12)]
    for k, (n, window, span, cutoff) in enumerate(cases):
        span = rng.randint(5, window) if k >= 2 else window
        seq = random_rna(rng, n, "ACGU" * 8 + "N" if k % 3 == 2 else "ACGU")      # N pairs with nothing
        want, want_up = vienna_plfold(seq, window, span, cutoff, model)
        r = local_ensemble(seq, window=window, span=span, cutoff=cutoff, unpaired=True, params=model)[0]
        got = pairs_of(r)
        near = {key for key, p in {**want, **got}.items() if abs(p - cutoff) < 1e-6}
        assert got.keys() - near == want.keys() - near, (n, window, span)
        assert max([abs(got[key] - want[key]) for key in want.keys() & got.keys()] or [0]) < 1e-6
        assert np.abs(r.unpaired - np.array(want_up)).max() < 1e-6 if n else True


def test_stretches_and_threads_change_nothing(short_stretches):
    """A 1,500-nt sequence in stretches of 4 windows on 1 and 2 threads, and whole: the same pairs."""
    seq = random_rna(random.Random(5), 1_500)
    parts = [local_ensemble(seq, window=60, span=40, cutoff=1e-4, threads=t)[0] for t in (1, 2)]
    chunks = list(iter_local_chunks(seq, window=60, span=40, cutoff=1e-4))
    assert len(chunks) > 4 and [c.start for _, c in chunks] == sorted(c.start for _, c in chunks)
    plfold_driver.STRETCH_BYTES = 1 << 40
    whole = local_ensemble(seq, window=60, span=40, cutoff=1e-4)[0]
    for r in parts:
        assert np.array_equal(r.i, whole.i) and np.array_equal(r.j, whole.j)
        assert np.abs(r.p - whole.p).max() < 1e-12


def vienna_window(seq, window, span, cutoff, energy_per_base):
    """ViennaRNA's windowed probabilities (doubles, through ``probs_window``) with the Boltzmann factors
    scaled by hand for a free energy of ``energy_per_base`` kcal/mol per base (RNAplfold -S's remedy)."""
    md = RNA.md()
    md.window_size, md.max_bp_span = window, span
    fc = RNA.fold_compound(seq, md, RNA.OPTION_WINDOW)
    fc.exp_params_rescale(energy_per_base * len(seq))
    pairs = {}

    def take(values, size, k, most, what, data):
        if what & RNA.PROBS_WINDOW_BPP:
            pairs.update(((k, j), p) for j, p in enumerate(values) if p is not None and j > k and p >= cutoff)

    fc.probs_window(0, RNA.PROBS_WINDOW_BPP, take)
    return pairs


def test_scale_needs_no_hand_tuning():
    """GC repeats in windows of 400 (each window's Z about e^560 unscaled) then an A run: RNA.pfl_fold's
    default scale gives no pairs there; with its scale set by hand ViennaRNA's probabilities are ours to
    1e-12, and ours needed nothing (each base's scale follows its own marginal weight)."""
    seq = "GC" * 250 + "GGGAAACCC" * 10 + "A" * 100
    assert not RNA.pfl_fold(seq, 400, 120, 1e-3)
    want = vienna_window(seq, 400, 120, 1e-3, -1.0)
    r = local_ensemble(seq, window=400, span=120, cutoff=1e-3, unpaired=True)[0]
    got = pairs_of(r)
    near = {k for k, p in {**want, **got}.items() if abs(p - 1e-3) < 1e-12}
    assert got.keys() - near == want.keys() - near and len(want) > 10_000
    assert max(abs(got[k] - want[k]) for k in want.keys() & got.keys()) < 1e-12


@pytest.mark.slow
def test_scale_holds_where_no_uniform_scale_does():
    """Windows of 1,200 over 2,000 GC-repeat bases (Z about e^1700) and then 1,000 A: no single scale
    per base keeps both in double range; ours stays finite, each base's unpaired probability in [0, 1]."""
    seq = "GC" * 1_000 + "A" * 1_000 + "GGGAAACCC" * 50
    r = local_ensemble(seq, window=1_200, span=200, cutoff=1e-3, unpaired=True, threads=2)[0]
    assert np.isfinite(r.p).all() and r.p.max() <= 1 + 1e-12 and r.pairs > 100_000
    assert np.isfinite(r.unpaired).all() and (r.unpaired > -1e-9).all() and (r.unpaired < 1 + 1e-9).all()
    assert r.unpaired[:1_900].max() < 0.5 and r.unpaired[2_100:2_900].min() > 0.99


def test_empty_short_and_refusals():
    rs = local_ensemble(["", "ACG", "GGGGAAACCCC"], window=11, unpaired=True)
    assert [r.pairs for r in rs[:2]] == [0, 0] and rs[2].pairs > 0
    assert rs[0].unpaired.shape == (0,) and rs[1].unpaired.tolist() == [1.0, 1.0, 1.0]
    for kwargs, says in (({"window": 10, "span": 11}, "at most the window"), ({"window": 0}, "window"),
                         ({"cutoff": 1.5}, "cutoff"), ({"backend": "gpu"}, "CPU only"),
                         ({"params": __import__("bioaccel.fold", fromlist=["x"])
                                                             .FoldParams()}, "turner2004")):
        with pytest.raises(InvalidParameter, match=says):
            local_ensemble("GGGGAAACCCC", **kwargs)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_bpp_and_unpaired_equal_rnaplfold(tmp_path):
    rng = random.Random(11)
    records = [("a", random_rna(rng, 140)), ("b", random_rna(rng, 60)), ("c", "ACGU")]
    path, bpp, up = tmp_path / "in.fa", tmp_path / "p.tsv", tmp_path / "u.tsv"
    path.write_text("".join(f">{a} x\n{s}\n" for a, s in records))
    code, out, err = run("fold", str(path), "--model", "turner2004", "--partition", "--window", "50", "--span",
                         "30", "--cutoff", "0.001", "--bpp", str(bpp), "--unpaired", str(up), "-T", "30")
    assert code == 0 and out == "", err
    lines = bpp.read_text().splitlines()
    assert lines[0] == "id\ti\tj\tprobability"
    got = {(name, int(i), int(j)): float(p) for name, i, j, p in (x.split("\t") for x in lines[1:])}
    ups = [x.split("\t") for x in up.read_text().splitlines()]
    assert ups[0] == ["id", "i", "unpaired_probability"] and len(ups) == 1 + sum(len(s) for _, s in records)
    for name, seq in records:
        want, want_up = vienna_plfold(seq, 50, 30, 0.001, TurnerModel(temperature=30.0))
        mine = {(i, j): p for (a, i, j), p in got.items() if a == name}
        near = {k for k, p in {**want, **mine}.items() if abs(p - 0.001) < 1e-6}
        assert mine.keys() - near == want.keys() - near
        assert all(abs(mine[k] - want[k]) < 2e-6 for k in mine.keys() & want.keys())
        assert all(abs(float(u) - want_up[int(i) - 1]) < 2e-6 for a, i, u in ups[1:] if a == name)


@pytest.mark.parametrize("argv, says", [
    (["--window", "20", "--bpp", "x.tsv"], "add --partition"),
    (["-p", "--span", "10", "--bpp", "x.tsv"], "add --window"),
    (["-p", "--window", "20"], "--bpp FILE"),
    (["-p", "--window", "20", "--span", "30", "--bpp", "-"], "at most the window"),
    (["-p", "--window", "20", "--bpp", "-", "--plot", "d.svg"], "--plot"),
    (["-p", "--window", "20", "--bpp", "-", "--format", "json"], "--format json"),
    (["-p", "--window", "20", "--bpp", "-", "--model", "nussinov"], "turner2004"),
    (["-p", "--window", "20", "--bpp", "-", "--cutoff", "2"], "cutoff"),
    (["-p", "--window", "20", "--bpp", "-", "--backend", "gpu"], "--backend gpu"),
])
def test_cli_refusals(tmp_path, argv, says):
    path = tmp_path / "in.fa"
    path.write_text(">a\nGGGGAAACCCC\n")
    code, out, err = run("fold", str(path), *argv)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.tsv").exists() and math.isfinite(code)
