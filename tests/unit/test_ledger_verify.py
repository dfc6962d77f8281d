"""The offline bundle verifier and its CLI, on bundles built the way the service builds them."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from nacl.signing import SigningKey

from webapp.ledger import bundle as bundles
from webapp.ledger import cbor, events, keys, merkle
from webapp.ledger.__main__ import main as cli_main
from webapp.ledger.encoding import b64url_decode, b64url_encode
from webapp.ledger.verify import verify_bundle

REPO = Path(__file__).resolve().parents[2]
OLD_KEY, NEW_KEY = SigningKey.generate(), SigningKey.generate()
OLD_ID, NEW_ID = "vault-key-001", "vault-key-002"
OLD_JWK = keys.public_jwk(bytes(OLD_KEY.verify_key), OLD_ID)
NEW_JWK = keys.public_jwk(bytes(NEW_KEY.verify_key), NEW_ID)
JWKS = {"keys": [OLD_JWK, NEW_JWK]}
BUNDLE_KEYS = [
    keys.bundle_key_entry(
        OLD_JWK, active_from="2026-11-01T00:00:00.000000Z", retired_at="2026-11-22T02:00:00.000000Z"
    ),
    keys.bundle_key_entry(NEW_JWK, active_from="2026-11-22T02:00:00.000000Z"),
]
SIGNERS = {OLD_ID: OLD_KEY, NEW_ID: NEW_KEY}


class Ledger:
    """One tenant's ledger in memory: events with receipts, a stored-node tree, checkpoints."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.nodes: dict[tuple[int, int], bytes] = {}
        self.size = 0
        self.checkpoints: list[dict[str, Any]] = []

    def get_node(self, level: int, index: int) -> bytes:
        return self.nodes[(level, index)]

    def record(self, category: str, key_id: str, accepted_at: str) -> dict[str, Any]:
        number = len(self.entries) + 1
        decision = category in events.DECISION_CATEGORIES
        tool_args = {"amount": 40 + number, "currency": "EUR", "lines": [1, 2.5, {"qty": 3}]}
        approved = decision and number % 3 != 0
        confidence = 0.0 if not decision else (0.97 if approved else 0.42)
        entry: dict[str, Any] = {
            "seq": number,
            "event_uuid": f"00000000-0000-4000-8000-{number:012d}",
            "request_id": f"req-{number}" if decision else "",
            "agent_id": "agent-7",
            "policy_id": "refunds" if decision else "",
            "policy_version_id": "pv-3" if decision else "",
            "policy_content_hash": hashlib.sha256(b"refunds v3").hexdigest() if decision else "",
            "intent_hash": (
                hashlib.sha256(rfc8785.dumps(tool_args)).hexdigest() if decision else ""
            ),
            "tool_name": "stripe_refund" if decision else "",
            "tool_args": tool_args if decision else {},
            "action_category": category,
            "action_metadata": {"human_principal": "ops@example.com", "judge": {"score": 0.97}},
            "reason": "Refunds up to 100 EUR are allowed" if decision else "policy registered",
            "citations": (
                [
                    {
                        "policy_id": "refunds",
                        "policy_version_id": "pv-3",
                        "chunk_id": "c-1",
                        "text": "Refunds up to 100 EUR",
                        "score": 1,
                    }
                ]
                if decision
                else []
            ),
            "evidence_chunks": [{"chunk_id": "c-1", "score": 0.8}] if decision else [],
            "confidence": confidence,
            "confidence_bucket": ("extra_high" if approved else "low") if decision else None,
            "decision_status": ("approved" if approved else "denied") if decision else None,
            "approved": approved,
            "accepted_at": accepted_at,
            "canonical_version": 2,
            "leaf_index": None,
            "checkpoint_id": None,
        }
        entry["event_hash"] = events.event_hash(events.event_from_entry(entry))
        entry["leaf_hash"] = events.leaf_hash_hex(entry["event_hash"])
        entry.update(
            events.issue_receipt(
                accepted_at=entry["accepted_at"],
                event_hash=entry["event_hash"],
                event_uuid=entry["event_uuid"],
                leaf_hash=entry["leaf_hash"],
                receipt_key_id=key_id,
                request_id=entry["request_id"],
                sign=lambda payload: SIGNERS[key_id].sign(payload).signature,
            )
        )
        self.entries.append(entry)
        return entry

    def seal(self, key_id: str, signed_at: str, export_target: str = "") -> dict[str, Any]:
        pending = [e for e in self.entries if e["leaf_index"] is None]
        leaves = [bytes.fromhex(e["leaf_hash"]) for e in pending]
        for level, index, value in merkle.new_nodes_for_append(self.size, leaves, self.get_node):
            self.nodes[(level, index)] = value
        checkpoint_id = len(self.checkpoints) + 1
        for offset, entry in enumerate(pending):
            entry["leaf_index"] = self.size + offset
            entry["checkpoint_id"] = checkpoint_id
        self.size += len(pending)
        record = events.sign_checkpoint(
            export_target=export_target,
            key_id=key_id,
            mmd_seconds=30,
            prev_checkpoint_hash=self.checkpoints[-1]["checkpoint_hash"]
            if self.checkpoints
            else "",
            root_hash=merkle.root_from_nodes(self.size, self.get_node).hex(),
            signed_at=signed_at,
            tree_size=self.size,
            sign=lambda payload: SIGNERS[key_id].sign(payload).signature,
        )
        record = {
            "checkpoint_id": checkpoint_id,
            **record,
            "export_uri": f"{export_target}/{checkpoint_id:020d}.json" if export_target else "",
            "export_status": "exported" if export_target else "none",
            "exported_at": signed_at if export_target else None,
        }
        self.checkpoints.append(record)
        return record

    def bundle(self, seq: int) -> dict[str, Any]:
        entry = self.entries[seq - 1]
        first = self.checkpoints[entry["checkpoint_id"] - 1]
        latest = self.checkpoints[-1]
        path = merkle.inclusion_path_from_nodes(
            entry["leaf_index"], first["tree_size"], self.get_node
        )
        inclusion = bundles.inclusion_proof(entry, first, path)
        consistency = None
        if latest["tree_size"] > first["tree_size"]:
            proof = merkle.consistency_path_from_nodes(
                first["tree_size"], latest["tree_size"], self.get_node
            )
            consistency = bundles.consistency_proof(first, latest, proof)
        # Through JSON, as a client receives it.
        built = bundles.proof_bundle(entry, inclusion, consistency, BUNDLE_KEYS)
        return json.loads(json.dumps(built))


