#!/usr/bin/env bash
# Stop 57 (issue 29): the tiled fill's first tile diagonal launched before the host's set-up (FoldSizes.early_first 1)
# against the order before (token h0), old and new interleaved in one process: the set-up tests first (the orders
# before, cell by cell; a 90 s smoke at 32-tiles), then n = 16,000 / 10,000 and 26,000. From the repository root on the
# lent H200, wheels on /tmp/site, results under $OUT:   bash bench/calls/stop57_early_call.sh
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head stop57_early
timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_fold_gpu_chain.py -k "set_up and 32" \
    > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (set-up tests, 32-tiles)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 20 "$out/smoke.txt"; exit 1; fi
timeout 100 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_fold_gpu_chain.py -k "set_up or split-c11" \
    > "$out/tests.txt" 2>&1; step_done "tests" $?
timeout 60 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split/h0,split,split/h0,split \
    --repeats 5 --json "$out/chain.json" > "$out/chain.txt" 2>&1; step_done "chain 16k 10k" $?
timeout 30 python3 bench/nussinov_gpu_chain.py --lengths 26000 --settings split/h0,split --repeats 3 \
    --json "$out/chain26k.json" > "$out/chain26k.txt" 2>&1; step_done "chain 26k" $?
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep 'runs' "$out/chain.txt" | cut -c1-150; tail -n 4 "$out/chain.txt"; tail -n 3 "$out/chain26k.txt"
