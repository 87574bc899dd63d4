"""What the terminal client needs from the world, as Protocols: the ui imports no adapter.

The command line (`p2pdice.cli`) hands the ui objects that fit these shapes: the sessions of
the seats this device plays (today `net.session.ClientSession`), the table that owns them
(`cli.runtime.TableRuntime`) and the lobby's services (`cli.lobby.CliLobby`: browsing,
probing, opening tables). Only `ui.snapshot` reads a session's facts; everything else in the
ui reads the snapshots it makes, and calls a session only to act (`act`) or to hear of its
changes (`on_update`). Members are read-only properties unless the ui assigns them
(`on_update`), so a plain attribute, a property or a frozen field all fit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

from ..core.errors import Reason
from ..core.game import Action
from ..core.rules import Rules
from ..core.table import ChainIndex, Note, TableState
from ..core.view import SeatView


class AlarmLike(Protocol):
    """An alarm from our own checks of the host (core.peer.Alarm)."""

    @property
    def reason(self) -> Reason: ...
    @property
    def detail(self) -> str: ...
    @property
    def seat(self) -> int | None: ...


class CheckFinding(Protocol):
    """One finding of the end-of-game self-check (core.client_check.CheckAlarm)."""

    @property
    def kind(self) -> str: ...  #: "verify" or "forfeit"
    @property
    def detail(self) -> str: ...
    @property
    def round(self) -> int | None: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def mine(self) -> bool: ...  #: "verify": our sent record was checked too


class CheckNote(Protocol):
    """Something the end-of-game check says that accuses nobody (core.client_check.CheckNote)."""

    @property
    def detail(self) -> str: ...


class FinalCheck(Protocol):
    """The end-of-game self-check of a session (`verify --mine` and the host-act alarms)."""

    @property
    def alarms(self) -> Sequence[CheckFinding]: ...
    @property
    def notes(self) -> Sequence[CheckNote]: ...
    @property
    def verified(self) -> bool: ...


class LinkStatus(Protocol):
    """The host's last status frame: who is connected, and when the turn timer runs out."""

    @property
    def phase(self) -> str: ...
    @property
    def connected(self) -> Sequence[int]: ...
    @property
    def deadline(self) -> float | None: ...  #: event-loop time
    @property
    def bank_deadline(self) -> float | None: ...  #: when the seat on turn is out of time


class Replay(Protocol):
    @property
    def notes(self) -> Sequence[Note]: ...
    @property
    def chain(self) -> ChainIndex: ...  #: the verified entries' hashes (comparison codes)


class PeerFacts(Protocol):
    """The verified table as this seat's peer replayed it."""

    @property
    def state(self) -> TableState | None: ...
    @property
    def halted(self) -> bool: ...  #: an alarm stopped it following the host
    @property
    def replayer(self) -> Replay: ...


class SeatRecords(Protocol):
    @property
    def transcript_path(self) -> Path: ...


class TableSession(Protocol):
    """One seat's (or a spectator's) link to a table."""

    #: Called after every change the session sees; the ui sets it.
    on_update: Callable[[], None] | None

    @property
    def name(self) -> str: ...
    @property
    def mode(self) -> str: ...  #: "play" or "spectate"
    @property
    def seat(self) -> int | None: ...
    @property
    def connected(self) -> bool: ...
    @property
    def fatal(self) -> tuple[Reason, str] | None: ...  #: refused for good
    @property
    def errors(self) -> Sequence[tuple[Reason, str]]: ...  #: refusals, newest last
    @property
    def notice(self) -> str | None: ...  #: what the link waits for ("retrying in 7 s")
    @property
    def alarms(self) -> Sequence[AlarmLike]: ...
    @property
    def status(self) -> LinkStatus: ...
    @property
    def finished(self) -> bool: ...  #: the log holds the game's end
    @property
    def host_closing(self) -> str | None: ...  #: "paused", "ended", "idle": why the host closed
    @property
    def comparison_code(self) -> str | None: ...
    @property
    def peer(self) -> PeerFacts | None: ...
    @property
    def store(self) -> SeatRecords | None: ...

    @property
    def final_check(self) -> FinalCheck | None: ...  #: None until the game is over

    def view(self) -> SeatView | None: ...
    def pending_kinds(self) -> set[str]: ...  #: message types sent and not yet logged
    def act(self, action: Action) -> None: ...
    def take_seat_back(self) -> None: ...  #: our player is back while the host plays us
    @property
    def back_next_round(self) -> bool: ...  #: absent, and the host knows we are back


