"""The motif API contract: one motif or many in, lists in input order out (``iter_`` forms stream),
MotifParams checked on construction, variants through the registries, threads for the call only."""
import dataclasses
import math
import os

import numba
import numpy as np
import pytest

from bioaccel.results.rows import to_frame
from bioaccel.errors import InputError, InvalidParameter, NotAvailable
from bioaccel.motif import (COMPARE_VARIANTS, PSSM, VARIANTS, Background, MotifParams, compare, iter_compare,
                            iter_pvalues, iter_thresholds, pvalues, read_motifs, thresholds)

DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")
JASPAR = os.path.join(DATA, "two.jaspar")


def random_pssm(seed, m, motif_id):
    return PSSM(np.random.default_rng(seed).normal(size=(m, 4)) * 2, motif_id=motif_id)


def test_many_motifs_and_values_in_input_order():
    motifs = [random_pssm(1, 6, "a"), random_pssm(2, 9, "b"), random_pssm(3, 4, "c")]
    results = thresholds(motifs, [1e-2, 1e-3])
    assert [(t.motif_id, t.p) for t in results] == [(m, p) for m in "abc" for p in (1e-2, 1e-3)]
    assert [t.score for t in results] == [t.score for m in motifs for t in thresholds(m, [1e-2, 1e-3])]
    assert [t.score for t in iter_thresholds(iter(motifs), [1e-2, 1e-3], threads=1)] == [t.score for t in results]
    scores = [r.score for r in results[::2]]
    back = pvalues(motifs, scores)
    assert [r.motif_id for r in back] == [m for m in "abc" for _ in scores]
    assert [r.pvalue for r in iter_pvalues(motifs, scores)] == [r.pvalue for r in back]
    for variant in ("exact", "bucket"):
        one = pvalues(motifs[1], 3.0, variant=variant)
        assert len(one) == 1 and one[0].variant == variant and one[0].backend == "cpu"


def test_specs_are_read_under_params():
    params = MotifParams(background="0.3,0.2,0.2,0.3", preset="moods")
    from_spec = thresholds([JASPAR, "jaspar:MA0004.1"], 1e-3, params=params)
    read = read_motifs([JASPAR, "jaspar:MA0004.1"], params=params)
    assert [t.motif_id for t in from_spec] == ["MA0004.1", "MA9999.1", "MA0004.1"] == [m.motif_id for m in read]
    assert [t.score for t in from_spec] == [t.score for t in thresholds(read, 1e-3)]
    assert read[0].log_base == math.e and read[0].background.letter_frequencies[0] == pytest.approx(0.3)


def test_options_checked_before_any_motif_is_read():
    for call in (lambda: iter_thresholds("missing.jaspar", 1e-3, variant="magic"),
                 lambda: iter_pvalues("missing.jaspar", float("nan")),
                 lambda: iter_thresholds("missing.jaspar", 1e-3, precision=0.0),
                 lambda: iter_thresholds("missing.jaspar", 1e-3, threads=-1),
                 lambda: iter_thresholds("missing.jaspar", 1e-3, slices=0),
                 lambda: iter_compare("missing.jaspar", "missing.jaspar"),
                 lambda: iter_thresholds("missing.jaspar", 2.0)):
        with pytest.raises(InvalidParameter):
            call()
    with pytest.raises(InputError, match="no such file"):
        next(iter_thresholds("missing.jaspar", 1e-3))


def test_variants_through_the_registries():
    pssm = random_pssm(4, 6, "m")
    assert VARIANTS.names("cpu") == ("exact", "bucket") and VARIANTS.names("gpu") == ("bucket",)
    assert COMPARE_VARIANTS.names("gpu") == ()
    with pytest.raises(NotAvailable, match="'exact' is not available on the gpu backend"):
        pvalues(pssm, 1.0, variant="exact", backend="gpu")
    with pytest.raises(NotAvailable, match="COMPARE is not available on the gpu backend"):
        compare(pssm, pssm, pvalue=0.1, backend="gpu")
    with pytest.raises(InvalidParameter, match="choose one of exact, bucket"):
        compare(pssm, pssm, pvalue=0.1, variant="magic")
    assert thresholds(pssm, 1e-2, variant="BUCKETSCOREDISTRIBUTION")[0].variant == "bucket"
    assert pssm.distribution("bucket", slices=2).pvalue_result(1.0).variant == "bucket"


