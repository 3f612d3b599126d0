"""What every subcommand's command line shares: the parser class, common options, --list-variants.

Only the command line imports this module; library code never does. It imports no Numba, NumPy or
pandas, so that ``bioaccel --help`` and argument errors answer at once.
"""
import argparse

from ..errors import BioaccelError


class UsageError(BioaccelError):
    """A command-line usage error, printed as one line: ``bioaccel fold: error: ... (see --help)``."""

    def __init__(self, prog, message):
        super().__init__(f"{prog}: error: {message} (see {prog} --help)")
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage banner) and negative numbers taken as option values."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        # "--au -1" is a value, not an option: argparse guesses so only when no option looks like a
        # number, which is the case here, but "-inf" and "-nan" need saying
        self._negative_number_matcher = _NEGATIVE

    def error(self, message):
        raise UsageError(self.prog, message)


class _NegativeNumbers:
    """Matches what argparse should read as a negative number: -1, -1.5, -1e3, -inf, -nan."""

    def match(self, text):
        try:
            float(text)
        except ValueError:
            return False
        return text.startswith("-")


_NEGATIVE = _NegativeNumbers()


def backends_of(registry) -> tuple:
    """The backends that have at least one variant of ``registry`` (the choices of ``--backend``).

    >>> from bioaccel.runtime.registry import Variant, VariantRegistry
    >>> demo = VariantRegistry("demo", [Variant("only", ("cpu",), "a CPU-only algorithm")], defaults={"cpu": "only"})
    >>> backends_of(demo)
    ('cpu',)
    """
    from ..runtime.registry import BACKENDS

    return tuple(b for b in BACKENDS if any(b in v.backends for v in registry))


def add_backend_option(parser, backends=("cpu", "gpu"), registry=None):
    """``--backend``; with ``registry``, only the backends that have a variant of it."""
    if registry is not None:
        backends = backends_of(registry)
    parser.add_argument("--backend", choices=backends, default="cpu",
                        help="cpu: Numba on all cores (default)" + ("; gpu: CUDA through CuPy" if "gpu" in backends
                                                                     else " (the only backend of this command)"))


def add_pair_weight_options(parser, defaults: dict) -> None:
    """``--au``, ``--gc``, ... : the weight of each kind of base pair, for the base-pair-counting models
    (fold's Nussinov, interact's BPMax and BPPart); ``defaults`` maps the pair to its default as the help
    says it.

    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_pair_weight_options(p, {"AU": "1", "GU": "1.5"})
    >>> p.parse_args(["--gu", "2"]).gu, p.parse_args([]).au
    (2.0, None)
    """
    for pair, default in defaults.items():
        article = "an" if pair[0] in "AEIOU" else "a"
        parser.add_argument(f"--{pair.lower()}", type=float, default=None, metavar="X",
                            help=f"weight of {article} {pair} pair (default {default})")


def add_quiet_option(parser):
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no time estimate, progress bar or summary line on standard error (the bar is drawn "
                             "only when standard error is a terminal; the estimate of long work always)")


def _whole_at_least(text, least):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}")
    return value


def count(text):
    """argparse type: a whole number >= 0."""
    return _whole_at_least(text, 0)


def positive(text):
    """argparse type: a whole number >= 1."""
    return _whole_at_least(text, 1)


def add_threads_option(parser):
    parser.add_argument("--threads", type=count, default=0, metavar="N",
                        help="CPU threads to use (0, the default: all cores)")


def add_output_option(parser):
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write here instead of standard output ('-'); the file appears only when the whole run "
             "succeeds (a device such as /dev/null is written directly)")


def add_plot_option(parser, what: str) -> None:
    """``--plot FILE``: also draw ``what`` (said in its help) with matplotlib.

    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_plot_option(p, "arc diagrams")
    >>> p.parse_args(["--plot", "arcs.svg"]).plot, p.parse_args([]).plot
    ('arcs.svg', None)
    """
    parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                        help=f"also draw {what}; needs matplotlib (bioaccel[plot])")


def scheduler_address(text):
    """argparse type of ``--scheduler``: a Dask scheduler's address, never empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a scheduler address (tcp://host:8786), got {text!r}")
    return text.strip()


def gpu_list(text):
    """argparse type of ``--gpus``: ``all`` or device numbers ``0,1,...``."""
    from ..distribution.cluster import parse_gpus

    try:
        return parse_gpus(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("--gpus ", "")) from None


def add_batch_options(parser, gpu=False):
    """``--workers``, ``--scheduler``, ``--resume`` and, where the family has a GPU backend (``gpu``),
    ``--gpus``: the batch layer (bioaccel.cli.batch_run)."""
    group = parser.add_argument_group("batches (Dask; needs bioaccel[dask] except --resume alone)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive, default=None, metavar="N",
                       help="run on N Dask worker processes on this machine, each item on cores/N threads "
                            "(default: this process, no Dask)")
    where.add_argument("--scheduler", type=scheduler_address, default=None, metavar="ADDRESS",
                       help="run on the running Dask cluster whose scheduler is at ADDRESS (tcp://host:8786)")
    if gpu:
        group.add_argument("--gpus", type=gpu_list, default=None, metavar="all|0,1,...",
                           help="run on GPUs (implies --backend gpu): one worker per GPU of this machine, each "
                                "pinned to its device (with --workers, CPU workers too); with --scheduler, 'all': "
                                "the cluster's GPU workers (those declaring the Dask resource GPU=1)")
    group.add_argument("--resume", action="store_true",
                       help="with -o FILE: finish the batch whose results so far are in FILE.partial (left by a "
                            "run that was killed or interrupted), computing only the items it does not hold; "
                            "while a batch runs, each item is added to FILE.partial as it completes")


class Listing(Exception):
    """Raised by an option that only prints (``--list-variants``); ``main`` writes ``text`` to stdout."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


class _ListVariants(argparse.Action):
    def __init__(self, option_strings, registry, dest=argparse.SUPPRESS, **kwargs):
        self.registry = registry
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        raise Listing(self.registry.table() + "\n")


def add_variant_options(parser, registry):
    """``--variant`` (choices and help from the registry) and ``--list-variants``.

    ``registry`` is the algorithm's :class:`~bioaccel.runtime.registry.VariantRegistry`.
    """
    parser.add_argument("--variant", default=None, metavar="NAME", help=registry.help())
    parser.add_argument("--list-variants", action=_ListVariants, registry=registry,
                        help="print every variant of this algorithm (backends, the papers' names) and exit")
