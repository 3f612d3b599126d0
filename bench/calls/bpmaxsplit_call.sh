#!/usr/bin/env bash
# Issue 29 (helper bpmaxsplit): finish forms 14 (each first phase's range B of cells 1 .. G - 1 on the tail threads,
# bench row 81) and 15 (14 with part of range A in the rest before, row 82), one device call from the repository root,
# logs under $OUT. Smoke: one small BPMax (8 x 333 nt, window 128) through FORMS at the production sizes, at 40-row
# segments and with groups of 4 diagonals, against the default's device tables and the CPU's window scores; stop there
# if it fails or hangs. Then the GPU tests of tests/test_interact_gpu_split.py, then bench/bpmax_gpu_sizes.py's ROWS
# (55 the default, form 7) interleaved with their levels, then the clocks of a block's phases
# (bench/bpmax_finish_clocks.py, level 12) with the first-phase ready stamps.
#   bash bench/calls/bpmaxsplit_call.sh
# Call 1 (commit 33a17fe, form 14 only): FORMS=14 ROWS=55,81,55,81,55,81 LEVELS=55,81 CLOCKS=7:8,14:8,7:8,14:8, limits
# 90 + 150 + 130 + 90 s (43.6 s of wall); call 2: the defaults below, limits 70 + 120 + 110 + 70 s = 370 s (this
# helper's cap 550 s less call 1's ~115 s, less 60 s).
# The code it runs was reverted (not faster in every pair): check out commit bb1508b to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxsplit
timeout "${SMOKE_S:-70}" python3 - "${FORMS:-14,15}" > "$out/smoke.txt" 2>&1 <<'PY'
import random
import sys

import numpy as np

from bioaccel.interact import InteractParams
from test_interact_gpu import _same_tables_and_cpu, random_rna_codes

rng = random.Random(7)
ca = np.ascontiguousarray(random_rna_codes(rng, 8))
rbs = [np.ascontiguousarray(random_rna_codes(rng, 333))]
forms = [int(form) for form in sys.argv[1].split(",")]
_same_tables_and_cpu(ca, rbs, InteractParams(window_target=128),
                     [dict(), *[dict(finish_form=form, **change) for form in forms
                                for change in (dict(), dict(segment_rows=40), dict(finish_diagonals=4))]])
print(f"smoke passed: finish_form {sys.argv[1]} (production sizes, 40-row segments, 4 diagonals) the default's tables, "
      "the CPU's scores")
PY
rc=$?; step_done "smoke (forms ${FORMS:-14,15} against the default and the CPU, 8 x 333 nt)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout "${TESTS_S:-120}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_split.py \
    > "$out/tests.txt" 2>&1
step_done "tests (test_interact_gpu_split.py)" $?
ROWS=${ROWS:-55,81,82,55,81,82,55,81,82,55,81,82}
timeout "${BENCH_S:-110}" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "$ROWS" --levels "${LEVELS:-55,81,82}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench ($ROWS)" $?
CLOCKS=${CLOCKS:-7:8,14:8,15:8,7:8,14:8,15:8}
timeout "${CLOCKS_S:-70}" python3 bench/bpmax_finish_clocks.py --settings "$CLOCKS" --every 3 \
    --json "$out/clocks.json" > "$out/clocks.txt" 2>&1
step_done "clocks ($CLOCKS)" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
cut -c1-300 "$out/clocks.txt"