def test_threads_set_for_the_call_only():
    before = numba.get_num_threads()
    pssm = random_pssm(5, 12, "m")
    thresholds([pssm, pssm], 1e-3, threads=1)
    pvalues(pssm, 3.0, variant="bucket", threads=1)
    compare(pssm, pssm, pvalue=1e-2, variant="bucket", shifts=[0], threads=1)
    assert numba.get_num_threads() == before


def test_motif_params_checked_on_construction(tmp_path):
    for bad in (dict(pseudocount=float("nan")), dict(pseudocount=float("inf")), dict(pseudocount=-1.0),
                dict(log_base=1.0), dict(log_base=float("inf")), dict(log_base=float("nan")), dict(preset="bogus"),
                dict(background_order=-1), dict(background_order=True), dict(background_order=6),
                dict(background="0,0,0,1"), dict(background=3), dict(background_order=1)):
        with pytest.raises(InvalidParameter):
            MotifParams(**bad)
    fasta = tmp_path / "bg.fa"
    fasta.write_text(">a\nACGTACGTTTAA\n")
    params = MotifParams(background=str(fasta), background_order=1)
    assert params.background_model.order == 1
    assert MotifParams(background=Background.uniform()).background_model.order == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.preset = "moods"
    with pytest.raises(InvalidParameter, match="MotifParams"):
        read_motifs(JASPAR, params={"preset": "moods"})


def test_results_as_rows():
    pssm = random_pssm(6, 3, "short")
    frame = to_frame(pvalues(pssm, [0.0, 1.0]))
    assert list(frame.columns)[:5] == ["motif_id", "score", "pvalue", "pvalue_low", "pvalue_high"]
    unreachable = thresholds(pssm, 1e-3)[0]            # 4**-3 > 1e-3: no 3-mer is that rare
    assert not unreachable.reachable and unreachable.to_dict()["score"] is None
    assert unreachable.to_dict()["note"].startswith("no word reaches")
    row = compare(pssm, pssm, alpha=1.0, beta=1.0, shifts=[0])[0].to_dict()
    assert {"both_low", "both_high", "neither_high", "similarity", "shift"} <= set(row)
    assert "both" not in row


def test_compare_many_against_many():
    a, b = random_pssm(7, 4, "a"), random_pssm(8, 3, "b")
    results = compare([a, b], [b], pvalue=0.05, variant="exact")     # both strands of b by default
    assert [(r.motif1, r.motif2) for r in results] == [("a", "b")] * 12 + [("b", "b")] * 10
    assert [(r.strand, r.shift) for r in results[:12]] == [(s, k) for s in "+-" for k in range(-2, 4)]
    single = compare(a, b, pvalue=0.05)
    assert [r.both for r in single] == [r.both for r in results[:12]]
    forward = compare([a, b], [b], pvalue=0.05, strands="+")
    assert [(r.motif1, r.motif2) for r in forward] == [("a", "b")] * 6 + [("b", "b")] * 5
    with pytest.raises(InvalidParameter, match="shift 9 out of range"):
        compare(a, b, alpha=0.0, beta=0.0, shifts=[9])
    markov = PSSM(b.scores, motif_id="m", background=Background.markov(np.full(4, 0.25), np.full((4, 4), 0.25)))
    with pytest.raises(InvalidParameter, match="same background"):
        compare(a, markov, alpha=0.0, beta=0.0)


def test_a_client_gives_the_in_process_results(dask_client):
    """thresholds, pvalues and compare with client=: the motifs are the items of a batch (a Work) run on
    the cluster; the same results, in the same order."""
    motifs = [random_pssm(9, 7, "a"), random_pssm(10, 11, "b"), random_pssm(11, 5, "c")]
    assert thresholds(motifs, [1e-2, 1e-3], client=dask_client) == thresholds(motifs, [1e-2, 1e-3])
    assert pvalues(motifs, [2.0, 5.0], variant="bucket", client=dask_client) == pvalues(motifs, [2.0, 5.0],
                                                                                       variant="bucket")
    options = dict(pvalue=0.05, shifts=[0, 1])
    assert compare(motifs, motifs[:2], client=dask_client, **options) == compare(motifs, motifs[:2], **options)
    with pytest.raises(InvalidParameter, match="P-value"):
        thresholds(motifs, 2.0, client=dask_client)
