"""Transcript entries and the hash chain (protocol/SPEC.md 6.1).

An entry carries either a host event or a player message, a sequence number, the previous
entry's hash and the host's signature. A transcript line is the entry's canonical encoding;
a line that is not byte-identical to it is refused, so a log has exactly one valid spelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import shape
from .codec import decode, encode
from .errors import Reason, RemoteError
from .events import HostEvent, checked_json, parse_event
from .hashing import Tag, entry_context, tagged_hash
from .messages import Message, parse_message
from .signing import SigningKey, verify_raw

ZERO_HASH = bytes(32)


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    prev: bytes
    event: dict[str, Any] | None  #: the host event as the line spells it (JSON)
    msg: Message | None
    sig: bytes
    line: bytes  #: canonical encoding, without the line feed
    hash: bytes
    #: The host event, parsed once from `event` (what the core reads).
    host_event: HostEvent | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        """'event:<type>' or 'msg:<type>'."""
        if self.event is not None:
            return "event:" + str(self.event["type"])
        assert self.msg is not None
        return "msg:" + self.msg.type

    def unsigned(self) -> dict[str, Any]:
        return _unsigned(self.seq, self.prev, self.event, self.msg)


def _unsigned(
    seq: int, prev: bytes, event: dict[str, Any] | None, msg: Message | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": seq, "prev": prev.hex()}
    if event is not None:
        out["event"] = event
    else:
        assert msg is not None
        out["msg"] = msg.to_json()
    return out


def entry_hash(line: bytes) -> bytes:
    return tagged_hash(Tag.ENTRY, line)


def build_entry(
    host: SigningKey,
    seq: int,
    prev: bytes,
    *,
    event: HostEvent | dict[str, Any] | None = None,
    msg: Message | None = None,
    table: bytes | None = None,
) -> Entry:
    """Sign a new entry (exactly one of `event` and `msg`) for the table `table` (the
    signature names it, SPEC.md 2.5; entry 0 names the table its genesis event makes, so it
    needs none). An event given as JSON is taken as it is (a test may sign what no honest
    host would); a typed one is shape-checked."""
    if (event is None) == (msg is None):
        raise ValueError("an entry carries exactly one of event and msg")
    raw: dict[str, Any] | None = None
    typed: HostEvent | None = None
    if isinstance(event, dict):
        raw, typed = event, _parsed_or_none(event)
    elif event is not None:
        raw, typed = checked_json(event), event
    if table is None:
        if seq != 0 or raw is None:
            raise ValueError("an entry after the genesis is signed for a named table")
        table = tagged_hash(Tag.TABLE, encode(raw))
    payload = _unsigned_bytes(seq, prev, raw, msg)
    sig = host.sign_raw(entry_context(table).encode("ascii") + b"\x00" + payload)
    # "sig" sorts after every other key of an entry: the line is the payload with it appended.
    line = payload[:-1] + b',"sig":"' + sig.hex().encode("ascii") + b'"}'
    return Entry(
        seq=seq,
        prev=prev,
        event=raw,
        msg=msg,
        sig=sig,
        line=line,
        hash=entry_hash(line),
        host_event=typed,
    )


def _unsigned_bytes(
    seq: int, prev: bytes, event: dict[str, Any] | None, msg: Message | None
) -> bytes:
    """canonical(the entry without its signature). A message that knows its canonical bytes
    is spliced in: keys sort, so such an entry is `{"msg":` MSG `,"prev":"<hex>","seq":N}`."""
    if msg is not None and msg.raw is not None and event is None:
        return b"".join(
            (b'{"msg":', msg.raw, b',"prev":"', prev.hex().encode("ascii"), b'","seq":',
             str(seq).encode("ascii"), b"}")
        )  # fmt: skip
    return encode(_unsigned(seq, prev, event, msg))


def _parsed_or_none(event: dict[str, Any]) -> HostEvent | None:
    """A forged event of a bad shape has no typed form; whoever reads the line refuses it."""
    try:
        return parse_event(event)
    except RemoteError:
        return None


_ENTRY_COMMON = {"seq": shape.uint, "prev": shape.HEX32, "sig": shape.HEX64}
_EVENT_ENTRY = {**_ENTRY_COMMON, "event": lambda v: isinstance(v, dict)}
_MSG_ENTRY = {**_ENTRY_COMMON, "msg": lambda v: isinstance(v, dict)}


def parse_entry(line: bytes) -> Entry:
    """Decode one canonical line and check its shape (not yet its place in a chain)."""
    obj = decode(line)
    if not isinstance(obj, dict):
        raise RemoteError(Reason.SCHEMA, "an entry must be a JSON object")
    has_event, has_msg = "event" in obj, "msg" in obj
    if has_event == has_msg:
        raise RemoteError(Reason.SCHEMA, "an entry carries exactly one of event and msg")
    shape.check_object(obj, _EVENT_ENTRY if has_event else _MSG_ENTRY, "entry")
    host_event = parse_event(obj["event"]) if has_event else None
    msg = parse_message(obj["msg"], body_bytes=_body_bytes(line, obj)) if has_msg else None
    return Entry(
        seq=obj["seq"],
        prev=bytes.fromhex(obj["prev"]),
        event=obj["event"] if has_event else None,
        msg=msg,
        sig=bytes.fromhex(obj["sig"]),
        line=bytes(line),
        hash=entry_hash(line),
        host_event=host_event,
    )


_MSG_LINE_START = b'{"msg":{"body":'


def _body_bytes(line: bytes, obj: dict[str, Any]) -> bytes | None:
    """The message body's bytes inside a canonical message entry, found without encoding.

    Keys sort, so the line is `{"msg":{"body":` BODY `,"sig":"<hex>"},"prev":...`; a quote
    inside a string is escaped in canonical JSON, so the end marker, with its bare quotes,
    can only be the structure itself."""
    sig = obj["msg"].get("sig")  # not shape-checked yet: anything may be here
    if not (isinstance(sig, str) and sig.isascii() and line.startswith(_MSG_LINE_START)):
        return None
    end = line.find(b',"sig":"' + sig.encode("ascii") + b'"},"prev":"', len(_MSG_LINE_START))
    return None if end < 0 else bytes(line[len(_MSG_LINE_START) : end])


def signed_part(entry: Entry) -> bytes:
    """What the host signed: the canonical entry without its `sig`.

    "sig" sorts after every other key of an entry, so in a canonical line it is the last
    member; cutting it off the line gives exactly canonical(entry without sig) without
    encoding the entry again.
    """
    suffix = b',"sig":"' + entry.sig.hex().encode("ascii") + b'"}'
    if not entry.line.endswith(suffix):  # pragma: no cover - parse_entry guarantees the shape
        return encode(entry.unsigned())
    return entry.line[: -len(suffix)] + b"}"


def host_signature_ok(entry: Entry, host_key: bytes, table: bytes) -> bool:
    """Whether the host signed `entry` for the table `table` (SPEC.md 6.1)."""
    context = entry_context(table).encode("ascii") + b"\x00"
    return verify_raw(host_key, context + signed_part(entry), entry.sig)


def check_link(
    entry: Entry,
    *,
    seq: int,
    prev: bytes,
    host_key: bytes,
    table: bytes,
    host_signature: bool = True,
) -> None:
    """The entry's place in the chain and (unless a client checks it later, SPEC.md 6.3) the
    host's signature, in the SPEC's order."""
    if entry.seq != seq:
        raise RemoteError(Reason.BAD_SEQ, f"entry {entry.seq} where {seq} was due")
    if entry.prev != prev:
        raise RemoteError(
            Reason.CHAIN_BROKEN, f"entry {entry.seq} does not follow the previous entry"
        )
    if host_signature and not host_signature_ok(entry, host_key, table):
        raise RemoteError(
            Reason.BAD_SIGNATURE, f"entry {entry.seq}: the host signature does not verify"
        )


def is_equivocation(a: Entry, b: Entry, host_key: bytes, table: bytes) -> bool:
    """Two different entries with one sequence number, both signed by the host for the
    table `table`: an entry the same key signed for another table proves nothing here."""
    return (
        a.seq == b.seq
        and a.line != b.line
        and host_signature_ok(a, host_key, table)
        and host_signature_ok(b, host_key, table)
    )


def messages_in(entry: Entry) -> list[Message]:
    """The player messages an entry carries: its own, or the sets inside a host event."""
    if entry.msg is not None:
        return [entry.msg]
    return [] if entry.host_event is None else list(entry.host_event.messages)
