"""`python -m fuzz host|client [libFuzzer flags] [corpus dir]`: coverage-guided fuzzing.

Seeds the corpus with valid frames (or entries), lets atheris mutate them, and reports the
host's resident memory before and after (it must not grow by 10 MB or more).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
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
            runs["warm"] = rss_kib()
        target.run(data)

    import atexit

    def report() -> None:
        grown = (rss_kib() - runs["warm"]) / 1024 if runs["warm"] else 0.0
        print(
            f"fuzz {which}: {runs['n']} inputs, RSS grew {grown:.1f} MiB after the first 1000",
            file=sys.stderr,
        )
        if grown >= 10:
            print("FAIL: memory grew by 10 MiB or more", file=sys.stderr)

    atexit.register(report)
    atheris.Setup([sys.argv[0], *sys.argv[1:], str(corpus)], one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
