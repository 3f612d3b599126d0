"""QIa's and QIm's double sums of the windowed sweep as register-blocked products: the kernels of the
``blocked`` variant (:mod:`._partition_band_group`), and its sums along the target alone.

At reversed target row r and query end a1, for every start a0 (docs/bppart.md, "bioaccel's form"):
```
acc_a[a1 - a0, d] = sum_{a0 < c < a1} sum_{j = 1 .. d} QIac([a0, c), r, r + j) QI([c, a1), r + j, r + d)
acc_m[a1 - a0, d] = sum_{a0 < c < a1} sum_{j = 1 .. d} QF([a0, c), r, r + j) QIac([c, a1), r + j, r + d)
```
For one (c, a1) this is a product of a matrix of row r's cells (starts a0 x lengths j) with one of
later rows' (rows r + j x ends r + d), upper triangular. The row form (the ``rows`` variant) adds one
output row segment per split point and ring row, loading and storing it for every multiply-add: 1.8 G
multiply-adds a second per core. Here a tile of 4 output rows x 16 ends stays in 16 vector registers
of 4 doubles over the whole sum over j: per j, 4 row loads and 4 broadcasts feed 16 vector multiply-adds
(25 G multiply-adds a second per core on the 2-core machine with the operands in cache). The right
operand is read along its rows by absolute end column, so each ring row is kept with ``LEFT`` zeros
before it (the tile's lengths below 0, its lower triangle) and ``RIGHT`` after it (ends past the row's
last): ``QIr[A, slot, LEFT + len]``. In absolute columns the rows a group of target rows reads past
itself are the same for all of them, so a tile's 4 output rows are any 4 (start, row) pairs
(:func:`cross_group`): no tile repeats a row for lack of starts.

Numba has no vector type: :data:`lanes` is one (four float64 in an LLVM vector, so that they stay in a
register), with the operations the tiles need (``_zero``, ``_load``, ``_fma``, ``_add_to``); :data:`lanes8`
is eight (an AVX-512 register) with ``_zero8``, ``_load8``, ``_fma8``, ``_add_to8``; both made by
:func:`_vector_ops`.
"""
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

#: Zero cells before each ring row (a tile's lengths down to -15) and after it (its ends up to +15).
LEFT, RIGHT = 16, 16
_WIDTH = 16                         # ends per tile: four vectors of four
class _Lanes(types.Type):
    """``width`` float64 in one LLVM vector: four, a register of AVX2 (halves on SSE2); eight, a register
    of AVX-512 (two of AVX2)."""

    def __init__(self, width):
        self.width = width      # the LLVM type is made from it where needed (an int pickles into caches)
        super().__init__(name=f"float64x{width}")


@register_model(_Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), fe_type.width))


def _vector_ops(width):
    """:class:`_Lanes` of ``width`` and its intrinsics: zeros; a load of array[index:index + width] of a
    contiguous 1-D float64 array; acc + x * y with x a float64 broadcast to every lane, one rounding (a
    fused multiply-add); array[index:index + width] += value. No bounds checks."""
    kind, vector = _Lanes(width), ir.VectorType(ir.DoubleType(), width)

    def address(context, builder, array_type, array, index):
        data = context.make_array(array_type)(context, builder, array).data
        return builder.bitcast(builder.gep(data, [index]), vector.as_pointer())

    @intrinsic
    def zero(typingctx):
        def codegen(context, builder, signature, args):
            return ir.Constant(vector, [0.0] * width)
        return kind(), codegen

    @intrinsic
    def load(typingctx, array, index):
        def codegen(context, builder, signature, args):
            return builder.load(address(context, builder, signature.args[0], args[0], args[1]), align=8)
        return kind(array, types.intp), codegen

    @intrinsic
    def fma(typingctx, acc, x, y):
        def codegen(context, builder, signature, args):
            acc, x, y = args
            one = builder.insert_element(ir.Constant(vector, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
            broadcast = builder.shuffle_vector(one, ir.Constant(vector, ir.Undefined),
                                               ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width))
            fused = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vector, [vector] * 3),
                                                   f"llvm.fma.v{width}f64")
            return builder.call(fused, [broadcast, y, acc])
        return kind(kind, types.float64, kind), codegen

    @intrinsic
    def add_to(typingctx, array, index, value):
        def codegen(context, builder, signature, args):
            at = address(context, builder, signature.args[0], args[0], args[1])
            builder.store(builder.fadd(builder.load(at, align=8), args[2]), at, align=8)
            return context.get_dummy_value()
        return types.none(array, types.intp, kind), codegen

    return kind, zero, load, fma, add_to


lanes, _zero, _load, _fma, _add_to = _vector_ops(4)
lanes8, _zero8, _load8, _fma8, _add_to8 = _vector_ops(8)


