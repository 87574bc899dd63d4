"""One verified game, reduced to what statistics and ratings need (docs/stats.md).

A file counts only when the verifier (core.verify) accepts it whole, game-over entry
included; otherwise it is skipped with the verifier's reason code. The facts are then read
from the table machine's own state (core.table.Replayer), never re-derived here; so is who
made each move, by the key that signed it (`Movers`): a round's record says only which seat
bid or called, and a seat is not always played by its player's own key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..core.bids import count_matching, ones_are_wild
from ..core.compare import Transcript, compare_table
from ..core.errors import P2PDiceError, Reason
from ..core.game import RoundResult
from ..core.messages import MessageType
from ..core.rules import OPTION_BY_KEY, OPTIONS, PRESETS, Palifico, Rules
from ..core.table import Replayer, TablePhase, TableState
from ..core.transcript import Entry, parse_entry
from ..core.verify import split_lines, verify_lines

#: The reason code of a file whose table was already counted from another file.
DUPLICATE = "DUPLICATE_TABLE"

#: Who made a move in a seat, as the log shows it by the key that signed it (SPEC.md 4.1,
#: 6.2, 8): the seat's own key (the one that joined it), the host for the seat (a `forced`
#: event, signed by the host key), or a CPU stand-in (a host-run CPU with a key of its own).
#: Only OWN moves are the player's (docs/stats.md).
OWN, HOST, STAND_IN = "own", "host", "stand_in"


@dataclass(frozen=True, slots=True)
class Movers:
    """Who made the moves of one round's record (its `RoundResult`), read from who signed
    them: a mover (OWN, HOST or STAND_IN) per bid of the result's `bids`, in order, and the
    call's (None when the round had none); and the seats a CPU stand-in played that round."""

    bids: tuple[str, ...]
    call: str | None
    stood_in: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    key: str  #: the seat's public key (hex): the identity every figure is kept under
    name: str
    kind: str  #: "human", "cpu" (a CPU its own client runs) or "host_run" (run by the host)


@dataclass(frozen=True, slots=True)
class Game:
    source: str  #: where it was read from (for messages only: never affects a figure)
    table_id: str
    start_hash: str  #: hash of the game's start entry (hex): the order ratings apply games in
    rules: Rules
    kind: str  #: the table kind: standard, practice or pass_and_play
    preset: str  #: the rules group: the nearest preset and what differs from it (preset_of)
    players: tuple[Player, ...]
    results: tuple[RoundResult, ...]
    #: Each seat's place, 1 best, in the order of the game's ranking (RULES.md R6). A
    #: finished game places its winner 1 and the eliminated by when they went out; an
    #: abandoned one places every seat still in at 1 (a draw among them), the eliminated
    #: below; one whose last seats forfeited together places them alike (a draw), where the
    #: rules rank those forfeits: below every seat already out.
    places: tuple[int, ...]
    finished: bool  #: False when abandoned (no winner)
    winner: int | None
    #: Who made each round's moves, one per result (`Movers`): a seat's figures count only
    #: the moves its own key signed.
    movers: tuple[Movers, ...]
    lines: tuple[bytes, ...] = ()  #: the verified log itself (compared, exported)

    @property
    def stood_in(self) -> frozenset[int]:
        """The seats a CPU stand-in played for at least one round: each keeps its place (the
        game's ranking is by seat), marked so, and is rated for none of it (docs/stats.md)."""
        return frozenset(seat for movers in self.movers for seat in movers.stood_in)


@dataclass(frozen=True, slots=True)
class Skipped:
    source: str
    reason: str  #: the verifier's reason code (SPEC.md 9), or DUPLICATE
    detail: str
    #: The file's whole lines, when the reader gave them: what tells a copy of another log
    #: (its first entries, say a seat's copy of a game that ended after it left) from a log
    #: of its own (`distinct_games`). Never affects a figure.
    lines: tuple[bytes, ...] = ()


#: The house rules (RULES.md R4, R5) a group's label names when they change play, each with
#: when it does: a palifico kind without palifico rounds, or an exact reward without exact
#: calls, plays exactly like the default and is not told apart.
HOUSE_RULES: dict[str, Callable[[Rules], bool]] = {
    "palifico_kind": lambda rules: rules.palifico != Palifico.OFF,
    "exact_reward": lambda rules: rules.exact_call,
    "challenge_penalty": lambda rules: True,
}


