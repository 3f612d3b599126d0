#!/usr/bin/env bash
# nbskew's device call (issue 29): the far products ahead (batch_closure 8, finish_closure 2) against the defaults
# (forms 4 and 1), their GPU tests first; from the repository root on the lent H200, results under $OUT:
#   bash bench/calls/nbskew_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 130 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu_batch50.py tests/test_fold_gpu_chain.py \
  -k "c8 or sub64-s64-x1-c4 or c2" 2>&1 | tail -6
timeout 120 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split,split/c2,split,split/c2 --repeats 5 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew_h200.json" > "$OUT/chain.txt" 2>&1
tail -20 "$OUT/chain.txt"
timeout 150 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 --settings x2t:64/c4:gpu,x2t:64/c8:gpu,x2t:64/c4:gpu,x2t:64/c8:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbskew_h200.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -30
