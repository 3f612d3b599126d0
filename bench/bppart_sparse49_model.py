"""Steps and bytes model of the windowed cross products with class-grouped fragments (v32, docs/bppart-gpu-notes.md):
for a query split whose QIac interval cannot close (fewer than 5 bases, or its end bases do not pair), QIac is QIs1
alone, nonzero only where the target interval's end bases pair. This counts, on the production's blocks
(bppart_band_cross_ring: 32 x 64 tiles, chunks of 32, 4 warps of 16 x 32, m16n8k16, no skip), the mma a level issues
today against class-grouped forms that issue, for such a split, only a class's rows (QIa: rows b0 by rb[b0]; QIm: ends
b1 by rb[b1 - 1]) against that class's partner positions k, padded to whole fragments; and the in-band operand copies
(what bounds the cross: the L2, v21), which no such form changes (every k is some class's partner).

    python3 bench/bppart_sparse49_model.py [--n 20000] [--window 128]
"""
import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bppart_cross_pairs_model import a_copies, b_copies, tile_ks  # noqa: E402
from bppart_gpu import random_rna  # noqa: E402

PAIRS = {("A", "U"), ("U", "A"), ("C", "G"), ("G", "C"), ("G", "U"), ("U", "G")}   # w > 0 at both weight settings
BASES = "ACGU"
PARTNERS = {c: {p for p in BASES if (c, p) in PAIRS} for c in BASES}


def can_close(q, x, y):
    """Whether query interval [x, y) can close (w1(x, y - 1) > 0): QIs0 and QIe can be nonzero only then."""
    return y - x >= 5 and (q[x], q[y - 1]) in PAIRS


def split_kinds(q):
    """{l1: (closing, open) splits of both sums over the level's intervals}: QIa's left interval [a0, k1 + 1) for
    k1 = a0 .. a1 - 2, QIm's right interval [k1, a1) for k1 = a0 + 1 .. a1 - 1 (bppart_band_cross_ring's first, last)."""
    M, out = len(q), {}
    for l1 in range(2, M + 1):
        close = [0, 0]
        total = [0, 0]
        for a0 in range(M - l1 + 1):
            a1 = a0 + l1
            for k1 in range(a0, a1 - 1):
                total[0] += 1
                close[0] += can_close(q, a0, k1 + 1)
            for k1 in range(a0 + 1, a1):
                total[1] += 1
                close[1] += can_close(q, k1, a1)
        out[l1] = (close, [t - c for t, c in zip(total, close)])
    return out


def class_steps(counts, partners, frag, kstep):
    """Fragments of ``frag`` class members times steps of ``kstep`` partners, summed over the classes."""
    return sum(math.ceil(counts[c] / frag) * math.ceil(partners[c] / kstep) for c in BASES)


