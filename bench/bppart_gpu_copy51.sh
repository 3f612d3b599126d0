#!/usr/bin/env bash
# The cross ring's copies by 16-byte pairs (docs/bppart-gpu-notes.md, v37-v37c), one device call: the GPU tests of
# tests/test_bppart_gpu_copy51.py; ncu of the cross launch at l1 = 13 (one 23 x 20,000 call, window 128) under
# band_cross_copy16 0 (stop 50's 8-byte copies) and FORMS (warp instructions, time, shared-load wavefronts and bank
# conflicts); then the windows bench: the production (v37c's 10) against 0 in one call (the cross at 23 x 20,000 and the
# screens, with digests), VARIANTS as --variants rows.
#   OUT=... bash bench/bppart_gpu_copy51.sh      (FORMS="10 2"; VARIANTS="band_cross_copy16=10;...=0;...=2"; BENCH=0: no bench)
# (v37's call was this script at commit 47713a2, v37b's at 0c70023 with forms 0 7 5, v37c's at 97f8b6b; forms 5 and 7,
# v37b's, were removed by the review bppcopy16: the last tree that has them is 1a2017c)
# Since v38 (the tables' odd row pitch, bench/bppart_gpu_stride52.sh) forms 1-3 are unshifted and 3 is the production:
# "the production (v37c's 10)" above reads "form 10" on this tree.
set -u
OUT=${OUT:-/tmp/copy51}; mkdir -p "$OUT"; LOG=$OUT/copy51_log.txt
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOG"
timeout "${TESTS_S:-170}" python3 -m pytest -q -m gpu -n 8 tests/test_bppart_gpu_copy51.py -p no:cacheprovider 2>&1 \
  | tail -5 | tee -a "$LOG"
P="m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2"
M=smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
for v in 0 ${FORMS:-10 2}; do
  timeout "${NCU_S:-80}" ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --csv --metrics "$M" python3 bench/bppart_gpu_profile.py "$P,band_cross_copy16=$v" > "$OUT/ncu_copy16_$v.csv" 2>&1
  echo "ncu band_cross_copy16=$v rc=$?" | tee -a "$LOG"
  grep -E '"(smsp__inst_executed.sum|gpu__time_duration.sum|l1tex__data_bank|l1tex__data_pipe)' \
    "$OUT/ncu_copy16_$v.csv" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tee -a "$LOG"
done
[ "${BENCH:-1}" = 1 ] || exit 0
B="$P,s2,q1,e1,band_cross_copy16=0"
timeout "${BENCH_S:-240}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$B" --svrna-forms "$B" \
  --variants "${VARIANTS:-band_cross_copy16=10;band_cross_copy16=0;band_cross_copy16=2}" \
  --screen-transcripts 48 --json "$OUT/bppart_windows_copy51.json" 2>&1 | tail -45 | tee -a "$LOG"
