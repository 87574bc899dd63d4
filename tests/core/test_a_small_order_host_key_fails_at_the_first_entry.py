"""A log signed by a small-order host key fails at its first entry (SPEC.md 2.4: the identity
point would verify any entry as the host's). One of the clarifications an independent
implementer of SPEC.md asked for; the rule itself is written in protocol/SPEC.md."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.verify import verify_lines
from tests.support.played import honest_game


def test_a_log_by_a_small_order_host_key_fails_at_its_first_entry() -> None:
    """SPEC.md 2.4: with the identity point as host key, (R = identity, S = 0) would verify
    as the host's signature of any entry; verify refuses it (BAD_SIGNATURE at entry 0)."""
    from p2pdice.core.codec import decode, encode

    lt = honest_game()
    genesis = decode(lt.host.lines()[0])
    identity = (1).to_bytes(32, "little")
    genesis["event"]["host"] = identity.hex()
    genesis["sig"] = (identity + bytes(32)).hex()
    report = verify_lines([encode(genesis)], partial=True)
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (0, Reason.BAD_SIGNATURE)
