"""finish_form 7 against form 6, and 11-13 against 7, on the CPU (tests/bpmax_finish_emulator.py: the kernel's segment
read, group loop and store cut from kernels/bpmax.cu and run as host threads): every word of a segment and every stored
cell the same on the production band (129 wide, 288 rows and the halo, 832 threads), short windows, 8-row segments and
segments cut by the target's end, groups of 8, 4, 2 and 3 diagonals (forms 11-13: 8); and no warp meeting two barrier
instructions at one tail barrier (the hang of bpmaxunroll's device call 1, which the emulator finds when the INSIDE
copy is chosen a thread at a time, as it was). Forms 11-13 (issue 29, helper bpmaxpipe) read a row's vectors a group
ahead of their first reader and store them a group after their last writer: the emulator finds a vector read one
group late, stored one group early, or form 13's early load of the wrong vector.

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
        assert found["differ11"] == 0 and found["stored11"] == 0 and found["split11"] == 0, found["line"]
    assert changed > 0   # the segments were finished at all (a band of 2 may change no word)


def _mutant(folder, name, old, new):
    """The emulator (groups of 8) of the kernel source with ``old`` replaced by ``new``."""
    source = emulator.KERNEL.read_text()
    assert old in source
    path = f"{folder}/{name}"
    with open(f"{path}.cpp", "w") as handle:
        handle.write(emulator.emulator_source(source.replace(old, new)))
    subprocess.run([emulator.GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", "-DGROUP=8", "-pthread", f"{path}.cpp",
                    "-o", path], check=True)
    return path


@pytest.mark.parametrize("name, old, new, key", [
    ("late", "constexpr int PIPE_AHEAD = 3;", "constexpr int PIPE_AHEAD = 2;", "differ11"),   # read a group late
    ("early", "store_vector(g, mat, P, SR, s, r, i - 1)", "store_vector(g, mat, P, SR, s, r, i)", "stored11"),
    ("wrong", "const int v = (e0 - 1) / G + 1 + PIPE_AHEAD;", "const int v = (e0 - 1) / G + PIPE_AHEAD;", "differ11")])
def test_the_emulator_finds_forms_11_to_13_reading_late_or_storing_early(folder, name, old, new, key):
    program = _mutant(folder, name, old, new)
    assert sum(emulator.emulate(program, *case)[key] for case in CASES[:3]) > 0


def test_the_emulator_finds_a_warp_split_between_barrier_instructions(folder):
    """The INSIDE copy chosen a thread at a time (call 1's kernel) splits warps at the tail barriers."""
    warp = "__all_sync(0xFFFFFFFFu, e0 + G <= Wb && r + e0 + G <= H)"
    found = emulator.emulate(_mutant(folder, "per_thread", warp, "(e0 + G <= Wb && r + e0 + G <= H)"), 129, 288,
                             100_000, 1)
    assert found["split6"] == 0 and found["split7"] > 0, found["line"]
