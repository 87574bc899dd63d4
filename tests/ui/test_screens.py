"""Every screen fits a plain 80x24 terminal and says what matters in text, not colour."""

from __future__ import annotations

import pytest

from p2pdice.core.advert import Advert
from p2pdice.core.rules import Rules, TableKind
from p2pdice.ui.facts import FindingFacts
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.lobbymodel import LobbyBook
from p2pdice.ui.panels import render_confirm, render_form, render_help, render_lobby
from p2pdice.ui.reveal import game_over_model, pass_model, reveal_model
from p2pdice.ui.screens import (
    keys_line,
    plain,
    render_game_over,
    render_pass,
    render_reveal,
    render_table,
    wrap,
)
from p2pdice.ui.text import ASCII, UNICODE, dice_rows, fit, safe_text, width
from p2pdice.ui.viewmodel import EndCheck, EntryState, table_model

from .helpers import alarms, bidding, opened, revealed, snap_of
from .test_viewmodel import HOSTILE


def fits(lines, columns: int = 80, rows: int = 22) -> str:
    text = plain(lines)
    assert len(lines) <= rows, text
    for line in text.split("\n"):
        assert width(line) <= columns, line
        assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in line), repr(line)
    return text


@pytest.mark.parametrize("glyphs", [ASCII, UNICODE])
def test_table_screen_fits_and_draws_the_dice(glyphs) -> None:
    snap = snap_of(bidding(), me=1, names=("Ann", "Bob", HOSTILE))
    text = fits(render_table(table_model(snap, EntryState(show_odds=True)), glyphs=glyphs))
    assert "Your dice (Bob, seat 1):" in text
    assert "Current bid: 2 x 4s by Ann" in text
    assert "< 3 x 4s >" in text and "l = Liar" in text
    assert "code 12345-67890" in text and "Eve" in text
    top = glyphs.corner_tl + glyphs.horizontal * 7 + glyphs.corner_tr
    bottom = glyphs.corner_bl + glyphs.horizontal * 7 + glyphs.corner_br
    boxes = text.count(top) + (text.count(bottom) if bottom != top else 0)
    assert boxes == 10 and glyphs.pip in text
    assert "    3         4         5         5         1" in text


def test_six_seats_and_many_bids_still_fit() -> None:
    from p2pdice.core.bids import Bid

    rules = Rules(seats=6, first_starter="seat0")
    bids = tuple((s % 6, Bid(2 + s, 3)) for s in range(9))
    state = bidding(rules, bids=bids)
    names = tuple(f"Player number {i} long name" for i in range(6))
    snap = snap_of(state, me=3, names=names, hand=(1, 2, 3, 4, 5))
    text = fits(render_table(table_model(snap, EntryState(typed="eleven 3s", show_odds=True))))
    assert "... 4 earlier" in text and "Typed: eleven 3s_" in text


def test_reveal_fits_and_marks_in_text() -> None:
    snap = snap_of(revealed(), me=0, notes=opened(1, (0, 1, 2)))
    text = fits(render_reveal(reveal_model(snap)))
    assert "(1) *4* *4*  2   6" in text
    assert text.count("v verified") == 3
    assert "Cid loses a die" in " ".join(text.split()) and "-1 die: 4" in text


def test_alarm_banner_is_in_the_text() -> None:
    detail = "seat 1's opening does not match its commitment"
    snap = snap_of(
        revealed(), me=0, notes=opened(1, (0, 2)), alarms=alarms(("OPENING_MISMATCH", detail, (1,)))
    )
    text = fits(render_reveal(reveal_model(snap)))
    assert "ALARM OPENING_MISMATCH: seat 1's opening does not match" in text
    assert "X ALARM opening mismatch" in text


def test_game_over_and_pass_screens_fit() -> None:
    snap = snap_of(
        revealed(), me=0, transcript="/very/long/path/" + "x" * 150 + "/transcript.jsonl"
    )
    text = fits(render_game_over(game_over_model(snap)))
    assert "transcript.jsonl" in text.replace("\n ", "")
    rules = Rules(seats=3, kind="pass_and_play", undo=True, first_starter="seat0")
    text = fits(render_pass(pass_model(snap_of(bidding(rules), me=0), 1, previous=0)))
    assert "Pass the device to Bob" in text and "Last bid: 2 x 4s by Ann" in text
    assert "Your dice (" not in text


def test_lobby_form_confirm_and_help_fit() -> None:
    book = LobbyBook()
    txt = {
        "name": HOSTILE,
        "rules": "wild ones, 5 dice",
        "seats": "1/4",
        "phase": "lobby",
        "pw": "1",
        "cpu": "2",
        "id": "ab",
    }
    book.announce("x._p2pdice._tcp.local.", HOSTILE, ["10.0.0.2"], 8000, Advert.from_txt(txt), 0.0)
    text = fits(render_lobby(book.rows(), 0, ""))
    assert "Eve [pw]" in text and "2 host CPU" in text and "10.0.0.2:8000" in text
    for kind in TableKind:
        form = HostForm(kind=kind)
        fits(render_form(form))
        text = fits(render_confirm(form, form.check()))
        assert "cannot change" in text
    for rules in (Rules(), Rules(ones="aces", exact_call=True, palifico="free", turn_timer=30)):
        text = fits(render_help(rules))
        assert "x" in text and "Liar" in text and "1/3" in text


def test_small_helpers() -> None:
    assert safe_text("a\x1b[31mb\x07c\nd") == "abc d"
    assert fit("abcdef", 4) == "abc~" and fit("ab", 4, align="right") == "  ab"
    assert width("日本") == 4 and fit("日本語", 5) == "日本~"
    assert wrap("a " * 50, 10)[0] == "a a a a a"
    assert dice_rows(()) == [] and len(dice_rows((1, 6))) == 6
    line = keys_line([("q", "quit")] * 30, 80)
    assert width("".join(t for _, t in line)) == 80


