#!/usr/bin/env bash
# nbedge's device call (issue 29): the batch traceback's walk by a block's warps side by side (w2, 64-thread blocks:
# two walkers) against the held walk (w1, 128-thread blocks: production), alternating; its GPU tests first. From
# the repository root on the lent H200, results under $OUT:  bash bench/nbedge_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 60 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py -k "tiled_batch_forms and w2" 2>&1 | tail -4
timeout 110 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64:gpu,x2t:64/w2/t64:gpu,x2t:64:gpu,x2t:64/w2/t64:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbedge_h200_batch.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -45
