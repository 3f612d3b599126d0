#!/usr/bin/env bash
# nbskew's second device call (issue 29): the GPU tests of batch_closure 8 and finish_closure 2 (their output kept),
# then the n = 16,000 chain's timeline, the default against finish_closure 2.   bash bench/calls/nbskew_call2.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu_batch50.py tests/test_fold_gpu_chain.py \
  -k "c8 or sub64-s64-x1-c4 or c2" -rs > "$OUT/tests.txt" 2>&1
tail -8 "$OUT/tests.txt"
timeout 100 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split,split/c2 --repeats 3 --timeline 16000 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew_timeline_h200.json" > "$OUT/chain_timeline.txt" 2>&1
tail -30 "$OUT/chain_timeline.txt"
