"""A table's advertisement (SPEC.md 10.4) as one typed record: the DNS-SD TXT record a host
announces, and the row its `GET /tables` lists (the same keys).

`Advert.to_txt` is the only writer of those keys and `Advert.from_txt` the only reader.
Anyone on the LAN can advertise, so reading never fails: every text is cleaned for the
screen, a malformed number or flag reads as absent, and `url` is None unless the record names
its table the way a p2pdice host does. The record is a hint; the comparison code proves which
table one joined.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .clean import clean_name, clean_text
from .codec import encode
from .fairness import rules_hash
from .names import MAX_NAME
from .table_events import host_holds_contribution
from .table_state import TablePhase, TableState, cpu_seats_owed
from .version import PROTOCOL_VERSION

TEXT_LIMIT = 120  #: characters kept of any advertised text
#: Characters of an announced player's name read at all (the host's `host`, a listing's
#: `players`): a host sends names cleaned to MAX_NAME characters (SPEC.md 10.5), so a much
#: longer one is not a host's and is read as absent. Read with room to spare, so that a
#: reader's cleaning never decides what a host meant.
LISTED_NAME_LIMIT = 4 * MAX_NAME
PREFIX_BYTES = 8  #: bytes of the host key (`hk`) and of the rules hash (`rh`) announced

#: The query parameter of a table's URL that asks to watch: `?spectate=1` (SPEC.md 3.1).
SPECTATE_PARAM = "spectate"
SPECTATE_QUERY = f"{SPECTATE_PARAM}=1"

#: The schemes of a host's addresses (SPEC.md 10.1): everything a host serves, the tables'
#: WebSockets and its `GET /tables` listing, is over TLS 1.3 with its identity key, so these
#: are the only places a URL's scheme is spelled.
TABLE_SCHEME = "wss"
LISTING_SCHEME = "https"

_TABLE_ID = re.compile("[0-9a-f]{64}")
_HOST_KEY_PREFIX = re.compile(f"[0-9a-f]{{{2 * PREFIX_BYTES}}}")


class AdvertPhase(StrEnum):
    """An advertised table's `phase`: what a lobby needs of the table's phase."""

    LOBBY = "lobby"  #: seats are free to take
    PLAYING = "playing"
    FINISHED = "finished"

    @classmethod
    def of(cls, phase: TablePhase) -> AdvertPhase:
        if phase == TablePhase.LOBBY:
            return cls.LOBBY
        return cls.FINISHED if phase == TablePhase.OVER else cls.PLAYING


def table_path(table_id: str) -> str:
    """The WebSocket path a p2pdice host serves a table at."""
    return f"/t/{table_id}"


SHORT_ID_CHARS = 8  #: hex digits of a table id that tell tables of one name apart


def short_id(table_id: str | None) -> str | None:
    """The start of a well-formed table id, `3fa2c1d0`: what the lobby, `join NAME#ID`, the
    resume picker and the DNS-SD instance name show to tell two tables of one name apart.
    None when the announced id is not hex (a stranger's record: nothing to show)."""
    if not table_id or not re.fullmatch("[0-9a-f]+", table_id):
        return None
    return table_id[:SHORT_ID_CHARS]


def socket_url(host_port: str, path: str) -> str:
    """The WebSocket URL at `host_port` (`HOST:PORT`) and `path`."""
    return f"{TABLE_SCHEME}://{host_port}{path}"


def listing_url(address: str, port: int) -> str:
    """The URL of the `GET /tables` listing of the host at `address` and `port`."""
    return f"{LISTING_SCHEME}://{address}:{port}/tables"


def key_prefix(public_key: bytes) -> str:
    """The start of a host key as a table announces it (`hk`), and as a client compares it."""
    return public_key[:PREFIX_BYTES].hex()


_SEATS = re.compile("([0-9]{1,2})/([0-9]{1,2})")
_COUNT = re.compile("[0-9]{1,2}")
_ROUND = re.compile("[0-9]{1,4}")  #: a game of 6 seats of 5 dice lasts at most a few hundred


def table_url(address: str, port: int, table: Mapping[str, Any]) -> str | None:
    """The WebSocket URL of an announced table (TXT record or `/tables` row), or None when it
    does not name its table the way a p2pdice host does (a 64-hex id, path `/t/<id>`): a path
    such as `@elsewhere/t/x` would send the connection to another machine than the one
    shown."""
    table_id = table.get("id")
    path = table.get("path") or table_path(str(table_id))
    if not (isinstance(table_id, str) and _TABLE_ID.fullmatch(table_id)):
        return None
    if path != table_path(table_id):
        return None
    return socket_url(f"{address}:{port}", path)


def listed_name(value: Any) -> str:
    """An announced player's name as a screen shows it: cleaned and cut as every player's name
    is (SPEC.md 10.5), "" when it is not a text of at most LISTED_NAME_LIMIT characters."""
    if not isinstance(value, str) or len(value) > LISTED_NAME_LIMIT:
        return ""
    return clean_name(value)


def seat_name(state: TableState, key: bytes | None) -> str:
    """The name of the person who took a seat at this table with `key` (the host's own
    player, when the host plays: it sits first, SPEC.md 3.3), or "" when no seat a person
    holds was taken with it."""
    if key is None:
        return ""
    infos = state.roster or tuple(state.joins.values())
    return next((i.name for i in infos if i.key == key and not i.cpu), "")


def host_key_prefix(table: Mapping[str, Any]) -> str | None:
    """The announced start of the host's key (`hk`), when it is well formed."""
    hk = table.get("hk")
    return hk if isinstance(hk, str) and _HOST_KEY_PREFIX.fullmatch(hk) else None


def host_run_seats(state: TableState) -> int:
    """The TXT `cpu` (SPEC.md 10.4): the seats whose hands the host's machine can read. In the
    lobby, the seats promised to the host's own CPUs (the genesis `host_cpu`; `fill` says
    whether CPUs will take the empty seats too); from the start on, the seats its CPUs play:
    the roster's `host_run` seats, those `cpu_fill` brought included, and the seats a
    stand-in plays."""
    if state.phase == TablePhase.LOBBY or not state.roster:
        return state.host_cpu
    return sum(host_holds_contribution(state, seat) for seat in range(len(state.roster)))


@dataclass(frozen=True, slots=True)
class Advert:
    """What a host announces about one table."""

    table_id: str = ""  #: `id`, as announced (`url` says whether it is well formed)
    name: str = ""  #: `name`, the table's name (may be empty)
    path: str = ""  #: `path`, the WebSocket path
    rules: str = ""  #: `rules`, a short summary (Rules.summary)
    rules_hash: str = ""  #: `rh`, the start of the rules hash (hex)
    seats: tuple[int, int] | None = None  #: `seats`, taken and total
    phase: str = ""  #: `phase`: an AdvertPhase, or "" when the record does not say
    host_key_prefix: str | None = None  #: `hk`, the start of the host's key, when well formed
    locked: bool = False  #: `pw`: a password is needed
    cpu: int = 0  #: `cpu`: seats played by CPUs the host runs (`host_run_seats`)
    version: int | None = PROTOCOL_VERSION  #: `v`, the protocol version
    #: `round`: the round being played (while `phase` is playing), else None
    round: int | None = None
    #: `fill`: the host fills the seats still empty at the start with CPUs (else they are
    #: left out, SPEC.md 3.3); a lobby says which before the start
    fill: bool = False
    #: `host`: the name of the host's own player at this table, "" when the host plays no
    #: seat (or the record does not say). The host's claim, as `name` is: `hk` says which
    #: host it is.
    host_name: str = ""

    @classmethod
    def of_table(
        cls, state: TableState, *, locked: bool, host_player: bytes | None = None
    ) -> Advert:
        """What a host announces about the table `state` is (`locked`: it has a password;
        `host_player`: the key the host's own player sits with, when it plays)."""
        rules = state.rules
        table_id = state.table_id.hex()
        # The host's own CPUs join when it starts (SPEC.md 3.3): their seats count as taken.
        lobby = state.phase == TablePhase.LOBBY
        taken = len(state.joins) + cpu_seats_owed(state) if lobby else rules.seats
        phase = AdvertPhase.of(state.phase)
        playing = phase == AdvertPhase.PLAYING and state.game is not None
        return cls(
            name=state.name,
            table_id=table_id,
            path=table_path(table_id),
            rules=rules.summary(),
            rules_hash=rules_hash(encode(rules.to_json()))[:PREFIX_BYTES].hex(),
            seats=(taken, rules.seats),
            phase=phase.value,
            host_key_prefix=key_prefix(state.host_key),
            locked=locked,
            cpu=host_run_seats(state),
            round=state.game.round if playing and state.game is not None else None,
            fill=state.cpu_fill,
            host_name=seat_name(state, host_player),
        )

    @property
    def seats_text(self) -> str:
        """ "2/4", or "?" when the record does not say."""
        return "?" if self.seats is None else f"{self.seats[0]}/{self.seats[1]}"

    def url(self, address: str, port: int) -> str | None:
        """The table's WebSocket URL at `address`, or None (see `table_url`)."""
        return table_url(address, port, {"id": self.table_id, "path": self.path})

    @property
    def host_short(self) -> str | None:
        """The host key's short form (its first 8 hex digits), which names the host where an
        address alone would not tell two hosts apart; None when the record has no `hk`."""
        return self.host_key_prefix[:SHORT_ID_CHARS] if self.host_key_prefix else None

    @property
    def host_text(self) -> str:
        """Who hosts the table, as a lobby row and `join NAME` say it: "hosted by Ann (host
        key 9c1b2a3f)", "host key 9c1b2a3f" from a host that plays no seat, "" when the
        record says neither. The name is the host's word, as the table's name is; the key
        is what names the host."""
        key = f"host key {self.host_short}" if self.host_short else ""
        if not self.host_name:
            return key
        return f"hosted by {self.host_name}" + (f" ({key})" if key else "")

    def with_listing(self, listing: Advert) -> Advert:
        """This record with the facts that change during a game (seats, phase, round, rules,
        password, CPUs, CPU fill) taken from a fresher one, such as the host's `/tables`
        row; the host's name too when this one does not say it (a record announced before the
        host's player sat down)."""
        return Advert(
            table_id=self.table_id,
            name=self.name,
            path=self.path,
            rules=listing.rules,
            rules_hash=self.rules_hash,
            seats=listing.seats,
            phase=listing.phase,
            host_key_prefix=self.host_key_prefix,
            locked=listing.locked,
            cpu=listing.cpu,
            version=self.version,
            round=listing.round,
            fill=listing.fill,
            host_name=self.host_name or listing.host_name,
        )

    def to_txt(self) -> dict[str, str]:
        """The TXT record's keys and values, in the order SPEC.md 10.4 lists them."""
        txt = {
            "v": "" if self.version is None else str(self.version),
            "name": self.name,
            "id": self.table_id,
            "path": self.path,
            "rules": self.rules,
            "rh": self.rules_hash,
            "seats": "" if self.seats is None else self.seats_text,
            "phase": self.phase,
            "hk": self.host_key_prefix or "",
            "pw": "1" if self.locked else "0",
            "cpu": str(self.cpu),
            "round": "" if self.round is None else str(self.round),
            "fill": "1" if self.fill else "",
            "host": self.host_name,
        }
        return {key: value for key, value in txt.items() if value}

    @classmethod
    def from_txt(cls, txt: Mapping[str, Any]) -> Advert:
        """Read a TXT record or a `/tables` row; never fails (see the module's note)."""

        def text(key: str) -> str:
            value = txt.get(key)
            return clean_text(str(value), TEXT_LIMIT) if value is not None else ""

        seats = _SEATS.fullmatch(text("seats"))
        version, cpu, round_ = text("v"), text("cpu"), text("round")
        return cls(
            table_id=text("id"),
            name=text("name"),
            path=text("path"),
            rules=text("rules"),
            rules_hash=text("rh"),
            seats=(int(seats[1]), int(seats[2])) if seats else None,
            phase=text("phase"),
            host_key_prefix=host_key_prefix(txt),
            locked=text("pw") == "1",
            cpu=int(cpu) if _COUNT.fullmatch(cpu) else 0,
            version=int(version) if _COUNT.fullmatch(version) else None,
            round=int(round_) if _ROUND.fullmatch(round_) and int(round_) > 0 else None,
            fill=text("fill") == "1",
            host_name=listed_name(txt.get("host")),
        )
