#!/usr/bin/env bash
# nbskew16's second device call (issue 29): skew16 with the held value and the pair term loaded beside the lines (no
# divergent branch a step) and, with SKEW_PRELOAD (c4), the phase's 16 steps unrolled; c5: c4 with SKEW_FLAGS (no
# block barrier): GPU tests, then n = 16,000 c2 (the default) / c3 / c4 / c5 twice, 10,000 and 26,000, 16,000's timeline.
#   bash bench/calls/nbskew16_call2.sh   (on commit 1a991ac .. 573ce6e: finish_closure 3-5 were reverted after)
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 90 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu_skew.py -rs > "$OUT/tests.txt" 2>&1
tail -4 "$OUT/tests.txt"
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split,split/c3,split/c4,split/c5,split,split/c3,split/c4,split/c5 \
  --repeats 5 --json "$OUT/nussinov_gpu_chain_issue29_nbskew16_call2_h200.json" > "$OUT/chain.txt" 2>&1
tail -4 "$OUT/chain.txt"
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 10000,26000 --settings split,split/c4,split/c5 --repeats 3 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew16_call2_more_h200.json" > "$OUT/chain_more.txt" 2>&1
tail -3 "$OUT/chain_more.txt"
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split,split/c4,split/c5 --repeats 2 --timeline 16000 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew16_timeline_h200.json" > "$OUT/chain_timeline.txt" 2>&1
tail -25 "$OUT/chain_timeline.txt"
