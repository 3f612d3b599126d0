#!/usr/bin/env bash
# Issue 29 (helper bpmaxhost): one device call from the repository root, logs under $OUT. A smoke run of the timeline
# on a short target (every kernel of the row compiled; stops the call if it fails or hangs), the timeline of the
# production row (bench/bpmax_gpu_timeline.py, SIZES: its --sizes), then, where TESTS / ROWS are set, the GPU tests
# and bench/bpmax_gpu_sizes.py's rows. Prints the tables last.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmax_host
# (at most 8 files come back: the smoke's JSON stays in /tmp, its log only where it failed)
OUT= timeout 90 python3 bench/bpmax_gpu_timeline.py --repeats 1 --target 2000 --sizes "${SIZES:-}" \
    --json /tmp/bpmax_host_smoke.json > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
grep -E "^default|^\| untraced" "$out/smoke.txt" >> "$out/steps.txt"; rm "$out/smoke.txt"
timeout "${TIMELINE_S:-60}" python3 bench/bpmax_gpu_timeline.py --repeats 5 --sizes "${SIZES:-default}" \
    --json "$out/timeline.json" > "$out/timeline.txt" 2>&1; step_done "timeline" $?
if [ -n "${TESTS:-}" ]; then
  timeout "${TESTS_S:-60}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider $TESTS > "$out/tests_host.txt" 2>&1
  step_done "tests host" $?
  default_paths_tests "${DEFAULT_TESTS_S:-40}"
fi
if [ -n "${ROWS:-}" ]; then
  timeout "${ROWS_S:-40}" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "$ROWS" --json "$out/sizes.json" \
      > "$out/bench.txt" 2>&1; step_done "bench" $?
fi
cat "$out/gpu.txt" "$out/steps.txt"
[ -f "$out/bench.txt" ] && grep -E '^#|^\|' "$out/bench.txt"
[ -f "$out/tests_host.txt" ] && tail -n 3 "$out/tests_host.txt" "$out/tests_gpu.txt"
sed -n '/^## operations/,$p' "$out/timeline.txt" | grep -v "^ \|^$" | grep -v "cProfile" | tail -n 90
