"""The layout of the ``fused`` GPU kernel's second form (scan.cu ``scan_lanes``): entries in *octets*.

The first form gives each entry (motif x strand) tables of 256 int32 coarse scores per slice of 4
columns, and a warp's look-up meets about 3.5 distinct addresses in one shared-memory bank. Here eight
entries share one table of 256 rows of 16 bytes per slice: row w holds the eight entries' coarse scores
of the 4-letter word w, 16 bits each, so one 16-byte load serves eight look-ups. The sums are packed in
the same 16-bit lanes: each entry's coarse scores total at most 0x7FFF and its lane starts at
0x8000 - Tc, so a lane's top bit is set exactly when the coarse sum reaches the coarse threshold Tc,
and no lane carries into the next. The rounding is the first form's (every slice score rounded up, the
threshold too), so no hit is lost; the kernel scores every window that passes again exactly.

Entries are ordered by their number of slices (stable) before they are cut into octets, so an octet's
shorter entries (their missing slices are tables of zeros) waste few look-ups.
"""
from dataclasses import dataclass

import numpy as np

#: 32-bit words of one octet's table of one slice: 256 rows of 8 lanes of 16 bits.
TABLE_WORDS = 1024
#: The largest coarse sum of an entry (a lane's 15 low bits).
LANE_TOP = 0x7FFF


@dataclass
class LaneLayout:
    """Entries ``members`` (plan entry ids; lane j of octet o is ``members[8 o + j]``, 0 for an empty
    lane, whose length is 0 and which never passes) in groups of octets whose tables fit ``budget`` words.
    Every array the kernel reads, on the host."""

    members: np.ndarray
    group_octet: np.ndarray
    group_table: np.ndarray
    group_words: np.ndarray
    group_reach: np.ndarray
    octet_table: np.ndarray
    octet_slices: np.ndarray
    octet_init: np.ndarray        # uint32, 4 a octet: lanes 2j (low half) and 2j + 1 (high half)
    coarse: np.ndarray            # uint32: tables back to back, [table][row][4 words]
    length: np.ndarray
    units_start: np.ndarray
    threshold: np.ndarray
    coarse_threshold: np.ndarray  # per lane (0x8000: an empty lane), for tests and emulation

    @property
    def groups(self) -> int:
        return self.group_octet.shape[0] - 1

    @property
    def largest_group(self) -> int:
        return int(self.group_words.max()) if self.groups else 0


