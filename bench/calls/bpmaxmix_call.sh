#!/usr/bin/env bash
# issue 29, stop 58: BPMax's products with part of their adds on the FMA pipe (BPMaxSizes.pairs_mix), one call:
# a smoke of the mixed kernel, its GPU tests (cell by cell and against the default's tables), then the sizes bench
# old against new (row 55 the default, 81-83 pairs_mix 4 / 8 / 16), the window scores' digests in every row.
set -u
source bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxmix
timeout 90 python3 bench/bpmax_gpu_sizes.py --repeats 1 --only 82 --json "$out/smoke.json" > "$out/smoke.txt" 2>&1
rc=$?; step_done smoke $rc; tail -3 "$out/smoke.txt"
[ $rc -eq 0 ] || exit $rc
timeout 150 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_mix.py -rs > "$out/tests.txt" 2>&1
step_done tests $?; tail -3 "$out/tests.txt"
timeout 100 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only 55,81,82,83,55,81,82,83 --json "$out/bpmaxmix_sizes.json" \
  > "$out/sizes.txt" 2>&1
step_done sizes $?; tail -14 "$out/sizes.txt"; cat "$out/steps.txt"
