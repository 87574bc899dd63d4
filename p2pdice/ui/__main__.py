"""`python -m p2pdice.ui [practice|pass-and-play ...]`: the terminal client on its own.

With no arguments it opens the lobby, like `p2pdice` with no arguments.
"""

from __future__ import annotations

import argparse
import sys

from ..cli import ui as cmd_ui
from ..cli.common import add_home_option
from ..core.errors import UserError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p2pdice")
    add_home_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    cmd_ui.add_parsers(sub)
    args = parser.parse_args(argv)
    try:
        if getattr(args, "run", None) is None:
            return cmd_ui.run_lobby(args)
        return args.run(args)
    except UserError as err:
        print(f"p2pdice: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
