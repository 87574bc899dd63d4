"""vectors/v1/transition_cases.json: our verifier gives every case its verdict, at its line,
with its reason code (the cases SPEC.md 7 settles for a second implementation)."""

from __future__ import annotations

from typing import Any

import pytest

from p2pdice.core.verify import verify_lines
from tests.support.vectors import case_ids, cases, load_vectors

NAME = "transition_cases.json"


def _lines(test: dict[str, Any]) -> list[bytes]:
    transcript = load_vectors(NAME)["transcripts"][test["prefix"]]
    return [line.encode() for line in [*transcript[: test["length"]], *test["lines"]]]


@pytest.mark.parametrize(("group", "test"), list(cases(NAME)), ids=case_ids(NAME))
def test_verify_gives_each_transition_case_its_verdict(
    group: dict[str, Any], test: dict[str, Any]
) -> None:
    report = verify_lines(_lines(test), partial=True)
    if test["result"] == "valid":
        assert report.ok, (test["comment"], report.failure)
        return
    assert report.failure is not None, test["comment"]
    assert (report.failure.index, str(report.failure.reason)) == (test["index"], test["reason"]), (
        test["comment"],
        report.failure.detail,
    )


def test_the_fragments_verify_up_to_where_the_cases_cut_them() -> None:
    """Every failure is the appended entry's own: the shared fragments verify as partial logs."""
    for name, transcript in load_vectors(NAME)["transcripts"].items():
        report = verify_lines([line.encode() for line in transcript], partial=True)
        assert report.ok, (name, report.failure)
