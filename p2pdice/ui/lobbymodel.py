"""The lobby's list of tables, as plain data: what mDNS announced, checked for liveness.

mDNS says when a table appears, changes or says goodbye, but a host that crashed sends no
goodbye, so its entry would linger. The lobby therefore probes each table's `GET /tables`
with a short timeout: one failed probe greys the row out (still shown, not joinable), and
a table that keeps failing (or whose host no longer lists it) is dropped. The clock and
the probe results are inputs; the adapter in `ui.lobby` does the I/O.

Anyone can advertise, so the book is bounded and sorted out for a person: at most
LOBBY_LIMIT tables; one address announcing more than GROUP_OVER tables is one row saying
how many (Enter opens it), so a flood of fakes is one line; `/` searches names, addresses
and short ids; and every row shows its table's short id, which `join NAME#ID` takes.

A host's listing also names each seated player's key (SPEC.md 10.1), so a row shows the
ratings this device holds of the players at that table. It is the host's claim, read from a
stranger: `listed_players` takes the field whole or not at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.advert import LISTED_NAME_LIMIT, Advert, AdvertPhase, listing_url, short_id
from ..core.rules import MAX_SEATS
from .ratings import RatingBook, RatingFigure, short, words
from .text import fit, safe_name, safe_text, width

STALE_AFTER_FAILURES = 1  #: failed probes before a row is greyed out
DROP_AFTER_FAILURES = 3  #: failed probes before a row is removed
PROBE_EVERY = 2.0  #: seconds between liveness probes of one table
LOBBY_LIMIT = 200  #: tables a lobby lists at once (the browser tracks no more either)
GROUP_OVER = 3  #: tables from one address shown one by one; more are one row, opened by Enter
SEATED_NAME_COLUMNS = 12  #: columns of a seated player's name in a row's ratings
#: The width a row's second line is fitted to (the panel's default terminal): the seated
#: players' ratings are shortened to fit it rather than cut off mid-name.
ROW_COLUMNS = 80
DETAIL_INDENT = 5  #: columns before a row's facts on the lines after its first
_PLAYER_KEY = re.compile("[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A taken seat as a host's `/tables` row names it: a hint until one sits down (the
    signed roster is what counts)."""

    name: str  #: cleaned for the screen
    key: str  #: the hex public key signing for the seat
    cpu: bool = False


def listed_players(row: Mapping[str, Any], seats: int | None) -> tuple[ListedPlayer, ...] | None:
    """The `players` field of a `/tables` row, or None when it is absent or malformed in any
    way (not a list, more players than the table's `seats` or than MAX_SEATS, an item that is
    not `{"name": str, "key": 64 hex, "cpu": bool?}`, an over-long name, a key twice)."""
    value = row.get("players")
    limit = min(seats, MAX_SEATS) if seats else MAX_SEATS
    if not isinstance(value, list) or len(value) > limit:
        return None
    found: list[ListedPlayer] = []
    for item in value:
        if not isinstance(item, dict):
            return None
        name, key, cpu = item.get("name"), item.get("key"), item.get("cpu", False)
        if not (isinstance(name, str) and len(name) <= LISTED_NAME_LIMIT):
            return None
        if not (isinstance(key, str) and len(key) == 64 and _PLAYER_KEY.fullmatch(key)):
            return None
        if not isinstance(cpu, bool):
            return None
        found.append(ListedPlayer(safe_name(name), key, cpu))
    if len({p.key for p in found}) != len(found):
        return None
    return tuple(found)


def seated_text(rated: list[tuple[str, RatingFigure]], unrated: int, columns: int) -> str:
    """ "seated: ana 24.1, bo 18.0?, +2 others" in at most `columns` where it can: the
    players this device has rated (in seat order), then how many more sit there; rated
    players that do not fit are counted with the others. "" when none is rated."""
    if not rated:
        return ""
    items = [f"{_short_name(name)} {short(figure)}" for name, figure in rated]
    for shown in range(len(items), 0, -1):
        rest = unrated + len(items) - shown
        tail = f", +{rest} other{'' if rest == 1 else 's'}" if rest else ""
        text = "seated: " + ", ".join(items[:shown]) + tail
        if width(text) <= columns or shown == 1:
            return text
    raise AssertionError("unreachable: one rated player is always shown")


