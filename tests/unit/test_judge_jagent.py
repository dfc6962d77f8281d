"""Who may do the act: the requesting agent's id, and acts reserved to people or another team.

Vectors (rule, request, agent, expected outcome) with their near-misses, and properties: an id
is allowed exactly when it is named or carries the named prefix; a condition, a comparison or a
negation inserted into such a rule takes it out of this reading, and never lets another agent's
act be approved."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import TICKET, policy

from webapp.judge.actors import reserved_act_rule
from webapp.judge.checks import ReservedAct
from webapp.judge.compiler import compile_policy, compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery


def decide(rules: list[str], tool: str, args: dict, agent: str, description: str = "") -> str:
    """The clearance status of `tool(args)` asked by `agent`, beside the satisfied ticket rule."""
    v = evaluate(
        ClearanceQuery(tool, {**args, "ticket_id": "T-1"}, agent),
        [policy([*rules, TICKET], description)],
        StaticHistory.from_dict(None),
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


PAYOUTS = (
    "Only the payouts-orchestrator agent may initiate vendor payouts; other agents may only "
    "read payout status."
)
REFUNDS = "Only agents with an id beginning with 'support-' may issue refunds."
WAIVERS = "Only agents in the tier2 pool (agent id prefix tier2-) may waive late fees."
MIGRATIONS = "Migrations must be run by the migration-runner agent."
RELEASE = (
    "Only the ap-release-bot agent may release a payment; other agents may create drafts only."
)
ROOT = "Rotation of root or master credentials is performed by humans only."
HOLDS = "Reserve holds are set by Risk only."
CAUSE = "Termination for cause is never served by the agent \u2013 Legal only."
ALLOWANCE = "car allowance changes -> Reward team only"
SUBPOENAS = "Civil subpoenas are handled by outside counsel."
BOUNDARIES = "Permission boundaries are maintained by the Identity team."
CHAT = (
    "The chat assistant (agent id support-chat-agent) may issue account credits only. It may "
    "never issue cash refunds."
)
OWNER = "Org Owner: never via automation. Humans only, via the admin console."
INTAKE = "The intake bot (agent id intake-bot) can only create tickets."
SECRETS = "deleting secrets: never by an agent, a person has to do it"
TSRS = "TSRs may only be lifted by the Route Asset Mgr, never by automation."
REVERSAL = "Reversal of a completed payout is handled by Treasury, not by agents."

VECTORS = [
    # a named agent: the id itself, another agent, an id that only resembles it, another act
    (PAYOUTS, "vendor_payout_create", {"amount": 800}, "payouts-orchestrator", "approved"),
    (PAYOUTS, "vendor_payout_create", {"amount": 800}, "payout-scheduler-01", "denied"),
    (PAYOUTS, "vendor_payout_create", {"amount": 800}, "payouts-orchestrator-2", "denied"),
    (PAYOUTS, "vendor_payout_get_status", {"payout_id": "p1"}, "payout-scheduler-01", "approved"),
    # another act the tail does not permit ('cancel'): review, never approval
    (PAYOUTS, "vendor_payout_cancel", {"payout_id": "p1"}, "payout-scheduler-01", "pending_review"),
    (MIGRATIONS, "db_migration_run", {"migration_id": "m1"}, "migration-runner", "approved"),
    (MIGRATIONS, "db_migration_run", {"migration_id": "m1"}, "deploy-bot", "denied"),
    (MIGRATIONS, "db_migration_get_status", {"migration_id": "m1"}, "deploy-bot", "approved"),
    (RELEASE, "ap.release_payment", {"payment_id": "P1"}, "ap-release-bot", "approved"),
    (RELEASE, "ap.release_payment", {"payment_id": "P1"}, "ap-agent-01", "denied"),
    (RELEASE, "ap.create_draft", {"vendor_id": "V1"}, "ap-agent-01", "approved"),
    # an id prefix: the prefix, none, a prefix that only resembles it ('support_')
    (REFUNDS, "refund_create", {"amount": 35}, "support-tier1-bot", "approved"),
    (REFUNDS, "refund_create", {"amount": 35}, "billing-bot", "denied"),
    (REFUNDS, "refund_create", {"amount": 35}, "support_bot", "denied"),
    (REFUNDS, "refund_create", {"amount": 35}, "supportive-bot", "denied"),
    (WAIVERS, "billing_waive_fee", {"fee_type": "late_fee"}, "tier2-support-bot-07", "approved"),
    (WAIVERS, "billing_waive_fee", {"fee_type": "late_fee"}, "tier1-support-bot", "denied"),
    (WAIVERS, "billing_waive_fee", {"fee_type": "late_fee"}, "ops-tier2-bot", "denied"),
    # reserved to people: the act unmistakable, another kind, the kind not shown, a read
    (ROOT, "rotate_secret", {"credential_type": "root"}, "secrets-rotator", "denied"),
    (ROOT, "rotate_secret", {"credential_type": "master"}, "secrets-rotator", "denied"),
    (ROOT, "rotate_secret", {"credential_type": "api_key"}, "secrets-rotator", "approved"),
    (ROOT, "rotate_secret", {"secret_path": "prod/db/orders"}, "secrets-rotator", "pending_review"),
    (ROOT, "rotate_key", {"key_id": "root-key"}, "secrets-rotator", "pending_review"),
    (ROOT, "get_secret_metadata", {"credential_type": "root"}, "secrets-rotator", "approved"),
    (HOLDS, "payouts_set_reserve_hold", {"seller_id": "s1"}, "payout-bot", "denied"),
    (HOLDS, "reserve_hold_get", {"seller_id": "s1"}, "payout-bot", "approved"),
    (HOLDS, "payouts_create", {"seller_id": "s1", "amount": 5}, "payout-bot", "approved"),
    # a verb that only says something is applied is no proof of another act: review
    (HOLDS, "apply_reserve_hold", {"seller_id": "s1"}, "payout-bot", "pending_review"),
    # an act the lexicon does not know ('closures') beside another verb: review, never approval
    (
        "Account closures are performed by humans only.",
        "offboard_customer_account",
        {"account_id": "A1"},
        "care-bot",
        "pending_review",
    ),
    (CAUSE, "send_termination_notice", {"termination_type": "for_cause"}, "clm", "denied"),
    (CAUSE, "send_termination_notice", {"termination_type": "non_renewal"}, "clm", "approved"),
    (CAUSE, "send_termination_notice", {"reason": "breach"}, "clm", "pending_review"),
    # the kind of another thing says nothing of the termination's kind
    (CAUSE, "send_termination_notice", {"contract_type": "saas"}, "clm", "pending_review"),
    (SECRETS, "secrets.delete", {"secret_path": "staging/smtp"}, "cleanup-agent", "denied"),
    (SECRETS, "secrets.rotate", {"secret_path": "staging/smtp"}, "rotation-agent", "approved"),
    (TSRS, "tsr.lift", {"tsr_id": "TSR-1"}, "ops-agent", "denied"),
    # 'impose' is no verb the lexicon knows: it may be the act, a human decides
    (TSRS, "tsr.impose", {"speed_mph": 20}, "ops-agent", "pending_review"),
    (REVERSAL, "payouts_create", {"amount": 5}, "payout-bot", "approved"),
    (REVERSAL, "payouts_reverse", {"payout_id": "p1"}, "payout-bot", "pending_review"),
    (ALLOWANCE, "workday_update_car_allowance", {"new_amount": 600}, "hr-bot", "denied"),
    (ALLOWANCE, "workday_update_base_salary", {"new_base": 88000}, "hr-bot", "approved"),
    # any act on a thing the rule names, shown by the argument that says what is granted
    (OWNER, "user_role_assign", {"role": "org_owner"}, "it-access-agent", "denied"),
    (OWNER, "user_role_assign", {"role": "viewer"}, "it-access-agent", "approved"),
    (OWNER, "org_list_members", {"filter": "owner"}, "it-access-agent", "pending_review"),
    # the same acts in other shapes: 'Only <holder> may …', '… is reserved for …', '<holder> only: …'
    ("Only Risk may set reserve holds.", "payouts_set_reserve_hold", {"s": "1"}, "bot", "denied"),
    ("Only Risk may set reserve holds.", "reserve_hold_get", {"s": "1"}, "bot", "approved"),
    (
        "Rotating root credentials is reserved for humans.",
        "rotate_secret",
        {"credential_type": "api_key"},
        "secrets-rotator",
        "approved",
    ),
    ("Humans only: account closures", "accounts_close", {"account_id": "A1"}, "bot", "denied"),
    (
        "release-bot only: feature flag toggles",
        "flags.toggle",
        {"flag": "f"},
        "release-bot",
        "approved",
    ),
    # the named id carried by an argument may be a system the act goes through: review
    (
        "Refunds are issued by stripe-connect only.",
        "refund_create",
        {"amount": 5, "provider": "stripe-connect"},
        "refund-bot",
        "pending_review",
    ),
    (
        "Refunds are issued by stripe-connect only.",
        "refund_create",
        {"amount": 5},
        "refund-bot",
        "denied",
    ),
    # what one named agent may do ('may … only. It may never …'): only its requests are governed
    (CHAT, "billing.refund_order", {"amount": 18}, "support-chat-agent", "denied"),
    (CHAT, "billing.issue_account_credit", {"amount": 18}, "support-chat-agent", "approved"),
    (CHAT, "billing.refund_order", {"amount": 18}, "billing-ops-2", "approved"),
    (CHAT, "billing.get_invoice", {"invoice_id": "i"}, "support-chat-agent", "pending_review"),
    (INTAKE, "tickets.delete", {"ticket_id": "T-9"}, "intake-bot", "denied"),
    (INTAKE, "tickets.create", {"subject": "x"}, "intake-bot", "approved"),
    # a class of agents no id names ('support agents'): review, never a denial of every request
    (
        "Only support agents may issue refunds.",
        "refund_create",
        {"amount": 5},
        "bot",
        "pending_review",
    ),
    ("Only support agents may issue refunds.", "refund_get", {"refund_id": "r"}, "bot", "approved"),
    # handled by another party, no 'only': review, never a denial
    (
        SUBPOENAS,
        "legal_subpoena_respond",
        {"subpoena_type": "civil"},
        "legal-bot",
        "pending_review",
    ),
    (BOUNDARIES, "iam_put_role_permissions_boundary", {"role": "etl"}, "iam-bot", "pending_review"),
    (BOUNDARIES, "iam_attach_role_policy", {"role": "etl"}, "iam-bot", "approved"),
]


@pytest.mark.parametrize(("rule", "tool", "args", "agent", "expected"), VECTORS)
def test_who_may_do_the_act(rule: str, tool: str, args: dict, agent: str, expected: str) -> None:
    assert decide([rule], tool, args, agent) == expected


@pytest.mark.parametrize(
    "rule",
    [
        PAYOUTS,
        REFUNDS,
        WAIVERS,
        MIGRATIONS,
        RELEASE,
        ROOT,
        HOLDS,
        CAUSE,
        ALLOWANCE,
        SUBPOENAS,
        BOUNDARIES,
        SECRETS,
        TSRS,
        REVERSAL,
    ],
)
def test_read_in_full(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood"
    assert all(isinstance(c, ReservedAct) for c in compiled.checks)


def test_readings_say_who_and_what() -> None:
    (check,) = compile_rule(0, "c:r0", PAYOUTS).checks
    assert check.reading() == (
        "Deny when an agent other than `payouts-orchestrator` (the requesting agent's id) asks "
        "for: initiate vendor payouts; other agents may only read payout status; review when "
        "the request may be that act"
    )
    (check,) = compile_rule(0, "c:r0", REFUNDS).checks
    assert "an id starting `support-`" in check.reading()
    (check,) = compile_rule(0, "c:r0", HOLDS).checks
    assert check.reading().startswith("Deny a request for: reserve holds (set) (reserved to Risk)")
    (check,) = compile_rule(0, "c:r0", SUBPOENAS).checks
    assert check.reading().startswith("Send to review a request for: civil subpoenas")


@pytest.mark.parametrize(
    "rule",
    [
        # a pool named otherwise than its prefix, an approval by someone, a negated permission
        "Only agents in the tier3 pool (agent id prefix tier2-) may waive late fees.",
        "Payouts must be approved by payouts-approver.",
        "Only the x-bot agent may not issue refunds.",
        "Only the payroll-agent may submit pay runs for UK entities (company codes beginning GB).",
        "Only the x-bot agent may issue refunds; other agents need a manager.",
    ],
)
def test_not_read_here(rule: str) -> None:
    assert reserved_act_rule(0, rule, rule) is None


@pytest.mark.parametrize(
    "description",
    ["Who may release what.", "Which agents may move money to vendors", "Who can waive fees"],
)
def test_topic_headings_state_no_obligation(description: str) -> None:
    rules = ["Payments over 10,000 USD need controller approval."]
    assert decide(
        rules, "ap.release_payment", {"amount": 500, "currency": "USD"}, "a", description
    ) == ("approved")
    compiled = compile_policy(policy([description, *rules]))
    assert compiled.rules[0].understanding == "informational"


def test_a_heading_with_an_answer_is_an_obligation() -> None:
    description = "Who may release what: the controller only, never an agent."
    rules = ["Payments over 10,000 USD need controller approval."]
    got = decide(rules, "ap.release_payment", {"amount": 500, "currency": "USD"}, "a", description)
    assert got != "approved"


_IDS = st.from_regex(r"[a-z][a-z0-9]{0,6}(?:[-_][a-z0-9]{1,6}){0,2}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(agent=_IDS)
def test_an_id_is_allowed_exactly_when_named_or_prefixed(agent: str) -> None:
    got = decide([REFUNDS], "refund_create", {"amount": 35}, agent)
    assert got == ("approved" if agent.startswith("support-") else "denied")
    got = decide([MIGRATIONS], "db_migration_run", {"migration_id": "m1"}, agent)
    assert got == ("approved" if agent == "migration-runner" else "denied")


_INSERTS = st.sampled_from(
    [
        " without approval",
        " unless the amount is zero",
        " over 500 USD",
        " when the customer is new",
        " except for VIP customers",
        " before 9am",
    ]
)


@settings(max_examples=40, deadline=None)
@given(insert=_INSERTS)
def test_an_inserted_condition_is_never_read_as_who_may_act(insert: str) -> None:
    for rule, tool, args in (
        (
            "Only the payouts-orchestrator agent may initiate vendor payouts.",
            "vendor_payout_create",
            {"amount": 800, "currency": "USD"},
        ),
        (
            "Only agents with an id beginning with support- may issue refunds.",
            "refund_create",
            {"amount": 35, "currency": "USD"},
        ),
        ("Reserve holds are set by Risk only.", "payouts_set_reserve_hold", {"seller_id": "s1"}),
    ):
        text = rule[:-1] + insert + "."
        assert reserved_act_rule(0, text, text) is None
        # whatever else reads it, another agent's act is never approved on its words alone
        assert decide([text], tool, args, "other-bot") != "approved"
