#!/usr/bin/env bash
# nbhost2's device calls (issue 29): the batch of 2,000 x 1,000 nt with a kept plan's upload kept on the device (h1,
# the default) against made again by each fold before the first launch (h0, main's host path), alternating in one
# process, after the GPU tests; then the traceback's walk split by kind (bench/nussinov_walk_probe.py). CALL=1: the
# host path's GPU tests only; CALL=2: every batch test of the brief; CALL=0: none (the second call, within the
# helper's device cap: the bench's digest checks walk 6 on the 2,000 structures), SETTINGS main's path (h0, walk 5)
# against the new one (h1, walk 6). From the repository root on the lent H200, results under $OUT:
#   CALL=1 bash bench/calls/nbhost2_call.sh
#   CALL=0 PROBE=0 SETTINGS=x2t:64/h0/w5:gpu,x2t:64/w6:gpu,x2t:64/h0/w5:gpu,x2t:64/w6:gpu bash bench/calls/nbhost2_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
if [ "${CALL:-1}" = 1 ]; then
  timeout 70 python3 -m pytest -q -m gpu -n 8 tests/test_fold_gpu.py \
    -k "kept_upload or mixed_lengths or one_length_many_tables or check_packed or identical_across_variants_and_batch" \
    > "$OUT/tests.txt" 2>&1
elif [ "$CALL" = 2 ]; then
  timeout 110 python3 -m pytest -q -m gpu -n 12 tests/test_fold_gpu_batch_skip.py tests/test_fold_gpu.py -k batch \
    > "$OUT/tests.txt" 2>&1
fi
[ "$CALL" = 0 ] || grep -i "passed\|failed\|error" "$OUT/tests.txt" | tail -4
timeout 60 python3 bench/nussinov_gpu.py --batch --rows 2000x1000 \
  --settings ${SETTINGS:-x2t:64/h0:gpu,x2t:64:gpu,x2t:64/h0:gpu,x2t:64:gpu} \
  --repeats 5 --budget 1 --phases --json "$OUT/nussinov_gpu_batch_issue29_nbhost2_call${CALL:-1}_h200.json" > "$OUT/bench.txt" 2>&1
grep "phases:\|: end to end\|batch \|x 1000 " "$OUT/bench.txt" | grep -v '{"count"' | cut -c1-700
if [ "${PROBE:-1}" = 1 ]; then
  timeout 40 python3 bench/nussinov_walk_probe.py --walks 5 --json "$OUT/nussinov_walk_probe_nbhost2_h200.json" \
    > "$OUT/probe.txt" 2>&1
  tail -12 "$OUT/probe.txt"
fi
