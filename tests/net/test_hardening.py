"""Hardening against bad input (issue 5, item 6): a prankster on the Wi-Fi with a raw socket.

Every test talks to an in-process host over a real WebSocket on 127.0.0.1 and checks the
reason code of each refusal (SPEC.md 10, 11), that the table's log and state are untouched,
and that no error frame ever carries a traceback or a path.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.bots.registry import load_bot
from p2pdice.core import shape
from p2pdice.core.clean import clean_name
from p2pdice.core.errors import Reason
from p2pdice.core.pake import solve_work
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.frames import MAX_FRAME
from p2pdice.net.server import Limits
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key
from tests.support.procs import p2pdice
from tests.support.wire import (
    RawClient,
    answer_for,
    assert_no_leak,
    auth_frame,
    binding_for,
    hosted,
    join_frame,
    unsigned_join,
    url_of,
)

pytestmark = pytest.mark.usefixtures("private_network")

SYNC0 = {"type": "sync", "from": 0}


def key(n: int) -> SigningKey:
    return SigningKey(bytes([n]) * 32)


def snapshot(table: Any) -> tuple[bytes, int, str]:
    host = table.host
    return host.chain.head, len(host.entries), repr(host.state)


# ---- size ------------------------------------------------------------------------------------


async def test_a_frame_over_64_kib_is_refused_too_large_and_the_connection_stays(
    tmp_path: Path,
) -> None:
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        before = snapshot(table)
        await raw.send('{"pad":"' + "x" * (100 * 1024) + '","type":"sync"}')
        err = await raw.error()
        assert err["reason"] == "TOO_LARGE" and err["ref"] is None
        # Exactly at the limit is still read (and refused for its shape, not its size).
        at_limit = '{"pad":"' + "x" * (MAX_FRAME - 25) + '","type":"sync"}'
        assert len(at_limit.encode()) <= MAX_FRAME
        await raw.send(at_limit)
        assert (await raw.error())["reason"] == "SCHEMA"
        # The connection still works: the challenge can be answered.
        await raw.send({"type": "spectate"})
        assert (await raw.recv_type("welcome"))["seat"] is None
        assert snapshot(table) == before
        assert_no_leak(raw.received)


async def test_a_huge_frame_closes_the_connection_and_the_host_keeps_serving(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path / "h", cpu=["easy"]) as (service, table):
        before = snapshot(table)
        async with await RawClient.connect(url_of(service, table)) as raw:
            await raw.send('{"pad":"' + "x" * (300 * 1024) + '","type":"sync"}')
            frames = await raw.closed()
            assert all(f["type"] != "entry" for f in frames)
            assert_no_leak(frames)
        await asyncio.sleep(0.1)
        assert not [c for c in table.server.connections.values() if not c.local]
        assert snapshot(table) == before
        async with await RawClient.connect(url_of(service, table)) as again:
            await again.send(SYNC0)
            assert (await again.recv_type("entry"))["entry"]["seq"] == 0


# ---- canonical JSON and shapes -------------------------------------------------------------


BAD_FRAMES: list[tuple[str, str | bytes, str]] = [
    ("not json", "hello", "JSON_SYNTAX"),
    ("truncated", '{"from":0,"type":"sync"', "JSON_SYNTAX"),
    ("not canonical: spaces", '{"from": 0, "type": "sync"}', "JSON_NOT_CANONICAL"),
    ("not canonical: key order", '{"type":"sync","from":0}', "JSON_NOT_CANONICAL"),
    ("not canonical: escape", '{"from":0,"type":"syn\\u0063"}', "JSON_NOT_CANONICAL"),
    ("byte order mark", '\ufeff{"from":0,"type":"sync"}', "JSON_NOT_CANONICAL"),
    ("float", '{"from":0.5,"type":"sync"}', "JSON_FLOAT"),
    ("exponent", '{"from":1e3,"type":"sync"}', "JSON_FLOAT"),
    ("NaN", '{"from":NaN,"type":"sync"}', "JSON_SYNTAX"),
    ("integer range", '{"from":9007199254740992,"type":"sync"}', "JSON_INT_RANGE"),
    ("huge integer literal", '{"from":' + "9" * 5000 + ',"type":"sync"}', "JSON_INT_RANGE"),
    ("duplicate key", '{"from":0,"from":1,"type":"sync"}', "JSON_DUPLICATE_KEY"),
    ("key not ascii", '{"fr\u00f6m":0,"type":"sync"}', "JSON_KEY_NOT_ASCII"),
    ("too deep", '{"from":0,"type":"sync","x":' + "[" * 40 + "]" * 40 + "}", "JSON_TOO_DEEP"),
    ("very deep", "[" * 20000 + "]" * 20000, "JSON_TOO_DEEP"),
    ("bad utf-8", b'{"from":0,"type":"sync\xff"}', "JSON_BAD_UTF8"),
    ("lone surrogate", b'{"from":0,"type":"\xed\xa0\x80"}', "JSON_BAD_UTF8"),
    ("not an object", '[{"from":0,"type":"sync"}]', "SCHEMA"),
    ("a string", '"sync"', "SCHEMA"),
    ("no type", '{"from":0}', "UNKNOWN_TYPE"),
    ("unknown type", '{"type":"shutdown"}', "UNKNOWN_TYPE"),
    ("type is a number", '{"type":7}', "UNKNOWN_TYPE"),
    ("host-only type", '{"entry":{},"type":"entry"}', "UNKNOWN_TYPE"),
    ("missing field", '{"type":"sync"}', "SCHEMA"),
    ("extra field", '{"from":0,"type":"sync","x":1}', "SCHEMA"),
    ("negative from", '{"from":-1,"type":"sync"}', "SCHEMA"),
    ("from is a bool", '{"from":true,"type":"sync"}', "SCHEMA"),
    ("spectate with a field", '{"seat":0,"type":"spectate"}', "SCHEMA"),
    ("join without msg", '{"proof":null,"type":"join"}', "SCHEMA"),
    ("join proof too short", '{"msg":{},"proof":"00","type":"join"}', "SCHEMA"),
    ("join proof upper case", '{"msg":{},"proof":"' + "AB" * 32 + '","type":"join"}', "SCHEMA"),
    ("join with an empty message", '{"msg":{},"proof":null,"type":"join"}', "SCHEMA"),
    ("auth not an object", '{"auth":[],"type":"auth"}', "SCHEMA"),
    (
        "auth with an empty body",
        '{"auth":{"body":{},"sig":"' + "00" * 64 + '"},"type":"auth"}',
        "SCHEMA",
    ),
    (
        "join of an unknown message type",
        '{"msg":{"body":{"type":"mint"},"sig":"'
        + "00" * 64
        + '"},"pake":null,"proof":null,"type":"join","work":null}',
        "UNKNOWN_TYPE",
    ),
]


@pytest.mark.parametrize(
    ("data", "reason"), [(d, r) for _, d, r in BAD_FRAMES], ids=[i for i, _, _ in BAD_FRAMES]
)
async def test_a_malformed_frame_gets_its_reason_code_and_changes_nothing(
    tmp_path: Path, data: str | bytes, reason: str
) -> None:
    async with (
        hosted(tmp_path / "h", cpu=["easy"]) as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        before = snapshot(table)
        await raw.send(data)
        err = await raw.error()
        assert err["reason"] == reason, err
        assert err["ref"] is None
        assert_no_leak([err])
        # Still served, still unchanged, and the offered seat is still ours to take.
        await raw.send(SYNC0)
        assert (await raw.recv_type("entry"))["entry"]["seq"] == 0
        assert snapshot(table) == before
        assert raw.challenge is not None and raw.challenge["seat"] is not None


@pytest.mark.parametrize(
    "data",
    [
        '{"type":[]}',
        '{"type":{}}',
        '{"msg":{"body":{"type":["join"]},"sig":"' + "00" * 64 + '"},"proof":null,"type":"join"}',
    ],
    ids=["frame type list", "frame type object", "message type list"],
)
async def test_a_type_that_is_not_a_string_is_refused_by_schema(tmp_path: Path, data: str) -> None:
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        await raw.send(data)
        assert (await raw.error())["reason"] in ("UNKNOWN_TYPE", "SCHEMA")


async def test_frames_in_the_wrong_place_are_refused(tmp_path: Path) -> None:
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        before = snapshot(table)
        await raw.send({"type": "send", "msg": {}})
        assert (await raw.error())["reason"] == "WRONG_PHASE"  # before the handshake
        await raw.send({"type": "spectate"})
        await raw.recv_type("welcome")
        await raw.send({"type": "spectate"})
        assert (await raw.error())["reason"] == "WRONG_PHASE"  # a second handshake
        await raw.send(auth_frame(key(3), raw.challenge))
        assert (await raw.error())["reason"] == "WRONG_PHASE"
        await raw.send({"type": "send", "msg": {}})
        assert (await raw.error())["reason"] == "SCHEMA"
        assert snapshot(table) == before
        assert_no_leak(raw.received)


# ---- rate limits ---------------------------------------------------------------------------


async def test_a_burst_beyond_50_is_rate_limited_then_the_connection_is_closed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="p2pdice.host")
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        before = snapshot(table)
        loop = asyncio.get_running_loop()
        started = loop.time()
        for _ in range(60):
            await raw.send(SYNC0)
        elapsed = loop.time() - started
        frames = await raw.closed()
        answered = [f for f in frames if f["type"] == "entry"]
        limited = [f for f in frames if f["type"] == "error"]
        assert {f["reason"] for f in limited} == {"RATE_LIMITED"}
        # Burst of 50 plus what 20/s refilled while sending; then 3 strikes and out.
        assert 50 <= len(answered) <= 50 + int(20 * elapsed) + 1, (len(answered), elapsed)
        assert len(limited) == Limits().strikes
        assert len(answered) + len(limited) < 60  # the rest was never read
        assert snapshot(table) == before
    records = [r for r in caplog.records if "RATE_LIMITED" in r.getMessage()]
    assert len(records) == 1, [r.getMessage() for r in records]


async def test_a_sustained_20_per_second_is_not_limited(tmp_path: Path) -> None:
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        for _ in range(45):  # most of the burst at once
            await raw.send(SYNC0)
        for _ in range(16):  # then 16/s for a second: under the refill rate
            await raw.send(SYNC0)
            await asyncio.sleep(1 / 16)
        await raw.send({"type": "spectate"})
        await raw.recv_type("welcome", timeout=5)
        assert not raw.errors(), raw.errors()
        assert len([f for f in raw.received if f["type"] == "entry"]) >= 61


async def test_the_rate_limit_is_configurable(tmp_path: Path) -> None:
    """Limits.rate and Limits.burst reach each connection's bucket (they once did not)."""
    async with (
        hosted(tmp_path / "h", limits=Limits(rate=1000.0, burst=1000.0)) as (
            service,
            table,
        ),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        for _ in range(80):
            await raw.send(SYNC0)
        await raw.send({"type": "spectate"})
        await raw.recv_type("welcome")
        assert not raw.errors(), raw.errors()[:1]
    async with (
        hosted(tmp_path / "h2", limits=Limits(rate=1.0, burst=5.0, strikes=1)) as (
            service,
            table,
        ),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        for _ in range(8):
            await raw.send(SYNC0)
        frames = await raw.closed()
        assert [f["type"] for f in frames].count("entry") == 5
        assert [f["reason"] for f in frames if f["type"] == "error"] == ["RATE_LIMITED"]


async def test_a_move_refused_for_rate_still_reaches_the_table(tmp_path: Path) -> None:
    """RATE_LIMITED carries no `ref`: the client must resend what is unconfirmed, or the
    table waits forever for that seat (no turn timer)."""
    async with hosted(tmp_path / "h", rules=Rules(seats=2), cpu=["medium"]) as (service, table):
        server = table.server
        original = server.receive
        dropped: list[str] = []

        def limit_first_move(conn: Any, data: str | bytes) -> bool:
            text = data if isinstance(data, str) else data.decode("utf-8", "replace")
            move = any(f'"type":"{k}"' in text for k in ("bid", "challenge", "exact"))
            if not conn.local and not dropped and text.startswith('{"msg":') and move:
                dropped.append(text)
                conn.bucket.tokens, conn.bucket.stamp = 0.0, server.loop_now
            return original(conn, data)

        server.receive = limit_first_move  # type: ignore[method-assign]
        home = tmp_path / "c"
        session = ClientSession(
            key=load_or_create_key(home / "identity.key"),
            name="fast bot",
            home=home,
            bot=load_bot("medium"),
            rng=random.Random(3),
        )
        playing = asyncio.create_task(run_websocket(session, url_of(service, table)))
        try:
            outcome = await asyncio.wait_for(asyncio.shield(playing), 20)
        finally:
            playing.cancel()
            session.close()
        assert dropped and (Reason.RATE_LIMITED, "too many frames; slow down") in session.errors
        assert outcome == Outcome.OVER


async def test_host_run_seats_are_not_rate_limited(tmp_path: Path) -> None:
    """In-process links carry the host's own CPU seats: they are never refused for speed."""
    async with hosted(tmp_path / "h", rules=Rules(seats=2), cpu=["medium", "medium"]) as (
        _,
        table,
    ):
        await asyncio.wait_for(table.server.over.wait(), 60)
        assert table.host.state.game is not None
        for client in table.cpu_clients.values():
            assert Reason.RATE_LIMITED not in [r for r, _ in client.session.errors]


# ---- connections and the handshake ---------------------------------------------------------


async def test_more_spectators_than_the_cap_are_refused(tmp_path: Path) -> None:
    """Spectators may fill the cap less the seats, so the players always have room (SPEC.md
    10.1); the one beyond is told so and closed."""
    limits = Limits(max_connections=5)  # two seats: three spectators
    async with hosted(tmp_path / "h", cpu=["easy"], limits=limits) as (service, table):
        url = url_of(service, table)
        first = [await RawClient.connect(url + "?spectate=1") for _ in range(3)]
        try:
            for raw in first:
                await raw.send({"type": "spectate"})
                await raw.recv_type("welcome")
            extra = await RawClient.connect(url + "?spectate=1")
            async with extra:
                await extra.send({"type": "spectate"})
                frames = await extra.closed()
                assert [f["type"] for f in frames] == ["error"], frames
                assert frames[0]["reason"] == "TOO_MANY_CONNECTIONS"
                assert_no_leak(frames)
            # The host-run CPU seat's in-process link (once it sits down) does not count
            # against the cap.
            await asyncio.sleep(0.1)
            assert sum(1 for c in table.server.connections.values() if not c.local) == 3
            await first[0].close()
            await asyncio.sleep(0.2)
            async with await RawClient.connect(url) as again:  # a freed slot is usable again
                await again.send({"type": "spectate"})
                assert (await again.recv_type("welcome"))["seat"] is None
        finally:
            for raw in first:
                await raw.close()


async def test_a_silent_connection_is_closed_after_the_handshake_timeout(
    tmp_path: Path,
) -> None:
    limits = Limits(handshake_timeout=0.5)
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table)
        loop = asyncio.get_running_loop()
        async with (
            await RawClient.connect(url) as silent,
            await RawClient.connect(url) as syncing,
            await RawClient.connect(url) as spectator,
        ):
            started = loop.time()
            await spectator.send({"type": "spectate"})
            await spectator.recv_type("welcome")
            await syncing.send(SYNC0)  # reading the log is not a handshake
            frames = await silent.closed(timeout=3)
            took = loop.time() - started
            assert [f["reason"] for f in frames if f["type"] == "error"] == ["HANDSHAKE_TIMEOUT"]
            assert 0.4 <= took <= 2.5, took
            frames = await syncing.closed(timeout=3)
            assert [f["reason"] for f in frames if f["type"] == "error"] == ["HANDSHAKE_TIMEOUT"]
            # A spectator that answered in time stays connected.
            await asyncio.sleep(0.3)
            await spectator.send(SYNC0)
            assert (await spectator.recv_type("entry"))["entry"]["seq"] == 0
        # The seat the silent connection was offered is free again.
        async with await RawClient.connect(url) as late:
            assert late.challenge["seat"] == 0


async def test_the_default_handshake_timeout_is_five_seconds() -> None:
    assert Limits().handshake_timeout == 5.0 and Limits().max_connections == 64
    assert MAX_FRAME == 64 * 1024


# ---- password ------------------------------------------------------------------------------


async def test_password_exchanges_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    password = "s\u00e9same"
    async with hosted(tmp_path / "h", password=password) as (service, table):
        url = url_of(service, table)
        before = snapshot(table)
        head = table.host.head
        async with await RawClient.connect(url) as raw:
            assert raw.challenge["password"] is True and raw.challenge["pake"] is not None
            wrong = answer_for("sesame", raw.challenge, key(5))
            await raw.send(
                join_frame(
                    key(5),
                    raw.challenge,
                    head=head,
                    pake=wrong.message,
                    proof=wrong.proof,
                    work=wrong.work,
                )
            )
            assert (await raw.error())["reason"] == "BAD_PASSWORD"
            # One exchange tests one guess: the right password on the same connection fails.
            await raw.send(join_frame(key(5), raw.challenge, head=head, password=password))
            assert (await raw.error())["reason"] == "BAD_PASSWORD"
        async with await RawClient.connect(url) as raw:
            await raw.send(join_frame(key(5), raw.challenge, head=head))
            assert (await raw.error())["reason"] == "BAD_PASSWORD"  # no exchange at all
        async with await RawClient.connect(url) as raw:
            # The right password, answered for another challenge (another nonce), is wrong.
            other = dict(raw.challenge, nonce="ab" * 16)
            answer = answer_for(password, other, key(5))
            # (The work is done for this challenge, so that the confirmation is what fails.)
            work = solve_work(binding_for(raw.challenge, key(5)), answer.message)
            await raw.send(
                join_frame(
                    key(5),
                    raw.challenge,
                    head=head,
                    pake=answer.message,
                    proof=answer.proof,
                    work=work,
                )
            )
            assert (await raw.error())["reason"] == "BAD_PASSWORD"
            assert snapshot(table) == before
            assert_no_leak(raw.received)
        async with await RawClient.connect(url) as raw:
            # The decomposed spelling of the same password is the same password (NFC).
            decomposed = unicodedata.normalize("NFD", password)
            assert decomposed != password
            answer = answer_for(decomposed, raw.challenge, key(5))
            await raw.send(
                join_frame(
                    key(5),
                    raw.challenge,
                    head=head,
                    pake=answer.message,
                    proof=answer.proof,
                    work=answer.work,
                )
            )
            welcome = await raw.recv_type("welcome", "error")
            assert welcome["type"] == "welcome", welcome
            # The host proves it knows the password too.
            assert welcome["proof"] == answer.host_proof.hex()
            assert len(table.host.entries) == before[1] + 1  # the join
        # Confirmations are compared with hmac.compare_digest (constant time), never with ==.
        assert len(compared) >= 2
        assert wrong.proof in [b for _, b in compared] + [a for a, _ in compared]


async def test_a_client_with_the_wrong_password_stops_with_bad_password(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", password="right") as (service, table):
        home = tmp_path / "c"
        session = ClientSession(
            key=load_or_create_key(home / "identity.key"),
            name="guesser",
            home=home,
            password="wrong",
            bot=load_bot("medium"),
            rng=random.Random(1),
        )
        outcome = await asyncio.wait_for(run_websocket(session, url_of(service, table)), 10)
        assert outcome == Outcome.FATAL
        assert session.fatal is not None and session.fatal[0] == Reason.BAD_PASSWORD
        assert len(table.host.entries) == 1  # the genesis alone
        session.close()


async def test_the_password_itself_never_travels(tmp_path: Path) -> None:
    password = "correct horse battery"
    async with hosted(tmp_path / "h", password=password) as (service, table):
        seen: list[str] = []
        server = table.server
        original = server.receive

        def recording(conn: Any, data: str | bytes) -> bool:
            seen.append(data if isinstance(data, str) else data.decode("utf-8", "replace"))
            return original(conn, data)

        server.receive = recording  # type: ignore[method-assign]
        sessions = [
            ClientSession(
                key=load_or_create_key(tmp_path / who / "identity.key"),
                name=who,
                home=tmp_path / who,
                password=password,
                bot=load_bot("medium"),
                rng=random.Random(i),
            )
            for i, who in enumerate(["ann", "bob"])
        ]
        outcomes = await asyncio.wait_for(
            asyncio.gather(*(run_websocket(s, url_of(service, table)) for s in sessions)), 90
        )
        for session in sessions:
            session.close()
        assert outcomes == [Outcome.OVER, Outcome.OVER]
        assert len(seen) > 20
        assert not [s for s in seen if password in s or password.encode().hex() in s]
        assert password not in (table.folder / "log.jsonl").read_text()


async def test_host_run_seats_join_a_password_table(tmp_path: Path) -> None:
    """Host-run CPU seats prove the password like anyone (they once refused their own table)."""
    # Every seat a CPU: the start is due at once, so they sit down as the table opens.
    async with hosted(
        tmp_path / "h", rules=Rules(seats=2), cpu=["easy"] * 2, password="pw", wait_cpu=15.0
    ) as (
        _,
        table,
    ):
        fatal = [c.session.fatal for c in table.cpu_clients.values()]
        assert len(table.host.state.joins) == 2, fatal


# ---- names ---------------------------------------------------------------------------------


HOSTILE_NAMES = [
    "\x1b[31mred\x1b[0m",
    "\x1b]0;pwned\x07x",
    "\x1b]8;;http://evil/\x1b\\link",
    "\x9b2Jclear",
    "bell\x07",
    "new\nline",
    "tab\there",
    "nul\x00",
    "del\x7f",
    "next\x85line",
    "\u202eevil",
    "iso\u2066late\u2069",
    "zero\u200bwidth",
    "joiner\u200d",
    "bom\ufeff",
    "line\u2028sep",
    "para\u2029sep",
    " padded ",
    "x" * 25,
    "",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=[repr(n)[:24] for n in HOSTILE_NAMES])
async def test_a_join_with_a_dirty_name_is_refused_and_its_cleaned_form_is_accepted(
    tmp_path: Path, name: str
) -> None:
    async with (
        hosted(tmp_path / "h", cpu=["easy"]) as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        before = snapshot(table)
        msg = unsigned_join(key(7), raw.challenge, head=table.host.head, name=name)
        await raw.send({"type": "join", "msg": msg, "proof": None})
        err = await raw.error()
        assert err["reason"] == "SCHEMA", err
        assert snapshot(table) == before
        cleaned = clean_name(name)
        if not cleaned:
            return  # nothing left to show: the client refuses it itself (BAD_NAME)
        await raw.send(join_frame(key(7), raw.challenge, head=table.host.head, name=cleaned))
        assert (await raw.recv_type("welcome", "error"))["type"] == "welcome"
        seat = raw.challenge["seat"]
        assert table.host.state.joins[seat].name == cleaned  # seated (the start follows later)
        assert "\x1b" not in (table.folder / "log.jsonl").read_text()


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("\x1b[1;31mAlice\x1b[0m", "Alice"),
        ("\x1b[2J\x1b[HBob", "Bob"),
        ("\x1b]0;window title\x07Carol", "Carol"),
        ("\x1b]8;;http://evil.example/\x1b\\Dan\x1b]8;;\x1b\\", "Dan"),
        ("\x9b31mEve", "Eve"),  # 8-bit CSI
        ("Gr\u200ba\u200dce\u2060", "Grace"),
        ("\u202eHeidi\u202c", "Heidi"),
        ("\u2067Ivan\u2069", "Ivan"),
        ("\ufeffJudy", "Judy"),
        ("K\x00a\x07r\x08l\x7f", "Karl"),
        ("Line\u2028Para\u2029End", "LineParaEnd"),
        ("  Mallory \t\n  the \u00a0 bold  ", "Mallory the bold"),
        ("N" * 40, "N" * 24),
        ("\x1b[31m" + "O" * 30, "O" * 24),
        ("Pé\u0301ter", "Pé\u0301ter"),  # combining marks are printable: kept
        ("日本語の名前", "日本語の名前"),
        ("\x1b[31m\x1b[0m", ""),
        ("\u200b\u200b", ""),
    ],
)
def test_clean_name(dirty: str, clean: str) -> None:
    assert clean_name(dirty) == clean


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("\x1bcFrank", "Frank"),  # RIS: reset the terminal (Fs)
        ("\x1b(B\x1b[mGeorge", "George"),  # `tput sgr0` (nF: designate G0 charset)
        ("\x1b#8Hank", "Hank"),  # DECALN: fill the screen with E (nF)
    ],
)
def test_clean_name_removes_whole_two_byte_escapes(dirty: str, clean: str) -> None:
    assert clean_name(dirty) == clean


