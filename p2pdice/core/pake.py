"""The table password (protocol/SPEC.md 3.4): a memory-hard verifier and one SPAKE2 exchange
per join, so that neither a sniffed join nor a saved table file gives a fast guess test.

- The password is stretched once per table: `verifier = scrypt(NFC(password), salt=table_id)`.
  The host keeps only the verifier; a joiner derives it from the password it was given.
- Each challenge that offers a seat carries the host's SPAKE2 message (side B). The joiner
  answers with its own message (side A) and a confirmation MAC under the shared key, bound to
  the table, the host key, the challenge nonce and its own key; the host answers the welcome
  with its confirmation, so the joiner knows it talks to a host that knows the password.
  A passive listener sees two random-looking group elements and two MACs: without one side's
  secret scalar no guess can be tested offline; an active attacker tests one guess per
  exchange, and the host throttles failed exchanges (auth.GuessThrottle).
- Each attempt carries a proof of work over the challenge and the joiner's message: a scrypt
  hash with `WORK_BITS` leading zero bits, about what the honest joiner's one stretch of the
  password costs, and one small scrypt for the host to check. Only attempts that carry it are
  tested against the table's shared budget of guesses, so locking the table for others costs
  an attacker what guessing would.

SPAKE2 is warner's `spake2` (Ed25519 group, its default M and N, the library's own transcript
hash); SPEC.md 3.4 names every input so another implementation (RustCrypto `spake2`, which
interoperates with it) gives the same bytes. Sans-I/O: the secret scalar's entropy is passed in.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from spake2 import SPAKE2_A, SPAKE2_B
from spake2.ed25519_group import Ed25519Group

from .hashing import Tag, framed

#: scrypt cost: 2^15 x 8 x 128 bytes = 32 MiB and about 0.1 s on a laptop core, paid once per
#: join attempt by the joiner and once per table by the host; a guess at a stolen table file
#: costs the same.
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
VERIFIER_BYTES = 32
#: Bytes of randomness one SPAKE2 side draws for its secret scalar (reduced mod L).
ENTROPY_BYTES = 64
#: A SPAKE2 message: one side byte ("A" or "B") then a 32-byte Ed25519 point.
MESSAGE_BYTES = 33
#: The proof of work of one password attempt (SPEC.md 3.4): scrypt at 2^10 x 8 x 128 bytes =
#: 1 MiB (about 2.5 ms) per try, and a hash is good when its first `WORK_BITS` bits are zero:
#: 32 tries expected, about the 32 MiB of one stretch of the password; the host checks one.
WORK_N = 2**10
WORK_R = 8
WORK_P = 1
WORK_BITS = 5
#: Tries after which a joiner gives up (the chance of needing more is (1 - 2^-5)^4096, nil).
MAX_WORK_TRIES = 4096
#: The SPAKE2 identities of the two roles (they enter the shared key's transcript hash).
ID_JOINER = Tag.PASSWORD_JOINER.encode("ascii")
ID_HOST = Tag.PASSWORD_HOST.encode("ascii")


def password_verifier(password: str, table_id: bytes) -> bytes:
    """The table's password verifier: scrypt of the UTF-8 of the NFC form, salted by the table
    id (so a password reused elsewhere gives a different verifier)."""
    data = unicodedata.normalize("NFC", password).encode("utf-8")
    kdf = Scrypt(salt=table_id, length=VERIFIER_BYTES, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return kdf.derive(data)


def _entropy(data: bytes) -> Callable[[int], bytes]:
    """A SPAKE2 `entropy_f` that hands over exactly the bytes it was given, once."""
    if len(data) != ENTROPY_BYTES:
        raise ValueError(f"a SPAKE2 side needs {ENTROPY_BYTES} bytes of entropy")
    left = [data]

    def entropy_f(count: int) -> bytes:
        if count != ENTROPY_BYTES or not left:
            raise ValueError("SPAKE2 asked for entropy it was not given")
        return left.pop()

    return entropy_f


@dataclass(frozen=True, slots=True)
class Binding:
    """What the confirmations bind: this table, this host, this challenge, this joiner."""

    table_id: bytes
    host_key: bytes
    nonce: bytes
    player_key: bytes


def confirmations(shared_key: bytes, binding: Binding) -> tuple[bytes, bytes]:
    """(joiner's confirmation, host's confirmation) under the SPAKE2 shared key."""

    def mac(tag: str) -> bytes:
        message = framed(tag, binding.table_id, binding.host_key, binding.nonce, binding.player_key)
        return hmac.new(shared_key, message, hashlib.sha256).digest()

    return mac(Tag.PASSWORD_CONFIRM_JOINER), mac(Tag.PASSWORD_CONFIRM_HOST)


def joiner_message_ok(message: bytes) -> bool:
    """Whether `message` can be a joiner's SPAKE2 message: side byte "A" and an element of
    the prime-order group other than the identity. A host refuses anything else as malformed
    (SCHEMA) before it spends a guess of the table's on it."""
    if len(message) != MESSAGE_BYTES or message[:1] != b"A":
        return False
    try:
        Ed25519Group.bytes_to_element(message[1:])  # refuses the identity and other subgroups
    except Exception:  # the library's NotOnCurve, ValueError, AssertionError: all malformed
        return False
    return True


