"""The ledger endpoints (CONTRACT §11, §12): entries, checkpoints, proofs, bundles, sealing."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from nacl.bindings import crypto_aead_xchacha20poly1305_ietf_decrypt

from tests.api.test_foundation import assert_problem
from tests.conftest import make_config, make_tenant
from tests.helpers import ask, register_policy
from tests.ledger_support import seal, write_decision, write_events
from webapp.ledger import merkle
from webapp.ledger.encoding import b64url_decode
from webapp.ledger.verify import verify_bundle

ROOT = Path(__file__).resolve().parents[2]
ENTRY_FIELDS = {
    "seq", "event_uuid", "request_id", "agent_id", "policy_id", "policy_version_id",
    "policy_content_hash", "intent_hash", "tool_name", "tool_args", "action_category",
    "action_metadata", "reason", "citations", "evidence_chunks", "confidence", "confidence_bucket",
    "decision_status", "approved", "accepted_at", "canonical_version", "event_hash", "leaf_hash",
    "leaf_index", "checkpoint_id", "receipt_algorithm", "receipt_key_id", "receipt_signature",
    "receipt_payload",
}  # fmt: skip
CHECKPOINT_FIELDS = {
    "checkpoint_id", "microblock_id", "tree_size", "root_hash", "checkpoint_hash", "prev_checkpoint_hash",
    "signature_algorithm", "signer_key_id", "checkpoint_signature", "checkpoint_payload",
    "signed_at", "mmd_seconds", "export_target", "export_uri", "export_status",
}  # fmt: skip
# plus "exported_at" once exported: left out until then, never null (CONTRACT §1)


def get(client, tenant, path, **params):
    return client.get(path, query_string=params, headers=tenant.headers)


# --- entries ---------------------------------------------------------------------------------


def test_ledger_lists_entries_newest_first_with_every_contract_field(client, app, tenant):
    write_events(app, tenant.client_id, 5)
    seal(app, tenant.client_id)
    write_events(app, tenant.client_id, 1)
    body = get(client, tenant, "/ledger").get_json()
    entries = body["entries"]
    assert [set(e) for e in entries] == [ENTRY_FIELDS] * 6
    assert [e["seq"] for e in entries] == sorted((e["seq"] for e in entries), reverse=True)
    assert body["next_cursor"] is None
    newest, oldest = entries[0], entries[-1]
    assert newest["leaf_index"] is None and newest["checkpoint_id"] is None
    assert (oldest["leaf_index"], oldest["checkpoint_id"]) == (0, 1)
    decision = next(e for e in entries if e["action_category"] == "clearance_decision")
    assert decision["tool_args"] == {"amount": 120, "currency": "EUR", "note": "é ✓"}
    assert decision["decision_status"] == "approved" and decision["confidence_bucket"] == "high"
    setting = next(e for e in entries if e["action_category"] == "settings_changed")
    assert setting["decision_status"] is None and setting["intent_hash"] == ""


def test_ledger_pages_with_an_opaque_cursor(client, app, tenant):
    write_events(app, tenant.client_id, 7)
    first = get(client, tenant, "/ledger", limit=3).get_json()
    second = get(client, tenant, "/ledger", limit=3, cursor=first["next_cursor"]).get_json()
    third = get(client, tenant, "/ledger", limit=3, cursor=second["next_cursor"]).get_json()
    seqs = [e["seq"] for page in (first, second, third) for e in page["entries"]]
    assert len(seqs) == 7 == len(set(seqs)) and seqs == sorted(seqs, reverse=True)
    assert third["next_cursor"] is None
    assert_problem(get(client, tenant, "/ledger", limit=0), 400, "invalid_request")
    assert_problem(get(client, tenant, "/ledger", limit=501), 400, "invalid_request")
    assert_problem(get(client, tenant, "/ledger", cursor="not-a-cursor"), 400, "invalid_request")


def test_encrypted_ledger_opens_with_the_transport_key(client, app, tenant):
    from webapp.runtime import vault

    write_decision(app, tenant.client_id, "req-enc")
    seal(app, tenant.client_id)
    entry = get(client, tenant, "/ledger/encrypted").get_json()["entries"][0]
    assert ENTRY_FIELDS - set(entry) == {
        "tool_args", "reason", "citations", "evidence_chunks", "action_metadata"
    }  # fmt: skip
    sealed = entry["sealed"]
    assert sealed["algorithm"] == "XChaCha20-Poly1305-IETF" and sealed["format"] == 1
    associated = b64url_decode(sealed["associated_data"])
    assert associated == b"\x01" + f"ledger\x00{tenant.client_id}\x00{entry['event_uuid']}".encode()
    with app.app_context():
        key = vault().transport_key
    plaintext = crypto_aead_xchacha20poly1305_ietf_decrypt(
        b64url_decode(sealed["ciphertext"]), associated, b64url_decode(sealed["nonce"]), key
    )
    content = json.loads(plaintext)
    assert content["tool_args"] == {"amount": 120, "currency": "EUR", "note": "é ✓"}
    assert content["reason"] == "within the payout limits"
    assert entry["request_id"] == "req-enc" and entry["leaf_index"] == 0


def test_ledger_is_per_tenant(client, app, tenant, other_tenant):
    request_id, event_uuid = write_decision(app, other_tenant.client_id)
    seal(app)
    assert get(client, tenant, "/ledger").get_json()["entries"] == []
    assert get(client, tenant, "/ledger/checkpoints").get_json()["checkpoints"] == []
    for params in ({"request_id": request_id}, {"event_uuid": event_uuid}):
        assert_problem(get(client, tenant, "/ledger/proof/bundle", **params), 404, "not_found")
        assert_problem(get(client, tenant, "/ledger/proof/inclusion", **params), 404, "not_found")
    assert_problem(
        get(client, tenant, "/ledger/proof/consistency", **{"from": 1}), 404, "not_found"
    )
    assert client.get("/ledger").status_code == 401


# --- checkpoints -----------------------------------------------------------------------------


def test_checkpoints_walk_the_chain_oldest_first_and_manifests_is_an_alias(client, app, tenant):
    write_events(app, tenant.client_id, 9)
    seal(app, tenant.client_id, batch_size=2)
    body = get(client, tenant, "/ledger/checkpoints").get_json()
    records = body["checkpoints"]
    assert [set(r) for r in records] == [CHECKPOINT_FIELDS] * 5
    assert [r["checkpoint_id"] for r in records] == [1, 2, 3, 4, 5]
    assert all(r["microblock_id"] == r["checkpoint_id"] for r in records)
    assert [r["tree_size"] for r in records] == [2, 4, 6, 8, 9]
    assert records[0]["prev_checkpoint_hash"] == ""
    for earlier, later in zip(records, records[1:], strict=False):
        assert later["prev_checkpoint_hash"] == earlier["checkpoint_hash"]
    assert all(r["export_status"] == "pending" and "exported_at" not in r for r in records)
    assert get(client, tenant, "/ledger/manifests").get_json() == body

    page = get(client, tenant, "/ledger/checkpoints", limit=2).get_json()
    ids = [r["checkpoint_id"] for r in page["checkpoints"]]
    while page["next_cursor"]:
        page = get(
            client, tenant, "/ledger/manifests", limit=2, cursor=page["next_cursor"]
        ).get_json()
        ids += [r["checkpoint_id"] for r in page["checkpoints"]]
    assert ids == [1, 2, 3, 4, 5]

    newest = get(client, tenant, "/ledger/checkpoints", order="desc", limit=2).get_json()
    assert [r["checkpoint_id"] for r in newest["checkpoints"]] == [5, 4]
    rest = get(client, tenant, "/ledger/checkpoints", order="desc", cursor=newest["next_cursor"])
    assert [r["checkpoint_id"] for r in rest.get_json()["checkpoints"]] == [3, 2, 1]
    assert_problem(get(client, tenant, "/ledger/checkpoints", order="up"), 400, "invalid_request")


def test_admin_seal_returns_the_new_checkpoints_and_queues_their_export(
    client, app, tenant, other_tenant, admin_headers, run_jobs
):
    write_events(app, tenant.client_id, 3)
    write_events(app, other_tenant.client_id, 2)
    one = client.post(
        "/admin/ledger/seal", json={"client_id": tenant.client_id}, headers=admin_headers
    )
    assert one.status_code == 200
    [record] = one.get_json()["checkpoints"]
    assert record["client_id"] == tenant.client_id and record["tree_size"] == 3
    assert CHECKPOINT_FIELDS <= set(record)

    everyone = client.post("/admin/ledger/seal", headers=admin_headers)
    assert [(r["client_id"], r["tree_size"]) for r in everyone.get_json()["checkpoints"]] == [
        (other_tenant.client_id, 2)
    ]
    again = client.post("/admin/ledger/seal", json={}, headers=admin_headers)
    assert again.status_code == 200 and again.get_json() == {"checkpoints": []}

    assert_problem(
        client.post("/admin/ledger/seal", json={"client_id": "cl_nope"}, headers=admin_headers),
        404,
        "not_found",
    )
    assert_problem(client.post("/admin/ledger/seal", headers=tenant.headers), 401, "unauthorized")

    from rq import Queue

    from jobs.queues import LEDGER
    from webapp.runtime import vault
    from webapp.services.anchoring import queue_export

    with app.app_context():
        queue = Queue(LEDGER, connection=vault().redis)
        assert sorted(queue.job_ids) == sorted(
            f"ledger-export-{who.client_id}" for who in (tenant, other_tenant)
        )
        queue_export(tenant.client_id)  # already queued: no second job
        assert len(queue.job_ids) == 2
    run_jobs()  # the queued exports
    for who in (tenant, other_tenant):
        [record] = get(client, who, "/ledger/checkpoints").get_json()["checkpoints"]
        assert record["export_status"] == "exported" and record["exported_at"]
        path = Path(record["export_uri"].removeprefix("file://"))
        anchored = json.loads(path.read_text())
        assert anchored["checkpoint_hash"] == record["checkpoint_hash"]
        assert anchored["checkpoint_signature"] == record["checkpoint_signature"]
        assert record["export_uri"] == record["export_target"]
        assert path.as_posix().endswith(f"/{who.client_id}/checkpoints/{1:020d}.json")


# --- proofs ----------------------------------------------------------------------------------


def test_inclusion_proof_verifies_against_the_latest_or_a_named_checkpoint(client, app, tenant):
    request_id, _ = write_decision(app, tenant.client_id)
    write_events(app, tenant.client_id, 4)
    seal(app, tenant.client_id)
    write_events(app, tenant.client_id, 6)
    seal(app, tenant.client_id)

    proof = get(client, tenant, "/ledger/proof/inclusion", request_id=request_id).get_json()
    assert set(proof) == {
        "event_uuid", "request_id", "event_hash", "leaf_hash", "leaf_index", "tree_size", "path",
        "checkpoint",
    }  # fmt: skip
    assert proof["request_id"] == request_id and proof["leaf_index"] == 0
    assert proof["tree_size"] == proof["checkpoint"]["tree_size"] == 11
    assert proof["checkpoint"]["checkpoint_id"] == 2
    merkle.verify_inclusion(
        bytes.fromhex(proof["leaf_hash"]), 0, 11, [bytes.fromhex(h) for h in proof["path"]],
        bytes.fromhex(proof["checkpoint"]["root_hash"]),
    )  # fmt: skip

    older = get(client, tenant, "/ledger/proof/inclusion", request_id=request_id, checkpoint_id=1)
    older = older.get_json()
    assert older["tree_size"] == 5 and older["checkpoint"]["checkpoint_id"] == 1
    merkle.verify_inclusion(
        bytes.fromhex(older["leaf_hash"]), 0, 5, [bytes.fromhex(h) for h in older["path"]],
        bytes.fromhex(older["checkpoint"]["root_hash"]),
    )  # fmt: skip
    assert_problem(
        get(client, tenant, "/ledger/proof/inclusion", request_id=request_id, checkpoint_id=3),
        404,
        "not_found",
    )
    assert_problem(
        get(client, tenant, "/ledger/proof/inclusion", request_id=request_id, checkpoint_id="x"),
        400,
        "invalid_request",
    )
    assert_problem(get(client, tenant, "/ledger/proof/inclusion"), 400, "invalid_request")
    assert_problem(
        get(client, tenant, "/ledger/proof/inclusion", request_id="req-unknown"), 404, "not_found"
    )


def test_inclusion_by_event_uuid_selects_any_event(client, app, tenant):
    uuids = write_events(app, tenant.client_id, 6)
    seal(app, tenant.client_id)
    for index, event_uuid in enumerate(uuids):
        proof = get(client, tenant, "/ledger/proof/inclusion", event_uuid=event_uuid).get_json()
        assert proof["leaf_index"] == index and proof["event_uuid"] == event_uuid
        merkle.verify_inclusion(
            bytes.fromhex(proof["leaf_hash"]), index, 6, [bytes.fromhex(h) for h in proof["path"]],
            bytes.fromhex(proof["checkpoint"]["root_hash"]),
        )  # fmt: skip


def test_consistency_proofs_between_checkpoints(client, app, tenant):
    for count in (3, 4, 1, 8):
        write_events(app, tenant.client_id, count)
        seal(app, tenant.client_id)
    for first in range(1, 5):
        for last in range(first, 5):
            proof = get(client, tenant, "/ledger/proof/consistency", **{"from": first, "to": last})
            proof = proof.get_json()
            assert set(proof) == {"from_checkpoint", "to_checkpoint", "path"}
            earlier, later = proof["from_checkpoint"], proof["to_checkpoint"]
            assert (earlier["checkpoint_id"], later["checkpoint_id"]) == (first, last)
            merkle.verify_consistency(
                earlier["tree_size"], later["tree_size"], bytes.fromhex(earlier["root_hash"]),
                bytes.fromhex(later["root_hash"]), [bytes.fromhex(h) for h in proof["path"]],
            )  # fmt: skip
    latest = get(client, tenant, "/ledger/proof/consistency", **{"from": 2}).get_json()
    assert latest["to_checkpoint"]["checkpoint_id"] == 4
    path = "/ledger/proof/consistency"
    assert_problem(get(client, tenant, path), 400, "invalid_request")
    assert_problem(get(client, tenant, path, **{"from": 3, "to": 2}), 400, "invalid_request")
    assert_problem(get(client, tenant, path, **{"from": 9}), 404, "not_found")
    assert_problem(get(client, tenant, path, **{"from": "-1"}), 400, "invalid_request")


def test_unsealed_event_is_409_with_retry_after(client, app, tenant):
    request_id, event_uuid = write_decision(app, tenant.client_id)
    for path in ("/ledger/proof/bundle", "/ledger/proof/inclusion"):
        for params in ({"request_id": request_id}, {"event_uuid": event_uuid}):
            response = get(client, tenant, path, **params)
            body = assert_problem(response, 409, "conflict")
            assert "not sealed" in body["detail"]
            assert 1 <= int(response.headers["Retry-After"]) <= 30
    seal(app, tenant.client_id)
    assert get(client, tenant, "/ledger/proof/bundle", request_id=request_id).status_code == 200


def test_bundle_holds_the_contract_invariants_and_verifies_offline(client, app, tenant, tmp_path):
    request_id, _ = write_decision(app, tenant.client_id)
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    bundle = get(client, tenant, "/ledger/proof/bundle", request_id=request_id).get_json()
    # The sealing checkpoint is still the latest: `consistency` is left out, not null.
    assert set(bundle) == {"event", "inclusion", "keys"}
    assert set(bundle["event"]) == ENTRY_FIELDS
    assert verify_bundle(bundle).intact

    write_events(app, tenant.client_id, 5)
    seal(app, tenant.client_id, batch_size=2)
    bundle = get(client, tenant, "/ledger/proof/bundle", request_id=request_id).get_json()
    event, inclusion, consistency = bundle["event"], bundle["inclusion"], bundle["consistency"]
    assert inclusion["tree_size"] == inclusion["checkpoint"]["tree_size"] == 3
    assert event["leaf_index"] == inclusion["leaf_index"] < inclusion["tree_size"]
    assert inclusion["checkpoint"]["checkpoint_id"] == event["checkpoint_id"] == 1
    assert consistency["from_checkpoint"] == inclusion["checkpoint"]
    assert consistency["to_checkpoint"]["checkpoint_id"] == 4
    assert consistency["to_checkpoint"]["tree_size"] == 8
    key_ids = {k["key_id"] for k in bundle["keys"]}
    assert key_ids == {event["receipt_key_id"], inclusion["checkpoint"]["signer_key_id"]}
    for key in bundle["keys"]:
        jwk = json.loads(b64url_decode(key["public_jwk"]))
        assert jwk["kid"] == key["key_id"] and key["algorithm"] == "Ed25519"
        assert key["active_from"].endswith("Z") and "retired_at" not in key
    text = json.dumps(bundle)
    assert text == text.replace("ABCDEF", "")  # no uppercase hex digests slipped in

    report = verify_bundle(bundle)
    assert report.intact, [c for c in report.checks if not c.ok]

    jwks = client.get("/.well-known/jwks.json").get_json()
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "jwks.json").write_text(json.dumps(jwks))
    cli = subprocess.run(
        [sys.executable, "-m", "webapp.ledger", "verify-bundle", str(tmp_path / "bundle.json"),
         "--jwks", str(tmp_path / "jwks.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert cli.stdout.strip().endswith("INTACT") and "✗" not in cli.stdout

    # One changed byte of the event makes both the library and the command refuse it.
    bundle["event"]["tool_args"]["amount"] = 121
    assert not verify_bundle(bundle).intact
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    cli = subprocess.run(
        [sys.executable, "-m", "webapp.ledger", "verify-bundle", str(tmp_path / "bundle.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 1 and "NOT INTACT" in cli.stdout


# --- through the decision path ----------------------------------------------------------------


@pytest.fixture
def stub_app(workdir, database_url, redis_url, _migrated):
    from jobs.runtime import set_app
    from tests.conftest import _reset_state
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, allow_stub_judge=True))
    app.config["TESTING"] = True
    set_app(app)
    yield app
    set_app(None)
    _reset_state(app)


def test_a_real_decision_is_409_until_decided_then_until_sealed(client, tenant):
    """Pending review has no terminal decision yet; a decision is 409 until it is sealed."""
    register_policy(client, tenant, "payments", ["Payments need an invoice"], ["pay_invoice"])
    client.put("/review-settings", json={"minimum_confidence_score": 1.0}, headers=tenant.headers)
    waiting = ask(client, tenant, "pay_invoice", {"amount": 12, "invoice_id": "INV-6"})
    assert waiting.get_json()["status"] == "pending_review"
    rid = waiting.get_json()["request_id"]
    pending = get(client, tenant, "/ledger/proof/bundle", request_id=rid)
    assert "terminal decision" in assert_problem(pending, 409, "conflict")["detail"]
    assert pending.headers["Retry-After"] == "1"


def test_a_fast_lane_decision_is_409_until_sealed(stub_app):
    client = stub_app.test_client()
    tenant = make_tenant(stub_app, "Proof Co")
    register_policy(client, tenant, "payments", ["Payments need an invoice"], ["pay_invoice"])
    asked = ask(client, tenant, "pay_invoice", {"amount": 12, "invoice_id": "INV-7"})
    assert (asked.status_code, asked.get_json()["status"]) == (200, "approved")  # the fast lane
    request_id = asked.get_json()["request_id"]
    unsealed = get(client, tenant, "/ledger/proof/inclusion", request_id=request_id)
    assert "not sealed" in assert_problem(unsealed, 409, "conflict")["detail"]

    from jobs.ledger import seal_tick

    sealed = seal_tick()
    assert list(sealed) == [tenant.client_id]
    bundle = get(client, tenant, "/ledger/proof/bundle", request_id=request_id).get_json()
    assert bundle["event"]["request_id"] == request_id
    assert bundle["event"]["action_category"] == "clearance_decision"
    report = verify_bundle(bundle, client.get("/.well-known/jwks.json").get_json())
    assert report.intact, [c for c in report.checks if not c.ok]


# --- verification ------------------------------------------------------------------------------


def test_verify_reports_an_intact_ledger_and_is_recorded(client, app, tenant):
    write_events(app, tenant.client_id, 11)
    seal(app, tenant.client_id, batch_size=4)
    write_events(app, tenant.client_id, 2)  # not sealed yet: verified as events, outside the tree
    result = get(client, tenant, "/ledger/verify").get_json()
    latest = get(client, tenant, "/ledger/checkpoints", order="desc").get_json()["checkpoints"][0]
    assert result == {
        "intact": True,
        "verified_entries": 13,
        "verified_checkpoints": 3,
        "tree_size": 11,
        "root_hash": latest["root_hash"],
        "latest_checkpoint_id": 3,
        "errors": [],
        "errors_omitted": 0,
    }
    summary = get(client, tenant, "/ledger/verification-summary").get_json()
    assert summary["last_verification"]["intact"] is True
    assert summary["last_verified_at"] == summary["last_verification"]["ran_at"]


def test_verify_on_an_empty_ledger(client, tenant):
    result = get(client, tenant, "/ledger/verify").get_json()
    assert result["intact"] is True and result["tree_size"] == 0
    assert result["root_hash"] == "" and result["latest_checkpoint_id"] is None


def test_verification_summary(client, app, tenant, sql):
    from webapp.runtime import vault

    empty = get(client, tenant, "/ledger/verification-summary").get_json()
    assert empty["latest_checkpoint"] is None and empty["last_verification"] is None
    assert empty["sealing"]["last_sealed_at"] is None
    assert empty["sealing"]["oldest_unsealed_age_seconds"] is None
    assert empty["sealing"]["overdue"] is False

    write_events(app, tenant.client_id, 3)
    seal(app, tenant.client_id)
    write_events(app, tenant.client_id, 2)
    summary = get(client, tenant, "/ledger/verification-summary").get_json()
    assert summary["tree_size"] == 3
    assert summary["latest_checkpoint"]["checkpoint_id"] == 1
    assert set(summary["latest_checkpoint"]) == CHECKPOINT_FIELDS
    with app.app_context():
        signer = vault().signer.key_id
        interval = vault().config.anchor_interval_seconds
    assert [k["key_id"] for k in summary["keys"]] == [signer]
    assert summary["keys"][0]["signing"] is True and summary["keys"][0]["retired_at"] is None
    sealing = summary["sealing"]
    assert sealing["unsealed_events"] == 2 and sealing["mmd_seconds"] == interval
    assert 0 <= sealing["oldest_unsealed_age_seconds"] < interval and not sealing["overdue"]
    assert sealing["last_sealed_at"].endswith("Z") and sealing["refused"] == ""
    anchor = summary["anchor"]
    assert anchor["backend"] == "folder" and anchor["pending"] == 1 and anchor["failed"] == 0

    # An event waiting longer than mmd_seconds is flagged.
    sql(
        "UPDATE ledger_events SET created_at = :old "
        "WHERE client_id = :c AND seq NOT IN (SELECT seq FROM ledger_leaves)",
        old="2020-01-01 00:00:00",
        c=tenant.client_id,
    )
    overdue = get(client, tenant, "/ledger/verification-summary").get_json()["sealing"]
    assert overdue["overdue"] is True and overdue["oldest_unsealed_age_seconds"] > interval
    assert overdue["oldest_unsealed_at"].startswith("2020-01-01T00:00:00")


def test_retired_keys_appear_in_the_summary_and_old_bundles_still_verify(
    workdir, database_url, redis_url, app, client, tenant
):
    from nacl.signing import SigningKey

    from tests.conftest import bootstrap
    from webapp import create_app

    request_id, _ = write_decision(app, tenant.client_id)
    seal(app, tenant.client_id)
    seed = base64.b64encode(bytes(SigningKey.generate())).decode()
    rotated = create_app(
        make_config(
            workdir, database_url, redis_url, key_id="vault-key-002", private_key_base64=seed
        )
    )
    bootstrap(rotated)
    write_events(rotated, tenant.client_id, 2)
    seal(rotated, tenant.client_id)
    rotated_client = rotated.test_client()
    summary = get(rotated_client, tenant, "/ledger/verification-summary").get_json()
    keys = {k["key_id"]: k for k in summary["keys"]}
    assert keys["vault-key-001"]["retired_at"] and not keys["vault-key-001"]["signing"]
    assert keys["vault-key-002"]["signing"] and keys["vault-key-002"]["retired_at"] is None

    bundle = get(rotated_client, tenant, "/ledger/proof/bundle", request_id=request_id).get_json()
    assert {k["key_id"] for k in bundle["keys"]} == {"vault-key-001", "vault-key-002"}
    assert bundle["consistency"]["to_checkpoint"]["signer_key_id"] == "vault-key-002"
    report = verify_bundle(bundle, rotated_client.get("/.well-known/jwks.json").get_json())
    assert report.intact, [c for c in report.checks if not c.ok]
    assert get(rotated_client, tenant, "/ledger/verify").get_json()["intact"]
