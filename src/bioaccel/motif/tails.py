"""The tails of a motif's score distribution on its integer grid (:mod:`._integer`): the two searches
that every exact answer is made of, shared by thresholds and P-values here and by the scan's P-values
(:mod:`bioaccel.scan`). Numba kernels, without the GIL.

* :func:`~.coarse_grid.grid_dp` (:mod:`.coarse_grid`), a dynamic programme over a *coarse* copy of the
  grid (each entry shifted right by r bits, so rounded down): for a word u with coarse sum C(u), its
  grid score lies in [C(u) 2**r, C(u) 2**r + E], E the sum of the columns' largest remainders. The
  distribution of C gives certified bounds on every tail.
* :func:`search_prefixes`, the one depth-first word search: every word of the last k columns is scored
  and sorted once (:func:`suffix_table`); the search walks the letters of the first h = m - k columns,
  pruned wherever no completion can reach ``low``, counts whole a prefix whose every completion reaches
  ``top``, and hands each prefix of h columns (to be joined with the sorted suffixes, by binary
  search with :func:`first_above`) to its caller's :func:`visitor`. The threshold listing and the closest attainable score (:mod:`._exact_kernels`) and
  the scan's tails of many scores at once (``bioaccel.scan``) are three visitors of this one search.

>>> import numpy as np
>>> Q = np.array([[0, 1, 2, 3], [0, 0, 5, 5]], dtype=np.int64)      # 16 words, scores 0 .. 8
>>> scores, probs, tails = suffix_table(Q, 1, np.full((1, 4), 0.25))
>>> scores.tolist(), float(tails[0, first_above(scores, 4)])        # column 2's words; P(score > 4)
([0, 0, 5, 5], 0.5)
"""
import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from .coarse_grid import column_sums

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


@njit(cache=True, nogil=True, inline="always")
def word_scores(w, k, S1, S2, initial, transition, order):
    """The word w of k letters (base 4, first letter most significant) read from column 0 of two
    aligned integer matrices: ``(score1, score2, probability, context)``, the probability from the
    chain's start (``initial`` of its first ``order`` letters, then the transitions; 1.0 when k < order,
    which the caller marginalises) and the chain's context after it. COMPARE's word enumerations
    (:mod:`._compare`, :mod:`._joint`) share it, so they weigh a word alike."""
    nctx = transition.shape[0]
    a = 0                 # integer grid sums: exact in any order
    b = 0
    prob = 1.0
    ctx = 0
    for j in range(k):
        x = (w >> (2 * (k - 1 - j))) & 3
        a += S1[j, x]
        b += S2[j, x]
        if j >= order:
            prob *= transition[ctx, x]
        ctx = (ctx * 4 + x) % nctx
        if j == order - 1:
            prob = initial[ctx]
    return a, b, prob, ctx


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


def visit_prefix(search, state, t, nc, w, whole):
    """What :func:`search_prefixes` does with a prefix of h columns: implemented for each search by its
    :func:`visitor`, chosen by the search's name (``search``, a string constant). A visitor is found
    when the search is compiled, not passed as a value: a jitted function passed as an argument is a
    run-time address, which Numba cannot cache; and a name, unlike a state type of the caller's,
    reads back from Numba's cache whatever became of the caller's module."""
    raise NotImplementedError("visit_prefix runs in jitted code, for a search registered by visitor()")


def visitor(name):
    """Register the decorated function ``visit(search, state, t, nc, w, whole) -> (steps, whole)`` as
    the :func:`visit_prefix` of the searches named ``name`` (a string no other search uses: the
    module's name and the search's); it is compiled into the search (without the GIL; cached when it
    comes from a file). :func:`search_prefixes` shows one.

    >>> visitor("bioaccel.motif.tails.nothing")(lambda search, state, t, nc, w, whole: (0, whole))(
    ...     "bioaccel.motif.tails.nothing", None, 0, 0, 1.0, 0.5)
    (0, 0.5)
    """
    def register(visit):
        def typing(search, state, t, nc, w, whole):
            if isinstance(search, types.StringLiteral) and search.literal_value == name:
                return visit
            return None

        cache = not visit.__code__.co_filename.startswith("<")       # (a doctest's function has no file)
        overload(visit_prefix, jit_options={"cache": cache, "nogil": True})(typing)
        return visit

    return register


@njit(cache=True, nogil=True)
def search_prefixes(Q, h, initial, transition, order, low, top, node_cap, search, state):
    """The depth-first search over the letters of the first ``h`` columns of grid matrix ``Q`` under
    the Markov chain (``initial``, ``transition``, ``order``), in depth-first order, letters A to T,
    pruned where no completion reaches ``low``. A prefix all of whose completions reach ``top[0]``
    adds its probability to ``whole`` (and is not searched further); each prefix of h columns is
    handed to the :func:`visitor` named ``search``: ``visit_prefix(search, state, t, nc, w, whole)``,
    ``t`` its score, ``nc`` the chain's context after it, ``w`` its probability (for a prefix shorter
    than the order, the marginal of the initial k-mers that begin with it), ``whole`` the mass counted
    whole so far (the visitor adds its own share to it, so that one sum takes every term in the order
    the words come). ``top`` is a one-element array that a visitor may lower as the search goes. The
    visitor returns the steps its work cost (counted with the nodes), or -1 to stop the search, and
    ``whole``.

    Returns (finished, nodes, whole): finished False when the search stopped, at a visitor's word or
    past ``node_cap`` nodes.

    >>> @visitor("bioaccel.motif.tails.doctest")
    ... def count(search, state, t, nc, w, whole):     # a leaf's words: 4, scoring t + 0 or t + 1
    ...     state[0] += w * 4.0
    ...     return 0, whole
    >>> leaves = np.zeros(1)
    >>> Q = np.eye(4, dtype=np.int64)[:2]                 # AC scores 2; A. and .C score 1
    >>> search_prefixes(Q, 1, np.ones(1), np.ones((1, 4)), 0, 1, np.array([1]), 100,
    ...                 "bioaccel.motif.tails.doctest", leaves)
    (True, 4, 1.0)
    >>> leaves.tolist()                  # A: every word reaches 1, counted whole; C, G, T: leaves
    [12.0]
    """
    literally(search)
    nctx = transition.shape[0]
    _, _, rmin, rmax = column_sums(Q)  # the least (most) columns j.. can add
    whole = 0.0
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
            return False, nodes, whole
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
            whole += w
            letters[j] += 1
            continue
        if j < h - 1:
            ps[j + 1] = t
            pc[j + 1] = nc
            pw[j + 1] = w
            j += 1
            letters[j] = 0
            continue
        if h < order:           # a word shorter than the chain's order: the initial k-mer's marginal
            rest = order - h
            w = 0.0
            for tail in range(1 << (2 * rest)):
                w += initial[(nc << (2 * rest)) | tail]
        cost, whole = visit_prefix(search, state, t, nc, w, whole)
        if cost < 0:
            return False, nodes, whole
        nodes += cost
        letters[j] += 1
    return True, nodes, whole