def preset_of(rules: Rules) -> str:
    """The rules group a game's figures are kept under (docs/stats.md): the name of the
    preset nearest these rules, then, joined by " + ", each preset option they set otherwise
    and each house rule off its default that changes play, as the host form words them
    ("classic", "perudo + challenge penalty difference", "classic + ones natural")."""

    def differing(name: str) -> list[str]:
        return [key for key, value in PRESETS[name].items() if getattr(rules, key) != value]

    nearest = min(sorted(PRESETS), key=lambda name: len(differing(name)))
    changed = set(differing(nearest)) | {
        key
        for key, matters in HOUSE_RULES.items()
        if getattr(rules, key) != OPTION_BY_KEY[key].default and matters(rules)
    }
    words = [
        f"{option.label.lower()} {option.shown(getattr(rules, option.key))}"
        for option in OPTIONS
        if option.key in changed
    ]
    return " + ".join([nearest, *words])


def read_game(source: str, data: bytes) -> Game | Skipped:
    """The game in one transcript file's bytes, or why it is not counted."""
    lines, problem = split_lines(data)
    if problem is not None:
        return Skipped(source, str(problem.reason), problem.detail)
    report = verify_lines(lines)
    if report.failure is not None:
        failure = report.failure
        where = "the transcript" if failure.index is None else f"entry {failure.index}"
        # Some of the verifier's details name their entry already: say it once.
        detail = failure.detail.removeprefix(f"{where}: ")
        return Skipped(source, str(failure.reason), f"{where}: {detail}")
    replayer = Replayer()
    seen = _MoveSigners()
    try:
        for line in lines:
            entry = parse_entry(line)
            before = replayer.state
            replayer.feed(entry)
            seen.saw(before, entry, replayer.state)
    except P2PDiceError as err:  # cannot happen after verify_lines accepted every line
        return Skipped(source, str(err.reason), err.detail)
    state = replayer.state
    if state is None or state.game is None or state.phase != TablePhase.OVER:
        return Skipped(source, str(Reason.MISSING_GAME_OVER), "the log holds no finished game")
    if state.start_seq is None:
        return Skipped(source, str(Reason.MISSING_GAME_OVER), "the log holds no started game")
    game = state.game
    if seen.mismatch or len(seen.rounds) != len(game.results):  # this reading's bug, not the log's
        return Skipped(source, str(Reason.INTERNAL), "the moves of a round were not all read")
    players = tuple(
        Player(
            seat=s.seat,
            key=s.key.hex(),
            name=s.name,
            kind="host_run" if s.host_run else "cpu" if s.cpu else "human",
        )
        for s in sorted(state.roster, key=lambda info: info.seat)
    )
    return Game(
        source=source,
        table_id=state.table_id.hex(),
        start_hash=replayer.chain.hashes[state.start_seq].hex(),
        rules=state.rules,
        kind=str(state.rules.kind),
        preset=preset_of(state.rules),
        players=players,
        results=tuple(game.results),
        places=_places(
            game.ranking,
            game.dice,
            game.results[-1].forfeited if game.results else (),
            finished=game.winner is not None,
        ),
        finished=game.winner is not None,
        winner=game.winner,
        movers=tuple(seen.rounds),
        lines=tuple(lines),
    )


class _MoveSigners:
    """Who made each move of each round, entry by entry: a bid or call message was signed by
    the key holding its seat when it was posted (the seat's own, or a stand-in's from a
    `stand_in` event until `return`), a `forced` bid or challenge by the host. The finished
    round's record (`RoundResult`) keeps only seats; this keeps who, by key."""

    def __init__(self) -> None:
        self.rounds: list[Movers] = []
        self.mismatch = False
        self._bids: list[str] = []
        self._call: str | None = None

    def saw(self, before: TableState | None, entry: Entry, after: TableState | None) -> None:
        if before is None or after is None or not before.roster:
            return
        msg, event = entry.msg, entry.event
        if msg is not None and msg.type in _BIDDING:
            own = before.keys.get(msg.seat) == before.roster[msg.seat].key
            who = OWN if own else STAND_IN
            if msg.type == MessageType.BID:
                self._bids.append(who)
            elif msg.type == MessageType.UNDO:
                if self._bids:  # only the standing bid can be taken back
                    self._bids.pop()
            else:
                self._call = who
        elif event is not None and event.get("type") == "forced":
            action = event["action"]["type"]
            if action == MessageType.BID:
                self._bids.append(HOST)
            elif action == MessageType.CHALLENGE:
                self._call = HOST
        done = len(before.game.results) if before.game is not None else 0
        for result in after.game.results[done:] if after.game is not None else ():
            bids, call = tuple(self._bids), self._call
            if len(bids) != len(result.bids) or (call is None) != (result.call is None):
                self.mismatch = True
            stood = tuple(s for s in sorted(after.stand_ins) if result.dice_before[s] > 0)
            self.rounds.append(Movers(bids, call, stood))
            self._bids, self._call = [], None


