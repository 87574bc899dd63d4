"""The coach at the table (`v` on a reveal, an earlier round or the final ranking): the
rounds finished so far, each decision of the seat on screen beside the strong bot's move.

Only finished rounds are reviewed, whose hands were opened for everyone; the review itself
is bots/review.py's, which judges each move from the seat's own dice and the bids before
it. The text is made once when the page opens (a round ending meanwhile is not added: the
player closes and opens the page again); up/down and PgUp/PgDn scroll, Esc or q close it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .screens import Line, header
from .text import ASCII, Glyphs, fit, safe_name
from .viewmodel import Snapshot

if TYPE_CHECKING:  # the controller's state holds a page: import it only for the types
    from .controller import Controller

COACH_KEY = ("v", "coach")  #: on the reveal, an earlier round and the final ranking
COACH_KEYS = (("up/down", "scroll"), ("PgUp/PgDn", "page"), ("Esc", "back"), ("q", "back"))
#: What `v` says to a device that holds no seat here: the coach reviews a player's own moves.
WATCHING_NO_COACH = "you are watching, with no moves to coach: try p2pdice review FILE --seat N"
#: Lines of the page above the review text (the title and a rule).
HEAD_ROWS = 2


@dataclass
class CoachPage:
    """The coach's text (for one seat, or each person's at a pass-and-play device) and where
    it is scrolled to."""

    seat: int
    lines: tuple[str, ...]
    top: int = 0
    rows: int = 20  #: lines of text the screen showed last

    def scroll(self, lines: int = 0, pages: int = 0) -> None:
        """Move by lines and pages (a page keeps one line in sight), so that the last line
        can reach the bottom of the screen, no further."""
        step = lines + pages * max(self.rows - 1, 1)
        self.top = max(0, min(self.top + step, max(len(self.lines) - self.rows, 0)))


def coached_seats(snap: Snapshot) -> tuple[int, ...]:
    """The seats whose decisions the coach reviews on this screen: the seat it speaks for;
    on a pass-and-play device nobody holds (a reveal, the final ranking), every person's
    seat here, since finished rounds hide nothing any more; none for a spectator."""
    if snap.me is not None:
        return (snap.me,)
    return snap.mine


def coach_page(snap: Snapshot) -> CoachPage | None:
    """The review of the rounds finished so far for the seats `coached_seats` gives, or
    None when there is none yet (a spectator, or no round over)."""
    view = snap.view
    seats = coached_seats(snap)
    if view is None or not seats or not view.results:
        return None
    # Imported when a review is made, not with the table screen: the coach (with the strong
    # bot's tables and the drills) is about 85 ms of imports, which the first frame of a
    # practice game would wait for (docs/benchmarks.md, "First paint and `--help`").
    from ..bots.review import movers_from_notes, review_rounds, review_text

    names = [
        safe_name(s.name, f"seat {i}")[:16] if s is not None else f"seat {i}"
        for i, s in enumerate(snap.seats)
    ]
    movers = movers_from_notes(snap.notes)
    lines: list[str] = []
    for seat in seats:
        if len(seats) > 1:
            lines += [*([""] if lines else []), f"== {names[seat]} =="]
        lines += review_text(
            list(review_rounds(view.rules, view.results, seat, movers)), names, seat
        )
    return CoachPage(seats[0], tuple(lines))


def render_coach(
    page: CoachPage, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    page.rows = max(height - HEAD_ROWS, 1)
    page.scroll()  # the terminal may have grown since the last frame
    rows = page.rows
    shown = page.lines[page.top : page.top + rows]
    where = f"lines {page.top + 1}-{page.top + len(shown)} of {len(page.lines)}"
    out: list[Line] = [
        header("The coach", where, columns, "your decisions beside hard's"),
        [("class:rule", glyphs.rule * columns)],
    ]
    out += [[("", fit(" " + line, columns))] for line in shown]
    return out[:height]


def open_coach(c: Controller) -> None:
    """Open the coach's page for the seat on screen (`v`)."""
    snap = c.snap()
    page = coach_page(snap)
    if page is None and not coached_seats(snap):
        c.say(WATCHING_NO_COACH, error=True)
        return
    if page is None:
        c.say("no round of yours has finished yet", error=True)
        return
    c.ui.coach = page
