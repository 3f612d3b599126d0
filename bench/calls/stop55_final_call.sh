#!/usr/bin/env bash
# Stop 55's last device call (issue 29): every GPU test outside the interaction family (GROUP=2: fold, Turner,
# ensemble, scan, motif), then the session's rows old against new in one process each: the batch of 2,000 x 1,000 nt
# (walk 5 and the status read into pageable memory, the defaults before; walk 6 with pinned status reads now), and
# one sequence's fill at 16,000 and 65,000 nt (the closure before, c2, and cell-by-cell REDs, e0/r0, against
# production). From the repository root on the lent H200, wheels installed on /tmp/site, results under $OUT:
#   bash bench/calls/stop55_final_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
GROUP=2 timeout 380 bash bench/gpu_smoke.sh -n 12 > "$OUT/group2.txt" 2>&1
tail -3 "$OUT/group2.txt"; grep -E "^(FAILED|ERROR)" "$OUT/group2.txt" | head -20
timeout 50 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64/w5/r0:gpu,x2t:64:gpu,x2t:64/r0:gpu,x2t:64/w5/r0:gpu,x2t:64:gpu,x2t:64/r0:gpu \
  --repeats 5 --budget 1 --phases --json "$OUT/batch.json" > "$OUT/batch.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/batch.txt" | cut -c1-400
timeout 40 python3 bench/nussinov_gpu_chain.py --lengths 16000 --settings split/c2/e0/r0,split,split/c2/e0/r0,split \
  --repeats 5 --json "$OUT/chain16k.json" > "$OUT/chain16k.txt" 2>&1; tail -6 "$OUT/chain16k.txt"
timeout 35 python3 bench/nussinov_gpu_chain.py --lengths 65000 --settings split/c2/e0/r0,split \
  --repeats 1 --json "$OUT/chain_long.json" > "$OUT/chain_long.txt" 2>&1; tail -6 "$OUT/chain_long.txt"
