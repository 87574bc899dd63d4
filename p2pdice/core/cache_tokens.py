"""Ints that stand for a Rules object in the keys of the bots' caches.

Python's cyclic garbage collector walks every object it tracks at each full collection, and
it tracks every dataclass instance and every tuple holding one. A cache key holding a Rules
object therefore stays in its view for as long as the entry lives, and the bots' caches hold
hundreds of thousands of entries: the walks cost a player's decisions tens of milliseconds
(docs/bots.md, "Decision time"). A key of plain ints and floats leaves the collector's view
the first time it survives a collection. The tables here keep one entry per distinct rules
value a process meets (a handful: one per table, and per seat count), for its lifetime.
"""

from __future__ import annotations

from .rules import Rules

_TOKEN_OF: dict[Rules, int] = {}
_RULES_OF: dict[int, Rules] = {}


def rules_token(rules: Rules) -> int:
    """The token naming `rules` (equal rules, one token), for a cache key."""
    token = _TOKEN_OF.get(rules)
    if token is None:
        # The token is the id of the first object seen with these rules, kept alive in
        # _RULES_OF so that no other object can have it. Each step is one dict operation, so
        # two threads meeting equal new rules at once agree without a lock: setdefault keeps
        # the first token, and the other object's entry is left unused.
        _RULES_OF.setdefault(id(rules), rules)
        token = _TOKEN_OF.setdefault(rules, id(rules))
    return token


def rules_of_token(token: int) -> Rules:
    """The rules a token from `rules_token` names."""
    return _RULES_OF[token]
