"""Sign-in and sign-out: cookies, throttling, redirects, disabled users."""

from __future__ import annotations

from tests.conftest import make_config
from tests.dashboard.conftest import PASSWORD, Dashboard, text_of


def test_pages_need_sign_in_and_come_back_after_it(dashboard, people):
    email = people["viewer"]
    response = dashboard.get("/dashboard/agents")
    assert response.status_code == 303
    assert response.headers["Location"].startswith("/dashboard/sign-in?next=/dashboard/agents")

    signed = dashboard.client.post(
        "/dashboard/sign-in",
        data={
            "email": email,
            "password": PASSWORD,
            "next": "/dashboard/agents",
            "csrf_token": dashboard.token(),
        },
    )
    assert signed.status_code == 302
    assert signed.headers["Location"] == "/dashboard/agents"
    assert dashboard.get("/dashboard/agents").status_code == 200


def test_htmx_requests_without_a_session_are_sent_to_sign_in(dashboard):
    response = dashboard.get("/dashboard/reviews", htmx=True)
    assert response.status_code == 200
    assert response.headers["HX-Redirect"].startswith("/dashboard/sign-in")
    assert text_of(response) == ""


def test_root_redirects_to_the_dashboard(dashboard):
    response = dashboard.get("/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/dashboard/")


def test_next_never_leaves_the_dashboard(dashboard, people):
    email = people["viewer"]
    for target in ("https://evil.example/", "//evil.example/x", "/dashboard\\@evil", "/health"):
        dash = Dashboard(dashboard.client.application.test_client())
        response = dash.client.post(
            "/dashboard/sign-in",
            data={"email": email, "password": PASSWORD, "next": target, "csrf_token": dash.token()},
        )
        assert response.status_code == 302
        assert response.headers["Location"] == "/dashboard/", target


def test_session_cookie_is_httponly_and_samesite_lax(dashboard, people):
    response = dashboard.sign_in(people["viewer"])
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # the test app is not behind HTTPS


def test_session_cookie_is_secure_behind_https(workdir, database_url, redis_url, _migrated):
    from webapp import create_app

    app = create_app(
        make_config(workdir, database_url, redis_url, public_url="https://vault.example.test")
    )
    assert app.config["SESSION_COOKIE_SECURE"] is True
    response = app.test_client().get("/dashboard/sign-in", base_url="https://vault.example.test")
    assert "Secure" in response.headers["Set-Cookie"]


def test_wrong_password_is_refused_without_saying_which_part(dashboard, people):
    email = people["viewer"]
    wrong = dashboard.sign_in(email, "not the password at all")
    unknown = dashboard.sign_in("nobody@acme.test", "not the password at all")
    assert wrong.status_code == unknown.status_code == 401
    assert "Email or password is not right." in text_of(wrong)
    assert "Email or password is not right." in text_of(unknown)
    assert dashboard.get("/dashboard/").status_code == 303


def test_sign_in_is_throttled_after_five_failures_per_email_and_address(
    dashboard, people, redis_client
):
    email = people["reviewer"]
    for _ in range(5):
        assert dashboard.sign_in(email, "wrong password 123").status_code == 401
    # Now even the right password is refused until the window ends.
    blocked = dashboard.sign_in(email, PASSWORD)
    assert blocked.status_code == 429
    assert "Too many failed sign-ins" in text_of(blocked)
    assert dashboard.get("/dashboard/").status_code == 303
    # Another address is not blocked for the same account.
    other = dashboard.sign_in(email, PASSWORD, **{"X-Forwarded-For": "ignored"})
    assert other.status_code == 429, "the client address comes from the connection, not a header"
    elsewhere = Dashboard(dashboard.client.application.test_client())
    response = elsewhere.client.post(
        "/dashboard/sign-in",
        data={"email": email, "password": PASSWORD, "csrf_token": elsewhere.token()},
        environ_base={"REMOTE_ADDR": "10.9.8.7"},
    )
    assert response.status_code == 302, text_of(response)
    # The window is kept in Redis with an expiry; nothing holds the email in clear.
    keys = [k.decode() for k in redis_client.keys("vault:signin:*")]
    assert keys and all(email not in k for k in keys)
    assert all(0 < redis_client.ttl(k) <= 15 * 60 for k in keys)


def test_a_success_clears_earlier_failures(dashboard, people):
    email = people["viewer"]
    for _ in range(4):
        dashboard.sign_in(email, "wrong password 123")
    assert dashboard.sign_in(email).status_code == 302
    dashboard.post("/dashboard/sign-out")
    for _ in range(4):
        assert dashboard.sign_in(email, "wrong password 123").status_code == 401
    assert dashboard.sign_in(email).status_code == 302


def test_sign_out_is_a_post_and_ends_the_session(signed_in):
    dash = signed_in("viewer")
    assert dash.client.get("/dashboard/sign-out").status_code == 405
    assert dash.get("/dashboard/").status_code == 200
    response = dash.post("/dashboard/sign-out")
    assert response.status_code == 302
    assert dash.get("/dashboard/").status_code == 303


def test_a_disabled_user_cannot_sign_in_and_their_session_ends(app, signed_in, people, tenant):
    from webapp.extensions import db
    from webapp.models import User
    from webapp.services import tenants

    dash = signed_in("reviewer")
    with app.app_context():
        user = db.session.query(User).filter_by(email=people["reviewer"]).one()
        tenants.disable_user(tenant.client_id, user.user_id)
    assert dash.get("/dashboard/").status_code == 303
    assert dash.sign_in(people["reviewer"]).status_code == 401


def test_signing_in_starts_a_fresh_session(dashboard, people):
    before = dashboard.token()
    dashboard.sign_in(people["viewer"])
    assert dashboard.token() != before


def test_behind_a_trusted_proxy_the_forwarded_client_address_is_throttled(
    workdir, database_url, redis_url, people
):
    from webapp import create_app

    proxied = create_app(make_config(workdir, database_url, redis_url, trusted_proxy_hops=1))
    dash = Dashboard(proxied.test_client())
    email = people["reviewer"]
    first_client = {"X-Forwarded-For": "203.0.113.5"}
    for _ in range(5):
        assert dash.sign_in(email, "wrong password 123", **first_client).status_code == 401
    assert dash.sign_in(email, PASSWORD, **first_client).status_code == 429
    # The proxy appends the address it saw: an entry the client wrote itself is not believed.
    spoofed = {"X-Forwarded-For": "198.51.100.9, 203.0.113.5"}
    assert dash.sign_in(email, PASSWORD, **spoofed).status_code == 429
    # Another client behind the same proxy (same socket peer) is not blocked by the first.
    other_client = {"X-Forwarded-For": "198.51.100.9"}
    assert dash.sign_in(email, PASSWORD, **other_client).status_code == 302
