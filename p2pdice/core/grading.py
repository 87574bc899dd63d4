"""The graded match that ends the course (`p2pdice learn`, "Test your judgement").

It is one whole game at a practice table against CPU players of a fixed, stated strength, so
two results are comparable: the grade is the place the learner finished in, and beside it how
often their calls were right. This module is plain data and arithmetic; the command line plays
the game (on the same practice table `p2pdice practice` opens) and hands the finished game's
places and round results here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .frozen import replace
from .game import Call, Outcome, RoundResult
from .rules import FirstStarter, Rules, TableKind, time_bank_default

#: The learner and three CPU players (bots.graded names them): always the same table, so a
#: grade means the same thing every time.
GRADED_SEATS = 4
#: A grade for each place, first to last.
GRADES: tuple[str, ...] = ("A", "B", "C", "D")
#: How many results the progress file keeps (the newest last).
KEPT_RESULTS = 20

assert len(GRADES) == GRADED_SEATS, "one grade per place"


def graded_rules(rules: Rules) -> Rules:
    """The match's rules: the course's house rules (so what was taught is what is tested) at
    a practice table of the fixed size, with no undo and no time bank: it is a test."""
    return replace(
        rules,
        seats=GRADED_SEATS,
        kind=TableKind.PRACTICE,
        undo=False,
        time_bank=time_bank_default(TableKind.PRACTICE),
        first_starter=FirstStarter.RANDOM,  # the course rules may name a seat of its table
    )


def setting_of(rules: Rules) -> str:
    """What a graded result is filed under: the match's rules in words (the course's house
    rules at the fixed table), e.g. 'aces ones, exact call, palifico fixed, 5 dice, practice'."""
    return graded_rules(rules).summary()


def unlocked(done: Iterable[str], lesson_keys: Sequence[str]) -> bool:
    """The match opens once every lesson of the course (on these rules) is done."""
    finished = set(done)
    return all(key in finished for key in lesson_keys)


def locked_reason(done: Iterable[str], lesson_keys: Sequence[str]) -> str:
    """Why the match is still locked, in the words the lesson list shows ("" when open)."""
    finished = set(done)
    left = [key for key in lesson_keys if key not in finished]
    if not left:
        return ""
    return (
        f"locked: finish every lesson first ({len(lesson_keys) - len(left)} of "
        f"{len(lesson_keys)} done)"
    )


@dataclass(frozen=True, slots=True)
class GradedResult:
    """One finished graded match, as the lesson list shows it."""

    grade: str  #: GRADES[place - 1]
    place: int  #: 1 best
    seats: int
    date: str  #: ISO date (YYYY-MM-DD), given by the caller: the core reads no clock
    calls: int = 0  #: Liar and Exact calls the learner made
    calls_right: int = 0
    bids_called: int = 0  #: the learner's bids someone called Liar on
    bids_held: int = 0  #: of those, the ones the count proved right
    #: The course's setting it was played on (`setting_of`): each course lists only its own
    #: results, so grades stay comparable. "" for a result saved before this was kept.
    setting: str = ""

    def line(self) -> str:
        """E.g. 'B: 2nd of 4 on 2026-12-03; calls 3 of 4 right; bids held 1 of 2'."""
        out = f"{self.grade}: {ordinal(self.place)} of {self.seats} on {self.date}"
        if self.calls:
            out += f"; calls {self.calls_right} of {self.calls} right"
        if self.bids_called:
            out += f"; bids held {self.bids_held} of {self.bids_called}"
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "grade": self.grade,
            "place": self.place,
            "seats": self.seats,
            "date": self.date,
            "calls": self.calls,
            "calls_right": self.calls_right,
            "bids_called": self.bids_called,
            "bids_held": self.bids_held,
            "setting": self.setting,
        }

    @classmethod
    def from_json(cls, obj: Any) -> GradedResult | None:
        """A saved result, or None when it is not one (a damaged file loses only that)."""
        if not isinstance(obj, Mapping):
            return None
        ints = ("place", "seats", "calls", "calls_right", "bids_called", "bids_held")
        if not all(isinstance(obj.get(k, 0), int) for k in ints):
            return None
        grade, date, setting = obj.get("grade"), obj.get("date"), obj.get("setting", "")
        if grade not in GRADES or not isinstance(date, str) or not isinstance(setting, str):
            return None
        ints_read = {k: int(obj.get(k, 0)) for k in ints}
        return cls(grade=grade, date=date, setting=setting, **ints_read)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def grade_of(place: int, seats: int) -> str:
    """The grade for a place: A for winning, then one letter per place down to D (more
    seats than grades share the last)."""
    if not 1 <= place <= seats:
        raise ValueError(f"place {place} of {seats} seats")
    return GRADES[min(place, len(GRADES)) - 1]


def grade_match(
    places: Sequence[int], seat: int, results: Sequence[RoundResult], date: str
) -> GradedResult:
    """The learner's (`seat`) result in a finished game: their place, and their calls and
    called bids judged by each round's count (what the reveal showed, not a bot's opinion)."""
    calls = right = called = held = 0
    for result in results:
        if result.call is None or result.caller is None:
            continue
        hit = result.outcome in (Outcome.BID_FAILS, Outcome.EXACT_HIT)
        if result.caller == seat:
            calls += 1
            right += hit
        elif result.bidder == seat and result.call == Call.CHALLENGE:
            called += 1
            held += result.outcome == Outcome.BID_STANDS
    place = places[seat]
    return GradedResult(
        grade=grade_of(place, len(places)),
        place=place,
        seats=len(places),
        date=date,
        calls=calls,
        calls_right=right,
        bids_called=called,
        bids_held=held,
    )


def best(results: Sequence[GradedResult]) -> GradedResult | None:
    """The best result kept: the highest place, the earliest of equals."""
    return min(results, key=lambda r: (r.place, r.date), default=None)
