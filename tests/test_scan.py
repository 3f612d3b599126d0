"""``bioaccel.scan.scan`` against the brute force of tests/naive_scan.py: every CPU variant (the sliced
ones at several slice lengths) on random matrices of 1 to 33 columns and random sequences with N, other
IUPAC letters, U and lower case; chunk borders; short and empty sequences; strand-asymmetric and
Markov backgrounds; q-values; --max-stored-hits; and Biopython's ``PSSM.search``."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from Bio.motifs.matrix import PositionSpecificScoringMatrix as BiopythonPSSM

import naive_scan as naive
from bioaccel.inputs.chunks import read_chunks, split_codes
from bioaccel.errors import InvalidParameter
from bioaccel.motif import PSSM, Background, pvalues
from bioaccel.scan import SCAN_VARIANTS, iter_scan, scan
from bioaccel.scan._pipeline import collect
from bioaccel.scan._sequences import valid_windows
from bioaccel.scan._setup import prepare
from bioaccel.scan._hits import Hits

#: Every CPU variant; those built on slices at several slice lengths (1: a table per column, 8: the
#: longest; 3 and 5 leave a shorter last slice on most matrices).
VARIANT_CASES = [("index", 4), ("index", 3), ("lookahead", 1), ("lookahead", 3), ("lookahead", 4),
                 ("lookahead", 8), ("slices", 1), ("slices", 2), ("slices", 5), ("slices", 8), ("naive", 4)]
CPU_VARIANTS = SCAN_VARIANTS.names("cpu")
LETTERS = np.array(list("ACGTacgtNnRU"))
WEIGHTS = np.array([20, 20, 20, 20, 3, 3, 3, 3, 2, 2, 1, 3], dtype=float)


def random_sequence(rng, n):
    """Mostly A, C, G, T in both cases, with N, n, R (windows to skip) and U (read as T)."""
    return "".join(rng.choice(LETTERS, size=n, p=WEIGHTS / WEIGHTS.sum()))


def random_scores(rng, m):
    """Log-odds-like entries, with a rounded column (words that tie) when there are 3 columns or more."""
    scores = rng.normal(size=(m, 4)) * 2
    if m >= 3:
        scores[1] = np.round(scores[1])
    return scores


def motif(scores, background=None, ident=None):
    m = len(scores)
    return PSSM(scores, motif_id=ident or f"m{m}", name=f"len{m}",
                background=background if background is not None else Background.uniform())


RNG = np.random.default_rng(2026)
#: Five records: empty, shorter than most motifs, and three of a few hundred letters.
SEQUENCES = [("empty", ""), ("short", random_sequence(RNG, 4))] + \
    [(f"r{k}", random_sequence(RNG, n)) for k, n in enumerate((160, 420, 650))]
#: (motifs, P) scanned together (MULTIPLESCAN); P-values of short motifs by enumeration.
PVALUE_GROUPS = [([motif(random_scores(RNG, m)) for m in (1, 2)], 0.3),
                 ([motif(random_scores(RNG, m)) for m in (3, 5, 6)], 0.02),
                 ([motif(random_scores(RNG, m)) for m in (7, 8)], 1e-2),
                 # more motifs than ScanPlan's FEW: prepare lays the plan out while the thresholds are searched
                 ([motif(random_scores(np.random.default_rng(11), m), ident=f"many{k}")
                   for k, m in enumerate((1, 2, 2, 3, 3, 4, 4, 5, 5))], 0.05)]


def _shifted(scores, sequences, quantile):
    """``scores`` shifted (the same amount from every entry) so that the window scores of
    ``sequences`` reach 0 at ``quantile``: one threshold, 0, gives every motif some hits."""
    scores = np.asarray(scores, dtype=float)
    m = len(scores)
    window = [sum(scores[j, "ACGT".index(c)] for j, c in enumerate(word))
              for _, text in sequences for _, word in naive.windows(text, m)]
    return scores - np.quantile(window, quantile) / m


#: Motifs of 1 to 33 columns for threshold 0 (the long ones beyond enumeration).
THRESHOLD_MOTIFS = [motif(_shifted(random_scores(RNG, m), SEQUENCES, 0.93)) for m in (1, 2, 5, 12, 33)]


def grid_units(pssm, score):
    return int(round(score * 2.0 ** naive.grid_bits(pssm.scores)))


def rows(frame, motifs):
    """Each hit as (motif, sequence, start, stop, strand, grid score, matched word), FIMO's order kept."""
    by_id = {m.motif_id: m for m in motifs}
    return [(r.motif_id, r.sequence_name, r.start, r.stop, r.strand, grid_units(by_id[r.motif_id], r.score),
             r.matched_sequence) for r in frame.itertuples(index=False)]


