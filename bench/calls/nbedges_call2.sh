#!/usr/bin/env bash
# nbedges' second device call (issue 29): tiled_bulk_rows (the products' atomics by rows of consecutive cells) as the
# split chain's edge products (SIZES.edge_rows 1, the default now; token e1) against tiled_bulk (e0, before), and for
# the interior products too (bulk_rows 1, token r1): the GPU tests, then 16,000, 10,000 and 26,000 interleaved run by
# run, the timeline at 16,000. From the repository root on the lent H200, results under $OUT:  bash bench/calls/nbedges_call2.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 80 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_chain.py tests/test_fold_gpu.py \
  -k "rows_forms or split-c2 or split_k_and_interior" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"
settings=split/e0,split,split/r1
timeout 50 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings $settings,$settings --repeats 5 \
  --timeline 16000 --json "$OUT/nussinov_gpu_chain_issue29_nbedges_call2_h200.json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | grep -v "^   tail\|^   head" | cut -c1-180
timeout 50 python3 bench/nussinov_gpu_chain.py --lengths 26000 --settings $settings,$settings --repeats 3 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbedges_call2_26k_h200.json" > "$OUT/chain26k.txt" 2>&1
grep -v "^wrote" "$OUT/chain26k.txt" | cut -c1-180
