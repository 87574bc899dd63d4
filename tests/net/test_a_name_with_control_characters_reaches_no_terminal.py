"""A table announced under an instance name with control characters (`\\x1b[31m`, BEL): mDNS
carries any bytes in a name, but python-zeroconf refuses to look such a name up
(`BadTypeInNameException`). The lookup's task died with it, and asyncio printed the traceback,
the raw name in its last line, to the terminal of `p2pdice browse` and `join NAME` (and into
the lobby's log, once per lookup and retry): escape sequences a stranger chose, past every
cleaning the screen does. Such a name is no table: it is passed over in silence.

Real zeroconf on the test's private loopback; the stranger sends from 127.0.0.2.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from zeroconf import DNSOutgoing, DNSPointer, DNSService, DNSText
from zeroconf.const import (
    _CLASS_IN,
    _CLASS_UNIQUE,
    _FLAGS_AA,
    _FLAGS_QR_RESPONSE,
    _TYPE_PTR,
    _TYPE_SRV,
    _TYPE_TXT,
)

from p2pdice.net.discovery import SERVICE_TYPE

pytestmark = pytest.mark.usefixtures("private_network")

STRANGER = "127.0.0.2"
HOSTILE = f"evil\x1b]0;owned\x07\x1b[31mred.{SERVICE_TYPE}"


def hostile_answer() -> list[bytes]:
    """An unsolicited mDNS answer announcing a table under HOSTILE (built record by record:
    zeroconf's ServiceInfo refuses to make one)."""
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    unique = _CLASS_IN | _CLASS_UNIQUE
    out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500, HOSTILE), 0)
    out.add_answer_at_time(DNSService(HOSTILE, _TYPE_SRV, unique, 120, 0, 0, 9100, "e.local."), 0)
    out.add_answer_at_time(DNSText(HOSTILE, _TYPE_TXT, unique, 4500, b"\x0aname=Evil!"), 0)
    return out.packets()


def test_browse_passes_over_a_name_with_control_characters_in_silence() -> None:
    browse = subprocess.Popen(
        [sys.executable, "-m", "p2pdice", "browse", "--timeout", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((STRANGER, 5353))
            sock.setsockopt(
                socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1")
            )
            for _ in range(16):  # while browse listens (it starts within a second or two)
                for packet in hostile_answer():
                    sock.sendto(packet, ("224.0.0.251", 5353))
                time.sleep(0.25)
        out, err = browse.communicate(timeout=60)
    finally:
        browse.kill()
        browse.wait()
    assert browse.returncode == 0
    assert b"\x1b" not in out + err and b"\x07" not in out + err
    assert b"Traceback" not in err, err.decode(errors="replace")
    assert b"no tables found" in out
