#!/usr/bin/env bash
# One device call (issue 29, stop 56): the tiled batch's closure form NEW (a batch_closure setting) against OLD: the GPU
# tests of NEW (32-, 64- and 128-tiles, the sub-tiled diagonal too, against the CPU), then 2,000 x 1,000 nt, three pairs
# interleaved with each kernel's time; LONG=1 adds one sequence at 26,000 and 65,000 nt, finish_closure 10 against 7.
# From the repository root on the lent H200, wheels on /tmp/site, results under $OUT:
#   LONG=1 bash bench/calls/batch_closure_call.sh 4 7     # stop 56's first call (form 7, the unrolled steps, against 4)
#   bash bench/calls/batch_closure_call.sh 7 11           # its last (form 8, lines a step ahead, against 7)
. bench/calls/chain_call_lib.sh
old=$1 new=$2
timeout 150 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch50.py tests/test_fold_gpu_batch_diag.py \
  -k "c$new" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
pair="x2t:64/c$old:gpu,x2t:64/c$new:gpu"
timeout 60 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 --settings "$pair,$pair,$pair" \
  --repeats 5 --budget 1 --phases --json "$OUT/batch.json" > "$OUT/batch.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/batch.txt" | cut -c1-400
if [ "${LONG:-0}" = 1 ]; then
  timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 26000,65000 --settings split/c7,split/c10 \
    --repeats 1 --json "$OUT/chain_long.json" > "$OUT/chain_long.txt" 2>&1; tail -8 "$OUT/chain_long.txt"
fi
