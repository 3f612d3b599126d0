"""Every command line of a README, run with one tree's code, its outputs kept for a byte-for-byte
comparison with another tree's: the check that a refactoring changed no output (issue 24).

    python3 bench/readme_outputs.py OLD/README.md OLD /tmp/old           # the README's commands, OLD's code
    python3 bench/readme_outputs.py OLD/README.md . /tmp/new --model fold=nussinov
    diff -r /tmp/old /tmp/new                                             # expect only timings and SVG ids

Each command (no GPU, workers or scheduler) runs in a fresh copy of TREE/examples/; OUTDIR/<n>/ keeps its
command, stdout, stderr, exit status and the files it wrote. ``--model fold=NAME`` adds ``--model NAME``
to fold commands that name no model (for a tree whose default model changed on purpose).
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

NEEDS = ("--backend gpu", "--gpus", "--workers", "--scheduler")


def commands(readme: str) -> list:
    """The ``bioaccel`` command lines of the README's bash blocks, comments dropped."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", open(readme, encoding="utf-8").read(), flags=re.S):
        for line in block.splitlines():
            for part in line.split("  #")[0].split("&&"):
                part = part.strip()
                if part.startswith("bioaccel ") and not any(n in part for n in NEEDS):
                    found.append(part)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme")
    parser.add_argument("tree")
    parser.add_argument("outdir")
    parser.add_argument("--model", default=None, metavar="fold=NAME")
    args = parser.parse_args()
    model = args.model.split("=", 1)[1] if args.model else None
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(args.tree), "src"), OMP_WAIT_POLICY="passive")
    for k, command in enumerate(commands(args.readme)):
        argv = shlex.split(command)[1:]
        if model and argv[0] == "fold" and "--model" not in argv:
            argv = ["fold", "--model", model, *argv[1:]]
        place = os.path.join(args.outdir, f"{k:02d}")
        shutil.rmtree(place, ignore_errors=True)
        work = os.path.join(place, "work")
        shutil.copytree(os.path.join(args.tree, "examples"), os.path.join(work, "examples"))
        done = subprocess.run([sys.executable, "-m", "bioaccel", *argv], cwd=work, env=env, capture_output=True)
        for name, data in (("command", (command + "\n").encode()), ("stdout", done.stdout),
                           ("stderr", done.stderr), ("status", f"{done.returncode}\n".encode())):
            with open(os.path.join(place, name), "wb") as handle:
                handle.write(data)
        shutil.rmtree(os.path.join(work, "examples"))
        print(k, done.returncode, command, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
