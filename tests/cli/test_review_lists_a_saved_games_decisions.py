"""`p2pdice review FILE`: a saved game that verifies is reviewed decision by decision for
the seat asked for (by seat, name, key, or the start of a key as `stats` shows it), in 80
columns or as JSON; a file that does not verify is refused with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.cli.options import CliError
from p2pdice.cli.review import pick_seat
from p2pdice.core.events import SeatInfo
from p2pdice.core.table import Replayer
from p2pdice.core.transcript import parse_entry
from tests.support.played import honest_game


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in honest_game().host.lines()))
    return path


def moves_of(path: Path, seat: int) -> int:
    """Bids and calls the seat made, counted from the verified log's finished rounds."""
    replayer = Replayer()
    for line in path.read_bytes().splitlines():
        replayer.feed(parse_entry(line))
    assert replayer.state is not None and replayer.state.game is not None
    return sum(
        sum(1 for b in r.bids if b.seat == seat) + (r.caller == seat)
        for r in replayer.state.game.results
        if r.bids and r.hands[seat] is not None
    )


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_every_decision_of_the_seat_is_listed_with_its_chance(
    saved: Path, seat: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(saved), "--seat", str(seat)]) == 0
    text = capsys.readouterr().out
    assert all(len(line) <= 80 for line in text.splitlines())
    assert main(["review", str(saved), "--seat", str(seat), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    decisions = [d for r in report["rounds"] for d in r["decisions"]]
    assert len(decisions) == moves_of(saved, seat) == report["summary"]["decisions"]
    assert all(0.0 <= d["chance"] <= 1.0 for d in decisions)
    assert all(d["hard"]["kind"] in ("raise", "call", "exact") for d in decisions)
    # Each decision is one move line of the text, with its chance.
    moves = [line for line in text.splitlines() if line.startswith("  ") and ": you " in line]
    assert len(moves) == len(decisions)
    for line, d in zip(moves, decisions, strict=True):
        assert f"{d['chance']:.0%}" in line


def test_a_player_is_found_by_key_and_by_name(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(saved), "--seat", "1", "--json"]) == 0
    by_seat = json.loads(capsys.readouterr().out)
    assert main(["review", str(saved), "--key", by_seat["key"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_seat
    assert main(["review", str(saved), "--name", by_seat["name"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_seat


def test_a_file_that_does_not_verify_is_refused_with_its_reason(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = saved.read_bytes().splitlines()
    middle = len(lines) // 2
    lines[middle] = lines[middle].replace(b'"seq":', b'"seq" :', 1)  # not canonical any more
    saved.write_bytes(b"".join(line + b"\n" for line in lines))
    assert main(["review", str(saved), "--seat", "0"]) == 1
    out = capsys.readouterr().out
    assert "does not verify" in out and f"entry {middle}" in out
    assert "round" not in out.split("does not verify")[0]


def test_an_unknown_seat_is_a_usage_error(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(saved), "--seat", "9"]) == 2
    assert "no seat 9" in capsys.readouterr().err


def test_the_review_in_the_playing_guide_is_what_the_command_prints(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "playing.md").read_text()
    assert main(["review", str(saved), "--seat", "1"]) == 0
    printed = capsys.readouterr().out.splitlines()
    block = "\n".join(["$ p2pdice review game.jsonl --seat 1", *printed])
    assert block in guide, "re-capture the review in docs/playing.md"


def test_a_player_is_found_by_the_start_of_its_key_as_stats_shows_it(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(saved), "--seat", "1", "--json"]) == 0
    by_seat = json.loads(capsys.readouterr().out)
    key = by_seat["key"]
    for start in (key[:8], key[:12].upper()):
        assert main(["review", str(saved), "--key", start, "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == by_seat
    assert main(["review", str(saved), "--key", key[:7]]) == 2
    assert "--key: " in (err := capsys.readouterr().err) and "at least 8 hex digits" in err


def test_a_key_start_that_several_seats_share_is_refused_naming_them() -> None:
    def seat(number: int, key: str) -> SeatInfo:
        return SeatInfo(
            seat=number, key=bytes.fromhex(key), name=f"P{number}", cpu=False, host_run=False
        )

    roster = (
        seat(0, "12345678" + "00" * 28),
        seat(1, "12345678" + "11" * 28),
        seat(2, "87654321" + "00" * 28),
    )
    with pytest.raises(CliError, match="more than one seat") as refused:
        pick_seat(roster, seat=None, key="12345678", name=None)
    assert "0 P0" in str(refused.value) and "1 P1" in str(refused.value)
    assert "P2" not in str(refused.value)
    assert pick_seat(roster, seat=None, key="1234567811", name=None) == 1
    assert pick_seat(roster, seat=None, key="87654321", name=None) == 2


@pytest.mark.parametrize("seat", [0, 1])
def test_a_round_forfeited_before_its_showdown_is_listed_as_never_opened(
    seat: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forfeit records no hand for anyone: there is no hand to judge the moves from."""
    game = Path(__file__).resolve().parents[2] / "protocol" / "examples" / "no-survivor.jsonl"
    assert main(["review", str(game), "--seat", str(seat)]) == 0
    assert "your hand was never opened: not reviewed" in capsys.readouterr().out
    assert main(["review", str(game), "--seat", str(seat), "--json"]) == 0
    (only,) = json.loads(capsys.readouterr().out)["rounds"]
    assert only["hand"] is None and only["outcome"] == "forfeit" and only["decisions"] == []
