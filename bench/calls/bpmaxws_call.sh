#!/usr/bin/env bash
# Issue 29 (helper bpmaxws): the products' stages on mbarriers (pairs_stage 5: a ring of 2 stage slots, 6: of 3; no
# block barrier in the k loop), one device call from the repository root, logs under $OUT. Smoke (90 s): one small
# BPMax (8 x 333 nt, window 128) through pairs_stage 5 at chunk 48 and 6 at chunk 32, their device tables equal and the
# window scores equal the CPU's; stop there if it fails or hangs (a ring that deadlocks). Then the GPU tests of the
# rings (tests/test_interact_gpu_cp3.py's stage5 and stage6 cases), then bench/bpmax_gpu_sizes.py's ROWS (55 the
# default, 81-86 the rings and STAGE 4 at their chunks), interleaved. Limits sum to 280 s (cap 380 s less the start and
# the idle 30 s).   bash bench/calls/bpmaxws_call.sh
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxws
timeout 90 python3 - > "$out/smoke.txt" 2>&1 <<'PY'
import random

import numpy as np

from bioaccel.interact import InteractParams
from test_interact_gpu import _same_tables_and_cpu, random_rna_codes

rng = random.Random(7)
ca = np.ascontiguousarray(random_rna_codes(rng, 8))
rbs = [np.ascontiguousarray(random_rna_codes(rng, 333))]
_same_tables_and_cpu(ca, rbs, InteractParams(window_target=128),
                     (dict(pairs_stage=5, split_chunk=48), dict(pairs_stage=6, split_chunk=32)))
print("smoke passed: pairs_stage 5 (chunk 48) and 6 (chunk 32) the same tables, the CPU's window scores")
PY
rc=$?; step_done "smoke (rings against the CPU, 8 x 333 nt)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout 90 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_cp3.py -k "stage5 or stage6" \
    > "$out/tests.txt" 2>&1
step_done "tests (cp3 stage5, stage6)" $?
timeout 100 python3 bench/bpmax_gpu_sizes.py --repeats 5 \
    --only "${ROWS:-55,81,82,83,84,85,86,55,81,82,83,84,85,86}" --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
