"""Run a module under cProfile counting CPU time, not wall time.

`python -m cProfile` times with the wall clock, so on a loaded machine a process that was
descheduled in the middle of a `send` is charged the wait as that call's own time (one
bid_latency host profile under load 3 put 11% of its time in `socket.send`). Counting
`time.process_time` charges only what this process ran, which is the host cost the
benchmarks report.

    python -m benchmarks.cpu_profile OUT.prof MODULE [ARGS...]
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: python -m benchmarks.cpu_profile OUT.prof MODULE [ARGS...]")
    out, module, *args = argv
    profiler = cProfile.Profile(time.process_time)
    # A SIGTERM from the benchmark's clean-up still ends in the `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.argv = [module, *args]
    profiler.enable()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    main(sys.argv[1:])
