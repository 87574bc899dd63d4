"""Where the time of one bid goes, step by step, without a profiler's distortion.

Each step the host and a client do for one bid entry is timed on its own, in one process,
on a bid taken from a real six-seat game (`p2pdice.bots.protosim.LocalTable`): median
microseconds over many repetitions. This is the analysis behind docs/benchmarks.md (which
steps are JSON, which are Ed25519, which are the table machine); the network and asyncio
costs are in bid_latency's profile (`--profile`).

    python -m benchmarks.entry_cost [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.codec import decode, encode
from p2pdice.core.messages import parse_message
from p2pdice.core.rules import Rules
from p2pdice.core.signing import verify_raw
from p2pdice.core.table import Replayer, advance
from p2pdice.core.transcript import build_entry, host_signature_ok, parse_entry, signed_part
from p2pdice.net.frames import TO_CLIENT, TO_HOST, decode_frame, encode_frame

from .common import per_call_us, stats


def timed(fn: Callable[[], object], *, runs: int = 300, batch: int = 10) -> float:
    """Median microseconds per call."""
    return stats(per_call_us(fn, runs=runs, batch=batch))["median"]


def bid_fixture() -> dict[str, Any]:
    rng = random.Random(3)
    table = LocalTable(Rules(seats=6), [load_bot("medium")] * 6, rng=rng)
    table.seat_everyone()
    table.play()
    lines = table.host.lines()
    replayer = Replayer()
    for index, line in enumerate(lines):
        entry = parse_entry(line)
        if index > 40 and entry.msg is not None and entry.msg.type == "bid":
            return {"replayer": replayer, "entry": entry, "line": line, "host": table.host}
        replayer.feed(entry)
    raise RuntimeError("no bid found")


def steps() -> dict[str, Callable[[], object]]:
    """Each step the host and a client do for one bid, by name, ready to call."""
    fx = bid_fixture()
    replayer, entry, line = fx["replayer"], fx["entry"], fx["line"]
    state, chain = replayer.state, replayer.chain
    host_key = state.host_key
    msg = entry.msg
    player_key = state.keys[msg.seat]
    entry_frame = '{"entry":' + line.decode() + ',"type":"entry"}'
    send_frame = encode_frame("send", msg=msg.to_json())
    status = {
        "phase": "bidding",
        "connected": [0, 1, 2, 3, 4, 5],
        "turn": 2,
        "deadline_ms": None,
        "bank_ms": None,
    }
    status_frame = encode_frame("status", **status)
    signed = signed_part(entry)
    key = fx["host"].key
    seq = entry.seq

    def client_advance() -> object:
        return advance(state, seq=seq, chain=chain, event=None, msg=msg)

    return {
        # the client, for every entry
        "client: decode entry frame (canonical JSON + shape)": lambda: decode_frame(
            entry_frame, TO_CLIENT
        ),
        "client: re-encode the entry to get its line": lambda: encode(json.loads(line)),
        "client: parse_entry (decode again, shapes, hash)": lambda: parse_entry(line),
        "client: host signature (Ed25519 verify)": lambda: host_signature_ok(
            entry, host_key, state.table_id
        ),
        "client: table machine advance (incl. player signature)": client_advance,
        "client: player signature alone (encode body + verify)": lambda: msg.signature_ok(
            player_key
        ),
        "client: message digest for pending (re-encode + SHA-256)": lambda: parse_message(
            msg.to_json()
        ).digest(),
        "client: decode status frame": lambda: decode_frame(status_frame, TO_CLIENT),
        # the host, for one bid
        "host: decode send frame (canonical JSON + shape)": lambda: decode_frame(
            send_frame, TO_HOST
        ),
        "host: parse_message": lambda: parse_message(msg.to_json()),
        "host: table machine advance (incl. player signature)": client_advance,
        "host: build_entry (encode, Ed25519 sign, hash)": lambda: build_entry(
            key, seq, entry.prev, msg=msg, table=state.table_id
        ),
        "host: encode status frame": lambda: encode_frame("status", **status),
        # references
        "raw Ed25519 verify (entry's signed bytes)": lambda: verify_raw(
            host_key, signed, entry.sig
        ),
        "raw json.loads of the entry line": lambda: json.loads(line),
        "canonical decode of the entry line": lambda: decode(line),
    }


def measure() -> dict[str, float]:
    return {name: timed(fn) for name, fn in steps().items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.entry_cost")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    costs = measure()
    if args.json:
        print(json.dumps(costs, indent=1))
        return 0
    for name, us in costs.items():
        print(f"{name:<58} {us:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
