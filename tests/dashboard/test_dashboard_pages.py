"""Every dashboard page renders for every role, and page or fragment follows HX-Request."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import ROLES, text_of

READ_PAGES = (
    "/dashboard/",
    "/dashboard/reviews",
    "/dashboard/reviews?status=all",
    "/dashboard/policies",
    "/dashboard/ledger",
    "/dashboard/ledger/checkpoints",
    "/dashboard/ledger/verification",
    "/dashboard/agents",
    "/dashboard/settings/review",
    "/dashboard/settings/notifications",
    "/dashboard/settings/api-keys",
)


@pytest.mark.parametrize("role", ROLES)
def test_every_read_page_renders_for_every_role(signed_in, role):
    dash = signed_in(role)
    for url in READ_PAGES:
        response = dash.get(url)
        assert response.status_code == 200, (url, text_of(response)[:500])
        body = text_of(response)
        assert "<!doctype html>" in body and 'name="csrf-token"' in body, url
        assert "HX-Request" in response.headers.get("Vary", ""), url
