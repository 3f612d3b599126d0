#!/usr/bin/env bash
# One device call: the environment, a SASS check of every kernel, then every GPU test of every family
# (fold, interact, motif, scan: `pytest -m gpu tests/`). Extra arguments go to pytest.
#   bash bench/gpu_smoke.sh            # on the lent H100/H200, from the repository root
set -u
# (keeps carried wheels on the path: /tmp/site)
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c "import cupy, numba, numpy
print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
# every kernel the host launches with the production sizes, built by nvcc (the .cu files hold templates
# only: tests/host_kernels.py instantiates them as CuPy does)
python3 tests/host_kernels.py
python3 -m pytest -q -m gpu tests/ -p no:cacheprovider -rs "$@"
