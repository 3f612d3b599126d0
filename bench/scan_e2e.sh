#!/usr/bin/env bash
# The scan row of issue 29 end to end on a GPU machine: all JASPAR 2024 CORE matrices over 100 Mb (the
# 1 Mb chr22 slice x 100), both strands, P = 1e-4, FIMO's default output (the best 100,000 hits), as a
# user runs it: `bioaccel scan MOTIFS big.fa --backend gpu -o hits.tsv`. One first run with empty threshold,
# P-value and motif caches (a new BIOACCEL_CACHE_DIR), then SECONDS_RUNS second runs with those caches
# warm; Numba's and CuPy's caches warmed first on 2 Mb. Prints each run's seconds, checks that every run
# wrote the same bytes and writes $OUT/scan_e2e.json (or ./scan_e2e.json). Carry .devdata (core2024.jaspar,
# chr22.fa: see docs/scan-notes.md) and .whl (Biopython); on the device, with the wheels installed:
#   bash bench/scan_e2e.sh [SECOND_RUNS]
set -eu
RUNS=${1:-3}
M=.devdata/core2024.jaspar
python3 bench/big_fasta.py .devdata/chr22.fa 100 /tmp/big.fa
head -c 2000000 /tmp/big.fa >/tmp/small.fa
TIMEFORMAT=%R
scan() { BIOACCEL_CACHE_DIR=$1 python3 -m bioaccel scan $M "$2" --backend gpu -q -o "$3" 2>/dev/null; }
warm=$( { time scan "$(mktemp -d)" /tmp/small.fa /dev/null; } 2>&1 )
cache=$(mktemp -d)
first=$( { time scan "$cache" /tmp/big.fa /tmp/e2e-first.tsv; } 2>&1 )
seconds=()
for i in $(seq "$RUNS"); do
  seconds+=( $( { time scan "$cache" /tmp/big.fa "/tmp/e2e-second-$i.tsv"; } 2>&1 ) )
done
same=true
for f in /tmp/e2e-second-*.tsv; do cmp -s /tmp/e2e-first.tsv "$f" || same=false; done
digest=$(sha256sum /tmp/e2e-first.tsv | cut -c1-16)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "scan of all JASPAR 2024 CORE over 100 Mb, best 100,000 written, on $device"
echo "warm-up (2 Mb, compiles) ${warm} s; first run (empty caches) ${first} s; second runs (caches warm) ${seconds[*]} s"
echo "every run the same bytes: $same (sha256 $digest...), $(($(wc -l </tmp/e2e-first.tsv) - 1)) hits"
python3 - "$device" "$first" "$same" "$digest" "${seconds[@]}" <<'PY' >"${OUT:-.}/scan_e2e.json"
import json, statistics, sys
device, first, same, digest, *second = sys.argv[1:]
second = [float(s) for s in second]
print(json.dumps({"device": device, "first_run_s": float(first), "second_runs_s": second,
                  "second_median_s": statistics.median(second), "same_bytes": same == "true", "sha256_16": digest,
                  "goal_s": 5.0}, indent=1))
PY
