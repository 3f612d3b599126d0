"""BPMax on the GPU: the order of a launch group's levels (_gpu._launch), one after another or with the next level's
interior products beside a level's finish (``BPMaxSizes.overlap_products``; issue 29, helper bpmaxco).

Level l1's products sum over the splits k1 of its query interval [i1, j1]. The two edge splits (k1 = i1 and j1 - 1)
read level l1 - 1; every other ("interior") split reads levels l1 - 2 and below only, final with their paired copies
before level l1 - 1's finish starts. With the overlap, level l1's interior products (bpmax_products_pairs, PASS 1)
run on a low-priority stream as soon as level l1 - 2's paired copy is written, beside level l1 - 1's finish on a
high-priority stream (its blocks are placed first as SMs free up), and level l1's edge products (PASS 2, from the
cells PASS 1 stored) wait for both. The same cells as the single pass: max is associative. Overlap 2: level l1's
interior products also wait for level l1 - 1's edge products, so that they start with level l1 - 1's finish blocks
already pending (with 1 they start beside that edge pass and may hold the SMs the finish's larger blocks wait for).
"""
from ..runtime import gpu as _gpu

HIGHEST = -5      # a stream's priority: CUDA clamps it to the device's highest (-5 on Hopper; fold/_gpu_tiled.py too)
FIRST_SPLIT = 4   # the first level whose products have an interior split (k1 = i1 + 1 at l1 = 4)
TRACE = None      # bench/bpmax_overlap_timeline.py: a list that receives (level, what, start, stop) per launch, the
#                   CUDA events recorded on the launch's stream around it (none synchronised; what: "products 0 / 1 /
#                   2" by pass, "finish" with the paired copy)


def split_levels(L1: int, overlap: bool) -> list:
    """The levels of 1 .. L1 whose products run as an interior and an edge pass (``overlap``), the others in one.

    >>> split_levels(6, True), split_levels(6, False)
    ([4, 5, 6], [])
    """
    return list(range(FIRST_SPLIT, L1 + 1)) if overlap else []


def run_levels(L1: int, products, finish, overlap: int) -> None:
    """Levels 1 .. L1: ``products(l1, pass_)`` (pass_ 0 every split, 1 the interior ones, 2 the edge ones) then
    ``finish(l1)`` (the finish and the paired copy of the level). Without ``overlap`` in order on the current stream;
    with it (1 or 2), as the module says, the current stream waiting for the last level. Needs a GPU for ``overlap``
    or a ``TRACE``."""
    products, finish = _traced(products, "products"), _traced(finish, "finish")
    if not overlap:
        for l1 in range(1, L1 + 1):
            products(l1, 0)
            finish(l1)
        return
    cp = _gpu.cupy()
    caller = cp.cuda.get_current_stream()
    high = cp.cuda.Stream(non_blocking=True, priority=HIGHEST)
    low = cp.cuda.Stream(non_blocking=True, priority=0)      # the lowest (the default's)
    begun = caller.record()
    high.wait_event(begun)
    low.wait_event(begun)
    split = set(split_levels(L1, True))
    interior = {}      # level -> event: its interior products stored
    copied = begun     # event: every level below the one in hand final, with its paired copy
    for l1 in range(1, L1 + 1):
        with high:
            if l1 in split:
                high.wait_event(interior.pop(l1))
            products(l1, 2 if l1 in split else 0)
            edged = high.record() if overlap == 2 else copied
        if l1 + 1 in split:   # reads levels l1 - 1 and below: final once `copied` is (and `edged`, after it)
            low.wait_event(edged)
            with low:
                products(l1 + 1, 1)
            interior[l1 + 1] = low.record()
        with high:
            finish(l1)
            copied = high.record()
    caller.wait_event(copied)


def _traced(launch, what):
    """``launch(l1, *rest)`` itself, or with a ``TRACE`` list, wrapped to append (l1, what and pass, start, stop)."""
    if TRACE is None:
        return launch
    cp = _gpu.cupy()

    def traced(l1, *rest):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch(l1, *rest)
        stop.record()
        TRACE.append((l1, " ".join(map(str, (what, *rest))), start, stop))
    return traced
