"""``bioaccel fold`` of many records without a Python step per record: the array path.

Taken by itself where it writes exactly what the record-by-record path writes, for many short records
(where a Python step per record costs more than the fold): a FASTA file (not standard input or a
pipe, which cannot be read twice should the file turn out to need the other path) of at least
:data:`MIN_BYTES` and :data:`MIN_RECORDS` records, none over :data:`MAX_LENGTH` nor over what the
model's batch kernels take; vienna or JSON Lines, no --plot, no --eval, no workers or cluster, the
model's batch variant; with ``--resume``, a journal of this path's (one the per-record path left is
finished by that path). The file is read into flat
arrays (:func:`bioaccel.inputs.fasta_bulk.read_fasta_arrays`), cut into chunks of records, each chunk
folded by the batch kernels (:func:`bioaccel.fold.fold_packed`; the next chunk folds in a second thread
while this one is written) and its text built at once (:func:`bioaccel.fold.packed_text`).

The output rules are the batch path's (:mod:`.batch_run`): with ``-o FILE`` each chunk's text is kept
in ``FILE.partial`` as it completes (:mod:`.chunk_journal`: ``--resume`` finishes a stopped run), and
FILE is written from it under a temporary name, renamed into place at the end; to standard output or
a device each chunk is written as it is done. A progress bar counts records, by chunk.
"""
import os
import queue
import threading
import time

from ..errors import BioaccelError

#: Smaller files, fewer records, or longer ones go record by record: there the per-record path costs
#: little beside the fold, starts faster, and journals each record (a long run stops and resumes finely).
MIN_BYTES = 1 << 15
MIN_RECORDS = 1000
MAX_LENGTH = 1000
#: A chunk ends after this many records, or once its sum of n^3 reaches CHUNK_WORK (as many 200-nt
#: records). Chunks are cut from the lengths alone (not the backend), so that a run resumed on another
#: backend cuts the same chunks.
CHUNK_RECORDS = 32_768
CHUNK_WORK = CHUNK_RECORDS * 200.0 ** 3
#: Chunks folded in one call, by backend: on the GPU, fewer launches and fewer tails (the last blocks
#: of a launch running alone).
GROUP = {"cpu": 1, "gpu": 4}


def applies(args) -> bool:
    """Whether the options allow the array path (the records are looked at later: :func:`run`).

    >>> import argparse
    >>> applies(argparse.Namespace(fasta="-", format="vienna", plot=None, eval=False, workers=None,
    ...                            scheduler=None, gpus=None))
    False
    """
    from ..fold import PACKED_FORMATS
    from ..inputs.files import is_regular_file

    if args.format not in PACKED_FORMATS or args.plot or args.eval:
        return False
    if args.workers or args.scheduler or getattr(args, "gpus", None):
        return False
    if not is_regular_file(args.fasta):
        return False
    try:
        return os.path.getsize(args.fasta) >= MIN_BYTES
    except OSError:
        return False


def chunk_bounds(lengths, records=None, work=None):
    """Where the chunks start and end: ``[0, ..., len(lengths)]``.

    >>> chunk_bounds([10] * 5, records=2), chunk_bounds([10, 10, 100, 10], work=2500)
    ([0, 2, 4, 5], [0, 2, 3, 4])
    """
    import numpy as np

    records = CHUNK_RECORDS if records is None else records
    work = CHUNK_WORK if work is None else work
    cubes = np.asarray(lengths, dtype=np.float64) ** 3
    bounds, first, total = [0], 0, len(cubes)
    summed = np.concatenate(([0.0], np.cumsum(cubes)))
    while first < total:
        # the first record always joins; then as many as fit the work and the count
        last = int(np.searchsorted(summed, summed[first] + work, side="right")) - 1
        last = min(max(last, first + 1), first + records, total)
        bounds.append(last)
        first = last
    return bounds


def _ahead(items):
    """``items`` (an iterator) computed one ahead in a second thread: the next chunk folds while this
    one is formatted and written (the kernels release the interpreter's lock)."""
    box = queue.Queue(maxsize=1)
    done = object()

    def produce():
        try:
            for item in items:
                box.put((item, None))
        except BaseException as exc:          # handed to the consumer
            box.put((None, exc))
            return
        box.put((done, None))

    threading.Thread(target=produce, name="bioaccel-fold-ahead", daemon=True).start()
    while True:
        item, error = box.get()
        if error is not None:
            raise error
        if item is done:
            return
        yield item


def _later(function, *args):
    """``function(*args)`` computed in a second thread; calling the result waits for it."""
    box = {}

    def work():
        try:
            box["value"] = function(*args)
        except BaseException as exc:          # handed to the caller
            box["error"] = exc

    worker = threading.Thread(target=work, name="bioaccel-fold-later", daemon=True)
    worker.start()

    def result():
        worker.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    return result


