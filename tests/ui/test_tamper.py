"""A tampered opening turns the seat's tick into a red alarm with the reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from p2pdice.cli.runtime import start_practice
from p2pdice.core.messages import parse_message
from p2pdice.core.rules import Rules
from p2pdice.core.transcript import build_entry
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import render_screen
from p2pdice.ui.screens import plain
from p2pdice.ui.state import UiState

TARGET = 1  #: the CPU seat whose opening the host tampers with (the first CPU, after you)


async def wait_for(predicate, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_tampered_opening_raises_a_red_alarm_on_the_reveal(tmp_path: Path) -> None:
    rules = Rules(seats=3, starting_dice=2, kind="practice", first_starter=f"seat{TARGET}")
    runtime = await start_practice(
        tmp_path, rules, ["medium", "medium"], name="Tester", cpu_think=0
    )
    try:
        client = runtime.clients[0]
        deliver = client.link._on_frame
        host_key = runtime.service.key

        def tampering(frame: str):
            obj = json.loads(frame)
            msg = obj.get("entry", {}).get("msg") if obj.get("type") == "entry" else None
            if msg and msg["body"]["type"] == "open" and msg["body"]["seat"] == TARGET:
                body = {**msg["body"], "seed": "00" * 32}  # not what the seat committed to
                forged = build_entry(
                    host_key,
                    obj["entry"]["seq"],
                    bytes.fromhex(obj["entry"]["prev"]),
                    msg=parse_message({"body": body, "sig": msg["sig"]}),
                    table=bytes.fromhex(next(iter(runtime.service.tables))),
                )
                frame = '{"entry":' + forged.line.decode() + ',"type":"entry"}'
            return deliver(frame)

        client.link._on_frame = tampering
        c = Controller(UiState())
        c.set_runtime(runtime)

        # We call Liar at our first turn, unless a CPU calls first: either way every hand
        # is opened, the first CPU's opening arrives tampered and this client stops there.
        # (What the screen knows is the controller's snapshot, made after each change.)
        await wait_for(lambda: c.my_turn() or c.snap().halted)
        if not c.snap().halted:
            c.liar()
        await wait_for(lambda: c.snap().halted)
        assert c.snap().alarms[-1].reason == "OPENING_MISMATCH"
        assert c.mode() == "live"
        screen = plain(render_screen(c, 80, 24))
        assert (
            f"ALARM OPENING_MISMATCH: seat {TARGET}'s opening does not match its commitment"
            in screen
        )
        row = next(line for line in screen.splitlines() if line.startswith(" CPU medium 1"))
        assert "X ALARM opening mismatch" in row and "verified" not in row
    finally:
        await runtime.close()
