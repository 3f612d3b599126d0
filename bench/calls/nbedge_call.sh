#!/usr/bin/env bash
# nbedge's device calls (issue 29): the batch traceback's walks, old against new in one call. As run: call 1 (commit
# 2722c20) w1 against w2/t64 (a block's warps side by side), call 2 (commit e695f17)
# w1 against w3 (scans only at the m where (i, m-1) may pair) and w4/t64 (w2 doing so); w2 and w4 were slower and
# are gone, so the script now times w1 against w3 (the default) alternating, after the GPU tests of walk 3 (their
# summary printed last). From the repository root on the lent H200, results under $OUT:  bash bench/calls/nbedge_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 40 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py -k "tiled_batch_forms and w3" > "$OUT/tests.txt" 2>&1
timeout 55 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64/w1:gpu,x2t:64/w3:gpu,x2t:64/w1:gpu,x2t:64/w3:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbedge_h200.json" > "$OUT/bench.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/bench.txt" | cut -c1-600
tail -4 "$OUT/tests.txt"
