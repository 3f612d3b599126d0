"""The GPU scan benches' 100 Mb: a FASTA file's first record repeated as one record of 60-letter lines, its
letters as written (bench/scan_ab.sh, bench/scan_e2e.sh; bench/scan.py makes its own, upper-cased).

    python3 bench/big_fasta.py .devdata/chr22.fa 100 /tmp/big.fa
"""
import sys

from bioaccel.inputs.fasta import read_fasta


def main(argv=None) -> int:
    source, repeat, path = argv or sys.argv[1:]
    text = next(iter(read_fasta(source))).sequence
    with open(path, "w") as out:
        out.write(f">chr22_slice_x{int(repeat)}\n")
        for _ in range(int(repeat)):
            for i in range(0, len(text), 60):
                out.write(text[i:i + 60] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
