"""Finding tables on the LAN: DNS-SD over mDNS with python-zeroconf's asyncio API.

The advertisement is a hint, not a proof: the comparison code shown at the table is what
proves two players sit at the same table (SPEC.md 3.5, 10.4).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import secrets
import socket
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import ifaddr
from zeroconf import (
    BadTypeInNameException,
    DNSAddress,
    DNSIncoming,
    DNSPointer,
    DNSQuestionType,
    DNSService,
    IPVersion,
    ServiceStateChange,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from ..core.advert import Advert, short_id
from ..core.clean import clean_name

SERVICE_TYPE = "_p2pdice._tcp.local."

log = logging.getLogger("p2pdice.discovery")

#: Advertisements a browser tracks at once, and of them from one sender's address: a flood
#: of fakes costs a bounded amount of memory and work, and one flooding machine cannot crowd
#: out the tables of others (SPEC.md 10.4, docs/reliability.md).
MAX_TABLES = 200
MAX_PER_SENDER = 32
#: Resolutions (SRV, TXT and A lookups) in flight at once, and names waiting for one.
MAX_RESOLVING = 16
MAX_WAITING = 2 * MAX_TABLES
#: Of those, for names announced from one address: a machine announcing fresh names as fast
#: as it can then cannot push a table opened meanwhile out of the queue before its lookup.
RESOLVING_PER_SENDER = MAX_RESOLVING // 4
WAITING_PER_SENDER = MAX_PER_SENDER
#: (host name, address) pairs remembered as announced by the machine at that address.
MAX_VOUCHED = 4096
#: A lookup that timed out, or whose addresses were not yet vouched for by their sender, is
#: tried again after these many seconds: zeroconf reports a name added only once, so without
#: a retry one answer lost on a busy machine hides that table from this lobby for good.
LOOKUP_RETRY_AFTER = (1.0, 2.0, 4.0, 8.0)


def lan_addresses(bind: str | None = None) -> list[str]:
    """The bind address, or every IPv4 address of an interface that is up and not loopback
    (loopback only when nothing else exists)."""
    if bind and bind not in ("0.0.0.0", ""):
        return [bind]
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6 tuples: tables are advertised over IPv4
            address = ipaddress.ip_address(ip.ip)
            if not address.is_loopback and not address.is_link_local:
                found.append(ip.ip)
    return sorted(set(found)) or ["127.0.0.1"]


@dataclass(slots=True)
class TableAd:
    """A table as its advertisement describes it, and where it was heard."""

    service: str  #: the full DNS-SD instance name (unique on the LAN)
    name: str  #: the advertised name, else the instance name (cleaned, never empty)
    addresses: list[str]
    port: int
    advert: Advert

    @property
    def table_id(self) -> str:
        return self.advert.table_id

    @property
    def short_id(self) -> str | None:
        return short_id(self.advert.table_id)

    @property
    def url(self) -> str | None:
        """None when the ad names no address or no well-formed table (see `Advert.url`)."""
        return self.advert.url(self.addresses[0], self.port) if self.addresses else None

    def to_json(self) -> dict[str, Any]:
        return {
            "service": self.service,
            "name": self.name,
            "addresses": self.addresses,
            "port": self.port,
            "url": self.url,
            "short_id": self.short_id,
            **{k: v for k, v in self.advert.to_txt().items() if k != "name"},
        }


def _txt_bytes(txt: dict[str, str]) -> dict[bytes, bytes]:
    return {k.encode(): v.encode("utf-8")[:200] for k, v in txt.items()}


def _txt_text(props: dict[bytes, bytes | None]) -> dict[str, str]:
    out = {}
    for k, v in props.items():
        try:
            out[k.decode("ascii")] = (v or b"").decode("utf-8", "replace")
        except UnicodeDecodeError:
            continue
    return out


def _table_tag(table_id: str | None) -> str | None:
    """The table's short id (public: it is in the TXT record), else None."""
    return short_id(table_id)


