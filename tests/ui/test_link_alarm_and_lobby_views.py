"""The terminal client's view models: the connection lines, an alarm row on a forfeited round,
and a lobby row whose announcement could point elsewhere."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Forfeit, apply
from p2pdice.ui.reveal import reveal_model
from p2pdice.ui.viewmodel import Snapshot, table_model

from .helpers import alarms, bidding, snap_of


def test_a_join_that_never_connected_says_it_gave_up() -> None:
    for link in ("lost", "closed"):
        line = table_model(Snapshot(phase="connecting", link=link)).turn_line
        assert line == "Could not reach the table: press q to go back.", link


def test_connecting_and_lost_links_keep_their_lines() -> None:
    assert table_model(Snapshot()).turn_line == "Connecting to the table..."
    assert table_model(Snapshot(link="connecting")).turn_line == "Connecting to the table..."
    lost = replace(snap_of(bidding()), link="lost")
    assert table_model(lost).turn_line.startswith("The host stopped answering.")
    refused = Snapshot(phase="connecting", link="lost", fatal=("bad_password", "wrong password"))
    assert table_model(refused).turn_line.startswith("Refused by the host:")


def test_an_alarm_on_a_forfeited_round_reads_as_on_any_other_round() -> None:
    state = bidding(bids=((0, Bid(2, 4)), (1, Bid(3, 4))))
    state = apply(apply(state, Challenge(2)), Forfeit((1,)))
    detail = "seat 1's opening does not match its commitment"
    snap = snap_of(state, me=0, alarms=alarms(("OPENING_MISMATCH", detail, (1,))))
    model = reveal_model(snap)
    assert model is not None
    row = next(r for r in model.rows if r.seat == 1)
    assert (row.check, row.check_text) == ("alarm", "ALARM opening mismatch")
    others = [r for r in model.rows if r.seat != 1]
    assert all(r.check_text == "" for r in others)


def test_a_lobby_row_whose_announcement_could_point_elsewhere_has_no_url() -> None:
    from p2pdice.core.advert import Advert
    from p2pdice.ui.lobbymodel import LobbyEntry

    table_id = "ab" * 32

    def entry(txt: dict[str, str]) -> LobbyEntry:
        advert = Advert.from_txt(txt)
        return LobbyEntry(
            service="s", name="n", address="10.0.0.5", port=8765, advert=advert, seen_at=0.0
        )

    assert entry({"id": table_id}).url == f"ws://10.0.0.5:8765/t/{table_id}"
    assert entry({"id": table_id, "path": f"@203.0.113.9:80/t/{table_id}"}).url is None
    assert entry({"id": "zz", "path": "/t/zz"}).url is None
