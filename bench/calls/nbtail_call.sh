#!/usr/bin/env bash
# nbtail's device call (issue 29): the tiled batch with batch_bulk_direct's launch at d = 1 (z0, default) against
# without it (z1), alternating; then the GPU tests of z1 and of the diagonal. From the repository root on the lent
# H200, results under $OUT:  bash bench/calls/nbtail_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 120 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64/z0:gpu,x2t:64/z1:gpu,x2t:64/z0:gpu,x2t:64/z1:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbtail_h200_batch.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -45
timeout 100 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu_batch_skip.py tests/test_fold_gpu_batch_diag.py 2>&1 | tail -6
