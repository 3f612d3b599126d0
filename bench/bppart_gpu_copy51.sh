#!/usr/bin/env bash
# v37's device call (docs/bppart-gpu-notes.md): the GPU tests of tests/test_bppart_gpu_copy51.py, ncu of the cross
# launch at l1 = 13 (one 23 x 20,000 call, window 128) under band_cross_copy16 0 (the production), 3, 1 and 2: warp
# instructions, time, shared-load bank conflicts; then, if a pairs' form issues fewer instructions, the windows bench
# (the production against the pairs' forms in one call: the cross at 23 x 20,000 and the screens, with digests).
#   OUT=... bash bench/bppart_gpu_copy51.sh      (FORMS="3 1 2": the ncu forms after 0; BENCH=0: no bench)
set -u
OUT=${OUT:-/tmp/copy51}; mkdir -p "$OUT"; LOG=$OUT/copy51_log.txt
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOG"
start=$SECONDS
timeout "${TESTS_S:-170}" python3 -m pytest -q -m gpu -n 8 tests/test_bppart_gpu_copy51.py -p no:cacheprovider 2>&1 \
  | tail -5 | tee -a "$LOG"
echo "tests $((SECONDS - start)) s" | tee -a "$LOG"
P="m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2"
M=smsp__inst_executed.sum,gpu__time_duration.sum,smsp__sass_inst_executed_op_ldgsts.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_requests_srcunit_tex.sum
for v in 0 ${FORMS:-3 1 2}; do
  start=$SECONDS
  timeout "${NCU_S:-90}" ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --csv --metrics "$M" python3 bench/bppart_gpu_profile.py "$P,band_cross_copy16=$v" > "$OUT/ncu_copy16_$v.csv" 2>&1
  echo "ncu band_cross_copy16=$v rc=$? $((SECONDS - start)) s" | tee -a "$LOG"
  grep -E '"(smsp__inst_executed.sum|gpu__time_duration.sum|smsp__sass_inst_executed_op_ldgsts.sum|l1tex__data_bank|l1tex__data_pipe|smsp__issue|lts__t)' \
    "$OUT/ncu_copy16_$v.csv" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tee -a "$LOG"
done
[ "${BENCH:-1}" = 1 ] || exit 0
inst() { grep '"smsp__inst_executed.sum"' "$OUT/ncu_copy16_$1.csv" | awk -F'","' '{gsub(/[",]/, "", $NF); print $NF}'; }
best=3
for v in 1 2; do [ -n "$(inst $v)" ] && [ -n "$(inst $best)" ] && [ "$(inst $v)" -lt "$(inst $best)" ] && best=$v; done
if [ -z "$(inst $best)" ] || [ -z "$(inst 0)" ] || [ "$(inst $best)" -ge "$(inst 0)" ]; then
  echo "no pairs' form issues fewer instructions than the production: no bench" | tee -a "$LOG"; exit 0
fi
B="$P,s2,q1,e1"
echo "bench: the production against band_cross_copy16=$best (fewest instructions)" | tee -a "$LOG"
timeout "${BENCH_S:-220}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$B,band_cross_copy16=$best" --svrna-forms "$B,band_cross_copy16=$best" \
  --variants "band_cross_copy16=$best;band_cross_copy16=0;band_cross_copy16=$((best == 3 ? 2 : 3))" \
  --screen-transcripts 48 --json "$OUT/bppart_windows_v37.json" 2>&1 | tail -45 | tee -a "$LOG"
