#!/usr/bin/env bash
# nb5blk's device call (issue 29): batch_fold_x2t with its traceback stack in the row copy (x2t5: 45,440 B of shared
# memory at 200 nt, 47,056 before: a fifth block an SM) against x2t. Steps, each under its own timeout (sum 200 s):
# a smoke (the driver's blocks an SM of both, x2t5's folds of 3,000 random RNAs against x2t's, bit for bit; the call
# stops if it fails), then 1,000,000 x 200, 20,000 x 200 and 2,000 x 1,000 nt with x2t and x2t5 interleaved (and x2t5
# with the 100% carveout last), then the brief's GPU tests on a copy of the tree where x2t5 is the default.
# From the repository root on the lent H200, wheels on /tmp/site, results under $OUT:
#   bash bench/calls/nb5blk_call.sh
. bench/calls/chain_call_lib.sh
timeout 60 python3 bench/nussinov_batch_occupancy.py --check 3000 --json "$OUT/occupancy.json" > "$OUT/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; cat "$OUT/smoke.txt" | tail -8
[ $rc = 0 ] || exit $rc
pair="x2t:64:gpu,x2t5:64:gpu"
timeout 95 python3 bench/nussinov_gpu.py --batch --rows 1000000x200,20000x200,2000x1000 \
  --settings "$pair,$pair,x2t5c:64:gpu" --repeats 3 --budget 0.1 \
  --json "$OUT/nussinov_gpu_issue29_nb5blk_h200.json" > "$OUT/bench.txt" 2>&1
step_done bench $?
grep ": end to end\|batch \|^ *[0-9,]\+ x  *[0-9]\+ " "$OUT/bench.txt" | grep -v '{"count"' | cut -c1-300
batch_tests_with x2t x2t5 45
