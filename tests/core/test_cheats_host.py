"""A cheating host, played against honest peers (fairness-design.md, "Adversarial tests").

The honest host runs the table; the test plays the cheating host by signing entries with the
host's own key (`Game.forge`) and showing them to one peer, either instead of the honest
entry (`Game.tamper`, through the harness's `on_deliver`) or as the next entry. For each
cheat the test asserts who detects it (the victim peer, any peer, `verify`) and with which
reason code, and that the victim's chain did not take the bad entry.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pdice.core.errors import Reason
from p2pdice.core.events import Absent, make_event
from p2pdice.core.fairness import beacon, draw_starter
from p2pdice.core.game import PlaceBid, blind_action, check
from p2pdice.core.host import Rejected
from p2pdice.core.messages import Message
from p2pdice.core.peer import Alarm
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase, expected_forfeit, expected_result, result_decided
from p2pdice.core.transcript import Entry, build_entry, is_equivocation
from p2pdice.core.verify import verify_lines
from tests.support.cheats import DROP, Game, kinds

VICTIM = 0
TIMER = Rules(seats=3, starting_dice=2, turn_timer=30)


def flip(data: bytes, index: int = 0) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]


def first(kind: str) -> Callable[[Entry], bool]:
    """A tamper rule matching the first honest entry of this kind."""
    seen: list[int] = []

    def match(entry: Entry) -> bool:
        if entry.kind == kind and not seen:
            seen.append(entry.seq)
            return True
        return False

    return match


def replace_first(g: Game, kind: str, make) -> list[Entry]:
    """Show the victim `make(honest)` instead of the first honest entry of `kind`."""
    match = first(kind)
    return g.tamper(VICTIM, lambda e: make(e) if match(e) else None)


def victim_caught(g: Game, honest: Entry, reason: Reason) -> Alarm:
    """The victim raised `reason` at the forged entry's seq, halted, and holds the honest
    chain up to just before it; every other peer followed the honest log untroubled."""
    peer = g.peer(VICTIM)
    assert [(a.reason, a.seq) for a in peer.alarms] == [(reason, honest.seq)], peer.alarms
    assert peer.halted
    assert peer.replayer.chain.hashes == g.host.chain.hashes[: honest.seq]
    for seat, s in g.table.seats.items():
        if s.peer.seat != VICTIM:
            others = [a for a in s.peer.alarms if a.reason != Reason.MESSAGE_DROPPED]
            assert others == [], (seat, others)
    return peer.alarms[0]


def also_refused_by_verify(g: Game, forged: Entry, reason: Reason) -> None:
    g.refused_by_verify(forged.line, reason, prefix=g.host.lines()[: forged.seq])


def replaced_first_is_caught(g: Game, kind: str, make, reason: Reason) -> None:
    """Play `g`, showing the victim `make(honest)` instead of the first honest entry of `kind`:
    the victim alone catches it with `reason`, and `verify` refuses the forged entry with it."""
    replaced = replace_first(g, kind, make)
    g.start()
    victim_caught(g, replaced[0], reason)
    also_refused_by_verify(g, make(replaced[0]), reason)


def held_game(rule, *, seed: int = 3, rules: Rules | None = None) -> Game:
    g = Game(seed=seed, rules=rules)
    g.hold(rule)
    g.start()
    return g


def beacon_event(g: Game, msgs: list[Message], **changes) -> dict:
    """A beacon over these contribute messages, with R and starter computed honestly."""
    attempt = g.host.state.attempt
    ts = [bytes.fromhex(m.body["contribution"]) for m in msgs]
    r = beacon(g.host.table_id, attempt.round, attempt.attempt, attempt.commit_set, ts)
    starter = attempt.starter
    if starter is None:
        starter = draw_starter(r, table_id=g.host.table_id, seats=attempt.seats)
    fields = {
        "round": attempt.round,
        "attempt": attempt.attempt,
        "contributions": [m.to_json() for m in msgs],
        "beacon": r,
        "starter": starter,
        **changes,
    }
    return make_event("beacon", **fields)


def sent(g: Game, kind: str, seat: int, **body) -> Message:
    found = [
        m
        for _, m in g.sent
        if m.type == kind and m.seat == seat and all(m.body.get(k) == v for k, v in body.items())
    ]
    assert len(found) == 1, found
    return found[0]


# ---- forwarding contributions early ----------------------------------------------------------


def test_contribution_forwarded_before_all_arrived() -> None:
    """Posting one contribution as its own entry would let the others see it before they
    send theirs: no transition allows it."""
    g = held_game(kinds("contribute", seat=2))
    assert g.phase == TablePhase.CONTRIBUTE
    early = g.forge(msg=sent(g, "contribute", 1))
    g.refused_by_peer(early.line, Reason.WRONG_PHASE, peer=g.peer(VICTIM))
    g.refused_by_verify(early.line, Reason.WRONG_PHASE)


def test_beacon_with_contributions_missing() -> None:
    """A beacon over a part of the contributions (the rest still to come) is refused."""
    g = held_game(kinds("contribute", seat=2))
    partial = g.forge(event=beacon_event(g, [sent(g, "contribute", 0), sent(g, "contribute", 1)]))
    g.refused_by_peer(partial.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    g.refused_by_verify(partial.line, Reason.BAD_EVENT)


def test_beacon_replacing_a_contribution_after_seeing_the_others() -> None:
    """A host colluding with seat 2 shows it the other contributions, and seat 2 signs a new
    one: it does not match seat 2's commitment. Altering it without seat 2's key breaks the
    signature instead."""
    g = held_game(kinds("contribute", seat=2))
    honest = g.take_held("contribute", seat=2)
    body = {k: honest.body[k] for k in ("round", "attempt", "commit_set")}
    resigned = g.sign(2, "contribute", contribution="5a" * 32, **body)
    unsigned = Message(body={**honest.body, "contribution": "5a" * 32}, sig=honest.sig)
    others = [sent(g, "contribute", 0), sent(g, "contribute", 1)]
    for cheat, reason in ((resigned, Reason.OPENING_MISMATCH), (unsigned, Reason.BAD_SIGNATURE)):
        line = g.forge(event=beacon_event(g, [*others, cheat])).line
        g.refused_by_peer(line, reason)
        g.refused_by_verify(line, reason)


@pytest.mark.parametrize("field", ["beacon", "starter"])
def test_beacon_with_wrong_randomness(field: str) -> None:
    def make(honest: Entry) -> Entry:
        value = honest.event[field]
        wrong = flip(bytes.fromhex(value)).hex() if field == "beacon" else (value + 1) % 3
        return g.forge_like(honest, **{field: wrong})

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:beacon", make, Reason.BEACON_MISMATCH)


# ---- restarting a round after seeing contributions -------------------------------------------


def _restart_event(g: Game, kind: str) -> dict:
    state = g.host.state
    attempt, game = state.attempt, state.game
    if kind == "abort":
        return make_event(
            "abort",
            round=attempt.round,
            attempt=attempt.attempt,
            missing=[2],
            reason="commit_timeout",
        )
    if kind == "round":
        return make_event(
            "round",
            round=attempt.round,
            attempt=attempt.attempt + 1,
            seats=list(attempt.seats),
            dice=list(game.dice),
            starter=attempt.starter,
            palifico=attempt.palifico,
        )
    commit_set = g.entries_of("event:commit_set")[-1].event
    return make_event(
        "commit_set", round=attempt.round, attempt=attempt.attempt, commits=commit_set["commits"]
    )


@pytest.mark.parametrize("kind", ["abort", "round", "commit_set"])
@pytest.mark.parametrize("phase", ["contribute", "bidding", "showdown"])
def test_restart_after_the_commitment_set(phase: str, kind: str) -> None:
    rule = {
        "contribute": kinds("contribute", seat=2),
        "bidding": kinds("bid", "challenge", "exact"),
        "showdown": kinds("open", seat=2),
    }[phase]
    g = held_game(rule)
    assert g.phase == phase
    forged = g.forge(event=_restart_event(g, kind))
    g.refused_by_peer(forged.line, Reason.FRESH_RANDOMNESS, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.FRESH_RANDOMNESS)


def test_abort_instead_of_the_beacon() -> None:
    """The host holds every contribution and, instead of posting them, aborts the attempt to
    draw again: the victim refuses; the others, shown the honest beacon, play on."""

    def make(honest: Entry) -> Entry:
        return g.forge(
            event=make_event("abort", round=1, attempt=1, missing=[1], reason="commit_timeout"),
            seq=honest.seq,
            prev=honest.prev,
        )

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:beacon", make, Reason.FRESH_RANDOMNESS)


def test_forfeit_without_an_absent_seat() -> None:
    """A no_contribution forfeit (the replay of a round) needs the seat declared absent."""
    g = held_game(kinds("contribute", seat=2))
    game = g.host.state.game
    forged = g.forge(
        event=make_event(
            "forfeit",
            round=1,
            attempt=1,
            seats=[2],
            reason="no_contribution",
            dice_after=list(game.dice),
            next_starter=None,
        )
    )
    g.refused_by_peer(forged.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.BAD_EVENT)


def test_new_round_while_the_result_waits_for_acknowledgements() -> None:
    g = held_game(kinds("next_round"))
    assert g.phase == TablePhase.RESULT
    attempt, game = g.host.state.attempt, g.host.state.game
    forged = g.forge(
        event=make_event(
            "round",
            round=attempt.round,
            attempt=attempt.attempt + 1,
            seats=list(attempt.seats),
            dice=list(attempt.dice),
            starter=attempt.starter,
            palifico=attempt.palifico,
        )
    )
    assert game.round == attempt.round
    g.refused_by_peer(forged.line, Reason.WRONG_PHASE, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.WRONG_PHASE)


# ---- omitting, adding or altering seats of the commitment set --------------------------------


@pytest.mark.parametrize("omitted", [1, VICTIM])
def test_commitment_set_omitting_a_seat(omitted: int) -> None:
    def make(honest: Entry) -> Entry:
        commits = [c for c in honest.event["commits"] if c["body"]["seat"] != omitted]
        return g.forge_like(honest, commits=commits)

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:commit_set", make, Reason.COMMIT_SET_MISMATCH)


def test_commitment_set_repeating_a_seat() -> None:
    """The same commitment twice: the copy's counter is not above the original's, so the set
    fails the message checks (SPEC 7: each message valid, before the seat check). A second,
    different commitment of one seat is refused with COMMIT_SET_MISMATCH
    (test_cheats_players.test_second_commitment_from_one_seat)."""

    def make(honest: Entry) -> Entry:
        commits = honest.event["commits"]
        return g.forge_like(honest, commits=[commits[0], *commits])

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:commit_set", make, Reason.REPLAY)


def _after_an_elimination(kind_held: str) -> tuple[Game, int]:
    """Round 2 of a 3-seat, 1-die game: one seat is out; `kind_held` messages are held."""
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=1))
    g.hold(lambda s, m: m.type == kind_held and m.body["round"] == 2)
    g.start()
    game = g.host.state.game
    assert game.round == 2 and len(game.survivors) == 2
    out = next(s for s in range(3) if game.dice[s] == 0)
    return g, out


def test_commitment_set_adding_an_eliminated_seat() -> None:
    g, out = _after_an_elimination("commit")
    survivors = g.host.state.attempt.seats
    extra = g.sign(
        out, "commit", round=2, attempt=1, seed_commit="31" * 32, contrib_commit="32" * 32
    )
    msgs = {s: g.take_held("commit", seat=s) for s in survivors} | {out: extra}
    event = make_event(
        "commit_set", round=2, attempt=1, commits=[msgs[s].to_json() for s in sorted(msgs)]
    )
    forged = g.forge(event=event)
    victim = survivors[0]
    g.refused_by_peer(forged.line, Reason.COMMIT_SET_MISMATCH, peer=g.peer(victim))
    g.refused_by_verify(forged.line, Reason.COMMIT_SET_MISMATCH)
    # The host itself refuses a commitment from a seat that is out.
    g.refused_by_host(out, extra, Reason.UNKNOWN_SEAT)


def test_round_event_adding_an_eliminated_seat() -> None:
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=1))

    def make(honest: Entry) -> Entry:
        return g.forge_like(honest, seats=[0, 1, 2])

    match = [0]

    def rule(honest: Entry) -> Entry | None:
        if honest.kind == "event:round" and honest.event["round"] == 2 and not match[0]:
            match[0] = honest.seq
            return make(honest)
        return None

    replaced = g.tamper(VICTIM, rule)
    g.start()
    if g.host.state.game.dice[VICTIM] == 0:
        pytest.skip("the victim was eliminated in round 1")
    victim_caught(g, replaced[0], Reason.BAD_EVENT)
    also_refused_by_verify(g, make(replaced[0]), Reason.BAD_EVENT)


@pytest.mark.parametrize("field", ["dice", "starter", "palifico"])
def test_round_event_with_wrong_facts(field: str) -> None:
    def make(honest: Entry) -> Entry:
        ev = honest.event
        wrong = {
            "dice": [ev["dice"][0] - 1, *ev["dice"][1:]],
            "starter": 2 if ev["starter"] != 2 else 1,
            "palifico": not ev["palifico"],
        }[field]
        return g.forge_like(honest, **{field: wrong})

    g = Game(seed=3, rules=Rules(seats=3, starting_dice=2, first_starter="seat0"))
    replaced_first_is_caught(g, "event:round", make, Reason.BAD_EVENT)


def test_commitment_set_altering_another_seats_commitment() -> None:
    def make(honest: Entry) -> Entry:
        commits = [dict(c) for c in honest.event["commits"]]
        commits[1] = {**commits[1], "body": {**commits[1]["body"], "seed_commit": "77" * 32}}
        return g.forge_like(honest, commits=commits)

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:commit_set", make, Reason.BAD_SIGNATURE)


def test_commitment_set_with_a_commitment_the_victim_did_not_make_for_this_attempt() -> None:
    """A set holding a validly signed commitment of the victim's that is not the one it sent
    (here: signed with other values) can only be caught by the victim itself (SPEC 7.1)."""
    g = held_game(lambda s, m: m.type == "commit" and s == 2)
    own = sent(g, "commit", VICTIM)
    other = g.sign(
        VICTIM, "commit", round=1, attempt=1, seed_commit="41" * 32, contrib_commit="42" * 32
    )
    commits = [other, sent(g, "commit", 1), g.take_held("commit", seat=2)]
    assert own.body["seed_commit"] != other.body["seed_commit"]
    forged = g.forge(
        event=make_event("commit_set", round=1, attempt=1, commits=[m.to_json() for m in commits])
    )
    # A bystander has no way to tell: it accepts the set.
    bystander = g.follower()
    assert [type(o).__name__ for o in bystander.receive_line(forged.line)] == ["Applied"]
    # The victim holds the entry (it is valid for the table, and it is the evidence), raises
    # the alarm, stops following, and contributes nothing to that set.
    victim = g.peer(VICTIM)
    outputs = victim.receive_line(forged.line)
    assert [type(o).__name__ for o in outputs] == ["Applied", "Alarm"]
    assert outputs[1].reason == Reason.COMMIT_SET_MISMATCH and outputs[1].seq == forged.seq
    assert victim.halted
    assert not [p for p in victim.pending.values() if p.message.type == "contribute"]
    assert (
        victim.receive_line(
            g.forge(
                event=make_event("absent", round=1, seat=1, reason="no_reply"),
                seq=forged.seq + 1,
                prev=forged.hash,
            ).line
        )
        == []
    )


# ---- two commitment sets (equivocation) ------------------------------------------------------


def test_two_commitment_sets() -> None:
    """Seat 2 colludes with the host and signs two commitments. The host shows the victim a set
    with one, everyone else a set with the other. The fork is caught three ways: the victim's
    next message names a head the others do not hold (UNKNOWN_HEAD), the next honest entry
    does not extend the victim's chain (host-signed, so FORK at a peer), and the two
    host-signed entries with one seq are proof of equivocation (EQUIVOCATION)."""
    g = Game(seed=3)
    second: list[Message] = []

    def make(honest: Entry) -> Entry:
        c2 = next(c for c in honest.event["commits"] if c["body"]["seat"] == 2)
        body = {k: c2["body"][k] for k in ("round", "attempt")}
        other = g.sign(
            2, "commit", head=honest.prev, seed_commit="51" * 32, contrib_commit="52" * 32, **body
        )
        second.append(other)
        commits = [
            c if c["body"]["seat"] != 2 else other.to_json() for c in honest.event["commits"]
        ]
        return g.forge_like(honest, commits=commits)

    replaced = replace_first(g, "event:commit_set", make)
    g.start()
    honest = replaced[0]
    victim = g.peer(VICTIM)
    shown = victim.replayer.chain.hashes[honest.seq]
    assert shown != honest.hash and victim.alarms == []
    # 1. The victim's contribution names the head only it holds: the host (and any peer it
    #    might be shown to) refuses it.
    refusals = [r for r in g.table.stats.rejected if r.conn == g.conn(VICTIM)]
    assert [r.reason for r in refusals] == [Reason.UNKNOWN_HEAD]
    contribution = sent(g, "contribute", VICTIM)
    assert contribution.head == shown
    others = [sent(g, "contribute", s) for s in (1, 2)]
    smuggled = g.forge(event=beacon_event(g, [contribution, *others]))
    g.refused_by_peer(smuggled.line, Reason.FORK)
    # 2. The host's next honest entry does not extend the victim's chain.
    g.run_until(lambda: len(g.host.entries) > honest.seq + 1)
    assert [(a.reason, a.seq) for a in victim.alarms] == [(Reason.FORK, honest.seq + 1)]
    assert victim.halted and len(victim.replayer.chain) == honest.seq + 1
    # 3. Both sets, side by side, are proof of equivocation.
    fork = g.forge_like(honest, commits=[*honest.event["commits"][:2], second[0].to_json()])
    assert is_equivocation(honest, fork, g.host.key.public, g.host.table_id)
    twin = g.follower([*g.host.lines()[: honest.seq], fork.line])
    g.refused_by_peer(honest.line, Reason.EQUIVOCATION, peer=twin)


def test_different_entry_at_a_seq_the_peer_already_holds() -> None:
    g = Game(seed=3)
    g.start()
    peer = g.peer(VICTIM)
    held = g.host.entries[5]
    assert peer.receive_line(held.line) == []  # the same entry again is harmless
    fork = g.forge(event=held.event, seq=5, prev=flip(held.prev))
    assert is_equivocation(held, fork, g.host.key.public, g.host.table_id)
    g.refused_by_peer(fork.line, Reason.EQUIVOCATION, peer=peer)
    # An entry signed by another key at that seq is not proof against this host.
    stranger = g.forge(event=held.event, seq=5, prev=flip(held.prev), key=SigningKey(b"\1" * 32))
    assert not is_equivocation(held, stranger, g.host.key.public, g.host.table_id)


# ---- wrong count or result -------------------------------------------------------------------


def _wrong(field: str, ev: dict) -> object:
    if field == "count":
        return ev["count"] + 1
    if field == "outcome":
        return {"bid_stands": "bid_fails", "bid_fails": "bid_stands"}.get(
            ev["outcome"], "bid_fails"
        )
    if field == "loser":
        return (ev["loser"] + 1) % 3 if ev["loser"] is not None else 0
    if field == "hands":
        hands = [list(h) if h is not None else None for h in ev["hands"]]
        hands[0][0] = hands[0][0] % 6 + 1
        return hands
    if field == "dice_after":
        return [min(5, n + 1) if i == 0 else n for i, n in enumerate(ev["dice_after"])]
    if field == "next_starter":
        return (ev["next_starter"] + 1) % 3
    if field == "eliminated":
        return [1] if ev["eliminated"] != [1] else [2]
    if field == "palifico_next":
        return not ev["palifico_next"]
    raise AssertionError(field)


@pytest.mark.parametrize(
    "field",
    [
        "count",
        "outcome",
        "loser",
        "hands",
        "dice_after",
        "next_starter",
        "eliminated",
        "palifico_next",
    ],
)
def test_wrong_result(field: str) -> None:
    def make(honest: Entry) -> Entry:
        return g.forge_like(honest, **{field: _wrong(field, honest.event)})

    g = Game(seed=3, rules=Rules(seats=3, starting_dice=2))
    replaced_first_is_caught(g, "event:result", make, Reason.RESULT_MISMATCH)


def test_result_before_every_hand_is_opened() -> None:
    """Seat 2 has not opened and was not declared absent: no result may be posted yet."""
    g = held_game(kinds("open", seat=2))
    state = g.host.state
    attempt, game = state.attempt, state.game
    assert 2 not in attempt.openings and not g.entries_of("event:result")
    ev = {
        "round": 1,
        "attempt": 1,
        "hands": [list(attempt.openings[s]) if s in attempt.openings else None for s in range(3)],
        "count": 0,
        "outcome": "bid_fails",
        "loser": game.bids[-1].seat,
        "gainer": None,
        "dice_after": list(game.dice),
        "eliminated": [],
        "next_starter": 0,
        "palifico_next": False,
    }
    forged = g.forge(event=make_event("result", **ev))
    g.refused_by_peer(forged.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.BAD_EVENT)


def forged_after_the_log(g: Game, *events: dict) -> list[Entry]:
    """Host-signed entries carrying `events`, in order, continuing the host's log."""
    entries: list[Entry] = []
    for event in events:
        seq, prev = len(g.host.entries) + len(entries), entries[-1].hash if entries else None
        entries.append(g.forge(event=event, seq=seq, prev=prev))
    return entries


