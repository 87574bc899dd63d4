"""What a new table starts with where nobody chose, for the host form and for the commands
that open a table on this machine (`practice`, `pass-and-play`): read from the rules' own
options and presets (core.rules) and the bots' names, never restated.

Imports only the core and the bots' names, so the command line's --help can use it.
"""

from __future__ import annotations

from ..core.errors import OptionError
from ..core.rules import OPTION_BY_KEY, PRESETS, Rules, TableKind


def undo_default(kind: TableKind) -> bool:
    """Undo starts on wherever the rules allow it (tables on this machine: practice and
    pass-and-play); the rules refuse it on a standard table."""
    try:
        Rules(kind=kind, undo=True)
    except OptionError:
        return False
    return True


def preset_help() -> str:
    """Each preset and the options it sets, as a form shows them, e.g. "classic: ones wild,
    exact call off, palifico off; perudo: ..."."""
    return "; ".join(
        f"{name}: "
        + ", ".join(
            f"{OPTION_BY_KEY[key].label.lower()} {OPTION_BY_KEY[key].shown(value)}"
            for key, value in options.items()
        )
        for name, options in PRESETS.items()
    )
