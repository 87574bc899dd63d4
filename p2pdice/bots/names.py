"""The difficulty names, as the product uses them everywhere (`--bots`, `--cpu`, `--bot`).

Kept apart from the bots themselves so that building the command line imports no bot.
"""

BOT_NAMES: tuple[str, ...] = ("easy", "medium", "hard")