def server_name(table_id: str | None) -> str:
    """A host name for one advertisement's A record that no other machine claims.

    Not the machine's host name: two machines called `raspberrypi` would announce one name with
    two addresses, and each table would be listed at both (python-zeroconf probes the instance
    name before claiming it, never the host name). The table id's start says which table it
    is; the random part keeps even a copied advertisement of the same table from taking over
    this one's address.
    """
    return f"p2pdice-{_table_tag(table_id) or 'table'}-{secrets.token_hex(4)}.local."


_LABEL_BYTES = 63 - len("-99")  # a DNS label, with room for zeroconf's rename suffix


def _instance(name: str, table_id: str | None = None) -> str:
    """`Kitchen [3f2a9c1b]`: the table's id in the instance name, because zeroconf's probing
    does not see a twin that is probing at the same moment (two machines opening "Kitchen"
    together both kept "Kitchen", and one table vanished from lobbies). Lobbies show the TXT
    name, without the tag."""
    tag = _table_tag(table_id)
    suffix = f" [{tag}]" if tag else ""
    safe = "".join(ch for ch in name if ch.isprintable() and ch != ".")[:40] or "p2pdice table"
    while len((safe + suffix).encode()) > _LABEL_BYTES:
        safe = safe[:-1]
    return f"{safe}{suffix}.{SERVICE_TYPE}"


#: Seconds between two announcements that change only the TXT `round` (SPEC.md 10.4): every
#: update is announced to the whole LAN several times, and fast rounds (CPU seats) would
#: otherwise announce every few seconds. Lobbies read the current round from `GET /tables`.
ROUND_ANNOUNCE_EVERY = 10.0
#: TXT keys whose change alone waits for ROUND_ANNOUNCE_EVERY; any other change goes at once.
QUIET_KEYS = frozenset({"round"})


def _only_quiet(a: dict[str, str], b: dict[str, str]) -> bool:
    """Whether the records `a` and `b` differ only in QUIET_KEYS."""
    keys = (a.keys() | b.keys()) - QUIET_KEYS
    return all(a.get(k) == b.get(k) for k in keys)


