"""The JSON Schemas in protocol/schemas/v1 hold for everything the code produces, and agree with it.

(a) every schema is valid draft 2020-12, strict, and its references resolve; the enumerations
    match the code (message and event fields, rules keys, reason codes);
(b) whole games through the protocol (protosim), honest and with faults: every transcript entry,
    event and message (also those inside commit_set and beacon), every challenge, auth answer
    and refusal validates; so does every frame of a game played over the network layer's
    in-process links;
(c) mutations of valid messages, events, entries, auth answers and frames are refused by the
    schema exactly when the code's parser refuses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import random
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core import shape
from p2pdice.core.auth import auth_parts, sign_auth
from p2pdice.core.codec import decode, encode
from p2pdice.core.errors import Reason, RemoteError
from p2pdice.core.events import EVENT_FIELDS, LEFT_OUT_AT_DEFAULT, check_event
from p2pdice.core.game import Undo
from p2pdice.core.host import HostTable
from p2pdice.core.messages import _COMMON, EXTRA_FIELDS, parse_message
from p2pdice.core.rules import Rules, preset
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase, genesis_state
from p2pdice.core.transcript import parse_entry
from p2pdice.net.client import LocalClient
from p2pdice.net.frames import TO_CLIENT, TO_HOST, decode_frame, encode_frame, error_frame
from p2pdice.net.server import LocalLink, TableServer
from p2pdice.net.session import ClientSession
from tests.support.vectors import SCHEMAS

BASE = "https://p2pdice.invalid/schemas/v1/"
FILES = (
    "common",
    "message",
    "event",
    "entry",
    "frame_to_client",
    "frame_to_host",
    "report",
    "tables",
)


# ---- loading -----------------------------------------------------------------------------


@cache
def schema_docs() -> dict[str, dict[str, Any]]:
    """Every top-level schema of v1, by file name."""
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(SCHEMAS.glob("*.schema.json"))
    }


@cache
def registry() -> Registry:
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in (
            json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(SCHEMAS.rglob("*.schema.json"))
        )
    ]
    return Registry().with_resources(resources).crawl()


@cache
def validator(ref: str) -> Draft202012Validator:
    """A validator for `file#/pointer` (or a whole file), with cross-file refs resolved."""
    return Draft202012Validator({"$ref": BASE + ref}, registry=registry())


def valid(ref: str, value: Any) -> bool:
    return validator(ref).is_valid(value)


def assert_valid(ref: str, value: Any) -> None:
    errors = sorted(validator(ref).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{ref}: {errors[0].message} at {list(errors[0].absolute_path)}"


def walk(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, (*path, index))


# ---- (a) the schema files ----------------------------------------------------------------


def test_the_schema_files_exist() -> None:
    assert {f"{name}.schema.json" for name in FILES} <= set(schema_docs())


@pytest.mark.parametrize("name", [f"{n}.schema.json" for n in FILES])
def test_schema_is_valid_strict_and_resolves(name: str) -> None:
    doc = schema_docs()[name]
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == BASE + name
    resolver = registry().resolver(base_uri=doc["$id"])
    for path, node in walk(doc):
        if not isinstance(node, dict) or (path and path[-1] in ("properties", "$defs")):
            continue  # a map of names to subschemas, not a subschema
        if "if" in path or "then" in path:
            continue  # a condition on an object that is itself strict
        if node.get("type") == "object" or "properties" in node:
            assert node.get("additionalProperties") is False, f"{name} {path} is not strict"
            assert set(node["required"]) <= set(node["properties"]), f"{name} {path}"
        if "$ref" in node:
            resolver.lookup(node["$ref"])  # raises when it does not resolve


def _def(ref: str) -> dict[str, Any]:
    file, _, pointer = ref.partition("#")
    node: Any = schema_docs()[file]
    for part in filter(None, pointer.split("/")):
        node = node[part]
    return node


def test_message_bodies_have_exactly_the_codes_fields() -> None:
    bodies = _def("message.schema.json#/$defs/body")["oneOf"]
    assert [b["$ref"] for b in bodies] == [f"#/$defs/{kind}_body" for kind in EXTRA_FIELDS]
    for kind, extra in EXTRA_FIELDS.items():
        body = _def(f"message.schema.json#/$defs/{kind}_body")
        assert set(body["properties"]) == set(_COMMON) | set(extra), kind
        assert set(body["required"]) == set(body["properties"]), kind
        assert body["properties"]["type"] == {"const": kind}


def test_events_have_exactly_the_codes_fields() -> None:
    events = _def("event.schema.json")["oneOf"]
    assert [e["$ref"] for e in events] == [f"#/$defs/{kind}" for kind in EVENT_FIELDS]
    for kind, fields in EVENT_FIELDS.items():
        event = _def(f"event.schema.json#/$defs/{kind}")
        assert set(event["properties"]) == {"type", *fields}, kind
        # A field left out while it holds its default (genesis cpu_fill) is not required.
        assert set(event["required"]) == set(event["properties"]) - LEFT_OUT_AT_DEFAULT[kind], kind


def test_rules_object_has_exactly_the_rules_keys() -> None:
    rules = _def("common.schema.json#/$defs/rules")
    assert set(rules["properties"]) == set(Rules().to_json())
    assert set(rules["required"]) == set(rules["properties"])


def test_error_frames_enumerate_every_reason_code() -> None:
    assert _def("frame_to_client.schema.json#/$defs/reason")["enum"] == [r.value for r in Reason]


def test_rules_object_accepts_exactly_the_valid_options() -> None:
    ref = "common.schema.json#/$defs/rules"
    for rules in (Rules(), preset("perudo"), Rules(kind="practice", undo=True)):
        assert_valid(ref, rules.to_json())
    for change in (
        {"undo": True},
        {"seats": 7},
        {"starting_dice": 0},
        {"turn_timer": 45},
        {"grace_period": 4},
        {"ones": "Wild"},
        {"exact_call": 1},
    ):
        assert not valid(ref, {**Rules().to_json(), **change}), change


# ---- (b) everything the code produces ----------------------------------------------------


@dataclass
class Corpus:
    """What the played games produced."""

    lines: list[bytes] = field(default_factory=list)
    auths: list[dict[str, Any]] = field(default_factory=list)
    challenges: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)


BOT = load_bot("easy")


def _table(rules: Rules, seed: int, **kwargs: Any) -> LocalTable:
    return LocalTable(rules, [BOT] * rules.seats, rng=random.Random(seed), **kwargs)


def _drop(budget: dict[tuple[str, int], int]) -> Callable[[Any, Any], Any]:
    """A send hook that loses the first n messages of (type, seat)."""
    left = dict(budget)

    def on_send(conn: Any, msg: Any) -> Any:
        key = (msg.type, msg.seat)
        if left.get(key, 0) > 0:
            left[key] -= 1
            return None
        return msg

    return on_send


def _has(table: LocalTable, kind: str) -> bool:
    return any(e.event is not None and e.event["type"] == kind for e in table.host.entries)


def _run_until(table: LocalTable, kind: str, *, steps: int = 20_000) -> None:
    """Play one move or let time pass, until an event of `kind` is posted or the game is over.

    One step at a time (the harness's private step function), so that the test can act
    between the entry it waits for and the next move."""
    for _ in range(steps):
        table.run_until_idle(decide=False)
        if _has(table, kind) or table.host.phase == TablePhase.OVER:
            return
        if not table._decide_one() and not table.advance_clock():
            return


def _finish(table: LocalTable) -> None:
    """End a game that faults left stuck the way a host shutting down would."""
    _run_until(table, "game_over")
    if table.host.phase != TablePhase.OVER:
        table.host.abandon(table.now)


def _play_with_undos(table: LocalTable, undos: int) -> None:
    """Play, but let the standing bidder take its bid back (practice tables) a few times.

    No bot undoes, so this drives the harness by hand (its private step functions)."""
    seen: set[tuple[int, int]] = set()
    for _ in range(100_000):
        table.run_until_idle(decide=False)
        if table.host.phase == TablePhase.OVER:
            return
        game = table.host.state.game
        assert game is not None
        bidder = game.standing_bidder
        mark = (game.round, len(game.bids))
        bidding = table.host.phase == TablePhase.BIDDING
        if undos and bidding and bidder is not None and mark not in seen:
            seen.add(mark)
            undos -= 1
            conn = next(c for c, s in table.seats.items() if s.peer.seat == bidder)
            peer = table.seats[conn].peer
            table._peer_outputs(conn, [peer.act(Undo(bidder), now=table.now)])
            continue
        if not table._decide_one() and not table.advance_clock():
            raise RuntimeError("stuck")
    raise RuntimeError("the game did not end")


def _seat(table: LocalTable, count: int) -> None:
    """Take the seats without letting anyone act yet."""
    for index in range(count):
        table.add_player(BOT, name=f"P{index}")
    table.run_until_idle(decide=False)


def _games() -> Iterator[LocalTable]:
    # Honest games over the rules space: 2..6 seats, 1..5 dice, every option value.
    for seed, rules, extra in [
        (1, preset("classic", seats=2, starting_dice=1), {}),
        (2, preset("classic", seats=2, starting_dice=5), {"password": "pässword"}),
        (3, preset("perudo", seats=6, starting_dice=1), {"host_cpu": 2}),
        (
            4,
            Rules(
                seats=4,
                starting_dice=2,
                ones="natural",
                palifico="free",
                exact_call=True,
                first_starter="seat0",
            ),
            {},
        ),
        (4, Rules(seats=2, starting_dice=4, ones="aces", palifico="fixed", turn_timer=60), {}),
        (7, Rules(seats=2, starting_dice=2, kind="pass_and_play", grace_period=5), {}),
    ]:
        table = _table(rules, seed, **extra)
        table.seat_everyone()
        table.play()
        yield table
    # A practice table with undo.
    table = _table(Rules(seats=3, starting_dice=3, kind="practice", undo=True), 7)
    _seat(table, 3)
    _play_with_undos(table, undos=4)
    yield table
    # Lost commitments: two aborts, an absence, a stand-in.
    table = _table(Rules(seats=5, starting_dice=2), 7)
    table.on_send = _drop({("commit", 1): 2})
    table.seat_everyone()
    _run_until(table, "stand_in")
    table.host.abandon(table.now)
    yield table
    # A lost bid: the seat's client waits for it forever, so the turn timer plays that seat.
    table = _table(Rules(seats=2, starting_dice=2, turn_timer=30, first_starter="seat0"), 1)
    table.on_send = _drop({("bid", 0): 1})
    table.seat_everyone()
    _finish(table)
    yield table
    # A lost contribution: forfeit.
    table = _table(Rules(seats=3, starting_dice=2), 8)
    table.on_send = _drop({("contribute", 1): 1})
    table.seat_everyone()
    _finish(table)
    yield table
    # Lost openings: a forfeit, or a result with unopened hands. Whether the opened hands
    # decide the round depends on the dice, which follow the table id and so every field of
    # the rules object: rather than pin one seed, take the first of a few that decides it.
    table = _lost_openings(9, "forfeit")
    yield table
    for seed in range(12, 44):
        table = _lost_openings(seed, "result")
        if _unopened_result(table):
            break
    yield table
    # A player leaves in the lobby; a disconnection during bidding, then a return.
    for seed in (10, 13):
        table = _table(Rules(seats=3, starting_dice=2), seed)
        leaver = table.add_player(BOT, name="leaver")
        table.run_until_idle()
        table.disconnect(leaver)
        gone: dict[str, Any] = {}

        def on_send(conn: Any, msg: Any, table: LocalTable = table, gone: dict = gone) -> Any:
            if msg.type == "bid" and not gone:
                gone["conn"] = conn
                table.disconnect(conn)
            return msg

        table.on_send = on_send
        for index in range(3):
            table.add_player(BOT, name=f"P{index}")
        _run_until(table, "absent")
        table.reconnect(gone["conn"])
        _finish(table)
        yield table
    # A table still in its lobby (its challenge offers a seat).
    table = _table(Rules(seats=3), 11)
    table.add_player(BOT, name="early bird")
    table.run_until_idle()
    yield table


def _lost_openings(seed: int, until: str) -> LocalTable:
    """A 3-seat game whose first openings from seats 0 and 1 never reach the host."""
    table = _table(Rules(seats=3, starting_dice=3), seed)
    table.on_send = _drop({("open", 0): 1, ("open", 1): 1})
    table.seat_everyone()
    _run_until(table, until)
    _finish(table)
    return table


def _unopened_result(table: LocalTable) -> bool:
    """Whether a round of this game was settled with a hand left unopened (RULES.md R4.1)."""
    for line in table.host.lines():
        event = decode(line).get("event")
        if event is not None and event["type"] == "result" and None in event["hands"]:
            return True
    return False


def _frame(text: str) -> dict[str, Any]:
    return decode(text.encode("utf-8"))


@cache
def corpus() -> Corpus:
    out = Corpus()
    for table in _games():
        host = table.host
        out.lines += host.lines()
        out.refusals += [
            _frame(error_frame(r.reason, r.detail, r.ref)) for r in table.stats.rejected
        ]
        nonce = random.Random(len(out.lines)).randbytes(16)
        challenge = host.challenge(-1, nonce)  # as TableServer.open sends it
        out.challenges.append(
            _frame(encode_frame("challenge", protocol=1, entries=len(host.entries), **challenge))
        )
        for seat in table.seats.values():
            out.auths.append(
                sign_auth(seat.peer.key, table=host.table_id, host=host.key.public, nonce=nonce)
            )
    return out


def _events_and_messages() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    events, messages = [], []
    for line in corpus().lines:
        entry = decode(line)
        if "msg" in entry:
            messages.append(entry["msg"])
        else:
            events.append(entry["event"])
            for key in ("commits", "contributions"):
                messages += entry["event"].get(key, [])
    return events, messages


def test_the_games_cover_every_message_and_event() -> None:
    events, messages = _events_and_messages()
    assert {m["body"]["type"] for m in messages} == set(EXTRA_FIELDS)
    assert {e["type"] for e in events} == set(EVENT_FIELDS)
    reasons = {(e["type"], e["reason"]) for e in events if "reason" in e}
    assert reasons == {
        ("abort", "commit_timeout"),
        ("forced", "timer"),
        ("forced", "absent"),
        ("absent", "grace_expired"),
        ("absent", "no_reply"),
        ("forfeit", "no_contribution"),
        ("forfeit", "no_opening"),
        ("game_over", "finished"),
        ("game_over", "abandoned"),
    }
    actions = {e["action"]["type"] for e in events if e["type"] == "forced"}
    assert actions == {"bid", "challenge", "next_round"}
    assert any(None in e["hands"] for e in events if e["type"] == "result")
    assert any(r["host_run"] for e in events if e["type"] == "start" for r in e["roster"])


def test_every_transcript_entry_validates() -> None:
    for line in corpus().lines:
        assert_valid("entry.schema.json", decode(line))


def test_every_event_validates() -> None:
    events, _ = _events_and_messages()
    for event in events:
        assert_valid("event.schema.json", event)


def test_every_message_validates() -> None:
    _, messages = _events_and_messages()
    for msg in messages:
        assert_valid("message.schema.json", msg)


def test_typed_definitions_and_frames_validate() -> None:
    """Each value also validates against its own type's definition and inside its frame."""
    for ref, value in samples():
        if ref == "event.schema.json":
            assert_valid(f"event.schema.json#/$defs/{value['type']}", value)
        elif ref == "message.schema.json":
            kind = value["body"]["type"]
            assert_valid(f"message.schema.json#/$defs/{kind}_body", value["body"])
            if kind in ("join", "commit", "contribute"):
                assert_valid(f"message.schema.json#/$defs/{kind}_message", value)
            frame = (
                {"type": "join", "msg": value, "pake": None, "proof": None, "work": None}
                if kind == "join"
                else {"type": "send", "msg": value}
            )
            assert_valid("frame_to_host.schema.json", frame)
        elif ref == "entry.schema.json":
            assert_valid("frame_to_client.schema.json", {"type": "entry", "entry": value})


def test_handshake_frames_validate() -> None:
    data = corpus()
    assert {c["seat"] is None for c in data.challenges} == {True, False}
    assert {c["password"] for c in data.challenges} == {True, False}
    for challenge in data.challenges:
        assert_valid("frame_to_client.schema.json", challenge)
    for auth in data.auths:
        assert_valid("frame_to_host.schema.json#/$defs/auth_message", auth)
        assert_valid("frame_to_host.schema.json", {"type": "auth", "auth": auth})
    for frame in (
        {
            "type": "join",
            "msg": _events_and_messages()[1][0],
            "pake": "41" + "ab" * 32,
            "proof": "ab" * 32,
            "work": 17,
        },
        {"type": "spectate"},
        {"type": "sync", "from": 0},
    ):
        assert_valid("frame_to_host.schema.json", frame)
    for frame in (
        {"type": "welcome", "seat": 3, "proof": "ab" * 32},
        {"type": "welcome", "seat": None, "proof": None},
        {"type": "accepted", "ref": "cd" * 32, "seq": None},
        {"type": "accepted", "ref": "cd" * 32, "seq": 17},
        {
            "type": "status",
            "connected": [0, 2],
            "phase": "bidding",
            "turn": 2,
            "deadline_ms": 900,
            "bank_ms": 12000,
        },
        {
            "type": "status",
            "connected": [],
            "phase": "lobby",
            "turn": None,
            "deadline_ms": None,
            "bank_ms": None,
        },
        {"type": "closing", "reason": "paused", "detail": "the host paused the table"},
        {"type": "closing", "reason": "ended", "detail": "the host ended the table"},
    ):
        assert_valid("frame_to_client.schema.json", frame)


def test_every_refusal_validates_as_an_error_frame() -> None:
    refusals = corpus().refusals
    assert refusals  # the fault games provoke some
    for frame in refusals:
        assert_valid("frame_to_client.schema.json", frame)


def test_frames_are_strict() -> None:
    for ref, frame in (
        ("frame_to_host.schema.json", {"type": "spectate", "seat": 0}),
        ("frame_to_host.schema.json", {"type": "sync", "from": -1}),
        ("frame_to_host.schema.json", {"type": "hello"}),
        ("frame_to_client.schema.json", {"type": "welcome"}),
        (
            "frame_to_client.schema.json",
            {"type": "error", "reason": "NOPE", "detail": "", "ref": None},
        ),
        ("frame_to_client.schema.json", {"type": "accepted", "ref": "CD" * 32, "seq": None}),
    ):
        assert not valid(ref, frame), frame


# ---- (b') the frames the network layer really sends ----------------------------------------

TO_HOST_REF, TO_CLIENT_REF = "frame_to_host.schema.json", "frame_to_client.schema.json"


class _RecordingServer(TableServer):
    """A TableServer that keeps every frame it receives and every frame it sends."""

    def __init__(self, host: HostTable) -> None:
        super().__init__(host)
        self.frames: list[tuple[str, str]] = []

    def receive(self, conn: Any, data: str | bytes) -> bool:
        self.frames.append((TO_HOST_REF, data if isinstance(data, str) else data.decode()))
        return super().receive(conn, data)

    def _queue(self, conn: Any, frame: str | None, *args: Any, **kwargs: Any) -> None:
        if frame is not None and not conn.closed:
            self.frames.append((TO_CLIENT_REF, frame))
        super()._queue(conn, frame, *args, **kwargs)


async def _wire_game() -> list[tuple[str, str]]:
    """Three host-run CPU seats play over in-process links; then a spectator, a reconnect,
    some bad frames, and the host closing the table."""
    rng = random.Random(21)
    host = HostTable(
        key=SigningKey(rng.randbytes(32)),
        name="wire",
        rules=Rules(seats=3, starting_dice=2),
        nonce=rng.randbytes(16),
        host_cpu=3,
        password="secret",
        now=asyncio.get_running_loop().time(),
    )
    server = _RecordingServer(host)
    server.start()
    keys = [SigningKey(rng.randbytes(32)) for _ in range(4)]

    def client(index: int, **kwargs: Any) -> LocalClient:
        session = ClientSession(
            key=keys[index],
            name=f"P{index}",
            home=None,
            password="secret",
            rng=random.Random(index),
            **kwargs,
        )
        return LocalClient(session, server)

    clients = [client(i, cpu=True, host_run=True, bot=BOT) for i in range(3)]
    for c in clients:
        c.start()
    await asyncio.wait_for(server.over.wait(), 20)
    late = [client(3, mode="spectate"), client(0, seat_hint=0)]
    for c in late:
        c.start()
    raw = LocalLink(server, lambda frame: None)
    raw.open()
    for bad in ('{"from":-1,"type":"sync"}', '{"type":"hello"}', "[]", '{"type":"send"}'):
        raw.send(bad)
    await asyncio.sleep(0.1)  # the writers deliver; the late clients answer
    # close() queues the closing frames at once. It may then wait for its clock task for as
    # long as the next deadline (on Python 3.11 asyncio.wait_for can swallow the cancellation
    # when the table's wake event is set at the same moment), hence the timeout.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(server.close(), 0.5)
    for c in [*clients, *late]:
        await c.stop()
    return server.frames


@cache
def wire_frames() -> list[tuple[str, dict[str, Any]]]:
    return [(ref, _frame(frame)) for ref, frame in asyncio.run(_wire_game())]


def test_every_frame_on_the_wire_validates() -> None:
    frames = wire_frames()
    kinds = {(ref, f["type"]) for ref, f in frames if isinstance(f, dict)}
    assert kinds >= {(TO_HOST_REF, k) for k in TO_HOST}, kinds
    assert kinds >= {(TO_CLIENT_REF, k) for k in TO_CLIENT}, kinds
    bad = 0
    for ref, frame in frames:
        if ref == TO_HOST_REF and not code_accepts(ref, frame):
            bad += 1  # one of the bad frames sent on purpose
            assert not valid(ref, frame), frame
            continue
        assert_valid(ref, frame)
    assert bad == 4


# ---- (c) the schemas and the parsers agree ------------------------------------------------


def _inner_messages(event: dict[str, Any]) -> None:
    for key in ("commits", "contributions"):
        for raw in event.get(key, ()):
            parse_message(raw)


def _parse_event(value: Any) -> None:
    """What the code checks of an event on its own: shape, inner messages, a genesis's rules."""
    event = check_event(value)
    _inner_messages(event)
    if event["type"] == "genesis":
        genesis_state(event)


def _parse_entry(value: Any) -> None:
    entry = parse_entry(encode(value))
    if entry.event is not None:
        _parse_event(entry.event)


def _parse_frame_to_host(value: Any) -> None:
    """decode_frame, then what the host does with the frame's contents."""
    frame = decode_frame(encode(value), TO_HOST)
    if frame["type"] in ("join", "send"):
        msg = parse_message(frame["msg"])
        if frame["type"] == "join" and msg.type != "join":
            raise RemoteError(Reason.SCHEMA, "HostTable.join refuses any other message")
    elif frame["type"] == "auth":
        auth_parts(frame["auth"])


def _parse_frame_to_client(value: Any) -> None:
    """decode_frame, then what a client does with an entry."""
    frame = decode_frame(encode(value), TO_CLIENT)
    if frame["type"] == "entry":
        _parse_entry(frame["entry"])


PARSERS: dict[str, Callable[[Any], Any]] = {
    TO_HOST_REF: _parse_frame_to_host,
    TO_CLIENT_REF: _parse_frame_to_client,
    "message.schema.json": parse_message,
    "event.schema.json": _parse_event,
    "entry.schema.json": _parse_entry,
    "frame_to_host.schema.json#/$defs/auth_message": auth_parts,
}


def code_accepts(ref: str, value: Any) -> bool:
    """The code's verdict on a value as it would arrive: canonical JSON first, then the parser."""
    try:
        decode(encode(value))
        PARSERS[ref](value)
    except RemoteError:
        return False
    return True


@cache
def samples() -> list[tuple[str, Any]]:
    """A few valid values of every message type, event type and kind of entry."""
    events, messages = _events_and_messages()
    out: list[tuple[str, Any]] = []
    by_kind: dict[tuple[str, str], int] = {}
    for ref, kind, value in [
        *(("event.schema.json", e["type"], e) for e in events),
        *(("message.schema.json", m["body"]["type"], m) for m in messages),
    ]:
        if by_kind.get((ref, kind), 0) < 3:
            by_kind[ref, kind] = by_kind.get((ref, kind), 0) + 1
            out.append((ref, value))
    out += [("entry.schema.json", decode(line)) for line in corpus().lines[:6]]
    out += [("frame_to_host.schema.json#/$defs/auth_message", a) for a in corpus().auths[:2]]
    by_frame: dict[tuple[str, str], int] = {}
    for ref, frame in wire_frames():
        kind = (ref, frame["type"]) if isinstance(frame, dict) else (ref, "")
        if by_frame.get(kind, 0) < 2 and code_accepts(ref, frame):
            by_frame[kind] = by_frame.get(kind, 0) + 1
            out.append((ref, frame))
    return out


def test_valid_values_are_accepted_by_both() -> None:
    for ref, value in samples():
        assert valid(ref, value), (ref, value)
        assert code_accepts(ref, value), (ref, value)


def _is_hex(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 32 and shape.hexbytes(len(value) // 2)(value)


def _allowed_in_names(char: str) -> bool:
    # Unassigned code points (Cn) are refused by str.isprintable() but cannot be listed by a
    # schema that does not pin a Unicode version: test_unassigned_code_point_in_a_name.
    return unicodedata.category(char) != "Cn"


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([-1, 0, 1, 2, 5, 6, 7, 24, 29, 30, 31, 600, 601, 2**53 - 1, 2**53]),
    st.text(max_size=30),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
names = st.text(
    st.characters(codec="utf-8").filter(_allowed_in_names), min_size=0, max_size=26
) | st.sampled_from([" a", "a ", "a  b", "\u00a0", "x\u200b", "x\u2028", "x\ue000", "x\U000e0041"])


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = root
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return root


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, Any, str, bool]:
    """(schema ref, mutated value, what was done, whether the value is certainly invalid)."""
    ref, original = draw(st.sampled_from(samples()))
    value = copy.deepcopy(original)
    path, node = draw(st.sampled_from(list(walk(value))))
    ops = ["replace"]
    if isinstance(node, dict):
        ops += ["drop_key", "add_key"] if node else ["add_key"]
    if shape.is_int(node):
        ops.append("int_edge")
    if _is_hex(node):
        ops.append("bad_hex")
    if isinstance(node, str) and path and path[-1] == "name":
        ops.append("name")
    op = draw(st.sampled_from(ops))
    if op == "drop_key":
        key = draw(st.sampled_from(sorted(node)))
        del node[key]
        return ref, value, f"drop {(*path, key)}", True
    if op == "add_key":
        key = draw(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1))
        assume(key not in node)
        node[key] = draw(json_values)
        return ref, value, f"add {(*path, key)}", True
    if op == "int_edge":
        new = draw(
            st.sampled_from([-1, 0, 1, 5, 6, 7, 30, 31, 2**53 - 1, 2**53]) | st.integers(-9, 99)
        )
        return ref, _set(value, path, new), f"int {path} = {new}", False
    if op == "bad_hex":
        how = draw(st.sampled_from(["upper", "short", "long", "odd", "newline", "nonhex"]))
        new = {
            "upper": node.upper(),
            "short": node[:-2],
            "long": node + "00",
            "odd": node[:-1],
            "newline": node + "\n",
            "nonhex": "g" + node[1:],
        }[how]
        assume(new != node)
        return ref, _set(value, path, new), f"hex {how} at {path}", True
    if op == "name":
        new = draw(names)
        return ref, _set(value, path, new), f"name {path} = {new!r}", False
    assume(path)  # replacing the whole value says nothing about the schema's structure
    new = draw(json_values)
    return ref, _set(value, path, new), f"replace {path} = {new!r}", False


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(mutations())
def test_schema_and_parser_agree_on_mutations(case: tuple[str, Any, str, bool]) -> None:
    ref, value, what, invalid = case
    by_schema, by_code = valid(ref, value), code_accepts(ref, value)
    assert by_schema == by_code, f"{what}: schema {by_schema}, code {by_code}"
    if invalid:
        assert not by_schema, what


@settings(max_examples=300, deadline=None)
@given(names)
def test_schema_and_parser_agree_on_names(name: str) -> None:
    by_schema = valid("common.schema.json#/$defs/name", name)
    assert by_schema == shape.name(name), f"{name!r}: schema {by_schema}"


def test_names_that_differ_only_in_invisible_characters_are_refused() -> None:
    ref = "common.schema.json#/$defs/name"
    for name in ("Ann", "Ann Lee", "Zoë", "李雷", "🎲 dice", "x" * 24):
        assert valid(ref, name) and shape.name(name), name
    for name in ("", " Ann", "Ann ", "Ann\n", "A\u200bnn", "\u202eAnn", "A\u00adnn", "x" * 25):
        assert not valid(ref, name) and not shape.name(name), name


# ---- regressions of disagreements found while writing the schemas ---------------------------


@pytest.mark.parametrize(
    ("parser", "value"),
    [
        (parse_message, {"body": {"type": []}, "sig": "00" * 64}),
        (check_event, {"type": {}}),
        (lambda value: decode_frame(encode(value), TO_CLIENT), {"type": []}),
    ],
    ids=["parse_message", "check_event", "decode_frame"],
)
def test_unhashable_type_is_refused(parser: Callable[[Any], Any], value: Any) -> None:
    with pytest.raises(RemoteError):
        parser(value)


def test_unassigned_code_point_in_a_name() -> None:
    """Names follow an explicit character list, not the Unicode database of one Python."""
    name = "Ann\u0378"  # unassigned in every Unicode version so far
    assert valid("common.schema.json#/$defs/name", name) == shape.name(name)


def _genesis(**changes: Any) -> dict[str, Any]:
    rules = {**Rules(seats=3).to_json(), **changes.pop("rules", {})}
    return {
        "type": "genesis",
        "protocol": 1,
        "host": "11" * 32,
        "name": "Kitchen",
        "rules": rules,
        "nonce": "22" * 16,
        "host_cpu": 0,
        **changes,
    }


@pytest.mark.parametrize(
    "genesis",
    [
        _genesis(),
        _genesis(protocol=2),
        _genesis(protocol=0),
        _genesis(host_cpu=3),
        _genesis(host_cpu=4),
        _genesis(rules={"undo": True}),
        _genesis(rules={"undo": True, "kind": "practice"}),
        _genesis(rules={"starting_dice": 6}),
        _genesis(rules={"seats": True}),
        _genesis(rules={"first_starter": "seat9"}),
        _genesis(rules={"first_starter": "seat3", "undo": True}),
        {**_genesis(), "rules": {k: v for k, v in Rules().to_json().items() if k != "undo"}},
        {**_genesis(), "rules": {**Rules().to_json(), "house": 1}},
    ],
)
def test_a_genesis_fails_the_parser_exactly_when_it_fails_its_schema(
    genesis: dict[str, Any],
) -> None:
    """The schema is step 1 of verify (SPEC.md 9): the parser refuses a genesis exactly when
    the schema does, with SCHEMA."""
    by_schema = valid("event.schema.json", genesis)
    try:
        check_event(genesis)
        by_code = True
    except RemoteError as err:
        assert err.reason == Reason.SCHEMA, err
        by_code = False
    assert by_schema == by_code


def test_a_genesis_naming_a_seat_the_table_lacks_passes_the_schema_and_is_a_bad_event() -> None:
    """The one defect of a genesis its schema cannot state (SPEC.md 9, step 2)."""
    genesis = _genesis(rules={"first_starter": "seat3"})
    assert valid("event.schema.json", genesis)
    check_event(genesis)
    with pytest.raises(RemoteError) as refused:
        genesis_state(genesis)
    assert refused.value.reason == Reason.BAD_EVENT
