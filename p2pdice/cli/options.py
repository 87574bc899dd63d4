"""Rules flags shared by every command that creates a table, generated from the rules' own
option list (core.rules.OPTIONS): one flag per option, spelled like its key."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from ..core.errors import OptionError, UserError
from ..core.rules import OPTION_BY_KEY, OPTIONS, PRESETS, Option, Rules, preset


class CliError(UserError):
    """A bad command line: the command exits with status 2."""


def add_rules_options(
    parser: argparse.ArgumentParser,
    *,
    seats_flag: str = "--seats",
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """One flag per table option. `defaults` overrides what --help says an option defaults
    to, for commands that choose differently (a practice table allows undo)."""
    group = parser.add_argument_group("table rules (see docs/rules.md)")
    group.add_argument("--preset", choices=sorted(PRESETS), help="start from a named rule set")
    for option in OPTIONS:
        flag = seats_flag if option.key == "seats" else option.flag
        default = (defaults or {}).get(option.key, option.default)
        group.add_argument(flag, dest=option.key, **_argument(option, default))


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
        raise CliError(f"--cpu: {len(levels)} CPU seats, and the table has {seats}")
    return levels
