"""Turner 2004 parameters, temperature rescaling and structure evaluation, against ViennaRNA (the oracle):
its in-memory tables at several temperatures, and its eval_structure on structures built to hit every
loop type and special case."""
import ctypes

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.errors import InputError, InvalidParameter
from bioaccel.fold._traceback import parse_dot_bracket
from bioaccel.fold._turner_energy import energy_of, eval_structure
from bioaccel.fold._turner_model import TurnerModel
from bioaccel.fold._turner_tables import kernel_tables, rescale
from bioaccel.fold._turner_params import DEFAULT_FILE, INF, read_parameter_file

from naive_turner import naive_eval

import RNA  # noqa: E402  (ViennaRNA, a [test] extra: the reference of the Turner model)

TEMPERATURES = (37.0, 25.0, 50.0)
MODELS = [TurnerModel(temperature=t) for t in TEMPERATURES]


def vienna_md(model):
    md = RNA.md()
    md.temperature = model.temperature
    md.noLP = int(model.no_lp)
    md.noGU = int(model.no_gu)
    return md


def vienna_eval(sequence, structure, model):
    return round(RNA.fold_compound(sequence, vienna_md(model)).eval_structure(structure) * 100)


# ---------------------------------------------------------------------------------------- parameters
def vienna_tables(temperature):
    """ViennaRNA's energy tables at ``temperature``, read from its memory (the SWIG wrapper exposes the
    multi-dimensional ones only as pointers)."""
    md = RNA.md()
    md.temperature = temperature
    fc = RNA.fold_compound("A", md)
    P = fc.params
    out = {"fc": fc}  # keep the parameters alive while reading them

    def array(name, shape):
        size = int(np.prod(shape))
        raw = (ctypes.c_int * size).from_address(int(getattr(P, name)))
        return np.ctypeslib.as_array(raw).reshape(shape).copy()

    for name, shape in (("stack", (8, 8)), ("mismatchH", (8, 5, 5)), ("mismatchI", (8, 5, 5)),
                        ("mismatch1nI", (8, 5, 5)), ("mismatch23I", (8, 5, 5)), ("mismatchM", (8, 5, 5)),
                        ("mismatchExt", (8, 5, 5)), ("dangle5", (8, 5)), ("dangle3", (8, 5)),
                        ("int11", (8, 8, 5, 5)), ("int21", (8, 8, 5, 5, 5)), ("int22", (8, 8, 5, 5, 5, 5))):
        value = getattr(P, name)
        out[name] = np.array(value) if isinstance(value, list) else array(name, shape)
    for name in ("hairpin", "bulge", "internal_loop", "ninio", "MLintern", "Tetraloop_E", "Triloop_E",
                 "Hexaloop_E"):
        out[name] = np.array(getattr(P, name))
    for name in ("MLbase", "MLclosing", "TerminalAU", "lxc"):
        out[name] = getattr(P, name)
    return out


OURS_THEIRS = [("stack", "stack"), ("mismatch_hairpin", "mismatchH"), ("mismatch_interior", "mismatchI"),
               ("mismatch_interior_1n", "mismatch1nI"), ("mismatch_interior_23", "mismatch23I"),
               ("mismatch_multi", "mismatchM"), ("mismatch_exterior", "mismatchExt"), ("dangle5", "dangle5"),
               ("dangle3", "dangle3"), ("int11", "int11"), ("int21", "int21"), ("int22", "int22")]


def test_parameter_file_reads_as_turner_2004():
    tables = read_parameter_file()
    assert tables["stack"].shape == (8, 8) and int(tables["stack"][1, 1]) == -240  # CG on CG
    assert tables["stack_enthalpies"][2, 2] == -1490                             # GC on GC
    assert [int(x) for x in tables["hairpin"][:5]] == [INF, INF, INF, 540, 560]
    assert tables["ML_params"][:6] == [0, 0, 930, 3000, -90, -220]
    assert tables["NINIO"][:3] == [60, 320, 300]
    assert tables["Misc"][2:5] == [50, 370, 107.856]
    assert len(tables["Tetraloops"]) == 16 and len(tables["Triloops"]) == 2 and len(tables["Hexaloops"]) == 4
    assert ("CUUCGG", 370, -1530) in tables["Tetraloops"]
    # int22's N entries: the largest value over A, C, G, U in that position, as ViennaRNA's reader fills them
    int22 = tables["int22"]
    assert int22[1, 1, 0, 1, 1, 1] == int22[1, 1, 1:, 1, 1, 1].max()


