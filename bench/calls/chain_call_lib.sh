# Sourced by the chain's device-call scripts (issue 29: bench/calls/nb16warps_call2.sh, bench/calls/nbunroll_call.sh,
# bench/calls/nbahead_call.sh, bench/calls/nbstep2_call.sh, the batch fold's nb5blk_call.sh and nbwarp_call.sh): the
# environment (carried wheels on /tmp/site, this tree's src and tests), the GPU's name and clock, `step_done`,
# `chain_tests`, `batch_tests_with` and `sass_counts`.
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
start=$(date +%s)

# step_done LABEL RC: a step's exit status and the call's seconds so far, in $OUT/steps.txt (and printed)
step_done() {
  echo "$1 rc $2 at $(( $(date +%s) - start )) s" | tee -a "$OUT/steps.txt"
}

# chain_tests SECONDS WORKERS PATTERN: tests/test_fold_gpu_chain.py's GPU cases matching PATTERN (-k), the log in
# $OUT/tests.txt, its last lines printed; pytest's exit status.
chain_tests() {
  timeout "$1" python3 -m pytest -q -m gpu -n "$2" tests/test_fold_gpu_chain.py -k "$3" -rs > "$OUT/tests.txt" 2>&1
  local rc=$?
  tail -3 "$OUT/tests.txt"
  return $rc
}

# batch_tests_with OLD NEW SECONDS: the batch fold's GPU tests (tests/test_fold_gpu.py, test_fold_arrays.py: the short
# kernels, the device encoding, the array path) on a copy of the tree in /tmp/new where SHORT_KERNEL is NEW instead
# of OLD (the call stops the step if the line is not found), the log in $OUT/tests.txt, its last lines and failures
# printed; the step recorded by step_done.
batch_tests_with() {
  rm -rf /tmp/new && mkdir /tmp/new && cp -r src tests /tmp/new/ \
    && sed -i "s/^SHORT_KERNEL = \"$1\"$/SHORT_KERNEL = \"$2\"/" /tmp/new/src/bioaccel/fold/_gpu_batch.py \
    && grep -q "^SHORT_KERNEL = \"$2\"$" /tmp/new/src/bioaccel/fold/_gpu_batch.py \
    && (cd /tmp/new && PYTHONPATH=/tmp/site:/tmp/new/src:/tmp/new/tests timeout "$3" python3 -m pytest -q -m gpu -n 12 \
        tests/test_fold_gpu.py tests/test_fold_arrays.py -rs \
        -k "(short_kernels or gpu_encoding or one_length_many_tables or batch or gpu_array_path) and not tiled_batch_forms" \
        > "$OUT/tests.txt" 2>&1)
  step_done "tests ($2 the default)" $?
  tail -3 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
}

# sass_counts FORM...: SASS lines, DPX and shuffles of tiled_finish_sub_tight<short, 128, FORM> (the device's nvcc and
# cuobjdump, where there).
sass_counts() {
  if ! command -v nvcc > /dev/null || ! command -v cuobjdump > /dev/null; then
    echo "no nvcc/cuobjdump on the device"
    return
  fi
  timeout 40 python3 - "$@" <<'PY'
import subprocess, sys, tempfile
from host_kernels import PACKAGE, nvcc_build
for form in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as folder:
        kernel = f"tiled_finish_sub_tight<short, 128, {form}>"
        cubin, proc = nvcc_build(PACKAGE / "fold/kernels/nussinov_tiled.cu", [kernel], folder, "cubin")
        sass = subprocess.run(["cuobjdump", "--dump-sass", str(cubin)], capture_output=True, text=True).stdout
        print(form, "SASS lines", sass.count("\n"), "VIADDMNMX", sass.count("VIADDMNMX"), "SHFL", sass.count("SHFL"))
PY
}
