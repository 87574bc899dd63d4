"""Small ints that stand for a Rules object in the keys of the bots' caches.

Python's cyclic garbage collector walks every object it tracks at each full collection, and
it tracks every dataclass instance and every tuple holding one. A cache key holding a Rules
object therefore stays in its view for as long as the entry lives, and the bots' caches hold
hundreds of thousands of entries: the walks cost a player's decisions tens of milliseconds
(docs/bots.md, "Decision time"). A key of plain ints and floats leaves the collector's view
the first time it survives a collection. Only the first sight of each Rules object is
written here; a process meets a handful.
"""

from __future__ import annotations

from itertools import count

from .rules import Rules

_TOKEN_OF: dict[Rules, int] = {}
_RULES_OF: dict[int, Rules] = {}
_NEXT = count()


def rules_token(rules: Rules) -> int:
    """The token naming `rules` (equal rules, one token), for a cache key."""
    token = _TOKEN_OF.get(rules)
    if token is None:
        # Two threads meeting new rules at once may each draw a number; setdefault keeps one,
        # and each number is written to _RULES_OF before any key can hold it.
        fresh = next(_NEXT)
        _RULES_OF[fresh] = rules
        token = _TOKEN_OF.setdefault(rules, fresh)
    return token


def rules_of_token(token: int) -> Rules:
    """The rules a token from `rules_token` names."""
    return _RULES_OF[token]
