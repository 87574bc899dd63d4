"""The course `p2pdice learn` teaches: scripted rounds with fixed dice, and the coach's words.

Every lesson is one decision at a real table: the hands are fixed, the other seats' bids are
scripted, and the round runs on the rules engine itself (`game.apply`), so a lesson can only
show what a real game would. The coach is a pure function of the lesson, the rules and the
move: it says why an illegal move is refused and why a legal but poor one is poor, in words a
newcomer can use. The terminal adapter (p2pdice.ui.learn) only shows what this module says.

Progress is plain data here too (`Progress`): which lessons are done and where to resume;
reading and writing its file is the command line's job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bids import Bid, count_matching, die_counts, ones_are_wild
from .chance import at_least, face_probability
from .errors import Reason, RuleError
from .frozen import replace
from .game import (
    Call,
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Outcome,
    PlaceBid,
    Reveal,
    RoundResult,
    StartNextRound,
    apply,
    new_game,
)
from .grading import KEPT_RESULTS, GradedResult
from .rules import (
    ChallengePenalty,
    ExactReward,
    FirstStarter,
    Ones,
    Palifico,
    PalificoKind,
    Rules,
)

YOU = 0  #: the learner always sits in seat 0
NAMES = ("You", "Ada", "Bo")  #: the scripted players beside the learner


@dataclass(frozen=True, slots=True)
class Move:
    """What the learner did: `kind` is "bid", "liar" or "exact"; `bid` only for a bid."""

    kind: str
    bid: Bid | None = None

    def __str__(self) -> str:
        if self.kind == "bid" and self.bid is not None:
            return f"bid {self.bid}"
        return "call Liar" if self.kind == "liar" else "call Exact"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The coach's answer to a move: `accepted` moves play on; the text says why either way."""

    accepted: bool
    text: str


#: What a lesson practises, beyond playing well: None accepts a good move, a text asks for the
#: kind of move the lesson is about (the aces lessons ask for a conversion).
Aim = Callable[[Rules, GameState, tuple[int, ...], Move], str | None]


def _any(rules: Rules, state: GameState, hand: tuple[int, ...], move: Move) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class Prelude:
    """A round played before the lesson's own, so that the lesson's round is one the rules
    produce: its hands (their sizes are the dice each seat holds), the bids from the first
    seat on, and who calls Liar on the last."""

    hands: tuple[tuple[int, ...], ...]
    bids: tuple[tuple[int, Bid], ...]
    caller: int


@dataclass(frozen=True, slots=True)
class Lesson:
    key: str
    title: str
    #: What to try, shown above the table: a text, or one written for the table's rules (the
    #: house rules change what a call costs and what a palifico round fixes).
    coach: str | Callable[[Rules], str]
    hands: tuple[tuple[int, ...], ...]  #: seat 0 is the learner
    bids: tuple[tuple[int, Bid], ...] = ()  #: scripted bids before the learner's turn
    starter: int = YOU
    #: The round before, played on the engine (the palifico lesson: the learner falls to one
    #: die, so the engine makes the next round a palifico round that the learner opens).
    prelude: Prelude | None = None
    aim: Aim = _any
    #: Which rules this lesson needs (aces lessons only where ones are aces, ...).
    applies: Callable[[Rules], bool] = field(default=lambda rules: True)


# ---- the coach's words ------------------------------------------------------------------------


def coach_text(lesson: Lesson, rules: Rules) -> str:
    """What the coach says before the learner's move, at a table with `rules`."""
    return lesson.coach if isinstance(lesson.coach, str) else lesson.coach(rules)


def penalty_text(rules: Rules) -> str:
    """What losing a Liar call costs at this table."""
    if rules.challenge_penalty == ChallengePenalty.DIFFERENCE:
        return (
            "whoever is wrong loses the difference between the count and the bid, at least one die"
        )
    return "whoever is wrong loses one die"


def exact_reward_text(rules: Rules) -> str:
    """What a right exact call earns at this table."""
    if rules.exact_reward == ExactReward.OTHERS_LOSE:
        return "every other player loses a die"
    return "you win a die back (never more than you started with)"


def face_name(face: int, quantity: int = 2) -> str:
    return f"{face}{'s' if quantity != 1 else ''}"


