#!/usr/bin/env bash
# Issue 29 (helper bpmaxfin3): one device call from the repository root, logs under $OUT: a smoke of the new finish
# form (SMOKE, a row of bench/bpmax_gpu_sizes.py; the call stops there if it fails or hangs), its GPU tests (TESTS), the
# sizes bench (ROWS interleaved, LEVELS timed launch by launch), then a block's cycles by phase (CLOCKS). Call 1:
# form 8 (row 79) against form 7 (row 77, the default); call 2: form 9 (row 80) too. The limits (LIMITS: smoke, tests,
# bench, clocks; call 1 90 40 40 20, call 2 30 30 13 12) sum to the helper's device time left less 60 s.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_fin3
read -r smoke tests bench clocks <<< "${LIMITS:-30 30 13 12}"
timeout "$smoke" python3 bench/bpmax_gpu_sizes.py --repeats 1 --only "${SMOKE:-80}" > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
timeout "$tests" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_unroll.py -k form9} \
    > "$out/tests.txt" 2>&1; step_done "tests" $?
timeout "$bench" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-77,80,79,77,80,79}" \
    --levels "${LEVELS:-77,80}" --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step_done "bench" $?
timeout "$clocks" python3 bench/bpmax_finish_clocks.py --settings "${CLOCKS:-7:8,8:8,9:8}" --json "$out/clocks.json" \
    > "$out/clocks.txt" 2>&1; step_done "clocks" $?
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 8 "$out/clocks.txt"
tail -n 3 "$out/tests.txt"
