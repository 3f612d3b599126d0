# The Nsight Compute metrics of bench/bpmax_gpu_ncu.sh and bench/bpmax_gpu_ncu_products.sh (sourced):
# time, instructions, issue and warp activity, shared-memory wavefronts (of loads: and their bank conflicts), DRAM and
# L2 reads, and the average stall reasons per issued instruction.
stalls=""
for s in barrier short_scoreboard long_scoreboard mio_throttle math_pipe_throttle wait not_selected lg_throttle \
         no_instruction dispatch_stall; do
  stalls+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
# issue 29 (bpmaxfin3): shared loads by instruction, their wavefronts and bank conflicts (8-byte loads at a lane stride
# of 2 SR words cost the finish's form 8 more than its conflict-free count)
metrics+=",smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
metrics+=",l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
metrics+=",dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct$stalls"
