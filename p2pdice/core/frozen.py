"""`replace` for the core's frozen, slotted state classes, without `dataclasses.replace`'s
generic work: every table step copies its state two to four times, and that copy was a sixth
of verifying a transcript. Only for dataclasses without `__post_init__` or `init=False`
fields, which is what the table and game states are (tests check both)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")

_new = object.__new__
_set = object.__setattr__


_FIELD_NAMES: dict[type[Any], tuple[tuple[str, ...], frozenset[str]]] = {}


def _field_names(cls: type[Any]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Each class's field names, in order and as a set (worked out once per class)."""
    found = _FIELD_NAMES.get(cls)
    if found is None:
        names = tuple(f.name for f in fields(cls))
        found = _FIELD_NAMES[cls] = (names, frozenset(names))
    return found


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of `obj` with `changes`; TypeError for a field it does not have."""
    cls: type[Any] = type(obj)
    names, known = _field_names(cls)
    if not known.issuperset(changes):
        unknown = sorted(set(changes) - known)[0]
        raise TypeError(f"{cls.__name__} has no field {unknown!r}")
    new: T = _new(cls)
    for name in names:
        _set(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
