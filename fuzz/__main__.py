"""`python -m fuzz host|client [libFuzzer flags] [corpus dir]`: coverage-guided fuzzing.

Seeds the corpus with valid frames (or entries), lets atheris mutate them, and reports the
host's resident memory before and after (it must not grow by 10 MB or more).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from benchmarks.common import rss_kib

LIMIT_MIB = 10.0  #: the most the resident memory may grow after the first 1000 inputs


def verdict(which: str, inputs: int, warm_kib: int, now_kib: int) -> int:
    """Print the memory report of a run; the exit status: 1 if memory grew too much, else 0."""
    grown = (now_kib - warm_kib) / 1024 if warm_kib else 0.0
    print(
        f"fuzz {which}: {inputs} inputs, RSS grew {grown:.1f} MiB after the first 1000",
        file=sys.stderr,
    )
    if grown >= LIMIT_MIB:
        print(f"FAIL: memory grew by {LIMIT_MIB:g} MiB or more", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    import atheris

    if len(sys.argv) < 2 or sys.argv[1] not in ("host", "client"):
        raise SystemExit("usage: python -m fuzz host|client [libFuzzer flags]")
    which = sys.argv.pop(1)
    with atheris.instrument_imports():
        from fuzz.targets import ClientTarget, HostTarget
    target = HostTarget() if which == "host" else ClientTarget()
    corpus = Path(tempfile.mkdtemp(prefix=f"p2pdice-fuzz-{which}-"))
    for i, seed in enumerate(target.seeds()):
        (corpus / f"seed{i}").write_bytes(seed)
    runs = {"n": 0, "warm": 0}

    def one(data: bytes) -> None:
        runs["n"] += 1
        if runs["n"] == 1000:  # after libFuzzer's own start-up allocations
            runs["warm"] = rss_kib(os.getpid())
        target.run(data)

    import atexit

    def report() -> None:
        status = verdict(which, runs["n"], runs["warm"], rss_kib(os.getpid()))
        if status:
            # libFuzzer ends the process with exit(0) once its runs are done, and an atexit
            # handler cannot change that status other than by leaving right here.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)

    atexit.register(report)
    atheris.Setup([sys.argv[0], *sys.argv[1:], str(corpus)], one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
