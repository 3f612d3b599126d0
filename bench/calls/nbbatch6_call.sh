#!/usr/bin/env bash
# nbbatch6's device calls (issue 29): form 4 against form FORM alternating, its GPU tests, ncu of both. From the
# repository root on the lent H200, results under $OUT:  FORM=N bash bench/calls/nbbatch6_call.sh
# (forms 6 and 7, measured and reverted, are in commits 6a05131 and 26bda7e: docs/gpu-notes.md, nbbatch6)
: "${FORM:?set FORM, the batch_finish_sub_tight form to time against form 4}"
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 170 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 --settings x2t:64/c4:gpu,x2t:64/c${FORM}:gpu,x2t:64/c4:gpu,x2t:64/c${FORM}:gpu \
  --repeats 3 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbbatch6_c${FORM}_h200.json" > "$OUT/bench.txt" 2>&1
grep -v "^ .*ncalls\|{built-in\|{method\|\.py:[0-9]*(" "$OUT/bench.txt" | tail -50
timeout 110 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch50.py -k "c${FORM}" 2>&1 | tail -4
timeout 70 bash bench/nussinov_batch_finish_ncu.sh 4 ${FORM} 2>&1 | tee "$OUT/ncu.txt"
