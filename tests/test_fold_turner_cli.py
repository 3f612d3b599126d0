"""The Turner 2004 model through the command line: the default model of ``bioaccel fold``, its options
(-T, --noLP, --noGU), RNAfold's output format, and ``--eval`` (the value of given structures, as
RNAeval). ViennaRNA (a test extra) is the reference."""
import io
import json
import random

import pytest

from bioaccel.cli.main import main
from bioaccel.fold import FoldParams, TurnerModel, evaluate
from bioaccel.fold._traceback import parse_dot_bracket
from bioaccel.inputs.structures import read_structures

import RNA  # noqa: E402  (ViennaRNA, a [test] extra: the reference of the Turner model)


def run(*argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        import sys

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def random_rnas(count, low, high, seed):
    rng = random.Random(seed)
    return [("r%d" % k, "".join(rng.choice("ACGU") for _ in range(rng.randint(low, high)))) for k in range(count)]


def fasta(records):
    return "".join(f">{name}\n{seq}\n" for name, seq in records)


def vienna_fold(seq, **options):
    md = RNA.md()
    for name, value in options.items():
        setattr(md, name, value)
    structure, energy = RNA.fold_compound(seq, md).mfe()
    return structure, energy


def test_turner_is_the_default_and_prints_as_rnafold(tmp_fasta):
    records = random_rnas(6, 20, 90, seed=1)
    code, out, err = run("fold", tmp_fasta(fasta(records)))
    assert code == 0 and err == ""
    lines = out.splitlines()
    for k, (name, seq) in enumerate(records):
        structure, energy = vienna_fold(seq)
        assert lines[3 * k:3 * k + 3] == [f">{name}", seq, f"{structure} ({energy:6.2f})"]


@pytest.mark.parametrize("argv, options", [
    (["-T", "25"], {"temperature": 25.0}),
    (["-T", "50"], {"temperature": 50.0}),
    (["--noLP"], {"noLP": 1}),
    (["--noGU"], {"noGU": 1}),
])
def test_rnafold_options(tmp_fasta, argv, options):
    records = random_rnas(4, 30, 80, seed=len(argv[0]) + len(argv[-1]))
    code, out, err = run("fold", tmp_fasta(fasta(records)), "--format", "json", *argv)
    assert code == 0, err
    for row, (_, seq) in zip(map(json.loads, out.splitlines()), records):
        structure, energy = vienna_fold(seq, **options)
        assert round(row["energy"] * 100) == round(energy * 100)
        # the structure may differ from ViennaRNA's where two are optimal; its own energy may not
        md = RNA.md()
        for name, value in options.items():
            setattr(md, name, value)
        assert round(RNA.fold_compound(seq, md).eval_structure(row["structure"]) * 100) == round(energy * 100)


def test_nussinov_stays_selectable(tmp_fasta):
    code, out, err = run("fold", tmp_fasta(">a\nGGGAAAUCC\n"), "--model", "nussinov")
    assert code == 0 and out.splitlines()[2] == "(((...))) ( 3)"


def test_a_nussinov_option_names_the_model_it_belongs_to(tmp_fasta):
    code, out, err = run("fold", tmp_fasta(">a\nGGGAAAUCC\n"), "--min-loop", "2")
    assert code == 2 and err.count("\n") == 1 and "--model nussinov" in err


def test_eval_gives_rnaeval_energies(tmp_fasta):
    records = random_rnas(8, 10, 120, seed=7)
    structures = [vienna_fold(seq)[0] for _, seq in records]
    rng = random.Random(3)
    text = ""
    for (name, seq), mfe in zip(records, structures):
        # the MFE structure, or the same with its first pair opened (a suboptimal structure)
        structure = list(mfe)
        if "(" in mfe and rng.random() < 0.5:
            i = mfe.index("(")
            structure[i] = structure[int(parse_dot_bracket(mfe)[i])] = "."
        structure = "".join(structure)
        text += f">{name} described\n{seq}\n{structure} ( 99.00)\n"
    code, out, err = run("fold", "--eval", tmp_fasta(text))
    assert code == 0, err
    lines = out.splitlines()
    for k, (record, structure) in enumerate(read_structures(tmp_fasta(text))):
        expected = RNA.fold_compound(record.sequence).eval_structure(structure)
        assert lines[3 * k + 2] == f"{structure} ({expected:6.2f})"


def test_eval_api_under_both_models():
    [turner] = evaluate([("GGGGAAACCCC", "((((...))))")])
    [nussinov] = evaluate([("GGGGAAACCCC", "((((...))))")], params=FoldParams(gc=2))
    assert (turner.energy, turner.model, nussinov.score, nussinov.model) == (-4.5, "turner2004", 8, "nussinov")
    assert evaluate([("GGGGAAACCCC", "((((...))))")], params=TurnerModel(temperature=25))[0].energy == -5.83


@pytest.mark.parametrize("text, needle", [
    (">a\nGGGAAAUCC\n", "record 'a' (line 1): no structure line"),
    (">a\nGGGAAAUCC\n((....))\n", "the structure has 8 positions, the sequence 9"),
    (">a\nGGGAAAACC\n(((...)))\n", "pair (3, 7) is G-A, not a canonical pair"),
    (">a\nGGGAAAUCC\n((.)...))\n", "unmatched ')'"),
    (">a\nGGXAAAUCC\n(((...)))\n", "invalid character 'X'"),
    ("((..))\n", "a structure with no sequence before it"),
])
def test_eval_refuses_bad_input_in_one_line(tmp_fasta, text, needle):
    code, out, err = run("fold", "--eval", tmp_fasta(text))
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err


def test_eval_refuses_folding_options(tmp_fasta):
    code, out, err = run("fold", "--eval", tmp_fasta(">a\nGGGAAAUCC\n(((...)))\n"), "--variant", "tiled")
    assert code == 2 and "--variant is for folding" in err


def test_eval_reads_standard_input(monkeypatch):
    code, out, err = run("fold", "--eval", "-", stdin="GGGGAAACCCC\n((((...))))\n", monkeypatch=monkeypatch)
    assert code == 0 and out == ">seq1\nGGGGAAACCCC\n((((...)))) ( -4.50)\n"
