"""The reveal, reviews, the pass screen and game over."""

from __future__ import annotations

from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Forfeit, PlaceBid, Reveal, StartNextRound, apply
from p2pdice.core.rules import Rules
from p2pdice.core.table import Note
from p2pdice.ui.reveal import game_over_model, pass_model, reveal_model

from .helpers import HANDS, alarms, bidding, opened, revealed, snap_of


def test_every_hand_with_counting_dice_and_wild_ones_marked() -> None:
    state = revealed()
    model = reveal_model(snap_of(state, me=0, notes=opened(1, (0, 1, 2))))
    assert model is not None
    ann = model.rows[0]
    assert [c.text for c in ann.cells] == ["(1)", "*4*", "*4*", " 2 ", " 6 "]
    assert [c.kind for c in ann.cells] == ["wild", "count", "count", "plain", "plain"]
    assert ann.matched == "3"
    assert model.count_line == "The bid: 3 x 4s by Bob. Counted 5 (ones wild), needed 3."
    assert "the bid stands, Cid loses a die" in model.outcome
    assert model.rows[2].change == "-1 die: 4"
    assert model.all_verified and all(r.check_text == "verified" for r in model.rows)
    assert model.legend.startswith("*4* counts")


def test_natural_ones_are_not_marked_wild() -> None:
    state = revealed(Rules(seats=3, ones="natural", first_starter="seat0"))
    model = reveal_model(snap_of(state, me=0, notes=opened(1, (0, 1, 2))))
    assert [c.kind for c in model.rows[0].cells] == ["plain", "count", "count", "plain", "plain"]
    assert "(1)" not in model.legend


def test_missing_tick_and_alarm_replace_verified() -> None:
    state = revealed()
    detail = "seat 1's opening does not match its commitment"
    snap = snap_of(
        state, me=0, notes=opened(1, (0, 2)), alarms=alarms(("OPENING_MISMATCH", detail, (1,)))
    )
    model = reveal_model(snap)
    assert model.rows[1].check == "alarm" and "opening mismatch" in model.rows[1].check_text
    assert model.rows[0].check == "ok" and not model.all_verified
    assert model.alarm is not None and "seat 1's opening" in model.alarm


def test_start_next_round_for_the_designated_starter_only() -> None:
    state = revealed()  # Cid lost: Cid starts
    here = reveal_model(snap_of(state, me=2, notes=opened(1, (0, 1, 2))), starter_here=True)
    assert "press Enter" in here.next_line and ("Enter", "start next round") in here.keys
    other = reveal_model(snap_of(state, me=0, notes=opened(1, (0, 1, 2))))
    assert (
        other.next_line == "Cid starts the next round."
        and ("Enter", "back to the table") in other.keys
    )


def test_earlier_rounds_stay_reviewable() -> None:
    state = apply(revealed(), StartNextRound(2))
    from p2pdice.core.game import Deal

    state = apply(state, Deal())
    state = apply(state, PlaceBid(2, Bid(2, 3)))
    state = apply(state, Challenge(0))
    state = apply(state, Reveal(((1, 1, 1, 1, 1), (2, 2, 2, 2, 2), (3, 3, 3, 3))))
    snap = snap_of(state, me=0, notes=opened(1, (0, 1, 2)) + opened(2, (0, 1, 2)))
    first = reveal_model(snap, 0)
    latest = reveal_model(snap)
    assert first.title.startswith("Round 1") and "(1 of 2)" in first.title
    assert latest.title == "Round 2: the reveal"
    assert ("left/right", "other rounds") in latest.keys


def test_live_showdown_shows_openings_as_they_verify() -> None:
    state = apply(bidding(), Challenge(1))
    snap = snap_of(
        state, me=0, openings={0: HANDS[0]}, notes=(*opened(1, (0,)), Note("challenge", 1, 1))
    )
    model = reveal_model(snap)
    assert model.title == "Round 1: opening the hands"
    assert model.call_line == "Bob called Liar on 2 x 4s (bid by Ann)."
    assert model.rows[0].check == "ok" and model.rows[1].check == "waiting"


def test_forced_moves_and_absences_are_listed_on_the_reveal() -> None:
    notes = (
        *opened(1, (0, 1, 2)),
        Note("forced", 1, 2, "timer: challenge", reason="timer", action="challenge"),
    )
    model = reveal_model(snap_of(revealed(), me=0, notes=notes))
    assert model.faults == ("Cid's time ran out, so the host called Liar for them",)


def test_game_over_ranking_and_transcript() -> None:
    rules = Rules(seats=2, starting_dice=1, first_starter="seat0")
    state = bidding(rules, bids=((0, Bid(1, 5)),))
    state = apply(state, Challenge(1))
    state = apply(state, Reveal(((5,), (2,))))
    snap = snap_of(state, me=0, names=("Ann", "Bob"), transcript="/x/transcript.jsonl")
    model = game_over_model(snap)
    assert model.title == "Game over: Ann wins!"
    assert model.ranking == ("1. Ann  (1 die left)", "2. Bob")
    assert "/x/transcript.jsonl" in model.transcript


