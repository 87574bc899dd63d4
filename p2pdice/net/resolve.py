"""Turning what a user types after `join` into a table URL: a name on the LAN, or HOST:PORT."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

import aiohttp

from ..core.advert import SHORT_ID_CHARS, Advert, AdvertPhase, listing_url
from ..core.clean import clean_name
from .discovery import TableAd, browse_once
from .tls import client_context
from .unreachable import could_not_reach

#: The most of a `GET /tables` answer a lobby or `join` reads, and of its rows it looks at: a
#: host lists its own few tables in a few kilobytes, so anything larger is refused unread
#: (a stranger's 64 MiB answer costs 256 KiB).
LISTING_BYTES = 256 * 1024
LISTING_ROWS = 256


class ListingError(Exception):
    """A `/tables` answer that is too large or not a JSON list."""


async def fetch_listing(http: aiohttp.ClientSession, url: str) -> list[dict[str, Any]]:
    """A host's `GET /tables` rows (at most LISTING_ROWS), reading at most LISTING_BYTES of
    the answer; the session's timeout bounds the wait. Raises ListingError, aiohttp's
    errors or TimeoutError."""
    async with http.get(url, allow_redirects=False) as resp:
        try:
            declared = resp.content_length
            if declared is not None and declared > LISTING_BYTES:
                raise ListingError(f"a {declared}-byte listing (the limit is {LISTING_BYTES})")
            body = bytearray()
            while chunk := await resp.content.read(LISTING_BYTES + 1 - len(body)):
                body += chunk
                if len(body) > LISTING_BYTES:
                    raise ListingError(f"a listing over {LISTING_BYTES} bytes")
        except BaseException:  # too long, or the caller's timeout or cancellation
            _hang_up(resp)
            raise
    try:
        rows = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: lists nested thousands deep
        raise ListingError("a listing that is not JSON") from None
    if not isinstance(rows, list):
        raise ListingError("a listing that is not a list")
    return [row for row in rows[:LISTING_ROWS] if isinstance(row, dict)]


def _hang_up(resp: aiohttp.ClientResponse) -> None:
    """Drop the connection at once: a TLS close would wait for the sender's close_notify,
    reading (and discarding) whatever else it streams meanwhile."""
    transport = resp.connection.transport if resp.connection is not None else None
    if transport is not None:
        transport.abort()


_SHELL_SAFE = re.compile(r"[\w@%+=:,./-][\w@%+=:,./#-]*")
_ID_START = re.compile(f"[0-9a-f]{{{SHORT_ID_CHARS},64}}")
_ADDRESS = re.compile(
    r"^(?P<host>[A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):(?P<port>\d{1,5})(?:/(?P<table>.+))?$"
)


#: Seconds `join NAME` listens before it chooses, however early the first table of that name
#: answers: long enough to hear every table of the name on the LAN, since a twin that answers
#: later must make the name ambiguous. python-zeroconf (0.154) asks 20-120 ms after it starts
#: and again 1 s later; a host delays an answer shared by several tables (the PTR) 20-120 ms,
#: groups answers up to 500 ms more, and holds one it multicast in the last second (for
#: someone who asked just before) another second (RFC 6762 sections 6 and 14): a table is heard
#: within about 1.5 s, and within about 2.5 s when its first answer was lost and the question
#: asked again brings it. 3 s, as long as `browse` listens by default.
NAME_LISTEN = 3.0


class ResolveError(Exception):
    """Nothing, or more than one thing, matches; the message says what to type instead."""


@dataclass(slots=True)
class Target:
    url: str
    name: str
    table_id: bytes | None
    host_key_prefix: str | None = None
    locked: bool = False  #: the table says it needs a password (listing or TXT `pw`)


async def resolve(text: str, *, timeout: float) -> Target:
    match = _ADDRESS.match(text)
    if match:
        return await _by_address(match["host"], int(match["port"]), match["table"], timeout)
    return await _by_name(text, timeout)


async def _by_address(host: str, port: int, which: str | None, timeout: float) -> Target:
    url = listing_url(host, port)
    try:
        # The listing is a hint (its answer is checked at the table's own connection,
        # which pins the host key): TLS without the key pinned.
        connector = aiohttp.TCPConnector(ssl=client_context())
        async with aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=timeout), connector=connector
        ) as http:
            tables = await fetch_listing(http, url)
    except ListingError as err:
        raise ResolveError(f"{host}:{port} answered, but not like a p2pdice host ({err})") from None
    except (aiohttp.ClientError, TimeoutError, ValueError) as err:
        raise ResolveError(could_not_reach(f"{host}:{port}", err, timeout=timeout)) from None
    try:
        return _pick(tables, host, port, which)
    except (KeyError, TypeError, ValueError, AttributeError):  # not what a p2pdice host sends
        raise ResolveError(f"{host}:{port} answered, but not like a p2pdice host") from None


def _pick(tables: list[dict], host: str, port: int, which: str | None) -> Target:
    """The one table of a host's `/tables` listing that `which` names (or its only one)."""
    ads = [Advert.from_txt(t) for t in tables if isinstance(t, dict)]
    if which:
        ads = [ad for ad in ads if which in (ad.table_id, ad.name)]
    if not ads:
        raise ResolveError(f"no table{' ' + repr(which) if which else ''} at {host}:{port}")
    if len(ads) > 1:
        listing = "\n".join(
            f"  {host}:{port}/{clean_name(ad.table_id)}   {clean_name(ad.name)} ({table_facts(ad)})"
            for ad in ads
        )
        raise ResolveError(f"{host}:{port} hosts several tables; name one:\n{listing}")
    ad = ads[0]
    url = ad.url(host, port)
    if url is None:
        raise ValueError("not a table id and path")
    return Target(
        url=url,
        name=clean_name(ad.name) or "(unnamed table)",
        table_id=bytes.fromhex(ad.table_id),
        host_key_prefix=ad.host_key_prefix,
        locked=ad.locked,
    )


