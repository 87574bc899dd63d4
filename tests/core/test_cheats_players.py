"""Cheating players, played through an honest host and honest peers (fairness-design.md,
"Adversarial tests the code must pass").

Each test plays a protosim game up to the moment of the cheat (by holding back what the
honest peers send), then plays the cheater's part with the seat's own key and asserts who
detects it and with which reason code:

- the host refuses the message (`Rejected`, reason X) and its log head does not move;
- an honest peer shown the same message as the next entry (as a cheating host would post
  it) raises an `Alarm` with the same reason, halts, and its chain does not advance;
- `verify --partial` of the log plus that entry fails exactly at that entry.

Afterwards the held honest messages are released and, where it matters, the game is played
to its end and verifies, so a refused cheat changed nothing.
"""

from __future__ import annotations

import json

import pytest

from p2pdice.core.codec import CodecError, decode, encode
from p2pdice.core.errors import Reason
from p2pdice.core.events import make_event
from p2pdice.core.fairness import (
    SeatContext,
    beacon,
    contrib_commitment,
    draw_starter,
    opening_matches,
    seed_commitment,
)
from p2pdice.core.host import Accepted, Rejected
from p2pdice.core.messages import Message
from p2pdice.core.peer import Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines
from tests.support.cheats import Game, kinds

SEAT0_FIRST = Rules(seats=3, starting_dice=1, first_starter="seat0")
TWO_DICE = Rules(seats=3, starting_dice=2)  #: for tests that need every seat in round 2


def flip(data: bytes, index: int = 0) -> bytes:
    """The same bytes with one bit changed."""
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]


def finishes_clean(g: Game) -> None:
    """Release everything held, play to the end: the log verifies and no honest peer alarmed."""
    g.release()
    g.play()
    assert g.phase == TablePhase.OVER
    assert verify_lines(g.host.lines()).ok
    assert g.table.stats.alarms == []
    for seat in g.table.seats.values():
        assert seat.peer.replayer.chain.hashes == g.host.chain.hashes


def at_showdown(seed: int = 3, cheater: int = 1) -> Game:
    """Everyone but `cheater` has opened; the host waits for the cheater's opening."""
    g = Game(seed=seed)
    g.hold(kinds("open", seat=cheater))
    g.start()
    assert g.phase == TablePhase.SHOWDOWN
    return g


def at_contribute(seed: int = 3, held: tuple[int, ...] = (1,)) -> Game:
    """The commitment set is posted; the contributions of `held` seats are kept back."""
    g = Game(seed=seed)
    g.hold(lambda s, m: m.type == "contribute" and s in held)
    g.start()
    assert g.phase == TablePhase.CONTRIBUTE
    return g


def at_commit(seed: int = 3, held: tuple[int, ...] = (1, 2)) -> Game:
    """An attempt is open; the commitments of `held` seats are kept back."""
    g = Game(seed=seed)
    g.hold(lambda s, m: m.type == "commit" and s in held)
    g.start()
    assert g.phase == TablePhase.COMMIT
    return g


def at_bidding(seed: int = 3, *, standing_bid: bool = False, rules: Rules | None = None) -> Game:
    """Bidding in round 1; the seat whose turn it is has its action held.

    With `standing_bid` the first bid of the round is let through, so a bid stands.
    """
    g = Game(seed=seed, rules=rules)

    def rule(seat: int, msg: Message) -> bool:
        if msg.type not in ("bid", "challenge", "exact"):
            return False
        game = g.host.state.game
        return not standing_bid or bool(game is not None and game.bids)

    g.hold(rule)
    g.start()
    assert g.phase == TablePhase.BIDDING
    return g


def turn(g: Game) -> int:
    game = g.host.state.game
    assert game is not None and game.turn is not None
    return game.turn


def sent(g: Game, kind: str, seat: int, round_: int = 1, attempt: int = 1) -> Message:
    """The one message of this kind a seat's honest peer sent for this round and attempt."""
    found = [
        m
        for _, m in g.sent
        if m.type == kind
        and m.seat == seat
        and m.body.get("round") == round_
        and m.body.get("attempt", attempt) == attempt
    ]
    assert len(found) == 1, found
    return found[0]


# ---- altered seed, salt or contribution ------------------------------------------------------