def _short_name(name: str) -> str:
    return name if width(name) <= SEATED_NAME_COLUMNS else fit(name, SEATED_NAME_COLUMNS)


@dataclass(slots=True)
class LobbyEntry:
    service: str
    name: str
    address: str
    port: int
    advert: Advert
    seen_at: float
    failures: int = 0
    probed_at: float | None = None
    alive: bool | None = None  #: None until the first probe answers
    #: Who sits at the table, from the host's last listing (None: it named no one usably).
    players: tuple[ListedPlayer, ...] | None = None

    @property
    def table_id(self) -> str:
        return self.advert.table_id

    @property
    def url(self) -> str | None:
        """None when the announcement does not name its table as a host does."""
        return self.advert.url(self.address, self.port)

    @property
    def probe_url(self) -> str:
        return listing_url(self.address, self.port)

    @property
    def short_id(self) -> str:
        return short_id(self.advert.table_id) or "?"

    def matches(self, query: str) -> bool:
        """Whether a search for `query` finds this table: part of its name or of its host's
        name, the start of its address or short id, or `NAME#ID` as `join` takes it."""
        q = query.strip().casefold()
        if not q:
            return True
        name = safe_name(self.advert.name or self.name).casefold()
        return (
            q in name
            or q in self.advert.host_name.casefold()
            or self.address.startswith(q)
            or f"{self.address}:{self.port}".startswith(q)
            or self.short_id.startswith(q.lstrip("#"))
            or f"{name}#{self.short_id}".startswith(q)
        )

    @property
    def stale(self) -> bool:
        return self.failures >= STALE_AFTER_FAILURES


def where_text(short: str, where: str) -> str:
    """`#3fa2c1d0 at 10.0.0.5:8765`: the first of a row's facts (a group row has no id)."""
    return f"#{short} at {where}" if short else f"at {where}"


@dataclass(frozen=True, slots=True)
class LobbyRow:
    service: str
    name: str
    rules: str
    seats: str
    phase: str
    locked: bool
    cpu: str
    where: str
    stale: bool
    joinable: bool
    short_id: str = ""  #: the table's short id (`join NAME#ID`); "" on a group row
    group: str = ""  #: on a host's group row: its address (Enter opens the group)
    count: int = 1  #: tables the row stands for
    #: The ratings this device knows of the table's host (it sits at its own table, its key
    #: announced) and of the players its listing seats: "host rated 24.1", or
    #: "host 24.1, seated: ana 18.0?, +2 others"; "" when it knows none.
    rating: str = ""
    round: str = ""  #: "round 3" while the table plays (its advertisement says which)
    #: The host: the name its own player sits under, when it plays, in words a friend knows,
    #: and its key's short form, "hosted by Ann (host key 9c1b2a3f)" or "host key 9c1b2a3f".
    #: The name is the host's claim, like the table's; the key is what tells two hosts of
    #: one address (or one name) apart. "" when the advertisement says neither.
    host: str = ""
    #: Before the start, what becomes of the empty seats: "CPUs fill empty seats" or "empty
    #: seats left out" (SPEC.md 3.1); "" once the table started or has no empty seat.
    fill: str = ""

    def details(self) -> list[str]:
        """The row's facts after its first line, in the order shown: short id and address,
        ratings, round, host, what becomes of empty seats, host-run CPUs. Each is kept
        whole: the panel wraps between them, never inside one."""
        cpu = f"{self.cpu} (its host could read those dice)" if self.cpu else ""
        return [p for p in (self.at, self.rating, self.round, self.host, self.fill, cpu) if p]

    @property
    def at(self) -> str:
        return where_text(self.short_id, self.where)


