# v28 (issue 27, docs/bppart-gpu-notes.md): one device call: the bench first (the cross products' device ms per query
# length l1 for the production, the baseline and every variant; a block a run of query intervals, band_cross_run,
# interleaved with the production's form), the svRNA screen rows; then the new test file's tests. Call 1 (commit
# f0d0f84) ran VARIANTS="$R=8;$R=0;$R=24;band_cross_places=1;$R=24,band_cross_places=1;$R=0;$R=8;$R=24" and
# SCREENS="$P,s2,q1,e1,$R=24,band_cross_places=1;$P,s2,q1,e1,$R=8" (band_cross_places since reverted).
# On the device, in the copied tree: OUT=... bash bench/bppart_level28_call.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
R=band_cross_run
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${BENCH_S:-150} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1" \
  --variants "${VARIANTS:-$R=12;$R=0;$R=8;$R=16;$R=12;$R=0;$R=8;$R=16}" \
  --screen-transcripts 48 --svrna-forms "${SCREENS:-$P,s2,q1,e1,$R=12}" \
  --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\||^#|^screen|h on one|^cross products" $OUT/bench.log | tail -62
timeout ${TESTS_S:-100} python3 -m pytest -q -rA -n 4 -p no:cacheprovider tests/test_bppart_gpu_level28.py > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -25
