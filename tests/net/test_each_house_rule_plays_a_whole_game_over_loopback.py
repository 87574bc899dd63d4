"""Each house rule (issue 27) plays a whole game between real processes on loopback.

A headless host with one CPU seat, set to the house option, and two players joining by
address, each played by the medium bot: the game ends for both, each player's transcript is
the host's log, it verifies, and the rules it carries hold the option.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.verify import split_lines, verify_lines
from tests.support.procs import (
    bot_join,
    host_log,
    kill_all,
    spawn,
    start_host,
    stop,
    transcript_files,
)

pytestmark = pytest.mark.usefixtures("private_network")

#: (option key, value, further flags the option needs to matter). Two dice each keep it short;
#: palifico needs three seats for a one-die round to happen.
HOUSE_RULES = [
    ("palifico_kind", "ones-not-wild", ("--palifico", "fixed")),
    ("palifico_kind", "face-fixed", ("--palifico", "free")),
    ("exact_reward", "others-lose", ("--exact-call",)),
    ("challenge_penalty", "difference", ()),
]


@pytest.mark.parametrize(
    ("key", "value", "needs"), HOUSE_RULES, ids=[f"{k}={v}" for k, v, _ in HOUSE_RULES]
)
def test_a_house_rule_game_over_loopback_ends_and_every_transcript_verifies(
    tmp_path: Path, key: str, value: str, needs: tuple[str, ...]
) -> None:
    flag = "--" + key.replace("_", "-")
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1", "--starting-dice", "2",
        flag, value, *needs,
        "--no-advertise", "--bind", "127.0.0.1", "--home", str(tmp_path / "h"),
    )  # fmt: skip
    players = []
    try:
        address = f"127.0.0.1:{ready['port']}"
        players = [
            spawn(
                *bot_join(address, name=who, seed=i, home=tmp_path / who),
                log=tmp_path / f"{who}.out",
            )
            for i, who in enumerate(("ann", "bo"), start=1)
        ]
        for proc, who in zip(players, ("ann", "bo"), strict=True):
            assert proc.wait(timeout=120) == 0, (tmp_path / f"{who}.out").read_text()
    finally:
        kill_all(*players)
        stop(host)
    hosted = host_log(tmp_path / "h").read_bytes()
    for who in ("ann", "bo"):
        assert "ranking: 1." in (tmp_path / f"{who}.out").read_text()
        [mine] = transcript_files(tmp_path / who)
        assert mine.read_bytes() == hosted
        lines, problem = split_lines(mine.read_bytes())
        assert problem is None
        report = verify_lines(lines)
        assert report.ok, report.failure and report.failure.describe()
        assert report.ended == "finished"
        assert report.rules[key] == value
        assert report.rules["starting_dice"] == 2 and len(report.roster) == 3
