"""What the client does on its own as time passes: show refusals, follow the turn, and play
a cautious move when the turn timer is about to run out (rules-spec: the seat's own client
moves first; only if it does not answer does the host make the blind move).

Each step reads the sessions' facts from the controller's readings, never a session itself.
"""

from __future__ import annotations

import asyncio
import logging
import random

from ..bots.medium import medium
from ..core.bids import Bid
from ..core.describe import bid_words
from ..core.game import Action, Challenge, ExactCall, Phase, PlaceBid, StartNextRound
from ..core.view import SeatView
from .controller import Controller
from .text import safe_text
from .viewmodel import NEXT_ROUND, USER_KINDS, start_cursor

log = logging.getLogger("p2pdice.ui")

TIMER_MARGIN = 0.75  #: seconds before the timer runs out when this client moves for the seat


def tick(c: Controller) -> None:
    if c.lobby is not None:
        c.lobby.password_refused()  # before its reason code reaches the message line
    collect_messages(c)
    follow_turn(c)
    timer_moves(c)
    auto_next_round(c)


def auto_next_round(c: Controller) -> None:
    """A round is over and a seat of ours starts the next one: after a pause (the reveal is
    worth reading) start it ourselves, so a table never waits on someone who walked off from
    the reveal. Not while the player reviews earlier rounds: they are reading on purpose."""
    now = asyncio.get_running_loop().time()
    for session in c.sessions:
        facts = c.facts(session)
        view, seat = facts.view, facts.me
        if (
            view is None
            or seat is None
            or view.phase != Phase.ROUND_OVER
            or view.next_starter != seat
            or c.link_of(session) != "connected"  # nothing can be sent: not even tried
        ):
            continue
        key = (seat, view.round)
        since = c.ui.round_over_at.setdefault(key, now)
        if c.mode() in ("review", "coach"):
            c.ui.round_over_at[key] = now  # the pause starts again when they come back
            continue
        if now - since < c.ui.auto_next_round or NEXT_ROUND in facts.pending:
            continue
        if c.act(session, StartNextRound(seat), "start next round"):
            c.say(f"the next round started by itself ({safe_text(facts.my_name, 24)} starts it)")


def collect_messages(c: Controller) -> None:
    """The newest refusal or alarm of any of our sessions goes to the message line."""
    ui = c.ui
    for i, session in enumerate(c.sessions):
        errors = c.facts(session).errors
        if len(errors) > ui.errors_seen.get(i, 0):
            reason, detail = errors[-1]
            ui.errors_seen[i] = len(errors)
            c.say(f"{safe_text(reason, 40)}: {safe_text(detail, 200)}", error=True)
        notice = c.facts(session).notice
        if notice is not None and ui.message != notice:
            c.say(notice)  # a wait the host asked for (it explains the refusal): said in words


def follow_turn(c: Controller) -> None:
    """Practice with several seats: show the seat whose turn it is, once per turn."""
    if c.kind != "practice" or len(c.sessions) < 2:
        return
    view = c.snap().view
    if view is None or view.phase != Phase.BIDDING or view.turn not in c.seats():
        return
    turn = (view.round, len(view.bids), view.turn)
    if c.ui.followed == turn:
        return  # once per turn, so Tab can still look at another seat
    c.ui.followed = turn
    current = c.current()
    if current is not None and c.facts(current).me != view.turn:
        for i, session in enumerate(c.sessions):
            facts = c.facts(session)
            if facts.me == view.turn:
                c.ui.current = i
                c.refresh()
                c.say(f"your seat {view.turn} ({safe_text(facts.my_name, 24)}) is to play")


def timer_moves(c: Controller) -> None:
    """The turn timer is about to run out: this client plays a cautious move for the seat."""
    now = asyncio.get_running_loop().time()
    for session in c.sessions:
        facts = c.facts(session)
        view, deadline = facts.view, facts.deadline
        if (
            view is None
            or view.seat is None
            or not view.my_turn
            or view.seat in facts.absent  # played for us until the next round
            or deadline is None
            or deadline - now > TIMER_MARGIN
            or c.link_of(session) != "connected"  # the host moves for us if we are not back
        ):
            continue
        key = (view.seat, view.round, len(view.bids))
        if key in c.ui.auto_moved or facts.pending & set(USER_KINDS):
            continue
        c.ui.auto_moved.add(key)
        action = cautious(view, c.rng)
        what = move_words(action)
        if c.act(session, action, what):
            c.say(f"time ran out: played {what} for {safe_text(facts.my_name, 24)}")


def move_words(action: Action) -> str:
    """A move as the message line and the pending line say it."""
    if isinstance(action, PlaceBid):
        return bid_words(action.bid)
    return "Exact!" if isinstance(action, ExactCall) else "Liar!"


def cautious(view: SeatView, rng: random.Random) -> Action:
    """A careful move for a seat whose time is up: what the medium CPU would do."""
    assert view.seat is not None
    try:
        action = medium(view, rng)
        if isinstance(action, PlaceBid) and view.is_legal_bid(action.bid):
            return action
        if isinstance(action, ExactCall) and view.can_exact:
            # Its own reason: an exact count that likely means the bid stands, where a Liar
            # call in its place would mostly lose (docs/playing.md: medium's move, as it is).
            return ExactCall(view.seat)
        if isinstance(action, Challenge) and view.can_challenge:
            return Challenge(view.seat)
    except Exception:
        log.exception("cautious move failed")
    if view.can_challenge:
        return Challenge(view.seat)
    return PlaceBid(view.seat, start_cursor(view) or Bid(1, 2))