def build_ledger() -> Ledger:
    """20 events; checkpoint 1 (13 leaves, old key), a key rotation, checkpoint 2 (20 leaves)."""
    ledger = Ledger()
    categories = ["clearance_decision", "review_decision", "token_consumed", "policy_registered"]
    for n in range(13):
        ledger.record(categories[n % 4], OLD_ID, f"2026-11-22T01:00:{n:02d}.123456Z")
    ledger.seal(OLD_ID, "2026-11-22T01:30:00.000000Z", export_target="s3://anchors/t-1")
    for n in range(13, 17):
        ledger.record(categories[n % 4], OLD_ID, f"2026-11-22T01:40:{n:02d}.123456Z")
    for n in range(17, 20):  # after the rotation at 02:00
        ledger.record(categories[n % 4], NEW_ID, f"2026-11-22T02:10:{n:02d}.123456Z")
    ledger.seal(NEW_ID, "2026-11-22T02:30:00.000000Z")
    return ledger


LEDGER = build_ledger()


@pytest.fixture
def bundle() -> dict[str, Any]:
    """Event 6: a denied review decision (confidence 0.42, bucket low), sealed by checkpoint 1
    (size 13) and consistent with checkpoint 2 (size 20)."""
    return LEDGER.bundle(6)


def failed(report_bundle: dict[str, Any], jwks: dict | None = None) -> set[str]:
    report = verify_bundle(report_bundle, jwks)
    assert report.intact == (not report.failed)
    return set(report.failed)