@pytest.mark.parametrize("field", ["seed", "salt"])
def test_opening_with_an_altered_secret(field: str) -> None:
    g = at_showdown()
    honest = g.take_held("open", seat=1)
    fields = {k: honest.body[k] for k in ("round", "attempt", "salt", "seed")}
    fields[field] = flip(bytes.fromhex(fields[field]), 31).hex()
    cheat = g.sign(1, "open", **fields)
    g.refused_everywhere(1, cheat, Reason.OPENING_MISMATCH)
    # The honest opening (same counter) is still welcome: the refusal changed nothing.
    g.held.append((g.conn(1), honest))
    finishes_clean(g)


def test_opening_a_different_seed_entirely() -> None:
    g = at_showdown()
    honest = g.take_held("open", seat=1)
    cheat = g.sign(
        1, "open", round=1, attempt=1, salt=honest.body["salt"], seed=bytes(range(32)).hex()
    )
    g.refused_everywhere(1, cheat, Reason.OPENING_MISMATCH)
    g.held.append((g.conn(1), honest))
    finishes_clean(g)


def test_altered_contribution() -> None:
    g = at_contribute(held=(1,))
    honest = g.take_held("contribute", seat=1)
    fields = {k: honest.body[k] for k in ("round", "attempt", "commit_set", "contribution")}
    fields["contribution"] = flip(bytes.fromhex(fields["contribution"]), 0).hex()
    cheat = g.sign(1, "contribute", **fields)
    g.refused_by_host(1, cheat, Reason.OPENING_MISMATCH)
    # Posted inside a beacon by a cheating host, peers and verify catch it.
    others = [sent(g, "contribute", s) for s in (0, 2)]
    msgs = [others[0], cheat, others[1]]
    ts = [bytes.fromhex(m.body["contribution"]) for m in msgs]
    attempt = g.host.state.attempt
    r = beacon(g.host.table_id, 1, 1, attempt.commit_set, ts)
    event = make_event(
        "beacon",
        round=1,
        attempt=1,
        contributions=[m.to_json() for m in msgs],
        beacon=r,
        starter=draw_starter(r, table_id=g.host.table_id, seats=attempt.seats),
    )
    line = g.forge(event=event).line
    g.refused_by_peer(line, Reason.OPENING_MISMATCH)
    g.refused_by_verify(line, Reason.OPENING_MISMATCH)
    g.held.append((g.conn(1), honest))
    finishes_clean(g)


def test_contribution_naming_another_commitment_set() -> None:
    g = at_contribute(held=(1,))
    honest = g.take_held("contribute", seat=1)
    fields = {k: honest.body[k] for k in ("round", "attempt", "commit_set", "contribution")}
    fields["commit_set"] = flip(bytes.fromhex(fields["commit_set"])).hex()
    g.refused_by_host(1, g.sign(1, "contribute", **fields), Reason.WRONG_COMMIT_SET)
    g.held.append((g.conn(1), honest))
    finishes_clean(g)


# ---- copied commitment or opening ------------------------------------------------------------


@pytest.mark.parametrize("copied", ["both", "seed_commit", "contrib_commit"])
def test_copied_commitment(copied: str) -> None:
    g = at_commit(held=(1, 2))
    victim = sent(g, "commit", 0)  # buffered by the host
    own = g.take_held("commit", seat=1)
    fields = {k: own.body[k] for k in ("round", "attempt", "seed_commit", "contrib_commit")}
    for name in ("seed_commit", "contrib_commit"):
        if copied in ("both", name):
            fields[name] = victim.body[name]
    cheat = g.sign(1, "commit", **fields)
    g.refused_by_host(1, cheat, Reason.DUPLICATE_COMMITMENT)
    # A host that lets the copy into the commitment set is caught by every peer.
    event = make_event(
        "commit_set",
        round=1,
        attempt=1,
        commits=[victim.to_json(), cheat.to_json(), g.take_held("commit", seat=2).to_json()],
    )
    line = g.forge(event=event).line
    g.refused_by_peer(line, Reason.DUPLICATE_COMMITMENT)
    g.refused_by_verify(line, Reason.DUPLICATE_COMMITMENT)
    g.held += [(g.conn(1), own), (g.conn(2), sent(g, "commit", 2))]
    finishes_clean(g)


