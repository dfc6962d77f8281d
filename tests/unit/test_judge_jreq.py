"""Required arguments and references in the phrasings staff use (helper jreq, dev set dev_jreq).

- Bare imperatives ('Always include the Zendesk ticket number', 'Record the ticket number on every
  unlock'), 'X required / mandatory / needed', 'must be given / populated / filled in / set',
  'make sure X is populated', 'always bound to', 'are added with', a bracketed argument name.
- A branded reference ('Zendesk ticket', 'Jira key', 'ServiceNow change') is given by an argument
  named for the system, or by a ticket-named one whose value has the system's shape; any other
  value goes to review.
- A required value from a list ('A reason must be given: offboarding, contract_end or
  security_incident') reads the argument named for the thing.
- Near-misses: missing, empty, null, white space, a value outside the list, a similarly named
  argument (`ticket_type`), an exemption ('No ticket needed for password resets'), a condition.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome
from webapp.judge.checks import RequiredArgument, RequiredFlag
from webapp.judge.compiler import compile_rule

ZD = "Always include the Zendesk ticket number."
UNLOCK = "Record the ticket number on every unlock."
MANDATORY = "offboarding reason mandatory"
PAYREF = "payout_reference required (AP invoice or PO no.)"
OWNER = "Keys are always bound to a named owner (owner_email)."
BO = (
    "Compliance will also want the beneficial owner on file, make sure beneficial_owner is "
    "populated."
)
MEMO = "Payout memo has to say what the work was for."
REASON = "A reason must be given: offboarding, contract_end or security_incident."
PAYEE = "Payee type must be given on every payout: 'individual' or 'company'."
CONTRACTOR = "Contractors are added with a contractor flag and an end date."
JIRA = "Prod DB restores need a Jira key."
SNOW = "Firewall changes must cite the ServiceNow change."
GIVEN = "A justification must be given for each firewall exception."
SET = "The approver must be set on every access grant."

VECTORS = [
    # (rules, tool, args, expected)
    ([ZD], "support.refund", {"amount": 42, "ticket_id": "ZD-902114"}, "approved"),
    ([ZD], "support.refund", {"amount": 42, "ticket_id": "#88123"}, "approved"),
    ([ZD], "support.refund", {"amount": 42}, "denied"),
    ([ZD], "support.refund", {"amount": 42, "ticket_type": "refund"}, "denied"),
    ([ZD], "support.refund", {"amount": 42, "ticket_id": "PAY-4411"}, "pending_review"),
    ([ZD], "support.refund", {"amount": 42, "zendesk_ticket": "anything-7"}, "approved"),
    ([UNLOCK], "iam.unlock_account", {"user": "a", "ticket_number": "INC-1"}, "approved"),
    ([UNLOCK], "iam.unlock_account", {"user": "a", "ticket_number": ""}, "denied"),
    ([UNLOCK], "iam.unlock_account", {"user": "a", "ticket_number": "   "}, "denied"),
    ([UNLOCK], "iam.unlock_account", {"user": "a", "ticket_number": None}, "denied"),
    ([UNLOCK], "iam.unlock_account", {"user": "a", "ticket_number": "N/A"}, "pending_review"),
    (
        [MANDATORY],
        "hr.offboard_user",
        {"employee_id": "E-1", "offboarding_reason": "quit"},
        "approved",
    ),
    ([MANDATORY], "hr.offboard_user", {"employee_id": "E-1"}, "denied"),
    ([PAYREF], "payouts.create", {"amount": 9, "payout_reference": "INV-30021"}, "approved"),
    ([PAYREF], "payouts.create", {"amount": 9, "invoice_date": "2026-10-01"}, "denied"),
    ([PAYREF], "payouts.create", {"amount": 9, "payout_reference": "TBD"}, "pending_review"),
    ([OWNER], "kms.create_api_key", {"name": "k", "owner_email": "d@acme.io"}, "approved"),
    ([OWNER], "kms.create_api_key", {"name": "k"}, "denied"),
    ([BO], "kyc.onboard_vendor", {"vendor_name": "N", "beneficial_owner": "I. Holm"}, "approved"),
    ([BO], "kyc.onboard_vendor", {"vendor_name": "N", "beneficial_owner": ""}, "denied"),
    ([BO], "kyc.onboard_vendor", {"vendor_name": "N", "owner_type": "company"}, "denied"),
    ([MEMO], "payouts.create", {"amount": 7, "memo": "Logo redesign for Q3"}, "approved"),
    ([MEMO], "payouts.create", {"amount": 7, "memo": "misc"}, "pending_review"),
    ([MEMO], "payouts.create", {"amount": 7}, "denied"),
    ([REASON], "iam.deactivate_user", {"user": "t", "reason": "contract_end"}, "approved"),
    ([REASON], "iam.deactivate_user", {"user": "t", "reason": "vacation"}, "denied"),
    ([REASON], "iam.deactivate_user", {"user": "t"}, "denied"),
    (
        [REASON],
        "iam.deactivate_user",
        {"user": "t", "reason_code": "vacation", "note": "offboarding"},
        "pending_review",
    ),
    ([PAYEE], "payouts.create", {"amount": 3, "payee_type": "company"}, "approved"),
    ([PAYEE], "payouts.create", {"amount": 3, "payee_type": "partnership"}, "denied"),
    ([PAYEE], "payouts.create", {"amount": 3}, "denied"),
    (
        [CONTRACTOR],
        "hr.add_user",
        {"name": "R", "contractor": True, "end_date": "2027-03-31"},
        "approved",
    ),
    ([CONTRACTOR], "hr.add_user", {"name": "R", "contractor": True}, "denied"),
    ([CONTRACTOR], "hr.add_user", {"name": "R", "contractor": False}, "approved"),
    ([CONTRACTOR], "hr.add_user", {"name": "R"}, "pending_review"),
    (
        [JIRA],
        "db.restore",
        {"database": "orders", "env": "prod", "jira_key": "OPS-1184"},
        "approved",
    ),
    ([JIRA], "db.restore", {"database": "orders", "env": "prod", "ticket": "OPS-1184"}, "approved"),
    (
        [JIRA],
        "db.restore",
        {"database": "orders", "env": "prod", "ticket": "12345"},
        "pending_review",
    ),
    ([JIRA], "db.restore", {"database": "orders", "env": "prod"}, "denied"),
    ([SNOW], "firewall.update_rule", {"rule_id": "fw-2", "change_ref": "CHG0048812"}, "approved"),
    (
        [SNOW],
        "firewall.update_rule",
        {"rule_id": "fw-2", "change_ref": "ZD-7781"},
        "pending_review",
    ),
    ([GIVEN], "firewall.add_exception", {"rule": "r", "justification": "vendor VPN"}, "approved"),
    ([SET], "iam.grant_access", {"user": "m", "approver": "k.osei"}, "approved"),
    ([SET], "iam.grant_access", {"user": "m"}, "denied"),
    # an exemption permits the act it names; it never requires the thing
    (["No ticket needed for password resets."], "iam.reset_password", {"user": "j"}, "approved"),
    (["Password resets do not need a ticket."], "iam.reset_password", {"user": "j"}, "approved"),
    # a condition the request meets or does not
    (
        ["Refunds over $500 must include the Zendesk ticket number."],
        "support.refund",
        {"amount": 300, "currency": "USD"},
        "approved",
    ),
    (
        ["Refunds over $500 must include the Zendesk ticket number."],
        "support.refund",
        {"amount": 800, "currency": "USD"},
        "denied",
    ),
    # 'at/above' is inclusive ('at least'): exactly the bound goes to review
    (
        ["POs at/above $10k -> budget owner sign-off required (budget_owner_approval)."],
        "procurement.po.create",
        {"total_amount": 10000, "currency": "USD"},
        "pending_review",
    ),
]


# headings, shorthand and possessives: (rule, tool, args that give it, args that lack it)
SHORTHAND = [
    (
        "Refunds - always include the Zendesk ticket number.",
        "support.refund",
        {"amount": 1, "ticket_id": "ZD-1"},
        {"amount": 1},
    ),
    (
        "Unlocks: record the ticket number.",
        "iam.unlock",
        {"user": "a", "ticket_number": "T-1"},
        {"user": "a"},
    ),
    ("ticket # mandatory", "iam.unlock", {"user": "a", "ticket_number": "T-1"}, {"user": "a"}),
    ("PO number needed.", "proc.buy", {"po_number": "PO-1"}, {"vendor": "v"}),
    (
        "Please always attach the change ticket.",
        "deploy.run",
        {"change_ticket": "CHG0001234"},
        {"service": "x"},
    ),
    (
        "Ticket number must be provided on every unlock.",
        "iam.unlock",
        {"user": "a", "ticket_number": "T-1"},
        {"user": "a"},
    ),
    (
        "The requester's manager must be filled in.",
        "iam.grant",
        {"requester_manager": "bob"},
        {"user": "a"},
    ),
    (
        "Severity must be set: sev1, sev2 or sev3.",
        "inc.open",
        {"severity": "sev1"},
        {"severity": "sev9"},
    ),
    (
        "Payee type required: individual or company.",
        "payouts.create",
        {"payee_type": "company"},
        {"payee_type": "trust"},
    ),
    (
        "Cost centre: mandatory on every PO.",
        "proc.create_po",
        {"cost_centre": "CC-1"},
        {"vendor": "v"},
    ),
    ("Always fill in the cost center.", "proc.create_po", {"cost_center": "CC-1"}, {"vendor": "v"}),
]


@pytest.mark.parametrize(("rule", "tool", "good", "bad"), SHORTHAND)
def test_shorthand(rule: str, tool: str, good: dict, bad: dict) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood", rule
    assert outcome([rule], tool, good) == "approved"
    assert outcome([rule], tool, bad) == "denied"


@pytest.mark.parametrize(("rules", "tool", "args", "expected"), VECTORS)
def test_vectors(rules: list[str], tool: str, args: dict, expected: str) -> None:
    assert outcome(rules, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [ZD, UNLOCK, MANDATORY, PAYREF, OWNER, BO, MEMO, REASON, PAYEE, CONTRACTOR, JIRA, GIVEN, SET],
)
def test_understood(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", (rule, compiled.unaccounted)


def test_readings_are_plain() -> None:
    zd = compile_rule(0, "c:r0", ZD).checks[0]
    assert isinstance(zd, RequiredArgument)
    assert "Zendesk ticket" in zd.reading()
    memo = compile_rule(0, "c:r0", MEMO).checks[0]
    assert "what the work was for" in memo.reading()
    flag = compile_rule(0, "c:r0", CONTRACTOR).checks[0]
    assert isinstance(flag, RequiredFlag)
    assert "is on" in flag.reading()


@pytest.mark.parametrize(
    "rule",
    [
        # left as written, never a requirement read without its condition
        "Always include the ticket number for refunds to repeat customers.",
        "Always cite the incident number when reopening.",
        "Keys are always bound to a named owner (owner_email) unless they are service keys.",
        "No ticket needed for password resets under 3 per day.",
        "Password resets under 3 per day do not need a ticket.",
        "Orders are created with a PO number only for enterprise customers.",
        "Tickets must state which customer is affected.",
    ],
)
def test_unread_parts_never_decide(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides, (rule, compiled.understanding)


def test_act_is_no_argument() -> None:
    """'Refund must be given: full or partial' names the act, not an argument it carries."""
    assert (
        outcome(["Refund must be given: full or partial."], "billing.refund", {"amount": 5})
        != "denied"
    )


_CONDITIONS = (
    "for refunds to repeat customers",
    "when the customer is new",
    "unless the account is internal",
    "only for enterprise customers",
    "if the amount is over $500",
    "except for P1 incidents",
)
_RULES = (ZD, UNLOCK, MANDATORY, BO, GIVEN, SET)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_RULES), st.sampled_from(_CONDITIONS))
def test_inserted_condition_is_never_dropped(rule: str, condition: str) -> None:
    """A condition appended to an understood requirement is read by a check of its own, or the
    rule is left partly understood: never the bare requirement, labelled understood."""
    text = rule.rstrip(".") + " " + condition + "."
    compiled = compile_rule(0, "c:r0", text)
    if compiled.decides:
        assert not any(type(c) in (RequiredArgument, RequiredFlag) for c in compiled.checks), text


_NEGATIONS = ("No {t} needed for {s}.", "{S} do not need a {t}.", "A {t} is not required for {s}.")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(_NEGATIONS),
    st.sampled_from(("ticket", "cost centre", "PO number", "justification")),
    st.sampled_from(("password resets", "internal transfers", "test deploys")),
)
def test_exemption_never_requires(shape: str, thing: str, subject: str) -> None:
    """An exemption from a thing never denies a request for lacking it."""
    rule = shape.format(t=thing, s=subject, S=subject.capitalize())
    tool = "ops." + subject.split()[-1]
    assert outcome([rule], tool, {"note": "x"}) != "denied"
