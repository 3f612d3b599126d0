# v23 call 2 (issue 27, docs/bppart-gpu-notes.md): why the pairs lose: a diagnostic pair form (3: in step with relaxed
# cluster barriers, each block copying all of B, nothing read from the peer) timed beside the production and pairs 2,
# then Nsight Compute on the production and pairs 2 (the 12th cross launch). On the device: OUT=... bash this
: "${OUT:?set OUT}"
export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout ${BENCH_S:-70} python3 bench/bppart_gpu_windows.py --cpu-max 0 --sizes 20000 --repeats 1 --shapes "" --sweeps "" \
  --variants "band_cross_pairs=3;band_cross_pairs=0;band_cross_pairs=2;band_cross_pairs=3;band_cross_pairs=0" \
  --screen-transcripts 0 --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?"; grep -E "^\| band" $OUT/bench.log
FORMS="band_cross_pairs=0 band_cross_pairs=2" NCU_MORE="--section SchedulerStats --section Occupancy --section LaunchStats" \
  NCU_LINES=60 timeout ${NCU_S:-100} bash bench/bppart_gpu_ncu_forms.sh > /dev/null 2>&1
echo "ncu rc=$?"
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "Duration|L2 Cache Throughput|DRAM Throughput|L2 Hit|Warp Cycles Per Issued|Issued Ipc|lts__t_sectors_srcunit_tex.sum|dram__bytes_read|dmma_cycles|Stall|Achieved Occupancy|Cluster" $f | head -24; done
