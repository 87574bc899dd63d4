"""The lobby's list of tables, as plain data: what mDNS announced, checked for liveness.

mDNS says when a table appears, changes or says goodbye, but a host that crashed sends no
goodbye, so its entry would linger. The lobby therefore probes each table's `GET /tables`
with a short timeout: one failed probe greys the row out (still shown, not joinable), and
a table that keeps failing (or whose host no longer lists it) is dropped. The clock and
the probe results are inputs; the adapter in `ui.lobby` does the I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.advert import Advert, AdvertPhase, listing_url
from .text import safe_name, safe_text

STALE_AFTER_FAILURES = 1  #: failed probes before a row is greyed out
DROP_AFTER_FAILURES = 3  #: failed probes before a row is removed
PROBE_EVERY = 2.0  #: seconds between liveness probes of one table


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
    def stale(self) -> bool:
        return self.failures >= STALE_AFTER_FAILURES


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


@dataclass
class LobbyBook:
    """Tables seen on the LAN, keyed by their DNS-SD instance name."""

    entries: dict[str, LobbyEntry] = field(default_factory=dict)
    selected: int = 0
    #: Ids of tables where this device holds a seat (Enter takes it back, even mid-game).
    seated: set[str] = field(default_factory=set)

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
        entry = LobbyEntry(service, name, addresses[0], port, advert, now)
        if old is not None and (old.address, old.port) == (entry.address, entry.port):
            entry.failures, entry.probed_at, entry.alive = old.failures, old.probed_at, old.alive
        self.entries[service] = entry

    def goodbye(self, service: str) -> None:
        self.entries.pop(service, None)
        self._clamp()

    def due(self, now: float) -> list[LobbyEntry]:
        """Entries whose liveness probe is due."""
        return [
            e
            for e in self.entries.values()
            if e.probed_at is None or now - e.probed_at >= PROBE_EVERY
        ]

    def probed(self, service: str, *, listed: bool | None, now: float) -> None:
        """A probe's answer: listed True (the host lists this table), False (the host answers
        without it) or None (no answer in time)."""
        entry = self.entries.get(service)
        if entry is None:
            return
        entry.probed_at = now
        if listed:
            entry.failures, entry.alive = 0, True
            return
        entry.alive = False
        entry.failures = DROP_AFTER_FAILURES if listed is False else entry.failures + 1
        if entry.failures >= DROP_AFTER_FAILURES:
            self.goodbye(service)

    def rows(self) -> list[LobbyRow]:
        out = []
        for e in sorted(
            self.entries.values(), key=lambda e: (safe_name(e.name).lower(), e.service)
        ):
            ad = e.advert
            phase = safe_text(ad.phase or "?", 12)
            mine = e.table_id in self.seated and phase != AdvertPhase.FINISHED
            out.append(
                LobbyRow(
                    service=e.service,
                    name=safe_name(ad.name or e.name),
                    rules=safe_text(ad.rules, 60),
                    seats=ad.seats_text,
                    phase="not answering" if e.stale else f"{phase} (you)" if mine else phase,
                    locked=ad.locked,
                    cpu=f"{ad.cpu} host CPU" if ad.cpu else "",
                    where=safe_text(f"{e.address}:{e.port}", 40),
                    stale=e.stale,
                    joinable=not e.stale and (phase == AdvertPhase.LOBBY or mine),
                )
            )
        return out

    def _clamp(self) -> None:
        self.selected = max(0, min(self.selected, len(self.entries) - 1))

    def move(self, delta: int) -> None:
        self.selected += delta
        self._clamp()

    def current(self) -> LobbyEntry | None:
        rows = self.rows()
        if not rows:
            return None
        self._clamp()
        return self.entries.get(rows[self.selected].service)
