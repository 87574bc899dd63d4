"""Defences against a prankster on the same Wi-Fi: rate limits (of frames or of bytes) and
name cleaning."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.shape import MAX_NAME, NAME_FORBIDDEN

# CSI/OSC/other escape sequences first, so their printable tails do not survive.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"  # two-byte and nF escapes (ESC c, ESC ( B, ESC # 8)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)


_SPACES = re.compile(" +")


#: Space characters other than U+0020 (the Zs category, listed so it never depends on the
#: Unicode version): each becomes a plain space before anything is removed (SPEC.md 10.5).
_OTHER_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


def clean_text(text: str, limit: int) -> str:
    """Any text from the network made safe to print: escape sequences and forbidden
    characters removed, spaces made plain and single, cut to `limit` characters."""
    text = _OTHER_SPACES.sub(" ", _ESCAPES.sub("", text))
    return _SPACES.sub(" ", NAME_FORBIDDEN.sub("", text)).strip(" ")[:limit].strip(" ")


def clean_name(text: str) -> str:
    """A display name safe for anyone's terminal (SPEC.md 10.5); may be empty."""
    return clean_text(text, MAX_NAME)


@dataclass(slots=True)
class TokenBucket:
    """`rate` tokens a second, up to `burst`; the adapter passes the clock in."""

    rate: float = 20.0
    burst: float = 50.0
    tokens: float = 50.0
    stamp: float | None = None

    def allow(self, now: float) -> bool:
        return self.take(now, 1.0)

    def take(self, now: float, amount: float) -> bool:
        """Spend `amount` tokens if there are that many (a frame, or bytes to send)."""
        if self.stamp is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= amount:
            self.tokens -= amount
            return True
        return False


_TABLE_ID = re.compile("[0-9a-f]{64}")
_HOST_KEY_PREFIX = re.compile("[0-9a-f]{16}")


def table_url(address: str, port: int, table: Mapping[str, Any]) -> str | None:
    """The WebSocket URL of an announced table (TXT record or `/tables` row), or None when it
    does not name its table the way a p2pdice host does (a 64-hex id, path `/t/<id>`): a path
    such as `@elsewhere/t/x` would send the connection to another machine than the one
    shown."""
    table_id, path = table.get("id"), table.get("path") or f"/t/{table.get('id')}"
    if not (isinstance(table_id, str) and _TABLE_ID.fullmatch(table_id)):
        return None
    if path != f"/t/{table_id}":
        return None
    return f"ws://{address}:{port}{path}"


def host_key_prefix(table: Mapping[str, Any]) -> str | None:
    """The announced start of the host's key (`hk`), when it is well formed."""
    hk = table.get("hk")
    return hk if isinstance(hk, str) and _HOST_KEY_PREFIX.fullmatch(hk) else None
