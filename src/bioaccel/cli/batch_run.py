"""A command's batch run: ``--workers N``, ``--scheduler ADDRESS``, ``--gpus``, ``--resume``.

Each family (fold, interact, scan) hands over a :class:`Job`: its items (records, pairs, groups of
motifs), the function that computes a list of them where it runs (a Dask worker,
or this process) and returns what the output needs of each, and how to write the final files from
those entries in input order. :func:`run` does the rest, the same way for every family:

1. the cluster: none (this process, one task after another), a local one (``--workers N`` CPU workers,
   ``--gpus``: one worker per GPU), or a running one (``--scheduler``);
2. the items not done yet (``--resume``: those the journal ``FILE.partial`` does not hold) run there,
   each entry journalled as it completes (:mod:`._journal`), a progress bar counting items (rate, ETA);
3. the outputs written in input order through the output layer, the journal removed; items that
   failed on bad input are named on standard error, one line each, after the others are written
   (exit status 1; ``--resume`` tries them again), then a one-line summary (items, failed, time).
"""
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Callable

from ..errors import BioaccelError, InvalidParameter

#: Exit status of a batch whose items did not all succeed (the others are written).
SOME_FAILED = 1
#: A run in this process says how it went in a summary line when it took this long (seconds); a batch
#: on workers, or one with failed items, always does.
SUMMARY_SECONDS = 10.0


@dataclass
class Job:
    """A family's batch. ``function(payloads) -> entries`` runs on the workers (module-level, or a
    partial of one); an entry is a dict of JSON values. ``write(outputs, pairs)`` writes the final
    files from ``(item, entry or None)`` in input order; ``outputs``: ``{option: path or None}`` for
    the output layer (``modes``: binary ones). ``fingerprint``: the inputs and the options that change
    the output (:func:`fingerprint`). ``gpu``: the items need a GPU worker."""

    prog: str
    unit: str
    items: list
    function: Callable
    write: Callable
    outputs: dict
    fingerprint: str
    gpu: bool = False
    modes: dict = field(default_factory=dict)
    announce: Callable = None      # announce(items) before the items left to run: their time, when long
    notes: Callable = None         # notes(stderr) after the outputs are written (warnings)


def wanted(args) -> bool:
    """Whether the command line asks for a batch run: workers, a cluster, GPUs, ``--resume``, or an
    output file (``-o FILE``), beside which the journal FILE.partial keeps each item as it completes,
    so that a run stopped by Ctrl-C or a crash can be finished with ``--resume``.

    >>> import argparse
    >>> wanted(argparse.Namespace(workers=None, scheduler=None, gpus=None, resume=False, output=None))
    False
    >>> wanted(argparse.Namespace(workers=None, scheduler=None, gpus=None, resume=False, output="out.tsv"))
    True
    """
    return distributed(args) or bool(args.resume) or journal_path(args.output) is not None


def distributed(args) -> bool:
    """Whether the batch runs on Dask workers (local ones, GPUs, or a cluster) rather than here.

    >>> import argparse
    >>> distributed(argparse.Namespace(workers=2, scheduler=None, gpus=None))
    True
    """
    return bool(args.workers or args.scheduler or getattr(args, "gpus", None))


def check(args, variants=None) -> None:
    """The batch options, checked before any input is read; sets ``args.backend`` to gpu for --gpus.
    ``variants``: the family's registry, so that a variant the backend does not have is named as such
    before the GPU (or Dask) is looked for.

    >>> import argparse
    >>> check(argparse.Namespace(workers=None, scheduler=None, gpus=None, resume=True, output="-"))
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: --resume needs -o FILE: the results so far are kept in FILE.partial
    """
    from ..results.output import check_outputs

    gpus = getattr(args, "gpus", None)
    if variants is not None:
        variants.resolve(args.variant, "gpu" if gpus is not None else getattr(args, "backend", "cpu"))
    if args.workers or args.scheduler or gpus:
        from ..distribution.cluster import _dask

        _dask()
    elif getattr(args, "backend", "cpu") == "gpu":     # this process computes: its GPU, before any input
        from ..runtime.gpu import require_gpu

        require_gpu()
    if gpus is not None:
        if args.scheduler and gpus != "all":
            raise InvalidParameter(f"--gpus {','.join(map(str, gpus))} names devices of this machine; with --scheduler "
                                   "give --gpus all (the GPU workers of the cluster)")
        args.backend = "gpu"
    if args.resume:
        target = check_outputs({"-o": args.output}).get("-o")
        if target is None or target.kind != "file":
            raise InvalidParameter("--resume needs -o FILE: the results so far are kept in FILE.partial")


