"""The client's own check once it stops following a table, the same for every front end.

What the checks during play cannot see: `verify` of the whole transcript with this seat's
record of its sent messages (a message the host showed it received and never posted nor
refused: the `verify --mine` check), and forfeits a host could use to re-roll hands (of its
own CPU seats, whose silence it controls).

What is not the host's doing as far as anyone can tell is information, never an alarm: a
message of ours the host never showed it read did not reach the table (the network, someone
on the path or the host lost it: core/delivery.py), and a forfeit of our own seat is the
protocol's answer to a message that did not arrive. Alarms are for what the host alone
could have done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .delivery import Undelivered
from .peer import Alarm, Peer
from .verify import Failure, Report, verify_lines


@dataclass(frozen=True, slots=True)
class CheckAlarm:
    """One finding of the check."""

    kind: str  #: "verify": the log or our sent record failed; "forfeit": a re-roll the host chose
    detail: str
    round: int | None = None
    seat: int | None = None  #: the forfeited seat (kind "forfeit")
    mine: bool = False  #: "verify": our sent record was checked too (`verify --mine`)

    def describe(self) -> str:
        """One line for a person."""
        if self.kind == "verify":
            return f"verify{' --mine' if self.mine else ''}: {self.detail}"
        return self.detail


@dataclass(frozen=True, slots=True)
class CheckNote:
    """Something the player should know that accuses nobody."""

    #: "undelivered": a message of ours never reached the log; "forfeit": our seat's;
    #: "host_claim": a `verify` warning, something a seat lost on the host's word alone
    kind: str
    detail: str
    round: int | None = None
    #: "undelivered": (message type, counter), to tell it from what the client said in play
    message: tuple[str, int] | None = None

    def describe(self) -> str:
        """One line for a person."""
        return self.detail


@dataclass(frozen=True, slots=True)
class FinalCheck:
    """The check's result: `verified` when the transcript (and, for a seat, every message it
    sent) verifies; `alarms` what it found; `play_alarms` what was raised during play."""

    verified: bool
    alarms: tuple[CheckAlarm, ...]
    play_alarms: tuple[Alarm, ...]
    complete: bool  #: the log ended with its game-over entry (else checked as partial)
    notes: tuple[CheckNote, ...] = ()  #: information, accusing nobody

    @property
    def clean(self) -> bool:
        """Nothing to raise at all: the game was fair to us as far as we can tell."""
        return self.verified and not self.alarms and not self.play_alarms


def verify_record(
    lines: Sequence[bytes], sent: Sequence[Mapping[str, Any]], *, seated: bool, complete: bool
) -> Report:
    """The check's costly part, on values alone (it replays the whole log: up to a second, so
    an adapter runs it off its event loop): `verify` of the transcript `lines` and, when
    `seated`, of its `sent` record (sent-message and refusal records). `complete`: the game is
    over (a log that stops early is checked as partial)."""
    return verify_lines(
        lines, partial=not complete, mine=[dict(r) for r in sent] if seated else None
    )


def judge(peer: Peer, report: Report, *, seated: bool, complete: bool) -> FinalCheck:
    """The check's result from `verify_record`'s `report` and what the peer saw during play:
    forfeits a host could use to re-roll hands (of its own CPU seats); and, as notes, our
    messages that did not reach the table and the forfeits of our own seat."""
    alarms: list[CheckAlarm] = []
    notes = [_undelivered_note(u) for u in report.mine_undelivered] if seated else []
    # The host's claims a valid log holds (SPEC.md 9, "Warnings"): shown, never an alarm, for
    # a network can fail at that moment too, and a friend's dropped laptop accuses nobody.
    notes += [CheckNote("host_claim", f"entry {w.index}: {w.detail}") for w in report.warnings]
    if report.failure is not None:
        alarms.append(_verify_alarm(report.failure, seated))
    state = peer.state
    roster = state.roster if state is not None else ()
    for note in peer.replayer.notes:
        if note.kind != "forfeit" or note.seat is None or note.seat >= len(roster):
            continue
        seat = roster[note.seat]
        if seat.host_run:
            alarms.append(
                CheckAlarm(
                    "forfeit",
                    f"round {note.round}: the host forfeited its own CPU seat {seat.name} "
                    f"({note.detail}): the host sends that seat's messages itself, so it chose "
                    "to, which can change who loses the round",
                    round=note.round,
                    seat=note.seat,
                )
            )
        elif seated and note.seat == peer.seat:
            # The host's word that our message for that step never came. Had the host shown
            # it read one, `verify --mine` above says MESSAGE_DROPPED; otherwise nobody can
            # tell who lost it, and the forfeit is what the protocol does then (SPEC.md 8).
            # Unless our own records lost the secrets that step needed: then we know.
            why = (
                "this device had lost its secrets for that round, so it could not send it"
                if (note.round, note.attempt) in peer.lost
                else "the host says your message for that step never arrived"
            )
            notes.append(
                CheckNote(
                    "forfeit",
                    f"round {note.round}: your seat {seat.name} was forfeited ({note.detail}): "
                    + why,
                    round=note.round,
                )
            )
    return FinalCheck(
        verified=report.failure is None,
        alarms=tuple(alarms),
        play_alarms=tuple(peer.alarms),
        complete=complete,
        notes=tuple(notes),
    )


def check_client(
    peer: Peer,
    lines: Sequence[bytes],
    sent: Sequence[Mapping[str, Any]],
    *,
    seated: bool,
    complete: bool,
) -> FinalCheck:
    """The whole check at once (`verify_record`, then `judge`) of what a client verified and,
    when `seated`, sent."""
    report = verify_record(lines, sent, seated=seated, complete=complete)
    return judge(peer, report, seated=seated, complete=complete)


def _undelivered_note(undelivered: Undelivered) -> CheckNote:
    return CheckNote(
        "undelivered",
        undelivered.describe(),
        round=undelivered.round,
        message=(undelivered.kind, undelivered.counter),
    )


def _verify_alarm(failure: Failure, mine: bool) -> CheckAlarm:
    return CheckAlarm("verify", failure.describe(), mine=mine)
