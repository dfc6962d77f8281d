"""Dashboard users' roles: nobody changes or disables themselves, a tenant keeps an owner."""

from __future__ import annotations

import pytest

from webapp.errors import Conflict, Forbidden, InvalidInput, NotFound
from webapp.extensions import db
from webapp.models import User
from webapp.services import tenants

PASSWORD = "a long enough password"


@pytest.fixture
def people(app, tenant):
    with app.app_context():
        made = {
            name: tenants.create_user(tenant.client_id, f"{name}@acme.test", PASSWORD, role).user_id
            for name, role in (("ada", "owner"), ("bob", "owner"), ("cy", "reviewer"))
        }
    return made


def _role_and_state(app, user_id: str) -> tuple[str, bool]:
    with app.app_context():
        user = db.session.get(User, user_id)
        return user.role, user.is_active


def test_an_owner_changes_another_users_role(app, tenant, people):
    with app.app_context():
        changed = tenants.set_user_role(
            tenant.client_id, people["cy"], "viewer", acting_user_id=people["ada"]
        )
        assert changed.role == "viewer"
    assert _role_and_state(app, people["cy"]) == ("viewer", True)


def test_nobody_changes_their_own_role_or_disables_themselves(app, tenant, people):
    with app.app_context():
        with pytest.raises(Forbidden, match="your own role"):
            tenants.set_user_role(
                tenant.client_id, people["ada"], "viewer", acting_user_id=people["ada"]
            )
        with pytest.raises(Forbidden, match="your own account"):
            tenants.disable_user(tenant.client_id, people["ada"], acting_user_id=people["ada"])
        # Setting one's own role to what it already is changes nothing and is not refused.
        tenants.set_user_role(
            tenant.client_id, people["ada"], "owner", acting_user_id=people["ada"]
        )
    assert _role_and_state(app, people["ada"]) == ("owner", True)


def test_the_last_active_owner_can_be_neither_demoted_nor_disabled(app, tenant, people):
    with app.app_context():
        tenants.set_user_role(
            tenant.client_id, people["bob"], "reviewer", acting_user_id=people["ada"]
        )
        with pytest.raises(Conflict, match="at least one active owner"):
            tenants.set_user_role(tenant.client_id, people["ada"], "viewer")
        with pytest.raises(Conflict, match="at least one active owner"):
            tenants.disable_user(tenant.client_id, people["ada"])
    # The refusals left nothing written.
    assert _role_and_state(app, people["ada"]) == ("owner", True)
    with app.app_context():
        # A disabled owner does not count as the one that remains.
        tenants.set_user_role(
            tenant.client_id, people["bob"], "owner", acting_user_id=people["ada"]
        )
        tenants.disable_user(tenant.client_id, people["bob"], acting_user_id=people["ada"])
        with pytest.raises(Conflict):
            tenants.set_user_role(tenant.client_id, people["ada"], "reviewer")
    assert _role_and_state(app, people["bob"]) == ("owner", False)
    assert _role_and_state(app, people["ada"]) == ("owner", True)


def test_bad_role_and_other_tenants_user_are_refused(app, tenant, other_tenant, people):
    with app.app_context():
        with pytest.raises(InvalidInput):
            tenants.set_user_role(tenant.client_id, people["cy"], "admin")
        with pytest.raises(NotFound):
            tenants.set_user_role(other_tenant.client_id, people["cy"], "viewer")
        with pytest.raises(NotFound):
            tenants.disable_user(other_tenant.client_id, people["cy"])
    assert _role_and_state(app, people["cy"]) == ("reviewer", True)
