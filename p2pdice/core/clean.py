"""Text from the network made safe to print (SPEC.md 10.5): names and announced details.

Pure, so that the terminal client, the commands and the network code clean text the same way.
"""

from __future__ import annotations

import re

from .names import repair_name
from .shape import MAX_NAME, NAME_FORBIDDEN

# CSI/OSC/other escape sequences first, so their printable tails do not survive.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"  # two-byte and nF escapes (ESC c, ESC ( B, ESC # 8)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)


_SPACES = re.compile(" +")


#: Space characters other than U+0020 (the Zs category, listed so it never depends on the
#: Unicode version): each becomes a plain space before anything is removed (SPEC.md 10.5).
_OTHER_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


def clean_text(text: str, limit: int) -> str:
    """Any text from the network made safe to print: escape sequences and forbidden
    characters removed, spaces made plain and single, cut to `limit` characters."""
    text = _OTHER_SPACES.sub(" ", _ESCAPES.sub("", text))
    return _SPACES.sub(" ", NAME_FORBIDDEN.sub("", text)).strip(" ")[:limit].strip(" ")


def clean_name(text: str, limit: int = MAX_NAME) -> str:
    """A display name safe for anyone's terminal and fit to join with (SPEC.md 10.5): also in
    NFC, without invisible or blank characters, mark stacks or joiners outside emoji; at most
    `limit` characters (cut before it is repaired, so a cut emoji sequence is mended); may be
    empty."""
    limit = min(limit, MAX_NAME)
    name = clean_text(text, limit)
    # Removing a character can leave two spaces or an edge space, and cleaning spaces can
    # leave a mark at the start: repeat until neither step changes the name.
    for _ in range(len(name) + 1):
        repaired = clean_text(repair_name(name), limit)
        if repaired == name:
            return name
        name = repaired
    raise AssertionError("unreachable: each pass shortens the name")


def long_name_problem(typed: list[str]) -> str | None:
    """Why people cannot sit under these typed names: one longer than MAX_NAME characters,
    named (cut silently, two names with one long start could become one name, or look
    alike at the table); None when each fits."""
    for text in typed:
        cleaned = clean_text(text, len(text))
        if len(cleaned) > MAX_NAME:
            return (
                f"{cleaned!r} has {len(cleaned)} characters; a name may have at most "
                f"{MAX_NAME}: shorten it"
            )
    return None
