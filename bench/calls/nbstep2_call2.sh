#!/usr/bin/env bash
# nbstep2's second device call (issue 29): finish_closure 15 (form 12: form 8 with a lane outside its sub-tile reading
# the line of a lane inside, ~half of each LDS.128's wavefronts gone; 33.4 SASS a step) against the default 11, after
# call 1 found 13 and 14 (fewer instructions, more loads) slower. Limits 11 + 3 + 9 = 23 s (the cap's ~99 s left, less
# a fresh machine's start and idle, ~62 s). Each step's status and time in $OUT/steps.txt:
#   1. smoke: 3,000 nt with each form, the same table (and the tile-128 kernels compiled for the rest);
#   2. bench/closure_latency.py again, its ALU chains wholly unrolled (call 1's had a loop's branch every 16);
#   3. n = 16,000 and 10,000, the two settings interleaved (10 runs each), the timeline at 16,000.
# No GPU tests of c15 here (no time left for them under the cap): split-c15 in tests/test_fold_gpu_chain.py.
# Its forms were reverted (docs/gpu-notes.md, nbstep2): run it from f744d70. From the repository root on the lent
# H200, results under $OUT:  bash bench/calls/nbstep2_call2.sh
. bench/calls/chain_call_lib.sh
timeout 11 python3 bench/nussinov_gpu_chain.py --lengths 3000 --settings split,split/c15 --repeats 1 \
  --json "$OUT/smoke.json" > "$OUT/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; tail -2 "$OUT/smoke.txt"
grep -q "every setting's table the same: True" "$OUT/smoke.txt" || exit 1
timeout 3 python3 bench/closure_latency.py --json "$OUT/closure_latency_nbstep2_call2_h200.json" > "$OUT/latency.txt" 2>&1
step_done latency $?; cat "$OUT/latency.txt"
json="$OUT/nussinov_gpu_chain_issue29_nbstep2_call2_h200.json"
timeout 9 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split,split/c15,split,split/c15 \
  --repeats 5 --timeline 16000 --json "$json" > "$OUT/chain.txt" 2>&1
step_done chain $?
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
