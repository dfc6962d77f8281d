"""Review quorum and separation of duties (issue 15, CONTRACT §7 and §8).

A request waits until ``required_approvals`` distinct reviewers approve it; one deny denies it;
under a quorum only active reviewers of the tenant count, each once; nobody decides a request
made on their behalf; the terminal ledger event lists every approver. Races run in real threads
against the real database (SQLite or PostgreSQL).
"""

from __future__ import annotations

import json
import threading

import pytest

from tests.api.test_foundation import assert_problem
from tests.api.test_reviews import (  # noqa: F401 - fixtures used by name
    decide,
    low_confidence_verdict,
    pending_request,
    review_app,
    review_events,
    serving,
)
from tests.conftest import make_tenant
from tests.dashboard.conftest import Dashboard
from tests.helpers import json_reply

PASSWORD = "correct horse battery staple"


def quorum_judge_handler(method, path, headers, body):  # noqa: ANN001, ANN201
    """Sends everything to review; ``tool_args.reviewers`` plays a rule asking for N reviewers,
    and with ``tool_args.rule`` the judge answers ``review`` naming that rule, as the judge's
    quorum recogniser does (``details.required_approvals`` and ``required_approvals_rule``)."""
    query = json.loads(body or b"{}")
    verdict = low_confidence_verdict(query)
    args = query.get("tool_args") or {}
    wanted = args.get("reviewers")
    if wanted is not None:
        verdict["details"] = {"required_approvals": wanted}
    if "rule" in args:
        verdict.update(
            decision="review",
            confidence=0.9,
            reason=f"Review required by rule: {args['rule']}",
            reason_code="review_required_by_rule",
        )
        verdict["details"]["required_approvals_rule"] = {"text": args["rule"], "chunk_id": "c"}
    return json_reply(200, verdict)


@pytest.fixture(scope="session")
def review_judge():
    with serving(quorum_judge_handler) as judge:
        yield judge


@pytest.fixture(scope="session")
def password_hash() -> str:
    """One Argon2 hash for every user here: these users never sign in, and hashing is slow on
    purpose (a third of a second each)."""
    from argon2 import PasswordHasher

    return PasswordHasher().hash(PASSWORD)


def add_user(client_id: str, email: str, role: str, password_hash: str):  # noqa: ANN201
    from webapp.extensions import db
    from webapp.models import User, short_id

    user = User(
        user_id=short_id("usr", 10),
        client_id=client_id,
        email=email,
        password_hash=password_hash,
        role=role,
    )
    db.session.add(user)
    db.session.commit()
    return user


class Desk:
    """A tenant with reviewers, an API client and a key labelled for the record."""

    def __init__(self, app, password_hash: str) -> None:  # noqa: ANN001
        from webapp.services import tenants

        self.app = app
        self.password_hash = password_hash
        self.client = app.test_client()
        self.tenant = make_tenant(app, "Quorum Payments")
        with app.app_context():
            for email, role in (
                ("ann@desk.test", "reviewer"),
                ("bob@desk.test", "reviewer"),
                ("olga@desk.test", "owner"),
                ("vic@desk.test", "viewer"),
            ):
                add_user(self.tenant.client_id, email, role, password_hash)
            _, raw = tenants.create_api_key(self.tenant.client_id, "review desk", ["review"])
        self.review_key = {"X-Vault-API-Key": raw}

    def set_quorum(self, count: int) -> None:
        response = self.client.put(
            "/review-settings", json={"required_approvals": count}, headers=self.tenant.headers
        )
        assert response.status_code == 200, response.get_data(as_text=True)

    def pending(self, **kwargs) -> str:  # noqa: ANN003
        return pending_request(self.app, self.client, self.tenant, **kwargs)

    def vote(self, rid: str, approved: bool = True, **fields):  # noqa: ANN003
        return self.client.post(
            f"/reviews/{rid}/decision",
            json={"approved": approved, **fields},
            headers=self.review_key,
        )

    def status(self, rid: str) -> dict:
        return self.client.get(f"/clearance-status/{rid}", headers=self.tenant.headers).get_json()

    def terminal_events(self, rid: str) -> list[dict]:
        return [e for e in review_events(self.app, rid) if e["category"] == "review_decision"]


