"""Event hashes, leaves, receipts, checkpoints, keys and base64url of CONTRACT §11."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nacl.signing import SigningKey

from tests.ledger_support import client_cbor
from webapp.ledger import cbor, events, keys
from webapp.ledger.encoding import b64url_decode, b64url_encode, hash_from_hex, is_hash_hex
from webapp.ledger.errors import InvalidEventError, SignatureError

SIGNING_KEY = SigningKey.generate()
PUBLIC_KEY = bytes(SIGNING_KEY.verify_key)


def sign(payload: bytes) -> bytes:
    return SIGNING_KEY.sign(payload).signature


def make_event(**changes: object) -> dict:
    event = {
        "accepted_at": "2026-11-22T01:22:31.123456Z",
        "action_category": "clearance_decision",
        "action_metadata": {"human_principal": "ops@example.com", "data_categories": ["pii"]},
        "agent_id": "agent-7",
        "approved": True,
        "canonical_version": 2,
        "citations": [
            {
                "policy_id": "refunds",
                "policy_version_id": "pv-1",
                "chunk_id": "c-1",
                "text": "Refunds up to 100 EUR",
                "score": 1,
            }
        ],
        "confidence": 0.91,
        "event_uuid": "6f1c1d2e-8a4b-4c57-9a43-2f7f3b9d0e11",
        "evidence_chunks": [{"chunk_id": "c-1", "score": 0.5, "rank": 1}],
        "intent_hash": hashlib.sha256(b'{"amount":45,"currency":"EUR"}').hexdigest(),
        "policy_id": "refunds",
        "policy_version_id": "pv-1",
        "policy_content_hash": hashlib.sha256(b"policy").hexdigest(),
        "reason": "Refund within the limit",
        "request_id": "req-1",
        "tool_args": {"amount": 45, "currency": "EUR"},
        "tool_name": "stripe_refund",
    }
    event.update(changes)
    return event


# An independent encoder written the way existing clients write theirs (CONTRACT §11 says
# "which is what existing clients do"), so that the core is checked against a second reading.
def _floats(value: object) -> object:
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return {k: _floats(v) for k, v in value.items()}  # type: ignore[union-attr]


def _client_event_hash(event: dict) -> str:
    hashed = dict(event, confidence=float(event["confidence"]))
    for key in ("tool_args", "action_metadata", "citations", "evidence_chunks"):
        hashed[key] = _floats(event[key])
    return hashlib.sha256(b"ledgix.audit.event.v1\x00" + client_cbor(hashed)).hexdigest()


def test_event_keys_are_exactly_those_of_the_contract() -> None:
    listed = (
        "accepted_at, action_category, action_metadata, agent_id, approved, canonical_version, "
        "citations, confidence, event_uuid, evidence_chunks, intent_hash, policy_id, "
        "policy_version_id, policy_content_hash, reason, request_id, tool_args, tool_name"
    )
    assert events.EVENT_KEYS == frozenset(listed.split(", "))


def test_event_hash_is_the_domain_separated_hash_of_cbor() -> None:
    event = make_event()
    payload = events.event_payload(event)
    assert (
        events.event_hash(event)
        == hashlib.sha256(b"ledgix.audit.event.v1\x00" + payload).hexdigest()
    )
    decoded = cbor.decode(payload)
    assert list(decoded) == sorted(events.EVENT_KEYS, key=lambda k: (len(k), k))
    assert decoded["canonical_version"] == 2 and type(decoded["canonical_version"]) is int
    assert decoded["tool_args"]["amount"] == 45.0 and type(decoded["tool_args"]["amount"]) is float
    assert type(decoded["citations"][0]["score"]) is float
    assert type(decoded["evidence_chunks"][0]["rank"]) is float
    assert events.event_hash(event) == _client_event_hash(event)


def test_event_hash_golden() -> None:
    # Pinned so that any change to the canonical form is a deliberate, visible one.
    assert events.event_hash(make_event()) == (
        "198531dcb4a9e12e6c31f882a87e3f66c4b60a1c971393ca8a86bacdc8a00ecb"
    )


def test_integral_and_fractional_spellings_hash_alike() -> None:
    assert events.event_hash(make_event(tool_args={"amount": 45})) == events.event_hash(
        make_event(tool_args={"amount": 45.0})
    )
    assert events.event_hash(make_event(confidence=1)) == events.event_hash(
        make_event(confidence=1.0)
    )
    # …but a bool is not a number, and a string is not either.
    base = events.event_hash(make_event(tool_args={"flag": 1}))
    assert events.event_hash(make_event(tool_args={"flag": True})) != base
    assert events.event_hash(make_event(tool_args={"flag": "1"})) != base


@pytest.mark.parametrize("key", sorted(events.EVENT_KEYS - {"canonical_version"}))
def test_every_field_changes_the_hash(key: str) -> None:
    event = make_event()
    value = event[key]
    if isinstance(value, bool):
        changed: object = not value
    elif isinstance(value, float):
        changed = value + 0.01
    elif isinstance(value, str):
        changed = value + "x"
    elif isinstance(value, dict):
        changed = {**value, "extra": 1}
    else:
        changed = [*value, {}]
    assert events.event_hash(make_event(**{key: changed})) != events.event_hash(event)


def test_event_must_have_exactly_the_keys() -> None:
    event = make_event()
    del event["reason"]
    with pytest.raises(InvalidEventError, match="missing reason"):
        events.event_hash(event)
    with pytest.raises(InvalidEventError, match="unexpected seq"):
        events.event_hash(make_event(seq=1))


@pytest.mark.parametrize(
    "changes",
    [
        {"canonical_version": 1},
        {"canonical_version": 2.0},
        {"canonical_version": True},
        {"confidence": True},
        {"confidence": "0.9"},
        {"confidence": float("nan")},
        {"approved": 1},
        {"reason": None},
        {"tool_args": []},
        {"citations": {}},
        {"tool_args": {"amount": float("inf")}},
        {"action_metadata": {"when": object()}},
        {"tool_args": {"amount": 10**400}},
    ],
    ids=repr,
)
def test_malformed_events_are_refused(changes: dict) -> None:
    with pytest.raises(InvalidEventError):
        events.event_hash(make_event(**changes))


def test_event_from_entry_drops_the_entry_only_fields() -> None:
    entry = {**make_event(), "seq": 3, "leaf_index": 2, "event_hash": "00" * 32}
    assert events.event_from_entry(entry) == make_event()
    del entry["tool_name"]
    with pytest.raises(InvalidEventError, match="tool_name"):
        events.event_from_entry(entry)


def test_leaf_hash_matches_the_ledgix_vector() -> None:
    event_hash = "28bff2fbc1ffc759f7f9392bdd1cd1936d54cb625277e4dfe6bcfe4e5e6b1461"
    assert events.leaf_hash_hex(event_hash) == (
        "c26530752a5fa2f50424d31505e54ba5fa35ce4d32db8103166582ff35f04ecf"
    )
    with pytest.raises(ValueError):
        events.leaf_hash_hex(event_hash.upper())


@given(
    st.dictionaries(
        st.text(max_size=6),
        st.recursive(
            st.none()
            | st.booleans()
            | st.text(max_size=5)
            | st.integers(-(2**53) + 1, 2**53 - 1)
            | st.floats(allow_nan=False, allow_infinity=False),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
            max_leaves=12,
        ),
        max_size=5,
    ),
    st.floats(0, 1),
)
def test_event_hash_agrees_with_a_client_style_encoder(tool_args: dict, confidence: float) -> None:
    event = make_event(
        tool_args=tool_args, action_metadata={"args": tool_args}, confidence=confidence
    )
    assert events.event_hash(event) == _client_event_hash(event)


RECEIPT_FIELDS = {
    "accepted_at": "2026-11-22T01:22:31.123456Z",
    "event_hash": "ab" * 32,
    "event_uuid": "6f1c1d2e-8a4b-4c57-9a43-2f7f3b9d0e11",
    "leaf_hash": "cd" * 32,
    "receipt_key_id": "vault-key-001",
    "request_id": "req-1",
}


def test_receipt_round_trip_and_signature() -> None:
    payload = events.receipt_payload(**RECEIPT_FIELDS)
    assert cbor.decode(payload) == {**RECEIPT_FIELDS, "type": "event_receipt", "version": 1}
    issued = events.issue_receipt(**RECEIPT_FIELDS, sign=sign)
    assert issued["receipt_algorithm"] == "Ed25519"
    assert issued["receipt_key_id"] == "vault-key-001"
    assert b64url_decode(issued["receipt_payload"]) == payload
    signature = b64url_decode(issued["receipt_signature"])
    keys.verify_signature(PUBLIC_KEY, payload, signature)
    with pytest.raises(SignatureError):
        keys.verify_signature(PUBLIC_KEY, payload[:-1] + b"\x00", signature)
    with pytest.raises(SignatureError):
        keys.verify_signature(bytes(SigningKey.generate().verify_key), payload, signature)


@pytest.mark.parametrize(
    "changes", [{"event_hash": "AB" * 32}, {"leaf_hash": "cd" * 31}, {"request_id": None}]
)
def test_receipt_refuses_malformed_fields(changes: dict) -> None:
    with pytest.raises(ValueError):
        events.receipt_payload(**{**RECEIPT_FIELDS, **changes})


CHECKPOINT_FIELDS = {
    "export_target": "s3://anchors/ledger",
    "key_id": "vault-key-001",
    "mmd_seconds": 30,
    "prev_checkpoint_hash": "",
    "root_hash": "ef" * 32,
    "signed_at": "2026-11-22T01:23:00.000000Z",
    "tree_size": 5,
}


def test_checkpoint_payload_hash_and_signature() -> None:
    payload = events.checkpoint_payload(**CHECKPOINT_FIELDS)
    decoded = cbor.decode(payload)
    assert decoded == {
        "export_targets": ["s3://anchors/ledger"],
        "key_id": "vault-key-001",
        "mmd_seconds": 30,
        "prev_checkpoint_hash": "",
        "root_hash": "ef" * 32,
        "signed_at": "2026-11-22T01:23:00.000000Z",
        "tree_size": 5,
        "type": "checkpoint",
        "version": 1,
    }
    assert (
        events.checkpoint_hash(payload)
        == hashlib.sha256(b"ledgix.audit.checkpoint.v1\x00" + payload).hexdigest()
    )
    record = events.sign_checkpoint(**CHECKPOINT_FIELDS, sign=sign)
    assert record["checkpoint_hash"] == events.checkpoint_hash(payload)
    assert b64url_decode(record["checkpoint_payload"]) == payload
    assert record["signer_key_id"] == "vault-key-001"
    assert record["signature_algorithm"] == "Ed25519"
    keys.verify_signature(PUBLIC_KEY, payload, b64url_decode(record["checkpoint_signature"]))


@pytest.mark.parametrize("target", ["", None])
def test_checkpoint_without_export_target_lists_none(target: str | None) -> None:
    payload = events.checkpoint_payload(**{**CHECKPOINT_FIELDS, "export_target": target})
    assert cbor.decode(payload)["export_targets"] == []


@pytest.mark.parametrize(
    "changes",
    [
        {"tree_size": 0},
        {"tree_size": True},
        {"mmd_seconds": 1.5},
        {"root_hash": "EF" * 32},
        {"prev_checkpoint_hash": "12"},
        {"signed_at": 5},
    ],
    ids=repr,
)
def test_checkpoint_refuses_malformed_fields(changes: dict) -> None:
    with pytest.raises(ValueError):
        events.checkpoint_payload(**{**CHECKPOINT_FIELDS, **changes})


def test_b64url_is_unpadded_and_strict() -> None:
    for length in range(0, 10):
        data = bytes(range(250, 250 - length, -1))
        text = b64url_encode(data)
        assert "=" not in text and "+" not in text and "/" not in text
        assert b64url_decode(text) == data
    for bad in ["AA==", "A", "AB+/", "AB C", "AB", "AAB"]:
        # "AB" and "AAB" carry non-zero unused bits: another spelling of the same bytes.
        with pytest.raises(ValueError):
            b64url_decode(bad)
    assert b64url_decode("AA") == b"\x00"


def test_hash_hex_is_lowercase_only() -> None:
    assert is_hash_hex("0f" * 32) and not is_hash_hex("0F" * 32) and not is_hash_hex("0f" * 31)
    assert hash_from_hex("0f" * 32) == b"\x0f" * 32
    with pytest.raises(ValueError):
        hash_from_hex(None)


def test_jwk_and_bundle_key_round_trip() -> None:
    jwk = keys.public_jwk(PUBLIC_KEY, "vault-key-001")
    assert jwk == {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": b64url_encode(PUBLIC_KEY),
        "kid": "vault-key-001",
        "use": "sig",
        "alg": "EdDSA",
    }
    assert keys.public_key_from_jwk(jwk) == PUBLIC_KEY
    entry = keys.bundle_key_entry(jwk, active_from="2026-01-01T00:00:00.000000Z")
    assert entry["key_id"] == "vault-key-001" and entry["algorithm"] == "Ed25519"
    assert "retired_at" not in entry  # left out while active, never null (CONTRACT §11)
    assert json.loads(b64url_decode(entry["public_jwk"])) == jwk
    assert keys.key_from_bundle_entry(entry) == ("vault-key-001", PUBLIC_KEY)


@pytest.mark.parametrize(
    "jwk_changes",
    [{"kty": "RSA"}, {"crv": "X25519"}, {"alg": "ES256"}, {"x": "AAAA"}, {"d": "secret"}],
    ids=repr,
)
def test_non_ed25519_public_jwks_are_refused(jwk_changes: dict) -> None:
    jwk = {**keys.public_jwk(PUBLIC_KEY, "k1"), **jwk_changes}
    with pytest.raises(ValueError):
        keys.public_key_from_jwk(jwk)
    with pytest.raises(ValueError):
        keys.bundle_key_entry(jwk, active_from="")


def test_bundle_key_entry_must_name_its_own_key() -> None:
    entry = keys.bundle_key_entry(keys.public_jwk(PUBLIC_KEY, "k1"), active_from="")
    with pytest.raises(ValueError, match="kid"):
        keys.key_from_bundle_entry({**entry, "key_id": "k2"})
    with pytest.raises(ValueError, match="algorithm"):
        keys.key_from_bundle_entry({**entry, "algorithm": "EdDSA"})


def test_signature_verification_refuses_malformed_inputs() -> None:
    with pytest.raises(SignatureError):
        keys.verify_signature(PUBLIC_KEY[:31], b"x", sign(b"x"))
    with pytest.raises(SignatureError):
        keys.verify_signature(PUBLIC_KEY, b"x", sign(b"x")[:63])


def test_the_worked_example_of_docs_verify_md() -> None:
    event = {
        "accepted_at": "2026-11-22T01:22:31.123456Z",
        "action_category": "clearance_decision",
        "action_metadata": {},
        "agent_id": "a",
        "approved": True,
        "canonical_version": 2,
        "citations": [],
        "confidence": 0.9,
        "event_uuid": "u",
        "evidence_chunks": [],
        "intent_hash": "",
        "policy_id": "p",
        "policy_version_id": "v",
        "policy_content_hash": "",
        "reason": "r",
        "request_id": "q",
        "tool_args": {"amount": 45},
        "tool_name": "t",
    }
    payload = events.event_payload(event)
    assert payload.startswith(bytes.fromhex("b266726561736f6e6172686167656e745f69646161"))
    assert bytes.fromhex("a166616d6f756e74fb4046800000000000") in payload
    assert events.event_hash(event) == (
        "4e54fee9612688cf8e8b0e809717627cdbe7b21cdcd043acca58547aa2798b67"
    )