def test_a_transcript_path_is_never_broken_inside_a_name() -> None:
    path = "/srv/p2pdice-data/practice/1/tables/" + "ab" * 32 + "/transcript.jsonl"
    assert len(path) > 80
    snap = snap_of(revealed(), me=0, transcript=path, final_check=EndCheck(verified=True))
    text = fits(render_game_over(game_over_model(snap)))
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index("Verified transcript saved:") + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("Anyone can check"))
    pieces = lines[start:end]
    assert "".join(pieces) == path, pieces  # copied line by line, it is the path
    assert len(pieces) > 1 and all(p.endswith("/") for p in pieces[:-1])  # cut after a /
    assert "ab" * 32 + "/" in pieces  # the 64-hex folder whole, on its own line


def game_over_screen(check: EndCheck | None) -> str:
    snap = snap_of(revealed(), me=0, transcript="/tmp/t.jsonl", final_check=check)
    return fits(render_game_over(game_over_model(snap)))


def test_game_over_says_verified_only_when_the_final_check_verified_the_transcript() -> None:
    verified = game_over_screen(EndCheck(verified=True))
    assert "Verified transcript saved:" in verified and "ALARM" not in verified
    unchecked = game_over_screen(None)
    assert "Verified" not in unchecked and "Transcript saved (not checked yet):" in unchecked


def test_game_over_shows_the_final_checks_alarms_when_it_failed() -> None:
    found = (FindingFacts("verify", "round 2: the posted result differs", mine=True),)
    screen = game_over_screen(EndCheck(verified=False, findings=found))
    assert "Verified" not in screen
    assert "Transcript saved, but the end-of-game check failed:" in screen
    assert "ALARM verify --mine: round 2: the posted result differs" in screen
    bare = game_over_screen(EndCheck(verified=False))
    assert "ALARM verify: the transcript did not verify" in bare and "Verified" not in bare


def test_a_forfeit_the_host_chose_is_an_alarm_at_game_over_even_when_the_log_verified() -> None:
    forfeit = FindingFacts("forfeit", "round 3: the host forfeited its own CPU seat", 3, 2)
    screen = game_over_screen(EndCheck(verified=True, findings=(forfeit,)))
    assert "Verified transcript saved:" in screen
    assert "ALARM forfeit: round 3: the host forfeited its own CPU seat" in screen


def test_what_the_check_says_without_accusing_anyone_is_a_note_at_game_over() -> None:
    """A message of ours that never reached the table, or a seat that lost something on the
    host's word alone, is shown as a note under a verified transcript, never as an alarm."""
    claim = "entry 7: seat 0 was declared absent (no_reply) in round 1; the claim is the host's"
    screen = game_over_screen(EndCheck(verified=True, notes=(claim,)))
    assert "Verified transcript saved:" in screen and "ALARM" not in screen
    assert "Note: entry 7: seat 0 was declared absent" in " ".join(screen.split())


def test_a_terminal_below_80x24_says_it_is_too_small_and_keeps_q_quit() -> None:
    from p2pdice.ui.controller import Controller
    from p2pdice.ui.frame import render_screen
    from p2pdice.ui.state import UiState

    c = Controller(UiState())
    for columns, rows in ((79, 24), (80, 23), (40, 12), (20, 5)):
        lines = render_screen(c, columns, rows)
        text = plain(lines)
        assert len(lines) == rows and all(width(line) <= columns for line in text.splitlines())
        assert "Terminal too small" in text and f"{columns}x{rows}" in text, text
        assert "q quit" in text.splitlines()[-1]
    assert "Terminal too small" not in plain(render_screen(c, 80, 24))


def test_no_key_but_q_acts_on_the_too_small_screen() -> None:
    """`?` (or Enter, a letter, an arrow) on the too-small screen changes nothing that would
    show once the window is larger (`?` used to open the help unseen behind it)."""
    from types import SimpleNamespace

    from p2pdice.ui.controller import Controller
    from p2pdice.ui.keys import build_keys
    from p2pdice.ui.state import UiState

    c = Controller(UiState(too_small=True))
    assert c.mode() == "small"
    for binding in build_keys(c).bindings:
        keys = tuple(str(getattr(k, "value", k)) for k in binding.keys)
        if not binding.filter() or keys in (("c-c",), ("q",)):
            continue
        for data in ("?", "h", "5", "\r") if keys == ("<any>",) else ("",):
            binding.handler(SimpleNamespace(data=data))
            assert c.mode() == "small" and not c.ui.help and not c.ui.entry.typed, keys
    c.ui.too_small = False
    assert c.mode() != "help"


def test_a_key_bar_too_narrow_for_every_key_still_shows_help_and_quit() -> None:
    keys = [
        ("up/down", "qty"),
        ("left/right", "face"),
        ("Enter", "bid"),
        ("l", "Liar"),
        ("x", "Exact"),
        ("u", "undo"),
        ("Tab", "seat"),
        ("r", "rounds"),
        ("?", "help"),
        ("q", "quit"),
    ]
    for columns in (80, 60, 30, 16):
        bar = plain([keys_line(keys, columns)])
        assert width(bar) == columns
        assert bar.rstrip().endswith("? help  q quit"), bar
    assert "u undo" not in plain([keys_line(keys, 80)])
    # When every key fits, the bar is every key in order.
    roomy = plain([keys_line(keys, 120)])
    assert roomy.split() == [word for pair in keys for word in " ".join(pair).split()]
