"""The ``bioaccel`` command: one subcommand per algorithm family.

Each subcommand lives in its own package's ``cli`` module, which provides ``register(subparsers)``;
the parser it adds sets ``run=function(args, stdout, stderr) -> int``. ``main`` never calls
``sys.exit``, so tests call ``main([...])`` and read the return code. The ``cli`` modules import the
algorithms only inside ``run``: ``bioaccel --help`` and usage errors never load Numba.

The command's ``run`` works in a worker thread while the main thread waits for it, so that Ctrl-C
(SIGINT) and SIGTERM are honoured within a fraction of a second even while a long kernel runs (the
kernels release the GIL): the temporary output files are removed at once and ``main`` returns 130 or
143. Warnings (numpy's RuntimeWarnings, Numba's performance notes) never reach the user. A warm
server's spare runs its commands on one worker thread kept between them (:mod:`.run_thread`).
"""
import importlib
import sys
import threading
import warnings

from .. import __version__
from ..errors import BioaccelError, InternalError

SUBCOMMAND_MODULES = ("bioaccel.cli.fold", "bioaccel.cli.interact", "bioaccel.cli.motif", "bioaccel.cli.scan",
                      "bioaccel.cli.serve")
#: How often the main thread looks up from waiting (seconds): signals are handled at least this often.
POLL = 0.1
#: Exit status of a run stopped by SIGTERM (128 + 15, as a shell reports it).
TERMINATED = 143