class Advertiser:
    """Registers one table and keeps its TXT record (`Advert.to_txt`) current: at once for a
    change of seats, phase or anything else, and at most every ROUND_ANNOUNCE_EVERY seconds
    for a change of the round alone (the latest record is announced when the wait is over).
    """

    def __init__(
        self,
        azc: AsyncZeroconf,
        *,
        name: str,
        port: int,
        addresses: list[str],
        txt: dict[str, str],
        round_every: float = ROUND_ANNOUNCE_EVERY,
    ) -> None:
        self.azc = azc
        self.name = name
        self.port = port
        self.addresses = addresses
        self.txt = dict(txt)  #: the latest record asked for (announced, or due to be)
        self.announced: dict[str, str] = dict(txt)  #: the record last announced
        self.info: AsyncServiceInfo | None = None
        self.server = server_name(self.txt.get("id"))  # kept across updates: one A record
        self.round_every = round_every
        self._announced_at = float("-inf")  #: loop time of the last announcement
        self._later: asyncio.TimerHandle | None = None  #: a round-only change waiting its turn
        self._publishing: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  #: one announcement at a time, the latest record each

    def _build(self, service_name: str) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            service_name,
            parsed_addresses=self.addresses,
            port=self.port,
            properties=_txt_bytes(self.txt),
            server=self.server,
        )

    async def start(self) -> str:
        registered = dict(self.txt)
        info = self._build(_instance(self.name, self.txt.get("id")))
        # allow_name_change: should a table's instance name be taken (a copied advertisement),
        # zeroconf registers "Kitchen [3f2a9c1b]-2" instead of failing.
        await (await self.azc.async_register_service(info, allow_name_change=True))
        self.info = info
        self.announced = registered
        self._announced_at = asyncio.get_running_loop().time()
        if self.txt != registered:  # seats filled while the name was being probed
            await self._publish()
        return info.name

    async def update(self, txt: dict[str, str]) -> None:
        """Announce `txt`: now, or (a change of the round alone, soon after the last
        announcement) once ROUND_ANNOUNCE_EVERY has passed since it."""
        if txt == self.txt:
            return
        self.txt = dict(txt)
        if self.info is None:  # not yet registered: start() publishes the latest record
            return
        loop = asyncio.get_running_loop()
        wait = self._announced_at + self.round_every - loop.time()
        if _only_quiet(self.txt, self.announced) and wait > 0:
            if self._later is None:
                self._later = loop.call_later(wait, self._announce_later)
            return
        await self._publish()

    def _announce_later(self) -> None:
        self._later = None
        if self.info is not None and self.txt != self.announced:
            self._publishing = asyncio.get_running_loop().create_task(self._publish())

    async def _publish(self) -> None:
        async with self._lock:
            assert self.info is not None
            if self._later is not None:  # this announcement carries the round that waited
                self._later.cancel()
                self._later = None
            if self.txt == self.announced:
                return  # announced meanwhile, by the update this one waited for
            txt = dict(self.txt)
            info = self._build(self.info.name)  # properties are read-only: build anew
            self._announced_at = asyncio.get_running_loop().time()
            await (await self.azc.async_update_service(info))
            self.info = info
            self.announced = txt

    async def stop(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None
        if self._publishing is not None:
            self._publishing.cancel()
            await asyncio.gather(self._publishing, return_exceptions=True)
        if self.info is not None:
            with contextlib.suppress(Exception):
                await (await self.azc.async_unregister_service(self.info))
            self.info = None


@dataclass(frozen=True, slots=True)
class BrowseEvent:
    kind: str  #: "added", "updated" or "removed"
    table: TableAd


class _Tap(asyncio.DatagramProtocol):
    """Shows every datagram zeroconf's socket receives to the ledger, then to zeroconf."""

    def __init__(self, inner: Any, ledger: SenderLedger) -> None:
        self.inner = inner
        self.ledger = ledger

    def connection_made(self, transport: Any) -> None:
        self.inner.connection_made(transport)

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.ledger.note(data, addr)
        self.inner.datagram_received(data, addr)

    def error_received(self, exc: Exception) -> None:
        self.inner.error_received(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)


class SenderLedger:
    """Which addresses each mDNS host name was announced for by the machine at that address.

    python-zeroconf keeps no record of who sent a record (its cache and `ServiceInfo` hold the
    records only; `DNSIncoming.source` exists only while a packet is read), so the ledger sees
    each packet first: a tap between zeroconf's sockets and its listener (asyncio's public
    `set_protocol`) reads the packet's A records and keeps `(host name, address)` only when
    the address is the packet's own source. A stranger announcing `victim.local -> 10.0.0.1`
    from 10.0.0.66 vouches for nothing, so no lobby sends 10.0.0.1 a request because of it.
    When zeroconf's sockets cannot be reached (`active` False), only on-link addresses are
    kept (see `on_link`); a LAN machine spoofing its source is beyond both (docs/lan.md).

    Service records likewise: `(instance name, host name, port)` is kept with the sender of
    each SRV, so that a stranger's SRV for a table's name leading to the table's host name at
    another port is told from the host's own (`served`).

    Goodbyes likewise: each table withdrawn (its PTR with TTL 0) is told to `on_farewell`
    with the packet's sender, so that a host's own goodbye is told from one anyone could send.
    """

    def __init__(self) -> None:
        self._vouched: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._served: OrderedDict[tuple[str, str, int, str], None] = OrderedDict()
        self._announcers: OrderedDict[str, str] = OrderedDict()  #: instance name -> sender
        self.active = False
        #: Called with (instance name, sender) for each goodbye heard.
        self.on_farewell: Callable[[str, str], None] | None = None

    def install(self, zc: Any) -> bool:
        """Tap every reading socket of `zc` (again after zeroconf adds one); whether it could."""
        readers = getattr(getattr(zc, "engine", None), "readers", None)
        if not readers:
            return self.active
        try:
            for reader in readers:
                transport = reader.transport
                protocol = transport.get_protocol()
                if not isinstance(protocol, _Tap):
                    transport.set_protocol(_Tap(protocol, self))
        except AttributeError:  # another zeroconf's layout: fall back to on-link addresses
            log.warning("cannot see mDNS senders: only on-link addresses are contacted")
            return self.active
        self.active = True
        return True

    def note(self, data: bytes, addr: Any) -> None:
        if len(data) < 3 or not data[2] & 0x80:  # a query (QR bit clear) announces nothing
            return
        sender = addr[0] if isinstance(addr, tuple) and addr else None
        if not isinstance(sender, str):
            return
        try:
            records = DNSIncoming(data, (sender, addr[1])).answers()
        except Exception:  # zeroconf itself logs and drops a malformed packet
            return
        for record in records:
            if isinstance(record, DNSPointer) and record.name.lower() == SERVICE_TYPE:
                if record.ttl == 0 and self.on_farewell is not None:
                    self.on_farewell(record.alias, sender)
                elif record.ttl:
                    self._announcers[record.alias.lower()] = sender
                    self._announcers.move_to_end(record.alias.lower())
                    while len(self._announcers) > MAX_VOUCHED:
                        self._announcers.popitem(last=False)
                continue
            if isinstance(record, DNSService) and record.ttl:
                served = (record.name.lower(), record.server.lower(), record.port, sender)
                self._served[served] = None
                self._served.move_to_end(served)
                while len(self._served) > MAX_VOUCHED:
                    self._served.popitem(last=False)
                continue
            if not isinstance(record, DNSAddress) or len(record.address) != 4:
                continue
            if socket.inet_ntoa(record.address) == sender:
                key = (record.name.lower(), sender)
                self._vouched[key] = None
                self._vouched.move_to_end(key)
                while len(self._vouched) > MAX_VOUCHED:
                    self._vouched.popitem(last=False)

    def served(self, name: str, server: str | None, port: int | None, addresses: list[str]) -> bool:
        """Whether the machine at one of `addresses` itself announced that `name` is served
        at `server` and `port` (True when the senders cannot be seen)."""
        if not self.active:
            return True
        if server is None or port is None:
            return False
        return any((name.lower(), server.lower(), port, a) in self._served for a in addresses)

    def announcer(self, name: str) -> str:
        """The address that last announced the table `name` ("" when none was seen)."""
        return self._announcers.get(name.lower(), "")

    def vouched(self, server: str | None, address: str) -> bool:
        """Whether the machine at `address` itself announced that `server` has it."""
        if not self.active:
            return on_link(address)
        return server is not None and (server.lower(), address) in self._vouched


def on_link(address: str) -> bool:
    """Whether `address` is on the network of one of this machine's interfaces (where an mDNS
    answer can come from), and a unicast host address at all."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.is_multicast or ip.is_unspecified or ip.version != 4:
        return False
    for adapter in ifaddr.get_adapters():
        for own in adapter.ips:
            if isinstance(own.ip, str):
                net = ipaddress.ip_network(f"{own.ip}/{own.network_prefix}", strict=False)
                if ip in net and ip != net.broadcast_address:
                    return True
    return False


class Browser:
    """Yields added, updated and removed tables as the LAN announces them.

    Bounded whatever the LAN sends: at most MAX_TABLES advertisements tracked, MAX_PER_SENDER
    of them per address (the rest are counted in `ignored`, by address, so a lobby can say
    "and 468 more from 10.0.0.66"), MAX_RESOLVING lookups at once, and a table's addresses
    only those its own machine announced (`SenderLedger`); an advertisement left with none is
    dropped (counted in `unvouched`).

    `multicast_answers` asks every question with the unicast-response bit clear (QM), so
    that every answer is multicast (see `browse_once`); otherwise zeroconf's first question of
    a kind asks for a unicast answer (QU).
    """

    def __init__(self, azc: AsyncZeroconf, *, multicast_answers: bool = False) -> None:
        self.azc = azc
        self._question_type = DNSQuestionType.QM if multicast_answers else None
        self.tables: dict[str, TableAd] = {}
        self.ledger = SenderLedger()
        self._overflow: OrderedDict[str, str] = OrderedDict()  #: name -> address, past caps
        self.unvouched = 0  #: advertisements naming only addresses that did not send them
        self._events: asyncio.Queue[BrowseEvent] = asyncio.Queue()
        self._browser: AsyncServiceBrowser | None = None
        #: Names waiting for a lookup, and being looked up, with the address that announced
        #: each ("" when unknown: no cap by address then).
        self._waiting: OrderedDict[str, str] = OrderedDict()
        self._resolving: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._retries: OrderedDict[str, int] = OrderedDict()  #: name -> lookups that failed
        #: Tables zeroconf reported removed without their host's own goodbye: looked up again,
        #: and removed only if the lookup finds no answer. Only names tracked and waiting for
        #: that lookup are flagged (a name leaving the queue or the tracked tables, `_forget`,
        #: loses its flag), so at most MAX_TABLES.
        self._confirming: set[str] = set()
        self.ledger.on_farewell = self._farewell
        self._stopped = False  #: no lookup starts once `stop` was called

    async def start(self) -> None:
        with contextlib.suppress(Exception):
            await self.azc.zeroconf.async_wait_for_start()
        self.ledger.install(self.azc.zeroconf)
        self._browser = AsyncServiceBrowser(
            self.azc.zeroconf,
            [SERVICE_TYPE],
            handlers=[self._on_change],
            question_type=self._question_type,
        )

    def _on_change(
        self, zeroconf: Any, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            if name in self.tables:
                # Anyone can send a goodbye for any table (its host's own was taken by
                # `_farewell`), and records also expire: the table stays listed unless a
                # lookup finds nothing (zeroconf answers it from its cache while the table's
                # SRV, TXT and A records there are fresh: the lobby's probes check the host).
                self._confirming.add(name)
                self._wait(name)
                self._pump()
            else:
                self._drop(name)
            return
        self._wait(name)
        self._pump()

    def _wait(self, name: str, sender: str | None = None) -> None:
        """Queue `name` (announced from `sender`, else as the ledger says) for a lookup. A
        burst of changes to one name is one lookup; past WAITING_PER_SENDER names from its
        address, or MAX_WAITING in all, the oldest (of that address) waits out."""
        sender = self.ledger.announcer(name) if sender is None else sender
        self._waiting[name] = sender
        self._waiting.move_to_end(name)
        if sender and sum(s == sender for s in self._waiting.values()) > WAITING_PER_SENDER:
            out = next(n for n, s in self._waiting.items() if s == sender)
            del self._waiting[out]
            self._confirming.discard(out)  # its confirmation is not looked up: no flag left
        while len(self._waiting) > MAX_WAITING:
            out, _ = self._waiting.popitem(last=False)
            self._confirming.discard(out)

    def _farewell(self, name: str, sender: str) -> None:
        """A goodbye for `name` from `sender`: the table (or a copy of it listed at the
        sender's address) is removed when it was its own."""
        for key in (name, copy_key(name, sender)):
            table = self.tables.get(key)
            if table is not None and sender in table.addresses:
                self._drop(key)

    def _drop(self, name: str) -> None:
        self._overflow.pop(name, None)
        table = self._forget(name)
        if table is not None:
            self._events.put_nowait(BrowseEvent("removed", table))

    def _forget(self, name: str) -> TableAd | None:
        """Stop tracking `name`: its table (returned), and its waiting lookup, retries and
        confirmation flag (a lookup already in flight still lists what it finds)."""
        self._retries.pop(name, None)
        self._waiting.pop(name, None)
        self._confirming.discard(name)
        return self.tables.pop(name, None)

    def forget(self, key: str) -> None:
        """The lobby no longer lists the table `key` (its host stopped answering the lobby's
        checks): stop tracking it, so that it counts toward no cap (MAX_TABLES, MAX_PER_SENDER).
        A copy (`copy_key`) is otherwise removed only by a goodbye from its own address, which
        a machine that vanished never sends. No event: the lobby removed it already. Should it
        be announced again, it is looked up and listed anew."""
        self._forget(key)

    def _pump(self) -> None:
        while self._waiting and len(self._resolving) < MAX_RESOLVING and not self._stopped:
            busy = Counter(self._resolving.values())
            name = next(
                (
                    n
                    for n, sender in self._waiting.items()
                    if n not in self._resolving
                    and (not sender or busy[sender] < RESOLVING_PER_SENDER)
                ),
                None,
            )
            if name is None:
                return
            self._resolving[name] = self._waiting.pop(name)
            task = asyncio.get_running_loop().create_task(self._resolve(name))
            self._tasks.add(task)  # keep a reference until it finishes
            task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str) -> None:
        found = False
        try:
            found = await self._lookup(name)
        finally:
            sender = self._resolving.pop(name, "")
            if found:
                self._retries.pop(name, None)
            else:
                self._retry_later(name, sender)
            self._pump()

    def _retry_later(self, name: str, sender: str = "") -> None:
        """Look `name` up again after a pause, a bounded number of times (and for at most
        MAX_WAITING names at once, so a flood of names that never resolve stays bounded)."""
        failed = self._retries.pop(name, 0)
        if failed >= len(LOOKUP_RETRY_AFTER):
            return
        self._retries[name] = failed + 1
        while len(self._retries) > MAX_WAITING:
            self._retries.popitem(last=False)
        later = LOOKUP_RETRY_AFTER[failed]
        asyncio.get_running_loop().call_later(later, self._requeue, name, sender)

    def _requeue(self, name: str, sender: str = "") -> None:
        if name not in self._retries or name in self.tables:
            return  # removed meanwhile, pushed out by newer names, or found by an update
        self._wait(name, sender or None)
        self._pump()

    async def _lookup(self, name: str) -> bool:
        """Whether `name` was resolved to a table (tracked, counted past the caps, or found
        to name nothing we can list: those are settled); False asks for a retry."""
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
        except BadTypeInNameException:  # control characters: no table, and no traceback
            return True  # (the exception's text is the stranger's raw name)
        confirming = name in self._confirming
        self._confirming.discard(name)
        if not await info.async_request(self.azc.zeroconf, 3000, self._question_type):
            if confirming:  # removed, and its host no longer answers: gone
                self._drop(name)
                return True
            return False
        self.ledger.install(self.azc.zeroconf)  # zeroconf may have opened a socket since
        announced = info.parsed_addresses(IPVersion.V4Only)
        addresses = [a for a in announced if self.ledger.vouched(info.server, a)]
        if not self.ledger.served(name, info.server, info.port, addresses):
            addresses = []  # a stranger's SRV, leading to another machine's host name
        if not addresses or info.port is None:
            # A tracked table stays where its host announced it: anyone can send records
            # for its name naming an address that did not announce them.
            if announced and self._retries.get(name, 0) >= len(LOOKUP_RETRY_AFTER):
                self.unvouched += 1  # counted once, when no retry is left
            return not announced or info.port is None
        key = name
        held = self.tables.get(name)
        if held is not None and not set(addresses) & set(held.addresses):
            # Another machine answering for this table's name, with records of its own
            # address: listed as a copy beside the table, never in its place (a copy gets
            # no client: the key check). A host that really moved is listed at both places
            # until the lobby's check drops the old one.
            key = copy_key(name, addresses[0])
        if key not in self.tables and not self._room_for(addresses[0]):
            self._overflow[key] = addresses[0]  # each name once, however often it is sent
            self._overflow.move_to_end(key)
            while len(self._overflow) > MAX_VOUCHED:
                self._overflow.popitem(last=False)
            return True
        # Anyone on the LAN can advertise: Advert cleans every text that may reach a screen.
        advert = Advert.from_txt(_txt_text(info.properties))
        table = TableAd(
            service=key,
            name=clean_name(advert.name or name.split(".")[0]) or "(unnamed table)",
            addresses=addresses,
            port=info.port,
            advert=advert,
        )
        kind = "updated" if key in self.tables else "added"
        self.tables[key] = table
        self._overflow.pop(key, None)  # listed: no longer counted past the caps
        self._events.put_nowait(BrowseEvent(kind, table))
        return True

    @property
    def ignored(self) -> Counter[str]:
        """Advertisements heard past the caps (each name once), by address."""
        return Counter(self._overflow.values())

    def _room_for(self, address: str) -> bool:
        """Whether a new table from `address` is tracked: under MAX_PER_SENDER from it, and
        under MAX_TABLES, or else the address with the most tables has more than one more
        than `address`: its newest is then given up (counted past the caps), so that one
        machine holding many addresses cannot crowd out the tables of others."""
        counts = Counter(t.addresses[0] for t in self.tables.values())
        if counts[address] >= MAX_PER_SENDER:
            return False
        if len(self.tables) < MAX_TABLES:
            return True
        biggest, most = counts.most_common(1)[0]
        if most <= counts[address] + 1:
            return False
        newest = next(k for k in reversed(self.tables) if self.tables[k].addresses[0] == biggest)
        self._overflow[newest] = biggest
        while len(self._overflow) > MAX_VOUCHED:
            self._overflow.popitem(last=False)
        evicted = self._forget(newest)  # with its waiting lookup, retries and flag, as _drop
        assert evicted is not None
        self._events.put_nowait(BrowseEvent("removed", evicted))
        return True

    async def events(self) -> AsyncIterator[BrowseEvent]:
        while True:
            yield await self._events.get()

    def pending(self) -> list[BrowseEvent]:
        """The events already waiting, taken at once (a consumer applies a burst together)."""
        out = []
        while not self._events.empty():
            out.append(self._events.get_nowait())
        return out

    async def stop(self) -> None:
        self._stopped = True  # else each cancelled lookup starts the next, on a closed zeroconf
        if self._browser is not None:
            await self._browser.async_cancel()
        for task in list(self._tasks):
            task.cancel()


def copy_key(name: str, address: str) -> str:
    """The key `Browser.tables` lists records for the table `name` under when they come from
    `address`, another machine than the one the table was first heard at."""
    return f"{name} @{address}"


def new_zeroconf(bind: str | None = None) -> AsyncZeroconf:
    if bind and bind not in ("0.0.0.0", ""):
        return AsyncZeroconf(interfaces=[bind], ip_version=IPVersion.V4Only)
    return AsyncZeroconf(ip_version=IPVersion.V4Only)


async def browse_once(
    timeout: float, *, until: Any = None, settle: float = 1.0, at_least: float = 0.0
) -> list[TableAd]:
    """Listen up to `timeout` seconds and return what was found.

    With `until` (a predicate over one table), stop `settle` seconds after the first table it
    accepts, but not before `at_least` seconds have passed since listening began (`timeout`
    still bounds both).

    Every question asks for multicast answers (QM), never for unicast ones: an answer sent by
    unicast goes to port 5353 of this machine, where every mDNS client running here (a lobby,
    another `browse`) has a socket, and the kernel hands each datagram to one of them only,
    chosen by a hash of the addresses. A QU question's answer from one host could thus go to
    another client while another host's answer reached this one (`join NAME` then heard one
    table of the name and not its twin). A multicast answer reaches every socket.
    """
    azc = new_zeroconf()
    browser = Browser(azc, multicast_answers=True)
    loop = asyncio.get_running_loop()
    try:
        await browser.start()
        started = loop.time()
        deadline = started + timeout
        while loop.time() < deadline:
            if until is not None and any(until(t) for t in browser.tables.values()):
                deadline = min(deadline, max(loop.time() + settle, started + at_least))
                until = None
            await asyncio.sleep(0.05)
        return sorted(browser.tables.values(), key=lambda t: t.name.lower())
    finally:
        await browser.stop()
        await azc.async_close()


async def find_table(
    table_id: str, *, host_prefix: str | None, timeout: float, avoid: frozenset[str] = frozenset()
) -> TableAd | None:
    """The advertisement of the table `table_id` (hosted by the key starting `host_prefix`,
    the TXT `hk`) whose URL is not in `avoid`, listening up to `timeout` seconds; None when
    none is heard or multicast is unavailable here. Used to find a table again after its
    host restarted on another port. Anyone can copy an advertisement: the host's challenge
    decides whether the table found is the one we sat at."""

    def wanted(ad: TableAd) -> bool:
        return (
            ad.table_id == table_id
            and (host_prefix is None or ad.advert.host_key_prefix == host_prefix)
            and ad.url is not None
            and ad.url not in avoid
        )

    try:
        tables = await browse_once(timeout, until=wanted, settle=0.0)
    except OSError:  # no multicast-capable interface: addresses are all we have
        return None
    return next((ad for ad in tables if wanted(ad)), None)