#: `OpenTable.link_state`'s answers.
LINK_OPEN, LINK_OVER, LINK_ENDED = "open", "over", "ended"


class OpenTable(Protocol):
    """A table this device plays at (practice, pass-and-play, hosted or joined)."""

    @property
    def kind(self) -> str: ...  #: practice, pass_and_play, host, join or spectate
    @property
    def sessions(self) -> Sequence[TableSession]: ...
    @property
    def outcome(self) -> str | None: ...  #: why the link ended, once it has
    @property
    def rematch(self) -> Callable[[], Awaitable[OpenTable]] | None: ...
    @property
    def hint(self) -> str: ...  #: for the message line once open (where others join), or ""
    @property
    def started_hint(self) -> str: ...  #: replaces `hint` once the game has started, or ""

    #: How the table's link stands: LINK_OPEN while it runs (an in-process link always
    #: does), LINK_OVER once it ended with the game's end, LINK_ENDED once it ended otherwise
    #: (given up, refused, cancelled). The ui words a session's link from it and the session's
    #: facts.
    def link_state(self) -> str: ...
    #: On a table this device hosts: the levels of its `--cpu` CPUs, in the order they sit
    #: down at the start, and those of the CPUs that fill the empty seats; empty elsewhere.
    def cpu_plan(self) -> tuple[tuple[str, ...], tuple[str, ...]]: ...
    #: On a table this device hosts whose game is over: the names of the players on other
    #: machines still away without its end a moment after it (their link dropped as it
    #: ended, or they left before it, or their client stopped; SPEC.md 10.3). Leaving the
    #: table closes it on them. Empty elsewhere.
    def players_behind(self) -> tuple[str, ...]: ...
    async def close(self, *, end_game: bool = True) -> None: ...


TableFactory = Callable[[], Awaitable[OpenTable]]


class HostedTable(Protocol):
    """A table this device hosted and that did not end (it can be resumed)."""

    @property
    def table_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def saved_at(self) -> float: ...  #: when its log was last written (the picker shows it)
    @property
    def most_seats(self) -> int | None: ...  #: the rules' seats (None: unknown)
    @property
    def seats(self) -> int | None: ...  #: players in the game (None: not started)
    @property
    def round(self) -> int | None: ...  #: the last round it opened (None: none yet)
    @property
    def host(self) -> str: ...  #: the name its host played under ("" when it played no seat)


class FoundTable(Protocol):
    """A table address resolved from what the player typed."""

    @property
    def url(self) -> str: ...
    @property
    def table_id(self) -> bytes | None: ...
    @property
    def locked(self) -> bool: ...  #: it needs a password


class LobbyServices(Protocol):
    """What the lobby's keys do outside the screen: find, open and resume tables.

    Each `*_table` method returns a factory the ui runs as a task (`LobbyActions.open_table`),
    so the screen shows "opening..." at once and an error lands on the message line.
    """

    def default_name(self) -> str: ...  #: the player's name when they type none
    def hosted_tables(self) -> Sequence[HostedTable]: ...
    #: Whether this device saved a seat at that table (hex id), under the host key whose
    #: prefix the table advertises.
    def holds_seat(self, table_id: str, host_prefix: str) -> bool: ...
    async def find(self, address: str) -> FoundTable: ...  #: raises UserError
    def join_table(
        self, *, url: str, name: str, password: str | None, spectate: bool, table_id: bytes | None
    ) -> TableFactory: ...
    def host_table(
        self,
        *,
        name: str,
        player: str,
        rules: Rules,
        cpu: list[str],
        password: str | None,
        fill_level: str | None = None,
    ) -> TableFactory: ...
    def resume_table(self, table_id: str, *, player: str) -> TableFactory: ...  #: UserError
    def practice_table(self, rules: Rules, cpu: list[str], humans: int) -> TableFactory: ...
    def pass_and_play_table(
        self, rules: Rules, players: list[str], cpu: list[str]
    ) -> TableFactory: ...
    async def stop(self) -> None: ...  #: end any background work (browsing, probes)
