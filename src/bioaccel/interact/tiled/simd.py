"""Register-blocked max-plus micro-kernels written as Numba intrinsics (LLVM vector IR).

LLVM vectorises simple Numba loops, but not a loop that keeps several vectors of accumulators in
registers while it streams over a reduction index: that needs explicit vector code. The kernels here
are that code, and nothing else of the package builds IR by hand.

Each computes, for v < vectors and p < counts[v] (``counts`` non-decreasing),

    acc[c0 + 16v + u] = max(acc[c0 + 16v + u], a_p + table[b_p + c0 + 16v + u]),   u < 16,

with the accumulators in registers for the whole reduction over p. Sums wrap around in the dtype
(only scratch cells, past the end of a row, may overflow).

- ``maxplus_range``: a_p = avec[a_at + p], b_p = offsets[o_at + p] + b_at (a contiguous run of scalars);
- ``maxplus_rows``: the same for ``ROWS`` output rows at once, each with its own run of scalars and
  sharing every loaded vector of the table (the double reduction D, see rows).
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 16  # one AVX2 register of int16


def _emit(builder, acc_a, starts, table_a, counts_a, entry, rows, vectors, elem):
    """The kernel's body: ``rows`` output rows x ``vectors`` vectors of accumulators, row r's at
    ``starts[r]``; ``entry(p)`` gives reduction index p's scalars (one a row) and where it reads the
    table. Each table vector loaded for p serves every row (one load, ``rows`` add/max pairs), so
    several rows do fewer loads and less loop bookkeeping per update than one row at a time."""
    vec = ir.VectorType(elem, LANES)
    vptr = vec.as_pointer()
    i64 = ir.IntType(64)
    align = elem.width // 8

    def vector_at(data, index):
        return builder.bitcast(builder.gep(data, [index], inbounds=True), vptr)

    slots = [[None] * vectors for _ in range(rows)]
    for r in range(rows):
        for v in range(vectors):
            slot = cgutils.alloca_once(builder, vec)
            ptr = vector_at(acc_a.data, builder.add(starts[r], ir.Constant(i64, v * LANES)))
            builder.store(builder.load(ptr, align=align), slot)
            slots[r][v] = slot
    counts = [builder.load(builder.gep(counts_a.data, [ir.Constant(i64, v)])) for v in range(vectors)]
    zero_mask = ir.Constant(ir.VectorType(ir.IntType(32), LANES), None)
    lower = ir.Constant(i64, 0)
    for first in range(vectors):  # p in [counts[first-1], counts[first]) feeds vectors first..
        with cgutils.for_range_slice(builder, lower, counts[first], ir.Constant(i64, 1), inc=True) as (p, _):
            scalars, base = entry(p)
            spreads = [builder.shuffle_vector(
                builder.insert_element(ir.Constant(vec, ir.Undefined), s, ir.Constant(ir.IntType(32), 0)),
                ir.Constant(vec, ir.Undefined), zero_mask) for s in scalars]
            for v in range(first, vectors):
                ptr = vector_at(table_a.data, builder.add(base, ir.Constant(i64, v * LANES)))
                loaded = builder.load(ptr, align=align)
                for r in range(rows):
                    term = builder.add(spreads[r], loaded)
                    cur = builder.load(slots[r][v])
                    builder.store(builder.select(builder.icmp_signed(">", term, cur), term, cur), slots[r][v])
        lower = counts[first]
    for r in range(rows):
        for v in range(vectors):
            ptr = vector_at(acc_a.data, builder.add(starts[r], ir.Constant(i64, v * LANES)))
            builder.store(builder.load(slots[r][v]), ptr, align=align)


def _arrays(context, builder, signature, args, at):
    """The array structs of an intrinsic's arguments at the positions ``at``."""
    return [context.make_array(signature.args[i])(context, builder, args[i]) for i in at]


def _make_range(vectors):
    @intrinsic
    def maxplus_range(typingctx, acc, c0, table, avec, a_at, offsets, o_at, b_at, counts):
        sig = types.void(acc, c0, table, avec, a_at, offsets, o_at, b_at, counts)

        def codegen(context, builder, signature, args):
            acc_a, table_a, avec_a, offsets_a, counts_a = _arrays(context, builder, signature, args, (0, 2, 3, 5, 8))

            def entry(p):
                offset = builder.load(builder.gep(offsets_a.data, [builder.add(args[6], p)]))
                if offset.type.width < 64:  # int32 offsets (the lists of terms, half the memory of int64)
                    offset = builder.sext(offset, ir.IntType(64))
                return ([builder.load(builder.gep(avec_a.data, [builder.add(args[4], p)]))],
                        builder.add(builder.add(offset, args[7]), args[1]))

            # one output row: its accumulators at c0, the table read at b_p + c0
            _emit(builder, acc_a, [args[1]], table_a, counts_a, entry, 1, vectors,
                  context.get_data_type(signature.args[0].dtype))
            return context.get_dummy_value()

        return sig, codegen

    return maxplus_range


maxplus_range = _make_range(4)  # 64 columns
maxplus_range_vector = _make_range(1)  # 16 columns, for the ends of a row


def _make_rows(rows, vectors):
    @intrinsic
    def maxplus_rows(typingctx, acc, starts, table, avec, a_ats, offsets, o_at, b_at, counts):
        sig = types.void(acc, starts, table, avec, a_ats, offsets, o_at, b_at, counts)

        def codegen(context, builder, signature, args):
            acc_a, starts_a, table_a, avec_a, a_ats_a, offsets_a, counts_a = _arrays(
                context, builder, signature, args, (0, 1, 2, 3, 4, 5, 8))
            i64 = ir.IntType(64)
            starts = [builder.load(builder.gep(starts_a.data, [ir.Constant(i64, r)])) for r in range(rows)]
            a_ats = [builder.load(builder.gep(a_ats_a.data, [ir.Constant(i64, r)])) for r in range(rows)]

            def entry(p):
                scalars = [builder.load(builder.gep(avec_a.data, [builder.add(a_ats[r], p)])) for r in range(rows)]
                base = builder.add(builder.load(builder.gep(offsets_a.data, [builder.add(args[6], p)])), args[7])
                return scalars, base

            _emit(builder, acc_a, starts, table_a, counts_a, entry, rows, vectors,
                  context.get_data_type(signature.args[0].dtype))
            return context.get_dummy_value()

        return sig, codegen

    return maxplus_rows


# Several rows of one product at a time, on absolute columns (see rows.rows_ranged):
# rows x vectors accumulators must fit the 16 AVX2 registers with the loaded vector and the broadcasts.
ROWS = 2
maxplus_rows = _make_rows(ROWS, 4)  # 2 rows x 64 columns: 8 accumulators
maxplus_rows_vector = _make_rows(ROWS, 1)  # 2 rows x 16 columns, for the end of the rows
