"""L2 replay of the windowed cross products' blocks (v34, docs/bppart-gpu-notes.md): today's kernel
(bppart_band_cross_ring, 32 x 64 tiles, chunks of 32, one-sum blocks, stagger 48) against v32's form D (QIa's open query
splits by one-class row tiles from a packed copy of QIac), one launch of level l1, its blocks dispatched in grid order
into ``slots`` resident places, each resident block one step (one chunk's copies) a tick, the copies' data looked up
in an LRU cache of ``cap`` bytes (the H200's L2: 50 MB).

Units of the cache (so that a launch replays in seconds, not the 1.2 G sector lookups ncu counts): A of today's block
a (matrix, row tile, chunk of 32 positions); B a (matrix, chunk of 32 rows, column tile, base of the row's k - 1), so
that a one-class block, which reads only its partners' rows, touches only their part. A unit's requested sectors are
the 32-byte sectors of its in-band cells (band layout T + row L2 + col); a miss reads them from DRAM.

    python3 bench/bppart_formd_l2_model.py [--n 8000] [--levels 13] [--cap-mb 50]
"""
import argparse
import os
import random
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bppart_cross_pairs_model import tile_ks  # noqa: E402
from bppart_gpu import random_rna  # noqa: E402
from bppart_sparse49_model import BASES, PARTNERS, can_close  # noqa: E402

TR, TC, KC, L2 = 32, 64, 32, 128


def run_sectors(row, lo, hi):
    """Sectors of one row's cells [lo, hi) in the band layout (element row L2 + col, 4 doubles a sector)."""
    return 0 if hi <= lo else (row * L2 + hi - 1) // 4 - (row * L2 + lo) // 4 + 1