def test_one_value_for_both_commitments() -> None:
    g = at_commit(held=(1, 2))
    own = g.take_held("commit", seat=1)
    cheat = g.sign(
        1,
        "commit",
        round=1,
        attempt=1,
        seed_commit=own.body["seed_commit"],
        contrib_commit=own.body["seed_commit"],
    )
    g.refused_by_host(1, cheat, Reason.DUPLICATE_COMMITMENT)
    g.held.append((g.conn(1), own))
    finishes_clean(g)


def test_copied_opening() -> None:
    g = at_showdown(cheater=1)
    copied = sent(g, "open", 0)  # posted already: everybody has seen seat 0's salt and seed
    cheat = g.sign(
        1, "open", round=1, attempt=1, salt=copied.body["salt"], seed=copied.body["seed"]
    )
    g.refused_everywhere(1, cheat, Reason.OPENING_MISMATCH)
    finishes_clean(g)


def test_copied_commitment_cannot_be_opened_by_the_copier() -> None:
    """SPEC 5.2: the context differs, so the copier cannot open someone else's commitment."""
    table = bytes(32)
    salt, seed = b"s" * 32, b"e" * 32
    ctx = {"table_id": table, "round": 1, "attempt": 1, "key": b"k" * 32, "dice": 5}
    original = seed_commitment(SeatContext(seat=0, **ctx), salt=salt, seed=seed)
    for other in (
        SeatContext(seat=1, **ctx),
        SeatContext(seat=0, **{**ctx, "round": 2}),
        SeatContext(seat=0, **{**ctx, "attempt": 2}),
        SeatContext(seat=0, **{**ctx, "table_id": b"\x01" * 32}),
        SeatContext(seat=0, **{**ctx, "key": b"K" * 32}),
        SeatContext(seat=0, **{**ctx, "dice": 4}),
    ):
        assert not opening_matches(other, original, salt=salt, seed=seed)
    assert opening_matches(SeatContext(seat=0, **ctx), original, salt=salt, seed=seed)


# ---- replayed messages -----------------------------------------------------------------------


def test_replay_with_an_old_counter() -> None:
    g = at_bidding()
    seat = turn(g)
    honest = g.take_held("bid", seat=seat)
    last = g.host.state.counters[g.key(seat).public]
    fields = {"round": 1, "quantity": honest.body["quantity"], "face": honest.body["face"]}
    for counter in (last, 0):
        g.refused_everywhere(seat, g.sign(seat, "bid", counter=counter, **fields), Reason.REPLAY)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_replay_of_a_posted_message_is_not_posted_twice() -> None:
    g = at_bidding(standing_bid=True)
    first = next(e for e in g.host.entries if e.kind == "msg:bid")
    size, head = len(g.host.entries), g.host.head
    outputs = g.host.receive(g.conn(first.msg.seat), first.msg.to_json(), g.table.now)
    assert outputs == [Accepted(g.conn(first.msg.seat), first.msg.digest().hex(), first.seq)]
    assert (len(g.host.entries), g.host.head) == (size, head)
    finishes_clean(g)


def test_replay_of_an_old_commitment_in_a_later_round() -> None:
    g = Game(seed=3, rules=TWO_DICE)
    g.hold(lambda s, m: m.type == "commit" and m.body["round"] == 2)
    g.start()
    assert g.phase == TablePhase.COMMIT and g.host.state.game.round == 2
    old = sent(g, "commit", 1, round_=1)
    outputs = g.host.receive(g.conn(1), old.to_json(), g.table.now)
    assert [type(o) for o in outputs] == [Accepted] and outputs[0].seq is not None
    # A host that put the old commitment in the new set is caught by every peer.
    new = [g.take_held("commit", seat=s) for s in (0, 2)]
    event = make_event(
        "commit_set",
        round=2,
        attempt=1,
        commits=[new[0].to_json(), old.to_json(), new[1].to_json()],
    )
    line = g.forge(event=event).line
    g.refused_by_peer(line, Reason.WRONG_ROUND)
    g.refused_by_verify(line, Reason.WRONG_ROUND)
    g.held += [(g.conn(0), new[0]), (g.conn(2), new[1])]
    finishes_clean(g)


