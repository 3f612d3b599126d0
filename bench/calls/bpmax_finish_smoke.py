"""The smoke step of the BPMax finish-form device calls (bench/calls/bpmax_call_lib.sh, ``finish_forms_call``): one
small BPMax (8 x 333 nt, target window 128) through each BPMaxSizes change of the JSON list argv[1], against the
default's device tables (every cell of F and S2) and the CPU's window scores; an AssertionError where any differs.
Needs a GPU.

    python3 bench/calls/bpmax_finish_smoke.py '[{"finish_form": 11}, {"finish_form": 11, "segment_rows": 40}]'
"""
import json
import random
import sys


def settings(argument: str) -> list:
    """The default (no change) and the BPMaxSizes changes of the JSON list ``argument``, as the tables' check takes them.

    >>> settings('[{"finish_form": 14}, {"finish_form": 14, "segment_rows": 40}]')
    [{}, {'finish_form': 14}, {'finish_form': 14, 'segment_rows': 40}]
    """
    return [dict(), *json.loads(argument)]


def _smoke(changes: list) -> None:
    import numpy as np

    from bioaccel.interact import InteractParams
    from test_interact_gpu import _same_tables_and_cpu, random_rna_codes

    rng = random.Random(7)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, 333))]
    _same_tables_and_cpu(ca, rbs, InteractParams(window_target=128), changes)


if __name__ == "__main__":
    _smoke(settings(sys.argv[1]))
    print(f"smoke passed: {sys.argv[1]} the default's tables, the CPU's window scores")
