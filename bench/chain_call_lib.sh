# Sourced by the chain's device-call scripts (issue 29: bench/nb16warps_call2.sh, bench/nbunroll_call.sh): the
# environment (carried wheels on /tmp/site, this tree's src and tests), the GPU's name and clock, and `chain_tests`.
export PYTHONPATH=/tmp/site:$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader

# chain_tests SECONDS WORKERS PATTERN: tests/test_fold_gpu_chain.py's GPU cases matching PATTERN (-k), the log in
# $OUT/tests.txt, its last lines printed.
chain_tests() {
  timeout "$1" python3 -m pytest -q -m gpu -n "$2" tests/test_fold_gpu_chain.py -k "$3" -rs > "$OUT/tests.txt" 2>&1
  tail -3 "$OUT/tests.txt"
}
