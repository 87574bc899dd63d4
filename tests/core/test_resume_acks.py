"""A host resumed in the result phase waits for the acknowledgements lost with its old process
(SPEC.md 8, "Acknowledgements"), so that its players' resent acks are posted and their
`verify --mine` does not find them dropped (the headless client now fails on that)."""

from __future__ import annotations

from p2pdice.core.auth import sign_auth
from p2pdice.core.host import HostTable, Posted
from p2pdice.core.messages import Message
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from tests.support.cheats import Game, kinds


def test_a_host_resumed_in_the_result_phase_posts_a_late_resent_acknowledgement() -> None:
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=2))
    g.hold(kinds("ack"))  # every ack dies with the old process
    g.start()
    assert g.phase == TablePhase.RESULT and len(g.held) == 3
    lines = g.host.lines()
    resumed = HostTable.resume(key=g.host.key, lines=lines, password_verifier=None, now=100.0)

    def back(conn: int, ack: Message, now: float) -> list:
        """The seat reconnects (auth) and resends its ack."""
        nonce = bytes([conn]) * 16
        resumed.challenge(conn, nonce)
        auth = sign_auth(
            g.key(ack.seat), table=resumed.table_id, host=g.host.key.public, nonce=nonce
        )
        resumed.authenticate(conn, auth, now)
        return resumed.receive(conn, ack.to_json(), now)

    # The starter and one more seat are back at once (host-run CPUs reconnect in-process at
    # once, say) and resend their acks and the starter's next_round ...
    starter = g.host.state.game.next_starter
    next_round = next(m for _, m in g.sent if m.type == "next_round" and m.seat == starter)
    acks = sorted((m for _, m in g.held), key=lambda m: m.seat != starter)
    for conn, ack in enumerate(acks[:2], 1):
        back(conn, ack, 100.5)
    resumed.receive(1, next_round.to_json(), 100.6)
    resumed.tick(101.0)
    # ... the third, slower to reconnect, still finds its round: its ack is posted, not lost.
    outputs = back(3, acks[2], 102.0)
    posted = [o.entry.msg for o in outputs if isinstance(o, Posted) and o.entry.msg is not None]
    assert [m.digest() for m in posted][:1] == [acks[2].digest()], outputs
