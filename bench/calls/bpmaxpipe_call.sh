#!/usr/bin/env bash
# Issue 29 (helper bpmaxpipe): finish forms 11-13, the segment's read and store spread over its groups (bench rows
# 81-83), one device call from the repository root, logs under $OUT (8 files). Smoke: one small BPMax (8 x 333 nt,
# window 128) through SMOKE's forms at the production sizes and form 11 at 40-row segments, the default's device tables
# and the CPU's window scores; stop there if it fails or hangs. Then the GPU tests of tests/test_interact_gpu_pipe.py,
# then bench/bpmax_gpu_sizes.py's ROWS (55 the default, form 7; 81-83 forms 11-13) interleaved with the levels of LEVELS,
# then the clocks of a block's phases (bench/bpmax_finish_clocks.py, level 12) for CLOCKS.
#   bash bench/calls/bpmaxpipe_call.sh
# Call 1 (commit 9c93a34, form 11 only): SMOKE=11 ROWS=55,81,55,81,55,81 LEVELS=55,81 CLOCKS=7:8,11:8,7:8,11:8 with
# limits 90 + 120 + 100 + 60 s; call 2: the defaults below, limits 80 + 130 + 120 + 80 s = 410 s (this helper's cap,
# 600 s over two calls, less call 1's ~110 s, the start and the idle 30 s).
# The code it runs was reverted (10-12% slower): check out commit 07356bf to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxpipe
timeout "${SMOKE_S:-80}" python3 - "${SMOKE:-11,12,13}" > "$out/smoke.txt" 2>&1 <<'PY'
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
                     [dict(), *[dict(finish_form=form) for form in forms], dict(finish_form=11, segment_rows=40)])
print(f"smoke passed: finish_form {sys.argv[1]} (and 11 at 40-row segments) the default's tables, the CPU's scores")
PY
rc=$?; step_done "smoke (forms ${SMOKE:-11,12,13} against the default and the CPU, 8 x 333 nt)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout "${TESTS_S:-130}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_pipe.py \
    > "$out/tests.txt" 2>&1
step_done "tests (test_interact_gpu_pipe.py)" $?
ROWS=${ROWS:-55,81,82,83,55,81,82,83,55,81,82,83}
timeout "${BENCH_S:-120}" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "$ROWS" --levels "${LEVELS:-55,81,82,83}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench ($ROWS)" $?
CLOCKS=${CLOCKS:-7:8,11:8,12:8,13:8,7:8,11:8,12:8,13:8}
timeout "${CLOCKS_S:-80}" python3 bench/bpmax_finish_clocks.py --settings "$CLOCKS" --every 3 \
    --json "$out/clocks.json" > "$out/clocks.txt" 2>&1
step_done "clocks ($CLOCKS)" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
cut -c1-300 "$out/clocks.txt"
