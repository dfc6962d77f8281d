"""Rules that tie one argument to another (jsame): the original, the same, matching.

'Refunds go back to the original payment method only', 'Credit notes must be in the invoice
currency', 'New address must be in the same country as the original address', 'Account owner
changes are only allowed between reps in the same sales region' were kept as text (review for
every request); they are one relation (SameValue) now. The reference side binds to the one
argument carrying the attribute and its qualifiers (`original_payment_method`,
`charge.payment_method`, `invoice.currency`, `customer.billing_currency`), the request's own side
to the one argument carrying the attribute (or a destination) with nothing else in its name. Two
candidates, a missing side or a name of something else leave it to a human.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome, outcome_beside_ticket
from webapp.judge.checks import SameValue
from webapp.judge.compiler import _all_checks, compile_rule
from webapp.judge.text import normalise_value

BACK = "Refunds go back to the original payment method only."
PAID_BACK = "A refund must be paid back to the original payment method."
CAME_FROM = "card refunds only go back to the card they came from"
TERSE = "Refunds: original payment method only."
OTHER_THAN = "Refunds may not be issued to a payment method other than the original one."
NEEDS_APPROVAL = (
    "Refunds to a payment method other than the original one need Payments team approval."
)
UNLESS = (
    "Refunds may not be issued to a payment method other than the original one unless the "
    "original card is expired or closed."
)
CHARGE_CCY = "refunds in the charge currency only"
INVOICE_CCY = "Credit notes must be in the invoice currency."
BILLING_CCY = "Quotes must be in the customer's billing currency."
CONTRACT_CCY = "Orders shall be issued in the currency of the supplier's contract."
HOLDER = "The bank account holder name must match the supplier's legal name."
ADDRESS = "New address must be in the same country as the original address."
REGION = "Account owner changes are only allowed between reps in the same sales region."
TEAM = "Tickets may only be reassigned to agents in the same team as the current assignee."

UNDERSTOOD = [
    BACK,
    PAID_BACK,
    CAME_FROM,
    TERSE,
    OTHER_THAN,
    NEEDS_APPROVAL,
    UNLESS,
    CHARGE_CCY,
    INVOICE_CCY,
    BILLING_CCY,
    CONTRACT_CCY,
    HOLDER,
    ADDRESS,
    REGION,
    TEAM,
    "Refunds go back to the original payment method; anything else needs a finance review.",
    "The refund currency must match the original charge currency.",
    "Payouts must use the same currency as the invoice.",
    "Refunds to a different payment method than the original are forbidden.",
    "Transfers are only allowed between accounts in the same currency.",
]


@pytest.mark.parametrize("rule", UNDERSTOOD)
def test_each_phrasing_is_one_relation_fully_understood(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert any(isinstance(c, SameValue) for c in _all_checks(list(compiled.checks)))


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # the destination against the original, under its many names
        (BACK, "refunds.create", {"original_payment_method": "pm_1", "refund_method": "PM_1"}, "approved"),
        (BACK, "refunds.create", {"original_payment_method": "pm_1", "refund_method": "pm_2"}, "denied"),
        (BACK, "refunds.create", {"refund_method": "pm_2"}, "pending_review"),  # no original
        (PAID_BACK, "refunds.create", {"charge": {"payment_method": "pm_1"}, "destination": "pm_1"}, "approved"),
        (PAID_BACK, "refunds.create", {"charge": {"payment_method": "pm_1"}, "destination": "pm_9"}, "denied"),
        (PAID_BACK, "refunds.create", {"payment_method_original": "pm_1", "method": "pm_9"}, "denied"),
        (CAME_FROM, "refunds.issue", {"original_card": "card_1", "refund_card": "card_1"}, "approved"),
        (CAME_FROM, "refunds.issue", {"original_card": "card_1", "refund_card": "card_2"}, "denied"),
        (TERSE, "refunds.create", {"original_payment_method": "pm_1", "refund_method": "pm_3"}, "denied"),
        # a destination naming the original holds without the original being sent
        (BACK, "refunds.create", {"refund_to": "original_payment_method"}, "approved"),
        (BACK, "refunds.create", {"refund_to": "original_payment_method", "refund_method": "gift"}, "pending_review"),
        # two candidate originals, or two candidate destinations: a human decides
        (BACK, "refunds.create", {"original_payment_method": "pm_1", "charge": {"payment_method": "pm_2"}, "refund_method": "pm_1"}, "pending_review"),
        (BACK, "refunds.create", {"original_payment_method": "pm_1", "payment_method": "pm_1", "refund_method": "pm_3"}, "pending_review"),
        # a name with words of something else is not the original
        (BACK, "refunds.create", {"original_payment_method_type": "card", "refund_method": "card"}, "pending_review"),
        # another argument that may be where the value goes, or two stand-ins: a human decides
        (BACK, "refunds.create", {"original_payment_method": "pm_1", "refund_method": "pm_1", "destination_account": "acct_9"}, "pending_review"),
        (INVOICE_CCY, "billing.create_credit_note", {"currency": "EUR", "settlement_currency": "USD", "invoice": {"currency": "EUR"}}, "pending_review"),
        (BACK, "refunds.create", {"original_payment_method": "", "refund_method": ""}, "pending_review"),
        (BACK, "refunds.create", {"original_payment_method": "N/A", "refund_method": "n/a"}, "pending_review"),
        # prohibition, review, and the exception
        (OTHER_THAN, "refunds.create", {"original_payment_method": "pm_a", "refund_method": "pm_a"}, "approved"),
        (OTHER_THAN, "refunds.create", {"original_payment_method": "pm_a", "refund_method": "pm_b"}, "denied"),
        (NEEDS_APPROVAL, "refunds.create", {"original_payment_method": "pm_a", "refund_method": "pm_b"}, "pending_review"),
        (NEEDS_APPROVAL, "refunds.create", {"original_payment_method": "pm_a", "refund_method": "pm_a"}, "approved"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_status": "expired"}, "approved"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_status": "active"}, "denied"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank"}, "pending_review"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "card"}, "approved"),
        # the exception is the original card's: not a new card's, and not when its flags disagree
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "new_card_status": "expired"}, "pending_review"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_status": "expired", "original_card_expired": False}, "pending_review"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_status": "active", "original_card_expired": True}, "pending_review"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_expired": True}, "approved"),
        (UNLESS, "refunds.create", {"original_method": "card", "refund_method": "bank", "original_card_status": "lost"}, "denied"),
        # the request's currency against another thing's
        (CHARGE_CCY, "refunds.create", {"currency": "eur", "charge_currency": "EUR"}, "approved"),
        (CHARGE_CCY, "refunds.create", {"currency": "USD", "charge_currency": "EUR"}, "denied"),
        (CHARGE_CCY, "refunds.create", {"currency": "USD"}, "pending_review"),
        (INVOICE_CCY, "billing.create_credit_note", {"currency": "GBP", "invoice": {"currency": "GBP"}}, "approved"),
        (INVOICE_CCY, "billing.create_credit_note", {"currency": "EUR", "invoice": {"currency": "GBP"}}, "denied"),
        (BILLING_CCY, "crm.create_quote", {"currency": "CAD", "customer": {"billing_currency": "USD"}}, "denied"),
        (BILLING_CCY, "crm.create_quote", {"currency": "CAD", "customer": {"preferred_currency": "CAD"}}, "pending_review"),
        (CONTRACT_CCY, "procurement.create_order", {"currency": "EUR", "supplier": {"contract_currency": "EUR"}}, "approved"),
        # two named sides
        (HOLDER, "vendors.update_bank_account", {"supplier": {"legal_name": "Acme GmbH"}, "bank_account": {"holder_name": "ACME GMBH"}}, "approved"),
        (HOLDER, "vendors.update_bank_account", {"supplier": {"legal_name": "Acme GmbH"}, "bank_account": {"holder_name": "J. Doe"}}, "denied"),
        ("Shipping country must match the billing country.", "orders.create", {"country": "DE", "billing_country": "FR"}, "pending_review"),
        (ADDRESS, "customers.change_address", {"new_address": {"country": "US"}, "original_address": {"country": "FR"}}, "denied"),
        (ADDRESS, "customers.change_address", {"new_address": {"country": "fr"}, "original_address": {"country": "FR"}}, "approved"),
        (TEAM, "tickets.reassign", {"current_assignee": {"team": "billing"}, "new_assignee": {"team": "tech"}}, "denied"),
        ("Refunds to a different payment method than the original are forbidden.", "refunds.create", {"original_payment_method": "pm_1", "refund_method": "pm_2"}, "denied"),
        ("Transfers are only allowed between accounts in the same currency.", "transfers.create", {"source_account_currency": "EUR", "destination_account_currency": "eur"}, "approved"),
        ("Transfers are only allowed between accounts in the same currency.", "transfers.create", {"from_account": {"currency": "EUR"}, "to_account": {"currency": "USD"}}, "denied"),
        ("Leads can only be transferred between reps in the same territory.", "crm.transfer_lead", {"from_rep": {"territory": "North"}, "to_rep": {"territory": "South"}}, "denied"),
        ("Leads can only be transferred between reps in the same territory.", "crm.transfer_lead", {"from_rep": {"territory": "North"}, "to_rep": {"territory": "north"}}, "approved"),
        # two sides that share no word ('holder', 'legal name'): what both are is unsaid
        ("The payroll bank account holder must match the employee's legal name.", "hr.update_bank_details", {"employee": {"legal_name": "Ana Ruiz"}, "bank_account_holder": "Carlos Ruiz"}, "pending_review"),
        # a subject word the request does not show, with both sides there and differing
        ("Chargeback refunds must be sent back to the original funding source.", "refunds.create", {"original_funding_source": "fs_1", "refund_destination": "fs_2"}, "pending_review"),
        # the two sides of one change
        (REGION, "crm.change_account_owner", {"from_owner_region": "EMEA", "to_owner_region": "emea"}, "approved"),
        (REGION, "crm.change_account_owner", {"from_owner_region": "EMEA", "to_owner_region": "APAC"}, "denied"),
        (REGION, "crm.change_account_owner", {"to_owner_region": "APAC"}, "pending_review"),
        (REGION, "crm.change_account_owner", {"account_region": "EMEA", "new_owner": {"sales_region": "EMEA"}}, "pending_review"),
    ],
)  # fmt: skip
def test_the_two_sides_decide_only_when_both_are_clear(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds must not go back to the original payment method.",
        "Refunds never go back to the original payment method.",
        "Refunds must be issued in the currency of the original charge, not USD.",
    ],
)
def test_a_relation_no_check_compares_is_never_approved(rule):
    args = {"currency": "USD", "original_payment_method": "pm_1", "refund_method": "pm_1"}
    assert_never_decides(rule)
    assert outcome_beside_ticket(rule, "refunds.create", args) == "pending_review"


def test_readings_say_what_is_compared():
    (check,) = compile_rule(0, "c:r0", INVOICE_CCY).checks
    assert check.reading() == (
        "Deny when the currency of the Credit notes differs from the invoice currency (both must "
        "be sent, each in one argument named for it) (about: credit notes)"
    )


_TAILS = st.sampled_from(
    [
        " for high-risk customers",
        " within 30 days",
        " if the customer asks",
        " except for sanctioned vendors",
        " when the order was shipped",
    ]
)


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD[:15]), tail=_TAILS)
def test_an_added_condition_leaves_the_relation_partly_understood(rule, tail):
    assert_never_decides(rule.rstrip(".") + tail + ".")


@settings(max_examples=40, deadline=None)
@given(
    original=st.text("abcdefgh_", min_size=1, max_size=8),
    destination=st.text("abcdefgh_", min_size=1, max_size=8),
)
def test_a_different_destination_is_never_approved(original, destination):
    args = {"original_payment_method": original, "refund_method": destination}
    got = outcome([OTHER_THAN], "refunds.create", args)
    same = normalise_value(original) == normalise_value(destination)
    if not same:
        assert got != "approved"