@pytest.mark.parametrize("temperature", [37.0, 25.0, 50.0, 0.0, 100.0, -20.0])
def test_tables_equal_viennas_in_memory(temperature):
    try:
        theirs = vienna_tables(temperature)
    except (TypeError, ValueError) as exc:  # a ViennaRNA whose wrapper hides the pointers
        pytest.skip(f"cannot read ViennaRNA's tables: {exc}")
    ours = TurnerModel(temperature=temperature).tables()
    for mine, name in OURS_THEIRS:
        # pair type 0 (no pair) is never read; ViennaRNA leaves it unset
        np.testing.assert_array_equal(getattr(ours, mine)[1:], theirs[name][1:], err_msg=mine)
    np.testing.assert_array_equal(ours.hairpin, theirs["hairpin"][:31])
    np.testing.assert_array_equal(ours.bulge, theirs["bulge"][:31])
    np.testing.assert_array_equal(ours.interior, theirs["internal_loop"][:31])
    assert (ours.ml_base, ours.ml_closing, ours.ml_intern) == (theirs["MLbase"], theirs["MLclosing"],
                                                               theirs["MLintern"][1])
    assert ours.ninio == theirs["ninio"][2] and ours.terminal_au == theirs["TerminalAU"]
    assert ours.lxc == theirs["lxc"]  # the same double, bit for bit
    assert ours.tetraloop_energy.tolist() == theirs["Tetraloop_E"][:16].tolist()
    assert ours.triloop_energy.tolist() == theirs["Triloop_E"][:2].tolist()
    assert ours.hexaloop_energy.tolist() == theirs["Hexaloop_E"][:4].tolist()


def test_parameter_file_round_trips_through_vienna(tmp_path):
    default, ours = tmp_path / "default.par", tmp_path / "ours.par"
    RNA.params_save(str(default))
    try:
        assert RNA.params_load(DEFAULT_FILE)
        RNA.params_save(str(ours))
    finally:
        RNA.params_load_RNA_Turner2004()
    assert ours.read_text() == default.read_text()


def test_rescale_truncates_toward_zero_like_c():
    # dH - (dH - dG) * (T + 273.15) / 310.15, then C's int conversion (toward zero, not floor)
    assert rescale(-330, -1340, 50.0) == -287     # -1340 + 1010 * 1.0419... = -287.66 -> -287
    assert rescale(50, 370, 25.0) == 62           # 370 - 320 * 0.9613... = 62.39 -> 62
    assert rescale(INF, INF, 80.0) == INF
    np.testing.assert_array_equal(rescale([10, -10], [10, -10], 60.0), [10, -10])


def test_dangles_and_multiloop_mismatches_never_positive():
    hot = TurnerModel(temperature=90.0).tables()
    for name in ("dangle5", "dangle3", "mismatch_multi", "mismatch_exterior"):
        assert getattr(hot, name).max() <= 0, name
    assert TurnerModel(temperature=90.0).tables().mismatch_hairpin.max() > 0  # not capped


def test_tables_cached_and_read_only():
    a, b = TurnerModel(temperature=42.0).tables(), TurnerModel(temperature=42.0).tables()
    assert a.stack is b.stack
    with pytest.raises(ValueError):
        a.stack[1, 1] = 0
    E, lxc = TurnerModel(no_gu=True).kernel_tables()
    assert not E.flags.writeable and lxc == TurnerModel().tables().lxc


def test_kernel_tables_flatten_every_table():
    from bioaccel.fold import _turner_tables as tm
    tables = TurnerModel(temperature=30.0).tables()
    E = kernel_tables(tables)
    assert E[tm.INT22 + ((((1 * 8 + 2) * 5 + 3) * 5 + 4) * 5 + 1) * 5 + 2] == tables.int22[1, 2, 3, 4, 1, 2]
    assert E[tm.MM_EXTERIOR + (5 * 5 + 2) * 5 + 3] == tables.mismatch_exterior[5, 2, 3]
    assert E[tm.ML_CLOSING] == tables.ml_closing and E[tm.TERMINAL_AU] == tables.terminal_au
    assert list(E[tm.TETRALOOPS:tm.TETRALOOPS + 7]) == list(tables.tetraloops[0]) + [tables.tetraloop_energy[0]]
    assert E[tm.TETRALOOPS + 16 * 7] == -1  # the list's end


@pytest.mark.parametrize("kwargs, message", [
    (dict(temperature=float("nan")), "temperature must be a number from -273.15 to 200 (Celsius), got nan"),
    (dict(temperature=-274.0), "got -274.0"),
    (dict(temperature=200.5), "got 200.5"),
    (dict(temperature="37"), "got '37'"),
    (dict(temperature=True), "got True"),
    (dict(no_lp=1), "no_lp must be True or False, got 1"),
    (dict(no_gu="yes"), "no_gu must be True or False, got 'yes'"),
])
def test_model_refuses_bad_values(kwargs, message):
    with pytest.raises(InvalidParameter, match=message.replace("(", r"\(").replace(")", r"\)")):
        TurnerModel(**kwargs)