def reference(motifs, sequences, **options):
    """The brute force's hits of every motif: {row: P-value}."""
    out = {}
    for pssm in motifs:
        for h in naive.scan(pssm.scores, sequences, background=pssm.background, **options):
            key = (pssm.motif_id, h["sequence"], h["start"], h["stop"], h["strand"], h["units"], h["matched"])
            assert key not in out
            out[key] = h["pvalue"]
    return out


_REFERENCES = {}


def pvalue_reference(index):
    if index not in _REFERENCES:
        motifs, p = PVALUE_GROUPS[index]
        _REFERENCES[index] = reference(motifs, SEQUENCES, pvalue=p)
    return _REFERENCES[index]


def assert_same_hits(frame, motifs, expected, pvalues_too=True):
    got = rows(frame, motifs)
    assert len(got) == len(set(got)), "a hit reported twice"
    assert sorted(got) == sorted(expected)
    if pvalues_too:
        for key, p in zip(got, frame["p-value"]):
            assert p == pytest.approx(expected[key], rel=1e-12, abs=1e-300), key


# ---- every variant against the brute force ------------------------------------------------------------

def test_the_cases_cover_every_cpu_variant():
    assert {v for v, _ in VARIANT_CASES} == set(CPU_VARIANTS) == {"index", "lookahead", "slices", "naive"}


@pytest.mark.parametrize("variant,slice_length", VARIANT_CASES)
@pytest.mark.parametrize("group", range(len(PVALUE_GROUPS)))
def test_hits_and_pvalues_equal_the_brute_force(variant, slice_length, group):
    motifs, p = PVALUE_GROUPS[group]
    expected = pvalue_reference(group)
    assert len(expected) >= 20 and {key[4] for key in expected} == {"+", "-"}     # something to find
    frame = scan(motifs, SEQUENCES, pvalue=p, variant=variant, slice_length=slice_length)
    assert_same_hits(frame, motifs, expected)
    assert frame.attrs["tests"] == {m.motif_id: naive.tests(m.length, SEQUENCES) for m in motifs}
    assert frame.attrs["inexact"] == {} and frame.attrs["dropped"] == 0


@pytest.mark.parametrize("variant,slice_length", VARIANT_CASES)
def test_long_motifs_at_a_score_threshold_equal_the_brute_force(variant, slice_length):
    expected = reference(THRESHOLD_MOTIFS, SEQUENCES, threshold=0.0, enumerate_words=False)
    per_motif = {m.motif_id: sum(1 for key in expected if key[0] == m.motif_id) for m in THRESHOLD_MOTIFS}
    assert min(per_motif.values()) >= 20, per_motif
    # chunks of 61 letters: the 33-column motif's windows cross many borders
    frame = scan(THRESHOLD_MOTIFS, SEQUENCES, threshold=0.0, variant=variant, slice_length=slice_length,
                 chunk_size=61)
    assert_same_hits(frame, THRESHOLD_MOTIFS, expected, pvalues_too=False)
    assert (frame["score"] >= 0).all()


