#!/usr/bin/env bash
# Issue 29 (helper bpmaxfin3): one device call from the repository root, logs under $OUT: a 90 s smoke of finish form 8
# (bench row 79; the call stops there if it fails or hangs), the form-8 GPU tests, the sizes bench (rows 77 = form 7,
# the default, and 79 = form 8 interleaved, both timed launch by launch), then a block's cycles by phase (forms 7 and 8).
# bench/calls/bpmax_unroll_call.sh's steps; the limits sum to 190 s (the helper's cap 250 s less 60).
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_fin3
timeout 90 python3 bench/bpmax_gpu_sizes.py --repeats 1 --only "${SMOKE:-79}" > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
timeout 40 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_unroll.py -k form8} \
    > "$out/tests_form8.txt" 2>&1; step_done "tests form 8" $?
timeout 40 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-77,79,77,79,77,79}" --levels "${LEVELS:-77,79}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step_done "bench" $?
timeout 20 python3 bench/bpmax_finish_clocks.py --settings "${CLOCKS:-7:8,8:8}" --json "$out/clocks.json" \
    > "$out/clocks.txt" 2>&1; step_done "clocks" $?
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 8 "$out/clocks.txt"
tail -n 3 "$out/tests_form8.txt"