#: The messages of a seat's bidding: bids, calls and taking a bid back.
_BIDDING = frozenset({MessageType.BID, MessageType.CHALLENGE, MessageType.EXACT, MessageType.UNDO})


def _places(
    ranking: Sequence[int], dice: Sequence[int], last_forfeited: Sequence[int], *, finished: bool
) -> tuple[int, ...]:
    """Each seat's place, 1 best, in the order of the game's ranking (RULES.md R6). A game
    without a winner is a draw among the seats still in or, when nobody is, among the seats
    whose forfeit together ended it: they share the best of their places."""
    tied: set[int] = set()
    if not finished:
        tied = {seat for seat in ranking if dice[seat] > 0} or set(last_forfeited)
    places = [0] * len(dice)
    shared: int | None = None
    for position, seat in enumerate(ranking, 1):
        if seat in tied:
            shared = shared or position
            places[seat] = shared
        else:
            places[seat] = position
    return tuple(places)


def is_bluff(result: RoundResult, rules: Rules, seat: int, face: int) -> bool | None:
    """Whether a bid on `face` by `seat` had no support at all in its own hand (no die
    counting toward it); None when that hand was never opened."""
    hand = result.hands[seat] if seat < len(result.hands) else None
    if not hand:
        return None
    wild = ones_are_wild(rules, result.palifico_round)
    return count_matching([hand], face, wild_ones=wild) == 0


def distinct_games(games: Iterable[Game | Skipped]) -> tuple[list[Game], list[Skipped]]:
    """Verified games, one per table id, and everything skipped. Files of one table that
    agree count once (the first in start-hash order, then by source; the others are listed
    as DUPLICATE). Files of one table that differ are the proof of a fork (two host-signed
    histories, core.compare): none of them counts, and each is listed as FORK. A file that
    does not verify but holds only the first entries of another file's log (`copies`) is
    a copy of that game too, listed as DUPLICATE rather than with its own reason."""
    items = list(games)
    skipped = [item for item in items if isinstance(item, Skipped)]
    by_table: dict[str, list[Game]] = {}
    for game in sorted(
        (item for item in items if isinstance(item, Game)), key=lambda g: (g.start_hash, g.source)
    ):
        by_table.setdefault(game.table_id, []).append(game)
    kept: list[Game] = []
    for table_id, held in by_table.items():
        fork = fork_between(held)
        if fork is not None:
            skipped += [Skipped(g.source, str(Reason.FORK), fork) for g in held]
            continue
        kept.append(held[0])
        skipped += [
            Skipped(
                g.source, DUPLICATE, f"table {table_id[:16]}... is counted from {held[0].source}"
            )
            for g in held[1:]
        ]
    return kept, copies(kept, skipped)


def copies(kept: Sequence[Game], skipped: Sequence[Skipped]) -> list[Skipped]:
    """`skipped`, with each file whose lines are the first lines of a longer log (or all of
    an equal one listed before it) marked DUPLICATE: a seat's copy of a game that ended after
    the seat left, or of a game not ended yet beside its host's log. Only the same lines
    make a copy: a file that differs anywhere keeps its own reason. The log it copies is a
    counted game's when one matches, else the longest skipped file's (listed itself)."""
    own = (DUPLICATE, str(Reason.FORK))  #: already said to be another file's, or a fork's
    logs: dict[bytes, list[tuple[tuple[bytes, ...], str, bool]]] = {}
    for game in kept:
        if game.lines:
            logs.setdefault(game.lines[0], []).append((game.lines, game.source, True))
    for item in skipped:
        if item.lines and item.reason not in own:
            logs.setdefault(item.lines[0], []).append((item.lines, item.source, False))
    out: list[Skipped] = []
    for item in skipped:
        mine = item.lines
        whole = [
            (counted, len(lines), source)
            for lines, source, counted in (logs.get(mine[0], []) if mine else [])
            if source != item.source
            and lines[: len(mine)] == mine
            and (counted or len(lines) > len(mine) or source < item.source)
        ]
        if item.reason in own or not whole:
            out.append(item)
            continue
        counted, length, source = min(whole, key=lambda w: (not w[0], -w[1], w[2]))
        part = "" if length == len(mine) else f"the first {len(mine)} of the {length} entries of "
        detail = f"a copy of {part}{source} ({'counted' if counted else 'listed'})"
        out.append(Skipped(item.source, DUPLICATE, detail, mine))
    return out


def fork_between(games: Sequence[Game]) -> str | None:
    """What proves the host of these games' table showed two histories, if it did."""
    if len(games) < 2 or all(g.lines == games[0].lines for g in games):
        return None
    comparison = compare_table([Transcript(g.source, g.lines) for g in games])
    if comparison.agree:
        return None  # two finished logs of one table cannot differ only in length, but say so
    return comparison.forks[0].describe()
