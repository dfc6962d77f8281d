"""Dashboard fixtures: users of each role and a test client that signs in and sends CSRF tokens."""

from __future__ import annotations

import re

import pytest

PASSWORD = "correct horse battery staple"
ROLES = ("owner", "reviewer", "viewer")
_META_TOKEN = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


@pytest.fixture(autouse=True)
def _push_request_context():
    """Override pytest-flask's: it pushes one request context for the whole test, so every
    test-client request would share one ``g`` (and Flask-Login's cached user in it). Here
    each request gets its own context, as a browser's requests do."""
    yield


@pytest.fixture
def redis_client(app):
    return app.extensions["vault"].redis


class Dashboard:
    """A Flask test client used the way a browser uses the dashboard: it signs in, then
    sends the CSRF token of its session with every POST (as a form field, or as the
    ``X-CSRFToken`` header for HTMX requests)."""

    def __init__(self, client) -> None:  # noqa: ANN001
        self.client = client

    def token(self) -> str:
        page = self.client.get("/dashboard/sign-in", follow_redirects=True)
        match = _META_TOKEN.search(page.get_data(as_text=True))
        assert match, "every page carries the CSRF meta tag"
        return match.group(1)

    def sign_in(self, email: str, password: str = PASSWORD, **headers):  # noqa: ANN003, ANN201
        return self.client.post(
            "/dashboard/sign-in",
            data={"email": email, "password": password, "csrf_token": self.token()},
            headers=headers,
        )

    def get(self, url: str, htmx: bool = False, **kwargs):  # noqa: ANN003, ANN201
        headers = kwargs.pop("headers", {})
        if htmx:
            headers["HX-Request"] = "true"
        return self.client.get(url, headers=headers, **kwargs)

    def post(self, url: str, data: dict | None = None, htmx: bool = False, **kwargs):  # noqa: ANN003, ANN201
        token = self.token()
        headers = kwargs.pop("headers", {})
        data = dict(data or {})
        if htmx:
            headers.update({"HX-Request": "true", "X-CSRFToken": token})
        else:
            data["csrf_token"] = token
        return self.client.post(url, data=data, headers=headers, **kwargs)


class People(dict):
    """Users of ``tenant`` by role, created on first use (Argon2 hashing is slow on purpose)."""

    def __init__(self, app, client_id: str) -> None:  # noqa: ANN001
        super().__init__()
        self.app, self.client_id = app, client_id

    def __missing__(self, role: str) -> str:
        from webapp.services import tenants

        with self.app.app_context():
            self[role] = tenants.create_user(
                self.client_id, f"{role}@acme.test", PASSWORD, role
            ).email
        return self[role]


@pytest.fixture
def people(app, tenant):
    """The email of a user per role in ``tenant``: ``people["reviewer"]``."""
    return People(app, tenant.client_id)


@pytest.fixture
def dashboard(app):
    # Not pytest-flask's `client`: it is used in a `with` block, which keeps each request's
    # context pushed afterwards, so other clients' requests would share its `g`.
    return Dashboard(app.test_client())


@pytest.fixture
def signed_in(app, people):
    """A factory: a Dashboard client signed in with the given role."""

    def make(role: str) -> Dashboard:
        dash = Dashboard(app.test_client())
        response = dash.sign_in(people[role])
        assert response.status_code == 302, response.get_data(as_text=True)
        return dash

    return make


def text_of(response) -> str:  # noqa: ANN001
    return response.get_data(as_text=True)


REFUND_RULES = ["Refunds above €500 need manual review.", "Refunds must not exceed €5,000."]


class Agent:
    """An agent calling the JSON API with the tenant's key, as the SDK does."""

    def __init__(self, app, tenant, run_jobs, agent_id: str = "agent-7") -> None:  # noqa: ANN001
        self.api = app.test_client()
        self.tenant, self.run_jobs, self.agent_id = tenant, run_jobs, agent_id

    def register_refund_policy(self, rules: list[str] | None = None) -> dict:
        body = {
            "policy_id": "refunds",
            "description": "Customer refunds",
            "rules": rules or REFUND_RULES,
            "tools": ["payments.refund"],
        }
        response = self.api.post("/register-policy", json=body, headers=self.tenant.headers)
        assert response.status_code in (200, 201), response.get_data(as_text=True)
        return response.get_json()

    def ask(self, tool_name: str, tool_args: dict, agent_id: str | None = None) -> dict:
        """Request clearance and let the worker judge it; returns the decided response."""
        body = {
            "tool_name": tool_name,
            "tool_args": tool_args,
            "agent_id": agent_id or self.agent_id,
        }
        response = self.api.post("/request-clearance", json=body, headers=self.tenant.headers)
        assert response.status_code in (200, 202), response.get_data(as_text=True)
        self.run_jobs()
        return self.poll(response.get_json()["request_id"])

    def poll(self, request_id: str) -> dict:
        return self.api.get(
            f"/clearance-status/{request_id}", headers=self.tenant.headers
        ).get_json()

    def pending_refund(self, amount: float = 900, **extra) -> str:  # noqa: ANN003
        decided = self.ask("payments.refund", {"amount": amount, "currency": "EUR", **extra})
        assert decided["status"] == "pending_review", decided
        return decided["request_id"]


@pytest.fixture
def agent(app, tenant, run_jobs):
    return Agent(app, tenant, run_jobs)


@pytest.fixture
def run_jobs(app):
    """Run every queued job with a real burst SimpleWorker. Unlike the suite-wide fixture it
    starts no scheduler: nothing here is scheduled for later, and the scheduler's start-up
    costs about a second per run."""
    from rq import SimpleWorker

    from jobs.queues import all_queues

    def run() -> None:
        connection = app.extensions["vault"].redis
        SimpleWorker(all_queues(connection), connection=connection).work(burst=True)

    return run
