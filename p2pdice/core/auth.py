"""Connection authentication: a key that already holds a seat answers the host's challenge
(protocol/SPEC.md 10.2). Not part of the transcript."""

from __future__ import annotations

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


class GuessThrottle:
    """Failed password exchanges, per source address and for the whole table (SPEC.md 3.4).

    A source may fail `free` times in a row; after that each further attempt waits twice as
    long as the one before (1 s, 2 s, 4 s ... up to `max_wait`) after its last failure. The
    table as a whole allows `burst` failures, refilled at `rate` a second, so attackers with
    many addresses still test at most that many guesses a minute. A success clears its
    source. The adapter passes the clock in; nothing here waits.
    """

    def __init__(
        self,
        *,
        free: int = 3,
        max_wait: float = 60.0,
        burst: float = 10.0,
        rate: float = 10.0 / 60.0,
        max_sources: int = 1024,
    ) -> None:
        self.free = free
        self.max_wait = max_wait
        self.burst = burst
        self.rate = rate
        self.max_sources = max_sources
        self._sources: dict[str, tuple[int, float]] = {}  # source -> (failures, last failure)
        self._tokens = burst
        self._stamp: float | None = None

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def wait(self, source: str, now: float) -> float:
        """Seconds before an attempt from `source` may be tested; 0 when it may be now."""
        self._refill(now)
        table_wait = 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.rate
        failures, last = self._sources.get(source, (0, now))
        source_wait = 0.0
        if failures >= self.free:
            backoff = min(self.max_wait, 2.0 ** (failures - self.free))
            source_wait = max(0.0, last + backoff - now)
        return max(table_wait, source_wait)

    def failed(self, source: str, now: float) -> None:
        self._refill(now)
        self._tokens = max(0.0, self._tokens - 1.0)
        failures, _ = self._sources.pop(source, (0, now))
        self._sources[source] = (failures + 1, now)  # re-inserted: the dict stays oldest first
        while len(self._sources) > self.max_sources:
            # Forgetting the oldest source gives it its free attempts back, but the table's
            # budget still holds every source to `rate`.
            del self._sources[next(iter(self._sources))]

    def succeeded(self, source: str) -> None:
        self._sources.pop(source, None)
