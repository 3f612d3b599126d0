#!/usr/bin/env bash
# nbedges' device call (issue 29): the split chain's edge products in tiled_edges (SIZES.edge_form bits: 1 the copies a
# stage ahead, 2 the atomics by rows of consecutive cells, 4 the tile-diagonal-1 operand kept in L2) against
# tiled_bulk<Int16x2Dup> (0, the default): the GPU tests of the forms, then 16,000 and 10,000 with forms 0, 1, 2, 3, 7,
# interleaved run by run, the timeline at 16,000, then a middle diagonal's edge products (d = 61 at 16,000) under
# Nsight Compute, forms 0, 1 and 3, and form 0's stalls by SASS instruction. From the repository root on the lent H200,
# results under $OUT:  bash bench/calls/nbedges_call.sh   (as run, on commit 5e27e85: tiled_edges and edge_form are gone since
# d27841a, form 2 kept as tiled_bulk_rows, SIZES.edge_rows; bench/calls/nbedges_call2.sh is the call on the code kept)
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 75 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_chain.py -k "edge_forms" -rs > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"
settings=split,split/edges1,split/edges2,split/edges3,split/edges7
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings $settings,$settings --repeats 5 \
  --timeline 16000 --json "$OUT/nussinov_gpu_chain_issue29_nbedges_h200.json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
for form in 0 1 3; do
  if [ "$form" = 0 ]; then kernel='tiled_bulk<Int16x2Dup'; else kernel='tiled_edges<Int16x2Dup'; fi
  echo "## edge_form $form" >> "$OUT/ncu_edges.txt"
  KERNEL="$kernel" EDGE_FORM=$form SKIP=73 timeout 40 bash bench/nussinov_chain_finish_ncu.sh 2 >> "$OUT/ncu_edges.txt" 2>&1
done
grep -E "^## |tiled_|duration|elapsed|inst_executed.sum|issue_active|registers|long_score|barrier|wait_per|ERR" \
  "$OUT/ncu_edges.txt" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//; s/ +/ /g' | cut -c1-150
KERNEL='tiled_bulk<Int16x2Dup' SKIP=73 NCU_EXTRA="--section SourceCounters -f -o $OUT/edges0" timeout 40 \
  bash bench/nussinov_chain_finish_ncu.sh 2 > /dev/null 2>&1
timeout 20 ncu -i "$OUT/edges0.ncu-rep" --page source --csv --print-source sass > "$OUT/edges0_sass.csv" 2>&1
python3 - "$OUT/edges0_sass.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if any("Sampling" in c for c in r)), None)
if head is None:
    sys.exit(print("no stall samples in the source page:", rows[:3]))
cols = rows[head]
at = next(i for i, c in enumerate(cols) if "Sampling (All" in c)
src = next((i for i, c in enumerate(cols) if c == "Source"), 1)
body = [r for r in rows[head + 1:] if len(r) > at and r[at].replace(",", "").isdigit()]
total = sum(int(r[at].replace(",", "")) for r in body) or 1
print(f"stall samples {total}; the instructions with most:")
for r in sorted(body, key=lambda r: -int(r[at].replace(",", "")))[:16]:
    print(f"{int(r[at].replace(',', '')) / total:6.1%}  {r[src][:90]}")
PY
