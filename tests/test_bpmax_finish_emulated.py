"""finish_form 7 against form 6 on the CPU (tests/bpmax_finish_emulator.py: the kernel's group loop cut from
kernels/bpmax.cu and run as host threads): every word of a segment the same on the production band (129 wide, 288 rows
and the halo, 832 threads), short windows, 8-row segments and segments cut by the target's end, groups of 8, 4, 2 and 3
diagonals; and no warp meeting two barrier instructions at one tail barrier (the hang of bpmaxunroll's device call 1,
which the emulator finds when the INSIDE copy is chosen a thread at a time, as it was).

Needs g++ with C++20's <barrier>: skipped, with the reason, where there is none. No GPU.
"""
import subprocess
import tempfile

import pytest

import bpmax_finish_emulator as emulator

#: (band Wb, segment rows, rows to the target's end, seed): the production segment whole and at the target's end,
#: short windows' bands (5, 17, 40 nt: Wb 6, 18, 41), the tests' 8-row segments, bands between
CASES = [(129, 288, 100_000, 1), (129, 288, 300, 2), (129, 8, 100_000, 3), (41, 160, 100_000, 4), (41, 8, 30, 5),
         (18, 200, 100_000, 6), (6, 8, 10, 7), (2, 8, 5, 8), (57, 96, 140, 9), (100, 40, 120, 10)]


@pytest.fixture(scope="module")
def folder():
    if emulator.GXX is None:
        pytest.skip("needs g++")
    with tempfile.TemporaryDirectory() as path:
        try:
            emulator.build(2, path)
        except subprocess.CalledProcessError as error:
            pytest.skip(f"g++ cannot build the emulator (C++20 <barrier>?): {error.stderr[-300:]}")
        yield path


@pytest.mark.parametrize("G", [8, 4, 2, 3])
def test_form_7_equals_form_6_word_by_word(folder, G):
    program = emulator.build(G, folder)
    changed = 0
    for case in CASES:
        found = emulator.emulate(program, *case)
        changed += found["changed"]
        assert found["differ"] == 0 and found["split6"] == 0 and found["split7"] == 0, found["line"]
    assert changed > 0   # the segments were finished at all (a band of 2 may change no word)


def test_the_emulator_finds_a_warp_split_between_barrier_instructions(folder):
    """The INSIDE copy chosen a thread at a time (call 1's kernel) splits warps at the tail barriers."""
    source = emulator.KERNEL.read_text()
    warp = "__all_sync(0xFFFFFFFFu, e0 + G <= Wb && r + e0 + G <= H)"
    assert warp in source
    code = emulator.emulator_source(source.replace(warp, "(e0 + G <= Wb && r + e0 + G <= H)"))
    path = f"{folder}/per_thread.cpp"
    with open(path, "w") as handle:
        handle.write(code)
    subprocess.run([emulator.GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", "-DGROUP=8", "-pthread", path, "-o",
                    f"{folder}/per_thread"], check=True)
    found = emulator.emulate(f"{folder}/per_thread", 129, 288, 100_000, 1)
    assert found["split6"] == 0 and found["split7"] > 0, found["line"]
