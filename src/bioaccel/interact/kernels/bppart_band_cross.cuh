// bppart_band_cross_mma with a deeper copy pipeline (v8, docs/bppart-gpu-notes.md): included by bppart_band.cu
// after band_interval, band_copy, band_mma_step, band_mma_put and bppart_band_cross_mma (whose comments hold here).
//
// Why: v3 to v7 measured the tensor-core cross products at about a fifth of the DMMA ceiling and about half
// the L2 rate; each block waits at every chunk for the copies it issued one chunk before, and at every new
// query split k1 the two buffers drain (the first chunk of each k1 waits the copies' whole latency). Here
// the block walks the steps (k1, chunk) of one sum as one sequence, the copies issued STAGES - 1 steps
// ahead into a ring of STAGES buffers, across the k1 boundaries; the copy loops are unrolled (each thread's
// row and column fixed, as THREADS is a multiple of KC and of TC). SKIP: a warp skips the steps of 4
// indices where its 16 rows and 32 columns have no product in the band (the products there are zeros,
// so an accumulator keeps its bits: 0 * x = 0 and c + 0 = c for the finite, nonnegative tables). The
// products, their grouping by k (chunks of KC from kbeg, steps of 4) and their order are those of
// bppart_band_cross_mma: the same bits.
//
// GROUP > 0: a launch takes one sum (``which``: 0 QIa's, 1 QIm's) and GROUP of its query splits from the ``g0``-th,
// the sums so far loaded from ACCA / ACCM where g0 > 0 (the host launches the groups in order), so that every block
// of a launch reads the operands of the same few k1 at about the same time (the blocks that share an operand row then
// meet it in L2: v8's profile read 2.7x the operands' bytes from DRAM). An accumulator stored and loaded is the same
// double, the mma's C: the same bits. No split among blocks (gridDim.z = 1).
//
// ends[row]: the end (exclusive) of the bases of the piece that holds ``row`` (band_ends, v9; n where nothing is
// skipped): a tile whose first column lies past it holds no cell a window needs (a cell past its piece's bases
// is read by no needed cell but as a zero product's other factor), and is not computed; bppart_band_unneeded
// zeroes such cells at the launch's start, so that those products stay zeros.
// HINT (v9): band_copy's L2 hint on the copies (0: none).
// DYN (v11): the ring in dynamic shared memory (the host gives band_cross_shared(sizes) bytes, checked here; static
// memory stops at 48 KB: chunks of 32 at 32 x 64 take 53 KB), laid out and padded as the static arrays.
// FORM (v12, with SKIP): bit 0, the skip decided a chunk at a time: a chunk whose every step of 4 holds a band
// product runs the unguarded unrolled steps (the loads of the next step scheduled over this step's mma, as without
// SKIP), a chunk with none is skipped whole, and only a chunk at the warp's band edge tests each step (v8's SKIP
// tested all of them: a branch between every two steps). Bit 1, the warps' roles (which 16 x 32 block of the tile a
// warp takes) rotated by the block: a block's warp w runs on sub-partition w % 4 of its multiprocessor, and under
// SKIP the roles do unequal work (at 32 x 64, window 128, the role of rows 0-15 and columns 32-63 skips 17% of the
// steps, the role of rows 16-31 and columns 0-31 31%), so without the rotation one sub-partition's tensor core
// takes the heaviest role of every block. The same products in the same order a cell (skipped ones are zeros):
// the same bits.
// FORM bit 2 (v12, with or without SKIP): two accumulator chains a cell, the steps of 4 indices at even places of a
// chunk (ks / 4 even) into one, the odd into the other, added at the end: each mma waits on the one 16 mma before it
// in its warp, not 8 (ncu's largest stall on the production was this dependency). ANOTHER SUMMATION ORDER: the cells
// differ from the other forms' in their last bits (the tests compare this form with the CPU to 1e-12).
// WN (v12): a warp's columns, 32 (v8 to v11) or 16: twice the warps a tile (8 at 32 x 64), each with half the products of
// a step (2 x 2 mma of 8 x 8 a step of 4 indices, not 2 x 4), so a step's longest chain of mma in a block is half as
// long (v12's skip forms measured the block's heaviest warp, not the tensor pipe's total, as what bounds a step). Each
// cell's mma over the same indices in the same order: the same bits.
// FORM bits 3-4 (v17, SHAPE = FORM >> 3 & 3): the steps by Hopper's larger FP64 mma (band_mma_step16; m8n8k4 before sm_90):
// 1, m16n8k4 (the same steps of 4 indices, half the instructions); 2 and 3, m16n8k8 and m16n8k16 (steps of 8 and 16
// indices, a quarter and an eighth of the instructions; the skip and the chains by those steps).
// FORM bit 7 (v21, APART): a block takes one sum (blockIdx.z % 2: 0 QIa's, 1 QIm's; its query splits' share blockIdx.z / 2
// of gridDim.z / 2), both sums' blocks in one launch (the host doubles grid z): half as long blocks, each reading one
// sum's operands, nothing reloaded (band_group's one-sum launches without a second launch a level; v21: cross -3.2% at
// 23 x 20,000). The same products in the same order a cell: the same bits.
// FORM bits 8 and up (v26, STAGGER = FORM >> 8 row tiles, 0: the production's order): the blocks' order staggered by
// their length. A row tile's D + 1 column tiles hold 2 / 4 / 5 (or 1 / 3 / 5) chunks a query split at window 128 and
// read the same A (and, with the row tiles around, the same B) split by split at those rates, so that blocks started
// together read split k's operands up to 3k steps apart, past the L2's reach (v25: 18.0 GB read from DRAM for 10.9 GB
// of unique operands). Here the grid goes stripe by stripe of STAGGER row tiles, and within a stripe column place D
// (the longest, or empty) of every row tile first, then D - 1, ..., 0: a block starts later the fewer chunks it has,
// about STAGGER / (blocks started a step) steps a place, so that the blocks that share an operand meet it nearer in
// time over the middle splits. A permutation of the blocks, each computing what it computed: the same bits.
// FORM bit 16 (v28, RUN; with APART, not GROUP): a block takes ``per`` query intervals of its level (a0 = blockIdx.y per
// and on, the host's grid y ceil(mats / per)), one after the other through ONE ring: the next interval's first chunk
// is copied while the last chunk of the interval before multiplies, and the block's start (its dispatch, indices and
// the ring's first fill) is paid once for ``per`` intervals. At the short levels a block is only (l1 - 1) x 2 to 5
// steps (l1 = 2: one query split), so those fixed costs weigh most there; the host gives the long levels per = 1
// (band_cross_run). Each interval's sums are started at zero, taken and stored as the one-interval blocks do: the same
// products in the same order, the same bits. ``per`` is read only under RUN.
// FORM bit 17 (v30, HOIST; with RUN): the runs' copies issued from a cursor (the next step's chunk, query split and
// interval moved on by each issue, no division a step) and interval a0 + run's matrices found from a0's (band_interval
// of [a0 + run, e + run) is band_interval of [a0, e) plus run): the step loop 561 SASS instructions against RUN's 696
// and the one-interval kernel's 612, so that the host may launch it at per = 1 too. The same addresses: the same bits.
// FORM bits 18 and 19 (v35, band_cross_skip_open; with HOIST; a bench's bound, NOT the production's products): QIa's
// query splits whose left interval [a, k1 + 1) cannot close ("open", v32: QIac there is QIs1 alone) are, bit 18,
// skipped (no steps: the time with none of their products), or, bit 19, walked with their copies zero-filled from no
// memory (every instruction, step and mma kept: the time with their L2 requests gone; the same numbers as bit 18's:
// an open split's products are then zeros, c + 0 = c). Which
// splits close: ends[n + 1 + a] (the host appends one word an interval start a to ``ends``), bit o for [a, a + o + 1).
// Only where one block takes every split of its sum (gridDim.z = 2); elsewhere the production's walk.
// FORM bit 20 (v36, INBAND; band_cross_inband): v35's profile put the cross's time on its copies' instructions (the
// address, the four band tests and the select of each of a thread's 24 copies a step), not on their bytes. A chunk whose
// every copy lies in the band and the table (a block-uniform test of its corners: A's rows r0 .. r0 + TR - 1 and
// columns from .. from + KC - 1, B's rows from .. and columns c0 .. c0 + TC - 1) is copied without them, and at window
// 128 (L2 = INBAND_L2) each copy is the thread's first address plus an immediate offset. The same elements copied into
// the same places (the tests were all true there): the same bits.
// FORM bit 21 (v37, COPY16; band_cross_copy16; with HOIST): the copies by pairs of doubles, 16-byte cp.async (half the
// copies, their addresses and band tests). v38: with the window's L2 = W1 - 1 odd (even windows; the host launches this
// form only there, and only where S = (n + 1) band_pitch(W1) is even: every matrix 16-byte aligned) the tables' rows
// are P = W1 + 1 cells apart (band_pitch), so cell (row, col) lies at row RS + col of its matrix, RS = P - 1 even, and
// the pairs that start 16-byte aligned are those with col even, in every row. A pair that straddles the band's edge
// reads a zero pad (o = -1: the row before's pad; o = L2 + 1: its own), so a pair is copied whole where its first cell
// lies in -1 .. L2, zero-filled else (both outside), 8 bytes read where its second cell lies past kend or n. Bs's rows
// start at c0 (even): no shift. As's rows start at ``from`` = kbeg + j KC, of kbeg's parity in every row and chunk:
// where odd, every row is stored one column right (the pair before the first column, whose first half no product
// reads, and one pair more at the end, the ``extra`` copies of one warp, rotated by the block), and the fragments read
// every row one column right: one shift for the block, so the production's bank pattern (v37's layout, P = W1,
// alternated the rows' shifts and doubled the shared wavefronts by bank conflicts). The same elements into the same
// places of the products: the same bits.
// (v37, COPY16) a thread's COUNT pair copies down a tile column: pair i from T + i step, its first cell o - i ostep - 1
// from the band's diagonal (copied where o - i ostep lies in 0 .. edge = L2 + 1, i lstep < lim and ``ok``; zeros else,
// reading nothing), to smem + i sstride; BYTES of it read: 16 (band_copy's ignore-src form, no address selected), or 8 where the
// second cell lies past the table (rare: the source then selected, ``base`` where nothing is read)
template <int BYTES, int COUNT, int HINT>
__device__ __forceinline__ void band_pair_column(double* smem, int sstride, const double* T, const double* base, int step,
                                                 int o, int ostep, int lim, int lstep, int edge, bool ok) {
#pragma unroll
    for (int i = 0; i < COUNT; ++i) {
        const bool in = ok && i * lstep < lim && (unsigned)(o - i * ostep) <= (unsigned)edge;
        if (BYTES == 16) band_copy<16, HINT, true>(smem + i * sstride, T + i * step, in);
        else band_copy<16, HINT>(smem + i * sstride, in ? T + i * step : base, in, BYTES);
    }
}

