#!/usr/bin/env bash
# Issue 29, stop 62: the query-inner product's rate on the device (bench/bpmax_query_tiles.py). A smoke of 64 tiles
# (every restaged variant checked against numpy on two tiles) under 120 s, then the full size under 150 s.
#   bash bench/calls/bpmaxq_call.sh        (on the device, from the repository root)
set -u
source bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxq
timeout 120 python3 bench/bpmax_query_tiles.py --tiles 64 --splits 16 --repeats 1 > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (64 tiles x 16 splits)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout 150 python3 bench/bpmax_query_tiles.py ${QT_ARGS:-} --json "$out/query_tiles.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
cat "$out/gpu.txt" "$out/steps.txt" "$out/smoke.txt" "$out/bench.txt"
