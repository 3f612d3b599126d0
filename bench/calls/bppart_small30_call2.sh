# v30's second call (issue 27, docs/bppart-gpu-notes.md): the new production (band_cross_hoist 2, band_cross_run 16) on
# the device: first the GPU tests of the cross's run forms (tests/test_bppart_gpu_small30.py, _level28.py: the v28 rows
# now take the hoisted runs by default), then the bench against v28's production (band_cross_hoist=0, band_cross_run=8)
# as the baseline, a variant row and an svRNA form. On the device, in the copied tree: OUT=... bash bench/calls/bppart_small30_call2.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
OLD=band_cross_hoist=0,band_cross_run=8
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${TESTS_S:-55} python3 -m pytest -q -rA -n 4 -p no:cacheprovider tests/test_bppart_gpu_small30.py \
  tests/test_bppart_gpu_level28.py > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -25
uptime | tee -a $OUT/device.txt
timeout ${BENCH_S:-50} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1,$OLD" --variants "$OLD;band_cross_hoist=2,band_cross_run=16" \
  --screen-transcripts 48 --svrna-forms "$P,s2,q1,e1,$OLD" \
  --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\| (23|all|pair|band)|^screen|h on one" $OUT/bench.log | tail -30
