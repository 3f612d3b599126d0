#!/usr/bin/env bash
# Nsight Compute counters of BPMax's two kernels (packed products, packed finish) at one query level of
# Gildemaster 2021's shape (23 x 20,000 nt, target window 128), for each finish setting given
# (G:SPLIT[:FORM] = diagonals a row closes at a time : threads per row : finish_form, 4 unless given; forms 5 and up
# run bpmax_finish_roles, SPLIT unused). On the lent H100/H200, from the repository root:
#   bash bench/bpmax_gpu_ncu.sh [LEVEL] [G:SPLIT[:FORM] ...]   # default: level 12, 8:2 4:1
#   bash bench/bpmax_gpu_ncu.sh 12 8:1:7 8:1:8                 # issue 29 (bpmaxfin3): forms 7 and 8's shared loads
#                                                              (form 8 at commit 02d4ce7, reverted; forms 8 and 10
#                                                              at 901beed, bpmaxfin4: docs/results/bpmax_fin4_call1)
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/bench PYTHONUNBUFFERED=1
level=${1:-12}; shift || true
settings=${*:-8:2 4:1}
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
sizes = replace(SIZES, finish_diagonals=int(sys.argv[1]), finish_split=int(sys.argv[2]),
                finish_form=int(sys.argv[3]))   # 4: bpmaxst's form
window_scores(a, strand_band(a, p.fold_params, 23), [rb], p, sizes=sizes)
PY
source "$(dirname "$0")/bpmax_gpu_ncu_metrics.sh"   # $metrics
keys='bpmax_|duration|inst_executed|issue_active|wavefronts|bank_conflicts|warps_active|stalled|bytes|sectors|hit_rate'
for setting in $settings; do
  IFS=: read -r G split form <<< "$setting"; form=${form:-4}
  echo "### finish $G diagonals at a time, $split threads a row, form $form, level $level"
  # launches of the two kernels alternate level by level: skip the earlier levels' two each
  ncu --kernel-name regex:'bpmax_(products_(packed|split|pairs)|finish_(packed|roles))' \
      --launch-skip $(( 2 * (level - 1) )) --launch-count 2 \
      --metrics "$metrics" python3 "$script" "$G" "$split" "$form" 2>&1 | grep -v '^==PROF==' | \
      grep -E "$keys"
done
rm -f "$script"
