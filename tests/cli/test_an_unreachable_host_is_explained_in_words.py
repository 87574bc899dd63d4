"""`join HOST:PORT` where nothing listens says why in words ("connection refused"), never the
name of an exception class (`ClientConnectorError`)."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from tests.support.procs import p2pdice


def test_a_refused_connection_is_said_in_words(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on once it is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run(
        p2pdice(
            "join", f"127.0.0.1:{port}", "--timeout", "2", "--bot", "easy", "--home", str(tmp_path)
        ),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"could not reach the host at 127.0.0.1:{port}: connection refused" in proc.stderr
    assert "Error" not in proc.stderr  # no exception class names


def test_a_silent_address_says_how_long_it_waited(tmp_path: Path) -> None:
    with socket.socket() as s:  # listens but never answers: the request times out
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = subprocess.run(
            p2pdice(
                "join",
                f"127.0.0.1:{port}",
                "--timeout",
                "1",
                "--bot",
                "easy",
                "--home",
                str(tmp_path),
            ),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 2, proc.stderr
    assert f"could not reach the host at 127.0.0.1:{port}: no answer within 1 s" in proc.stderr
    assert "Error" not in proc.stderr
