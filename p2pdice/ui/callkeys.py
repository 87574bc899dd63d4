"""The keys a learning screen shares with the table (docs/playing.md): what is typed is a
raise, Backspace and Esc edit it, and `l` / `x` call Liar / Exact only while nothing is typed,
so a typed bid may hold those letters ("six 3s", "eleven 2s")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.filters import Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


class Typing(Protocol):
    typed: str


def add_typing_and_calls(
    kb: KeyBindings,
    typing: Typing,
    *,
    calls: Filter,
    liar: Callable[[], None],
    exact: Callable[[], None],
) -> None:
    """Backspace and Esc on `typing.typed`; `l` and `x` call `liar` and `exact` where `calls`
    holds (the caller's screen allows a call and nothing is typed)."""

    @kb.add("backspace")
    def _back(event: KeyPressEvent) -> None:
        typing.typed = typing.typed[:-1]

    @kb.add("escape", eager=True)
    def _clear(event: KeyPressEvent) -> None:
        typing.typed = ""

    @kb.add("l", filter=calls)
    def _liar(event: KeyPressEvent) -> None:
        liar()

    @kb.add("x", filter=calls)
    def _exact(event: KeyPressEvent) -> None:
        exact()
