"""The judgement drill of `p2pdice learn --drill`: positions from bot games, their exact
chances, the strong bot's advice, and the learner's running score per skill.

A position is one seat's view at its turn with a bid standing, taken from a game of bots
played on the rules engine with a seeded random.Random (so a seed fixes the position). Its
hidden hands are kept only to show the cups after the answer; every figure and the advice
are computed from the view alone.

The chances are exact, not estimated: each unseen die counts toward a face with chance 1/6,
or 2/6 when ones are wild this round and the face is not 1, independently, so the number of
unseen matching dice is binomial (bots/odds.py), and tests check it against enumerating
every way the unseen dice can fall. They are the chances from the dice alone, before reading
anyone's bids; `hard` also reads the bids, and its advice says so with its own figure.

What counts as right (kept one-step, so a person can check it on the answer screen):
each move has a chance of succeeding if it is settled now: a Liar call succeeds when the
standing bid fails, an Exact call when the count is exactly the bid, a raise when the raised
bid holds. The learner's move is right when no move of another kind beats its chance by
more than `RIGHT_MARGIN`: a Liar call is right when no raise holds more often than the call
wins (nor an Exact call), a raise is right when it holds at least as often as a Liar call
would win. So a bold raise is right as long as calling would not do better; it need not be
the safest raise. (The safest raise is what a call is measured against.)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.bids import Bid
from ..core.describe import bid_words
from ..core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Phase,
    PlaceBid,
    Reveal,
    StartNextRound,
    apply,
    new_game,
)
from ..core.rules import Ones, Rules
from ..core.view import SeatView, seat_view
from .hard import believed_chances, hard, hard_policy, likeliest
from .medium import medium
from .odds import bid_true_chance, exact_chance
from .registry import Bot
from .sim import decide_safely, roll

RIGHT_MARGIN = 0.05  #: a move this close to the best one's chance still counts as right
STOP_CHANCE = 0.2  #: chance of stopping at each eligible decision (spreads the rounds drawn)
SKILLS = ("calling", "raising", "aces")  #: the skills scored, in the order shown
MAX_GAMES = 50  #: a generator that plays this many games without stopping is a bug
SIM_BOTS: tuple[Bot, ...] = (hard, medium)  #: each seat of a simulated game draws one


@dataclass(frozen=True, slots=True)
class Position:
    """One seat's decision: its view (all the learner may use) and the cups, for afterwards."""

    view: SeatView
    hands: tuple[tuple[int, ...], ...]  #: every seat's live hand (shown only after the answer)


@dataclass(frozen=True, slots=True)
class Answer:
    """What the learner did: "call", "exact" or "raise" (with its bid)."""

    kind: str
    bid: Bid | None = None


def generate_position(rules: Rules, rng: random.Random, bots: Sequence[Bot] = SIM_BOTS) -> Position:
    """A decision drawn from bot games: at each turn with a bid standing the game stops with
    chance STOP_CHANCE, and the view of the seat to move is the position."""
    players: list[Bot] = [rng.choice(list(bots)) for _ in range(rules.seats)]
    for _ in range(MAX_GAMES):
        state: GameState = new_game(rules)
        while state.phase != Phase.GAME_OVER:
            hands = roll(rng, state.dice)
            starter = rng.choice(state.survivors) if state.starter is None else None
            state = apply(state, Deal(starter))
            while state.phase == Phase.BIDDING:
                mover = state.turn
                assert mover is not None
                if state.bids and rng.random() < STOP_CHANCE:
                    return Position(seat_view(state, mover, hands[mover]), hands)
                action, _ = decide_safely(players[mover], state, mover, hands[mover], rng)
                state = apply(state, action)
            state = apply(state, Reveal(hands))
            if state.phase == Phase.ROUND_OVER:
                assert state.next_starter is not None
                state = apply(state, StartNextRound(state.next_starter))
    raise RuntimeError("no position drawn: the simulated games had no bid to answer")


def holds_chance(view: SeatView, bid: Bid) -> float:
    """The exact chance that `bid` holds, over every way the dice unseen by `view` can fall."""
    return bid_true_chance(view, bid)