@pytest.fixture
def desk(review_app, password_hash):  # noqa: F811 - the imported fixture
    return Desk(review_app(), password_hash)


# --- settings ----------------------------------------------------------------------------------


def test_required_approvals_defaults_to_one_and_is_stored(desk):
    got = desk.client.get("/review-settings", headers=desk.tenant.headers).get_json()
    assert got["required_approvals"] == 1
    put = desk.client.put(
        "/review-settings", json={"required_approvals": 3}, headers=desk.tenant.headers
    )
    assert put.status_code == 200 and put.get_json()["required_approvals"] == 3
    # Another field alone keeps it.
    desk.client.put(
        "/review-settings", json={"minimum_confidence_score": 0.9}, headers=desk.tenant.headers
    )
    got = desk.client.get("/review-settings", headers=desk.tenant.headers).get_json()
    assert (got["required_approvals"], got["minimum_confidence_score"]) == (3, 0.9)


@pytest.mark.parametrize("value", [0, 6, -1, 100, "2", True, 2.5, None, [2]])
def test_required_approvals_outside_one_to_five_is_400_and_changes_nothing(desk, value):
    desk.set_quorum(2)
    response = desk.client.put(
        "/review-settings", json={"required_approvals": value}, headers=desk.tenant.headers
    )
    problem = assert_problem(response, 400, "invalid_request")
    assert problem["errors"][0]["field"] == "required_approvals"
    got = desk.client.get("/review-settings", headers=desk.tenant.headers).get_json()
    assert got["required_approvals"] == 2


def test_the_edge_model_refuses_out_of_range_counts_for_every_caller():
    # Validation happens once, in the model that builds the service's command (issue #11).
    from pydantic import ValidationError

    from webapp.api.schemas import ReviewSettingsUpdate
    from webapp.errors import InvalidInput

    for value in (0, 6, True, 1.0, None):
        with pytest.raises((ValidationError, InvalidInput)):
            ReviewSettingsUpdate.model_validate({"required_approvals": value})
    assert ReviewSettingsUpdate.model_validate({"required_approvals": 5}).command() == (
        settings_change(required_approvals=5)
    )


def settings_change(**fields):
    from webapp.services.settings import ReviewSettingsChange

    return ReviewSettingsChange(**fields)


# --- quorum --------------------------------------------------------------------------------------


def test_two_approvals_are_needed_then_the_ledger_lists_both(desk):
    desk.set_quorum(2)
    rid = desk.pending()
    [item] = desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    assert (item["required_approvals"], item["approvals"]) == (2, [])

    first = desk.vote(rid, reviewer_email="Ann@Desk.test", review_reason="known customer")
    assert first.status_code == 200, first.get_data(as_text=True)
    body = first.get_json()
    assert (body["status"], body["approved"], body["token"]) == ("pending_review", False, None)
    assert body["requires_manual_review"] is True and body["approvals_remaining"] == 1
    assert [a["reviewer_email"] for a in body["approvals"]] == ["ann@desk.test"]
    assert body["approvals"][0]["review_reason"] == "known customer"
    assert body["approvals"][0]["decided_at"].endswith("Z")
    assert desk.status(rid)["status"] == "pending_review"
    assert desk.terminal_events(rid) == []

    # The same reviewer again, in any spelling, does not count twice.
    assert_problem(desk.vote(rid, reviewer_email="ANN@desk.test"), 409, "conflict")
    [item] = desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    assert [a["reviewer_email"] for a in item["approvals"]] == ["ann@desk.test"]

    second = desk.vote(rid, reviewer_email="olga@desk.test", review_reason="fine by me")
    body = second.get_json()
    assert (body["status"], body["approved"], body["approvals_remaining"]) == ("approved", True, 0)
    assert body["token"] and body["reason_code"] == "approved_by_reviewer"
    assert [a["reviewer_email"] for a in body["approvals"]] == ["ann@desk.test", "olga@desk.test"]

    [event] = desk.terminal_events(rid)
    meta = event["action_metadata"]
    assert meta["required_approvals"] == 2
    assert [(a["reviewer_email"], a["review_reason"]) for a in meta["approvals"]] == [
        ("ann@desk.test", "known customer"),
        ("olga@desk.test", "fine by me"),
    ]
    assert all(a["decided_at"].endswith("Z") for a in meta["approvals"])
    assert meta["channel"] == "api key review desk"
    assert_problem(desk.vote(rid, reviewer_email="bob@desk.test"), 409, "conflict")


