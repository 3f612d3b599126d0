# v25 (issue 27, docs/bppart-gpu-notes.md), call 2: the outer terms' two forms as the default (band_align 16,
# band_outer_pair 2): the `==` rows that now name their base, the aligned form's rows, the CPU at production sizes, then
# the bench's end to end, the new production against the old settings (baseline and variant); the tests first.
# On the device, in the copied tree: OUT=... bash bench/calls/bppart_cross25_call2.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
timeout ${TESTS_S:-70} python3 -m pytest -q -rA -n 6 -p no:cacheprovider tests/test_bppart_gpu_cross25.py \
  tests/test_bppart_gpu_windows.py tests/test_bppart_gpu_align.py -k "v25 or (variants_same_bits_as_production and \
  (v15_outer_pair or v17)) or (v16_aligned_same_bits_and_cpu and variant0) or v15_outer_pair_1" > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -10
timeout ${BENCH_S:-60} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1,band_align=0,band_outer_pair=1" --variants "band_align=0,band_outer_pair=1;band_outer_pair=2" \
  --screen-transcripts 0 --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"; grep -E "^\|" $OUT/bench.log | head -12