def test_realistic_bundle_is_intact_and_every_check_is_reported(bundle: dict) -> None:
    report = verify_bundle(bundle, JWKS)
    assert report.intact, report.to_dict()
    names = [check.name for check in report.checks]
    for prefix in ("inclusion.checkpoint", "consistency.to_checkpoint"):
        for step in ("record", "payload", "hash", "signature"):
            assert f"{prefix}.{step}" in names
    for name in (
        "bundle.structure",
        "keys.entries",
        "keys.jwks",
        "keys.coverage",
        "keys.validity",
        "event.fields",
        "event.hash",
        "event.intent_hash",
        "event.leaf_hash",
        "receipt.payload",
        "receipt.signature",
        "inclusion.event",
        "inclusion.leaf_index",
        "inclusion.tree_size",
        "inclusion.checkpoint_id",
        "inclusion.proof",
        "consistency.from_checkpoint",
        "consistency.order",
        "consistency.proof",
        "consistency.chain",
        "bundle.lowercase_hex",
    ):
        assert name in names
    assert len(names) == len(set(names))
    assert all(check.detail for check in report.checks)


@pytest.mark.parametrize("seq", range(1, 21))
def test_every_event_of_the_ledger_has_an_intact_bundle(seq: int) -> None:
    proof_bundle = LEDGER.bundle(seq)
    report = verify_bundle(proof_bundle, JWKS)
    assert report.intact, [c for c in report.checks if not c.ok]
    if seq > 13:
        assert "consistency" not in proof_bundle  # left out, not null (CONTRACT §11)
        assert "consistency" in [c.name for c in report.checks]
    else:
        assert proof_bundle["consistency"]["to_checkpoint"]["tree_size"] == 20


def _flip_hex(value: str) -> str:
    return value[:-1] + ("0" if value[-1] != "0" else "1")


