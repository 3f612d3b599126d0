"""The tiled fill's set-up order (issue 29, stop 57), on any machine: with a recording stand-in for CuPy and the
kernels, ``FoldSizes.early_first`` 1 (the default) launches the first tile diagonal's finish first, on the caller's
stream, before the other kernels are looked up and the streams made, and then the same launches as the order before
(early_first 0: every finish on the chain's stream), for the split and the fused chain.
"""
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from bioaccel.fold import FoldParams, _gpu_tiled, _launch


class Stream:
    """A stand-in stream: records and waits are logged with its name; ``with`` makes it the current one."""

    def __init__(self, name, log, current):
        self.name, self.log, self.current = name, log, current

    def record(self):
        self.log.append(("record", self.name))
        return object()

    def wait_event(self, event):
        self.log.append(("wait", self.name))

    def __enter__(self):
        self.current.append(self)
        return self

    def __exit__(self, *exc):
        self.current.pop()


class Launch:
    """A stand-in kernel: calls are logged; attributes (the shared-memory limit) are kept."""

    def __init__(self, launch):
        self.launch = launch

    def __call__(self, *args, **kwargs):
        self.launch(*args, **kwargs)


def recorded_fill(monkeypatch, **sizes):
    """The log of one 16,000 nt int16 fill_tiled under the stand-ins: ("launch", kernel, stream, d or None)."""
    log, current = [], []
    current.append(Stream("caller", log, current))

    def kernel(filename, name, *arguments):
        def launch(grid, block, args, shared_mem=0):
            finishing = "finish" in name or "chain" in name
            log.append(("launch", name, current[-1].name, int(args[6]) if finishing else None))
        return Launch(launch)

    cp = SimpleNamespace(empty=lambda *a, **k: np.zeros(8), zeros=lambda *a, **k: np.zeros((3, 8)),
                         cuda=SimpleNamespace(get_current_stream=lambda: current[-1]))
    monkeypatch.setattr(_gpu_tiled, "kernel", kernel)
    monkeypatch.setattr(_gpu_tiled, "_gpu", SimpleNamespace(cupy=lambda: cp, multiprocessors=lambda: 132,
                                                             filled=lambda cells, value, dtype: np.zeros(8)))
    monkeypatch.setattr(_gpu_tiled, "_priority_stream",
                        lambda cp, high: Stream("chain" if high else "side", log, current))
    monkeypatch.setattr(_gpu_tiled, "DeviceTable", lambda *args, **kwargs: None)
    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, **sizes))
    _gpu_tiled.fill_tiled(None, 16_000, FoldParams(), None, encoding="int16")
    return [entry for entry in log if entry[0] == "launch"]


@pytest.mark.parametrize("chain", ["split", "fused"])
def test_first_diagonal_goes_first_then_the_same_launches(monkeypatch, chain):
    early = recorded_fill(monkeypatch, early_first=1, chain=chain)
    before = recorded_fill(monkeypatch, early_first=0, chain=chain)
    assert early[0] == ("launch", "tiled_finish", "caller", 0)
    assert before[0][2] != "caller" and ("launch", "tiled_finish", "chain", 0) in before
    assert sorted(entry[1:2] + entry[3:] for entry in early) == sorted(entry[1:2] + entry[3:] for entry in before)
    finishes = [entry[3] for entry in early if entry[3] is not None]
    assert finishes == list(range(len(finishes))) and len(finishes) > 100      # every tile diagonal, in order
