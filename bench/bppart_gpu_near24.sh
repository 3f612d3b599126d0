#!/bin/bash
# v24 (issue 27, branch bppnear5): the one-warp near part with its terms but one read a step early (``band_near_ahead``)
# timed against the production at 23 x 20,000, window 128 (the bench's --variants: VARIANTS, launch-size fields, ';'
# between), the screen's rows (proxy and both svRNA rows) for each form in FORMS (fields joined by ',', ' ' between forms; no screen when
# SCREEN=0), with NCU set an ncu profile of one sweep launch (l1 = 12, d = 5, v18's; of the form NCU_FORM, default the
# production): the report, its details
# page (stall reasons, scheduler and FP64 pipe figures) and its source page by SASS instruction; then the GPU tests
# selected by TESTS (-k). On the device, PYTHONPATH holding src and tests:
#   OUT=... VARIANTS="band_near_ahead=1;band_near_ahead=0" FORMS="band_near_ahead=1" TESTS="v24" bash bench/bppart_gpu_near24.sh
: "${OUT:?set OUT to a folder for the logs}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,utilization.gpu --format=csv | tee "$OUT/machine.txt"
uptime | tee -a "$OUT/machine.txt"
S=""
for form in $FORMS; do S="$S;$P,s2,q1,e1,$form"; done
if [ "${BENCH:-1}" = 1 ]; then
  start=$SECONDS
  timeout "${BENCH_S:-200}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" \
    --sweeps "" --baseline "$P,s2,q1,e1" --variants "$VARIANTS" --screen-transcripts "${SCREEN:-48}" \
    --screen-forms "${S#;}" --svrna-forms "${S#;}" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
  echo "bench rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  uptime | tee -a "$OUT/machine.txt"
fi
if [ -n "$NCU" ]; then     # the production's sweep launch l1 = 12, d = 5 (v18's)
  start=$SECONDS
  timeout "${NCU_S:-90}" ncu --clock-control none --kernel-name regex:bppart_band_tiles --launch-skip 115 \
    --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters \
    --metrics smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__issue_active.max.pct_of_peak_sustained_active,smsp__issue_active.min.pct_of_peak_sustained_active,smsp__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_fp64_cycles_active.max.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active \
    -o "$OUT/sweep" python3 bench/bppart_gpu_profile.py "${NCU_FORM:-$P}" > "$OUT/ncu_run.txt" 2>&1
  echo "ncu rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  ncu -i "$OUT/sweep.ncu-rep" --page details > "$OUT/ncu_details.txt" 2>&1
  ncu -i "$OUT/sweep.ncu-rep" --page source --print-source sass --csv > "$OUT/ncu_source.csv" 2>&1
  gzip -k "$OUT/ncu_source.csv"
  grep -iE "issue|fp64|stall|eligible|warp cycles|barrier|active" "$OUT/ncu_details.txt" | head -40
fi
if [ -n "$TESTS" ]; then
  start=$SECONDS
  timeout "${TESTS_S:-90}" python3 -m pytest -q -n 8 -m gpu -p no:cacheprovider tests/test_bppart_gpu_near24.py -k "$TESTS" > "$OUT/tests.log" 2>&1
  echo "tests rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  tail -4 "$OUT/tests.log"
fi
[ -f "$OUT/bench.log" ] && grep -v "^{\|^[a-z].*{'" "$OUT/bench.log" | tail -45