// (the ring's Bs copies of single doubles: the production's 8-byte copies and v37c's odd rows) whether Bs's copy of band
// cell (row, col) reads it: a row of the chunk (before kend), in the band and the table; zeros else
__device__ __forceinline__ bool band_bs_in(int row, int col, int kend, int W1, int n) {
    const int o = col - row;
    return row < kend && o >= 0 && o < W1 && col <= n;
}

template <int STAGGER>   // the row tile I and its column tile's place 0 .. D (J = I TR / TC + place) of block x
__device__ __forceinline__ int2 band_cross_staggered(unsigned x, int D, int ntr) {
    const unsigned per = STAGGER * (D + 1), stripe = x / per, w = x % per;
    const int rows = min(STAGGER, ntr - (int)stripe * STAGGER);   // (the last stripe may hold fewer)
    return make_int2(stripe * STAGGER + w % rows, D - (int)(w / rows));
}

// (v35, FORM bits 18-19) the bits of the query splits s (k1 = first + s, first = a) of QIa's sum at interval a that
// the walk takes: with SKIP_OPEN only those whose left interval closes (ends[n + 1 + a], bit s), else all ``splits``.
template <bool SKIP_OPEN>
__device__ __forceinline__ unsigned band_cross_split_bits(const int* ends, int n, int a, int splits) {
    const unsigned all = (1u << splits) - 1u;
    return SKIP_OPEN ? all & (unsigned)ends[n + 1 + a] : all;
}