def _work_input(binding: Binding, joiner_message: bytes) -> bytes:
    return framed(
        Tag.PASSWORD_WORK,
        binding.table_id,
        binding.host_key,
        binding.nonce,
        binding.player_key,
        joiner_message,
    )


def work_hash(binding: Binding, joiner_message: bytes, counter: int) -> bytes:
    """scrypt(P = frame(tag) || table || host || nonce || player key || message, S = the
    counter as 8 bytes big-endian): a proof of work is a counter whose hash starts with
    WORK_BITS zero bits."""
    kdf = Scrypt(salt=counter.to_bytes(8, "big"), length=32, n=WORK_N, r=WORK_R, p=WORK_P)
    return kdf.derive(_work_input(binding, joiner_message))


def _leading_zero_bits(data: bytes) -> int:
    value = int.from_bytes(data, "big")
    return len(data) * 8 - value.bit_length()


def work_ok(binding: Binding, joiner_message: bytes, counter: int) -> bool:
    """Whether `counter` proves the work for this attempt (one scrypt: the host's cost)."""
    if not 0 <= counter < 2**53:
        return False
    return _leading_zero_bits(work_hash(binding, joiner_message, counter)) >= WORK_BITS


def solve_work(binding: Binding, joiner_message: bytes) -> int:
    """The smallest counter that proves the work for this attempt (about 32 scrypts)."""
    for counter in range(MAX_WORK_TRIES):
        if _leading_zero_bits(work_hash(binding, joiner_message, counter)) >= WORK_BITS:
            return counter
    raise ValueError("no proof of work found")  # pragma: no cover - (31/32)^4096


class HostExchange:
    """The host's side of one challenge's exchange: its message, then one check."""

    def __init__(self, verifier: bytes, entropy: bytes) -> None:
        self._spake = SPAKE2_B(verifier, idA=ID_JOINER, idB=ID_HOST, entropy_f=_entropy(entropy))
        self.message: bytes = self._spake.start()
        self._used = False

    def check(self, joiner_message: bytes, joiner_proof: bytes, binding: Binding) -> bytes | None:
        """The host's confirmation when the joiner proved the password, else None. An exchange
        tests one guess: it answers None to every call after the first."""
        if self._used:
            return None
        self._used = True
        try:
            shared = self._spake.finish(joiner_message)
        except Exception:  # SPAKEError, ValueError, the library's NotOnCurve: all unusable
            return None  # not a point of the group, or the wrong side
        want, host_proof = confirmations(shared, binding)
        return host_proof if hmac.compare_digest(want, joiner_proof) else None


@dataclass(frozen=True, slots=True)
class JoinerAnswer:
    message: bytes  #: the joiner's SPAKE2 message, for the join frame
    proof: bytes  #: the joiner's confirmation, for the join frame
    host_proof: bytes  #: the confirmation the welcome must carry
    work: int  #: the proof of work of this attempt (`solve_work`), for the join frame


def joiner_answer(
    verifier: bytes, entropy: bytes, host_message: bytes, binding: Binding
) -> JoinerAnswer:
    """The joiner's side: ValueError when the host's message is not a SPAKE2 host message."""
    spake = SPAKE2_A(verifier, idA=ID_JOINER, idB=ID_HOST, entropy_f=_entropy(entropy))
    message = spake.start()
    try:
        shared = spake.finish(host_message)
    except Exception as err:  # SPAKEError, and the library's NotOnCurve
        raise ValueError(f"the host's password exchange message is unusable: {err}") from None
    proof, host_proof = confirmations(shared, binding)
    work = solve_work(binding, message)
    return JoinerAnswer(message=message, proof=proof, host_proof=host_proof, work=work)
