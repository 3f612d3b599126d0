#!/usr/bin/env bash
# nbstep2's device call (issue 29): finish_closure 13 and 14 (forms 10, 11: form 8's step with the pair term
# unpredicated, 27.0 SASS a step against 31.0; 14 with B(q - 1, q) from a table) against the default 11 (form 8).
# Limits 40 + 45 + 15 + 40 = 140 s (nbstep2's cap 200 less 60). Each step's status and time in $OUT/steps.txt:
#   1. smoke: 3,000 nt with each form, the same table (and the tile-128 kernels compiled for step 4);
#   2. GPU tests of c11, c13, c14 (128-, 64-, 32-tiles; int16, offset, int32 cells against the CPU);
#   3. bench/closure_latency.py: the closure's instructions' latencies (one warp, clock64) for the model;
#   4. n = 16,000 and 10,000, the three settings interleaved (10 runs each), the timeline at 16,000.
# Its forms were reverted (docs/gpu-notes.md, nbstep2): run it from f744d70. From the repository root on the lent
# H200, results under $OUT:  bash bench/calls/nbstep2_call.sh
. bench/calls/chain_call_lib.sh
timeout 40 python3 bench/nussinov_gpu_chain.py --lengths 3000 --settings split,split/c13,split/c14 --repeats 1 \
  > "$OUT/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; tail -2 "$OUT/smoke.txt"
grep -q "every setting's table the same: True" "$OUT/smoke.txt" || exit 1
chain_tests 45 12 "split-c11 or split-c13 or split-c14"
step_done tests $?
timeout 15 python3 bench/closure_latency.py --json "$OUT/closure_latency_nbstep2_h200.json" > "$OUT/latency.txt" 2>&1
step_done latency $?; cat "$OUT/latency.txt"
json="$OUT/nussinov_gpu_chain_issue29_nbstep2_h200.json"
timeout 40 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 \
  --settings split,split/c13,split/c14,split,split/c13,split/c14 --repeats 5 --timeline 16000 \
  --json "$json" > "$OUT/chain.txt" 2>&1
step_done chain $?
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
