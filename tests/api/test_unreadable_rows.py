"""Stored content that cannot be decoded never turns a read into a 500.

Rows written before the edge bounded ``tool_args`` (thousands of levels deep) raise while they
are decoded. Status polls, the review queue and the ledger listing answer with what can be
read, and log the rest; the decision path still refuses them (tests/api/test_poison_requests).
"""

from __future__ import annotations

import logging

from tests.api.test_ledger_tamper import flip_byte
from tests.helpers import ask
from tests.ledger_support import write_events

UNDECODABLE = '{"k": ' * 3000 + "1" + "}" * 3000  # RecursionError in any JSON decoder here


def plant(sql, request_id: str, **columns: str) -> None:
    assignments = ", ".join(f"{name} = :{name}" for name in columns)
    sql(
        f"UPDATE clearance_requests SET {assignments} WHERE request_id = :rid",
        rid=request_id,
        **columns,
    )


def test_status_of_a_row_whose_content_cannot_be_decoded(client, tenant, sql, caplog):
    first = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()
    plant(sql, first["request_id"], tool_args=UNDECODABLE, citations=UNDECODABLE)
    with caplog.at_level(logging.ERROR, logger="webapp.services.stored"):
        response = client.get(f"/clearance-status/{first['request_id']}", headers=tenant.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["request_id"] == first["request_id"]
    assert body["status"] == first["status"]
    assert body["citations"] == []
    assert body["token"] is None or body["approved"]  # unchanged state, nothing invented
    assert any("citations" in r.getMessage() for r in caplog.records)


def test_status_of_another_tenants_request_is_still_404(client, tenant, other_tenant):
    rid = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    response = client.get(f"/clearance-status/{rid}", headers=other_tenant.headers)
    assert response.status_code == 404
    assert response.get_json()["code"] == "not_found"


def test_review_queue_lists_a_row_whose_arguments_cannot_be_decoded(client, tenant, sql):
    bad = ask(client, tenant, "pay_invoice", {"amount": 1}).get_json()["request_id"]
    good = ask(client, tenant, "pay_invoice", {"amount": 2}).get_json()["request_id"]
    for rid in (bad, good):
        sql(
            "UPDATE clearance_requests SET status = 'pending_review', approved = false, "
            "token = NULL, review_started_at = created_at WHERE request_id = :rid",
            rid=rid,
        )
    plant(sql, bad, tool_args=UNDECODABLE)
    response = client.get("/reviews?status=pending_review", headers=tenant.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    items = {item["request_id"]: item for item in response.get_json()["reviews"]}
    assert items[bad]["tool_args"] == {}
    assert items[good]["tool_args"] == {"amount": 2}


def test_ledger_lists_an_event_whose_sealed_content_cannot_be_opened(app, client, tenant, sql):
    write_events(app, tenant.client_id, 3)
    seq, sealed = sql(
        "SELECT seq, sealed FROM ledger_events WHERE client_id = :c ORDER BY seq LIMIT 1",
        c=tenant.client_id,
    ).first()
    sql(
        "UPDATE ledger_events SET sealed = :v WHERE seq = :s", v=flip_byte(bytes(sealed), 40), s=seq
    )
    response = client.get("/ledger", headers=tenant.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    entries = {entry["seq"]: entry for entry in response.get_json()["entries"]}
    assert len(entries) == 3
    assert entries[seq]["action_metadata"] == {"sealed_content_unreadable": True}
    assert entries[seq]["tool_args"] == {}
    # Verification still names the broken event.
    verdict = client.get("/ledger/verify", headers=tenant.headers).get_json()
    assert verdict["intact"] is False
