#!/usr/bin/env bash
# Issue 29 (helper bpmaxhost), call 2: old against new in one call, logs under $OUT (at most 8 files back). A smoke run
# of the new code's timeline on a short target (table_fill 1's kernel compiled and run; stops the call if it fails or
# hangs); the timeline of the production row with main's code at the helper's start (old/src: `git archive 1a4a786
# src`, carried beside this tree), then this tree's default and table_fill 1 twice each; the GPU tests of
# tests/test_interact_gpu_host.py and of the default's paths; bench/bpmax_gpu_sizes.py rows 55 (the default) and 79
# (table_fill 1) three times each. Prints the tables last.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_host2
cat "$out/gpu.txt" >> "$out/steps.txt"; rm "$out/gpu.txt"
OUT= timeout 30 python3 bench/bpmax_gpu_timeline.py --repeats 1 --target 2000 --sizes table_fill=1 --no-fill \
    --json /tmp/bpmax_host_smoke.json > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
grep -E "^default|^table_fill|^\| untraced|^every" "$out/smoke.txt" >> "$out/steps.txt"; rm "$out/smoke.txt"
PYTHONPATH=$PWD/old/src:$PWD/tests:/tmp/site timeout 25 python3 bench/bpmax_gpu_timeline.py --repeats 5 --no-fill \
    --json "$out/timeline_old.json" > "$out/timeline.txt" 2>&1; step_done "timeline old (1a4a786)" $?
timeout 30 python3 bench/bpmax_gpu_timeline.py --repeats 5 --sizes "table_fill=1;default;table_fill=1" \
    --json "$out/timeline.json" >> "$out/timeline.txt" 2>&1; step_done "timeline new" $?
timeout 45 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu_host.py \
    tests/test_interact_gpu.py -k "host or production or streamed or paired" > "$out/tests.txt" 2>&1
step_done "tests host and default paths" $?
timeout 25 python3 bench/bpmax_gpu_sizes.py --repeats 5 --only 55,79,55,79,55,79 --json "$out/sizes.json" \
    > "$out/bench.txt" 2>&1; step_done "bench" $?
cat "$out/steps.txt"
grep -E '^#|^\|' "$out/bench.txt"
tail -n 4 "$out/tests.txt"
grep -E "^## the end to end|^## the poisoning|^\||^every" "$out/timeline.txt" | grep -v "^| [a-z_ ]*(strand_band)\|^| [a-z]* | [0-9.]* / " | tail -n 80
