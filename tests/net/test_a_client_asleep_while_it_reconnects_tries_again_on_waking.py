"""A client whose host is out of reach keeps trying for its `give_up_after` seconds of being
awake: a laptop that sleeps while it reconnects (here the event loop is blocked, as a stopped
process's is) tries again when it wakes, for as long as it waits, however long it slept. The
host is not given up on for time nobody could try to reach it.

Before, the wait was measured on the loop's clock from the last contact, sleep included: on
waking, the first failed try gave up at once."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from p2pdice.core.signing import SigningKey
from p2pdice.net import client as net_client
from p2pdice.net.client import Outcome, Wakefulness, run_websocket
from p2pdice.net.session import ClientSession

GIVE_UP = 2.0


def _nobody_listens() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def quick_stalls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net_client, "WAKE_TICK", 0.1)
    monkeypatch.setattr(net_client, "STALL", 1.0)


@pytest.mark.usefixtures("quick_stalls")
async def test_a_client_that_slept_through_its_give_up_tries_again_for_it_on_waking() -> None:
    loop = asyncio.get_running_loop()
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
    url = f"ws://127.0.0.1:{_nobody_listens()}/t/x"
    link = loop.create_task(run_websocket(session, url, give_up_after=GIVE_UP, find_again=False))
    await asyncio.sleep(0.5)  # refused, and trying again
    assert not link.done()
    time.sleep(GIVE_UP + 2)  # asleep: the loop does not run
    woke = loop.time()
    assert await asyncio.wait_for(link, 15) == Outcome.GAVE_UP
    # It went on trying for the rest of its wait once awake (about 1.5 s), not 0.
    assert loop.time() - woke > 1.0


def test_the_time_a_client_did_not_run_is_counted_as_asleep_from_when_asked() -> None:
    class Clock:
        now = 100.0

        def time(self) -> float:
            return self.now

    clock = Clock()
    awake = Wakefulness(clock)  # type: ignore[arg-type]  # only its time() is used
    clock.now += net_client.WAKE_TICK  # a look on time: awake
    assert awake.asleep_since(0.0) == 0.0
    clock.now += 40.0  # 40 s without a look: asleep but for a tick
    assert awake.asleep_since(100.0) == pytest.approx(40.0 - net_client.WAKE_TICK, abs=1e-9)
    assert awake.asleep_since(clock.now - 10.0) == pytest.approx(10.0)  # only what came after
    assert awake.asleep_since(clock.now) == 0.0
