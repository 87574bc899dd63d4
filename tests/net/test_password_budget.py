"""The table's password budgets (SPEC.md 3.4), clock passed in: attempts refused unread cost
their own address only, the table's guesses are shared so a newcomer is tested before an
address that keeps failing, an address's strikes outlast its connections, and a throttled
joiner is told how long to wait and retries a bounded number of times."""

from __future__ import annotations

from p2pdice.core.auth import MAX_RETRY_AFTER, GuessThrottle, retry_after, retry_detail
from p2pdice.core.password_retry import MAX_RETRIES, MAX_WAIT, PasswordRetry


def test_attempts_refused_unread_never_spend_the_tables_guesses() -> None:
    throttle = GuessThrottle()
    for n in range(1000):  # garbage from a hundred addresses, ten each, in one second
        throttle.refused(f"10.0.0.{n % 100}", n / 1000)
    assert throttle.wait("10.9.9.9", 1.0) == 0  # an honest newcomer is tested at once
    assert throttle.source_wait("10.0.0.7", 1.0) > 0  # the garbage's own addresses wait


def test_a_newcomer_is_tested_before_an_address_that_keeps_failing() -> None:
    throttle = GuessThrottle()
    for n in range(10):  # ten addresses that did the work spend the table's ten guesses
        throttle.failed(f"10.0.0.{n}", 0.0)
    assert throttle.table_wait("10.9.9.9", 0.0) > 0
    # Six seconds later one guess has come back: it is the newcomer's, not a repeat failer's.
    assert throttle.table_wait("10.9.9.9", 6.0) == 0
    assert throttle.table_wait("10.0.0.3", 6.0) > 0
    # The bound holds whatever the addresses: at most 10 at once, then 10 a minute.
    tested, now = 10, 0.0
    for n in range(6000):
        now = n * 0.01
        source = f"10.1.{n % 200}.{n // 200}"
        if throttle.wait(source, now) == 0:
            throttle.failed(source, now)
            tested += 1
    assert tested <= 10 + 10 + 1, tested


def test_an_addresss_strikes_outlast_its_connections_and_fade_when_it_goes_quiet() -> None:
    throttle = GuessThrottle()
    for t in (0.0, 0.1, 0.2, 0.3, 0.4):
        throttle.refused("10.0.0.5", t)  # five connections, five strikes
    assert throttle.source_wait("10.0.0.5", 1.0) > 2  # 3 free, then 1 s, 2 s, now 4 s
    assert throttle.source_wait("10.0.0.5", 0.4 + 600.0) == 0  # ten quiet minutes forgive it


def test_a_throttled_refusal_says_how_long_to_wait() -> None:
    assert retry_after(retry_detail(12) + ": the table is busy checking passwords") == 12
    assert retry_after(retry_detail(10**6)) == MAX_RETRY_AFTER
    assert retry_after("too many wrong passwords; try again in 3 s") is None


def test_a_throttled_joiner_waits_as_told_and_gives_up_after_a_bounded_number_of_retries() -> None:
    retry = PasswordRetry()
    detail = "retry in 7 s: the table is busy checking passwords from your address"
    assert retry.throttled(detail) == 7
    # The host's own words say who is throttled: this address (wrong passwords came from it),
    # or the whole table; without words the notice says the table is busy.
    assert retry.notice == (
        "the table is busy checking passwords from your address; retrying in 7 s"
    )
    wordless = PasswordRetry()
    assert wordless.throttled("retry in 7 s: \x1b]52;c;bad\x07") == 7  # nothing printable
    assert wordless.notice == "the table is busy checking passwords; retrying in 7 s"
    assert retry.throttled("retry in 600 s: busy") == MAX_WAIT
    for _ in range(MAX_RETRIES - 2):
        assert retry.throttled("no number here") is not None
    assert retry.throttled("retry in 1 s: busy") is None  # enough: the join fails, said why
    retry.welcomed()
    assert retry.throttled("retry in 1 s: busy") == 1 and retry.retries == 1
