"""The policy page's readings, examples and "Try it" panel, and the glossary editor (issue #10)."""

from __future__ import annotations

from tests.dashboard.conftest import text_of


def _register(tenant, client, examples=None):
    body = {
        "policy_id": "accounts",
        "rules": [
            "Accounts may not be closed unless the branch manager has waived it",
            "Wire transfers to IR or KP are forbidden",
        ],
        "tools": ["close_account", "wire_*"],
    }
    if examples:
        body["examples"] = examples
    assert client.post("/register-policy", json=body, headers=tenant.headers).status_code == 201


def test_the_policy_page_highlights_unaccounted_words_and_lists_failing_examples(
    app, tenant, signed_in, sql
):
    _register(
        tenant,
        app.test_client(),
        [
            {
                "tool_name": "wire_transfer",
                "tool_args": {"country": "KP", "amount": 1},
                "expected": "approved",
            }
        ],
    )
    page = text_of(signed_in("viewer").get("/dashboard/policies/accounts"))
    assert "<mark>unless</mark>" in page and "partly understood" in page
    assert "Deny when country or region is IR or KP" in page
    assert "0 of 1 pass" in page and "expected approved, got denied" in page


def test_try_it_runs_a_dry_run_and_records_nothing(app, tenant, signed_in, sql):
    _register(tenant, app.test_client())
    events = sql(
        "SELECT COUNT(*) FROM ledger_events WHERE client_id = :c", c=tenant.client_id
    ).scalar()
    owner = signed_in("owner")
    result = owner.post(
        "/dashboard/policies/accounts/try",
        {"tool_name": "wire_transfer", "tool_args": '{"country": "IR", "amount": 3}'},
        htmx=True,
    )
    assert result.status_code == 200
    assert "Would be denied" in text_of(result)
    bad = owner.post(
        "/dashboard/policies/accounts/try",
        {"tool_name": "wire_transfer", "tool_args": "[1]"},
        htmx=True,
    )
    assert "must be a JSON object" in text_of(bad)
    assert (
        sql("SELECT COUNT(*) FROM ledger_events WHERE client_id = :c", c=tenant.client_id).scalar()
        == events
    )
    assert (
        sql(
            "SELECT COUNT(*) FROM clearance_requests WHERE client_id = :c", c=tenant.client_id
        ).scalar()
        == 0
    )


def test_the_glossary_editor_saves_terms_and_refuses_bad_ones(app, tenant, signed_in):
    owner = signed_in("owner")
    saved = owner.post(
        "/dashboard/glossary", {"terms": "privileged roles = Org Owner, Billing Admin"}
    )
    assert saved.status_code == 302
    api = app.test_client().get("/glossary", headers=tenant.headers).get_json()
    assert api["terms"] == {"privileged roles": ["Org Owner", "Billing Admin"]}
    too_long = owner.post("/dashboard/glossary", {"terms": "t = " + "x" * 201})
    assert too_long.status_code == 200 and "at most 200 characters" in text_of(too_long)
    viewer = signed_in("viewer")
    assert viewer.post("/dashboard/glossary", {"terms": "a = b"}).status_code == 403
    assert "Org Owner, Billing Admin" in text_of(viewer.get("/dashboard/glossary"))


def test_a_policy_named_glossary_has_its_own_page(app, tenant, signed_in):
    body = {"policy_id": "glossary", "rules": ["Refunds must not exceed 500 EUR."]}
    assert app.test_client().post(
        "/register-policy", json=body, headers=tenant.headers
    ).status_code in (200, 201)
    page = text_of(signed_in("viewer").get("/dashboard/policies/glossary"))
    assert "Refunds must not exceed 500 EUR." in page


def test_a_description_sentence_judged_like_a_rule_shows_with_its_reading(app, tenant, signed_in):
    # The judge reads obligations stated in a description too; staff see them and their state.
    body = {
        "policy_id": "vendor-pay",
        "description": "Vendor payments. Never pay a vendor twice for one invoice.",
        "rules": ["Payments must include an invoice_id"],
        "tools": ["pay_*"],
    }
    client = app.test_client()
    answer = client.post("/register-policy", json=body, headers=tenant.headers)
    assert answer.status_code == 201
    # CONTRACT §6: the registration lists the rules as registered, not the description
    assert [r["text"] for r in answer.get_json()["rules"]] == body["rules"]
    page = text_of(signed_in("viewer").get("/dashboard/policies/vendor-pay"))
    assert "Never pay a vendor twice for one invoice." in page
    assert "from the description" in page
