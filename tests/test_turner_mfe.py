"""Turner 2004 minimum free energy on the CPU, against ViennaRNA's RNAfold (the oracle) and the plain-Python
reference: equal integer energies (dcal/mol), traced structures whose ViennaRNA energy is the minimum,
and every variant (tiles, parallel, batch) giving the identical structure."""
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.errors import InputError, InvalidParameter, ResourceError
from bioaccel.fold import _turner_cpu
from bioaccel.fold._traceback import dot_bracket
from bioaccel.fold._turner_cpu import mfe, mfe_many, table_bytes
from bioaccel.fold._turner_energy import eval_structure
from bioaccel.fold._turner_model import TurnerModel

from naive_turner import MODELS, brute_force_mfe, naive_mfe

import RNA  # noqa: E402  (ViennaRNA, a [test] extra: the reference of the Turner model)



def vienna_md(model):
    md = RNA.md()
    md.temperature = model.temperature
    md.noLP = int(model.no_lp)
    md.noGU = int(model.no_gu)
    return md


def vienna_mfe(sequence, model):
    """ViennaRNA's minimum free energy in dcal/mol (its float kcal/mol times 100, rounded)."""
    if not sequence:
        return 0
    return round(RNA.fold_compound(sequence, vienna_md(model)).mfe()[1] * 100)


def vienna_eval(sequence, pair_to, model):
    return round(RNA.fold_compound(sequence, vienna_md(model)).eval_structure(dot_bracket(pair_to)) * 100)


def random_rna(rng, n, alphabet="ACGU"):
    return "".join(rng.choice(list(alphabet), n))


def check_against_vienna(sequence, model, **kwargs):
    energy, pair_to = mfe(encode(sequence), model, **kwargs)
    assert energy == vienna_mfe(sequence, model), sequence
    if sequence:
        # the traced structure's own energy (ViennaRNA's eval) is the minimum, and it obeys the options
        assert vienna_eval(sequence, pair_to, model) == energy, (sequence, dot_bracket(pair_to))
        assert eval_structure(encode(sequence), pair_to, model) == energy
        check_options(sequence, pair_to, model)
    return energy, pair_to


def check_options(sequence, pair_to, model):
    n = len(sequence)
    for i, j in enumerate(pair_to.tolist()):
        if j > i:
            if model.no_gu:
                assert {sequence[i], sequence[j]} != {"G", "U"}, (sequence, i, j)
            if model.no_lp:
                inward = pair_to[i + 1] == j - 1
                outward = i > 0 and j < n - 1 and pair_to[i - 1] == j + 1
                assert inward or outward, (sequence, dot_bracket(pair_to), i, j)


@pytest.mark.parametrize("name", list(MODELS))
def test_mfe_equals_rnafold_every_length_1_to_60(name):
    model = MODELS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    for n in range(1, 61):
        # every fifth sequence has N (never pairs; its mismatch and dangle energies still count)
        sequence = random_rna(rng, n, "ACGUN" if n % 5 == 0 else "ACGU")
        check_against_vienna(sequence, model, tile=int(rng.integers(3, 40)))


def test_mfe_equals_rnafold_longer():
    rng = np.random.default_rng(500)
    for n, name in ((97, "default"), (150, "noLP"), (180, "noGU"), (230, "50C"), (260, "25C"), (320, "default"),
                    (500, "default")):
        check_against_vienna(random_rna(rng, n), MODELS[name])


def test_mfe_equals_rnafold_structured_and_degenerate():
    model = MODELS["default"]
    cases = [
        "GGGGAAACCCC", "GGGCUUCGGCCC", "GCGCUUCGGCGC" * 3, "A" * 40, "N" * 30, "GC" * 25, "GU" * 30,
        "NNGGGGAAAACCCCNN", "GGGAAACCCAGGGAAACCCAGGGAAACCCAGGGAAACCCA",
        # a tRNA (yeast tRNA-Phe): a four-way multiloop
        "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA",
        "GGGGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACCCC",  # a hairpin of 33
    ]
    for sequence in cases:
        for name in ("default", "noLP"):
            check_against_vienna(sequence, MODELS[name])
    energy, pair_to = check_against_vienna("", model)
    assert energy == 0 and pair_to.shape == (0,)


