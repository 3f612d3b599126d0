#!/usr/bin/env bash
# Issue 29 (helper bpmaxwave): one device call from the repository root, logs under $OUT: the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py, LEVELS of them timed launch by launch), then tests/test_interact_gpu_waves.py and
# test_interact_gpu.py's production, streamed and paired cases. Prints the bench's tables and the tests' summaries last.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_waves
python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-74,74,55,74,55,74,55}" --levels "${LEVELS:-74,55}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step_done "bench" $?
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_waves.py tests/test_interact_gpu_fin2.py} > "$out/tests_waves.txt" 2>&1
step_done "tests waves" $?
default_paths_tests
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 3 "$out/tests_waves.txt" "$out/tests_gpu.txt"
