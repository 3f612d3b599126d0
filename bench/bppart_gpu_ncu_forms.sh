# The BPPart windows' cross products under Nsight Compute (issue 27, v16): L2 requests and sectors, instructions, the
# cp.async copies, stalls, of the 12th cross launch (l1 = 13) of one 23 x 20,000 call at window 128, for each entry of
# FORMS (launch-size fields added to the production, space-separated; v16 call 3: "band_align=0 band_align=16");
# NCU_MORE: more ncu arguments (v21: "--section SchedulerStats --section SourceCounters"), NCU_LINES: lines printed a form.
# On the device, PYTHONPATH holding src: OUT=... FORMS="..." bash bench/bppart_gpu_ncu_forms.sh
: "${OUT:?set OUT to a folder for the reports}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
M=lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum
M=$M,smsp__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,gpu__time_duration.sum
# (v21) DRAM bytes, the L2 hit rate, shared-memory wavefronts and conflicts, the pipes' shares
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__inst_executed_pipe_tensor_op_dmma.sum
M=$M,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active
which ncu | tee -a $OUT/log
for form in ${FORMS:-band_align=0 band_align=16}; do
  timeout 150 ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    ${NCU_MORE:-} --metrics $M python3 bench/bppart_gpu_profile.py $P,$form > $OUT/ncu_${form//[=,]/_}.txt 2>&1
  echo "$form rc=$?" | tee -a $OUT/log
  grep -E "Duration|Throughput|Hit Rate|Warp Cycles Per Issued|Stall|Issued Ipc|lts__|smsp__inst|gpu__time|dram__|l1tex__|sm__" \
    $OUT/ncu_${form//[=,]/_}.txt | head -${NCU_LINES:-40} | tee -a $OUT/log
done
