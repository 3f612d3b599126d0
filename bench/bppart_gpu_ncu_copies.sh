# The BPPart windows' cross products under Nsight Compute (issue 27, v16): the production's 8-byte cp.async copies
# against 16-byte ones (band_copy16=1, .cg) and a bulk copy a row (band_copy16=3): L2 requests and sectors, the
# copy instructions, stalls; FORMS: other launch-size fields to profile (v16 call 3: "band_copy16=0 band_align=16"),
# NO_SASS=1: no SASS counts. On the device, PYTHONPATH holding src: OUT=... bash bench/bppart_gpu_ncu_copies.sh
: "${OUT:?set OUT to a folder for the reports}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
M=lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum
M=$M,smsp__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
which ncu | tee -a $OUT/log
for form in ${FORMS:-band_copy16=0 band_copy16=1 band_copy16=3}; do
  timeout 150 ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --metrics $M python3 bench/bppart_gpu_profile.py $P,$form > $OUT/ncu_${form//[=,]/_}.txt 2>&1
  echo "$form rc=$?" | tee -a $OUT/log
  grep -E "Duration|Throughput|Hit Rate|Warp Cycles Per Issued|Stall|Issued Ipc|lts__|smsp__inst|l1tex__|pipe_fp64|gpu__time" \
    $OUT/ncu_${form//[=,]/_}.txt | head -40 | tee -a $OUT/log
done
[ -n "$NO_SASS" ] && exit 0
# the SASS of the three forms (cuobjdump): instructions of the copies and the branches around them
K=src/bioaccel/interact/kernels
printf '#include "bppart_band.cu"\nvoid* const k[] = {\n' > /tmp/inst_cross.cu
for form in 0 8 32; do
  echo "(void*)&bppart_band_cross_ring<32, 64, 32, 3, 2, false, 0, 0, true, $form, 32>," >> /tmp/inst_cross.cu
done
echo '};' >> /tmp/inst_cross.cu
nvcc -arch=sm_90 --std=c++17 -I$K -Isrc/bioaccel/runtime/kernels --cubin /tmp/inst_cross.cu -o /tmp/cross.cubin
cuobjdump -sass /tmp/cross.cubin > /tmp/cross.sass
awk '/Function : /{f=$3} f && /\/\*[0-9a-f]+\*\//{n[f]++; for (i = 2; i <= NF; i++) if ($i ~ /^(LDGSTS|BSSY|BSYNC|BRA|UBLKCP|SYNCS|DMMA|LDS|STS|BAR|WARPSYNC|ISETP|IMAD|LOP3|SEL|IADD3)/) {split($i, a, "."); c[f" "a[1]]++; break}}
     END {for (k in n) print k, "instructions", n[k]; for (k in c) print k, c[k]}' /tmp/cross.sass | sort | tee $OUT/sass_counts.txt
