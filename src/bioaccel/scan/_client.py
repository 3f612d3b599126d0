"""``bioaccel.scan.scan`` with ``client=``: the in-process scan (:func:`._api.scan`), or the same scan
on a Dask cluster through the batch layer, one item per group of motifs (:mod:`._jobs`), the
DataFrame the same to the last bit."""
import functools
import inspect

import numpy as np

from . import _pipeline as _scan, _api as _scan_api


@functools.wraps(_scan_api.scan)
def scan(motifs, sequences, *, client=None, **options):
    if client is None:
        return _scan_api.scan(motifs, sequences, **options)
    return _on_cluster(motifs, sequences, client, **options)


scan.__doc__ = _scan_api.scan.__doc__.rstrip() + """

    ``client``: scan on a Dask cluster instead (a ``dask.distributed.Client``, a scheduler address, or
    "local"), one task per group of 32 motifs scanning every sequence (a FASTA file named here must be
    readable at the same path on the workers); the same DataFrame.
"""
_signature = inspect.signature(_scan_api.scan)
scan.__signature__ = _signature.replace(parameters=[*_signature.parameters.values(), inspect.Parameter(
    "client", inspect.Parameter.KEYWORD_ONLY, default=None)])


def _on_cluster(motifs, sequences, client, *, pvalue=_scan.DEFAULT_PVALUE, threshold=None, backend="cpu", variant=None,
                strands="both", threads=0, params=None, slice_length=4, chunk_size=_scan.CHUNK, max_stored_hits=None,
                qvalues=True):
    from ..distribution.batch import Item, run_items
    from ..distribution.cluster import connect
    from ..inputs.fasta import Record, as_records
    from ..motif._api import _motifs
    from ..motif._params import MotifParams
    from ._hits import add_qvalues, to_frame
    from ._jobs import Merged, group_entries, groups, merge_best, read_names

    params = MotifParams() if params is None else params
    pssms = list(_motifs(motifs, params))
    if _scan._is_path(sequences):
        names, letters, _ = read_names(sequences)
        numbers = {name: k for k, name in enumerate(names)} if len(set(names)) == len(names) else None
        source = ("file", str(sequences), numbers)
    else:
        records = [r for r in as_records(sequences) if len(r)]   # an empty record has no hit and no name
        names, letters = [r.id for r in records], sum(len(r) for r in records)
        source = ("records", [Record(f"s{i}", r.sequence, codes=r.codes) for i, r in enumerate(records)])
    items = [Item(key, label, float(letters + 1) * columns, payload)
             for key, (label, columns, payload) in enumerate(groups(pssms))]
    options = dict(pvalue=pvalue, threshold=threshold, backend=backend, variant=variant, strands=strands,
                   threads=threads, slice_length=slice_length, chunk_size=chunk_size)
    width = (max((m.length for m in pssms), default=1) + 31) // 32
    function = functools.partial(group_entries, source=source, options=options, width=width,
                                 max_stored_hits=max_stored_hits)
    entries = [None] * len(items)
    with connect(client) as opened:
        for outcome in run_items(function, items, client=opened, gpu=backend == "gpu"):
            if outcome.error is not None:
                raise outcome.error
            entries[outcome.key] = outcome.value
    merged = Merged(np.zeros(len(pssms), np.int64))
    hits = merge_best(zip(items, entries), motifs=pssms, max_stored_hits=max_stored_hits, merged=merged)
    if qvalues:
        add_qvalues(hits, merged.tests)
    frame = to_frame(hits.take(hits.fimo_order()), pssms, names, qvalues=qvalues)
    frame.attrs["tests"] = {m.motif_id: int(t) for m, t in zip(pssms, merged.tests)}
    frame.attrs["dropped"] = merged.dropped
    frame.attrs["inexact"] = {pssms[k].motif_id: gap for k, gap in sorted(merged.inexact.items())}
    return frame
