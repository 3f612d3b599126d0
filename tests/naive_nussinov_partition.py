"""Plain-Python references for the Nussinov (base-pair-counting) partition function: every structure
enumerated (tiny RNAs), and the textbook recurrences in log space (no range limit, short RNAs). No Numba,
no NumPy. A structure weighs exp(sum of its pairs' weights); a pair (i, j) needs a positive weight and
at least ``min_loop`` bases inside. Written apart from the package's form on purpose: the inside splits
on the FIRST base (the package's on the last), and the probabilities come from McCaskill's
enclosing-pair sum (the package's from an outside table).
"""
import math

PAIRS = {"AU": ("AU", "UA"), "GC": ("GC", "CG"), "GU": ("GU", "UG")}


def pair_weight(x, y, weights):
    """The weight of the pair x-y (letters) under ``weights`` {"AU": w, "GC": w, "GU": w}; None if none."""
    for name, letters in PAIRS.items():
        if x + y in letters and weights.get(name, 0) > 0:
            return float(weights[name])
    return None


def can_pair(s, i, j, weights, min_loop):
    return j - i - 1 >= min_loop and pair_weight(s[i], s[j], weights) is not None


def structures(s, weights, min_loop, lo=0, hi=None):
    """Every structure of s[lo:hi] as a tuple of pairs (i, j), i < j."""
    hi = len(s) if hi is None else hi
    if hi - lo <= 0:
        return [()]
    out = [rest for rest in structures(s, weights, min_loop, lo + 1, hi)]          # lo unpaired
    for k in range(lo + 1, hi):
        if can_pair(s, lo, k, weights, min_loop):
            for inner in structures(s, weights, min_loop, lo + 1, k):
                for rest in structures(s, weights, min_loop, k + 1, hi):
                    out.append(((lo, k),) + inner + rest)
    return out


def brute_force(s, weights, min_loop):
    """(log Z, {(i, j): probability}) from every structure of s (tiny s only)."""
    total = 0.0
    per_pair = {}
    all_structures = structures(s, weights, min_loop)
    top = max(sum(pair_weight(s[i], s[j], weights) for i, j in st) for st in all_structures)
    for st in all_structures:
        w = math.exp(sum(pair_weight(s[i], s[j], weights) for i, j in st) - top)
        total += w
        for pair in st:
            per_pair[pair] = per_pair.get(pair, 0.0) + w
    return top + math.log(total), {pair: w / total for pair, w in per_pair.items()}


def log_sum(values):
    """log(sum(exp(v))) of a list of logs (-inf for an empty sum)."""
    values = [v for v in values if v != -math.inf]
    if not values:
        return -math.inf
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def log_inside(s, weights, min_loop):
    """lq[i][j] = log Q of s[i:j] (half-open; lq[i][i] = 0), split on the first base:
    Q[i, j] = Q[i+1, j] + sum_k w(i, k) Q[i+1, k] Q[k+1, j]."""
    n = len(s)
    lq = [[0.0] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            terms = [lq[i + 1][j]]
            for k in range(i + 1, j):
                if can_pair(s, i, k, weights, min_loop):
                    terms.append(pair_weight(s[i], s[k], weights) + lq[i + 1][k] + lq[k + 1][j])
            lq[i][j] = log_sum(terms)
    return lq


def log_partition(s, weights, min_loop):
    """(log Z, {(k, l): probability}) by McCaskill's sum over the pair that encloses (k, l) directly:
    P(k, l) = Q[0, k] B(k, l) Q[l+1, n] / Z + sum_{i < k, j > l} P(i, j) Q[i+1, k] B(k, l) Q[l+1, j]
    / Q[i+1, j], with B(k, l) = w(k, l) Q[k+1, l]; all in logs."""
    n = len(s)
    lq = log_inside(s, weights, min_loop)
    log_z = lq[0][n]
    log_p = {}
    pairs = [(k, l) for k in range(n) for l in range(k + 1, n) if can_pair(s, k, l, weights, min_loop)]
    for k, l in sorted(pairs, key=lambda p: p[0] - p[1]):   # widest first: enclosing pairs are known
        lb = pair_weight(s[k], s[l], weights) + lq[k + 1][l]
        terms = [lq[0][k] + lb + lq[l + 1][n] - log_z]
        for (i, j), lp in log_p.items():
            if i < k and j > l:
                terms.append(lp + lq[i + 1][k] + lb + lq[l + 1][j] - lq[i + 1][j])
        log_p[(k, l)] = log_sum(terms)
    return log_z, {pair: math.exp(lp) for pair, lp in log_p.items()}
