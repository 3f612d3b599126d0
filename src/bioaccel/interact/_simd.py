"""A register-blocked max-plus micro-kernel written as one Numba intrinsic (LLVM vector IR).

LLVM vectorises simple Numba loops, but not a loop that keeps several vectors of accumulators in
registers while it streams over a reduction index: that needs explicit vector code. ``maxplus_block``
is that code, and nothing else of the package builds IR by hand.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 16   # one AVX2 register of int16


def _make_block(vectors):
    @intrinsic
    def maxplus_block(typingctx, acc, c0, table, avals, bases, counts):
        """For v in 0..vectors-1 and p in [0, counts[v]):
            acc[c0 + 16v + u] = max(acc[c0 + 16v + u], avals[p] + table[bases[p] + c0 + 16v + u]), u < 16.

        ``acc``, ``table``, ``avals``: 1-D arrays of one integer dtype; ``bases``, ``counts``: int64 arrays
        (``counts`` non-decreasing, vectors entries). Sums wrap around in the dtype (only scratch cells may
        overflow). The accumulators stay in registers across the whole reduction over p.
        """
        sig = types.void(acc, c0, table, avals, bases, counts)

        def codegen(context, builder, signature, args):
            acc_t, _, table_t, avals_t, bases_t, counts_t = signature.args
            acc_a = context.make_array(acc_t)(context, builder, args[0])
            table_a = context.make_array(table_t)(context, builder, args[2])
            avals_a = context.make_array(avals_t)(context, builder, args[3])
            bases_a = context.make_array(bases_t)(context, builder, args[4])
            counts_a = context.make_array(counts_t)(context, builder, args[5])
            start = args[1]
            elem = context.get_data_type(acc_t.dtype)
            vec = ir.VectorType(elem, LANES)
            vptr = vec.as_pointer()
            i64 = ir.IntType(64)

            def vector_at(data, index):
                return builder.bitcast(builder.gep(data, [index], inbounds=True), vptr)

            slots = []
            for v in range(vectors):
                slot = cgutils.alloca_once(builder, vec)
                ptr = vector_at(acc_a.data, builder.add(start, ir.Constant(i64, v * LANES)))
                builder.store(builder.load(ptr, align=elem.width // 8), slot)
                slots.append(slot)
            counts = [builder.load(builder.gep(counts_a.data, [ir.Constant(i64, v)])) for v in range(vectors)]
            zero_mask = ir.Constant(ir.VectorType(ir.IntType(32), LANES), None)
            lower = ir.Constant(i64, 0)
            for first in range(vectors):  # p in [counts[first-1], counts[first]) feeds vectors first..3
                with cgutils.for_range_slice(builder, lower, counts[first], ir.Constant(i64, 1), inc=True) as (p, _):
                    scalar = builder.load(builder.gep(avals_a.data, [p]))
                    spread = builder.shuffle_vector(
                        builder.insert_element(ir.Constant(vec, ir.Undefined), scalar, ir.Constant(ir.IntType(32), 0)),
                        ir.Constant(vec, ir.Undefined), zero_mask)
                    base = builder.add(builder.load(builder.gep(bases_a.data, [p])), start)
                    for v in range(first, vectors):
                        ptr = vector_at(table_a.data, builder.add(base, ir.Constant(i64, v * LANES)))
                        term = builder.add(spread, builder.load(ptr, align=elem.width // 8))
                        cur = builder.load(slots[v])
                        builder.store(builder.select(builder.icmp_signed(">", term, cur), term, cur), slots[v])
                lower = counts[first]
            for v in range(vectors):
                ptr = vector_at(acc_a.data, builder.add(start, ir.Constant(i64, v * LANES)))
                builder.store(builder.load(slots[v]), ptr, align=elem.width // 8)
            return context.get_dummy_value()

        return sig, codegen

    return maxplus_block


maxplus_block = _make_block(4)  # 64 columns
maxplus_vector = _make_block(1)  # 16 columns, for the end of a row
