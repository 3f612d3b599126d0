# v28 (issue 27, docs/bppart-gpu-notes.md): one device call: the bench first (the cross products' device ms per query
# length l1 for the production, the baseline and every variant; a block a run of query intervals, band_cross_run,
# interleaved with the production's form), the svRNA screen rows; then the new test file's tests. Call 1 (commit
# f0d0f84) ran VARIANTS="$R=8;$R=0;$R=24;band_cross_places=1;$R=24,band_cross_places=1;$R=0;$R=8;$R=24" and
# SCREENS="$P,s2,q1,e1,$R=24,band_cross_places=1;$P,s2,q1,e1,$R=8" (band_cross_places since reverted).
# On the device, in the copied tree: OUT=... bash bench/calls/bppart_level28_call.sh
: "${OUT:?set OUT}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
R=band_cross_run
export VARIANTS="${VARIANTS:-$R=12;$R=0;$R=8;$R=16;$R=12;$R=0;$R=8;$R=16}" SCREENS="${SCREENS:-$P,s2,q1,e1,$R=12}" \
  TESTS=tests/test_bppart_gpu_level28.py TESTS_S=${TESTS_S:-100} LINES_SHOWN=62
exec bash bench/calls/bppart_gpu_call.sh
