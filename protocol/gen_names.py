#!/usr/bin/env python3
"""Generate the name vectors (protocol/vectors/v1/names.json) and the core's name tables.

Like gen_vectors.py this is an independent statement of SPEC.md (§10.5 here): it imports
nothing from the ``p2pdice`` package, only the standard library, and re-implements the name
rule from the prose. Its inputs are pinned:

- ``unicode/confusables-13.0.0.txt``: the UTS #39 confusable prototypes, Unicode 13.0.0
  (the file exactly as published by Unicode; its SHA-256 is checked below);
- the Unicode Character Database 14.0.0, as the standard library's ``unicodedata`` of
  Python 3.11 has it: which code points are assigned and which are marks (Mn, Mc, Me), and
  ``str.casefold`` (full case folding). The script refuses to run on another database
  version, so the tables cannot drift.

It also writes that Unicode 14.0.0 data as plain text, for implementations whose platform has
a later Unicode version or no case folding (SPEC.md 10.5 makes these files normative):
``unicode/assigned-14.0.0.txt`` and ``unicode/marks-14.0.0.txt`` (ranges of code points) and
``unicode/casefold-14.0.0.txt`` (the C and F lines of CaseFolding.txt, as ``str.casefold``
applies them). Their SHA-256 are pinned below (``UNICODE_FILES``): the script refuses to write
a file that differs, so a change to one is deliberate (and SPEC.md, which cites them, changes
with it).

Usage: python protocol/gen_names.py [--out DIR] [--tables FILE] [--unicode DIR]
  --out      where names.json is written (default: vectors/v1 next to this file)
  --tables   where the core's table module is written (default: p2pdice/core/name_tables.py)
  --unicode  where the three data files are written (default: unicode next to this file)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFUSABLES = HERE / "unicode" / "confusables-13.0.0.txt"
CONFUSABLES_SHA256 = "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"
UNICODE_VERSION = "14.0.0"
CONFUSABLES_VERSION = "13.0.0"
MAX_MARKS = 3
#: The data files written into unicode/, and the SHA-256 each must have.
UNICODE_FILES = {
    f"assigned-{UNICODE_VERSION}.txt": "fbf65e3873bc400e5a29687177cc5d46745e68c01a0d95a9212e6e9a012c5e11",
    f"marks-{UNICODE_VERSION}.txt": "6831e97db76af9457b53cdd81f3c50455d0a2e0b7807a61d2a6acae4e0c55f17",
    f"casefold-{UNICODE_VERSION}.txt": "224f7b6ed6006c7d4a4b115204a12cb603cfc2cea93361f684e41b738ce1de44",
}

# SPEC.md 10.5, the explicit lists (inclusive ranges).
REFUSED = [  # default-ignorable code points and blank characters the name pattern allows
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180D), (0x180F, 0x180F),
    (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0E), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000), (0xE0002, 0xE001F), (0xE0080, 0xE0FFF),
]  # fmt: skip
EMOJI = [
    (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x203C, 0x203C), (0x2049, 0x2049), (0x2122, 0x2122),
    (0x2139, 0x2139), (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B), (0x2328, 0x2328),
    (0x2388, 0x2388), (0x23CF, 0x23CF), (0x23E9, 0x23F3), (0x23F8, 0x23FA), (0x24C2, 0x24C2),
    (0x25AA, 0x25AB), (0x25B6, 0x25B6), (0x25C0, 0x25C0), (0x25FB, 0x25FE), (0x2600, 0x2605),
    (0x2607, 0x2612), (0x2614, 0x2685), (0x2690, 0x2705), (0x2708, 0x2712), (0x2714, 0x2714),
    (0x2716, 0x2716), (0x271D, 0x271D), (0x2721, 0x2721), (0x2728, 0x2728), (0x2733, 0x2734),
    (0x2744, 0x2744), (0x2747, 0x2747), (0x274C, 0x274C), (0x274E, 0x274E), (0x2753, 0x2755),
    (0x2757, 0x2757), (0x2763, 0x2767), (0x2795, 0x2797), (0x27A1, 0x27A1), (0x27B0, 0x27B0),
    (0x27BF, 0x27BF), (0x2934, 0x2935), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50),
    (0x2B55, 0x2B55), (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3297), (0x3299, 0x3299),
    (0x1F000, 0x1F0FF), (0x1F10D, 0x1F10F), (0x1F12F, 0x1F12F), (0x1F16C, 0x1F171),
    (0x1F17E, 0x1F17F), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F1AD, 0x1F1E5),
    (0x1F201, 0x1F20F), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F), (0x1F232, 0x1F23A),
    (0x1F23C, 0x1F23F), (0x1F249, 0x1F3FA), (0x1F400, 0x1F53D), (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D5, 0x1F7FF), (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1FAFF), (0x1FC00, 0x1FFFD),
]  # fmt: skip
MODIFIERS = (0x1F3FB, 0x1F3FF)
KEYCAP_BASES = "0123456789#*"
ZWJ, VS16 = "\u200d", "\ufe0f"


def inside(ranges: list[tuple[int, int]], ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in ranges)


def ranges_where(pred: Any) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in range(0x110000):
        if pred(chr(cp)):
            if out and out[-1][1] == cp - 1:
                out[-1] = (out[-1][0], cp)
            else:
                out.append((cp, cp))
    return out


def load_prototypes() -> dict[str, str]:
    raw = CONFUSABLES.read_bytes()
    if hashlib.sha256(raw).hexdigest() != CONFUSABLES_SHA256:
        sys.exit(f"{CONFUSABLES} is not the published confusables.txt {CONFUSABLES_VERSION}")
    table: dict[str, str] = {}
    for line in raw.decode("utf-8-sig").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target, _kind = (field.strip() for field in line.split(";"))
        table[chr(int(source, 16))] = "".join(chr(int(h, 16)) for h in target.split())
    return table


ASSIGNED = ranges_where(lambda c: unicodedata.category(c) != "Cn")
MARKS = ranges_where(lambda c: unicodedata.category(c).startswith("M"))
PROTOTYPES: dict[str, str] = {}


def is_emoji(ch: str) -> bool:
    return inside(EMOJI, ch)


def problem(name: str) -> str | None:
    """The §10.5 rule for a name that already matches the schema's `name`."""
    if not unicodedata.is_normalized("NFC", name):
        return "not in NFC"
    marks = 0
    for i, ch in enumerate(name):
        if not inside(ASSIGNED, ch):
            return "unassigned"
        if inside(REFUSED, ch):
            return "invisible or blank"
        if ch == VS16 and not (i > 0 and (is_emoji(name[i - 1]) or name[i - 1] in KEYCAP_BASES)):
            return "VS16 not after an emoji"
        if ch == ZWJ:
            before = name[i - 1] if i > 0 else ""
            if before == VS16 or (before and MODIFIERS[0] <= ord(before) <= MODIFIERS[1]):
                before = name[i - 2] if i > 1 else ""
            after = name[i + 1] if i + 1 < len(name) else ""
            if not (before and after and is_emoji(before) and is_emoji(after)):
                return "ZWJ not between emoji"
        if inside(MARKS, ch):
            marks += 1
            if i == 0 or name[i - 1] == " ":
                return "mark without a base"
            if marks > MAX_MARKS:
                return "too many marks"
        else:
            marks = 0
    return None


