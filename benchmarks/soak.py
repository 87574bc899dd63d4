"""Soak: many rounds on a namespace LAN, with players and spectators coming and going.

One long-lived host process (namespace 1) runs table after table, each with one host-run CPU
and two players that join from other machines (namespaces 2 and 3) with `--bot`. Spectators
connect and leave at random. At the end every transcript is compared and verified, every
message each player sent is found exactly once (or was refused openly), and the host's
resident memory after the last round is compared with its memory at round 100.

    python -m benchmarks.soak --rounds 1000          # the full soak (root; builds its own LAN)
    python -m benchmarks.soak --rounds 60 --json     # a short run

Roles (`--role host|player|spectator`) are the processes the soak starts; run without a
role to orchestrate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import rss_kib

if TYPE_CHECKING:
    from p2pdice.net.session import ClientSession

TABLE = "soak"
SERVICE_WAIT = 60.0


_CURRENT: list[ClientSession] = []


def _dump_tasks() -> None:
    for task in asyncio.all_tasks():
        task.print_stack(file=sys.stderr)
    for session in _CURRENT:
        peer = session.peer
        print(
            "session:",
            {
                "connected": session.connected,
                "seat": session.seat,
                "errors": session.errors[-5:],
                "fatal": session.fatal,
                "chain": len(peer.replayer.chain) if peer else None,
                "pending": session.pending_kinds(),
                # Caught up and owing nothing: whether the bot may play (how far the catch-up
                # has to go and whether a join waits for it are the core's own, unexposed).
                "resumed": session.core.resumed,
                "reconnect_requested": session.reconnect_requested,
                "stopped": session.core.stopped,
                "internal_errors": session.internal_errors[-3:],
            },
            file=sys.stderr,
        )


def _debuggable() -> None:
    """`kill -USR2 <pid>` prints where every asyncio task is waiting (a soak that stalls)."""
    import signal

    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, _dump_tasks)


# ---- roles -----------------------------------------------------------------------------------


async def run_host(home: Path, rounds: int, bind: str, report: Path) -> None:
    """Open table after table until `rounds` rounds were played; record memory as it goes."""
    from p2pdice.core.rules import Rules
    from p2pdice.net.hostapp import HostService, TableConfig

    _debuggable()

    service = HostService(home=home, bind=bind)
    await service.start()
    played, tables, samples = 0, 0, []
    try:
        while played < rounds:
            table = await service.open_table(
                TableConfig(name=TABLE, rules=Rules(seats=3, starting_dice=5), cpu=["medium"])
            )
            tables += 1
            await asyncio.wait_for(table.server.over.wait(), 1800)
            await asyncio.sleep(0.3)  # let the last entries reach everyone
            game = table.host.state.game
            played += game.round if game is not None else 0
            samples.append({"round": played, "rss_kib": rss_kib(os.getpid()), "table": table.id})
            await table.close()
    finally:
        report.write_text(json.dumps({"tables": tables, "rounds": played, "memory": samples}))
        await service.stop()


async def run_player(home: Path, seed: int, stop_file: Path) -> None:
    """Join every `soak` table as it appears, as a medium CPU, until told to stop."""
    from p2pdice.bots.registry import load_bot
    from p2pdice.net.client import run_websocket
    from p2pdice.net.resolve import ResolveError, resolve
    from p2pdice.net.session import ClientSession
    from p2pdice.store import load_or_create_key

    _debuggable()
    key = load_or_create_key(home / "identity.key")
    rng = random.Random(seed)
    seen: set[bytes] = set()
    while not stop_file.exists():
        try:
            target = await resolve(TABLE, timeout=3.0)
        except ResolveError:
            continue
        table_id = target.table_id
        assert table_id is not None  # found by name in an advertisement, which names its id
        if table_id in seen:
            await asyncio.sleep(0.2)
            continue
        session = ClientSession(
            key=key,
            name=f"player {seed}",
            home=home,
            bot=load_bot("medium"),
            rng=rng,
            expect_table=table_id,
        )
        _CURRENT[:] = [session]
        outcome = await run_websocket(session, target.url, give_up_after=30)
        session.close()
        if outcome == "over":
            seen.add(table_id)
        else:  # worth knowing in a soak: say why, then try the same table again
            print(
                f"player {seed}: {outcome} at {table_id.hex()[:8]}: {session.errors[-3:]} {session.fatal}",
                file=sys.stderr,
                flush=True,
            )
            await asyncio.sleep(0.5)


async def run_spectator(stop_file: Path, seed: int) -> None:
    """Drop in on the current table for a few seconds, leave, come back later."""
    from p2pdice.core.signing import SigningKey
    from p2pdice.net.client import run_websocket
    from p2pdice.net.resolve import ResolveError, resolve
    from p2pdice.net.session import ClientSession

    rng = random.Random(seed)
    while not stop_file.exists():
        try:
            target = await resolve(TABLE, timeout=3.0)
        except ResolveError:
            continue
        session = ClientSession(
            key=SigningKey(rng.randbytes(32)), name="watcher", home=None, mode="spectate"
        )
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(rng.uniform(0.5, 3.0), stop.set)
        await run_websocket(session, target.url, give_up_after=5, stop=stop)
        await asyncio.sleep(rng.uniform(0.2, 2.0))


# ---- orchestration ---------------------------------------------------------------------------


def _netns_exec(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "benchmarks.soak", *args]


def check(work: Path, host_report: dict[str, Any]) -> dict[str, Any]:
    """Compare and verify every transcript; match every sent message to the log."""
    from p2pdice.core.messages import parse_message
    from p2pdice.core.transcript import messages_in, parse_entry
    from p2pdice.core.verify import split_lines, verify_lines
    from p2pdice.store import AppendLog

    problems: list[str] = []
    verified = 0
    for sample in host_report["memory"]:
        table = sample["table"]
        host_log = (work / "host" / "hosted" / table / "log.jsonl").read_bytes()
        lines, cut = split_lines(host_log)
        report = verify_lines(lines)
        if cut or not report.ok:
            problems.append(f"table {table[:8]}: host log does not verify: {report.failure}")
            continue
        verified += 1
        posted: dict[bytes, int] = {}
        for line in lines:
            for msg in messages_in(parse_entry(line)):
                posted[msg.digest()] = posted.get(msg.digest(), 0) + 1
        if any(n > 1 for n in posted.values()):
            problems.append(f"table {table[:8]}: a message was posted twice")
        for player in ("p1", "p2"):
            folder = work / player / "tables" / table
            if not folder.exists():
                problems.append(f"table {table[:8]}: {player} never sat down")
                continue
            if (folder / "transcript.jsonl").read_bytes() != host_log:
                problems.append(f"table {table[:8]}: {player}'s transcript differs from the host's")
            records = [json.loads(r) for r in AppendLog.read(folder / "sent.jsonl")]
            refused = {r["ref"] for r in records if "ref" in r}
            for record in records:
                if "msg" in record:
                    digest = parse_message(record["msg"]).digest()
                    if digest not in posted and digest.hex() not in refused:
                        problems.append(
                            f"table {table[:8]}: {player} sent a {record['msg']['body']['type']} that was lost"
                        )
    memory = host_report["memory"]
    at_100 = next((m["rss_kib"] for m in memory if m["round"] >= 100), None)
    last = memory[-1]["rss_kib"] if memory else None
    growth = None if at_100 in (None, 0) or last is None else (last - at_100) / at_100
    return {
        "rounds": host_report["rounds"],
        "tables": host_report["tables"],
        "verified_tables": verified,
        "rss_kib_at_round_100": at_100,
        "rss_kib_at_end": last,
        "rss_growth_after_round_100": None if growth is None else round(growth, 4),
        "problems": problems[:50],
        "ok": not problems and (growth is None or growth <= 0.10),
    }


def orchestrate(rounds: int, work: Path) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support import netns

    work.mkdir(parents=True, exist_ok=True)
    stop_file = work / "stop"
    stop_file.unlink(missing_ok=True)
    report = work / "host.json"
    started = time.monotonic()
    with netns.lan(f"p2soak{os.getpid()}-") as names:
        host = subprocess.Popen(
            _netns_exec(
                names[0],
                "--role",
                "host",
                "--rounds",
                str(rounds),
                "--home",
                str(work / "host"),
                "--bind",
                "10.231.0.1",
                "--report",
                str(report),
            )
        )
        others = [
            subprocess.Popen(
                _netns_exec(
                    names[1],
                    "--role",
                    "player",
                    "--seed",
                    "1",
                    "--home",
                    str(work / "p1"),
                    "--stop-file",
                    str(stop_file),
                )
            ),
            subprocess.Popen(
                _netns_exec(
                    names[2],
                    "--role",
                    "player",
                    "--seed",
                    "2",
                    "--home",
                    str(work / "p2"),
                    "--stop-file",
                    str(stop_file),
                )
            ),
            subprocess.Popen(
                _netns_exec(
                    names[2], "--role", "spectator", "--seed", "3", "--stop-file", str(stop_file)
                )
            ),
        ]
        try:
            host.wait(timeout=max(600, rounds * 3))
        finally:
            stop_file.touch()
            for proc in others:
                try:
                    proc.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    proc.kill()
            if host.poll() is None:
                host.kill()
    result = check(work, json.loads(report.read_text()))
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument(
        "--work", default=None, help="folder for homes and logs (default: a temporary one)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--role", choices=["host", "player", "spectator"])
    parser.add_argument("--home")
    parser.add_argument("--bind")
    parser.add_argument("--report")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stop-file")
    args = parser.parse_args()
    if args.role:
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>` prints every stack
    if args.role == "host":
        asyncio.run(run_host(Path(args.home), args.rounds, args.bind, Path(args.report)))
        return
    if args.role == "player":
        asyncio.run(run_player(Path(args.home), args.seed, Path(args.stop_file)))
        return
    if args.role == "spectator":
        asyncio.run(run_spectator(Path(args.stop_file), args.seed))
        return
    if os.geteuid() != 0:
        raise SystemExit("the soak builds a network-namespace LAN and needs root")
    import tempfile

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="p2pdice-soak-"))
    result = orchestrate(args.rounds, work)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key:<28} {value}")
    raise SystemExit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
