"""``bioaccel motif compare``: alpha and beta (the two score thresholds) in the TSV to 6 significant
digits, as the rest of the row is rounded (JSON keeps every digit), and every column named in its help."""
import io
import json
import os

from bioaccel.cli.main import main
from bioaccel.results.values import format_number

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
JASPAR, MEME = os.path.join(EXAMPLES, "MA0066.1.jaspar"), os.path.join(EXAMPLES, "motifs.meme")


def _run(argv):
    out = io.StringIO()
    assert main(["motif", "compare", *argv, "-q"], stdout=out) == 0
    return out.getvalue()


def test_alpha_and_beta_to_six_significant_digits():
    argv = [JASPAR, MEME]
    lines = _run(argv).splitlines()
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    exact = [json.loads(line) for line in _run([*argv, "--format", "json"]).splitlines()]
    assert rows and len(rows) == len(exact)
    for row, full in zip(rows, exact):
        for column in ("alpha", "beta"):
            text = row[header.index(column)]
            assert text == format_number(full[column], digits=6)
            assert len(text.lstrip("-").replace(".", "").lstrip("0")) <= 6, text
            assert abs(float(text) - full[column]) <= 5e-6 * max(1.0, abs(full[column]))


def test_every_column_is_explained_in_the_help(capsys):
    assert main(["motif", "compare", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    header = _run([JASPAR, JASPAR]).splitlines()[0].split("\t")
    for column in header:
        assert column in text, column
    assert "alpha, beta (the score thresholds of motif1 and motif2 at --pvalue" in text