def exactly_chance(view: SeatView, bid: Bid) -> float:
    """The exact chance that the count is exactly `bid.quantity`, given the same dice."""
    return exact_chance(view, bid)


@dataclass(frozen=True, slots=True)
class Figures:
    """Every move's chance of succeeding if settled now, from the dice alone."""

    standing: Bid
    holds: float  #: P(the standing bid holds)
    exactly: float  #: P(the count is exactly the standing bid)
    exact_allowed: bool
    best_raise: Bid | None  #: the legal raise most likely to hold (lowest first on ties)
    best_raise_holds: float

    @property
    def call_wins(self) -> float:
        return 1.0 - self.holds

    def options(self) -> dict[str, float]:
        out = {"call": self.call_wins}
        if self.exact_allowed:
            out["exact"] = self.exactly
        if self.best_raise is not None:
            out["raise"] = self.best_raise_holds
        return out

    @property
    def best(self) -> str:
        """The kind of the best move (a call before a raise on a tie: it ends the round)."""
        options = self.options()
        return max(options, key=lambda k: (options[k], k != "raise"))


def figures(view: SeatView) -> Figures:
    standing = view.standing_bid
    assert standing is not None, "a drill position always has a bid standing"
    best_raise, best_holds = None, -1.0
    for bid in view.legal_bids():  # increasing quantity then face: the first best is lowest
        chance = holds_chance(view, bid)
        if chance > best_holds + 1e-12:
            best_raise, best_holds = bid, chance
    return Figures(
        standing=standing,
        holds=holds_chance(view, standing),
        exactly=exactly_chance(view, standing),
        exact_allowed=view.can_exact,
        best_raise=best_raise,
        best_raise_holds=max(best_holds, 0.0),
    )


def answer_chance(view: SeatView, answer: Answer) -> float:
    """The chance the learner's move succeeds if settled now."""
    standing = view.standing_bid
    assert standing is not None
    if answer.kind == "call":
        return 1.0 - holds_chance(view, standing)
    if answer.kind == "exact":
        return exactly_chance(view, standing)
    assert answer.bid is not None
    return holds_chance(view, answer.bid)


def crosses_aces(rules: Rules, standing: Bid, bid: Bid | None) -> bool:
    """Whether a raise from `standing` to `bid` is an aces conversion (onto or off ones)."""
    if rules.ones != Ones.ACES or bid is None:
        return False
    return (standing.face == 1) != (bid.face == 1)


def skill_of(view: SeatView, fig: Figures, answer: Answer) -> str:
    """The one skill a position scores: aces when the learner's raise converts to or from
    aces on an aces table, or the best move is a raise that does; else calling when a call
    has the highest chance, else raising."""
    rules = view.rules
    # Conversions apply only while ones are wild aces (not in a palifico round that makes
    # them a plain face).
    if view.wild_ones and (
        (fig.best == "raise" and crosses_aces(rules, fig.standing, fig.best_raise))
        or crosses_aces(rules, fig.standing, answer.bid)
    ):
        return "aces"
    return "raising" if fig.best == "raise" else "calling"


@dataclass(frozen=True, slots=True)
class Advice:
    """What `hard` does in the view, and one line why, with its own figures."""

    action: str  #: "call", "exact" or "raise"
    bid: Bid | None
    why: str


def advise(position: Position) -> Advice:
    """The strong bot's move for the position's view, and why. It is given the view only:
    the hidden hands are never read (a test swaps them and compares the advice)."""
    view = position.view
    action = likeliest(hard_policy(view))
    standing = view.standing_bid
    assert standing is not None
    believed, hit = believed_chances(view, standing)  # the figures hard decided by
    if isinstance(action, Challenge):
        why = (
            f"hard calls Liar: reading the bids, it puts {bid_words(standing)} at "
            f"{believed:.0%} to hold"
        )
        return Advice("call", None, why)
    if isinstance(action, ExactCall):
        why = f"hard calls Exact: reading the bids, it puts exactly {bid_words(standing)} at {hit:.0%}"
        return Advice("exact", None, why)
    assert isinstance(action, PlaceBid)
    bid = action.bid
    why = (
        f"hard raises to {bid_words(bid)}: reading the bids, it puts that at "
        f"{believed_chances(view, bid)[0]:.0%} to hold, and {bid_words(standing)} "
        f"at {believed:.0%}"
    )
    return Advice("raise", bid, why)


