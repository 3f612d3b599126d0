"""``bioaccel fold --partition`` of many records without a Python step per pair: the chunk path.

Taken by :func:`.fold_ensemble.run_partition` unless --plot is given (the dot plots need each record's
dense probabilities). Records are read as they come, the ensemble of each chunk computed at once
(:func:`bioaccel.fold.iter_ensemble_chunks`: the partition functions of the chunk in one call, the
derived quantities and energies in parallel Numba calls), its vienna or JSON Lines text written with
the per-record path's formatters, and its ``--bpp`` lines by :func:`bioaccel.fold.bpp_text` (a Numba
byte formatter over the chunk's pair lists): every byte as the record-by-record path writes it.
"""


def write_chunks(args, call, sequences, outputs, bar, layout) -> None:
    """Write every chunk's text to ``outputs["-o"]`` (and ``outputs["--bpp"]`` with --bpp), counting
    records on ``bar``; ``layout``: the per-record path's (vienna, json_columns, --bpp threshold), so that
    both write the same bytes.

    >>> import argparse, io
    >>> from bioaccel.fold import check_ensemble
    >>> out = {"-o": io.StringIO(), "--bpp": io.StringIO()}
    >>> args = argparse.Namespace(format="vienna", bpp="-", noconv=False)
    >>> class Bar:
    ...     def update(self, k): pass
    >>> from bioaccel.cli.fold_ensemble import BPP_THRESHOLD, json_columns, vienna
    >>> write_chunks(args, check_ensemble(), [("r", "GGGGAAACCCC")], out, Bar(), (vienna, json_columns, BPP_THRESHOLD))
    >>> out["-o"].getvalue().splitlines()[2], out["--bpp"].getvalue().splitlines()[0]
    ('((((...)))) ( -4.50)', 'r\\t1\\t8\\t1.21937e-05')
    """
    from .fold_batch import written
    from ..fold import bpp_text, iter_ensemble_chunks

    vienna, json_columns, threshold = layout
    table = None            # (-o and --bpp never share a stream: Outputs refuses it)
    for chunk in iter_ensemble_chunks(sequences, params=call.params, backend=call.backend, threads=call.threads):
        results = written(chunk.results, args.noconv)
        if args.format == "json":
            if table is None and results:
                from ..results.tables import TableWriter

                table = TableWriter(outputs["-o"], json_columns(results[0]), "json")
            if table is not None:
                table.write(results)
        else:
            outputs["-o"].write("".join(map(vienna, results)))
        if args.bpp is not None:
            outputs["--bpp"].write(bpp_text([r.id for r in results], chunk.offsets, chunk.i, chunk.j, chunk.p,
                                            threshold))
        bar.update(len(results))
