"""Review notifications end to end: a request enters pending_review, the worker sends email to a
real aiosmtpd server and a Block Kit message to a real HTTP server on 127.0.0.1, retries with
(zero) backoff, and logs every attempt; a failed notification never touches the decision.

These apps set ``webhook_allow_private`` because the receiving servers are on loopback; the
guard's refusal of loopback without that flag is proved in test_notifications.py and
tests/unit/test_outbound.py, and here by a delivery that an app without the flag refuses.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import json
import socket

import pytest
from aiosmtpd.controller import Controller

from tests.api import test_reviews
from tests.api.test_reviews import BurstWorker, decide, pending_request, run_worker, serving
from tests.conftest import make_tenant
from tests.helpers import LoopbackServer, ask

# The loopback judge and the app builder of the review tests.
review_judge = test_reviews.review_judge
review_app = test_reviews.review_app

CARD = "4111111111111111"
# Not made of hex digits, so it cannot turn up by chance inside a random
# request id in the message (a bare "987" once did).
CVV = "cvv-zq7"
ARGS = {
    "amount": 900,
    "currency": "USD",
    "card_number": CARD,
    "customer": {"name": "Ada", "cvv": CVV},
}
PUBLIC_URL = "https://vault.example.test"


def tenant_app(review_app, name: str, **config):  # noqa: ANN001, ANN003, ANN201
    """An app built with `config`, a tenant in it, and a test client for it."""
    app = review_app(**config)
    return app, make_tenant(app, name), app.test_client()


class Inbox:
    """An aiosmtpd handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        parsed = email.message_from_bytes(
            envelope.original_content or envelope.content, policy=email.policy.default
        )
        self.messages.append(
            {
                "mail_from": envelope.mail_from,
                "rcpt_tos": list(envelope.rcpt_tos),
                "message": parsed,
                "raw": envelope.original_content or envelope.content,
            }
        )
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield inbox, controller.port
    controller.stop()


