"""protocol/vectors/v1: the spec's independent statement of the primitives, against the core."""

from __future__ import annotations

import pytest

from p2pdice.core import codec
from p2pdice.core.fairness import (
    SeatCommitment,
    SeatContext,
    beacon,
    commit_set_hash,
    comparison_code,
    contribution_matches,
    derive_dice,
    draw_starter,
    opening_matches,
)
from p2pdice.core.hashing import framed, tagged_hash
from p2pdice.core.pake import (
    Binding,
    HostExchange,
    joiner_answer,
    joiner_message_ok,
    password_verifier,
    work_hash,
    work_ok,
)
from p2pdice.core.signing import SigningKey, verify_raw
from tests.support.vectors import case_ids, cases

h = bytes.fromhex


def params(name: str):
    return pytest.mark.parametrize(("group", "test"), list(cases(name)), ids=case_ids(name))


@params("framing.json")
def test_framing(group, test) -> None:
    fields = [h(f) for f in test["fields"]]
    assert framed(test["tag"], *fields).hex() == test["framed"]
    assert tagged_hash(test["tag"], *fields).hex() == test["hash"]


@params("commitments.json")
def test_commitments(group, test) -> None:
    ctx = SeatContext(
        table_id=h(test["table_id"]),
        round=test["round"],
        attempt=test["attempt"],
        seat=test["seat"],
        key=h(test["key"]),
        dice=test["dice"],
    )
    if test["kind"] == "seed":
        ok = opening_matches(
            ctx, h(test["commitment"]), salt=h(test["salt"]), seed=h(test["secret"])
        )
    else:
        ok = contribution_matches(ctx, h(test["commitment"]), contribution=h(test["secret"]))
    assert ok == (test["result"] == "valid"), test["comment"]


@params("commit_set.json")
def test_commit_set_and_beacon(group, test) -> None:
    tid = h(test["table_id"])
    commits = [
        SeatCommitment(c["seat"], h(c["seed_commit"]), h(c["contrib_commit"]))
        for c in test["commits"]
    ]
    cs = commit_set_hash(tid, test["round"], test["attempt"], commits)
    assert cs.hex() == test["commit_set"]
    r = beacon(tid, test["round"], test["attempt"], cs, [h(t) for t in test["contributions"]])
    assert r.hex() == test["beacon"]


@params("dice.json")
def test_dice(group, test) -> None:
    dice = derive_dice(
        h(test["seed"]),
        table_id=h(test["table_id"]),
        round_=test["round"],
        attempt=test["attempt"],
        seat=test["seat"],
        beacon_r=h(test["beacon"]),
        count=test["count"],
    )
    assert list(dice) == test["dice"], test["comment"]


@params("starter.json")
def test_starter(group, test) -> None:
    got = draw_starter(h(test["beacon"]), table_id=h(test["table_id"]), seats=test["seats"])
    assert got == test["starter"], test["comment"]


@params("password.json")
def test_password(group, test) -> None:
    table = h(test["table_id"])
    binding = Binding(table, h(test["host_key"]), h(test["nonce"]), h(test["player_key"]))
    verifier = password_verifier(test["host_password"], table)
    assert verifier.hex() == test["verifier"]
    host = HostExchange(verifier, h(test["host_entropy"]))
    assert host.message.hex() == test["host_message"]
    answer = joiner_answer(
        password_verifier(test["joiner_password"], table),
        h(test["joiner_entropy"]),
        host.message,
        binding,
    )
    assert answer.message.hex() == test["joiner_message"]
    assert answer.proof.hex() == test["joiner_proof"]
    assert answer.work == test["work"]  # the smallest counter that proves the work
    assert work_hash(binding, answer.message, answer.work).hex() == test["work_hash"]
    assert work_ok(binding, answer.message, answer.work)
    assert joiner_message_ok(answer.message)
    host_proof = host.check(answer.message, answer.proof, binding)
    if test["result"] == "valid":
        assert host_proof is not None and host_proof.hex() == test["host_proof"]
        assert answer.host_proof == host_proof  # the joiner expects exactly this
    else:
        assert host_proof is None and test["host_proof"] is None


@params("comparison_code.json")
def test_comparison_code(group, test) -> None:
    entry = test["head_entry_hash"] if group["type"] == "head_code" else test["start_entry_hash"]
    assert comparison_code(h(entry)) == test["code"]


@params("canonical_json.json")
def test_canonical_json(group, test) -> None:
    if group["type"] == "encode":
        assert codec.encode(test["value"]).hex() == test["canonical"], test["comment"]
        return
    data = h(test["input"])
    if test["result"] == "valid":
        assert codec.encode(codec.decode(data)) == data
    else:
        with pytest.raises(codec.CodecError) as info:
            codec.decode(data)
        assert info.value.reason == test["reason"], test["comment"]


@params("ed25519.json")
def test_ed25519(group, test) -> None:
    if group["type"] == "weak":
        from p2pdice.core.signing import signed_bytes, verify

        assert signed_bytes(test["context"], test["body"]).hex() == test["signed_bytes"]
        assert not verify(h(test["public"]), test["context"], test["body"], h(test["signature"]))
        return
    key = SigningKey(h(test["secret"]))
    assert key.public.hex() == test["public"]
    if group["type"] == "rfc8032":
        assert key.sign_raw(h(test["message"])).hex() == test["signature"]
        assert verify_raw(key.public, h(test["message"]), h(test["signature"]))
        return
    from p2pdice.core.signing import signed_bytes, verify

    assert signed_bytes(test["context"], test["body"]).hex() == test["signed_bytes"]
    ok = verify(h(test["public"]), test["context"], test["body"], h(test["signature"]))
    assert ok == (test["result"] == "valid"), test["comment"]


def test_the_small_order_blocklist_is_the_vectors_list() -> None:
    """signing.py's precomputed list is exactly the 8 points the generator derives."""
    from p2pdice.core.signing import SMALL_ORDER_ENCODINGS

    listed = {
        h(t["public"]) for g, t in cases("ed25519.json") if t.get("kind") == "small_order_key"
    }
    assert listed == SMALL_ORDER_ENCODINGS and len(listed) == 8


def test_openssl_alone_accepts_some_weak_vectors() -> None:
    """The weak group is not vacuous: a plain cofactorless verifier accepts several of them."""
    accepted = [t["tc_id"] for g, t in cases("ed25519.json") if t.get("openssl_accepts")]
    assert len(accepted) >= 4
