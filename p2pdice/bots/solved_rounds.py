"""Solved heads-up rounds with uneven dice: the stored tables and how hard reads them.

With two seats left and one of them down to its last die against two or three, one round
is a small game: a bid sequence only rises, so the public state is a set of bids, and the
result of the round is worth the chance of winning the game that follows (the solved game
one die smaller, or the end). benchmarks/uneven_endgames.py solves these rounds with CFR+
(benchmarks/cfr_arrays.py) and writes bots/uneven_tables.py; hard plays the stored mixed
moves there, as it plays bots/endgame.py when both seats hold one die.

The tables hold only the seat with the last die. With more dice than its opponent, hard's
own play won more than the equilibrium's against the styles measured (docs/bots.md, "This
version: heads-up with the last die, the solved round"): there the equilibrium gives up
the exploitation a bigger hand affords, and with the last die its guarantee is worth more.

Table format
------------
One table per (ones mode, the opener's dice, the follower's dice, seat, hand) and, for
the follower, per opening bid, keyed `"<mode> <opener dice>v<follower dice> <seat> <hand>"`
with the hand's dice sorted and written as digits, and the follower's ` <opening bid
index>` after it (`"wild 1v2 0 3"`, `"wild 2v1 1 4 7"`). A table is decoded whole when
first needed, so each is kept small (the largest holds 15,024 records). The value is
base64 of zlib-compressed bytes: the seat's records in a fixed walk over bid histories,
from the history where the seat first moves (none for the opener, the opening bid for the
follower), so that no history is stored.

walk(history) reads, where the seat moves (the history's length has the seat's parity),
one record: a count n, then n pairs (action, weight), the action a bid index or 255 for
Liar, and the weight 1-255 (the chances are the weights over their sum); it then walks
history + (a,) for each bid a of the record, in order. Where the other seat moves, it
walks history + (b,) for every bid b above the standing one, in order (the other seat may
raise to any of them; a Liar ends the round). Bid indices are into the round's bids in
(quantity, face) order, which in classic and natural are exactly the raises open after
any bid: every later bid.
"""

from __future__ import annotations

import base64
import zlib
from functools import lru_cache

from ..core.bids import Bid, legal_bids
from ..core.game import Action, Challenge, PlaceBid
from ..core.rules import ChallengePenalty, Ones, Rules
from ..core.view import SeatView

LIAR_CODE = 255  #: the action byte of calling the standing bid
SOLVED_MODES = (Ones.WILD, Ones.NATURAL)  #: the ones modes with solved rounds

Record = tuple[tuple[int | None, float], ...]  #: (bid index or None for Liar, chance) pairs


def table_key(
    ones: Ones, dice: tuple[int, int], seat: int, hand: tuple[int, ...], opening: int | None
) -> str:
    """The key of a seat's table; `opening`: the opening bid's index (the follower's
    tables), None for the opener's."""
    key = f"{ones.value} {dice[0]}v{dice[1]} {seat} {''.join(map(str, sorted(hand)))}"
    return key if opening is None else f"{key} {opening}"


def encode(
    records: dict[tuple[int, ...], Record], bids: int, seat: int, start: tuple[int, ...] = ()
) -> bytes:
    """The bytes of a seat's records (history -> (bid index or None, chance) pairs), in
    the walk order of the module's docstring from `start`; every history the walk meets
    must be there."""
    out = bytearray()

    def walk(history: tuple[int, ...]) -> None:
        if len(history) % 2 == seat:
            pairs = records[history]
            weights = _weights([chance for _, chance in pairs])
            kept = [(a, w) for (a, _), w in zip(pairs, weights, strict=True) if w > 0]
            out.append(len(kept))
            for action, weight in kept:
                out.extend((LIAR_CODE if action is None else action, weight))
            for action, _ in kept:
                if action is not None:
                    walk((*history, action))
        else:
            for bid in range(history[-1] + 1 if history else 0, bids):
                walk((*history, bid))

    walk(start)
    return bytes(out)


def _weights(chances: list[float]) -> list[int]:
    """Chances as weights 0-255, the largest 255 (so a move is never rounded away whole)."""
    top = max(chances)
    return [min(255, round(255 * c / top)) for c in chances]


