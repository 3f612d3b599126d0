#!/usr/bin/env bash
# A/B of `bioaccel scan` end to end on the lent GPU machine: an earlier commit's tree against this one,
# alternating runs on the same 100 Mb (the 1 Mb chr22 slice x 100), each tree's Numba cache warmed first;
# prints each run's seconds and whether the outputs are the same bytes. Lent machines differ by 1-2 s on
# the same code, so compare trees only within one call. Before the device call, here:
#   mkdir -p .devdata/ab/old && git archive REV src | tar -x -C .devdata/ab/old
# and carry .whl (Biopython, Dask wheels) and .devdata (core2024.jaspar, chr22.fa, ab/old).
#   bash bench/scan_ab.sh [RUNS]
set -u
RUNS=${1:-3}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -1
PYTHONPATH=/tmp/site:$PWD/src python3 - <<'PY'
from bioaccel.inputs.fasta import read_fasta
text = next(iter(read_fasta(".devdata/chr22.fa"))).sequence
with open("/tmp/big.fa", "w") as f:
    f.write(">chr22_slice_x100\n")
    for _ in range(100):
        for i in range(0, len(text), 60):
            f.write(text[i:i + 60] + "\n")
PY
head -c 2000000 /tmp/big.fa > /tmp/small.fa
TIMEFORMAT=%R
tree() { if [ "$1" = old ]; then echo "$PWD/.devdata/ab/old/src"; else echo "$PWD/src"; fi; }
scan() {
  PYTHONPATH=/tmp/site:$(tree "$1") python3 -m bioaccel scan .devdata/core2024.jaspar "$2" --backend gpu -q \
    -o "/tmp/out-$1.tsv" 2>"/tmp/err-$1.txt" || { echo "FAILED $1"; tail -3 "/tmp/err-$1.txt"; }
}
for t in old new; do echo "warm-up $t (Numba compiles): $( { time scan $t /tmp/small.fa; } 2>&1 )"; done
for i in $(seq "$RUNS"); do
  for t in old new; do echo "run $i $t: $( { time scan $t /tmp/big.fa; } 2>&1 ) s"; done
done
cmp /tmp/out-old.tsv /tmp/out-new.tsv && echo "outputs: the same bytes"
