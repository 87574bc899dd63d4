"""Two programs at one table from one home folder (a second `p2pdice join` started while the
first still plays, say) both appended to its transcript and record, and the second drew
secrets over the first's: the player's log stopped verifying. The second is now refused, in
words, before it reads or writes anything; sessions of one program still share the records,
and the lock goes with the program, even when it is killed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from p2pdice.net.session import _Failed, _SeatFiles
from p2pdice.store import SeatLock

TABLE = bytes(range(32))

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from p2pdice.net.session import _SeatFiles
    files = _SeatFiles(Path(sys.argv[1]))
    files.open(bytes(range(32)))
    print("holding", flush=True)
    time.sleep(60)
    """
)


def _holder(home: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(home)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    return proc


def test_a_second_program_at_the_table_from_the_same_home_is_refused_in_words(
    tmp_path: Path,
) -> None:
    home = tmp_path / "ann"
    holder = _holder(home)
    try:
        opened = _SeatFiles(home).open(TABLE)
        assert isinstance(opened, _Failed), opened
        assert "another p2pdice on this machine is already at this table" in opened.error
        assert str(home) in opened.error
        assert not (home / "tables" / TABLE.hex() / "transcript.jsonl").exists()
        bob = _SeatFiles(tmp_path / "bob")  # another home: its own records
        assert not isinstance(bob.open(TABLE), _Failed)
        bob.close([])
    finally:
        holder.kill()
        holder.wait(10)
    # Killed, the holder left the table free at once.
    files = _SeatFiles(home)
    assert not isinstance(files.open(TABLE), _Failed)
    files.close([])


PROBE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from p2pdice.store import SeatBusy, SeatLock
    try:
        SeatLock(Path(sys.argv[1])).release()
    except SeatBusy:
        print("busy")
    else:
        print("free")
    """
)


def _probe(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder)], capture_output=True, text=True, timeout=30
    )
    return done.stdout.strip()


def test_sessions_of_one_program_share_the_records_and_free_them_when_the_last_closes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "tables" / TABLE.hex()
    first, second = SeatLock(folder), SeatLock(folder)  # one program: no refusal
    first.release()
    first.release()  # twice is once
    assert _probe(folder) == "busy"  # `second` still holds it for this program
    second.release()
    assert _probe(folder) == "free"
