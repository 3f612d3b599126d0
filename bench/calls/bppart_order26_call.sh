# v26 (issue 27, docs/bppart-gpu-notes.md): one device call: the bench first (the staggered block orders interleaved
# with the production, the svRNA screen rows), then ncu of the cross launches at l1 = 13 for the production, a stagger
# and band_group G = 12, 4, 2 (DRAM bytes, L2 hit rate, L2 sectors from L1, duration), with the new test file's tests
# running beside ncu (their GPU traffic is megabytes against the launch's gigabytes).
# On the device, in the copied tree: OUT=... bash bench/calls/bppart_order26_call.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${BENCH_S:-85} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1" --variants "${VARIANTS:-band_stagger=48;band_stagger=0;band_stagger=24;band_stagger=96}" \
  --screen-transcripts 48 --screen-forms "" --svrna-forms "${SCREENS:-$P,s2,q1,e1,band_stagger=48}" \
  --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\||^#" $OUT/bench.log | tail -30
timeout ${TESTS_S:-60} python3 -m pytest -q -rA -n 3 -p no:cacheprovider tests/test_bppart_gpu_order26.py > $OUT/tests.log 2>&1 &
TESTS=$!
M=dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,gpu__time_duration.sum
M=$M,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
# form, launches before l1 = 13 (2 ceil((l1 - 1) / G) a level with band_group G), launches at l1 = 13
for f in "band_stagger=0 11 1" "band_stagger=48 11 1" "band_group=12 22 2" "band_group=4 42 6" "band_group=2 72 12"; do
  set -- $f
  timeout ${NCU_S:-25} ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip $2 --launch-count $3 \
    --metrics $M python3 bench/bppart_gpu_profile.py $P,$1 > $OUT/ncu_${1//=/_}.txt 2>&1
  echo "$1 rc=$?"
  grep -E "dram__bytes_read.sum|lts__t_sector_hit_rate|lts__t_sectors_srcunit|gpu__time_duration|pct_of_peak" \
    $OUT/ncu_${1//=/_}.txt | awk '{print $1, $(NF-1), $NF}' | head -$((6 * $3))
done
wait $TESTS; echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -10
