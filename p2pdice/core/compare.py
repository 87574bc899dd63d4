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
        """The table id (hex) its first entry names, None when that entry is unreadable."""
        if not self.lines:
            return None
        try:
            entry = decode(self.lines[0])
        except CodecError:
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("event"), dict):
            return None
        try:
            return table_id_of(entry["event"]).hex()
        except (KeyError, TypeError, ValueError, P2PDiceError):
            return None


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
    """How the transcripts of one table compare: the longest agreed history, who stops early,
    and the forks (each file that departs from the longest history, at the first entry)."""

    table_id: str | None
    names: tuple[str, ...]
    longest: str  #: the file every other is compared with
    entries: int  #: its length
    stops: tuple[tuple[str, int], ...]  #: (file, entries): a shorter file with the same prefix
    forks: tuple[Fork, ...]
    #: (file, seq): a file that departs with a line the host did not sign, which proves
    #: nothing against the host: that file's own verification fails at it.
    damaged: tuple[tuple[str, int], ...] = ()

    @property
    def agree(self) -> bool:
        return not self.forks

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
    """Compare transcripts of one table with the longest of them (and each that departs
    from it with the others that did, so two players each on a branch of their own are
    both reported against the longest one)."""
    ordered = sorted(transcripts, key=lambda t: len(t.lines), reverse=True)
    longest = ordered[0]
    stops: list[tuple[str, int]] = []
    forks: list[Fork] = []
    damaged: list[tuple[str, int]] = []
    for other in ordered[1:]:
        seq = _first_difference(longest.lines, other.lines)
        if seq is None:
            if len(other.lines) < len(longest.lines):
                stops.append((other.name, len(other.lines)))
            continue
        ours, theirs = longest.lines[seq], other.lines[seq]
        if not _signed_by_host(longest, theirs):
            damaged.append((other.name, seq))
        elif not _signed_by_host(longest, ours):
            damaged.append((longest.name, seq))
        else:
            forks.append(Fork(seq, longest.name, ours, other.name, theirs))
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
    or more (files of different tables are not compared with each other)."""
    groups: dict[str | None, list[Transcript]] = {}
    for transcript in transcripts:
        groups.setdefault(transcript.table_id, []).append(transcript)
    return [compare_table(group) for group in groups.values() if len(group) > 1]


def _signed_by_host(genesis_file: Transcript, line: bytes) -> bool:
    """Whether the table's host (the key its genesis names) signed `line` for this table:
    only two such lines of one seq prove a fork; any other difference is one file's damage."""
    table_id = genesis_file.table_id
    try:
        host_key = bytes.fromhex(decode(genesis_file.lines[0])["event"]["host"])
        return table_id is not None and host_signature_ok(
            parse_entry(line), host_key, bytes.fromhex(table_id)
        )
    except (CodecError, P2PDiceError, KeyError, TypeError, ValueError):
        return False


def _first_difference(longer: Sequence[bytes], shorter: Sequence[bytes]) -> int | None:
    for seq, line in enumerate(shorter):
        if line != longer[seq]:
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