def skeleton(text: str) -> str:
    text = unicodedata.normalize("NFD", text).replace(ZWJ, "").replace(VS16, "")
    return unicodedata.normalize("NFD", "".join(PROTOTYPES.get(ch, ch) for ch in text))


def key(name: str) -> str:
    return skeleton(skeleton(skeleton(unicodedata.normalize("NFKC", name)).casefold()).casefold())


def join(seated: list[str], name: str, cpu: bool) -> str | None:
    if problem(name) is not None:
        return "SCHEMA"
    if any(key(s) == key(name) for s in seated):
        return "NAME_TAKEN"
    if not cpu and key(name).split(" ", 1)[0] == key("CPU"):
        return "NAME_RESERVED"
    return None


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
WELL_FORMED = [
    ("Hana", "plain Latin"),
    ("Zoë", "NFC, precomposed"),
    ("Zoe\u0308", "NFD: not in NFC"),
    ("李雷", "Han"),
    (unicodedata.normalize("NFC", "שָּׁלוֹם"), "pointed Hebrew: three marks on a letter"),
    (unicodedata.normalize("NFC", "Nguyễn"), "Vietnamese, NFC"),
    (unicodedata.normalize("NFC", "กี่"), "Thai: a vowel and a tone mark on a consonant"),
    ("x\u0301\u0302\u0303", "three marks on one base (the most)"),
    ("x\u0301\u0302\u0303\u0304", "four marks on one base"),
    ("x" + "\u0301\u0300\u0302\u0303\u0304" * 4, "20 stacked combining marks"),
    ("\u0301Hana", "a mark with no base"),
    ("Ha \u0301na", "a mark after a space"),
    ("Hana" + FAMILY, "a family emoji (ZWJ sequence)"),
    (FAMILY, "a family emoji alone"),
    ("\U0001f3f3\ufe0f\u200d\U0001f308", "rainbow flag: VS16 before the ZWJ"),
    ("\U0001f469\U0001f3fd\u200d\U0001f4bb", "skin tone modifier before the ZWJ"),
    ("\u2764\ufe0f Bob", "VS16 after an emoji"),
    ("1\ufe0f\u20e3 Ann", "keycap sequence"),
    ("Ha\u200dna", "ZWJ between letters: invisible"),
    ("Hana\u200d", "ZWJ at the end"),
    ("\u200d\U0001f467", "ZWJ at the start"),
    ("Hana\ufe0f", "VS16 after a letter"),
    ("Ha\ufe00na", "another variation selector"),
    ("\u2800", "braille blank"),
    ("\u3164", "Hangul filler"),
    ("Ha\u034fna", "combining grapheme joiner"),
    ("Ha\u115fna", "Hangul choseong filler"),
    ("Ha\U000e0101na", "variation selector supplement"),
    ("Ann\U000e0000", "unassigned plane 14 code point outside the tags"),
    ("Ann\u0378", "unassigned in Unicode 14.0.0"),
    ("Ann\U0001faea", "assigned only after Unicode 14.0.0"),
]
KEYS = [
    "Hana",
    "HANA",
    "Hаna",  # Cyrillic a
    "\u041d\u0430n\u0430",  # Cyrillic capital En and a: the skeleton before the folding
    "Ｈａｎａ",  # fullwidth
    "𝐇𝐚𝐧𝐚",  # mathematical bold
    "CPU medium 1",
    "СPU medium 1",  # Cyrillic Es
    "ＣＰＵ",
    "Zoe\u0308",
    "Zoë",
    FAMILY,
    "Straße",
]
JOINS = [
    ([], "Hana", False, "a first name"),
    (["Hana"], "hana", False, "case folded"),
    (["Hana"], "Hаna", False, "Cyrillic a: a look-alike of a seated name"),
    (
        ["Hana"],
        "\u041d\u0430n\u0430",
        False,
        "Cyrillic capital En: a look-alike only before folding",
    ),
    (["Hana"], "Ｈａｎａ", False, "fullwidth look-alike"),
    (["Hana"], "𝐇𝐚𝐧𝐚", False, "mathematical bold look-alike"),
    (["Hana"], "Hana 2", False, "a free suffix"),
    (["Zoë"], "Zoe\u0308", False, "NFD of a seated name is refused before the comparison"),
    (["Bob"], "Hana" + FAMILY, False, "a family emoji"),
    (["Hana" + FAMILY], "Hana\U0001f468\U0001f469\U0001f467", False, "the same emoji unjoined"),
    ([], "CPU medium 1", False, "a person in the CPU form"),
    ([], "CPU medium 1", True, "a CPU in the CPU form"),
    ([], "СPU medium 1", False, "Cyrillic Es: still the CPU form"),
    ([], "ＣＰＵ x", False, "fullwidth CPU"),
    ([], "𝐂𝐏𝐔", False, "mathematical bold CPU"),
    ([], "CPUlover", False, "the first word is not CPU"),
    (["CPU easy 1"], "СPU easy 1", True, "a CPU look-alike of a seated CPU"),
    ([], "Ha\u2800na", False, "braille blank"),
    ([], "x" + "\u0301" * 20, False, "20 stacked marks"),
]