def test_hit_pvalues_of_long_motifs_equal_the_exact_pvalues():
    frame = scan(THRESHOLD_MOTIFS[:4], SEQUENCES, threshold=0.0)           # up to 12 columns
    for pssm in THRESHOLD_MOTIFS[:4]:
        hits = frame[frame.motif_id == pssm.motif_id]
        forward = hits[hits.strand == "+"]
        exact = pvalues(pssm, forward.score.tolist())
        assert all(r.exact for r in exact)
        assert forward["p-value"].tolist() == pytest.approx([r.pvalue for r in exact], rel=1e-12)
        reverse = hits[hits.strand == "-"]     # a uniform background: the reverse complement's P-values too
        assert reverse["p-value"].tolist() == pytest.approx(
            [r.pvalue for r in pvalues(pssm.reverse_complement(), reverse.score.tolist())], rel=1e-12)


def test_hits_are_in_fimo_order():
    motifs, p = PVALUE_GROUPS[1]
    frame = scan(motifs, SEQUENCES, pvalue=p)
    names = [name for name, _ in SEQUENCES]
    keys = [([m.motif_id for m in motifs].index(r.motif_id), r._7, names.index(r.sequence_name), r.start,
             r.strand) for r in frame.itertuples(index=False)]
    assert keys == sorted(keys) and len(set(k[1] for k in keys)) > 3


# ---- chunk borders --------------------------------------------------------------------------------------

CHUNK_MOTIFS = [motif(_shifted(random_scores(RNG, m), SEQUENCES, 0.9)) for m in (1, 4, 9)]
CHUNK_SEQUENCES = [("a", random_sequence(RNG, 45)), ("b", ""), ("c", random_sequence(RNG, 31)),
                   ("a", random_sequence(RNG, 3))]             # a name given twice: two records


@pytest.mark.parametrize("variant", CPU_VARIANTS)
def test_tiny_chunks_give_the_hits_of_one_chunk(variant, tmp_path):
    path = tmp_path / "in.fa"
    path.write_text("".join(f">{name} some description\n{text[:20]}\n{text[20:]}\n" for name, text in CHUNK_SEQUENCES))
    whole = scan(CHUNK_MOTIFS, CHUNK_SEQUENCES, threshold=0.0, variant=variant)
    expected = reference(CHUNK_MOTIFS, CHUNK_SEQUENCES, threshold=0.0, enumerate_words=False)
    assert_same_hits(whole, CHUNK_MOTIFS, expected, pvalues_too=False)
    assert len(whole) >= 15
    for size in (1, 2, 7):
        for source in (CHUNK_SEQUENCES, str(path)):
            pieces = scan(CHUNK_MOTIFS, source, threshold=0.0, variant=variant, chunk_size=size)
            pd.testing.assert_frame_equal(pieces, whole)
            assert pieces.attrs["tests"] == whole.attrs["tests"]


@pytest.mark.parametrize("size,overlap", [(1, 0), (1, 4), (2, 1), (3, 7), (7, 2), (64, 0), (5, 5)])
def test_chunks_hold_every_window_once(size, overlap, tmp_path):
    rng = np.random.default_rng(size * 100 + overlap)
    texts = ["ACGT"[:0], random_sequence(rng, 1), random_sequence(rng, 23), random_sequence(rng, size + overlap)]
    path = tmp_path / "in.fa"
    # lines of 10 letters, and one long line, so chunks end inside and across lines
    path.write_text("".join(f">s{k}\n" + "\n".join(t[i:i + 10] for i in range(0, len(t), 10)) + "\n"
                            for k, t in enumerate(texts)))
    from bioaccel.inputs.alphabet import encode

    from_file = list(read_chunks(str(path), size=size, overlap=overlap))
    for k, text in enumerate(texts):
        codes = encode(text)
        for chunks in ([c for c in from_file if c.record == f"s{k}"], list(split_codes("s", "", codes, size=size,
                                                                                         overlap=overlap))):
            starts = [s for c in chunks for s in range(c.start, c.start + c.windows)]
            assert starts == list(range(len(text)))              # every window start once, in order
            for c in chunks:
                assert c.codes.tolist() == codes[c.start:c.start + c.windows + overlap].tolist()
            assert [c.last for c in chunks] == [False] * (len(chunks) - 1) + [True] * bool(chunks)


