#!/usr/bin/env bash
# nbbatch6's one device call (issue 29): form 4 against form 6 alternating, the GPU tests of form 6, ncu of both.
# From the repository root on the lent H200, results under $OUT.
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 170 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 --settings x2t:64/c4:gpu,x2t:64/c6:gpu,x2t:64/c4:gpu,x2t:64/c6:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbbatch6_h200.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -50
timeout 110 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch50.py -k "c6 or sub64-s64-x1-c4" 2>&1 | tail -4
timeout 70 bash bench/nussinov_batch_finish_ncu.sh 4 6 2>&1 | tee "$OUT/ncu.txt"
