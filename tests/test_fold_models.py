"""Models are a seam: a second model, defined here and registered for the test alone, folds through
``fold``, ``iter_fold``, ``fold_one``, the writers and the command line without a change elsewhere; and
the family's functions keep the contract (keywords, frozen results)."""
import dataclasses
import inspect
import io
import json
from typing import ClassVar

import pytest

from bioaccel.cli.main import main
from bioaccel.errors import InvalidParameter
from bioaccel.fold import (MODELS, FoldModel, FoldParams, FoldResult, FoldWriter, fold, fold_one, fold_work,
                           iter_fold, iter_nussinov, nussinov)
from bioaccel.fold._models import ModelEntry
from bioaccel.runtime.registry import Variant, VariantRegistry

SEQS = [("hairpin", "GGGAAAUCC"), ("two", "GGGGAAACCCCAUAUAUGCGCAAAAGCGC"), ("none", "AAAA"), ("empty", "")]


@dataclasses.dataclass(frozen=True)
class NegatedPairs:
    """A toy energy model: every base pair lowers the energy by ``per_pair`` kcal/mol (Nussinov's
    optimum of unit weights, negated), in integer dcal/mol as an energy model counts."""

    per_pair: float = 1.0

    name: ClassVar[str] = "toy-negated"
    variants: ClassVar[VariantRegistry] = VariantRegistry(
        "toy", [Variant("plain", ("cpu",), "Nussinov's tiled fill, negated")], defaults={"cpu": "plain"})
    json_columns: ClassVar[tuple] = ("id", "structure", "energy", "pairs", "model", "variant")

    @classmethod
    def from_options(cls, options):
        if options:
            raise InvalidParameter(f"the {cls.name} model has no option {', '.join(sorted(options))}")
        return cls()

    def result_values(self, units):
        return {"energy": units / 100}

    @staticmethod
    def vienna_value(result):
        return f"{result.energy:6.2f}"

    @staticmethod
    def ct_header(result):
        return f"{result.length:5d}  ENERGY = {result.energy}  {result.id}"

    def check_sizes(self, lengths, variant, *, backend="cpu"):
        FoldParams().check_sizes(lengths, "tiled", backend=backend)

    def estimate_seconds(self, lengths, variant, *, backend="cpu", threads=0):
        return 0.0

    def one_per_core(self, n, variant):
        return n <= 20

    def fold_cpu(self, codes_list, variant, traceback):
        folded = FoldParams().fold_cpu(codes_list, "tiled", traceback)
        return [(-round(100 * self.per_pair) * units, pair_to) for units, pair_to in folded]

    def fold_gpu(self, codes_list, variant, traceback):
        raise AssertionError("the toy has no GPU variant")

    def evaluate(self, codes, pair_to):
        return -round(100 * self.per_pair) * FoldParams().evaluate(codes, pair_to)

    def partition_cpu(self, codes_list, want_bpp):
        # the FoldModel protocol's ensemble methods: Nussinov's partition function, as FoldParams has it
        return FoldParams().partition_cpu(codes_list, want_bpp)

    def log_weight(self, units):
        return -units / 100


@pytest.fixture
def toy(monkeypatch):
    """The toy model, registered in MODELS for this test only."""
    entry = ModelEntry(NegatedPairs.name, f"{__name__}:NegatedPairs", "Nussinov's pairs, negated, as an energy",
                       NegatedPairs.variants)
    monkeypatch.setitem(MODELS.entries, entry.name, entry)
    return NegatedPairs()


def test_a_second_model_folds_through_fold_and_iter_fold(toy):
    assert isinstance(toy, FoldModel)
    reference = nussinov(SEQS)
    for results in (fold(SEQS, params=toy), list(iter_fold(iter(SEQS), params=toy, threads=1))):
        assert [r.structure for r in results] == [r.structure for r in reference]
        assert [r.energy for r in results] == [-r.score for r in reference]
        assert all(r.score is None and r.model == "toy-negated" and r.variant == "plain" for r in results)
        assert [r.score_units for r in results] == [-100 * r.score for r in reference]
        assert [r.value_name for r in results] == ["energy"] * len(SEQS)
    assert fold_one("GGGAAAUCC", params=toy) == ("(((...)))", -3.0)
    assert fold_one("GGGAAAUCC", params=NegatedPairs(per_pair=0.5)) == ("(((...)))", -1.5)
    row = fold("GGGAAAUCC", params=toy)[0].to_dict()
    assert row["energy"] == -3.0 and "score" not in row and row["model"] == "toy-negated"
    work = fold_work(SEQS, params=toy)
    assert [r.energy for r in work.function([item.payload for item in work.items])] == [-3.0, -9.0, 0.0, 0.0]


