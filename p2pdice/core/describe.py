"""Plain-English lines for game events, shared by simulate, verify and the terminal client."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .bids import Bid, ones_are_wild
from .game import Call, Outcome, RoundResult
from .rules import Rules

#: How many hex digits of a player key are shown beside its name (`stats`): enough to tell
#: keys apart in practice, and so the fewest `review --key` takes.
KEY_DIGITS_SHOWN = 8


def short_key(key: str) -> str:
    """The start of a key (hex) as shown beside a name: "fc448c02"."""
    return key[:KEY_DIGITS_SHOWN]


def amount(n: int, one: str, many: str | None = None) -> str:
    """A count and its noun, singular or plural: "1 game", "2 games", "1 die", "3 dice"."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def bid_words(bid: Bid) -> str:
    face = "one" if bid.face == 1 else str(bid.face)
    plural = "s" if bid.quantity != 1 else ""
    return f"{bid.quantity} x {face}{plural}"


def hand_text(hand: Sequence[int] | None) -> str:
    if hand is None:
        return "[not opened]"
    return "[" + " ".join(str(d) for d in hand) + "]" if hand else "[out]"


def ranking_places(
    ranking: Sequence[int], names: Sequence[str] | Mapping[int, str], shared: int = 0
) -> list[str]:
    """Each place of a ranking, best first: "1. Ann". A seat without a name shows its number.
    The first `shared` seats share 1st: the seats still in when the game ended, one (the
    winner) unless it ended early (RULES.md R6 lists several by seat number only)."""
    return [
        f"{1 if index < shared else index + 1}. {_name(names, seat)}"
        for index, seat in enumerate(ranking)
    ]


def ranking_line(
    ranking: Sequence[int],
    names: Sequence[str] | Mapping[int, str],
    separator: str = "  ",
    shared: int = 0,
) -> str:
    """A ranking on one line: "1. Ann  2. Bob" (or "1. Ann  1. Bob" when they share 1st)."""
    return separator.join(ranking_places(ranking, names, shared))


def _name(names: Sequence[str] | Mapping[int, str], seat: int) -> str:
    if isinstance(names, Mapping):
        return str(names.get(seat, seat))
    return names[seat] if 0 <= seat < len(names) else str(seat)


def outcome_line(result: RoundResult, name: Sequence[str], rules: Rules) -> str:
    """One sentence: what was called, what was counted and who paid."""
    if result.void:
        return "a contribution never arrived: the round is void and replayed, nobody loses a die"
    if result.outcome == Outcome.FORFEIT:
        who = ", ".join(name[s] for s in result.forfeited)
        out = "is out" if len(result.forfeited) == 1 else "are out"
        return f"{who} did not show their dice in time and {out}: the round is played again with new dice"
    bid = result.bid
    assert bid is not None and result.caller is not None
    wild_counted = ones_are_wild(rules, result.palifico_round) and bid.face != 1
    wild = " (ones wild)" if wild_counted else ""
    counted = f"{result.count} {'die shows' if result.count == 1 else 'dice show'} {bid.face}{wild}"
    if any(h is None for h in result.hands):
        counted = f"at least {counted} among the opened hands"
    call = "exact" if result.call == Call.EXACT else "Liar"
    head = f"{name[result.caller]} called {call} on {bid_words(bid)}: {counted}"
    paid = [
        before - after for before, after in zip(result.dice_before, result.dice_after, strict=True)
    ]
    if result.outcome in (Outcome.BID_STANDS, Outcome.BID_FAILS):
        seat = result.caller if result.outcome == Outcome.BID_STANDS else _seat(result.bidder)
        many = paid[seat]
        dice = "a die" if many == 1 else f"{many} dice"
        verdict = "stands" if result.outcome == Outcome.BID_STANDS else "fails"
        tail = f"the bid {verdict}, {name[seat]} loses {dice}"
    elif result.outcome == Outcome.EXACT_HIT and any(n > 0 for n in paid):
        tail = "exact! everyone else loses a die"
    elif result.outcome == Outcome.EXACT_HIT:
        tail = (
            f"exact! {name[result.caller]} regains a die"
            if result.gainer is not None
            else f"exact! {name[result.caller]} already holds the most dice allowed"
        )
    else:
        tail = f"not exactly {bid.quantity}, {name[result.caller]} loses a die"
    line = f"{head} - {tail}"
    for seat in result.eliminated:
        line += f"; {name[seat]} is out"
    return line


def _seat(seat: int | None) -> int:
    assert seat is not None
    return seat
