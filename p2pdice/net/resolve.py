"""Turning what a user types after `join` into a table URL: a name on the LAN, or HOST:PORT."""

from __future__ import annotations

import re
from dataclasses import dataclass

import aiohttp

from ..core.advert import Advert, listing_url
from ..core.clean import clean_name
from .discovery import TableAd, browse_once
from .tls import client_context

_ADDRESS = re.compile(
    r"^(?P<host>[A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):(?P<port>\d{1,5})(?:/(?P<table>.+))?$"
)


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
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            # The listing is a hint (its answer is checked at the table's own connection,
            # which pins the host key): TLS without the key pinned.
            http.get(url, ssl=client_context()) as resp,
        ):
            tables = await resp.json()
    except (aiohttp.ClientError, TimeoutError, ValueError) as err:
        raise ResolveError(
            f"no p2pdice host answers at {host}:{port} ({err.__class__.__name__})"
        ) from None
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
            f"  {host}:{port}/{clean_name(ad.table_id)}   {clean_name(ad.name)} "
            f"({ad.seats_text} seats, {clean_name(ad.phase) or '?'})"
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


def _matches(ad: TableAd, text: str) -> bool:
    return (
        text in (ad.service, ad.service.removesuffix("._p2pdice._tcp.local."), ad.table_id)
        or ad.name.lower() == text.lower()
    )


async def _by_name(text: str, timeout: float) -> Target:
    tables = await browse_once(timeout, until=lambda ad: _matches(ad, text))
    found = [t for t in tables if _matches(t, text)]
    if not found:
        seen = ", ".join(repr(t.name) for t in tables) or "none"
        raise ResolveError(
            f"no table called {text!r} on this network (tables seen: {seen}). If the network blocks "
            "multicast, join by address: p2pdice join HOST:PORT"
        )
    if len(found) > 1:
        listing = "\n".join(
            f"  {t.service.removesuffix('._p2pdice._tcp.local.')!r} at {t.addresses[0]}:{t.port}"
            for t in found
        )
        raise ResolveError(
            f"several tables are called {text!r}; use the full name or the address:\n{listing}"
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