def _flip_b64(value: str) -> str:
    raw = bytearray(b64url_decode(value))
    raw[len(raw) // 2] ^= 0x01
    return b64url_encode(bytes(raw))


def _resign(record: dict, payload: bytes, key: SigningKey = OLD_KEY) -> None:
    record["checkpoint_payload"] = b64url_encode(payload)
    record["checkpoint_signature"] = b64url_encode(key.sign(payload).signature)


# (where, how to change it, the checks that must fail: exactly these)
TAMPERING = [
    (
        "event.tool_args",
        lambda b: b["event"]["tool_args"].update(amount=1e6),
        {"event.hash", "event.intent_hash"},
    ),
    (
        "event.action_metadata",
        lambda b: b["event"]["action_metadata"].update(extra=1),
        {"event.hash"},
    ),
    ("event.citations", lambda b: b["event"]["citations"][0].update(score=0.5), {"event.hash"}),
    ("event.evidence_chunks", lambda b: b["event"]["evidence_chunks"].clear(), {"event.hash"}),
    (
        "event.reason",
        lambda b: b["event"].update(reason="Refunds up to 900 EUR are allowed"),
        {"event.hash"},
    ),
    ("event.agent_id", lambda b: b["event"].update(agent_id="agent-8"), {"event.hash"}),
    ("event.tool_name", lambda b: b["event"].update(tool_name="stripe_refunc"), {"event.hash"}),
    ("event.policy_id", lambda b: b["event"].update(policy_id="refundz"), {"event.hash"}),
    (
        "event.policy_version_id",
        lambda b: b["event"].update(policy_version_id="pv-4"),
        {"event.hash"},
    ),
    (
        "event.policy_content_hash",
        lambda b: b["event"].update(
            policy_content_hash=_flip_hex(b["event"]["policy_content_hash"])
        ),
        {"event.hash"},
    ),
    (
        "event.intent_hash",
        lambda b: b["event"].update(intent_hash=_flip_hex(b["event"]["intent_hash"])),
        {"event.hash", "event.intent_hash"},
    ),
    (
        "event.action_category",
        lambda b: b["event"].update(action_category="clearance_decision"),
        {"event.hash"},
    ),
    (
        "event.approved + decision_status",
        lambda b: b["event"].update(approved=True, decision_status="approved"),
        {"event.hash"},
    ),
    (
        "event.decision_status alone",
        lambda b: b["event"].update(decision_status="approved"),
        {"event.fields"},
    ),
    (
        "event.confidence_bucket alone",
        lambda b: b["event"].update(confidence_bucket="high"),
        {"event.fields"},
    ),
    ("event.confidence", lambda b: b["event"].update(confidence=0.43), {"event.hash"}),
    (
        "event.confidence across a bucket",
        lambda b: b["event"].update(confidence=0.98),
        {"event.hash", "event.fields"},
    ),
    ("event.canonical_version", lambda b: b["event"].update(canonical_version=3), {"event.hash"}),
    (
        "event.accepted_at",
        lambda b: b["event"].update(accepted_at="2026-11-22T01:00:05.123457Z"),
        {"event.hash", "receipt.payload"},
    ),
    (
        "event.event_uuid",
        lambda b: b["event"].update(event_uuid=b["event"]["event_uuid"][:-1] + "7"),
        {"event.hash", "receipt.payload", "inclusion.event"},
    ),
    (
        "event.request_id",
        lambda b: b["event"].update(request_id="req-66"),
        {"event.hash", "receipt.payload", "inclusion.event"},
    ),
    (
        "event.event_hash",
        lambda b: b["event"].update(event_hash=_flip_hex(b["event"]["event_hash"])),
        {"event.hash", "event.leaf_hash", "receipt.payload", "inclusion.event"},
    ),
    (
        "event.leaf_hash",
        lambda b: b["event"].update(leaf_hash=_flip_hex(b["event"]["leaf_hash"])),
        {"event.leaf_hash", "receipt.payload", "inclusion.event"},
    ),
    ("event.leaf_index", lambda b: b["event"].update(leaf_index=6), {"inclusion.leaf_index"}),
    (
        "event.checkpoint_id",
        lambda b: b["event"].update(checkpoint_id=2),
        {"inclusion.checkpoint_id"},
    ),
    (
        "event.receipt_signature",
        lambda b: b["event"].update(receipt_signature=_flip_b64(b["event"]["receipt_signature"])),
        {"receipt.signature"},
    ),
    (
        "event.receipt_payload",
        lambda b: b["event"].update(receipt_payload=_flip_b64(b["event"]["receipt_payload"])),
        {"receipt.payload", "receipt.signature"},
    ),
    (
        "event.receipt_key_id",
        lambda b: b["event"].update(receipt_key_id=NEW_ID),
        {"receipt.payload", "receipt.signature", "keys.validity"},
    ),
    (
        "event.receipt_algorithm",
        lambda b: b["event"].update(receipt_algorithm="EdDSA"),
        {"receipt.signature"},
    ),
    (
        "inclusion.path",
        lambda b: b["inclusion"]["path"].__setitem__(1, _flip_hex(b["inclusion"]["path"][1])),
        {"inclusion.proof"},
    ),
    ("inclusion.path shortened", lambda b: b["inclusion"]["path"].pop(), {"inclusion.proof"}),
    (
        "inclusion.leaf_index",
        lambda b: b["inclusion"].update(leaf_index=4),
        {"inclusion.leaf_index", "inclusion.proof"},
    ),
    ("inclusion.tree_size", lambda b: b["inclusion"].update(tree_size=20), {"inclusion.tree_size"}),
    (
        "inclusion.leaf_hash",
        lambda b: b["inclusion"].update(leaf_hash=_flip_hex(b["inclusion"]["leaf_hash"])),
        {"inclusion.event", "inclusion.proof"},
    ),
    (
        "inclusion.event_hash",
        lambda b: b["inclusion"].update(event_hash=_flip_hex(b["inclusion"]["event_hash"])),
        {"inclusion.event"},
    ),
    (
        "inclusion.checkpoint.root_hash",
        lambda b: b["inclusion"]["checkpoint"].update(
            root_hash=_flip_hex(b["inclusion"]["checkpoint"]["root_hash"])
        ),
        {"inclusion.proof", "inclusion.checkpoint.payload", "consistency.from_checkpoint"},
    ),
    # The path alone does not pin the size (13 and 14 give this leaf the same path shape);
    # the signed payload does.
    (
        "inclusion.checkpoint.tree_size",
        lambda b: b["inclusion"]["checkpoint"].update(tree_size=14),
        {"inclusion.tree_size", "inclusion.checkpoint.payload", "consistency.from_checkpoint"},
    ),
    (
        "inclusion.checkpoint.signed_at",
        lambda b: b["inclusion"]["checkpoint"].update(signed_at="2026-11-22T01:30:00.000001Z"),
        {"inclusion.checkpoint.payload", "consistency.from_checkpoint"},
    ),
    (
        "inclusion.checkpoint.checkpoint_hash",
        lambda b: b["inclusion"]["checkpoint"].update(
            checkpoint_hash=_flip_hex(b["inclusion"]["checkpoint"]["checkpoint_hash"])
        ),
        {"inclusion.checkpoint.hash", "consistency.from_checkpoint"},
    ),
    (
        "inclusion.checkpoint.checkpoint_signature",
        lambda b: b["inclusion"]["checkpoint"].update(
            checkpoint_signature=_flip_b64(b["inclusion"]["checkpoint"]["checkpoint_signature"])
        ),
        {"inclusion.checkpoint.signature", "consistency.from_checkpoint"},
    ),
    (
        "inclusion.checkpoint.export_target",
        lambda b: b["inclusion"]["checkpoint"].update(export_target=""),
        {"inclusion.checkpoint.payload", "consistency.from_checkpoint"},
    ),
    (
        "inclusion.checkpoint.prev_checkpoint_hash",
        lambda b: b["inclusion"]["checkpoint"].update(prev_checkpoint_hash="ab" * 32),
        {
            "inclusion.checkpoint.record",
            "inclusion.checkpoint.payload",
            "consistency.from_checkpoint",
        },
    ),
    (
        "both copies of checkpoint 1 root_hash",
        lambda b: [
            c.update(root_hash=_flip_hex(c["root_hash"]))
            for c in (b["inclusion"]["checkpoint"], b["consistency"]["from_checkpoint"])
        ],
        {"inclusion.proof", "inclusion.checkpoint.payload", "consistency.proof"},
    ),
    (
        "consistency.path",
        lambda b: b["consistency"]["path"].__setitem__(0, _flip_hex(b["consistency"]["path"][0])),
        {"consistency.proof"},
    ),
    (
        "consistency.path extended",
        lambda b: b["consistency"]["path"].append("00" * 32),
        {"consistency.proof"},
    ),
    (
        "consistency.to_checkpoint.root_hash",
        lambda b: b["consistency"]["to_checkpoint"].update(
            root_hash=_flip_hex(b["consistency"]["to_checkpoint"]["root_hash"])
        ),
        {"consistency.to_checkpoint.payload", "consistency.proof"},
    ),
    (
        "consistency.to_checkpoint.tree_size",
        lambda b: b["consistency"]["to_checkpoint"].update(tree_size=13),
        {"consistency.to_checkpoint.payload", "consistency.order", "consistency.proof"},
    ),
    (
        "consistency.to_checkpoint.prev_checkpoint_hash",
        lambda b: b["consistency"]["to_checkpoint"].update(
            prev_checkpoint_hash=_flip_hex(
                b["consistency"]["to_checkpoint"]["prev_checkpoint_hash"]
            )
        ),
        {"consistency.to_checkpoint.payload", "consistency.chain"},
    ),
    (
        "consistency.to_checkpoint.checkpoint_signature",
        lambda b: b["consistency"]["to_checkpoint"].update(
            checkpoint_signature=_flip_b64(
                b["consistency"]["to_checkpoint"]["checkpoint_signature"]
            )
        ),
        {"consistency.to_checkpoint.signature"},
    ),
    (
        "consistency.to_checkpoint.signer_key_id",
        lambda b: b["consistency"]["to_checkpoint"].update(signer_key_id=OLD_ID),
        {
            "consistency.to_checkpoint.payload",
            "consistency.to_checkpoint.signature",
            "keys.validity",
        },
    ),
    (
        "consistency.to_checkpoint.checkpoint_id",
        lambda b: b["consistency"]["to_checkpoint"].update(checkpoint_id=1),
        {"consistency.to_checkpoint.record", "consistency.order"},
    ),
    (
        "keys[1].public_jwk",
        lambda b: b["keys"][1].update(public_jwk=b["keys"][0]["public_jwk"]),
        {"keys.entries", "keys.coverage", "consistency.to_checkpoint.signature"},
    ),
    (
        "keys[0] retired before the receipt",
        lambda b: b["keys"][0].update(retired_at="2026-11-22T01:00:01.000000Z"),
        {"keys.validity"},
    ),
    (
        "keys[1] active after its checkpoint",
        lambda b: b["keys"][1].update(active_from="2026-11-22T03:00:00.000000Z"),
        {"keys.validity"},
    ),
    (
        "keys without the old key",
        lambda b: b["keys"].pop(0),
        {"keys.coverage", "receipt.signature", "inclusion.checkpoint.signature"},
    ),
    (
        "uppercase hex in the path",
        lambda b: b["inclusion"]["path"].__setitem__(0, b["inclusion"]["path"][0].upper()),
        {"inclusion.proof", "bundle.lowercase_hex"},
    ),
]


@pytest.mark.parametrize(
    ("where", "change", "expected"), TAMPERING, ids=[case[0] for case in TAMPERING]
)
def test_tampering_fails_exactly_the_checks_it_breaks(
    bundle: dict, where: str, change: Any, expected: set[str]
) -> None:
    change(bundle)
    assert failed(bundle, JWKS) == expected


def test_unbound_fields_do_not_affect_the_verdict(bundle: dict) -> None:
    # seq and the export bookkeeping are not covered by any hash or signature: the report
    # stays intact, which is why docs/verify.md says not to rely on them.
    bundle["event"]["seq"] = 99
    for record in (bundle["inclusion"]["checkpoint"], bundle["consistency"]["from_checkpoint"]):
        record.update(export_uri="s3://elsewhere", export_status="failed", exported_at=None)
    assert failed(bundle, JWKS) == set()


def test_a_forged_but_well_signed_checkpoint_still_fails_the_proofs(bundle: dict) -> None:
    # An attacker with the signing key can sign any root; the Merkle proofs still pin the event
    # to the tree, so swapping in a root for another tree is caught by the proofs.
    record = bundle["consistency"]["to_checkpoint"]
    other_root = hashlib.sha256(b"another tree").hexdigest()
    record["root_hash"] = other_root
    payload = cbor.decode(b64url_decode(record["checkpoint_payload"]))
    payload["root_hash"] = other_root
    encoded = cbor.encode(payload)
    _resign(record, encoded, NEW_KEY)
    record["checkpoint_hash"] = events.checkpoint_hash(encoded)
    assert failed(bundle, JWKS) == {"consistency.proof"}


def test_keys_must_agree_with_the_jwks(bundle: dict) -> None:
    impostor = keys.public_jwk(bytes(SigningKey.generate().verify_key), NEW_ID)
    assert failed(bundle, {"keys": [OLD_JWK, impostor]}) == {"keys.jwks"}
    assert failed(bundle, {"keys": [OLD_JWK]}) == {"keys.jwks"}
    assert failed(bundle, {"nothing": []}) == {"keys.jwks"}
    assert "keys.jwks" not in [c.name for c in verify_bundle(bundle).checks]


def test_a_bundle_signed_by_a_key_outside_the_bundle_fails(bundle: dict) -> None:
    stranger = SigningKey.generate()
    stranger_jwk = keys.public_jwk(bytes(stranger.verify_key), NEW_ID)
    bundle["keys"][1] = keys.bundle_key_entry(stranger_jwk, active_from="2026-11-22T02:00:00Z")
    assert failed(bundle) == {"consistency.to_checkpoint.signature"}
    assert "keys.jwks" in failed(bundle, JWKS)


@pytest.mark.parametrize(
    "broken",
    [
        None,
        [],
        {},
        {"event": {}, "inclusion": {}, "keys": []},
        {"event": {}, "inclusion": {"checkpoint": {}}, "keys": [], "consistency": "none"},
        {"event": {}, "inclusion": {"checkpoint": {}}, "keys": {}, "consistency": None},
    ],
    ids=repr,
)
def test_malformed_bundles_fail_closed_at_the_structure_check(broken: Any) -> None:
    report = verify_bundle(broken)
    assert not report.intact
    assert report.failed == ["bundle.structure"]


def test_a_hollow_bundle_fails_every_check_without_crashing() -> None:
    report = verify_bundle(
        {"event": {}, "inclusion": {"checkpoint": {}}, "keys": [], "consistency": None}
    )
    assert not report.intact
    passed = {c.name for c in report.checks if c.ok}
    assert passed <= {"bundle.structure", "consistency"}


def test_event_and_bundle_invariants(bundle: dict) -> None:
    # A consistency proof to a checkpoint that is not larger is not allowed (it must be null).
    same = copy.deepcopy(bundle)
    same["consistency"] = {
        "from_checkpoint": same["inclusion"]["checkpoint"],
        "to_checkpoint": same["inclusion"]["checkpoint"],
        "path": [],
    }
    assert failed(same) == {"consistency.order"}
    # The leaf index must be below the tree size even when both copies agree.
    beyond = copy.deepcopy(bundle)
    beyond["event"]["leaf_index"] = beyond["inclusion"]["leaf_index"] = 13
    assert failed(beyond) == {"inclusion.leaf_index", "inclusion.proof"}


def test_non_decision_events_must_look_like_non_decisions() -> None:
    policy_event = LEDGER.bundle(4)  # policy_registered
    assert verify_bundle(policy_event).intact
    policy_event["event"]["decision_status"] = "approved"
    assert failed(policy_event) == {"event.fields"}


def test_json_numbers_survive_the_round_trip_through_the_api(bundle: dict) -> None:
    # A server that writes 45.0 as 45 (or a client that parses 45 as 45.0) changes nothing.
    text = json.dumps(bundle).replace('"amount": 46', '"amount": 46.0')
    assert '"amount": 46.0' in text
    assert verify_bundle(json.loads(text)).intact


# --- the CLI ---------------------------------------------------------------------------------


def _run(args: list[str], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONIOENCODING": "utf-8", "PATH": "/usr/bin:/bin"},
    )


def test_cli_prints_every_check_and_exits_0_when_intact(tmp_path: Path, bundle: dict) -> None:
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "jwks.json").write_text(json.dumps(JWKS))
    result = _run(
        [
            "-m",
            "webapp.ledger",
            "verify-bundle",
            str(tmp_path / "bundle.json"),
            "--jwks",
            str(tmp_path / "jwks.json"),
        ]
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "INTACT"
    report = verify_bundle(bundle, JWKS)
    assert [line.split(" ")[1] for line in lines[:-1]] == [c.name for c in report.checks]
    assert all(line.startswith("✓ ") for line in lines[:-1])


def test_cli_marks_the_failed_check_and_exits_1(tmp_path: Path, bundle: dict) -> None:
    bundle["event"]["reason"] = "something else"
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    result = _run(["-m", "webapp.ledger", "verify-bundle", str(tmp_path / "bundle.json")])
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("✗")] == [
        line for line in result.stdout.splitlines() if line.startswith("✗ event.hash — ")
    ]
    assert "✗ event.hash" in result.stdout and result.stdout.endswith("NOT INTACT\n")


