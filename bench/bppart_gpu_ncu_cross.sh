# The BPPart windows' cross products under Nsight Compute (issue 27): the production (chunks of 32, 3 blocks) and v10's.
# On the device, with PYTHONPATH holding src and OUT a folder for the reports: OUT=... bash bench/bppart_gpu_ncu_cross.sh
: "${OUT:?set OUT to a folder for the reports}"
which ncu | tee -a $OUT/log
for shape in m32x64x32x3x2xF m32x64x16x4x2xF; do
  timeout 200 ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy \
    --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
    python3 bench/bppart_gpu_profile.py $shape,16xlaunchesxTx4xWxTx3x2 > $OUT/ncu_cross_$shape.txt 2>&1
  echo "$shape rc=$?" | tee -a $OUT/log
  grep -E "Duration|Stall|Throughput|Hit Rate|Achieved Occupancy|Warp Cycles Per Issued|Registers|Shared Memory Config|Issued Ipc|DRAM" $OUT/ncu_cross_$shape.txt | head -40 | tee -a $OUT/log
done
