"""Cost of the fairness primitives: signing and verifying one message, hashing, dice.

Run: python -m benchmarks.crypto   (prints median and p99 per operation, in microseconds)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from p2pdice.core.codec import encode
from p2pdice.core.fairness import SeatContext, derive_dice, seed_commitment
from p2pdice.core.hashing import Tag
from p2pdice.core.messages import sign_message
from p2pdice.core.signing import SigningKey, openssl_ed25519_check, signed_bytes, verify_raw

from .common import per_call_us, stats


def measure(fn: Callable[[], object], *, runs: int, batch: int = 20) -> tuple[float, float]:
    """Median and p99 (nearest rank) over `runs` batches, per call, in microseconds."""
    figures = stats(per_call_us(fn, runs=runs, batch=batch, warmup=batch * 5))
    return figures["median"], figures["p99"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    key = SigningKey(bytes(range(32)))
    table = bytes(32)
    message = sign_message(
        key, kind="bid", table=table, seat=1, counter=7, head=table, round=3, quantity=4, face=5
    )
    body = message.body
    data = signed_bytes(Tag.SIG_MESSAGE, body)
    ctx = SeatContext(table_id=table, round=1, attempt=1, seat=0, key=key.public, dice=5)
    openssl_key = key.private_key()
    rows = {
        "canonical encode (bid body)": lambda: encode(body),
        "sign message (encode + Ed25519)": lambda: key.sign(Tag.SIG_MESSAGE, body),
        "verify message (encode + Ed25519)": lambda: message.signature_ok(key.public),
        "raw Ed25519 verify (same bytes)": lambda: verify_raw(key.public, data, message.sig),
        "raw Ed25519 verify, OpenSSL instead": lambda: openssl_ed25519_check(
            key.public, data, message.sig
        ),
        "sign, OpenSSL instead": lambda: openssl_key.sign(data),
        "seed commitment (tagged SHA-256)": lambda: seed_commitment(ctx, salt=table, seed=table),
        "derive 5 dice (HMAC-SHA256)": lambda: derive_dice(
            table, table_id=table, round_=1, attempt=1, seat=0, beacon_r=table, count=5
        ),
    }
    results = {name: measure(fn, runs=args.runs) for name, fn in rows.items()}
    if args.json:
        print(
            json.dumps(
                {
                    k: {"median_us": round(m, 2), "p99_us": round(p, 2)}
                    for k, (m, p) in results.items()
                }
            )
        )
        return
    print(f"{'operation':<38} {'median us':>10} {'p99 us':>10}")
    for name, (med, p99) in results.items():
        print(f"{name:<38} {med:>10.1f} {p99:>10.1f}")


if __name__ == "__main__":
    main()
