"""Helpers shared by the networked commands: passwords, homes, names, CPU seats, resuming a
hosted table, signals."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bots.names import BOT_NAMES, DEFAULT_LEVEL
from .options import CliError

if TYPE_CHECKING:
    from ..core.rules import Rules
    from ..store import SavedTable


def add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="where keys, secrets and transcripts live (default: $P2PDICE_HOME or the user data folder)",
    )


#: CPU players at a practice table when `--cpu` is not given (README's sample screen shows it).
PRACTICE_CPU = 3

#: Seconds a CPU seat pauses before each move, as a person would, so the people at the table
#: can follow the play and take a bid back before a CPU answers it (`--cpu-think`).
CPU_THINK = 1.5


def add_cpu_think_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cpu-think",
        type=float,
        default=None,  # resolved by cpu_think_of: a resumed table keeps its own
        metavar="S",
        help=f"seconds CPU seats pause before each move (default {CPU_THINK}, or what a "
        "resumed table had; 0: at once)",
    )


def cpu_think_of(args: argparse.Namespace, saved: float | None = None) -> float:
    """--cpu-think, else what a resumed table was opened with (`saved`), else the default."""
    think = getattr(args, "cpu_think", None)
    if think is None:
        think = saved if saved is not None else CPU_THINK
    if not 0 <= think <= 60:
        raise CliError("--cpu-think: between 0 and 60 seconds")
    return think


def add_password_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--password-file",
        metavar="FILE",
        help="read the table password from FILE (or set P2PDICE_PASSWORD); never pass it on the command line",
    )


def listen_failure(err: OSError | OverflowError, *, port: int | None, bind: str | None) -> str:
    """Why a host could not listen, in words naming the flag to change (it was a traceback)."""
    import errno

    code = getattr(err, "errno", None)
    if code == errno.EADDRINUSE:
        return (
            f"--port {port}: another program is listening there: choose another port, or leave"
            " out --port for any free one"
        )
    if code == errno.EADDRNOTAVAIL:
        return f"--bind {bind}: this machine has no such address (leave out --bind for all)"
    if code == errno.EACCES:
        return f"--port {port}: this user may not listen there (ports below 1024 need root)"
    why = getattr(err, "strerror", None) or str(err)
    return f"cannot listen on {bind or 'every address'}, port {port or 'any'}: {why}"


def check_port(port: int | None) -> None:
    if port is not None and not 0 <= port <= 65535:
        raise CliError(f"--port {port}: a port is from 1 to 65535 (0 or none: any free one)")


def home_flag(args: argparse.Namespace) -> str:
    """` --home DIR` when the command was given one, for a command printed for later (resuming
    a paused table finds its saved log only in the folder it was hosted from)."""
    import shlex

    home = getattr(args, "home", None)
    return f" --home {shlex.quote(str(Path(home).expanduser().absolute()))}" if home else ""


def home_of(args: argparse.Namespace) -> Path:
    from ..store import data_dir

    home = data_dir(getattr(args, "home", None))
    try:
        home.mkdir(parents=True, exist_ok=True)
        if not os.access(home, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except FileExistsError:
        raise CliError(f"--home {home}: that is a file, not a folder") from None
    except OSError as err:
        why = err.strerror or str(err)
        raise CliError(f"--home {home}: cannot keep p2pdice's files there ({why})") from None
    return home


#: The folders under the data folder where the tables this device plays on loopback
#: (practice, pass-and-play, the course's graded match: runtime.local_table) keep their host
#: and their seats, by what opens them. Each holds data folders laid out as store.py says.
LOCAL_TABLES: dict[str, Path] = {
    "practice": Path("practice"),
    "pass_and_play": Path("pass-and-play"),
    "graded": Path("learning") / "graded",
}


def local_host_home(base: Path) -> Path:
    """The data folder of the host of the loopback tables kept under `base`."""
    return base / "host"


def local_seat_home(base: Path, number: int) -> Path:
    """The data folder (with its own key) of the `number`th seat, from 1, held on this
    screen at the loopback tables kept under `base`."""
    return base / str(number)


def hosting_seat_home(home: Path) -> Path:
    """The data folder of the host's own seat at the tables it hosts in the terminal client."""
    return home / "seat"


def game_homes(home: Path) -> list[Path]:
    """Every data folder under `home` that this device's tables save games in, as the
    functions above decide them: `home` itself (tables joined or watched, tables hosted), the
    hosting seat's, and each loopback table's host and seats. A host-run CPU seat's records
    (`hosted/<id>/cpu/`) are copies of its host's log and are not listed."""
    homes = [home, hosting_seat_home(home)]
    for base in (home / folder for folder in LOCAL_TABLES.values()):
        homes.append(local_host_home(base))
        try:
            names = [p.name for p in base.iterdir() if p.is_dir() and not p.is_symlink()]
        except OSError:
            continue  # never opened on this device (or unreadable): no seats
        numbers = sorted(int(name) for name in names if name.isascii() and name.isdigit())
        homes += [local_seat_home(base, n) for n in numbers]
    return homes


