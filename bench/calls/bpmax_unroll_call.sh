#!/usr/bin/env bash
# Issue 29 (helper bpmaxunroll): one device call from the repository root, logs under $OUT: the GPU tests of finish
# form 7 (TESTS) and test_interact_gpu.py's production, streamed and paired cases, then the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py, LEVELS of them timed launch by launch), then a block's cycles by phase (CLOCKS settings of
# bench/bpmax_finish_clocks.py). bench/calls/bpmax_waves_call.sh's steps, the tests first. Prints the tables and summaries last.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_unroll
# a smoke run of the new row first: call 1 hung here (a warp split between two barrier instructions), so a hang now
# ends the call in 90 s instead of every step's limit
timeout 90 python3 bench/bpmax_gpu_sizes.py --repeats 1 --only "${SMOKE:-77}" > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
timeout 150 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_unroll.py} \
    > "$out/tests_unroll.txt" 2>&1; step_done "tests unroll" $?
default_paths_tests 60
timeout 150 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-55,77,55,77,55,77}" --levels "${LEVELS:-55,77}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step_done "bench" $?
timeout 60 python3 bench/bpmax_finish_clocks.py --settings "${CLOCKS:-6:8,7:8}" --json "$out/clocks.json" \
    > "$out/clocks.txt" 2>&1; step_done "clocks" $?
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 25 "$out/clocks.txt"
tail -n 3 "$out/tests_unroll.txt" "$out/tests_gpu.txt"
