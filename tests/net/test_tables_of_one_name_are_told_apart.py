"""Two real hosts open a table called "Kitchen" on one namespace LAN: `join Kitchen` lists
both, each with what to type, and joins neither (non-zero exit); `join Kitchen#<short id>`
then joins the one named. `browse` shows the short ids that tell them apart. Two hosts that
play at their own Kitchens (Ann and Bea, on their screens) are told apart by their names too:
`join Kitchen` and `browse` say who hosts each, and each host's saved table keeps the name its
player sat under (the resume picker's)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pdice.store import unfinished_hosted_tables
from p2pdice.ui.lobby import picker_label
from tests.support import netns, tmux
from tests.support.procs import p2pdice, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


def run(ns: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(p2pdice(*args, netns=ns), capture_output=True, text=True, timeout=timeout)


def test_join_by_a_shared_name_lists_both_tables_joins_neither_and_name_hash_id_joins_one(
    tmp_path: Path,
) -> None:
    with netns.lan() as (ns1, ns2, player):
        hosts = []
        try:
            for i, ns in enumerate((ns1, ns2)):
                home = str(tmp_path / f"h{i}")
                args = ("--headless", "--seats", "2", "--cpu", "1", "--name", "Kitchen")
                hosts.append(start_host(*args, "--home", home, netns=ns))
            ready = [r for _, r in hosts]
            ids = [r["table_id"][:8] for r in ready]
            where = [f"10.231.0.{i + 1}:{r['port']}" for i, r in enumerate(ready)]
            ambiguous = run(player, "join", "Kitchen", "--bot", "easy", "--timeout", "8")
            said = ambiguous.stdout + ambiguous.stderr
            assert ambiguous.returncode != 0, said
            for short, address in zip(ids, where, strict=True):
                assert f"p2pdice join Kitchen#{short}" in said, said
                assert address in said, said
            assert "none was joined" in said
            listed = json.loads(run(player, "browse", "--json", "--timeout", "3").stdout)
            # Neither table took a seat for it: each still has only its host's CPU.
            assert sorted((t["short_id"], t["seats"]) for t in listed) == sorted(
                (short, "1/2") for short in ids
            ), listed
            home = str(tmp_path / "p")
            joined = run(
                player, "join", f"Kitchen#{ids[1]}", "--bot", "easy", "--seed", "1",
                "--timeout", "8", "--home", home,
            )  # fmt: skip
            assert joined.returncode == 0, joined.stdout + joined.stderr
            assert (
                f"joining 'Kitchen' at wss://{where[1]}/t/{ready[1]['table_id']}" in joined.stdout
            )
        finally:
            for proc, _ in hosts:
                stop(proc)


@pytest.mark.parametrize("stolen", [0, 1], ids=["first host's answer", "second host's answer"])
def test_join_by_a_shared_name_joins_neither_while_another_client_runs_on_the_joining_machine(
    tmp_path: Path, stolen: int
) -> None:
    """Another mDNS client on the player's machine shares its port 5353; an answer sent by
    unicast there reaches one of the two. Here (tests/net/mdns_neighbour.py) one host's
    unicast answers go to that neighbour and the other host's to `join`, as the kernel's hash
    did on a tester's machine: `join Kitchen` used to hear one table, stop listening 1 s
    later, before the other's next answer, and sit at it. It must hear both and join neither."""
    with netns.lan() as (ns1, ns2, player):
        hosts, neighbour = [], None
        try:
            for i, ns in enumerate((ns1, ns2)):
                home = str(tmp_path / f"h{i}")
                args = ("--headless", "--seats", "2", "--cpu", "1", "--name", "Kitchen")
                hosts.append(start_host(*args, "--home", home, netns=ns))
            neighbour = subprocess.Popen(
                ["ip", "netns", "exec", player, sys.executable, "-m", "tests.net.mdns_neighbour",
                 "10.231.0.3", f"10.231.0.{stolen + 1}", "60"],
                stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            assert neighbour.stdout is not None
            assert json.loads(neighbour.stdout.readline()) == {"steered": 1}
            home = str(tmp_path / "p")
            ambiguous = run(
                player, "join", "Kitchen", "--bot", "easy", "--timeout", "8", "--home", home
            )
            said = ambiguous.stdout + ambiguous.stderr
            assert ambiguous.returncode == 2 and "none was joined" in said, said
            for i, (_, ready) in enumerate(hosts):
                assert f"p2pdice join Kitchen#{ready['table_id'][:8]}" in said, said
                assert f"10.231.0.{i + 1}:{ready['port']}" in said, said
        finally:
            if neighbour is not None:
                stop(neighbour)
            for proc, _ in hosts:
                stop(proc)


@pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")
def test_two_hosts_who_play_at_their_kitchens_are_told_apart_by_their_names(
    tmp_path: Path,
) -> None:
    with netns.lan() as (ns1, ns2, player):
        screens = [tmux.Tmux(netns=ns) for ns in (ns1, ns2, player)]
        hosts, lobby = screens[:2], screens[2]
        try:
            for i, (t, who) in enumerate(zip(hosts, ("Ann", "Bea"), strict=True)):
                args = ("host", "--name", "Kitchen", "--player", who, "--seats", "3")
                home = str(tmp_path / f"h{i}")
                t.start(p2pdice(*args, "--home", home), stderr=tmp_path / f"h{i}.txt")
            for t in hosts:
                t.wait_for(lambda s: "Waiting for players" in s, 30, "the host's waiting screen")
            listed = json.loads(run(player, "browse", "--json", "--timeout", "4").stdout)
            named = {t["short_id"]: (t.get("host"), t["hk"][:8]) for t in listed}
            assert sorted(name for name, _ in named.values()) == ["Ann", "Bea"], listed
            ambiguous = run(player, "join", "Kitchen", "--bot", "easy", "--timeout", "8")
            said = " ".join((ambiguous.stdout + ambiguous.stderr).split())
            assert ambiguous.returncode != 0 and "none was joined" in said, said
            for short, (name, key) in named.items():
                assert re.search(
                    rf"p2pdice join Kitchen#{short} Kitchen: 1/3 seats, lobby, empty seats left "
                    rf"out, at 10\.231\.0\.[12]:\d+, hosted by {name} \(host key {key}\)",
                    said,
                ), said
            # The lobby's rows say it too, each under its own short id.
            me = tmp_path / "p"
            lobby.start(["env", f"P2PDICE_HOME={me}", *p2pdice()], stderr=tmp_path / "lobby.txt")
            screen = lobby.wait_for(
                lambda s: s.count("hosted by") == 2, 30, "both Kitchens in the lobby"
            )
            rows = " ".join(screen.split())
            for short, (name, key) in named.items():
                assert re.search(
                    rf"#{short} at [0-9.:]+, hosted by {name} \(host key {key}\)", rows
                ), screen
        finally:
            for t in screens:
                t.kill()
        # Each host's machine keeps the name its player sat under for the resume picker.
        for i, who in enumerate(("Ann", "Bea")):
            deadline = time.monotonic() + 15
            while not (saved := unfinished_hosted_tables(tmp_path / f"h{i}")):
                assert time.monotonic() < deadline, "the paused table is not offered to resume"
                time.sleep(0.2)
            assert picker_label(saved[0]).startswith(
                f"Kitchen#{saved[0].table_id[:8]}, hosted by {who}, "
            )
