#!/usr/bin/env bash
# Stop 60's last device calls (issue 29): every GPU test of every family after the stop's last GPU change (x2t5w the
# batch fold's default), in two calls as bench/gpu_smoke.sh splits them, the second also timing the rows the stop
# touched or quotes: 1,000,000 x 200 nt through nussinov_batch (x2t5w, the default) and BPMax 23 x 20,000 nt, window
# 128 (bench/bpmax_gpu_sizes.py's row 55, the default). From the repository root on the lent H200, wheels on
# /tmp/site, results under $OUT:
#   PART=1 bash bench/calls/stop60_final_call.sh    # GROUP=1: the interaction family
#   PART=2 bash bench/calls/stop60_final_call.sh    # GROUP=2: every other family, then the rows
. bench/calls/chain_call_lib.sh
if [ "${PART:-1}" = 1 ]; then
  GROUP=1 timeout 500 bash bench/gpu_smoke.sh -n 6 > "$OUT/group1.txt" 2>&1
  step_done group1 $?
  tail -3 "$OUT/group1.txt"; grep -E "^(FAILED|ERROR)" "$OUT/group1.txt" | head -20
else
  GROUP=2 timeout 440 bash bench/gpu_smoke.sh -n 12 > "$OUT/group2.txt" 2>&1
  step_done group2 $?
  tail -3 "$OUT/group2.txt"; grep -E "^(FAILED|ERROR)" "$OUT/group2.txt" | head -20
  timeout 60 python3 bench/nussinov_gpu.py --batch --rows 1000000x200 --settings x2t5w:64:gpu,x2t5w:64:gpu \
    --repeats 3 --budget 0.1 --json "$OUT/million.json" > "$OUT/million.txt" 2>&1
  step_done million $?
  grep ": end to end\|batch \|^ *[0-9,]\+ x  *[0-9]\+ " "$OUT/million.txt" | grep -v '{"count"' | cut -c1-300
  timeout 40 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only 55,55 --json "$OUT/bpmax.json" > "$OUT/bpmax.txt" 2>&1
  step_done bpmax $?
  tail -6 "$OUT/bpmax.txt"
fi