def test_one_deny_denies_under_a_quorum(desk):
    desk.set_quorum(3)
    rid = desk.pending()
    assert desk.vote(rid, reviewer_email="ann@desk.test").get_json()["approvals_remaining"] == 2
    denied = desk.vote(rid, False, reviewer_email="bob@desk.test", review_reason="too large")
    body = denied.get_json()
    assert (body["status"], body["reason_code"], body["token"]) == (
        "denied",
        "reviewer_denied",
        None,
    )
    assert body["approvals_remaining"] == 0
    [event] = desk.terminal_events(rid)
    assert [a["reviewer_email"] for a in event["action_metadata"]["approvals"]] == ["ann@desk.test"]
    assert event["action_metadata"]["reviewer"]["email"] == "bob@desk.test"


@pytest.mark.parametrize(
    "email",
    [
        "stranger@desk.test",  # not a user
        "vic@desk.test",  # a viewer may not review
        "carol@elsewhere.test",  # a user of another tenant
        "dora@desk.test",  # disabled
    ],
)
def test_under_a_quorum_only_active_reviewers_of_the_tenant_count(desk, email):
    from webapp.services import tenants

    with desk.app.app_context():
        elsewhere = make_tenant(desk.app, "Elsewhere")
        add_user(elsewhere.client_id, "carol@elsewhere.test", "reviewer", desk.password_hash)
        dora = add_user(desk.tenant.client_id, "dora@desk.test", "reviewer", desk.password_hash)
        tenants.disable_user(desk.tenant.client_id, dora.user_id)
    desk.set_quorum(2)
    rid = desk.pending()
    for approved in (True, False):
        problem = assert_problem(
            desk.vote(rid, approved, reviewer_email=email), 400, "invalid_request"
        )
        assert problem["errors"][0]["field"] == "reviewer_email"
    [item] = desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    assert item["approvals"] == [] and item["status"] == "pending_review"


def test_under_a_quorum_an_approval_must_name_a_reviewer(desk):
    desk.set_quorum(2)
    rid = desk.pending()
    problem = assert_problem(desk.vote(rid, True), 400, "invalid_request")
    assert problem["errors"][0]["field"] == "reviewer_email"
    assert desk.status(rid)["status"] == "pending_review"


def test_without_a_quorum_an_asserted_address_still_decides(desk):
    rid = desk.pending()
    body = desk.vote(rid, reviewer_email="outside@partner.test").get_json()
    assert body["status"] == "approved" and body["approvals_remaining"] == 0


def test_a_rule_raises_the_quorum_for_its_own_requests(desk):
    raised = desk.pending(args={"amount": 900, "reviewers": 3})
    plain = desk.pending(args={"amount": 901})
    lower = desk.pending(args={"amount": 902, "reviewers": 0})
    capped = desk.pending(args={"amount": 903, "reviewers": 9})
    items = {
        i["request_id"]: i["required_approvals"]
        for i in desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    }
    assert items == {raised: 3, plain: 1, lower: 1, capped: 5}
    assert desk.vote(plain, reviewer_email="ann@desk.test").get_json()["status"] == "approved"
    assert desk.vote(raised, reviewer_email="ann@desk.test").get_json()["approvals_remaining"] == 2


THREE_REVIEWER_RULE = "Refunds above $5,000 require approval from three reviewers"