# ---- short, empty, unreachable ---------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=60), st.integers(0, 62), st.sets(st.integers(1, 12), min_size=1))
def test_valid_windows_counts_the_windows_of_only_acgt(codes, windows, lengths):
    codes = np.array(codes, np.uint8)
    lengths = np.array(sorted(lengths), np.int64)
    direct = [sum(1 for s in range(min(windows, len(codes))) if s + m <= len(codes) and (codes[s:s + m] <= 3).all())
              for m in lengths]
    assert valid_windows(codes, windows, lengths).tolist() == direct


def test_sequences_shorter_than_the_motif_and_empty_ones(tmp_path):
    pssm = motif(random_scores(np.random.default_rng(5), 5))
    everything = pssm.min_score - 1                              # every window is a hit
    frame = scan(pssm, [("empty", ""), ("short", "ACGT"), ("one", "acgta"), ("n", "ACNTA")], threshold=everything)
    assert frame[["sequence_name", "start", "stop"]].values.tolist() == [["one", 1, 5], ["one", 1, 5]]
    assert sorted(frame.strand) == ["+", "-"] and frame.attrs["tests"] == {"m5": 2}
    path = tmp_path / "in.fa"
    path.write_text(">a\n>b\nACGTAC\n>c\nAC\n>d\n")
    frame = scan(pssm, str(path), threshold=everything)
    assert set(frame.sequence_name) == {"b"} and len(frame) == 4 and frame.attrs["tests"] == {"m5": 4}
    assert scan(pssm, [""], threshold=everything).empty
    assert list(pssm.search("ACGT", everything)) == [] and len(list(pssm.search("ACGTA", everything))) == 2


def test_a_motif_no_word_of_which_is_rare_enough_is_never_hit():
    pssm = motif(random_scores(np.random.default_rng(6), 3))         # 64 words: none has P <= 1e-4
    frame = scan(pssm, SEQUENCES)
    assert frame.empty and frame.attrs["tests"] == {"m3": naive.tests(3, SEQUENCES)}
    setup = prepare([pssm], pvalue=1e-4)
    assert not setup.thresholds[0].reachable and setup.plan.entries == 0


def test_one_strand():
    motifs, p = PVALUE_GROUPS[1]
    frame = scan(motifs, SEQUENCES, pvalue=p, strands="+")
    expected = {k: v for k, v in pvalue_reference(1).items() if k[4] == "+"}
    assert_same_hits(frame, motifs, expected)
    assert frame.attrs["tests"] == {m.motif_id: naive.tests(m.length, SEQUENCES, strands=1) for m in motifs}


# ---- backgrounds ---------------------------------------------------------------------------------------

def test_an_asymmetric_background_gives_the_reverse_strand_its_own_threshold():
    background = Background.from_frequencies([0.4, 0.2, 0.3, 0.1])
    rng = np.random.default_rng(8)
    pssm = motif(random_scores(rng, 6), background)
    p = 0.01
    cut = {"+": naive.Enumerated(pssm.scores, background).threshold(p),
           "-": naive.Enumerated(pssm.scores[::-1, ::-1], background).threshold(p)}
    assert cut["+"] != cut["-"]
    sequences = [(f"s{k}", random_sequence(rng, 900)) for k in range(2)]
    expected = reference([pssm], sequences, pvalue=p)
    for variant in CPU_VARIANTS:
        frame = scan(pssm, sequences, pvalue=p, variant=variant)
        assert_same_hits(frame, [pssm], expected)
    # hits on the strand of the lower threshold that the other strand's threshold would miss
    low, high = sorted(cut, key=cut.get)
    units = frame.score * 2.0 ** naive.grid_bits(pssm.scores)
    assert ((frame.strand == low) & (units < cut[high])).any()
    # one score, two P-values: the forward matrix's and the reverse complement's
    minus = frame[frame.strand == "-"]
    score = float(minus.score.iloc[0])
    assert pvalues(pssm.reverse_complement(), score)[0].pvalue == pytest.approx(minus["p-value"].iloc[0], rel=1e-12)
    assert pvalues(pssm, score)[0].pvalue != pytest.approx(minus["p-value"].iloc[0], rel=1e-3)


