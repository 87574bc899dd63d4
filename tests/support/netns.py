"""A private network for the test process: nothing a test sends can leave the machine.

At the start of the session the test process moves itself into a new network namespace
(only a loopback interface, brought up here). Every socket, every zeroconf advertisement and
every child process (`p2pdice host`, `join`) then lives on that private loopback. Multi-host
LAN tests create further namespaces joined by a bridge (`lan()` below). Where this is not
possible (not root, no namespaces), tests that need it are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
from collections.abc import Iterator

CLONE_NEWNET = 0x40000000

_state = {"isolated": False, "why": "not attempted"}


def isolate() -> None:
    """Move this (still single-threaded) process into a fresh network namespace."""
    if os.environ.get("P2PDICE_TEST_NETNS") == "off":
        _state.update(isolated=False, why="disabled by P2PDICE_TEST_NETNS=off")
        return
    if os.geteuid() != 0:
        _state.update(isolated=False, why="needs root for a private network namespace")
        return
    if shutil.which("ip") is None:
        _state.update(isolated=False, why="the `ip` command (iproute2) is missing")
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        _state.update(
            isolated=False, why=f"unshare(CLONE_NEWNET) failed: errno {ctypes.get_errno()}"
        )
        return
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # Multicast on lo: zeroconf's packets need a route for 224.0.0.0/4.
    subprocess.run(
        ["ip", "route", "add", "224.0.0.0/4", "dev", "lo"], check=False, capture_output=True
    )
    _state.update(isolated=True, why="")


def isolated() -> bool:
    return bool(_state["isolated"])


def why_not() -> str:
    return str(_state["why"])


LAN_HOSTS = 3


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def lan(prefix: str | None = None) -> Iterator[list[str]]:
    """Three namespaces `<prefix>1..3` (10.231.0.1-3/24) on a bridge `<prefix>br`; removed
    afterwards. The default prefix holds the process id, so two test runs on one machine
    never tear down each other's LAN."""
    prefix = prefix if prefix is not None else f"p2pt{os.getpid()}-"
    names = [f"{prefix}{i}" for i in range(1, LAN_HOSTS + 1)]
    bridge = f"{prefix}br"
    _down(names, bridge)
    try:
        _ip("netns", "add", bridge)
        _ip("-n", bridge, "link", "set", "lo", "up")
        _ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", bridge, "link", "set", "br0", "up")
        for i, ns in enumerate(names, 1):
            _ip("netns", "add", ns)
            subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                check=False,
                capture_output=True,
            )
            _ip(
                "-n",
                ns,
                "link",
                "add",
                "eth0",
                "type",
                "veth",
                "peer",
                "name",
                f"p{i}",
                "netns",
                bridge,
            )
            _ip("-n", bridge, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", bridge, "link", "set", f"p{i}", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"10.231.0.{i}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        yield names
    finally:
        _down(names, bridge)


def _down(names: list[str], bridge: str) -> None:
    for ns in [*names, bridge]:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
