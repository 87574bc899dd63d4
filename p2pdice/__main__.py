"""The `p2pdice` command and `python -m p2pdice`: the command line, behind a guard for Ctrl-C.

Ctrl-C while the program is still loading (its modules, the parser, a sub-command's
machinery) ends it as Ctrl-C does later: quietly, with exit status 130, not with a traceback
of the import that was under way. Only this module stands between the interpreter and the
package, so nothing heavy has been imported when the guard starts."""

from __future__ import annotations

from collections.abc import Sequence

#: The shell's status for a program ended by SIGINT (128 + 2), as p2pdice.cli returns it.
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from .cli import main as command_line

        return command_line(argv)
    except KeyboardInterrupt:
        return INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
