"""Finding tables on the LAN: DNS-SD over mDNS with python-zeroconf's asyncio API.

The advertisement is a hint, not a proof: the comparison code shown at the table is what
proves two players sit at the same table (SPEC.md 3.5, 10.4).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import ifaddr
from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from ..core.advert import Advert
from ..core.clean import clean_name

SERVICE_TYPE = "_p2pdice._tcp.local."


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
    """The start of a well-formed table id (public: it is in the TXT record), else None."""
    return table_id[:8] if table_id and re.fullmatch("[0-9a-f]+", table_id) else None


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


class Advertiser:
    """Registers one table and keeps its TXT record (`Advert.to_txt`) current."""

    def __init__(
        self, azc: AsyncZeroconf, *, name: str, port: int, addresses: list[str], txt: dict[str, str]
    ) -> None:
        self.azc = azc
        self.name = name
        self.port = port
        self.addresses = addresses
        self.txt = dict(txt)
        self.info: AsyncServiceInfo | None = None
        self.server = server_name(self.txt.get("id"))  # kept across updates: one A record

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
        if self.txt != registered:  # seats filled while the name was being probed
            await self._publish()
        return info.name

    async def update(self, txt: dict[str, str]) -> None:
        if txt == self.txt:
            return
        self.txt = dict(txt)
        if self.info is not None:  # not yet registered: start() publishes the latest record
            await self._publish()

    async def _publish(self) -> None:
        assert self.info is not None
        info = self._build(self.info.name)  # properties are read-only: build anew, same name
        await (await self.azc.async_update_service(info))
        self.info = info

    async def stop(self) -> None:
        if self.info is not None:
            with contextlib.suppress(Exception):
                await (await self.azc.async_unregister_service(self.info))
            self.info = None


@dataclass(frozen=True, slots=True)
class BrowseEvent:
    kind: str  #: "added", "updated" or "removed"
    table: TableAd


class Browser:
    """Yields added, updated and removed tables as the LAN announces them."""

    def __init__(self, azc: AsyncZeroconf) -> None:
        self.azc = azc
        self.tables: dict[str, TableAd] = {}
        self._events: asyncio.Queue[BrowseEvent] = asyncio.Queue()
        self._browser: AsyncServiceBrowser | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._browser = AsyncServiceBrowser(
            self.azc.zeroconf, [SERVICE_TYPE], handlers=[self._on_change]
        )

    def _on_change(
        self, zeroconf: Any, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            table = self.tables.pop(name, None)
            if table is not None:
                self._events.put_nowait(BrowseEvent("removed", table))
            return
        task = asyncio.get_running_loop().create_task(self._resolve(name, state_change))
        self._tasks.add(task)  # keep a reference until it finishes
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str, change: ServiceStateChange) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(self.azc.zeroconf, 3000):
            return
        addresses = info.parsed_addresses(IPVersion.V4Only)
        if not addresses or info.port is None:
            return
        # Anyone on the LAN can advertise: Advert cleans every text that may reach a screen.
        advert = Advert.from_txt(_txt_text(info.properties))
        table = TableAd(
            service=name,
            name=clean_name(advert.name or name.split(".")[0]) or "(unnamed table)",
            addresses=addresses,
            port=info.port,
            advert=advert,
        )
        kind = "updated" if name in self.tables else "added"
        self.tables[name] = table
        self._events.put_nowait(BrowseEvent(kind, table))

    async def events(self) -> AsyncIterator[BrowseEvent]:
        while True:
            yield await self._events.get()

    async def stop(self) -> None:
        if self._browser is not None:
            await self._browser.async_cancel()
        for task in list(self._tasks):
            task.cancel()


def new_zeroconf(bind: str | None = None) -> AsyncZeroconf:
    if bind and bind not in ("0.0.0.0", ""):
        return AsyncZeroconf(interfaces=[bind], ip_version=IPVersion.V4Only)
    return AsyncZeroconf(ip_version=IPVersion.V4Only)


async def browse_once(timeout: float, *, until: Any = None, settle: float = 0.5) -> list[TableAd]:
    """Listen up to `timeout` seconds and return what was found.

    With `until` (a predicate over one table), stop `settle` seconds after the first table it
    accepts, long enough to notice a second table of the same name.
    """
    azc = new_zeroconf()
    browser = Browser(azc)
    loop = asyncio.get_running_loop()
    try:
        await browser.start()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if until is not None and any(until(t) for t in browser.tables.values()):
                deadline = min(deadline, loop.time() + settle)
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
