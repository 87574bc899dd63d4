"""Ctrl-C while `p2pdice` is still loading (the command line's modules, the parser's, a
sub-command's) ends it as Ctrl-C does later: exit status 130 and no traceback. The interrupt
is raised exactly at the import named, in a child process, so no timing decides where it
lands."""

from __future__ import annotations

import subprocess
import sys

import pytest

INTERRUPT_AT = """
import sys

class InterruptAt:
    def find_spec(self, name, path=None, target=None):
        if name == sys.argv[1]:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, InterruptAt())
from p2pdice.__main__ import main
raise SystemExit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    "module",
    [
        "p2pdice.cli",  # the command line itself, imported by the console script
        "p2pdice.cli.options",  # one of its modules
        "p2pdice.cli.verify_exits",  # imported while the parser is built
        "p2pdice.cli.verify",  # the sub-command's machinery
        "p2pdice.cli.parallel_verify",  # imported by the sub-command's machinery
    ],
)
def test_ctrl_c_at_an_import_ends_with_130_and_no_traceback(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT, module, "verify", "no-such-file.jsonl"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 130, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr


def test_the_same_command_without_an_interrupt_runs_to_its_own_answer() -> None:
    """The interrupting finder itself changes nothing when it names no module loaded."""
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT, "no.such.module", "verify", "no-such-file.jsonl"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode not in (0, 130), done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "no-such-file.jsonl" in done.stdout + done.stderr
