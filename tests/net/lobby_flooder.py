"""An attacker's machine for the lobby-flood tests, run as a process in a namespace:
`python -m tests.net.lobby_flooder ADDRESS BIG VICTIM TRAP_PORT OWN COPIES PORTFILE`.

It advertises over mDNS `OWN` fake tables at ADDRESS (half called "Kitchen", as the real
table is), whose `GET /tables` lists them all so that they pass a lobby's liveness probe;
`BIGS` more at its second address BIG, whose `GET /tables` answer is far larger than any
host's (streamed, no length given); and `COPIES` that name the VICTIM address and
TRAP_PORT instead of its own. The answers are sent as a flooder would, unasked and
over and over, from its own address. It writes its HTTP port to PORTFILE once it starts
sending, and runs until killed.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import secrets
import socket
import sys
import threading
from pathlib import Path

from zeroconf import DNSOutgoing
from zeroconf.asyncio import AsyncServiceInfo
from zeroconf.const import _FLAGS_AA, _FLAGS_QR_RESPONSE

from p2pdice.core.signing import SigningKey
from p2pdice.net.tls import server_context

MDNS_GROUP, MDNS_PORT = "224.0.0.251", 5353

SERVICE_TYPE = "_p2pdice._tcp.local."
ANSWER_MIB = 32  #: size of each `/tables` answer


BIGS = 10  #: fakes at the second address


class Listing(http.server.BaseHTTPRequestHandler):
    """A `/tables` answer naming the fakes, as a host lists its tables."""

    body = b"[]"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        return


class Oversized(http.server.BaseHTTPRequestHandler):
    log = Path("/dev/null")  #: one line per answer: the bytes sent before the reader left
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes: no length
    chunk = (b'{"id": "' + b"ab" * 32 + b'", "name": "Kitchen"},') * ((1 << 20) // 100)

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"[")
        sent = 0
        try:
            while sent < ANSWER_MIB << 20:
                self.wfile.write(self.chunk)
                sent += len(self.chunk)
            self.wfile.write(b"{}]")
        except OSError:  # the reader hung up: what a bounded reader does
            pass
        with open(self.log, "a") as log:  # bytes it took to make this reader stop
            log.write(f"{sent}\n")

    def log_message(self, *args: object) -> None:
        return


def fake(i: int, name: str, address: str, port: int) -> AsyncServiceInfo:
    table_id = secrets.token_hex(32)
    txt = {"v": "1", "name": name, "id": table_id, "path": f"/t/{table_id}", "seats": "1/4"}
    txt["phase"] = "lobby"
    return AsyncServiceInfo(
        SERVICE_TYPE,
        f"{name} [{table_id[:8]}].{SERVICE_TYPE}",
        parsed_addresses=[address],
        port=port,
        properties={k.encode(): v.encode() for k, v in txt.items()},
        server=f"fake-{i}-{table_id[:6]}.local.",
    )


def packets(infos: list[AsyncServiceInfo]) -> list[bytes]:
    """Unsolicited mDNS answers announcing `infos`, a few tables a packet (as a flooder would
    send them: no probing, no rate limit)."""
    out: list[bytes] = []
    for i in range(0, len(infos), 3):
        msg = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for info in infos[i : i + 3]:
            for record in (
                info.dns_pointer(), info.dns_service(), info.dns_text(), *info.dns_addresses()
            ):  # fmt: skip
                msg.add_answer_at_time(record, 0)
        out.extend(msg.packets())
    return out


def mdns_socket(address: str) -> socket.socket:
    """A socket sending from `address`, port 5353 (a responder ignores other ports)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, MDNS_PORT))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    return sock


def serve(address: str, handler: type[http.server.BaseHTTPRequestHandler]) -> int:
    server = http.server.ThreadingHTTPServer((address, 0), handler)
    # Over TLS, as a host serves its listing (any key will do: a listing is not pinned).
    tls = server_context(SigningKey(secrets.token_bytes(32)))
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


async def main(
    address: str, big: str, victim: str, trap_port: int, own: int, copies: int, out: Path
) -> None:
    Oversized.log = out.with_suffix(".sent")
    port, big_port = serve(address, Listing), serve(big, Oversized)
    infos = [fake(i, "Kitchen" if i % 2 else f"Table {i}", address, port) for i in range(own)]
    rows = [{k.decode(): v.decode() for k, v in i.properties.items() if v} for i in infos]
    Listing.body = json.dumps(rows).encode()
    infos += [fake(own + i, "Kitchen", big, big_port) for i in range(BIGS)]
    infos += [fake(own + BIGS + i, "Kitchen", victim, trap_port) for i in range(copies)]
    # Each fake's answer from the address it names (the copies' from the flooder's own).
    senders = {big: [i for i in infos if i.port == big_port]}
    senders[address] = [i for i in infos if i.port in (port, trap_port)]
    blasts = [(mdns_socket(sender), packets(mine)) for sender, mine in senders.items()]
    out.write_text(json.dumps({"port": port, "big_port": big_port}))
    while True:  # again and again: a lobby opened later hears them too
        for sock, blast in blasts:
            for packet in blast:
                sock.sendto(packet, (MDNS_GROUP, MDNS_PORT))
                await asyncio.sleep(0.002)  # paced: a burst would overflow socket buffers
        await asyncio.sleep(1.0)


if __name__ == "__main__":
    a = sys.argv[1:]
    asyncio.run(main(a[0], a[1], a[2], int(a[3]), int(a[4]), int(a[5]), Path(a[6])))