def test_short_sequences():
    for sequence in ("", "A", "GC", "GAC", "GAAC", "GAAAC", "NNNNN"):
        energy, pair_to = mfe(encode(sequence))
        assert pair_to.dtype == np.int64 and len(pair_to) == len(sequence)
        assert energy == vienna_mfe(sequence, MODELS["default"])
    assert mfe(encode("GAAAC"))[1].tolist() == [-1] * 5  # a hairpin of 3 costs more than nothing


def test_mfe_equals_naive_reference():
    rng = np.random.default_rng(11)
    for name, model in MODELS.items():
        for n in (5, 9, 17, 26, 33):
            sequence = random_rna(rng, n, "ACGUN" if n == 26 else "GCAU")
            assert mfe(encode(sequence), model, tile=int(rng.integers(2, 9)))[0] == naive_mfe(sequence, model)


def test_naive_reference_equals_brute_force():
    rng = np.random.default_rng(12)
    for name in ("default", "noLP", "noGU"):
        for n in (6, 9, 11):
            sequence = random_rna(rng, n, "GCAU")
            assert naive_mfe(sequence, MODELS[name]) == brute_force_mfe(sequence, MODELS[name])


def test_tiles_and_threads_give_identical_structures():
    rng = np.random.default_rng(13)
    sequence = encode(random_rna(rng, 300))
    energy, pair_to = mfe(sequence, tile=64, parallel=False)
    for tile, parallel in ((1, False), (7, True), (31, True), (64, True), (300, True), (1000, False)):
        e, p = mfe(sequence, tile=tile, parallel=parallel)
        assert e == energy and np.array_equal(p, pair_to), (tile, parallel)
    noLP = mfe(sequence, MODELS["noLP"], tile=13, parallel=True)
    assert np.array_equal(noLP[1], mfe(sequence, MODELS["noLP"], parallel=False)[1])


def test_many_equals_one_on_mixed_lengths():
    rng = np.random.default_rng(14)
    lengths = [0, 1, 4, 5, 12, 40, 77, 130, 260, 3, 0, 58]
    sequences = [encode(random_rna(rng, n, "ACGUN" if n % 2 else "ACGU")) for n in lengths]
    for name in ("default", "noLP"):
        model = MODELS[name]
        many = mfe_many(sequences, model, tile=19)
        assert len(many) == len(sequences)
        for codes, (energy, pair_to) in zip(sequences, many):
            one = mfe(codes, model)
            assert energy == one[0] and np.array_equal(pair_to, one[1])
    assert mfe_many([]) == []


def test_refusals(monkeypatch):
    with pytest.raises(InvalidParameter, match="tile must be a whole number >= 1, got 0"):
        mfe(encode("GGGAAACCC"), tile=0)
    with pytest.raises(InvalidParameter, match="tile"):
        mfe_many([encode("GGGAAACCC")], tile=2.5)
    from bioaccel.runtime import memory

    monkeypatch.setattr(memory, "available_memory", lambda: 10**9)
    with pytest.raises(ResourceError, match=r"length 20,000 with the Turner model needs about 4\.5 GiB .* 953\.7 MiB"):
        mfe(encode("A" * 20_000))
    with pytest.raises(ResourceError, match="folding 2 sequences"):
        mfe_many([encode("A" * 9_000), encode("A" * 9_000)])
    assert table_bytes(1000) == 12_000_000
    with pytest.raises(InputError, match="sequence codes must be 0 to 4 .* got 7"):
        mfe(np.array([0, 1, 7], dtype=np.uint8))
    monkeypatch.setattr(_turner_cpu, "MAX_LENGTH", 50)
    with pytest.raises(InvalidParameter, match="the sequence has 51 bases; the fold accepts at most 50"):
        mfe(encode("A" * 51))
    with pytest.raises(InvalidParameter, match="sequence 2 of the batch has 60 bases"):
        mfe_many([encode("A"), encode("A" * 60)])


def test_t_reads_as_u():
    # bioaccel reads T as U, special hairpins included (ViennaRNA looks its special hairpins up in the
    # letters as given, so it scores the T spelling of a listed loop without the bonus)
    assert mfe(encode("GGGCTTCGGCCC"))[0] == mfe(encode("gggcuucggccc"))[0] == vienna_mfe("GGGCUUCGGCCC", TurnerModel())
