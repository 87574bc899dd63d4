"""The adapters: a reader dropped as too slow is hung up, host-run seats close their logs,
advertisements stay current and cannot point elsewhere, unreadable local files give clear
errors, rate-limit refusals do not pile up resends, the host log is fsynced once a round."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from p2pdice.core.advert import Advert, host_key_prefix, table_url
from p2pdice.core.client_intents import Intent, Timer
from p2pdice.core.errors import Reason, UserError
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.net import server as server_module
from p2pdice.net.discovery import TableAd
from p2pdice.net.frames import encode_frame
from p2pdice.net.resolve import _pick
from p2pdice.net.session import ClientSession
from p2pdice.store import AppendLog, ClientStore, CorruptFile, ends_a_round, load_or_create_key
from tests.support.wire import RawClient, hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "ab" * 32


async def _until(condition, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_reader_too_far_behind_is_hung_up_not_left_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = Rules(seats=2, starting_dice=1)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (service, table):
        await _until(lambda: table.host.phase == TablePhase.OVER)
        assert len(table.host.entries) > 3
        # From here on a connection may hold only two frames it has not yet been sent.
        monkeypatch.setattr(server_module, "OUTBOX_LIMIT", 2)
        async with await RawClient.connect(url_of(service, table)) as slow:
            await slow.send({"type": "sync", "from": 0})  # the whole log at once
            await slow.closed(timeout=5)  # hung up: the client reconnects and syncs again
        await _until(lambda: not any(not c.local for c in table.server.connections.values()))


async def test_host_run_seats_close_their_logs_with_the_table(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", cpu=["easy", "easy"]) as (_service, table):
        sessions = [client.session for client in table.cpu_clients.values()]
        await _until(lambda: all(s.store is not None for s in sessions))
    for session in sessions:
        store = session.store
        assert store is not None
        for log in (store._sent, store._transcript):
            assert log is None or log._handle.closed


class SlowAdvertiser:
    """Stands in for zeroconf: each update takes a while, as its announcements do."""

    def __init__(self) -> None:
        self.txt: dict[str, str] = {}
        self.published: list[dict[str, str]] = []

    async def update(self, txt: dict[str, str]) -> None:
        if txt == self.txt:
            return
        self.txt = dict(txt)
        await asyncio.sleep(0.2)
        self.published.append(dict(txt))

    async def stop(self) -> None:
        pass


async def test_a_change_during_an_advertisement_update_is_published_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with hosted(tmp_path / "h", rules=Rules(seats=3)) as (_service, table):
        advertiser = SlowAdvertiser()
        table.advertiser = advertiser  # type: ignore[assignment]
        table._on_change()
        await asyncio.sleep(0.05)  # the first update is under way
        later = {**table.txt(), "seats": "2/3"}
        monkeypatch.setattr(table, "txt", lambda: later)
        table._on_change()  # a second change while the first is still being announced
        assert table._txt_task is not None
        await asyncio.wait_for(table._txt_task, 5)
        assert advertiser.published[-1] == later
        table.advertiser = None


@pytest.mark.parametrize(
    ("row", "url"),
    [
        ({"id": TABLE_ID, "path": f"/t/{TABLE_ID}"}, f"ws://10.0.0.5:8765/t/{TABLE_ID}"),
        ({"id": TABLE_ID}, f"ws://10.0.0.5:8765/t/{TABLE_ID}"),
        ({"id": TABLE_ID, "path": f"@203.0.113.9:80/t/{TABLE_ID}"}, None),
        ({"id": TABLE_ID, "path": "x"}, None),
        ({"id": "zz", "path": "/t/zz"}, None),
        ({"id": 7, "path": "/t/7"}, None),
        ({"path": "/t/"}, None),
    ],
)
def test_an_announced_table_must_name_itself_as_a_host_does(row: dict[str, Any], url) -> None:
    assert table_url("10.0.0.5", 8765, row) == url
    ad = TableAd(
        service="s", name="n", addresses=["10.0.0.5"], port=8765, advert=Advert.from_txt(row)
    )
    assert ad.url == url and ad.to_json()["url"] == url
    if url is None:
        with pytest.raises(ValueError):
            _pick([row], "10.0.0.5", 8765, None)


def test_only_a_well_formed_host_key_prefix_is_kept() -> None:
    assert host_key_prefix({"hk": "0123456789abcdef"}) == "0123456789abcdef"
    for bad in (7, "zz", "0123", None):
        assert host_key_prefix({"hk": bad}) is None


def test_an_unreadable_identity_key_is_a_clear_error_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    path.write_text("not a key\n")
    with pytest.raises(CorruptFile) as info:
        load_or_create_key(path)
    assert str(path) in str(info.value) and isinstance(info.value, UserError)
    assert path.read_text() == "not a key\n"


@pytest.mark.parametrize("content", ["{garbage", '{"seat": "x", "host": 3}', "[]", '{"seat": 1}'])
def test_an_unreadable_seat_record_means_joining_afresh(tmp_path: Path, content: str) -> None:
    store = ClientStore(tmp_path, bytes(32))
    (store.folder / "seat.json").write_text(content)
    assert store.load_seat() is None


async def test_a_challenge_the_client_cannot_answer_stops_it_with_the_reason(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the client's folder should be")
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=home)
    session.on_frame(
        encode_frame(
            "challenge",
            protocol=1,
            entries=1,
            host="ab" * 32,
            nonce="cd" * 16,
            password=False,
            pake=None,
            seat=0,
            table="ef" * 32,
        )
    )
    assert session.fatal is not None and session.fatal[0] == Reason.INTERNAL
    assert "challenge" in session.fatal[1]


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


async def test_the_host_log_is_fsynced_once_per_round_not_per_acknowledgement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    real_sync = AppendLog.sync

    def sync(self: AppendLog) -> None:
        synced.append(self.path)
        real_sync(self)

    monkeypatch.setattr(AppendLog, "sync", sync)
    rules = Rules(seats=3, starting_dice=2)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy"] * 3) as (_service, table):
        await _until(lambda: table.host.phase == TablePhase.OVER)
        ends = [e for e in table.host.entries if ends_a_round(e)]
        assert len(ends) >= 3  # a result per round, and game_over
        # Once when the table opens (its genesis), then once per round end (on the log's
        # worker thread: the last may still be running when the game-over entry is posted).
        await _until(lambda: synced.count(table.log.path) >= 1 + len(ends))
        assert synced.count(table.log.path) == 1 + len(ends)
