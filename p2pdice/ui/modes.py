"""Which screen shows, as pure functions of the UI state and the event's snapshot, and the
one transition new facts cause (`arrive`, which says what changes; the controller's event
step applies it). Nothing here changes the state it is given.

A mode names what the screen is: "quit" (leave the table?), "small" (the terminal is too
small), "prompt", "help", a lobby screen ("lobby", "form", "confirm", "starting"), or one of
the table's: "table", "pass" (pass-and-play: hand the device over), "reveal", "review"
(an earlier round), "coach" (the review of one's decisions), "live" (the hands being
opened) and "over".
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.game import Phase
from ..core.view import SeatView
from .state import UiState
from .viewmodel import Snapshot

PASS_AND_PLAY = "pass_and_play"


def screen_mode(ui: UiState, snap: Snapshot, *, kind: str) -> str:
    """The mode of the whole screen; `kind` is the table's (practice, pass_and_play...)."""
    if ui.quitting:
        return "quit"
    if ui.too_small:
        return "small"  # nothing acts unseen: a bid placed on a screen one cannot read
    if ui.prompt is not None:
        return "prompt"
    if ui.help:
        return "help"
    if ui.screen != "table":
        return ui.screen
    if ui.coach is not None:
        return "coach"
    return table_mode(ui, snap, kind=kind)


def first_unseen(view: SeatView) -> int:
    """Results a player who arrives now has seen: all but a round that just ended."""
    return len(view.results) - (1 if view.phase == Phase.ROUND_OVER else 0)


def table_mode(ui: UiState, snap: Snapshot, *, kind: str) -> str:
    view = snap.view
    if view is None:
        return "over" if snap.phase == "over" else "table"
    results = len(view.results)
    seen = ui.seen_results if ui.seen_results is not None else first_unseen(view)
    if ui.review is not None and results:
        return "review"
    if results > seen:
        return "reveal"
    if snap.phase == "over" or view.phase == Phase.GAME_OVER:
        return "over"
    if pass_to(ui, snap, kind=kind) is not None:
        return "pass"
    if view.phase == Phase.SHOWDOWN:
        return "live"
    return "table"


def pass_to(ui: UiState, snap: Snapshot, *, kind: str) -> int | None:
    """Pass-and-play: the person who must take the device before their turn shows."""
    view = snap.view
    if kind != PASS_AND_PLAY or view is None or view.phase != Phase.BIDDING:
        return None
    if view.turn in snap.mine and view.turn != ui.holder:
        return view.turn
    return None


def typing(ui: UiState, mode: str) -> bool:
    """Whether letters go into a text field rather than acting as commands."""
    if mode == "prompt":
        return True
    if mode == "form":
        return ui.form is not None and ui.form.current.text
    return mode == "table" and bool(ui.entry.typed)


@dataclass(frozen=True, slots=True)
class Arrival:
    """What new facts change in the UI state: the results the player has seen, and who
    holds the device (pass-and-play)."""

    seen_results: int | None
    holder: int | None
    handed_back: bool = False  #: the device changed hands: the shown session is another one


def arrive(ui: UiState, snap: Snapshot, *, kind: str) -> Arrival:
    """New facts from the shown session: remember what the player has already seen, and in
    pass-and-play take the device back at a reveal (everyone looks at it together; whoever
    plays next takes the device through a pass screen, even the one who held it before)."""
    view = snap.view
    if view is None:
        return Arrival(ui.seen_results, ui.holder)
    seen = first_unseen(view) if ui.seen_results is None else ui.seen_results
    if kind == PASS_AND_PLAY and len(view.results) > seen and ui.holder is not None:
        return Arrival(seen, None, handed_back=True)
    return Arrival(seen, ui.holder)