def blocks(n, L2, TR=32, TC=64):
    """The production's blocks of one query split: (r0, c0, kbeg, kend)."""
    D = (TR + L2 - 1) // TC + 1
    for I in range(-(-(n + 1) // TR)):
        for place in range(D + 1):
            r0, c0 = I * TR, ((I * TR) // TC + place) * TC
            ks = tile_ks(r0, c0, TR, TC, L2, n)
            if ks is not None and ks[0] < ks[1]:
                yield r0, c0, ks[0], ks[1]


def per_split(rb, L2, TR=32, TC=64, KC=32):
    """Per query split, summed over the target's blocks: today's mma (m16n8k16 units), the class forms' for an open
    split (QIa, QIm; by chunk or over the block's whole k range; the class on the mma's n8 side or its m16 side;
    k in steps of 16 or 8, counted in m16n8k16 units), and the in-band operand elements copied."""
    n = len(rb)
    cls = lambda i: rb[i] if 0 <= i < n else None            # noqa: E731  (outside: an empty interval's, no class)
    t = dict(today=0, copies=0)
    keys = [f"{s}_{g}_{side}_k{k}" for s in ("qia", "qim") for g in ("chunk", "block") for side in ("n8", "m16")
            for k in (16, 8)]
    for key in keys:
        t[key] = 0.0
    for r0, c0, kbeg, kend in blocks(n, L2, TR, TC):
        chunks = -(-(kend - kbeg) // KC)
        t["today"] += chunks * (TR // 16) * (TC // 8) * (KC // 16)
        for ch in range(chunks):
            k0 = kbeg + ch * KC
            t["copies"] += a_copies(r0, k0, kend, TR, KC, L2, n) + b_copies(c0, k0, kend, TC, KC, L2, n)
        rows = {c: sum(cls(r) == c for r in range(r0, r0 + TR)) for c in BASES}
        ends = {c: sum(cls(b1 - 1) == c for b1 in range(c0, c0 + TC)) for c in BASES}
        ranges = {"chunk": [(kbeg + ch * KC, min(kbeg + (ch + 1) * KC, kend)) for ch in range(chunks)],
                  "block": [(kbeg, kend)]}
        for g, spans in ranges.items():
            for lo, hi in spans:
                # QIa: row b0 against k where rb[k - 1] pairs rb[b0] (QIac's interval [b0, k)); QIm: end b1 against
                # k where rb[k] pairs rb[b1 - 1] (QIac's interval [k, b1))
                pa = {c: sum(cls(k - 1) in PARTNERS[c] for k in range(lo, hi)) for c in BASES}
                pm = {c: sum(cls(k) in PARTNERS[c] for k in range(lo, hi)) for c in BASES}
                for k in (16, 8):
                    u = k / 16
                    t[f"qia_{g}_n8_k{k}"] += class_steps(rows, pa, 8, k) * (TC // 16) * u
                    t[f"qia_{g}_m16_k{k}"] += class_steps(rows, pa, 16, k) * (TC // 8) * u
                    t[f"qim_{g}_n8_k{k}"] += class_steps(ends, pm, 8, k) * (TR // 16) * u
                    t[f"qim_{g}_m16_k{k}"] += class_steps(ends, pm, 16, k) * (TR // 8) * u
    return t


def sectors(cells, L2, packed=False, groups=1):
    """32-byte sectors of band cells (row, col) (element row L2 + col of a 128-byte aligned matrix, 4 doubles a
    sector); ``packed``: each row's cells stored one after another (a compacted copy of the table), so a row's n cells
    take ceil(n / 4) + 1 sectors at most (+ 1 a further group where they lie in ``groups`` runs)."""
    if not packed:
        return len({(r * L2 + c) // 4 for r, c in cells})
    per = {}
    for r, _ in cells:
        per[r] = per.get(r, 0) + 1
    return sum(-(-x // 4) + groups for x in per.values())


def today_qia_bytes(rb, L2, KC=32):
    """The production's in-band copies of one query split, elements and sectors (a block's chunk, its distinct
    sectors), and its mma (m16n8k16)."""
    n, out = len(rb), dict(el=0, sec=0, mma=0)
    for r0, c0, kbeg, kend in blocks(n, L2):
        for k0 in range(kbeg, kend, KC):
            ks = range(k0, min(k0 + KC, kend))
            A = [(r, k) for r in range(r0, r0 + 32) for k in ks if 0 <= k - r <= L2 and k <= n]
            B = [(k, c) for k in ks for c in range(c0, c0 + 64) if 0 <= c - k <= L2 and c <= n]
            out["el"] += len(A) + len(B)
            out["sec"] += sectors(A, L2) + sectors(B, L2)
            out["mma"] += 32
    return out


def one_class_qia(rb, L2, packed, KC=32):
    """QIa of an open split by one-class row tiles (F3): 32 consecutive rows b0 of one base class, 64-column tiles
    over their cells, k only the class's partners, gathered KC at a time: A's cells QIac[b0][k] at scattered k (or
    ``packed``: a class-compacted copy of QIac, each row's partner cells contiguous), B's rows QI[k][.] whole."""
    n, out = len(rb), dict(el=0, sec=0, mma=0, blocks=0)
    for c in BASES:
        rows = [r for r in range(n) if rb[r] == c]
        for i in range(0, len(rows), 32):
            g = rows[i:i + 32]
            first, last = g[0], g[-1]
            for c0 in range((first // 64) * 64, min(last + L2, n) + 1, 64):
                kbeg, kend = max(first + 1, c0 - L2), min(c0 + 64, last + 1 + L2, n + 1)
                P = [k for k in range(kbeg, kend) if rb[k - 1] in PARTNERS[c]]
                used = False
                for j in range(0, len(P), KC):
                    ks = P[j:j + KC]
                    A = [(r, k) for r in g for k in ks if 1 <= k - r <= L2]
                    B = [(k, cc) for k in ks for cc in range(c0, c0 + 64) if 0 <= cc - k <= L2 and cc <= n]
                    if A and B:
                        out["el"] += len(A) + len(B)
                        out["sec"] += sectors(A, L2, packed) + sectors(B, L2)
                        out["mma"] += 2 * math.ceil(len(ks) / 16) * 8
                        used = True
                out["blocks"] += used
    return out


def one_class_qim(rb, L2, G=64, TR=32, KC=32):
    """QIm of an open split by one-class column tiles (F3's mirror): G consecutive ends b1 of one class (rb[b1 - 1]),
    TR-row tiles over their cells, k only the class's partners (rb[k]), gathered KC at a time, from packed copies: QF
    with each row's cells grouped by the base of their column k (a class reads its partners' one or two groups), QIac
    with each row's cells grouped by their end's base (a class reads its own group)."""
    n, out = len(rb), dict(el=0, sec=0, mma=0, blocks=0)
    for c in BASES:
        ends = [b1 for b1 in range(1, n + 1) if rb[b1 - 1] == c]
        for i in range(0, len(ends), G):
            g = ends[i:i + G]
            first, last = g[0], g[-1]
            for r0 in range((max(0, first - L2) // TR) * TR, last, TR):
                kbeg, kend = max(r0 + 1, first - L2), min(last, r0 + TR + L2)
                P = [k for k in range(kbeg, kend) if rb[k] in PARTNERS[c]]
                used = False
                for j in range(0, len(P), KC):
                    ks = P[j:j + KC]
                    A = [(b0, k) for b0 in range(r0, r0 + TR) for k in ks if 1 <= k - b0 <= L2]
                    B = [(k, b1) for k in ks for b1 in g if 1 <= b1 - k <= L2]
                    if A and B:
                        out["el"] += len(A) + len(B)
                        out["sec"] += sectors(A, L2, True, len(PARTNERS[c])) + sectors(B, L2, True)
                        out["mma"] += (TR // 16) * math.ceil(len(ks) / 16) * (G // 8)
                        used = True
                out["blocks"] += used
    return out


def screen_cross_share(lengths, phases=(0.0035, 0.1416, 0.0359, 0.1422)):
    """The cross products' share of the device time for queries of these lengths, from stop 48's phases at 23 x 20,000
    (single, cross, outer, sweep; H200) scaled by each phase's work: the cross by sum (M - l1 + 1)(l1 - 1), the sweep
    by the query intervals, the outer terms by their loads (8 + 3 (l1 - 1) an interval), the single fold not."""
    cross = lambda M: sum((M - l + 1) * (l - 1) for l in range(2, M + 1))   # noqa: E731
    outer = lambda M: sum((M - l + 1) * (8 + 3 * (l - 1)) for l in range(1, M + 1))   # noqa: E731
    inter = lambda M: M * (M + 1) // 2   # noqa: E731
    single, c, o, s = phases
    parts = [(single, c * cross(M) / cross(23), o * outer(M) / outer(23), s * inter(M) / inter(23)) for M in lengths]
    tot = [sum(p) for p in parts]
    return sum(p[1] for p in parts) / sum(tot)


def nonzero_share(L2):
    """The share of a band product's QIac factor that can be nonzero for an open split on a random target: the ends
    pair (6 of 16 base pairs) and the interval has at least 5 bases; products weighted by their ends b1."""
    w = [(L2 - d + 1) for d in range(1, L2 + 1)]
    return sum(x for d, x in zip(range(1, L2 + 1), w) if d >= 5) / sum(w) * 6 / 16


def level_mma(kinds, t, form):
    """{l1: (today's mma, the form's)} over a level's splits: closing splits today's tiles, open ones the form's."""
    out = {}
    for l1, (close, opn) in kinds.items():
        today = (close[0] + opn[0] + close[1] + opn[1]) * t["today"]
        new = (close[0] + close[1]) * t["today"] + opn[0] * t[f"qia_{form}"] + opn[1] * t[f"qim_{form}"]
        out[l1] = (today, new)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--window", type=int, default=128)
    args = parser.parse_args()
    rng = random.Random(2028)
    q23 = random_rna(rng, 23)                      # bench/bppart_gpu_windows.py's query (same seed, same draw)
    rb = random_rna(random.Random(7), args.n)      # a random target (the model's counts are per base)
    t = per_split(rb, args.window)
    print(f"n {args.n}, window {args.window}: per split today {t['today']:.0f} mma, copies {t['copies']:.0f} elements")
    print(f"nonzero QIac factor of an open split's band products: {nonzero_share(args.window):.3f}")
    forms = [k[4:] for k in t if k.startswith("qia_")]
    for f in forms:
        print(f"  form {f:14s} QIa {t['qia_' + f] / t['today']:.3f}, QIm {t['qim_' + f] / t['today']:.3f} of today's mma")
    here = os.path.join(HERE, "..", "examples", "sars-cov-svrna.fa")
    svrnas = [line.strip() for line in open(here) if line.strip() and not line.startswith(">")]
    for name, q in [("random 23 (bench)", q23)] + [(f"svRNA {len(s)} nt", s.replace("T", "U")) for s in svrnas]:
        kinds = split_kinds(q)
        opn = sum(sum(v[1]) for v in kinds.values())
        allsp = sum(sum(v[0]) + sum(v[1]) for v in kinds.values())
        print(f"{name} {q}: open splits {opn} of {allsp} ({opn / allsp:.3f})")
        for f in forms:
            lv = level_mma(kinds, t, f)
            today, new = sum(v[0] for v in lv.values()), sum(v[1] for v in lv.values())
            print(f"  form {f:14s} cross mma {new / today:.3f} of today's")
    lengths = [len(x) for x in svrnas]
    share = screen_cross_share(lengths)
    print(f"cross share of the svRNA screen's device time: {share:.3f} (23 nt: {screen_cross_share([23]):.3f})")
    small = rb[:min(args.n, 4000)]
    tq = today_qia_bytes(small, args.window)
    for packed in (False, True):
        f3 = one_class_qia(small, args.window, packed)
        r = {k: f3[k] / tq[k] for k in ("el", "sec", "mma")}
        print(f"one-class row tiles (QIa, open split, {len(small)} nt, packed A {packed}): elements {r['el']:.3f}, "
              f"sectors {r['sec']:.3f}, mma {r['mma']:.3f} of today's; blocks {f3['blocks']} "
              f"against {sum(1 for _ in blocks(len(small), args.window))}")
    for G, TR in ((64, 32), (64, 64), (32, 64)):
        f3 = one_class_qim(small, args.window, G, TR)
        r = {k: f3[k] / tq[k] for k in ("el", "sec", "mma")}
        print(f"one-class column tiles {TR} x {G} (QIm, open split, {len(small)} nt, packed QF and QIac): elements "
              f"{r['el']:.3f}, sectors {r['sec']:.3f}, mma {r['mma']:.3f} of today's; blocks {f3['blocks']}")


if __name__ == "__main__":
    main()