@pytest.mark.parametrize("content", ["{not json", '{"event": NaN}', "[]"])
def test_cli_fails_closed_on_bad_input(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bundle.json").write_text(content)
    assert cli_main(["verify-bundle", str(tmp_path / "bundle.json")]) == 1
    assert capsys.readouterr().out.endswith("NOT INTACT\n")
    assert cli_main(["verify-bundle", str(tmp_path / "absent.json")]) == 1
    assert "✗ input" in capsys.readouterr().out


def test_the_package_runs_on_its_own_without_flask(tmp_path: Path, bundle: dict) -> None:
    # An auditor can copy webapp/ledger out of the repository and run it as `ledger`.
    shutil.copytree(
        REPO / "webapp" / "ledger",
        tmp_path / "ledger",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    result = _run(["-m", "ledger", "verify-bundle", "bundle.json", "--json"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["intact"] is True
    probe = _run(
        [
            "-c",
            "import sys, ledger.__main__, ledger.verify; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('flask', 'sqlalchemy', 'webapp', 'config')))",
        ],
        cwd=tmp_path,
    )
    assert probe.stdout.strip() == "[]", probe.stderr


def test_the_typescript_clients_shapes_verify(bundle: dict) -> None:
    # CONTRACT §11: microblock_id repeats checkpoint_id; a null consistency (older bundles)
    # reads like a left-out one.
    for record in (bundle["inclusion"]["checkpoint"], bundle["consistency"]["from_checkpoint"]):
        record["microblock_id"] = record["checkpoint_id"]
    assert verify_bundle(bundle, JWKS).intact
    latest = LEDGER.bundle(20)
    assert "consistency" not in latest and verify_bundle(latest, JWKS).intact
    assert verify_bundle({**latest, "consistency": None}, JWKS).intact
    other = copy.deepcopy(bundle)
    other["inclusion"]["checkpoint"]["microblock_id"] = 99
    other["consistency"]["from_checkpoint"]["microblock_id"] = 99
    report = verify_bundle(other, JWKS)
    assert not report.intact and "inclusion.checkpoint.record" in report.failed
