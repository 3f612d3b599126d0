"""BPMax as written (variant ``naive``): the recurrence of docs/bpmax.md cell by cell over a dense 4-D
table, as the original program of Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz keeps it.

For tests and small inputs: M^2 N^2 cells of int32, no tiling, no vectorisable inner loop (the double
reduction reads F(k1+1, j1, k2+1, j2) with a stride of N). This is the baseline the benchmark compares
the default variant against.
"""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fill_naive(a, rb, pairs, S1, S2, L1, L2):
    """Dense F[i1, j1, i2, j2] (int32, units) over the domain j1 - i1 < L1, j2 - i2 < L2; zero elsewhere.

    ``a``, ``rb``: codes of the query and of the REVERSED target; ``S1``, ``S2``: their dense
    single-strand tables; ``L1``, ``L2``: the longest interval lengths (M, N when not windowed).
    """
    M = a.shape[0]
    N = rb.shape[0]
    F = np.zeros((M, M, N, N), dtype=np.int32)
    for i1 in range(M):
        for i2 in range(N):
            F[i1, i1, i2, i2] = pairs[a[i1], rb[i2]]
    for l1 in range(1, L1 + 1):
        for l2 in range(1, L2 + 1):
            for i1 in range(M - l1 + 1):
                j1 = i1 + l1 - 1
                for i2 in range(N - l2 + 1):
                    j2 = i2 + l2 - 1
                    best = F[i1, j1, i2, j2]
                    for k1 in range(i1, j1):  # D, the double reduction
                        for k2 in range(i2, j2):
                            t = F[i1, k1, i2, k2] + F[k1 + 1, j1, k2 + 1, j2]
                            if t > best:
                                best = t
                    for k1 in range(i1, j1):  # R4 and R3
                        best = max(best, F[i1, k1, i2, j2] + S1[k1 + 1, j1], S1[i1, k1] + F[k1 + 1, j1, i2, j2])
                    for k2 in range(i2, j2):  # R2 and R1
                        best = max(best, F[i1, j1, i2, k2] + S2[k2 + 1, j2], S2[i2, k2] + F[i1, j1, k2 + 1, j2])
                    if j1 - i1 >= 4:
                        t = pairs[a[i1], a[j1]] + F[i1 + 1, j1 - 1, i2, j2]
                        if t > best:
                            best = t
                    if j2 - i2 >= 4:
                        t = pairs[rb[i2], rb[j2]] + F[i1, j1, i2 + 1, j2 - 1]
                        if t > best:
                            best = t
                    F[i1, j1, i2, j2] = best
    return F


def naive_bytes(M, N):
    return 4 * M * M * N * N
