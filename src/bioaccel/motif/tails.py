"""The tails of a motif's score distribution on its integer grid (:mod:`._integer`): the two searches
that every exact answer is made of, shared by thresholds and P-values here and by the scan's P-values
(:mod:`bioaccel.scan`). Numba kernels, without the GIL.

* :func:`~.coarse_grid.grid_dp` (:mod:`.coarse_grid`), a dynamic programme over a *coarse* copy of the
  grid (each entry shifted right by r bits, so rounded down): for a word u with coarse sum C(u), its
  grid score lies in [C(u) 2**r, C(u) 2**r + E], E the sum of the columns' largest remainders. The
  distribution of C gives certified bounds on every tail.
* :func:`search_prefixes`, the one depth-first word search: every word of the last k columns is scored
  and sorted once (:func:`suffix_table`); the search walks the letters of the first h = m - k columns,
  pruned wherever no completion can reach ``low``, and hands each prefix whose every completion
  reaches ``top`` (``ABOVE``: its weight counts whole) and each prefix of h columns (``LEAF``: to be
  joined with the sorted suffixes, by binary search with :func:`first_above`) to its caller's
  :func:`visitor`. The threshold listing and the closest attainable score (:mod:`._exact_kernels`) and
  the scan's tails of many scores at once (``bioaccel.scan``) are three visitors of this one search.

>>> import numpy as np
>>> Q = np.array([[0, 1, 2, 3], [0, 0, 5, 5]], dtype=np.int64)      # 16 words, scores 0 .. 8
>>> scores, probs, tails = suffix_table(Q, 1, np.full((1, 4), 0.25))
>>> scores.tolist(), float(tails[0, first_above(scores, 4)])        # column 2's words; P(score > 4)
([0, 0, 5, 5], 0.5)
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from .coarse_grid import column_sums

#: What :func:`search_prefixes` hands its visitor: a prefix all of whose completions reach ``top``
#: (its weight counts whole), or a prefix of h columns (to join with the suffix table).
ABOVE, LEAF = 0, 1


@njit(cache=True, nogil=True)
def word_probabilities(k, transition):
    """``probs[c, w]``: the probability of the word w of k letters (in base 4, first letter most
    significant) after the chain's context c.

    >>> import numpy as np
    >>> word_probabilities(1, np.array([[0.1, 0.2, 0.3, 0.4]])).tolist()
    [[0.1, 0.2, 0.3, 0.4]]
    """
    n = 1 << (2 * k)
    nctx = transition.shape[0]
    probs = np.ones((nctx, n), np.float64)
    for w in range(n):
        for c in range(nctx):
            ctx = c
            pw = 1.0
            for i in range(k):
                x = (w >> (2 * (k - 1 - i))) & 3
                pw *= transition[ctx, x]
                ctx = (ctx * 4 + x) % nctx
            probs[c, w] = pw
    return probs


@njit(cache=True, nogil=True)
def suffix_table(Q, h, transition):
    """Every word of columns h..m-1: scores sorted ascending, probabilities given each context of the
    chain (the last ``order`` letters before column h), and their tails (sums from each index up)."""
    m = Q.shape[0]
    k = m - h
    n = 1 << (2 * k)
    nctx = transition.shape[0]
    scores = np.zeros(n, np.int64)
    for w in range(n):
        s = 0
        for i in range(k):
            s += Q[h + i, (w >> (2 * (k - 1 - i))) & 3]
        scores[w] = s
    probs = word_probabilities(k, transition)
    idx = np.argsort(scores)
    s_sorted = scores[idx]
    p_sorted = np.empty((nctx, n), np.float64)
    tails = np.zeros((nctx, n + 1), np.float64)
    for c in range(nctx):
        for i in range(n):
            p_sorted[c, i] = probs[c, idx[i]]
        for i in range(n - 1, -1, -1):
            tails[c, i] = tails[c, i + 1] + p_sorted[c, i]
    return s_sorted, p_sorted, tails


@njit(cache=True, nogil=True)
def first_above(a, x):
    """First index i with a[i] > x (``a`` sorted ascending).

    >>> import numpy as np
    >>> first_above(np.array([1, 3, 3, 5]), 3), first_above(np.array([1, 3, 3, 5]), 0)
    (3, 0)
    """
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def split_point(Q, order, suffix_columns):
    """h, the number of prefix columns: the last min(suffix_columns, m/2) columns are tabulated.

    >>> import numpy as np
    >>> split_point(np.zeros((20, 4), np.int64), 0, 8), split_point(np.zeros((5, 4), np.int64), 0, 8)
    (12, 2)
    """
    m = Q.shape[0]
    k = min(suffix_columns, (m + 1) // 2, m - min(order, m))
    return m - k


def visit_prefix(state, kind, t, nc, w):
    """What :func:`search_prefixes` does with a prefix: implemented for each search, chosen by the type
    of its ``state`` (see :func:`visitor`). A visitor is found when the search is compiled, not passed
    as a value: a jitted function passed as an argument is a run-time address, which Numba cannot
    cache."""
    raise NotImplementedError("visit_prefix runs in jitted code, for a state registered by visitor()")


def visitor(state_class):
    """Register the decorated function ``visit(state, kind, t, nc, w) -> steps`` as the
    :func:`visit_prefix` of the searches whose ``state`` is a ``state_class`` (a namedtuple class of
    the search's own); the function is compiled into the search (without the GIL; cached when it
    comes from a file). :func:`search_prefixes` shows one.

    >>> import collections
    >>> visitor(collections.namedtuple("Nothing", "x"))(lambda state, kind, t, nc, w: 0)(None, 0, 0, 0, 1.0)
    0
    """
    def register(visit):
        def typing(state, kind, t, nc, w):
            if isinstance(state, types.BaseNamedTuple) and state.instance_class is state_class:
                return visit
            return None

        cache = not visit.__code__.co_filename.startswith("<")       # (a doctest's function has no file)
        overload(visit_prefix, jit_options={"cache": cache, "nogil": True})(typing)
        return visit

    return register


@njit(cache=True, nogil=True)
def search_prefixes(Q, h, initial, transition, order, low, top, node_cap, state):
    """The depth-first search over the letters of the first ``h`` columns of grid matrix ``Q`` under
    the Markov chain (``initial``, ``transition``, ``order``), pruned where no completion reaches
    ``low``. Each other prefix is handed to the :func:`visitor` of ``state`` (its own namedtuple),
    ``visit_prefix(state, kind, t, nc, w)``, in depth-first order, letters A to T: ``kind`` ABOVE for
    a prefix all of whose completions reach ``top[0]`` (not searched further), LEAF for a prefix of h
    columns; ``t`` its score, ``nc`` the chain's context after it, ``w`` its probability (for a prefix
    shorter than the order, the marginal of the initial k-mers that begin with it). ``top`` is a
    one-element array that a visitor may lower as the search goes. The visitor returns the steps its
    work cost (counted with the nodes) or -1 to stop the search.

    Returns (finished, nodes): finished False when the search stopped, at a visitor's word or past
    ``node_cap`` nodes.

    >>> import collections
    >>> Count = collections.namedtuple("Count", "found")
    >>> @visitor(Count)
    ... def count(state, kind, t, nc, w):        # the words of each kind (a leaf: 4 words)
    ...     state.found[kind] += w * (4.0 if kind == LEAF else 1.0)
    ...     return 0
    >>> state = Count(np.zeros(2))
    >>> Q = np.eye(4, dtype=np.int64)[:2]                  # AC scores 2; A. and .C score 1
    >>> search_prefixes(Q, 1, np.ones(1), np.ones((1, 4)), 0, 1, np.array([1]), 100, state)
    (True, 4)
    >>> state.found.tolist()            # A: every word reaches 1; C, G, T: leaves of 4 words each
    [1.0, 12.0]
    """
    nctx = transition.shape[0]
    _, _, rmin, rmax = column_sums(Q)  # the least (most) columns j.. can add
    nodes = 0
    letters = np.zeros(h + 1, np.int64)
    ps = np.zeros(h + 1, np.int64)
    pw = np.ones(h + 1)
    pc = np.zeros(h + 1, np.int64)
    j = 0
    while j >= 0:
        if letters[j] > 3:
            j -= 1
            if j >= 0:
                letters[j] += 1
            continue
        nodes += 1
        if nodes > node_cap:
            return False, nodes
        x = letters[j]
        t = ps[j] + Q[j, x]
        ctx = pc[j]
        nc = (ctx * 4 + x) % nctx
        if j < order:
            w = initial[nc] if j + 1 == order else 1.0
        else:
            w = pw[j] * transition[ctx, x]
        if t + rmax[j + 1] < low:                       # no completion reaches low
            letters[j] += 1
            continue
        if j + 1 >= order and t + rmin[j + 1] >= top[0]:     # every completion reaches top
            cost = visit_prefix(state, ABOVE, t, nc, w)
        elif j == h - 1:
            if h < order:       # a word shorter than the chain's order: the initial k-mer's marginal
                rest = order - h
                w = 0.0
                for tail in range(1 << (2 * rest)):
                    w += initial[(nc << (2 * rest)) | tail]
            cost = visit_prefix(state, LEAF, t, nc, w)
        else:
            ps[j + 1] = t
            pc[j + 1] = nc
            pw[j + 1] = w
            j += 1
            letters[j] = 0
            continue
        if cost < 0:
            return False, nodes
        nodes += cost
        letters[j] += 1
    return True, nodes
