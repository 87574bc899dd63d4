"""Connection authentication: a key that already holds a seat answers the host's challenge
(protocol/SPEC.md 10.2). Not part of the transcript."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import shape
from .hashing import Tag
from .signing import SigningKey


def auth_parts(auth: Any) -> tuple[dict[str, Any], bytes]:
    shape.check_object(auth, {"body": lambda v: isinstance(v, dict), "sig": shape.HEX64}, "auth")
    body = auth["body"]
    shape.check_object(
        body,
        {
            "type": shape.one_of("auth"),
            "table": shape.HEX32,
            "host": shape.HEX32,
            "key": shape.HEX32,
            "nonce": shape.HEX16,
        },
        "auth",
    )
    return body, bytes.fromhex(auth["sig"])


def sign_auth(key: SigningKey, *, table: bytes, host: bytes, nonce: bytes) -> dict[str, Any]:
    """The answer to a challenge by a key that already holds a seat (SPEC.md 10.2)."""
    body = {
        "type": "auth",
        "table": table.hex(),
        "host": host.hex(),
        "key": key.public.hex(),
        "nonce": nonce.hex(),
    }
    return {"body": body, "sig": key.sign(Tag.SIG_AUTH, body).hex()}


@dataclass(slots=True)
class _Source:
    """What one source address has cost the table lately."""

    strikes: int = 0  #: failed exchanges and malformed or unworked attempts
    tested: float = 0.0  #: failed exchanges only, fading: guesses it took from the table
    stamp: float = 0.0  #: when `tested` was last brought up to date
    last: float = 0.0  #: its last strike


#: How a PASSWORD_THROTTLED refusal's detail begins (SPEC.md 3.4): "retry in 12 s: ...".
_RETRY = re.compile(r"retry in ([0-9]{1,4}) s(?::|$)")
#: The longest wait a throttled refusal may ask for (a longer one is read as this).
MAX_RETRY_AFTER = 600


def retry_detail(seconds: int) -> str:
    """The start of a PASSWORD_THROTTLED detail: how many whole seconds to wait."""
    return f"retry in {max(1, min(MAX_RETRY_AFTER, seconds))} s"


def retry_after(detail: str) -> int | None:
    """The seconds a PASSWORD_THROTTLED detail asks to wait, None when it does not say."""
    found = _RETRY.match(detail)
    return None if found is None else max(1, min(MAX_RETRY_AFTER, int(found.group(1))))


class GuessThrottle:
    """Password attempts, per source address and for the whole table (SPEC.md 3.4).

    Two budgets. A source's own: every failed exchange and every attempt refused unread
    (malformed, or without its proof of work) is a strike; a source may have `free` strikes,
    after that each further attempt waits twice as long as the one before (1 s, 2 s, 4 s ...
    up to `max_wait`) after its last strike. Strikes are forgotten after `forget` seconds
    without one, and are kept per address, not per connection, so reconnecting starts
    nothing afresh.

    The table's: it tests at most `burst` guesses at once, refilled at `rate` a second, so
    attackers with any number of addresses still test at most that many a minute. Only a
    failed exchange (an attempt that carried its proof of work) spends it, and it is shared:
    a source that failed `k` times lately is tested only while the budget holds `1 + k`
    guesses (`k` fades at one per `forgive` seconds), so a newcomer is tested before a
    source that keeps failing. A success clears its
    source. The adapter passes the clock in; nothing here waits.
    """

    def __init__(
        self,
        *,
        free: int = 3,
        max_wait: float = 60.0,
        forget: float = 600.0,
        forgive: float = 60.0,
        burst: float = 10.0,
        rate: float = 10.0 / 60.0,
        max_sources: int = 1024,
    ) -> None:
        self.free = free
        self.max_wait = max_wait
        self.forget = forget
        self.forgive = forgive
        self.burst = burst
        self.rate = rate
        self.max_sources = max_sources
        self._sources: dict[str, _Source] = {}  # oldest strike first
        self._tokens = burst
        self._stamp: float | None = None

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def _source(self, source: str, now: float) -> _Source | None:
        record = self._sources.get(source)
        if record is None:
            return None
        if now - record.last >= self.forget:
            del self._sources[source]
            return None
        record.tested = max(0.0, record.tested - max(0.0, now - record.stamp) / self.forgive)
        record.stamp = now
        return record

    def source_wait(self, source: str, now: float) -> float:
        """Seconds before `source` may make another attempt at all; 0 when it may now."""
        record = self._source(source, now)
        if record is None or record.strikes < self.free:
            return 0.0
        backoff = min(self.max_wait, 2.0 ** min(32, record.strikes - self.free))
        return max(0.0, record.last + backoff - now)

    def table_wait(self, source: str, now: float) -> float:
        """Seconds before the table's budget has a guess to test for `source`."""
        self._refill(now)
        record = self._source(source, now)
        need = min(self.burst, 1.0 + (record.tested if record is not None else 0.0))
        return 0.0 if self._tokens >= need else (need - self._tokens) / self.rate

    def wait(self, source: str, now: float) -> float:
        """Seconds before an attempt from `source` may be tested; 0 when it may be now."""
        return max(self.source_wait(source, now), self.table_wait(source, now))

    def _strike(self, source: str, now: float, *, tested: bool) -> None:
        record = self._source(source, now) or _Source(stamp=now)
        self._sources.pop(source, None)
        record.strikes += 1
        record.tested += 1.0 if tested else 0.0
        record.last = now
        self._sources[source] = record  # re-inserted: the dict stays oldest strike first
        while len(self._sources) > self.max_sources:
            # Forgetting the oldest source gives it its free attempts back, but the table's
            # budget still holds every source to `rate`.
            del self._sources[next(iter(self._sources))]

    def refused(self, source: str, now: float) -> None:
        """An attempt refused unread (malformed, or without its proof of work): a strike for
        its source, nothing from the table's budget."""
        self._strike(source, now, tested=False)

    def failed(self, source: str, now: float) -> None:
        """A failed exchange: a guess from the table's budget and a strike for its source."""
        self._refill(now)
        self._tokens = max(0.0, self._tokens - 1.0)
        self._strike(source, now, tested=True)

    def succeeded(self, source: str) -> None:
        self._sources.pop(source, None)
