"""Rules flags shared by every command that creates a table. Flags use the rules object's names."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.errors import OptionError, UserError
from ..core.rules import (
    GRACE_PERIOD_RANGE,
    PRESETS,
    TURN_TIMERS,
    FirstStarter,
    Ones,
    Palifico,
    Rules,
    TableKind,
    preset,
)


class CliError(UserError):
    """A bad command line: the command exits with status 2."""


def add_rules_options(parser: argparse.ArgumentParser, *, seats_flag: str = "--seats") -> None:
    group = parser.add_argument_group("table rules (see docs/rules.md)")
    group.add_argument("--preset", choices=sorted(PRESETS), help="start from a named rule set")
    group.add_argument(seats_flag, dest="seats", type=_int, metavar="N", help="players, 2..6")
    group.add_argument(
        "--starting-dice", type=_int, metavar="K", help="dice per player, 1..5 (default 5)"
    )
    group.add_argument(
        "--ones", choices=[m.value for m in Ones], help="wild (default), natural or aces"
    )
    group.add_argument(
        "--exact-call",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="allow exact calls",
    )
    group.add_argument(
        "--palifico",
        choices=[m.value for m in Palifico],
        help="one-die rounds: off (default), fixed, free",
    )
    group.add_argument(
        "--turn-timer",
        type=_int,
        metavar="S",
        help=f"seconds per turn: {', '.join(map(str, TURN_TIMERS))}",
    )
    group.add_argument(
        "--grace-period",
        type=_int,
        metavar="S",
        help=f"seconds a dropped player has to come back, {GRACE_PERIOD_RANGE.start}..{GRACE_PERIOD_RANGE.stop - 1}",
    )
    group.add_argument(
        "--undo",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="allow undo (not on standard tables)",
    )
    group.add_argument(
        "--first-starter", choices=[m.value for m in FirstStarter], help="random (default) or seat0"
    )
    group.add_argument("--kind", choices=[m.value for m in TableKind], help=argparse.SUPPRESS)


_RULE_KEYS = (
    "seats",
    "starting_dice",
    "ones",
    "exact_call",
    "palifico",
    "turn_timer",
    "grace_period",
    "undo",
    "first_starter",
    "kind",
)


def rules_from_args(
    args: argparse.Namespace, *, flag_names: dict[str, str] | None = None, **fixed: Any
) -> Rules:
    """Build the rules object from flags; a bad value becomes a CliError naming the flag."""
    chosen = {k: getattr(args, k) for k in _RULE_KEYS if getattr(args, k, None) is not None}
    chosen.update(fixed)
    try:
        if getattr(args, "preset", None):
            return preset(args.preset, **chosen)
        return Rules(**chosen)
    except OptionError as err:
        flag = (flag_names or {}).get(err.key, "--" + err.key.replace("_", "-"))
        raise CliError(f"{flag}: {err.detail}") from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
