"""Discovery baseline worker: register one `_p2pdice._tcp` record with python-zeroconf, wait.

Only zeroconf is imported (no p2pdice), so that the discovery benchmark can tell apart what
multicast DNS itself costs (probing, announcing) from what p2pdice adds. Stops on SIGTERM.

    python -m benchmarks.zc_announce NAME
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

SERVICE_TYPE = "_p2pdice._tcp.local."


async def main(name: str) -> None:
    azc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"{name}.{SERVICE_TYPE}",
        parsed_addresses=["127.0.0.1"],
        port=9,
        properties={b"v": b"1", b"name": name.encode(), b"id": b"00" * 32},
        server="bench-baseline.local.",
    )
    await (await azc.async_register_service(info, allow_name_change=True))
    print('{"ready": true}', flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await (await azc.async_unregister_service(info))
    await azc.async_close()


if __name__ == "__main__":
    if os.environ.get("P2PDICE_BENCH_NETNS") != "1":
        sys.exit("benchmark worker: start it through python -m benchmarks.discovery")
    asyncio.run(main(sys.argv[1]))
