# v29 (issue 27, docs/bppart-gpu-notes.md): one device call for the outer terms' groups of levels (band_outer_group):
# the new test file first (a wrong number stops the call before the bench), then the bench with the production and the
# variants interleaved, the svRNA screens, then ncu of the outer terms' launches of l1 = 13 and 14 (a group's first level
# and the next at G = 4) for the production and each of NCU_FORMS (DRAM bytes and throughput, L2 hit rate, occupancy).
# (NCU_FORMS empty: no ncu; TESTS_K: pytest's -k, TESTS_N its workers.) The groups' code and their test file were
# reverted after call 2 (no faster): this script runs as it stands on the branch's commit 56b67de (form 2) or ea86d24.
# On the device, in the copied tree: OUT=... VARIANTS=... SCREENS=... NCU_FORMS=... bash bench/calls/bppart_outer29_call.sh
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee $OUT/device.txt
uptime | tee -a $OUT/device.txt
timeout ${TESTS_S:-100} python3 -m pytest -q -x -rA -n ${TESTS_N:-6} -p no:cacheprovider tests/test_bppart_gpu_outer29.py \
  -k "${TESTS_K:-outer}" > $OUT/tests.log 2>&1
echo "tests rc=$?"; grep -E "^(PASSED|FAILED|ERROR)|passed|failed" $OUT/tests.log | tail -8
if grep -qE "^(FAILED|ERROR)" $OUT/tests.log; then echo "tests failed: no bench"; exit 1; fi
timeout ${BENCH_S:-170} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 3 --shapes "" --sweeps "" \
  --baseline "$P,s2,q1,e1" --variants "${VARIANTS}" --screen-transcripts 48 \
  --svrna-forms "${SCREENS}" --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"
grep -E "^\||h on one" $OUT/bench.log | tail -45
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum,smsp__inst_executed.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct
for form in ${NCU_FORMS:+band_outer_group=0 $NCU_FORMS}; do
  timeout ${NCU_S:-40} ncu --clock-control none --kernel-name regex:bppart_band_outer --launch-skip 12 --launch-count 2 \
    --metrics $M python3 bench/bppart_gpu_profile.py $P,q1,e1,$form > $OUT/ncu_${form//[=,]/_}.txt 2>&1
  echo "ncu $form rc=$?"
  grep -E "bppart_band_outer|gpu__time|dram__|lts__|smsp__|sm__|l1tex__" $OUT/ncu_${form//[=,]/_}.txt | tr -s ' ' | cut -c1-110
done
