"""A host resumed in the result phase waits for the acknowledgements lost with its old process
(SPEC.md 8, "Acknowledgements"), so that its players' resent acks are posted and their
`verify --mine` does not find them dropped (the headless client now fails on that)."""

from __future__ import annotations

from p2pdice.core.host import HostTable, Posted, sign_auth
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from tests.support.cheats import Game, kinds


def test_a_host_resumed_in_the_result_phase_posts_a_resent_acknowledgement() -> None:
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=2))
    g.hold(kinds("ack"))  # the acks die with the old process
    g.start()
    assert g.phase == TablePhase.RESULT and g.held
    lines = g.host.lines()
    resumed = HostTable.resume(key=g.host.key, lines=lines, password_verifier=None, now=100.0)
    resumed.tick(100.0)
    assert len(resumed.entries) == len(lines)  # nobody reconnected yet: still waiting
    _, ack = g.held[0]
    nonce = bytes(16)
    resumed.challenge(1, nonce)
    auth = sign_auth(g.key(ack.seat), table=resumed.table_id, host=g.host.key.public, nonce=nonce)
    resumed.authenticate(1, auth, 101.0)
    outputs = resumed.receive(1, ack.to_json(), 101.5)
    posted = [o.entry for o in outputs if isinstance(o, Posted)]
    assert posted and posted[0].msg is not None and posted[0].msg.digest() == ack.digest(), outputs
