"""A side file (``--bpp``, ``--profile``) that fails at the very end (a full disk: /dev/full takes the
writes and fails the flush) leaves standard output without its last line, never complete beside an
error (bioaccel.cli.side_files); a side file that is written changes nothing on standard output."""
import io
import os

import pytest

from bioaccel.cli.main import main

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
RNAS = os.path.join(EXAMPLES, "rnas.fa")


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, "-q"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _svrna_screen(tmp_path):
    queries = tmp_path / "q.fa"
    queries.write_text(">q1\nGGGAAACCCAGUCUAGCUAG\n>q2\nCUAGCUAGACUGGGUUUCCC\n")
    targets = tmp_path / "t.fa"
    targets.write_text("".join(f">t{k} target {k}\n{'GGGUUUCCCAGUCUAGCUAGGAUC'[k:] * 3}\n" for k in range(3)))
    return ["interact", str(queries), str(targets), "--window-target", "24", "--backend", "cpu"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("case", ["fold", "interact"])
def test_a_side_file_failing_at_the_end_leaves_standard_output_incomplete(tmp_path, case):
    argv, side = (["fold", RNAS, "-p"], "--bpp") if case == "fold" else (_svrna_screen(tmp_path), "--profile")
    code, whole, _ = _run(argv)
    assert code == 0 and whole.count("\n") >= 3
    code, out, err = _run([*argv, side, "/dev/full"])
    assert code == 2
    assert err.strip().splitlines() == [f"bioaccel {case}: error: {side} /dev/full: cannot write (no space left on device)"]
    lines = whole.splitlines(keepends=True)
    assert out == "".join(lines[:-1])           # all but the last line: not a complete output


def test_a_side_file_written_changes_nothing_on_standard_output(tmp_path):
    code, whole, _ = _run(["fold", RNAS, "-p"])
    pairs = tmp_path / "pairs.txt"
    code2, out, err = _run(["fold", RNAS, "-p", "--bpp", str(pairs)])
    assert (code, code2, err) == (0, 0, "") and out == whole
    assert pairs.read_text().count("\n") > 10
