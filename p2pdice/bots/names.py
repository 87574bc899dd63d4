"""The difficulty names, as the product uses them everywhere (`--bots`, `--cpu`, `--bot`).

Kept apart from the bots themselves so that building the command line imports no bot.
"""

BOT_NAMES: tuple[str, ...] = ("easy", "medium", "hard")

DEFAULT_LEVEL = "medium"
"""The level a CPU seat plays at when nobody chose one (`--cpu N`, the host form, `--bots`)."""

EXPLOIT_STYLE_NAMES: tuple[str, ...] = (
    "never-calls",
    "always-calls",
    "heavy-bluffer",
    "misleading",
)
"""The first exploit gauntlet (bots/styles.py): one broken assumption each."""

STRONGER_STYLE_NAMES: tuple[str, ...] = (
    "crediting-reader",
    "style-switcher",
    "weakest-face",
    "sampler",
)
"""The stronger gauntlet: styles that read bids or mislead readers (bots/readers.py,
bots/styles.py)."""

STYLE_NAMES: tuple[str, ...] = EXPLOIT_STYLE_NAMES + STRONGER_STYLE_NAMES
"""Every fixed style of the gauntlet: accepted where a bot name is, for tournaments and tests,
but not offered as difficulties."""
