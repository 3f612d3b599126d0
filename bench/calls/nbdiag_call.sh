#!/usr/bin/env bash
# nbdiag's device calls (issue 29): the diagonal's tiles by batch_finish_diag (d1, the default before) against
# batch_finish_sub_diag (d2), each on one and two streams (x2), alternating; then the GPU tests of d2 and of the
# tiled batch's forms, and the diagonal tiles of d1 and d2 compared cell by cell (bench/nbdiag_check.py). From the
# repository root on the lent H200, results under $OUT:  bash bench/calls/nbdiag_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64/d1:gpu,x2t:64/d2:gpu,x2t:64/d1/x2:gpu,x2t:64/d2/x2:gpu,x2t:64/d1:gpu,x2t:64/d2:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbdiag_h200_batch.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -60
timeout 100 python3 bench/nbdiag_check.py 2>&1 | tail -30
timeout 240 python3 -m pytest -q -m gpu -n 14 tests/test_fold_gpu_batch_diag.py tests/test_fold_gpu_batch50.py \
  tests/test_fold_gpu.py -k "sub_diagonal or slim_closures or tiled_batch_forms" 2>&1 | tail -8
