#!/usr/bin/env bash
# Stop 57 (issue 29): the tables' poisoning fill by runtime.gpu.filled (a byte memset or 16-byte stores) against
# cupy.full's (a cell a thread), old against new in one process each: the fill kernel's tests first (a 90 s smoke), the
# BPMax host tests and the fold's chain tests of both fills, then n = 16,000 / 10,000 / 26,000 (bench/nussinov_gpu_chain.py,
# token f0 = cupy.full) and BPMax 23 x 20,000 nt, window 128 (bench/bpmax_gpu_sizes.py row 80 = cupy.full). From the
# repository root on the lent H200, wheels on /tmp/site, results under $OUT:   bash bench/calls/stop57_fill_call.sh
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head stop57_fill
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_runtime_gpu_fill.py > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (fill tests)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
timeout 150 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_host.py \
    tests/test_fold_gpu_chain.py -k "host or fill or table or split-c11" > "$out/tests.txt" 2>&1
step_done "tests" $?
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split/f0,split,split/f0,split \
    --repeats 5 --json "$out/chain.json" > "$out/chain.txt" 2>&1; step_done "chain 16k 10k" $?
timeout 40 python3 bench/nussinov_gpu_chain.py --lengths 26000 --settings split/f0,split --repeats 3 \
    --json "$out/chain26k.json" > "$out/chain26k.txt" 2>&1; step_done "chain 26k" $?
timeout 70 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only 55,80,55,80,55,80 --json "$out/sizes.json" \
    > "$out/bench.txt" 2>&1; step_done "bpmax" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
tail -n 8 "$out/chain.txt" "$out/chain26k.txt"
grep -E '^#|^\|' "$out/bench.txt"
