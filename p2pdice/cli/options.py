"""Rules flags shared by every command that creates a table, generated from the rules' own
option list (core.rules.OPTIONS): one flag per option, spelled like its key."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.errors import OptionError, UserError
from ..core.rules import OPTION_BY_KEY, OPTIONS, PRESETS, FirstStarter, Option, Rules, preset

#: `--first-starter`'s help where nobody hosts the games (simulate, tournament, learn): the
#: rules' own help names the host's seat, which these commands neither offer nor have.
UNHOSTED_FIRST_STARTER_HELP = "who opens round 1: drawn fairly, or a named seat"


class CliError(UserError):
    """A bad command line: the command exits with status 2."""


def add_rules_options(
    parser: argparse.ArgumentParser,
    *,
    seats_flag: str = "--seats",
    defaults: Mapping[str, Any] | None = None,
    old_seats_flag: str | None = None,
    hosted: bool = True,
    people: bool = True,
) -> None:
    """One flag per table option. `defaults` overrides what --help says an option defaults
    to, for commands that choose differently (a practice table allows undo).
    `old_seats_flag` is a former spelling of the seats flag, still accepted with a warning
    and left out of --help. `hosted` False: the command plays games nobody hosts (simulate,
    tournament, learn), so `--first-starter host` names no seat and is not offered, nor
    said. `people` False: the command's games are bots playing through on the rules engine,
    with no clock and nobody to take a bid back (tournament), so the options that matter
    only to people (`Option.people_only`: the clocks, undo) have no flag at all."""
    group = parser.add_argument_group("table rules (see docs/rules.md)")
    group.add_argument("--preset", choices=sorted(PRESETS), help="start from a named rule set")
    for option in OPTIONS:
        if option.people_only and not people:
            continue
        if option.key == "first_starter" and not hosted:
            option = replace(option, help=UNHOSTED_FIRST_STARTER_HELP)
        flag = seats_flag if option.key == "seats" else option.flag
        default = (defaults or {}).get(option.key, option.default)
        argument = _argument(option, default)
        if option.key == "first_starter" and not hosted:
            argument["choices"] = [v for v in argument["choices"] if v != FirstStarter.HOST]
        group.add_argument(flag, dest=option.key, **argument)
    if old_seats_flag:
        group.add_argument(
            old_seats_flag,
            dest="seats",
            type=_int,
            action=_Deprecated,
            help=argparse.SUPPRESS,
            new_flag=seats_flag,
        )


class _Deprecated(argparse.Action):
    """An old flag name: sets the same value as its new name and says to use that."""

    def __init__(self, *args: Any, new_flag: str, **kwargs: Any) -> None:
        self.new_flag = new_flag
        super().__init__(*args, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{parser.prog}: warning: {option_string} is now {self.new_flag}; "
            f"{option_string} will go in a later version",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def _argument(option: Option, default: Any) -> dict[str, Any]:
    """argparse's keywords for one option. The flag's own default is None ("not given"), so
    a preset can fill what the command line leaves out."""
    help_text = argparse.SUPPRESS if option.hidden else _help(option, default).replace("%", "%%")
    if option.is_bool:
        return {"action": argparse.BooleanOptionalAction, "default": None, "help": help_text}
    if option.enum is not None:
        return {"choices": list(option.values), "help": help_text}
    return {"type": _int, "metavar": option.metavar or "N", "help": help_text}


def _help(option: Option, default: Any) -> str:
    """The option's help line with its accepted values and its default, e.g. "dice each
    player starts with: 1..5 (default 5)" (argparse lists an enum's choices itself)."""
    if option.is_bool:
        return f"{option.help} (default {option.shown(default)})"
    if option.enum is not None:
        return f"{option.help} (default {default})"
    if isinstance(option.allowed, range):
        values = f"{option.allowed.start}..{option.allowed.stop - 1}"
    else:
        values = ", ".join(str(v) for v in option.values)
    return f"{option.help}: {values} (default {default})"


