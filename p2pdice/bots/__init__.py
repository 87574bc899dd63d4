"""CPU players. A bot is a pure function of a SeatView and an injected random.Random."""

from __future__ import annotations

from typing import Any

from .names import BOT_NAMES

__all__ = ["BOT_NAMES", "Bot", "load_bot"]


def __getattr__(name: str) -> Any:
    # The bots load on first use, not when the command line is built.
    if name in ("Bot", "load_bot"):
        from . import registry

        return getattr(registry, name)
    raise AttributeError(name)
