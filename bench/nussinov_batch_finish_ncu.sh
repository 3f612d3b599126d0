#!/usr/bin/env bash
# Nsight Compute counters of the tiled batch's finish off the diagonal (batch_finish_sub_tight, fold/_launch.py
# SIZES.batch_closure FORM) on 600 RNAs of 1,000 nt (64-tiles: its d = 1 launch, 9,000 tiles): time, warp
# instructions, issue slots busy, shared-memory wavefronts, L1 busy, achieved occupancy, and why the warps wait
# (issue 29, nbbatch4). On the lent H100/H200, from the repository root:
#   bash bench/nussinov_batch_finish_ncu.sh [FORM ...]        # default: 3 4
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src PYTHONUNBUFFERED=1
forms=${*:-3 4}
script=$(mktemp --suffix .py)
cat > "$script" <<'PY'
import sys
import numpy as np
import cupy as cp
from bioaccel.fold import FoldParams, _gpu_batch, _launch
_launch.SIZES = _launch.SIZES.replace(batch_closure=int(sys.argv[1]))
codes = np.random.default_rng(29).integers(0, 4, 600 * 1000).astype(np.uint8)
starts = np.arange(0, 600 * 1000 + 1, 1000, dtype=np.int64)
for count in (8, 600):                            # the first fold compiles (its 15 finishes skipped below)
    _gpu_batch.fold_packed(cp.asarray(codes[:count * 1000]), starts[:count + 1], FoldParams())
PY
stalls=""
for s in barrier short_scoreboard mio_throttle lg_throttle wait not_selected math_pipe_throttle; do
  stalls+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_active"
metrics+=",sm__warps_active.avg.pct_of_peak_sustained_active$stalls"
for form in $forms; do
  echo "### form $form"
  ncu --kernel-name regex:'batch_finish_sub_tight' --launch-skip 15 --launch-count 1 --metrics "$metrics" \
      python3 "$script" "$form" 2>&1 | grep -v '^==PROF==' | grep -E 'batch_finish|duration|inst_executed|issue_active|wavefronts|throughput|warps_active|stalled|ERR'
done
rm -f "$script"