def test_a_remote_judges_rule_asks_for_three_approvals_and_is_named(desk):
    """The judge on loopback (VAULT_JUDGE_URL) answers review with details.required_approvals
    3: the item names the rule, two approvals leave it pending, the third decides."""
    rid = desk.pending(args={"amount": 9000, "reviewers": 3, "rule": THREE_REVIEWER_RULE})
    [item] = [
        i
        for i in desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
        if i["request_id"] == rid
    ]
    assert (item["required_approvals"], item["required_approvals_rule"]) == (3, THREE_REVIEWER_RULE)
    assert item["reason_code"] == "review_required_by_rule"
    # The dashboard says the same: the queue row and the review page.
    page = Dashboard(desk.app.test_client())
    assert page.sign_in("vic@desk.test", PASSWORD).status_code == 302
    queue = page.get("/dashboard/reviews").get_data(as_text=True)
    assert "0/3 approvals (set by rule)" in queue and THREE_REVIEWER_RULE in queue
    detail = page.get(f"/dashboard/reviews/{rid}").get_data(as_text=True)
    assert (
        f"Needs 3 approvals from different reviewers (set by rule <q>{THREE_REVIEWER_RULE}</q>)"
        in (detail)
    )
    first = desk.vote(rid, reviewer_email="ann@desk.test").get_json()
    assert (first["status"], first["approvals_remaining"]) == ("pending_review", 2)
    assert first["required_approvals_rule"] == THREE_REVIEWER_RULE
    assert first["decision_channel"] == ""  # nothing decided yet
    second = desk.vote(rid, reviewer_email="bob@desk.test").get_json()
    assert (second["status"], second["approvals_remaining"]) == ("pending_review", 1)
    third = desk.vote(rid, reviewer_email="olga@desk.test", review_reason="third").get_json()
    assert (third["status"], third["approvals_remaining"]) == ("approved", 0)
    assert third["decision_channel"] == "api key review desk"
    assert [a["reviewer_email"] for a in third["approvals"]] == [
        "ann@desk.test",
        "bob@desk.test",
        "olga@desk.test",
    ]
    [decided] = desk.client.get("/reviews?status=approved", headers=desk.review_key).get_json()[
        "reviews"
    ]
    assert (decided["request_id"], decided["decision_channel"]) == (rid, "api key review desk")
    [event] = desk.terminal_events(rid)
    assert event["action_metadata"]["required_approvals"] == 3
    assert len(event["action_metadata"]["approvals"]) == 3
    detail = page.get(f"/dashboard/reviews/{rid}").get_data(as_text=True)
    assert "(via api key review desk)" in detail


def test_which_rule_set_the_quorum_falls_back_and_yields_to_the_settings(desk):
    # No rule named: the verdict's first citation stands for it.
    unnamed = desk.pending(args={"amount": 900, "reviewers": 2})
    desk.set_quorum(4)
    # The tenant asks for more than the rule: the settings set the quorum, no rule is named.
    outranked = desk.pending(args={"amount": 901, "reviewers": 3, "rule": THREE_REVIEWER_RULE})
    plain = desk.pending(args={"amount": 902})
    items = {
        i["request_id"]: (i["required_approvals"], i["required_approvals_rule"])
        for i in desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    }
    assert items[unnamed] == (2, "Refunds above $500 require manual approval")
    assert items[outranked] == (4, "")
    assert items[plain] == (4, "")


def test_the_quorum_is_fixed_when_the_request_enters_review(desk):
    desk.set_quorum(2)
    rid = desk.pending()
    desk.set_quorum(1)
    later = desk.pending(args={"amount": 777})
    assert desk.vote(rid, reviewer_email="ann@desk.test").get_json()["approvals_remaining"] == 1
    assert desk.vote(later, reviewer_email="ann@desk.test").get_json()["status"] == "approved"


# --- separation of duties --------------------------------------------------------------------------


@pytest.mark.parametrize("quorum", [1, 2])
def test_nobody_approves_a_request_made_on_their_behalf(desk, quorum):
    desk.set_quorum(quorum)
    rid = desk.pending(human_principal="Ann@desk.test")
    for approved in (True, False):
        assert_problem(desk.vote(rid, approved, reviewer_email="ann@desk.test"), 403, "forbidden")
    assert desk.status(rid)["status"] == "pending_review"
    body = desk.vote(rid, reviewer_email="bob@desk.test").get_json()
    assert body["status"] == ("approved" if quorum == 1 else "pending_review")


