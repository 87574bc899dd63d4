"""A guest on the LAN who tries to sit down under a name that looks like a seated player's, or
like a CPU's, or that looks blank, is refused with the code SPEC.md 10.5 gives, while an
emoji-sequence name is seated; the table's log never holds two names that look alike.

Three namespaces on one bridge: a real `p2pdice host` (one host-run CPU, "CPU medium 1",
which sits down at the start), a real attacker process (tests/support/name_attacker.py) sending joins signed by hand, which an
honest client would clean or rename first, and real `p2pdice join --bot` players: "Hana"
before the attack, a family emoji after it. With the comparison key cut back to case folding
and the well-formedness check off (the rule before commit 5a2d8a6), 14 of these 15 names were
seated: all but the zero width space, a format character the name's schema refuses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest

from p2pdice.core.names import name_key
from p2pdice.core.verify import split_lines, verify_lines
from tests.support import netns
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_host, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"

#: (name, declares cpu, the code SPEC.md 10.5 gives with "Hana" seated; the host's CPU, "CPU
#: medium 1", sits down at the start, after the people)
ATTEMPTS = [
    ("H\u0430na", False, "NAME_TAKEN"),  # a Cyrillic a
    ("\u041d\u0430n\u0430", False, "NAME_TAKEN"),  # Cyrillic capital En and a
    ("\uff28\uff41\uff4e\uff41", False, "NAME_TAKEN"),  # fullwidth
    ("\U0001d407\U0001d41a\U0001d427\U0001d41a", False, "NAME_TAKEN"),  # mathematical bold
    ("\u0421PU medium 1", False, "NAME_RESERVED"),  # the host CPU's, with a Cyrillic Es
    ("\uff28\uff41\uff4e\uff41", True, "NAME_TAKEN"),  # Hana fullwidth, even declared a CPU
    ("\U0001d402\U0001d40f\U0001d414 medium 1", False, "NAME_RESERVED"),  # mathematical bold
    ("\u0421PU hard 2", False, "NAME_RESERVED"),  # the CPU form, nobody's name yet
    ("\uff23\uff30\uff35 easy 3", False, "NAME_RESERVED"),
    ("\u3164", False, "SCHEMA"),  # a Hangul filler: a blank name
    ("Ha\u2800na", False, "SCHEMA"),  # a braille blank inside
    ("Ha\u034fna", False, "SCHEMA"),  # an invisible grapheme joiner
    ("Ha\u200bna", False, "SCHEMA"),  # a zero width space
    ("Hana\ufe00", False, "SCHEMA"),  # a variation selector after a letter
    ("x" + "\u0301" * 20, False, "SCHEMA"),  # 20 stacked combining marks
]

#: The attacker's addresses: a seat it gets (none now) sends it to the next one.
SOURCES = [f"10.231.0.{100 + i}" for i in range(len(ATTEMPTS))]


def _joins(log: Path) -> int:
    return log.read_bytes().count(b'"type":"join"') if log.exists() else 0


def test_look_alike_blank_and_stacked_names_are_refused_and_an_emoji_name_is_seated(
    tmp_path: Path,
) -> None:
    with netns.lan() as names:
        host, ready = start_host(
            "--headless", "--seats", "3", "--cpu", "1", "--starting-dice", "1",
            "--no-advertise", "--bind", "10.231.0.1", "--home", str(tmp_path / "h"),
            netns=names[0],
        )  # fmt: skip
        address = f"10.231.0.1:{ready['port']}"
        for source in SOURCES:
            subprocess.run(
                ["ip", "-n", names[1], "addr", "add", f"{source}/24", "dev", "eth0"], check=True
            )
        log = host_log(tmp_path / "h")
        hana: subprocess.Popen[str] | None = None
        emoji: subprocess.Popen[str] | None = None
        try:
            hana = spawn(
                *bot_join(address, name="Hana", seed=1, home=tmp_path / "hana", give_up=30),
                netns=names[2], log=tmp_path / "hana.out",
            )  # fmt: skip
            deadline = time.monotonic() + 20
            while _joins(log) < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _joins(log) == 1, "Hana was not seated"
            tries = tmp_path / "names.json"
            tries.write_text(json.dumps([{"name": n, "cpu": c} for n, c, _ in ATTEMPTS]))
            attack = subprocess.run(
                ["ip", "netns", "exec", names[1], sys.executable, "-m",
                 "tests.support.name_attacker", f"wss://{address}{ready['path']}", str(tries),
                 *(a for s in SOURCES for a in ("--source", s))],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert attack.returncode == 0, attack.stdout + attack.stderr
            answers = json.loads(attack.stdout.splitlines()[-1])
            emoji = spawn(
                *bot_join(address, name=FAMILY, seed=2, home=tmp_path / "emoji", give_up=30),
                netns=names[2], log=tmp_path / "emoji.out",
            )  # fmt: skip
            for bot in (hana, emoji):
                bot.wait(timeout=60)
        finally:
            kill_all(hana, emoji, host)
    said = {p: (tmp_path / f"{p}.out").read_text() for p in ("hana", "emoji")}
    got = {n: a for (n, _, _), a in zip(ATTEMPTS, answers, strict=True)}
    assert got == {n: code for n, _, code in ATTEMPTS}, [ascii(a) for a in got.items()]
    assert [hana.returncode, emoji.returncode] == [0, 0], said

    lines, problem = split_lines(log.read_bytes())
    assert problem is None and verify_lines(lines).ok
    joined = [
        json.loads(line)["msg"]["body"]["name"]
        for line in lines
        if b'"type":"join"' in line and b'"msg"' in line
    ]
    assert sorted(joined) == sorted(["CPU medium 1", "Hana", FAMILY]), joined
    # No two names at the table look alike: the reveal's rows are told apart.
    assert all(name_key(a) != name_key(b) for a, b in combinations(joined, 2))
    for player in ("hana", "emoji"):
        assert f"game started: Hana, {FAMILY}, CPU medium 1\n" in said[player], said[player]
        (mine,) = transcript_files(tmp_path / player)
        assert mine.read_bytes() == log.read_bytes()