def journal_path(output) -> "str | None":
    """Where the results so far are kept: next to a regular output file, else nowhere (in memory).

    >>> journal_path("out.tsv"), journal_path(None), journal_path("/dev/null")
    ('out.tsv.partial', None, None)
    """
    from .journal import SUFFIX
    from ..results.output import check_outputs

    if output is None or output == "-":
        return None
    target = check_outputs({"-o": output})["-o"]
    if target.kind != "file":
        return None
    if os.path.isdir(output + SUFFIX):
        raise InvalidParameter(f"-o {output}: {output + SUFFIX} is a folder; it must be free for the results so far")
    folder = os.path.dirname(target.final) or "."
    if not os.access(folder, os.W_OK | os.X_OK):    # said now, not once the first item is done
        raise InvalidParameter(f"-o {output}: cannot create a file in folder {os.path.dirname(output) or '.'} "
                               "(permission denied)")
    return output + SUFFIX


def local_workers(args) -> int:
    """Workers started on this machine (0: none, the batch runs here or on a cluster).

    >>> import argparse
    >>> local_workers(argparse.Namespace(workers=3, scheduler=None, gpus=None))
    3
    """
    from ..distribution.cluster import resolve_gpus

    gpus = getattr(args, "gpus", None)
    return (args.workers or 0) + (len(resolve_gpus(gpus)) if gpus and not args.scheduler else 0)


def speedup(args) -> int:
    """How many times faster than in this process a local batch can run: one per GPU worker (each has a
    device of its own); CPU workers share this machine's cores, which the in-process run already uses
    (``--workers`` helps on other machines, through ``--scheduler``, or where one item cannot use every
    core).

    >>> import argparse
    >>> speedup(argparse.Namespace(workers=2, scheduler=None, gpus=None))
    1
    """
    gpus = getattr(args, "gpus", None)
    return max(1, local_workers(args) - (args.workers or 0)) if gpus and not args.scheduler else 1


def item_threads(args) -> int:
    """CPU threads for one item: ``--threads`` as given, and by default (0) on a local cluster the
    cores shared among its workers (each worker runs one item at a time).

    >>> import argparse
    >>> item_threads(argparse.Namespace(threads=3, workers=2, scheduler=None, gpus=None))
    3
    """
    if args.threads or args.scheduler:
        return args.threads
    here = local_workers(args)
    return max(1, (os.cpu_count() or 1) // here) if here else 0


def fingerprint(*parts) -> str:
    """A digest of ``parts``: JSON values, and bytes or NumPy arrays (their contents).

    >>> fingerprint({"min_loop": 3}, b"ACGU") == fingerprint({"min_loop": 3}, b"ACGU") != fingerprint(b"ACGU")
    True
    """
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, (bytes, bytearray, memoryview)):
            digest.update(b"b%d:" % len(part))
            digest.update(part)
        elif hasattr(part, "tobytes"):
            data = part.tobytes()
            digest.update(f"a{part.dtype}{part.shape}:".encode())
            digest.update(data)
        else:
            text = json.dumps(part, sort_keys=True, default=str).encode()
            digest.update(b"j%d:" % len(text))
            digest.update(text)
    return digest.hexdigest()


