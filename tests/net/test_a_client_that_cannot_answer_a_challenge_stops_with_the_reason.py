"""A client that cannot answer a challenge (its home folder is a file, so it cannot save its
seat) stops with INTERNAL and says the challenge is where it stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.errors import Reason
from p2pdice.core.signing import SigningKey
from p2pdice.core.version import PROTOCOL_VERSION
from p2pdice.net.frames import encode_frame
from p2pdice.net.session import ClientSession

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_challenge_the_client_cannot_answer_stops_it_with_the_reason(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the client's folder should be")
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=home)
    session.on_frame(
        encode_frame(
            "challenge",
            protocol=PROTOCOL_VERSION,
            entries=1,
            host="ab" * 32,
            nonce="cd" * 16,
            password=False,
            pake=None,
            seat=0,
            table="ef" * 32,
        )
    )
    await session.settled()  # the records are opened on the session's writer thread
    assert session.fatal is not None and session.fatal[0] == Reason.INTERNAL
    assert "challenge" in session.fatal[1]
