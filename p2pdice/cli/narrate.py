"""Printing a game as its verified entries arrive (headless hosts, `join --bot`)."""

from __future__ import annotations

from collections.abc import Callable

from ..core.describe import outcome_line
from ..core.fairness import comparison_code
from ..core.table import TableState


class Narrator:
    """Prints a game as its verified entries arrive (for headless hosts and bots)."""

    def __init__(self, out: Callable[[str], None] = print) -> None:
        self.out = out
        self._seen = 0
        self._results = 0
        self._code_told = False

    def update(self, state: TableState | None, hashes: list[bytes]) -> None:
        if state is None:
            return
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
