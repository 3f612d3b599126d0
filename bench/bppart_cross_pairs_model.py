"""Bytes and steps model of the windowed cross products' ring (v23, docs/bppart-gpu-notes.md): per query split, the
in-band operand copies (8-byte cp.async that read memory) and the block steps of the production's blocks alone against
row tiles in pairs that copy each B chunk once (bppart_band_cross_pair), at 32 x 64 tiles, chunks of 32.

    python3 bench/bppart_cross_pairs_model.py [--window 128] [--n 10000]
"""
import argparse


def tile_ks(r0, c0, TR, TC, L2, n):
    """(kbeg, kend) of tile (r0, c0), or None where the kernel skips it (as bppart_band_cross_ring)."""
    if r0 > n or c0 > n or c0 + TC - 1 <= r0 or c0 - (r0 + TR - 1) > L2:
        return None
    return max(r0 + 1, c0 - L2), min(c0 + TC, r0 + TR + L2, n + 1)


def a_copies(r0, k0, kend, TR, KC, L2, n):
    return sum(1 for r in range(r0, r0 + TR) for k in range(k0, k0 + KC)
               if k < kend and 0 <= k - r <= L2 and k <= n)


def b_copies(c0, k0, kend, TC, KC, L2, n, rows=None):
    rows = range(k0, k0 + KC) if rows is None else rows
    return sum(1 for k in rows for c in range(c0, c0 + TC) if k < kend and 0 <= c - k <= L2 and c <= n)


def model(window=128, n=10000, TR=32, TC=64, KC=32):
    L2 = window
    D = (TR + L2 - 1) // TC + 1
    alone = dict(a=0, b=0, steps=0, issued=0)
    pairs = dict(a=0, b=0, steps=0, block_steps=0, shared_steps=0, alone_steps=0)
    ntr = -(-(n + 1) // TR)
    for P in range(-(-ntr // 2)):
        for delta in range(D + 1):
            c0 = ((2 * P * TR) // TC + delta) * TC
            tiles = [(r0, tile_ks(r0, c0, TR, TC, L2, n)) for r0 in (2 * P * TR, (2 * P + 1) * TR)]
            for r0, ks in tiles:       # the production: each block alone
                if ks is None:
                    continue
                kbeg, kend = ks
                for k0 in range(kbeg, kend, KC):
                    alone["a"] += a_copies(r0, k0, kend, TR, KC, L2, n)
                    alone["b"] += b_copies(c0, k0, kend, TC, KC, L2, n)
                    alone["steps"] += 1
            live = [(r0, ks) for r0, ks in tiles if ks is not None and ks[0] < ks[1]]
            if len(live) == 2 and (live[1][1][0] - live[0][1][0]) % KC == 0:
                base = live[0][1][0]
                kendB = max(ks[1] for _, ks in live)
                U = max((ks[0] - base) // KC + -(-(ks[1] - ks[0]) // KC) for _, ks in live)
                for u in range(U):
                    k0 = base + u * KC
                    pairs["b"] += b_copies(c0, k0, kendB, TC, KC, L2, n)
                    for r0, (kbeg, kend) in live:
                        if kbeg <= k0 < kend:
                            pairs["a"] += a_copies(r0, k0, kend, TR, KC, L2, n)
                pairs["steps"] += U
                pairs["block_steps"] += 2 * U
                pairs["shared_steps"] += U
            else:
                for r0, (kbeg, kend) in [(r0, ks) for r0, ks in tiles if ks is not None]:
                    for k0 in range(kbeg, kend, KC):
                        pairs["a"] += a_copies(r0, k0, kend, TR, KC, L2, n)
                        pairs["b"] += b_copies(c0, k0, kend, TC, KC, L2, n)
                        pairs["block_steps"] += 1
                        pairs["alone_steps"] += 1
    return alone, pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=int, default=128)
    parser.add_argument("--n", type=int, default=10000)
    args = parser.parse_args()
    alone, pairs = model(args.window, args.n)
    ta, tp = alone["a"] + alone["b"], pairs["a"] + pairs["b"]
    print(f"window {args.window}, n {args.n}, 32 x 64 x 32, per query split:")
    print(f"  alone: A {alone['a']:,} + B {alone['b']:,} = {ta:,} copies that read memory; {alone['steps']:,} block steps")
    print(f"  pairs: A {pairs['a']:,} + B {pairs['b']:,} = {tp:,} ({tp / ta - 1:+.1%}); {pairs['block_steps']:,} block "
          f"steps ({pairs['block_steps'] / alone['steps'] - 1:+.1%}), {pairs['shared_steps']:,} cluster steps, "
          f"{pairs['alone_steps']:,} steps alone")
    print(f"  B: {pairs['b'] / alone['b'] - 1:+.1%}; A: {pairs['a'] / alone['a'] - 1:+.1%}")


if __name__ == "__main__":
    main()