@dataclass
class LobbyBook:
    """Tables seen on the LAN, keyed by their DNS-SD instance name."""

    entries: dict[str, LobbyEntry] = field(default_factory=dict)
    selected: int = 0
    #: Ids of tables where this device holds a seat (Enter takes it back, even mid-game).
    seated: set[str] = field(default_factory=set)
    query: str = ""  #: the search (`/`): only tables it finds are listed
    expanded: set[str] = field(default_factory=set)  #: addresses whose group is open
    #: Tables announced past the browser's caps, by address: counted in their host's group.
    unlisted: dict[str, int] = field(default_factory=dict)
    ratings: RatingBook = field(default_factory=RatingBook)
    _version: int = 0
    _cache: tuple[tuple[int, int], list[LobbyRow]] | None = None

    def changed(self) -> None:
        """Something the rows show changed (the next `rows` sorts again; until then they are
        the same list, however often the screen is drawn)."""
        self._version += 1

    def announce(
        self,
        service: str,
        name: str,
        addresses: list[str],
        port: int,
        advert: Advert,
        now: float,
    ) -> None:
        """An mDNS 'added' or 'updated' event."""
        if not addresses:
            return
        old = self.entries.get(service)
        if old is None and len(self.entries) >= LOBBY_LIMIT:
            self.unlisted[addresses[0]] = self.unlisted.get(addresses[0], 0) + 1
            self.changed()
            return
        entry = LobbyEntry(service, name, addresses[0], port, advert, now)
        if old is not None and (old.address, old.port) == (entry.address, entry.port):
            entry.failures, entry.probed_at, entry.alive = old.failures, old.probed_at, old.alive
            entry.players = old.players  # the TXT record names no players: the last listing's
        self.entries[service] = entry
        self.changed()

    def goodbye(self, service: str) -> None:
        if self.entries.pop(service, None) is not None:
            self.changed()
        self._clamp()

    def due(self, now: float) -> list[LobbyEntry]:
        """Entries whose liveness probe is due."""
        return [
            e
            for e in self.entries.values()
            if e.probed_at is None or now - e.probed_at >= PROBE_EVERY
        ]

    def probed(
        self,
        service: str,
        *,
        listed: bool | None,
        now: float,
        listing: Advert | None = None,
        players: tuple[ListedPlayer, ...] | None = None,
    ) -> None:
        """A probe's answer: listed True (the host lists this table, as `listing` if given,
        seating `players`), False (the host answers without it) or None (no answer in
        time)."""
        entry = self.entries.get(service)
        if entry is None:
            return
        entry.probed_at = now
        before = (entry.failures, entry.alive, entry.advert, entry.players)
        if listed:
            entry.failures, entry.alive = 0, True
            if listing is not None:  # fresher than the TXT record: seats and phase
                entry.advert = entry.advert.with_listing(listing)
                entry.players = players
        else:
            entry.alive = False
            entry.failures = DROP_AFTER_FAILURES if listed is False else entry.failures + 1
        if (entry.failures, entry.alive, entry.advert, entry.players) != before:
            self.changed()
        if entry.failures >= DROP_AFTER_FAILURES:
            self.goodbye(service)

    def search(self, query: str) -> None:
        self.query = query.strip()[:60]
        self.selected = 0
        self.changed()

    def toggle(self, address: str) -> None:
        """Open a host's group (its tables one by one), or close it again."""
        self.expanded.symmetric_difference_update({address})
        self.changed()

    def rows(self) -> list[LobbyRow]:
        key = (self._version, len(self.seated))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._rows())
        return self._cache[1]

    def _rows(self) -> list[LobbyRow]:
        found = [e for e in self.entries.values() if e.matches(self.query)]
        found.sort(key=lambda e: (safe_name(e.name).lower(), e.service))
        hosts: dict[str, list[LobbyEntry]] = {}
        for e in found:  # in name order, each host at its first table's place
            hosts.setdefault(e.address, []).append(e)
        out: list[LobbyRow] = []
        groups: list[LobbyRow] = []  # a host's group after the tables listed one by one
        for address, members in hosts.items():
            more = 0 if self.query else self.unlisted.get(address, 0)
            if len(members) + more > GROUP_OVER and address not in self.expanded:
                groups.append(self._group_row(address, members, more))
            else:
                out.extend(self._row(e) for e in members)
        return out + groups

    def _group_row(self, address: str, members: list[LobbyEntry], more: int) -> LobbyRow:
        count = len(members) + more
        names = sorted({safe_name(e.advert.name or e.name) for e in members})
        called = names[0] if len(names) == 1 else f"{names[0]}, {names[1]}..."
        return LobbyRow(
            service=f"group {address}",
            name=f"{count} tables",
            rules=safe_text(f"called {called}: Enter lists them", 60),
            seats="",
            phase="from one host",
            locked=False,
            cpu="",
            where=safe_text(address, 40) + (f" ({more} not listed)" if more else ""),
            stale=all(e.stale for e in members),
            joinable=False,
            group=address,
            count=count,
        )

    def _row(self, e: LobbyEntry) -> LobbyRow:
        ad = e.advert
        phase = safe_text(ad.phase or "?", 12)
        mine = e.table_id in self.seated and phase != AdvertPhase.FINISHED
        where = safe_text(f"{e.address}:{e.port}", 40)
        empty = ad.seats is not None and ad.seats[0] < ad.seats[1]
        fill = ""
        if phase == AdvertPhase.LOBBY and empty:
            fill = "CPUs fill empty seats" if ad.fill else "empty seats left out"
        playing = phase == AdvertPhase.PLAYING and ad.round is not None
        return LobbyRow(
            service=e.service,
            name=safe_name(ad.name or e.name),
            rules=safe_text(ad.rules, 60),
            seats=ad.seats_text,
            phase="not answering" if e.stale else f"{phase} (you)" if mine else phase,
            locked=ad.locked,
            cpu=f"{ad.cpu} host CPU" if ad.cpu else "",
            where=where,
            stale=e.stale,
            joinable=not e.stale and (phase == AdvertPhase.LOBBY or mine),
            short_id=e.short_id,
            rating=self._ratings(e, where),
            round=f"round {ad.round}" if playing else "",
            host=ad.host_text,
            fill=fill,
        )

    def _ratings(self, e: LobbyEntry, where: str) -> str:
        prefix = e.advert.host_key_prefix or ""
        host = self.ratings.by_prefix(prefix)
        # The host sits at its own table: it is named as the host, not again as a player.
        others = [p for p in e.players or () if not (prefix and p.key.startswith(prefix))]
        rated = [(p.name, f) for p in others if (f := self.ratings.figures.get(p.key)) is not None]
        if not rated:
            return "" if host is None else f"host rated {words(host)}"
        head = "" if host is None else f"host {short(host)}, "
        # Fitted to the rest of the row's first line of facts, after its id and address.
        room = ROW_COLUMNS - DETAIL_INDENT - width(where_text(e.short_id, where) + ", ")
        room -= len(head)
        return head + seated_text(rated, len(others) - len(rated), room)

    def _clamp(self) -> None:
        self.selected = max(0, min(self.selected, len(self.rows()) - 1))

    def move(self, delta: int) -> None:
        self.selected += delta
        self._clamp()

    def current_row(self) -> LobbyRow | None:
        rows = self.rows()
        if not rows:
            return None
        self._clamp()
        return rows[self.selected]

    def current(self) -> LobbyEntry | None:
        """The selected table (None on a host's group row, or when none is listed)."""
        row = self.current_row()
        return None if row is None or row.group else self.entries.get(row.service)
