#!/usr/bin/env bash
# One device call: the environment, a SASS check of every kernel, then every GPU test of every family
# (fold, interact, motif: `pytest -m gpu tests/`). Extra arguments go to pytest.
#   bash bench/gpu_smoke.sh            # on the lent H100/H200, from the repository root
set -u
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/tests PYTHONUNBUFFERED=1   # keeps carried wheels (/tmp/site)
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
for f in src/bioaccel/*/kernels/*.cu; do
  nvcc -arch=sm_90 --std=c++17 -I "$(dirname "$f")" -cubin -o /tmp/k.cubin "$f" && \
  echo "$f: VIADDMNMX instructions in SASS: $(cuobjdump --dump-sass /tmp/k.cubin | grep -c VIADDMNMX)"
done
python3 -m pytest -q -m gpu tests/ -p no:cacheprovider -rs "$@"