def _where(args) -> str:
    gpus = getattr(args, "gpus", None)
    if args.scheduler:
        return f"the cluster at {args.scheduler}"
    parts = []
    if args.workers:
        parts.append(f"{args.workers} worker{'s' if args.workers != 1 else ''}")
    if gpus:
        count = local_workers(args) - (args.workers or 0)
        parts.append(f"{count} GPU{'s' if count != 1 else ''}")
    return " and ".join(parts) if parts else "this process"


def _cluster(args):
    import contextlib

    from ..distribution.cluster import connect

    gpus = getattr(args, "gpus", None)
    if args.scheduler:
        return connect(args.scheduler)
    if args.workers or gpus:
        return connect(None, workers=args.workers or 0, gpus=gpus or ())
    return contextlib.nullcontext(None)


def _outcomes(job: Job, todo: list, client):
    """The outcomes of the items ``todo``; a GPU batch in this process computes in a thread of its
    own (:mod:`.bursts`), once the GPU's warm-up is over (:func:`.gpu_start.ready`), so that the journal is written while the
    device works on the next items."""
    from ..distribution.batch import run_items
    from .bursts import bursts
    from .gpu_start import ready

    outcomes = run_items(job.function, todo, client=client, gpu=job.gpu)
    if client is not None or not job.gpu:
        return outcomes
    return (outcome for burst in bursts(outcomes, first=ready) for outcome in burst)


def run(job: Job, args, stdout, stderr) -> int:
    """Run ``job`` as the command line asks (``args``: workers, scheduler, gpus, resume, output, quiet);
    the exit status."""
    from .journal import Journal
    from ..results.output import Outputs, check_outputs
    from .progress import format_duration, progress, wanted as bar_wanted

    check_outputs(job.outputs)
    started = time.monotonic()
    journal = Journal(journal_path(args.output), job.fingerprint, resume=args.resume)
    try:
        todo = [item for item in job.items if item.key not in journal.done]
        if todo and job.announce is not None:
            job.announce(todo)
        labels = {item.key: item.label for item in job.items}
        shown = bar_wanted(args.quiet, stderr)
        with _cluster(args) as client, progress(total=len(job.items), unit=job.unit, desc=job.prog.split()[-1],
                                                initial=len(job.items) - len(todo), enabled=shown,
                                                stream=stderr) as bar:
            for outcome in _outcomes(job, todo, client):
                if outcome.error is not None:
                    journal.add(outcome.key, error=outcome.error)
                else:
                    journal.add(outcome.key, outcome.value)
                bar.update(1)
        ordered = sorted(job.items, key=lambda item: item.key)
        pairs = ((item, journal.entry(item.key)) for item in ordered)     # one entry in memory at a time
        with Outputs(job.outputs, modes=job.modes, stdout=stdout) as outputs:
            job.write(outputs, pairs)
    except BioaccelError as exc:     # a cluster that cannot go on, an output that cannot be written
        journal.close()
        if journal.path is not None and journal.done:          # say what is kept, and how to finish
            count = len(journal.done)
            kept = f"{count:,} items done are" if count != 1 else "1 item done is"
            raise type(exc)(f"{exc}; the {kept} kept in {journal.path}: run again with --resume to finish") from None
        raise
    except BaseException:
        journal.close()
        raise
    failed = sorted(journal.failed)
    if failed:
        journal.close()                      # kept: --resume tries the failed items again
    else:
        journal.remove()
    if job.notes is not None:
        job.notes(stderr)
    for key in failed:
        print(f"{job.prog}: {labels[key]}: {journal.failed[key]}", file=stderr)
    elapsed = time.monotonic() - started
    if not args.quiet and (failed or distributed(args) or elapsed >= SUMMARY_SECONDS):
        took = f"{elapsed:.1f} s" if elapsed < 90 else format_duration(elapsed)
        again = f" (--resume runs them again)" if failed and journal.path else ""
        print(f"{job.prog}: {len(job.items):,} {job.unit}{'s' if len(job.items) != 1 else ''}, {len(failed):,} "
              f"failed{again}, {took} on {_where(args)}", file=stderr)
    return SOME_FAILED if failed else 0
