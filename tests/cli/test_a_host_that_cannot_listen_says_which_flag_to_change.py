"""`host --port P` where another program listens, `--bind` an address this machine does not
have, and `--port` past 65535 each say in one line which flag to change (exit status 2); they
were an OSError or OverflowError traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from p2pdice.cli import main

pytestmark = pytest.mark.usefixtures("private_network")


def _host(tmp_path: Path, *more: str) -> list[str]:
    return ["host", "--headless", "--no-advertise", "--home", str(tmp_path / "h"), *more]


def test_a_taken_port_names_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as other:  # another program's
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        code = main(_host(tmp_path, "--bind", "127.0.0.1", "--port", str(port)))
    assert code == 2
    err = capsys.readouterr().err
    assert f"--port {port}: another program is listening there" in err, err
    assert not (tmp_path / "h" / "hosted").exists() or not any(
        (tmp_path / "h" / "hosted").iterdir()
    )


def test_a_missing_address_names_bind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_host(tmp_path, "--bind", "10.9.9.9")) == 2
    assert "--bind 10.9.9.9: this machine has no such address" in capsys.readouterr().err


def test_a_port_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_host(tmp_path, "--port", "70000")) == 2
    assert "--port 70000: a port is from 1 to 65535" in capsys.readouterr().err