// (v35) a warp's sums from zero (the next interval's)
template <int NJ>
__device__ __forceinline__ void band_cross_zero(double (&acc)[2][NJ][2], double (&acc2)[2][NJ][2]) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = acc2[i][j][0] = acc2[i][j][1] = 0.0;
}

// A warp's sums (its block's first row r and column c) into band matrix ``out``: with two chains (FORM bit 2) the
// second added to the first at the end; with one-sum blocks (FORM bit 7) stored plainly unless splits share the cells.
template <int NJ, int FORM>
__device__ __forceinline__ void band_cross_sums_out(double* out, double (&acc)[2][NJ][2], const double (&acc2)[2][NJ][2],
                                                    int r, int c, int g, int t, int W1, int n) {
    if (FORM & 4) {
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < NJ; ++j) acc[i][j][0] += acc2[i][j][0], acc[i][j][1] += acc2[i][j][1];
    }
    band_mma_put<NJ, (FORM & 128) ? 2 : 1>(out, acc, r, c, g, t, W1, n);
}

template <int TR, int TC, int KC, int MINB, int STAGES, bool SKIP, int GROUP = 0, int HINT = 0, bool DYN = false,
          int FORM = 0, int WN = 32>
__global__ void __launch_bounds__((TR / 16) * (TC / WN) * 32, MINB)
bppart_band_cross_ring(const double* __restrict__ QIac, const double* __restrict__ QI, const double* __restrict__ QF,
                       double* __restrict__ ACCA, double* __restrict__ ACCM, int M, int n, int W1, int l1, int nt,
                       int D, int wsel, int g0, const int* __restrict__ ends, int per) {
    constexpr int WC = TC / WN, THREADS = (TR / 16) * WC * 32, NJ = WN / 8, SHAPE = (FORM >> 3) & 3;
    constexpr int KK = SHAPE < 2 ? 4 : SHAPE == 2 ? 8 : 16;    // indices a step
    constexpr bool APART = FORM & 128, RUN = FORM & 65536, HOIST = FORM & 131072;
    constexpr bool SKIPO = FORM & 262144, COPYO = FORM & 524288;   // (v35: a bench's bounds, not the same products)
    constexpr bool INBAND = FORM & 1048576;   // (v36: chunks wholly in the band copied without tests)
    constexpr int INBAND_L2 = 128;            // (the window whose rows' stride is a constant there)
    // (v37: the copies by pairs of doubles, As's with bit 21, Bs's with bit 22)
    constexpr bool PAIRS_A = FORM & 2097152, PAIRS_B = FORM & 4194304, COPY16 = PAIRS_A || PAIRS_B;
    // (v37c, bit 24 with bit 22: EVEN_B) Bs's pairs only in the rows k with k - c0 even (before v38's pitch, the rows
    // where they started aligned), the other rows by 8-byte copies, two a thread a row: about half of Bs's copies
    // saved; a warp's rows have one parity (warp-uniform branch). v38: every row's pairs are aligned (bit 22 alone)
    constexpr bool EVEN_B = FORM & 16777216;
    static_assert(!EVEN_B || PAIRS_B, "the even rows' pairs are a form of Bs's pairs");
    static_assert(!(FORM & 8388608), "FORM bit 23 (v37b, As's rows KC + 2 apart) was removed: docs/bppart-gpu-notes.md");
    // (v37) pairs a row of As and Bs, rows between a thread's copies
    constexpr int AP2 = KC / 2, BP2 = TC / 2, SA2 = THREADS / (KC / 2 > 0 ? KC / 2 : 1), SB2 = THREADS / (TC / 2);
    static_assert(!COPY16 || (HOIST && !INBAND && !SKIPO && !COPYO), "the pairs on the production's cursor");
    static_assert(!COPY16 || (KC % 2 == 0 && THREADS % AP2 == 0 && (TR * AP2) % THREADS == 0 && THREADS % BP2 == 0 &&
                              (KC * BP2) % THREADS == 0 && SB2 % 2 == 0 && TR <= THREADS),
                  "each thread copies one fixed pair column of As and of Bs (Bs's in rows of one parity)");
    static_assert(!(SKIPO || COPYO) || HOIST, "the open splits' bounds on the cursor's walk");
    static_assert(!RUN || (APART && !GROUP), "a run of query intervals in one-sum blocks without groups");
    static_assert(!HOIST || RUN, "the cursor with runs (v30: without them its step loop was 623 SASS instructions, not 612)");
    static_assert(KC % KK == 0, "whole steps a chunk");
    static_assert((WN == 32 || WN == 16) && TR % 16 == 0 && TC % WN == 0 && KC % 4 == 0,
                  "whole warps of 16 x WN cells, steps of 4");
    static_assert(STAGES >= 2 && STAGES <= 4, "a ring of 2 to 4 chunks");
    static_assert(THREADS % KC == 0 && (TR * KC) % THREADS == 0 && THREADS % TC == 0 && (TC * KC) % THREADS == 0,
                  "each thread copies one fixed column of As and of Bs");
    // As's row stride KC + 4 doubles (a row shifted by As's pairs holds KC + 2), Bs's TC + 4: band_cross_shared's
    constexpr int APAD = 4;
    constexpr int AN = STAGES * TR * (KC + APAD), BN = STAGES * KC * (TC + 4);
    __shared__ __align__(16) double ring_static[DYN ? 2 : AN + BN];
    extern __shared__ __align__(16) double band_ring_dynamic[];
    double* const ring = DYN ? band_ring_dynamic : ring_static;
    double (*const As)[TR][KC + APAD] = reinterpret_cast<double (*)[TR][KC + APAD]>(ring);
    double (*const Bs)[KC][TC + 4] = reinterpret_cast<double (*)[KC][TC + 4]>(ring + AN);
    if (DYN) {
        unsigned given;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(given));
        if (given < 8u * (AN + BN)) __trap();   // the host gave too little
    }
    constexpr int STAGGER = (FORM >> 8) & 255;    // (0: the production's order, its expressions and SASS as before v26)
    const int2 at = STAGGER ? band_cross_staggered<STAGGER ? STAGGER : 1>(blockIdx.x, D, nt) : int2{};
    const int I = STAGGER ? at.x : blockIdx.x / (D + 1), J = (I * TR) / TC + (STAGGER ? at.y : blockIdx.x % (D + 1));
    const int r0 = I * TR, c0 = J * TC, L2 = W1 - 1;
    const int P = band_pitch(W1), RS = P - 1;    // (v38) cell (row, col) at row RS + col of its matrix
    if (COPY16 && (!(L2 & 1) || !(n & 1))) __trap();   // (the pairs need a pad a row and S even: the host's condition)
    if (r0 > n || c0 > n || c0 + TC - 1 <= r0 || c0 - (r0 + TR - 1) > L2) return;   // block-uniform
    if (c0 > ends[r0]) return;            // every cell past its piece's bases: not needed (band_ends; zeroed)
    const size_t S = (size_t)(n + 1) * P;
    const int a0 = RUN ? blockIdx.y * per : blockIdx.y, a1 = a0 + l1;   // (RUN: the first of the block's intervals)
    const int runs = RUN ? min(per, M - l1 + 1 - a0) : 1;
    const int kbeg = max(r0 + 1, c0 - L2), kend = min(min(c0 + TC, r0 + TR + L2), n + 1);
    // (RUN: a tile without products, r0 = n, takes one chunk of zeros copied, so that each interval's last step stores
    // its sums, zeros as one interval a block stores them: 0 x 0 + 0 = +0)
    const int chunks = kbeg < kend ? (kend - kbeg + KC - 1) / KC : RUN ? 1 : 0;
    constexpr int NW = THREADS / 32;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int warp = SKIP && (FORM & 2) ? (threadIdx.x / 32 + blockIdx.x + blockIdx.y) % NW : threadIdx.x / 32;
    const int wr = (warp / WC) * 16, wc = (warp % WC) * WN;
    const int klo = max(r0 + wr, c0 + wc - L2), khi = min(r0 + wr + 15 + L2, c0 + wc + WN - 1);
    // the thread's fixed place in the copies: As column ak of rows ar + i THREADS / KC, Bs column bc of rows
    // bk + i THREADS / TC
    const int ak = threadIdx.x % KC, ar = threadIdx.x / KC, bc = threadIdx.x % TC, bk = threadIdx.x / TC;
    // (v37, COPY16) the thread's pairs: As pair ap2 of rows ar2 + i SA2, Bs pair bp2 of rows bk2 + i SB2; As's shift sa
    // (v38: the block's, kbeg's parity); odd_b: the thread's Bs rows k - c0 odd (one parity: EVEN_B's 8-byte rows)
    const int ap2 = threadIdx.x % AP2, ar2 = threadIdx.x / AP2, bp2 = threadIdx.x % BP2, bk2 = threadIdx.x / BP2;
    const int sa = PAIRS_A ? kbeg & 1 : 0, odd_b = (kbeg + bk2) & 1;
    // the extra pair where As is shifted (a lane of one warp, rotated by the block): row r0 + extra, column from + KC - 1
    const int extra = (threadIdx.x + 32 * (blockIdx.x % NW)) % THREADS;
    const int which0 = GROUP ? wsel : APART ? blockIdx.z % 2 : 0;
    for (int which = which0; which < (GROUP || APART ? which0 + 1 : 2); ++which) {
        double* out = (which == 0 ? ACCA : ACCM) + (size_t)a0 * S;
        double acc[2][NJ][2], acc2[2][NJ][2];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < NJ; ++j) acc2[i][j][0] = acc2[i][j][1] = 0.0;
        band_mma_cells(acc, r0 + wr, c0 + wc, g, t, W1, n, [&](double& v, size_t at, bool in) {
            v = GROUP && g0 > 0 && in ? out[at] : 0.0;
        });
        const unsigned zsplit = APART ? blockIdx.z / 2 : blockIdx.z, zsplits = APART ? gridDim.z / 2 : gridDim.z;
        const int first0 = (which == 0 ? a0 : a0 + 1) + zsplit, last0 = which == 0 ? a1 - 2 : a1 - 1;
        const int first = GROUP ? first0 + g0 : first0, last = GROUP ? min(last0, first0 + g0 + GROUP - 1) : last0;
        const int splits = first <= last ? (last - first) / zsplits + 1 : 0;
        const int span = splits * chunks;   // (span: the steps of one interval)
        // (v35) the open splits' bounds: QIa's blocks, every split of the sum in the block (zsplits 1)
        const bool opens = (SKIPO || COPYO) && which == 0 && zsplits == 1;
        int open_steps = 0;    // (v35, SKIPO: the closing splits' steps of every run)
        for (int run = 0; SKIPO && opens && run < runs; ++run)
            open_steps += __popc(band_cross_split_bits<true>(ends, n, a0 + run, splits)) * chunks;
        const int steps = SKIPO && opens ? open_steps : runs * span;
        // (RUN: the block's interval ``run``, its a0, a1 and k1 shifted by as many.) HOIST (v30): the steps are issued in
        // order, so the next one's chunk, query split and (RUN) interval are a cursor moved on by each issue, no
        // division a step; interval a0 + run's matrices are a0's run S further on (band_interval(M, a0 + run, e + run)
        // = band_interval(M, a0, e) + run where e > a0). The same addresses: the same bits.
        int next_chunk = 0, next_split = 0, next_k1 = first;
        size_t next_shift = 0;
        // (v35, SKIPO) the cursor's splits left in interval next_run, the first run with one taken first
        int next_run = 0;
        unsigned next_bits = 0;
        auto next_interval = [&]() {
            while (next_bits == 0 && next_run + 1 < runs)
                ++next_run, next_shift += S, next_bits = band_cross_split_bits<true>(ends, n, a0 + next_run, splits);
            next_k1 = first + __ffs(next_bits) - 1;
        };
        if constexpr (SKIPO) {
            if (opens) next_bits = band_cross_split_bits<true>(ends, n, a0, splits), next_interval();
        }
        // (v37, COPY16) a chunk's copies by pairs: As row r0 + r from column from - shift, Bs row from + k from column
        // c0 - shift, into columns 0, 2, ... of the tile row (see FORM bit 21); kend <= n + 1 bounds As's columns. A
        // thread's pairs read 16 bytes, or all 8 where its column's second cell lies past kend (As) or n (Bs)
        auto copy_pairs_a = [&](int buf, int from, const double* L) {
            const int ca = from - sa + 2 * ap2, ra = r0 + ar2;
            double* const to = &As[buf][ar2][2 * ap2];
            const double* const at = L + (ra * RS + ca);
            constexpr int NA = TR * AP2 / THREADS, STEP = SA2 * (KC + APAD);
            if (ca + 1 < kend)
                band_pair_column<16, NA, HINT>(to, STEP, at, L, SA2 * RS, ca - ra + 1, SA2, 1, 0, L2 + 1, ca < kend);
            else band_pair_column<8, NA, HINT>(to, STEP, at, L, SA2 * RS, ca - ra + 1, SA2, 1, 0, L2 + 1, ca < kend);
        };
        auto copy_pairs_b = [&](int buf, int from, const double* R) {
            if (EVEN_B && odd_b) {   // (v37c) an odd row: its two columns by 8-byte copies, where the production puts them
                const int bcol = c0 + 2 * bp2, b_row = from + bk2;
                const double* Rp = R + (size_t)b_row * RS + bcol;
#pragma unroll
                for (int i = 0; i < KC * BP2 / THREADS; ++i) {
                    const int row = b_row + i * SB2;
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const bool in = band_bs_in(row, bcol + h, kend, W1, n);
                        band_copy<8, HINT>(&Bs[buf][bk2 + i * SB2][2 * bp2 + h], in ? Rp + i * SB2 * RS + h : R, in);
                    }
                }
                return;
            }
            const int cb = c0 + 2 * bp2, kb = from + bk2;
            double* const to = &Bs[buf][bk2][2 * bp2];
            const double* const at = R + (kb * RS + cb);
            constexpr int NB = KC * BP2 / THREADS, STEP = SB2 * (TC + 4);
            if (cb < n)
                band_pair_column<16, NB, HINT>(to, STEP, at, R, SB2 * RS, cb - kb + 1, SB2, kend - kb, SB2, L2 + 1, true);
            else band_pair_column<8, NB, HINT>(to, STEP, at, R, SB2 * RS, cb - kb + 1, SB2, kend - kb, SB2, L2 + 1, cb <= n);
        };
        auto copy_extra = [&](int buf, int from, const double* L) {   // a shifted As row's last pair (one warp's lanes)
            if (PAIRS_A && sa && extra < TR) {
                const int row = r0 + extra, col = from + KC - 1;
                const bool in = col < kend && (unsigned)(col - row + 1) <= (unsigned)(L2 + 1);
                band_copy<16, HINT>(&As[buf][extra][KC], L + (in ? row * RS + col : 0), true, in ? (col + 1 < kend ? 16 : 8) : 0);
            }
        };
        auto issue = [&](int step) {
            const int run = RUN && !HOIST ? step / span : 0, at = RUN && !HOIST ? step - run * span : step;
            const int buf = step % STAGES, k1 = HOIST ? next_k1 : first + run + (at / chunks) * zsplits,
                      from = kbeg + (HOIST ? next_chunk : step % chunks) * KC;
            const double* L = which == 0 ? QIac + band_interval(M, a0 + run, k1 + 1) * S
                                         : QF + band_interval(M, a0 + run, k1) * S;
            const double* R = which == 0 ? QI + band_interval(M, k1 + 1, a1 + run) * S
                                         : QIac + band_interval(M, k1, a1 + run) * S;
            // (v35, COPYO) an open split's copies zero-filled, reading nothing (cp.async of 0 source bytes): the same
            // instructions and steps, none of its L2 requests; its products zeros, as with its steps skipped
            const bool copies = !(COPYO && opens) || (band_cross_split_bits<true>(ends, n, a0 + next_run, splits)
                                                       >> (next_k1 - first) & 1u);
            if constexpr (SKIPO) {
                L += next_shift, R += next_shift;
                if (++next_chunk == chunks) {
                    next_chunk = 0;
                    if (opens) next_bits &= next_bits - 1u, next_interval();
                    else if (++next_split == splits) next_split = 0, next_k1 = first, next_shift += S;
                    else next_k1 += zsplits;
                }
            } else if constexpr (COPYO) {   // (the production's cursor and the interval's run)
                L += next_shift, R += next_shift;
                if (++next_chunk == chunks) {
                    next_chunk = 0, next_k1 += zsplits;
                    if (++next_split == splits) next_split = 0, next_k1 = first, next_shift += S, ++next_run;
                }
            } else if (HOIST) {
                L += next_shift, R += next_shift;
                if (++next_chunk == chunks) {
                    next_chunk = 0, next_k1 += zsplits;
                    if (++next_split == splits) next_split = 0, next_k1 = first, next_shift += S;
                }
            }
            if constexpr (PAIRS_A) copy_extra(buf, from, L);
            if constexpr (PAIRS_A) {
                copy_pairs_a(buf, from, L);
            } else {
                // T[row][col - row] = T + row L2 + col: each copy a fixed stride from the thread's first
                const int col = from + ak, a_o = col - (r0 + ar);
                const double* Lp = L + (size_t)(r0 + ar) * RS + col;
                // (v36, INBAND) a chunk wholly inside the band, the window's and the table's: its copies without the band
                // tests and selects, a fixed stride (the window 128's row) an immediate offset each (block-uniform test)
                if (INBAND && L2 == INBAND_L2 && copies && from + KC - 1 < kend && from + KC - 1 <= n &&
                    from >= r0 + TR - 1 && from + KC - 1 - r0 <= INBAND_L2) {
#pragma unroll
                    for (int i = 0; i < TR * KC / THREADS; ++i)
                        band_copy<8, HINT>(&As[buf][ar + i * (THREADS / KC)][ak], Lp + i * (THREADS / KC) * INBAND_L2, true);
                } else
#pragma unroll
                for (int i = 0; i < TR * KC / THREADS; ++i) {
                    const int o = a_o - i * (THREADS / KC);
                    const bool in = copies && col < kend && o >= 0 && o < W1 && col <= n;
                    band_copy<8, HINT>(&As[buf][ar + i * (THREADS / KC)][ak], in ? Lp + i * (THREADS / KC) * RS : L, in);
                }
            }
            if constexpr (PAIRS_B) {
                copy_pairs_b(buf, from, R);
            } else {
                const int bcol = c0 + bc, b_row = from + bk;
                const double* Rp = R + (size_t)b_row * RS + bcol;
                if (INBAND && L2 == INBAND_L2 && copies && from + KC - 1 < kend && c0 + TC - 1 <= n &&
                    c0 >= from + KC - 1 && c0 + TC - 1 - from <= INBAND_L2) {
#pragma unroll
                    for (int i = 0; i < TC * KC / THREADS; ++i)
                        band_copy<8, HINT>(&Bs[buf][bk + i * (THREADS / TC)][bc], Rp + i * (THREADS / TC) * INBAND_L2, true);
                } else
#pragma unroll
                for (int i = 0; i < TC * KC / THREADS; ++i) {
                    const int row = b_row + i * (THREADS / TC);
                    const bool in = copies && band_bs_in(row, bcol, kend, W1, n);
                    band_copy<8, HINT>(&Bs[buf][bk + i * (THREADS / TC)][bc], in ? Rp + i * (THREADS / TC) * RS : R, in);
                }
            }
        };
        auto mma = [&](int buf, int ks) {
            double (&into)[2][NJ][2] = (FORM & 4) && (ks / KK) % 2 ? acc2 : acc;
            // (v37, COPY16) As's tile as its rows are shifted (v38: all or none): the same cells
            const double (*A)[KC + APAD] = PAIRS_A ? reinterpret_cast<const double (*)[KC + APAD]>(&As[buf][0][sa]) : As[buf];
            if (SHAPE == 0) band_mma_step(A, Bs[buf], wr, wc, ks, g, t, into);
            else band_mma_step16<SHAPE ? SHAPE : 1>(A, Bs[buf], wr, wc, ks, g, t, into);
        };
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < steps) issue(s);
            asm volatile("cp.async.commit_group;\n" ::);     // (an empty group past the last step)
        }
        auto walk = [&](int step) {     // one step: the copies STAGES - 1 on issued, this step's waited for, its mma
            if (step + STAGES - 1 < steps) issue(step + STAGES - 1);
            asm volatile("cp.async.commit_group;\n" ::);
            asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1));   // this step's group is complete
            __syncthreads();
            const int buf = step % STAGES, k0 = kbeg + (step % chunks) * KC;   // (span: a multiple of the chunks)
            if (SKIP && (FORM & 1) && k0 + 3 >= klo && k0 + KC - 4 <= khi) {   // warp-uniform: every step holds one
#pragma unroll
                for (int ks = 0; ks < KC; ks += KK) mma(buf, ks);
            } else if (!(SKIP && (FORM & 1) && (k0 > khi || k0 + KC - 1 < klo))) {   // (else none: skipped whole)
#pragma unroll
                for (int ks = 0; ks < KC; ks += KK) {
                    if (SKIP && (k0 + ks > khi || k0 + ks + KK - 1 < klo)) continue;   // warp-uniform: zero products
                    mma(buf, ks);
                }
            }
            __syncthreads();                                   // the ring slot is free for the step STAGES on
        };
        if (RUN && SKIPO) {   // (v35) each run's closing splits' steps, then its sums stored
            for (int run = 0, step0 = 0; run < runs; ++run) {
                const int run_span = opens ? __popc(band_cross_split_bits<true>(ends, n, a0 + run, splits)) * chunks
                                           : span;
                for (int step = step0; step < step0 + run_span; ++step) walk(step);
                step0 += run_span;
                band_cross_sums_out<NJ, FORM>(out + (size_t)run * S, acc, acc2, r0 + wr, c0 + wc, g, t, W1, n);
                band_cross_zero(acc, acc2);
            }
        } else if (RUN) {   // an interval's steps, then its sums stored (v28: call 1's test a step for the store cost 4% a step)
            for (int run = 0; run < runs; ++run) {
                for (int step = run * span; step < (run + 1) * span; ++step) walk(step);
                band_cross_sums_out<NJ, FORM>(out + (size_t)run * S, acc, acc2, r0 + wr, c0 + wc, g, t, W1, n);
#pragma unroll
                for (int i = 0; i < 2; ++i)    // (the next interval's sums from zero)
#pragma unroll
                    for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = acc2[i][j][0] = acc2[i][j][1] = 0.0;
            }
        } else {
            for (int step = 0; step < steps; ++step) walk(step);
        }
        asm volatile("cp.async.wait_group 0;\n" ::);
        if (!RUN) band_cross_sums_out<NJ, FORM>(out, acc, acc2, r0 + wr, c0 + wc, g, t, W1, n);
    }
}