@settings(max_examples=1000, deadline=None)
@given(
    st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8"),
            st.sampled_from(["\x1b", "[", "]", "\x07", "\\", "\x9b", "\x9d", "m", ";", "0", " "]),
        ),
        max_size=60,
    )
)
def test_clean_name_always_gives_a_safe_name(text: str) -> None:
    cleaned = clean_name(text)
    assert len(cleaned) <= 24
    assert cleaned == "" or shape.name(cleaned)  # passes the wire schema
    assert not shape.NAME_FORBIDDEN.search(cleaned)
    assert not any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in cleaned)
    assert not set(cleaned) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "  " not in cleaned and cleaned == cleaned.strip(" ")
    assert clean_name(cleaned) == cleaned


async def test_browse_cleans_hostile_advertised_names(tmp_path: Path) -> None:
    """Anyone on the LAN can advertise: `browse` must not print their terminal escapes."""
    from p2pdice.net.discovery import Advertiser, new_zeroconf

    azc = new_zeroconf("127.0.0.1")
    hostile = "\x1b]0;pwned\x07\x1b[2Jevil\u202e"
    ad = Advertiser(
        azc,
        name="evil",
        port=9,
        addresses=["127.0.0.1"],
        txt={
            "v": "1",
            "name": hostile,
            "id": "00" * 32,
            "path": "/t/" + "00" * 32,
            "rules": "\x1b[31mrules",
            "seats": "1/2",
            "phase": "lobby",
            "hk": "00" * 8,
            "pw": "0",
            "cpu": "0",
        },
    )
    try:
        await ad.start()
        proc = await asyncio.create_subprocess_exec(
            *p2pdice("browse", "--timeout", "6"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        await ad.stop()
        await azc.async_close()
    assert b"evil" in out, out
    assert b"\x1b" not in out and b"\x07" not in out and "\u202e".encode() not in out, out


# ---- no traceback, logged once -------------------------------------------------------------


async def test_an_internal_failure_answers_internal_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="p2pdice.host")
    async with (
        hosted(tmp_path / "h") as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):

        def explode(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"boom in {__file__} at /etc/passwd")

        monkeypatch.setattr(table.host, "spectate", explode)
        await raw.send({"type": "spectate"})
        err = await raw.error()
        assert err["reason"] == "INTERNAL"
        assert "boom" not in err["detail"] and "passwd" not in err["detail"]
        assert_no_leak([err])
        # The table is still up: the connection still gets answers.
        await raw.send(SYNC0)
        assert (await raw.recv_type("entry"))["entry"]["seq"] == 0
    # The traceback goes to the host's own log, not to the peer.
    assert any(r.exc_info for r in caplog.records if r.name == "p2pdice.host")


async def test_each_refusal_is_logged_once_per_connection_and_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="p2pdice.host")
    async with hosted(tmp_path / "h") as (service, table):
        url = url_of(service, table)
        for _ in range(2):
            async with await RawClient.connect(url) as raw:
                for _ in range(4):
                    await raw.send("junk")
                    await raw.send('{"type":"nope"}')
                    await raw.send('{"from": 0, "type": "sync"}')
                for _ in range(12):
                    assert (await raw.error())["type"] == "error"
                reasons = [f["reason"] for f in raw.errors()]
                assert reasons == ["JSON_SYNTAX", "UNKNOWN_TYPE", "JSON_NOT_CANONICAL"] * 4
                assert_no_leak(raw.received)
    messages = [r.getMessage() for r in caplog.records if r.name == "p2pdice.host"]
    for reason in ("JSON_SYNTAX", "UNKNOWN_TYPE", "JSON_NOT_CANONICAL"):
        lines = [m for m in messages if f": {reason}:" in m]
        assert len(lines) == 2, (reason, lines)  # once for each of the two connections
        assert len({m.split(":")[0] for m in lines}) == 2


