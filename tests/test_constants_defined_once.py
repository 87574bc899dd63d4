"""The protocol version and the seat and dice ranges are defined once in the core (core.version,
core.rules); the spec's schemas restate them as JSON and must agree. Message kinds, the default
CPU level and the protocol version are named where they are defined and imported everywhere
else (the source checks at the end)."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import p2pdice
from p2pdice.bots.names import BOT_NAMES, DEFAULT_LEVEL
from p2pdice.core import shape
from p2pdice.core.messages import EXTRA_FIELDS, MESSAGE_TYPES, MessageType
from p2pdice.core.rules import MAX_DICE, MAX_SEATS, SEATS_RANGE
from p2pdice.core.transitions import TRANSITIONS
from p2pdice.core.version import PROTOCOL_VERSION
from tests.support.vectors import PROTOCOL, SCHEMAS


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def test_the_package_speaks_the_cores_protocol_version() -> None:
    assert p2pdice.PROTOCOL_VERSION == PROTOCOL_VERSION


def test_the_spec_and_schemas_name_the_cores_protocol_version() -> None:
    spec = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    assert spec.splitlines()[0] == f"# p2pdice protocol, version {PROTOCOL_VERSION}"
    genesis = _schema("event.schema.json")["$defs"]["genesis"]["properties"]["protocol"]
    challenge = _schema("frame_to_client.schema.json")["$defs"]["challenge"]["properties"]
    assert genesis["const"] == challenge["protocol"]["const"] == PROTOCOL_VERSION
    assert SCHEMAS.name == f"v{PROTOCOL_VERSION}"


def test_the_schemas_seat_and_dice_ranges_are_the_rules() -> None:
    defs = _schema("common.schema.json")["$defs"]
    assert (defs["seat"]["minimum"], defs["seat"]["maximum"]) == (0, MAX_SEATS - 1)
    assert defs["seat_list"]["maxItems"] == MAX_SEATS
    assert (defs["dice_count"]["minimum"], defs["dice_count"]["maximum"]) == (0, MAX_DICE)
    genesis = _schema("event.schema.json")["$defs"]["genesis"]
    assert genesis["properties"]["host_cpu"]["maximum"] == MAX_SEATS
    # host_cpu is at most the seats: one condition for each table size below the largest
    bounded = [
        c["if"]["properties"]["rules"]["properties"]["seats"]["const"] for c in genesis["allOf"]
    ]
    assert bounded == list(SEATS_RANGE)[:-1]
    roster = _schema("event.schema.json")["$defs"]["start"]["properties"]["roster"]
    assert (roster["minItems"], roster["maxItems"]) == (SEATS_RANGE[0], MAX_SEATS)


def test_a_seat_number_is_below_the_most_seats() -> None:
    assert [n for n in range(-1, MAX_SEATS + 2) if shape.seat(n)] == list(range(MAX_SEATS))


# ---- message kinds, the default CPU level and the protocol version, in the source --------------
#
# The checks below read every module of the package: a kind, level or version written out as a
# literal where the definition should be imported (or a table derived from it) fails them.

PACKAGE = Path(p2pdice.__file__).resolve().parent
KINDS = frozenset(MessageType)


def _sources(*roots: Path) -> Iterator[tuple[str, ast.Module]]:
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            name = str(path.relative_to(PACKAGE.parent))
            yield name, ast.parse(path.read_text(encoding="utf-8"), filename=name)


def _kind(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in KINDS


def _type_field(node: ast.AST) -> bool:
    """`x.type` or `x["type"]`: where a message says its kind."""
    if isinstance(node, ast.Attribute):
        return node.attr == "type"
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "type"
    )


def restated_message_kinds(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, code) of each place a message kind is spelt out instead of named: a literal
    list of kinds, a message's type compared with a literal kind, a literal kind looked up."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            restated = len(node.elts) >= 2 and all(_kind(e) for e in node.elts)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            restated = (
                any(_kind(o) for o in operands) and any(_type_field(o) for o in operands)
            ) or (_kind(node.left) and isinstance(node.ops[0], ast.In | ast.NotIn))
        else:
            continue
        if restated:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_finds_message_kinds_spelt_out() -> None:
    spelt_out = [
        'if msg.type in ("commit", "contribute", "open"): pass',
        'moves = ["bid", "challenge", "exact"]',
        'waiting = any(p.message.type != "ack" for p in pending)',
        'joined = body["type"] == "join"',
        'owed = "ack" not in pending',
    ]
    for line in spelt_out:
        assert restated_message_kinds(ast.parse(line)), line
    named = [
        "if msg.type in _LOST_STEPS: pass",
        "joined = body['type'] == MessageType.JOIN",
        'frame_ok = frame.kind == "join"',  # a wire frame's kind, not a message's
        'one = ("join", "auth", "spectate")',
    ]
    for line in named:
        assert not restated_message_kinds(ast.parse(line)), line


def test_message_kinds_are_named_once() -> None:
    assert set(EXTRA_FIELDS) == set(MESSAGE_TYPES) == KINDS
    assert {k for row in TRANSITIONS if row.is_message for k in row.kinds} == KINDS
    found = {
        name: restated
        for name, tree in _sources(PACKAGE)
        if (restated := restated_message_kinds(tree))
    }
    assert found == {}, "import MessageType or a table of core/transitions.py instead"


def test_the_default_cpu_level_is_named_once() -> None:
    assert DEFAULT_LEVEL in BOT_NAMES
    found = [
        (name, node.lineno)
        for name, tree in _sources(PACKAGE)
        if name != "p2pdice/bots/names.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == DEFAULT_LEVEL
    ]
    assert found == [], "import p2pdice.bots.names.DEFAULT_LEVEL instead"


def test_no_frame_or_event_spells_out_the_protocol_version() -> None:
    """What the package and the test harnesses build says `protocol` with core.version's
    constant (tests that send another version on purpose are not harnesses)."""
    found = [
        (name, node.lineno)
        for name, tree in _sources(PACKAGE, PACKAGE.parent / "tests" / "support")
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key, value in zip(node.keys, node.values, strict=True)
        if isinstance(key, ast.Constant)
        and key.value == "protocol"
        and isinstance(value, ast.Constant)
        and isinstance(value.value, int)
    ]
    found += [
        (name, node.lineno)
        for name, tree in _sources(PACKAGE, PACKAGE.parent / "tests" / "support")
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword)
        and node.arg == "protocol"
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, int)
    ]
    assert found == [], "use p2pdice.core.version.PROTOCOL_VERSION"
