#!/usr/bin/env bash
# nbunroll's device call (issue 29): finish_closure 10 (form 7: form 4's 31 closure steps unrolled, compile-time mask
# bits, shuffle distances and addresses) against the default 7: their GPU tests (128-, 64-, 32-tiles; int16, offset,
# int32 cells against the CPU), then n = 16,000 and 10,000 interleaved (10 runs a setting) with the timeline at 16,000,
# and the SASS of both kernels where nvcc and cuobjdump are there. From the repository root on the lent H200, results
# under $OUT:  bash bench/calls/nbunroll_call.sh
. bench/calls/chain_call_lib.sh
chain_tests 70 12 "split-c7 or split-c10"
json="$OUT/nussinov_gpu_chain_issue29_nbunroll_h200.json"
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split,split/c10,split,split/c10 \
  --repeats 5 --timeline 16000 --json "$json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
sass_counts 20 23