def build_parser(only: str = None) -> "Parser":
    """The whole command line: ``bioaccel`` and every subcommand's parser; with ``only`` (a subcommand's
    name, the first word of a command line) just that subcommand's (a fifth of the parsers' start-up:
    the others' modules and registries are not imported).

    >>> sorted(_subparsers(build_parser("interact")))
    ['interact']
    """
    from .options import Parser        # argparse and the parsers: not for a command a warm server runs

    parser = Parser(
        prog="bioaccel",
        description="RNA folding (minimum free energy with the Turner 2004 energies, as RNAfold; Nussinov's "
                    "most base pairs), RNA-RNA interaction (BPMax, BPPart), position weight matrix statistics "
                    "and motif scanning, on all CPU cores, an NVIDIA GPU, or a Dask cluster.",
    )
    parser.add_argument("--version", action="version", version=f"bioaccel {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        if only is None or name.rsplit(".", 1)[1] == only:
            importlib.import_module(name).register(subparsers)
    _name_subparsers(parser)
    return parser


#: Parsers built ahead of the run that uses them (:func:`prepare_parser`), by subcommand; each used once.
_prepared = {}


def prepare_parser(name: str) -> None:
    """Build the parser of the subcommand ``name`` now, for the next :func:`main` of that subcommand
    (which takes it: one parser a run, as without this). For a warm server's spare, in its idle time:
    building a subcommand's parsers took 0.8 ms of a served run.

    >>> prepare_parser("fold"); _prepared.pop("fold").prog
    'bioaccel'
    """
    _prepared[name] = build_parser(name)


def _named(argv):
    """The subcommand named by the command line's first word (``fold`` in ``bioaccel fold x.fa``), or
    None (an option, a misspelt command, nothing: the whole parser lists and names them)."""
    first = argv[0] if argv else None
    return first if first in {name.rsplit(".", 1)[1] for name in SUBCOMMAND_MODULES} else None


def _subparsers(parser) -> dict:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def _name_subparsers(parser):
    """Every (sub)parser records its ``prog`` in the namespace, so errors name the whole command."""
    parser.set_defaults(prog=parser.prog)
    for sub in _subparsers(parser).values():
        _name_subparsers(sub)


def _bare_command(parser, argv):
    """The subcommand's parser when ``argv`` names a command and nothing else (``bioaccel fold``), else
    None: such a command prints its usage rather than waiting on standard input."""
    node = None
    for word in argv:
        found = _subparsers(node or parser).get(word)
        if found is None:
            return None
        node = found
    if node is None or _subparsers(node):    # `bioaccel motif`: its own help lists the actions
        return None
    if node.get_default("stands_alone"):      # `bioaccel serve` reads no input: the bare word is the command
        return None
    return node


def _requires_arguments(command) -> bool:
    """Whether ``command`` (a subcommand's parser) has a positional argument that must be given (fold's
    FASTA is optional: standard input)."""
    return any(action.required for action in command._actions if not action.option_strings)


def _terminal(stream) -> bool:
    """Whether ``stream`` is missing or a terminal (nothing piped in)."""
    try:
        return stream is None or stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return True


class Terminated(BaseException):
    """SIGTERM, raised in the main thread while it waits for the run."""


def _raise_terminated(signum, frame):
    raise Terminated()


# a run stopped by a signal: what the command says, and its exit status (the shell's 128 + signal)
_STOPPED = ((KeyboardInterrupt, "interrupted", 130), (Terminated, "terminated", TERMINATED))


#: The worker thread of the last run that was interrupted and left running (console_main exits at
#: once rather than waiting for it).
abandoned = None


def main(argv=None, stdout=None, stderr=None) -> int:
    """Run the command line with ``argv``; return the exit status (0 ok, 2 bad input or usage,
    70 an internal error, 130 interrupted, 143 terminated).

    >>> import io
    >>> err = io.StringIO()
    >>> main(["fold", "x.fa", "--no-such-option"], stderr=err)
    2
    >>> print(err.getvalue().strip())
    bioaccel fold: error: unrecognized arguments: --no-such-option (see bioaccel fold --help)
    """
    from .options import Listing, UsageError

    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    named = _named(argv)
    parser = _prepared.pop(named, None)
    if parser is None:
        parser = build_parser(named)
    bare = _bare_command(parser, argv)
    if bare is not None and not _requires_arguments(bare) and not _terminal(sys.stdin):
        bare = None                      # `... | bioaccel fold` reads the pipe, as RNAfold does
    if bare is not None:
        stderr.write(bare.format_usage())
        print(f"{bare.prog}: give the input files ('-' reads standard input); {bare.prog} --help "
              "describes every option", file=stderr)
        return 2
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
    name = getattr(args, "prog", f"bioaccel {args.command}")     # "bioaccel motif threshold", as usage errors
    outcome = _run_in_worker(args, stdout, stderr)
    if isinstance(outcome, int):
        return outcome
    if outcome is None:
        return 0
    if isinstance(outcome, InternalError):
        print(f"{name}: {outcome}", file=stderr)
        return 70
    if isinstance(outcome, BioaccelError):
        print(f"{name}: error: {in_option_words(str(outcome), _command(parser, name))}", file=stderr)
        return 2
    for signalled, said, status in _STOPPED:
        if isinstance(outcome, signalled):
            print(f"{name}: {said}", file=stderr)
            return status
    if isinstance(outcome, BrokenPipeError):  # e.g. `bioaccel fold big.fa | head`
        return 0
    raise outcome


def _command(parser, prog):
    """The (sub)parser whose ``prog`` is ``prog``."""
    if parser.prog == prog:
        return parser
    for sub in _subparsers(parser).values():
        found = _command(sub, prog)
        if found is not None:
            return found
    return None


def in_option_words(message: str, parser) -> str:
    """``message`` with the API's name of a parameter (``min_loop must be ...``, ``window target must
    be ...``, ``pair weight AU``, ``no option au``) written as the command's option (``--min-loop``),
    so that an error names what the user typed.

    >>> from bioaccel.cli.options import Parser
    >>> p = Parser(prog="demo")
    >>> for option in ("--min-loop", "--window-target", "--au", "--cutoff"):
    ...     _ = p.add_argument(option)
    >>> in_option_words("min_loop must be a whole number from 0 to 1,000,000, got -1", p)
    '--min-loop must be a whole number from 0 to 1,000,000, got -1'
    >>> in_option_words("min_looped", p)
    'min_looped'
    >>> in_option_words("the turner2004 model has no option min_loop (a Nussinov option)", p)
    'the turner2004 model has no option --min-loop (a Nussinov option)'
    >>> in_option_words("window target must be a whole number >= 1, got 0", p)
    '--window-target must be a whole number >= 1, got 0'
    >>> in_option_words("the cutoff must be a probability from 0 to 1, got 2.0", p)
    '--cutoff must be a probability from 0 to 1, got 2.0'
    >>> in_option_words("pair weight AU must be a finite number >= 0, got -1", p)
    '--au (pair weight AU) must be a finite number >= 0, got -1'
    >>> in_option_words("the turner2004 model has no option au (a Nussinov option)", p)
    'the turner2004 model has no option --au (a Nussinov option)'
    >>> _ = p.add_argument("--pvalue")
    >>> in_option_words("P-value must be in (0, 1], got 2", p)
    '--pvalue (P-value) must be in (0, 1], got 2'
    """
    import re

    if parser is None:
        return message
    options = {action.dest: next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
               for action in parser._actions if action.option_strings}     # its first long name (--window)
    word = message.split(" ", 1)[0]
    if word != message and word in options:
        return options[word] + message[len(word):]
    for dest, option in options.items():       # the name in words: "window target must", "the cutoff ("
        for said in (dest.replace("_", " "), "the " + dest.replace("_", " ")):
            if message.startswith((said + " must ", said + " (")):
                return option + message[len(said):]
    # a pair's weight by its letters (the weights' options are named after the pairs)
    message = re.sub(r"^pair (?:weight|score) (AU|GC|GU)\b",
                     lambda m: f"{options[m.group(1).lower()]} ({m.group(0)})" if m.group(1).lower() in options
                     else m.group(0), message)
    # the P-value a command asks for (the option --pvalue; the API says "P-value")
    if message.startswith("P-value must ") and "pvalue" in options:
        message = f"{options['pvalue']} (P-value){message[len('P-value'):]}"
    message = re.sub(r"(?<=\bno option )([a-z0-9]+)\b", lambda m: options.get(m.group(1), m.group(1)), message)
    # elsewhere in the message only names no sentence uses as a word (min_loop, max_stored_hits)
    return re.sub(r"(?<![\w-])([a-z]+(?:_[a-z]+)+)(?![\w-])",
                  lambda m: options.get(m.group(1), m.group(1)), message)


def _run_in_worker(args, stdout, stderr):
    """Run ``args.run`` in a worker thread and wait; the exit status, or the exception it raised (or
    the KeyboardInterrupt / Terminated that stopped the wait)."""
    global abandoned
    import signal                           # here: a command a warm server runs never imports it (0.4 ms)

    from ..results.output import abort_all
    from . import run_thread
    from .progress import compile_notice
    from .side_files import held_back

    box = {}

    def work():
        try:
            held = held_back(args, stdout)  # the last line once the side files are in place
            with compile_notice(getattr(args, "prog", "bioaccel"), stderr, getattr(args, "quiet", False)):
                box["code"] = int(args.run(args, held or stdout, stderr) or 0)
            if held is not None:
                held.release()
        except BaseException as exc:        # handed to the main thread
            box["error"] = exc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if threading.current_thread() is not threading.main_thread():
            work()                          # no signals here: run in place
        else:
            previous = signal.getsignal(signal.SIGTERM)
            worker = run_thread.worker(work)
            try:
                signal.signal(signal.SIGTERM, _raise_terminated)
                worker.start()
                while worker.is_alive():
                    worker.join(POLL)
            except (KeyboardInterrupt, Terminated) as exc:
                abort_all()                 # temporary files removed now; a later commit writes nothing
                abandoned = worker
                return exc
            finally:
                signal.signal(signal.SIGTERM, previous)
    if "error" in box:
        return box["error"]
    return box.get("code", 0)


def console_main():
    """The ``bioaccel`` executable: ``main()``'s status; after an interruption it exits at once, even
    while the worker thread is still inside a kernel or a local cluster is open."""
    import os

    from .serve_client import served

    try:
        code = served(sys.argv[1:])         # a warm server of this tree runs it (bioaccel serve), or None
    except KeyboardInterrupt:
        print("bioaccel: interrupted", file=sys.stderr)
        code = 130
    if code is not None:
        os._exit(code)                      # nothing of this process's own to flush or close
    from ..runtime.finish import finish_process
    from ..runtime.numba_start import skip_numba_optionals
    from .gpu_start import freeze_on_resume
    from .numba_cache import tolerate_cache_write_errors

    skip_numba_optionals()                 # this process runs only bioaccel's kernels: 0.2 s less start-up
    freeze_on_resume()                     # one command a process: its start is never garbage
    tolerate_cache_write_errors()          # a first run on a full disk: kernels from memory, not a traceback
    code, interrupted = run_command()
    if interrupted:
        # Exit now. The interpreter's own exit would first close a local Dask cluster (seconds) and
        # wait for a kernel to return; its workers end with this process anyway.
        os._exit(code)
    finish_process(code)              # the interpreter's teardown would add 0.12-0.15 s


def run_command(argv=None) -> tuple:
    """``main(argv)`` as the ``bioaccel`` executable ends it: ``(status, interrupted)``. Standard output
    is flushed (:func:`_flushed`: a full disk is one line and status 2); an interrupted run's streams
    are flushed as they are, and its process should end at once (a kernel or a local cluster may
    still be running on another thread).

    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     status = run_command(["--version"])
    >>> status
    (0, False)
    """
    try:
        code = main(argv)
    except KeyboardInterrupt:              # before the run started (imports, parsing)
        print("bioaccel: interrupted", file=sys.stderr)
        code = 130
    if code in (130, TERMINATED) or (abandoned is not None and abandoned.is_alive()):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        return code, True
    return _flushed(code), False


def _flushed(code):
    """``code``, once what is left in standard output's buffer is written; when it cannot be (a full
    disk, ``> /dev/full``), one line and status 2 rather than Python's message at exit (standard output
    is pointed at /dev/null first, so the interpreter's own last flush finds nothing to fail on)."""
    import os

    try:
        sys.stdout.flush()
        return code
    except BrokenPipeError:                 # `bioaccel fold big.fa | head`
        problem = None
    except OSError as exc:
        problem = (exc.strerror or str(exc)).lower()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    if problem is None:
        return code
    if code == 0:
        print(f"bioaccel: error: standard output: cannot write ({problem})", file=sys.stderr)
    return 2 if code == 0 else code
