"""A stored request whose content cannot be decoded never turns a dashboard review page into a 500.

Rows written before the edge bounded ``tool_args`` raise while they are decoded; the queue and the
review page show what can be read (services.stored), and the request still cannot be approved.
"""

from __future__ import annotations

from tests.api.test_unreadable_rows import UNDECODABLE, plant
from tests.dashboard.conftest import text_of
from tests.helpers import ask


def waiting(sql, client, tenant, amount: int) -> str:  # noqa: ANN001
    rid = ask(client, tenant, "pay_invoice", {"amount": amount, "currency": "EUR"}).get_json()[
        "request_id"
    ]
    sql(
        "UPDATE clearance_requests SET status = 'pending_review', approved = false, "
        "token = NULL, review_started_at = created_at WHERE request_id = :rid",
        rid=rid,
    )
    return rid


def test_queue_and_review_page_show_a_row_whose_content_cannot_be_decoded(
    client, tenant, sql, signed_in
):
    bad = waiting(sql, client, tenant, 1)
    good = waiting(sql, client, tenant, 4321)
    plant(sql, bad, tool_args=UNDECODABLE, citations=UNDECODABLE, action_metadata=UNDECODABLE)
    reviewer = signed_in("reviewer")

    queue = reviewer.get("/dashboard/reviews")
    assert queue.status_code == 200, text_of(queue)
    page = text_of(queue)
    assert bad in page and good in page
    assert "4321 EUR" in page  # the readable row keeps its amount

    detail = reviewer.get(f"/dashboard/reviews/{bad}")
    assert detail.status_code == 200, text_of(detail)
    assert bad in text_of(detail)
    assert "{}" in text_of(detail)  # the arguments shown as empty, not invented


def test_a_request_whose_context_cannot_be_decoded_is_never_approved_from_the_dashboard(
    client, tenant, sql, signed_in
):
    rid = waiting(sql, client, tenant, 5)
    plant(sql, rid, action_metadata=UNDECODABLE)  # who asked for it cannot be read
    reviewer = signed_in("reviewer")
    response = reviewer.post(
        f"/dashboard/reviews/{rid}/decision", {"decision": "approve", "reason": "looks fine"}
    )
    assert response.status_code < 500, text_of(response)
    status = sql("SELECT status FROM clearance_requests WHERE request_id = :r", r=rid).scalar()
    assert status != "approved"
