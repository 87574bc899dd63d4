"""A burst of RATE_LIMITED refusals schedules one resend, not one per refusal; a later refusal
schedules the next."""

from __future__ import annotations

import asyncio

import pytest

from p2pdice.core.client_intents import Intent, Timer
from p2pdice.core.signing import SigningKey
from p2pdice.net.frames import encode_frame
from p2pdice.net.session import ClientSession

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_burst_of_rate_limit_refusals_schedules_one_resend() -> None:
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
    resends = []
    fired = session.core.timer_fired

    def count(timer: Timer) -> list[Intent]:
        resends.extend([1] if timer == Timer.RESEND else [])
        return fired(timer)

    session.core.timer_fired = count  # type: ignore[method-assign]
    refusal = encode_frame("error", reason="RATE_LIMITED", detail="slow down", ref=None)
    for _ in range(50):
        session.on_frame(refusal)
    await asyncio.sleep(1.3)
    assert resends == [1]
    session.on_frame(refusal)  # a later refusal schedules the next one
    await asyncio.sleep(1.3)
    assert resends == [1, 1]
