"""The command-line layer: ``bioaccel`` and its subcommands over the library's public API.

``main`` (:mod:`.main`) parses and runs a command; each subcommand is one module (:mod:`.fold`,
:mod:`.interact`, :mod:`.motif`, :mod:`.scan`) that registers its parser and, in ``run``, builds the
family's API call and writes its results. What they share: options and the parser (:mod:`.options`),
batch runs over Dask with their journal (:mod:`.batch_run`, :mod:`.journal`) and progress bars
(:mod:`.progress`). Library code never imports this package.
"""