def test_replay_naming_an_old_round() -> None:
    g = Game(seed=3, rules=TWO_DICE)
    g.hold(lambda s, m: m.type in ("bid", "challenge", "exact") and m.body["round"] == 2)
    g.start()
    assert g.phase == TablePhase.BIDDING and g.host.state.game.round == 2
    seat = turn(g)
    honest = g.take_held("bid", seat=seat)
    fields = {"quantity": honest.body["quantity"], "face": honest.body["face"]}
    g.refused_everywhere(seat, g.sign(seat, "bid", round=1, **fields), Reason.WRONG_ROUND)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_replay_of_a_commitment_from_an_aborted_attempt() -> None:
    g = Game(seed=3)
    g.hold(lambda s, m: m.type == "commit" and s == 2, acknowledged=True)
    g.start()
    g.tick_to_deadline()  # COMMIT_WAIT passes: attempt 1 is aborted, attempt 2 opens
    assert [e.event["missing"] for e in g.entries_of("event:abort")] == [[2]]
    assert g.host.state.attempt.attempt == 2 and g.phase == TablePhase.COMMIT
    # Seat 2's client raised the alarm: the host acknowledged its commitment, never posted it.
    assert [a.reason for a in g.alarms(2)] == [Reason.MESSAGE_DROPPED]
    assert not g.peer(2).halted
    stale = g.take_held("commit", seat=2, attempt=1)
    g.refused_by_host(2, stale, Reason.WRONG_ROUND)
    event = make_event(
        "commit_set",
        round=1,
        attempt=2,
        commits=[
            sent(g, "commit", 0, attempt=2).to_json(),
            sent(g, "commit", 1, attempt=2).to_json(),
            stale.to_json(),
        ],
    )
    line = g.forge(event=event).line
    g.refused_by_peer(line, Reason.WRONG_ROUND)
    g.refused_by_verify(line, Reason.WRONG_ROUND)
    # Seat 2's fresh commitment completes attempt 2 (playing on after an abort is covered,
    # with its own bug, in test_cheats_host.py).
    g.release()
    first_sets = [e.event for e in g.entries_of("event:commit_set") if e.event["round"] == 1]
    assert [e["attempt"] for e in first_sets] == [2]
    report = verify_lines(g.host.lines(), partial=True)
    assert report.ok and report.host_acts["abort"] == 1


def test_replay_from_another_table() -> None:
    """Same keys at two tables (same seed), different table ids: a message cannot move."""
    a = Game(seed=5, name="table A", rules=SEAT0_FIRST)
    b = Game(seed=5, name="table B", rules=SEAT0_FIRST)
    for g in (a, b):
        g.hold(kinds("bid", "challenge", "exact"))
        g.start()
    assert a.key(0).public == b.key(0).public and a.host.table_id != b.host.table_id
    moved = a.take_held("bid", seat=0)
    b.refused_everywhere(0, moved, Reason.WRONG_TABLE)
    finishes_clean(b)


# ---- forged signatures, wrong keys, non-canonical encodings ----------------------------------


def test_forged_signature() -> None:
    g = at_bidding()
    seat = turn(g)
    honest = g.take_held("bid", seat=seat)
    forged = Message(body=honest.body, sig=flip(honest.sig, 5))
    g.refused_everywhere(seat, forged, Reason.BAD_SIGNATURE)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_signed_by_another_seats_key() -> None:
    g = at_bidding()
    seat = turn(g)
    other = (seat + 1) % 3
    honest = g.take_held("bid", seat=seat)
    fields = {k: honest.body[k] for k in ("round", "quantity", "face")}
    g.refused_everywhere(
        seat, g.sign(seat, "bid", signer=g.key(other), **fields), Reason.BAD_SIGNATURE
    )
    stranger = SigningKey(b"\x07" * 32)
    g.refused_everywhere(seat, g.sign(seat, "bid", signer=stranger, **fields), Reason.BAD_SIGNATURE)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_message_for_another_seat_on_ones_own_connection() -> None:
    g = at_bidding()
    seat = turn(g)
    other = (seat + 1) % 3
    honest = g.take_held("bid", seat=seat)
    fields = {k: honest.body[k] for k in ("round", "quantity", "face")}
    cheat = g.sign(seat, "bid", signer=g.key(other), **fields)
    g.refused_by_host(other, cheat, Reason.WRONG_KEY, conn=g.conn(other))
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_message_from_a_connection_that_holds_no_seat() -> None:
    g = at_bidding()
    seat = turn(g)
    spectator = g.table.add_spectator()
    honest = g.take_held("bid", seat=seat)
    g.refused_by_host(seat, honest, Reason.NOT_SEATED, conn=spectator)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


