#!/usr/bin/env bash
# Issue 29 (helper bpmaxfin4): one device call from the repository root, logs under $OUT: a smoke of finish form 10
# (bench/bpmax_gpu_sizes.py row 81; the call stops there if it fails or hangs), the 8-byte loads' banks by pattern
# (bench/bpmax_lds64_banks.py timed, then under Nsight Compute: wavefronts and bank conflicts a launch), Nsight
# Compute's shared-load counters of level 12's finish for forms 7, 8 and 10 (bench/bpmax_gpu_ncu.sh), then the sizes
# bench: rows 77 (form 7, the default), 79 (form 8) and 81 (form 10) interleaved. LIMITS: smoke, banks, ncu, bench
# (their sum at most the helper's cap of 170 s less 60).
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_fin4
read -r smoke banks profile bench <<< "${LIMITS:-25 15 45 25}"
timeout "$smoke" python3 bench/bpmax_gpu_sizes.py --repeats 1 --only "${SMOKE:-81}" > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
export PYTHONPATH=$PWD/bench:$PYTHONPATH
timeout "$banks" bash -c "python3 bench/bpmax_lds64_banks.py --json $out/lds64.json > $out/banks.txt 2>&1 &&
    ncu --kernel-name lds64 --metrics smsp__inst_executed_op_shared_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    python3 bench/bpmax_lds64_banks.py --repeats 1 --json /tmp/lds64_ncu.json 2>&1 | grep -v '^==PROF==' |
    grep -E 'lds64|shared' >> $out/banks.txt"
step_done "banks" $?
timeout "$profile" bash bench/bpmax_gpu_ncu.sh 12 8:1:7 8:1:8 8:1:10 > "$out/ncu.txt" 2>&1; step_done "ncu" $?
timeout "$bench" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "${ROWS:-77,79,81,77,79,81}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1; step_done "bench" $?
cat "$out/gpu.txt" "$out/steps.txt"
grep -E '^\|' "$out/banks.txt"
grep -E '^###|bpmax_finish|shared|duration' "$out/ncu.txt"
grep -E '^#|^\|' "$out/bench.txt"
