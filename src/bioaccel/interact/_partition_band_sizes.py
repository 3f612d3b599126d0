"""Which kernels the windowed BPPart GPU fill launches (kernels/bppart_band.cu) under launch sizes, and
where a piece starts in a launch: pure Python, read by :mod:`._partition_band_gpu` and the kernel
builds of the tests (tests/host_kernels.py).

>>> from bioaccel.interact._partition_launch import SIZES
>>> band_cross_kernel(SIZES.replace(band_ring=0))[0], band_cross_kernel(SIZES.replace(band_ring=3))[0]
('bppart_band_cross_mma', 'bppart_band_cross_ring')
"""
import math


#: ``band_cross_copy16``'s forms (FORM bits 21-24 >> 21): none, As's pairs, Bs's, both, v37c's Bs's in the even rows
BAND_CROSS_COPY16 = (0, 1, 2, 3, 10)


def band_cross_kernel(sizes) -> tuple:
    """(kernel name, template arguments, threads a block) of the cross products under launch ``sizes``: FMA
    tiles (bppart_band_cross), tensor cores with two buffers a k1 (bppart_band_cross_mma, v3 to v7) or with a
    ring of ``band_ring`` chunks across the k1 (bppart_band_cross_ring, v8; ``band_skip``: warps skip steps
    without a band product; ``band_group``: a launch per sum and that many query splits; a ring over 48 KB, such as
    chunks of 32 at 32 x 64, takes dynamic shared memory: the ninth argument, v11; v12, the tenth and eleventh:
    FORM, ``band_skip_form`` (how warps skip) with bit 2 for ``band_chains`` 2 (two accumulator chains a cell),
    and ``band_warp_cols``, a warp's columns; v17, FORM's bits 3-4: ``band_mma_shape``, the mma's shape, m8n8k4
    where the chunk is no multiple of its indices; v21, bit 7: ``band_sums_apart``, a block a sum, its blocks in one
    launch with grid z doubled; v26, bits 8 to 15: ``band_stagger``, the blocks' order in stripes of that many row
    tiles, the longest column tiles first; v28, bit 16: ``band_cross_run``, a block a run of query intervals, with
    one-sum blocks: :func:`band_cross_run`; v30, bit 17: ``band_cross_hoist``, the runs' copies from a
    cursor; v35, bits 18-19: ``band_cross_skip_open``, a bench's bounds that skip QIa's open query splits or their
    copies; v36, bit 20: ``band_cross_inband``, chunks wholly in the band copied without band tests; v37, bit 21:
    ``band_cross_copy16``, the copies by pairs of doubles, As's and bit 22 Bs's, bit 24 with bit 22 Bs's pairs only in
    the rows k - c0 even: v37c's 10; v38's layout aligns every row's pairs: 3, both operands' pairs, the default; bit
    23, v37b's As's rows KC + 2 apart, was removed: ValueError). The tensor-core forms need rows a multiple of 16 and
    columns of 32.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> S0 = SIZES.replace(band_stagger=0, band_cross_run=0)     # (the forms as before v26's block order, v28's runs)
    >>> band_cross_kernel(S0.replace(band_chunk=16, band_blocks=4, band_ring=3, band_skip=True))
    ('bppart_band_cross_ring', (32, 64, 16, 4, 3, True, 0, 0, False, 152, 32), 128)
    >>> band_cross_kernel(S0.replace(band_skip=True, band_skip_form=3, band_mma_shape=0))[1]
    (32, 64, 32, 3, 2, True, 0, 0, True, 131, 32)
    >>> band_cross_kernel(S0.replace(band_chains=2))[1][9:], band_cross_kernel(S0.replace(band_warp_cols=16))[1:]
    ((156, 32), ((32, 64, 32, 3, 2, False, 0, 0, True, 152, 16), 256))
    >>> band_cross_kernel(S0.replace(band_mma_shape=2))[1][9], band_cross_kernel(S0.replace(band_chunk=8))[1][9]
    (144, 128)
    >>> band_cross_kernel(S0)[1], band_cross_kernel(S0.replace(band_sums_apart=False))[1][9]
    ((32, 64, 32, 3, 2, False, 0, 0, True, 152, 32), 24)
    >>> band_cross_kernel(SIZES.replace(band_cross_run=0))[1][9], SIZES.band_stagger   # (v26: FORM 152 + 48 << 8)
    (12440, 48)
    >>> band_cross_kernel(SIZES)[1][9], band_cross_kernel(S0.replace(band_cross_run=8, band_sums_apart=False))[1][9]
    (6500504, 24)
    >>> C0 = SIZES.replace(band_cross_copy16=0)      # (the copies before v37c's pairs; v38's default 3: bits 21 and 22)
    >>> band_cross_kernel(C0)[1][9], band_cross_kernel(SIZES)[1][9] - band_cross_kernel(C0)[1][9] == 3 << 21
    (209048, True)
    >>> band_cross_kernel(C0.replace(band_cross_inband=True))[1][9] - band_cross_kernel(C0)[1][9]   # (v36, bit 20)
    1048576
    >>> [band_cross_kernel(SIZES.replace(band_cross_copy16=k))[1][9] - 209048 for k in (1, 2, 3)]   # (v37, bits 21-22)
    [2097152, 4194304, 6291456]
    >>> band_cross_kernel(SIZES.replace(band_cross_hoist=0))[1][9], band_cross_kernel(S0.replace(band_cross_hoist=1))[1][9]
    (77976, 152)
    >>> [band_cross_kernel(SIZES.replace(band_cross_skip_open=k))[1][9] - 209048 for k in (1, 2)]
    [262144, 524288]
    >>> band_cross_kernel(SIZES.replace(band_cross_copy16=7))
    Traceback (most recent call last):
    ...
    ValueError: band_cross_copy16 is one of (0, 1, 2, 3, 10), not 7
    >>> band_cross_kernel(S0.replace(band_group=4))[1][6:]
    (4, 0, True, 24, 32)
    >>> band_cross_kernel(SIZES.replace(band_mma=False, band_rows=32, band_cols=32))[2]
    64
    """
    if sizes.band_cross_copy16 not in BAND_CROSS_COPY16:
        raise ValueError(f"band_cross_copy16 is one of {BAND_CROSS_COPY16}, not {sizes.band_cross_copy16}")
    TR, TC = sizes.band_rows, sizes.band_cols
    mma = sizes.band_mma and TR % 16 == 0 and TC % 32 == 0
    if not mma:
        return ("bppart_band_cross", (TR, TC, sizes.band_chunk, sizes.band_prefetch, sizes.band_blocks),
                (TR // 4) * (TC // 4))
    threads = (TR // 16) * (TC // 32) * 32
    if sizes.band_ring and not sizes.band_strip:
        # (v12: FORM and WN, a tenth and eleventh argument, always given)
        skip = sizes.band_skip_form if sizes.band_skip else 0
        shape = sizes.band_mma_shape if sizes.band_chunk % (4, 4, 8, 16)[sizes.band_mma_shape] == 0 else 0
        apart = 128 if sizes.band_sums_apart and not sizes.band_group else 0    # (v21: a block a sum)
        stagger = sizes.band_stagger << 8     # (v26: the blocks' order, FORM bits 8 to 15)
        run = 65536 if sizes.band_cross_run and apart else 0    # (v28: a block a run of query intervals, FORM bit 16)
        hoist = 131072 if run and sizes.band_cross_hoist else 0   # (v30: the runs' copies from a cursor, FORM bit 17)
        # (v35: a bench's bounds, QIa's open splits skipped or without copies, FORM bits 18-19; with the cursor)
        opens = 131072 << sizes.band_cross_skip_open if hoist and sizes.band_cross_skip_open else 0
        inband = 1048576 if hoist and sizes.band_cross_inband else 0   # (v36: in-band chunks without tests, bit 20)
        # (v37: the copies by pairs of doubles, As's bit 21, Bs's bit 22; on the production's cursor, not with v35's or
        # v36's forms)
        pairs = sizes.band_cross_copy16 << 21 if hoist and not (inband or opens) else 0
        form = (skip | (4 if sizes.band_chains == 2 else 0) | 8 * shape | apart | stagger | run | hoist | opens | inband
                | pairs, sizes.band_warp_cols)
        threads = (TR // 16) * (TC // sizes.band_warp_cols) * 32
        return ("bppart_band_cross_ring", (TR, TC, sizes.band_chunk, sizes.band_blocks, sizes.band_ring, sizes.band_skip,
                                           sizes.band_group, sizes.band_hint_cross, band_cross_shared(sizes) > 0) + form,
                threads)
    return "bppart_band_cross_mma", (TR, TC, sizes.band_chunk, sizes.band_blocks, sizes.band_strip), threads


def band_cross_run(sizes, l1: int, mats: int) -> int:
    """Query intervals a block of the cross products takes at level ``l1`` (``mats`` intervals) under launch ``sizes``
    (``band_cross_run`` T, v28: max(1, T // (l1 - 1)), at most ``mats``, where the kernel takes runs: FORM bit 16; else
    1), so that a block walks about T query splits where one interval has fewer; the grid's y is ceil(mats / that). The
    host launches the form with runs only at the levels where this is over 1 (v28's call 1: at 1 it was slower a step).

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> [band_cross_run(SIZES.replace(band_cross_run=8), l1, 24 - l1) for l1 in (2, 3, 4, 5, 9, 10, 23)]
    [8, 4, 2, 2, 1, 1, 1]
    >>> band_cross_run(SIZES.replace(band_cross_run=24), 2, 22), band_cross_run(SIZES.replace(band_cross_run=0), 2, 22)
    (22, 1)
    """
    name, arguments, _ = band_cross_kernel(sizes)
    if name != "bppart_band_cross_ring" or not arguments[9] & 65536:
        return 1
    return max(1, min(mats, sizes.band_cross_run // (l1 - 1)))


def band_cross_runs_everywhere(sizes) -> bool:
    """Whether the host launches the runs' kernel at every level, a run of one interval where :func:`band_cross_run`
    gives 1 (v30: ``band_cross_hoist`` 2, the runs' step loop then shorter than the one-interval kernel's), not the
    one-interval kernel there.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_cross_runs_everywhere(SIZES), band_cross_runs_everywhere(SIZES.replace(band_cross_hoist=1))
    (True, False)
    >>> band_cross_runs_everywhere(SIZES.replace(band_cross_hoist=2, band_cross_run=0))
    False
    """
    name, arguments, _ = band_cross_kernel(sizes)
    return name == "bppart_band_cross_ring" and bool(arguments[9] & 131072) and sizes.band_cross_hoist == 2


def band_cross_shared(sizes) -> int:
    """Bytes of dynamic shared memory the cross products' ring (bppart_band_cross_ring) takes under launch ``sizes``:
    its stages of TR x (KC + 4) and KC x (TC + 4) doubles where they pass static memory's 48 KB, else 0 (static).

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_cross_shared(SIZES.replace(band_chunk=16)), band_cross_shared(SIZES)
    (0, 53248)
    """
    if not (sizes.band_mma and sizes.band_ring and not sizes.band_strip):
        return 0
    TR, TC, KC = sizes.band_rows, sizes.band_cols, sizes.band_chunk
    ring = 8 * sizes.band_ring * (TR * (KC + 4) + KC * (TC + 4))
    return ring if ring > 48 * 1024 else 0


def aligned(bases: int, sizes) -> int:
    """``bases`` rounded up to a multiple of the tiles' common side under launch ``sizes`` (the cross
    products' rows and columns, the sweep's side): where a piece starts in its launch.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> aligned(1, SIZES.replace(band_cols=32)), aligned(33, SIZES.replace(band_rows=16, band_cols=8, band_tile=8))
    (32, 48)
    """
    side = math.lcm(sizes.band_rows, sizes.band_cols, sizes.band_tile)
    return -(-bases // side) * side


def band_tiles_arguments(sizes) -> tuple:
    """The template arguments of the sweep's kernel (bppart_band_tiles) under launch ``sizes``: tile side,
    split, blocks a multiprocessor, lanes, trim, the cp.async ring's stages (0: none; launches mode only:
    cp.async reads through L1, stale under the persistent sweep's grid barriers), the far products' form,
    the near part by one warp, dynamic shared memory, the far part's copies' L2 hint; with ``band_lean`` (and the
    split), OUTER = 1 (v13: QF's base computed by the sweep, not parked by the outer terms), or with
    ``band_outer_late`` (not split) OUTER = 2 (the outer terms summed after the far part); the eleventh, always given;
    v18, the twelfth: FARSHAPE, ``band_far_shape`` (the far part's mma) where the far part is on tensor cores, the
    tile a multiple of 16 rows and the launch bounds leave a thread 64 registers (ptxas rejects the m16n8 FP64 shapes
    under 48: 16-tiles at 5 blocks a multiprocessor or more), else 0 (m8n8k4), always given.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_tiles_arguments(SIZES.replace(band_pipe=3, band_far=2, band_warp=False, band_dynamic=False))
    (16, True, 4, True, True, 3, 2, False, False, 0, 1, 3)
    >>> band_tiles_arguments(SIZES.replace(band_pipe=2, band_sweep="persistent", band_warp=True, band_lean=False))
    (16, True, 4, True, True, 0, 0, True, False, 0, 0, 0)
    >>> band_tiles_arguments(SIZES.replace(band_split=False))[10]
    0
    >>> band_tiles_arguments(SIZES.replace(band_split=False, band_outer_late=True))[10]
    2
    >>> [band_tiles_arguments(SIZES.replace(**more))[11] for more in ({}, dict(band_tile=8), dict(band_far_shape=0),
    ...                                                                dict(band_tile_blocks=5))]
    [3, 0, 0, 0]
    """
    pipe = sizes.band_pipe if sizes.band_sweep != "persistent" else 0
    far = sizes.band_far if pipe else 0
    B, blocks = sizes.band_tile, sizes.band_tile_blocks or (8 if sizes.band_tile <= 8 else 2)
    shape = sizes.band_far_shape if far == 2 and B % 16 == 0 and 65536 // (blocks * B * B) >= 64 else 0
    return (sizes.band_tile, sizes.band_split, sizes.band_tile_blocks, sizes.band_lanes, sizes.band_trim, pipe, far,
            sizes.band_warp, sizes.band_dynamic and pipe > 0, sizes.band_hint_sweep if pipe else 0,
            (1 if sizes.band_lean else 0) if sizes.band_split else (2 if sizes.band_outer_late else 0), shape)


def band_last_kernel(sizes, L2: int, nt: int):
    """(kernel name, template arguments, warps a block) of the sweep's last tile diagonal by a warp a tile under launch
    ``sizes`` (``band_last``, v22: bppart_band_last) where its tiles hold one band cell each, cell (B - 1, 0) (the last
    diagonal d = ceil(L2 / B) exists, nt > d, and L2 = d B - (B - 1)), on a split sweep in launches of 16-tiles; else
    None (bppart_band_tiles takes it as every diagonal). ``L2``: the longest target interval, ``nt``: tiles a side.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_last_kernel(SIZES, 129, 1250), band_last_kernel(SIZES.replace(band_last=False), 129, 1250)
    (('bppart_band_last', (16, 1, 8), 8), None)
    >>> [band_last_kernel(SIZES, L2, nt) for L2, nt in ((128, 1250), (129, 9), (17, 3))]
    [None, None, ('bppart_band_last', (16, 1, 8), 8)]
    """
    arguments = band_tiles_arguments(sizes)
    B, split, pipe, outer = sizes.band_tile, sizes.band_split, arguments[5], arguments[10]
    d = (L2 + B - 1) // B
    if not (sizes.band_last and split and pipe > 0 and B == 16 and nt > d >= 1 and L2 == d * B - (B - 1)):
        return None
    return "bppart_band_last", (B, outer, 8), 8


def band_outer_role(sizes, l1: int, L1: int) -> tuple:
    """The extra arguments of the outer terms' launch of level ``l1`` (of 1 .. L1) under launch ``sizes``: with
    ``band_outer_pair`` (v15), its role in a pair of levels (1: the first, odd l1 >= 5, computes and parks the next
    level's sums of T0 and AUX0, and with ``band_outer_pair`` 2 most of R's; 2: the second reads them; 0: neither),
    else none.

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> [band_outer_role(SIZES, l1, 8)[0] for l1 in range(1, 9)], band_outer_role(SIZES.replace(band_outer_pair=0), 5, 8)
    ([0, 0, 0, 0, 1, 2, 1, 2], ())
    >>> band_outer_role(SIZES, 7, 7)
    (0,)
    """
    if band_outer_kernel(sizes)[0] != "bppart_band_outer_pair":
        return ()
    if l1 >= 5 and l1 % 2 == 1 and l1 + 1 <= L1:
        return (1,)
    return (2,) if l1 >= 6 and l1 % 2 == 0 else (0,)


def band_outer_kernel(sizes) -> tuple:
    """(kernel name, template arguments) of the outer terms (a split sweep's first launch of a level) under launch
    ``sizes``: QF's base parked (bppart_band_outer), not parked (``band_lean``, v13's production:
    bppart_band_outer_lean), or parked with evict-first loads (``band_outer_cs``, v9; under ``band_lean`` the sweep
    ignores the parked base: the same bits); with ``band_lean``, the levels in pairs (``band_outer_pair`` 1, v15's
    production: the same bits; 2: R's sum in the other order and shared too, RQ, v25's production); the pairs'
    kernel with OPEN under ``band_outer_open`` (v33's production: no AUX0 sum or QX load for a query interval that
    cannot close; the same bits).

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_outer_kernel(SIZES), band_outer_kernel(SIZES.replace(band_outer_pair=0))
    (('bppart_band_outer_pair', (True, True)), ('bppart_band_outer_lean', ()))
    >>> band_outer_kernel(SIZES.replace(band_lean=False))
    ('bppart_band_outer', ())
    >>> band_outer_kernel(SIZES.replace(band_outer_pair=1)), band_outer_kernel(SIZES.replace(band_outer_open=False))
    (('bppart_band_outer_pair', (False, True)), ('bppart_band_outer_pair', (True, False)))
    """
    if sizes.band_outer_cs:
        return "bppart_band_outer_cs", ()
    if sizes.band_outer_pair and sizes.band_lean:
        return "bppart_band_outer_pair", (sizes.band_outer_pair == 2, sizes.band_outer_open)
    return ("bppart_band_outer_lean" if sizes.band_lean else "bppart_band_outer"), ()


def band_tiles_shared(sizes) -> int:
    """Bytes of dynamic shared memory the sweep's kernel takes under launch ``sizes`` (0: static only): the
    largest of its cp.async ring, the near part's tiles and the one-warp near part's (bppart_band_tiles' UD; the
    kernel traps when given less).

    >>> from bioaccel.interact._partition_launch import SIZES
    >>> band_tiles_shared(SIZES.replace(band_pipe=3, band_far=2, band_dynamic=True))
    53760
    >>> band_tiles_shared(SIZES.replace(band_dynamic=False))
    0
    """
    B, split, _, lanes, _, pipe, far, warp, dynamic = band_tiles_arguments(sizes)[:9]
    if not dynamic:
        return 0
    pitch = B + 1 if far == 0 else B + 2 if far == 1 else B + 4
    ring = 7 * pipe * B * pitch
    tiles = (2 + 4 + (9 if lanes else 8)) * B * (B + 1)
    near_warp = (2 * B * 2 * B + 2 * B * (B + 2) + 2 * B * (B + 1) + 2 * B * (B + 2) + 10 * B * B) if warp else 0
    return 8 * max(ring, tiles, near_warp)


