"""finish_forms 7 to 10 against form 6 on the CPU (tests/bpmax_finish_emulator.py: the kernel's group loop cut from
kernels/bpmax.cu and run as host threads): every word of a segment the same on the production band (129 wide, 288 rows
and the halo, 832 threads), short windows, 8-row segments and segments cut by the target's end, groups of 8, 4, 2 and 3
diagonals; and no warp meeting two barrier instructions at one tail barrier (the hang of bpmaxunroll's device call 1,
which the emulator finds when the INSIDE copy is chosen a thread at a time, as it was). Forms 8 and 9 (issue 29,
helper bpmaxfin3: a bulk thread's two rows at one absolute split point; a pair's next-group splits on two threads) and
10 (bpmaxfin4: form 8 with a warp's pairs swizzled on its lanes) for the even groups they take.

Needs g++ with C++20's <barrier>: skipped, with the reason, where there is none. No GPU.
"""
import subprocess
import tempfile

import pytest

import bpmax_finish_emulator as emulator

#: (band Wb, segment rows, rows to the target's end, seed): the production segment whole and at the target's end,
#: short windows' bands (5, 17, 40 nt: Wb 6, 18, 41), the tests' 8-row segments, bands between
CASES = [(129, 288, 100_000, 1), (129, 288, 300, 2), (129, 8, 100_000, 3), (41, 160, 100_000, 4), (41, 8, 30, 5),
         (18, 200, 100_000, 6), (6, 8, 10, 7), (2, 8, 5, 8), (57, 96, 140, 9), (100, 40, 120, 10),
         (129, 288, 140, 11)]   # 140 rows: warp 0's pairs not all paired at e0 = 121 (form 10's swizzle left out)


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
def test_forms_7_to_10_equal_form_6_word_by_word(folder, G):
    program = emulator.build(G, folder)
    changed = 0
    for case in CASES:
        found = emulator.emulate(program, *case)
        changed += found["changed"]
        assert found["split6"] == 0, found["line"]
        for form in range(7, 11):
            assert found[f"differ{form}"] == 0 and found[f"split{form}"] == 0, (form, found["line"])
    assert changed > 0   # the segments were finished at all (a band of 2 may change no word)


def test_the_emulator_finds_form_8_with_row_r_plus_1_on_row_r_columns(folder):
    """Form 8's row r + 1 against row r's column words (j = c, not c + 1): the words differ from form 6's."""
    source = emulator.KERNEL.read_text()
    right = "acc2[c] = __viaddmax_s16x2(y, w[c + 1], acc2[c]);"
    assert right in source
    path = f"{folder}/shifted.cpp"
    with open(path, "w") as handle:
        handle.write(emulator.emulator_source(source.replace(right, right.replace("w[c + 1]", "w[c]"))))
    subprocess.run([emulator.GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", "-DGROUP=8", "-pthread", path, "-o",
                    f"{folder}/shifted"], check=True)
    found = emulator.emulate(f"{folder}/shifted", 129, 288, 100_000, 1)
    assert found["differ7"] == 0 and found["differ8"] > 0 and found["differ9"] > 0, found["line"]


def test_the_emulator_finds_form_10_swizzling_a_warp_not_all_paired(folder):
    """Form 10 with every warp's pairs swizzled, also where the segment's end leaves some unpaired: a lane then owes a
    pair and its own single row, runs only the pair, and the words differ from form 6's (140 rows: at e = 121 lane 6
    would run pair 2, rows 4-5, paired, and its row 6, single)."""
    source = emulator.KERNEL.read_text()
    whole = "SWIZZLED && paired(e, 2 * (threadIdx.x | 31))"
    assert whole in source
    path = f"{folder}/always.cpp"
    with open(path, "w") as handle:
        handle.write(emulator.emulator_source(source.replace(whole, "SWIZZLED && e >= 3 * G + 1 && e + G <= Wb")))
    subprocess.run([emulator.GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", "-DGROUP=8", "-pthread", path, "-o",
                    f"{folder}/always"], check=True)
    found = emulator.emulate(f"{folder}/always", 129, 288, 140, 11)
    assert found["differ8"] == 0 and found["differ10"] > 0, found["line"]


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
