"""The ``bioaccel`` command: one subcommand per algorithm family.

Each subcommand lives in its own package's ``cli`` module, which provides ``register(subparsers)``;
the parser it adds sets ``run=function(args, stdout, stderr) -> int``. ``main`` never calls
``sys.exit``, so tests call ``main([...])`` and read the return code. The ``cli`` modules import the
algorithms only inside ``run``: ``bioaccel --help`` and usage errors never load Numba.
"""
import argparse
import importlib
import sys

from . import __version__
from ._cliutil import Listing, Parser, UsageError
from .errors import BioaccelError, InternalError

SUBCOMMAND_MODULES = ("bioaccel.fold.cli", "bioaccel.interact.cli", "bioaccel.motif.cli")


def build_parser() -> Parser:
    """The whole command line: ``bioaccel`` and every subcommand's parser."""
    parser = Parser(
        prog="bioaccel",
        description="RNA folding (Nussinov), RNA-RNA interaction (BPMax) and position weight matrix "
                    "statistics on all CPU cores, an NVIDIA GPU, or a Dask cluster.",
    )
    parser.add_argument("--version", action="version", version=f"bioaccel {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    _name_subparsers(parser)
    return parser


def _name_subparsers(parser):
    """Every (sub)parser records its ``prog`` in the namespace, so errors name the whole command."""
    parser.set_defaults(prog=parser.prog)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _name_subparsers(sub)


def main(argv=None, stdout=None, stderr=None) -> int:
    """Run the command line with ``argv``; return the exit status (0 ok, 2 bad input or usage,
    70 an internal error, 130 interrupted).

    >>> import io
    >>> err = io.StringIO()
    >>> main(["fold", "--no-such-option"], stderr=err)
    2
    >>> print(err.getvalue().strip())
    bioaccel fold: error: unrecognized arguments: --no-such-option (see bioaccel fold --help)
    """
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # named by the subcommand's parser, not by the root's
            raise UsageError(getattr(args, "prog", "bioaccel"), f"unrecognized arguments: {' '.join(extras)}")
    except Listing as listing:
        stdout.write(listing.text)
        return 0
    except UsageError as exc:
        print(exc, file=stderr)
        return 2
    except SystemExit as exc:  # --help and --version (status 0)
        return int(exc.code or 0)
    if not getattr(args, "run", None):
        parser.print_help(stderr)
        return 2
    try:
        return int(args.run(args, stdout, stderr) or 0)
    except InternalError as exc:
        print(f"bioaccel {args.command}: {exc}", file=stderr)
        return 70
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
