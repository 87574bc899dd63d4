"""The client's waits are defined once (core/client.py); SPEC.md 10.1 states them and must
agree."""

from __future__ import annotations

import re

from p2pdice.core.client import (
    CATCH_UP_WAIT,
    CHALLENGE_WAIT,
    CONNECT_WAIT,
    HEARTBEAT,
    WELCOME_WAIT,
)
from tests.support.vectors import PROTOCOL


def _seconds(value: float) -> str:
    return f"{value:g} s"


def test_spec_10_1_states_each_wait_of_the_client() -> None:
    spec = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    section = spec[spec.index("Every state of a client's connection") :]
    section = " ".join(section[: section.index("(The welcome wait is")].split())
    said = {
        "upgrade": rf"WebSocket upgrade {re.escape(_seconds(CONNECT_WAIT))};",
        "challenge": rf"the challenge {re.escape(_seconds(CHALLENGE_WAIT))} after",
        "welcome": rf"the welcome {re.escape(_seconds(WELCOME_WAIT))} after the challenge",
        "catch-up": rf"{re.escape(_seconds(CATCH_UP_WAIT))} without a verified entry",
        "ping": rf"ping every {re.escape(_seconds(HEARTBEAT))}",
        "pong": rf"none within {re.escape(_seconds(HEARTBEAT / 2))}",
    }
    missing = [what for what, pattern in said.items() if not re.search(pattern, section)]
    assert missing == [], section
