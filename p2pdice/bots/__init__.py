"""CPU players. A bot is a pure function of a SeatView and an injected random.Random."""

from .registry import BOT_NAMES, Bot, load_bot

__all__ = ["BOT_NAMES", "Bot", "load_bot"]
