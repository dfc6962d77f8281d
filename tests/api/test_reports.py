"""Compliance reports (CONTRACT §9): the whole flow through the API and a real RQ worker
(generate, poll, download, share, open without a key, revoke, 404), the report's figures
against the database, the PDF read back with pypdf, share-token tampering, bad input and
tenant isolation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader

from tests.api.test_foundation import assert_problem
from tests.helpers import ask, register_policy
from tests.ledger_support import seal

PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _decisions(client, tenant, run_jobs) -> dict:
    """Two approvals (one token burned, one with other arguments), one denial by rule, one
    for an unknown tool, all through the real decision path."""
    register_policy(client, tenant, "payments", PAYMENT_RULES, ["pay_*"])
    ok = ask(client, tenant, "pay_invoice", {"amount": 120, "invoice_id": "INV-7"}).get_json()
    ok2 = ask(client, tenant, "pay_invoice", {"amount": 90, "invoice_id": "INV-9"}).get_json()
    big = ask(client, tenant, "pay_invoice", {"amount": 50_000, "invoice_id": "INV-8"}).get_json()
    unknown = ask(client, tenant, "delete_database", {"name": "prod"}).get_json()
    run_jobs()
    bodies = {
        name: client.get(f"/clearance-status/{b['request_id']}", headers=tenant.headers).get_json()
        for name, b in (("ok", ok), ("ok2", ok2), ("big", big), ("unknown", unknown))
    }
    assert bodies["ok"]["status"] == bodies["ok2"]["status"] == "approved"
    burned = client.post(
        "/consume-token", json={"token": bodies["ok"]["token"]}, headers=tenant.headers
    )
    assert burned.status_code == 200
    mismatch = client.post(
        "/consume-token",
        json={"token": bodies["ok2"]["token"], "tool_args": {"amount": 99_999, "invoice_id": "X"}},
        headers=tenant.headers,
    )
    assert mismatch.status_code in (200, 422)
    return bodies


def _generate(client, tenant, run_jobs, **body) -> dict:
    created = client.post("/reports", json=body, headers=tenant.headers)
    assert created.status_code == 202, created.get_data(as_text=True)
    record = created.get_json()
    assert record["status"] == "queued" and record["type"] == "sox_404"
    run_jobs()
    ready = client.get(f"/reports/{record['report_id']}", headers=tenant.headers).get_json()
    assert ready["status"] == "ready", ready
    return ready


def test_generate_download_share_open_revoke(app, client, tenant, run_jobs):
    bodies = _decisions(client, tenant, run_jobs)
    seal(app, tenant.client_id)
    record = _generate(client, tenant, run_jobs)
    report_id = record["report_id"]
    assert record["progress"] == 100 and record["completed_at"]
    assert {a["format"] for a in record["artifacts"]} == {"pdf", "json"}
    assert record["shares"] == []

    # Downloads match their recorded hashes.
    data = {}
    for artifact in record["artifacts"]:
        response = client.get(
            f"/reports/{report_id}/artifacts/{artifact['format']}", headers=tenant.headers
        )
        assert response.status_code == 200
        assert hashlib.sha256(response.data).hexdigest() == artifact["sha256"]
        assert len(response.data) == artifact["size_bytes"]
        data[artifact["format"]] = response.data
    document = json.loads(data["json"])

    # The figures are the decisions that were made.
    population = document["population"]
    assert population["by_outcome"] == {"approved": 2, "denied": 2}
    assert population["by_reason_code"]["rule_violated"]["denied"] == 1
    assert population["by_reason_code"]["no_matching_policy"]["denied"] == 1
    assert sum(d["approved"] + d["denied"] for d in population["per_day"]) == 4
    assert document["summary"] == record["summary"]
    assert document["policy_changes"]["count"] == 1
    change = document["policy_changes"]["items"][0]
    assert change["policy_id"] == "payments" and change["version"] == 1
    assert len(change["content_hash"]) == 64 and change["actor"]
    exceptions = document["exceptions"]
    assert exceptions["args_mismatch_burns"] in (0, 1)
    assert {c["id"] for c in document["controls"]} == {f"ITGC-{n}" for n in range(1, 6)}

    # The attestation: verified checkpoints, and a reproducible sample with valid proofs.
    attestation = document["attestation"]
    assert attestation["verification"]["intact"] is True
    assert attestation["tree_size"] >= 6 and len(attestation["root_hash"]) == 64
    assert attestation["checkpoints"] and all(c["verified"] for c in attestation["checkpoints"])
    sample = attestation["sample"]
    lo, hi = sample["leaf_range"]
    from webapp.services.report_content import sample_indexes

    assert [e["leaf_index"] for e in sample["events"]] == sample_indexes(sample["seed"], lo, hi)
    assert all(e["verified"] for e in sample["events"])
    _check_sample_proofs(sample["events"], attestation["root_hash"])

    # The PDF says the same figures as the JSON.
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data["pdf"])).pages)
    compact = " ".join(text.split())
    summary = document["summary"]
    for label, key in (
        ("Total decisions", "decisions"),
        ("Approved", "approved"),
        ("Denied", "denied"),
        ("Manual reviews", "manual_reviews"),
        ("Policy changes", "policy_changes"),
        ("Exceptions", "exceptions"),
        ("Tree size", "tree_size"),
    ):
        assert f"{label} {summary[key]}" in compact, label
    assert summary["root_hash"] in compact.replace(" ", "")
    assert sample["seed"] in compact
    for day in population["per_day"]:
        assert f"{day['day']} {day['approved']} {day['denied']}" in compact
    assert "Decisions per day by outcome" in compact and "How long reviews took" in compact

    # The report is a ledger event carrying the artifact hashes.
    seal(app, tenant.client_id)
    entries = client.get("/ledger?limit=5", headers=tenant.headers).get_json()["entries"]
    event = next(e for e in entries if e["action_category"] == "report_generated")
    assert event["action_metadata"] == {
        "report_id": report_id,
        "period_start": record["period_start"],
        "period_end": record["period_end"],
        "artifacts": sorted(
            ({"format": a["format"], "sha256": a["sha256"]} for a in record["artifacts"]),
            key=lambda a: ["pdf", "json"].index(a["format"]),
        ),
    }
    assert event["approved"] is False and event["decision_status"] is None

    # Share, open without a key (JSON and HTML), download, revoke, then 404 everywhere.
    shared = client.post(
        f"/reports/{report_id}/share", json={"expires_in_seconds": 3600}, headers=tenant.headers
    )
    assert shared.status_code == 201
    link = shared.get_json()
    token = link["token"]
    assert link["url"].endswith(f"/reports/shared/{token}")
    listed = client.get(f"/reports/{report_id}", headers=tenant.headers).get_json()["shares"]
    assert [s["token_id"] for s in listed] == [link["token_id"]]
    assert token not in json.dumps(listed)

    public = client.get(f"/reports/shared/{token}", headers={"Accept": "application/json"})
    assert public.status_code == 200 and "RateLimit-Limit" in public.headers
    view = public.get_json()
    assert view["report"]["report_id"] == report_id and "shares" not in view["report"]
    assert view["verification"]["sealed"] is True
    bundle = view["verification"]["bundle"]
    assert bundle["event"]["event_uuid"] == event["event_uuid"]
    from webapp.ledger.verify import verify_bundle

    assert verify_bundle(bundle, view["verification"]["jwks"]).intact
    page = client.get(f"/reports/shared/{token}", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert report_id in page.get_data(as_text=True)
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    pdf = client.get(f"/reports/shared/{token}/artifacts/pdf")
    assert pdf.status_code == 200 and pdf.data == data["pdf"]
    assert_problem(client.get(f"/reports/shared/{token}/artifacts/csv"), 404, "not_found")

    revoked = client.delete(f"/reports/{report_id}/share/{token}", headers=tenant.headers)
    assert revoked.status_code == 200 and revoked.get_json()["revoked_at"]
    for path in (f"/reports/shared/{token}", f"/reports/shared/{token}/artifacts/pdf"):
        assert_problem(client.get(path), 404, "not_found")
    assert client.get(f"/reports/{report_id}", headers=tenant.headers).get_json()["shares"] == []
    assert bodies  # the decisions stayed as they were


def _check_sample_proofs(events: list[dict], root_hash: str) -> None:
    from webapp.ledger import merkle

    for event in events:
        merkle.verify_inclusion(
            bytes.fromhex(event["leaf_hash"]),
            event["leaf_index"],
            event["tree_size"],
            [bytes.fromhex(p) for p in event["path"]],
            bytes.fromhex(root_hash),
        )


def test_share_tokens_fail_the_same_way(app, client, tenant, run_jobs):
    record = _generate(client, tenant, run_jobs)
    report_id = record["report_id"]
    token = client.post(f"/reports/{report_id}/share", headers=tenant.headers).get_json()["token"]
    assert client.get(f"/reports/shared/{token}").status_code == 200

    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    body, mac = raw[:-32], raw[-32:]
    # Re-signed with another key, expiry pushed out, one bit flipped, truncated, padded, junk.
    forged_mac = hmac.new(
        b"not the server key", b"report-share\x00" + body, hashlib.sha256
    ).digest()
    later = body[:17] + (int.from_bytes(body[17:25], "big") + 86400).to_bytes(8, "big")
    flipped = bytearray(raw)
    flipped[5] ^= 1
    candidates = [
        _b64(body + forged_mac),
        _b64(later + mac),
        _b64(bytes(flipped)),
        token[:-1],
        token[:40],
        token + "A",
        "x" * 76,
        "not-a-token",
    ]
    expected = client.get("/reports/shared/" + "A" * 76).get_json()
    for candidate in candidates:
        response = client.get(f"/reports/shared/{candidate}")
        problem = assert_problem(response, 404, "not_found")
        assert problem["detail"] == expected["detail"]
        assert_problem(client.get(f"/reports/shared/{candidate}/artifacts/json"), 404, "not_found")

    # Expired: a token whose signed expiry has passed is the same 404.
    from webapp.extensions import db
    from webapp.models import ReportShare

    with app.app_context():
        share = db.session.scalars(db.select(ReportShare)).one()
        share.expires_at = datetime.now(UTC) - timedelta(seconds=1)
        db.session.commit()
    assert_problem(client.get(f"/reports/shared/{token}"), 404, "not_found")

    # Revocation by token id, then replay: 404; revoking an unknown link is 404 too.
    fresh = client.post(f"/reports/{report_id}/share", headers=tenant.headers).get_json()
    assert (
        client.delete(
            f"/reports/{report_id}/share/{fresh['token_id']}", headers=tenant.headers
        ).status_code
        == 200
    )
    assert_problem(client.get(f"/reports/shared/{fresh['token']}"), 404, "not_found")
    assert_problem(
        client.delete(f"/reports/{report_id}/share/shr_unknown", headers=tenant.headers),
        404,
        "not_found",
    )


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_artifacts_before_ready_and_formats(client, tenant, run_jobs):
    created = client.post("/reports", json={"formats": ["json"]}, headers=tenant.headers)
    assert created.status_code == 202
    report_id = created.get_json()["report_id"]
    waiting = client.get(f"/reports/{report_id}/artifacts/json", headers=tenant.headers)
    assert_problem(waiting, 409, "conflict")
    assert int(waiting.headers["Retry-After"]) >= 1
    assert_problem(
        client.post(f"/reports/{report_id}/share", headers=tenant.headers), 409, "conflict"
    )
    run_jobs()
    assert (
        client.get(f"/reports/{report_id}/artifacts/json", headers=tenant.headers).status_code
        == 200
    )
    assert_problem(
        client.get(f"/reports/{report_id}/artifacts/pdf", headers=tenant.headers), 404, "not_found"
    )
    assert_problem(
        client.get(f"/reports/{report_id}/artifacts/xlsx", headers=tenant.headers), 404, "not_found"
    )


def test_idempotency_key_answers_the_same_report(client, tenant, run_jobs):
    headers = {**tenant.headers, "Idempotency-Key": "monthly-2026-11"}
    first = client.post("/reports", json={"formats": ["json"]}, headers=headers)
    again = client.post("/reports", json={"formats": ["json"]}, headers=headers)
    assert first.status_code == again.status_code == 202
    assert first.get_json()["report_id"] == again.get_json()["report_id"]
    assert_problem(
        client.post("/reports", json={"formats": ["pdf"]}, headers=headers),
        422,
        "idempotency_mismatch",
    )
    listed = client.get("/reports", headers=tenant.headers).get_json()
    assert len(listed["reports"]) == 1
    run_jobs()


def test_list_pages_with_a_cursor(client, tenant, run_jobs):
    ids = [
        client.post("/reports", json={"formats": ["json"]}, headers=tenant.headers).get_json()[
            "report_id"
        ]
        for _ in range(3)
    ]
    first = client.get("/reports?limit=2", headers=tenant.headers).get_json()
    assert len(first["reports"]) == 2 and first["next_cursor"]
    second = client.get(
        f"/reports?limit=2&cursor={first['next_cursor']}", headers=tenant.headers
    ).get_json()
    assert second["next_cursor"] is None
    seen = [r["report_id"] for r in first["reports"] + second["reports"]]
    assert sorted(seen) == sorted(ids)
    assert_problem(
        client.get("/reports?cursor=%%%", headers=tenant.headers), 400, "invalid_request"
    )
    assert_problem(client.get("/reports?limit=0", headers=tenant.headers), 400, "invalid_request")
    run_jobs()


@pytest.mark.parametrize(
    "body, field",
    [
        (
            {"period_start": "2026-11-10T00:00:00Z", "period_end": "2026-11-01T00:00:00Z"},
            "period_end",
        ),
        (
            {"period_start": "2026-11-01T00:00:00Z", "period_end": "2026-11-01T00:00:00Z"},
            "period_end",
        ),
        ({"period_end": "2999-01-01T00:00:00Z"}, "period_end"),
        (
            {"period_start": "2024-01-01T00:00:00Z", "period_end": "2025-06-01T00:00:00Z"},
            "period_start",
        ),
        ({"period_start": "yesterday"}, "period_start"),
        ({"period_start": "2026-11-01T00:00:00"}, "period_start"),
        ({"period_end": 17}, "period_end"),
        ({"formats": ["pdf", "docx"]}, "formats"),
        ({"formats": []}, "formats"),
        ({"formats": "pdf"}, "formats"),
    ],
)
def test_bad_report_requests(client, tenant, body, field):
    problem = assert_problem(
        client.post("/reports", json=body, headers=tenant.headers), 400, "invalid_request"
    )
    assert problem["errors"][0]["field"] == field
    assert client.get("/reports", headers=tenant.headers).get_json()["reports"] == []


@pytest.mark.parametrize("seconds", [0, 59, 90 * 86400 + 1, -5, "3600", 1.5, True])
def test_bad_share_expiry(client, tenant, run_jobs, seconds):
    record = _generate(client, tenant, run_jobs, formats=["json"])
    problem = assert_problem(
        client.post(
            f"/reports/{record['report_id']}/share",
            json={"expires_in_seconds": seconds},
            headers=tenant.headers,
        ),
        400,
        "invalid_request",
    )
    assert problem["errors"][0]["field"] == "expires_in_seconds"


def test_a_period_of_exactly_366_days_is_accepted(client, tenant):
    end = datetime.now(UTC) - timedelta(hours=1)
    body = {"period_start": _iso(end - timedelta(days=366)), "period_end": _iso(end)}
    assert client.post("/reports", json=body, headers=tenant.headers).status_code == 202


def test_report_settings(client, tenant):
    assert client.get("/report-settings", headers=tenant.headers).get_json() == {
        "enabled": False,
        "frequency": "monthly",
        "formats": ["pdf", "json"],
        "recipients": [],
    }
    updated = client.put(
        "/report-settings",
        json={"enabled": True, "frequency": "weekly", "recipients": ["audit@example.com"]},
        headers=tenant.headers,
    )
    assert updated.status_code == 200
    assert updated.get_json() == {
        "enabled": True,
        "frequency": "weekly",
        "formats": ["pdf", "json"],
        "recipients": ["audit@example.com"],
    }
    alone = client.put("/report-settings", json={"formats": ["json"]}, headers=tenant.headers)
    assert alone.get_json()["frequency"] == "weekly" and alone.get_json()["formats"] == ["json"]
    for bad, field in (
        ({"frequency": "daily"}, "frequency"),
        ({"formats": ["csv"]}, "formats"),
        ({"formats": []}, "formats"),
        ({"enabled": "yes"}, "enabled"),
        ({"recipients": ["not an address"]}, "recipients"),
        ({"recipients": [f"a{i}@example.com" for i in range(51)]}, "recipients"),
    ):
        problem = assert_problem(
            client.put("/report-settings", json=bad, headers=tenant.headers), 400, "invalid_request"
        )
        assert problem["errors"][0]["field"] == field
    assert client.get("/report-settings", headers=tenant.headers).get_json()["formats"] == ["json"]
    # A report without formats takes the configured ones.
    created = client.post("/reports", headers=tenant.headers).get_json()
    assert created["formats"] == ["json"]


def test_tenant_isolation(client, tenant, other_tenant, run_jobs):
    record = _generate(client, tenant, run_jobs, formats=["json"])
    report_id = record["report_id"]
    token_body = client.post(f"/reports/{report_id}/share", headers=tenant.headers).get_json()
    for method, path in (
        ("get", f"/reports/{report_id}"),
        ("get", f"/reports/{report_id}/artifacts/json"),
        ("post", f"/reports/{report_id}/share"),
        ("delete", f"/reports/{report_id}/share/{token_body['token']}"),
        ("delete", f"/reports/{report_id}/share/{token_body['token_id']}"),
    ):
        response = getattr(client, method)(path, headers=other_tenant.headers)
        assert_problem(response, 404, "not_found")
    assert client.get("/reports", headers=other_tenant.headers).get_json()["reports"] == []
    # The link still works: the other tenant could not revoke it.
    assert client.get(f"/reports/shared/{token_body['token']}").status_code == 200
    assert_problem(client.get("/reports"), 401, "unauthorized")


def test_a_build_that_fails_leaves_a_failed_report_and_nothing_half_written(
    client, tenant, run_jobs, sql
):
    created = client.post("/reports", json={"formats": ["json"]}, headers=tenant.headers)
    report_id = created.get_json()["report_id"]
    # A stored format no renderer knows (as a newer version might have written) breaks the build.
    sql(
        "UPDATE reports SET formats = :formats WHERE report_id = :id",
        formats='["json", "xml"]',
        id=report_id,
    )
    run_jobs()
    record = client.get(f"/reports/{report_id}", headers=tenant.headers).get_json()
    assert record["status"] == "failed" and record["artifacts"] == []
    assert record["error"] == "generation failed (ValueError)"
    assert record["ledger_event_uuid"] is None
    assert_problem(
        client.get(f"/reports/{report_id}/artifacts/json", headers=tenant.headers), 404, "not_found"
    )
    assert_problem(
        client.post(f"/reports/{report_id}/share", headers=tenant.headers), 409, "conflict"
    )
    count = sql(
        "SELECT count(*) FROM ledger_events WHERE action_category = 'report_generated'"
    ).scalar()
    assert count == 0


def test_public_endpoints_are_rate_limited_per_client_ip(
    workdir, database_url, redis_url, _migrated
):
    import uuid

    from tests.conftest import make_config
    from webapp import create_app

    app = create_app(
        make_config(workdir, database_url, redis_url, rate_limit_rps=1, rate_limit_burst=3)
    )
    client = app.test_client()
    first, second = (f"10.{n}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}" for n in (1, 2))
    path = "/reports/shared/" + "A" * 76
    statuses = [client.get(path, environ_base={"REMOTE_ADDR": first}).status_code for _ in range(6)]
    assert statuses[:3] == [404, 404, 404] and 429 in statuses[3:]
    limited = client.get(f"{path}/artifacts/pdf", environ_base={"REMOTE_ADDR": first})
    assert_problem(limited, 429, "rate_limited")
    assert int(limited.headers["Retry-After"]) >= 1
    # Another address has its own bucket.
    assert client.get(path, environ_base={"REMOTE_ADDR": second}).status_code == 404
    from webapp.extensions import db

    with app.app_context():
        db.engine.dispose()  # a second app's pool must not hold server connections for the session
