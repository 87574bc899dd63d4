"""Reason codes and the error tree shared by the rules engine and the protocol.

Errors split the way h11's do: a *remote* error means the other side sent something wrong
(the reason code goes back to it on the wire); a *local* error means this program misused
the API. Rule violations are remote errors raised by the rules engine.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Stable reason codes. They appear on the wire, in transcripts and in test vectors."""

    # Table options
    BAD_OPTION = "BAD_OPTION"  #: a rules option is missing, unknown or out of range
    # Actions (RULES.md R2, R3)
    UNKNOWN_SEAT = "UNKNOWN_SEAT"  #: the seat is not a seat of this table
    WRONG_PHASE = "WRONG_PHASE"  #: the action is not allowed in the current phase
    NOT_YOUR_TURN = "NOT_YOUR_TURN"  #: only the seat whose turn it is may act
    EXACT_CALL_DISABLED = "EXACT_CALL_DISABLED"  #: the table does not allow exact calls
    NO_BID_TO_CHALLENGE = "NO_BID_TO_CHALLENGE"  #: a call needs a standing bid
    INVALID_FACE = "INVALID_FACE"  #: a face outside 1..6
    INVALID_QUANTITY = "INVALID_QUANTITY"  #: a quantity below 1
    QUANTITY_TOO_HIGH = "QUANTITY_TOO_HIGH"  #: more dice than are in play
    FACE_FIXED = "FACE_FIXED"  #: palifico: the face may not change
    FACE_NOT_ALLOWED = "FACE_NOT_ALLOWED"  #: this face may not be bid here
    BID_NOT_HIGHER = "BID_NOT_HIGHER"  #: the bid does not raise the standing bid
    UNDO_DISABLED = "UNDO_DISABLED"  #: the table does not allow undo
    NOTHING_TO_UNDO = "NOTHING_TO_UNDO"  #: no bid of this seat can be taken back now
    OUTCOME_UNDECIDED = "OUTCOME_UNDECIDED"  #: missing hands could change the outcome
    BAD_HAND = "BAD_HAND"  #: a hand of the wrong size or with a face outside 1..6
    # Canonical JSON (SPEC.md 2.3)
    JSON_BAD_UTF8 = "JSON_BAD_UTF8"  #: invalid UTF-8 or a lone surrogate
    JSON_SYNTAX = "JSON_SYNTAX"  #: not JSON
    JSON_FLOAT = "JSON_FLOAT"  #: a number with a fraction or exponent
    JSON_INT_RANGE = "JSON_INT_RANGE"  #: an integer beyond +-(2^53 - 1)
    JSON_DUPLICATE_KEY = "JSON_DUPLICATE_KEY"  #: a key repeated within one object
    JSON_KEY_NOT_ASCII = "JSON_KEY_NOT_ASCII"  #: a key with a character outside 0x20..0x7E
    JSON_TOO_DEEP = "JSON_TOO_DEEP"  #: nested deeper than 32 levels
    JSON_NOT_CANONICAL = "JSON_NOT_CANONICAL"  #: valid JSON that is not in canonical form
    # Messages and the transcript (SPEC.md 4, 6, 11)
    SCHEMA = "SCHEMA"  #: a message does not match its schema
    TOO_LARGE = "TOO_LARGE"  #: a frame above the size limit
    BAD_SIGNATURE = "BAD_SIGNATURE"  #: a signature does not verify
    WRONG_TABLE = "WRONG_TABLE"  #: the message names another table
    WRONG_KEY = "WRONG_KEY"  #: signed by a key that does not hold the seat
    WRONG_ROUND = "WRONG_ROUND"  #: names another round or attempt
    REPLAY = "REPLAY"  #: the counter is not above every earlier accepted counter
    UNKNOWN_HEAD = "UNKNOWN_HEAD"  #: the referenced head is not in the receiver's chain
    BAD_SEQ = "BAD_SEQ"  #: an entry out of sequence
    CHAIN_BROKEN = "CHAIN_BROKEN"  #: an entry's prev is not the previous entry's hash
    EQUIVOCATION = "EQUIVOCATION"  #: two host-signed entries with one sequence number
    OPENING_MISMATCH = "OPENING_MISMATCH"  #: an opening does not match its commitment
    DUPLICATE = "DUPLICATE"  #: a second commitment, contribution or opening from one seat
    DUPLICATE_COMMITMENT = "DUPLICATE_COMMITMENT"  #: one commitment value used twice
    COMMIT_SET_MISMATCH = "COMMIT_SET_MISMATCH"  #: wrong seats, or own commitment altered
    WRONG_COMMIT_SET = "WRONG_COMMIT_SET"  #: a contribution names another commitment set
    BEACON_MISMATCH = "BEACON_MISMATCH"  #: posted randomness does not match the contributions
    FRESH_RANDOMNESS = "FRESH_RANDOMNESS"  #: a new attempt after the commitment set was posted
    RESULT_MISMATCH = "RESULT_MISMATCH"  #: a posted result differs from the recomputed one
    BAD_EVENT = "BAD_EVENT"  #: a host event that the rules or the protocol do not allow
    MESSAGE_DROPPED = "MESSAGE_DROPPED"  #: the host never posted a message it received
    MISSING_GAME_OVER = "MISSING_GAME_OVER"  #: a transcript without its game-over entry
    #: a host-signed entry carries a player message whose head is not in our chain (its
    #: sender was shown another history), or follows an entry we do not hold (SPEC.md 7.1)
    FORK = "FORK"
    #: the host's log is shorter than the one we verified and saved (SPEC.md 1.2.4, 8)
    ROLLBACK = "ROLLBACK"
    # Joining and the connection (SPEC.md 3, 10)
    BAD_CHALLENGE = "BAD_CHALLENGE"  #: a join or auth that answers another challenge
    BAD_PASSWORD = "BAD_PASSWORD"  #: the password exchange failed, or no password was given
    PASSWORD_THROTTLED = "PASSWORD_THROTTLED"  #: too many failed password exchanges; wait
    BAD_WORK = "BAD_WORK"  #: a password attempt without its proof of work (SPEC.md 3.4)
    TABLE_FULL = "TABLE_FULL"  #: no free seat
    SEAT_TAKEN = "SEAT_TAKEN"  #: the seat offered is no longer free
    ALREADY_SEATED = "ALREADY_SEATED"  #: this key already holds a seat
    NOT_SEATED = "NOT_SEATED"  #: the connection holds no seat
    BAD_NAME = "BAD_NAME"  #: a name that is empty or too long after cleaning
    NAME_TAKEN = (
        "NAME_TAKEN"  #: another seat has this name (compared by confusable skeleton, SPEC.md 10.5)
    )
    NAME_RESERVED = "NAME_RESERVED"  #: a name in the CPU form, for a seat that is not a CPU
    RATE_LIMITED = "RATE_LIMITED"  #: too many messages
    #: the lobby spent its joins and leaves: a new table is needed (SPEC.md 3.2)
    LOBBY_CHURN = "LOBBY_CHURN"
    TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS"  #: the table refuses more connections
    HANDSHAKE_TIMEOUT = "HANDSHAKE_TIMEOUT"  #: the join handshake took too long
    UNKNOWN_TYPE = "UNKNOWN_TYPE"  #: a message or frame type that does not exist
    INTERNAL = "INTERNAL"  #: the receiver failed; nothing was changed


class P2PDiceError(Exception):
    """Base of every error this package raises on purpose."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else str(reason))
        self.reason = reason
        self.detail = detail


class RemoteError(P2PDiceError):
    """The other side sent something wrong; `reason` goes back to it."""


class LocalError(P2PDiceError):
    """This program misused the API."""


class UserError(Exception):
    """A one-line message for the person at the keyboard: a bad flag, a file that cannot be
    read, a table that is busy. Any layer may raise it; the command line prints it and exits
    with status 2, the terminal client shows it on the status line."""


class RuleError(RemoteError):
    """An action that the rules of the table do not allow."""


class OptionError(P2PDiceError, ValueError):
    """A rules option that is missing, unknown, out of range or in a refused combination."""

    def __init__(self, key: str, allowed: str, detail: str = "") -> None:
        super().__init__(Reason.BAD_OPTION, detail or f"{key} must be {allowed}")
        self.key = key
        self.allowed = allowed
