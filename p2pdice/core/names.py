"""Seat names at one table: well formed, unique by look, and the CPU form kept for programs
(SPEC.md §10.5).

Two seats called "Hana" would make every bid, reveal and ranking ambiguous, and a person
must not pass for a computer player. Names are compared by what they look like, not by their
code points: a Cyrillic "а", a fullwidth "Ｈ" or a mathematical "𝐇" makes another string but
the same row on screen, so the comparison key is a UTS #39 confusable skeleton. Invisible and
blank characters, stacks of marks and joiners outside emoji are refused (`SCHEMA`) because
they make names that look alike or look like nothing. The join is signed by the player, so the
host cannot rewrite a name: the table refuses the join instead (`SCHEMA`, `NAME_TAKEN`,
`NAME_RESERVED`) and the client cleans its name (`repair_name`) and picks another before it
signs (`free_name`).

Every table is pinned (`name_tables`, generated from Unicode 14.0.0 and confusables.txt
13.0.0), so peers on different Pythons agree: a name may hold only code points assigned in
Unicode 14.0.0, for which normalisation and case folding are stable in every later version.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterable

from . import name_tables

MAX_NAME = 24  #: characters, as the `name` schema allows
MAX_MARKS = name_tables.MAX_MARKS
ZWJ = "\u200d"
VS16 = "\ufe0f"


class _Ranges:
    """A set of code points given as hex ranges ("41-5A 61"), looked up by bisection."""

    def __init__(self, text: str) -> None:
        pairs: list[tuple[int, int]] = []
        for item in text.split():
            lo, _, hi = item.partition("-")
            pairs.append((int(lo, 16), int(hi or lo, 16)))
        self._starts = [lo for lo, _ in pairs]
        self._ends = [hi for _, hi in pairs]

    def __contains__(self, ch: str) -> bool:
        i = bisect_right(self._starts, ord(ch)) - 1
        return i >= 0 and ord(ch) <= self._ends[i]


_ASSIGNED = _Ranges(name_tables.ASSIGNED)
_MARKS = _Ranges(name_tables.MARKS)
_REFUSED = _Ranges(name_tables.REFUSED)
_EMOJI = _Ranges(name_tables.EMOJI)
_MODIFIERS = _Ranges(name_tables.MODIFIERS)
_PROTOTYPES = {
    chr(int(src, 16)): "".join(chr(int(h, 16)) for h in target.split())
    for src, _, target in (line.partition(":") for line in name_tables.PROTOTYPES.split("\n"))
    if src
}


def _problem_at(name: str) -> tuple[int, str] | None:
    """The first character of an NFC name that breaks the §10.5 rule, and why."""
    marks = 0
    for i, ch in enumerate(name):
        before = name[i - 1] if i > 0 else ""
        if ch not in _ASSIGNED:
            return i, f"U+{ord(ch):04X} is not assigned in Unicode {name_tables.UNICODE_VERSION}"
        if ch in _REFUSED:
            return i, f"U+{ord(ch):04X} is invisible or blank"
        if ch == VS16 and not (before and (before in _EMOJI or before in name_tables.KEYCAP_BASES)):
            return i, "U+FE0F only follows an emoji"
        if ch == ZWJ:
            if before and (before == VS16 or before in _MODIFIERS):
                before = name[i - 2] if i > 1 else ""
            after = name[i + 1] if i + 1 < len(name) else ""
            if not (before and after and before in _EMOJI and after in _EMOJI):
                return i, "a zero width joiner only joins two emoji"
        if ch in _MARKS:
            marks += 1
            if before in ("", " "):
                return i, "a combining mark needs a letter to sit on"
            if marks > MAX_MARKS:
                return i, f"at most {MAX_MARKS} combining marks on one letter"
        else:
            marks = 0
    return None


def name_problem(name: str) -> str | None:
    """Why a name that matches the `name` schema breaks the §10.5 rule (refused `SCHEMA` at
    the join), or None."""
    if not unicodedata.is_normalized("NFC", name):
        return "a name is sent in NFC"
    found = _problem_at(name)
    return None if found is None else found[1]


def repair_name(name: str) -> str:
    """`name` in NFC with every character the §10.5 rule refuses removed, one at a time from
    the first (removing one can make its neighbour fine, as a joiner's)."""
    name = unicodedata.normalize("NFC", name)
    for _ in range(len(name) + 1):
        found = _problem_at(name)
        if found is None:
            return name
        name = unicodedata.normalize("NFC", name[: found[0]] + name[found[0] + 1 :])
    raise AssertionError("unreachable: each pass removes a character")


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, default-ignorables removed (the only ones a name may hold are
    U+200D and U+FE0F), each character replaced by its confusable prototype, NFD again."""
    text = unicodedata.normalize("NFD", text).replace(ZWJ, "").replace(VS16, "")
    return unicodedata.normalize("NFD", "".join(_PROTOTYPES.get(ch, ch) for ch in text))


def name_key(name: str) -> str:
    """What two names are compared by:
    skeleton(casefold(skeleton(casefold(skeleton(NFKC(name)))))).

    NFKC makes fullwidth and mathematical letters plain ("ＨＡＮＡ"); the first skeleton comes
    before any case folding, because folding a capital from another script first loses the
    look-alike (Cyrillic "Н" folds to "н", which looks like no Latin letter, while "Н" itself
    is "H"); full case folding then makes "HANA" and "hana" one; folded and skeletonised once
    more because some prototypes are capitals ("0" is "O")."""
    plain = skeleton(unicodedata.normalize("NFKC", name))
    return skeleton(skeleton(plain.casefold()).casefold())


_CPU_KEY = name_key("CPU")


def reserved_for_cpu(name: str) -> bool:
    """The form CPU seats are named in ("CPU", "CPU medium 1"): the first word of the name's
    key is the key of "CPU", so "cpu", "СPU" (Cyrillic С) and "ＣＰＵ" are all the CPU form.
    The key of the whole name is cut at its first U+0020 (never the name word by word), so a
    space NFKC brings in counts ("CPU´7": U+00B4 is U+0020 U+0301) and "CPUs" is another
    word. Only a join that declares `cpu` may use it."""
    return name_key(name).split(" ", 1)[0] == _CPU_KEY


def look_alikes(names: Iterable[str]) -> tuple[str, str] | None:
    """The first two of `names` that are one name at a table (equal `name_key`: "Ann" and
    "ann", "Ian" and "lan"), or None when every name looks different."""
    seen: dict[str, str] = {}
    for name in names:
        key = name_key(name)
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None


def same_name_problem(names: Iterable[str]) -> str | None:
    """Why people cannot sit at one table under these names, naming the two that look alike,
    or None."""
    pair = look_alikes(names)
    if pair is None:
        return None
    first, second = pair
    if first == second:
        return f'two players have the same name: "{first}" twice'
    return f'two players have the same name: "{first}" and "{second}" look alike'


def free_name(name: str, taken: Iterable[str]) -> str:
    """`name`, or `name` with the smallest suffix " 2", " 3", ... that no name in `taken`
    has (compared by `name_key`), cut to fit the 24 characters a name may have."""
    used = {name_key(t) for t in taken}
    if name_key(name) not in used:
        return name
    for n in range(2, len(used) + 3):
        suffix = f" {n}"
        candidate = repair_name(name[: MAX_NAME - len(suffix)]).rstrip(" ") + suffix
        if name_key(candidate) not in used:
            return candidate
    raise AssertionError("unreachable: more suffixes were tried than names are taken")
