# v25 (issue 27, docs/bppart-gpu-notes.md): one device call: the splits-inner form's tests against the CPU first (a hang
# or a wrong number stops the call before the bench), the bench's cross and outer variants interleaved with the
# production, the screens, then ncu of the 12th cross launch for each order (DRAM bytes, L2 hit rate).
# On the device, in the copied tree: OUT=... VARIANTS=... SCREENS=... bash bench/calls/bppart_cross25_call.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${TESTS_S:-120} python3 -m pytest -q -x -rA -n 5 -p no:cacheprovider tests/test_bppart_gpu_cross25.py \
  > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -8
if [ "$(grep -c '^PASSED' $OUT/tests.log)" -lt 3 ]; then echo "tests failed: no bench"; exit 1; fi
timeout ${BENCH_S:-200} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1" --variants "${VARIANTS}" --screen-transcripts 48 \
  --screen-forms "${SCREENS}" --svrna-forms "${SCREENS}" --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\|" $OUT/bench.log | tail -40
if [ -n "${NCU_FORMS:-}" ]; then
  mkdir -p $OUT/ncu && OUT=$OUT/ncu FORMS="$NCU_FORMS" NCU_LINES=60 timeout ${NCU_S:-90} bash bench/bppart_gpu_ncu_forms.sh \
    > /dev/null 2>&1
  echo "ncu rc=$?"; grep -E "rc=|dram__bytes_read.sum|lts__t_sector_hit_rate|gpu__time_duration|lts__t_sectors_srcunit_tex.sum |Duration" $OUT/ncu/log
fi
