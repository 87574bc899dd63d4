"""A joiner told to wait by a busy password table (PASSWORD_THROTTLED, protocol/SPEC.md 3.4),
or by a lobby its address joined too often (RATE_LIMITED "retry in N s", SPEC.md 10.1),
waits as long as the refusal says, then tries again, a bounded number of times. Sans-I/O:
this keeps the count and says how long; the adapter does the waiting (it reconnects after
`ClientConnection.reconnect_delay`)."""

from __future__ import annotations

from .auth import retry_after
from .clean import clean_text

#: Throttled refusals in a row a joiner waits out before it gives up (each wait is at most
#: MAX_WAIT): with the host's defaults an honest joiner behind an attacker that does the work
#: is tested within a few retries.
MAX_RETRIES = 8
#: The longest a joiner waits on one refusal, whatever the host asks.
MAX_WAIT = 120
#: The wait when a refusal does not say (a host that does not follow SPEC.md 3.4's form).
DEFAULT_WAIT = 10
#: Characters of the host's words a notice shows (its detail is plain text, cleaned).
NOTICE_WORDS = 120


class PasswordRetry:
    """How long to wait after a throttled join, and when to stop waiting."""

    def __init__(self, *, max_retries: int = MAX_RETRIES) -> None:
        self.max_retries = max_retries
        self.retries = 0  #: throttled refusals waited out since the last welcome
        self.notice: str | None = None  #: what to tell the player while waiting

    def throttled(self, detail: str, *, busy: str = "checking passwords") -> int | None:
        """Seconds to wait before joining again, or None: retried enough, give up. The notice
        gives the host's own words after "retry in N s: " (whether it is this address or the
        whole table that is throttled, say), else says the table is busy with `busy`."""
        if self.retries >= self.max_retries:
            self.notice = None
            return None
        self.retries += 1
        asked = retry_after(detail)
        wait = min(MAX_WAIT, DEFAULT_WAIT if asked is None else asked)
        words = clean_text(detail.partition(": ")[2], NOTICE_WORDS) if asked is not None else ""
        self.notice = f"{words or f'the table is busy {busy}'}; retrying in {wait} s"
        return wait

    def welcomed(self) -> None:
        self.retries = 0
        self.notice = None
