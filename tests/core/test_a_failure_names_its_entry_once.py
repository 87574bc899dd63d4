"""A verification failure names the entry it failed at once: the checks that find it often
say the entry themselves ("entry 10: the host signature does not verify")."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.verify import Failure


def test_the_entry_a_check_named_is_not_named_again() -> None:
    failure = Failure(10, Reason.BAD_SIGNATURE, "entry 10: the host signature does not verify")
    assert failure.describe() == (
        "entry 10 (line 11): BAD_SIGNATURE: the host signature does not verify"
    )


def test_another_entry_named_in_the_detail_stays() -> None:
    # "entry 10 where 9 was due" is a sentence about two entries, not a repeated label.
    failure = Failure(9, Reason.BAD_SEQ, "entry 10 where 9 was due")
    assert failure.describe() == "entry 9 (line 10): BAD_SEQ: entry 10 where 9 was due"
    whole = Failure(None, Reason.SCHEMA, "no entries")
    assert whole.describe() == "the transcript: SCHEMA: no entries"
