import os
import stat

import pytest

from bioaccel._output import open_output


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