def hexs(text: str) -> str:
    return " ".join(f"{ord(c):04X}" for c in text)


def vectors() -> dict[str, Any]:
    tc = 0

    def nid() -> int:
        nonlocal tc
        tc += 1
        return tc

    schema_ok = [n for n, _ in WELL_FORMED]  # every case passes the schema's name pattern
    assert all(1 <= len(n) <= 24 for n in schema_ok)
    groups = [
        {
            "type": "well_formed",
            "comment": "the §10.5 rule for a name that matches the schema: SCHEMA or accepted",
            "tests": [
                {
                    "tc_id": nid(),
                    "comment": comment,
                    "name": name,
                    "code_points": hexs(name),
                    "result": "valid" if problem(name) is None else "invalid",
                    "reason": None if problem(name) is None else "SCHEMA",
                }
                for name, comment in WELL_FORMED
            ],
        },
        {
            "type": "key",
            "comment": "the comparison key: skeleton(casefold(skeleton(casefold(skeleton(NFKC(name)))))) (UTS #39)",
            "tests": [
                {
                    "tc_id": nid(),
                    "comment": hexs(name),
                    "name": name,
                    "key": key(name),
                    "result": "valid",
                    "reason": None,
                }
                for name in KEYS
            ],
        },
        {
            "type": "join",
            "comment": "a join's name against the seated names: SCHEMA, NAME_TAKEN, NAME_RESERVED",
            "tests": [
                {
                    "tc_id": nid(),
                    "comment": comment,
                    "seated": seated,
                    "name": name,
                    "cpu": cpu,
                    "result": "valid" if join(seated, name, cpu) is None else "invalid",
                    "reason": join(seated, name, cpu),
                }
                for seated, name, cpu, comment in JOINS
            ],
        },
    ]
    return {
        "schema": "names_v1",
        "spec": "SPEC.md §10.5",
        "unicode_version": UNICODE_VERSION,
        "confusables_version": CONFUSABLES_VERSION,
        "number_of_tests": tc,
        "test_groups": groups,
    }