@pytest.fixture
def refused_port():
    """A port that is bound but never listens: connections to it are refused at once."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    yield holder.getsockname()[1]
    holder.close()


class Chat:
    """A Slack-compatible receiver: answers with the statuses given, then 200."""

    def __init__(self, statuses=()) -> None:
        self.statuses = list(statuses)
        self.server: LoopbackServer

    def answer(self, method, path, headers, body):  # noqa: ANN001, ANN201
        status = self.statuses.pop(0) if self.statuses else 200
        return status, {"Content-Type": "text/plain"}, b"ok" if status == 200 else b"error"

    @property
    def url(self) -> str:
        return f"{self.server.url}/services/T1/B1/hooktoken"

    @property
    def payloads(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.server.requests]


@pytest.fixture
def chat():
    with contextlib.ExitStack() as stack:

        def build(statuses=()):
            receiver = Chat(statuses)
            receiver.server = stack.enter_context(serving(receiver.answer))
            return receiver

        yield build


def configure(client, tenant, **settings) -> None:
    response = client.put("/notification-settings", json=settings, headers=tenant.headers)
    assert response.status_code == 200, response.get_data(as_text=True)


def deliveries(client, tenant, request_id: str = "") -> list[dict]:
    query = f"?request_id={request_id}" if request_id else ""
    return client.get(f"/notifications/deliveries{query}", headers=tenant.headers).get_json()[
        "deliveries"
    ]


def status_of(client, tenant, request_id: str) -> dict:
    return client.get(f"/clearance-status/{request_id}", headers=tenant.headers).get_json()


# --- email -----------------------------------------------------------------------------------


def test_pending_review_is_emailed_with_text_and_html_parts(review_app, smtp):
    inbox, port = smtp
    app, tenant, client = tenant_app(
        review_app,
        "Mailed",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_from="vault@bank.example",
        public_url=PUBLIC_URL,
    )
    configure(
        client,
        tenant,
        email_enabled=True,
        email_recipients="ops@bank.example,risk@bank.example",
        sensitive_args=["card_number", "CVV"],
    )
    rid = pending_request(app, client, tenant, args=ARGS, session_id="sess-1")

    [mail] = inbox.messages
    assert mail["mail_from"] == "vault@bank.example"
    assert sorted(mail["rcpt_tos"]) == ["ops@bank.example", "risk@bank.example"]
    message = mail["message"]
    assert message["Subject"] == "[Clearance Vault] Review needed: refund_payment by agent-7"
    assert message["To"] == "ops@bank.example, risk@bank.example"
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    link = signed_review_link(app, tenant, text, rid)
    for part in (text, html):
        assert link in part
        assert (
            "refund_payment" in part
            and "agent-7" in part
            and "sess-1" in part
            and "refunds" in part
        )
        assert "0.55" in part and "0.80" in part  # confidence against the threshold
        assert "below_confidence_threshold" in part
        assert "refund is within the documented limits" in part
        assert "amount" in part and "900" in part and "USD" in part
        assert CARD not in part and CVV not in part and "[hidden]" in part
    assert "Review it: " + link in text
    assert f'href="{link}"' in html
    assert CARD.encode() not in mail["raw"]

    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["channel"], delivery["event"], delivery["status"], delivery["attempts"]) == (
        "email",
        "review.pending",
        "delivered",
        1,
    )
    assert delivery["target"] == "ops@bank.example, risk@bank.example" and delivery["delivered_at"]
    assert delivery["attempt_log"][0]["outcome"] == "delivered"


def test_smtp_down_leaves_the_decision_alone_and_the_log_shows_every_retry(
    review_app, refused_port
):
    app, tenant, client = tenant_app(
        review_app, "Mail Outage", smtp_host="127.0.0.1", smtp_port=refused_port
    )
    configure(client, tenant, email_enabled=True, email_recipients="ops@bank.example")
    rid = pending_request(app, client, tenant)

    before = status_of(client, tenant, rid)
    assert (before["status"], before["requires_manual_review"], before["token"]) == (
        "pending_review",
        True,
        None,
    )
    [delivery] = deliveries(client, tenant, rid)
    assert delivery["status"] == "failed"
    assert delivery["attempts"] == delivery["max_attempts"] == 3  # the first try and two retries
    assert [a["attempt"] for a in delivery["attempt_log"]] == [1, 2, 3]
    assert all(
        a["outcome"] == "failed" and "SMTP server unreachable" in a["detail"]
        for a in delivery["attempt_log"]
    )
    assert "SMTP server unreachable" in delivery["last_error"]

    # The review still works, and the approval is exactly as without notifications.
    approved = decide(client, tenant, rid, True, reviewer_email="ann@bank.example").get_json()
    assert approved["status"] == "approved" and approved["token"]
    assert status_of(client, tenant, rid)["token"] == approved["token"]


def test_starttls_never_falls_back_to_plain_text(review_app, smtp):
    inbox, port = smtp  # this server offers no STARTTLS
    app, tenant, client = tenant_app(
        review_app, "Strict TLS", smtp_host="127.0.0.1", smtp_port=port, smtp_security="starttls"
    )
    configure(client, tenant, email_enabled=True, email_recipients="ops@bank.example")
    rid = pending_request(app, client, tenant)
    assert inbox.messages == []
    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["status"], delivery["attempts"]) == ("failed", 1)
    assert delivery["last_error"] == "the SMTP server does not offer STARTTLS"


def test_missing_smtp_configuration_fails_once_without_retrying(review_app):
    app, tenant, client = tenant_app(review_app, "No SMTP", smtp_host="")
    configure(client, tenant, email_enabled=True, email_recipients="ops@bank.example")
    rid = pending_request(app, client, tenant)
    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["status"], delivery["attempts"]) == ("failed", 1)
    assert "SMTP_HOST" in delivery["last_error"]


# --- chat webhook ----------------------------------------------------------------------------


def test_pending_review_posts_a_block_kit_message_without_sensitive_arguments(review_app, chat):
    receiver = chat()
    app, tenant, client = tenant_app(
        review_app, "Chatty", webhook_allow_private=True, public_url=PUBLIC_URL
    )
    configure(
        client,
        tenant,
        slack_enabled=True,
        slack_webhook_url=receiver.url,
        sensitive_args=["card_number", "cvv"],
    )
    rid = pending_request(app, client, tenant, args=ARGS)

    [request] = receiver.server.requests
    assert request["method"] == "POST" and request["path"] == "/services/T1/B1/hooktoken"
    assert request["headers"]["Content-Type"] == "application/json"
    raw = request["body"].decode()
    assert CARD not in raw and CVV not in raw
    payload = json.loads(raw)
    assert payload["text"] == "Review needed: refund_payment by agent-7"
    blocks = payload["blocks"]
    assert blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "Review needed: refund_payment"},
    }
    fields = {f["text"].split("\n")[0]: f["text"].split("\n", 1)[1] for f in blocks[1]["fields"]}
    assert (
        fields["*Tool*"] == "refund_payment"
        and fields["*Agent*"] == "agent-7"
        and fields["*Policy*"] == "refunds"
    )
    assert fields["*Confidence*"] == "0.55 (low); threshold 0.80 (high)"
    assert fields["*Reason code*"] == "below_confidence_threshold"
    assert "refund is within the documented limits" in blocks[2]["text"]["text"]
    arguments = blocks[3]["text"]["text"]
    assert (
        "amount: 900" in arguments
        and "currency: USD" in arguments
        and "card_number: [hidden]" in arguments
    )
    assert '"cvv": "[hidden]"' in arguments and '"name": "Ada"' in arguments
    [actions] = [b for b in blocks if b["type"] == "actions"]
    [button] = actions["elements"]
    assert button["type"] == "button"
    assert button["url"] == signed_review_link(app, tenant, button["url"], rid)
    assert button["text"] == {"type": "plain_text", "text": "Review request"}

    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["channel"], delivery["status"], delivery["attempts"]) == (
        "slack",
        "delivered",
        1,
    )
    assert delivery["target"].startswith("http://127.0.0.1/****") and "hooktoken" not in json.dumps(
        delivery
    )


def test_chat_markup_in_arguments_cannot_ping_the_channel(review_app, chat):
    receiver = chat()
    app, tenant, client = tenant_app(review_app, "Markup", webhook_allow_private=True)
    configure(client, tenant, slack_enabled=True, slack_webhook_url=receiver.url)
    pending_request(app, client, tenant, args={"note": "<!channel> <https://evil.example|click>"})
    raw = receiver.server.requests[0]["body"].decode()
    assert "<!channel>" not in raw and "<https://evil.example" not in raw
    assert "&lt;!channel&gt;" in raw


def test_webhook_errors_are_retried_with_backoff_until_delivered(review_app, chat):
    receiver = chat(statuses=[503, 429])
    app, tenant, client = tenant_app(review_app, "Flaky Chat", webhook_allow_private=True)
    configure(client, tenant, slack_enabled=True, slack_webhook_url=receiver.url)
    rid = pending_request(app, client, tenant)
    assert len(receiver.payloads) == 3
    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["status"], delivery["attempts"]) == ("delivered", 3)
    assert [a["outcome"] for a in delivery["attempt_log"]] == ["failed", "failed", "delivered"]
    assert (
        "HTTP 503" in delivery["attempt_log"][0]["detail"]
        and "HTTP 429" in delivery["attempt_log"][1]["detail"]
    )


def test_a_webhook_that_refuses_the_message_is_not_retried(review_app, chat):
    receiver = chat(statuses=[404])
    app, tenant, client = tenant_app(review_app, "Gone Chat", webhook_allow_private=True)
    configure(client, tenant, slack_enabled=True, slack_webhook_url=receiver.url)
    rid = pending_request(app, client, tenant)
    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["status"], delivery["attempts"], delivery["last_error"]) == (
        "failed",
        1,
        "webhook answered HTTP 404",
    )
    assert len(receiver.payloads) == 1


def test_without_allow_private_the_delivery_to_loopback_is_refused(review_app, chat):
    """A URL stored under a development app is still checked when sent: a production app
    (no VAULT_WEBHOOK_ALLOW_PRIVATE) refuses loopback at connection time, and never retries."""
    receiver = chat()
    dev = review_app(webhook_allow_private=True)
    tenant = make_tenant(dev, "Moved To Prod")
    dev.test_client().put(
        "/notification-settings",
        json={"slack_enabled": True, "slack_webhook_url": receiver.url},
        headers=tenant.headers,
    )
    prod = review_app(webhook_allow_private=False)
    client = prod.test_client()
    rid = pending_request(prod, client, tenant)
    assert receiver.server.requests == []
    [delivery] = deliveries(client, tenant, rid)
    assert (delivery["status"], delivery["attempts"]) == ("failed", 1)
    assert (
        "refused by the outbound guard" in delivery["last_error"]
        and "Loopback" in delivery["last_error"]
    )
    assert status_of(client, tenant, rid)["status"] == "pending_review"


# --- both channels, tests, and what is not sent ----------------------------------------------


def test_both_channels_get_one_delivery_each(review_app, smtp, chat):
    inbox, port = smtp
    receiver = chat()
    app, tenant, client = tenant_app(
        review_app, "Both", smtp_host="127.0.0.1", smtp_port=port, webhook_allow_private=True
    )
    configure(
        client,
        tenant,
        email_enabled=True,
        email_recipients="ops@bank.example",
        slack_enabled=True,
        slack_webhook_url=receiver.url,
    )
    rid = pending_request(app, client, tenant)
    assert len(inbox.messages) == 1 and len(receiver.payloads) == 1
    assert sorted((d["channel"], d["status"]) for d in deliveries(client, tenant, rid)) == [
        ("email", "delivered"),
        ("slack", "delivered"),
    ]


def test_no_channel_enabled_sends_nothing(review_app, smtp, chat):
    inbox, port = smtp
    receiver = chat()
    app, tenant, client = tenant_app(
        review_app, "Quiet", smtp_host="127.0.0.1", smtp_port=port, webhook_allow_private=True
    )
    configure(
        client,
        tenant,
        email_enabled=False,
        email_recipients="ops@bank.example",
        slack_enabled=False,
        slack_webhook_url=receiver.url,
    )
    pending_request(app, client, tenant)
    assert (
        inbox.messages == [] and receiver.server.requests == [] and deliveries(client, tenant) == []
    )


def test_only_pending_reviews_notify(review_app, smtp):
    from tests.helpers import json_reply

    inbox, port = smtp
    allow = {
        "decision": "allow",
        "confidence": 0.99,
        "reason": "fine",
        "reason_code": "approved_by_policy",
        "citations": [],
        "evidence_chunks": [],
        "policy_id": "p",
        "policy_version_id": "pv",
        "policy_content_hash": "b" * 64,
        "layer": "rules",
        "details": {},
    }
    with serving(lambda *a: json_reply(200, allow)) as judge:
        app, tenant, client = tenant_app(
            review_app, "Approved Only", judge_url=judge.url, smtp_host="127.0.0.1", smtp_port=port
        )
        configure(client, tenant, email_enabled=True, email_recipients="ops@bank.example")
        rid = ask(client, tenant, "refund_payment", {"amount": 5}).get_json()["request_id"]
        run_worker(app)
    assert status_of(client, tenant, rid)["status"] == "approved"
    assert inbox.messages == [] and deliveries(client, tenant) == []


def test_a_request_decided_before_the_job_runs_is_skipped(review_app, smtp):
    from jobs.queues import CLEARANCE, queue

    inbox, port = smtp
    app, tenant, client = tenant_app(
        review_app, "Fast Reviewer", smtp_host="127.0.0.1", smtp_port=port
    )
    configure(client, tenant, email_enabled=True, email_recipients="ops@bank.example")
    rid = ask(client, tenant, "refund_payment", {"amount": 900}).get_json()["request_id"]
    connection = app.extensions["vault"].redis
    BurstWorker([queue(CLEARANCE, connection)], connection=connection).work(
        burst=True
    )  # judge only
    assert decide(client, tenant, rid, False, reviewer_email="ann@bank.example").status_code == 200
    run_worker(app)  # now the notification job
    assert inbox.messages == []
    [delivery] = deliveries(client, tenant, rid)
    assert delivery["status"] == "skipped" and "already decided" in delivery["last_error"]


def test_test_message_goes_to_each_enabled_channel(review_app, smtp, chat):
    inbox, port = smtp
    receiver = chat()
    app, tenant, client = tenant_app(
        review_app,
        "Tester",
        smtp_host="127.0.0.1",
        smtp_port=port,
        webhook_allow_private=True,
        public_url=PUBLIC_URL,
    )
    configure(
        client,
        tenant,
        email_enabled=True,
        email_recipients="ops@bank.example",
        slack_enabled=True,
        slack_webhook_url=receiver.url,
    )
    response = client.post("/notification-settings/test", headers=tenant.headers)
    assert response.status_code == 202, response.get_data(as_text=True)
    queued = response.get_json()["deliveries"]
    assert sorted((d["channel"], d["event"], d["status"]) for d in queued) == [
        ("email", "test", "queued"),
        ("slack", "test", "queued"),
    ]
    run_worker(app)
    assert inbox.messages[0]["message"]["Subject"] == "[Clearance Vault] Test notification"
    assert (
        f"{PUBLIC_URL}/dashboard/reviews"
        in inbox.messages[0]["message"].get_body(("plain",)).get_content()
    )
    assert receiver.payloads[0]["text"] == "Clearance Vault test notification"
    assert {d["status"] for d in deliveries(client, tenant)} == {"delivered"}


def signed_review_link(app, tenant, text: str, rid: str) -> str:
    """The signed, expiring review link in ``text``; asserts that it leads to ``rid``."""
    import re

    from webapp.services import review_links

    found = re.search(re.escape(PUBLIC_URL) + r"/dashboard/reviews/link/([\w.-]+)", text)
    assert found, text
    with app.app_context():
        assert review_links.open_link(found.group(1), tenant.client_id) == rid
    return found.group(0)
