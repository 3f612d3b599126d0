"""The ``bioaccel`` command: one subcommand per algorithm family.

Each subcommand lives in its own package's ``cli`` module, which provides ``register(subparsers)``;
the parser it adds sets ``run=function(args, stdout, stderr) -> int``. ``main`` never calls
``sys.exit``, so tests call ``main([...])`` and read the return code.
"""
import argparse
import importlib
import sys

from . import __version__
from .errors import BioaccelError

SUBCOMMAND_MODULES = ("bioaccel.fold.cli", "bioaccel.interact.cli", "bioaccel.motif.cli")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="bioaccel",
        description="RNA folding, RNA-RNA interaction and motif statistics on all CPU cores or a GPU.",
    )
    parser.add_argument("--version", action="version", version=f"bioaccel {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that family is not part of this build
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv=None, stdout=None, stderr=None):
    """Run the command line with ``argv``; return the exit status (0 ok, 2 bad input or usage)."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports usage errors (status 2) and --help (status 0) this way
        return int(exc.code or 0)
    if not getattr(args, "run", None):
        parser.print_help(stderr)
        return 2
    try:
        return int(args.run(args, stdout, stderr) or 0)
    except BioaccelError as exc:
        print(f"bioaccel {args.command}: error: {exc}", file=stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bioaccel {args.command}: interrupted", file=stderr)
        return 130
    except BrokenPipeError:  # e.g. `bioaccel fold big.fa | head`
        return 0


def console_main():
    sys.exit(main())
