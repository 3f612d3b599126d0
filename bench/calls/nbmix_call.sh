#!/usr/bin/env bash
# nbmix's device call (issue 29): the tiled fill's products with 8, 12 or 16 of a bulk thread's 32 accumulator words
# updated by two IMAD.IADD (FMA pipe) and one VIMNMX3 (SIZES.bulk_mix, token xN; the edge products' too with edge_mix,
# yN) against production (DPX alone). Limits 45 + 50 + 70 = 165 s (nbmix's cap 260 less 60). Each step's status and
# time in $OUT/steps.txt:
#   1. smoke: 3,000 nt with x16 and x16/y16 beside production, the same table (stops the call where it is not);
#   2. GPU tests: tests/test_fold_gpu_mix.py (128-, 64-, 32-tiles; int16, offset, int32 cells against the CPU);
#   3. n = 16,000, 26,000 and 10,000, the settings interleaved (old and new twice in the list: 10 runs each), digests
#      printed, the timeline at 16,000.
# From the repository root on the lent H200, results under $OUT:  bash bench/calls/nbmix_call.sh
. bench/calls/chain_call_lib.sh
timeout 45 python3 bench/nussinov_gpu_chain.py --lengths 3000 --settings split,split/x16,split/x16/y16 --repeats 1 \
  --json "$OUT/smoke.json" > "$OUT/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; tail -4 "$OUT/smoke.txt"
grep -q "every setting's table the same: True" "$OUT/smoke.txt" || exit 1
timeout 50 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_mix.py -rs > "$OUT/tests.txt" 2>&1
step_done tests $?; tail -3 "$OUT/tests.txt"
mixes=split,split/x8,split/x12,split/x16,split/x16/y16
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000,26000,10000 --settings $mixes,$mixes --repeats 5 \
  --timeline 16000 --json "$OUT/nussinov_gpu_chain_issue29_nbmix_h200.json" > "$OUT/chain.txt" 2>&1
step_done chain $?
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
