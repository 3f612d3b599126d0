"""Slow, obviously-correct references. Plain Python, no Numba, no NumPy tricks."""

WEIGHT_NAMES = {frozenset("AU"): "au", frozenset("GC"): "gc", frozenset("GU"): "gu"}


def pair_weight(x, y, params):
    """Weight of pairing letters x and y under ``params`` (a FoldParams), in units; 0 = no pair."""
    x, y = x.upper().replace("T", "U"), y.upper().replace("T", "U")
    name = WEIGHT_NAMES.get(frozenset(x + y)) if x != y else None
    if name is None:
        return 0
    return round(getattr(params, name) * params.unit)


def nussinov_table(seq, params):
    """C[i][j] for 0 <= i <= j < n, straight from the recurrence in bioaccel.fold._model."""
    n = len(seq)
    C = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            best = 0
            w = pair_weight(seq[i], seq[j], params)
            if w > 0 and j - i - 1 >= params.min_loop:
                inner = C[i + 1][j - 1] if i + 1 <= j - 1 else 0
                best = inner + w
            for k in range(i, j):
                best = max(best, C[i][k] + C[k + 1][j])
            C[i][j] = best
    return C


def nussinov_score(seq, params):
    """Optimal score in units (0 for the empty sequence)."""
    return nussinov_table(seq, params)[0][len(seq) - 1] if seq else 0


def structure_score(seq, structure, params):
    """Score in units of a dot-bracket structure, checking that it is valid under ``params``.

    Raises AssertionError for unbalanced brackets, a disallowed pair or a too-short hairpin.
    """
    assert len(structure) == len(seq), "structure and sequence differ in length"
    stack, total = [], 0
    for j, ch in enumerate(structure):
        if ch == "(":
            stack.append(j)
        elif ch == ")":
            assert stack, f"unbalanced ')' at {j}"
            i = stack.pop()
            w = pair_weight(seq[i], seq[j], params)
            assert w > 0, f"pair ({i}, {j}) {seq[i]}{seq[j]} is not allowed"
            assert j - i - 1 >= params.min_loop, f"pair ({i}, {j}) encloses fewer than {params.min_loop}"
            total += w
        else:
            assert ch == ".", f"unexpected character {ch!r}"
    assert not stack, "unbalanced '('"
    return total


def nussinov_structure(seq, params, table=None):
    """The dot-bracket that the shared tie-break rule (bioaccel.fold._traceback) picks, from the table
    (``nussinov_table(seq, params)`` unless given)."""
    n = len(seq)
    if n == 0:
        return ""
    C = table if table is not None else nussinov_table(seq, params)

    def at(i, j):
        return C[i][j] if i <= j else 0

    out = ["."] * n
    stack = [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 1 or C[i][j] == 0:
            continue
        v = C[i][j]
        w = pair_weight(seq[i], seq[j], params)
        if w > 0 and j - i - 1 >= params.min_loop and at(i + 1, j - 1) + w == v:
            out[i], out[j] = "(", ")"
            stack.append((i + 1, j - 1))
            continue
        k = next(k for k in range(i, j) if C[i][k] + C[k + 1][j] == v)
        stack.append((k + 1, j))
        stack.append((i, k))
    return "".join(out)
