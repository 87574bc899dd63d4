"""Cost of the table password (SPEC.md 3.4): the scrypt verifier and each side's SPAKE2 work.

Baseline, same run: one Ed25519 signature of a message, the cost every joiner pays anyway.
What a join at a password table adds: the joiner derives the verifier once per table (scrypt)
and answers (SPAKE2 start and finish); the host starts an exchange for each connection it
offers a seat and checks one join (finish and confirmation). scrypt is also what one guess at
a stolen table.json costs.

Run: python -m benchmarks.password [--runs N] [--json]   (median and p99 per operation, ms)
"""

from __future__ import annotations

import argparse
import json
import secrets
from collections.abc import Callable

from p2pdice.core.hashing import Tag
from p2pdice.core.pake import ENTROPY_BYTES, Binding, HostExchange, joiner_answer
from p2pdice.core.pake import password_verifier as derive_verifier
from p2pdice.core.signing import SigningKey

from .common import per_call_us, stats


def measure(fn: Callable[[], object], *, runs: int, batch: int) -> dict[str, float]:
    figures = stats(per_call_us(fn, runs=runs, batch=batch, warmup=batch))
    return {"median_ms": figures["median"] / 1000, "p99_ms": figures["p99"] / 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    table = secrets.token_bytes(32)
    verifier = derive_verifier("correct horse battery", table)
    binding = Binding(table, secrets.token_bytes(32), secrets.token_bytes(16), bytes(32))
    key = SigningKey(bytes(range(32)))
    body = {"type": "join", "table": table.hex(), "name": "someone"}

    def host_round() -> tuple[HostExchange, bytes, bytes]:
        host = HostExchange(verifier, secrets.token_bytes(ENTROPY_BYTES))
        answer = joiner_answer(verifier, secrets.token_bytes(ENTROPY_BYTES), host.message, binding)
        return host, answer.message, answer.proof

    prepared = [host_round() for _ in range(args.runs * 2 + 2)]

    def host_check() -> None:
        host, message, proof = prepared.pop()
        assert host.check(message, proof, binding) is not None

    host_message = HostExchange(verifier, secrets.token_bytes(ENTROPY_BYTES)).message
    rows = {
        "baseline: Ed25519 sign of a join body": (
            lambda: key.sign(Tag.SIG_MESSAGE, body),
            20,
        ),
        "scrypt verifier (N=2^15, r=8, p=1)": (lambda: derive_verifier("guess", table), 1),
        "host: open an exchange (SPAKE2 start)": (
            lambda: HostExchange(verifier, secrets.token_bytes(ENTROPY_BYTES)),
            1,
        ),
        "joiner: answer (SPAKE2 start + finish)": (
            lambda: joiner_answer(
                verifier, secrets.token_bytes(ENTROPY_BYTES), host_message, binding
            ),
            1,
        ),
        "host: check a join (finish + confirm)": (host_check, 1),
    }
    results = {name: measure(fn, runs=args.runs, batch=batch) for name, (fn, batch) in rows.items()}
    base = results["baseline: Ed25519 sign of a join body"]["median_ms"]
    for figures in results.values():
        figures["ratio"] = figures["median_ms"] / base
    if args.json:
        print(json.dumps({k: {f: round(v, 4) for f, v in d.items()} for k, d in results.items()}))
        return
    print(f"{'operation':<42} {'median ms':>10} {'p99 ms':>10} {'x baseline':>11}")
    for name, d in results.items():
        print(f"{name:<42} {d['median_ms']:>10.3f} {d['p99_ms']:>10.3f} {d['ratio']:>11.0f}")


if __name__ == "__main__":
    main()
