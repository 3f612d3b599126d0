#!/usr/bin/env bash
# Nsight Compute counters of BPMax's products kernel at one query level of Gildemaster 2021's shape
# (23 x 20,000 nt, target window 128), for each products setting given as PARTS:TILE:CHUNK[:BLOCKS[:ROWS[:STAGE]]]
# (PARTS 0: the packed kernel bpmax_products_packed, 64-tiles; else bpmax_products_split / _pairs with PARTS lanes a
# cell, TILE x TILE tiles, CHUNK k2 a stage; BLOCKS: pairs_blocks; ROWS: the tiles' rows instead of TILE; STAGE:
# pairs_stage, issue 29's bpmaxws). On the lent H100/H200, from the repository root:
#   bash bench/bpmax_gpu_ncu_products.sh [LEVEL] [PARTS:TILE:CHUNK ...]   # default: level 12, 0:64:32 4:32:96
# With NCU_OUT=DIR (issue 29, helper bpmaxreg): the sections of the shared-memory question instead of the metric list
# (SpeedOfLight, ComputeWorkloadAnalysis, MemoryWorkloadAnalysis_Tables, WarpStateStats, SchedulerStats, Occupancy,
# InstructionStats; the clocks left alone), each setting's report and raw CSV in DIR, and the lines that answer it
# printed: shared loads and stores, their wavefronts and bank conflicts, the pipes' utilisation, the stall reasons.
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
parts, tile, chunk, *rest = (int(x) for x in sys.argv[1].split(":"))
extra = dict(zip(("pairs_blocks", "split_rows", "pairs_stage"), rest))
sizes = replace(SIZES, products_parts=parts, split_rows=tile, split_cols=tile, split_chunk=chunk)
sizes = replace(sizes, **extra)
window_scores(a, strand_band(a, p.fold_params, 23), [rb], p, sizes=sizes)
PY
source "$(dirname "$0")/bpmax_gpu_ncu_metrics.sh"   # $metrics
kernels='regex:bpmax_products_(packed|split|pairs)'
for setting in $settings; do
  echo "### products $setting (lanes:tile:chunk[:blocks[:rows[:stage]]]), level $level"
  # one products launch a level: skip the earlier levels'
  if [ -n "${NCU_OUT:-}" ]; then
    mkdir -p "$NCU_OUT"; rep="$NCU_OUT/products_${setting//:/_}"
    ncu --kernel-name "$kernels" --launch-skip $(( level - 1 )) --launch-count 1 --clock-control none \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section WarpStateStats --section SchedulerStats --section Occupancy --section InstructionStats \
        -f -o "$rep" python3 "$script" "$setting" 2>&1 | grep -v '^==PROF==' | tail -3
    ncu --import "$rep.ncu-rep" --page raw --csv > "$rep.csv" 2>&1
    python3 - "$rep.csv" <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
names, units, values = rows[0], rows[1], rows[2]
keep = re.compile(r"gpu__time_duration.sum|^smsp__inst_executed.sum$|shared|bank_conflict|pipe_.*pct_of_peak_sustained"
                  r"|issue_stalled_.*per_issue_active|issue_active.avg.pct|warps_active.avg.pct|launch__registers"
                  r"|launch__occupancy_limit|sm__throughput.avg.pct|l1tex__throughput.avg.pct|lts__throughput.avg.pct"
                  r"|dram__throughput.avg.pct|warp_latency_per_inst|lsu|mio")
for n, u, v in zip(names, units, values):
    if keep.search(n) and v not in ("", "0", "0.00"):
        print(f"{n} = {v} {u}")
PY
  else
    ncu --kernel-name "$kernels" --launch-skip $(( level - 1 )) --launch-count 1 \
        --metrics "$metrics" python3 "$script" "$setting" 2>&1 | grep -v '^==PROF==' | \
        grep -E 'bpmax_|duration|inst_executed|issue_active|wavefronts|warps_active|stalled|bytes|sectors|hit_rate|rror'
  fi
done
rm -f "$script"
