#!/usr/bin/env bash
# The lead's last device call of stop 56 (issue 29): the tiled batch's closure form 8 (batch_closure 11: form 7 with
# each line loaded a step ahead, nbahead's finish_closure 11 step) against form 7, the default: its GPU tests (32-, 64-
# and 128-tiles, the sub-tiled diagonal too, against the CPU), then 2,000 x 1,000 nt interleaved with each kernel's
# time. From the repository root on the lent H200, wheels on /tmp/site, results under $OUT:  bash bench/batch11_call.sh
. bench/chain_call_lib.sh
timeout 120 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch50.py tests/test_fold_gpu_batch_diag.py \
  -k "c11" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
timeout 60 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64:gpu,x2t:64/c11:gpu,x2t:64:gpu,x2t:64/c11:gpu,x2t:64:gpu,x2t:64/c11:gpu \
  --repeats 5 --budget 1 --phases --json "$OUT/batch.json" > "$OUT/batch.txt" 2>&1
grep "phases:\|: end to end" "$OUT/batch.txt" | sed 's/, batch_unscored.*//' | cut -c1-300
