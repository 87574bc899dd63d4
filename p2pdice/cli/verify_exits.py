"""The exit statuses of `p2pdice verify`, and its --jobs default, apart so `--help` states
them without importing the verifier (the command line builds its parser before any
sub-command runs)."""

from __future__ import annotations

import os

#: Exit statuses of `verify`, worst first when several files are given (2 is a bad command
#: line, as for every command).
EXIT_VERIFIED = 0  #: every file verifies (and transcripts of one table agree)
EXIT_FAILED = 1  #: a file fails a check
EXIT_INCOMPLETE = 3  #: a file verifies as far as it goes but stops before its game over
EXIT_FORK = 4  #: two transcripts of one table hold different host-signed entries at one seq

VERIFY_EPILOG = f"""exit status: {EXIT_VERIFIED} every file verifies (transcripts of one table agree
where both go on); {EXIT_FAILED} a file fails a check; 2 a bad command line; {EXIT_INCOMPLETE} a
file verifies up to where it stops but stops before the game's end (a player who left, a
host that stopped; check it as such with --partial); {EXIT_FORK} two transcripts of one table
differ at an entry both hold: the host showed them two histories (both entries are printed,
the proof). Several files of one table are compared entry by entry; a shorter one is
reported as stopping early, not as a failure. Files of different tables are grouped by
table id."""


def default_jobs() -> int:
    """`verify --jobs`'s default: the number of cores."""
    return os.cpu_count() or 1
