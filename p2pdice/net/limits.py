"""Defences against a prankster on the same Wi-Fi: rate limits, of frames or of bytes. (Name
cleaning and the checks on announced tables are the core's: core/clean.py, core/advert.py.)"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


def address_limited(address: str | None, *, limit_loopback: bool) -> bool:
    """Whether a source address is held to the per-address limits: every address but
    loopback (this machine's own seats and tests), unless `limit_loopback`; a socket without
    an address (not TCP) never is."""
    if address is None:
        return False
    if limit_loopback:
        return True
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:
        return True


@dataclass(slots=True)
class TokenBucket:
    """`rate` tokens a second, up to `burst`; the adapter passes the clock in."""

    rate: float = 20.0
    burst: float = 50.0
    tokens: float = 50.0
    stamp: float | None = None

    def allow(self, now: float) -> bool:
        return self.take(now, 1.0)

    def level(self, now: float) -> float:
        """The tokens there are now (negative: spent ahead, see `charge`)."""
        if self.stamp is None:
            return self.tokens
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate)

    def grow(self, burst: float) -> None:
        """A larger bucket, as if it had always been that large (the growth is there now)."""
        if burst > self.burst:
            self.tokens += burst - self.burst
            self.burst = burst

    def charge(self, now: float, amount: float) -> None:
        """Spend `amount` whether or not it is there: a cost that is never refused (a seated
        player's catch-up) still comes out of what its address may spend next."""
        self.tokens = self.level(now) - amount
        self.stamp = now

    def take(self, now: float, amount: float) -> bool:
        """Spend `amount` tokens if there are that many (a frame, or bytes to send)."""
        if self.stamp is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= amount:
            self.tokens -= amount
            return True
        return False


#: A frame costs its address 1 unit plus one per FRAME_UNIT bytes: a 64 KiB frame (the most
#: work to decode) costs 17 times a move.
FRAME_UNIT = 4096


def frame_cost(size: int) -> float:
    return 1.0 + size / FRAME_UNIT


@dataclass(slots=True)
class AddressBudget:
    """What one source address may cost a table, shared by all its connections and kept
    across reconnects (a new connection starts with what the address has left)."""

    frames: TokenBucket  #: frame units (`frame_cost`) its connections may send
    catch_up: TokenBucket  #: bytes of the log sent to it while it holds no seat
    joins: TokenBucket  #: seats it may take in a lobby (each join, and the leave it may bring)
    seen: float = 0.0


class AddressBudgets:
    """The budgets of the addresses seen lately, oldest forgotten first beyond `max_addresses`
    (forgetting gives an address a fresh budget, but the table-wide budget for strangers
    still bounds what all of them together cost)."""

    def __init__(
        self,
        *,
        frame_rate: float,
        frame_burst: float,
        catch_up_rate: float,
        catch_up_burst: float,
        join_rate: float,
        join_burst: float,
        max_addresses: int = 4096,
    ) -> None:
        self.frame_rate, self.frame_burst = frame_rate, frame_burst
        self.catch_up_rate, self.catch_up_burst = catch_up_rate, catch_up_burst
        self.join_rate, self.join_burst = join_rate, join_burst
        self.max_addresses = max_addresses
        self._budgets: dict[str, AddressBudget] = {}

    def of(self, address: str, now: float) -> AddressBudget:
        budget = self._budgets.pop(address, None)
        if budget is None:
            budget = AddressBudget(
                TokenBucket(rate=self.frame_rate, burst=self.frame_burst, tokens=self.frame_burst),
                TokenBucket(
                    rate=self.catch_up_rate, burst=self.catch_up_burst, tokens=self.catch_up_burst
                ),
                TokenBucket(rate=self.join_rate, burst=self.join_burst, tokens=self.join_burst),
            )
        budget.seen = now
        self._budgets[address] = budget  # most recent last
        while len(self._budgets) > self.max_addresses:
            del self._budgets[next(iter(self._budgets))]
        return budget