def check(data: dict[str, Any]) -> None:
    """The attacks of issue 21 item 9 must come out refused, family emoji accepted."""
    assert problem("x" + "\u0301\u0300\u0302\u0303\u0304" * 4) == "too many marks"
    assert problem("x\u0301\u0302\u0303") is None
    assert key("СPU medium 1") == key("CPU medium 1") == key("cpu medium l")
    assert key("Hаna") == key("Ｈａｎａ") == key("𝐇𝐚𝐧𝐚") == key("Hana")
    assert problem("Hana" + FAMILY) is None
    assert join([], "СPU medium 1", False) == "NAME_RESERVED"


def ranges_text(ranges: list[tuple[int, int]]) -> str:
    items = [f"{lo:X}-{hi:X}" if lo != hi else f"{lo:X}" for lo, hi in ranges]
    lines, line = [], ""
    for item in items:
        if len(line) + len(item) + 1 > 90:
            lines.append(line)
            line = ""
        line = f"{line} {item}" if line else item
    return "\n".join([*lines, line])


def tables_module() -> str:
    proto_lines = []
    for src in sorted(PROTOTYPES):
        text = f"{ord(src):X}:{hexs(PROTOTYPES[src])}"
        assert len(text) < 96, text
        proto_lines.append(text)
    return f'''"""Unicode data for names (SPEC.md 10.5), generated by protocol/gen_names.py: do not edit.

Pinned, so every peer and verifier compares names alike whatever its Python's Unicode
database: assigned code points and marks of Unicode {UNICODE_VERSION}, confusable prototypes of
UTS #39 confusables.txt {CONFUSABLES_VERSION} (SHA-256 {CONFUSABLES_SHA256[:16]}...).
Text tables, read into sets and a dict once at import.
"""

from __future__ import annotations

UNICODE_VERSION = "{UNICODE_VERSION}"
CONFUSABLES_VERSION = "{CONFUSABLES_VERSION}"
MAX_MARKS = {MAX_MARKS}  #: marks in a row on one base

#: Code points assigned in Unicode {UNICODE_VERSION} (general category other than Cn), hex ranges.
ASSIGNED = """
{ranges_text(ASSIGNED)}
"""

#: Marks (Mn, Mc, Me) in Unicode {UNICODE_VERSION}.
MARKS = """
{ranges_text(MARKS)}
"""

#: Default-ignorable and blank code points that the `name` pattern lets through (§10.5).
REFUSED = """
{ranges_text(REFUSED)}
"""

#: Emoji characters a ZWJ may join (§10.5, from Extended_Pictographic).
EMOJI = """
{ranges_text(EMOJI)}
"""

#: Emoji modifiers (skin tones), which may stand between an emoji and a ZWJ.
MODIFIERS = "{MODIFIERS[0]:X}-{MODIFIERS[1]:X}"

#: Characters a U+FE0F may follow besides an emoji (keycap sequences).
KEYCAP_BASES = "{KEYCAP_BASES}"

#: confusables.txt: source code point, then its prototype's code points.
PROTOTYPES = """
{chr(10).join(proto_lines)}
"""
'''