def password_of(args: argparse.Namespace) -> str | None:
    if getattr(args, "password_file", None):
        try:
            text = Path(args.password_file).read_text(encoding="utf-8")
        except OSError as err:
            raise CliError(
                f"--password-file: cannot read {args.password_file}: {err.strerror}"
            ) from None
        except UnicodeDecodeError:
            raise CliError(
                f"--password-file: {args.password_file} is not UTF-8 text; save it as UTF-8"
            ) from None
        # A byte-order mark is how some editors (Windows Notepad) begin a UTF-8 file, not a
        # character anybody typed as part of the password.
        password = text.removeprefix("\ufeff").rstrip("\r\n")
        if not password:
            raise CliError(
                f"--password-file: {args.password_file} is empty; write the password in it, or"
                " leave --password-file out for a table without one"
            )
        return password
    return os.environ.get("P2PDICE_PASSWORD") or None


def name_of(text: str | None, flag: str = "--name") -> str:
    """`text` without control characters (as the network would clean it); never empty."""
    from ..core.clean import clean_name

    name = clean_name(text or "")
    if not name:
        raise CliError(f"{flag}: the name is empty once control characters are removed")
    return name


def person_name_of(text: str | None, flag: str = "--name") -> str:
    """A person's name: as `name_of`, and not in the form kept for CPU seats (SPEC.md 10.5)."""
    from ..core.names import reserved_for_cpu

    name = name_of(text, flag)
    if reserved_for_cpu(name):
        raise CliError(f"{flag}: names starting with CPU are kept for computer players")
    return name


def parse_cpu(text: str | None, *, seats: int | None = None) -> tuple[int, str]:
    """`--cpu N` or `N:LEVEL` -> (N, LEVEL); LEVEL defaults to DEFAULT_LEVEL and must load as a
    bot.

    With `seats`, N may be at most `seats`.
    """
    count, _, level = (text or "0").partition(":")
    level = level or DEFAULT_LEVEL
    try:
        n = int(count)
    except ValueError:
        raise CliError(f"--cpu: expected N or N:LEVEL, got {text!r}") from None
    if seats is not None and not 0 <= n <= seats:
        raise CliError(f"--cpu: between 0 and {seats} CPU seats")
    if n < 0:
        raise CliError("--cpu: the number of CPU players cannot be negative")
    if level not in BOT_NAMES:
        from ..bots.registry import BotLoadError, load_bot

        try:
            load_bot(level)
        except BotLoadError as err:
            raise CliError(f"--cpu: {err}") from None
    return n, level


def load_saved_table(home: Path, table_id: str) -> SavedTable:
    """`host --resume`: the saved log and record of a table this machine hosted
    (store.load_saved_table), a bad save becoming a CliError that names the flag."""
    from ..store import SavedTableError
    from ..store import load_saved_table as load

    try:
        return load(home, saved_table_id(home, table_id))
    except SavedTableError as err:
        raise CliError(f"--resume: {err}") from None


def saved_rules(saved: SavedTable) -> Rules | None:
    """The rules a saved table was opened with, read from its log's genesis entry; None when
    that entry does not hold them (the resumed host then refuses the log itself)."""
    import json

    from ..core.errors import OptionError
    from ..core.rules import Rules

    try:
        return Rules.from_json(json.loads(saved.lines[0])["event"]["rules"])
    except (IndexError, ValueError, KeyError, TypeError, OptionError):
        return None


#: `host --name` when it is not given.
TABLE_NAME = "p2pdice table"