@pytest.mark.parametrize("order", [1, 2])
def test_markov_backgrounds_equal_the_brute_force(order):
    rng = np.random.default_rng(10 + order)
    background = Background.markov(rng.dirichlet(np.ones(4 ** order)), rng.dirichlet(np.ones(4) * 0.7,
                                                                                     size=4 ** order))
    motifs = [motif(random_scores(rng, m), background) for m in (2, 4, 6)]
    sequences = [(f"s{k}", random_sequence(rng, 500)) for k in range(2)]
    expected = reference(motifs, sequences, pvalue=0.02)
    assert len(expected) >= 30
    for variant in ("index", "naive"):
        assert_same_hits(scan(motifs, sequences, pvalue=0.02, variant=variant), motifs, expected)


# ---- q-values, max_stored_hits, streaming --------------------------------------------------------------

def best_word(pssm):
    return "".join("ACGT"[k] for k in pssm.scores.argmax(axis=1))


def test_qvalues_equal_a_direct_benjamini_hochberg():
    rng = np.random.default_rng(12)
    motifs = [motif(random_scores(rng, m)) for m in (6, 8)]
    sequences = []
    for k in range(3):            # random letters, and each motif's best word planted a few times
        text = random_sequence(rng, 700)
        for pssm in motifs:
            for at in rng.integers(0, 690, size=4):
                text = text[:at] + best_word(pssm) + text[at + pssm.length:]
        sequences.append((f"s{k}", text[:700]))
    frame = scan(motifs, sequences, pvalue=0.01)
    for pssm in motifs:
        hits = frame[frame.motif_id == pssm.motif_id]
        tests = naive.tests(pssm.length, sequences)
        q = naive.bh(hits["p-value"].tolist(), tests)
        assert hits["q-value"].tolist() == pytest.approx(q, rel=1e-12)
        assert min(q) < 0.1 and len(set(q)) > 3
        # not p * tests / rank: the running minimum from the bottom matters
        ranks = hits["p-value"].rank(method="first").to_numpy()
        assert (np.minimum(hits["p-value"] * tests / ranks, 1) > hits["q-value"] + 1e-15).any()
    assert frame.attrs["tests"] == {m.motif_id: naive.tests(m.length, sequences) for m in motifs}
    assert scan(motifs, sequences, pvalue=0.01, qvalues=False)["q-value"].isna().all()


def test_max_stored_hits_keeps_the_best():
    motifs, p = PVALUE_GROUPS[1]
    full = scan(motifs, SEQUENCES, pvalue=p)
    limited = scan(motifs, SEQUENCES, pvalue=p, max_stored_hits=40)
    assert 0 < len(limited) <= 40 and limited.attrs["dropped"] == len(full) - len(limited)
    keep = set(rows(limited, motifs))
    assert keep < set(rows(full, motifs))
    dropped = [pv for key, pv in zip(rows(full, motifs), full["p-value"]) if key not in keep]
    assert limited["p-value"].max() < min(dropped)


