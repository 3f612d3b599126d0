#!/usr/bin/env bash
# Issue 29, helper bpmaxqc: the query-inner fill's chain and bulk (bench/bpmax_query_inner_gpu.py, every form). The
# smoke, GPU tests and 23 x 20,000 row of bpmaxqk_call.sh under QC_SMOKE_S, QC_TESTS_S, QC_ROW_S (it stops the call if
# the smoke fails or hangs); then Nsight Compute on one chain launch (delta 8) of each form of QC_NCU (a 23 x 8,000
# row), a few metrics: shared loads, their wavefronts and bank conflicts, issue, stalls; all under QC_NCU_S.
#   bash bench/calls/bpmaxqc_call.sh        (on the device, from the repository root)
set -u
QK_SMOKE_S=${QC_SMOKE_S:-50} QK_TESTS_S=${QC_TESTS_S:-45} QK_ROW_S=${QC_ROW_S:-45} bash bench/calls/bpmaxqk_call.sh || exit 1
out=${OUT:-/tmp/bpmaxqk}
start=$(date +%s)
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
metrics+=",l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
for s in barrier short_scoreboard long_scoreboard mio_throttle wait; do
  metrics+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
timeout "${QC_NCU_S:-40}" bash -c "for f in ${QC_NCU:-8 11}; do ncu --kernel-name regex:query_inner_chain --launch-skip 8 \
    --launch-count 1 --metrics $metrics --csv python3 bench/bpmax_query_inner_gpu.py --target 8000 --profile \$f; done" \
    > "$out/ncu.csv" 2>&1
echo "ncu (${QC_NCU:-8 11}) rc $? at $(( $(date +%s) - start )) s after the row" >> "$out/steps.txt"
cat "$out/steps.txt"
awk -F'","' '/Metric Name/ || /regex/ {next} {print substr($5, 1, 60) " | " $(NF-2) " | " $NF}' "$out/ncu.csv" | grep -E "time|conflicts|wavefronts|op_shared|issue_active|stalled"