def bots_help() -> str:
    """Every bot a `--bots` list takes, in words, as the registry (bots.registry) builds its
    own from bots.names: the difficulties, the gauntlet styles and `module:callable`. Read
    from bots.names so that --help imports no bot."""
    from ..bots.names import BOT_NAMES, STYLE_NAMES

    return f"{', '.join(BOT_NAMES)}, a gauntlet style ({', '.join(STYLE_NAMES)}) or module:callable"


def rules_from_args(
    args: argparse.Namespace, *, flag_names: dict[str, str] | None = None, **fixed: Any
) -> Rules:
    """Build the rules object from flags; a bad value becomes a CliError naming the flag."""
    chosen = {
        option.key: getattr(args, option.key)
        for option in OPTIONS
        if getattr(args, option.key, None) is not None
    }
    chosen.update(fixed)
    try:
        if getattr(args, "preset", None):
            return preset(args.preset, **chosen)
        return Rules(**chosen)
    except OptionError as err:
        option = OPTION_BY_KEY.get(err.key)
        flag = (flag_names or {}).get(err.key) or (option.flag if option else f"--{err.key}")
        raise CliError(f"{flag}: {err.detail}") from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def seconds(text: str) -> float:
    """An argparse type for a duration: a number of seconds above 0 (`browse --timeout`,
    `join --timeout`, `join --give-up`). Zero, a negative number, nan or inf is refused in
    argparse's one line that names the flag (exit status 2), where it would otherwise listen
    for no time at all, or give up at once, or never."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {text}")
    return value


def parse_cpu_seats(text: str | None, *, seats: int | None = None) -> list[str]:
    """`--cpu`: `N`, `N:LEVEL`, or several of them with commas (`1:easy,1:hard`), as one
    level per CPU seat in the order given; a LEVEL is a difficulty, a gauntlet style or
    `module:callable` (bots.registry.load_bot), and defaults to the bots' default level.
    With `seats`, at most that many CPU seats in all."""
    from .common import parse_cpu  # common imports this module

    levels: list[str] = []
    for part in (text or "0").split(","):
        count, level = parse_cpu(part.strip())
        levels += [level] * count
    if seats is not None and len(levels) > seats:
        from ..core.describe import amount

        raise CliError(f"--cpu: {amount(len(levels), 'CPU seat')}, and the table has {seats}")
    return levels


def parse_fill_levels(text: str | None, *, flag: str = "--fill-cpu") -> list[str] | None:
    """`--fill-cpu`: a level, or levels with commas (`easy,hard`), for the CPUs that take the
    seats still empty at the start, in seat order (the last level plays every seat past the
    list); None when the flag was not given (empty seats are left out)."""
    from .common import parse_cpu  # common imports this module

    if text is None:
        return None
    levels = []
    for part in text.split(","):
        try:
            levels.append(parse_cpu(f"1:{part.strip()}")[1])
        except CliError as err:
            raise CliError(str(err).replace("--cpu", flag, 1)) from None
    return levels


def add_stats_options(parser: argparse.ArgumentParser) -> None:
    """The `stats` command's flags (docs/stats.md)."""
    from .verify_exits import EXIT_FORK  # the one definition of the status

    parser.add_argument(
        "--practice",
        choices=("separate", "omit"),
        default="separate",
        help="practice and pass-and-play games: shown in their own section, or left out",
    )
    parser.add_argument(
        "--plot",
        action="store_true",
        help="draw each rated key's rating history in the terminal (plain text, without "
        "colour, into a file or a pipe; not with --json)",
    )
    parser.add_argument(
        "--import",
        dest="import_paths",
        nargs="+",
        metavar="PATH",
        help="take the games in these transcript files or folders (a friend's --export) into "
        "this device's league: each must verify; a table already held is taken once; one "
        f"that contradicts the log held for its table is refused (exit status {EXIT_FORK}: the "
        "proof of a forking host)",
    )
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="write every verified game this device holds into DIR (made if missing), one "
        "file per table, for a friend to --import",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="verify every file again, rather than reuse the verdicts kept by file hash",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
