"""The OpenAPI document describes every answer: a schema on every success response, generated
from the models the handlers serialise through, and the error statuses the handlers give.

`.ci/schemathesis` checks a live server against the document; these tests pin the document's
shape and check real answers of the main flows against its schemas."""

from __future__ import annotations

import jsonschema
import pytest

from tests.helpers import ask, register_policy


@pytest.fixture
def document(client):
    return client.get("/openapi.json").get_json()


def _schema_of(document: dict, method: str, path: str, status: int) -> dict:
    content = document["paths"][path][method]["responses"][str(status)]["content"]
    schema = content["application/json"]["schema"]
    # Resolve #/components references against the whole document.
    return {**schema, "components": document["components"]}


def _validate(document: dict, method: str, path: str, response) -> None:  # noqa: ANN001
    schema = _schema_of(document, method, path, response.status_code)
    jsonschema.validate(response.get_json(), schema, cls=jsonschema.Draft202012Validator)


# Artifact downloads answer files (PDF or JSON documents), not a JSON reply.
FILE_DOWNLOADS = {
    ("get", "/reports/{report_id}/artifacts/{fmt}"),
    ("get", "/reports/shared/{token}/artifacts/{fmt}"),
}


def test_every_success_response_has_a_json_schema(document):
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if (method, path) in FILE_DOWNLOADS:
                continue
            for status, response in operation["responses"].items():
                if not status.startswith("2") or status == "204":
                    continue
                content = response.get("content", {})
                if list(content) != ["application/json"]:
                    missing.append(f"{method.upper()} {path} {status}")
    assert missing == []


def test_error_statuses_the_handlers_give_are_documented(document):
    paths = document["paths"]
    # GET operations that validate a query (limit, cursor, ids) answer 400.
    for path in (
        "/ledger",
        "/ledger/encrypted",
        "/ledger/checkpoints",
        "/ledger/manifests",
        "/ledger/proof/inclusion",
        "/ledger/proof/consistency",
        "/ledger/proof/bundle",
        "/reviews",
        "/notifications/deliveries",
    ):
        assert "400" in paths[path]["get"]["responses"], path
    assert "409" in paths["/admin/tenants/{client_id}/users"]["post"]["responses"]
    register = paths["/register-policy"]["post"]["responses"]
    assert list(register["200"]["content"]) == ["application/json"]
    assert list(register["201"]["content"]) == ["application/json"]
    clearance = paths["/request-clearance"]["post"]["responses"]
    assert list(clearance["202"]["content"]) == ["application/json"]


def test_real_answers_match_their_schemas(client, tenant, run_jobs, admin_headers, document):
    registered = client.post(
        "/register-policy",
        json={"policy_id": "payments", "rules": ["Payments must include an invoice_id"]},
        headers=tenant.headers,
    )
    _validate(document, "post", "/register-policy", registered)
    again = client.post(
        "/register-policy",
        json={"policy_id": "payments", "rules": ["Payments must include an invoice_id"]},
        headers=tenant.headers,
    )
    assert again.status_code == 200
    _validate(document, "post", "/register-policy", again)
    register_policy(client, tenant, "payments", ["Payments must include an invoice_id"])

    asked = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-7"})
    assert asked.status_code in (200, 202)  # 200 when the rules decide inline
    _validate(document, "post", "/request-clearance", asked)
    run_jobs()
    request_id = asked.get_json()["request_id"]
    status = client.get(f"/clearance-status/{request_id}", headers=tenant.headers)
    _validate(document, "get", "/clearance-status/{request_id}", status)
    token = status.get_json()["token"]
    consumed = client.post("/consume-token", json={"token": token}, headers=tenant.headers)
    _validate(document, "post", "/consume-token", consumed)
    assert "session_id" not in consumed.get_json()  # left out when the request had none

    for path in (
        "/policies",
        "/policies/payments",
        "/review-settings",
        "/notification-settings",
        "/notifications/deliveries",
        "/reviews",
        "/ledger",
        "/ledger/encrypted",
        "/ledger/verify",
        "/ledger/verification-summary",
        "/ledger/checkpoints",
    ):
        response = client.get(path, headers=tenant.headers)
        assert response.status_code == 200, path
        template = "/policies/{policy_id}" if path == "/policies/payments" else path
        _validate(document, "get", template, response)

    sealed = client.post("/admin/ledger/seal", headers=admin_headers)
    _validate(document, "post", "/admin/ledger/seal", sealed)
    for path in ("/ledger/proof/bundle", "/ledger/proof/inclusion"):
        response = client.get(f"{path}?request_id={request_id}", headers=tenant.headers)
        assert response.status_code == 200, response.get_data(as_text=True)
        _validate(document, "get", path, response)
    bundle = client.get(f"/ledger/proof/bundle?request_id={request_id}", headers=tenant.headers)
    assert "consistency" not in bundle.get_json() or bundle.get_json()["consistency"] is None

    locked = client.post("/drift/agents/agent-7/lockdown", headers=tenant.headers)
    _validate(document, "post", "/drift/agents/{agent_id}/lockdown", locked)
    for path in ("/health", "/.well-known/jwks.json", "/openapi.json"):
        _validate(document, "get", path, client.get(path))
    tenants = client.get("/admin/tenants", headers=admin_headers)
    _validate(document, "get", "/admin/tenants", tenants)


def test_the_reply_models_pass_unknown_fields_through_and_keep_left_out_ones_out():
    from webapp.api.schemas import CheckpointReply, reply

    record = {
        "checkpoint_id": 1,
        "tree_size": 1,
        "root_hash": "ab",
        "checkpoint_hash": "cd",
        "prev_checkpoint_hash": "",
        "signature_algorithm": "Ed25519",
        "signer_key_id": "k",
        "checkpoint_signature": "s",
        "checkpoint_payload": "p",
        "signed_at": "2026-11-23T00:00:00.000000Z",
        "mmd_seconds": 30,
        "export_target": "",
        "export_uri": "",
        "export_status": "pending",
        "microblock_id": 1,
    }
    assert reply(CheckpointReply, record) == record


def test_non_ascii_digits_in_checkpoint_ids_are_400(client, tenant):
    from tests.api.test_foundation import assert_problem

    for query in ("from=%C2%B2", "from=1&to=%D9%A3"):
        response = client.get(f"/ledger/proof/consistency?{query}", headers=tenant.headers)
        assert_problem(response, 400, "invalid_request")


def test_numbers_beyond_json_range_in_ignored_fields_are_never_500(client, tenant):
    """/reports and /register-policy fingerprint the validated request for their
    Idempotency-Key, so a field they ignore stays ignored (CONTRACT §1), even a number JCS
    cannot encode, and a replay answers the same resource."""
    huge = b"-34952666963075882132655282744983552"
    headers = {**tenant.headers, "Content-Type": "application/json", "Idempotency-Key": "k-1"}
    response = client.post("/reports", data=b'{"ignored": ' + huge + b"}", headers=headers)
    assert response.status_code == 202, response.get_data(as_text=True)
    again = client.post("/reports", data=b'{"ignored": ' + huge + b"}", headers=headers)
    assert again.get_json()["report_id"] == response.get_json()["report_id"]
    body = b'{"policy_id": "p", "rules": ["r"], "ignored": ' + huge + b"}"
    response = client.post("/register-policy", data=body, headers=headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    again = client.post("/register-policy", data=body, headers=headers)
    assert (again.status_code, again.get_json()) == (201, response.get_json())