def staggered(D, ntr, R=48):
    """Today's block order (v26's band_cross_staggered; R = 0 the order before it): [(I, place)] in blockIdx.x order."""
    if R == 0:
        return [(I, p) for I in range(ntr) for p in range(D + 1)]
    out, per = [], R * (D + 1)
    for x in range(-(-ntr // R) * per):
        stripe, w = divmod(x, per)
        rows = min(R, ntr - stripe * R)
        if w < rows * (D + 1):
            out.append((stripe * R + w % rows, D - w // rows))
    return out


class Target:
    """A target's sizes of today's A units and B sub-units (cached)."""

    def __init__(self, rb):
        self.rb, self.n, self.a, self.b = rb, len(rb), {}, {}

    def base(self, k):
        return self.rb[k - 1] if 1 <= k <= self.n else None

    def a_size(self, I, kb):
        key = (I, kb)
        if key not in self.a:
            self.a[key] = sum(run_sectors(r, max(kb * KC, r), min(kb * KC + KC, r + L2 + 1, self.n + 1))
                              for r in range(I * TR, I * TR + TR))
        return self.a[key]

    def b_rows(self, kb, J):
        """{base: sectors} of B's rows k of chunk kb over column tile J, by the base of k - 1."""
        key = (kb, J)
        if key not in self.b:
            d = {}
            for k in range(kb * KC, kb * KC + KC):
                c0 = J * TC
                s = run_sectors(k, max(c0, k), min(c0 + TC, k + L2 + 1, self.n + 1))
                if s:
                    d[self.base(k)] = d.get(self.base(k), 0) + s
            self.b[key] = d
        return self.b[key]


def today_block(tg, I, J, mats):
    """Today's block (row tile I, column tile J) over query splits ``mats`` (left, right matrix ids): its steps, each
    a list of (key, sectors) requests. None where the kernel returns at once."""
    ks = tile_ks(I * TR, J * TC, TR, TC, L2, tg.n)
    if ks is None or ks[0] >= ks[1] or not mats:
        return None
    kbeg, kend = ks
    steps = []
    for left, right in mats:
        for k0 in range(kbeg, kend, KC):
            kbs = sorted({k0 // KC, (min(k0 + KC, kend) - 1) // KC})   # (a chunk may straddle two units: half each)
            reqs = []
            for kb in kbs:
                reqs.append((("A", left, I, kb), tg.a_size(I, kb) // len(kbs) or 1))
                for base, s in tg.b_rows(kb, J).items():
                    reqs.append((("B", right, kb, J, base), s // len(kbs) or 1))
            steps.append(reqs)
    return steps


def formd_shape(tg):
    """Form D's blocks on this target, once: [(first row, class, group, [(a sectors, chunk kb, {(kb, J, base): b
    sectors}, the chunk's k)])]: 32 rows of one base class (in position order), 64-column tiles, k only the class's
    partners gathered 32 at a time; A from the packed QIac (each row's partner cells one after another), B the
    partners' rows of QI."""
    if hasattr(tg, "formd"):
        return tg.formd
    n, out = tg.n, []
    for c in BASES:
        rows = [r for r in range(n + 1) if tg.base(r + 1) == c]          # row b0's class: rb[b0] (base of b0 + 1 - 1)
        for g0 in range(0, len(rows), TR):
            grp = rows[g0:g0 + TR]
            first, last = grp[0], grp[-1]
            for J in range(first // TC, min(last + L2, n) // TC + 1):
                c0 = J * TC
                kbeg, kend = max(first + 1, c0 - L2), min(c0 + TC, last + 1 + L2, n + 1)
                P = [k for k in range(kbeg, kend) if tg.base(k) in PARTNERS[c]]
                chunks = []
                for j in range(0, len(P), KC):
                    ks = P[j:j + KC]
                    lo, hi = ks[0], ks[-1]
                    a = 0
                    for r in grp:        # row r's cells at its partners k in (r, r + L2]: contiguous when packed
                        m = sum(1 for k in ks if 1 <= k - r <= L2) if r < hi and r + L2 >= lo else 0
                        a += -(-m // 4) + 1 if m else 0
                    bykb = {}
                    for k in ks:
                        s = run_sectors(k, max(c0, k), min(c0 + TC, k + L2 + 1, n + 1))
                        if s:
                            key = (k // KC, J, tg.base(k))
                            bykb[key] = bykb.get(key, 0) + s
                    if a and bykb:
                        chunks.append((a, ks[0] // KC, bykb, ks))
                if chunks:
                    out.append((first, c, g0, chunks))
    out.sort(key=lambda x: x[0])
    tg.formd = out
    return out


def formd_blocks(tg, mats):
    """Form D's blocks over open splits ``mats`` (left, right matrix ids), in the order of their first row: each a
    list of steps (the splits' chunks), each step a list of (key, sectors) requests."""
    out = []
    for _, c, g0, chunks in formd_shape(tg):
        steps = []
        for left, right in mats:
            for a, kb, bykb, _ in chunks:
                steps.append([(("P", left, c, g0, kb), a)] + [(("B", right) + key, s) for key, s in bykb.items()])
        out.append(steps)
    return out


def replay(blocks, slots, cap_sectors):
    """Blocks (each a list of steps, None: returns at once) dispatched in order into ``slots`` places, a step a tick;
    the requests looked up in an LRU of ``cap_sectors``. Returns requested sectors, missed sectors, ticks, steps."""
    lru, used = OrderedDict(), 0
    req = miss = ticks = nsteps = 0
    it = iter(blocks)
    active = []
    done = False

    def refill():
        nonlocal done
        while len(active) < slots and not done:
            b = next(it, False)
            if b is False:
                done = True
            elif b:
                active.append([b, 0])

    refill()
    while active:
        ticks += 1
        for blk in active:
            steps, i = blk
            for key, s in steps[i]:
                req += s
                if key in lru:
                    lru.move_to_end(key)
                else:
                    miss += s
                    lru[key] = s
                    used += s
                    while used > cap_sectors:
                        used -= lru.popitem(last=False)[1]
            blk[1] += 1
            nsteps += 1
        active[:] = [b for b in active if b[1] < len(b[0])]
        refill()
    return dict(req=req, miss=miss, ticks=ticks, steps=nsteps)


def launch(tg, q, l1, form, D, stagger=48):
    """The blocks of level l1's cross launch in dispatch order: QIa's (z = 0), then QIm's (z = 1); ``form`` 'today',
    or 'D' (QIa's open splits by form D's blocks, after the QIa blocks of the closing splits)."""
    M, ntr = len(q), -(-(tg.n + 1) // TR)
    order = staggered(D, ntr, stagger)
    mid = lambda x, y: (x, y)   # noqa: E731  (a matrix id: the interval)
    out = []
    for which in (0, 1):
        for a0 in range(M - l1 + 1):
            a1 = a0 + l1
            if which == 0:
                splits = [(mid(a0, k1 + 1), mid(k1 + 1, a1), can_close(q, a0, k1 + 1)) for k1 in range(a0, a1 - 1)]
                keep = [(lm, rm) for lm, rm, cl in splits if form == "today" or cl]
            else:
                keep = [(mid(a0, k1), mid(k1, a1)) for k1 in range(a0 + 1, a1)]
            out.extend(today_block(tg, I, (I * TR) // TC + place, keep) for I, place in order)
        if which == 0 and form == "D":
            for a0 in range(M - l1 + 1):
                a1 = a0 + l1
                opn = [(mid(a0, k1 + 1), mid(k1 + 1, a1)) for k1 in range(a0, a1 - 1) if not can_close(q, a0, k1 + 1)]
                if opn:
                    out.extend(formd_blocks(tg, opn))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8000)
    parser.add_argument("--levels", default="13")
    parser.add_argument("--cap-mb", default="50")
    parser.add_argument("--slots", type=int, default=396)      # 132 multiprocessors x 3 blocks
    parser.add_argument("--query", default="bench", help="bench (its seed-2028 23-mer) or 0, 1, 2: an svRNA")
    parser.add_argument("--stagger", type=int, default=48)
    parser.add_argument("--forms", default="today,D")
    args = parser.parse_args()
    q = random_rna(random.Random(2028), 23)
    if args.query != "bench":
        here = os.path.join(HERE, "..", "examples", "sars-cov-svrna.fa")
        sv = [x.strip().replace("T", "U") for x in open(here) if x.strip() and not x.startswith(">")]
        q = sv[int(args.query)]
    tg = Target(random_rna(random.Random(7), args.n))
    D = (TR + L2 - 1) // TC + 1
    print(f"query {q} ({len(q)} nt), target {args.n} nt, window {L2}, {args.slots} slots")
    small = Target(tg.rb[:4000])
    t, d = warp_requests(small)
    print(f"one QIa query split, open, 4,000 nt: warp requests today {t['req']:,}, form D {d['req']:,} "
          f"({d['req'] / t['req']:.3f}); block steps {t['steps']:,} / {d['steps']:,} ({d['steps'] / t['steps']:.3f})")
    for l1 in [int(x) for x in args.levels.split(",")]:
        for cap in [float(x) for x in args.cap_mb.split(",")]:
            rows = {}
            for form in args.forms.split(","):
                r = replay(launch(tg, q, l1, form, D, args.stagger), args.slots, int(cap * 2 ** 20 / 32))
                rows[form] = r
                print(f"l1 {l1}, L2 {cap:g} MB, stagger {args.stagger}, {form:5s}: requested {r['req'] / 1e6:8.2f} M "
                      f"sectors, DRAM {r['miss'] * 32 / 1e9:6.3f} GB, hit {1 - r['miss'] / r['req']:.3f}, block steps "
                      f"{r['steps']:,}, ticks {r['ticks']:,}", flush=True)
            if len(rows) < 2:
                continue
            t, d = rows["today"], rows["D"]
            print(f"  D / today: requests {d['req'] / t['req']:.3f}, DRAM {d['miss'] / t['miss']:.3f}, steps "
                  f"{d['steps'] / t['steps']:.3f}, ticks {d['ticks'] / t['ticks']:.3f}", flush=True)



def warp_requests(tg):
    """L2 requests (a warp's copy instruction that reads memory: a row's 32 columns of A, a row's half of B's 64) of
    one query split over the target: today's QIa blocks against form D's, with their block steps."""
    n, ntr = tg.n, -(-(tg.n + 1) // TR)
    D = (TR + L2 - 1) // TC + 1

    def b_req(k, c0):
        return sum(1 for h in (c0, c0 + 32) if max(h, k) < min(h + 32, k + L2 + 1, n + 1))

    today = dict(req=0, steps=0)
    for I, place in staggered(D, ntr):
        J = (I * TR) // TC + place
        ks = tile_ks(I * TR, J * TC, TR, TC, L2, n)
        if ks is None or ks[0] >= ks[1]:
            continue
        for k0 in range(ks[0], ks[1], KC):
            k1 = min(k0 + KC, ks[1])
            today["req"] += sum(1 for r in range(I * TR, I * TR + TR) if max(k0, r) < min(k1, r + L2 + 1, n + 1))
            today["req"] += sum(b_req(k, J * TC) for k in range(k0, k1))
            today["steps"] += 1
    formd = dict(req=0, steps=0)
    for first, c, g0, chunks in formd_shape(tg):
        rows = [r for r in range(n + 1) if tg.base(r + 1) == c][g0:g0 + TR]
        for a, kb, bykb, P in chunks:
            J = next(iter(bykb))[1]
            formd["req"] += sum(1 for r in rows if any(1 <= k - r <= L2 for k in P))
            formd["req"] += sum(b_req(k, J * TC) for k in P)
            formd["steps"] += 1
    return today, formd


if __name__ == "__main__":
    main()
