# Sourced by the BPMax device-call scripts (issue 29: bpmax_reg_call.sh, bpmax_waves_call.sh, bpmax_unroll_call.sh)
# after `set -u`: `bpmax_call_head NAME` makes the logs' folder ($OUT, else /tmp/NAME) as $out, sets the environment,
# writes the GPU's name and clocks and starts the clock; `step_done LABEL RC` logs a step's exit status and time;
# `default_paths_tests` runs test_interact_gpu.py's production, streamed and paired cases (the default's paths).
bpmax_call_head() {
  out=${OUT:-/tmp/$1}; mkdir -p "$out"
  export PYTHONPATH=$PWD/src:$PWD/tests:${PYTHONPATH:-} PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
  start=$(date +%s)
}

step_done() {
  echo "$1 rc $2 at $(( $(date +%s) - start )) s" >> "$out/steps.txt"
}

default_paths_tests() {
  ${1:+timeout "$1"} python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_interact_gpu.py \
      -k "production or streamed or paired" > "$out/tests_gpu.txt" 2>&1
  step_done "tests gpu" $?
}