def _prefetch_codegen(write):
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = ir.IntType(8).as_pointer()
        address = builder.bitcast(builder.gep(data, [args[1]]), byte)
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
                                              "llvm.prefetch.p0")
        builder.call(hint, [address, ir.Constant(i32, write), ir.Constant(i32, 2), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return codegen


@intrinsic
def _prefetch(typingctx, array, index):
    """Ask for the cache line of array[index] (contiguous float64, no bounds check; a hint, no load)."""
    return types.none(array, types.intp), _prefetch_codegen(0)


@intrinsic
def _prefetch_write(typingctx, array, index):
    """Ask for the cache line of array[index] to write it (``prefetchw``; contiguous float64, a hint)."""
    return types.none(array, types.intp), _prefetch_codegen(1)


def wide_vectors() -> bool:
    """Whether Numba builds for a CPU with AVX-512 (``NUMBA_CPU_FEATURES`` where set, else this host's):
    where it does not, :data:`lanes8`'s registers are split in two, and tiles of them spill.

    >>> isinstance(wide_vectors(), bool)
    True
    """
    import llvmlite.binding as llvm
    from numba.core import config

    if config.CPU_FEATURES is not None:
        return "+avx512f" in config.CPU_FEATURES.split(",")
    try:
        return "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")
    except RuntimeError:   # LLVM cannot read this host's features (some platforms): the four-lane tiles
        return False


@njit(cache=True, nogil=True)
def _add_row(row, d0, t0, t1, t2, t3):
    """row[d0:d0 + 16] += the four vectors."""
    _add_to(row, d0, t0)
    _add_to(row, d0 + 4, t1)
    _add_to(row, d0 + 8, t2)
    _add_to(row, d0 + 12, t3)


@njit(cache=True, nogil=True)
def tile_pair(x0, x1, Y, rows, d0, n, out0, out1):
    """out0[d0 + t] += sum_{j = 1 .. n} x0[j] Y[rows[j], LEFT + d0 + t - j], out1 likewise with x1, t < 16:
    two rows against one right operand (a query interval's T1 and QIac against the target alone)."""
    a00 = a01 = a02 = a03 = _zero()
    a10 = a11 = a12 = a13 = _zero()
    for j in range(1, n + 1):
        y = Y[rows[j]]
        o = LEFT + d0 - j
        y0, y1, y2, y3 = _load(y, o), _load(y, o + 4), _load(y, o + 8), _load(y, o + 12)
        v = x0[j]
        a00, a01, a02, a03 = _fma(a00, v, y0), _fma(a01, v, y1), _fma(a02, v, y2), _fma(a03, v, y3)
        v = x1[j]
        a10, a11, a12, a13 = _fma(a10, v, y0), _fma(a11, v, y1), _fma(a12, v, y2), _fma(a13, v, y3)
    _add_row(out0, d0, a00, a01, a02, a03)
    _add_row(out1, d0, a10, a11, a12, a13)


@njit(cache=True, nogil=True)
def near_tile(a0, a1, n, d0, s, idx, QIac, QF, QIr, QIacr, rows, acc_a, acc_m):
    """acc_a[a1 - a0, d0 + t] += sum_{a0 < c < a1} sum_{j = 1 .. n} QIac([a0, c), j) QIr([c, a1), rows[j], d0 + t - j),
    and acc_m likewise with QF and QIacr, t < 16: one interval's terms of a few rows (those of its group)."""
    a0v = a1v = a2v = a3v = _zero()
    m0 = m1 = m2 = m3 = _zero()
    for c in range(a0 + 1, a1):
        A1, A2 = idx[a0, c], idx[c, a1]
        xa, xm, ya, ym = QIac[A1, s], QF[A1], QIr[A2], QIacr[A2]
        for j in range(1, n + 1):
            o = LEFT + d0 - j
            y = ya[rows[j]]
            v = xa[j]
            a0v, a1v = _fma(a0v, v, _load(y, o)), _fma(a1v, v, _load(y, o + 4))
            a2v, a3v = _fma(a2v, v, _load(y, o + 8)), _fma(a3v, v, _load(y, o + 12))
            y = ym[rows[j]]
            v = xm[j]
            m0, m1 = _fma(m0, v, _load(y, o)), _fma(m1, v, _load(y, o + 4))
            m2, m3 = _fma(m2, v, _load(y, o + 8)), _fma(m3, v, _load(y, o + 12))
    _add_row(acc_a, d0, a0v, a1v, a2v, a3v)
    _add_row(acc_m, d0, m0, m1, m2, m3)


@njit(cache=True, nogil=True)
def cross_group(c, a1, lo, b0, K, D0, idx, QIac, QFs, QIr, QIacr, rows0, Ds, acc, L1):
    """The far terms of split point c of QIa's and QIm's double sums of every query interval [a0, a1),
    lo <= a0 < c, at the group's rows b0 - k, k < K (their ring slots from ``rows0``: row b0 + j in
    ``rows0[j]``; row b0 - k's QF in ``QFs[k]``, its last length ``Ds[k]``, its sums in ``acc[k]``):
    the terms that read rows b0 + 1 .. b0 + D0 of [c, a1)'s rings. In absolute target columns these
    rows and columns are the same for every row of the group, so a tile's 4 rows are any 4 (a0, k)."""
    R = rows0.shape[0]
    A2 = idx[c, a1]
    ya, ym = QIr[A2], QIacr[A2]
    for B in range(1, D0 + 1, _WIDTH):      # columns b0 + B .. b0 + B + 15
        n = min(D0, B + _WIDTH - 1)         # rows b0 + 1 .. b0 + n
        p, pairs = 0, (c - lo) * K
        while p < pairs:
            cnt = 0
            A10 = A11 = A12 = A13 = 0
            k0 = k1 = k2 = k3 = 0
            l0 = l1 = l2 = l3 = 0
            while p < pairs and cnt < 4:
                a0, k = lo + p // K, p % K
                p += 1
                if B > Ds[k] - k:           # none of row b0 - k's far ends in this tile
                    continue
                A1 = idx[a0, c]
                if cnt == 0:
                    A10, k0, l0 = A1, k, a1 - a0
                elif cnt == 1:
                    A11, k1, l1 = A1, k, a1 - a0
                elif cnt == 2:
                    A12, k2, l2 = A1, k, a1 - a0
                else:
                    A13, k3, l3 = A1, k, a1 - a0
                cnt += 1
            if cnt == 0:
                break
            if cnt < 4:                     # the tile's empty places repeat its first (never stored)
                A13, k3, l3 = A10, k0, l0
                if cnt < 3:
                    A12, k2, l2 = A10, k0, l0
                if cnt < 2:
                    A11, k1, l1 = A10, k0, l0
            s0, s1, s2, s3 = (b0 - k0) % R, (b0 - k1) % R, (b0 - k2) % R, (b0 - k3) % R
            _tile_pairs(QIac[A10, s0, k0:], QIac[A11, s1, k1:], QIac[A12, s2, k2:], QIac[A13, s3, k3:], ya, rows0, B,
                        n, acc[k0, l0], B + k0, acc[k1, l1], B + k1, acc[k2, l2], B + k2, acc[k3, l3], B + k3, cnt)
            _tile_pairs(QFs[k0, A10, k0:], QFs[k1, A11, k1:], QFs[k2, A12, k2:], QFs[k3, A13, k3:], ym, rows0, B, n,
                        acc[k0, L1 + 1 + l0], B + k0, acc[k1, L1 + 1 + l1], B + k1, acc[k2, L1 + 1 + l2], B + k2,
                        acc[k3, L1 + 1 + l3], B + k3, cnt)


@njit(cache=True, nogil=True)
def _tile_pairs(x0, x1, x2, x3, Y, rows, B, n, o0, e0, o1, e1, o2, e2, o3, e3, cnt):
    """o_i[e_i + t] += sum_{j = 1 .. n} x_i[j] Y[rows[j], LEFT + B + t - j] for i < cnt, t < 16."""
    a00 = a01 = a02 = a03 = _zero()
    a10 = a11 = a12 = a13 = _zero()
    a20 = a21 = a22 = a23 = _zero()
    a30 = a31 = a32 = a33 = _zero()
    for j in range(1, n + 1):
        y = Y[rows[j]]
        o = LEFT + B - j
        y0, y1, y2, y3 = _load(y, o), _load(y, o + 4), _load(y, o + 8), _load(y, o + 12)
        v = x0[j]
        a00, a01, a02, a03 = _fma(a00, v, y0), _fma(a01, v, y1), _fma(a02, v, y2), _fma(a03, v, y3)
        v = x1[j]
        a10, a11, a12, a13 = _fma(a10, v, y0), _fma(a11, v, y1), _fma(a12, v, y2), _fma(a13, v, y3)
        v = x2[j]
        a20, a21, a22, a23 = _fma(a20, v, y0), _fma(a21, v, y1), _fma(a22, v, y2), _fma(a23, v, y3)
        v = x3[j]
        a30, a31, a32, a33 = _fma(a30, v, y0), _fma(a31, v, y1), _fma(a32, v, y2), _fma(a33, v, y3)
    _add_row(o0, e0, a00, a01, a02, a03)
    if cnt > 1:
        _add_row(o1, e1, a10, a11, a12, a13)
    if cnt > 2:
        _add_row(o2, e2, a20, a21, a22, a23)
    if cnt > 3:
        _add_row(o3, e3, a30, a31, a32, a33)
