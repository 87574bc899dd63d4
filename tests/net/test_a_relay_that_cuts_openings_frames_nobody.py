"""A guest who relays a table's TCP and cuts the players' openings denies them a round, and
frames nobody: no report of a player, nor of `verify`, says the host dropped their message.

Three namespaces on one bridge: the real host (one CPU seat it runs), a plain TCP relay
(tests/support/tcp_relay.py, a real process holding no key) and two bot players told to join
the relay's address. The TLS pin passes (the real host does the handshake through the
relay). Whenever the table waits for openings the relay cuts each player's connection at its
first byte (`cut`), or swallows what the players send while the host's frames still reach
them and cuts once the host has acted (`stall`). Nothing can stop that: it is denial of
service. The players' openings never arrive, the host forfeits them after the grace period,
and the game ends. What must hold is what each player is told: its opening did not reach the
table, with the connection drops counted; never that the host dropped it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns, tcp_relay
from tests.support.procs import kill_all, spawn, start_host, stop, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

PORT = 47331
PLAYERS = ("Ana", "Ben")
#: Words that accuse the host of losing a player's message (the alarm's code and its text).
ACCUSING = ("MESSAGE_DROPPED", "never posted", "never appears in the log")


def _relay(names: list[str], tmp: Path, log: Path, mode: str) -> subprocess.Popen[str]:
    return tcp_relay.start(
        names[1], f"10.231.0.1:{PORT}", PORT, log, tmp / "relay.json", "--mode", mode
    )


def _verify_mine(home: Path) -> tuple[int, str]:
    (transcript,) = transcript_files(home)
    sent = transcript.parent / "sent.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "p2pdice", "verify", str(transcript), "--mine", str(sent)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("mode", ["cut", "stall"])
def test_a_relay_that_cuts_the_openings_denies_the_round_and_frames_nobody(
    tmp_path: Path, mode: str
) -> None:
    with netns.lan() as names:
        host, ready = start_host(
            "--headless", "--seats", "4", "--cpu", "2", "--cpu-think", "0.3", "--starting-dice", "2",
            "--grace-period", "5", "--bind", "10.231.0.1", "--port", str(PORT),
            "--no-advertise", "--name", "relayed", "--home", str(tmp_path / "h"),
            netns=names[0],
        )  # fmt: skip
        log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
        relay = _relay(names, tmp_path, log, mode)
        players: list[subprocess.Popen[str]] = []
        began = time.monotonic()
        try:
            for seed, name in enumerate(PLAYERS, 1):
                players.append(
                    spawn(
                        "join", f"10.231.0.2:{PORT}", "--bot", "medium", "--name", name,
                        "--seed", str(seed), "--give-up", "60",
                        "--home", str(tmp_path / name), netns=names[2],
                        log=tmp_path / f"{name}.out",
                    )
                )  # fmt: skip
            codes = [p.wait(timeout=150) for p in players]
        finally:
            kill_all(*players, relay)
            out = stop(host)
        took = time.monotonic() - began
        told = {n: (tmp_path / f"{n}.out").read_text() for n in PLAYERS}
        seen = json.loads((tmp_path / "relay.json").read_text())
        entries = [json.loads(line) for line in log.read_bytes().splitlines()]
        events = [e["event"] for e in entries if "event" in e]
        print(f"{mode}: {took:.1f} s, exits {codes}, relay {seen}")
        for name, text in told.items():
            print(f"--- {name}\n{text}")
        verified = {n: _verify_mine(tmp_path / n) for n in PLAYERS}
        for name, (code, text) in verified.items():
            print(f"--- verify --mine {name}: {code}\n{text}")
        print(out[-2000:])
        # The relay did its worst, and the game still ended.
        assert seen["windows"] >= 1 and seen["cut"], seen
        assert events[-1]["type"] == "game_over", events[-1]
        forfeits = [e for e in events if e["type"] == "forfeit" and e["reason"] == "no_opening"]
        absent = [e for e in events if e["type"] == "absent"]
        assert forfeits or absent, events
        # Nobody accuses the host: not the players while playing, not their end-of-game
        # check, not `verify --mine` of their own records.
        for name in PLAYERS:
            assert "ALARM" not in told[name], told[name]
            assert not any(word in told[name] for word in ACCUSING), told[name]
            code, text = verified[name]
            assert not any(word in text for word in ACCUSING), text
            assert code == 0, text
        # Each player is told what happened to its opening, in words: in play, at the end
        # (its seat's forfeit, on the host's word), and by `verify --mine` of its records.
        for name in PLAYERS:
            assert "note: your open (message" in told[name], told[name]
            assert "did not reach the table" in told[name], told[name]
            assert (
                "Nobody can tell whether the network, someone on the path or the host"
                in (told[name])
            )
            if mode == "cut":  # cut while it was on its way
                assert "the connection dropped 1 time while it was being sent" in told[name]
            if forfeits:
                assert "was forfeited (no_opening)" in told[name], told[name]
            assert "note: your open (message" in verified[name][1], verified[name][1]
            assert "verified transcript:" in told[name]
        assert codes == [0, 0], told


def test_a_relay_loses_its_players_to_the_hosts_own_address_at_its_first_cut(
    tmp_path: Path,
) -> None:
    """Both players join through the relay (its address given to them; it also advertises a
    copy of the table). At its first cut each player retries, then goes looking for the
    table, passes over the address that just failed (the copy included), and reaches the
    host's own; from then on the relay is no route of theirs (net/client.py Routes): their
    openings are posted, nobody forfeits, and later windows find nobody to cut."""
    with netns.lan() as names:
        host, ready = start_host(
            "--headless", "--seats", "4", "--cpu", "2", "--cpu-think", "0.3", "--starting-dice",
            "2", "--grace-period", "10", "--bind", "10.231.0.2", "--port", str(PORT),
            "--name", "relayed", "--home", str(tmp_path / "h"), netns=names[1],
        )  # fmt: skip
        log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
        time.sleep(1.5)  # the host's advertisement is out
        relay = tcp_relay.start(
            names[0], f"10.231.0.2:{PORT}", PORT, log, tmp_path / "relay.json",
            "--mode", "cut", "--windows", "1000", "--advertise", ready["table_id"],
        )  # fmt: skip
        players: list[subprocess.Popen[str]] = []
        try:
            time.sleep(1.5)  # the copy is out too
            for seed, name in enumerate(PLAYERS, 1):
                players.append(
                    spawn(
                        "join", f"10.231.0.1:{PORT}", "--bot", "medium", "--name", name, "--seed",
                        str(seed), "--give-up", "60", "--home", str(tmp_path / name),
                        netns=names[2], log=tmp_path / f"{name}.out",
                    )
                )  # fmt: skip
            codes = [p.wait(timeout=150) for p in players]
        finally:
            kill_all(*players, relay)
            stop(host)
        told = {n: (tmp_path / f"{n}.out").read_text() for n in PLAYERS}
        seen = json.loads((tmp_path / "relay.json").read_text())
        entries = [json.loads(line) for line in log.read_bytes().splitlines()]
        print(f"exits {codes}, relay {seen}")
        for name, text in told.items():
            print(f"--- {name}\n{text}")
        # Both joined through the relay, which cut them when the first openings were due.
        assert all("at wss://10.231.0.1:" in told[n] for n in PLAYERS), told
        assert seen["cut"] and {w for w, _, _ in seen["cut"]} == {1}, seen
        assert seen["windows"] >= 2, seen  # the game went on: later windows cut nobody
        # Each found the host's own address, and its opening was posted in time.
        roster = next(
            e["event"]["roster"] for e in entries if e.get("event", {}).get("type") == "start"
        )
        seats = {p["seat"] for p in roster if p["name"] in PLAYERS}
        opened = {
            e["msg"]["body"]["seat"]
            for e in entries
            if e.get("msg", {}).get("body", {}).get("type") == "open"
            and e["msg"]["body"]["round"] == 1
        }
        assert seats <= opened, (seats, opened)
        events = [e["event"] for e in entries if "event" in e]
        assert not [e for e in events if e["type"] == "forfeit"], events
        assert events[-1]["type"] == "game_over"
        for name in PLAYERS:
            assert "ALARM" not in told[name] and "did not reach the table" not in told[name]
        assert codes == [0, 0], told
