"""Helper jcond: conditions on the state of the thing acted on. 'unless A and B' (each condition
read, the base excepted only when all hold), several states joined by 'or' (`AnyState`), 'unless
the account was never activated', and a party of a kind ('If the account holder is a PEP').
Every near-miss must not approve."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    outcome_beside_ticket,
)
from webapp.judge.compiler import compile_rule

CLOSE = (
    "An account may not be closed unless its ledger balance is zero and no standing orders "
    "remain active on it."
)
CLOSE_CODE = "close account: not allowed unless balance == 0 and active_standing_orders == 0"
CREDITS = (
    "Credits shall not be issued to accounts that are in collections or that have been flagged "
    "for suspected fraud."
)
HOLDS = "Accounts under a legal hold, a garnishment or a regulatory freeze may not be closed."
HOLDS_WHICH = (
    "Closure of any account which is subject to a legal hold, garnishment or regulatory freeze "
    "is prohibited."
)
HOLDS_SLASH = "closing is blocked for accts with legal_hold / garnishment / regulatory_freeze"
NEVER = "Deleting a user requires transfer_to unless the account was never activated."
PEP = (
    "Where the account holder is classified as a politically exposed person, closure shall be "
    "referred to the compliance function for review prior to execution."
)
PEP_SHORT = "If the account holder is a PEP, closing the account needs compliance review."

UNDERSTOOD = [CLOSE, CLOSE_CODE, CREDITS, HOLDS, HOLDS_WHICH, HOLDS_SLASH, NEVER, PEP, PEP_SHORT]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_the_rules_are_understood(rule: str) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood", rule


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"ledger_balance": 0.0, "active_standing_orders": 0}, "approved"),
        ({"ledger_balance": 12.4, "active_standing_orders": 0}, "denied"),
        ({"ledger_balance": 0.0, "active_standing_orders": 1}, "denied"),
        ({"ledger_balance": 0.01, "active_standing_orders": 0}, "denied"),
        ({"ledger_balance": -0.5, "active_standing_orders": 0}, "denied"),
        ({"ledger_balance": 0.0}, "pending_review"),  # the orders are not shown
        ({"active_standing_orders": 0}, "pending_review"),  # the balance is not shown
        ({"ledger_balance": True, "active_standing_orders": 0}, "pending_review"),
    ],
)
def test_unless_two_conditions_both_hold(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(CLOSE, "banking.account.close", {"account_id": "A-1", **args})
    assert got == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"balance": 0, "active_standing_orders": 0}, "approved"),
        ({"balance": 3, "active_standing_orders": 0}, "denied"),
        ({"balance": 0, "active_standing_orders": 2}, "denied"),
        ({"balance": 0}, "pending_review"),
    ],
)
def test_unless_two_conditions_written_as_code(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(CLOSE_CODE, "banking.account.close", {"account_id": "A", **args})
    assert got == expected


@pytest.mark.parametrize(
    "rule",
    [
        # a condition the engine does not read, or 'or' between two things: never decides
        "Accounts may not be closed unless the invoice or the receipt is attached.",
        "Accounts may not be closed unless the balance is zero and the customer agrees.",
        "Accounts may not be closed unless the balance is zero and either flag is set.",
    ],
)
def test_a_conjunction_not_read_in_full_never_decides(rule: str) -> None:
    assert_never_decides(rule)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"invoice": "INV-1", "receipt": "R-1"}, "approved"),
        ({"invoice": "INV-1"}, "denied"),  # had approved: one argument of the two was enough
        ({"receipt": "R-1"}, "denied"),
    ],
)
def test_one_verb_said_of_two_things(args: dict, expected: str) -> None:
    rule = "Accounts may not be closed unless the invoice and the receipt are attached."
    got = outcome_beside_ticket(rule, "banking.account.close", {"account_id": "A", **args})
    assert got == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"account_status": "collections", "fraud_flag": False}, "denied"),
        ({"account_status": "active", "fraud_flag": True}, "denied"),
        ({"account_status": "active", "fraud_flag": False}, "approved"),
        ({"account_status": "active"}, "pending_review"),  # the fraud flag is not shown
        ({"account_status": "pre_collections", "fraud_flag": False}, "pending_review"),
        ({"account_status": "active", "fraud_flag": "false"}, "pending_review"),
        # another party's flag says nothing of the account
        ({"account_status": "active", "referrer": {"fraud_flag": True}}, "pending_review"),
        ({"account": {"status": "collections"}, "fraud_flag": False}, "denied"),
        # a status of another thing ('payment_status') is not the account's
        ({"payment_status": "active", "fraud_flag": False}, "pending_review"),
        # a bare `status` on a credit tool may be the credit's own: it rules nothing out
        ({"status": "pending", "fraud_flag": False}, "pending_review"),
        ({"status": "collections", "fraud_flag": False}, "denied"),
    ],
)
def test_one_of_several_states(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(CREDITS, "billing.credit.issue", {"amount": 40, **args})
    assert got == expected


@pytest.mark.parametrize("rule", [HOLDS, HOLDS_WHICH, HOLDS_SLASH])
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"legal_hold": False, "garnishment": False, "regulatory_freeze": False}, "approved"),
        ({"legal_hold": False, "garnishment": True, "regulatory_freeze": False}, "denied"),
        ({"legal_hold": True}, "denied"),
        ({"legal_hold": False}, "pending_review"),  # garnishment and freeze unshown
        ({"legal_hold": "no", "garnishment": False, "regulatory_freeze": False}, "pending_review"),
        # a hold of some kind is not shown to be the legal one
        ({"hold": True, "garnishment": False, "regulatory_freeze": False}, "pending_review"),
    ],
)
def test_one_of_several_holds(rule: str, args: dict, expected: str) -> None:
    got = outcome_beside_ticket(rule, "banking.account.close", {"account_id": "A", **args})
    assert got == expected


def test_the_reading_names_each_state() -> None:
    reading = compile_rule(0, "c:r0", CREDITS).checks[0].reading()
    assert "in collections or flagged for suspected fraud" in reading
    assert "review" in reading


@pytest.mark.parametrize(
    "rule",
    [
        # places, currencies and lists of values are read by lists, not as states
        "No wires to beneficiaries in IR, KP, SY or CU.",
        "Trades in RUB or BYN are forbidden.",
        "Customers with medical_baseline or life_support flags may not be disconnected.",
        "Users with role viewer or guest cannot export data.",
    ],
)
def test_lists_are_not_states(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(type(c).__name__ == "AnyState" for c in compiled.checks), rule


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"status": "never_activated"}, "approved"),
        ({"activated": False}, "approved"),
        ({"status": "active"}, "denied"),
        ({"account_status": "deactivated"}, "denied"),
        ({"status": "active", "transfer_to": "u9"}, "approved"),
        ({}, "pending_review"),
        ({"status": "never_logged_in"}, "pending_review"),  # close to it, not it
        ({"activated": "false"}, "pending_review"),
        ({"status": "never_activated", "activated": True}, "pending_review"),
        ({"referrer": {"status": "never_activated"}}, "pending_review"),
    ],
)
def test_unless_never_activated(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(NEVER, "users.delete", {"user_id": "u1", **args})
    assert got == expected


@pytest.mark.parametrize("rule", [PEP, PEP_SHORT])
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"holder": {"customer_id": "C1", "pep": False}}, "approved"),
        ({"holder": {"customer_id": "C1", "pep": True}}, "pending_review"),
        ({"beneficiary": {"pep": False}}, "pending_review"),  # another party
        ({"pep": False}, "pending_review"),  # whose flag is it?
        ({"holder": {"pep": "false"}}, "pending_review"),
        ({"holder_pep": False}, "approved"),
    ],
)
def test_a_party_of_a_kind(rule: str, args: dict, expected: str) -> None:
    got = outcome_beside_ticket(rule, "banking.account.close", {"account_id": "A", **args})
    assert got == expected


_QUALIFIERS = st.sampled_from(APPENDED_QUALIFIERS)


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), qualifier=_QUALIFIERS)
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)


@settings(max_examples=40, deadline=None)
@given(
    balance=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    orders=st.integers(min_value=0, max_value=5),
)
def test_the_balance_decides_on_its_side_of_zero(balance: float, orders: int) -> None:
    got = outcome_beside_ticket(
        CLOSE,
        "banking.account.close",
        {"account_id": "A", "ledger_balance": balance, "active_standing_orders": orders},
    )
    assert got == ("approved" if balance == 0 and orders == 0 else "denied")


@settings(max_examples=30, deadline=None)
@given(
    flags=st.fixed_dictionaries(
        {},
        optional={
            "legal_hold": st.booleans(),
            "garnishment": st.booleans(),
            "regulatory_freeze": st.booleans(),
        },
    )
)
def test_any_hold_on_denies_and_all_off_approves(flags: dict) -> None:
    got = outcome_beside_ticket(HOLDS, "banking.account.close", {"account_id": "A", **flags})
    if any(flags.values()):
        assert got == "denied"
    elif len(flags) == 3:
        assert got == "approved"
    else:
        assert got == "pending_review"


ERASE = "Erasure shall not be performed where the record is subject to a legal hold."
LITIGATION = "no reserve changes while a claim is on litigation hold"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (ERASE, "privacy.erase", {"legal_hold": False}, "approved"),
        (ERASE, "privacy.erase", {"legal_hold": True}, "denied"),
        (ERASE, "privacy.erase", {}, "pending_review"),
        (ERASE, "privacy.erase", {"hold": True}, "pending_review"),  # some hold, maybe not legal
        (ERASE, "privacy.erase", {"legal_hold": 0}, "pending_review"),
        (ERASE, "privacy.erase", {"owner": {"legal_hold": False}}, "pending_review"),
        (LITIGATION, "claims.reserve.adjust", {"litigation_hold": True}, "denied"),
        (LITIGATION, "claims.reserve.adjust", {"litigation_hold": False}, "approved"),
    ],
)
def test_a_state_in_a_clause_of_its_own(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, {"record_id": "R-1", **args}) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Wires may not be sent where the beneficiary is in Iran or Syria.",
        "Calls may not be placed where the customer is on the do-not-call list.",
    ],
)
def test_a_place_or_a_register_is_no_state(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(type(c).__name__ == "AnyState" for c in compiled.checks), rule


SINGLE = "Credits shall not be issued to accounts that are subject to a legal hold."
FLAGGED = "Refunds to customers flagged for fraud are forbidden."


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (SINGLE, {"legal_hold": True}, "denied"),
        (SINGLE, {"legal_hold": False}, "approved"),
        (SINGLE, {}, "pending_review"),
        (FLAGGED, {"customer": {"flags": ["fraud", "vip"]}}, "denied"),
        (FLAGGED, {"customer": {"flags": ["fraud_review"]}}, "pending_review"),
        (FLAGGED, {"customer": {"flags": ["vip"]}}, "pending_review"),  # says nothing of fraud
        (FLAGGED, {"customer": {"fraud_flag": False}}, "approved"),
        (FLAGGED, {"partner": {"flags": ["fraud"]}}, "pending_review"),  # another party's list
    ],
)
def test_one_state_after_subject_to_or_flagged(rule: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, "billing.refund.credit", {"amount": 10, **args}) == expected


EITHER = "Credits may not be issued if the account is in collections or fraud_flag is set."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"account_status": "collections", "fraud_flag": False}, "denied"),
        ({"account_status": "active", "fraud_flag": True}, "denied"),
        ({"account_status": "active", "fraud_flag": False}, "approved"),
        ({"account_status": "active"}, "pending_review"),
        ({"account_status": "active", "fraud_flag": "false"}, "pending_review"),
        ({"account_status": "collection_hold", "fraud_flag": False}, "pending_review"),
    ],
)
def test_either_condition_forbids(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(EITHER, "billing.credit.issue", {"amount": 5, **args})
    assert got == expected


@pytest.mark.parametrize(
    "rule",
    [
        # two things, or a condition of another shape: not read as one state list
        "Credits may not be issued if the account is in collections or the customer is new.",
        "Credits may not be issued if the account is in collections or the amount is large.",
    ],
)
def test_either_of_two_things_is_not_read(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(type(c).__name__ == "AnyState" for c in compiled.checks), rule
