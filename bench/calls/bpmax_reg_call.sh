#!/usr/bin/env bash
# Issue 29 (helper bpmaxreg): one device call from the repository root, logs under $OUT: the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py), Nsight Compute's shared-memory sections of the products at level 12 (NCU settings of
# bench/bpmax_gpu_ncu_products.sh), then tests/test_interact_gpu_reg.py (call 1: the 4 x 8 form's tests, call 2: its
# launch sizes') and test_interact_gpu.py's production, streamed and paired cases. Prints the profile's lines, the
# bench's table and the tests' summaries last.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_reg
python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-55,68,69,70,67,55,68,69}" --json "$out/sizes.json" \
    > "$out/bench.txt" 2>&1; step_done "bench" $?
if [ -n "${NCU-2:32:96 2:32:136 2:32:168:7}" ]; then   # NCU= (empty): no profile
  NCU_OUT="$out/ncu" bash bench/bpmax_gpu_ncu_products.sh 12 ${NCU-2:32:96 2:32:136 2:32:168:7} > "$out/ncu.txt" 2>&1
  step_done "ncu" $?
  # what comes back is a few files: the raw CSVs in one archive, the reports left behind
  tar -czf "$out/ncu_csv.tar.gz" -C "$out" $(cd "$out" && ls ncu/*.csv) && rm -rf "$out/ncu"
fi
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_reg.py} > "$out/tests_reg.txt" 2>&1
step_done "tests reg" $?
default_paths_tests
stalls='stalled_(barrier|short_scoreboard|long_scoreboard|mio_throttle|math_pipe|wait|not_selected|lg_throttle)'
keys="time_duration|wavefronts_mem_shared|lsu_mem_shared.sum|pipe_(lsu|alu).avg|lts__throughput.avg|warps_active.avg.pct"
[ -f "$out/ncu.txt" ] && grep -E "^###|$keys|$stalls|issue_active|registers_per|rror" "$out/ncu.txt" | grep -Ev 'pct_of_peak_sustained_(elapsed|region|frame)' | cut -c1-120 | head -70
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 3 "$out/tests_reg.txt" "$out/tests_gpu.txt"
