"""Printing a game as its verified entries arrive (headless hosts, `join --bot`)."""

from __future__ import annotations

from collections.abc import Callable

from ..core.describe import outcome_line
from ..core.fairness import comparison_code
from ..core.table import TableState
from ..core.table_state import TablePhase, cpu_seats_owed


class Narrator:
    """Prints a game as its verified entries arrive (for headless hosts and bots)."""

    def __init__(self, out: Callable[[str], None] = print) -> None:
        self.out = out
        self._seen = 0
        self._results = 0
        self._code_told = False
        self._lobby: tuple[tuple[int, str], ...] = ()  #: who sat, as last said

    def update(self, state: TableState | None, hashes: list[bytes]) -> None:
        if state is None:
            return
        if state.phase == TablePhase.LOBBY:
            self._waiting(state)
        names = [s.name for s in state.roster] if state.roster else []
        if not self._code_told and state.start_seq is not None and len(hashes) > state.start_seq:
            self._code_told = True
            code = comparison_code(hashes[state.start_seq])
            self.out(f"game started: {', '.join(names)}")
            self.out(
                f"comparison code {code} (compare it aloud: everyone at this table sees the same)"
            )
            host_run = [s.name for s in state.roster if s.host_run]
            if host_run:
                self.out(
                    f"note: the host's machine runs {', '.join(host_run)} and could read their hands"
                )
        game = state.game
        if game is None:
            return
        for result in game.results[self._results :]:
            self.out(f"round {result.round}: " + outcome_line(result, names, state.rules))
        self._results = len(game.results)

    def _waiting(self, state: TableState) -> None:
        """Before the start: who has sat down, each time that changes (a headless host learns
        whom it may start with; a joined bot or watcher, that the table waits)."""
        seated = tuple(sorted((seat, info.name) for seat, info in state.joins.items()))
        if seated == self._lobby:
            return
        self._lobby = seated
        # Only the host-run seats still to join are kept: those that joined are among `seated`.
        cpus = cpu_seats_owed(state)
        kept = f", {cpus} kept for host CPU{'s' if cpus > 1 else ''}" if cpus else ""
        who = ", ".join(name for _, name in seated) or "nobody"
        self.out(
            f"waiting for the start: {len(seated) + cpus} of up to {state.rules.seats}"
            f" seats taken ({who}{kept})"
        )
