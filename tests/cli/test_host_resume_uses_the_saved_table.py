"""The CLI's shared helpers (names, --cpu, saved tables), `host --resume`, one-line errors for
refused option combinations, and the benchmark and fuzz harnesses' own arithmetic and
invariants."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest

import fuzz.__main__ as fuzz_main
from benchmarks import bot_decisions, common, crypto
from fuzz.targets import ClientTarget
from p2pdice import cli
from p2pdice.cli.common import load_saved_table, name_of, parse_cpu
from p2pdice.cli.options import CliError
from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm
from p2pdice.core.rules import Rules

TABLE_ID = "ab" * 16

# ---- names and --cpu ---------------------------------------------------------------------------


def test_name_of_cleans_and_refuses_empty_names() -> None:
    assert name_of("  Ann\x1b[31m ") == "Ann"
    with pytest.raises(CliError, match="--name: the name is empty"):
        name_of("\x1b\x07")
    with pytest.raises(CliError, match="--player: the name is empty"):
        name_of("", "--player")


def test_parse_cpu() -> None:
    assert parse_cpu(None) == (0, "medium")
    assert parse_cpu("3") == (3, "medium")
    assert parse_cpu("2:hard", seats=4) == (2, "hard")
    with pytest.raises(CliError, match="between 0 and 4"):
        parse_cpu("5", seats=4)
    with pytest.raises(CliError, match="cannot be negative"):
        parse_cpu("-1")
    with pytest.raises(CliError, match="expected N or N:LEVEL"):
        parse_cpu("many")
    with pytest.raises(CliError, match="--cpu: unknown bot 'genius'"):
        parse_cpu("1:genius")


# ---- host --resume ------------------------------------------------------------------------------


def _saved(home: Path, table_json: str | None) -> Path:
    folder = home / "hosted" / TABLE_ID
    folder.mkdir(parents=True)
    (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
    if table_json is not None:
        (folder / "table.json").write_text(table_json)
    return folder


def test_a_saved_table_loads(tmp_path: Path) -> None:
    for n, settings in enumerate(
        (
            {"name": "Kitchen", "cpu": ["hard"], "password_verifier": None},
            {"name": "Kitchen", "cpu": ["hard"], "password_verifier": "ab" * 32},
            {"name": "Kitchen", "cpu": ["hard"], "password": "old files kept it"},  # converted
        )
    ):
        _saved(tmp_path / str(n), json.dumps(settings))
        saved = load_saved_table(tmp_path / str(n), TABLE_ID)
        assert (saved.lines, saved.name, saved.cpu) == ([b'{"seq":0}'], "Kitchen", ["hard"])


@pytest.mark.parametrize(
    ("table_json", "says"),
    [
        (None, "is missing"),
        ("{not json", "is corrupt"),
        ("\xff\xfe", "is corrupt"),
        ("[1, 2]", "is corrupt"),
        ('{"name": "x", "cpu": "hard", "password": null}', "is corrupt"),
        ('{"cpu": [], "password": null}', "is corrupt"),
        ('{"name": "x", "cpu": [], "password_verifier": "AB"}', "is corrupt"),
        ('{"name": "x", "cpu": [], "password_verifier": 7}', "is corrupt"),
    ],
)
def test_a_missing_or_corrupt_table_json_is_a_clear_error(
    tmp_path: Path, table_json: str | None, says: str
) -> None:
    folder = _saved(tmp_path, table_json)
    with pytest.raises(CliError) as caught:
        load_saved_table(tmp_path, TABLE_ID)
    assert str(folder / "table.json") in str(caught.value) and says in str(caught.value)


def test_no_saved_log(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="no saved log for table"):
        load_saved_table(tmp_path, TABLE_ID)


class _FakeService:
    """Stands in for HostService: records whether it ran, opens a table with `rules`."""

    started: ClassVar[list[_FakeService]] = []
    rules = Rules(seats=2)

    def __init__(self, **kw) -> None:
        self.port = 4242
        self.running = False
        self.advertise = kw.get("advertise", True)

    def join_addresses(self) -> list[str]:
        return [f"127.0.0.1:{self.port}"]

    async def start(self) -> None:
        self.running = True
        _FakeService.started.append(self)

    async def stop(self, *, end_games: bool = True) -> None:
        self.running = False

    async def open_table(self, config, *, resume_lines=None):
        over = asyncio.Event()
        over.set()
        state = SimpleNamespace(rules=self.rules, game=None, roster=())
        return SimpleNamespace(
            id=TABLE_ID,
            path=f"/t/{TABLE_ID}",
            folder=Path("/nowhere"),
            host=SimpleNamespace(state=state, chain=SimpleNamespace(hashes=[])),
            server=SimpleNamespace(over=over, listeners=[]),
        )


@pytest.fixture
def fake_service(monkeypatch: pytest.MonkeyPatch):
    import p2pdice.net.hostapp

    _FakeService.started = []
    monkeypatch.setattr(p2pdice.net.hostapp, "HostService", _FakeService)
    return _FakeService


def _host(home: Path, *more: str) -> int:
    argv = ["host", "--headless", "--no-advertise", "--home", str(home), *more]
    return cli.main([*argv, "--resume", TABLE_ID])


def test_resume_with_a_missing_table_json_starts_nothing(
    tmp_path: Path, fake_service, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _saved(tmp_path, None)
    assert _host(tmp_path) == 2
    err = capsys.readouterr().err
    assert str(folder / "table.json") in err and "Traceback" not in err
    assert fake_service.started == []


def test_resume_prints_the_saved_tables_seats(
    tmp_path: Path, fake_service, capsys: pytest.CaptureFixture[str]
) -> None:
    _saved(tmp_path, json.dumps({"name": "Kitchen", "cpu": ["hard"], "password": None}))
    assert _host(tmp_path, "--seats", "5") == 0
    out = capsys.readouterr().out
    assert "seats: 2, CPU seats run here: 1, waiting for 1 player(s)" in out
    assert [s.running for s in fake_service.started] == [False]


# ---- benchmarks -----------------------------------------------------------------------------


def test_bot_decision_percentiles_are_nearest_rank() -> None:
    figures = bot_decisions.summary([6.0, 1.0, 5.0, 2.0, 4.0, 3.0])
    assert figures["p50_ms"] == 3.0  # not 4: rank ceil(0.5 * 6) = 3
    assert figures["p99_ms"] == 6.0 and figures["max_ms"] == 6.0
    assert figures["decisions"] == 6 and figures["mean_ms"] == 3.5
    assert bot_decisions.summary([float(v) for v in range(1, 101)])["p99_ms"] == 99.0


def test_crypto_figures_use_the_common_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    durations_us = [3, 9, 1, 10, 2, 8, 4, 7, 5, 6]
    ticks = iter([t for d in durations_us for t in (0.0, d / 1e6)])
    monkeypatch.setattr(common, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    calls = []
    median, p99 = crypto.measure(lambda: calls.append(1), runs=10, batch=1)
    assert len(calls) == 5 + 10  # five batches of warm-up, then the timed runs
    assert (median, p99) == (pytest.approx(5.0), pytest.approx(10.0))


def test_per_call_us_times_batches() -> None:
    calls = []
    samples = common.per_call_us(lambda: calls.append(1), runs=4, batch=3)
    assert len(samples) == 4 and all(s >= 0 for s in samples)
    assert len(calls) == 3 * 3 + 4 * 3


# ---- fuzz ---------------------------------------------------------------------------------------


class _LyingPeer:
    """Refuses an entry (an Alarm, and halts) yet lets its chain grow."""

    def __init__(self) -> None:
        self.replayer = SimpleNamespace(chain=[])
        self.halted = False

    def receive_line(self, line: bytes) -> list[Alarm]:
        self.replayer.chain.append(b"\x00" * 32)
        self.halted = True
        return [Alarm(Reason.BAD_SIGNATURE, "refused", 0)]


def test_the_client_target_catches_a_refused_entry_that_grew_the_chain() -> None:
    target = ClientTarget.__new__(ClientTarget)
    target.template = _LyingPeer()
    target.peer = _LyingPeer()
    with pytest.raises(AssertionError, match="refused entry"):
        target.run(b"{}")


def test_the_client_target_holds_on_real_inputs() -> None:
    target = ClientTarget()
    inputs = [*target.seeds(), b"", b"not json", target.lines[-1][:-3], target.lines[-2]]
    for data in inputs:
        target.run(data)


def test_fuzz_memory_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_main.verdict("host", 5000, 100_000, 100_000 + 9 * 1024) == 0
    assert fuzz_main.verdict("host", 5000, 100_000, 100_000 + 10 * 1024) == 1
    assert fuzz_main.verdict("host", 500, 0, 10**9) == 0  # never warmed up: nothing to compare
    err = capsys.readouterr().err
    assert "fuzz host: 5000 inputs, RSS grew 10.0 MiB" in err and "FAIL" in err


# ---- issue 12: clear refusals on the command line ----------------------------------------------


def test_join_with_a_bot_at_a_password_table_without_one_hints_and_exits_2(tmp_path: Path) -> None:
    import subprocess

    from tests.support.procs import p2pdice, password_host

    with password_host(tmp_path) as ready:
        env = {k: v for k, v in os.environ.items() if k != "P2PDICE_PASSWORD"}
        proc = subprocess.run(
            p2pdice("join", f"127.0.0.1:{ready['port']}", "--bot", "easy",
                    "--home", str(tmp_path / "c")),
            capture_output=True, text=True, timeout=30, env=env,
        )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--password-file" in proc.stderr and "P2PDICE_PASSWORD" in proc.stderr


def _cli(*args: str, env: dict | None = None):
    import subprocess

    from tests.support.procs import p2pdice

    return subprocess.run(
        p2pdice(*args), capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip


@pytest.mark.parametrize("where", ["file", "under_a_file", "missing_parent_in_proc"])
def test_a_home_that_cannot_be_a_folder_is_a_one_line_error(tmp_path: Path, where: str) -> None:
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    home = {
        "file": a_file,
        "under_a_file": a_file / "nope",
        "missing_parent_in_proc": Path("/proc/nope"),
    }[where]
    proc = _cli("practice", "--home", str(home))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert f"--home {home}:" in proc.stderr


def test_player_with_headless_is_refused() -> None:
    proc = _cli("host", "--headless", "--player", "Bob", "--no-advertise")
    assert proc.returncode == 2
    assert "--player: a --headless host does not play" in proc.stderr


def test_pass_and_play_with_one_player_says_what_is_missing() -> None:
    proc = _cli("pass-and-play", "--players", "Ann")
    assert proc.returncode == 2
    assert "--players: a table needs at least two seats" in proc.stderr
    assert "--seats" not in proc.stderr
