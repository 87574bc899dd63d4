"""Building the command line's parser imports no command's machinery: no event loop, no
process pool, no cryptography, no terminal toolkit, no verifier, table, bot or statistics.

`p2pdice --help` builds the parser and nothing else, and every command builds it before it
runs, the practice screen included (its first paint waits for it). docs/benchmarks.md ("First
paint and `--help`") holds both to budgets (--help < 0.3 s, first paint < 0.6 s) that they
missed at 12x their baselines when the command modules imported their machinery at module
level again. So this checks what is imported, in a fresh process, rather than timing it:
each command module imports what it needs inside the function that runs the command, and
the parser takes only the light modules that hold its options and help texts."""

from __future__ import annotations

from tests.support.loaded_modules import modules_loaded_by

BUILD_THE_PARSER = """
import json
import sys

from p2pdice.cli import build_parser

build_parser()
print(json.dumps(sorted(sys.modules)))
"""

#: Heavy to import, and needed only once a command runs: the event loop (with ssl), process
#: pools, the signature libraries, the network and the terminal toolkit, the ratings library.
HEAVY_LIBRARIES = (
    "asyncio",
    "ssl",
    "multiprocessing",
    "concurrent",
    "cryptography",
    "nacl",
    "aiohttp",
    "zeroconf",
    "prompt_toolkit",
    "openskill",
    "plotext",
)

#: The package's own machinery: the verifier and the table state machine (with the
#: signatures), the strong bot and the coach, the course, the statistics, the network, the
#: terminal client, and the command modules that only run a command.
HEAVY_MODULES = (
    "p2pdice.core.verify",
    "p2pdice.core.signing",
    "p2pdice.core.events",
    "p2pdice.core.table",
    "p2pdice.core.table_state",
    "p2pdice.core.compare",
    "p2pdice.core.advert",
    "p2pdice.core.lessons",
    "p2pdice.bots.hard",
    "p2pdice.bots.review",
    "p2pdice.bots.drill",
    "p2pdice.bots.registry",
    "p2pdice.store",
    "p2pdice.cli.parallel_verify",
    "p2pdice.cli.verify",
    "p2pdice.cli.simulate",
    "p2pdice.cli.runtime",
    "p2pdice.cli.lobby",
)
#: Whole packages, but for `ui.defaults` (a rules default the practice help states).
HEAVY_PACKAGES = ("p2pdice.net", "p2pdice.stats", "p2pdice.ui")
LIGHT_IN_HEAVY_PACKAGES = ("p2pdice.ui", "p2pdice.ui.defaults")


def _heavy(name: str) -> bool:
    if name in LIGHT_IN_HEAVY_PACKAGES:
        return False
    if any(name == top or name.startswith(top + ".") for top in HEAVY_LIBRARIES):
        return True
    if name in HEAVY_MODULES:
        return True
    return any(name == pkg or name.startswith(pkg + ".") for pkg in HEAVY_PACKAGES)


def modules_loaded_by_building_the_parser() -> list[str]:
    loaded = modules_loaded_by(BUILD_THE_PARSER)
    assert "p2pdice.cli" in loaded and "argparse" in loaded  # it did build the parser
    return loaded


def test_building_the_parser_imports_none_of_the_commands_machinery() -> None:
    heavy = [name for name in modules_loaded_by_building_the_parser() if _heavy(name)]
    assert heavy == [], heavy
