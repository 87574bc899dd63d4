"""Comparing the transcripts of one table, and the verdict on a log that stops early.

One transcript can only show that its host kept its own rules. A host that shows two players
two histories (a fork) or takes entries back (a rollback) is caught by putting their files
side by side (SPEC.md 1.2.4, 9): transcripts of one table must agree entry by entry for as
long as both go on. A shorter one is a player who left or lost the host early, which is no
fault; two host-signed entries with one seq and different bytes are the proof of a fork,
which only the host's key could have made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import shape
from .codec import CodecError, decode
from .errors import P2PDiceError
from .fairness import comparison_code
from .table_state import ChainIndex, TablePhase, TableState, table_id_of
from .transcript import host_signature_ok, parse_entry


@dataclass(frozen=True, slots=True)
class Transcript:
    """One file's lines, as read (named for the person reading the report)."""

    name: str
    lines: Sequence[bytes]

    @property
    def table_id(self) -> str | None:
        """The table id (hex) of the genesis its first line holds (SPEC.md 9, "Comparing
        transcripts"): line 0 decodes strictly (2.3) to an object whose `event` is an object
        of type `genesis`, whose table id (3.1) this is, whether or not the entry verifies.
        None otherwise: such a file is compared with no other."""
        event = self._genesis_event()
        return None if event is None else table_id_of(event).hex()

    @property
    def host_key(self) -> bytes | None:
        """The host key the genesis of line 0 names (None when it names none)."""
        event = self._genesis_event()
        host = None if event is None else event.get("host")
        return bytes.fromhex(host) if isinstance(host, str) and shape.HEX32(host) else None

    def _genesis_event(self) -> dict[str, Any] | None:
        if not self.lines:
            return None
        try:
            entry = decode(self.lines[0])
        except CodecError:
            return None
        if not isinstance(entry, dict):
            return None
        event = entry.get("event")
        if not isinstance(event, dict) or event.get("type") != "genesis":
            return None
        return event


@dataclass(frozen=True, slots=True)
class Fork:
    """Two host-signed entries with one seq and different bytes: the proof of a fork."""

    seq: int
    first: str  #: the name of the file holding `first_line`
    first_line: bytes
    second: str
    second_line: bytes

    def describe(self) -> str:
        return (
            f"FORK at entry {self.seq}: {self.first} and {self.second} hold two different "
            f"host-signed entries {self.seq}; the host showed them two histories. The proof:\n"
            f"  {self.first}: {self.first_line.decode(errors='replace')}\n"
            f"  {self.second}: {self.second_line.decode(errors='replace')}"
        )


@dataclass(frozen=True, slots=True)
class TableComparison:
    """How the transcripts of one table compare (see `compare_table`): the longest file, who
    stops early (a prefix of it), the forks (each file that forks from a file before it, at
    the first seq) and the damaged files (a differing line that is no evidence)."""

    table_id: str | None
    names: tuple[str, ...]
    longest: str  #: the file every other is compared with
    entries: int  #: its length
    stops: tuple[tuple[str, int], ...]  #: (file, entries): a shorter file with the same prefix
    forks: tuple[Fork, ...]
    #: (file, seq): a file holding a line that differs from another file's line of that seq
    #: and is no evidence (the first such seq), which proves nothing against the host: that
    #: file's own verification fails at or before it.
    damaged: tuple[tuple[str, int], ...] = ()

    @property
    def agree(self) -> bool:
        return not self.forks

    def to_json(self) -> dict[str, Any]:
        """The comparison as `verify --json` prints it (`$defs/comparison` of
        protocol/schemas/v1/report.schema.json)."""
        return {
            "table": self.table_id,
            "files": list(self.names),
            "agree": self.agree,
            "entries": self.entries,
            "stops": [{"file": name, "entries": n} for name, n in self.stops],
            "damaged": [{"file": name, "seq": seq} for name, seq in self.damaged],
            "forks": [
                {
                    "seq": f.seq,
                    "files": [f.first, f.second],
                    "entries": [
                        f.first_line.decode(errors="replace"),
                        f.second_line.decode(errors="replace"),
                    ],
                }
                for f in self.forks
            ],
        }

    def lines(self) -> list[str]:
        ids = self.table_id[:16] + "..." if self.table_id else "(unreadable first entry)"
        out = [f"table {ids}: {len(self.names)} transcripts compared ({', '.join(self.names)})"]
        for fork in self.forks:
            out.append(fork.describe())
        for name, seq in self.damaged:
            out.append(
                f"{name} holds at entry {seq} a line the host did not sign: damage or "
                "tampering in that file, no proof against the host"
            )
        for name, entries in self.stops:
            out.append(
                f"{name} stops at entry {entries} (it holds {entries} of {self.longest}'s "
                f"{self.entries} entries, byte for byte the same): not a failure"
            )
        if self.agree:
            out.append(f"the same history up to where each stops ({self.entries} entries at most)")
        return out