def test_non_canonical_re_encoding_of_a_message() -> None:
    g = at_bidding()
    seat = turn(g)
    honest = g.take_held("bid", seat=seat)
    canonical = encode(honest.to_json())
    assert decode(canonical) == honest.to_json()
    variants = [
        json.dumps(honest.to_json()).encode(),  # spaces after separators
        json.dumps(honest.to_json(), sort_keys=True, indent=1).encode(),
        canonical.replace(b'"type":"bid"', b'"type":"\\u0062id"'),
        canonical.replace(b'{"body":', b'{"body" :'),
    ]
    for data in variants:
        with pytest.raises(CodecError) as err:
            decode(data)
        assert err.value.reason == Reason.JSON_NOT_CANONICAL
    # Hex is lowercase only: an upper-case spelling of the same signature is refused.
    upper = {"body": honest.body, "sig": honest.sig.hex().upper()}
    g.refused_by_host(seat, upper, Reason.SCHEMA)
    g.held.append((g.conn(seat), honest))
    finishes_clean(g)


# ---- out of turn, out of phase, a bid that does not raise ------------------------------------


def test_bid_out_of_turn() -> None:
    g = at_bidding()
    seat = turn(g)
    other = (seat + 1) % 3
    g.refused_everywhere(
        other, g.sign(other, "bid", round=1, quantity=1, face=6), Reason.NOT_YOUR_TURN
    )
    finishes_clean(g)


def test_challenge_out_of_turn() -> None:
    g = at_bidding(standing_bid=True)
    seat = turn(g)
    other = next(s for s in (0, 1, 2) if s != seat)
    g.refused_everywhere(other, g.sign(other, "challenge", round=1), Reason.NOT_YOUR_TURN)
    finishes_clean(g)


@pytest.mark.parametrize(
    "phase, kind, fields",
    [
        ("commit", "bid", {"round": 1, "quantity": 1, "face": 6}),
        ("commit", "open", {"round": 1, "attempt": 1, "salt": "00" * 32, "seed": "00" * 32}),
        ("commit", "ack", {"round": 1, "result": "00" * 32}),
        ("bidding", "open", {"round": 1, "attempt": 1, "salt": "00" * 32, "seed": "00" * 32}),
        ("bidding", "next_round", {"round": 1}),
        ("bidding", "ack", {"round": 1, "result": "00" * 32}),
        (
            "bidding",
            "commit",
            {"round": 1, "attempt": 1, "seed_commit": "11" * 32, "contrib_commit": "22" * 32},
        ),
        ("showdown", "bid", {"round": 1, "quantity": 5, "face": 6}),
        ("showdown", "challenge", {"round": 1}),
        (
            "showdown",
            "contribute",
            {"round": 1, "attempt": 1, "commit_set": "00" * 32, "contribution": "00" * 32},
        ),
    ],
)
def test_action_out_of_phase(phase: str, kind: str, fields: dict) -> None:
    g = {"commit": at_commit, "bidding": at_bidding, "showdown": at_showdown}[phase]()
    seat = 1
    if phase == "bidding":
        seat = turn(g)
    cheat = g.sign(seat, kind, **fields)
    g.refused_everywhere(seat, cheat, Reason.WRONG_PHASE)
    finishes_clean(g)


def test_contribution_before_the_commitment_set() -> None:
    g = at_commit(held=(1, 2))
    assert g.peer(0).secrets  # seat 0 has its secrets and its commitment is buffered
    t = g.peer(0).secrets[(1, 1)].contribution
    cheat = g.sign(0, "contribute", round=1, attempt=1, commit_set="00" * 32, contribution=t)
    g.refused_everywhere(0, cheat, Reason.WRONG_PHASE)
    finishes_clean(g)


def test_join_after_the_game_started() -> None:
    g = at_bidding()
    seat = turn(g)
    cheat = g.sign(
        seat,
        "join",
        counter=0,
        key=g.key(seat).public.hex(),
        name="again",
        cpu=False,
        host_run=False,
        host=g.host.key.public.hex(),
        nonce="00" * 16,
    )
    g.refused_everywhere(seat, cheat, Reason.WRONG_PHASE)
    finishes_clean(g)


