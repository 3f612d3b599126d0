#!/bin/bash
# One device call of issue 29's products work (helper bpmaxw): the BPMax GPU tests, then the old and new
# products forms timed in one process at 23 x 20,000 nt with window 128 and at 23 x 2,000 nt without one.
#   bash bench/bpmax_gpu_device_run.sh OUT [TEST_SECONDS] [SIZES_ONLY] [WIDE_ONLY]
set -o pipefail
OUT=${1:?output folder}; T=${2:-200}; ONLY=${3:-1,6,7,8,9,1}; WONLY=${4:-7,9}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu"
N8=$(python3 -c "import xdist" 2>/dev/null && echo "-n 8")
timeout "$T" python3 -m pytest -q -p no:cacheprovider -m gpu $N8 tests/test_interact_gpu.py \
    tests/test_bpmax_wide_schedule.py tests/test_pairs_gpu_overlap.py 2>&1 | tail -25 | tee "$OUT/tests.log"
python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "$ONLY" --json "$OUT/bpmax_gpu_sizes.json" 2>&1 | tee "$OUT/sizes.log"
python3 bench/bpmax_gpu_sizes.py --wide --targets 2000 --repeats 3 --only "$WONLY" --json "$OUT/bpmax_gpu_wide.json" \
    2>&1 | tee "$OUT/wide.log"
