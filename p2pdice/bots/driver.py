"""When a CPU plays its own seat, after how long, and which move: the bot driver.

Sans-I/O: `review` is asked after every change of the seat's connection and says what to do
(play now, think for so many seconds, stop thinking, or nothing); the adapter only arms the
think timer and calls `think_over` when it fires.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..core.game import Action, Phase, StartNextRound
from ..core.messages import MessageType
from ..core.peer import Peer
from ..core.table import TablePhase
from ..core.transitions import GOES_ON_WITHOUT
from .registry import Bot
from .sim import decide_safely

#: A move a seat owes: (round, bids so far, MessageType.BID or MessageType.NEXT_ROUND).
Due = tuple[int, int, MessageType]


def bot_due(peer: Peer) -> Due | None:
    """The move a bot playing `peer`'s seat owes now, as (round, bids so far, phase), or None:
    its bid or call on its turn, "start next round" when it is the designated starter, and
    nothing while a move of its own waits for the log (it must not decide twice on one turn;
    a message the table goes on without, an acknowledgement, holds nothing up).
    A seat that pauses before moving (think time) waits for as long as this stays the same."""
    state = peer.state
    if state is None or state.game is None or not peer.holds_seat or peer.halted:
        return None
    if any(p.message.type not in GOES_ON_WITHOUT for p in peer.pending.values()):
        return None
    game, seat = state.game, peer.seat
    assert seat is not None
    if state.phase == TablePhase.BIDDING and game.turn == seat:
        return (game.round, len(game.bids), MessageType.BID)
    if (
        state.phase == TablePhase.RESULT
        and game.phase == Phase.ROUND_OVER
        and game.next_starter == seat
    ):
        return (game.round, len(game.bids), MessageType.NEXT_ROUND)
    return None


def bot_move(peer: Peer, bot: Bot, rng: random.Random) -> Action | None:
    """What a bot playing `peer`'s seat does now (see `bot_due`), or None."""
    due = bot_due(peer)
    if due is None:
        return None
    state = peer.state
    assert state is not None and state.game is not None and peer.seat is not None
    if due[2] == MessageType.BID:
        return decide_safely(bot, state.game, peer.seat, peer.hand, rng)[0]
    return StartNextRound(peer.seat)


@dataclass(frozen=True, slots=True)
class Play:
    action: Action


@dataclass(frozen=True, slots=True)
class Think:
    """Arm the think timer for `seconds` (replacing one armed before), then `think_over`."""

    seconds: float


@dataclass(frozen=True, slots=True)
class StopThinking:
    """Cancel the think timer: the move it was for is gone (an undo, a lost connection)."""


Step = Play | Think | StopThinking | None


class BotDriver:
    """Plays one seat for a bot. `think`: seconds it pauses before each move, as a person
    would, so people at the table can follow the play and take a bid back before the bot
    answers it (0: at once). The pause varies by +-30 %, drawn from `jitter`, not from the
    bot's `rng`, so seeded games replay the same moves whatever the pauses."""

    def __init__(
        self,
        bot: Bot,
        rng: random.Random,
        *,
        think: float = 0.0,
        jitter: random.Random | None = None,
    ) -> None:
        self.bot = bot
        self.rng = rng
        self.think = think
        self.jitter = jitter or random.Random()
        self._thinking_about: Due | None = None

    def review(self, peer: Peer | None, *, may_play: bool) -> Step:
        """What to do after a change; `may_play`: the seat is connected and caught up."""
        if peer is None or not may_play:
            return self._stop()
        if self.think <= 0:
            action = bot_move(peer, self.bot, self.rng)
            return Play(action) if action is not None else None
        due = bot_due(peer)
        if self._thinking_about is not None and self._thinking_about == due:
            return None  # already thinking about this very move
        stop = self._stop()  # the move it was thinking about is gone (an undo, say)
        if due is None:
            return stop
        self._thinking_about = due
        return Think(self.think * self.jitter.uniform(0.7, 1.3))

    def think_over(self, peer: Peer | None, *, may_play: bool) -> Play | None:
        """The think timer fired: the move, if it is still ours to make."""
        self._thinking_about = None
        if peer is None or not may_play:
            return None
        action = bot_move(peer, self.bot, self.rng)
        return Play(action) if action is not None else None

    def forget(self) -> StopThinking | None:
        """The connection is gone: whatever it was thinking about, it stops."""
        return self._stop()

    def _stop(self) -> StopThinking | None:
        if self._thinking_about is None:
            return None
        self._thinking_about = None
        return StopThinking()
