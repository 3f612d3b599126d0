#!/bin/bash
# v35 (issue 27, branch bppformd2): what bounds the production's cross products, and what form D (v34: QIa's open query
# splits in one-class row tiles over a packed QIac) could give at most. Nsight Compute of the production's 12th cross
# launch (l1 = 13, 23 x 20,000, window 128: L2 requests and sectors, hit rate, DRAM bytes, issue slots, the warps'
# stall reasons, and the source page by SASS instruction), then of the bench's bounds band_cross_skip_open=2 (the open
# splits' copies left out, their steps kept) and 1 (their steps skipped); then the windows bench with the bounds as
# variants and screen forms; then the GPU tests selected by TESTS (files, -k ${TESTK:-}). Eight files come back at most.
# On the device, PYTHONPATH holding src and tests:   OUT=... TESTS="tests/test_bppart_gpu_formd50.py" bash bench/bppart_gpu_formd50.sh
: "${OUT:?set OUT to a folder for the logs}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
B=$P,s2,q1,e1
LOG=$OUT/machine.txt
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,utilization.gpu --format=csv | tee "$LOG"
uptime | tee -a "$LOG"
M=lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__t_requests.sum,lts__t_sectors.sum
M=$M,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
M=$M,smsp__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum,sm__inst_executed_pipe_tensor_op_dmma.sum
M=$M,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active
M=$M,smsp__warps_eligible.avg.per_cycle_active,lts__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active
for skip in ${NCU_FORMS-0 2 1}; do
  start=$SECONDS
  timeout "${NCU_S:-200}" ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 \
    --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SourceCounters --metrics "$M" \
    -o "/tmp/cross_$skip" python3 bench/bppart_gpu_profile.py "$P,band_cross_skip_open=$skip" > "/tmp/ncu_run_$skip.txt" 2>&1
  echo "ncu skip_open=$skip rc=$? $((SECONDS - start)) s" | tee -a "$LOG"
  tail -2 "/tmp/ncu_run_$skip.txt" >> "$LOG"
  ncu -i "/tmp/cross_$skip.ncu-rep" --page details > "$OUT/ncu_cross_skip$skip.txt" 2>&1
  if [ "$skip" = 0 ]; then
    ncu -i /tmp/cross_0.ncu-rep --page source --print-source sass --csv > /tmp/ncu_source.csv 2>&1
    gzip -c /tmp/ncu_source.csv > "$OUT/ncu_cross_source.csv.gz"
  fi
  grep -E "Duration|lts__t_requests_srcunit|lts__t_sector_hit|dram__bytes_read|issue_active|Stall Long|Stall Barrier|Warp Cycles Per Issued" "$OUT/ncu_cross_skip$skip.txt" | head -12
done
if [ "${BENCH:-1}" = 1 ]; then
  start=$SECONDS
  S="$B,band_cross_skip_open=2;$B,band_cross_skip_open=1;$B"
  timeout "${BENCH_S:-240}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" \
    --sweeps "" --baseline "$B" --variants "${VARIANTS:-band_cross_skip_open=2;band_cross_skip_open=1;band_cross_skip_open=0;band_cross_skip_open=2}" \
    --screen-transcripts 48 --screen-forms "$S" --svrna-forms "$S" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
  echo "bench rc=$? $((SECONDS - start)) s" | tee -a "$LOG"
fi
if [ -n "$TESTS" ]; then
  start=$SECONDS
  timeout "${TESTS_S:-100}" python3 -m pytest -q -n 8 -m gpu -p no:cacheprovider $TESTS ${TESTK:+-k "$TESTK"} > "$OUT/tests.log" 2>&1
  echo "tests rc=$? $((SECONDS - start)) s" | tee -a "$LOG"
  tail -4 "$OUT/tests.log"
fi
uptime | tee -a "$LOG"
[ -f "$OUT/bench.log" ] && grep -v "^{\|^[a-z].*{'" "$OUT/bench.log" | tail -40
