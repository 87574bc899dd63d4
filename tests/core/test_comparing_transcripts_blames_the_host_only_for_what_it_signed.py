"""SPEC.md 9, "Comparing transcripts": a fork is two lines of one seq, each *evidence* (canonical
JSON of an entry whose `seq` is its line's index, signed by the table's host), that differ.
Anything else that differs is damage in a file, never a fork, so an edit of one player's copy
(a line deleted, repeated or re-encoded) cannot make `verify` blame the host; and a damaged
file hides no fork between the others."""

from __future__ import annotations

import json

from p2pdice.core.compare import Transcript, compare_table, compare_transcripts
from tests.support.cheats import game_and_a_fork


def test_a_deleted_or_repeated_line_is_damage_not_a_fork() -> None:
    lines, _ = game_and_a_fork()
    k = len(lines) // 2
    honest = Transcript("a", lines)
    for edited in ([*lines[:k], *lines[k + 1 :]], [*lines[:k], lines[k], *lines[k:-1]]):
        # Each line after the edit is host-signed, but for another seq than its line's.
        comparison = compare_table([honest, Transcript("b", edited)])
        assert comparison.forks == () and comparison.agree
        first = k if len(edited) < len(lines) else k + 1
        assert comparison.damaged == (("b", first),)
    assert compare_table([Transcript("b", lines[:k] + lines[k + 1 :]), honest]).forks == ()


def test_a_line_re_encoded_non_canonically_is_damage_though_its_signature_holds() -> None:
    lines, _ = game_and_a_fork()
    k = len(lines) // 2
    spaced = json.dumps(json.loads(lines[k]), sort_keys=True).encode()  # ", " and ": "
    assert spaced != lines[k]
    comparison = compare_table(
        [Transcript("a", lines), Transcript("b", [*lines[:k], spaced, *lines[k + 1 :]])]
    )
    assert comparison.forks == () and comparison.damaged == (("b", k),)


def test_a_damaged_longest_file_hides_no_fork_between_the_others() -> None:
    lines, other = game_and_a_fork()
    s = json.loads(other)["seq"]
    damaged = bytearray(lines[s])
    damaged[damaged.index(b'"sig":"') + 10] ^= 1  # still canonical, no longer signed
    # The longest copy is damaged at the very entry where the other two fork.
    longest = Transcript("long", [*lines[:s], bytes(damaged), *lines[s + 1 :]])
    honest = Transcript("honest", lines[: s + 2])
    forked = Transcript("forked", [*lines[:s], other])
    comparison = compare_table([longest, honest, forked])
    assert comparison.longest == "long" and comparison.entries == len(lines)
    (fork,) = comparison.forks
    assert (fork.seq, fork.first, fork.second) == (s, "honest", "forked")
    assert (fork.first_line, fork.second_line) == (lines[s], other)
    assert comparison.damaged == (("long", s),)
    # Damaged before the fork: compared past the damage, the fork is found with the longest.
    longest = Transcript("long", [*lines[:1], lines[1].replace(b",", b", ", 1), *lines[2:]])
    (fork,) = compare_table([longest, forked]).forks
    assert (fork.seq, fork.first, fork.second) == (s, "long", "forked")


def test_files_of_one_length_are_taken_in_the_order_given() -> None:
    lines, other = game_and_a_fork()
    s = json.loads(other)["seq"]
    a = Transcript("a", lines[: s + 1])
    b = Transcript("b", [*lines[:s], other])
    ab, ba = compare_table([a, b]), compare_table([b, a])
    assert (ab.longest, ba.longest) == ("a", "b")
    assert [(f.first, f.second) for f in ab.forks] == [("a", "b")]
    assert [(f.first, f.second) for f in ba.forks] == [("b", "a")]


def test_each_file_on_a_branch_of_its_own_is_reported_once() -> None:
    lines, other = game_and_a_fork()
    s = json.loads(other)["seq"]
    comparison = compare_table(
        [
            Transcript("a", lines),
            Transcript("b", lines),
            Transcript("c", lines[: s + 1]),
            Transcript("x", [*lines[:s], other]),
        ]
    )
    assert [(f.first, f.second, f.seq) for f in comparison.forks] == [("a", "x", s)]
    assert comparison.stops == (("c", s + 1),)


def test_files_whose_first_line_holds_no_genesis_are_compared_with_no_other() -> None:
    lines, _ = game_and_a_fork()
    unreadable = [Transcript("x", [b"not json"]), Transcript("y", [b'{"seq":0}'])]
    no_genesis = [Transcript("p", lines[1:]), Transcript("q", lines[1:3])]
    assert compare_transcripts([*unreadable, *no_genesis]) == []
    (table,) = compare_transcripts([Transcript("a", lines), *unreadable, Transcript("b", lines)])
    assert table.names == ("a", "b") and table.agree
