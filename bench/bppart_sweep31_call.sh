# v31 (issue 27, docs/bppart-gpu-notes.md): one device call: the bench first (23 x 20,000 nt, window 128: the device
# seconds of the sweep, by tile diagonal too, the cross products and the outer terms for the production and every
# variant on one stream, interleaved; the svRNA screens with the production and the FORMS), then
# tests/test_bppart_gpu_sweep31.py. The first row of each new form builds its kernel inside the timed events: not read.
# On the device, in the copied tree: OUT=... bash bench/bppart_sweep31_call.sh
# Call 1 ran it at commit f9caebd with VARIANTS="$A;$B;$O;$A;$C;$B;band_near_pipe=16;band_near_pipe=4;$O;$A;$C;$B;$O"
# and FORMS="$P,s2,q1,e1,$A"; call 2 with the defaults below (form 2: D, E).
: "${OUT:?set OUT}"
P=m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
A=band_near_pipe=8
B=band_near_pipe=8,band_near_pipe_ring=3
C=band_near_pipe=8,band_near_pipe_all=1
D=band_near_pipe=8,band_near_pipe_ring=0
E=band_near_pipe=8,band_near_pipe_ring=0,band_near_pipe_all=1
O=band_near_pipe=0
export VARIANTS="${VARIANTS:-$D;$E;$O;$D;$E;$O;$D;$E;$O}" \
  SCREENS="${FORMS:-$P,s2,q1,e1,$D;$P,s2,q1,e1,$E}" TESTS=tests/test_bppart_gpu_sweep31.py TESTS_S=${TESTS_S:-100}
exec bash bench/bppart_gpu_call.sh
