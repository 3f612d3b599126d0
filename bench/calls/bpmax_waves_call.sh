#!/usr/bin/env bash
# Issue 29 (helper bpmaxwave): one device call from the repository root, logs under $OUT: the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py, LEVELS of them timed launch by launch), then tests/test_interact_gpu_waves.py and
# test_interact_gpu.py's production, streamed and paired cases. Prints the bench's tables and the tests' summaries last.
set -u
out=${OUT:-/tmp/bpmax_waves}; mkdir -p "$out"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
start=$(date +%s)
python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-74,74,55,74,55,74,55}" --levels "${LEVELS:-74,55}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; echo "bench rc $? at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_waves.py tests/test_interact_gpu_fin2.py} > "$out/tests_waves.txt" 2>&1
echo "tests waves rc $? at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu.py -k "production or streamed or paired" \
    > "$out/tests_gpu.txt" 2>&1
echo "tests gpu rc $? at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 3 "$out/tests_waves.txt" "$out/tests_gpu.txt"
