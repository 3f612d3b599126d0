#!/usr/bin/env bash
# One device call: environment, kernel SASS check, GPU tests, then the GPU benchmark.
set -u
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
for f in src/bioaccel/fold/kernels/*.cu; do
  nvcc -arch=sm_90 --std=c++17 -I src/bioaccel/fold/kernels -cubin -o /tmp/k.cubin "$f" && \
  echo "$(basename $f): VIADDMNMX $(cuobjdump --dump-sass /tmp/k.cubin | grep -c VIADDMNMX)"
done
python3 -m pytest -x -q -m gpu tests/test_fold_gpu.py -p no:cacheprovider "$@" 2>&1 | tail -30
python3 bench/nussinov_gpu.py --lengths ${LENGTHS:-2000,10000,26000} --budget ${BUDGET:-20}
