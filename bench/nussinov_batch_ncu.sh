#!/usr/bin/env bash
# Nsight Compute counters of the shared-memory Nussinov batch kernels (fold/_gpu_batch.py SHORT_KERNELS) on
# 4,224 RNAs of 200 nt (8 blocks for each of the H100's 528 block slots), one kernel after the other: how
# evenly the four schedulers of the SMs share the instructions (smsp__inst_executed max / min / avg over
# every scheduler: all blocks' busiest warps on one scheduler of each SM shows as max ~2x avg), and why the
# warps wait. On the lent H100/H200, from the repository root:
#   bash bench/nussinov_batch_ncu.sh [KERNEL ...]        # default: x2t x2tr x4t x4tr
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src PYTHONUNBUFFERED=1
kernels=${*:-x2t x2tr x4t x4tr}
script=$(mktemp --suffix .py)
cat > "$script" <<'PY'
import sys
import numpy as np
from bioaccel.fold import _gpu_batch, nussinov_batch
_gpu_batch.SHORT_KERNEL = sys.argv[1]
picks = np.random.default_rng(29).integers(0, 4, 4224 * 200)
text = np.frombuffer(b"ACGU", dtype=np.uint8)[picks].tobytes().decode()
seqs = [text[k * 200:(k + 1) * 200] for k in range(4224)]
nussinov_batch(seqs[:8], backend="gpu")           # compiled and launched once: skipped below
nussinov_batch(seqs, backend="gpu")
PY
stalls=""
for s in barrier short_scoreboard math_pipe_throttle not_selected wait mio_throttle; do
  stalls+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed.avg,smsp__inst_executed.max"
metrics+=",smsp__inst_executed.min,smsp__issue_active.avg.pct_of_peak_sustained_active$stalls"
for kernel in $kernels; do
  echo "### $kernel"
  ncu --kernel-name regex:'batch_fold_x' --launch-skip 1 --launch-count 1 --metrics "$metrics" \
      python3 "$script" "$kernel" 2>&1 | grep -v '^==PROF==' | grep -E 'batch_fold|duration|inst_executed|issue_active|stalled|ERR'
done
rm -f "$script"
