#!/usr/bin/env bash
# Issue 29 (helper bpmaxco): the next level's interior products beside a level's finish (BPMaxSizes.overlap_products,
# interact/_gpu_levels.py), one device call from the repository root, logs under $OUT. Smoke (45 s): the overlap's
# device tables against the default's on the production band (8 x 1,400 and 333 nt, window 128), bit for bit, at 227,
# 170 and 140 KB segments, overlap 1 and 2; then the other overlap tests (cell by cell against the CPU, short windows and
# pieces, timed launches); then bench/bpmax_gpu_sizes.py's ROWS (55 the default, 81-83 overlap 1 at 227 / 170 / 140 KB,
# 84-85 170 / 140 KB without, 86-88 overlap 2), interleaved; then bench/bpmax_overlap_timeline.py's TIMELINE settings
# (none if empty). Limits sum to 135 s (call 2: the cap left, 196 s, less the start and the idle 30 s). Call 1 ran an earlier form of this
# script (commit 523546d: 90 / 65 / 75 s, ROWS 55,81,82,83,84,85 twice, no timeline).   bash bench/calls/bpmaxco_call.sh
# The code it runs was reverted (slower end to end): check out commit 2008eba to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxco
timeout 45 python3 -m pytest -q -m gpu -x -p no:cacheprovider tests/test_interact_gpu_overlap.py -k production_band \
    > "$out/smoke.txt" 2>&1
rc=$?; step_done "smoke (overlap = default on the production band)" $rc
if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; exit 1; fi
timeout 35 python3 -m pytest -q -m gpu -n 5 -p no:cacheprovider tests/test_interact_gpu_overlap.py \
    -k "not production_band" > "$out/tests.txt" 2>&1
step_done "tests" $?
timeout 35 python3 bench/bpmax_gpu_sizes.py --repeats 7 \
    --only "${ROWS:-55,86,87,88,82,84,85,55,86,87,88,82,84,85,55,86,87,88,82,84,85}" \
    --json "$out/sizes.json" > "$out/bench.txt" 2>&1
step_done "bench" $?
TIMELINE=${TIMELINE-overlap_products=1,finish_bytes=174080;overlap_products=2,finish_bytes=174080;overlap_products=2,finish_bytes=143360;overlap_products=2}
if [ -n "$TIMELINE" ]; then
  timeout 20 python3 bench/bpmax_overlap_timeline.py --sizes "$TIMELINE" --json "$out/timeline.json" \
      > "$out/timeline.txt" 2>&1
  step_done "timeline" $?
fi
cat "$out/gpu.txt" "$out/steps.txt"
tail -n 3 "$out/smoke.txt" "$out/tests.txt"
grep -E '^#|^\|' "$out/bench.txt"
grep -E '^#|^\|' "$out/timeline.txt" 2>/dev/null | head -n 40
