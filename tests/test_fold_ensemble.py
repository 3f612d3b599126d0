"""The Boltzmann ensemble through the API (:func:`bioaccel.fold.ensemble`) and the command line
(``bioaccel fold --partition``, ``--bpp``, ``--plot``), against ViennaRNA's RNAfold -p --MEA: the
ensemble energy, MFE frequency, ensemble diversity, centroid, MEA and the pseudo-bracket line."""
import io
import json
import math
import random

import numpy as np
import pytest

from bioaccel.cli.main import main
from bioaccel.errors import InvalidParameter, ResourceError
from bioaccel.fold import TurnerModel, check_ensemble_sizes, ensemble, ensemble_work

import RNA  # noqa: E402  (ViennaRNA, a [test] extra: the reference of the Turner model)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def random_rnas(count, low, high, seed, alphabet="ACGU"):
    rng = random.Random(seed)
    return [("r%d" % k, "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))) for k in range(count)]


def vienna(seq, model):
    md = RNA.md()
    md.temperature, md.noLP, md.noGU = model.temperature, int(model.no_lp), int(model.no_gu)
    fc = RNA.fold_compound(seq, md)
    structure, mfe = fc.mfe()
    fc.exp_params_rescale(mfe)
    line, g = fc.pf()
    centroid, dist = fc.centroid()
    mea, mea_value = fc.MEA()
    return dict(structure=structure, mfe=mfe, line=line, g=g, frequency=fc.pr_energy(mfe),
                diversity=fc.mean_bp_distance(), centroid=centroid, dist=dist, centroid_energy=fc.eval_structure(centroid),
                mea=mea, mea_value=mea_value, mea_energy=fc.eval_structure(mea), bpp=np.array(fc.bpp())[1:, 1:])


@pytest.mark.parametrize("model", [TurnerModel(), TurnerModel(no_lp=True), TurnerModel(temperature=50.0)],
                         ids=["default", "noLP", "50C"])
def test_ensemble_equals_rnafold_p(model):
    records = random_rnas(8, 10, 160, 11) + [("trna", "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA")]
    for r in ensemble(records, params=model):
        v = vienna(r.sequence, model)
        assert abs(r.ensemble_energy - v["g"]) < 1e-4             # ViennaRNA returns a float (single)
        # ViennaRNA's energies are single-precision floats: to 1e-5 kcal/mol, the frequency relatively 1e-5
        assert abs(r.energy - v["mfe"]) < 1e-5
        assert abs(r.mfe_frequency - v["frequency"]) < 1e-5 * v["frequency"]
        assert abs(r.ensemble_diversity - v["diversity"]) < 1e-9
        assert r.centroid == v["centroid"] and abs(r.centroid_distance - v["dist"]) < 1e-9
        assert abs(r.centroid_energy - v["centroid_energy"]) < 1e-5
        assert r.mea == v["mea"] and abs(r.mea_accuracy - v["mea_value"]) < 1e-4   # MEA value: a float
        assert abs(r.mea_energy - v["mea_energy"]) < 1e-5
        assert r.ensemble_line == v["line"]
        assert np.abs(r.bpp - v["bpp"]).max() < 1e-9
        assert math.isclose(r.log_z, -r.ensemble_energy * 1000 / ((model.temperature + 273.15) * 1.98717))


def test_empty_and_short():
    r = ensemble(["", "ACGU"])
    assert [x.structure for x in r] == ["", "...."]
    assert r[1].log_z == 0 and r[1].mfe_frequency == 1 and r[1].ensemble_diversity == 0


def test_refusals():
    with pytest.raises(InvalidParameter):
        ensemble("GGGAAACCC", backend="tpu")
    with pytest.raises(InvalidParameter):
        ensemble("GGGAAACCC", backend="tpu", client="local")        # refused before a cluster starts
    work = ensemble_work(["GGGAAACCC"])
    assert work.function.keywords["backend"] == "cpu" and not work.gpu   # CPU work: any worker
    with pytest.raises(ResourceError):
        check_ensemble_sizes([10_000_000])


def test_cli_vienna_layout_equals_rnafold(tmp_path):
    records = random_rnas(3, 20, 90, 12) + [("n", "ACGUACGUNNACGUACGUGGGAAAUCCC")]
    path = tmp_path / "in.fa"
    path.write_text("".join(f">{a}\n{s}\n" for a, s in records))
    code, out, err = run("fold", str(path), "--partition", "-q")
    assert code == 0, err
    blocks = out.split(">")[1:]
    for (name, seq), block in zip(records, blocks):
        v = vienna(seq, TurnerModel())
        lines = block.splitlines()
        assert lines[0] == name and lines[1] == seq
        assert lines[2] == f"{v['structure']} ({v['mfe']:6.2f})"
        assert lines[3] == f"{v['line']} [{v['g']:6.2f}]"
        assert lines[4] == f"{v['centroid']} {{{v['centroid_energy']:6.2f} d={v['dist']:.2f}}}"
        assert lines[5] == f"{v['mea']} {{{v['mea_energy']:6.2f} MEA={v['mea_value']:.2f}}}"
        assert lines[6] == (f" frequency of mfe structure in ensemble {v['frequency']:g}; "
                            f"ensemble diversity {v['diversity']:<6.2f}")


def test_cli_bpp_json_and_plot(tmp_path):
    records = random_rnas(2, 30, 60, 13)
    path = tmp_path / "in.fa"
    path.write_text("".join(f">{a}\n{s}\n" for a, s in records))
    bpp, plot = tmp_path / "p.tsv", tmp_path / "dot.svg"
    code, out, err = run("fold", str(path), "-p", "--format", "json", "--bpp", str(bpp), "--plot", str(plot), "-q")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in rows] == ["r0", "r1"] and "score" not in rows[0]
    lines = bpp.read_text().splitlines()
    assert lines[0].split() == ["id", "i", "j", "probability"]
    got = {}
    for line in lines[1:]:
        name, i, j, p = line.split("\t")
        got[name, int(i), int(j)] = float(p)
    for name, seq in records:
        P = vienna(seq, TurnerModel())["bpp"]
        want = {(name, i + 1, j + 1): P[i, j] for i, j in zip(*np.nonzero(P >= 1e-5))}
        mine = {k: p for k, p in got.items() if k[0] == name}
        assert set(mine) == set(want)
        assert max(abs(mine[k] - want[k]) for k in want) < 1e-6
    assert plot.read_bytes().lstrip().startswith(b"<?xml") or b"<svg" in plot.read_bytes()[:400]


@pytest.mark.parametrize("argv, says", [
    (["--bpp", "x.tsv"], "add --partition"),
    (["-p", "--eval"], "--eval"),
    (["-p", "--format", "ct"], "one structure per record"),
    (["-p", "--variant", "batch"], "--variant"),
])
def test_cli_refusals(tmp_path, argv, says):
    path = tmp_path / "in.fa"
    path.write_text(">a\nGGGGAAACCCC\n")
    code, out, err = run("fold", str(path), *argv)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_cli_nussinov_partition(tmp_path):
    """The Nussinov model's partition function through the same path: ln Z and every probability of
    --bpp are FoldParams.partition_cpu's, the values are scores (no energy field), and the weights and
    minimum loop given on the command line are the model's."""
    import numpy as np

    from bioaccel.fold import FoldParams
    from bioaccel.inputs.alphabet import encode

    seq = "GGGGAAACCCCAUAUAGCGCUUCGGCGC"
    path, bpp = tmp_path / "in.fa", tmp_path / "bpp.tsv"
    path.write_text(f">a desc\n{seq}\n")
    code, out, err = run("fold", str(path), "-p", "--model", "nussinov", "--gc", "3", "--au", "2", "--min-loop", "3",
                         "--format", "json", "--bpp", str(bpp))
    row = json.loads(out)
    params = FoldParams(gc=3, au=2, min_loop=3)
    (log_z, P), = params.partition_cpu([encode(seq)], True)
    assert code == 0, err
    assert abs(row["log_z"] - log_z) <= 1e-12 * abs(log_z)
    assert {"score", "centroid_score", "mea_score"} <= set(row) and not any("energy" in k for k in row)
    assert 0 < row["mfe_frequency"] <= 1 and row["score"] == max(r.score for r in __import__(
        "bioaccel.fold", fromlist=["nussinov"]).nussinov([seq], params=params))
    lines = bpp.read_text().splitlines()
    assert lines[0] == "id\ti\tj\tprobability"
    got = {(int(i), int(j)): float(p) for _, i, j, p in (line.split("\t") for line in lines[1:])}
    want = {(i + 1, j + 1): P[i, j] for i, j in zip(*np.nonzero(P >= 1e-5))}
    assert got.keys() == want.keys() and all(abs(got[k] - want[k]) <= 1e-6 for k in want)


def test_cli_other_model(tmp_path):
    """Any model with partition_cpu and log_weight runs through the same path (Nussinov once it has them);
    one without is refused in one line."""
    from bioaccel.fold import FoldParams

    path = tmp_path / "in.fa"
    path.write_text(">a\nGGGGAAACCCC\n")
    code, out, err = run("fold", str(path), "-p", "--model", "nussinov", "--format", "json")
    if hasattr(FoldParams, "partition_cpu"):
        row = json.loads(out)
        assert code == 0 and row["score"] > 0 and "energy" not in row and 0 < row["mfe_frequency"] <= 1
    else:
        assert code == 2 and "no partition function" in err and len(err.strip().splitlines()) == 1
