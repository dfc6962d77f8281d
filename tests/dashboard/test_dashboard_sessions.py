"""Sessions end for good, and the sign-in throttle cannot be raced (issue 16 §6-7)."""

from __future__ import annotations

import threading

import pytest

from tests.conftest import make_config
from tests.dashboard.conftest import PASSWORD, Dashboard


def copy_session(source: Dashboard, app) -> Dashboard:  # noqa: ANN001
    """Another browser holding a copy of ``source``'s session cookie (a stolen cookie)."""
    cookie = source.client.get_cookie("session")
    assert cookie is not None
    thief = Dashboard(app.test_client())
    thief.client.set_cookie("session", cookie.value, domain=cookie.domain, path=cookie.path)
    return thief


def user_named(app, email: str):  # noqa: ANN001, ANN201
    from webapp.extensions import db
    from webapp.models import User

    with app.app_context():
        user = db.session.query(User).filter_by(email=email).one()
        db.session.expunge(user)
        return user


def test_an_old_session_cookie_opens_nothing_after_sign_out(app, signed_in):
    dash = signed_in("viewer")
    thief = copy_session(dash, app)
    assert thief.get("/dashboard/").status_code == 200  # the copy works while the session lives
    assert dash.post("/dashboard/sign-out").status_code == 302
    assert thief.get("/dashboard/").status_code == 303
    assert dash.get("/dashboard/").status_code == 303


def test_signing_in_again_after_sign_out_works(app, signed_in, people):
    dash = signed_in("reviewer")
    dash.post("/dashboard/sign-out")
    assert dash.sign_in(people["reviewer"]).status_code == 302
    assert dash.get("/dashboard/").status_code == 200


def test_a_password_change_ends_every_session(app, signed_in, people):
    from webapp.services import users

    dash = signed_in("owner")
    other_device = signed_in("owner")
    new_password = "a brand new passphrase 42"
    with app.app_context():
        user = users.change_password(user_named(app, people["owner"]), PASSWORD, new_password)
        assert user.session_generation >= 1
    assert dash.get("/dashboard/").status_code == 303
    assert other_device.get("/dashboard/").status_code == 303
    fresh = Dashboard(app.test_client())
    assert fresh.sign_in(people["owner"], PASSWORD).status_code == 401
    assert fresh.sign_in(people["owner"], new_password).status_code == 302


@pytest.mark.parametrize(
    "current,new,field",
    [
        ("not the password at all", "a brand new passphrase 42", "current_password"),
        (PASSWORD, "short", "new_password"),
        (PASSWORD, PASSWORD, "new_password"),
    ],
)
def test_a_refused_password_change_changes_nothing(app, signed_in, people, current, new, field):
    from webapp.errors import InvalidInput
    from webapp.services import users

    dash = signed_in("viewer")
    with app.app_context():
        with pytest.raises(InvalidInput) as refused:
            users.change_password(user_named(app, people["viewer"]), current, new)
    assert refused.value.errors[0]["field"] == field
    assert dash.get("/dashboard/").status_code == 200


def test_disabling_a_user_moves_their_session_generation(app, people, tenant):
    from webapp.services import tenants

    before = user_named(app, people["reviewer"]).session_generation
    with app.app_context():
        tenants.disable_user(tenant.client_id, user_named(app, people["reviewer"]).user_id)
    assert user_named(app, people["reviewer"]).session_generation == before + 1


def test_forty_parallel_wrong_sign_ins_get_at_most_five_password_checks(app, people):
    email = people["reviewer"]
    clients = [Dashboard(app.test_client()) for _ in range(40)]
    tokens = [c.token() for c in clients]
    start = threading.Barrier(len(clients))
    statuses: list[int] = []
    lock = threading.Lock()

    def attempt(dash: Dashboard, token: str) -> None:
        start.wait()
        response = dash.client.post(
            "/dashboard/sign-in",
            data={"email": email, "password": "wrong password 123", "csrf_token": token},
        )
        with lock:
            statuses.append(response.status_code)

    threads = [
        threading.Thread(target=attempt, args=pair) for pair in zip(clients, tokens, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    # 401 means the password was checked (and was wrong); 429 means it never was.
    assert len(statuses) == 40
    assert statuses.count(401) == 5
    assert statuses.count(429) == 35


@pytest.mark.parametrize(
    "public_url,secure",
    [("https://vault.example.test", True), ("HTTPS://Vault.Example.Test", True)],
)
def test_cookies_are_secure_whenever_the_public_url_is_https(
    workdir, database_url, redis_url, _migrated, people, public_url, secure
):
    from webapp import create_app

    app = create_app(make_config(workdir, database_url, redis_url, public_url=public_url))
    assert app.config["SESSION_COOKIE_SECURE"] is secure
    assert app.config["REMEMBER_COOKIE_SECURE"] is secure
    response = Dashboard(app.test_client()).sign_in(people["viewer"])
    assert "Secure" in response.headers["Set-Cookie"]
    from webapp.extensions import db

    with app.app_context():
        db.engine.dispose()
