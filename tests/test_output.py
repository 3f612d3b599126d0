"""The output layer: paths checked up front, files committed together, special files written through."""
import os
import stat

import pytest

from bioaccel.results.output import Outputs, abort_all, check_outputs, open_output
from bioaccel.errors import InvalidParameter


def test_atomic_write_and_plain_mode(tmp_path):
    path = tmp_path / "out.txt"
    with open_output(path) as handle:
        handle.write("hello\n")
        assert not path.exists()                      # nothing visible until complete
    assert path.read_text() == "hello\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_failure_leaves_nothing(tmp_path):
    path = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with open_output(path) as handle:
            handle.write("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("make, fragment", [
    (lambda d: "", "the file name is empty"),
    (lambda d: str(d), "is a folder"),
    (lambda d: str(d / "x") + "/", "names a folder"),
    (lambda d: str(d / "missing" / "out.txt"), "does not exist"),
    (lambda d: "/proc/bioaccel-test.txt", "cannot create a file"),
    (lambda d: "a\x00b", "NUL"),
])
def test_bad_paths_are_refused_naming_the_option(tmp_path, make, fragment):
    with pytest.raises(InvalidParameter) as err:
        Outputs({"--profile": make(tmp_path)})
    assert str(err.value).startswith("--profile") and fragment in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_two_options_naming_one_file(tmp_path):
    target = tmp_path / "a.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    for second in (str(target), str(tmp_path / "." / "a.txt"), str(link)):
        with pytest.raises(InvalidParameter, match="name the same file"):
            check_outputs({"-o": str(target), "--plot": second})
    with pytest.raises(InvalidParameter, match="--profile -: standard output already takes the output of -o; "
                                              "give --profile a file name"):
        check_outputs({"-o": "-", "--profile": "-"})      # -o - given, or standard output by default
    assert sorted(check_outputs({"-o": "/dev/null", "--profile": "/dev/null"})) == ["--profile", "-o"]


def test_outputs_commit_together_or_not_at_all(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    b.write_text("old\n")
    with pytest.raises(RuntimeError):
        with Outputs({"-o": str(a), "--profile": str(b)}) as outputs:
            outputs["-o"].write("new a\n")
            outputs["--profile"].write("new b\n")
            raise RuntimeError("the plot failed")
    assert not a.exists() and b.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]
    os.chmod(b, 0o640)
    with Outputs({"-o": str(a), "--profile": str(b)}) as outputs:
        outputs["-o"].write("new a\n")
        outputs["--profile"].write("new b\n")
    assert a.read_text() == "new a\n" and b.read_text() == "new b\n"
    assert stat.S_IMODE(b.stat().st_mode) == 0o640           # an existing file keeps its mode


def test_special_files_are_written_through(tmp_path):
    with Outputs({"-o": "/dev/null"}) as outputs:
        outputs["-o"].write("gone\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with Outputs({"-o": str(fifo)}) as outputs:
            outputs["-o"].write("through\n")
        assert os.read(reader, 100) == b"through\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_symlink_stays_a_link(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    with Outputs({"-o": str(link)}) as outputs:
        outputs["-o"].write("new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("created.txt")
    with Outputs({"-o": str(dangling)}) as outputs:
        outputs["-o"].write("made\n")
    assert dangling.is_symlink() and (tmp_path / "created.txt").read_text() == "made\n"


def test_abort_all_removes_temporary_files_and_blocks_the_commit(tmp_path):
    outputs = Outputs({"-o": str(tmp_path / "a.txt"), "--plot": str(tmp_path / "b.png")}, modes={"--plot": "wb"})
    outputs["-o"].write("x")
    assert len(list(tmp_path.iterdir())) == 2                 # the temporaries, created up front
    abort_all()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InterruptedError):
        outputs.commit()
    assert list(tmp_path.iterdir()) == []


def test_binary_output_to_stdout_is_refused():
    with pytest.raises(InvalidParameter, match="binary"):
        Outputs({"--plot": "-"}, modes={"--plot": "wb"})
