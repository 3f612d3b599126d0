#!/usr/bin/env bash
# A/B of `bioaccel scan` end to end on the lent GPU machine: an earlier commit's tree against this one,
# alternating runs on the same 100 Mb (the 1 Mb chr22 slice x 100; FIMO's default output, the best
# 100,000 hits). Each run pair is the user's first run (empty threshold and P-value caches: a new
# BIOACCEL_CACHE_DIR) then the same scan again (those caches warm); Numba's cache is warmed first. Prints
# each run's seconds and whether the trees' outputs are the same bytes, then a traced second run of this
# tree (bench/scan.py's TRACE: seconds since the process started). Lent machines differ by 1-2 s on the
# same code, so compare trees only within one call.
#
# The earlier tree is only its files of src/ that differ from this one's, swapped into src/ for its runs:
# both trees then have one path, so one Numba cache (Numba keys a cached function on its file's path and
# stamp). Where differing files hold Numba functions, each tree gets a Numba cache of its own
# (NUMBA_CACHE_DIR=/tmp/ab-numba-TREE) and the files keep their modification times when swapped (cp -p),
# so neither tree compiles again at a swap; the warm-ups then compile every kernel once per tree (the
# first runs compile the kernels the small file does not reach, in both trees). Here, before the device call:
#   bash bench/scan_ab.sh --prepare REV          # writes .devdata/ab/old/ (git-ignored)
# then carry .devdata (core2024.jaspar, chr22.fa, ab/old) and, on the device, with Biopython installed:
#   bash bench/scan_ab.sh [RUNS]
set -u
if [ "${1:-}" = --prepare ]; then
  rev=$2
  rm -rf .devdata/ab && mkdir -p .devdata/ab/old
  for f in $(git diff --name-only "$rev" -- src); do
    git cat-file -e "$rev:$f" 2>/dev/null || continue          # new here: unused by the earlier tree
    if git show "$rev:$f" | grep -q "@njit\|numba" || grep -q "@njit\|numba" "$f"; then
      echo "$f holds Numba functions: a Numba cache for each tree"; touch .devdata/ab/numba
    fi
    mkdir -p ".devdata/ab/old/$(dirname "$f")" && git show "$rev:$f" >".devdata/ab/old/$f"
  done
  echo "$rev" >.devdata/ab/rev
  (cd .devdata/ab/old && find . -type f | sort)
  exit 0
fi
RUNS=${1:-2}
MOTIFS=.devdata/core2024.jaspar
FILES=$(cd .devdata/ab/old && find . -type f | sed 's|^\./||')
KEEP=""           # cp -p where each tree has its own Numba cache: its files' stamps stay its own
[ -e .devdata/ab/numba ] && KEEP=-p
rm -rf /tmp/ab-new && for f in $FILES; do mkdir -p "/tmp/ab-new/$(dirname "$f")" && cp $KEEP "$f" "/tmp/ab-new/$f"; done
use() {   # put tree $1's files in place (cp: a new mtime, so Python recompiles the module)
  local from=/tmp/ab-new
  [ "$1" = old ] && from=.devdata/ab/old
  for f in $FILES; do cp $KEEP "$from/$f" "$f"; done
  [ -n "$KEEP" ] && export NUMBA_CACHE_DIR=/tmp/ab-numba-$1
  return 0
}
trap 'use new' EXIT
python3 bench/big_fasta.py .devdata/chr22.fa 100 /tmp/big.fa
head -c 2000000 /tmp/big.fa >/tmp/small.fa
TIMEFORMAT=%R
scan() {   # scan TREE FASTA CACHE_DIR OUT
  BIOACCEL_CACHE_DIR=$3 python3 -m bioaccel scan $MOTIFS "$2" --backend gpu -q -o "$4" 2>"/tmp/err-$1.txt" ||
    { echo "FAILED $1"; tail -3 "/tmp/err-$1.txt"; }
}
echo "# earlier tree: $(cat .devdata/ab/rev 2>/dev/null) (files: $(echo $FILES | tr '\n' ' '))"
for t in new old; do
  use $t
  echo "warm-up $t (Numba's and CuPy's caches; 2 Mb): $( { time scan $t /tmp/small.fa /tmp/ab-warm /dev/null; } 2>&1 ) s"
done
for i in $(seq "$RUNS"); do
  for t in old new; do
    use $t
    cache=$(mktemp -d /tmp/ab-cache-XXXX)
    first=$( { time scan $t /tmp/big.fa "$cache" "/tmp/out-$t-first.tsv"; } 2>&1 )
    second=$( { time scan $t /tmp/big.fa "$cache" "/tmp/out-$t-second.tsv"; } 2>&1 )
    echo "run $i $t: first run (empty caches) $first s, second run (caches warm) $second s"
  done
done
use new
for run in first second; do
  cmp "/tmp/out-old-$run.tsv" "/tmp/out-new-$run.tsv" && echo "outputs, $run runs: the same bytes"
done
cmp /tmp/out-new-first.tsv /tmp/out-new-second.tsv && echo "first and second run: the same bytes"
TRACE=$(python3 -c 'import sys; sys.path[:0] = ["bench"]; import scan; sys.stdout.write(scan.TRACE)')
echo "traced second run of this tree (seconds since the process started):"
BIOACCEL_CACHE_DIR=$cache python3 -c "$TRACE" $MOTIFS /tmp/big.fa --backend gpu -q -o /tmp/out-traced.tsv 2>&1 |
  grep -v "ThreadPoolExec.* _priced \|bioaccel scan: "
