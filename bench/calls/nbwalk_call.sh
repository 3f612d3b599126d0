#!/usr/bin/env bash
# nbwalk's device call (issue 29): the batch traceback stepping inside a window of V staged in shared memory (w5)
# against the held walk (w3), alternating in one call (as run at commit 5e1d314, where w3 was the default and the first
# setting read x2t:64:gpu; w5 is the default since), after the GPU tests of walks 3 and 5 and the
# batch-skip tests (one pytest; its summary printed last), then the blocks' probe (bench/nussinov_walk_probe.py).
# Timeouts sized to the helper's device cap. From the repository root on the lent H200, results under $OUT:
#   bash bench/calls/nbwalk_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 60 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py tests/test_fold_gpu_batch_skip.py \
  -k "(tiled_batch_forms and (w3 or w5)) or batch_skip" > "$OUT/tests.txt" 2>&1
timeout 50 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings x2t:64/w3:gpu,x2t:64/w5:gpu,x2t:64/w3:gpu,x2t:64/w5:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbwalk_h200.json" > "$OUT/bench.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/bench.txt" | cut -c1-600
timeout 25 python3 bench/nussinov_walk_probe.py --json "$OUT/nussinov_walk_probe_nbwalk_h200.json" > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt" | tail -8
grep -i "passed\|failed\|error" "$OUT/tests.txt" | tail -6
