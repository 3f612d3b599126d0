# v30 (issue 27, docs/bppart-gpu-notes.md): one device call: the bench first (23 x 20,000 nt, window 128: the device
# seconds of the sweep, the cross products by level l1 and the outer terms for the production and every variant on one
# stream, interleaved; the svRNA screens with the production and the FORMS), then tests/test_bppart_gpu_small30.py.
# On the device, in the copied tree: OUT=... bash bench/calls/bppart_small30_call.sh
# Call 1 ran it at commit 7829ab1; band_near_hoist (A and C) was reverted after it: with later commits, run it there.
: "${OUT:?set OUT}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
A=band_cross_hoist=2,band_near_hoist=2
B=band_cross_run=4
C=band_cross_hoist=2,band_cross_run=16,band_near_hoist=1
D=band_cross_run=8
export VARIANTS="${VARIANTS:-$A;$B;$C;$D;$A;$B;$C}" SCREENS="${FORMS:-$P,s2,q1,e1,$A;$P,s2,q1,e1,$C}" \
  TESTS=tests/test_bppart_gpu_small30.py TESTS_S=${TESTS_S:-75}
exec bash bench/calls/bppart_gpu_call.sh
