"""The README's examples: every command parses, names files the repository ships, and (slow) runs."""
import io
import os
import re
import shlex
import shutil

import pytest

from bioaccel.cli.main import build_parser, main

ROOT = os.path.join(os.path.dirname(__file__), "..")
NEEDS = ("--backend gpu", "--gpus", "--workers", "--scheduler")   # a GPU, or Dask workers


def readme_commands():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("bioaccel "):
                    commands.append(part)
    return commands


COMMANDS = readme_commands()


def test_the_readme_has_examples_of_every_command():
    assert {c.split()[1] for c in COMMANDS} >= {"fold", "interact", "motif"}
    assert len(COMMANDS) >= 15


@pytest.mark.parametrize("command", COMMANDS)
def test_each_example_parses_and_names_shipped_files(command):
    argv = shlex.split(command)[1:]
    args = build_parser().parse_args(argv)
    assert getattr(args, "run", None), command
    for token in argv:
        if token.startswith("examples/"):
            assert os.path.exists(os.path.join(ROOT, token)), f"{command}: {token} is not shipped"


def test_shipped_motif_files_are_what_export_writes(tmp_path):
    meme, jaspar = tmp_path / "motifs.meme", tmp_path / "MA0066.1.jaspar"
    ids = ["jaspar:MA0004.1", "jaspar:MA0066.1", "jaspar:MA0028.2", "jaspar:MA0076.2", "jaspar:MA1122.2"]
    assert main(["motif", "export", *ids, "--format", "meme", "-o", str(meme)]) == 0
    assert main(["motif", "export", "jaspar:MA0066.1", "-o", str(jaspar)]) == 0
    assert meme.read_text() == open(os.path.join(ROOT, "examples", "motifs.meme")).read()
    assert jaspar.read_text() == open(os.path.join(ROOT, "examples", "MA0066.1.jaspar")).read()


def test_shipped_structures_are_what_fold_writes():
    """examples/rnas-structures.txt (the --eval example's input) is the output of the Quick start."""
    out = io.StringIO()
    assert main(["fold", os.path.join(ROOT, "examples", "rnas.fa")], stdout=out) == 0
    assert out.getvalue() == open(os.path.join(ROOT, "examples", "rnas-structures.txt")).read()


@pytest.mark.slow
@pytest.mark.parametrize("command", [c for c in COMMANDS if not any(n in c for n in NEEDS)])
def test_each_example_runs(tmp_path, monkeypatch, command):
    """Run in a copy of examples/, so that the files the examples write land in tmp_path."""
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(shlex.split(command)[1:], stdout=out, stderr=err) == 0, err.getvalue()