@pytest.mark.parametrize("how", ["same", "lower_quantity", "lower_face"])
def test_bid_that_does_not_raise(how: str) -> None:
    g = at_bidding(standing_bid=True, rules=Rules(seats=3, starting_dice=3, ones="natural"))
    seat = turn(g)
    standing = g.host.state.game.standing_bid
    quantity, face = standing.quantity, standing.face
    if how == "lower_quantity":
        if quantity == 1:
            pytest.skip("the standing bid has quantity 1")
        quantity -= 1
    elif how == "lower_face":
        if face == 1:
            quantity, face = quantity - 1, 6
            if quantity == 0:
                pytest.skip("no lower bid")
        else:
            face -= 1
    cheat = g.sign(seat, "bid", round=1, quantity=quantity, face=face)
    g.refused_everywhere(seat, cheat, Reason.BID_NOT_HIGHER)
    finishes_clean(g)


# ---- second commitments, contributions, openings ---------------------------------------------


def test_second_commitment_from_one_seat() -> None:
    g = at_commit(held=(2,))
    first = sent(g, "commit", 1)  # buffered
    second = g.sign(
        1, "commit", round=1, attempt=1, seed_commit="ab" * 32, contrib_commit="cd" * 32
    )
    g.refused_by_host(1, second, Reason.DUPLICATE)
    # A host that shows both commitments of seat 1 in the set is caught.
    held = g.take_held("commit", seat=2)
    commits = [sent(g, "commit", 0), first, second, held]
    event = make_event("commit_set", round=1, attempt=1, commits=[m.to_json() for m in commits])
    line = g.forge(event=event).line
    g.refused_by_peer(line, Reason.COMMIT_SET_MISMATCH)
    g.refused_by_verify(line, Reason.COMMIT_SET_MISMATCH)
    g.held.append((g.conn(2), held))
    finishes_clean(g)


def test_second_contribution_from_one_seat() -> None:
    g = at_contribute(held=(2,))
    first = sent(g, "contribute", 1)  # buffered
    fields = {k: first.body[k] for k in ("round", "attempt", "commit_set", "contribution")}
    g.refused_by_host(1, g.sign(1, "contribute", **fields), Reason.DUPLICATE)
    finishes_clean(g)


def test_second_opening_from_one_seat() -> None:
    g = at_showdown(cheater=1)
    first = sent(g, "open", 0)  # posted
    fields = {k: first.body[k] for k in ("round", "attempt", "salt", "seed")}
    g.refused_everywhere(0, g.sign(0, "open", **fields), Reason.DUPLICATE)
    finishes_clean(g)


# ---- a commitment reused from an earlier round -----------------------------------------------


def _round_two_with_a_reused_commitment() -> tuple[Game, Message, Message]:
    """Round 2 waits for seat 1's commitment (its honest one is held); seats 0 and 2 have
    committed. Returns the game, seat 1's round-1 commit, and its two values re-signed by
    seat 1 as a round-2 commit."""
    g = Game(seed=3, rules=TWO_DICE)
    g.hold(lambda s, m: s == 1 and m.type == "commit" and m.body["round"] == 2)
    g.start()
    assert g.phase == TablePhase.COMMIT and g.host.state.game.round == 2
    old = sent(g, "commit", 1, round_=1)
    reused = g.sign(
        1,
        "commit",
        round=2,
        attempt=1,
        seed_commit=old.body["seed_commit"],
        contrib_commit=old.body["contrib_commit"],
    )
    return g, old, reused


def test_commitment_reused_from_an_earlier_round_cannot_be_opened() -> None:
    """Seat 1 re-sends its round-1 commitments in round 2. The host refuses them: both values
    were used at this table before (DUPLICATE_COMMITMENT). Nor could the seat have opened
    them: they bind round 1's context, so its round-1 salt, seed and contribution do not
    answer them in round 2. Its honest round-2 commitment is still welcome afterwards."""
    g, old, reused = _round_two_with_a_reused_commitment()
    g.refused_by_host(1, reused, Reason.DUPLICATE_COMMITMENT)
    secrets = g.peer(1).secrets[(1, 1)]
    ctx = g.host.state.attempt.context(g.host.table_id, 1, g.key(1).public)
    assert ctx.round == 2
    assert seed_commitment(ctx, salt=secrets.salt, seed=secrets.seed) != bytes.fromhex(
        old.body["seed_commit"]
    )
    assert contrib_commitment(ctx, contribution=secrets.contribution) != bytes.fromhex(
        old.body["contrib_commit"]
    )
    finishes_clean(g)
    # Its honest round-2 commitment was taken: seat 1 is in round 2's set, nobody forfeited.
    (round_two,) = (e for e in g.entries_of("event:commit_set") if e.event["round"] == 2)
    assert 1 in [commit["body"]["seat"] for commit in round_two.event["commits"]]
    assert not g.entries_of("event:forfeit")


