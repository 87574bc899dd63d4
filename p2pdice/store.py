"""What must survive a crash: the identity key, each round's secrets, sent messages, logs.

Layout (under `data_dir()`, or $P2PDICE_HOME, or --home):

    identity.key                 the device's Ed25519 secret (hex), mode 0600
    tables/<table id>/seat.json  which seat this identity holds at that table
    tables/<table id>/secrets/<round>-<attempt>.json   salt, seed, contribution (0600)
    tables/<table id>/sent.jsonl every message this client sent, each refusal, and what
                                 it learnt of their way to the host (read, lost)
    tables/<table id>/transcript.jsonl   the verified log, entry by entry
    hosted/<table id>/log.jsonl  the host's log (the table's transcript)
    hosted/<table id>/table.json what a restarted host needs besides the log (its name,
                                 CPU seats, password and the port it listened on)
    hosted/<table id>/host.lock  flock held while a program hosts the table
    tables/<table id>/seat.lock  flock held while a program plays or watches the table
    hosted/<table id>/cpu/<label>/       host-run CPU seats (each its own key and records)

Durability: files that are replaced (keys, secrets, seat) are written to a temporary file,
fsynced, renamed into place and the directory fsynced, so they are either old or new, never
torn. Secrets are written this way *before* the commitment that binds them is sent.
Append-only logs are written and flushed line by line, which survives the process being
killed (SIGKILL) because the data is in the kernel; they are fsynced at round boundaries
rather than per line (which entries end a round is the core's rule,
`core.client_intents.ends_a_round`), so a power cut can lose at most the current round's
tail, which the host's copy (or a peer's) restores.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets as random_source
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

# The core's rule, not this module's: importable here still for a test that does so.
from .core.codec import CodecError, decode, encode
from .core.errors import UserError
from .core.hashing import is_hash_hex
from .core.peer import Secrets
from .core.signing import SigningKey


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    if override:
        return Path(override)
    env = os.environ.get("P2PDICE_HOME")
    if env:
        return Path(env)
    import platformdirs  # only when needed: keeps `p2pdice --help` fast

    return Path(platformdirs.user_data_dir("p2pdice", appauthor=False))


def _written_beside(path: Path, data: bytes, *, private: bool) -> Path:
    """A temporary file beside `path` holding `data`, on disk (mode 0600 when `private`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        if private:
            os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def atomic_write(path: Path, data: bytes, *, private: bool = False) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file."""
    tmp = _written_beside(path, data, private=private)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CorruptFile(UserError):
    """A file this program wrote cannot be read back; the message names it (and the command
    prints it as a one-line error, not a traceback)."""


def create_once(path: Path, data: bytes, *, private: bool = False) -> bool:
    """Write `path` whole with `data` unless it exists: False (and nothing written) when it
    does, also when another process creates it at the same moment. Readers never see it
    half written."""
    tmp = _written_beside(path, data, private=private)
    try:
        # A hard link, unlike a rename, never replaces a file already there.
        os.link(tmp, path)
    except FileExistsError:
        return False
    except OSError as err:
        if err.errno not in _NO_HARD_LINKS:
            raise
        return _create_exclusively(path, data, private=private)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    return True


#: What os.link raises on a filesystem without hard links (FAT on a USB stick, some network
#: and FUSE filesystems).
_NO_HARD_LINKS = frozenset(
    {errno.EPERM, errno.EACCES, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK}
)


def _create_exclusively(path: Path, data: bytes, *, private: bool) -> bool:
    """create_once where there are no hard links: created by its first writer alone, though a
    reader may find it empty for a moment (load_or_create_key waits that out)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    _fsync_dir(path.parent)
    return True


#: How many times (20 ms apart) an empty identity key file is read again before it is taken
#: as damaged.
KEY_WRITE_WAITS = 50


def load_or_create_key(path: Path) -> SigningKey:
    """The identity key at `path`, created (mode 0600) on first use. Two programs starting
    together on a new data folder get the same key: the first to create it wins, and the
    other reads it."""
    if not path.exists():
        create_once(path, random_source.token_bytes(32).hex().encode() + b"\n", private=True)
    data = path.read_bytes()
    for _ in range(KEY_WRITE_WAITS):
        if data:
            break
        time.sleep(0.02)  # another program is writing it (a filesystem without hard links)
        data = path.read_bytes()
    try:
        return SigningKey(bytes.fromhex(data.decode().strip()))
    except (ValueError, UnicodeDecodeError):
        # Never replaced silently: the key is who this player is at every table it sat at.
        raise CorruptFile(
            f"the identity key {path} is not 32 bytes of hex; move it away to start afresh"
            " with a new identity"
        ) from None


def new_secrets() -> Secrets:
    return Secrets(
        salt=random_source.token_bytes(32),
        seed=random_source.token_bytes(32),
        contribution=random_source.token_bytes(32),
    )


class LinkRefused(UserError):
    """A file of the data folder is a symbolic link: never followed, so a link planted there
    cannot make this program write (or read its logs) elsewhere."""


def open_no_follow(path: Path, flags: int, mode: int = 0o666) -> int:
    """`os.open` that refuses a symbolic link as the last component (O_NOFOLLOW)."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise LinkRefused(
                f"{path} is a symbolic link; p2pdice does not follow links in its data folder"
                " (remove the link)"
            ) from None
        raise


class AppendLog:
    """JSON Lines, appended and flushed line by line; a torn last line is ignored on reading."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_no_follow(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        self._handle = os.fdopen(fd, "rb+")
        self._drop_torn_tail()

    def _drop_torn_tail(self) -> None:
        """A crash mid-write leaves a partial last line; appending after it would glue the
        next line onto it, so cut it off first (its content was never complete anyway)."""
        data = self._handle.read()
        if data and not data.endswith(b"\n"):
            self._handle.truncate(data.rfind(b"\n") + 1)

    def append(self, line: bytes) -> None:
        self._handle.write(line + b"\n")
        self._handle.flush()

    def sync(self) -> None:
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    @staticmethod
    def read(path: Path) -> list[bytes]:
        return AppendLog.read_with_tail(path)[0]

    @staticmethod
    def read_with_tail(path: Path) -> tuple[list[bytes], bytes]:
        """The complete lines, and the torn part after the last newline (b"" when none)."""
        try:
            fd = open_no_follow(path, os.O_RDONLY)
        except FileNotFoundError:
            return [], b""
        with os.fdopen(fd, "rb") as handle:
            data = handle.read()
        lines = data.split(b"\n")
        return [line for line in lines[:-1] if line], lines[-1]


@dataclass(slots=True)
class SeatRecord:
    seat: int
    host: str
    address: str | None = None


def saved_seat(home: Path, table_id: str) -> SeatRecord | None:
    """The seat this device's identity under `home` holds at `table_id` (hex), if any; reads
    without creating anything (the lobby asks this of every table it lists)."""
    if not is_hash_hex(table_id):
        return None  # an announced id is not a path to follow
    if not (home / "tables" / table_id / "seat.json").is_file():
        return None
    return ClientStore.load_seat_from(home / "tables" / table_id)


def seat_in_transcript(home: Path, table_id: str, key: SigningKey) -> SeatRecord | None:
    """The seat `key` joined at `table_id` (hex), and the host's key (hex), as this device's
    own transcript of the table shows them, verified: where the seat record was lost or
    cannot be read, the seat is still ours. Reads without creating anything; replays the
    whole log (up to a second)."""
    from .core.client_intents import SavedSeat
    from .core.client_restore import restore_seat

    if not is_hash_hex(table_id):
        return None  # an announced id is not a path to follow
    path = home / "tables" / table_id / "transcript.jsonl"
    if not path.is_file():
        return None
    lines = tuple(AppendLog.read(path))
    restored = restore_seat(key, SavedSeat(transcript=lines))
    state = restored.peer.state
    if restored.transcript_seat is None or state is None:
        return None
    return SeatRecord(seat=restored.transcript_seat, host=state.host_key.hex())


def seat_in_own_transcript(home: Path, table_id: str) -> SeatRecord | None:
    """seat_in_transcript for the identity under `home`, if it has one."""
    identity = home / "identity.key"
    if not identity.exists():
        return None  # no identity yet: no table has seen this device
    return seat_in_transcript(home, table_id, load_or_create_key(identity))


def holds_seat_at(home: Path, table_id: str) -> bool:
    """Whether the identity under `home` holds a seat at `table_id` (hex), so that it takes it
    back by its key, with no password: by its seat record or, where that was lost or cannot
    be read, by its own verified transcript (up to a second's replay)."""
    return (saved_seat(home, table_id) or seat_in_own_transcript(home, table_id)) is not None


class ClientStore:
    """One identity's files for one table it plays at or watches."""

    def __init__(self, home: Path, table_id: bytes) -> None:
        self.home = home
        self.folder = home / "tables" / table_id.hex()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._sent: AppendLog | None = None
        self._transcript: AppendLog | None = None

    # seat
    def load_seat(self) -> SeatRecord | None:
        return self.load_seat_from(self.folder)

    @staticmethod
    def load_seat_from(folder: Path) -> SeatRecord | None:
        path = folder / "seat.json"
        if not path.exists():
            return None
        try:
            obj = json.loads(path.read_text())
            record = SeatRecord(seat=obj["seat"], host=obj["host"], address=obj.get("address"))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return None  # unreadable: as when missing (the seat is in our transcript too)
        if not isinstance(record.seat, int) or not isinstance(record.host, str):
            return None
        return record

    def forget_seat(self) -> None:
        (self.folder / "seat.json").unlink(missing_ok=True)

    def save_seat(self, record: SeatRecord) -> None:
        data = {"seat": record.seat, "host": record.host, "address": record.address}
        atomic_write(self.folder / "seat.json", json.dumps(data).encode())

    # secrets
    def save_secrets(self, round_: int, attempt: int, secrets: Secrets) -> None:
        data = {
            "salt": secrets.salt.hex(),
            "seed": secrets.seed.hex(),
            "contribution": secrets.contribution.hex(),
        }
        atomic_write(
            self.folder / "secrets" / f"{round_}-{attempt}.json",
            json.dumps(data).encode(),
            private=True,
        )

    def load_secrets(self) -> dict[tuple[int, int], Secrets]:
        out: dict[tuple[int, int], Secrets] = {}
        folder = self.folder / "secrets"
        if not folder.exists():
            return out
        for path in folder.glob("*.json"):
            round_, _, attempt = path.stem.partition("-")
            try:
                obj = json.loads(path.read_text())
                out[(int(round_), int(attempt))] = Secrets(
                    bytes.fromhex(obj["salt"]),
                    bytes.fromhex(obj["seed"]),
                    bytes.fromhex(obj["contribution"]),
                )
            except (ValueError, KeyError, TypeError):
                continue  # not a secrets file of ours (written atomically, so never torn)
        return out

    # sent messages
    @property
    def sent_path(self) -> Path:
        return self.folder / "sent.jsonl"

    def record_sent(self, message: dict[str, Any], at_ms: int) -> None:
        if self._sent is None:
            self._sent = AppendLog(self.sent_path)
        self._sent.append(encode({"at": at_ms, "msg": message}))

    def record_refused(self, ref: str, reason: str, at_ms: int) -> None:
        if self._sent is None:
            self._sent = AppendLog(self.sent_path)
        self._sent.append(encode({"at": at_ms, "ref": ref, "rejected": reason}))

    def record_delivery(self, record: dict[str, Any]) -> None:
        """A fact about our messages' way to the host (core/delivery.py): `read`, `lost`."""
        if self._sent is None:
            self._sent = AppendLog(self.sent_path)
        self._sent.append(encode(record))

    def load_sent(self) -> list[dict[str, Any]]:
        out = []
        for line in AppendLog.read(self.sent_path):
            try:
                obj = decode(line)
            except CodecError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
        return out

    # transcript
    @property
    def transcript_path(self) -> Path:
        return self.folder / "transcript.jsonl"

    def append_entry(self, line: bytes) -> None:
        if self._transcript is None:
            self._transcript = AppendLog(self.transcript_path)
        self._transcript.append(line)

    def load_transcript(self) -> list[bytes]:
        return AppendLog.read(self.transcript_path)

    def sync(self) -> None:
        for log in (self._sent, self._transcript):
            if log is not None:
                log.sync()

    def close(self) -> None:
        for log in (self._sent, self._transcript):
            if log is not None:
                log.close()


class TableBusy(UserError):
    """Another program on this machine is hosting that table right now."""


class _Held(Exception):
    """The flock is held by another program (a failure to open the file is an OSError)."""


class _Flock:
    """An exclusive flock on `folder/name`, taken at once or not at all (_Held). The kernel
    drops it when the holder dies, even by SIGKILL, so a crashed program's files are free at
    once."""

    def __init__(self, folder: Path, name: str) -> None:
        import fcntl

        folder.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            self._fd = None
            raise _Held from None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None


class HostLock(_Flock):
    """Held while a program hosts a table (`hosted/<id>/host.lock`): a second host of the
    same table would fork its log."""

    def __init__(self, folder: Path) -> None:
        try:
            super().__init__(folder, "host.lock")
        except _Held:
            raise TableBusy(
                f"the table {folder.name[:12]}... is already being hosted by another program"
                " on this machine"
            ) from None

    @staticmethod
    def held(folder: Path) -> bool:
        try:
            HostLock(folder).release()
        except TableBusy:
            return True
        return False


class SeatBusy(UserError):
    """Another program plays or watches that table from the same home folder right now."""


class SeatLock:
    """Held while a program plays or watches a table from a home folder
    (`tables/<id>/seat.lock`): two programs would both append to its transcript and record,
    and the second would draw secrets over the first's. Within one program the lock is
    shared (counted): its sessions hand the records on to each other, as they always did."""

    _held: ClassVar[dict[Path, tuple[_Flock, int]]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()  #: sessions open on their own threads

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self._released = False
        with SeatLock._guard:
            held = SeatLock._held.get(self.folder)
            if held is None:
                try:
                    held = (_Flock(folder, "seat.lock"), 0)
                except _Held:
                    raise SeatBusy(
                        "another p2pdice on this machine is already at this table from "
                        f"{folder.parents[1]} (the same home folder); stop it first, or use"
                        " another --home"
                    ) from None
            SeatLock._held[self.folder] = (held[0], held[1] + 1)

    def release(self) -> None:
        with SeatLock._guard:
            if self._released:
                return
            self._released = True
            flock, count = SeatLock._held.pop(self.folder)
            if count > 1:
                SeatLock._held[self.folder] = (flock, count - 1)
            else:
                flock.release()


class SavedTableError(UserError):
    """A hosted table's saved files are missing or cannot be read back; the message names
    the file."""


_VERIFIER = re.compile("[0-9a-f]{64}")


def _pause_of(value: Any) -> float | None:
    """A saved CPU pause in seconds, or None when absent or not a sane one (0 to 60)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= 60 else None


@dataclass(frozen=True, slots=True)
class TableRecord:
    """`hosted/<table id>/table.json`: what a restarted host needs besides its log. The only
    reader and writer of that file.

    The password is never kept, only its scrypt verifier (a stolen file costs scrypt per
    guess); a file written before verifiers holds the plain password (`legacy_password`),
    which the next save replaces by its verifier."""

    FILE: ClassVar[str] = "table.json"

    name: str
    cpu: tuple[str, ...] = ()  #: difficulties of the host-run CPU seats
    password_verifier: bytes | None = None
    port: int = 0  #: the port it listened on (0: unknown, any free port)
    legacy_password: str | None = None
    #: The name the host's own player sits under ("" when the host plays no seat): the
    #: resume picker tells two tables of one name apart by it.
    player: str = ""
    #: Seconds its CPU seats pause before each move (None: not recorded, an older file), so
    #: a resumed table plays at the pace it was opened with.
    cpu_think: float | None = None

    def verifier(self, table_id: bytes) -> bytes | None:
        """The table's password verifier (SPEC.md 3.4), derived from a legacy password."""
        if self.legacy_password is not None:
            from .core.pake import password_verifier

            return password_verifier(self.legacy_password, table_id)
        return self.password_verifier

    def to_json(self) -> dict[str, Any]:
        verifier = self.password_verifier
        record: dict[str, Any] = {
            "name": self.name,
            "cpu": list(self.cpu),
            "password_verifier": None if verifier is None else verifier.hex(),
            "port": self.port,
        }
        if self.player:  # left out for a host that plays no seat, as before the field existed
            record["player"] = self.player
        if self.cpu_think is not None:
            record["cpu_think"] = self.cpu_think
        return record

    @classmethod
    def from_json(cls, saved: Any) -> TableRecord:
        """The record in a parsed table.json; ValueError saying what is wrong with it."""
        if not isinstance(saved, dict):
            raise ValueError("not a JSON object")
        name, cpu, port = saved.get("name"), saved.get("cpu"), saved.get("port")
        player = saved.get("player")
        verifier, legacy = saved.get("password_verifier"), saved.get("password")
        if "password_verifier" in saved:
            password_ok = verifier is None or (
                isinstance(verifier, str) and bool(_VERIFIER.fullmatch(verifier))
            )
            legacy = None
        else:  # written before verifiers: the plain password, or null
            password_ok = "password" in saved and (legacy is None or isinstance(legacy, str))
        if (
            not isinstance(name, str)
            or not isinstance(cpu, list)
            or not all(isinstance(level, str) for level in cpu)
            or not password_ok
        ):
            raise ValueError("expected a name, a list of CPU levels and a password verifier")
        return cls(
            name=name,
            cpu=tuple(cpu),
            password_verifier=bytes.fromhex(verifier) if isinstance(verifier, str) else None,
            port=port if isinstance(port, int) and 0 < port < 65536 else 0,
            legacy_password=legacy,
            player=player if isinstance(player, str) else "",
            cpu_think=_pause_of(saved.get("cpu_think")),
        )

    @classmethod
    def load(cls, folder: Path) -> TableRecord:
        """The record of the table hosted from `folder`, or SavedTableError naming the file."""
        path = folder / cls.FILE
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise SavedTableError(
                f"{path} is missing: the table's name, CPU seats and password verifier are unknown"
            ) from None
        except OSError as err:
            raise SavedTableError(f"cannot read {path}: {err.strerror or err}") from None
        except ValueError as err:  # not UTF-8, not JSON, or not a record
            raise SavedTableError(f"{path} is corrupt: {err}") from None

    def save(self, folder: Path) -> None:
        atomic_write(folder / self.FILE, json.dumps(self.to_json()).encode(), private=True)


@dataclass(frozen=True, slots=True)
class SavedTable:
    """What resuming a hosted table starts from: its log and its saved settings. The table
    password is not here: the host reads its verifier from the same record."""

    lines: list[bytes]
    name: str
    cpu: list[str]
    port: int = 0  #: the port it listened on (0: unknown, any free port)
    cpu_think: float | None = None  #: its CPU seats' pause before each move, when recorded
    #: Bytes after the log's last complete line: an entry a crash cut off mid-write. The
    #: host writes an entry before it sends it, so nobody received it; resuming drops it.
    torn: int = 0

    def torn_words(self) -> str | None:
        """What resuming drops, for the person who resumes (None: nothing)."""
        if not self.torn:
            return None
        return (
            f"the saved log ended in an incomplete line ({self.torn} bytes, cut off when the "
            f"host stopped mid-write); it is dropped, and the table resumes after entry "
            f"{len(self.lines) - 1}"
        )


def load_saved_table(home: Path, table_id: str) -> SavedTable:
    """The log and record of a table this machine hosted; SavedTableError naming the file,
    or TableBusy when another program hosts that table right now."""
    folder = home / "hosted" / table_id
    if folder.is_dir() and HostLock.held(folder):
        HostLock(folder)  # raises TableBusy, which says so
    log = folder / "log.jsonl"
    try:
        lines, tail = AppendLog.read_with_tail(log)
    except OSError as err:
        raise SavedTableError(f"cannot read {log}: {err.strerror or err}") from None
    if not lines:
        raise SavedTableError(f"no saved log for table {table_id} in {home}")
    record = TableRecord.load(folder)
    return SavedTable(
        lines=lines,
        name=record.name,
        cpu=list(record.cpu),
        port=record.port,
        cpu_think=record.cpu_think,
        torn=len(tail),
    )


@dataclass(frozen=True, slots=True)
class HostedTableSummary:
    """A table this machine hosted whose game did not end: the lobby offers to resume it."""

    table_id: str
    name: str
    saved_at: float  #: modification time of its log (the most recent first in listings)
    most_seats: int | None = None  #: the rules' `seats` (None: the genesis was not read)
    seats: int | None = None  #: players in the game (None: it had not started)
    round: int | None = None  #: the last round its log opened (None: none yet)
    host: str = ""  #: the name the host's own player sat under ("" when it played no seat)


@dataclass(frozen=True, slots=True)
class _Progress:
    most_seats: int | None = None
    seats: int | None = None
    round: int | None = None


#: What `_progress` read of each log, by (path, size, mtime): the lobby looks for unfinished
#: tables every few seconds, and a log that did not change is not read again.
_PROGRESS: dict[tuple[str, int, int], _Progress] = {}
_PROGRESS_KEPT = 64


def _progress(log: Path) -> _Progress:
    """How far a hosted table's log got: its seats (the genesis rules, the start's roster)
    and its last round. Read line by line, parsing only the few lines that can say so; a
    line that does not parse says nothing (a torn tail, a damaged file)."""
    stat = log.stat()
    key = (str(log), stat.st_size, stat.st_mtime_ns)
    found = _PROGRESS.get(key)
    if found is not None:
        return found
    most = seats = round_ = None
    with open(log, "rb") as handle:
        for number, line in enumerate(handle):
            if number and b'"type":"start"' not in line and b'"type":"round"' not in line:
                continue
            try:
                event = json.loads(line).get("event") or {}
                kind = event.get("type")
                if kind == "genesis":
                    most = int(event["rules"]["seats"])
                elif kind == "start":
                    seats = len(event["roster"])
                elif kind == "round":
                    round_ = int(event["round"])
            except (ValueError, TypeError, KeyError, AttributeError):
                continue
    found = _Progress(most, seats, round_)
    if len(_PROGRESS) >= _PROGRESS_KEPT:
        _PROGRESS.clear()
    _PROGRESS[key] = found
    return found


def unfinished_hosted_tables(home: Path) -> list[HostedTableSummary]:
    """Tables under `home/hosted` with a readable table.json and a log without a game-over
    entry (a host killed, or stopped with SIGTERM, mid-game) that no program hosts now,
    most recently played first."""
    out: list[HostedTableSummary] = []
    folder = home / "hosted"
    if not folder.is_dir():
        return out
    for table in folder.iterdir():
        log = table / "log.jsonl"
        try:
            last = _last_line(log)
            record = TableRecord.load(table)
            saved_at = log.stat().st_mtime
        except (OSError, SavedTableError):
            continue  # not a table folder we wrote, or unreadable: nothing to offer
        if last is None or _is_game_over(last):
            continue
        if HostLock.held(table):
            continue  # running right now (another terminal, a headless host)
        try:
            progress = _progress(log)
        except OSError:
            progress = _Progress()
        out.append(
            HostedTableSummary(
                table_id=table.name,
                name=record.name,
                saved_at=saved_at,
                most_seats=progress.most_seats,
                seats=progress.seats,
                round=progress.round,
                host=record.player,
            )
        )
    return sorted(out, key=lambda t: -t.saved_at)


def _last_line(path: Path, tail: int = 65536) -> bytes | None:
    """The last complete line of a log, reading only its end (the lobby asks often)."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - tail))
        data = handle.read()
    lines = [line for line in data.split(b"\n")[:-1] if line]  # after the last \n: torn
    return lines[-1] if lines else None


def _is_game_over(line: bytes) -> bool:
    from .core.errors import RemoteError
    from .core.events import GameOver
    from .core.transcript import parse_entry

    try:
        entry = parse_entry(line)
    except RemoteError:
        return False
    return isinstance(entry.host_event, GameOver)
