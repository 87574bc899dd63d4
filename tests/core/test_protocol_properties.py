"""Properties of whole games through the protocol, and of the randomness it produces.

- Random games (random options, 2-6 seats, random bots) through host and peers always end,
  every peer's transcript is byte-identical to the host's, and it verifies.
- Changing any one contribution changes every hand (R is a hash of all of them).
- A chi-square test on a million dice from `derive_dice`, and on drawn starters.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pdice.bots import BOT_NAMES, load_bot
from p2pdice.bots.protosim import LocalTable
from p2pdice.core.fairness import beacon, derive_dice, draw_starter
from p2pdice.core.peer import Alarm, Peer
from p2pdice.core.rules import Ones, Palifico, Rules, TableKind
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import parse_entry
from p2pdice.core.verify import verify_lines


@st.composite
def table_options(draw: st.DrawFn, max_dice: int) -> Rules:
    kind = draw(st.sampled_from(list(TableKind)))
    return Rules(
        seats=draw(st.integers(2, 6)),
        starting_dice=draw(st.integers(1, max_dice)),
        ones=draw(st.sampled_from(list(Ones))),
        exact_call=draw(st.booleans()),
        palifico=draw(st.sampled_from(list(Palifico))),
        turn_timer=draw(st.sampled_from([0, 30, 60])),
        grace_period=draw(st.integers(5, 600)),
        undo=kind != TableKind.STANDARD and draw(st.booleans()),
        kind=kind,
        first_starter=draw(st.sampled_from(["random", "seat0"])),
    )


def play_through_protocol(rules: Rules, bots: list[str], seed: int) -> None:
    table = LocalTable(rules, [load_bot(b) for b in bots], rng=random.Random(seed))
    delivered: dict[int, list[bytes]] = {}

    def record(conn: int, line: bytes) -> bytes:
        delivered.setdefault(conn, []).append(line)
        return line

    table.on_deliver = record
    spectator = table.add_spectator()
    table.seat_everyone()
    # The game ends: bounded, and time must move whenever nothing else happens.
    for _ in range(5_000):
        table.run_until_idle()
        if table.host.phase == TablePhase.OVER:
            break
        before = (len(table.host.entries), table.now)
        assert table.advance_clock(), f"stuck in {table.host.phase}"
        table.run_until_idle()
        assert (len(table.host.entries), table.now) != before, f"livelock in {table.host.phase}"
    assert table.host.phase == TablePhase.OVER
    host_lines = table.host.lines()
    assert table.stats.alarms == [] and table.stats.rejected == []
    # Every peer (each seat and a spectator) holds exactly the host's log, byte for byte:
    # its chain of entry hashes is the host's (a hash of each line), and every line it was
    # sent is the host's line at that seq.
    followers = {c: s.peer for c, s in table.seats.items()} | {
        spectator: table.spectators[spectator]
    }
    for conn, peer in followers.items():
        assert not peer.halted and peer.alarms == []
        assert peer.replayer.chain.hashes == table.host.chain.hashes
        for line in delivered.get(conn, []):
            assert line == host_lines[parse_entry(line).seq]
    # The saved transcript verifies, and a fresh peer replaying it agrees.
    report = verify_lines(host_lines)
    assert report.ok, report.failure
    game = table.host.state.game
    assert report.ranking == list(game.ranking) and report.ended == "finished"
    replay = Peer(key=SigningKey(b"\x01" * 32))
    for line in host_lines:
        assert not [o for o in replay.receive_line(line) if isinstance(o, Alarm)]
    assert replay.replayer.chain.hashes == table.host.chain.hashes


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    rules=table_options(max_dice=2),
    bots=st.lists(st.sampled_from(BOT_NAMES), min_size=6, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_games_end_and_every_transcript_is_identical_and_verifies(
    rules: Rules, bots: list[str], seed: int
) -> None:
    play_through_protocol(rules, bots[: rules.seats], seed)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=table_options(max_dice=5),
    bots=st.lists(st.sampled_from(BOT_NAMES), min_size=6, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_long_games_end_and_verify(rules: Rules, bots: list[str], seed: int) -> None:
    play_through_protocol(rules, bots[: rules.seats], seed)


# ---- changing any one contribution changes every hand ----------------------------------------


def _secret(*parts: object) -> bytes:
    return hashlib.sha256(repr(parts).encode()).digest()


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_changing_any_one_contribution_changes_every_hand(seats: int) -> None:
    table_id, round_, attempt = _secret("table"), 3, 2
    commit_set = _secret("commit set")
    seeds = [_secret("seed", s) for s in range(seats)]
    ts = [_secret("t", s) for s in range(seats)]

    def hands(contributions: list[bytes]) -> list[tuple[int, ...]]:
        r = beacon(table_id, round_, attempt, commit_set, contributions)
        return [
            derive_dice(
                seeds[s],
                table_id=table_id,
                round_=round_,
                attempt=attempt,
                seat=s,
                beacon_r=r,
                count=20,  # long hands: two equal by chance is 6**-20, not a flaky 6**-5
            )
            for s in range(seats)
        ]

    base = hands(ts)
    for changed in range(seats):
        for flip_at in (0, 31):
            t = bytearray(ts[changed])
            t[flip_at] ^= 0x80
            other = hands([bytes(t) if s == changed else ts[s] for s in range(seats)])
            for s in range(seats):
                assert other[s] != base[s], (changed, flip_at, s)
    # Reordering contributions (who contributed what) changes R as well: R is no XOR.
    if seats >= 2:
        assert hands([ts[1], ts[0], *ts[2:]]) != base


# ---- a million dice ---------------------------------------------------------------------------

#: chi-square critical values at p = 0.001 (a false alarm once in a thousand seeds)
CHI2_CRITICAL = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515}


def chi_square(counts: Counter[int], categories: list[int]) -> float:
    total = sum(counts[c] for c in categories)
    expected = total / len(categories)
    return sum((counts[c] - expected) ** 2 / expected for c in categories)


def test_chi_square_on_a_million_dice() -> None:
    """40,000 hands of 25 dice, each from its own seed, seat, round and R."""
    faces: Counter[int] = Counter()
    by_position: list[Counter[int]] = [Counter() for _ in range(5)]
    table_id = _secret("chi table")
    beacons = [_secret("R", i) for i in range(1_000)]
    for i in range(40_000):
        hand = derive_dice(
            i.to_bytes(32, "big"),
            table_id=table_id,
            round_=1 + i % 7,
            attempt=1 + i % 2,
            seat=i % 6,
            beacon_r=beacons[i % 1_000],
            count=25,
        )
        faces.update(hand)
        for position in range(5):
            by_position[position][hand[position]] += 1
    assert sum(faces.values()) == 1_000_000
    assert chi_square(faces, [1, 2, 3, 4, 5, 6]) < CHI2_CRITICAL[5], faces
    for counts in by_position:
        assert chi_square(counts, [1, 2, 3, 4, 5, 6]) < CHI2_CRITICAL[5], counts


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_chi_square_on_drawn_starters(k: int) -> None:
    seats = list(range(6))[-k:]
    counts: Counter[int] = Counter(
        draw_starter(_secret("R", k, i), table_id=b"t" * 32, seats=seats) for i in range(12_000)
    )
    assert set(counts) == set(seats)
    assert chi_square(counts, seats) < CHI2_CRITICAL[k - 1], counts
