#!/usr/bin/env bash
# Issue 29 (helper bpmaxpipe): finish forms 11-13, the segment's read and store spread over its groups (bench rows
# 81-83), one device call from the repository root, logs under $OUT (8 files; bpmax_call_lib.sh's finish_forms_call since bpmaxsplit). Smoke: one small BPMax (8 x 333 nt,
# window 128) through SMOKE's forms at the production sizes and form 11 at 40-row segments, the default's device tables
# and the CPU's window scores; stop there if it fails or hangs. Then the GPU tests of tests/test_interact_gpu_pipe.py,
# then bench/bpmax_gpu_sizes.py's ROWS (55 the default, form 7; 81-83 forms 11-13) interleaved with the levels of LEVELS,
# then the clocks of a block's phases (bench/bpmax_finish_clocks.py, level 12) for CLOCKS.
#   bash bench/calls/bpmaxpipe_call.sh
# Call 1 (commit 9c93a34, form 11 only): SMOKE=11 ROWS=55,81,55,81,55,81 LEVELS=55,81 CLOCKS=7:8,11:8,7:8,11:8 with
# limits 90 + 120 + 100 + 60 s; call 2: the defaults below, limits 80 + 130 + 120 + 80 s = 410 s (this helper's cap,
# 600 s over two calls, less call 1's ~110 s, the start and the idle 30 s).
# The code it runs was reverted (10-12% slower): check out commit 07356bf to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxpipe
smoke=$(python3 -c "import json, sys; print(json.dumps([dict(finish_form=int(f)) for f in sys.argv[1].split(',')]
    + [dict(finish_form=11, segment_rows=40)]))" "${SMOKE:-11,12,13}")
finish_forms_call "$smoke" test_interact_gpu_pipe.py "${ROWS:-55,81,82,83,55,81,82,83,55,81,82,83}" \
    "${LEVELS:-55,81,82,83}" "${CLOCKS:-7:8,11:8,12:8,13:8,7:8,11:8,12:8,13:8}"
