#!/usr/bin/env bash
# Issue 29 (helper bpmaxsplit): finish forms 14 (each first phase's range B of cells 1 .. G - 1 on the tail threads,
# bench row 81) and 15 (14 with part of range A in the rest before, row 82), one device call from the repository root,
# logs under $OUT (bpmax_call_lib.sh's finish_forms_call). Smoke: one small BPMax (8 x 333 nt, window 128) through FORMS
# at the production sizes, at 40-row segments and with groups of 4 diagonals, against the default's device tables and
# the CPU's window scores; stop there if it fails or hangs. Then the GPU tests of tests/test_interact_gpu_split.py, then bench/bpmax_gpu_sizes.py's ROWS
# (55 the default, form 7) interleaved with their levels, then the clocks of a block's phases
# (bench/bpmax_finish_clocks.py, level 12) with the first-phase ready stamps.
#   bash bench/calls/bpmaxsplit_call.sh
# Call 1 (commit 33a17fe, form 14 only): FORMS=14 ROWS=55,81,55,81,55,81 LEVELS=55,81 CLOCKS=7:8,14:8,7:8,14:8, limits
# 90 + 150 + 130 + 90 s (43.6 s of wall); call 2: the defaults below, limits 70 + 120 + 110 + 70 s = 370 s (this
# helper's cap 550 s less call 1's ~115 s, less 60 s).
# The code it runs was reverted (not faster in every pair): check out commit bb1508b to run it again.
set -u
. bench/calls/bpmax_call_lib.sh
bpmax_call_head bpmaxsplit
SMOKE_S=${SMOKE_S:-70} TESTS_S=${TESTS_S:-120} BENCH_S=${BENCH_S:-110} CLOCKS_S=${CLOCKS_S:-70}
smoke=$(python3 -c "import json, sys; print(json.dumps([dict(finish_form=int(f), **c) for f in sys.argv[1].split(',')
    for c in ({}, {'segment_rows': 40}, {'finish_diagonals': 4})]))" "${FORMS:-14,15}")
finish_forms_call "$smoke" test_interact_gpu_split.py "${ROWS:-55,81,82,55,81,82,55,81,82,55,81,82}" \
    "${LEVELS:-55,81,82}" "${CLOCKS:-7:8,14:8,15:8,7:8,14:8,15:8}"
