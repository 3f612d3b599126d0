#!/usr/bin/env bash
# nbstep's device call (issue 29): finish_closure 9 (form 6: form 4's closure step with the line loaded a step ahead
# and the newest split through registers) against the default 7: their GPU tests (128-, 64-, 32-tiles; int16, offset,
# int32 cells against the CPU), n = 16,000 and 10,000 interleaved with the timeline at 16,000, Nsight Compute of a middle
# diagonal's finish (7, 9), and the SASS of both kernels where nvcc and cuobjdump are there. From the repository root on
# the lent H200, results under $OUT:  bash bench/nbstep_call.sh
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 70 python3 -m pytest -q -m gpu -n 6 tests/test_fold_gpu_chain.py -k "split-c7 or split-c9" -rs \
  > "$OUT/tests.txt" 2>&1
tail -3 "$OUT/tests.txt"
json="$OUT/nussinov_gpu_chain_issue29_nbstep_h200.json"
timeout 70 python3 bench/nussinov_gpu_chain.py --lengths 16000,10000 --settings split,split/c9,split,split/c9 \
  --repeats 5 --timeline 16000 --json "$json" > "$OUT/chain.txt" 2>&1
grep -v "^wrote" "$OUT/chain.txt" | cut -c1-200
timeout 70 bash bench/nussinov_chain_finish_ncu.sh 7 9 > "$OUT/ncu_finish.txt" 2>&1
sed 's/  */ /g' "$OUT/ncu_finish.txt" | grep -v "branch_resolving\|dispatch\|lg_throttle\|membar\|no_instruction" | cut -c1-150
if command -v nvcc > /dev/null && command -v cuobjdump > /dev/null; then
  timeout 40 python3 - "$OUT" <<'PY'
import subprocess, sys, tempfile
from host_kernels import PACKAGE, nvcc_build
for form in (20, 22):
    with tempfile.TemporaryDirectory() as folder:
        cubin, proc = nvcc_build(PACKAGE / "fold/kernels/nussinov_tiled.cu", [f"tiled_finish_sub_tight<short, 128, {form}>"],
                                 folder, "cubin")
        sass = subprocess.run(["cuobjdump", "--dump-sass", str(cubin)], capture_output=True, text=True).stdout
        open(f"{sys.argv[1]}/sass_form{form}.txt", "w").write(sass)
        print(form, "SASS lines", sass.count("\n"), "VIADDMNMX", sass.count("VIADDMNMX"), "SHFL", sass.count("SHFL"))
PY
else
  echo "no nvcc/cuobjdump on the device"
fi
