#!/bin/bash
# dedupe48 call 1 (run from the device copy's root, _base/ holding main fe6a229's src/ and bench/): the maxplus
# library, main's kernels and this branch's (stage_tiles moved the stage's address arithmetic in SASS), A B A B in
# one call, the default shapes of the quick cases; then the GPU tests of every kernel whose SASS changed:
# banded_maxplus / banded_maxplus_dup (test_interact_maxplus.py, BPMax's banded-library variant) and
# bpmax_finish_packed's forms 3 and 4 (test_interact_gpu.py's layouts with 16-byte stores or the first diagonal
# closed, form 4 on a production band, every variant cell by cell).
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv,noheader
for run in main branch main branch; do
    if [ "$run" = main ]; then root=_base; else root=.; fi
    echo "== maxplus library, $run"
    python3 "$root/bench/maxplus_gpu.py" --quick --default-only --json "$OUT/maxplus_${run}_$SECONDS.json" | grep -v "^$"
done
python3 -m pytest -q -m gpu -n 12 -p no:cacheprovider --durations=5 tests/test_interact_maxplus.py \
    tests/test_interact_gpu.py -k "test_interact_maxplus or stores or closed or form_4 or test_every_gpu_variant"
