"""`verify` holds a game to its table's house rules (issue 27).

For each house option value other than the default, whole signed protosim games are played
with the option set. Each must verify, and its report must carry the option. Then one round
the option decides is posted again with the result the *other* value of the option gives:
the count, outcome, dice lost, regained die, eliminations and next starter are all consistent
with each other and signed with the host's own key, so only the rules check can catch it. It
does, at that entry, with RESULT_MISMATCH.

The rival result is computed by the engine itself from the state just before the result entry,
with only the one option changed; a round where both values agree says nothing and is passed
over. Seeds are searched until a game has a round that the option decides, and the test
asserts one is found, so it cannot pass vacuously.

The palifico kind also decides which bids are legal: a palifico raise moved to another face,
signed by the bidder's own key, is refused with FACE_FIXED where the kind fixes the face and
verifies where it does not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

import pytest

from p2pdice.bots import load_bot
from p2pdice.bots.protosim import LocalTable
from p2pdice.core.errors import Reason
from p2pdice.core.game import Phase, Reveal, RoundResult, apply
from p2pdice.core.messages import sign_message
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import Replayer
from p2pdice.core.transcript import build_entry, parse_entry
from p2pdice.core.verify import verify_lines

SEEDS = range(1, 41)


@dataclass(frozen=True)
class HouseRule:
    key: str
    value: str
    rival: str  #: the value whose result is forged in
    rules: Rules

    @property
    def id(self) -> str:
        return f"{self.key}={self.value}"


#: Three seats with two dice each: someone falls to one die while three are still in, so
#: palifico rounds occur; CPUs call exact when exact calls are allowed.
BASE: dict[str, Any] = {"seats": 3, "starting_dice": 2}
HOUSE_RULES = [
    HouseRule(
        "palifico_kind",
        "ones-not-wild",
        "face-fixed",
        Rules(**BASE, palifico="fixed", palifico_kind="ones-not-wild"),
    ),
    HouseRule(
        "palifico_kind",
        "face-fixed",
        "both",
        Rules(**BASE, palifico="fixed", palifico_kind="face-fixed"),
    ),
    HouseRule(
        "exact_reward",
        "others-lose",
        "regain",
        Rules(**BASE, exact_call=True, exact_reward="others-lose"),
    ),
    HouseRule(
        "challenge_penalty",
        "difference",
        "one",
        Rules(seats=3, starting_dice=3, challenge_penalty="difference"),
    ),
]


def play(rules: Rules, seed: int) -> tuple[list[bytes], SigningKey]:
    """The host's lines of a whole game, and the host's key: the forger is the host itself."""
    table = LocalTable(rules, [load_bot("medium")] * rules.seats, rng=random.Random(seed))
    table.seat_everyone()
    table.play()
    return list(table.host.lines()), table.host.key


def rival_result(line: bytes, replayer: Replayer, house: HouseRule) -> RoundResult:
    """What the engine posts for this result entry's round with the option set to the rival."""
    state = replayer.state
    assert state is not None and state.game is not None
    game = state.game
    assert game.phase == Phase.SHOWDOWN
    hands = parse_entry(line).event["hands"]
    rival_rules = game.rules.with_options(**{house.key: house.rival})
    after = apply(replace(game, rules=rival_rules), Reveal(hands=tuple(hands)))
    assert after.last_result is not None
    return after.last_result


def forged_rival(
    lines: list[bytes], host_key: SigningKey, house: HouseRule
) -> tuple[int, bytes, RoundResult] | None:
    """(index, forged line, honest result) of the first result the rival value decides
    otherwise, or None when every round of the game comes out alike under both values."""
    replayer = Replayer()
    for index, line in enumerate(lines):
        entry = parse_entry(line)
        event = entry.event
        if isinstance(event, dict) and event.get("type") == "result":
            honest_game = replayer.state.game  # type: ignore[union-attr]
            rival = rival_result(line, replayer, house)
            changes = {
                "count": rival.count,
                "outcome": str(rival.outcome),
                "loser": rival.loser,
                "gainer": rival.gainer,
                "dice_after": list(rival.dice_after),
                "eliminated": list(rival.eliminated),
                "next_starter": rival.next_starter,
                "palifico_next": rival.palifico_next,
            }
            if any(event[k] != v for k, v in changes.items()):
                forged = build_entry(
                    host_key,
                    entry.seq,
                    entry.prev,
                    event={**event, **changes},
                    table=replayer.state.table_id,  # type: ignore[union-attr]
                )
                honest = apply(honest_game, Reveal(hands=tuple(event["hands"]))).last_result
                assert honest is not None
                return index, forged.line, honest
        replayer.feed(entry)
    return None


