#!/usr/bin/env bash
# Issue 29 (helper bpmaxring): one device call from the repository root, logs under $OUT: the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py, LEVELS of them timed launch by launch: the default against finish_slide, twice each),
# then the BPMax GPU test files whole (TESTS). Each step under a time limit; prints the tables and summaries last.
set -u
out=${OUT:-/tmp/bpmax_slide}; mkdir -p "$out"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
start=$(date +%s)
timeout "${BENCH_S:-100}" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-55,75,55,75}" \
    --levels "${LEVELS:-55,75}" --json "$out/sizes.json" > "$out/bench.txt" 2>&1
echo "bench rc $? at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
timeout "${TESTS_S:-170}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu.py \
    tests/test_interact_gpu_waves.py tests/test_interact_gpu_reg.py tests/test_interact_gpu_slide.py} \
    > "$out/tests.txt" 2>&1
echo "tests rc $? at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 60 "$out/bench.txt"
grep -E 'passed|failed|FAILED|Error' "$out/tests.txt" | tail -n 15