def test_a_commitment_set_holding_a_commitment_from_an_earlier_round_is_refused() -> None:
    """A colluding host posts seat 1's round-1 values, re-signed by seat 1 for round 2, in the
    round-2 commitment set: every peer and verify refuse the set (SPEC.md 7: no commitment
    value already posted earlier at this table, DUPLICATE_COMMITMENT)."""
    g, _, reused = _round_two_with_a_reused_commitment()
    commits = [sent(g, "commit", 0, round_=2), reused, sent(g, "commit", 2, round_=2)]
    event = make_event("commit_set", round=2, attempt=1, commits=[m.to_json() for m in commits])
    line = g.forge(event=event).line
    alarm = g.refused_by_peer(line, Reason.DUPLICATE_COMMITMENT)
    assert "already used" in alarm.detail
    g.refused_by_verify(line, Reason.DUPLICATE_COMMITMENT)
    finishes_clean(g)


# ---- a signed join relayed to another table or connection ------------------------------------


def _lobby(name: str) -> Game:
    return Game(seed=9, name=name, rules=Rules(seats=2, starting_dice=1))


def test_signed_join_relayed_to_another_table() -> None:
    a, b = _lobby("table A"), _lobby("table B")
    assert a.host.key.public == b.host.key.public  # same host key, same nonces: only the id differs
    player = Peer(key=SigningKey(b"\x42" * 32))
    player.receive_line(a.host.lines()[0])
    nonce = b"\x01" * 16
    join = player.make_join(a.host.challenge(50, nonce), name="Ann")
    # Table B offers the very same nonce: the join still names table A.
    b.host.challenge(50, nonce)
    [out] = b.host.join(50, join.to_json(), None, 0.0)
    assert isinstance(out, Rejected) and out.reason == Reason.BAD_CHALLENGE
    assert len(b.host.entries) == 1
    # Relayed to another connection of table A (another nonce): refused as well.
    a.host.challenge(51, b"\x02" * 16)
    [out] = a.host.join(51, join.to_json(), None, 0.0)
    assert isinstance(out, Rejected) and out.reason == Reason.BAD_CHALLENGE
    assert len(a.host.entries) == 1
    # On the connection it answers, it is taken.
    outputs = a.host.join(50, join.to_json(), None, 0.0)
    assert not [o for o in outputs if isinstance(o, Rejected)] and len(a.host.entries) == 2
    # A host that posts the relayed join in table B's log is caught by peers and verify.
    line = b.forge(msg=join).line
    b.refused_by_peer(line, Reason.WRONG_TABLE)
    b.refused_by_verify(line, Reason.WRONG_TABLE)


def test_join_answering_another_host() -> None:
    g = _lobby("table A")
    player = Peer(key=SigningKey(b"\x43" * 32))
    player.receive_line(g.host.lines()[0])
    challenge = g.host.challenge(60, b"\x03" * 16)
    challenge = {**challenge, "host": ("ee" * 32)}
    join = player.make_join(challenge, name="Bob")
    line = g.forge(msg=join).line
    g.refused_by_peer(line, Reason.BAD_CHALLENGE)
    g.refused_by_verify(line, Reason.BAD_CHALLENGE)


# ---- a client killed after committing must open after a restart ------------------------------


def _crash_and_restart(g: Game, seat: int, *, persist_counter: bool) -> Peer:
    """Kill seat's client (what it was about to send is lost), restart it from its stored log
    and its persisted secrets, and reconnect it."""
    conn = g.conn(seat)
    old = g.peer(seat)
    g.held = [(c, m) for c, m in g.held if c != conn]  # never left the dying process
    g.table.disconnect(conn)
    new = Peer(key=old.key, seat=old.seat)
    stored = g.host.lines()[: len(old.replayer.chain)]
    assert new.restore(stored) == []
    new.secrets = dict(old.secrets)
    if persist_counter:
        new.counter = old.counter
    g.table.seats[conn].peer = new
    new.resume()  # queues what the seat owes; the reconnect resends it
    g.stop_holding()
    g.table.reconnect(conn)
    g.run()
    return new