def compare_table(transcripts: Sequence[Transcript]) -> TableComparison:
    """Compare transcripts of one table (SPEC.md 9, "Comparing transcripts").

    The files are ordered longest first, files of one length in the order given; the first is
    "the longest", which `entries` and `stops` are about. Each later file is compared with
    every file before it, in that order, and its fork is the one with the first of them it
    forks from: the first seq both hold where both lines are *evidence* (`_Evidence`) and
    differ. Lines that differ where one of them is not evidence are damage, not a fork, and
    the comparison goes on past them, so a damaged file hides no fork between the others.
    Every fork among the files is found this way: of two files that fork, the later one is
    compared with the earlier."""
    ordered = sorted(transcripts, key=lambda t: len(t.lines), reverse=True)  # stable
    longest = ordered[0]
    evidence = _Evidence(longest)
    stops = [
        (other.name, len(other.lines))
        for other in ordered[1:]
        if len(other.lines) < len(longest.lines)
        and list(other.lines) == list(longest.lines[: len(other.lines)])
    ]
    forks: list[Fork] = []
    for i, later in enumerate(ordered[1:], 1):
        for earlier in ordered[:i]:
            seq = _fork_seq(earlier, later, evidence)
            if seq is not None:
                forks.append(
                    Fork(seq, earlier.name, earlier.lines[seq], later.name, later.lines[seq])
                )
                break
    damaged: list[tuple[str, int]] = []
    for file in ordered:
        first = next(
            (
                seq
                for seq, line in enumerate(file.lines)
                if any(
                    other is not file and seq < len(other.lines) and other.lines[seq] != line
                    for other in ordered
                )
                and not evidence(file, seq)
            ),
            None,
        )
        if first is not None:
            damaged.append((file.name, first))
    return TableComparison(
        table_id=longest.table_id,
        names=tuple(t.name for t in transcripts),
        longest=longest.name,
        entries=len(longest.lines),
        stops=tuple(stops),
        forks=tuple(forks),
        damaged=tuple(damaged),
    )


def compare_transcripts(transcripts: Sequence[Transcript]) -> list[TableComparison]:
    """Group the files by the table id their genesis names and compare each group of two
    or more, in the order each table's first file is given (files of different tables are
    not compared with each other, nor is a file whose first line holds no genesis)."""
    groups: dict[str, list[Transcript]] = {}
    for transcript in transcripts:
        table_id = transcript.table_id
        if table_id is not None:
            groups.setdefault(table_id, []).append(transcript)
    return [compare_table(group) for group in groups.values() if len(group) > 1]


class _Evidence:
    """Whether line `seq` of a file proves what the host signed at `seq`: it is canonical
    JSON (2.3) of an entry of valid shape (9, step 1) whose `seq` is `seq` and whose host
    signature (6.1) verifies under the host key of the table's genesis. Only two such lines
    of one seq that differ prove a fork; a line that is not evidence (re-encoded, edited,
    moved to another line, cut) is damage in its file, whatever else it holds."""

    def __init__(self, genesis_file: Transcript) -> None:
        table_id = genesis_file.table_id
        self._table = None if table_id is None else bytes.fromhex(table_id)
        self._host = genesis_file.host_key
        self._known: dict[tuple[int, int], bool] = {}

    def __call__(self, file: Transcript, seq: int) -> bool:
        key = (id(file), seq)
        if key not in self._known:
            self._known[key] = self._check(file.lines[seq], seq)
        return self._known[key]

    def _check(self, line: bytes, seq: int) -> bool:
        if self._table is None or self._host is None:
            return False
        try:
            entry = parse_entry(line)
            return entry.seq == seq and host_signature_ok(entry, self._host, self._table)
        except (CodecError, P2PDiceError, KeyError, TypeError, ValueError):
            return False


def _fork_seq(first: Transcript, second: Transcript, evidence: _Evidence) -> int | None:
    """The first seq both files hold where both lines are evidence and differ."""
    for seq in range(min(len(first.lines), len(second.lines))):
        if first.lines[seq] != second.lines[seq] and evidence(first, seq) and evidence(second, seq):
            return seq
    return None


@dataclass(frozen=True, slots=True)
class StoppedAt:
    """Where a log that stops before its game-over entry stops: the round it was in (0 in
    the lobby) and the index of its last entry."""

    round: int
    entry: int

    def describe(self) -> str:
        where = f"round {self.round}" if self.round else "the lobby"
        return f"verified up to {where}, entry {self.entry}"


def stopped_at(lines: Sequence[bytes]) -> StoppedAt:
    """The round of the last `round` event and the last entry's index (lines already
    verified: this reads, it does not check)."""
    for line in reversed(lines):
        try:
            entry = parse_entry(line)
        except P2PDiceError:
            continue
        event = entry.event
        if event is not None and event.get("type") == "round":
            return StoppedAt(int(event["round"]), len(lines) - 1)
    return StoppedAt(0, len(lines) - 1)


def history_code(state: TableState, chain: ChainIndex) -> tuple[int, str] | None:
    """The entry players compare their histories at, and its comparison code (SPEC.md 3.5,
    "the code of head H"): the game-over entry once the game is over, else the latest result
    (or forfeit), which every seat holds by the time it reads the reveal. None before the
    first result. Two players who read the same code at the same entry hold the same log up
    to it, entry for entry: a host that forked it cannot make the codes agree."""
    if state.phase == TablePhase.OVER and len(chain):
        seq = len(chain) - 1
    elif state.result_seq is not None:
        seq = state.result_seq
    else:
        return None
    return seq, comparison_code(chain.hashes[seq])
