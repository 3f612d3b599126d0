#!/usr/bin/env bash
# Issue 29, helper bpmaxqk: BPMax in query-inner order as a whole windowed fill (bench/bpmax_query_inner_gpu.py).
# A smoke (one 23 x 61 nt pair against fill_naive, every band cell, every form) under QK_SMOKE_S (90) s, stopping the call if it fails or
# hangs; the GPU tests (tests/test_bpmax_query_inner_gpu.py) under QK_TESTS_S; the 23 x 20,000 nt row (window
# scores against the production's in the same run, then the timings) under QK_ROW_S.
#   bash bench/calls/bpmaxqk_call.sh        (on the device, from the repository root)
set -u
source bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxqk
timeout "${QK_SMOKE_S:-90}" python3 bench/bpmax_query_inner_gpu.py --smoke > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (23 x 61 nt, window 20, against fill_naive)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout "${QK_TESTS_S:-100}" python3 -m pytest -q -p no:cacheprovider tests/test_bpmax_query_inner_gpu.py \
    > "$out/tests.txt" 2>&1
step_done "tests" $?
timeout "${QK_ROW_S:-180}" python3 bench/bpmax_query_inner_gpu.py --repeats 5 --json "$out/query_inner.json" \
    > "$out/row.txt" 2>&1
step_done "row 23 x 20,000" $?
cat "$out/gpu.txt" "$out/steps.txt" "$out/smoke.txt"
tail -n 15 "$out/tests.txt" "$out/row.txt"