@dataclass(frozen=True, slots=True)
class Verdict:
    right: bool
    skill: str
    chance: float  #: the learner's move's chance
    rival: str  #: the best move of another kind ("" when there is none)
    rival_chance: float
    reason: str  #: why it is right or not, in words with the figures


def option_words(fig: Figures, kind: str) -> str:
    """One kind of move's chance in words: "calling Liar wins 85.1%"."""
    if kind == "call":
        return f"calling Liar wins {fig.call_wins:.1%}"
    if kind == "exact":
        return f"calling Exact is right {fig.exactly:.1%}"
    assert fig.best_raise is not None
    return f"the safest raise, {bid_words(fig.best_raise)}, holds {fig.best_raise_holds:.1%}"


def judge(position: Position, answer: Answer) -> Verdict:
    view = position.view
    fig = figures(view)
    chance = answer_chance(view, answer)
    # A raise is measured against the calls; a call against the safest raise and the other call.
    rivals = {kind: c for kind, c in fig.options().items() if kind != answer.kind}
    rival = max(rivals, key=lambda k: rivals[k]) if rivals else ""
    rival_chance = rivals.get(rival, 0.0)
    right = chance >= rival_chance - RIGHT_MARGIN - 1e-12
    if not rival:
        reason = "nothing else was open"
    elif right and rival_chance > chance:
        reason = f"close enough: {option_words(fig, rival)}, within {RIGHT_MARGIN:.0%}"
    elif right:
        reason = "no other kind of move does better"
    else:
        reason = f"{option_words(fig, rival)}, more often"
    return Verdict(
        right=right,
        skill=skill_of(view, fig, answer),
        chance=chance,
        rival=rival,
        rival_chance=rival_chance,
        reason=reason,
    )


@dataclass(frozen=True, slots=True)
class DrillProgress:
    """The drill's running score per skill, and how many positions were drawn (which seeds
    the next one, so a resumed drill goes on with new positions)."""

    drawn: int = 0
    right: Mapping[str, int] = field(default_factory=dict)
    asked: Mapping[str, int] = field(default_factory=dict)

    def score(self, verdict: Verdict) -> DrillProgress:
        skill = verdict.skill
        return replace(
            self,
            right={**self.right, skill: self.right.get(skill, 0) + int(verdict.right)},
            asked={**self.asked, skill: self.asked.get(skill, 0) + 1},
        )

    def next_seed(self) -> tuple[int, DrillProgress]:
        return self.drawn, replace(self, drawn=self.drawn + 1)

    def line(self) -> str:
        return "   ".join(
            f"{skill} {self.right.get(skill, 0)}/{self.asked.get(skill, 0)}" for skill in SKILLS
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "drawn": self.drawn,
            "skills": {
                s: {"right": self.right.get(s, 0), "asked": self.asked.get(s, 0)} for s in SKILLS
            },
        }

    @classmethod
    def from_json(cls, obj: Any) -> DrillProgress:
        if not isinstance(obj, dict) or obj.get("version") != 1:
            raise ValueError("not a drill progress file")
        skills = obj.get("skills", {})
        right, asked = {}, {}
        for s in SKILLS:
            entry = skills.get(s, {})
            r, a = int(entry.get("right", 0)), int(entry.get("asked", 0))
            if not 0 <= r <= a:
                raise ValueError(f"bad score for {s}")
            right[s], asked[s] = r, a
        drawn = int(obj.get("drawn", 0))
        if drawn < 0:
            raise ValueError("bad position count")
        return cls(drawn=drawn, right=right, asked=asked)


def position_for(rules: Rules, number: int) -> Position:
    """The drill's position number `number` on these rules (the same every time)."""
    return generate_position(rules, random.Random(f"p2pdice-drill-{number}"))