def test_pruning_while_streaming_keeps_what_one_pruning_keeps():
    """Hits priced batch by batch and pruned as they come (as a genome's millions are) end as those of
    one pruning at the end: here the first batch's pruning keeps one hit of four (three tie at the cut),
    and the second batch brings a hit better than the cut but worse than the hit kept."""
    pssm = PSSM(np.array([[3.0, 0, 0, 0], [2, 0, 0, 0], [1.5, 0, 0, 0]]), motif_id="m")
    sequences = [("r1", "AAANACANAGANATA"), ("r2", "AAC")]     # AAA, then A*A three times; then AA*
    results = []
    for batch in (1 << 20, 1):
        state_hits, state = collect(prepare([pssm], threshold=4.5, strands=(0,)), sequences, max_stored_hits=3,
                                    batch=batch)
        results.append((state_hits.start.tolist(), state_hits.sequence.tolist(), state.dropped))
    assert results[0] == results[1] == ([0, 0], [0, 1], 3)


@pytest.mark.parametrize("keep", [1, 25, 60])
def test_batches_cut_as_they_are_priced_keep_the_best_of_the_whole_scan(keep):
    """Many small batches, each cut to its own best ``keep`` as it is priced (which sets the cut the
    next batch is priced against): the hits kept, their P-values and the count dropped are those of
    one cut of every hit at the end."""
    motifs, p = PVALUE_GROUPS[3]
    every, _ = collect(prepare(motifs, pvalue=p), SEQUENCES, max_stored_hits=None)
    hits, state = collect(prepare(motifs, pvalue=p), SEQUENCES, max_stored_hits=keep, batch=7, chunk_size=40)
    expected, cut = every.best(keep)
    assert len(every) > 3 * keep
    assert state.dropped == len(every) - len(expected) and state.cut == cut

    def key(h):
        return sorted(zip(h.motif.tolist(), h.strand.tolist(), h.sequence.tolist(), h.start.tolist(),
                          h.pvalue.tolist()))
    assert key(hits) == key(expected)


def test_best_drops_every_tie_at_the_cut():
    p = np.array([0.3, 0.1, 0.2, 0.3, 0.05])
    n = p.size
    hits = Hits(np.zeros(n, np.int32), np.zeros(n, np.int8), np.zeros(n, np.int32), np.arange(n),
                np.zeros(n, np.int64), np.zeros((n, 1), np.uint64), p, np.full(n, np.nan))
    assert hits.best(5)[1] == math.inf and len(hits.best(5)[0]) == 5
    kept, cut = hits.best(3)
    assert sorted(kept.pvalue.tolist()) == [0.05, 0.1, 0.2] and cut == 0.3
    kept, cut = hits.best(4)                    # 0.3 twice: both or neither
    assert sorted(kept.pvalue.tolist()) == [0.05, 0.1, 0.2] and cut == 0.3


def test_iter_scan_streams_the_hits_of_scan_without_qvalues():
    motifs, p = PVALUE_GROUPS[1]
    frames = list(iter_scan(motifs, SEQUENCES, pvalue=p, batch=10))
    assert len(frames) > 1
    streamed = pd.concat(frames, ignore_index=True)
    assert streamed["q-value"].isna().all()
    whole = scan(motifs, SEQUENCES, pvalue=p)
    assert sorted(zip(rows(streamed, motifs), streamed["p-value"])) == sorted(zip(rows(whole, motifs),
                                                                                  whole["p-value"]))
    names = [name for name, _ in SEQUENCES]
    order = [(names.index(r.sequence_name), r.start) for r in streamed.itertuples(index=False)]
    assert order == sorted(order)                    # in sequence order, whatever the threads did
    again = pd.concat(iter_scan(motifs, SEQUENCES, pvalue=p, batch=10, variant="naive", threads=1),
                      ignore_index=True)
    pd.testing.assert_frame_equal(again, streamed)