def absences(g: Game, *seats: int) -> list[bytes]:
    """The host's log followed by forged `absent` events for `seats` (a claim the log cannot
    contradict, so verify and every peer take it)."""
    forged = forged_after_the_log(
        g, *(Absent(round=1, seat=s, reason="no_reply").to_json() for s in seats)
    )
    lines = [*g.host.lines(), *(e.line for e in forged)]
    assert verify_lines(lines, partial=True).ok
    return lines


def test_a_result_leaving_an_unopened_seat_undeclared_is_refused_when_the_openings_decide() -> None:
    """Seats 0 and 1 opened and their hands decide the call; seat 2 has not opened and was
    never declared absent. A result that skips the absence (every other field what the
    openings give) is refused: SPEC.md 7, every unopened seat declared absent."""
    g = held_game(kinds("open", seat=2), seed=9)
    state = g.host.state
    assert sorted(state.attempt.openings) == [0, 1] and 2 not in state.absent
    assert result_decided(state)
    result = expected_result(state).to_json()
    forged = g.forge(event=result)
    alarm = g.refused_by_peer(forged.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    assert "seat 2 has not opened and was not declared absent" in alarm.detail
    g.refused_by_verify(forged.line, Reason.BAD_EVENT)
    # After the absence the very same result is the honest one.
    lines = absences(g, 2)
    peer = g.follower(lines)
    assert expected_result(peer.replayer.state).to_json() == result
    honest = g.forge(event=result, seq=len(lines), prev=peer.head)
    assert verify_lines([*lines, honest.line], partial=True).ok


def test_a_forfeit_naming_a_seat_that_opened_is_refused() -> None:
    """Seats 0 and 1 opened, seat 2 has not, and the openings do not decide the call. A host
    that declares seat 0 absent too and forfeits seats 0 and 2 (dice and next starter as an
    honest forfeit of both gives) is refused: a `no_opening` forfeit names exactly the
    unopened seats (SPEC.md 7, "Who a host act in a seat's place may name")."""
    g = held_game(kinds("open", seat=2))
    state = g.host.state
    assert sorted(state.attempt.openings) == [0, 1] and not result_decided(state)
    lines = absences(g, 0, 2)
    peer = g.follower(lines)
    forfeit = g.forge(
        event=expected_forfeit(peer.replayer.state, (0, 2), "no_opening").to_json(),
        seq=len(lines),
        prev=peer.head,
    )
    alarm = g.refused_by_peer(forfeit.line, Reason.BAD_EVENT, peer=peer)
    assert "the unopened seats are [2]" in alarm.detail
    g.refused_by_verify(forfeit.line, Reason.BAD_EVENT, prefix=lines)
    # The honest forfeit, of seat 2 alone after its absence, is taken.
    lines = absences(g, 2)
    peer = g.follower(lines)
    honest = g.forge(
        event=expected_forfeit(peer.replayer.state, (2,), "no_opening").to_json(),
        seq=len(lines),
        prev=peer.head,
    )
    assert verify_lines([*lines, honest.line], partial=True).ok


def test_wrong_ranking_at_game_over() -> None:
    def make(honest: Entry) -> Entry:
        return g.forge_like(honest, ranking=list(reversed(honest.event["ranking"])))

    g = Game(seed=3)
    replaced_first_is_caught(g, "event:game_over", make, Reason.RESULT_MISMATCH)


def test_game_declared_finished_early() -> None:
    g = held_game(kinds("bid", "challenge", "exact"))
    game = g.host.state.game
    forged = g.forge(event=make_event("game_over", ranking=list(game.ranking), reason="finished"))
    g.refused_by_peer(forged.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.BAD_EVENT)


def test_forfeit_with_wrong_dice() -> None:
    """Seat 2 never contributes: absent, forfeit. A forfeit taking a die away is refused."""

    def make(honest: Entry) -> Entry:
        dice = [n - 1 if i == 0 else n for i, n in enumerate(honest.event["dice_after"])]
        return g.forge_like(honest, dice_after=dice)

    g = Game(seed=3)
    g.hold(lambda s, m: m.type == "contribute" and s == 2 and m.body["round"] == 1)
    replaced = replace_first(g, "event:forfeit", make)
    g.start()
    g.run_until(lambda: bool(replaced))
    victim_caught(g, replaced[0], Reason.RESULT_MISMATCH)
    also_refused_by_verify(g, make(replaced[0]), Reason.RESULT_MISMATCH)


# ---- forced moves that are not the rules' --------------------------------------------------


def _forced(g: Game, **changes) -> Entry:
    game = g.host.state.game
    seat = game.turn
    fields = {
        "round": game.round,
        "seat": seat,
        "reason": "timer",
        "action": {"type": "challenge"} if game.bids else None,
        **changes,
    }
    if fields["action"] is None:
        blind = blind_action(game, seat)
        fields["action"] = {"type": "bid", "quantity": blind.bid.quantity, "face": blind.bid.face}
    return g.forge(event=make_event("forced", **fields))


@pytest.mark.parametrize(
    "case",
    ["timer_without_timer", "not_the_blind_move", "not_their_turn", "absent_not_declared"],
)
def test_forced_move_the_rules_do_not_give(case: str) -> None:
    rules = Rules(seats=3, starting_dice=2) if case == "timer_without_timer" else TIMER
    g = held_game(kinds("bid", "challenge", "exact"), rules=rules)
    game = g.host.state.game
    changes = {
        "timer_without_timer": {},
        "not_the_blind_move": {"action": {"type": "bid", "quantity": 4, "face": 6}},
        "not_their_turn": {"seat": (game.turn + 1) % 3},
        "absent_not_declared": {"reason": "absent"},
    }[case]
    forged = _forced(g, **changes)
    g.refused_by_peer(forged.line, Reason.BAD_EVENT, peer=g.peer(VICTIM))
    g.refused_by_verify(forged.line, Reason.BAD_EVENT)


def test_forced_move_while_bid_was_dropped_is_attributed_to_the_host() -> None:
    """The host drops the victim's bid and lets the timer move for it. When it moves, it has
    shown nothing of having read the bid, so the victim's client tells its player the bid did
    not reach the table (and keeps following). The host then answers the victim's later
    messages on the same connection, which shows it read everything sent before them, the
    bid too: MESSAGE_DROPPED, in play and in the victim's own check at the end. Plain verify
    counts the forced move."""
    g = Game(seed=1, rules=Rules(seats=3, starting_dice=1, turn_timer=30))
    g.hold(lambda s, m: s == VICTIM and m.type == "bid" and not g.held)
    g.start()
    assert g.phase == TablePhase.BIDDING and g.held
    g.play()
    forced = [e for e in g.entries_of("event:forced") if e.event["seat"] == VICTIM]
    assert forced and forced[0].event["reason"] == "timer"
    client = g.table.seats[g.conn(VICTIM)].client
    (notice,) = client.notices
    assert (notice.kind, notice.act, notice.seq) == ("bid", "forced", forced[0].seq)
    (alarm,) = g.alarms(VICTIM)
    assert (alarm.reason, alarm.seq, alarm.dropped) == (
        Reason.MESSAGE_DROPPED,
        forced[0].seq,
        "bid",
    )
    assert not g.peer(VICTIM).halted
    assert g.peer(VICTIM).replayer.chain.hashes == g.host.chain.hashes
    report = verify_lines(g.host.lines())
    assert report.ok and report.host_acts["forced"] >= 1
    assert any("forced" in line for line in report.host_act_lines)
    check = client.final_check
    assert check is not None and not check.verified
    assert "MESSAGE_DROPPED" in check.alarms[0].describe()
    # The bare messages, without what the client learnt of their way, prove nothing.
    dropped = [{"msg": m.to_json()} for _, m in g.held]
    mine = verify_lines(g.host.lines(), mine=dropped)
    assert mine.ok and [u.kind for u in mine.mine_undelivered] == ["bid"]


def test_dropped_bid_posted_at_a_later_turn() -> None:
    """SPEC 4.1/7: a message must have seen the entry that began its step, so a bid the host
    held back and forced a blind move over can never be posted at a later turn."""
    rules = Rules(seats=2, starting_dice=5, turn_timer=30, first_starter="seat0", ones="natural")
    g = Game(seed=2, rules=rules)
    # Every bid of the victim is held back, so the game waits at the victim's next turn.
    g.hold(lambda s, m: s == VICTIM and m.type == "bid")
    g.start()
    old = g.held[0][1]
    g.tick_to_deadline()  # the blind move is forced for the victim, the other seat answers
    forced = g.last("event:forced")
    assert forced.event["seat"] == VICTIM and forced.seq > g.host.chain.seq_of(old.head)
    game = g.host.state.game
    assert g.phase == TablePhase.BIDDING and game.turn == VICTIM
    assert check(game, PlaceBid(VICTIM, old.bid)) is None  # the old bid is legal right now
    stale = g.forge(msg=old)
    peer = g.follower()
    outputs = peer.receive_line(stale.line)
    alarms = [o for o in outputs if isinstance(o, Alarm)]
    assert alarms and alarms[0].reason in (Reason.REPLAY, Reason.UNKNOWN_HEAD), outputs
    assert peer.halted and len(peer.replayer.chain) == stale.seq
    assert not verify_lines([*g.host.lines(), stale.line], partial=True).ok


def test_dropped_commitment_is_attributed_to_the_host() -> None:
    g = Game(seed=3)
    g.hold(
        lambda s, m: s == VICTIM and m.type == "commit" and m.body["attempt"] == 1,
        acknowledged=True,
    )
    g.start()
    g.tick_to_deadline()
    abort = g.last("event:abort")
    assert abort.event["missing"] == [VICTIM]
    assert [(a.reason, a.seq) for a in g.alarms(VICTIM)] == [(Reason.MESSAGE_DROPPED, abort.seq)]
    assert not g.peer(VICTIM).halted
    reopened = [e.event for e in g.entries_of("event:round") if e.seq > abort.seq]
    assert (reopened[0]["round"], reopened[0]["attempt"]) == (1, 2)
    report = verify_lines(g.host.lines(), partial=True)
    assert report.ok and report.host_acts["abort"] == 1


def test_dropped_contribution_is_attributed_to_the_host() -> None:
    g = Game(seed=3)
    g.hold(
        lambda s, m: s == VICTIM and m.type == "contribute" and m.body["round"] == 1,
        acknowledged=True,
    )
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:forfeit")))
    absent, forfeit = g.last("event:absent"), g.last("event:forfeit")
    assert absent.event["seat"] == VICTIM and absent.event["reason"] == "no_reply"
    assert forfeit.event["seats"] == [VICTIM] and forfeit.event["reason"] == "no_contribution"
    # The contribution was acknowledged and never posted: the forfeit that voids the round
    # without it is the drop (the absence before it settled nothing: the host may hold a
    # contribution until the beacon).
    assert [(a.reason, a.seq) for a in g.alarms(VICTIM)] == [(Reason.MESSAGE_DROPPED, forfeit.seq)]
    report = verify_lines(g.host.lines(), partial=True)
    assert report.ok and report.host_acts["absent"] == 1 and report.host_acts["forfeit"] == 1


def test_a_host_that_loses_a_contribution_cannot_knock_the_seat_out() -> None:
    """Issue 13 item 5: the host 'loses' a connected victim's contribution. The round is void
    (nobody loses a die), the victim plays on, and plain verify (no --mine) warns of the act."""
    g = Game(seed=3)
    g.hold(lambda s, m: s == VICTIM and m.type == "contribute" and m.body["round"] == 1)
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:forfeit")))
    forfeit = g.last("event:forfeit").event
    dealt = g.entries_of("event:round")[0].event["dice"]
    assert forfeit["dice_after"] == dealt  # nobody lost a die
    g.stop_holding()
    g.play()
    game = g.host.state.game
    assert game is not None
    assert game.results[0].forfeited == () and game.results[0].eliminated == ()
    assert game.results[1].dice_before[VICTIM] == 1  # the replay deals the victim its die
    report = verify_lines(g.host.lines())
    assert report.ok
    kinds_ = [(w.kind, w.seat) for w in report.warnings]
    assert ("void_no_contribution", VICTIM) in kinds_
    assert ("absent_while_active", VICTIM) in kinds_
    (void,) = [w for w in report.warnings if w.kind == "void_no_contribution"]
    assert void.index == g.last("event:forfeit").seq
    assert report.to_json()["warnings"][0]["seat"] == VICTIM


def test_an_honest_game_has_no_warnings() -> None:
    g = Game(seed=3)
    g.start()
    g.play()
    report = verify_lines(g.host.lines())
    assert report.ok and report.warnings == []


def test_a_dropped_opening_that_knocks_a_seat_out_is_a_warning() -> None:
    """A missing opening still costs the seat (a player who saw its hand could withhold it),
    so a host that drops one can eliminate it: plain verify says so, not only --mine."""
    g = Game(seed=1, rules=Rules(seats=2, starting_dice=1))
    g.hold(lambda s, m: s == VICTIM and m.type == "open" and m.body["round"] == 1)
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:absent")))
    g.run()
    report = verify_lines(g.host.lines(), partial=True)
    assert report.ok
    assert g.entries_of("event:forfeit")  # seed 1: the victim's die decides the call
    assert [(w.kind, w.seat) for w in report.warnings] == [
        ("absent_while_active", VICTIM),
        ("forfeit_no_opening", VICTIM),
    ]


def test_dropped_opening_is_attributed_to_the_host() -> None:
    g = Game(seed=3)
    g.hold(
        lambda s, m: s == VICTIM and m.type == "open" and m.body["round"] == 1,
        acknowledged=True,
    )
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:absent")))
    g.run()
    absent = g.last("event:absent")
    assert absent.event["seat"] == VICTIM
    assert g.alarms(VICTIM)[0].reason == Reason.MESSAGE_DROPPED
    assert g.alarms(VICTIM)[0].seq == absent.seq
    assert not g.peer(VICTIM).halted
    assert g.entries_of("event:result") or g.entries_of("event:forfeit")


def test_dropped_next_round_is_forced_by_the_timer() -> None:
    g = Game(seed=1, rules=TIMER)
    g.hold(lambda s, m: m.type == "next_round" and m.body["round"] == 1, acknowledged=True)
    g.start()
    assert g.phase == TablePhase.RESULT and g.held
    starter = g.held[0][1].seat
    g.run_until(lambda: bool(g.entries_of("event:forced")))
    forced = g.last("event:forced")
    assert forced.event["seat"] == starter and forced.event["action"] == {"type": "next_round"}
    assert [a.reason for a in g.peer(starter).alarms] == [Reason.MESSAGE_DROPPED]


# ---- truncating, reordering or forging the log -----------------------------------------------


def test_skipped_entry() -> None:
    """The host leaves one entry out for the victim: its next entry is out of sequence."""
    g = Game(seed=2)
    bid = first("msg:bid")

    # The dropped bid must not hand the turn to the victim: a victim that never saw it could
    # not move, the game would wait on it, and no later entry would come to show the gap.
    def match(e: Entry) -> bool:
        msg = e.msg
        passes_to_victim = msg is not None and (msg.seat + 1) % g.rules.seats == VICTIM
        return not passes_to_victim and bid(e)

    replaced = g.tamper(VICTIM, lambda e: DROP if match(e) else None)
    g.start()
    skipped = replaced[0]
    peer = g.peer(VICTIM)
    assert [(a.reason, a.seq) for a in peer.alarms] == [(Reason.BAD_SEQ, skipped.seq + 1)]
    assert peer.halted and len(peer.replayer.chain) == skipped.seq


def test_entries_swapped() -> None:
    g = Game(seed=3)
    g.start()
    lines = g.host.lines()
    n = 8
    peer = g.follower(lines[:n])
    g.refused_by_peer(lines[n + 1], Reason.BAD_SEQ, peer=peer)
    swapped = [*lines[:n], lines[n + 1], lines[n], *lines[n + 2 :]]
    report = verify_lines(swapped)
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (n, Reason.BAD_SEQ)


def test_truncated_log() -> None:
    g = Game(seed=3)
    g.start()
    lines = g.host.lines()
    for cut in (1, 2, len(lines) // 2, len(lines) - 1):
        report = verify_lines(lines[:cut])
        assert report.failure is not None and report.failure.reason == Reason.MISSING_GAME_OVER
        assert report.failure.index is None
        assert verify_lines(lines[:cut], partial=True).ok
    # Cut at the front: the first line is no longer the genesis.
    report = verify_lines(lines[1:])
    assert report.failure is not None and report.failure.index == 0
    assert report.failure.reason == Reason.BAD_EVENT


def test_truncated_then_rewritten_log() -> None:
    """A host that rewrites history from entry n on (its own signature, a valid chain) shows
    every peer that already holds entry n proof of equivocation."""
    g = Game(seed=3)
    g.start()
    n = len(g.host.entries) - 3
    original = g.host.entries[n]
    rewritten = build_entry(
        g.host.key,
        n,
        original.prev,
        event=make_event("game_over", ranking=[0, 1, 2], reason="abandoned"),
        table=g.host.table_id,
    )
    g.refused_by_peer(rewritten.line, Reason.EQUIVOCATION, peer=g.peer(1))


@pytest.mark.parametrize("how", ["other_key", "flipped_signature", "wrong_prev", "wrong_seq"])
def test_entry_not_from_this_host_or_not_in_place(how: str) -> None:
    g = held_game(kinds("bid", "challenge", "exact"))
    game = g.host.state.game
    event = make_event("absent", round=game.round, seat=1, reason="no_reply")
    entry = g.forge(event=event)
    reason = {
        "other_key": Reason.BAD_SIGNATURE,
        "flipped_signature": Reason.BAD_SIGNATURE,
        "wrong_prev": Reason.CHAIN_BROKEN,
        "wrong_seq": Reason.BAD_SEQ,
    }[how]
    if how == "other_key":
        entry = g.forge(event=event, key=SigningKey(b"\x09" * 32))
    elif how == "flipped_signature":
        line = entry.line
        i = line.rindex(b'"sig":"') + 7
        c = line[i : i + 1]
        line = line[:i] + (b"1" if c != b"1" else b"2") + line[i + 1 :]
        g.refused_by_peer(line, reason, peer=g.peer(VICTIM))
        g.refused_by_verify(line, reason)
        return
    elif how == "wrong_prev":
        entry = g.forge(event=event, prev=flip(g.host.head))
    else:
        entry = g.forge(event=event, seq=len(g.host.entries) + 1)
    # A host-signed entry on another prev is a fork to a peer (SPEC.md 7.1), a broken chain
    # to a verifier of one file.
    g.refused_by_peer(
        entry.line, Reason.FORK if how == "wrong_prev" else reason, peer=g.peer(VICTIM)
    )
    g.refused_by_verify(entry.line, reason)
    # The genuine entry is still welcome afterwards by a peer that was not halted.
    assert [type(o).__name__ for o in g.follower().receive_line(g.forge(event=event).line)] == [
        "Applied"
    ]


def test_player_message_forged_by_the_host() -> None:
    """The host posts a bid in a seat's name, signed with its own key."""
    g = held_game(kinds("bid", "challenge", "exact"))
    seat = g.host.state.game.turn
    forged_msg = g.sign(seat, "bid", signer=g.host.key, round=1, quantity=1, face=2)
    entry = g.forge(msg=forged_msg)
    g.refused_by_peer(entry.line, Reason.BAD_SIGNATURE, peer=g.peer((seat + 1) % 3))
    g.refused_by_verify(entry.line, Reason.BAD_SIGNATURE)


def test_non_canonical_entry() -> None:
    """The same entry re-encoded (spaces, key order, an escape, upper-case hex) is refused."""
    import json

    g = held_game(kinds("bid", "challenge", "exact"))
    event = make_event("absent", round=1, seat=1, reason="no_reply")
    entry = g.forge(event=event)
    obj = json.loads(entry.line)
    variants = {
        json.dumps(obj).encode(): Reason.JSON_NOT_CANONICAL,
        json.dumps(obj, sort_keys=True).encode(): Reason.JSON_NOT_CANONICAL,
        entry.line.replace(b'"absent"', b'"\\u0061bsent"'): Reason.JSON_NOT_CANONICAL,
        entry.line + b" ": Reason.JSON_NOT_CANONICAL,
        entry.line.replace(
            entry.sig.hex().encode(), entry.sig.hex().upper().encode()
        ): Reason.SCHEMA,
    }
    for line, reason in variants.items():
        g.refused_by_peer(line, reason, peer=g.follower())
        g.refused_by_verify(line, reason)


def test_absence_claims_are_counted_against_the_host() -> None:
    """The host may claim a seat never answered; the claim is in its name and counted."""
    g = held_game(kinds("bid", "challenge", "exact"))
    game = g.host.state.game
    claim = g.forge(event=make_event("absent", round=game.round, seat=2, reason="no_reply"))
    peer = g.follower()
    assert [type(o).__name__ for o in peer.receive_line(claim.line)] == ["Applied"]
    report = verify_lines([*g.host.lines(), claim.line], partial=True)
    assert report.ok and report.host_acts["absent"] == 1
    assert any("absent" in line and "seat 2" in line for line in report.host_act_lines)
    again = build_entry(
        g.host.key,
        claim.seq + 1,
        claim.hash,
        event=make_event("absent", round=game.round, seat=2, reason="no_reply"),
        table=g.host.table_id,
    )
    g.refused_by_peer(again.line, Reason.BAD_EVENT, peer=peer)


def test_host_refusal_of_a_player_is_not_a_log_entry() -> None:
    """A refused message never moves the host's log (checked for every refusal above too)."""
    g = held_game(kinds("bid", "challenge", "exact"))
    seat = g.host.state.game.turn
    before = g.host.lines()
    out = g.host.receive(g.conn(seat), {"body": {}, "sig": "00"}, 0.0)
    assert [type(o) for o in out] == [Rejected] and g.host.lines() == before


def test_an_acknowledgement_left_out_is_no_dropped_message() -> None:
    """SPEC 8, 9: the host moves on without acknowledgements after ACK_WAIT, so an ack it
    never posted (the game's last, refused after its sender stopped listening) changes
    nothing and `verify --mine` does not call it dropped; a left-out bid still is."""
    g = Game(seed=1, rules=Rules(seats=3, starting_dice=1))
    g.hold(lambda s, m: s == VICTIM and m.type == "ack")
    g.start()
    g.play()
    assert g.held and {m.type for _, m in g.held} == {"ack"}
    report = verify_lines(g.host.lines(), mine=[{"msg": m.to_json()} for _, m in g.held])
    assert report.ok and report.ended in ("finished", "abandoned"), report.failure
    assert report.mine_checked >= len(g.held)