def refuse_what_a_resumed_table_keeps(args: argparse.Namespace, saved: SavedTable) -> None:
    """`host --resume` with rules flags (or `--preset`, `--cpu`, `--name`, `--password-file`)
    that differ from what the saved table was opened with is a CliError naming each such flag
    and what the table keeps: its rules are fixed in its log (the table id binds them), its
    CPU seats, name and password verifier in its record, so they would be ignored. A flag that says what the table already has is taken (a script
    may repeat its command line with --resume); one whose rules cannot be read back is
    refused. Flags that are no rules (--port, --bind, --home, --player, --headless,
    --cpu-think...) apply to the resumed table as to a new one."""
    from ..core.rules import OPTION_BY_KEY, OPTIONS, PRESETS
    from .options import parse_cpu_seats

    kept = saved_rules(saved)
    given = {o.key: getattr(args, o.key) for o in OPTIONS if getattr(args, o.key, None) is not None}
    changed: list[str] = []  # the flags, as given
    differ: list[str] = []  # the options they would change
    preset = getattr(args, "preset", None)
    if preset is not None:
        keys = [k for k, v in PRESETS[preset].items() if k not in given and not _kept(kept, k, v)]
        if kept is None or keys:
            changed.append(f"--preset {preset}")
            differ += keys
    for key, value in given.items():
        if not _kept(kept, key, value):
            option = OPTION_BY_KEY[key]
            if option.is_bool:
                changed.append(option.flag if value else option.flag.replace("--", "--no-", 1))
            else:
                changed.append(f"{option.flag} {value}")
            differ.append(key)
    if changed:
        has = ""
        if kept is not None:
            words = [
                f"{o.label.lower()} {o.shown(getattr(kept, o.key))}"
                for o in OPTIONS
                if o.key in differ
            ]
            has = f" ({', '.join(words)})"
        raise CliError(
            f"{', '.join(changed)}: a resumed table keeps the rules fixed in its log{has}; "
            f"leave {'it' if len(changed) == 1 else 'them'} out with --resume"
        )
    cpu = getattr(args, "cpu", None)
    if cpu is not None and parse_cpu_seats(cpu) != saved.cpu:
        has = ", ".join(saved.cpu) if saved.cpu else "none"
        raise CliError(
            f"--cpu {cpu}: a resumed table keeps the CPU seats it was opened with ({has});"
            " leave it out with --resume"
        )
    name = getattr(args, "name", TABLE_NAME)
    if name != TABLE_NAME and name_of(name) != saved.name:
        raise CliError(
            f"--name {name}: a resumed table keeps the name it was opened with"
            f" ({saved.name!r}); leave it out with --resume"
        )
    if getattr(args, "password_file", None):
        raise CliError(
            "--password-file: a resumed table keeps the password it was opened with (or"
            " none); leave it out with --resume"
        )


def _kept(kept: Rules | None, key: str, value: object) -> bool:
    """Whether the saved rules `kept` (None: unreadable) already have `value` for `key`."""
    return kept is not None and getattr(kept, key) == value


def saved_table_id(home: Path, given: str) -> str:
    """The table id `--resume` means: the whole id, or (as the lobby, `browse` and the pause
    message show a table) a short id or any start of it, `#` or not, when one table this
    machine hosted has an id that starts so. Several: a CliError naming each.

    Only hex digits are an id: a path (a separator, `..`) or any other text is a CliError
    before anything is read, so `--resume` never opens a folder outside `hosted/`."""
    text = given.strip().removeprefix("#").lower()
    if ".." in text or any(sep in text for sep in {"/", "\\", os.sep}):
        raise CliError(
            f"--resume {given}: a table id, not a path: give the id the lobby or the pause "
            "message shows (hex digits, such as #97ee6f1d)"
        )
    if not text or not all(c in "0123456789abcdef" for c in text):
        raise CliError(
            f"--resume {given}: not a table id: give the id the lobby or the pause message "
            "shows (hex digits, such as #97ee6f1d)"
        )
    hosted = home / "hosted"
    if (hosted / text).is_dir():
        return text
    try:
        found = sorted(p.name for p in hosted.iterdir() if p.name.startswith(text))
    except OSError:
        return text
    if len(found) > 1:
        # Finished tables stay in `hosted/` but cannot be resumed: the ones that can come first.
        from ..store import unfinished_hosted_tables

        open_ones = {t.table_id for t in unfinished_hosted_tables(home)}
        resumable = [table for table in found if table in open_ones]
        if len(resumable) == 1:
            return resumable[0]
        found = resumable or found
    if len(found) > 1:
        raise CliError(
            f"--resume: {len(found)} tables hosted here have ids that start {text}: "
            + ", ".join(found)
        )
    return found[0] if found else text


def install_stop_signals(stop: Any) -> None:
    """SIGINT and SIGTERM set the asyncio.Event `stop` (graceful shutdown)."""
    on_signals(("SIGINT", "SIGTERM"), lambda sig: stop.set())


def on_signals(names: Iterable[str], act: Callable[[int], None]) -> None:
    """Each signal named (those this platform has: Windows has no SIGHUP) calls `act` with
    its number on the running event loop, instead of its default action; not one the program
    was started to ignore (`nohup` ignores SIGHUP: the game is to go on without a terminal)."""
    import asyncio
    import contextlib
    import signal

    loop = asyncio.get_running_loop()
    for name in names:
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, act, int(sig))


def output_folder(flag: str, name: str) -> Path:
    """The folder an option (`flag`) writes into, made now: a path that cannot be one is
    refused in one line before any work is done."""
    folder = Path(name)
    if folder.exists() and not folder.is_dir():
        raise CliError(f"{flag}: {name} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CliError(f"{flag}: cannot make the folder {name}: {err.strerror}") from None
    return folder
