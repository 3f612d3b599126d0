#!/usr/bin/env bash
# nbwarp's device call (issue 29): x2t5w (x2t5 with the traceback walked by warp 0 alone: walk_structure_warp, no
# block barrier, 32-lane ballot scans) against x2t5 (the default: walk_structure by the whole 128-thread block).
# Steps, each under its own timeout (sum 240 s, the cap 300 s less 60): a smoke (the driver's blocks an SM of both,
# x2t5w's folds of 3,000 random RNAs against x2t5's, bit for bit; the call stops if it fails or hangs), then
# 1,000,000 x 200, 20,000 x 200 and 2,000 x 1,000 nt with x2t5 and x2t5w interleaved (old, new, old, new; every
# setting's stages: the fold with and without the traceback), then the brief's GPU tests on a copy of the tree where
# x2t5w is the default. From the repository root on the lent H200, wheels on /tmp/site, results under $OUT:
#   bash bench/calls/nbwarp_call.sh
. bench/calls/chain_call_lib.sh
timeout 80 python3 bench/nussinov_batch_occupancy.py --kernels x2t5,x2t5w --check 3000 --json "$OUT/occupancy.json" \
  > "$OUT/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; tail -8 "$OUT/smoke.txt"
[ $rc = 0 ] || exit $rc
pair="x2t5:64:gpu,x2t5w:64:gpu"
timeout 100 python3 bench/nussinov_gpu.py --batch --rows 1000000x200,20000x200,2000x1000 \
  --settings "$pair,$pair" --repeats 3 --budget 0.1 --stages-each \
  --json "$OUT/nussinov_gpu_issue29_nbwarp_h200.json" > "$OUT/bench.txt" 2>&1
step_done bench $?
grep ": end to end\|stages:\|batch \|^ *[0-9,]\+ x  *[0-9]\+ " "$OUT/bench.txt" | grep -v '{"count"' | cut -c1-300
batch_tests_with x2t5 x2t5w 60