def test_pass_screen_names_who_takes_the_device_and_the_last_bid() -> None:
    rules = Rules(seats=3, undo=True, kind="pass_and_play", first_starter="seat0")
    state = bidding(rules)
    snap = snap_of(state, me=0, mine=(0, 1))
    model = pass_model(snap, 1, previous=0)
    assert model.title == "Pass the device to Bob"
    assert model.last_bid == "Last bid: 2 x 4s by Ann"
    assert "u" in dict(model.keys) and "Ann" in model.undo_line
    assert pass_model(snap, 1, previous=None).undo_line == ""


def test_a_round_that_started_while_we_looked_at_the_reveal_says_it_is_our_turn() -> None:
    from p2pdice.core.game import Deal

    state = apply(apply(revealed(), StartNextRound(2)), Deal())  # Cid lost, Cid opens round 2
    cid = reveal_model(snap_of(state, me=2, notes=opened(1, (0, 1, 2))))
    assert cid.title == "Round 1: the reveal"
    assert cid.next_line == "Round 2 has started and it is your turn: press Enter."
    ann = reveal_model(snap_of(state, me=0, notes=opened(1, (0, 1, 2))))
    assert ann.next_line == "Round 2 has started: press Enter for the table."


def test_the_reveal_says_when_the_next_round_starts_by_itself() -> None:
    snap = snap_of(revealed(), me=2, notes=opened(1, (0, 1, 2)), next_round_in=4.2)
    model = reveal_model(snap, starter_here=True)
    assert model.next_line == "You start the next round: press Enter (it starts by itself in 5 s)."


def test_an_exact_miss_says_how_many_there_were_and_that_it_was_not_exact() -> None:
    state = revealed(Rules(seats=3, exact_call=True, first_starter="seat0"), exact=True)
    model = reveal_model(snap_of(state, me=0, notes=opened(1, (0, 1, 2))))
    assert model.count_line == "The bid: 3 x 4s by Bob. There were 5 (ones wild), not exactly 3."
    assert "not exactly 3, Cid loses a die" in model.outcome
    assert "needed" not in model.count_line


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


def test_a_count_of_one_is_singular_on_the_reveal() -> None:
    """One die counted reads "There was 1", not "There were 1 (ones wild)"."""
    from p2pdice.core.game import ExactCall

    hands = ((2, 2, 3, 4, 5), (2, 3, 3, 4, 5), (6, 2, 3, 4, 5))  # one 6, no ones
    rules = Rules(seats=3, exact_call=True, first_starter="seat0")
    state = apply(bidding(rules, bids=((0, Bid(2, 6)),)), ExactCall(1))
    state = apply(state, Reveal(hands))
    model = reveal_model(snap_of(state, me=0, hand=hands[0], notes=opened(1, (0, 1, 2))))
    assert model.count_line == "The bid: 2 x 6s by Ann. There was 1 (ones wild), not exactly 2."
    assert "1 die shows 6 (ones wild)" in model.outcome


def test_a_game_ended_early_shows_the_seats_still_in_sharing_first() -> None:
    """The host ended the game (abandoned): nobody won, so nobody is listed 2nd among the seats
    still in (docs/stats.md places them all 1st)."""
    state = revealed()  # three seats, all still in; Cid lost a die
    model = game_over_model(snap_of(state, me=0, names=("Ann", "Bob", "Cid")))
    assert model.title == "Game over"
    assert [line.split("  ")[0] for line in model.ranking] == ["1. Ann", "1. Bob", "1. Cid"]


def test_a_long_name_leaves_the_pass_screens_keys_and_undo_line_whole() -> None:
    """Two names of 24 wide characters (48 columns each): the key bar still lists undo, help
    and quit on 80 columns, and the undo line is wrapped, not cut."""
    from p2pdice.ui.screens import keys_line, plain, render_pass
    from p2pdice.ui.text import width

    long_names = ("龍" * 23 + "甲", "龍" * 23 + "乙", "Cid")
    rules = Rules(seats=3, undo=True, kind="pass_and_play", first_starter="seat0")
    snap = snap_of(bidding(rules), me=0, mine=(0, 1), names=long_names)
    model = pass_model(snap, 1, previous=0)
    bar = plain([keys_line(model.keys, 80)])
    assert all(f" {word}" in bar for word in ("undo", "help", "quit")), bar
    assert width(bar) <= 80
    screen = plain(render_pass(model, columns=80, height=24))
    words = " ".join(screen.split())
    assert "press u to take back your bid before passing." in words, screen
    assert "~" not in words.split("Pass the device")[1], screen