def test_model_accepts_its_range():
    assert TurnerModel(temperature=-273.15).temperature == -273.15
    assert TurnerModel(temperature=np.float32(200)).temperature == 200.0
    assert TurnerModel(no_lp=np.bool_(True)).no_lp is True
    assert TurnerModel.name == "turner2004"


def test_bad_parameter_files(tmp_path):
    path = tmp_path / "bad.par"
    path.write_text("hello\n")
    with pytest.raises(InputError, match="not a ViennaRNA 2.0 parameter file"):
        read_parameter_file(path)
    path.write_text("## RNAfold parameter file v2.0\n\n# stack\n1 2 3\n")
    with pytest.raises(InputError, match="section stack: 3 values, expected 49"):
        read_parameter_file(path)
    text = open(DEFAULT_FILE).read().replace("# Triloops", "# Triloopz")
    path.write_text(text)
    with pytest.raises(InputError, match="unknown section"):
        read_parameter_file(path)


# --------------------------------------------------------------------------------- structure energy
RNG = np.random.default_rng(20240611)
PAIRS = ["CG", "GC", "GU", "UG", "AU", "UA"]


def random_bases(count, alphabet="ACGU"):
    return "".join(RNG.choice(list(alphabet), count)) if count else ""


def interior_case(outer, inner, left, right, tail=""):
    """A 2-pair outer helix closed by ``outer``, an interior loop (``left``, ``right`` unpaired) and an
    inner pair closing a hairpin of 4: (sequence, structure)."""
    seq = "G" + outer[0] + left + inner[0] + "GAAA" + inner[1] + right + outer[1] + "C" + tail
    st = "((" + "." * len(left) + "(....)" + "." * len(right) + "))" + "." * len(tail)
    return seq, st


def special_hairpin_cases():
    tables = read_parameter_file()
    for name in ("Tetraloops", "Triloops", "Hexaloops"):
        for loop, _, _ in tables[name]:
            yield "GG" + loop + "CC", "((" + "(" + "." * (len(loop) - 2) + ")" + "))"
            yield "A" + loop + "U", "(" + "." * len(loop) + ")"  # listed only as the closing pair + loop
            yield loop, "(" + "." * (len(loop) - 2) + ")"        # the loop at both ends of the sequence