@pytest.mark.parametrize("stage", ["contribute", "open"])
def test_client_killed_after_committing_opens_after_restart(stage: str) -> None:
    g = Game(seed=3)
    g.hold(kinds(stage, seat=0))
    g.start()
    assert g.phase == (TablePhase.CONTRIBUTE if stage == "contribute" else TablePhase.SHOWDOWN)
    _crash_and_restart(g, 0, persist_counter=False)
    assert g.table.stats.rejected == []
    _after_restart(g)


@pytest.mark.parametrize("stage", ["contribute", "open"])
def test_client_killed_after_committing_opens_after_restart_with_saved_counter(stage: str) -> None:
    """The same, when the client also persisted its message counter."""
    g = Game(seed=3)
    g.hold(kinds(stage, seat=0))
    g.start()
    _crash_and_restart(g, 0, persist_counter=True)
    assert g.table.stats.rejected == []
    _after_restart(g)


def _after_restart(g: Game) -> None:
    # The restarted seat contributed and opened round 1 with the secrets it committed to.
    peer = g.peer(0)
    secrets = peer.secrets[(1, 1)]
    beacon_entry = g.entries_of("event:beacon")[0]
    mine = [c for c in beacon_entry.event["contributions"] if c["body"]["seat"] == 0]
    assert mine[0]["body"]["contribution"] == secrets.contribution.hex()
    opening = next(e for e in g.host.entries if e.kind == "msg:open" and e.msg.seat == 0)
    assert opening.msg.body["seed"] == secrets.seed.hex()
    g.play()
    assert verify_lines(g.host.lines()).ok
    assert g.table.stats.alarms == []
    assert not [e for e in g.host.entries if e.kind in ("event:abort", "event:forfeit")]
    for seat in g.table.seats.values():
        assert seat.peer.replayer.chain.hashes == g.host.chain.hashes


# ---- a joiner with a small-order key ---------------------------------------------------------

IDENTITY_POINT = (1).to_bytes(32, "little")


def _identity_key_join(g: Game, conn: int) -> dict:
    """A join signed 'by' the identity point: R = identity, S = 0 verifies for any message
    under the cofactorless equation, so anyone could sign for a seat holding this key."""
    challenge = g.host.challenge(conn, b"\x07" * 16)
    body = {
        "type": "join",
        "table": g.host.table_id.hex(),
        "seat": challenge["seat"],
        "counter": 0,
        "head": g.host.head.hex(),
        "key": IDENTITY_POINT.hex(),
        "name": "Mallory",
        "cpu": False,
        "host_run": False,
        "host": challenge["host"],
        "nonce": challenge["nonce"],
    }
    return {"body": body, "sig": (IDENTITY_POINT + bytes(32)).hex()}


def test_join_with_a_small_order_key_is_refused_everywhere() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from p2pdice.core.messages import parse_message
    from p2pdice.core.signing import signed_bytes

    g = _lobby("table A")
    raw = _identity_key_join(g, 70)
    msg = parse_message(raw)
    # OpenSSL on its own takes this signature (the attack is real) ...
    Ed25519PublicKey.from_public_bytes(IDENTITY_POINT).verify(
        bytes.fromhex(raw["sig"]), signed_bytes("p2pdice/v1/sig/message", raw["body"])
    )
    # ... the host, every peer and verify refuse it.
    [out] = g.host.join(70, raw, None, 0.0)
    assert isinstance(out, Rejected) and out.reason == Reason.BAD_SIGNATURE
    assert len(g.host.entries) == 1
    line = g.forge(msg=msg).line
    g.refused_by_peer(line, Reason.BAD_SIGNATURE)
    g.refused_by_verify(line, Reason.BAD_SIGNATURE)


def test_auth_by_a_small_order_key_is_refused() -> None:
    g = _lobby("table A")
    challenge = g.host.challenge(71, b"\x08" * 16)
    body = {
        "type": "auth",
        "table": g.host.table_id.hex(),
        "host": challenge["host"],
        "key": IDENTITY_POINT.hex(),
        "nonce": challenge["nonce"],
    }
    [out] = g.host.authenticate(71, {"body": body, "sig": (IDENTITY_POINT + bytes(32)).hex()}, 0.0)
    assert isinstance(out, Rejected) and out.reason == Reason.BAD_SIGNATURE
