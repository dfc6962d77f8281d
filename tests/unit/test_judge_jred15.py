"""Red team of agentrules.py (dev_jred15): what it read that a compliance officer would not.

A kind or a role of agent named like an id ('Tier-2 agent', 'Third-party bot', 'The on-call bot',
'Help-desk agent') is not one agent's id: which agents are of that kind the request does not show,
so the rule is left partly understood (never 'another agent, not governed'). A tool family named
without a glob ('deploy.rollout tools') holds the tools under it; a name that merely starts with it
may be one. An id that says it is an agent's ('the agent gs-2') is read as one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import decide_beside_ticket as decide
from webapp.judge.agentrules import _tool_in, agent_rule, agent_subject
from webapp.judge.compiler import compile_rule

REFUND = {"invoice_id": "INV-7", "amount": 900, "currency": "USD"}
ROLLOUT = {"service": "web", "version": "1.4.2"}


@pytest.mark.parametrize(
    ("rules", "tool", "args", "agent", "expected"),
    [
        # a kind of agent: whether the requester is one is not shown
        (
            ["Tier-2 agent may not issue refunds over $500."],
            "billing.issue_refund",
            REFUND,
            "support-bot-7",
            "pending_review",
        ),
        (
            ["Third-party bot must not access customer records."],
            "crm.get_customer",
            {"customer_id": "C-1"},
            "vendor-sync-bot",
            "pending_review",
        ),
        (
            ["The on-call bot must not restart databases."],
            "db.restart",
            {"cluster": "pg"},
            "pager-bot",
            "pending_review",
        ),
        (
            ["Help-desk agent may not reset MFA."],
            "idp.reset_mfa",
            {"user": "jdoe"},
            "helpdesk-bot",
            "pending_review",
        ),
        (
            ["Customer-facing bot must not issue refunds."],
            "billing.issue_refund",
            REFUND,
            "chat-assist",
            "pending_review",
        ),
        # a system's own name stays an id
        (
            ["The hr-sync agent may only update employee addresses."],
            "hris.update_employee_address",
            {"employee_id": "E-1", "address": "1 Main St"},
            "hr-sync",
            "approved",
        ),
        (
            ["intake-bot may not grant access at all (revoking is fine)."],
            "workspace.grant_access",
            {"grantee": "a@b.com", "workspace": "M-1", "role": "viewer"},
            "intake-bot",
            "denied",
        ),
        # 'the agent gs-2' says it is an agent; the requester is another
        (
            ["The agent gs-2 may not update schedules."],
            "rates.update_schedule",
            {"schedule": "GS-2"},
            "rates-analyst-bot",
            "approved",
        ),
        # a tool family named without a glob
        (
            ["Only deploy-bot may call deploy.rollout tools."],
            "deploy.rollout_canary",
            ROLLOUT,
            "ci-bot",
            "denied",
        ),
        (
            ["Only deploy-bot may call deploy.rollout tools."],
            "deploy.rollout_canary",
            ROLLOUT,
            "deploy-bot",
            "approved",
        ),
        (
            ["Only deploy-bot may call deploy.rollout tools."],
            "deploy.rollouts_list",
            ROLLOUT,
            "ci-bot",
            "pending_review",
        ),
        (
            ["Only deploy-bot may call deploy.rollout tools."],
            "deploy.status",
            ROLLOUT,
            "ci-bot",
            "approved",
        ),
    ],
)
def test_vectors(rules: list[str], tool: str, args: dict, agent: str, expected: str) -> None:
    assert decide(rules, tool, args, agent) == expected


@pytest.mark.parametrize(
    ("name", "tool", "expected"),
    [
        ("rates.update", "rates.*", True),
        ("ratesheet.export", "rates.*", None),
        ("deploy.rollout", "deploy.rollout", True),
        ("deploy.rollout_canary", "deploy.rollout", True),
        ("deploy.rollout.v2", "deploy.rollout", True),
        ("deploy.rollouts", "deploy.rollout", False),
        ("deploy.status", "deploy.rollout", None),
    ],
)
def test_tool_family(name: str, tool: str, expected: bool | None) -> None:
    assert _tool_in(name, tool) is expected


_KINDS = st.sampled_from(
    [
        "Tier-2",
        "Level-1",
        "Third-party",
        "On-call",
        "Night-shift",
        "Read-only",
        "Help-desk",
        "Front-desk",
        "Customer-facing",
        "Call-center",
        "Non-production",
        "Low-risk",
    ]
)
_SUFFIX = st.sampled_from(["agent", "bot"])
_ACTS = st.sampled_from(
    [
        ("may not issue refunds over $500.", "billing.issue_refund", REFUND),
        ("must not delete files.", "files.delete", {"path": "/srv/a"}),
        (
            "may only issue vouchers under 100 EUR.",
            "voucher.issue",
            {"passenger_id": "PX-1", "amount": 500, "currency": "EUR"},
        ),
    ]
)


@settings(max_examples=40, deadline=None)
@given(kind=_KINDS, suffix=_SUFFIX, act=_ACTS, agent=st.sampled_from(["ops-bot", "tier-2"]))
def test_a_kind_of_agent_is_never_an_id(kind: str, suffix: str, act: tuple, agent: str) -> None:
    text = f"{kind} {suffix} {act[0]}"
    assert agent_rule(0, text, text, lambda t: list(compile_rule(0, "c", t).checks)) is None
    assert agent_subject(text) == kind.lower()
    assert compile_rule(0, "c", text).understanding != "understood"
    assert decide([text], act[1], act[2], agent) != "approved"


LIVE = {"payment_id": "P-1", "amount": 40.0, "currency": "USD", "mode": "live"}
OTHERS = "Agents other than payments-bot must not execute live payments."


@pytest.mark.parametrize(
    ("rules", "tool", "args", "agent", "expected"),
    [
        # a bar on every agent but the ones named
        ([OTHERS], "payments.execute", LIVE, "payments-bot", "approved"),
        ([OTHERS], "payments.get_status", {"payment_id": "P-1"}, "ops-bot", "approved"),
        # a reserved tool whose label names more than the tool: another agent is reviewed
        (
            [
                "Emergency relay changes (scada.update_relay_settings): only agents "
                "protection-eng-bot or relay-config-agent"
            ],
            "scada.update_relay_settings",
            {"relay": "R-12", "emergency": False},
            "relay-ops-bot",
            "pending_review",
        ),
        (
            [
                "Relay settings (scada.update_relay_settings): only agents protection-eng-bot "
                "or relay-config-agent"
            ],
            "scada.update_relay_settings",
            {"relay": "R-12"},
            "relay-ops-bot",
            "denied",
        ),
    ],
)
def test_others_and_scoped_tools(
    rules: list[str], tool: str, args: dict, agent: str, expected: str
) -> None:
    assert decide(rules, tool, args, agent) == expected


@settings(max_examples=40, deadline=None)
@given(agent=st.from_regex(r"[a-z][a-z0-9]{0,6}(?:-[a-z0-9]{1,4}){0,2}", fullmatch=True))
def test_a_bar_on_others_never_approves_another_agent(agent: str) -> None:
    read = agent_rule(0, OTHERS, OTHERS)
    assert read is not None and read[0].others and read[0].globs == ("payments-bot",)
    got = decide([OTHERS], "payments.execute", LIVE, agent)
    assert got == "approved" if agent == "payments-bot" else got != "approved"


def test_a_kind_or_a_person_is_not_an_exception() -> None:
    # 'other than co-signers': people, not agent ids; not read here
    text = "Agents other than co-signers must not execute live payments."
    assert agent_rule(0, text, text) is None


GRANT = {"grantee": "a@b.com", "workspace": "M-1", "role": "viewer"}


@pytest.mark.parametrize(
    ("rule", "tool", "args", "agent", "history", "expected"),
    [
        # a rule the engine cannot read, about the requesting agent: kept for review, not set
        # aside because its words share none with the request's
        (
            "intake-bot may not do anything after hours.",
            "workspace.grant_access",
            GRANT,
            "intake-bot",
            None,
            "pending_review",
        ),
        (
            "intake-bot may not do anything after hours.",
            "workspace.grant_access",
            GRANT,
            "docket-bot",
            None,
            "approved",
        ),
        (
            "sandbox-* agents must stay read-only.",
            "workspace.grant_access",
            GRANT,
            "sandbox-1",
            None,
            "pending_review",
        ),
        (
            "sandbox-* agents must stay read-only.",
            "workspace.grant_access",
            GRANT,
            "prod-1",
            None,
            "approved",
        ),
        (
            "Tier-2 agents must escalate everything.",
            "workspace.grant_access",
            GRANT,
            "t2-bot",
            None,
            "pending_review",
        ),
        (
            "Daily cap per agent: $12,000 total per vendor.",
            "billing.issue_refund",
            REFUND,
            "ops-bot",
            {"total_today": {"amount": 11500}},
            "pending_review",
        ),
        (
            "Weekly cap per agent: $12,000 total.",
            "billing.issue_refund",
            REFUND,
            "ops-bot",
            {"total_today": {"amount": 100}},
            "pending_review",
        ),
        # an understood per-agent cap on a read stays out of the way
        (
            "Daily cap per agent: $12,000 total.",
            "vendor.get_vendor",
            {"vendor_id": "V-1"},
            "ap-agent-07",
            {"total_today": {"amount": 13000}},
            "approved",
        ),
    ],
)
def test_unread_rules_about_the_agent_are_kept(
    rule: str, tool: str, args: dict, agent: str, history: dict | None, expected: str
) -> None:
    assert decide([rule], tool, args, agent, history) == expected


@pytest.mark.parametrize(
    ("rule", "agent", "history", "expected"),
    [
        # the requester named inside a rule the engine cannot read
        (
            "Daily cap for ap-agent-07: $12,000 total.",
            "ap-agent-07",
            {"total_today": {"amount": 11500}},
            "pending_review",
        ),
        (
            "Daily cap for ap-agent-07: $12,000 total.",
            "ap-agent-08",
            {"total_today": {"amount": 11500}},
            "approved",
        ),
        # every request from the named agents
        ("Requests from sandbox-* agents must be denied.", "sandbox-2", None, "denied"),
        ("Requests from sandbox-* agents must be denied.", "prod-2", None, "approved"),
        ("Requests from Tier-2 agent must be denied.", "support-bot", None, "pending_review"),
        ("Calls by intake-bot need review.", "intake-bot", None, "pending_review"),
        ("Calls by intake-bot need review.", "intake-bot-2", None, "approved"),
        (
            "Requests from agents whose id starts with 'test-' are not allowed.",
            "Test-runner",
            None,
            "denied",
        ),
    ],
)
def test_requests_from_named_agents(
    rule: str, agent: str, history: dict | None, expected: str
) -> None:
    assert decide([rule], "billing.issue_refund", REFUND, agent, history) == expected


@settings(max_examples=40, deadline=None)
@given(agent=st.from_regex(r"[a-z][a-z0-9]{0,6}(?:-[a-z0-9]{1,4}){0,2}", fullmatch=True))
def test_requests_from_a_glob(agent: str) -> None:
    got = decide(
        ["Requests from sandbox-* agents must be denied."], "billing.issue_refund", REFUND, agent
    )
    assert got == ("denied" if agent.startswith("sandbox-") else "approved")


@pytest.mark.parametrize(
    ("agent", "expected"), [("ops-agent", "pending_review"), ("refund-bot", "approved")]
)
def test_requests_from_an_agent_with_a_qualifier(agent: str, expected: str) -> None:
    rule = "Requests from ops-agent on behalf of HR must be denied."
    assert decide([rule], "billing.issue_refund", REFUND, agent) == expected