def test_an_agent_key_cannot_decide_at_all(desk):
    from webapp.services import tenants

    with desk.app.app_context():
        _, raw = tenants.create_api_key(desk.tenant.client_id, "bot", ["agent"])
    rid = desk.pending()
    response = desk.client.post(
        f"/reviews/{rid}/decision",
        json={"approved": True, "reviewer_email": "ann@desk.test"},
        headers={"X-Vault-API-Key": raw},
    )
    assert_problem(response, 403, "forbidden")
    assert desk.status(rid)["status"] == "pending_review"


@pytest.mark.parametrize("quorum", [1, 2])
def test_a_client_cancellation_denies_at_once_and_is_recorded_by_key(desk, quorum):
    """Both public clients cancel a pending request with a denial that names no reviewer."""
    desk.set_quorum(quorum)
    rid = desk.pending()
    if quorum == 2:
        desk.vote(rid, reviewer_email="ann@desk.test")
    body = desk.vote(rid, False, review_reason="cancelled by agent").get_json()
    assert (body["status"], body["reason_code"], body["reviewer_email"]) == (
        "denied",
        "reviewer_denied",
        "",
    )
    assert body["review_reason"] == "cancelled by agent"
    [event] = desk.terminal_events(rid)
    assert event["action_metadata"]["cancelled_by"] == "api key review desk"
    assert event["action_metadata"]["channel"] == "api key review desk"


def test_a_cancellation_without_a_reason_says_who_cancelled(desk):
    rid = desk.pending()
    body = desk.vote(rid, False).get_json()
    assert (
        body["status"] == "denied" and body["review_reason"] == "cancelled by api key review desk"
    )


# --- races ---------------------------------------------------------------------------------------


def race(desk: Desk, rid: str, votes: list[tuple[str, bool]]) -> list[tuple[int, dict]]:
    """Every vote at the same instant, each in its own thread with its own client."""
    barrier = threading.Barrier(len(votes))
    results: list[tuple[int, dict]] = [(0, {})] * len(votes)

    def cast(index: int, email: str, approved: bool) -> None:
        own = desk.app.test_client()
        barrier.wait()
        response = own.post(
            f"/reviews/{rid}/decision",
            json={"approved": approved, "reviewer_email": email},
            headers=desk.review_key,
        )
        results[index] = (response.status_code, response.get_json())

    threads = [
        threading.Thread(target=cast, args=(i, email, approved))
        for i, (email, approved) in enumerate(votes)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_two_reviewers_approving_at_once_count_as_two(desk):
    desk.set_quorum(2)
    for round_ in range(3):
        rid = desk.pending(args={"amount": 600 + round_})
        results = race(desk, rid, [("ann@desk.test", True), ("bob@desk.test", True)])
        assert [code for code, _ in results] == [200, 200], results
        states = sorted(body["status"] for _, body in results)
        assert states == ["approved", "pending_review"], results
        final = desk.status(rid)
        assert final["status"] == "approved" and final["token"]
        [event] = desk.terminal_events(rid)
        assert sorted(a["reviewer_email"] for a in event["action_metadata"]["approvals"]) == [
            "ann@desk.test",
            "bob@desk.test",
        ]


def test_a_deny_racing_the_deciding_approval_gives_one_terminal_outcome(desk):
    desk.set_quorum(2)
    for round_ in range(3):
        rid = desk.pending(args={"amount": 700 + round_})
        desk.vote(rid, reviewer_email="olga@desk.test")
        results = race(desk, rid, [("ann@desk.test", True), ("bob@desk.test", False)])
        codes = sorted(code for code, _ in results)
        assert codes == [200, 409], results
        winner = next(body for code, body in results if code == 200)
        final = desk.status(rid)
        assert final["status"] == winner["status"] in ("approved", "denied")
        assert (final["token"] is not None) == (final["status"] == "approved")
        assert len(desk.terminal_events(rid)) == 1


def test_one_reviewer_voting_twice_at_once_counts_once(desk):
    desk.set_quorum(2)
    rid = desk.pending()
    results = race(desk, rid, [("ann@desk.test", True), ("ann@desk.test", True)])
    assert sorted(code for code, _ in results) == [200, 409], results
    [item] = desk.client.get("/reviews", headers=desk.review_key).get_json()["reviews"]
    assert len(item["approvals"]) == 1 and item["status"] == "pending_review"