def decode(
    data: bytes, bids: int, seat: int, start: tuple[int, ...] = ()
) -> dict[tuple[int, ...], Record]:
    """The records `encode` wrote from `start`. Raises ValueError on bytes that do not
    follow the walk."""
    out: dict[tuple[int, ...], Record] = {}
    pos = 0
    # The walk of the docstring, with a stack in place of recursion (a table is decoded
    # during a move; this is about twice as fast): children pushed last first.
    stack = [start]
    while stack:
        history = stack.pop()
        low = history[-1] + 1 if history else 0
        if len(history) % 2 != seat:
            stack.extend((*history, bid) for bid in range(bids - 1, low - 1, -1))
            continue
        if pos >= len(data):
            raise ValueError("a solved round's table ends early")
        count = data[pos]
        pairs = data[pos + 1 : pos + 1 + 2 * count]
        pos += 1 + 2 * count
        if len(pairs) < 2 * count:
            raise ValueError("a solved round's table ends early")
        actions, weights = pairs[0::2], pairs[1::2]
        total = sum(weights)
        legal = all((a == LIAR_CODE and bool(history)) or low <= a < bids for a in actions)
        if not total or not legal or len(set(actions)) != count:
            raise ValueError(f"a solved round's table holds no legal move after {history}")
        out[history] = tuple(
            (None if a == LIAR_CODE else a, w / total)
            for a, w in zip(actions, weights, strict=True)
        )
        stack.extend((*history, a) for a in reversed(actions) if a != LIAR_CODE)
    if pos != len(data):
        raise ValueError("a solved round's table runs on past its walk")
    return out


def round_bids(rules: Rules, dice: tuple[int, int]) -> tuple[Bid, ...]:
    """Every bid of a heads-up round with these dice, in order (the tables' bid indices)."""
    return tuple(
        legal_bids(rules, None, dice_in_play=sum(dice), palifico_round=False, bidder_dice=dice[0])
    )


def solved_rules(rules: Rules) -> bool:
    """Whether a heads-up round under `rules` is the round the tables solved: wild or
    natural ones, no exact call, one die for a lost challenge (so the game that follows is
    the one whose value the round was solved with). Palifico does not matter: a fall to one
    die opens a palifico round only while more than two seats are left (RULES.md)."""
    return (
        rules.ones in SOLVED_MODES
        and not rules.exact_call
        and rules.challenge_penalty == ChallengePenalty.ONE
    )


@lru_cache(maxsize=64)
def _records(
    key: str, bids: int, seat: int, start: tuple[int, ...]
) -> dict[tuple[int, ...], Record] | None:
    from .uneven_tables import TABLES  # loaded only when such a round is reached

    data = TABLES.get(key)
    if data is None:
        return None
    return decode(zlib.decompress(base64.b64decode(data)), bids, seat, start)


def uneven_round_policy(view: SeatView) -> list[tuple[float, Action]] | None:
    """The solved move of a heads-up round with uneven dice (None where none is stored)."""
    me = view.seat
    if me is None or len(view.survivors) != 2 or view.palifico_round:
        return None
    if not solved_rules(view.rules):
        return None
    other = next(s for s in view.survivors if s != me)
    player = len(view.bids) % 2  # 0: we opened this round (or open it now)
    mine, theirs = view.my_dice, view.dice[other]
    if mine != 1 or theirs == 1:  # the tables hold the seat with the last die (see above)
        return None
    dice = (mine, theirs) if player == 0 else (theirs, mine)
    bids = round_bids(view.rules, dice)
    index = {b: i for i, b in enumerate(bids)}
    history = tuple(index.get(placed.bid, -1) for placed in view.bids)
    if -1 in history:
        return None
    start = history[:player]  # the opening bid, for the follower
    key = table_key(view.rules.ones, dice, player, view.hand, start[0] if start else None)
    records = _records(key, len(bids), player, start)
    if records is None or history not in records:
        return None
    return [
        (chance, Challenge(me) if a is None else PlaceBid(me, bids[a]))
        for a, chance in records[history]
    ]
