"""A SPAKE2 message whose bytes are no point of the curve (the library raises its own
NotOnCurve, which is neither a SPAKEError nor a ValueError) is an unusable message on either
side (SPEC.md 3.4): the joiner refuses the host's challenge with a ValueError (BAD_CHALLENGE),
and the host fails the exchange, instead of an exception escaping into the event loop."""

from __future__ import annotations

import hashlib

from spake2.ed25519_basic import NotOnCurve, bytes_to_element

from p2pdice.core.pake import Binding, HostExchange, joiner_answer

BINDING = Binding(b"t" * 32, b"h" * 32, b"n" * 16, b"p" * 32)


def off_the_curve() -> bytes:
    """The first of a fixed series of 32-byte strings that decodes to no curve point."""
    for n in range(1000):
        candidate = hashlib.sha256(n.to_bytes(4, "big")).digest()
        try:
            bytes_to_element(candidate)
        except NotOnCurve:
            return candidate
        except Exception:  # on the curve but not of the group: not what this test wants
            continue
    raise AssertionError("no off-curve string in the series")


def test_the_joiner_refuses_a_host_message_off_the_curve() -> None:
    try:
        joiner_answer(b"v" * 32, b"e" * 64, b"B" + off_the_curve(), BINDING)
    except ValueError as err:
        assert "unusable" in str(err)
    else:
        raise AssertionError("an off-curve host message was answered")


def test_the_host_fails_an_exchange_with_a_joiner_message_off_the_curve() -> None:
    host = HostExchange(b"v" * 32, b"e" * 64)
    assert host.check(b"A" + off_the_curve(), b"x" * 32, BINDING) is None
