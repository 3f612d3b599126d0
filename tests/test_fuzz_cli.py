"""Bad and odd input thrown at every command: each must give exit status 2, exactly one line on stderr
starting with ``bioaccel <command>``, no traceback, and leave every output path as it was (an existing
file unchanged, no new file, no temporary left).

Generated cases (Hypothesis, derandomized: CI sees the same examples every run) and fixed ones, by
class: bad FASTA bytes and structure; truncated, corrupt and fake compressed files; bad numbers (NaN,
inf, huge, negative, not numbers) for every numeric option; bad option combinations; bad output paths;
bad motif files of every format; bad motif specs, backgrounds and score files. ``test_the_suite_size``
counts them (at least 300).
"""
import bz2
import gzip
import io
import lzma
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioaccel.cli.main import main

DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")
JASPAR_TEXT = open(os.path.join(DATA, "two.jaspar")).read()
MEME_TEXT = open(os.path.join(DATA, "two.meme")).read()
TRANSFAC_TEXT = open(os.path.join(DATA, "arnt.transfac")).read()
HOMER_TEXT = open(os.path.join(DATA, "two.motif")).read()
MATRIX_TEXT = "A 4 19 0 0 0 0\nC 16 0 20 0 0 0\nG 0 1 0 20 0 20\nT 0 0 0 0 20 0\n"
FASTA = ">r1 first\nGGGAAAUCCGCGCAAAAGCGC\n>r2\nACGUACGUAAAACGUACGU\n"
SENTINEL = "an existing output: must survive a failed run\n"
FUZZ = settings(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
COUNT = {}                  # examples per class, as declared, for test_the_suite_size
RAN = {}                    # examples per class, as run in this session


def ran(name):
    RAN[name] = RAN.get(name, 0) + 1


def examples(name, n):
    COUNT[name] = COUNT.get(name, 0) + n
    return settings(FUZZ, max_examples=n)


def fixed(name, cases):
    COUNT[name] = COUNT.get(name, 0) + len(cases)
    return cases


class Place:
    """A folder for one case: input files, and an output folder whose state is checked after the run."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bioaccel-fuzz-")
        self.out = os.path.join(self.root, "out")
        os.mkdir(self.out)
        self.existing = os.path.join(self.out, "existing.txt")
        with open(self.existing, "w") as handle:
            handle.write(SENTINEL)

    def write(self, name, data):
        path = os.path.join(self.root, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as handle:
            handle.write(data)
        return path

    def snapshot(self):
        state = {}
        for name in sorted(os.listdir(self.out)):
            path = os.path.join(self.out, name)
            state[name] = (os.path.islink(path), open(path, "rb").read() if os.path.isfile(path) else None)
        return state

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def refused(place, command, argv, outputs=None):
    """Run ``bioaccel COMMAND ARGV -o OUT/existing.txt`` (unless ``outputs`` replaces the -o) and check
    the promise; returns the error line."""
    argv = [command, *argv] if isinstance(command, str) else [*command, *argv]
    if outputs is None:
        argv += ["-o", place.existing]
    before = place.snapshot()
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    text = err.getvalue()
    name = argv[0]
    assert code == 2, f"{argv}: exit {code}, stderr {text!r}, stdout {out.getvalue()[:200]!r}"
    assert text.count("\n") == 1 and text.endswith("\n"), f"{argv}: {text!r}"
    assert text.startswith(f"bioaccel {name}"), f"{argv}: {text!r}"
    assert "Traceback" not in text and "np.float" not in text and "\ufffd" not in text, text
    assert place.snapshot() == before, f"{argv}: the output folder changed"
    if outputs is None:
        assert out.getvalue() == "", f"{argv}: wrote to stdout"
    return text


@pytest.fixture
def place():
    p = Place()
    yield p
    p.close()


# ---------------------------------------------------------------------------------- FASTA bytes

VALID_BYTES = set(b"ACGTUNRYKMSWBDHVacgtunrykmswbdhv \t\r\n>")
BAD_BYTES = [b for b in range(256) if b not in VALID_BYTES]


@examples("FASTA: a bad byte in a record, every command", 100)
@given(byte=st.sampled_from(BAD_BYTES), where=st.integers(0, 18), record=st.integers(0, 1),
       command=st.sampled_from(["fold", "interact-query", "interact-target", "motif-background", "scan"]))
def test_a_bad_byte_in_a_fasta_record(byte, where, record, command):
    ran("FASTA: a bad byte in a record, every command")
    place = Place()
    try:
        records = [["r1", "GGGAAAUCCGCGCAAAAGC"], ["r2", "ACGUACGUAAAACGUACGU"]]
        seq = records[record][1]
        records[record][1] = seq[:where] + chr(byte) + seq[where:]
        data = "".join(f">{i}\n{s}\n" for i, s in records).encode("latin-1")
        bad, good = place.write("bad.fa", data), place.write("good.fa", FASTA)
        argv = {"fold": ("fold", [bad]),
                "interact-query": ("interact", [bad, good]),
                "interact-target": ("interact", [good, bad]),
                "motif-background": (("motif", "pvalue"), [os.path.join(DATA, "two.jaspar"), "--score", "1",
                                                           "--background", bad]),
                "scan": ("scan", [os.path.join(DATA, "two.jaspar"), bad])}[command]
        line = refused(place, *argv)
        shown = repr(chr(byte)) if 32 < byte < 127 else f"byte {byte:#04x}"
        assert f"invalid character {shown}" in line and f"record 'r{record + 1}'" in line, line
    finally:
        place.close()


FASTA_STRUCTURE = fixed("FASTA: structure", [
    (b"", "no FASTA records"),
    (b"\xef\xbb\xbf", "no FASTA records"),
    (b"\n\n  \n", "no FASTA records"),
    (b"\xef\xbb\xbf@ACGU\n", "expected a FASTA header"),
    (b">\nACGU\n", "no sequence id"),
    (b">   \nACGU\n", "no sequence id"),
    (b"\x00\x01\x02\x03", "expected a FASTA header"),
    (b"@read1\nACGU\n+\nIIII\n", "expected a FASTA header"),
    (b">a\nAC GU\n>b\nAC\x85GU\n", "byte 0x85"),
    (b">a\nACGU\xa0\n", "byte 0xa0"),
    (b">a\nAC-GU\n", "'-'"),
    (b">a\nAC.GU\n", "'.'"),
    (b">a\nAC*\n", "'*'"),
])


@pytest.mark.parametrize("data, needle", FASTA_STRUCTURE)
@pytest.mark.parametrize("command", ["fold", "interact", "scan"])
def test_fasta_structure(place, data, needle, command):
    ran("FASTA: structure")
    path = place.write("in.fa", data)
    argv = {"fold": [path], "interact": [path, place.write("t.fa", FASTA)],
            "scan": [os.path.join(DATA, "two.jaspar"), path]}[command]
    assert needle in refused(place, command, argv)


@pytest.mark.parametrize("data", [b">a\n>b\nACGU\n", b">a\nACGU\n>b\n"])
@pytest.mark.parametrize("command", ["fold", "scan"])
def test_an_empty_record_is_an_empty_sequence(place, data, command):
    """A header without letters is an empty sequence, not an error (it once was: the rule of issue 24):
    folded, the empty structure of score 0; scanned, no window and so no hit (as FIMO)."""
    path = place.write("in.fa", data)
    argv = {"fold": [path], "scan": [os.path.join(DATA, "two.jaspar"), path]}[command]
    out, err = io.StringIO(), io.StringIO()
    assert main([command, *argv, "-q"], stdout=out, stderr=err) == 0, err.getvalue()
    if command == "scan":
        assert out.getvalue().count("\n") == 1 and out.getvalue().startswith("motif_id\t")   # the header only
    else:
        empty = ">a\n\n (  0.00)\n" if data.startswith(b">a\n>") else ">b\n\n (  0.00)\n"
        assert empty in out.getvalue()


COUNT["FASTA: structure"] += 2 * len(FASTA_STRUCTURE)      # run for three commands


# ------------------------------------------------------------------------------------ compressed

PACK = {"gzip": (gzip.compress, ".gz"), "bzip2": (bz2.compress, ".bz2"), "xz": (lzma.compress, ".xz")}


def _spoil(packed, how, at):
    body = len(packed)
    if how == "truncate":
        return packed[:max(1, at % max(2, body - 1))]
    if how == "flip":                         # inside the compressed body, away from trailing padding
        lo, hi = 10, max(11, int(body * 0.7))
        k = lo + at % (hi - lo)
        return packed[:k] + bytes([packed[k] ^ 0xFF]) + packed[k + 1:]
    return packed[:6] + b"\x00garbage" * 3          # "fake": the magic, then no stream


@examples("compressed: truncated, corrupt or fake, every reader", 100)
@given(kind=st.sampled_from(sorted(PACK)), how=st.sampled_from(["truncate", "flip", "fake"]),
       at=st.integers(0, 10_000), reader=st.sampled_from(["fold", "interact", "motif", "background", "scores"]))
def test_a_broken_compressed_file(kind, how, at, reader):
    ran("compressed: truncated, corrupt or fake, every reader")
    place = Place()
    try:
        pack, suffix = PACK[kind]
        plain = {"motif": JASPAR_TEXT.encode(), "scores": b"1.5 2 3\n" * 40}.get(reader, (FASTA * 20).encode())
        data = _spoil(pack(plain), how, at)
        name = {"motif": "m.jaspar", "scores": "scores.txt"}.get(reader, "in.fa") + suffix
        path = place.write(name, data)
        good = place.write("good.fa", FASTA)
        jaspar = os.path.join(DATA, "two.jaspar")
        argv = {"fold": ("fold", [path]), "interact": ("interact", [good, path]),
                "motif": (("motif", "threshold"), [path, "--pvalue", "1e-3"]),
                "background": (("motif", "pvalue"), [jaspar, "--score", "1", "--background", path]),
                "scores": (("motif", "pvalue"), [jaspar, "--scores", path])}[reader]
        line = refused(place, *argv)
        assert name in line, line                    # the file is named (a stream cut inside its magic
        # bytes reads as plain text, and is refused as such)
    finally:
        place.close()


# --------------------------------------------------------------------------------------- numbers

NOT_NUMBERS = ["nan", "NaN", "inf", "-inf", "1e309", "-1e309", "x", "", "1,5", "0x10", "--", "1e", "½"]
BAD_VALUES = {
    "fold": {"--au": NOT_NUMBERS + ["-1", "1e300", "1001", "0.3333333", "1e-9"],
             "--gc": NOT_NUMBERS + ["-0.5", "1e300", "2.0001"],
             "--gu": NOT_NUMBERS + ["-2", "1e300"],
             "--min-loop": ["-1", "99999999999999999999", "1.5", "nan", "x", "", "1e3"],
             "--threads": ["-1", "1.5", "x", "", "nan"]},
    "interact": {"--au": NOT_NUMBERS + ["-1", "1e300", "0.0001"], "--gu": NOT_NUMBERS + ["-3", "1e300"],
                 "--window-target": ["0", "-5", "1.5", "x", "", "nan"],
                 "--window-query": ["0", "-1", "2.5", "inf"], "--threads": ["-2", "x"],
                 "--sites": ["0", "-1", "1.5", "x", "", "nan"]},
    "motif threshold": {"--pvalue": ["0", "-1e-4", "2", "1.0001", "nan", "inf", "-inf", "x", "", "1e-400"],
                        "--pseudocount": ["-0.1", "nan", "inf", "x"], "--log-base": ["1", "0.5", "-2", "inf",
                                                                                     "nan", "0"],
                        "--precision": ["0", "-1", "nan", "inf", "x"], "--slices": ["0", "-1", "7", "1000", "x"],
                        "--buckets": ["1", "0", "-5", "10000000000", "x"],
                        "--background-order": ["-1", "6", "2", "x", "1.5"], "--threads": ["-1"]},
    "motif pvalue": {"--score": ["nan", "NaN", "x", ""], "--pseudocount": ["-1", "nan"],
                     "--precision": ["nan", "-0.5"], "--slices": ["1000"], "--buckets": ["1"]},
    "motif compare": {"--pvalue": ["0", "nan", "3"], "--shift": ["100", "-100", "x", "1.5"],
                      "--slices": ["99"], "--precision": ["inf"]},
    "scan": {"--pvalue": ["0", "-1e-4", "1.5", "nan", "inf", "x", "", "1e-400"],
             "--threshold": ["nan", "inf", "-inf", "x", ""], "--chunk-size": ["0", "-1", "1.5", "x", ""],
             "--max-stored-hits": ["0", "-5", "x"], "--slice-length": ["0", "9", "x", "2.5"],
             "--pseudocount": ["-0.1", "nan"], "--threads": ["-1", "x"]},
}
NUMBER_CASES = fixed("numbers: every numeric option", [(c, o, v) for c, opts in BAD_VALUES.items()
                                                       for o, vals in opts.items() for v in vals])


@pytest.mark.parametrize("command, option, value", NUMBER_CASES)
def test_a_bad_number(place, command, option, value):
    ran("numbers: every numeric option")
    fasta = place.write("in.fa", FASTA)
    jaspar = os.path.join(DATA, "two.jaspar")
    head = {"fold": [fasta], "interact": [fasta, fasta], "motif threshold": [jaspar, "--pvalue", "1e-3"],
            "motif pvalue": [jaspar, "--score", "2"], "motif compare": [jaspar, jaspar],
            "scan": [jaspar, fasta]}[command]
    if option in ("--slices", "--buckets", "--precision") and command != "motif pvalue" or \
            command == "motif pvalue" and option in ("--slices", "--buckets"):
        head = head + ["--variant", "bucket"] if option != "--precision" else head
    if command == "motif threshold" and option == "--pvalue":
        head = [jaspar]
    refused(place, command.split(), [*head, f"{option}={value}"])


@examples("numbers: random floats out of range", 30)
@given(value=st.one_of(st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False),
                       st.floats(min_value=1001, allow_infinity=False), st.just(float("nan"))),
       option=st.sampled_from(["--au", "--gc", "--gu"]))
def test_a_random_bad_weight(value, option):
    ran("numbers: random floats out of range")
    place = Place()
    try:
        line = refused(place, "fold", [place.write("in.fa", FASTA), "--model", "nussinov", f"{option}={value!r}"])
        assert "pair weight" in line
    finally:
        place.close()


# --------------------------------------------------------------------------------- combinations

def _combinations():
    jaspar = os.path.join(DATA, "two.jaspar")
    return [
        ("fold", ["{fa}", "--no-gu", "--gu", "2"], "contradict"),
        ("fold", ["{fa}", "--variant", ""], "empty"),
        ("fold", ["{fa}", "--variant", "warp"], "unknown"),
        ("fold", ["{fa}", "--model", "nussinov", "--variant", "diagonal"], "not available on the cpu"),
        ("fold", ["{fa}", "--variant", "CPU1"], "a variant of the nussinov model, not of turner2004: add --model"),
        ("fold", ["{fa}", "--format", "fasta"], "invalid choice"),
        ("fold", ["{fa}", "--scheduler", ""], "scheduler address"),
        ("fold", ["{fa}", "--scheduler", "  "], "scheduler address"),
        ("fold", ["{fa}", "--workers", "0"], "whole number >= 1"),
        ("fold", ["{fa}", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not allowed with"),
        ("fold", ["{fa}", "--gpus", "zero"], "device numbers"),
        ("fold", ["{fa}", "--gpus", "0,0"], "twice"),
        ("interact", ["{fa}", "{fa}", "--gpus", "0,0"], "twice"),
        ("scan", [os.path.join(DATA, "two.jaspar"), "-", "--workers", "2"], "not standard input"),
        ("fold", ["{fa}", "--bogus"], "unrecognized"),
        ("fold", ["{fa}", "{fa}"], "unrecognized"),
        ("fold", ["--model", "nussinov"], "no FASTA records"),     # no file: the (empty) pipe is read
        ("interact", ["-", "-"], "both read standard input"),
        ("interact", ["{fa}"], "required"),
        ("interact", ["{fa}", "{fa}", "--backend", "gpu", "--variant", "tiled"], "not available on the gpu"),
        ("interact", ["{fa}", "{fa}", "--variant", "tiled-gpu"], "unknown"),
        ("interact", ["{fa}", "{fa}", "--format", "csv"], "invalid choice"),
        ("motif", ["threshold", jaspar], "required: --pvalue"),
        ("motif", ["pvalue", jaspar], "give at least one"),
        ("motif", ["pvalue", jaspar, "--word", "ACGTNN"], "found 'N'"),
        ("motif", ["pvalue", jaspar, "--word", "ACGTACGTAC"], "10 letters"),
        ("motif", ["pvalue", jaspar, "--word", ""], "expected a word"),
        ("motif", ["compare", "-", "-"], "both read standard input"),
        ("motif", ["show", "-", "--background", "-"], "both read standard input"),
        ("motif", ["pvalue", "-", "--scores", "-"], "both read standard input"),
        ("motif", ["export", "-", "-"], "standard input"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--background-order", "1"], "FASTA file"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--background", "0.3,0.2,0.2,0.3",
                   "--background-order", "2"], "FASTA file"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--variant", "exact", "--backend", "gpu"],
         "not available"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--variant", ""], "empty"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--preset", "bogus"], "--preset must be one of"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--kind", "probabilities"], "invalid choice"),
        ("motif", ["threshold", "jaspar:MA0066.1", "--pvalue", "1e-3", "--kind", "bogus"], "invalid choice"),
        ("motif", ["show", jaspar, "--background", "0.5,0.5,0.5,0.5"], "must add up to 1, got 2"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--motif-format", "fasta"], "unknown motif format"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--motif-format", "meme"], "MEME"),
        ("motif", ["compare", jaspar, jaspar, "--backend", "gpu"], "invalid choice"),
        ("motif", ["export", jaspar, "--format", "tsv"], "invalid choice"),
        ("motif", ["export", os.path.join(DATA, "logodds.txt"), "--kind", "logodds"], "log-odds"),
        ("motif", ["show", jaspar, "--background", "0.3,0.2,0.2"], "expected 4 frequencies (A,C,G,T), got 3"),
        ("motif", ["show", jaspar, "--background", "A=0.3,C=0.2,G=0.2,X=0.3"], "'X'"),
        ("motif", ["show", jaspar, "--background", "A=0.3,C=0.2,G=0.2"], "no frequency for letter T"),
        ("motif", ["show", jaspar, "--background", "A=0.3,A=0.2,G=0.2,T=0.3"], "given twice"),
        ("motif", ["show", jaspar, "--background", "0,0,0,1"], "frequency of A"),
        ("motif", ["show", jaspar, "--background", "0.3,0.2,nan,0.3"], "frequency of G"),
        ("motif", ["show", jaspar, "--background", "0.3,0.2,-0.2,0.3"], "frequency of G"),
        ("motif", ["show", jaspar, "--background", "a,b,c,d"], "not a number"),
        ("motif", ["show", jaspar, "--background", "0.5"], "expected 4 frequencies"),
        ("motif", ["show", jaspar, "--background", ""], "empty"),
        ("motif", ["show", jaspar, "--background", "nofile.fa"], "no such file"),
        ("motif", ["threshold", jaspar, "--pvalue", "1e-3", "--background", DATA], "is a folder"),   # a traceback once
        ("scan", [jaspar, "{fa}", "--background", DATA], "is a folder"),
        # sequences where motifs go (scan's arguments swapped): said so, not "'GGGAAAUCC...' is not a number"
        ("scan", ["{fa}", jaspar], "holds sequences (FASTA), not motifs: give the motifs first"),
        ("motif", ["threshold", "{fa}", "--pvalue", "1e-3"], "holds sequences (FASTA), not motifs"),
        ("motif", ["show", "jaspar:"], "expected jaspar:ID"),
        ("motif", ["show", "jaspar:MA0000.9"], "no matrix"),
        ("motif", ["show", "jaspar:1999/CORE"], "unknown release"),
        ("motif", ["show", "jaspar:2024/CORE/martians"], "taxonomic group"),
        ("motif", ["show", "jaspar:2024/NOPE"], "no collection"),
        ("motif", ["show", "missing.jaspar"], "no such file"),
        ("motif", ["show", DATA], "is a folder"),
    ]


COMBINATIONS = fixed("option combinations and specs", _combinations())


@pytest.mark.parametrize("command, argv, needle", COMBINATIONS)
def test_a_bad_combination(place, monkeypatch, command, argv, needle):
    ran("option combinations and specs")
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    fa = place.write("in.fa", FASTA)
    argv = [a.replace("{fa}", fa) for a in argv]
    assert needle in refused(place, command, argv), argv


# ---------------------------------------------------------------------------------- output paths

def _output_cases():
    cases = []
    for command in ("fold", "interact", "motif threshold", "motif show", "motif export", "motif compare"):
        for option in ("-o", "--profile", "--plot"):
            if option == "--profile" and command != "interact":
                continue
            if option == "--plot" and command not in ("fold", "motif threshold", "motif compare"):
                continue
            for path in ("", "{out}", "{out}/", "{out}/missing/x.txt", "{out}/existing.txt/",
                         "/proc/bioaccel-fuzz.txt", "{out}/existing.txt/x", "a\x00b"):
                cases.append((command, option, path))
    # two options naming one file: the same name, or a symbolic link and its target
    cases += [("fold", "--plot", "same"), ("fold", "--plot", "link"), ("interact", "--profile", "same"),
              ("interact", "--profile", "link"), ("motif threshold", "--plot", "same"),
              ("motif compare", "--plot", "link"), ("motif pvalue", "--plot", "same")]
    return cases


OUTPUT_CASES = fixed("output paths", _output_cases())


@pytest.mark.parametrize("command, option, path", OUTPUT_CASES)
def test_a_bad_output_path(place, command, option, path):
    ran("output paths")
    fa = place.write("in.fa", FASTA)
    jaspar = os.path.join(DATA, "two.jaspar")
    head = {"fold": [fa], "interact": [fa, fa], "motif threshold": [jaspar, "--pvalue", "1e-3"],
            "motif show": [jaspar], "motif export": [jaspar], "motif compare": [jaspar, jaspar],
            "motif pvalue": [jaspar, "--score", "3"]}[command]
    if path in ("same", "link"):
        first = os.path.join(place.out, "result.svg")
        second = first
        if path == "link":
            second = os.path.join(place.out, "link.svg")
            os.symlink("result.svg", second)
        line = refused(place, command.split(), [*head, "-o", first, option, second], outputs=True)
        assert "name the same file" in line
        return
    if path == "{out}" and option == "--plot":
        path = "{out}/folder.svg"
        os.mkdir(os.path.join(place.out, "folder.svg"))
    elif option == "--plot" and path and not path.endswith("/") and "\x00" not in path:
        path += ".svg"
    path = path.replace("{out}", place.out)
    refused(place, command.split(), [*head, option, path], outputs=True)


# ----------------------------------------------------------------------------------- motif files

MUTATIONS = ["x", "nan", "inf", "-inf", "-1", "1e400", "", "1.2.3", "NA", "--", "0x1F", "1e"]


def _numbers(text):
    import re

    return list(re.finditer(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])", text))


def _mutable(fmt, text):
    """The number tokens of a motif's matrix rows (not MEME's header lines, not TRANSFAC's row numbers)."""
    spans = []
    for match in _numbers(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line = text[line_start:text.find("\n", match.start())]
        if fmt == "meme" and not line.strip()[:1].isdigit():
            continue
        if fmt == "transfac" and (match.start() == line_start or not line[:2].isdigit()):
            continue
        if fmt == "homer" and line.startswith(">"):
            continue
        if fmt == "jaspar" and line.startswith(">"):
            continue
        spans.append(match)
    return spans


FORMAT_TEXTS = {"jaspar": ("m.jaspar", JASPAR_TEXT), "meme": ("m.meme", MEME_TEXT),
                "transfac": ("m.transfac", TRANSFAC_TEXT), "homer": ("m.motif", HOMER_TEXT),
                "matrix": ("m.txt", MATRIX_TEXT)}


@examples("motif files: a matrix number replaced, every format", 120)
@given(fmt=st.sampled_from(sorted(FORMAT_TEXTS)), which=st.integers(0, 10_000),
       token=st.sampled_from(MUTATIONS), action=st.sampled_from(["threshold", "show", "export"]))
def test_a_bad_number_in_a_motif_file(fmt, which, token, action):
    ran("motif files: a matrix number replaced, every format")
    name, text = FORMAT_TEXTS[fmt]
    spans = _mutable(fmt, text)
    match = spans[which % len(spans)]
    if token == "" and fmt == "meme":
        token = "0.1 0.2"                    # a row of 5 numbers: MEME rows may be empty-padded otherwise
    bad = text[:match.start()] + token + text[match.end():]
    place = Place()
    try:
        path = place.write(name, bad)
        argv = [path] + (["--pvalue", "1e-3"] if action == "threshold" else [])
        refused(place, ("motif", action), argv)
    finally:
        place.close()


MOTIF_FILES = fixed("motif files: structure, every format", [
    ("m.jaspar", ">MA1 x\nA [ 1 2 ]\nC [ 0 1 ]\nG [ 3 0 ]\n", "missing the T row"),
    ("m.jaspar", ">MA1 x\nA [ 1 2 ]\nC [ 0 1 ]\nG [ 3 0 ]\nT [ 1 ]\n", "row T has 1 numbers"),
    ("m.jaspar", ">MA1 x\nA [ ]\nC [ ]\nG [ ]\nT [ ]\n", "empty row"),
    ("m.jaspar", ">MA1 x\nC [ 1 ]\nA [ 1 ]\nG [ 1 ]\nT [ 1 ]\n", "expected the A row"),
    ("m.jaspar", "MA1 x\nA [ 1 ]\nC [ 1 ]\nG [ 1 ]\nT [ 1 ]\n", "header"),
    ("m.jaspar", ">MA1 x\nA [ 1 -2 ]\nC [ 0 1 ]\nG [ 3 0 ]\nT [ 1 1 ]\n", "negative"),
    ("m.meme", MEME_TEXT.replace("w= 6", "w= 5"), "w= 5 but the matrix has 6 rows"),
    ("m.meme", MEME_TEXT.replace("w= 6", "w= 7"), "w= 7 but the matrix has 6 rows"),
    ("m.meme", MEME_TEXT.replace("w= 6", "w= 0"), "w= 0"),
    ("m.meme", MEME_TEXT.replace("w= 6", "w= six"), "w= six"),
    ("m.meme", MEME_TEXT.replace("w= 6 ", ""), "without 'w='"),
    ("m.meme", MEME_TEXT.replace("nsites= 20", "nsites= 0"), "nsites= 0"),
    ("m.meme", MEME_TEXT.replace("nsites= 20", "nsites= -3"), "nsites= -3"),
    ("m.meme", MEME_TEXT.replace("nsites= 20", "nsites= nan"), "nsites= nan"),
    ("m.meme", MEME_TEXT.replace("nsites= 20", "nsites= many"), "nsites= many"),
    ("m.meme", MEME_TEXT.replace("alength= 4", "alength= 20"), "alength= 20"),
    ("m.meme", MEME_TEXT.replace("MEME version 4", "MEMO version 4"), "MEME"),
    ("m.meme", MEME_TEXT.replace("MOTIF MA0004.1 Arnt\n", ""), "before any MOTIF"),
    ("m.meme", MEME_TEXT.replace("MOTIF MA0004.1 Arnt", "MOTIF"), "without an identifier"),
    ("m.meme", "MEME version 4\n\nALPHABET= ACGT\n", "no MOTIF"),
    ("m.transfac", TRANSFAC_TEXT.replace("P0      A      C      G      T", "P0      A      C      T      G"),
     "columns A C G T"),
    ("m.transfac", TRANSFAC_TEXT.replace("P0", "PX"), "no matrix"),
    ("m.transfac", TRANSFAC_TEXT.replace("02     19      0      1      0", "02     19      0      1"),
     "line 7"),
    ("m.transfac", TRANSFAC_TEXT.replace("XX\n//", "garbage line here\n//"), "expected a matrix row"),
    ("m.motif", HOMER_TEXT.replace(">CACGTG", "CACGTG"), "header"),
    ("m.motif", ">AAA\tpolyA\t3.0\n", "without matrix rows"),
    ("m.motif", ">A\tx\t1\n>B\tx\t1\n0.25 0.25 0.25 0.25\n", "without matrix rows"),
    ("m.motif", HOMER_TEXT.replace("0.7\t0.1\t0.1\t0.1\n", "0.7\t-0.1\t0.1\t0.1\n", 1), "negative"),
    ("m.txt", "A 1 2\nC 0 1\nG 3 0\nT 1 -1\n", "--kind logodds"),
    ("m.txt", "C 1 2\nA 0 1\nG 3 0\nT 1 1\n", "A, C, G, T"),
    ("m.txt", "1 2 3\n4 5 6\n", "expected 4 numbers"),
    ("m.txt", "1 2 3 4\n5 6 7\n", "expected 4 numbers"),
    ("m.txt", "# nothing\n", "empty"),
    ("m.txt", "> header only\n", "without matrix rows"),
    ("m.txt", "", "empty"),
    ("m.txt", "\n \n\t\n", "empty"),
    ("m.txt", "\xef\xbb\xbf".encode("latin-1").decode("latin-1"), "empty"),
    ("m.jaspar", b">MA1 caf\xe9\nA [ 1 ]\nC [ 0 ]\nG [ 0 ]\nT [ 0 ]\n", "byte 0xe9"),
    ("m.meme", b"MEME version 4\n\xff\xfe\n", "byte 0xff"),
    ("m.txt", bytes(range(256)), "byte 0x"),
    ("m.txt", b"\x00" * 64, "not a number"),
])


@pytest.mark.parametrize("name, data, needle", MOTIF_FILES)
def test_a_broken_motif_file(place, name, data, needle):
    ran("motif files: structure, every format")
    if isinstance(data, str):
        data = data.encode("utf-8") if not data.startswith("\xef") else data.encode("latin-1")
    path = place.write(name, data)
    assert needle in refused(place, ("motif", "threshold"), [path, "--pvalue", "1e-3"])


@examples("random bytes as a FASTA or motif file", 80)
@given(data=st.binary(min_size=1, max_size=300), kind=st.sampled_from(["fold", "jaspar", "meme", "transfac",
                                                                       "motif"]))
def test_random_bytes(data, kind):
    ran("random bytes as a FASTA or motif file")
    from hypothesis import assume

    if kind == "fold":
        assume(not data.lstrip(b" \t\r\n").startswith(b">"))
        # only letters of the alphabet: a bare sequence without a header, folded as RNAfold folds one
        assume(not (data.strip() and set(data) <= VALID_BYTES))
    place = Place()
    try:
        if kind == "fold":
            refused(place, "fold", [place.write("in.fa", data)])
        else:
            refused(place, ("motif", "show"), [place.write(f"m.{kind}", data)])
    finally:
        place.close()


SCORE_FILES = fixed("score files", [
    ("1 2 x\n", "'x' is not a number"), ("nan\n", "not a score"), ("", "no score"), ("# only a comment\n", "no score"),
    ("1;2;\n3,,4 five\n", "'five'"), (b"1 2 \xff\n", "not a number"),
])


@pytest.mark.parametrize("data, needle", SCORE_FILES)
def test_a_bad_scores_file(place, data, needle):
    ran("score files")
    path = place.write("scores.txt", data)
    assert needle in refused(place, ("motif", "pvalue"), [os.path.join(DATA, "two.jaspar"), "--scores", path])


# ---------------------------------------------------------------------------------------- size

def test_the_suite_size():
    """At least 300 generated bad inputs across all commands (Hypothesis examples, parametrized cases);
    when the whole file ran, at least 300 were actually run."""
    total = sum(COUNT.values())
    assert total >= 300, COUNT
    if RAN:
        print(f"\nfuzz cases run: {sum(RAN.values())}: " + "; ".join(f"{k}: {v}" for k, v in RAN.items()))
    if len(RAN) == len(COUNT):
        assert sum(RAN.values()) >= 300, RAN


@pytest.mark.parametrize("argv, said", [
    (["fold", "{rnas}", "--min-loop", "2"], "no option --min-loop (a Nussinov option"),
    (["scan", "{meme}", "{genome}", "--slice-length", "9"], "--slice-length must be a whole number from 1 to 8"),
    (["motif", "threshold", "{meme}", "--pvalue", "1e-3", "--preset", "x"], "--preset must be one of"),
    # the names in words ("window target must", "pair weight AU", "no option au") once stood as written
    (["interact", "{rnas}", "{rnas}", "--window-target", "0"], "--window-target must be a whole number >= 1"),
    (["interact", "{rnas}", "{rnas}", "--window-query", "0", "--partition"], "--window-query must be"),
    (["interact", "{rnas}", "{rnas}", "--au", "-1"], "--au (pair weight AU) must be"),
    (["interact", "{rnas}", "{rnas}", "--gu", "200", "--partition"], "--gu (pair score GU) must be"),
    (["fold", "{rnas}", "--model", "nussinov", "--gc", "-1"], "--gc (pair weight GC) must be"),
    (["fold", "{rnas}", "--au", "2"], "no option --au (a Nussinov option"),
    (["fold", "{rnas}", "-p", "--window", "0", "--bpp", "-"], "--window must be a whole number of bases"),
    (["fold", "{rnas}", "-p", "--winsize", "70", "--span", "0", "--bpp", "-"], "--span must be"),
    (["fold", "{rnas}", "-p", "--window", "70", "--cutoff", "2", "--bpp", "-"], "--cutoff must be a probability")])
def test_messages_name_the_options_typed(argv, said):
    """Issue 25: internal names in messages ('min_loop must be...' for --min-loop), wherever they stand."""
    import io as _io

    from bioaccel.cli.main import main as _main

    examples = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    files = {"rnas": os.path.join(examples, "rnas.fa"), "meme": os.path.join(examples, "motifs.meme"),
             "genome": os.path.join(examples, "sars-cov-2.fasta")}
    err = _io.StringIO()
    assert _main([a.format(**files) for a in argv], stdout=_io.StringIO(), stderr=err) == 2
    assert said in err.getvalue() and "_" not in err.getvalue().split(":", 2)[2].split("(")[0]


@pytest.mark.parametrize("argv", [["{fa}", DATA], ["{fa}", DATA, "--partition"], [DATA, "{fa}"]])
@pytest.mark.parametrize("command", ["interact"])
def test_a_folder_is_refused_before_the_header_row(place, command, argv):
    """A folder given as TARGETS once let the header row reach standard output before the error."""
    out, err = io.StringIO(), io.StringIO()
    fa = place.write("in.fa", FASTA)
    code = main([command, *[a.replace("{fa}", fa) for a in argv], "-q"], stdout=out, stderr=err)
    assert code == 2 and out.getvalue() == "", out.getvalue()
    assert err.getvalue() == f"bioaccel {command}: error: {DATA}: is a folder, expected a FASTA file\n"
