"""Explicit bindings: a rule that writes the argument and its value ('(fee_status = "paid")',
'creator must have tax_form_on_file = true', '(legal_case_id given)', 'x between 15 and 60',
'include a rollback_plan') is read as a typed check on that argument (checks.Binding).

The words that only gloss the binding (the noun phrase right before its bracket) are read by it;
every other word of the rule is read by its own check or the rule stays partly understood. The
near-misses (an unread condition, a value in another case or type, a nested path absent, a
negated binding, a binding inside 'unless') never approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.checks import binding_equal
from webapp.judge.compiler import compile_rule

ACCOUNT = "Orders require an account in good standing (account_status = active)."
FEE = 'A building permit may be issued only once the fee is paid (fee_status = "paid").'
RX = "Dispensing is permitted only against a verified prescription (rx_verified must be true)."
SITE = "Lab orders over $3,000 may ship only to a university site (ship_to.type = campus)."
TAX_FORM = "creator must have tax_form_on_file = true"
TIMEOUT = "session_timeout_minutes between 15 and 60."
ROLLBACK = "Flag rollouts max 25% per step; include a rollback_plan."
LIVE = "Invoices may be sent only from live workspaces (is_test != true)."
REF = "Overseas payments need an FX rate lock reference (fx_lock_ref)."
EXCLUDED = (
    "Public records exports must exclude social security numbers (ssn), dates of birth (dob) "
    "and home addresses (home_address)."
)


def _rule(text: str):
    return compile_rule(0, "p:r0", text)


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        (ACCOUNT, 'Deny when `account_status` (an account in good standing) is not "active"'),
        (FEE, 'Deny when `fee_status` (the fee is paid) is not "paid"'),
        (RX, "Deny when `rx_verified` (a verified prescription) is not true"),
        (SITE, 'Deny when `ship_to.type` (a university site) is not "campus"'),
        (TAX_FORM, "Deny when `tax_form_on_file` is not true"),
        (TIMEOUT, "Deny when `session_timeout_minutes` is not between 15 and 60"),
        (ROLLBACK, "Deny when `rollback_plan` is missing or empty"),
        (LIVE, "Deny when `is_test` (live workspaces) is true"),
        (REF, "Deny when `fx_lock_ref` (an FX rate lock reference) is missing or empty"),
    ],
)
def test_a_binding_is_read_as_a_typed_check_and_its_gloss_is_accounted_for(text, reading):
    rule = _rule(text)
    assert rule.understanding == "understood", rule.unaccounted
    assert any(c.reading().startswith(reading) or reading in c.reading() for c in rule.checks)


def test_a_list_of_glosses_and_names_is_the_list_of_the_names():
    rule = _rule(EXCLUDED)
    assert rule.understanding == "understood"
    assert "ssn, dob or home_address" in rule.checks[0].reading()
    fields = {"request_id": "R-1", "fields": ["name", "dob"]}
    assert outcome_beside_ticket(EXCLUDED, "records.export", fields) == "denied"
    fields = {"request_id": "R-1", "fields": ["name", "license_no"]}
    assert outcome_beside_ticket(EXCLUDED, "records.export", fields) == "approved"


@pytest.mark.parametrize(
    ("status", "expected"),
    [("active", "approved"), ("suspended", "denied"), ("Active", "pending_review")],
)
def test_the_bound_value_is_compared_as_written(status, expected):
    args = {"account_id": "A-1", "account_status": status, "amount": 40}
    assert outcome_beside_ticket(ACCOUNT, "orders.create", args) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, "approved"), (False, "denied"), ("true", "approved"), ("yes", "pending_review"),
     (1, "pending_review"), ("True", "pending_review")],
)  # fmt: skip
def test_a_flag_in_another_type_or_case_goes_to_review(value, expected):
    args = {"creator_id": "c-1", "tax_form_on_file": value}
    assert outcome_beside_ticket(TAX_FORM, "payouts.create", args) == expected


def test_a_missing_binding_is_denied_and_a_nested_path_absent_goes_to_review():
    assert outcome_beside_ticket(TAX_FORM, "payouts.create", {"creator_id": "c-1"}) == "denied"
    absent = {"category": "lab", "amount": 4000, "currency": "USD", "ship_to": {"city": "Leeds"}}
    assert outcome_beside_ticket(SITE, "purchasing.order", absent) == "pending_review"


def test_an_amount_in_the_subject_conditions_the_binding():
    home = {"category": "lab", "currency": "USD", "ship_to": {"type": "home"}}
    assert outcome_beside_ticket(SITE, "purchasing.order", {**home, "amount": 4000}) == "denied"
    assert outcome_beside_ticket(SITE, "purchasing.order", {**home, "amount": 1200}) == "approved"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, "denied"), (False, "approved"), ("yes", "pending_review"), (None, "pending_review")],
)
def test_a_negated_binding_denies_the_value_and_never_approves_a_guess(value, expected):
    args = {"invoice_id": "I-1", "workspace": "w-1"}
    if value is not None:
        args["is_test"] = value
    assert outcome_beside_ticket(LIVE, "invoices.send", args) == expected


@pytest.mark.parametrize(
    ("minutes", "expected"), [(15, "approved"), (60, "approved"), (61, "denied"), (14, "denied")]
)
def test_a_range_is_inclusive(minutes, expected):
    args = {"org_id": "o-1", "settings": {"session_timeout_minutes": minutes}}
    assert outcome_beside_ticket(TIMEOUT, "org.settings.update", args) == expected


def test_a_setting_the_request_does_not_change_is_not_judged_but_a_near_name_is():
    assert outcome_beside_ticket(TIMEOUT, "org.settings.update", {"org_id": "o"}) == "approved"
    near = {"org_id": "o", "settings": {"session_timeout": 90}}
    assert outcome_beside_ticket(TIMEOUT, "org.settings.update", near) == "pending_review"


@pytest.mark.parametrize(
    "text",
    [
        # an unread condition or a second obligation beside the binding
        "IT hardware orders over $2,000 may ship only to a company site (ship_to.type = site), "
        "never to a home address.",
        "Lab results may be released only to the ordering physician (recipient_role = physician) "
        "and never before 72 hours have passed.",
        "Card issuance requires KYC completion (kyc_status = passed) and a credit score over 650.",
        # an exception holding a second condition, or of a base no check reads
        "Accounts may not be deleted unless the customer asked in writing (written_request = true) "
        "and the balance is zero.",
        "Don't close accounts that have open disputes, except when Legal instructs it "
        "(legal_case_id given).",
    ],
)
def test_what_the_binding_does_not_read_stays_unaccounted(text):
    assert_never_decides(text)


DELETE = (
    "Accounts may not be deleted unless the customer asked in writing (written_request = true)."
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"written_request": True}, "approved"),
        ({"written_request": False}, "denied"),
        ({}, "denied"),
        ({"written_request": "yes"}, "pending_review"),
        ({"written_request_note": "by email"}, "pending_review"),
    ],
)
def test_a_binding_in_an_exception_lifts_the_prohibition_only_when_it_holds(args, expected):
    rule = _rule(DELETE)
    assert rule.understanding == "understood"
    assert rule.checks[0].reading().endswith("unless `written_request` is true")
    assert outcome_beside_ticket(DELETE, "accounts.delete", {"account_id": "A-9", **args}) == (
        expected
    )


def test_a_satisfied_binding_never_approves_past_an_unread_condition():
    rule = (
        "Lab results may be released only to the ordering physician (recipient_role = physician) "
        "and never before 72 hours have passed."
    )
    args = {"result_id": "R-1", "recipient_role": "physician", "hours_since_result": 10}
    assert outcome_beside_ticket(rule, "lab.release_results", args) != "approved"
    rule = (
        "Card issuance requires KYC completion (kyc_status = passed) and a credit score over 650."
    )
    args = {"customer_id": "C-1", "kyc_status": "passed", "credit_score": 600}
    assert outcome_beside_ticket(rule, "cards.issue", args) != "approved"


def test_an_approval_named_by_a_bracket_stays_a_review():
    # 'require mgr approval (approved_by)': a person's act, never a field whose presence approves
    rule = _rule("Refunds > $250 require mgr approval (approved_by).")
    assert not any(c.kind == "binding" for c in rule.checks)
    assert all(c.effect == "review" for c in rule.checks)


def test_a_word_the_binding_reads_is_never_a_subject_word():
    # 'via the partner portal' beside `delivery_channel = portal`: matched by the bound value, the
    # subject word would make the rule look absent exactly when the binding fails
    text = "Royalty statements go via the partner portal only (delivery_channel = portal)."
    rule = _rule(text)
    assert all("portal" not in c.terms for c in rule.checks)
    args = {"statement_id": "S-1", "delivery_channel": "email"}
    assert outcome_beside_ticket(text, "royalty.statements.send", args) != "approved"


def test_binding_equal_is_typed():
    assert binding_equal(True, True) is True
    assert binding_equal("true", True) is True
    assert binding_equal("yes", True) is None
    assert binding_equal(1, True) is None
    assert binding_equal(30, 30.0) is True
    assert binding_equal("30", 30.0) is None
    assert binding_equal("paid", "paid") is True
    assert binding_equal("Paid", "paid") is None
    assert binding_equal("unpaid", "paid") is False


BINDING_RULES = (
    ACCOUNT.rstrip("."),
    FEE.rstrip("."),
    RX.rstrip("."),
    TAX_FORM,
    TIMEOUT.rstrip("."),
    LIVE.rstrip("."),
    REF.rstrip("."),
    "Loan disbursements require a signed promissory note (note_signed = true)",
    "tax_id and a verified bank account (bank_account_verified = true) are required for every "
    "new vendor",
    "Payee account must match account on file (account_matches_record = true)",
    DELETE.rstrip("."),
)
INSERTED = (
    ", unless the customer is a reseller",
    " when the warehouse is closed",
    " except for refunds",
    " for terminated employees",
    " before 5pm",
    " within 2 days",
    " on weekends",
    " if the amount is large",
    " and a manager",
    " or a director",
    " in the EU",
    " for two years",
    ", never to a home address",
    " while the account is open",
    " until the audit closes",
    " during audits",
)


@pytest.mark.parametrize("text", BINDING_RULES)
def test_every_binding_rule_of_the_property_is_understood_alone(text):
    assert _rule(text + ".").understanding == "understood"


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(BINDING_RULES), st.sampled_from(INSERTED))
def test_an_inserted_condition_leaves_a_binding_rule_partly_understood(text, inserted):
    # the binding consumes only its gloss and itself: a condition, a place, a time, a person or
    # a second subject written after it is read by nothing, so the rule never decides
    assert_never_decides(text + inserted + ".")


TRADES = "Single trades above USD 5m equivalent (notional_usd) need Treasurer approval."
TTL = "Key TTL (key_ttl_days) at most 90."


def test_a_measure_named_in_brackets_compares_that_argument_only():
    rule = _rule(TRADES)
    assert rule.understanding == "understood"
    assert "`notional_usd` is above 5,000,000 USD" in rule.checks[0].reading()
    big = {"pair": "EURUSD", "notional_usd": 6_000_000, "amount": 100}
    assert outcome_beside_ticket(TRADES, "treasury.fx.convert", big) == "pending_review"
    small = {"pair": "EURUSD", "notional_usd": 2_200_000, "amount": 9_000_000}
    assert outcome_beside_ticket(TRADES, "treasury.fx.convert", small) == "approved"
    ttl = {"name": "svc", "key_ttl_days": 120, "amount": 10}
    assert outcome_beside_ticket(TTL, "iam.key.create", ttl) == "denied"


def test_a_named_measure_the_request_lacks_is_never_approved():
    other = {"pair": "EURUSD", "notional": 6_000_000}
    assert outcome_beside_ticket(TRADES, "treasury.fx.convert", other) != "approved"
    other = {"name": "svc", "ttl_days": 400}
    assert outcome_beside_ticket(TTL, "iam.key.create", other) != "approved"


HOME = "Never ship to a home address (ship_to.type = home)."


def test_a_negated_modal_forbids_what_the_binding_states():
    assert _rule(HOME).understanding == "understood"
    home = {"order_id": "O-1", "ship_to": {"type": "home"}}
    assert outcome_beside_ticket(HOME, "orders.create", home) == "denied"
    office = {"order_id": "O-1", "ship_to": {"type": "office"}}
    assert outcome_beside_ticket(HOME, "orders.create", office) == "approved"


@pytest.mark.parametrize(
    "text",
    [
        # the negation belongs to the gloss or to the thing asked for, whose meaning the
        # binding's value already carries: read as a negated modal it would invert the rule
        "Orders require an account not in collections (account_status = active).",
        "Only accounts that are not frozen (account_frozen = false) may trade.",
        "Refunds may be issued only to cards that are not expired (card_expired = false).",
    ],
)
def test_a_negation_beside_the_gloss_is_never_read_as_the_modal(text):
    rule = _rule(text)
    assert not any(c.kind == "binding" for c in rule.checks)
    assert_never_decides(text)


def test_a_binding_whose_gloss_is_negated_never_approves_the_negated_state():
    text = "Orders require an account not in collections (account_status = active)."
    args = {"order_id": "O-1", "account_status": "collections"}
    assert outcome_beside_ticket(text, "orders.create", args) != "approved"


def test_a_bound_name_is_no_binding_and_a_plain_name_on_several_arguments_is_reviewed():
    # 'max_replicas = 10' is a cap, never 'exactly 10'
    assert not any(c.kind == "binding" for c in _rule("Config: max_replicas = 10.").checks)
    text = "Orders must ship to a company site (type = site)."
    args = {"order_id": "O", "ship_to": {"type": "site"}, "payment": {"type": "card"}}
    assert outcome_beside_ticket(text, "orders.ship", args) == "pending_review"


def test_a_binding_after_if_or_when_is_the_condition_of_another_obligation():
    text = "Refunds need a manager if the customer is new (customer_new = true)."
    assert not any(c.kind == "binding" for c in _rule(text).checks)
    assert_never_decides(text)


@pytest.mark.parametrize(
    ("status", "expected"),
    [("collections", "denied"), ("pre_collections", "pending_review"), ("active", "approved")],
)
def test_a_value_close_to_the_bound_one_goes_to_review(status, expected):
    # the lead's false-denial class: close to the value is not the value (nor clearly another)
    text = "Credits are not allowed for accounts in collections (account_status = collections)."
    args = {"account_id": "A-1", "account_status": status, "amount": 20}
    assert outcome_beside_ticket(text, "billing.credit", args) == expected
    assert binding_equal("active_pending_review", "active") is None
    assert binding_equal("inactive", "active") is False