def what_the_option_decided(house: HouseRule, honest: RoundResult, rival: bytes) -> None:
    """The forged round is one the option is about: say so, so a lucky round cannot pass."""
    event = parse_entry(rival).event
    if house.key == "challenge_penalty":
        lost = [b - a for b, a in zip(honest.dice_before, honest.dice_after, strict=True)]
        assert max(lost) > 1, "a difference penalty above one was played"
    elif house.key == "exact_reward":
        assert str(honest.outcome) == "exact_hit" and honest.gainer is None
        others = sum(1 for s, n in enumerate(honest.dice_before) if n and s != honest.caller)
        assert sum(honest.dice_before) - sum(honest.dice_after) == others
    else:
        assert honest.palifico_round, "the round the kind decides is a palifico round"
        assert event["count"] != honest.count, "the kind decided whether ones were wild"


@pytest.mark.parametrize("house", HOUSE_RULES, ids=lambda h: h.id)
def test_a_house_rule_game_verifies_and_a_result_under_the_other_value_fails(
    house: HouseRule,
) -> None:
    for seed in SEEDS:
        lines, host_key = play(house.rules, seed)
        report = verify_lines(lines)
        assert report.ok, (seed, report.failure)
        assert report.rules[house.key] == house.value
        found = forged_rival(lines, host_key, house)
        if found is None:
            continue
        index, forged, honest = found
        what_the_option_decided(house, honest, forged)
        bad = verify_lines([*lines[:index], forged], partial=True)
        assert bad.failure is not None, "verify accepted a result under the other value"
        assert bad.failure.index == index, bad.failure
        assert bad.failure.reason == Reason.RESULT_MISMATCH, bad.failure
        return
    pytest.fail(f"no game among seeds {SEEDS} had a round {house.id} decides")


def play_with_seat_keys(
    rules: Rules, seed: int
) -> tuple[list[bytes], SigningKey, dict[int, SigningKey]]:
    """A whole game's lines, the host's key and each seat's own key."""
    table = LocalTable(rules, [load_bot("medium")] * rules.seats, rng=random.Random(seed))
    table.seat_everyone()
    table.play()
    keys = {seat.peer.seat: seat.peer.key for seat in table.seats.values()}
    return list(table.host.lines()), table.host.key, keys


def face_changing_raise(
    lines: list[bytes], host_key: SigningKey, keys: dict[int, SigningKey]
) -> tuple[int, bytes] | None:
    """(index, line) of a palifico round's raise put on another face, in natural order, signed
    by the bidder's own key and posted by the host in the honest bid's place; None when no
    palifico round of the game has a raise that can be moved to another face."""
    replayer = Replayer()
    for index, line in enumerate(lines):
        entry = parse_entry(line)
        game = replayer.state.game if replayer.state is not None else None
        msg = entry.msg
        if (
            msg is not None
            and msg.type == "bid"
            and game is not None
            and game.palifico_round
            and game.standing_bid is not None
        ):
            prev = game.standing_bid
            if prev.face < 6:
                quantity, face = prev.quantity, prev.face + 1
            else:
                quantity, face = prev.quantity + 1, 5
            if quantity <= game.dice_in_play and game.dice[msg.body["seat"]] > 1:
                table_id = replayer.state.table_id  # type: ignore[union-attr]
                forged = sign_message(
                    keys[msg.body["seat"]],
                    kind="bid",
                    table=table_id,
                    seat=msg.body["seat"],
                    counter=msg.body["counter"],
                    head=bytes.fromhex(msg.body["head"]),
                    round=msg.body["round"],
                    quantity=quantity,
                    face=face,
                )
                posted = build_entry(host_key, entry.seq, entry.prev, msg=forged, table=table_id)
                return index, posted.line
        replayer.feed(entry)
    return None


@pytest.mark.parametrize("kind", ["both", "face-fixed", "ones-not-wild"])
def test_a_palifico_raise_on_another_face_verifies_only_where_the_kind_frees_the_face(
    kind: str,
) -> None:
    """The face a palifico round fixes is the kind's: a raise moved to another face (by a
    player holding more than one die, so palifico free could not allow it) is refused with
    FACE_FIXED under both and face-fixed, and verifies under ones-not-wild."""
    rules = Rules(**BASE, palifico="fixed", palifico_kind=kind)
    for seed in SEEDS:
        lines, host_key, keys = play_with_seat_keys(rules, seed)
        assert verify_lines(lines).ok
        found = face_changing_raise(lines, host_key, keys)
        if found is None:
            continue
        index, forged = found
        report = verify_lines([*lines[:index], forged], partial=True)
        if kind == "ones-not-wild":
            assert report.ok, report.failure
        else:
            assert report.failure is not None, "verify accepted a face change the kind fixes"
            assert report.failure.index == index, report.failure
            assert report.failure.reason == Reason.FACE_FIXED, report.failure
        return
    pytest.fail(f"no game among seeds {SEEDS} had a palifico raise by a seat of two dice")
