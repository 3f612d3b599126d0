#!/usr/bin/env bash
# nbskew16's device call (issue 29): skew16 (finish_closure 3; 4 with SKEW_PRELOAD) against the default (2): its GPU tests, then n = 16,000
# old/new/old/new, then 10,000 and 26,000; from the repository root on the lent H200, results under $OUT:
#   bash bench/calls/nbskew16_call.sh   (on commit f164187 or later up to 573ce6e: finish_closure 3-5 were reverted after)
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 120 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu_skew.py -rs > "$OUT/tests.txt" 2>&1
tail -8 "$OUT/tests.txt"
timeout 80 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split,split/c3,split/c4,split,split/c3,split/c4 --repeats 5 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew16_h200.json" > "$OUT/chain.txt" 2>&1
tail -18 "$OUT/chain.txt"
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 10000,26000 --settings split,split/c3,split/c4 --repeats 3 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew16_more_h200.json" > "$OUT/chain_more.txt" 2>&1
tail -10 "$OUT/chain_more.txt"
