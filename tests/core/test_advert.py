"""The advertisement record (SPEC.md 10.4): one writer and one reader of the TXT keys."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.advert import LISTED_NAME_LIMIT, TEXT_LIMIT, Advert, AdvertPhase, key_prefix
from p2pdice.core.clean import clean_name
from p2pdice.core.codec import encode
from p2pdice.core.fairness import rules_hash
from p2pdice.core.rules import Rules
from p2pdice.core.table import Replayer, TablePhase
from p2pdice.core.transcript import parse_entry
from p2pdice.core.version import PROTOCOL_VERSION

TABLE_ID = "ab" * 32
HOST = "0123456789abcdef"


def _advert(**changes: object) -> Advert:
    fields = {
        "name": "Kitchen",
        "table_id": TABLE_ID,
        "path": f"/t/{TABLE_ID}",
        "rules": "wild ones, 5 dice",
        "rules_hash": "00112233aabbccdd",
        "seats": (1, 4),
        "phase": "lobby",
        "host_key_prefix": HOST,
        "locked": True,
        "cpu": 2,
        "round": 3,
        "fill": True,
        "host_name": "Ann",
    }
    return Advert(**{**fields, **changes})  # type: ignore[arg-type]


def test_the_txt_record_has_the_spec_keys_in_order() -> None:
    txt = _advert().to_txt()
    assert list(txt) == [
        "v",
        "name",
        "id",
        "path",
        "rules",
        "rh",
        "seats",
        "phase",
        "hk",
        "pw",
        "cpu",
        "round",
        "fill",
        "host",
    ]
    assert (txt["v"], txt["seats"], txt["pw"], txt["cpu"], txt["round"], txt["fill"]) == (
        str(PROTOCOL_VERSION),
        "1/4",
        "1",
        "2",
        "3",
        "1",
    )
    assert txt["host"] == "Ann"
    assert _advert(locked=False, cpu=0).to_txt()["pw"] == "0"
    # No round before the start, no fill when empty seats are left out, no host's name from
    # a host that plays no seat: the keys are left out.
    assert (
        not {"round", "fill", "host"}
        & _advert(round=None, fill=False, host_name="").to_txt().keys()
    )


def test_a_record_reads_back_what_was_written() -> None:
    for advert in (
        _advert(),
        _advert(locked=False, cpu=0, seats=(4, 4), phase="playing", round=None, fill=False),
        _advert(host_name=""),
        _advert(host_name="Zoë 🎲 of the longest nam"),  # 24 characters, an emoji among them
    ):
        assert Advert.from_txt(advert.to_txt()) == advert


def test_a_hostile_record_reads_as_absent_values_and_clean_text() -> None:
    ad = Advert.from_txt(
        {
            "name": "Eve\x1b]52;c;aGk=\x07 \u202eX",
            "seats": "lots",
            "cpu": "-1",
            "pw": "yes",
            "hk": "0123",
            "v": "one",
            "rules": "r" * 500,
            "id": 7,
            "round": "-3",
            "fill": "yes",
        }
    )
    assert ad.name == "Eve X" and ad.seats is None and ad.seats_text == "?"
    assert (ad.cpu, ad.locked, ad.host_key_prefix, ad.version) == (0, False, None, None)
    assert (ad.round, ad.fill) == (None, False)
    assert Advert.from_txt({"round": "0"}).round is None  # rounds count from 1
    assert len(ad.rules) == TEXT_LIMIT and ad.url("10.0.0.5", 80) is None


def test_the_hosts_name_is_read_as_a_players_name_is_cleaned_and_bounded() -> None:
    def host(value: object) -> str:
        return Advert.from_txt({"host": value}).host_name

    assert host("Ann") == "Ann"
    # Cleaned and cut exactly as a name a player joins with (SPEC.md 10.5).
    for raw in ("Ann\x1b[31m \u202eX", "  Bea  \u200b  ", "Z" * 30, "A\u0301\u0301\u0301\u0301"):
        assert host(raw) == clean_name(raw), raw
    assert len(host("Z" * 30)) == 24
    # Longer than any host sends, or not a text: absent, as a listed player's name.
    assert host("x" * (LISTED_NAME_LIMIT + 1)) == ""
    assert host("x" * LISTED_NAME_LIMIT) == "x" * 24
    assert host(7) == host(["Ann"]) == host(None) == ""
    assert Advert.from_txt({"host": "\x1b]0;\x07"}).host_name == ""  # nothing left to show


def test_the_host_is_named_by_its_players_name_beside_its_key() -> None:
    assert _advert().host_text == f"hosted by Ann (host key {HOST[:8]})"
    assert _advert(host_name="").host_text == f"host key {HOST[:8]}"
    assert _advert(host_key_prefix=None).host_text == "hosted by Ann"
    assert _advert(host_name="", host_key_prefix=None).host_text == ""


def test_a_record_must_name_its_table_as_a_host_does_to_have_a_url() -> None:
    assert _advert().url("10.0.0.5", 8765) == f"wss://10.0.0.5:8765/t/{TABLE_ID}"
    assert _advert(path="").url("10.0.0.5", 8765) == f"wss://10.0.0.5:8765/t/{TABLE_ID}"
    assert _advert(path=f"@203.0.113.9:80/t/{TABLE_ID}").url("10.0.0.5", 8765) is None


def test_a_listing_refreshes_only_what_changes_during_a_game() -> None:
    listing = _advert(name="Other", table_id="cd" * 32, seats=(4, 4), phase="playing", cpu=0)
    fresh = _advert().with_listing(listing)
    assert (fresh.name, fresh.table_id, fresh.host_key_prefix) == ("Kitchen", TABLE_ID, HOST)
    assert (fresh.seats, fresh.phase, fresh.cpu) == ((4, 4), "playing", 0)
    later = _advert().with_listing(_advert(round=7, fill=False))
    assert (later.round, later.fill) == (7, False)
    # The host's name stays as announced; a record sent before the host's player sat down
    # takes it from the listing.
    assert _advert().with_listing(_advert(host_name="Eve")).host_name == "Ann"
    assert _advert(host_name="").with_listing(_advert(host_name="Ann")).host_name == "Ann"


def test_a_host_announces_its_table_as_the_state_says() -> None:
    rules = Rules(seats=2, starting_dice=1)
    table = LocalTable(rules, [load_bot("easy")] * 2, rng=random.Random(3), name="Den")
    state = table.host.state
    ad = Advert.of_table(state, locked=True)
    table_id = state.table_id.hex()
    assert (ad.name, ad.table_id, ad.url("10.0.0.5", 80)) == (
        "Den",
        table_id,
        f"wss://10.0.0.5:80/t/{table_id}",
    )
    assert ad.host_key_prefix == key_prefix(state.host_key) == state.host_key.hex()[:16]
    assert ad.rules_hash == rules_hash(encode(rules.to_json())).hex()[:16]
    assert (ad.phase, ad.seats, ad.locked, ad.rules) == ("lobby", (0, 2), True, rules.summary())
    assert Advert.from_txt(ad.to_txt()) == ad  # what it writes, a lobby reads back whole
    table.seat_everyone()
    assert Advert.of_table(table.host.state, locked=False).seats == (2, 2)
    table.play()
    assert Advert.of_table(table.host.state, locked=False).phase == AdvertPhase.FINISHED


def test_a_host_that_plays_announces_the_name_its_player_sits_under() -> None:
    rules = Rules(seats=3, starting_dice=1)
    bot = load_bot("easy")
    table = LocalTable(rules, [bot] * 3, rng=random.Random(4), name="Den")
    host_seat = table.add_player(bot, name="Ann", cpu=False)
    cpu_seat = table.add_player(bot, name="P1")
    table.add_player(bot, name="P2")
    table.run_until_idle()
    state = table.host.state
    ann, cpu = table.seats[host_seat].client.key.public, table.seats[cpu_seat].client.key.public
    # The seat the host's own player took with its key, in the lobby and after the start.
    assert Advert.of_table(state, locked=False, host_player=ann).host_name == "Ann"
    assert Advert.of_table(state, locked=False).host_name == ""  # a headless host
    assert Advert.of_table(state, locked=False, host_player=b"\x09" * 32).host_name == ""
    assert Advert.of_table(state, locked=False, host_player=cpu).host_name == ""  # not a person
    table.play()
    ad = Advert.of_table(table.host.state, locked=False, host_player=ann)
    assert ad.phase == AdvertPhase.FINISHED and ad.host_name == "Ann"
    assert Advert.from_txt(ad.to_txt()) == ad


def test_every_table_phase_is_announced_as_lobby_playing_or_finished() -> None:
    announced = {phase: AdvertPhase.of(phase) for phase in TablePhase}
    assert announced.pop(TablePhase.LOBBY) == AdvertPhase.LOBBY
    assert announced.pop(TablePhase.OVER) == AdvertPhase.FINISHED
    assert set(announced.values()) == {AdvertPhase.PLAYING}


def test_a_host_announces_the_round_it_plays_and_whether_cpus_fill_empty_seats() -> None:
    rules = Rules(seats=3, starting_dice=2)
    table = LocalTable(rules, [load_bot("easy")] * 3, rng=random.Random(5), name="Den")
    lobby = Advert.of_table(table.host.state, locked=False)
    assert (lobby.round, lobby.fill) == (None, False)
    assert "round" not in lobby.to_txt()
    table.seat_everyone()
    table.play()
    replayer, rounds = Replayer(), []  # the table as of each entry of its game
    for line in table.host.lines():
        replayer.feed(parse_entry(line))
        state = replayer.state
        assert state is not None
        ad = Advert.of_table(state, locked=False)
        if ad.phase == AdvertPhase.PLAYING:
            assert state.game is not None and ad.round == state.game.round
            assert Advert.from_txt(ad.to_txt()).round == ad.round
            rounds.append(ad.round)
        else:
            assert ad.round is None and "round" not in ad.to_txt()
    assert rounds[0] == 1 and len(set(rounds)) >= 3, rounds


def test_a_table_whose_empty_seats_get_cpus_announces_fill() -> None:
    from p2pdice.core.table_state import genesis_state

    genesis = {
        "type": "genesis",
        "protocol": PROTOCOL_VERSION,
        "host": "11" * 32,
        "name": "Den",
        "rules": Rules(seats=4).to_json(),
        "nonce": "22" * 16,
        "host_cpu": 0,
        "cpu_fill": True,
    }
    ad = Advert.of_table(genesis_state(genesis), locked=False)
    assert ad.fill and ad.to_txt()["fill"] == "1" and Advert.from_txt(ad.to_txt()).fill


def test_the_cpu_count_is_every_seat_the_hosts_machine_plays() -> None:
    """`cpu` (SPEC.md 10.4): in the lobby the seats kept for the host's CPUs; from the start
    on the roster's host-run seats and the seats a stand-in plays (the host's machine reads
    their hands: docs/fairness.md), through the end of the game."""
    from dataclasses import replace

    rules = Rules(seats=3, starting_dice=1)
    bots = [load_bot("easy")] * 3
    table = LocalTable(rules, bots, rng=random.Random(6), name="Den", host_cpu=1)
    assert Advert.of_table(table.host.state, locked=False).cpu == 1  # kept for it
    table.seat_everyone()
    state = table.host.state
    assert state.phase != TablePhase.LOBBY and [s.host_run for s in state.roster] == [
        False,
        False,
        True,
    ]
    assert Advert.of_table(state, locked=False).cpu == 1
    stood_in = replace(state, stand_ins=frozenset({0}))  # seat 0 dropped out: a stand-in plays
    assert Advert.of_table(stood_in, locked=False).to_txt()["cpu"] == "2"
    table.play()
    assert Advert.of_table(table.host.state, locked=False).cpu == 1
