"""The one state object the whole application is drawn from and its keys act on."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .hostform import HostForm
from .lobbymodel import LobbyBook
from .ports import OpenTable
from .ratings import RatingBook
from .review import CoachPage
from .text import ASCII, Glyphs
from .viewmodel import EntryState


@dataclass
class Prompt:
    """A one-line question (a name, a password, an address)."""

    question: str
    on_done: Callable[[str], Awaitable[None] | None]
    text: str = ""
    secret: bool = False
    hint: str = ""


@dataclass
class UiState:
    glyphs: Glyphs = ASCII
    screen: str = "table"  #: lobby, form, confirm, starting or table
    help: bool = False
    quitting: bool = False  #: asking "leave the table?"
    message: str = ""
    message_style: str = "class:message"
    too_small: bool = False  #: the terminal is below MIN_COLUMNS x MIN_ROWS (keys wait)
    # the table
    runtime: OpenTable | None = None
    current: int = 0  #: index of the session this screen shows (practice: Tab switches)
    entry: EntryState = field(default_factory=EntryState)
    entry_key: tuple[object, ...] | None = None
    seen_results: int | None = None  #: results the player has looked at
    review: int | None = None  #: index of the earlier result being reviewed
    coach: CoachPage | None = None  #: the coach's review of the finished rounds, when open
    holder: int | None = None  #: pass-and-play: the seat holding the device
    sent: dict[int, str] = field(default_factory=dict)  #: seat -> what it sent, until logged
    errors_seen: dict[int, int] = field(default_factory=dict)
    followed: tuple[int, int, int] | None = None  #: practice: the turn we last switched to
    auto_moved: set[tuple[int, int, int]] = field(default_factory=set)
    #: Seconds after a round ends before this client starts the next one by itself for a
    #: seat it holds (unless the player is reviewing rounds): nobody waits forever.
    auto_next_round: float = 10.0
    round_over_at: dict[tuple[int, int], float] = field(default_factory=dict)  #: (seat, round)
    # the lobby and forms
    book: LobbyBook = field(default_factory=LobbyBook)
    lobby_note: str = ""
    from_lobby: bool = False
    form: HostForm | None = None
    prompt: Prompt | None = None
    player_name: str = ""
    #: Ratings from this device's verified games, once the command line has read them.
    ratings: RatingBook = field(default_factory=RatingBook)
    exit_code: int = 0
    #: Printed on the terminal once the full screen has closed: what the last screen said
    #: that must outlive it (how to resume a table paused on the way out).
    farewell: str = ""
    #: What the printed resume command needs besides the id: the `--home` the table was
    #: hosted with, when one was given (its saved log is there, not in the default folder).
    resume_flags: str = ""