def _fingerprint(args, params, records, bounds):
    import dataclasses

    from .batch_run import fingerprint

    return fingerprint("fold-arrays", dataclasses.asdict(params), args.format, args.noconv, bounds,
                       records.headers, records.hstarts, records.id_bytes, records.letters, records.starts)


def run(args, stdout, stderr, params, announce):
    """Fold ``args.fasta`` by the array path and write it; the exit status, or None when the records
    need the per-record path (a letter to name, a record too long for the batch kernels): nothing has
    been written then. ``announce(lengths, call)``: the command's announcement of long work."""
    from . import batch_run as batch
    from ..fold import check_fold, fold_packed, packed_limit, packed_text
    from ..inputs.fasta_bulk import read_fasta_arrays
    from .progress import format_duration, progress, wanted

    journalled = batch.wanted(args)
    if journalled:
        batch.check(args, params.variants)
    call = check_fold(params, backend=args.backend, variant=args.variant, threads=args.threads)
    limit = packed_limit(call)
    if not limit:
        return None
    records = read_fasta_arrays(args.fasta)
    if records is None:
        return None
    lengths = records.lengths
    if len(records) < MIN_RECORDS or int(lengths.max(initial=0)) > min(limit, MAX_LENGTH):
        return None
    started = time.monotonic()
    bounds = chunk_bounds(lengths)
    path = batch.journal_path(args.output) if journalled else None
    journal = None
    if path is not None:
        from .chunk_journal import ChunkJournal, another_run

        if args.resume:
            digest = _fingerprint(args, params, records, bounds)
            if another_run(path, digest):
                return None                 # the per-record path's journal, or a stranger it refuses
        else:                               # wanted at the first chunk's end: hashed while it folds
            digest = _later(_fingerprint, args, params, records, bounds)
        journal = ChunkJournal(path, digest, resume=args.resume)
    first = journal.done if journal is not None else 0
    announce(lengths[bounds[first]:].tolist(), call)

    def folded():
        group = GROUP[call.backend]
        for k in range(first, len(bounds) - 1, group):
            last = min(k + group, len(bounds) - 1)
            whole = records.part(bounds[k], bounds[last])
            units, chars = fold_packed(whole.codes, whole.starts, call)
            for j in range(k, last):            # the journal's chunks, from one fold
                a, b = bounds[j] - bounds[k], bounds[j + 1] - bounds[k]
                yield records.part(bounds[j], bounds[j + 1]), (units[a:b], chars[whole.starts[a]:whole.starts[b]])

    def formatted():                 # the next chunk folds while this one is formatted, the last one written
        for part, (units, chars) in _ahead(folded()):
            yield part, packed_text(args.format, part, units, chars, params=call.params, variant=call.variant,
                                    backend=call.backend, noconv=args.noconv)

    def texts():
        return _ahead(formatted())

    try:
        with progress(total=len(records), unit="record" if journalled else "seq", desc="fold",
                      enabled=wanted(args.quiet, stderr), stream=stderr, initial=bounds[first]) as bar:
            if journal is not None:
                for part, text in texts():
                    journal.add(text)
                    bar.update(len(part))
                _write(args, stdout, journal.copy_to)
                journal.remove()
            else:
                _write(args, stdout, lambda write, _: [write(text) or bar.update(len(part)) for part, text in texts()])
    except BioaccelError as exc:     # an output that cannot be written
        if journal is not None:
            journal.close()
            if journal.done:
                raise type(exc)(f"{exc}; the {bounds[journal.done]:,} records done are kept in {journal.path}: "
                                "run again with --resume to finish") from None
        raise
    except BaseException:
        if journal is not None:
            journal.close()
        raise
    elapsed = time.monotonic() - started
    if journalled and not args.quiet and elapsed >= batch.SUMMARY_SECONDS:
        took = f"{elapsed:.1f} s" if elapsed < 90 else format_duration(elapsed)
        print(f"bioaccel fold: {len(records):,} record{'s' if len(records) != 1 else ''}, 0 failed, {took} on "
              "this process", file=stderr)
    return 0


def _write(args, stdout, fill):
    """The output transaction of -o (standard output by default): ``fill(write, handle)`` writes it, in
    bytes (``handle``: the binary file, None for standard output)."""
    from ..results.output import Outputs, check_outputs

    target = "-" if args.output is None else args.output
    binary = check_outputs({"-o": target})["-o"].kind != "stdout"
    with Outputs({"-o": target}, modes={"-o": "wb" if binary else "w"}, stdout=stdout) as outputs:
        handle = outputs["-o"]
        if binary:
            fill(handle.write, handle)
        else:
            fill(lambda data: handle.write(memoryview(data).tobytes().decode("utf-8")), None)
