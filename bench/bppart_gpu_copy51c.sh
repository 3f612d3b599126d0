#!/usr/bin/env bash
# v37c's device call (docs/bppart-gpu-notes.md): tests/test_bppart_gpu_copy51.py, ncu of the cross launch at l1 = 13
# under band_cross_copy16 0 (the production), 10 (Bs's pairs in the rows where they start, unshifted) and 2, then the
# windows bench: the production against 10 in one call (cross at 23 x 20,000, the screens, digests), 0 and 2 as variants.
#   OUT=... bash bench/bppart_gpu_copy51c.sh
set -u
OUT=${OUT:-/tmp/copy51c}; mkdir -p "$OUT"; LOG=$OUT/copy51c_log.txt
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOG"
timeout "${TESTS_S:-170}" python3 -m pytest -q -m gpu -n 8 tests/test_bppart_gpu_copy51.py -p no:cacheprovider 2>&1 \
  | tail -5 | tee -a "$LOG"
P="m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2"
M=smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
for v in 0 10 2; do
  timeout "${NCU_S:-80}" ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --csv --metrics "$M" python3 bench/bppart_gpu_profile.py "$P,band_cross_copy16=$v" > "$OUT/ncu_copy16c_$v.csv" 2>&1
  echo "ncu band_cross_copy16=$v rc=$?" | tee -a "$LOG"
  grep -E '"(smsp__inst_executed.sum|gpu__time_duration.sum|l1tex__data_bank|l1tex__data_pipe)' \
    "$OUT/ncu_copy16c_$v.csv" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tee -a "$LOG"
done
B="$P,s2,q1,e1"
timeout "${BENCH_S:-240}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$B,band_cross_copy16=10" --svrna-forms "$B,band_cross_copy16=10" \
  --variants "band_cross_copy16=10;band_cross_copy16=0;band_cross_copy16=2" \
  --screen-transcripts 48 --json "$OUT/bppart_windows_v37c.json" 2>&1 | tail -45 | tee -a "$LOG"
