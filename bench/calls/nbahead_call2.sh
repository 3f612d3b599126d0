#!/usr/bin/env bash
# nbahead's second device call (issue 29): the GPU tests of finish_closure 10 and 11 (form 8 as committed after
# finish_closure 12's revert), 11 against 10 at the lengths the default needs (26,000 and 65,000, 6 runs a setting,
# interleaved), then 16,000 again with finish_closure 11 beside 2 and 4 interior blocks an SM (bulk_blocks_per_sm;
# production 3): after call 1 the chain waited longer for the interior products. From the repository root on the
# lent H200, results under $OUT:  bash bench/calls/nbahead_call2.sh
. bench/calls/chain_call_lib.sh
chain_tests 80 12 "split-c10 or split-c11"
timeout 100 python3 bench/nussinov_gpu_chain.py --lengths 26000,65000 \
  --settings split/c10,split/c11,split/c10,split/c11 --repeats 3 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbahead_call2_long_h200.json" > "$OUT/long.txt" 2>&1
grep -v "^wrote" "$OUT/long.txt" | cut -c1-200
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 16000 \
  --settings split/c10,split/c11,split/c11/b2,split/c11/b4 --repeats 5 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbahead_call2_h200.json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
