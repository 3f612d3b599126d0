#!/bin/bash
# The sweep's near forms of v20 (issue 27, branch bppsweep3; ``band_near_form``) timed against the production at 23 x
# 20,000, window 128 (the bench's --variants: VARIANTS, launch-size fields, ';' between), the screen's rows (proxy and
# both svRNA rows) for each near form in FORMS (space-separated; no screen when SCREEN=0; no bench when BENCH=0), with NCU
# set an ncu profile of one production sweep launch by SASS instruction, then the GPU tests selected by TESTS (-k). On the device, PYTHONPATH
# holding src and tests:
#   OUT=... VARIANTS="band_near_form=0;band_near_form=4" FORMS="4" TESTS="v20" bash bench/bppart_gpu_sweep20.sh
: "${OUT:?set OUT to a folder for the logs}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,utilization.gpu --format=csv | tee "$OUT/machine.txt"
uptime | tee -a "$OUT/machine.txt"
S=""
for form in $FORMS; do S="$S;$P,s2,q1,e1,band_near_form=$form"; done
if [ "${BENCH:-1}" = 1 ]; then
  start=$SECONDS
  timeout "${BENCH_S:-200}" python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" \
    --sweeps "" --baseline "$P,s2,q1,e1" --variants "$VARIANTS" --screen-transcripts "${SCREEN:-48}" \
    --screen-forms "${S#;}" --svrna-forms "${S#;}" --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
  echo "bench rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  uptime | tee -a "$OUT/machine.txt"
fi
if [ -n "$NCU" ]; then     # the production's sweep launch l1 = 12, d = 5 (v18's), stalls by SASS instruction
  start=$SECONDS
  timeout "${NCU_S:-90}" ncu --clock-control none --kernel-name regex:bppart_band_tiles --launch-skip 115 \
    --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass \
    python3 bench/bppart_gpu_profile.py "$P" > "$OUT/ncu_source.txt" 2>&1
  echo "ncu rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  gzip -k "$OUT/ncu_source.txt"
fi
if [ -n "$TESTS" ]; then
  start=$SECONDS
  timeout "${TESTS_S:-90}" python3 -m pytest -q -n 8 -m gpu -p no:cacheprovider tests/test_bppart_gpu_sweep20.py \
    tests/test_bppart_gpu_windows.py -k "$TESTS" > "$OUT/tests.log" 2>&1
  echo "tests rc=$? $((SECONDS - start)) s" | tee -a "$OUT/machine.txt"
  tail -4 "$OUT/tests.log"
fi
[ -f "$OUT/bench.log" ] && grep -v "^{\|^[a-z].*{'" "$OUT/bench.log" | tail -45
