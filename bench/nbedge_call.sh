#!/usr/bin/env bash
# nbedge's device calls (issue 29): the batch traceback's walks. Call 1: the walk by a block's warps side by side
# (w2, 64-thread blocks: two walkers) against the held walk (w1, 128-thread blocks: production), alternating.
# Call 2 (this script now): w1 against the held walk scanning only the m where (i, m-1) may pair (w3) and the warps'
# walk doing so (w4/t64), alternating; the GPU tests of walks 2-4 first (their summary printed last). From the
# repository root on the lent H200, results under $OUT:  bash bench/nbedge_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 40 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py -k "tiled_batch_forms and (w2 or w3 or w4)" \
  > "$OUT/tests.txt" 2>&1
timeout 55 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64:gpu,x2t:64/w3:gpu,x2t:64/w4/t64:gpu,x2t:64:gpu,x2t:64/w3:gpu,x2t:64/w4/t64:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbedge_call2_h200.json" > "$OUT/bench.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/bench.txt" | cut -c1-600
tail -4 "$OUT/tests.txt"
