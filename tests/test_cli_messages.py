"""Error messages name what the user typed: a P-value out of range is named by its option (--pvalue),
not by the API's word alone, in every command that takes one."""
import io
import os

import pytest

from bioaccel.cli.main import main

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
JASPAR = os.path.join(EXAMPLES, "MA0066.1.jaspar")


@pytest.mark.parametrize("argv, prog", [
    (["scan", JASPAR, os.path.join(EXAMPLES, "sars-cov-2-3prime.fa")], "bioaccel scan"),
    (["motif", "threshold", JASPAR], "bioaccel motif threshold"),
    (["motif", "compare", JASPAR, JASPAR], "bioaccel motif compare"),
])
@pytest.mark.parametrize("value", ["2", "0"])
def test_a_pvalue_out_of_range_names_the_option(argv, prog, value):
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--pvalue", value, "-q"], stdout=out, stderr=err) == 2
    assert err.getvalue().splitlines() == [f"{prog}: error: --pvalue (P-value) must be in (0, 1], got {value}"]
    assert out.getvalue() == ""
