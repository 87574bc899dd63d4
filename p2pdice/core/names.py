"""Seat names at one table: unique, and the CPU form kept for programs (SPEC.md §10.5).

Two seats called "Hana" would make every bid, reveal and ranking ambiguous, and a person
must not pass for a computer player. The join is signed by the player, so the host cannot
rewrite a name: the table refuses the join instead (`NAME_TAKEN`, `NAME_RESERVED`) and the
client picks another name before it signs (`free_name`).
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_NAME = 24  #: characters, as the `name` schema allows


def name_key(name: str) -> str:
    """What two names are compared by: Unicode full case folding ("HANA" is "hana")."""
    return name.casefold()


def reserved_for_cpu(name: str) -> bool:
    """The form CPU seats are named in ("CPU", "CPU medium 1"): the first word is "CPU",
    in any case. Only a join that declares `cpu` may use it."""
    return name_key(name.split(" ", 1)[0]) == "cpu"


def free_name(name: str, taken: Iterable[str]) -> str:
    """`name`, or `name` with the smallest suffix " 2", " 3", ... that no name in `taken`
    has (compared by `name_key`), cut to fit the 24 characters a name may have."""
    used = {name_key(t) for t in taken}
    if name_key(name) not in used:
        return name
    for n in range(2, len(used) + 3):
        suffix = f" {n}"
        candidate = name[: MAX_NAME - len(suffix)].rstrip(" ") + suffix
        if name_key(candidate) not in used:
            return candidate
    raise AssertionError("unreachable: more suffixes were tried than names are taken")
