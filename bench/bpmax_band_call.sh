#!/usr/bin/env bash
# Issue 29 (helper bpmaxband): one device call from the repository root, logs under $OUT: the sizes bench (ROWS of
# bench/bpmax_gpu_sizes.py: the default against pairs_edge 1-3), the GPU tests (TESTS, then test_interact_gpu.py's
# production, streamed and paired cases), then Nsight Compute's sections of the products at level 12 (NCU settings of
# bench/bpmax_gpu_ncu_products.sh; NCU= none), each step under a time limit. Prints the bench's table, the tests'
# summaries and the profile's lines last.
set -u
out=${OUT:-/tmp/bpmax_band}; mkdir -p "$out"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
start=$(date +%s)
step() { echo "$1 rc $2 at $(( $(date +%s) - start )) s" >> "$out/steps.txt"; }
timeout 240 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-55,73,71,72,55,73,74,55,73}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step bench $?
timeout 200 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider ${TESTS:-tests/test_interact_gpu_band48.py} \
    > "$out/tests_band.txt" 2>&1; step "tests band" $?
timeout 120 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu.py \
    -k "production or streamed or paired" > "$out/tests_gpu.txt" 2>&1; step "tests gpu" $?
if [ -n "${NCU-2:32:96:8:32:3}" ]; then
  NCU_OUT="$out/ncu" timeout 150 bash bench/bpmax_gpu_ncu_products.sh 12 ${NCU-2:32:96:8:32:3} > "$out/ncu.txt" 2>&1
  step ncu $?
  tar -czf "$out/ncu_csv.tar.gz" -C "$out" $(cd "$out" && ls ncu/*.csv) && rm -rf "$out/ncu"
fi
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 3 "$out/tests_band.txt" "$out/tests_gpu.txt"
stalls='stalled_(barrier|short_scoreboard|long_scoreboard|mio_throttle|math_pipe|wait|not_selected|lg_throttle)'
keys="time_duration|wavefronts_mem_shared|lsu_mem_shared.sum|pipe_(lsu|alu).avg|lts__throughput.avg|warps_active.avg.pct"
[ -f "$out/ncu.txt" ] && grep -E "^###|$keys|$stalls|issue_active|registers_per|rror" "$out/ncu.txt" | \
    grep -Ev 'pct_of_peak_sustained_(elapsed|region|frame)' | cut -c1-120 | head -40
