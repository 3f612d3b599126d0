"""A stand-in GPU for ``bioaccel interact --backend gpu`` in a child process (any machine): script text the
tests' child scripts include after defining ``device_computation()``, which is called at each device
computation outside the warm-up thread. The child then runs the command line (``main(sys.argv[1:])``)
and leaves ``code`` and ``out`` (its standard output) for the script's last lines."""

#: interact._gpu.window_scores replaced by deterministic scores of the shapes the GPU path returns,
#: then the command line run
WINDOW_SCORES = r"""
def stand_in(a, S1, rbs, params, variant="fused"):
    if threading.current_thread().name != "bioaccel-gpu-warm-up":
        device_computation()
    out = []
    for rb in rbs:
        L1, L2 = params.spans(len(a), len(rb))
        wins = (np.arange(len(rb) - L2 + 1, dtype=np.int32) * 7919) % 97
        out.append((wins[None, :] + np.arange(len(a) - L1 + 1, dtype=np.int32)[:, None],
                    np.zeros(len(rb) - L2 + 1, np.int64)))
    return out
_gpu.window_scores = stand_in
from bioaccel.cli.main import main
out = io.StringIO()
code = main(sys.argv[1:], stdout=out)
"""