@pytest.mark.parametrize("options,message", [
    ({"pvalue": 0}, "0"), ({"pvalue": 1.5}, "1.5"), ({"threshold": float("nan")}, "threshold"),
    ({"variant": "fastest"}, "fastest"), ({"variant": "fused"}, "fused"), ({"strands": "-"}, "strands"),
    ({"slice_length": 0}, "slice"), ({"slice_length": 9}, "slice"), ({"chunk_size": 0}, "chunk"),
    ({"max_stored_hits": 0}, "max_stored_hits"), ({"backend": "tpu"}, "backend")])
def test_options_are_checked_before_any_motif_is_read(options, message):
    with pytest.raises(InvalidParameter, match=message):
        scan("no-such-motif-file.meme", ["ACGT"], **options)


# ---- Biopython ---------------------------------------------------------------------------------------

def biopython(scores):
    return BiopythonPSSM("ACGT", {letter: list(scores[:, k]) for k, letter in enumerate("ACGT")})


def threshold_in_a_gap(pssm, sequence, rng):
    """A threshold half-way between two window scores more than 1e-3 apart (float32 sums, as Biopython
    adds, cannot cross it)."""
    scores = np.unique([s for _, s in pssm.search(sequence, threshold=-math.inf)])
    gaps = np.flatnonzero(np.diff(scores) > 1e-3)
    gaps = gaps[gaps >= len(scores) // 2] if (gaps >= len(scores) // 2).any() else gaps
    k = int(rng.choice(gaps))
    return float(scores[k] + scores[k + 1]) / 2


@pytest.mark.parametrize("m", [1, 2, 5, 12])
def test_scan_and_search_equal_biopython(m):
    rng = np.random.default_rng(40 + m)
    for case in range(4):
        scores = random_scores(rng, m)
        ours = PSSM(scores)
        text = "".join(rng.choice(list("ACGTacgtN"), size=int(rng.integers(m + 1, 700)),
                                  p=[0.22] * 4 + [0.025] * 4 + [0.02]))
        threshold = threshold_in_a_gap(ours, text, rng)
        both = case != 3
        theirs = list(biopython(scores).search(text, threshold=threshold, both=both))
        mine = list(ours.search(text, threshold=threshold, both=both))
        assert len(theirs) > 0
        assert [int(p) for p, _ in mine] == [int(p) for p, _ in theirs]            # the same order too
        assert [s for _, s in mine] == pytest.approx([float(s) for _, s in theirs], abs=1e-4)
        frame = scan(ours, ("x", text), threshold=threshold, strands="both" if both else "+")
        found = sorted((r.start - 1 if r.strand == "+" else r.start - 1 - len(text), r.score)
                       for r in frame.itertuples(index=False))
        assert found == sorted(mine)                                               # scores exactly equal


def test_search_on_biopython_edge_cases():
    pssm = PSSM(np.eye(4)[[0, 1, 2]] * 2)                    # ACG scores 6; CGT on the reverse strand
    assert list(pssm.search("ACG", 5)) == [(0, 6.0)]          # as long as the motif (Biopython fails)
    assert list(pssm.search("AC", 5)) == list(pssm.search("", 5)) == []
    assert list(pssm.search("acgu", 5)) == [(0, 6.0), (-3, 6.0)]             # U read as T, any case
    assert list(pssm.search("ACGNCGT", 5, both=False)) == [(0, 6.0)]
    assert list(pssm.search("AC G*CGT", 5)) == [(-3, 6.0)]                    # any other letter skips
    text = random_sequence(np.random.default_rng(3), 300).replace("U", "T")
    assert sorted(pssm.search(text, 1, chunksize=7)) == sorted(pssm.search(text, 1))
    theirs = list(biopython(pssm.scores).search(text, threshold=1, chunksize=100))
    assert [(int(p), float(s)) for p, s in theirs] == list(pssm.search(text, 1, chunksize=100))
    with pytest.raises(InvalidParameter):
        list(pssm.search("ACGT", float("nan")))
    with pytest.raises(InvalidParameter):
        list(pssm.search("ACGT", 0, chunksize=0))
