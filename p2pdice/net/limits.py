"""Defences against a prankster on the same Wi-Fi: rate limits, of frames or of bytes. (Name
cleaning and the checks on announced tables are the core's: core/clean.py, core/advert.py.)"""

from __future__ import annotations

from dataclasses import dataclass


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
