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
from .names import BOT_NAMES, STYLE_NAMES
from .styles import STYLES

Bot = Callable[[SeatView, random.Random], Action]

_BUILTIN: dict[str, Bot] = dict(zip(BOT_NAMES, (easy, medium, hard), strict=True))
_BUILTIN.update((name, STYLES[name]) for name in STYLE_NAMES)

__all__ = ["BOT_NAMES", "Bot", "BotLoadError", "load_bot"]


class BotLoadError(ValueError):
    """A bot name that is neither built in nor an importable `module:callable`."""


def load_bot(name: str) -> Bot:
    """A built-in difficulty or gauntlet style by name, or `module:callable` from an importable module.

    Anything that goes wrong while finding, importing or constructing a third-party bot
    (including an exception raised by the user's own module) is a BotLoadError.
    """
    if name in _BUILTIN:
        return _BUILTIN[name]
    if ":" not in name:
        raise BotLoadError(
            f"unknown bot {name!r}: use one of {', '.join(BOT_NAMES)}, a gauntlet style"
            f" ({', '.join(STYLE_NAMES)}) or module:callable"
        )
    module_name, _, attr = name.partition(":")
    if not module_name or module_name.startswith(".") or not attr:
        raise BotLoadError(
            f"bad bot {name!r}: expected module:callable with an absolute module name"
            " (for example mypackage.mybot:decide)"
        )
    try:
        module = importlib.import_module(module_name)
        bot = getattr(module, attr)
    except (ImportError, AttributeError) as err:
        raise BotLoadError(f"cannot load bot {name!r}: {err}") from err
    except Exception as err:  # the user's module raised while it was imported
        raise BotLoadError(
            f"cannot load bot {name!r}: importing {module_name} failed: {type(err).__name__}: {err}"
        ) from err
    if isinstance(bot, type):
        try:
            bot = bot()
        except Exception as err:
            raise BotLoadError(
                f"cannot load bot {name!r}: {attr}() failed: {type(err).__name__}: {err}"
            ) from err
    if hasattr(bot, "decide"):
        bot = bot.decide
    if not callable(bot):
        raise BotLoadError(f"bot {name!r} is not callable")
    return bot
