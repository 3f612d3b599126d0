#!/usr/bin/env bash
# turnerrows' device call (issue 29 item 2): the Turner tiled fill's products with their minima by rows
# (turner_bulk_rows, TiledSizes.rows 1) against cell by cell (rows 0, the default before): the tiled GPU tests in both
# forms, then bench/turner.py --gpu-long on the SARS-CoV-2 genome's first 16,000 nt, old and new interleaved (each
# form twice, 3 fills each, tables compared with the default's). From the repository root on the lent H200, results
# under $OUT:  bash bench/calls/turnerrows_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests:$PWD/bench PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
start=$(date +%s)
timeout 45 python3 -m pytest -q -m gpu -n 16 tests/test_turner_gpu.py -k tiled -rs -p no:cacheprovider \
  > "$OUT/turnerrows_tests_h200.txt" 2>&1
tail -4 "$OUT/turnerrows_tests_h200.txt"; echo "tests: $(( $(date +%s) - start )) s"
python3 - <<'PY'
import sys
sys.path.insert(0, "bench")
from _turner_long import read_fasta
with open("/tmp/sars16k.fa", "w") as out:
    out.write(">MN908947.3 1-16000\n" + read_fasta("examples/sars-cov-2.fasta")[:16000] + "\n")
PY
timeout 40 python3 bench/turner.py --gpu-long --genome /tmp/sars16k.fa --cpu-length 0 --repeats 3 \
  --alternatives "rows=1;rows=0;rows=1;rows=0" --json "$OUT/turner_gpu_long_issue29_turnerrows_16k_h200.json" \
  > "$OUT/turnerrows_bench_16k_h200.txt" 2>&1
cat "$OUT/turnerrows_bench_16k_h200.txt"; echo "all: $(( $(date +%s) - start )) s"
