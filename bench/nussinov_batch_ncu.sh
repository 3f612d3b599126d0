#!/usr/bin/env bash
# Nsight Compute counters of the shared-memory Nussinov batch kernels (fold/_gpu_batch.py SHORT_KERNELS) on
# 4,224 RNAs of 200 nt (8 blocks for each of the H100's 528 block slots), one kernel after the other: how
# evenly the four schedulers of the SMs share the instructions (smsp__inst_executed max / min / avg over
# every scheduler: all blocks' busiest warps on one scheduler of each SM shows as max ~2x avg), why the
# warps wait, and how busy the integer (ALU), FMA and load-store pipes are; KERNEL:notrace folds without the
# traceback. On the lent H100/H200, from the repository root:
#   bash bench/nussinov_batch_ncu.sh [KERNEL[:notrace] ...]        # default: x2t x2tr x4t x4tr
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src PYTHONUNBUFFERED=1
kernels=${*:-x2t x2tr x4t x4tr}
script=$(mktemp --suffix .py)
cat > "$script" <<'PY'
import sys
import numpy as np
import cupy as cp
from bioaccel.fold import FoldParams, _gpu_batch
kernel, _, trace = sys.argv[1].partition(":")
_gpu_batch.SHORT_KERNEL = kernel
codes = np.random.default_rng(29).integers(0, 4, 4224 * 200).astype(np.uint8)
starts = np.arange(0, 4224 * 200 + 1, 200, dtype=np.int64)
for count in (8, 4224):                           # the first launch compiles: skipped below
    _gpu_batch.fold_packed(cp.asarray(codes[:count * 200]), starts[:count + 1], FoldParams(), traceback=trace != "notrace")
PY
stalls=""
for s in barrier short_scoreboard math_pipe_throttle not_selected wait mio_throttle; do
  stalls+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed.avg,smsp__inst_executed.max"
metrics+=",smsp__inst_executed.min,smsp__issue_active.avg.pct_of_peak_sustained_active$stalls"
pipes="sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"
pipes+=",sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
for kernel in $kernels; do
  echo "### $kernel"
  for list in "$metrics" "$pipes"; do
    ncu --kernel-name regex:'batch_fold_x' --launch-skip 1 --launch-count 1 --metrics "$list" \
        python3 "$script" "$kernel" 2>&1 | grep -v '^==PROF==' | grep -E 'batch_fold|duration|inst_executed|issue_active|stalled|pipe|ERR'
  done
done
rm -f "$script"
