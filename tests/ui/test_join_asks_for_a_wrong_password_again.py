"""`p2pdice join HOST:PORT --password-file FILE` with a wrong password: the terminal client asks
for the password again, saying why in words (not a table screen showing `BAD_PASSWORD:`),
and the right one then takes the seat; the headless join says it in words too. A real host on
loopback, the real app in tmux."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import tmux
from tests.support.procs import p2pdice, password_host

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]

PASSWORD = "open sesame"


def test_a_wrong_password_is_asked_again_in_words_and_the_right_one_seats(
    tmp_path: Path,
) -> None:
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("open sesame!\n")
    with password_host(tmp_path, PASSWORD) as ready:
        address = f"127.0.0.1:{ready['port']}"
        t = tmux.Tmux()
        command = [sys.executable, "-m", "p2pdice", "join", address, "--name", "Zed",
                   "--password-file", str(wrong), "--home", str(tmp_path / "c")]  # fmt: skip
        try:
            t.start(command, stderr=tmp_path / "stderr.txt")
            asked = t.wait_for(lambda s: "Password for this table:" in s, 30, "the prompt again")
            flat = " ".join(asked.split())
            assert "That password is not right for table p2pdice table." in flat, asked
            assert "BAD_PASSWORD" not in asked and "Refused by the host" not in asked, asked
            t.keys(PASSWORD, "Enter")
            seated = t.wait_for(
                lambda s: "Zed" in s and "Your dice appear when the game starts" in s,
                30,
                "the seat taken with the right password",
            )
            assert "BAD_PASSWORD" not in seated and "not right" not in seated, seated
        finally:
            t.kill()

        headless = subprocess.run(
            p2pdice("join", address, "--bot", "easy", "--password-file", str(wrong),
                    "--give-up", "20", "--home", str(tmp_path / "b")),
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    said = headless.stdout + headless.stderr
    assert headless.returncode == 2, said
    assert "the host refused the password: it is not right for the table" in said, said
    assert "--password-file" in said and "BAD_PASSWORD" not in said, said
