#!/usr/bin/env bash
# nbedges' device call (issue 29): the split chain's edge products in tiled_edges (SIZES.edge_form 1: the copies a stage
# ahead, 2: the atomics by rows of consecutive cells, 3: both) against tiled_bulk<Int16x2Dup> (0, the default): the GPU
# tests of the forms, then 16,000 and 10,000 with every form, interleaved run by run, the timeline at 16,000, then a
# middle diagonal's edge products (d = 61 at 16,000) under Nsight Compute, old and form 3. From the repository root on
# the lent H200, results under $OUT:  bash bench/nbedges_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 75 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_chain.py -k "edge_forms" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 \
  --settings split,split/edges1,split/edges2,split/edges3,split,split/edges1,split/edges2,split/edges3 --repeats 5 \
  --timeline 16000 --json "$OUT/nussinov_gpu_chain_issue29_nbedges_h200.json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
for form in 0 3; do
  if [ "$form" = 0 ]; then kernel='tiled_bulk<Int16x2Dup'; else kernel='tiled_edges<Int16x2Dup'; fi
  KERNEL="$kernel" EDGE_FORM=$form SKIP=73 timeout 45 bash bench/nussinov_chain_finish_ncu.sh 2 > "$OUT/ncu_edges$form.txt" 2>&1
  echo "## edge_form $form"; grep -E "tiled_|duration|elapsed|inst_executed.sum|issue_active|registers|long_score|barrier|wait_per|ERR" \
    "$OUT/ncu_edges$form.txt" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g' | cut -c1-150
done
