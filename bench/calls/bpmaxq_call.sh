#!/usr/bin/env bash
# Issue 29, stop 62: the query-inner product's rate on the device (bench/bpmax_query_product.py). A smoke of 64 tiles
# (every restaged variant checked against numpy on two tiles) under 120 s, the full size under 150 s, then Nsight
# Compute on the variants of QT_NCU (indices into VARIANTS) under 150 s.
#   bash bench/calls/bpmaxq_call.sh        (on the device, from the repository root)
set -u
source bench/calls/bpmax_call_lib.sh
source bench/bpmax_gpu_ncu_metrics.sh
bpmax_call_head bpmaxq
timeout 120 python3 bench/bpmax_query_product.py --tiles 64 --splits 16 --repeats 1 > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (64 tiles x 16 splits)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout 150 python3 bench/bpmax_query_product.py ${QT_ARGS:-} --json "$out/query_product.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
if [ -n "${QT_NCU:-}" ]; then
  metrics+=",sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"
  timeout 150 ncu --kernel-name regex:query_tiles --metrics "$metrics" --csv \
      python3 bench/bpmax_query_product.py --tiles 1056 --splits 32 --repeats 1 --only "$QT_NCU" > "$out/ncu.csv" 2>&1
  step_done "ncu ($QT_NCU)" $?
fi
cat "$out/gpu.txt" "$out/steps.txt" "$out/smoke.txt" "$out/bench.txt"
