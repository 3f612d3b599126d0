#!/usr/bin/env bash
# nb16warps' device call (issue 29): finish_closure 6 (two warps a sub-tile, FINISH_WIDE) against the default (2): its
# GPU tests (128-, 64- and 32-tiles; int16, offset, int32 cells against the CPU), then n = 16,000 and 10,000 old/new
# interleaved with the timeline at 16,000, Nsight Compute of a middle diagonal's finish (2 and 6), and 26,000 only if
# 6 is faster at 16,000. From the repository root on the lent H200, results under $OUT:  bash bench/nb16warps_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 100 python3 -m pytest -q -m gpu -n 6 tests/test_fold_gpu_chain.py -k "split-c6 or split-c2" -rs \
  > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"
json="$OUT/nussinov_gpu_chain_issue29_nb16warps_h200.json"
timeout 90 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split,split/c6,split,split/c6 \
  --repeats 5 --timeline 16000 --json "$json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
timeout 100 bash bench/nussinov_chain_finish_ncu.sh 2 6 > "$OUT/ncu_finish.txt" 2>&1
cat "$OUT/ncu_finish.txt" | sed 's/  */ /g' | cut -c1-150
wins=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]['settings']; print(int(r['split/c6']['fill_s'] < r['split']['fill_s']))" "$json")
echo "c6 faster at 16,000: $wins"
if [ "$wins" = 1 ]; then
  timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 26000 --settings split,split/c6,split,split/c6 --repeats 3 \
    --json "$OUT/nussinov_gpu_chain_issue29_nb16warps_26k_h200.json" > "$OUT/chain26k.txt" 2>&1
  grep -v "^wrote" "$OUT/chain26k.txt" | cut -c1-200
fi
