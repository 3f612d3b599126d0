"""RNA folding on all CPU cores (Numba) or an NVIDIA GPU (CuPy), with a choice of model.

``fold(sequences, params=model, backend="cpu")`` folds many sequences (a FoldResult each) with any
model of ``MODELS``; ``nussinov(sequences)`` is the same with the Nussinov model (:class:`FoldParams`:
allowed pairs, weights, minimum hairpin loop), whose algorithms are listed in ``VARIANTS``.
:class:`TurnerModel` is the Turner 2004 energy model (minimum free energy in kcal/mol, as ViennaRNA's
RNAfold computes it); ``energy_of(sequence, structure)`` is the free energy of a given structure, and
``evaluate([(sequence, structure), ...])`` gives the value of each under any model, as RNAeval does.
``iter_fold``/``iter_nussinov`` stream the results; ``fold_one(sequence)`` returns ``(structure, value)``
like ViennaRNA's ``RNA.fold``; ``ensemble(sequences)`` gives each one's Boltzmann ensemble
(:class:`EnsembleResult`: RNAfold -p's partition function, base-pair probabilities, centroid, MEA;
``plot_dotplot`` draws them); ``local_ensemble(sequences, window=70)`` gives RNAplfold's windowed
base-pair probabilities (:class:`LocalEnsembleResult`; ``iter_local_chunks`` streams a genome); ``scores, structures = nussinov_batch(sequences)`` folds millions, results
as arrays (``fold_packed`` and ``packed_text``: any model, packed codes in, values, dot-brackets and
the vienna or JSON text out, for the command line); ``fold_table(sequence)`` gives Nussinov's whole
table. ``FoldWriter`` writes results as vienna, ct, bpseq or JSON Lines, ``plot_arcs`` draws them.

Models are a seam. A model is an object whose class is registered in ``MODELS`` (``_models.py``: its
name, ``"module:Class"``, a description and its variant registry, pure data so that the command line
lists them without Numba) and provides what :class:`FoldModel` lists:

* ``name``, ``variants`` (its :class:`~bioaccel.runtime.registry.VariantRegistry`, every backend's
  algorithms) and ``json_columns`` (what ``--format json`` writes);
* ``from_options(options)``: the model from the fold command's options (``--model NAME`` picks the class);
* ``fold_cpu(codes_list, variant, traceback)`` and ``fold_gpu(...)``: ``[(units, pair_to or None)]`` per
  sequence, the optimum in exact integer units (weighted pairs for Nussinov; dcal/mol for an energy
  model) and the 0-based partners; ``one_per_core(n, variant)``: whether the CPU folds a sequence
  beside others, one per core, or alone on every core;
* ``result_values(units)``: the FoldResult fields of an optimum (``score`` for Nussinov, ``energy`` in
  kcal/mol for an energy model, and its own such as ``min_loop``);
* ``vienna_value(result)`` and ``ct_header(result)``: how a result prints in those formats;
* ``check_sizes(lengths, variant, backend=...)`` and ``estimate_seconds(...)``: refusing what will not
  fit before any sequence is folded, and the time the command line announces.

The rest (checking the keywords, chunks of records, threads, results in input order, ``client=`` and
the command line's batches, the writers) is the same for every model. The names load on first use
(PEP 562), so that the command line can read the registries without importing Numba.

>>> from bioaccel.fold import fold_one
>>> fold_one("GGGGAAACCCC")
('((((...))))', -4.5)
"""
from ..runtime.lazy import lazy_names
from ._models import MODELS
from ._variants import VARIANTS

_LAZY = {"check_fold": "._api", "fold": "._api", "fold_one": "._api", "fold_table": "._api",
         "fold_work": "._api", "iter_fold": "._api", "iter_nussinov": "._api", "nussinov": "._api",
         "nussinov_batch": "._arrays", "FoldBatch": "._arrays",
         "fold_packed": "._packed", "packed_limit": "._packed", "packed_text": "._text",
         "PACKED_FORMATS": "._text",
         "FoldModel": "._models", "FoldParams": "._model", "FoldResult": "._result",
         "FORMATS": "._formats", "FoldWriter": "._formats", "MAX_PLOT_RECORDS": "._plot", "plot_arcs": "._plot",
         "TurnerModel": "._turner_model", "energy_of": "._turner_energy", "evaluate": "._evaluate",
         "iter_evaluate": "._evaluate", "ensemble": "._ensemble", "iter_ensemble": "._ensemble",
         "EnsembleResult": "._ensemble", "check_ensemble": "._ensemble",
         "check_ensemble_sizes": "._ensemble", "plot_dotplot": "._ensemble_plot",
         "local_ensemble": "._ensemble_local", "iter_local_ensemble": "._ensemble_local",
         "iter_local_chunks": "._ensemble_local", "LocalEnsembleResult": "._ensemble_local",
         "check_local": "._ensemble_local", "ensemble_work": "._ensemble",
         "local_ensemble_work": "._ensemble_local", "WindowChunk": "._turner_plfold",
         "iter_ensemble_chunks": "._ensemble_arrays", "EnsembleChunk": "._ensemble_arrays",
         "bpp_text": "._ensemble_text"}
__all__ = ["EnsembleChunk", "EnsembleResult", "FORMATS", "LocalEnsembleResult", "WindowChunk", "FoldBatch",
           "FoldModel", "FoldParams", "FoldResult", "FoldWriter", "MAX_PLOT_RECORDS", "MODELS", "PACKED_FORMATS",
           "TurnerModel", "VARIANTS", "bpp_text", "check_ensemble", "check_ensemble_sizes", "check_fold",
           "check_local", "energy_of", "ensemble", "ensemble_work", "evaluate", "fold", "fold_one", "fold_packed",
           "fold_table", "fold_work", "iter_ensemble", "iter_ensemble_chunks", "iter_evaluate", "iter_fold",
           "iter_local_chunks", "iter_local_ensemble", "local_ensemble", "local_ensemble_work",
           "iter_nussinov", "nussinov", "nussinov_batch", "packed_limit", "packed_text", "plot_arcs",
           "plot_dotplot"]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
