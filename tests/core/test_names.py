"""Names at a table (SPEC.md 10.5): one seat per name, the CPU form only for CPU seats."""

from __future__ import annotations

import random

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable, Rejected
from p2pdice.core.names import free_name, reserved_for_cpu
from p2pdice.core.peer import Peer
from p2pdice.core.signing import SigningKey
from p2pdice.core.verify import verify_lines
from tests.support.joins import join, names_table


def test_free_name_adds_the_smallest_free_suffix_within_24_characters() -> None:
    assert free_name("Hana", []) == "Hana"
    assert free_name("Hana", ["hana"]) == "Hana 2"
    assert free_name("Hana", ["HANA", "Hana 2", "Bob"]) == "Hana 3"
    long = "x" * 24
    assert free_name(long, [long]) == "x" * 22 + " 2"
    assert free_name("Straße", ["STRASSE"]) == "Straße 2"  # full case folding


def test_the_cpu_form_is_the_first_word_cpu_in_any_case() -> None:
    assert (
        reserved_for_cpu("CPU medium 1") and reserved_for_cpu("cpu") and reserved_for_cpu("Cpu x")
    )
    assert not reserved_for_cpu("CPUlover") and not reserved_for_cpu("Hana CPU")


def _table() -> tuple[HostTable, random.Random]:
    return names_table(seats=3, seed=5)


_join = join


def _refusal(outputs) -> Reason | None:
    refused = [o.reason for o in outputs if isinstance(o, Rejected)]
    return refused[0] if refused else None


def test_a_seated_name_in_any_case_is_refused_name_taken() -> None:
    host, rng = _table()
    assert _refusal(_join(host, rng, 1, "Hana")) is None
    assert _refusal(_join(host, rng, 2, "HANA")) == Reason.NAME_TAKEN
    assert _refusal(_join(host, rng, 3, "Hana 2")) is None
    assert [s.name for s in host.state.joins.values()] == ["Hana", "Hana 2"]


def test_a_person_in_the_cpu_form_is_refused_name_reserved_a_cpu_is_not() -> None:
    host, rng = _table()
    assert _refusal(_join(host, rng, 1, "CPU medium 1")) == Reason.NAME_RESERVED
    assert _refusal(_join(host, rng, 2, "CPU medium 1", cpu=True)) is None


def test_a_verifier_refuses_a_log_with_two_seats_of_one_name() -> None:
    """The rule is a table transition: a host that posted such a join is caught offline."""
    host, rng = _table()
    _join(host, rng, 1, "Hana")
    lines = host.lines()
    assert verify_lines(lines, partial=True).ok
    from p2pdice.core.table_messages import join_msg

    # The same log, with the transition checked by hand for a second "hana".
    peer = Peer(key=SigningKey(rng.randbytes(32)))
    for line in lines:
        peer.receive_line(line)
    challenge = host.challenge(2, rng.randbytes(16))
    join = peer.make_join(challenge, name="hana")
    try:
        join_msg(peer.state, join, len(lines), peer.replayer.chain)
    except Exception as err:
        assert getattr(err, "reason", None) == Reason.NAME_TAKEN
    else:
        raise AssertionError("a second Hana was accepted by the join transition")
