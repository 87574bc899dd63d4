"""A host hands freed memory back after each table closes (hostapp.release_memory), on its
event loop: it must not start a process to find the C library, since forking a large host
process stalls every table it serves (it took over 0.1 s on a loaded machine)."""

from __future__ import annotations

import platform
import sys

from p2pdice.net import hostapp

_SPAWNING = ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.exec", "os.system")
_watching = False
_spawned: list[str] = []


def _hook(event: str, args: object) -> None:
    if _watching and event in _SPAWNING:
        _spawned.append(event)


sys.addaudithook(_hook)  # hooks stay for the process's life: the flag keeps this one quiet


def test_releasing_memory_starts_no_process() -> None:
    global _watching
    hostapp._malloc_trim.cache_clear()  # the first close of a host's life looks it up
    _watching = True
    try:
        hostapp.release_memory()
        hostapp.release_memory()
    finally:
        _watching = False
    assert _spawned == []


def test_glibcs_trim_is_found_where_glibc_runs() -> None:
    if platform.libc_ver()[0] == "glibc":
        assert hostapp._malloc_trim() is not None
