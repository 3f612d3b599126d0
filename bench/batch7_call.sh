#!/usr/bin/env bash
# The lead's first device call of stop 56 (issue 29): the tiled batch's closure form 7 (batch_closure 7: form 4's 31
# closure steps unrolled, nbunroll's closure_steps_unrolled) against form 4, the default: their GPU tests (32-, 64- and
# 128-tiles, the sub-tiled diagonal too, against the CPU), then 2,000 x 1,000 nt interleaved with each kernel's time;
# then one sequence at 26,000 and 65,000 nt with finish_closure 10 against 7 (nbunroll's Next 1). From the repository
# root on the lent H200, wheels on /tmp/site, results under $OUT:  bash bench/batch7_call.sh
. bench/chain_call_lib.sh
timeout 150 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch50.py tests/test_fold_gpu_batch_diag.py \
  -k "c7" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
timeout 60 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64:gpu,x2t:64/c7:gpu,x2t:64:gpu,x2t:64/c7:gpu,x2t:64:gpu,x2t:64/c7:gpu \
  --repeats 5 --budget 1 --phases --json "$OUT/batch.json" > "$OUT/batch.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/batch.txt" | cut -c1-400
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 26000,65000 --settings split,split/c10 \
  --repeats 1 --json "$OUT/chain_long.json" > "$OUT/chain_long.txt" 2>&1; tail -8 "$OUT/chain_long.txt"
