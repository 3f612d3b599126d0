"""Per kernel of one .cu file, a digest of its SASS bytes (nvcc -arch=sm_90 -cubin, no GPU needed), so that a
source change that must keep the production's instructions can be checked byte for byte: run it before and after,
then ``--compare`` the two JSON files.

    PATH=/usr/local/bin:$PATH PYTHONPATH=src:tests python3 bench/kernel_sass_digests.py \\
        interact/kernels/bppart_band.cu --json docs/results/sass_before.json
    python3 bench/kernel_sass_digests.py --compare docs/results/sass_before.json docs/results/sass_after.json

The kernels are those tests/host_kernels.py lists for the file at the production's launch sizes (the production's
instantiations and the alternatives the benchmarks compare); a kernel's digest is the SHA-256 of its ELF section
``.text.<mangled name>`` (its SASS encodings, every instruction 16 bytes on sm_90).
"""
import argparse
import hashlib
import json
import struct
import sys
import tempfile
from pathlib import Path

from _results import save_json


def text_sections(elf: bytes) -> dict:
    """The ``.text.<name>`` sections of a 64-bit little-endian ELF file (a cubin): {name: bytes}.

    >>> text_sections(b"\\x7fELF" + bytes(60))
    {}
    """
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shnum == 0:
        return {}
    headers = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_at, names_size = headers[shstrndx][4], headers[shstrndx][5]
    names = elf[names_at:names_at + names_size]
    sections = {}
    for name_off, kind, _, _, offset, size, *_ in headers:
        name = names[name_off:names.index(b"\0", name_off)].decode()
        if name.startswith(".text.") and kind == 1:   # SHT_PROGBITS: code
            sections[name[len(".text."):]] = elf[offset:offset + size]
    return sections


def sass_digests(relative: str) -> dict:
    """{mangled kernel: {"sha256", "instructions"}} of the production's instantiations listed for ``relative`` (a .cu
    file under the package, as host_kernels names it)."""
    from host_kernels import NVCC, PACKAGE, PRODUCTION, host_kernels, nvcc_build

    if NVCC is None:
        sys.exit("nvcc is not installed")
    with tempfile.TemporaryDirectory() as folder:
        cubin, proc = nvcc_build(PACKAGE / relative, host_kernels(PRODUCTION)[relative], folder, "cubin")
        if proc.returncode:
            sys.exit(proc.stderr)
        code = text_sections(cubin.read_bytes())
    return {name: {"sha256": hashlib.sha256(body).hexdigest(), "instructions": len(body) // 16}
            for name, body in sorted(code.items())}


def compare(before: dict, after: dict) -> dict:
    """Kernels of two digests' files, by outcome: the same bytes, changed, only before, only after.

    >>> compare({"a": {"sha256": "1"}, "b": {"sha256": "2"}, "c": {"sha256": "3"}},
    ...         {"a": {"sha256": "1"}, "b": {"sha256": "9"}, "d": {"sha256": "4"}})
    {'same': ['a'], 'changed': ['b'], 'removed': ['c'], 'added': ['d']}
    """
    return {"same": sorted(k for k in before if k in after and before[k]["sha256"] == after[k]["sha256"]),
            "changed": sorted(k for k in before if k in after and before[k]["sha256"] != after[k]["sha256"]),
            "removed": sorted(k for k in before if k not in after),
            "added": sorted(k for k in after if k not in before)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="a .cu file under the package, e.g. interact/kernels/bppart_band.cu")
    parser.add_argument("--json", help="where to write the digests")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="two digests' files to compare")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(Path(p).read_text())["kernels"] for p in args.compare)
        outcome = compare(before, after)
        for key, names in outcome.items():
            print(f"{key}: {len(names)}")
            for name in names if key != "same" else ():
                print(f"  {name}")
        return 0
    kernels = sass_digests(args.file)
    print(f"{'instructions':>12}  sha256 (first 16)  kernel")
    for name, digest in kernels.items():
        print(f"{digest['instructions']:>12}  {digest['sha256'][:16]}   {name}")
    if args.json:
        save_json({"file": args.file, "kernels": kernels}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
