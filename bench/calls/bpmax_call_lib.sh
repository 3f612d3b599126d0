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

# finish_forms_call SMOKE TESTS ROWS LEVELS CLOCKS (issue 29: bpmaxpipe_call.sh, bpmaxsplit_call.sh): the finish-form
# call's steps after bpmax_call_head. The smoke (bench/calls/bpmax_finish_smoke.py, SMOKE a JSON list of BPMaxSizes
# changes) under SMOKE_S seconds, stopping the call if it fails or hangs; the GPU tests of TESTS (under tests/) under
# TESTS_S; bench/bpmax_gpu_sizes.py's ROWS with the levels of LEVELS under BENCH_S; the clocks of CLOCKS
# (bench/bpmax_finish_clocks.py, level 12) under CLOCKS_S; then the summary.
finish_forms_call() {
  timeout "${SMOKE_S:-80}" python3 bench/calls/bpmax_finish_smoke.py "$1" > "$out/smoke.txt" 2>&1
  local rc=$?; step_done "smoke ($1 against the default and the CPU, 8 x 333 nt)" $rc
  if [ $rc -ne 0 ]; then cat "$out/gpu.txt" "$out/steps.txt"; tail -n 30 "$out/smoke.txt"; return 1; fi
  timeout "${TESTS_S:-130}" python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider "tests/$2" > "$out/tests.txt" 2>&1
  step_done "tests ($2)" $?
  timeout "${BENCH_S:-120}" python3 bench/bpmax_gpu_sizes.py --repeats 5 --only "$3" --levels "$4" \
      --json "$out/sizes.json" > "$out/bench.txt" 2>&1
  step_done "bench ($3)" $?
  timeout "${CLOCKS_S:-80}" python3 bench/bpmax_finish_clocks.py --settings "$5" --every 3 \
      --json "$out/clocks.json" > "$out/clocks.txt" 2>&1
  step_done "clocks ($5)" $?
  cat "$out/gpu.txt" "$out/steps.txt"
  tail -n 3 "$out/smoke.txt" "$out/tests.txt"
  grep -E '^#|^\|' "$out/bench.txt"
  cut -c1-300 "$out/clocks.txt"
}