def test_the_writers_ask_the_model(toy):
    results = fold(SEQS[:2], params=toy)
    text = {}
    for fmt in ("vienna", "ct", "bpseq", "json"):
        out = io.StringIO()
        FoldWriter(out, fmt).write(results)
        text[fmt] = out.getvalue()
    assert text["vienna"].splitlines()[:3] == [">hairpin", "GGGAAAUCC", "(((...))) ( -3.00)"]
    assert text["ct"].splitlines()[0] == "    9  ENERGY = -3.0  hairpin"
    plain = io.StringIO()
    FoldWriter(plain, "bpseq").write(nussinov(SEQS[:2]))
    assert text["bpseq"] == plain.getvalue()                  # no value in bpseq: the same text
    rows = [json.loads(line) for line in text["json"].splitlines()]
    assert list(rows[0]) == list(NegatedPairs.json_columns)
    assert rows[0] == {"id": "hairpin", "structure": "(((...)))", "energy": -3.0, "pairs": 3,
                       "model": "toy-negated", "variant": "plain"}


def test_the_command_line_folds_with_a_registered_model(toy, tmp_fasta):
    path = tmp_fasta("".join(f">{name}\n{seq}\n" for name, seq in SEQS[:3]))
    out, err = io.StringIO(), io.StringIO()
    assert main(["fold", path, "--model", "toy-negated"], stdout=out, stderr=err) == 0, err.getvalue()
    assert out.getvalue().splitlines()[2] == "(((...))) ( -3.00)"
    assert out.getvalue().splitlines()[8] == ".... (  0.00)"
    listed = io.StringIO()
    assert main(["fold", "--list-models"], stdout=listed) == 0
    assert [line.split()[0] for line in listed.getvalue().splitlines()] == ["model", "turner2004", "nussinov", "toy-negated"]
    err = io.StringIO()
    assert main(["fold", path, "--model", "toy-negated", "--min-loop", "2"], stdout=io.StringIO(), stderr=err) == 2
    assert "no option --min-loop" in err.getvalue()
    err = io.StringIO()
    assert main(["fold", path, "--model", "toy-negated", "--variant", "tiled"], stdout=io.StringIO(), stderr=err) == 2
    assert "--variant tiled is a variant of the turner2004 model, not of toy-negated" in err.getvalue()


def test_params_must_be_a_registered_model():
    with pytest.raises(InvalidParameter, match="params must be a TurnerModel or FoldParams, got NegatedPairs"):
        fold("GGGAAAUCC", params=NegatedPairs())
    with pytest.raises(InvalidParameter, match="params must be a FoldParams, got int"):
        nussinov("GGGAAAUCC", params=3)


def test_the_family_keeps_the_contract():
    keywords = ["params", "backend", "variant", "threads", "traceback"]
    for function, extra in ((fold, ["client"]), (nussinov, ["client"]), (iter_fold, []), (iter_nussinov, [])):
        parameters = inspect.signature(function).parameters
        assert list(parameters) == ["sequences", *keywords, *extra], function.__name__
        assert all(parameters[k].kind is inspect.Parameter.KEYWORD_ONLY for k in [*keywords, *extra])
        assert parameters["params"].default is None and parameters["backend"].default == "cpu"
    assert list(inspect.signature(fold_one).parameters) == ["sequence", "params", "backend", "variant"]
    result = fold("GGGAAAUCC")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.sequence = "GGGAAATCC"
    # the empty sequence folds to the empty structure under every model (value 0)
    assert isinstance(result, FoldResult) and fold("")[0].energy == 0 and fold("")[0].structure == ""
    assert nussinov("")[0].score == 0 and nussinov("")[0].structure == ""
