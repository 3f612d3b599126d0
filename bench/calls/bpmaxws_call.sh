#!/usr/bin/env bash
# Issue 29 (helper bpmaxws): the products' stages on mbarriers (pairs_stage 5: a ring of 2 stage slots, 6: of 3, 7: 5
# with a lane a warp arriving and waiting; no block barrier in the k loop), one device call from the repository root,
# logs under $OUT. Smoke: one small BPMax (8 x 333 nt, window 128) through the SMOKE forms (pairs_stage:chunk), their
# device tables equal and the window scores equal the CPU's; stop there if it fails or hangs (a ring that deadlocks).
# Then the GPU tests of TESTS (tests/test_interact_gpu_cp3.py's cases), then bench/bpmax_gpu_sizes.py's ROWS (55 the
# default, 81-88 the rings and STAGE 4 at their chunks), interleaved, then Nsight Compute's sections of level 12's
# products for NCU (bench/bpmax_gpu_ncu_products.sh settings; none if empty).   bash bench/calls/bpmaxws_call.sh
# Call 1 (commit c5576b7): SMOKE=5:48,6:32 TESTS="stage5 or stage6" ROWS=55,81,82,83,84,85,86,55,81,82,83,84,85,86
# NCU= with limits 90 / 90 / 100 s; call 2: the defaults below (limits 50 / 45 / 40 / 75 s: the cap left, ~274 s,
# less the start and the idle 30 s). The code it runs was reverted (slower): check out commit 53ab3eb to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxws
SMOKE=${SMOKE:-7:48,5:48}
timeout "${SMOKE_S:-50}" python3 - "$SMOKE" > "$out/smoke.txt" 2>&1 <<'PY'
import random
import sys

import numpy as np

from bioaccel.interact import InteractParams
from test_interact_gpu import _same_tables_and_cpu, random_rna_codes

forms = [tuple(int(x) for x in form.split(":")) for form in sys.argv[1].split(",")]
rng = random.Random(7)
ca = np.ascontiguousarray(random_rna_codes(rng, 8))
rbs = [np.ascontiguousarray(random_rna_codes(rng, 333))]
_same_tables_and_cpu(ca, rbs, InteractParams(window_target=128),
                     [dict(pairs_stage=stage, split_chunk=chunk) for stage, chunk in forms])
print(f"smoke passed: pairs_stage:chunk {sys.argv[1]} the same tables, the CPU's window scores")
PY
rc=$?; step_done "smoke (rings against the CPU, 8 x 333 nt)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout "${TESTS_S:-45}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_cp3.py \
    -k "${TESTS:-stage7}" > "$out/tests.txt" 2>&1
step_done "tests (cp3: ${TESTS:-stage7})" $?
timeout "${BENCH_S:-40}" python3 bench/bpmax_gpu_sizes.py --repeats 5 \
    --only "${ROWS:-55,82,81,87,85,88,55,82,81,87,85,88}" --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
NCU=${NCU-2:32:48:8:32:5 2:32:48:8:32:4 2:32:48:8:32:7 2:32:96}
if [ -n "$NCU" ]; then
  NCU_OUT="$out/ncu" timeout "${NCU_S:-75}" bash bench/bpmax_gpu_ncu_products.sh 12 $NCU > "$out/ncu.txt" 2>&1
  step_done "ncu" $?
  # what comes back is a few files: the raw CSVs in one archive, the reports left behind
  tar -czf "$out/ncu_csv.tar.gz" -C "$out" $(cd "$out" && ls ncu/*.csv) && rm -rf "$out/ncu"
fi
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
keys='time_duration|^smsp__inst_executed.sum |sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active|issue_active.avg.pct'
[ -f "$out/ncu.txt" ] && grep -E "^###|$keys|stalled_.*per_issue_active|warps_active.avg.pct|rror" "$out/ncu.txt" \
    | grep -Ev ' = 0\.0[0-4][0-9]* inst' | cut -c1-110 | head -n 90
