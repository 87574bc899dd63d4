"""`join 127.0.0.1:99999` or `join 300.1.1.1:80` says it is not a HOST:PORT address: it said "it
answered, but not like a p2pdice host", about a machine nobody had asked anything (the URL
could not even be made)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.procs import p2pdice


@pytest.mark.parametrize("address", ["127.0.0.1:99999", "300.1.1.1:80"])
def test_a_malformed_address_is_said_to_be_one(tmp_path: Path, address: str) -> None:
    proc = subprocess.run(
        p2pdice("join", address, "--timeout", "2", "--bot", "easy", "--home", str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"could not reach the host at {address}: not a HOST:PORT address" in proc.stderr
    assert "answered" not in proc.stderr, proc.stderr
