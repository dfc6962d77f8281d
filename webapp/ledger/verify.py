"""The offline verifier of a proof bundle (CONTRACT §11): every check it makes is reported.

A bundle is `{event, inclusion, consistency, keys}`. The chain of trust runs: the event's fields
→ `event_hash` → `leaf_hash` → (signed receipt) → inclusion proof → the checkpoint's root →
(signed checkpoint payload) → consistency proof → the latest checkpoint. Each link is its own
check, so a report names exactly which link broke. Nothing here trusts a field that a signature
or hash does not bind, except to compare it with one that is bound.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import rfc8785

from . import cbor, merkle
from .encoding import b64url_decode, hash_from_hex, is_hash_hex
from .events import (
    ACTION_CATEGORIES,
    CHECKPOINT_PAYLOAD_KEYS,
    DECISION_CATEGORIES,
    RECEIPT_PAYLOAD_KEYS,
    SIGNATURE_ALGORITHM,
    checkpoint_hash,
    event_from_entry,
    event_hash,
    leaf_hash_hex,
)
from .keys import key_from_bundle_entry, public_key_from_jwk, verify_signature

__all__ = ["BundleReport", "Check", "confidence_bucket", "verify_bundle"]

# Fields that may be "" (no value) but are lowercase hex digests otherwise.
_OPTIONAL_HASH_FIELDS = ("intent_hash", "policy_content_hash")
_RECEIPT_FIELDS = (
    "accepted_at",
    "event_hash",
    "event_uuid",
    "leaf_hash",
    "receipt_key_id",
    "request_id",
)


@dataclass(frozen=True)
class Check:
    """One verification step: its stable name, outcome, and a human-readable detail."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class BundleReport:
    """Every check made on a bundle; `intact` only when there were checks and all passed."""

    checks: tuple[Check, ...]
    intact: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "intact", bool(self.checks) and all(c.ok for c in self.checks))

    @property
    def failed(self) -> list[str]:
        """Names of the checks that failed, in the order they ran."""
        return [check.name for check in self.checks if not check.ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: `{"intact", "checks": [{"name", "ok", "detail"}]}`."""
        return {
            "intact": self.intact,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks],
        }


def confidence_bucket(confidence: float) -> str:
    """The bucket of CONTRACT §3 for a confidence in [0, 1]."""
    if not 0.0 <= confidence <= 1.0:
        raise ValueError(f"confidence {confidence} is outside [0, 1]")
    if confidence >= 0.95:
        return "extra_high"
    if confidence >= 0.80:
        return "high"
    if confidence >= 0.60:
        return "medium"
    return "low" if confidence > 0 else "none"


def verify_bundle(bundle: Mapping[str, Any], jwks: Mapping[str, Any] | None = None) -> BundleReport:
    """Verify a proof bundle offline; with `jwks`, its keys must also match the published set."""
    return _BundleVerifier(bundle, jwks).run()


class _Failed(Exception):
    """A check's finding, reported as its detail."""


class _BundleVerifier:
    def __init__(self, bundle: Mapping[str, Any], jwks: Mapping[str, Any] | None) -> None:
        self.bundle = bundle
        self.jwks = jwks
        self.checks: list[Check] = []
        self.keys: dict[str, bytes] = {}
        self.windows: dict[str, tuple[datetime | None, datetime | None]] = {}

    def run(self) -> BundleReport:
        if not self.check("bundle.structure", self.structure):
            return BundleReport(tuple(self.checks))
        self.event: Mapping[str, Any] = self.bundle["event"]
        self.inclusion: Mapping[str, Any] = self.bundle["inclusion"]
        self.checkpoint: Mapping[str, Any] = self.inclusion["checkpoint"]
        # Left out when none (CONTRACT §11); older bundles carry null, which means the same.
        self.consistency: Mapping[str, Any] | None = self.bundle.get("consistency")

        self.check("keys.entries", self.key_entries)
        if self.jwks is not None:
            self.check("keys.jwks", self.keys_match_jwks)
        self.check("keys.coverage", self.key_coverage)
        self.check("keys.validity", self.key_validity)

        self.check("event.fields", self.event_fields)
        self.check("event.hash", self.recomputed_event_hash)
        self.check("event.intent_hash", self.intent_hash)
        self.check("event.leaf_hash", self.event_leaf_hash)
        self.check("receipt.payload", self.receipt_payload)
        self.check("receipt.signature", self.receipt_signature)

        self.check("inclusion.event", self.inclusion_event)
        self.check("inclusion.leaf_index", self.inclusion_leaf_index)
        self.check("inclusion.tree_size", self.inclusion_tree_size)
        self.check("inclusion.checkpoint_id", self.inclusion_checkpoint_id)
        self.check("inclusion.proof", self.inclusion_proof)
        self.checkpoint_checks("inclusion.checkpoint", self.checkpoint)

        if self.consistency is None:
            self.checks.append(
                Check("consistency", True, "none: the inclusion checkpoint is the latest one")
            )
        else:
            later = self.consistency["to_checkpoint"]
            self.check("consistency.from_checkpoint", self.consistency_from)
            self.checkpoint_checks("consistency.to_checkpoint", later)
            self.check("consistency.order", self.consistency_order)
            self.check("consistency.proof", self.consistency_proof)
            self.check("consistency.chain", self.consistency_chain)

        self.check("bundle.lowercase_hex", self.lowercase_hex)
        return BundleReport(tuple(self.checks))

    def check(self, name: str, step: Callable[[], str | None]) -> bool:
        """Run one step; any exception fails that check (fail closed) without stopping others."""
        try:
            detail = step()
        except _Failed as exc:
            self.checks.append(Check(name, False, str(exc)))
            return False
        except Exception as exc:  # noqa: BLE001 - a malformed bundle must fail, never crash
            self.checks.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
            return False
        self.checks.append(Check(name, True, detail or "ok"))
        return True

    def checkpoint_checks(self, prefix: str, record: Mapping[str, Any]) -> None:
        self.check(f"{prefix}.record", lambda: _checkpoint_record(record))
        self.check(f"{prefix}.payload", lambda: _checkpoint_payload(record))
        self.check(f"{prefix}.hash", lambda: _checkpoint_hash(record))
        self.check(f"{prefix}.signature", lambda: self.checkpoint_signature(record))

    # --- the steps ---------------------------------------------------------------------------

    def structure(self) -> str:
        bundle = self.bundle
        _expect(isinstance(bundle, Mapping), "bundle is not a JSON object")
        for name, kind in (("event", Mapping), ("inclusion", Mapping), ("keys", list)):
            _expect(isinstance(bundle.get(name), kind), f"bundle.{name} is missing or malformed")
        _expect(
            isinstance(bundle["inclusion"].get("checkpoint"), Mapping),
            "inclusion.checkpoint is missing",
        )
        consistency = bundle.get("consistency")
        if consistency is not None:
            _expect(isinstance(consistency, Mapping), "consistency must be an object or null")
            for name in ("from_checkpoint", "to_checkpoint"):
                _expect(isinstance(consistency.get(name), Mapping), f"consistency.{name} missing")
        return "event, inclusion, consistency and keys present"

    def key_entries(self) -> str:
        problems = []
        for position, entry in enumerate(self.bundle["keys"]):
            try:
                key_id, public_key = key_from_bundle_entry(entry)
                if key_id in self.keys and self.keys[key_id] != public_key:
                    raise ValueError(f"key {key_id} appears twice with different keys")
                self.keys[key_id] = public_key
                self.windows[key_id] = (
                    _optional_time(entry.get("active_from")),
                    _optional_time(entry.get("retired_at")),
                )
            except (ValueError, TypeError, _Failed) as exc:
                problems.append(f"keys[{position}]: {exc}")
        _expect(not problems, "; ".join(problems))
        _expect(bool(self.keys), "the bundle carries no keys")
        return f"{len(self.keys)} Ed25519 key(s): {', '.join(sorted(self.keys))}"

    def keys_match_jwks(self) -> str:
        published: dict[str, bytes] = {}
        entries = self.jwks.get("keys") if isinstance(self.jwks, Mapping) else None
        _expect(isinstance(entries, list), "the JWKS has no keys list")
        for jwk in entries:
            if isinstance(jwk, Mapping) and jwk.get("kty") == "OKP" and "kid" in jwk:
                published[jwk["kid"]] = public_key_from_jwk(jwk)
        for key_id, public_key in sorted(self.keys.items()):
            _expect(key_id in published, f"key {key_id} is not in the JWKS")
            _expect(published[key_id] == public_key, f"key {key_id} differs from the JWKS")
        return "every bundle key is published in the JWKS with the same x"

    def key_coverage(self) -> str:
        signers = {key_id for _, _, key_id in self._signatures()}
        missing = sorted(signers - self.keys.keys())
        _expect(not missing, f"no usable key for {', '.join(missing)}")
        return f"signers {', '.join(sorted(signers))} all have keys"

    def key_validity(self) -> str:
        for what, signed_at, key_id in self._signatures():
            if key_id not in self.windows:
                continue  # reported by keys.coverage
            start, end = self.windows[key_id]
            moment = _time(signed_at)
            _expect(start is None or start <= moment, f"{what} predates key {key_id}")
            _expect(end is None or moment < end, f"{what} was signed after {key_id} retired")
        return "every signature falls within its key's active period"

    def event_fields(self) -> str:
        event = self.event
        category = event["action_category"]
        _expect(category in ACTION_CATEGORIES, f"unknown action_category {category!r}")
        confidence = event["confidence"]
        _expect(
            isinstance(confidence, (int, float))
            and not isinstance(confidence, bool)
            and math.isfinite(confidence),
            "confidence is not a number",
        )
        if category in DECISION_CATEGORIES:
            expected_status = "approved" if event["approved"] is True else "denied"
            _expect(
                event["decision_status"] == expected_status,
                f"decision_status {event['decision_status']!r} contradicts approved",
            )
            _expect(
                event["confidence_bucket"] == confidence_bucket(confidence),
                f"confidence_bucket {event['confidence_bucket']!r} contradicts confidence",
            )
            return f"{category}: decision_status and confidence_bucket agree with the hash"
        _expect(event["approved"] is False, f"{category} events have approved false")
        _expect(confidence == 0, f"{category} events have confidence 0")
        _expect(
            event["decision_status"] is None and event["confidence_bucket"] is None,
            f"{category} events have null decision_status and confidence_bucket",
        )
        return f"{category}: not a decision, fields as §11 requires"

    def recomputed_event_hash(self) -> str:
        computed = event_hash(event_from_entry(self.event))
        _expect(computed == self.event["event_hash"], f"recomputed event hash is {computed}")
        return computed

    def intent_hash(self) -> str:
        category = self.event["action_category"]
        intent = self.event["intent_hash"]
        if category in DECISION_CATEGORIES:
            computed = hashlib.sha256(rfc8785.dumps(self.event["tool_args"])).hexdigest()
            _expect(intent == computed, f"SHA-256 of the JCS of tool_args is {computed}")
            return "intent_hash is the SHA-256 of the RFC 8785 JSON of tool_args"
        if category in (
            "policy_registered",
            "settings_changed",
            "agent_lockdown",
            "agent_release",
            "report_generated",
        ):
            _expect(intent == "", f"{category} events have no tool arguments: intent_hash ''")
            return "no tool arguments: intent_hash is empty"
        return f"{category}: intent_hash is not bound to tool_args"

    def event_leaf_hash(self) -> str:
        computed = leaf_hash_hex(self.event["event_hash"])
        _expect(computed == self.event["leaf_hash"], f"SHA-256(0x00 || event_hash) is {computed}")
        return computed

    def receipt_payload(self) -> str:
        payload = _decode_payload(self.event["receipt_payload"])
        _expect_keys(payload, RECEIPT_PAYLOAD_KEYS, "receipt payload")
        _expect(
            payload["type"] == "event_receipt" and payload["version"] == 1,
            "receipt payload is not an event_receipt of version 1",
        )
        for name in _RECEIPT_FIELDS:
            _expect(payload[name] == self.event[name], f"receipt {name} differs from the event's")
        return "decodes, and binds accepted_at, event_hash, event_uuid, leaf_hash, key, request"

    def receipt_signature(self) -> str:
        _expect(
            self.event["receipt_algorithm"] == SIGNATURE_ALGORITHM,
            "receipt_algorithm must be Ed25519",
        )
        key_id = self.event["receipt_key_id"]
        _expect(key_id in self.keys, f"no key {key_id!r} in the bundle")
        payload = b64url_decode(self.event["receipt_payload"])
        verify_signature(self.keys[key_id], payload, b64url_decode(self.event["receipt_signature"]))
        return f"Ed25519 signature by {key_id} verifies"

    def inclusion_event(self) -> str:
        for name in ("event_uuid", "request_id", "event_hash", "leaf_hash"):
            _expect(self.inclusion[name] == self.event[name], f"inclusion {name} differs")
        return "event_uuid, request_id, event_hash and leaf_hash match the event"

    def inclusion_leaf_index(self) -> str:
        index = _integer(self.inclusion["leaf_index"], "inclusion.leaf_index")
        _expect(
            _integer(self.event["leaf_index"], "event.leaf_index") == index,
            "event.leaf_index != inclusion.leaf_index",
        )
        size = _integer(self.checkpoint["tree_size"], "checkpoint.tree_size")
        _expect(0 <= index < size, f"leaf_index {index} is not below tree_size {size}")
        return f"leaf {index} of {size}"

    def inclusion_tree_size(self) -> str:
        size = _integer(self.inclusion["tree_size"], "inclusion.tree_size")
        _expect(size == self.checkpoint["tree_size"], "inclusion.tree_size != checkpoint's")
        return f"tree_size {size}"

    def inclusion_checkpoint_id(self) -> str:
        checkpoint_id = self.checkpoint["checkpoint_id"]
        _expect(
            _integer(self.event["checkpoint_id"], "event.checkpoint_id") == checkpoint_id,
            "the inclusion proof is not against the checkpoint that sealed the event",
        )
        return f"proved against checkpoint {checkpoint_id}, the one that sealed the event"

    def inclusion_proof(self) -> str:
        path = _hash_list(self.inclusion["path"], "inclusion.path")
        merkle.verify_inclusion(
            hash_from_hex(self.inclusion["leaf_hash"]),
            _integer(self.inclusion["leaf_index"], "inclusion.leaf_index"),
            _integer(self.checkpoint["tree_size"], "checkpoint.tree_size"),
            path,
            hash_from_hex(self.checkpoint["root_hash"]),
        )
        return f"{len(path)}-hash path leads to the checkpoint root"

    def checkpoint_signature(self, record: Mapping[str, Any]) -> str:
        _expect(
            record["signature_algorithm"] == SIGNATURE_ALGORITHM,
            "signature_algorithm must be Ed25519",
        )
        key_id = record["signer_key_id"]
        _expect(key_id in self.keys, f"no key {key_id!r} in the bundle")
        payload = b64url_decode(record["checkpoint_payload"])
        verify_signature(self.keys[key_id], payload, b64url_decode(record["checkpoint_signature"]))
        return f"Ed25519 signature by {key_id} verifies"

    def consistency_from(self) -> str:
        _expect(
            self.consistency["from_checkpoint"] == self.checkpoint,
            "consistency.from_checkpoint is not the inclusion checkpoint",
        )
        return "starts at the inclusion checkpoint"

    def consistency_order(self) -> str:
        earlier, later = self.consistency["from_checkpoint"], self.consistency["to_checkpoint"]
        _expect(
            _integer(later["tree_size"], "to.tree_size")
            > _integer(earlier["tree_size"], "from.tree_size"),
            "a consistency proof only goes to a larger tree",
        )
        _expect(
            _integer(later["checkpoint_id"], "to.checkpoint_id")
            > _integer(earlier["checkpoint_id"], "from.checkpoint_id"),
            "the later checkpoint must have a larger checkpoint_id",
        )
        return f"checkpoint {earlier['checkpoint_id']} → {later['checkpoint_id']}"

    def consistency_proof(self) -> str:
        earlier, later = self.consistency["from_checkpoint"], self.consistency["to_checkpoint"]
        path = _hash_list(self.consistency["path"], "consistency.path")
        merkle.verify_consistency(
            _integer(earlier["tree_size"], "from.tree_size"),
            _integer(later["tree_size"], "to.tree_size"),
            hash_from_hex(earlier["root_hash"]),
            hash_from_hex(later["root_hash"]),
            path,
        )
        return f"tree {earlier['tree_size']} is a prefix of tree {later['tree_size']}"

    def consistency_chain(self) -> str:
        earlier, later = self.consistency["from_checkpoint"], self.consistency["to_checkpoint"]
        if later["checkpoint_id"] != earlier["checkpoint_id"] + 1:
            return "not adjacent checkpoints: the chain link is not in the bundle"
        _expect(
            later["prev_checkpoint_hash"] == earlier["checkpoint_hash"],
            "later prev_checkpoint_hash is not the earlier checkpoint_hash",
        )
        return "later checkpoint links to the earlier one"

    def lowercase_hex(self) -> str:
        values: list[tuple[str, object]] = [
            ("event.event_hash", self.event.get("event_hash")),
            ("event.leaf_hash", self.event.get("leaf_hash")),
            ("inclusion.event_hash", self.inclusion.get("event_hash")),
            ("inclusion.leaf_hash", self.inclusion.get("leaf_hash")),
        ]
        values += [(f"inclusion.path[{i}]", v) for i, v in enumerate(self.inclusion["path"])]
        optional = [(f"event.{name}", self.event.get(name)) for name in _OPTIONAL_HASH_FIELDS]
        checkpoints = [("inclusion.checkpoint", self.checkpoint)]
        if self.consistency is not None:
            checkpoints.append(("consistency.to_checkpoint", self.consistency["to_checkpoint"]))
            values += [
                (f"consistency.path[{i}]", v) for i, v in enumerate(self.consistency["path"])
            ]
        for prefix, record in checkpoints:
            values += [(f"{prefix}.{n}", record.get(n)) for n in ("root_hash", "checkpoint_hash")]
            optional.append((f"{prefix}.prev_checkpoint_hash", record.get("prev_checkpoint_hash")))
        bad = [name for name, value in values if not is_hash_hex(value)]
        bad += [name for name, value in optional if value != "" and not is_hash_hex(value)]
        _expect(not bad, "not 64 lowercase hex digits: " + ", ".join(bad))
        return f"{len(values) + len(optional)} hash fields are lowercase hex"

    def _signatures(self) -> list[tuple[str, str, str]]:
        """(what was signed, when, signing key id) for every signature in the bundle."""
        signatures = [("the receipt", self.event["accepted_at"], self.event["receipt_key_id"])]
        records = [self.checkpoint]
        if self.consistency is not None:
            records.append(self.consistency["to_checkpoint"])
        for record in records:
            what = f"checkpoint {record['checkpoint_id']}"
            signatures.append((what, record["signed_at"], record["signer_key_id"]))
        return signatures


# --- checks on one checkpoint record ---------------------------------------------------------


def _checkpoint_record(record: Mapping[str, Any]) -> str:
    checkpoint_id = _integer(record["checkpoint_id"], "checkpoint_id")
    _expect(checkpoint_id >= 1, "checkpoint_id counts from 1")
    _expect(_integer(record["tree_size"], "tree_size") >= 1, "a checkpoint is never empty")
    _expect(_integer(record["mmd_seconds"], "mmd_seconds") >= 0, "mmd_seconds is negative")
    if "microblock_id" in record:
        _expect(record["microblock_id"] == checkpoint_id, "microblock_id is not checkpoint_id")
    first = checkpoint_id == 1
    _expect(
        (record["prev_checkpoint_hash"] == "") == first,
        "prev_checkpoint_hash is empty exactly for the first checkpoint",
    )
    return f"checkpoint {checkpoint_id}, tree_size {record['tree_size']}"


def _checkpoint_payload(record: Mapping[str, Any]) -> str:
    payload = _decode_payload(record["checkpoint_payload"])
    _expect_keys(payload, CHECKPOINT_PAYLOAD_KEYS, "checkpoint payload")
    _expect(
        payload["type"] == "checkpoint" and payload["version"] == 1,
        "payload is not a checkpoint of version 1",
    )
    target = record["export_target"]
    expected = {
        "export_targets": [target] if target else [],
        "key_id": record["signer_key_id"],
        "mmd_seconds": record["mmd_seconds"],
        "prev_checkpoint_hash": record["prev_checkpoint_hash"],
        "root_hash": record["root_hash"],
        "signed_at": record["signed_at"],
        "tree_size": record["tree_size"],
    }
    for name, value in expected.items():
        # type() too: the record's 1 must not pass for the payload's True.
        _expect(
            payload[name] == value and type(payload[name]) is type(value),
            f"payload {name} differs from the record",
        )
    return "decodes, and matches the record's size, root, chain, time, key and target"


def _checkpoint_hash(record: Mapping[str, Any]) -> str:
    computed = checkpoint_hash(b64url_decode(record["checkpoint_payload"]))
    _expect(computed == record["checkpoint_hash"], f"hash of the payload is {computed}")
    return computed


# --- small parsers ---------------------------------------------------------------------------


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _Failed(message)


def _expect_keys(payload: Any, keys: frozenset[str], what: str) -> None:
    _expect(isinstance(payload, dict), f"{what} is not a CBOR map")
    _expect(set(payload) == keys, f"{what} keys are {sorted(payload)}, not {sorted(keys)}")


def _decode_payload(text: object) -> Any:
    try:
        return cbor.decode(b64url_decode(text))  # type: ignore[arg-type]
    except ValueError as exc:
        raise _Failed(f"payload does not decode: {exc}") from exc


def _integer(value: object, name: str) -> int:
    _expect(isinstance(value, int) and not isinstance(value, bool), f"{name} is not an integer")
    return value  # type: ignore[return-value]


def _hash_list(values: object, name: str) -> list[bytes]:
    _expect(isinstance(values, list), f"{name} is not a list")
    return [hash_from_hex(value) for value in values]  # type: ignore[union-attr]


def _time(text: object) -> datetime:
    _expect(isinstance(text, str), "timestamp is not a string")
    moment = datetime.fromisoformat(text)  # type: ignore[arg-type]
    _expect(moment.tzinfo is not None, f"timestamp {text!r} has no time zone")
    return moment


def _optional_time(text: object) -> datetime | None:
    return None if text in (None, "") else _time(text)
