"""A Rules object stands in the bots' cache keys as a small int (core/cache_tokens.py), so that
the keys leave the garbage collector's view; the token must name the rules exactly."""

from __future__ import annotations

import gc
import threading

from p2pdice.core.cache_tokens import rules_of_token, rules_token
from p2pdice.core.rules import Ones, Rules, preset


def test_equal_rules_share_a_token_and_the_token_names_them() -> None:
    first = preset("perudo", seats=3)
    again = preset("perudo", seats=3)
    assert first is not again
    assert rules_token(first) == rules_token(again)
    assert rules_of_token(rules_token(first)) == first


def test_rules_that_differ_in_any_option_have_different_tokens() -> None:
    variants = [
        Rules(),
        Rules(seats=5),
        Rules(ones=Ones.NATURAL),
        Rules(exact_call=True),
        preset("perudo"),
        preset("perudo", starting_dice=3),
    ]
    tokens = [rules_token(rules) for rules in variants]
    assert len(set(tokens)) == len(variants)
    assert [rules_of_token(token) for token in tokens] == variants


def test_a_key_of_a_token_and_numbers_leaves_the_collectors_view() -> None:
    rules = preset("classic", seats=6)
    with_rules = (rules, 3, 0.5)
    with_token = (rules_token(rules), 3, 0.5)
    gc.collect()
    assert gc.is_tracked(with_rules)
    assert not gc.is_tracked(with_token)


def test_threads_meeting_new_rules_at_once_agree_on_each_token() -> None:
    variants = [Rules(seats=seats, starting_dice=dice) for seats in (2, 3) for dice in (1, 2)]
    seen: list[list[int]] = []
    start = threading.Barrier(8)

    def meet() -> None:
        start.wait()
        seen.append([rules_token(rules) for rules in variants])

    threads = [threading.Thread(target=meet) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(seen) == 8 and all(tokens == seen[0] for tokens in seen)
    assert [rules_of_token(token) for token in seen[0]] == variants