def lane_tables(plan, members: np.ndarray) -> tuple:
    """The coarse tables of entries ``members`` of ``plan`` for the lanes: (tables (slices in all, 256) int64,
    entry k's slices from row ``first[k]``, coarse thresholds (E,) clamped to [0, 0x8000], slices (E,)).

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[[0, 1, 2, 3, 0]])], [(4, 4)], strands=(0,))
    >>> tables, first, Tc, slices = lane_tables(plan, np.arange(1))
    >>> tables.shape, slices.tolist(), bool(tables.max(axis=1).sum() <= LANE_TOP)
    ((2, 256), [2], True)
    """
    members = np.asarray(members, np.int64)
    lengths = plan.length[members].astype(np.int64)
    slices = -(-lengths // 4)
    first = np.concatenate([[0], np.cumsum(slices)]).astype(np.int64)
    owner = np.repeat(np.arange(members.shape[0]), slices)              # entry of each slice row
    column = 4 * (np.arange(first[-1]) - first[owner])[:, None] + np.arange(4)[None, :]
    inside = column < lengths[owner][:, None]
    rows = plan.units_start[members][owner][:, None] + np.where(inside, column, 0)
    units = np.where(inside[:, :, None], plan.units_flat[rows], 0)     # (rows, 4 columns, 4 letters); past the end 0
    # every word's score: the first letter most significant, as the kernel builds its words
    exact = (units[:, 0, :, None, None, None] + units[:, 1, None, :, None, None] + units[:, 2, None, None, :, None]
             + units[:, 3, None, None, None, :]).reshape(-1, 256)
    lows = units.min(axis=2).sum(axis=1)
    spans = units.max(axis=2).sum(axis=1) - lows
    step = np.maximum(1, -(-np.add.reduceat(spans, first[:-1]) // (LANE_TOP - slices))) if members.size else slices
    tables = -((lows[:, None] - exact) // step[owner][:, None])          # ceil((t - low) / step)
    rest = plan.threshold[members].astype(np.int64) - (np.add.reduceat(lows, first[:-1]) if members.size else 0)
    coarse_threshold = np.clip(-((-rest) // step), 0, LANE_TOP + 1)
    return tables, first, coarse_threshold, slices


def build_lanes(plan, members: np.ndarray, budget: int) -> LaneLayout:
    """The :class:`LaneLayout` of entries ``members`` of ``plan``, groups of at most ``budget`` words
    (each entry's tables must fit: ceil(m / 4) * 1024 words).

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[[0, 1, 2, 3, 0]])] * 9, [(4, 4)] * 9)
    >>> layout = build_lanes(plan, np.arange(plan.entries), 4096)    # 18 entries: 3 octets of 2 slices
    >>> layout.groups, layout.group_words.tolist(), layout.octet_slices.tolist(), int(layout.length[-1])
    (2, [4096, 2048], [2, 2, 2], 0)
    """
    members = np.asarray(members, np.int64)
    tables, first_row, Tc, slices = lane_tables(plan, members)
    order = np.argsort(slices, kind="stable")
    octets = -(-members.shape[0] // 8)
    lanes = np.full(octets * 8, -1, np.int64)
    lanes[:order.shape[0]] = order
    lane_slices = np.where(lanes >= 0, slices[np.maximum(lanes, 0)], 0).reshape(octets, 8)
    octet_slices = lane_slices.max(axis=1) if octets else np.zeros(0, np.int64)
    if (octet_slices * TABLE_WORDS > budget).any():
        raise ValueError("an entry's lane tables are over the group budget")
    # groups: consecutive octets within the budget
    group_octet, group_table, group_words, octet_table = [0], [], [], []
    words = at = 0
    for o in range(octets):
        need = int(octet_slices[o]) * TABLE_WORDS
        if words + need > budget:
            group_octet.append(o)
            group_table.append(at)
            group_words.append(words)
            at += words
            words = 0
        octet_table.append(words // TABLE_WORDS)
        words += need
    if words:
        group_octet.append(octets)
        group_table.append(at)
        group_words.append(words)
    packed = np.zeros((int(octet_slices.sum()), 256, 8), np.uint16)
    init = np.zeros((octets, 8), np.uint16)
    first = np.concatenate([[0], np.cumsum(octet_slices)]).astype(np.int64)
    for o in range(octets):
        for j in range(8):
            k = lanes[8 * o + j]
            if k < 0:
                continue
            s = int(slices[k])
            packed[first[o]:first[o] + s, :, j] = tables[first_row[k]:first_row[k] + s]
            init[o, j] = 0x8000 - int(Tc[k])
    real = np.maximum(lanes, 0)
    empty = lanes < 0
    entry = members[real]
    length = np.where(empty, 0, plan.length[entry]).astype(np.int32)
    reach = [int(length[8 * a:8 * b].max(initial=1)) for a, b in zip(group_octet[:-1], group_octet[1:])]
    i32 = lambda a: np.asarray(a, dtype=np.int32)  # noqa: E731
    return LaneLayout(np.where(empty, 0, entry), i32(group_octet), np.asarray(group_table, np.int64),
                      i32(group_words), i32(reach), i32(octet_table), i32(octet_slices),
                      init.view(np.uint32).ravel(), packed.view(np.uint32).ravel() if packed.size
                      else np.zeros(4, np.uint32), length, np.where(empty, 0, plan.units_start[entry]).astype(np.int64),
                      np.where(empty, np.iinfo(np.int64).max, plan.threshold[entry]).astype(np.int64),
                      np.where(empty, LANE_TOP + 1, Tc[real]).astype(np.int64))


def lane_sums(layout: LaneLayout, lane: int, codes: np.ndarray) -> np.ndarray:
    """What the ``scan_lanes`` kernel sums for lane ``lane`` (8 o + j) at every window of ``codes``
    (other letters read as A), from the packed tables: for tests, and to check a layout on the CPU.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[[0, 1, 2, 3, 0]])], [(4, 4)], strands=(0,))
    >>> layout = build_lanes(plan, np.arange(1), 2048)
    >>> sums = lane_sums(layout, 0, np.array([0, 1, 2, 3, 0, 3, 3, 3, 3, 3]))    # ACGTA: the best word first
    >>> bool(sums[0] == sums.max() and sums[0] >= layout.coarse_threshold[0] > sums[1])
    True
    """
    o, j = divmod(int(lane), 8)
    clean = np.where(codes > 3, 0, codes).astype(np.int64)
    padded = np.concatenate([clean, np.zeros(4 * int(layout.octet_slices[o]) + 4, np.int64)])
    n = codes.shape[0]
    g = int(np.searchsorted(layout.group_octet, o, side="right") - 1)
    lanes = layout.coarse.view(np.uint16)
    total = np.zeros(n, np.int64)
    for s in range(int(layout.octet_slices[o])):
        word = sum(padded[4 * s + c:4 * s + c + n] << (6 - 2 * c) for c in range(4))
        table = (layout.group_table[g] + (layout.octet_table[o] + s) * TABLE_WORDS) * 2     # in 16-bit lanes
        total += lanes[table + word * 8 + j]
    return total
