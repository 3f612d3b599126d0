"""The tiled wide BPMax finishes' schedules (kernels/bpmax.cu bpmax_finish_eager, eager and not, S2 and
F), emulated loop by loop in plain Python on the host's launch plan (interact/_gpu_wide.diagonals and
adding) against the plain finish, cell by cell: small tiles (4 and 8), random lengths 1 to 45, with and
without a window. No GPU: tests/test_interact_gpu.py runs the kernel itself against the CPU.
"""
import random

import pytest

from bioaccel.interact._gpu_wide import adding, diagonals

SENT = -16384

def plain(N, Wb, T, S2, pair, self_):
    """The finish cell by cell, diagonal by diagonal (R1, R2, the strand-2 pair; SELF: S2 itself)."""
    F = {}
    for e in range(0, Wb):
        for i in range(N - e):
            j = i + e
            v = 0 if self_ else T[i, j]
            for k in range(i, j):
                if self_:
                    v = max(v, F[i, k] + F[k + 1, j])
                else:
                    v = max(v, S2[i, k] + F[k + 1, j], F[i, k] + S2[k + 1, j])
            if e >= 4:
                v = max(v, pair(i, j) + F[i + 1, j - 1])
            F[i, j] = v
    return F

def emulate(N, Wb, B, T, S2in, S1, pair, self_, eager):
    """bpmax_finish_eager's loops: every launch's blocks read the table as it was when the launch began
    (a snapshot) and no two blocks of a launch write one cell, so the result holds in any block order."""
    inb = lambda i, j: i < N and j < N and j >= i and j - i < Wb
    # global memory: F (or S2 when self_) cells; border slot (i, i-1) holds S1 for F, sentinel for S2
    G = {}
    for i in range(N + 1):
        for j in range(i - 9, i + Wb + 9):
            if inb(i, j):
                G[i, j] = SENT if self_ else T[i, j]
            elif j == i - 1 and not self_:
                G[i, j] = S1
            else:
                G[i, j] = SENT
    S2 = G if self_ else S2in
    def gS(i, j): return S2.get((i, j), SENT) if not self_ else G.get((i, j), SENT)
    tiles = -(-N // B)
    count = diagonals(N, Wb, B)
    for d in range(count):
        snap = dict(G)
        sF = lambda i, j: snap.get((i, j), SENT)
        sS = (lambda i, j: snap.get((i, j), SENT)) if self_ else gS
        writes = {}
        blocks = [(I, d, True) for I in range(tiles - d)]
        if eager:
            for D in adding(d, count):
                blocks += [(I, D, False) for I in range(tiles - D)]
        for I, D, closing in blocks:
            IB, JB = I * B, (I + D) * B
            acc = {}
            def middle(k0, k1):
                k1 = min(k1, N)
                for r in range(B):
                    for c in range(B):
                        for k in range(k0, k1):
                            i, j = IB + r, JB + c
                            a = (sS(i, k), sF(i, k)); b = (sF(k + 1, j), sS(k + 1, j))
                            if not inb(i, k): a = (SENT, SENT)   # band_vector: slots out of band hold sentinels
                            if not inb(k + 1, j): b = (SENT, SENT)
                            v = max(a[0] + b[0], a[1] + b[1])
                            acc[r, c] = max(acc.get((r, c), 2 * SENT), v)
            if not eager:
                middle(IB + B, JB)
            elif d >= 2:
                K1, K2 = I + d - 1, I + D - d + 1
                middle(K1 * B, K1 * B + B)
                if K2 != K1: middle(K2 * B, K2 * B + B)
            if not closing:
                for (r, c), v in acc.items():
                    i, j = IB + r, JB + c
                    if inb(i, j):
                        assert (i, j) not in writes
                        writes[i, j] = max(sF(i, j), v)
                continue
            Pc = {}
            for r in range(B + 1):
                for c in range(B):
                    i, j = IB + r, JB + c
                    w = (sF(i, j), sS(i, j))
                    if self_ and r < B:
                        v = max(0, w[0]); w = (v, v) if inb(i, j) else (SENT, SENT)
                    Pc[r, c] = list(w)
            PdI = {(r, x): (sF(IB + r, IB + x), sS(IB + r, IB + x)) for r in range(B) for x in range(B)}
            PdJ = {(y, c): (sF(JB + y, JB + c), sS(JB + y, JB + c)) for y in range(B) for c in range(B)}
            left = [sF(IB + x + 1, JB - 1) if d > 0 and inb(IB + x + 1, JB - 1) else SENT for x in range(B)]
            if d > 1:
                for (r, c), v in acc.items():
                    Pc[r, c][0] = max(Pc[r, c][0], v)
                    if self_: Pc[r, c][1] = Pc[r, c][0]
            for s in range(1 if d == 0 else 1 - B, B):
                new = {}
                for cell in range(B):
                    r = (-s if s < 0 else 0) + cell; c = r + s; i, j = IB + r, JB + c
                    if not (r < B and c < B and inb(i, j)): continue
                    both = SENT * 2
                    if d == 0:
                        for x in range(r, c):
                            both = max(both, Pc[r, x][1] + Pc[x + 1, c][0], Pc[r, x][0] + Pc[x + 1, c][1])
                    else:
                        for x in range(r, B):
                            both = max(both, PdI[r, x][1] + Pc[x + 1, c][0], PdI[r, x][0] + Pc[x + 1, c][1])
                        for y in range(0, c):
                            both = max(both, Pc[r, y][1] + PdJ[y + 1, c][0], Pc[r, y][0] + PdJ[y + 1, c][1])
                    v = max(Pc[r, c][0], both)
                    if j - i >= 4:
                        v = max(v, pair(i, j) + (Pc[r + 1, c - 1][0] if c >= 1 else left[r]))
                    new[r, c] = v
                for (r, c), v in new.items():   # the barrier: cells of one step read none of each other
                    Pc[r, c][0] = v
                    if self_: Pc[r, c][1] = v
            for r in range(B):
                for c in range(B):
                    i, j = IB + r, JB + c
                    if inb(i, j):
                        assert (i, j) not in writes
                        writes[i, j] = Pc[r, c][0]
        G.update(writes)
    return {k: v for k, v in G.items() if inb(*k)}



@pytest.mark.parametrize("eager", [False, True])
def test_tiled_finish_schedule_equals_the_plain_finish(eager):
    rng = random.Random(1 + eager)
    for _ in range(40):
        N = rng.randint(1, 45)
        Wb = N if rng.random() < 0.6 else rng.randint(1, N)
        B = rng.choice([4, 8])
        codes = [rng.randrange(5) for _ in range(N)]
        scores = [[rng.randint(-3, 9) for _ in range(5)] for _ in range(5)]

        def pair(i, j):
            return scores[codes[i]][codes[j]]
        T = {(i, j): rng.randint(-5, 20) for i in range(N) for j in range(i, min(N, i + Wb))}
        S2 = plain(N, Wb, None, None, pair, True)
        assert emulate(N, Wb, B, None, None, 0, pair, True, eager) == S2, (N, Wb, B)
        S2g = {(i, j): S2.get((i, j), SENT) for i in range(N + 1) for j in range(i - 9, i + Wb + 9)}
        got = emulate(N, Wb, B, T, S2g, rng.randint(-3, 7), pair, False, eager)
        assert got == plain(N, Wb, T, S2, pair, False), (N, Wb, B)
