#!/usr/bin/env bash
# nbahead's device call (issue 29): finish_closure 11 and 12 (forms 8, 9: form 7's unrolled closure with each line
# loaded 1 or 2 steps ahead, the newest cells' splits from registers) against 10 (form 7): their GPU tests (128-, 64-,
# 32-tiles; int16, offset, int32 cells against the CPU), then n = 16,000 and 10,000 interleaved (10 runs a setting)
# with the timeline at 16,000, and the SASS counts of the three kernels. From the repository root on the lent H200,
# results under $OUT:  bash bench/calls/nbahead_call.sh
. bench/calls/chain_call_lib.sh
chain_tests 90 12 "split-c10 or split-c11 or split-c12"
json="$OUT/nussinov_gpu_chain_issue29_nbahead_h200.json"
timeout 90 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 \
  --settings split/c10,split/c11,split/c12,split/c10,split/c11,split/c12 --repeats 5 --timeline 16000 \
  --json "$json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
sass_counts 23 24 25