def explain_reason(reason: Reason, rules: Rules, state: GameState, move: Move) -> str:
    """Why the engine refused `move`, in words."""
    prev = state.standing_bid
    bid = move.bid
    if reason == Reason.BID_NOT_HIGHER and bid is not None and prev is not None:
        if rules.ones == Ones.ACES and prev.face != 1 and bid.face == 1:
            need = -(-prev.quantity // 2)
            return (
                f"Onto ones you need at least half of {prev.quantity}, rounded up: "
                f"{need} x 1s or more. Ones count for every face, so fewer are needed."
            )
        if rules.ones == Ones.ACES and prev.face == 1 and bid.face != 1:
            need = 2 * prev.quantity + 1
            return (
                f"Leaving ones needs twice {prev.quantity} plus one: {need} x "
                f"{face_name(bid.face)} or more."
            )
        return f"{bid} does not raise {prev}: bid more dice, or the same number of a higher face."
    if reason == Reason.FACE_NOT_ALLOWED and bid is not None:
        if rules.ones == Ones.WILD:
            return "Ones are wild on this table: they count for every face, so nobody bids them."
        return "With aces you may not open on ones: open on another face and convert later."
    if reason == Reason.FACE_FIXED:
        return (
            "This is a palifico round: the opening face is fixed. Raise the quantity of "
            f"{face_name(prev.face) if prev else 'that face'} instead."
        )
    if reason == Reason.QUANTITY_TOO_HIGH:
        return f"There are only {state.dice_in_play} dice on the table; a bid cannot claim more."
    if reason == Reason.NO_BID_TO_CHALLENGE:
        return "Nobody has bid yet, so there is nothing to call: open with a bid."
    if reason == Reason.EXACT_CALL_DISABLED:
        return "This table does not allow exact calls."
    return f"That move is not allowed here ({reason})."


def judge(lesson: Lesson, rules: Rules, state: GameState, move: Move) -> Verdict:
    """The coach on the learner's move: refused with the reason, or the lesson's verdict."""
    try:
        apply(state, _event(move))
    except RuleError as err:
        return Verdict(False, explain_reason(err.reason, rules, state, move))
    hand = lesson.hands[YOU]
    why = poor_move(rules, state, hand, move) or lesson.aim(rules, state, hand, move)
    if why is not None:
        return Verdict(False, why)
    return Verdict(True, f"Good: you {move}.")


def _event(move: Move) -> PlaceBid | Challenge | ExactCall:
    if move.kind == "bid":
        assert move.bid is not None
        return PlaceBid(YOU, move.bid)
    return Challenge(YOU) if move.kind == "liar" else ExactCall(YOU)


def wild(rules: Rules, state: GameState) -> bool:
    return ones_are_wild(rules, state.palifico_round)


def unseen(state: GameState) -> int:
    return state.dice_in_play - state.dice[YOU]


def _seen_and_chance(
    rules: Rules, state: GameState, hand: tuple[int, ...], face: int
) -> tuple[int, float]:
    w = wild(rules, state)
    seen = sum(1 for d in hand if die_counts(d, face, wild_ones=w))
    return seen, face_probability(face, wild_ones=w)


def estimate(rules: Rules, state: GameState, hand: tuple[int, ...], face: int) -> float:
    """How many dice the learner can expect to count for `face`: the ones they see, plus the
    unseen dice times the chance that one counts (lesson 9 teaches it)."""
    seen, p = _seen_and_chance(rules, state, hand, face)
    return seen + unseen(state) * p


def chance_text(rules: Rules, state: GameState, hand: tuple[int, ...], bid: Bid) -> str:
    """The chance that `bid` holds from the learner's own dice, as a percentage ('52%'; never
    '0%' or '100%' for what is merely unlikely or likely)."""
    seen, p = _seen_and_chance(rules, state, hand, bid.face)
    chance = at_least(bid.quantity - seen, unseen(state), p)
    if 0.0 < chance < 0.005:
        return "less than 1%"
    if 0.995 <= chance < 1.0:
        return "more than 99%"
    return f"{chance:.0%}"


def estimate_text(rules: Rules, state: GameState, hand: tuple[int, ...], face: int) -> str:
    """'You see 3; expect 3.3 of the 10 unseen: about 6.3' for a bid on `face`."""
    seen, p = _seen_and_chance(rules, state, hand, face)
    expected = unseen(state) * p
    return (
        f"You see {seen} that count for {face_name(face)}; of the {unseen(state)} unseen dice "
        f"expect {expected:.1f} (1 in {round(1 / p)}): about {seen + expected:.1f} in all."
    )


def poor_move(rules: Rules, state: GameState, hand: tuple[int, ...], move: Move) -> str | None:
    """The course's one rule for a legal move that is poor at that moment, the same in every
    lesson, measured against the estimate (your dice that count plus the unseen dice times
    the chance one counts): a bid that claims more than the estimate is likely false; a Liar
    call on a bid no higher than it likely loses; an Exact call is worth making only on the
    bid nearest the estimate. None: the move is sound; else why not, with the figures."""
    prev = state.standing_bid
    if move.kind == "bid":
        bid = move.bid
        assert bid is not None
        about = estimate(rules, state, hand, bid.face)
        if bid.quantity <= about + 1e-9:
            return None
        # Just over the estimate a bid can still hold about half the time (the count's median
        # may sit above its mean), so the words give its chance rather than call it false.
        return (
            f"{bid} is more than you can expect. "
            + estimate_text(rules, state, hand, bid.face)
            + f" It holds {chance_text(rules, state, hand, bid)} of the time given your dice:"
            " bid no more than you expect."
        )
    assert prev is not None  # the engine refuses a call with no bid standing
    about = estimate(rules, state, hand, prev.face)
    nearest = int(about + 0.5)
    if move.kind == "liar":
        if prev.quantity > about + 1e-9:
            return None
        if rules.exact_call and prev.quantity == nearest:
            instead = (
                f" It is the count you expect: call Exact (x); if right, "
                f"{exact_reward_text(rules)}."
            )
        else:
            instead = " Raise instead."
        return (
            estimate_text(rules, state, hand, prev.face)
            + f" {prev} claims no more than that: it holds "
            f"{chance_text(rules, state, hand, prev)} of the time given your dice, so a Liar "
            "call would likely lose." + instead
        )
    if prev.quantity == nearest:
        return None
    return (
        estimate_text(rules, state, hand, prev.face)
        + f" Exactly {prev.quantity} is unlikely: Exact is worth calling on the count you "
        f"expect ({nearest}), and {prev} is not it."
    )


# ---- the course -------------------------------------------------------------------------------


def _onto_ones(rules: Rules, state: GameState, hand: tuple[int, ...], move: Move) -> str | None:
    if move.kind == "bid" and move.bid is not None and move.bid.face == 1:
        return None
    return (
        "A fair move, but this lesson practises converting: bid ones (type 3 1) with half the "
        "dice, rounded up."
    )


def _off_ones(rules: Rules, state: GameState, hand: tuple[int, ...], move: Move) -> str | None:
    if move.kind == "bid" and move.bid is not None and move.bid.face != 1:
        return None
    return (
        "A fair move, but this lesson practises leaving ones: bid another face with twice "
        "plus one (7 x 5s)."
    )


def _palifico_coach(rules: Rules) -> str:
    """The palifico lesson's words for the table's palifico and palifico kind: whether ones
    stay wild, and whether the face the learner opens is fixed (a one-die player may change
    it when palifico is free)."""
    if ones_are_wild(rules, True):
        ones = "Ones stay wild in it at this table"
    elif rules.ones == Ones.NATURAL:
        ones = "Ones are a plain face here, as always"
    else:
        ones = "Ones are not wild in it"
    if rules.palifico_kind == PalificoKind.ONES_NOT_WILD:
        face = "the face is not fixed: bids raise in the usual order"
    elif rules.palifico == Palifico.FREE:
        face = (
            "the face you open is fixed: the others may only raise its number, except a "
            "player holding one die, who may change it"
        )
    else:
        face = "the face you open is fixed: nobody may bid another face this round"
    return (
        "Last round Ada called Liar on your 2 x 6s and you lost a die: you are down to one, "
        "so this is a palifico round, and you open it (whoever falls to one die does). "
        f"{ones}, and {face}. You hold a 5: open with 2 x 5s (type 2 5)."
    )


COURSE: tuple[Lesson, ...] = (
    Lesson(
        key="cup",
        title="Your cup and the table",
        coach="Your five dice are below; the others' are hidden. A bid is about ALL 15 dice "
        "on the table. Open with two 3s: type 2 3 and press Enter.",
        hands=((3, 3, 5, 6, 2), (4, 3, 6, 6, 2), (5, 3, 4, 2, 6)),
    ),
    Lesson(
        key="raising",
        title="Raising: more dice, or a higher face",
        coach="Bo bid 3 x 4s. Raise: the same number of a higher face (3 5) or more dice "
        "(4 5). Try 3 2 first to see why it is refused.",
        hands=((4, 4, 5, 5, 5), (4, 4, 3, 5, 2), (6, 5, 3, 2, 4)),
        bids=((2, Bid(3, 4)),),
        starter=2,
    ),
    Lesson(
        key="liar",
        title="Calling Liar and counting",
        coach=lambda rules: (
            "Bo claims at least 9 x 6s among 15 dice, and you hold none. If "
            "you think a bid is false, call Liar: press l. Then everyone lifts their cup and "
            f"counts, and {penalty_text(rules)}."
        ),
        hands=((2, 3, 3, 4, 5), (6, 2, 4, 5, 3), (6, 6, 3, 2, 4)),
        bids=((1, Bid(3, 6)), (2, Bid(9, 6))),
        starter=1,
    ),
    Lesson(
        key="wild",
        title="Wild ones",
        coach="Ones are wild: a 1 counts for any face bid. Bo bid 5 x 4s; count your 4s "
        "with your ones, then raise (try 6 4).",
        hands=((1, 1, 4, 4, 2), (4, 3, 6, 1, 5), (2, 4, 5, 6, 3)),
        bids=((2, Bid(5, 4)),),
        starter=2,
        applies=lambda rules: rules.ones != Ones.NATURAL,
    ),
    Lesson(
        key="aces-on",
        title="Aces: bidding ones",
        coach="With aces you may bid ones: onto ones needs half the quantity, rounded up. "
        "Bo bid 6 x 5s: 3 x 1s is enough. Type 3 1 and Enter (2 1 is too few).",
        hands=((1, 1, 1, 3, 5), (5, 1, 2, 6, 4), (5, 5, 3, 1, 2)),
        bids=((2, Bid(6, 5)),),
        starter=2,
        aim=_onto_ones,
        applies=lambda rules: rules.ones == Ones.ACES,
    ),
    Lesson(
        key="aces-off",
        title="Aces: leaving ones",
        coach="Leaving ones needs twice the quantity plus one. Bo converted to 3 x 1s: to bid 5s you "
        "need 7 x 5s. Type 7 5 and Enter (6 5 is too few).",
        hands=((5, 5, 1, 1, 5), (5, 1, 2, 6, 4), (5, 5, 3, 1, 2)),
        bids=((1, Bid(6, 4)), (2, Bid(3, 1))),
        starter=1,
        aim=_off_ones,
        applies=lambda rules: rules.ones == Ones.ACES,
    ),
    Lesson(
        key="exact",
        title="The exact call",
        coach=lambda rules: (
            "If you think a bid is exactly right, call Exact (x): right, and "
            f"{exact_reward_text(rules)}; wrong, and you lose one. You hold four dice, one "
            "lost earlier. Bo bid 5 x 3s: you see two 3s, and a third of the 10 unseen dice "
            "(3.3) should count: about 5."
        ),
        hands=((3, 3, 6, 2), (3, 4, 5, 6, 6), (1, 3, 2, 5, 6)),
        bids=((1, Bid(3, 3)), (2, Bid(5, 3))),
        starter=1,
        applies=lambda rules: rules.exact_call and rules.ones != Ones.NATURAL,
    ),
    Lesson(
        key="palifico",
        title="Palifico: the one-die round",
        coach=lambda rules: _palifico_coach(rules),
        hands=((5,), (5, 2, 3), (6, 5, 2)),
        prelude=Prelude(hands=((6, 2), (4, 3, 5), (2, 3, 5)), bids=((0, Bid(2, 6)),), caller=1),
        applies=lambda rules: rules.palifico != Palifico.OFF,
    ),
    Lesson(
        key="estimate",
        title="Estimating: what you see plus what you expect",
        coach="Estimate a bid: the dice you see that count, plus the share of the unseen "
        "dice expected to count. Bo bid 8 x 3s. Is it likely? Call Liar (l) or raise.",
        hands=((3, 3, 1, 5, 2), (4, 3, 6, 2, 5), (6, 2, 4, 5, 6)),
        bids=((1, Bid(6, 3)), (2, Bid(8, 3))),
        starter=1,
    ),
)


def course(rules: Rules) -> tuple[Lesson, ...]:
    """The lessons for a table with `rules`, in teaching order."""
    return tuple(lesson for lesson in COURSE if lesson.applies(rules))


def lesson_rules(rules: Rules) -> Rules:
    """The rules a lesson table plays: the learner's options, three seats of five dice."""
    return rules.with_options(seats=3, starting_dice=5, first_starter=FirstStarter.SEAT0)


def start(lesson: Lesson, rules: Rules) -> GameState:
    """The lesson's table on the learner's turn: dealt, the scripted bids placed. A lesson
    with a prelude plays that round first on the engine, which then says who starts the
    lesson's round and whether it is a palifico round."""
    prelude = lesson.prelude
    first = YOU if prelude is not None else lesson.starter
    table = lesson_rules(rules).with_options(first_starter=FirstStarter(f"seat{first}"))
    state = new_game(table)
    if prelude is not None:
        state = apply(_holding(state, prelude.hands), Deal())
        for seat, bid in prelude.bids:
            state = apply(state, PlaceBid(seat, bid))
        state = apply(apply(state, Challenge(prelude.caller)), Reveal(prelude.hands))
        assert state.next_starter is not None
        state = apply(state, StartNextRound(state.next_starter))
        if state.dice != _sizes(lesson.hands):
            raise ValueError(f"lesson {lesson.key}: its prelude leaves the dice {state.dice}")
    else:
        state = _holding(state, lesson.hands)
    state = apply(state, Deal())
    for seat, bid in lesson.bids:
        state = apply(state, PlaceBid(seat, bid))
    if state.turn != YOU:
        raise ValueError(f"lesson {lesson.key}: it is seat {state.turn}'s turn, not yours")
    return state


def _sizes(hands: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    return tuple(len(h) for h in hands)


def _holding(state: GameState, hands: tuple[tuple[int, ...], ...]) -> GameState:
    """A new game with each seat holding as many dice as its scripted hand: a game in
    progress, whose earlier losses the lesson does not show (the engine checks the hands
    against these sizes when they are revealed)."""
    return replace(state, dice=_sizes(hands))


@dataclass(frozen=True, slots=True)
class Finish:
    """The round after the learner's move: the call, the reveal and the counting question."""

    state: GameState  #: after the move and, for a bid, the next seat's scripted call
    result: RoundResult
    face: int
    answer: int  #: how many dice count for the called bid's face
    question: str
    story: str  #: who called what: shown with the open cups, above the question
    #: the count and who lost or won dice: shown only once the question is answered, so the
    #: question never gives away its own answer
    outcome: str


def play(lesson: Lesson, rules: Rules, state: GameState, move: Move) -> Finish:
    """Play an accepted move to the reveal: a learner's bid is called Liar by the next seat."""
    after = apply(state, _event(move))
    if move.kind == "bid":
        caller = after.turn
        assert caller is not None
        after = apply(after, Challenge(caller))
        story = f"{NAMES[caller]} calls Liar on your {move.bid}."
    else:
        standing = state.bids[-1]
        call = "Liar" if move.kind == "liar" else "Exact"
        story = f"You call {call} on {NAMES[standing.seat]}'s {standing.bid}."
    story += " Every cup is lifted."
    shown = apply(after, Reveal(lesson.hands))
    result = shown.results[-1]
    bid = result.bid
    assert bid is not None and result.count is not None
    w = ones_are_wild(rules, state.palifico_round)
    ones = " (everyone's ones count too: they are wild)" if w and bid.face != 1 else ""
    return Finish(
        state=shown,
        result=result,
        face=bid.face,
        answer=count_matching(lesson.hands, bid.face, wild_ones=w),
        question=f"How many {face_name(bid.face)} count here{ones}? Type the number, Enter.",
        story=story,
        outcome=_outcome_text(result, state.rules),
    )


def _outcome_text(result: RoundResult, rules: Rules) -> str:
    """Who lost how many dice and who won one back, and why, by the table's house rules."""
    bid = result.bid
    assert bid is not None and result.count is not None
    changes = []
    for seat, (before, after) in enumerate(zip(result.dice_before, result.dice_after, strict=True)):
        you = seat == YOU
        if after < before:
            n = before - after
            out = f" and {'are' if you else 'is'} out" if after == 0 else ""
            dice = "a die" if n == 1 else f"{n} dice"
            changes.append(f"{'you' if you else NAMES[seat]} lose{'' if you else 's'} {dice}{out}")
        elif after > before:
            changes.append(f"{'you' if you else NAMES[seat]} win{'' if you else 's'} a die back")
    said = " and ".join(changes) if changes else "nobody loses a die"
    why = ""
    if result.call == Call.CHALLENGE and rules.challenge_penalty == ChallengePenalty.DIFFERENCE:
        owed = max(1, abs(result.count - bid.quantity))
        losers = [s for s, n in enumerate(result.dice_after) if n < result.dice_before[s]]
        held = result.dice_before[losers[0]] if losers else owed
        capped = f", and nobody gives up more than they hold ({held})" if held < owed else ""
        why = (
            " At this table the loser gives up the difference between the count and the bid, "
            f"at least one: {result.count} against {bid.quantity}, so {owed}{capped}."
        )
    elif result.outcome == Outcome.EXACT_HIT and rules.exact_reward == ExactReward.OTHERS_LOSE:
        why = " At this table a right exact call costs every other player a die."
    elif result.outcome == Outcome.EXACT_HIT and result.gainer is None:
        assert result.caller is not None
        you = result.caller == YOU
        why = (
            f" {NAMES[result.caller]} already {'hold' if you else 'holds'} every die "
            f"{'you' if you else 'they'} started with, so there is none to win back."
        )
    there = "There is" if result.count == 1 else "There are"
    return f"{there} {result.count} for {bid}: {said}.{why}"


def check_answer(lesson: Lesson, rules: Rules, finish: Finish, answer: int) -> Verdict:
    """The coach on the counting question: right, or the count seat by seat."""
    if answer == finish.answer:
        return Verdict(True, f"Right: {finish.answer}. {finish.outcome} Lesson done.")
    w = ones_are_wild(rules, finish.result.palifico_round)
    parts = [
        f"{NAMES[s]} {sum(1 for d in h if die_counts(d, finish.face, wild_ones=w))}"
        for s, h in enumerate(lesson.hands)
    ]
    extra = " Ones are wild, so count them too." if w and finish.face != 1 else ""
    return Verdict(
        False,
        f"Not {answer}: count each cup: {', '.join(parts)}, so {finish.answer}.{extra} Try again.",
    )


# ---- progress ---------------------------------------------------------------------------------

PROGRESS_VERSION = 1


@dataclass(frozen=True, slots=True)
class Progress:
    """Which lessons are done (by key), the drill's score per skill, and the graded match's
    results (the newest last)."""

    done: tuple[str, ...] = ()
    drill: Mapping[str, tuple[int, int]] = field(default_factory=dict)  #: skill: (right, tried)
    graded: tuple[GradedResult, ...] = ()

    def finish(self, key: str) -> Progress:
        return self if key in self.done else replace(self, done=(*self.done, key))

    def with_graded(self, result: GradedResult) -> Progress:
        """The results with `result` added: the newest KEPT_RESULTS of its setting are kept."""
        kept = (*self.graded, result)
        mine = [i for i, r in enumerate(kept) if r.setting == result.setting]
        drop = set(mine[:-KEPT_RESULTS])
        return replace(self, graded=tuple(r for i, r in enumerate(kept) if i not in drop))

    def graded_on(self, setting: str) -> tuple[GradedResult, ...]:
        """The results of the graded match played on this setting (grading.setting_of), the
        newest last: a course never shows a grade earned on other house rules."""
        return tuple(r for r in self.graded if r.setting == setting)

    def next_lesson(self, lessons: tuple[Lesson, ...]) -> int:
        """Where to go on: the first lesson not done (or the first, when all are)."""
        for i, lesson in enumerate(lessons):
            if lesson.key not in self.done:
                return i
        return 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": PROGRESS_VERSION,
            "done": list(self.done),
            "drill": {k: list(v) for k, v in self.drill.items()},
            "graded": [r.to_json() for r in self.graded],
        }

    @classmethod
    def from_json(cls, obj: Any) -> Progress:
        """Read a saved progress object; anything unreadable starts afresh."""
        if not isinstance(obj, Mapping) or obj.get("version") != PROGRESS_VERSION:
            return cls()
        done = tuple(k for k in obj.get("done", ()) if isinstance(k, str))
        drill: dict[str, tuple[int, int]] = {}
        raw = obj.get("drill", {})
        if isinstance(raw, Mapping):
            for k, v in raw.items():
                if isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) for n in v):
                    drill[str(k)] = (v[0], v[1])
        raw_graded = obj.get("graded", [])
        listed = raw_graded if isinstance(raw_graded, list) else []
        read = (GradedResult.from_json(r) for r in listed)
        progress = cls(done=done, drill=drill)
        for result in read:
            if result is not None:
                progress = progress.with_graded(result)
        return progress
