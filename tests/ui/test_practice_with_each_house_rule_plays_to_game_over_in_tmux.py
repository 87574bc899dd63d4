"""`p2pdice practice` with each house rule (issue 27) set on the command line, in a real
terminal: the help screen's table line names the option as `Rules.summary` words it, the
game is played through to its game-over screen, and the saved transcript verifies with the
option in its rules."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.verify import split_lines, verify_lines
from tests.support import tmux

pytestmark = pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")

#: (option key, value, further options it needs to matter, the words the summary uses for it)
HOUSE_RULES = [
    ("palifico_kind", "ones-not-wild", {"palifico": "fixed"}, "palifico fixed (ones-not-wild)"),
    ("palifico_kind", "face-fixed", {"palifico": "free"}, "palifico free (face-fixed)"),
    ("exact_reward", "others-lose", {"exact_call": True}, "exact: others-lose"),
    ("challenge_penalty", "difference", {}, "lose the difference"),
]


def _flags(options: dict[str, object]) -> list[str]:
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        out += [flag] if value is True else [flag, str(value)]
    return out


@pytest.mark.parametrize(
    ("key", "value", "needs", "words"), HOUSE_RULES, ids=[f"{k}={v}" for k, v, _, _ in HOUSE_RULES]
)
def test_practice_with_a_house_rule_names_it_and_plays_to_game_over(
    tmp_path: Path, key: str, value: str, needs: dict[str, object], words: str
) -> None:
    options = {**needs, key: value}
    # The words checked are the summary's own, so the summary must still use them.
    summary = Rules(starting_dice=2, kind="practice", **options).summary()  # type: ignore[arg-type]
    assert words in summary
    command = [sys.executable, "-m", "p2pdice", "practice", "--home", str(tmp_path / "home"),
               "--cpu", "2", "--starting-dice", "2", "--cpu-think", "0", "--first-starter",
               "seat0", *_flags(options)]  # fmt: skip
    t = tmux.Tmux()
    t.start(command, stderr=tmp_path / "stderr.txt")
    try:
        t.wait_for(lambda s: "? help" in s, 40, "the table")
        t.keys("?")
        help_screen = t.wait_for(lambda s: "This table:" in s, 10, "the help screen")
        t.keys("?")
        t.wait_for(lambda s: "This table:" not in s, 10, "the table again")
        over = ""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            screen = tmux.play_step(t)
            if "Verified transcript" in screen:
                over = screen
                break
            time.sleep(0.3)
        assert over, f"no game over; last screen:\n{t.screen()}"
    finally:
        t.kill()
    unwrapped = " ".join(line.strip() for line in help_screen.splitlines())
    assert words in unwrapped, help_screen
    assert "Game over" in over and "ALARM" not in over, over
    saved = sorted((tmp_path / "home").rglob("transcript.jsonl"))
    assert saved
    for path in saved:  # one per seat held on this machine
        lines, problem = split_lines(path.read_bytes())
        assert problem is None
        report = verify_lines(lines)
        assert report.ok, report.failure and report.failure.describe()
        assert report.ended == "finished" and report.practice
        assert report.rules[key] == value
