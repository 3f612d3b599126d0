#!/usr/bin/env bash
# nbskew's third device call (issue 29): finish_closure 2 as the default: the single sequence's GPU tests with the
# default sizes, then 10,000 and 26,000 (and 16,000 again) with the closure before (c1) and now.   bash bench/calls/nbskew_call3.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py -k "every_cell_equals_cpu or long_sequences or \
offset_encoding or split_k or structures_identical" -rs > "$OUT/tests.txt" 2>&1
tail -6 "$OUT/tests.txt"
timeout 150 python3 bench/nussinov_gpu_chain.py --lengths 10000,16000,26000 --settings split/c1,split --repeats 3 \
  --json "$OUT/nussinov_gpu_chain_issue29_nbskew_default_h200.json" > "$OUT/chain.txt" 2>&1
tail -12 "$OUT/chain.txt"