WRITTEN_BY = (
    f"# Unicode {UNICODE_VERSION}, from Python 3.11's unicodedata; written by protocol/gen_names.py:"
    " do not edit."
)
RANGE_FORMAT = """\
# Format: one inclusive range of code points per line, in hexadecimal: "XXXX..YYYY", or "XXXX"
# for a single code point. Lines starting with # are comments."""


def ranges_file(header: str, ranges: list[tuple[int, int]]) -> str:
    lines = [f"{lo:04X}..{hi:04X}" if lo != hi else f"{lo:04X}" for lo, hi in ranges]
    return "\n".join([header, RANGE_FORMAT, WRITTEN_BY, *lines]) + "\n"


def casefold_file() -> str:
    header = f"""\
# casefold-{UNICODE_VERSION}.txt: the full case folding of Unicode {UNICODE_VERSION}, the casefold of the
# comparison key in p2pdice SPEC.md 10.5, for every code point assigned in {UNICODE_VERSION} whose
# folding is not itself; a code point not listed folds to itself. It is exactly what the
# reference implementation applies (Python's str.casefold in p2pdice/core/names.py): the
# status C and F mappings of Unicode's CaseFolding-{UNICODE_VERSION}.txt (not the S or T ones, and
# not NFKC_Casefold), each code point folded on its own, without context. Normative: use this
# file rather than your platform's case folding.
# Format: CaseFolding.txt's lines, "CODE; STATUS; MAPPING; # NAME": hexadecimal code points,
# status C (the mapping is one code point) or F (several, separated by spaces)."""
    lines = []
    for lo, hi in ASSIGNED:
        for cp in range(lo, hi + 1):
            folded = chr(cp).casefold()
            if folded != chr(cp):
                status = "C" if len(folded) == 1 else "F"
                name = unicodedata.name(chr(cp), "")
                lines.append(f"{cp:04X}; {status}; {hexs(folded)}; # {name}")
    return "\n".join([header, WRITTEN_BY, *lines]) + "\n"


def unicode_files() -> dict[str, str]:
    """The plain-text data files of unicode/, by name: what §10.5 takes from Unicode 14.0.0."""
    v = UNICODE_VERSION
    assigned = f"""\
# assigned-{v}.txt: the code points assigned in Unicode {v} (general category other than Cn),
# the "assigned" of p2pdice SPEC.md 10.5 (rule 1 of a well-formed name). Normative: use this
# file rather than your platform's Unicode data, which may be of a later version."""
    marks = f"""\
# marks-{v}.txt: the marks of Unicode {v} (general category Mn, Mc or Me), the "mark" of
# p2pdice SPEC.md 10.5 (rule 5 of a well-formed name). Normative: use this file rather than
# your platform's Unicode data, which may be of a later version."""
    files = {
        f"assigned-{v}.txt": ranges_file(assigned, ASSIGNED),
        f"marks-{v}.txt": ranges_file(marks, MARKS),
        f"casefold-{v}.txt": casefold_file(),
    }
    assert files.keys() == UNICODE_FILES.keys()
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "vectors" / "v1")
    parser.add_argument(
        "--tables", type=Path, default=HERE.parent / "p2pdice" / "core" / "name_tables.py"
    )
    parser.add_argument("--unicode", type=Path, default=HERE / "unicode")
    args = parser.parse_args()
    if unicodedata.unidata_version != UNICODE_VERSION:
        sys.exit(f"needs the Unicode {UNICODE_VERSION} database (Python 3.11), not "
                 f"{unicodedata.unidata_version}")  # fmt: skip
    PROTOTYPES.update(load_prototypes())
    data = vectors()
    check(data)
    files = unicode_files()
    for name, text in files.items():
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest != UNICODE_FILES[name]:
            sys.exit(f"{name} would change (SHA-256 {digest}): update UNICODE_FILES and SPEC.md")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "names.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    args.tables.write_text(tables_module(), encoding="utf-8")
    args.unicode.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.unicode / name).write_bytes(text.encode("utf-8"))


if __name__ == "__main__":
    main()
