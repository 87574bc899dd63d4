"""Two real players of one honest game end on the same code of the last entry (SPEC.md 3.5,
the code of head H), the one `p2pdice verify` names for each of their files: the code they
read aloud to know they saw the same game."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.procs import bot_join, kill_all, p2pdice, spawn, start_host, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

CODE = re.compile(r"code at entry (\d+)(?: \(the last\))?: (\d{5}-\d{5}-\d{5}-\d{5})")


def test_both_players_and_verify_read_one_code_at_the_last_entry(tmp_path: Path) -> None:
    host, ready = start_host(
        "--headless", "--seats", "2", "--starting-dice", "2", "--no-advertise",
        "--bind", "127.0.0.1", "--home", str(tmp_path / "host"),
    )  # fmt: skip
    address = f"127.0.0.1:{ready['port']}"
    logs = [tmp_path / f"{name}.out" for name in ("ann", "bea")]
    bots = [
        spawn(*bot_join(address, name=name, seed=n, home=tmp_path / name), log=logs[n])
        for n, name in enumerate(("ann", "bea"))
    ]
    try:
        assert [b.wait(60) for b in bots] == [0, 0], [log.read_text() for log in logs]
    finally:
        kill_all(*bots, host)
    said = [CODE.findall(log.read_text()) for log in logs]
    assert len(said[0]) == 1 and said[0] == said[1], said
    files = [str(transcript_files(tmp_path / name)[0]) for name in ("ann", "bea")]
    done = subprocess.run(p2pdice("verify", *files), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout
    assert CODE.findall(done.stdout) == said[0] * 2
