"""Issue 21 item 9: look-alike, invisible and stacked names at a real table (SPEC.md 10.5).

Each attack is played against the core's host table as a player would send it (a signed
join); before the skeleton rule every refused case here was seated. Only APIs older than the
rule are used, so this file runs unchanged against the code before it.
"""

from __future__ import annotations

import random

import pytest

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable
from p2pdice.core.host_outputs import Rejected
from p2pdice.core.peer import Peer
from p2pdice.core.signing import SigningKey
from tests.support.joins import join, names_table, refusal

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


def _table() -> tuple[HostTable, random.Random]:
    return names_table(seats=4, seed=21)


def _join(host: HostTable, rng: random.Random, conn: int, name: str, *, cpu: bool = False):
    return refusal(join(host, rng, conn, name, cpu=cpu))


@pytest.mark.parametrize(
    "name",
    ["\u0421PU medium 1", "\uff23\uff30\uff35 medium 1", "\U0001d402\U0001d40f\U0001d414 x"],
    ids=["cyrillic-Es", "fullwidth", "mathematical-bold"],
)
def test_a_person_with_a_look_alike_of_the_cpu_form_is_refused_name_reserved(name: str) -> None:
    host, rng = _table()
    assert _join(host, rng, 1, name) == Reason.NAME_RESERVED
    assert not host.state.joins


@pytest.mark.parametrize(
    "twin",
    [
        "H\u0430na",
        "\u041d\u0430n\u0430",
        "\u041d\u0410\u039d\u0391",
        "\uff28\uff41\uff4e\uff41",
        "\U0001d407\U0001d41a\U0001d427\U0001d41a",
    ],
    ids=["cyrillic-a", "cyrillic-capital-h", "cyrillic-and-greek-capitals", "fullwidth", "bold"],
)
def test_a_look_alike_of_a_seated_name_is_refused_name_taken(twin: str) -> None:
    """The reveal showed two identical "Hana" rows: the second is now refused."""
    host, rng = _table()
    assert _join(host, rng, 1, "Hana") is None
    outputs = join(host, rng, 2, twin)
    assert refusal(outputs) == Reason.NAME_TAKEN
    # The refusal names the seat as it is spelled at the table, not as the joiner typed it.
    (detail,) = [o.detail for o in outputs if isinstance(o, Rejected)]
    assert detail.endswith("called Hana"), detail
    assert [s.name for s in host.state.joins.values()] == ["Hana"]


@pytest.mark.parametrize(
    "name",
    ["Ha\u2800na", "\u3164", "Ha\u115fna", "Ha\u034fna", "Hana\ufe00", "Ha\u200dna",
     "x" + "\u0301" * 20],
    ids=["braille-blank", "hangul-filler", "choseong-filler", "grapheme-joiner",
         "variation-selector", "zwj-in-letters", "20-marks"],
)  # fmt: skip
def test_invisible_blank_and_stacked_names_are_refused(name: str) -> None:
    host, rng = _table()
    assert _join(host, rng, 1, name) == Reason.SCHEMA
    assert not host.state.joins


@pytest.mark.parametrize(
    "name",
    ["Hana " + FAMILY, FAMILY, "\U0001f3f3\ufe0f\u200d\U0001f308", "\u2764\ufe0f Bob"],
    ids=["family-after-name", "family", "rainbow-flag", "red-heart"],
)
def test_emoji_sequences_are_seated(name: str) -> None:
    host, rng = _table()
    assert _join(host, rng, 1, name) is None
    assert [s.name for s in host.state.joins.values()] == [name]


def test_a_cpu_look_alike_of_a_seated_cpu_is_refused_name_taken() -> None:
    host, rng = _table()
    assert _join(host, rng, 1, "CPU easy 1", cpu=True) is None
    assert _join(host, rng, 2, "\u0421PU easy 1", cpu=True) == Reason.NAME_TAKEN


@pytest.mark.parametrize(
    ("name", "reason"),
    [("H\u0430na", Reason.NAME_TAKEN), ("x" + "\u0301" * 20, Reason.SCHEMA)],
    ids=["cyrillic-twin", "20-marks"],
)
def test_every_peer_and_verifier_refuses_such_a_join_in_the_log(name: str, reason: Reason) -> None:
    """The rule is the join transition that peers and `verify` replay, not a host courtesy:
    the transition itself refuses the join a dishonest host would post."""
    from p2pdice.core.table_messages import join_msg

    host, rng = _table()
    assert _join(host, rng, 1, "Hana") is None
    peer = Peer(key=SigningKey(rng.randbytes(32)))
    for line in host.lines():
        peer.receive_line(line)
    join = peer.make_join(host.challenge(2, rng.randbytes(16)), name=name)
    with pytest.raises(Exception) as refused:
        join_msg(peer.state, join, len(host.lines()), peer.replayer.chain)
    assert getattr(refused.value, "reason", None) == reason
