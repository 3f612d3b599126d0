#!/usr/bin/env bash
# One device call: the environment, a SASS check of every kernel, then every GPU test of every family
# (fold, interact, motif, scan: `pytest -m gpu tests/`). Extra arguments go to pytest.
#   bash bench/gpu_smoke.sh            # on the lent H100/H200, from the repository root
#   GROUP=1 bash bench/gpu_smoke.sh    # only the interaction family (BPMax, BPPart, max-plus, batches)
#   GROUP=2 bash bench/gpu_smoke.sh    # every other file: the two groups together are the whole run,
#                                      # each short enough for one call on a fresh machine
# The device has no Biopython or Dask: carry their wheels (biopython, dask, distributed, tornado, partd, locket,
# tblib, zict; cp312 manylinux, /work/.library/device/README.md says how) as .whl and install them first:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; export PYTHONPATH=/tmp/site
# (stop 42, with `-n 12` as the extra argument: GROUP=1 took 246 s on a fresh H100, GROUP=2 200 s on the same
# warm machine; stop 43: 275 s and 246 s)
# GROUP=1 with -n 6, not 12: each BPPart test plans its launches on 70% of the device memory free when it looks, so
# twelve processes sharing one GPU can run it out of memory (stop 51: 3 such failures at -n 12, none at -n 6)
set -u
# (keeps carried wheels on the path: /tmp/site)
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c "import cupy, numba, numpy
print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
# the interaction family's files: group 1 runs them, group 2 everything else (so a new file lands in one)
INTERACT=$(ls tests/test_interact*.py tests/test_bppart*.py tests/test_bpmax*.py tests/test_batch*.py \
    tests/test_pairs_gpu*.py 2>/dev/null)
case "${GROUP:-all}" in
    1) SELECT=$INTERACT ;;
    2) SELECT="tests/ $(for f in $INTERACT; do printf -- '--ignore=%s ' "$f"; done)"
       # files that import ViennaRNA at the top hold no GPU test: left out where it is not installed (the device),
       # so that their collection is not reported as an error (stop 43's GROUP=2 run: 5 such errors, 0 GPU tests)
       python3 -c "import RNA" 2>/dev/null || SELECT="$SELECT $(grep -l '^import RNA' tests/*.py | sed 's/^/--ignore=/')" ;;
    *) SELECT=tests/
       # every kernel the host launches with the production sizes, built by nvcc (the .cu files hold
       # templates only: tests/host_kernels.py instantiates them as CuPy does)
       python3 tests/host_kernels.py ;;
esac
python3 -m pytest -q -m gpu $SELECT -p no:cacheprovider -rs "$@"
