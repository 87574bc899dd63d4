"""Bot names as the product uses them (`--bots`, `--cpu`, `--bot`) and third-party loading."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable

from ..core.game import Action
from ..core.view import SeatView
from .easy import easy
from .hard import hard
from .medium import medium

Bot = Callable[[SeatView, random.Random], Action]

_BUILTIN: dict[str, Bot] = {"easy": easy, "medium": medium, "hard": hard}
BOT_NAMES: tuple[str, ...] = tuple(_BUILTIN)


class BotLoadError(ValueError):
    """A bot name that is neither built in nor an importable `module:callable`."""


def load_bot(name: str) -> Bot:
    """A built-in difficulty by name, or `module:callable` from an importable module."""
    if name in _BUILTIN:
        return _BUILTIN[name]
    if ":" not in name:
        raise BotLoadError(
            f"unknown bot {name!r}: use one of {', '.join(BOT_NAMES)} or module:callable"
        )
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
        bot = getattr(module, attr)
    except (ImportError, AttributeError) as err:
        raise BotLoadError(f"cannot load bot {name!r}: {err}") from err
    if isinstance(bot, type):
        bot = bot()
    if hasattr(bot, "decide"):
        bot = bot.decide
    if not callable(bot):
        raise BotLoadError(f"bot {name!r} is not callable")
    return bot
