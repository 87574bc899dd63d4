"""Why a host could not be reached, in words a player reads (never an exception's class)."""

from __future__ import annotations

import errno
import socket

import aiohttp

_BY_ERRNO = {
    errno.ECONNREFUSED: "connection refused",
    errno.EHOSTUNREACH: "no route to that machine",
    errno.ENETUNREACH: "this machine is not on a network that reaches it",
    errno.ETIMEDOUT: "no answer",
    errno.ECONNRESET: "the connection was cut",
}


def why_unreachable(err: BaseException, *, timeout: float | None = None) -> str:
    """The reason an attempt to reach a host failed, e.g. "connection refused"."""
    if isinstance(err, TimeoutError | aiohttp.ServerTimeoutError):
        return f"no answer within {timeout:g} s" if timeout else "no answer"
    if isinstance(err, aiohttp.ClientConnectorDNSError | socket.gaierror):
        return "no machine by that name"
    os_error = getattr(err, "os_error", None)
    cause = os_error if isinstance(os_error, OSError) else err
    if isinstance(cause, OSError) and cause.errno in _BY_ERRNO:
        return _BY_ERRNO[cause.errno]
    if isinstance(err, aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return "the connection was cut"
    if isinstance(err, aiohttp.InvalidURL):  # nothing was asked: the address itself is bad
        return "not a HOST:PORT address"
    if isinstance(err, ValueError | aiohttp.ContentTypeError):
        return "it answered, but not like a p2pdice host"
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror[0].lower() + cause.strerror[1:]
    return "the connection failed"


def could_not_reach(address: str, err: BaseException, *, timeout: float | None = None) -> str:
    """ "could not reach the host at 127.0.0.1:1: connection refused"."""
    return f"could not reach the host at {address}: {why_unreachable(err, timeout=timeout)}"
