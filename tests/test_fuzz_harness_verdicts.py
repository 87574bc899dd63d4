"""The fuzz harness fails exactly when it should: the client target catches a refused entry
that still grew the chain yet holds on real inputs, and the memory verdict fails a run whose
resident memory grew by 10 MiB or more after warm-up."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import fuzz.__main__ as fuzz_main
from fuzz.targets import ClientTarget
from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm


class _LyingPeer:
    """Refuses an entry (an Alarm, and halts) yet lets its chain grow."""

    def __init__(self) -> None:
        self.replayer = SimpleNamespace(chain=[])
        self.halted = False

    def receive_line(self, line: bytes) -> list[Alarm]:
        self.replayer.chain.append(b"\x00" * 32)
        self.halted = True
        return [Alarm(Reason.BAD_SIGNATURE, "refused", 0)]


def test_the_client_target_catches_a_refused_entry_that_grew_the_chain() -> None:
    target = ClientTarget.__new__(ClientTarget)
    target.template = _LyingPeer()
    target.peer = _LyingPeer()
    with pytest.raises(AssertionError, match="refused entry"):
        target.run(b"{}")


def test_the_client_target_holds_on_real_inputs() -> None:
    target = ClientTarget()
    inputs = [*target.seeds(), b"", b"not json", target.lines[-1][:-3], target.lines[-2]]
    for data in inputs:
        target.run(data)


def test_fuzz_memory_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_main.verdict("host", 5000, 100_000, 100_000 + 9 * 1024) == 0
    assert fuzz_main.verdict("host", 5000, 100_000, 100_000 + 10 * 1024) == 1
    assert fuzz_main.verdict("host", 500, 0, 10**9) == 0  # never warmed up: nothing to compare
    err = capsys.readouterr().err
    assert "fuzz host: 5000 inputs, RSS grew 10.0 MiB" in err and "FAIL" in err
