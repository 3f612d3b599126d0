#!/usr/bin/env bash
# Issue 29 (helper bpmaxco): the next level's interior products beside a level's finish (BPMaxSizes.overlap_products,
# interact/_gpu_levels.py), one device call from the repository root, logs under $OUT. Smoke (90 s): the overlap's
# device tables against the default's on the production band (8 x 1,400 and 333 nt, window 128), bit for bit, at 227,
# 170 and 140 KB segments; then the other overlap tests (cell by cell against the CPU, short windows and pieces, timed
# launches); then bench/bpmax_gpu_sizes.py rows 55 (the default) and 81-85 (overlap at 227 / 170 / 140 KB, 170 / 140 KB
# without it), interleaved twice. Limits sum to 230 s (cap 300 s less the start).   bash bench/calls/bpmaxco_call.sh
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxco
timeout 90 python3 -m pytest -q -m gpu -x -p no:cacheprovider tests/test_interact_gpu_overlap.py -k production_band \
    > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (overlap = default on the production band)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout 65 python3 -m pytest -q -m gpu -n 4 -p no:cacheprovider tests/test_interact_gpu_overlap.py \
    -k "not production_band" > "$out/tests.txt" 2>&1
step_done "tests" $?
timeout 75 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-55,81,82,83,84,85,55,81,82,83,84,85}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
