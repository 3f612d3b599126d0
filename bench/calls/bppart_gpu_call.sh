#!/usr/bin/env bash
# One device call of a BPPart GPU form's measurement (docs/bppart-gpu-notes.md): the bench first (23 x 20,000 nt,
# window 128: the device seconds of the sweep, the cross products by level l1 and the outer terms for the production,
# the BASELINE and every one of VARIANTS on one stream, interleaved; the svRNA screens with the production and SCREENS),
# then the GPU tests of TESTS. The helpers' call scripts (bench/bppart_*_call.sh) set those and run this.
# On the device, in the copied tree: OUT=... VARIANTS=... SCREENS=... TESTS=... bash bench/calls/bppart_gpu_call.sh
: "${OUT:?set OUT}" "${VARIANTS:?set VARIANTS}" "${SCREENS:?set SCREENS}" "${TESTS:?set TESTS}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${BENCH_S:-150} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "${BASELINE:-$P,s2,q1,e1}" --variants "$VARIANTS" --screen-transcripts 48 --svrna-forms "$SCREENS" \
  --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\||^#|^screen|h on one|^cross products" $OUT/bench.log | tail -${LINES_SHOWN:-70}
uptime | tee -a $OUT/device.txt
timeout ${TESTS_S:-75} python3 -m pytest -q -rA -n 4 -p no:cacheprovider $TESTS > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -25
