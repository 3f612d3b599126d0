#!/usr/bin/env bash
# nb16warps' second device call (issue 29): finish_closure 7 and 8 (the batches' slimmer closure steps, forms 4 and 5,
# in the single sequence's finish with the far products ahead) against the default (2): their GPU tests (128-, 64-,
# 32-tiles; int16, offset, int32 cells against the CPU), n = 16,000 and 10,000 interleaved with the timeline at 16,000,
# Nsight Compute of a middle diagonal's finish (2, 7, 8), and 26,000 if 7 or 8 is faster at 16,000. From the
# repository root on the lent H200 (commit 0601001 or later), results under $OUT:  bash bench/calls/nb16warps_call2.sh
. bench/calls/chain_call_lib.sh
chain_tests 100 9 "split-c7 or split-c8 or split-c2"
json="$OUT/nussinov_gpu_chain_issue29_nb16warps_call2_h200.json"
s=split,split/c7,split/c8
timeout 90 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings $s,$s --repeats 5 --timeline 16000 \
  --json "$json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
timeout 100 bash bench/nussinov_chain_finish_ncu.sh 2 7 8 > "$OUT/ncu_finish.txt" 2>&1
sed 's/  */ /g' "$OUT/ncu_finish.txt" | grep -v "branch_resolving\|dispatch\|lg_throttle\|membar\|no_instruction" | cut -c1-150
wins=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]['settings']; print(int(min(r['split/c7']['fill_s'], r['split/c8']['fill_s']) < r['split']['fill_s']))" "$json")
echo "7 or 8 faster at 16,000: $wins"
if [ "$wins" = 1 ]; then
  timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 26000 --settings $s,$s --repeats 3 \
    --json "$OUT/nussinov_gpu_chain_issue29_nb16warps_call2_26k_h200.json" > "$OUT/chain26k.txt" 2>&1
  grep -v "^wrote" "$OUT/chain26k.txt" | cut -c1-200
fi
