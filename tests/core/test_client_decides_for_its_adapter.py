"""What the core client decides that its adapters once decided (net/session.py, net/client.py):
when our seat may move, after which entries the records are made durable, the end-of-game
check asked of the adapter, which refusal at an advertised address is passed over, what a
watcher's connection and a search for a moved table carry, an action with no game to act in,
and what a lost connection forgets. Core clients against the core host, no asyncio."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pdice.bots.driver import bot_move
from p2pdice.bots.registry import load_bot
from p2pdice.core.advert import SPECTATE_QUERY
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import (
    DURABLE_AFTER,
    AppendEntry,
    CheckGame,
    SavedSeat,
    ends_a_round,
)
from p2pdice.core.errors import Reason, UserError
from p2pdice.core.events import GameOver, Result
from p2pdice.core.game import Challenge
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from tests.support.client_link import Link


def client(n: int, **kwargs: Any) -> ClientConnection:
    kwargs.setdefault("name", f"P{n}")
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), cpu=True, **kwargs)


def played_game(*, keeps_records: bool = True) -> tuple[Link, list[int]]:
    """Two seats played to the end by easy bots, each moving only when its client says so."""
    link = Link.table(Rules(seats=2, starting_dice=2))
    conns = [1, 2]
    for conn in conns:
        if keeps_records:
            link.saved[conn] = SavedSeat()
        link.connect(conn, client(conn))
    bot, rng = load_bot("easy"), random.Random(4)
    for _ in range(500):
        if link.host.phase == TablePhase.OVER:
            return link, conns
        moved = False
        for conn in conns:
            who = link.clients[conn]
            assert who.peer is not None
            action = bot_move(who.peer, bot, rng) if who.may_move else None
            if action is not None:
                link.run(conn, who.act(action, link.now))
                moved = True
        if not moved and not link.tick():
            raise AssertionError(f"stuck in {link.host.phase}")
    raise AssertionError("the game did not end")


# ---- when our seat may move ------------------------------------------------------------------


def test_a_seat_may_move_once_welcomed_and_caught_up_and_not_after_a_drop_or_a_stop() -> None:
    link = Link.table(Rules(seats=2))
    who = client(0)
    assert not who.may_move  # no connection yet
    link.connect(1, who)
    assert who.connected and who.resumed and who.may_move
    who.connection_lost()
    assert not who.may_move
    link.connect(2, who)
    assert who.may_move
    who.storage_failed("a sent message", "No space left on device")
    assert who.connected and who.resumed and not who.may_move


# ---- when the records are made durable --------------------------------------------------------


def test_the_records_are_made_durable_after_a_result_a_forfeit_and_the_games_end_only() -> None:
    link, conns = played_game()
    appended = [i for i in link.intents[conns[0]] if isinstance(i, AppendEntry)]
    durable = [i.entry for i in appended if i.durable]
    assert len(appended) == len(link.host.entries)  # every entry, once
    assert all(isinstance(e.host_event, DURABLE_AFTER) for e in durable)
    assert [e for e in (i.entry for i in appended) if ends_a_round(e)] == durable
    kinds = {type(e.host_event) for e in durable}
    assert Result in kinds and isinstance(durable[-1].host_event, GameOver)


def test_a_client_without_records_is_asked_for_no_writes() -> None:
    link, conns = played_game(keeps_records=False)
    assert not [i for i in link.intents[conns[0]] if isinstance(i, AppendEntry)]


# ---- the end-of-game check --------------------------------------------------------------------


def test_the_games_end_asks_the_adapter_once_for_the_check_and_its_answer_is_the_check() -> None:
    link, conns = played_game()
    for conn in conns:
        who = link.clients[conn]
        asked = [i for i in link.intents[conn] if isinstance(i, CheckGame)]
        assert len(asked) == 1 and asked[0].seated
        assert asked[0].lines == tuple(who.lines)
        assert who.final_check_ready is None  # nobody answered yet: nothing is computed
        assert who.game_checked(asked[0], asked[0].check()) == []
        check = who.final_check_ready
        assert check is not None and check.complete and check.clean
        assert check == who.self_check(complete=True)
        assert who.final_check is check  # the driver that runs no CheckGame reads the same


def test_a_watcher_is_asked_for_the_check_of_the_log_alone_and_a_host_run_client_for_none() -> None:
    link, _ = played_game(keeps_records=False)
    watcher, own = client(5, mode="spectate"), client(6, mode="spectate", host_run=True)
    link.connect(8, watcher)
    link.connect(9, own)
    (asked,) = [i for i in link.intents[8] if isinstance(i, CheckGame)]
    assert not asked.seated and len(asked.lines) == len(link.host.entries)
    # A host-run client is the host's own: its check would tell the host about itself.
    assert own.finished and not [i for i in link.intents[9] if isinstance(i, CheckGame)]


# ---- a refusal at an address found by discovery ---------------------------------------------


def test_a_challenge_naming_another_table_at_an_advertised_address_is_passed_over() -> None:
    impostor = Link.table(Rules(seats=2), seed=9)
    who = client(0, expect_table=b"\x01" * 32)
    impostor.connect(1, who)
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_CHALLENGE
    assert who.refused_at_advertised_address()
    assert who.fatal is None  # forgotten: the address we were given is tried again
    assert not who.refused_at_advertised_address()  # nothing left to pass over


def test_a_refusal_about_the_table_itself_is_not_passed_over() -> None:
    link = Link.table(Rules(seats=2), password="open sesame")
    who = client(0)  # no password
    link.connect(1, who)
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_PASSWORD
    assert not who.refused_at_advertised_address()
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_PASSWORD


# ---- what a connection carries, and a search for a moved table ---------------------------------


def test_a_watchers_connection_says_so_and_a_players_does_not() -> None:
    assert client(0, mode="spectate").url_query == SPECTATE_QUERY == "spectate=1"
    assert client(0).url_query == ""


def test_a_moved_table_is_sought_by_its_id_and_the_advertised_start_of_its_host_key() -> None:
    link = Link.table(Rules(seats=2))
    who = client(0)
    assert who.sought_advert() is None  # no table known yet
    link.connect(1, who)
    host = link.host.key.public
    assert who.sought_advert() == (link.host.table_id.hex(), host[:8].hex())
    advertised = client(1, expect_table=link.host.table_id)
    assert advertised.sought_advert() == (link.host.table_id.hex(), None)


# ---- our own action with nothing to act in --------------------------------------------------


def test_an_action_before_any_game_is_a_users_error_not_a_crash() -> None:
    with pytest.raises(UserError, match="no game"):
        client(0).act(Challenge(0), 0.0)
    link = Link.table(Rules(seats=2))
    who = client(0)
    link.connect(1, who)
    with pytest.raises(UserError, match="no game"):  # seated, in the lobby
        who.act(Challenge(0), 0.0)


def test_a_watcher_acting_is_a_users_error() -> None:
    link, _ = played_game(keeps_records=False)
    watcher = client(5, mode="spectate")
    link.connect(9, watcher)
    assert watcher.peer is not None and watcher.peer.state is not None
    with pytest.raises(UserError, match="spectator"):
        watcher.act(Challenge(0), link.now)


def test_a_stopped_seat_acts_no_more() -> None:
    link = Link.table(Rules(seats=2))
    who = client(0)
    link.connect(1, who)
    who.storage_failed("its seat", "Read-only file system")
    assert who.act(Challenge(0), 0.0) == []


# ---- a lost connection -----------------------------------------------------------------------


def test_a_lost_connection_forgets_all_it_knew_and_a_new_one_starts_afresh() -> None:
    link = Link.table(Rules(seats=3))
    who = client(0)
    link.connect(1, who)
    assert who.connected and who.resumed
    who.connection_lost()
    assert not who.connected and not who.resumed and not who.reconnect_requested
    assert who.receive_frame({"type": "welcome", "seat": 0, "proof": None}, 0) == []
    assert who.errors[-1] == (Reason.BAD_CHALLENGE, "a welcome we did not ask for")
    link.connect(2, who)  # the seat it holds, by signature
    assert who.connected and who.resumed and who.seat == 0 and who.fatal is None
