# v23 (issue 27, docs/bppart-gpu-notes.md): one device call: the pair form's production-size tests first (a hang or a
# wrong number stops the call before the bench), the bench's cross variants interleaved, then the other v23 tests.
# On the device, in the copied tree: OUT=... bash bench/bppart_cross23_call.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${SMOKE_S:-110} python3 -m pytest -q -x -rA -p no:cacheprovider tests/test_bppart_gpu_cross23.py \
  -k "same_bits_and_cpu and (variant0 or variant1)" > $OUT/smoke.log 2>&1
tail -5 $OUT/smoke.log
if [ "$(grep -c '^PASSED' $OUT/smoke.log)" != 2 ]; then echo "smoke failed: no bench"; exit 1; fi
timeout ${BENCH_S:-260} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1,band_sums_apart=0" --variants "${VARIANTS}" --screen-transcripts 48 \
  --screen-forms "${SCREENS}" --svrna-forms "${SCREENS}" --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\|" $OUT/bench.log | tail -40
if [ -n "${TESTS_S:-}" ]; then
  timeout $TESTS_S python3 -m pytest -q -n 8 -rA -p no:cacheprovider tests/test_bppart_gpu_cross23.py \
    -k "not (same_bits_and_cpu and (variant0 or variant1))" > $OUT/tests.log 2>&1
  echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -12
fi
