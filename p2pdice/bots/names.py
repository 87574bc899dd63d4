"""The difficulty names, as the product uses them everywhere (`--bots`, `--cpu`, `--bot`).

Kept apart from the bots themselves so that building the command line imports no bot.
"""

BOT_NAMES: tuple[str, ...] = ("easy", "medium", "hard")

DEFAULT_LEVEL = "medium"
"""The level a CPU seat plays at when nobody chose one (`--cpu N`, the host form, `--bots`)."""

STYLE_NAMES: tuple[str, ...] = ("never-calls", "always-calls", "heavy-bluffer", "misleading")
"""Fixed styles of the exploit gauntlet (bots/styles.py): accepted where a bot name is, for
tournaments and tests, but not offered as difficulties."""
