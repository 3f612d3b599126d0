#!/usr/bin/env bash
# Nsight Compute counters of BPMax's products kernel at one query level of Gildemaster 2021's shape
# (23 x 20,000 nt, target window 128), for each products setting given as PARTS:TILE:CHUNK (PARTS 0: the
# packed kernel bpmax_products_packed, 64-tiles; else bpmax_products_split with PARTS lanes a cell, TILE x
# TILE tiles, CHUNK k2 a stage). On the lent H100/H200, from the repository root:
#   bash bench/bpmax_gpu_ncu_products.sh [LEVEL] [PARTS:TILE:CHUNK ...]   # default: level 12, 0:64:32 4:32:96
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/bench PYTHONUNBUFFERED=1
level=${1:-12}; shift || true
settings=${*:-0:64:32 4:32:96}
script=$(mktemp --suffix .py)
cat > "$script" <<'PY'
import random, sys
from dataclasses import replace
from bpmax_gpu import random_codes
from bioaccel.interact import InteractParams
from bioaccel.interact._gpu import window_scores
from bioaccel.interact._gpu_launch import SIZES
from bioaccel.interact._strands import strand_band
p = InteractParams(window_target=128)
r = random.Random(5)
a, rb = random_codes(r, 23), random_codes(r, 20000)
parts, tile, chunk = (int(x) for x in sys.argv[1].split(":"))
sizes = replace(SIZES, products_parts=parts, split_rows=tile, split_cols=tile, split_chunk=chunk)
window_scores(a, strand_band(a, p.fold_params, 23), [rb], p, sizes=sizes)
PY
source "$(dirname "$0")/bpmax_gpu_ncu_metrics.sh"   # $metrics
for setting in $settings; do
  echo "### products $setting (lanes:tile:chunk), level $level"
  # one products launch a level: skip the earlier levels'
  ncu --kernel-name regex:'bpmax_products_(packed|split)' --launch-skip $(( level - 1 )) --launch-count 1 \
      --metrics "$metrics" python3 "$script" "$setting" 2>&1 | grep -v '^==PROF==' | \
      grep -E 'bpmax_|duration|inst_executed|issue_active|wavefronts|warps_active|stalled|bytes|sectors|hit_rate|rror'
done
rm -f "$script"
