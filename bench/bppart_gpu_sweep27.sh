#!/bin/bash
# v27 (issue 27, branch bppsweep6): the sweep's last tile diagonal folded into the launch before it (``band_last_fold``)
# timed against the production at 23 x 20,000, window 128 (the bench's --variants: VARIANTS, launch-size fields, ';'
# between), the svRNA rows for each form in FORMS (fields joined by ',', ' ' between forms), then the GPU tests of
# tests/test_bppart_gpu_sweep27.py. On the device, PYTHONPATH holding src and tests:
#   OUT=... VARIANTS="band_last_fold=2;band_last_fold=0" FORMS="band_last_fold=2" bash bench/bppart_gpu_sweep27.sh
: "${OUT:?set OUT to a folder for the logs}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,memory.total,clocks.sm,temperature.gpu,utilization.gpu --format=csv | tee "$OUT/machine.txt"
uptime | tee -a "$OUT/machine.txt"
S=""
for form in $FORMS; do S="$S;$P,s2,q1,e1,$form"; done
start=$SECONDS
timeout "${BENCH_S:-150}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" \
  --sweeps "" --baseline "$P,s2,q1,e1" --variants "$VARIANTS" --screen-transcripts "${SCREEN:-48}" \
  --svrna-forms "${S#;}" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
echo "bench rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
uptime | tee -a "$OUT/machine.txt"
if [ "${TESTS:-1}" = 1 ]; then
  start=$SECONDS
  timeout "${TESTS_S:-90}" python3 -m pytest -q -n 8 -m gpu -p no:cacheprovider tests/test_bppart_gpu_sweep27.py \
    > "$OUT/tests.log" 2>&1
  echo "tests rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  tail -4 "$OUT/tests.log"
fi
grep -v "^{\|^[a-z].*{'" "$OUT/bench.log" | tail -40