def interior_cases():
    for outer in PAIRS:
        for inner in PAIRS:
            for u1, u2 in ((0, 0), (1, 1), (1, 2), (2, 1), (2, 2), (0, 1), (1, 0), (0, 2), (2, 0), (2, 3),
                           (3, 2), (1, 3), (4, 1), (3, 3)):
                yield interior_case(outer, inner, random_bases(u1), random_bases(u2))
    for u1, u2 in ((1, 1), (1, 2), (2, 1), (2, 2), (1, 5), (2, 3), (4, 4), (0, 3)):
        for _ in range(3):  # N inside the loop reads the N rows of every table
            yield interior_case(PAIRS[RNG.integers(6)], PAIRS[RNG.integers(6)], random_bases(u1, "ACGUN"),
                                random_bases(u2, "ACGUN"))
    for total in (29, 30, 31, 60):
        for u1 in (0, 1, 2, 7, total // 2):
            yield interior_case("GC", "AU", random_bases(u1, "AC"), random_bases(total - u1, "AC"))
            yield interior_case("GC", "AU", random_bases(total - u1, "AC"), random_bases(u1, "AC"))


def hairpin_cases():
    for pair in PAIRS:
        for size in (3, 4, 5, 6, 7, 8, 29, 30, 31, 60):
            loop = random_bases(size, "ACN") if size > 8 else random_bases(size)
            yield "GC" + pair[0] + loop + pair[1] + "GC", "(((" + "." * size + ")))"


def multiloop_cases():
    for branches in (3, 4, 6):
        for closing in ("GC", "AU", "GU"):
            for _ in range(3):
                seq = closing[0] + random_bases(RNG.integers(0, 3))
                st = "(" + "." * (len(seq) - 1)
                for _ in range(branches):
                    stem = PAIRS[RNG.integers(6)]
                    gap = random_bases(RNG.integers(0, 4), "ACGUN")
                    seq += "G" + stem[0] + "GAAA" + stem[1] + "C" + gap
                    st += "((....))" + "." * len(gap)
                seq += closing[1]
                st += ")"
                yield "A" + seq + "A", "." + st + "."
                yield seq, st  # the closing pair at both ends of the sequence


def exterior_cases():
    for first, last in (("G", "C"), ("N", "N"), ("", "A"), ("A", ""), ("", "")):
        for stem in ("GC", "AU", "GU", "UG"):
            seq = first + "G" + stem[0] + "GAAA" + stem[1] + "C" + random_bases(2, "ACGUN") + \
                  "C" + stem[1] + "CUUCGG" + stem[0] + "G" + last
            st = "." * len(first) + "((....))..(((....)))" + "." * len(last)
            yield seq, st


ALL_CASES = (list(special_hairpin_cases()) + list(interior_cases()) + list(hairpin_cases()) +
             list(multiloop_cases()) + list(exterior_cases()))


@pytest.mark.parametrize("model", MODELS, ids=[f"{m.temperature:g}C" for m in MODELS])
def test_eval_equals_vienna_on_every_loop_type(model):
    assert len(ALL_CASES) > 700
    mismatches = []
    for seq, st in ALL_CASES:
        assert len(seq) == len(st), (seq, st)
        ours, theirs = energy_of(seq, st, model), vienna_eval(seq, st, model)
        if ours != theirs:
            mismatches.append((seq, st, ours, theirs))
    assert not mismatches, mismatches[:5]


def test_naive_eval_equals_eval():
    model = TurnerModel(temperature=25.0)
    for seq, st in ALL_CASES[::3]:
        assert naive_eval(seq, parse_dot_bracket(st).tolist(), model) == energy_of(seq, st, model), (seq, st)


def test_eval_equals_vienna_on_suboptimal_structures():
    """Random sequences (some with N) and up to 15 of ViennaRNA's suboptimal structures of each."""
    rng = np.random.default_rng(7)
    count = 0
    for model in MODELS:
        md = vienna_md(model)
        for n in (12, 25, 40, 70, 110):
            seq = "".join(rng.choice(list("ACGUN" if n % 2 else "ACGU"), n))
            fc = RNA.fold_compound(seq, md)
            for sub in list(fc.subopt(250))[:15]:
                assert energy_of(seq, sub.structure, model) == round(fc.eval_structure(sub.structure) * 100)
                count += 1
    assert count >= 150


def test_eval_reads_t_and_lower_case_as_rna():
    assert energy_of("gggcuucggccc", "((((....))))") == energy_of("GGGCUUCGGCCC", "((((....))))") == -630
    # bioaccel reads T as U everywhere, special hairpins included (ViennaRNA looks up its special
    # hairpins in the letters as given, so for this DNA-lettered input it reports -540)
    assert energy_of("GGGCTTCGGCCC", "((((....))))") == -630


@pytest.mark.parametrize("seq, pair_to, message", [
    ("GAAAAACAAUAA", [6, -1, -1, 9, -1, -1, 0, -1, -1, 3, -1, -1], "crosses"),  # (1, 7) and (4, 10)
    ("AAAAAAAA", [7, -1, -1, -1, -1, -1, -1, 0], "not a canonical pair"),
    ("NAAAAAAU", [7, -1, -1, -1, -1, -1, -1, 0], "not a canonical pair"),
    ("GAAC", [3, -1, -1, 0], "has 2 unpaired bases"),
    ("GAAAC", [4, -1, -1, -1, 1], "does not pair back"),
    ("GAAAC", [0, -1, -1, -1, -1], "does not pair back"),
    ("GAAAC", [-1, -1], "structure has 2 positions, the sequence 5"),
])
def test_eval_refuses_invalid_structures(seq, pair_to, message):
    with pytest.raises(InputError, match=message):
        eval_structure(encode(seq), np.array(pair_to))


@pytest.mark.parametrize("structure, message", [
    ("((..).", "unmatched '\\('"), ("(...)))", "unmatched '\\)'"), ("([...])", "unexpected character '\\['"),
])
def test_dot_bracket_errors(structure, message):
    with pytest.raises(InputError, match=message):
        parse_dot_bracket(structure)
    with pytest.raises(InputError):
        energy_of("GGGAAACCC", structure)


def test_eval_small_and_empty():
    assert energy_of("", "") == 0
    assert energy_of("A", ".") == 0
    assert energy_of("GAAAC", "(...)") == vienna_eval("GAAAC", "(...)", TurnerModel())
    # no_gu and no_lp restrict the fold, not what a structure costs
    assert energy_of("GGGAAAUCC", "(((...)))", TurnerModel(no_gu=True)) == energy_of("GGGAAAUCC", "(((...)))")
    assert energy_of("GAAAAC", "(....)", TurnerModel(no_lp=True)) == energy_of("GAAAAC", "(....)")
