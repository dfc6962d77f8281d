"""API key scopes in the dashboard's key form (CONTRACT §12): agent-only is the suggestion."""

from __future__ import annotations

import re

from tests.dashboard.conftest import text_of


def created_key(page: str) -> str:
    return re.search(r'id="new-key-value"[^>]* value="(vk_[^"]+)"', page).group(1)


def test_the_form_suggests_an_agent_only_key_and_the_key_is_so(agent, signed_in):
    owner = signed_in("owner")
    form = text_of(owner.get("/dashboard/settings/api-keys"))
    assert re.search(r'<input[^>]*checked[^>]*value="agent"|value="agent"[^>]*checked', form)
    assert not re.search(r'value="manage"[^>]*checked', form)
    assert "A key for an agent needs only agent" in form

    raw = created_key(
        text_of(owner.post("/dashboard/settings/api-keys", {"label": "bot", "scopes": ["agent"]}))
    )
    headers = {"X-Vault-API-Key": raw}
    assert agent.api.get("/clearance-status/req_none", headers=headers).status_code == 404
    assert agent.api.get("/reviews", headers=headers).status_code == 403
    assert agent.api.get("/review-settings", headers=headers).status_code == 403
    listing = text_of(owner.get("/dashboard/settings/api-keys"))
    bot_row = next(row for row in listing.split("<tr>") if ">bot<" in row)
    assert '<td data-label="Scopes">agent</td>' in bot_row


def test_nothing_ticked_makes_an_agent_only_key(agent, signed_in):
    owner = signed_in("owner")
    raw = created_key(text_of(owner.post("/dashboard/settings/api-keys", {"label": "bare"})))
    headers = {"X-Vault-API-Key": raw}
    assert agent.api.get("/reviews", headers=headers).status_code == 403
    assert agent.api.get("/clearance-status/req_none", headers=headers).status_code == 404


def test_chosen_scopes_are_kept_and_an_unknown_one_is_refused(agent, signed_in):
    owner = signed_in("owner")
    raw = created_key(
        text_of(
            owner.post(
                "/dashboard/settings/api-keys", {"label": "desk", "scopes": ["review", "manage"]}
            )
        )
    )
    headers = {"X-Vault-API-Key": raw}
    assert agent.api.get("/reviews", headers=headers).status_code == 200
    assert agent.api.get("/review-settings", headers=headers).status_code == 200
    assert agent.api.get("/clearance-status/req_none", headers=headers).status_code == 403

    refused = owner.post("/dashboard/settings/api-keys", {"label": "odd", "scopes": ["root"]})
    assert refused.status_code == 422
    assert "odd" not in text_of(owner.get("/dashboard/settings/api-keys"))


def test_reviewers_cannot_create_keys_and_the_form_needs_csrf(signed_in):
    reviewer = signed_in("reviewer")
    assert reviewer.post("/dashboard/settings/api-keys", {"scopes": ["agent"]}).status_code == 403
    owner = signed_in("owner")
    no_token = owner.client.post(
        "/dashboard/settings/api-keys", data={"label": "sneaky-key", "scopes": ["manage"]}
    )
    assert no_token.status_code in (400, 403)
    assert "sneaky-key" not in text_of(owner.get("/dashboard/settings/api-keys"))