def join_name(ad: TableAd) -> str:
    """What to type after `p2pdice join` for this table alone: `Kitchen#3fa2c1d0`."""
    sid = ad.short_id
    return f"{ad.name}#{sid}" if sid else ad.service.removesuffix("._p2pdice._tcp.local.")


def _matches(ad: TableAd, text: str) -> bool:
    """`text` names this table: its name (any case), `NAME#ID` or `#ID` with its short id
    (or more of its id), its full id, or its DNS-SD instance name."""
    name, sep, wanted_id = text.rpartition("#")
    if sep and _ID_START.fullmatch(wanted_id.lower()):
        id_ok = ad.short_id is not None and ad.table_id.startswith(wanted_id.lower())
        return id_ok and (not name or ad.name.lower() == name.lower())
    return (
        text in (ad.service, ad.service.removesuffix("._p2pdice._tcp.local."), ad.table_id)
        or ad.name.lower() == text.lower()
    )


def shell_word(text: str) -> str:
    """`text` as one word for a shell: bare when it needs no quotes (a `#` inside a word
    starts no comment), else quoted."""
    return text if _SHELL_SAFE.fullmatch(text) else shlex.quote(text)


def table_facts(advert: Advert) -> str:
    """What tells a table apart from another of its name, from its advertisement: "2/4
    seats, round 3, password" or "1/4 seats, lobby, CPUs fill empty seats"."""
    phase = clean_name(advert.phase) or "?"
    if phase == AdvertPhase.PLAYING and advert.round is not None:
        phase = f"round {advert.round}"
    empty = advert.seats is not None and advert.seats[0] < advert.seats[1]
    fill = ""
    if phase == AdvertPhase.LOBBY and empty:
        fill = ", CPUs fill empty seats" if advert.fill else ", empty seats left out"
    lock = ", password" if advert.locked else ""
    return f"{advert.seats_text} seats, {phase}{fill}{lock}"


def describe(ad: TableAd, *, by_address: bool = False) -> str:
    """One table of an ambiguous name: what to type (`by_address`: its address and id, when
    another advert claims its id), then what tells it apart (its seats, round, address and
    host: the name its host plays under, and its key)."""
    advert = ad.advert
    host = f", {advert.host_text}" if advert.host_text else ""
    what = f"{ad.addresses[0]}:{ad.port}/{ad.table_id}" if by_address else join_name(ad)
    return (
        f"  p2pdice join {shell_word(what)}\n"
        f"      {ad.name}: {table_facts(advert)}, at {ad.addresses[0]}:{ad.port}{host}"
    )


async def _by_name(text: str, timeout: float) -> Target:
    tables = await browse_once(timeout, until=lambda ad: _matches(ad, text), at_least=NAME_LISTEN)
    found = [t for t in tables if _matches(t, text)]
    if not found:
        seen = ", ".join(repr(t.name) for t in tables[:20]) or "none"
        more = f" and {len(tables) - 20} more" if len(tables) > 20 else ""
        raise ResolveError(
            f"no table called {text!r} on this network (tables seen: {seen}{more}). If the "
            "network blocks multicast, join by address: p2pdice join HOST:PORT"
        )
    # Several adverts of one table id are one table heard at several addresses (a host with
    # two interfaces, or a stranger copying its advert): the id binds the host key, and the
    # connection pins that key, so whichever answers with another key is passed over and the
    # table looked up again (net/client.py). Only different tables make the name ambiguous,
    # and one table id claimed under two host keys (a stranger can announce any id with its
    # own key, which the pin would then check): which is the real host, the user says.
    if len({(t.table_id, t.advert.host_key_prefix) for t in found}) == 1:
        found = sorted(found, key=lambda t: (t.addresses[0], t.port))[:1]
    if len(found) > 1:
        shown = sorted(found, key=lambda t: (t.addresses[0], t.port, t.table_id))[:20]
        ids = [t.table_id for t in found]
        listing = "\n".join(describe(t, by_address=ids.count(t.table_id) > 1) for t in shown)
        more = f"\n  ... and {len(found) - 20} more" if len(found) > 20 else ""
        raise ResolveError(
            f"{len(found)} tables are called {text!r}; none was joined. Type one of:\n"
            f"{listing}{more}"
        )
    ad = found[0]
    url = ad.url
    if url is None:
        raise ResolveError(f"the table {ad.name!r} advertises a malformed id or path")
    return Target(
        url=url,
        name=ad.name,
        table_id=bytes.fromhex(ad.table_id),
        host_key_prefix=ad.advert.host_key_prefix,
        locked=ad.advert.locked,
    )
