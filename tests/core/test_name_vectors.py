"""protocol/vectors/v1/names.json (SPEC.md 10.5) against the core, and the pinned tables
against the generator that writes them."""

from __future__ import annotations

import random
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.core import name_tables, shape
from p2pdice.core.clean import clean_name
from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable, Rejected
from p2pdice.core.names import free_name, name_key, name_problem, repair_name, reserved_for_cpu
from p2pdice.core.peer import Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from tests.support.vectors import PROTOCOL, case_ids, cases, load_vectors

ROOT = PROTOCOL.parent


def test_the_vectors_pin_the_tables_versions() -> None:
    data = load_vectors("names.json")
    assert data["unicode_version"] == name_tables.UNICODE_VERSION
    assert data["confusables_version"] == name_tables.CONFUSABLES_VERSION


@pytest.mark.parametrize(("group", "test"), list(cases("names.json", "the §10.5 rule")),
                         ids=case_ids("names.json", "the §10.5 rule"))  # fmt: skip
def test_well_formed_vector(group: dict[str, Any], test: dict[str, Any]) -> None:
    name = test["name"]
    assert " ".join(f"{ord(c):04X}" for c in name) == test["code_points"]
    assert shape.name(name), "every case matches the schema's name pattern"
    problem = name_problem(name)
    assert (problem is None) == (test["result"] == "valid"), problem
    if problem is not None:
        assert test["reason"] == Reason.SCHEMA
        assert name_problem(clean_name(name) or "x") is None, "cleaning repairs it"


@pytest.mark.parametrize(("group", "test"), list(cases("names.json", "comparison key")),
                         ids=case_ids("names.json", "comparison key"))  # fmt: skip
def test_key_vector(group: dict[str, Any], test: dict[str, Any]) -> None:
    assert name_key(test["name"]) == test["key"]


def _join(host: HostTable, rng: random.Random, conn: int, name: str, cpu: bool) -> Reason | None:
    peer = Peer(key=SigningKey(rng.randbytes(32)))
    for line in host.lines():
        peer.receive_line(line)
    join = peer.make_join(host.challenge(conn, rng.randbytes(16)), name=name, cpu=cpu)
    outputs = host.join(conn, join.to_json(), None, 0.0, trusted=True)
    refused = [o.reason for o in outputs if isinstance(o, Rejected)]
    return refused[0] if refused else None


@pytest.mark.parametrize(("group", "test"), list(cases("names.json", "against the seated")),
                         ids=case_ids("names.json", "against the seated"))  # fmt: skip
def test_join_vector_at_a_real_table(group: dict[str, Any], test: dict[str, Any]) -> None:
    rng = random.Random(test["tc_id"])
    host = HostTable(
        key=SigningKey(rng.randbytes(32)), name="names", rules=Rules(seats=4),
        nonce=rng.randbytes(16), host_cpu=0, password=None, now=0.0,
    )  # fmt: skip
    for conn, seated in enumerate(test["seated"], start=1):
        assert _join(host, rng, conn, seated, reserved_for_cpu(seated)) is None
    reason = _join(host, rng, 99, test["name"], test["cpu"])
    assert reason == test["reason"]
    assert (reason is None) == (test["result"] == "valid")


def test_the_vectors_cover_every_outcome() -> None:
    reasons = {t["reason"] for _, t in cases("names.json", "against the seated")}
    assert reasons == {None, Reason.SCHEMA, Reason.NAME_TAKEN, Reason.NAME_RESERVED}


@pytest.mark.skipif(
    unicodedata.unidata_version != name_tables.UNICODE_VERSION,
    reason="the generator reads the Unicode 14.0.0 database (Python 3.11's unicodedata)",
)
def test_the_generator_reproduces_the_vectors_and_the_tables(tmp_path: Path) -> None:
    tables = tmp_path / "name_tables.py"
    proc = subprocess.run(
        [sys.executable, str(PROTOCOL / "gen_names.py"), "--out", str(tmp_path),
         "--tables", str(tables), "--unicode", str(tmp_path / "unicode")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "names.json").read_bytes() == (
        PROTOCOL / "vectors/v1/names.json"
    ).read_bytes()
    assert tables.read_bytes() == (ROOT / "p2pdice/core/name_tables.py").read_bytes()


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("x" + "\u0301" * 20, "x\u0301\u0301\u0301"),
        ("Ha\u2800na", "Hana"),
        ("\u0301 Bob", "Bob"),
        ("Zoe\u0308", "Zo\u00eb"),
        ("Hana \U0001f468\u200d\U0001f469", "Hana \U0001f468\u200d\U0001f469"),
        ("Ha\u200dna\u200d", "Hana"),
        ("a \u3164 b", "a b"),
    ],
)
def test_clean_name_makes_a_name_the_join_rule_accepts(dirty: str, clean: str) -> None:
    assert clean_name(dirty) == clean
    assert name_problem(clean) is None


def test_free_name_never_cuts_an_emoji_sequence_into_a_refused_name() -> None:
    name = "x" * 20 + "\U0001f468\u200d\U0001f469"  # 23 characters; " 2" cuts the joiner's tail
    free = free_name(name, [name])
    assert free.endswith(" 2") and name_problem(free) is None
    assert repair_name("x\u200d") == "x"


def _spec_ranges(text: str) -> str:
    """'U+00A9, U+2194-U+2199' as the tables write it: '00A9 2194-2199' without zero padding."""
    import re

    found = re.findall(r"U\+([0-9A-F]{4,6})(?:-U\+([0-9A-F]{4,6}))?", text)
    return " ".join(f"{int(lo, 16):X}" + (f"-{int(hi, 16):X}" if hi else "") for lo, hi in found)


DATA_KINDS = ("assigned", "marks", "casefold")  #: the UCD files protocol/unicode ships


def test_spec_lists_the_tables_emoji_and_refused_characters_and_the_data_hashes() -> None:
    spec = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    names = spec[spec.index("### 10.5 Names") : spec.index("## 11. Reason codes")]
    emoji = names[names.index("The emoji characters are") : names.index("So family, flag")]
    refused = names[names.index("2. it is not default-ignorable") : names.index("are refused")]
    assert _spec_ranges(emoji).split() == name_tables.EMOJI.split()
    assert _spec_ranges(refused).split() == name_tables.REFUSED.split()
    import hashlib

    for data_file in ("confusables-13.0.0.txt", *(f"{kind}-14.0.0.txt" for kind in DATA_KINDS)):
        data = (PROTOCOL / "unicode" / data_file).read_bytes()
        assert data_file in names
        assert hashlib.sha256(data).hexdigest() in names, data_file
    assert f"no more than {name_tables.MAX_MARKS} marks" in names


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40) | st.text(alphabet="a \u0301\u200d\ufe0f\U0001f468\u2800", max_size=30))
def test_clean_name_is_empty_or_a_name_every_peer_accepts(text: str) -> None:
    cleaned = clean_name(text)
    assert cleaned == "" or (shape.name(cleaned) and name_problem(cleaned) is None), cleaned
    assert clean_name(cleaned) == cleaned


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab \u0301\u200d\ufe0f\U0001f468\U0001f469\U0001f467", max_size=30),
    st.integers(min_value=1, max_value=24),
)
def test_a_name_cut_short_is_still_one_every_peer_accepts(text: str, limit: int) -> None:
    """A name cut to fit (the default player name, practice seat names) may cut an emoji
    sequence in two: the cut is mended, never sent for the host to refuse."""
    cleaned = clean_name(text, limit)
    assert len(cleaned) <= limit
    assert cleaned == "" or (shape.name(cleaned) and name_problem(cleaned) is None), cleaned
