"""A hostile host that re-deals a round whose every needed contribution arrived.

It is the real `p2pdice host` process with two decisions changed. At a contribution step,
once every contribution is in, it posts a void (`forfeit`, `no_contribution`: fresh hands for
everyone, SPEC.md 8) instead of the beacon, naming a seat that owed nothing:

- `out`: a seat already out of the game. So that the void meets every other condition of
  the table's row (the seat "declared absent"), the host declares the round's loser absent
  just before it posts the result that eliminates it (an absence is the host's claim, which
  the table allows), and voids the next round naming that seat;
- `cpu`: its own host-run CPU seat, after declaring it absent, whose contribution the host
  signs itself;
- `player`: a remote player whose contribution did arrive, after declaring it absent. This
  one the table allows (SPEC.md 1.3): the log cannot show the contribution arrived, so the
  claim stays the host's, within the cap of voids a game.

When its own table machine accepts the void (a table without the rule), the host posts it
as any entry and plays on: the round is re-dealt. When it refuses it, the host signs it
anyway, chains it onto its log, writes it there and sends it to every connection like any
entry, and then posts nothing more. Each other argument is `p2pdice host`'s:

    python -m tests.support.voiding_host out --headless --seats 3 --cpu 1 ...

`--json` prints the host's ready line, then `{"void": SEQ, "seat": SEAT, "accepted": BOOL}`
once the void is sent (`accepted`: whether its own table took it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from p2pdice.core import events, host_clock
from p2pdice.core.errors import LocalError
from p2pdice.core.host_outputs import Output
from p2pdice.core.table import TablePhase, expected_forfeit, expected_result
from p2pdice.core.transcript import build_entry

MODES = ("out", "cpu", "player")

_honest_contribute = host_clock._step_contribute
_honest_showdown = host_clock._step_showdown
_void: dict[str, Any] = {}  #: the void once posted: seq, seat, accepted


def _target(host: Any, mode: str) -> int | None:
    """The seat this step's void names, if it has one; None: play honestly for now."""
    state = host.state
    if mode == "out":
        game = state.game
        gone = [s for s in state.absent if game is not None and game.dice[s] == 0]
        return min(gone) if gone else None
    wanted = mode == "cpu"
    seats = [s for s in state.attempt.seats if state.roster[s].host_run == wanted]
    return seats[0] if seats else None


def _contribute(host: Any, now: float, *, mode: str) -> list[Output]:
    if _void:
        return [] if not _void["accepted"] else _honest_contribute(host, now)
    attempt = host.state.attempt
    got = host.waits.wait.contributions
    seat = _target(host, mode)
    if seat is None or not all(s in got for s in attempt.seats):
        return _honest_contribute(host, now)
    outputs: list[Output] = []
    if seat not in host.state.absent:
        # Allowed on its own: the host's word that the seat went quiet.
        absent = events.Absent(round=attempt.round, seat=seat, reason="no_reply")
        outputs += host._post_event(absent, now)
    void = expected_forfeit(host.state, (seat,), "no_contribution")
    seq = len(host.chain)
    try:
        outputs += host._post_event(void, now)
        accepted = True
    except LocalError:  # its own table refuses it: signed and sent regardless
        entry = build_entry(host.key, seq, host.head, event=void, table=host.table_id)
        outputs += host._commit_entry(host.state, (), entry, now)
        accepted = False
    _void.update(seq=seq, seat=seat, accepted=accepted)
    print(json.dumps({"void": seq, "seat": seat, "accepted": accepted}), flush=True)
    return outputs


def _showdown(host: Any, now: float) -> list[Output]:
    """The `out` host: the loser of the first round that eliminates someone is declared absent
    just before the result (every opening is in, so nobody is owed anything)."""
    state, attempt = host.state, host.state.attempt
    if not _void and all(s in attempt.openings for s in attempt.seats):
        fresh = [s for s in expected_result(state).eliminated if s not in state.absent]
        if fresh and not any(state.game.dice[s] == 0 for s in state.absent):
            absent = events.Absent(round=attempt.round, seat=fresh[0], reason="no_reply")
            return host._post_event(absent, now)
    return _honest_showdown(host, now)


def install(mode: str) -> None:
    """Make this process's host post the void of `mode` at the first step that allows it."""
    if mode not in MODES:
        raise SystemExit(f"mode {mode!r}: one of {', '.join(MODES)}")
    # The clock looks a phase's step up in its table (host_clock._STEPS), built at import.
    host_clock._STEPS[TablePhase.CONTRIBUTE] = lambda host, now: _contribute(host, now, mode=mode)
    if mode == "out":
        host_clock._STEPS[TablePhase.SHOWDOWN] = _showdown


def start(
    mode: str, *args: str, timeout: float = 15.0
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """This hostile host as a process (`--headless --json` and `--cpu-think 0` added); returns
    it and its ready line. Its later lines (the void) are left on its stdout."""
    cmd = [sys.executable, "-m", "tests.support.voiding_host", mode]
    cmd += ["--headless", "--json", "--cpu-think", "0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise AssertionError(f"the voiding host exited early with {proc.returncode}")
        if line.startswith("{"):
            return proc, json.loads(line)
    proc.kill()
    raise AssertionError("the voiding host did not report ready")


def main() -> int:
    install(sys.argv[1])
    from p2pdice.cli import main as p2pdice

    return p2pdice(["host", *sys.argv[2:]])


if __name__ == "__main__":
    raise SystemExit(main())
