#!/usr/bin/env bash
# Nsight Compute counters of one sequence's sub-tiled finish off the diagonal (tiled_finish_sub_tight, fold/_launch.py
# SIZES.finish_closure SETTING, 128-tiles) at n = 16,000, on a middle tile diagonal of the chain (d ~ 61 of 124, one
# block a tile: launch__grid_size says how many), alone (ncu serializes launches, so no interior products beside it):
# time, warp instructions (divide by the tiles and 465 closure steps a tile for a step's share), issue slots busy, shared-memory wavefronts, L1
# busy, warps active, and why the warps wait. Whether the finish is issue-bound or latency-bound decides the next lever
# for n = 16,000 (issue 29, helper nbskew16's Next (1)). On the lent H100/H200, from the repository root:
#   bash bench/nussinov_chain_finish_ncu.sh [SETTING ...]        # default: 7 (the default) 2 (form 1's step, before nb16warps)
# KERNEL and SKIP pick another launch, matched on the demangled name (template arguments included), e.g. the chain's
# edge products on the same diagonal: KERNEL='tiled_bulk<Int16x2Dup' SKIP=73 bash bench/nussinov_chain_finish_ncu.sh 2
# (2,000's 14 edge launches, d = 2..15, then 16,000's d = 2..60; EDGE_ROWS=1 KERNEL='tiled_bulk_rows<Int16x2Dup' for the
# default now, EDGE_ROWS=0 KERNEL='tiled_bulk<Int16x2Dup' for the form before: issue 29, nbedges). NCU_EXTRA: more ncu
# arguments, e.g. NCU_EXTRA="--section SourceCounters -o edges" (a report with the stalls by SASS instruction).
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src PYTHONUNBUFFERED=1
settings=${*:-7 2}
script=$(mktemp --suffix .py)
cat > "$script" <<'PY'
import os
import sys
import numpy as np
import cupy as cp
from bioaccel.fold import FoldParams, _gpu, _gpu_table, _launch
_launch.SIZES = _launch.SIZES.replace(finish_closure=int(sys.argv[1]), chain="split")
_launch.SIZES = _launch.SIZES.replace(edge_rows=int(os.environ.get("EDGE_ROWS", _launch.SIZES.edge_rows)))
params = FoldParams()
pm = _gpu_table.pair_model(cp, params)
for n in (2000, 16000):      # 2,000 compiles (its 15 finishes skipped below, with the first 60 of 16,000's 124)
    codes = cp.asarray(np.random.default_rng(n).integers(0, 4, n).astype(np.uint8))
    _gpu.fill(codes, n, params, pm, "tiled")
cp.cuda.Device().synchronize()
PY
stalls=""
for s in barrier short_scoreboard long_scoreboard mio_throttle lg_throttle wait not_selected math_pipe_throttle \
         dispatch_stall no_instruction branch_resolving membar; do
  stalls+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
metrics="gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_pipe_alu.sum"
metrics+=",l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_active"
metrics+=",sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread$stalls"
for setting in $settings; do
  echo "### finish_closure $setting"
  ncu --kernel-name-base demangled --kernel-name regex:"${KERNEL:-tiled_finish_sub_tight}" --launch-skip "${SKIP:-75}" \
      --launch-count 1 --metrics "$metrics" ${NCU_EXTRA:-} \
      python3 "$script" "$setting" 2>&1 | grep -v '^==PROF==' | grep -E 'tiled_|duration|cycles|inst_executed|issue_active|wavefronts|throughput|warps_active|stalled|grid_size|registers|ERR'
done
rm -f "$script"
