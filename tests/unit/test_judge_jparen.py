"""Helper jparen: parenthetical remarks in prose that are not argument names
(`webapp/judge/parentheticals.py`). A reason ('(peak season)', '(ATO risk)'), what a total
includes ('(incl. this one)', "(today's earlier credits count)"), an estimate marker after an
amount ('(est.)') and a description restating a named argument ('shipper_cert_id (IATA/ADR DG
cert)') add no condition; examples of a category ('etc.', 'e.g.', 'such as') leave it open. A
bracket that restricts is never set aside, and no near-miss approves."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    policy,
)
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.parentheticals import OpenValueList, set_aside
from webapp.judge.types import ClearanceQuery

FREEZE = "BER-1 is under change freeze (peak season). No slotting changes there."
DUS = "DUS-2 is under change freeze (peak season) - no slotting or config changes there"
ATO = "Never change email and phone in the same request (ATO risk)."
LAW = "Criminal record checks are not run for candidates in DE, FR or NL (local law)."
RATE = "More than 5 role changes an hour -> human review (possible compromise)."
KP = "Wires to KP are prohibited (sanctions exposure)."
NY = "Cancellations of NY policies are frozen (DFS review) - do not process."
WRITE_OFF = "Daily write-off total capped at 10,000 EUR per agent (incl. this one)"
CREDITS = "max $150/day in credits per agent (today's earlier credits count)"
UNLOCKS = "No more than 5 unlocks per hour per agent (including this one)."
PAYOUTS = "Payouts capped at 50,000 USD per day (incl. this payout)."
CERT = "shipper_cert_id (IATA/ADR DG cert) is required."
MAIL = "No sharing with personal email accounts (gmail.com, yahoo.com, outlook.com, etc.)."
TABLES = "Never export tables such as payroll or ssn_records."

UNDERSTOOD = [ATO, LAW, RATE, KP, NY, WRITE_OFF, CREDITS, UNLOCKS, PAYOUTS, CERT, MAIL, TABLES]
# (the properties leave out ATO: the act reading reads a condition appended to it, '… when the
# customer is a minor', and '(EU only)' as a place list, with or without the reason)
PROPERTY = [r for r in UNDERSTOOD if r is not ATO]


def _outcome(rule: str, tool: str, args: dict, history: dict | None = None) -> str:
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [policy([rule])], StaticHistory.from_dict(history)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_the_rules_are_understood(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", (rule, compiled.unaccounted)


@pytest.mark.parametrize(
    ("rule", "tool", "args", "history", "expected"),
    [
        # a reason adds no condition: the rule decides as it would without it
        (
            ATO,
            "accounts.update_contact",
            {"changes": {"email": "a@b.io", "phone": "+1"}},
            None,
            "denied",
        ),
        # (one of the two changed: the act reading cannot tell, as without the reason)
        (ATO, "accounts.update_contact", {"changes": {"email": "a@b.io"}}, None, "pending_review"),
        (LAW, "screening.order_check", {"candidate_country": "FR"}, None, "denied"),
        (LAW, "screening.order_check", {"candidate_country": "AT"}, None, "approved"),
        (
            RATE,
            "users.set_role",
            {"user_id": "u1", "role": "Editor"},
            {"count_last_hour": 5},
            "pending_review",
        ),
        (
            RATE,
            "users.set_role",
            {"user_id": "u1", "role": "Editor"},
            {"count_last_hour": 2},
            "approved",
        ),
        (
            KP,
            "treasury.wire.send",
            {"amount": 5, "currency": "USD", "beneficiary_country": "KP"},
            None,
            "denied",
        ),
        (
            KP,
            "treasury.wire.send",
            {"amount": 5, "currency": "USD", "beneficiary_country": "CA"},
            None,
            "approved",
        ),
        (DUS, "wms.update_slotting", {"warehouse": "DUS-2", "slot": "A-1"}, None, "denied"),
        # the daily total includes this request: earlier + this, as the engine takes it
        (
            WRITE_OFF,
            "inventory.write_off",
            {"value": {"amount": 800, "currency": "EUR"}},
            {"total_today": {"amount": 9500}},
            "denied",
        ),
        (
            WRITE_OFF,
            "inventory.write_off",
            {"value": {"amount": 1000, "currency": "EUR"}},
            {"total_today": {"amount": 9000}},
            "approved",
        ),
        (
            CREDITS,
            "billing.credit",
            {"amount": 60, "currency": "USD"},
            {"total_today": {"amount": 95}},
            "denied",
        ),
        (
            CREDITS,
            "billing.credit",
            {"amount": 50, "currency": "USD"},
            {"total_today": {"amount": 100}},
            "approved",
        ),
        # earlier cents are scaled like this request's cents (they had been added to dollars)
        (
            CREDITS,
            "billing.credit",
            {"amount_cents": 5000, "currency": "USD"},
            {"total_today": {"amount_cents": 3000}},
            "approved",
        ),
        (
            CREDITS,
            "billing.credit",
            {"amount_cents": 6000, "currency": "USD"},
            {"total_today": {"amount_cents": 9500}},
            "denied",
        ),
        (UNLOCKS, "account.unlock", {"account_id": "A1"}, {"count_last_hour": 4}, "approved"),
        (UNLOCKS, "account.unlock", {"account_id": "A1"}, {"count_last_hour": 5}, "denied"),
        # a description restating the argument's name
        (CERT, "hazmat.book_dg_shipment", {"un_number": "UN1993"}, None, "denied"),
        (
            CERT,
            "hazmat.book_dg_shipment",
            {"un_number": "UN1993", "shipper_cert_id": "DGC-1"},
            None,
            "approved",
        ),
        # examples of an open kind: a named one decides, any other goes to review
        (MAIL, "drive.share", {"file_id": "f1", "recipient_domain": "yahoo.com"}, None, "denied"),
        (
            MAIL,
            "drive.share",
            {"file_id": "f1", "recipient_domain": "protonmail.com"},
            None,
            "pending_review",
        ),
        (TABLES, "warehouse.export", {"table": "payroll"}, None, "denied"),
        (TABLES, "warehouse.export", {"table": "medical_claims"}, None, "pending_review"),
    ],
)
def test_vectors(rule: str, tool: str, args: dict, history: dict | None, expected: str) -> None:
    assert _outcome(rule, tool, args, history) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # restricting brackets are never set aside
        "BER-1 is under change freeze (peak season only). No slotting changes there.",
        "Wires to KP are prohibited (not for humanitarian licences).",
        "Refunds over $500 need manager approval (except warranty returns).",
        "Transfers to RU are blocked (EU entities only).",
        "shipper_cert_id (air bookings only) is required.",
        "Never unblock MCC 7995 (except lottery cards).",
        # a total that leaves something out, an approximate bound
        "Daily write-off total capped at 10,000 EUR per agent (excluding this one)",
        "Daily write-off total capped at 10,000 EUR per agent (not counting damaged stock)",
        "Changes adding more than $2,000 a month (approx.) need FinOps sign-off.",
        # 'incl.' of something else than the request; 'this one' with no total to include it in
        "Refunds up to $200 each (incl. tax) need no review.",
        "shipper_cert_id is required (incl. this one).",
        # a reason beside a bare number that lost its unit, a value cut out of a proper name
        "No disconnections when the forecast low is below 32°F (winter protection).",
        "Grand Meridian properties are blocked (supplier dispute).",
        # a description of an argument that does not restate it
        "External shares need requested_by (the file owner).",
    ],
)
def test_near_misses_never_decide(rule: str) -> None:
    assert_never_decides(rule)


def test_what_is_set_aside() -> None:
    assert (
        set_aside("Grand hotels are blocked (supplier dispute).")[0] == "Grand hotels are blocked."
    )
    assert set_aside("capped at 10 per day (incl. this one)")[1][0].kind == "includes"
    assert set_aside("adds more than $2,000 a month (est.) - review")[1][0].kind == "estimate"
    assert set_aside("shipper_cert_id (IATA/ADR DG cert) is required")[1][0].anchor == (
        "shipper_cert_id"
    )
    # never: examples, an abbreviation, a condition, a list
    for text in (
        "Opened hazmat (aerosols, lithium batteries, etc.) - never restock",
        "Never export full card numbers (PAN).",
        "No cancellation while claims are open (open_claims > 0).",
        "Payments are blocked (fraud review pending).",
        "Refunds need a manager (manager approval).",
    ):
        assert set_aside(text)[1] == (), text


def test_readings_say_the_examples_are_open() -> None:
    (check,) = compile_rule(0, "c:r0", MAIL).checks
    assert isinstance(check, OpenValueList)
    assert "etc" not in check.values
    assert "examples of an open kind: any other, review" in check.reading()


_BRACKETS = st.sampled_from(
    [
        "(except refunds)",
        "(not for contractors)",
        "(contractors excluded)",
        "(peak season only)",
        "(for VIP customers)",
        "(unless approved)",
        "(when the account is new)",
    ]
)


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(PROPERTY), bracket=_BRACKETS)
def test_a_restricting_bracket_leaves_the_rule_partly_understood(rule: str, bracket: str) -> None:
    # appended after the rule, or put in place of the bracket the rule has
    assert_never_decides(f"{rule.rstrip('.')} {bracket}.")
    if "(" in rule:
        head, _, tail = rule.partition("(")
        assert_never_decides(f"{head}{bracket}{tail.partition(')')[2]}")


@settings(max_examples=40, deadline=None)
@given(
    rule=st.sampled_from(PROPERTY),
    # ('when the customer is a minor' is read by the party-state reading, a recogniser)
    qualifier=st.sampled_from([q for q in APPENDED_QUALIFIERS if "minor" not in q]),
)
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)