async def test_refusals_after_the_handshake_carry_the_message_ref(tmp_path: Path) -> None:
    """A seated connection's bad message is answered with its reason and its hash as `ref`."""
    from p2pdice.core.messages import sign_message

    # Three seats, one kept for the host's CPU: the table stays in its lobby after our join,
    # so nothing but our messages could change it.
    async with (
        hosted(tmp_path / "h", rules=Rules(seats=3), cpu=["easy"]) as (service, table),
        await RawClient.connect(url_of(service, table)) as raw,
    ):
        me = key(9)
        mine = raw.challenge["seat"]
        await raw.send(join_frame(me, raw.challenge, head=table.host.head, name="seat one"))
        await raw.recv_type("welcome")
        before = snapshot(table)
        bad = sign_message(
            me,
            kind="next_round",
            table=table.host.table_id,
            seat=mine,
            counter=1,
            head=b"\x01" * 32,
            round=1,
        )
        await raw.send({"type": "send", "msg": bad.to_json()})
        err = await raw.error()
        assert err["ref"] == bad.digest().hex()
        assert err["reason"] in ("UNKNOWN_HEAD", "WRONG_PHASE"), err
        other = sign_message(
            key(10),
            kind="next_round",
            table=table.host.table_id,
            seat=(mine + 1) % 3,  # a seat this connection does not hold
            counter=1,
            head=table.host.head,
            round=1,
        )
        await raw.send({"type": "send", "msg": other.to_json()})
        err = await raw.error()
        assert err["reason"] == "WRONG_KEY" and err["ref"] == other.digest().hex()
        # A replay of our own join is acknowledged with its seq, never posted twice.
        seq, join = next(
            (e.seq, e.msg)
            for e in table.host.entries
            if e.msg is not None and e.msg.type == "join" and e.msg.seat == mine
        )
        await raw.send({"type": "send", "msg": join.to_json()})
        accepted = await raw.recv_type("accepted", "error")
        assert accepted == {"type": "accepted", "ref": join.digest().hex(), "seq": seq}
        assert snapshot(table) == before
        assert_no_leak(raw.received)
