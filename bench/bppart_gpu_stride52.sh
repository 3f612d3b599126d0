#!/usr/bin/env bash
# v38 (docs/bppart-gpu-notes.md): the band tables' odd row pitch and the cross ring's pairs in every row, one device
# call from this tree (NEW, the current folder) against the production before v38 (OLD: a tree of it, its src and
# bench; on the device, the repository root when this tree travels as .dev-<name> inside it):
#   1. the windows bench at 23 x 20,000 with the screens: OLD's production (its --baseline the same sizes again: the
#      spread), then NEW's production (band_cross_copy16 10: v37c's mix on the new layout) with VARIANTS rows, its
#      --baseline band_cross_copy16 NEW_BASE and the svRNA screens of NEW_FORMS (band_cross_copy16 values);
#   2. the GPU tests of the pairs on the new layout (tests/test_bppart_gpu_copy51.py: every form equal to the 8-byte
#      copies to the last bit, NaN tables) and the production's windows at window 128 against the CPU;
#   3. ncu of the cross launch at l1 = 13 (one 23 x 20,000 call, window 128): OLD's production (v37c), then NEW's
#      band_cross_copy16 FORMS (duration, warp instructions, shared-load wavefronts, bank conflicts).
#   OUT=... OLD=.. bash bench/bppart_gpu_stride52.sh   (FORMS="10 2 3"; VARIANTS; NEW_BASE=3; NEW_FORMS="2 3"; BENCH=0, TESTS=0: none)
set -u
OUT=${OUT:-/tmp/stride52}; mkdir -p "$OUT"; LOG=$OUT/stride52_log.txt
NEW=$PWD; OLD=$(cd "${OLD:?a tree of the production before v38}" && pwd); BASE=${PYTHONPATH:-}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOG"
echo "NEW $NEW ($(git -C "$NEW" log --oneline -1 2>/dev/null)); OLD $OLD ($(git -C "$OLD" log --oneline -1 2>/dev/null))" | tee -a "$LOG"
P="m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2"
M=smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
if [ "${BENCH:-1}" = 1 ]; then
bench() {   # $1 tree, $2 json, the rest: more arguments
  local tree=$1 json=$2; shift 2
  (cd "$tree" && PYTHONPATH=$tree/src:$BASE timeout "${BENCH_S:-200}" python3 bench/bppart_gpu_windows.py --cpu-max 0 \
    --sizes 20000 --repeats 3 --shapes "" --sweeps "" --screen-transcripts 48 --json "$json" "$@" 2>&1 | tail -40 \
    | tee -a "$LOG")
}
echo "== OLD production" | tee -a "$LOG"
bench "$OLD" "$OUT/bppart_windows_v38_old.json" --baseline "$P,s2,q1,e1" --variants "band_cross_copy16=10"
FORMS_S=""; for v in ${NEW_FORMS:-2 3}; do FORMS_S="$FORMS_S${FORMS_S:+;}$P,s2,q1,e1,band_cross_copy16=$v"; done
echo "== NEW (production sizes: band_cross_copy16 10 on the new layout)" | tee -a "$LOG"
bench "$NEW" "$OUT/bppart_windows_v38_new.json" --baseline "$P,s2,q1,e1,band_cross_copy16=${NEW_BASE:-3}" \
  --svrna-forms "$FORMS_S" --variants "${VARIANTS:-band_cross_copy16=10;band_cross_copy16=2;band_cross_copy16=3}"
fi
if [ "${TESTS:-1}" = 1 ]; then
  PYTHONPATH=$NEW/src:$NEW/tests:$BASE timeout "${TESTS_S:-200}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider \
    tests/test_bppart_gpu_copy51.py "tests/test_bppart_gpu_windows.py::test_gpu_windows_production_sizes_at_window_128" \
    2>&1 | tail -6 | tee -a "$LOG"
fi
profile() {   # $1 tree, $2 label, $3 sizes entry
  PYTHONPATH=$1/src:$BASE timeout "${NCU_S:-80}" ncu --clock-control none --kernel-name regex:bppart_band_cross \
    --launch-skip 11 --launch-count 1 --csv --metrics "$M" python3 "$1/bench/bppart_gpu_profile.py" "$3" > "$OUT/ncu.tmp" 2>&1
  echo "ncu $2 rc=$?" | tee -a "$LOG"
  grep -E '"(smsp__inst_executed.sum|gpu__time_duration.sum|l1tex__data_bank|l1tex__data_pipe)' "$OUT/ncu.tmp" \
    | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' | tee -a "$LOG"
  grep -E "log Z" "$OUT/ncu.tmp" | tail -1 | tee -a "$LOG"
}
profile "$OLD" "OLD production (v37c, layout before v38)" "$P"
for v in ${FORMS:-10 2 3}; do profile "$NEW" "NEW band_cross_copy16=$v" "$P,band_cross_copy16=$v"; done
rm -f "$OUT/ncu.tmp"
