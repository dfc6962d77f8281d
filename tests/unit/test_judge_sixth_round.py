"""Readings added in the sixth session, each tested on phrasings of our own (never case files).

- a qualifier of the rule's subject is ruled out only by an argument that states the kind, the
  state or the name it qualifies: 'market orders' by `order_type`, 'invoices in dispute' by
  `invoice_status`, 'the payroll table' by `table`; a plain name ('web_clicks') never rules out a
  class ('HIPAA datasets'), and a word is never ruled out through a noun it does not qualify.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_judge_fourth_round import outcome
from tests.unit.test_judge_understanding import UNDERSTOOD
from webapp.judge.checks import name_qualifiers
from webapp.judge.compiler import compile_rule
from webapp.judge.text import stem

CLASS_RULE = "Access to HIPAA datasets requires privacy officer approval."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # the dataset's name does not say whether it holds HIPAA data: a person decides
        ({"dataset": "web_clicks", "principal": "analyst-3"}, "pending_review"),
        ({"dataset": "hipaa_claims", "principal": "analyst-3"}, "pending_review"),
    ],
)
def test_a_class_qualifier_is_not_ruled_out_by_an_instance_name(args, expected):
    assert outcome(CLASS_RULE, "grant_dataset_access", args) == expected


NAME_RULE = "Exports of the payroll table require HR approval."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"table": "orders", "format": "csv"}, "approved"),
        ({"table": "payroll", "format": "csv"}, "pending_review"),
    ],
)
def test_a_named_instance_is_ruled_out_by_another_name(args, expected):
    assert outcome(NAME_RULE, "export_table", args) == expected


def test_only_a_word_before_a_singular_noun_after_the_names_an_instance():
    (check,) = compile_rule(0, "c:r0", NAME_RULE).checks
    assert name_qualifiers(NAME_RULE, check.terms) == frozenset({stem("payroll")})
    plural = "Exports of the payroll tables need HR approval."
    (check,) = compile_rule(0, "c:r0", plural).checks
    assert name_qualifiers(plural, check.terms) == frozenset()


KIND_RULE = "Expedited shipments need dispatcher approval."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # a value on the qualifier's own dimension rules it out
        ({"shipment_speed": "standard", "weight_kg": 3}, "approved"),
        ({"shipment_speed": "expedited", "weight_kg": 3}, "pending_review"),
        ({"weight_kg": 3}, "pending_review"),
        # a catch-all 'type' does not: a parcel may be an expedited shipment
        ({"shipment_type": "parcel", "weight_kg": 3}, "pending_review"),
    ],
)
def test_a_kind_qualifier_is_ruled_out_only_on_its_own_dimension(args, expected):
    assert outcome(KIND_RULE, "create_shipment", args) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Unsecured loans above 10,000 EUR need a credit officer.",
            "create_loan",
            {"loan_type": "consumer", "amount": 20000, "currency": "EUR"},
        ),
        (
            "Sole-source purchases require procurement review.",
            "create_purchase",
            {"vendor": "Acme", "amount": 900, "purchase_type": "software"},
        ),
        (
            "Related-party transactions require board approval.",
            "record_transaction",
            {"transaction_type": "purchase", "amount": 10},
        ),
    ],
)
def test_a_catch_all_type_never_rules_out_a_scope_qualifier(rule, tool, args):
    # before: the type argument 'ruled out' the qualifier and the request was approved
    assert outcome(rule, tool, args) == "pending_review"


def test_a_value_of_a_known_closed_class_rules_out_a_sibling():
    rule = "Market orders above 250,000 USD need head trader approval."
    args = {"symbol": "MNO", "order_type": "limit", "notional_usd": 400000}
    assert outcome(rule, "place_order", args) == "approved"
    args["order_type"] = "market"
    assert outcome(rule, "place_order", args) == "pending_review"


STATE_RULE = "Invoices in dispute may not be paid."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"invoice_id": "INV-1", "invoice_status": "open", "amount": 10}, "approved"),
        ({"invoice_id": "INV-1", "invoice_status": "dispute", "amount": 10}, "denied"),
    ],
)
def test_a_state_written_after_its_noun_is_read_from_the_nouns_status(args, expected):
    assert outcome(STATE_RULE, "pay_invoice", args) == expected


def test_a_word_is_not_ruled_out_through_a_noun_it_does_not_qualify():
    # 'moderation' qualifies 'delay', not 'streams': `stream_type` says nothing about it, so
    # the rule is not set aside (before, it was, and a 3-second delay was approved)
    rule = "Live streams require a moderation delay of at least 10 seconds."
    assert compile_rule(0, "c:r0", rule).checks
    args = {"stream_id": "S-9", "stream_type": "live", "delay_seconds": 3}
    assert outcome(rule, "start_stream", args) != "approved"


# ---- the understanding invariant, extended (hypothesis) ----
QUALIFIERS = st.sampled_from("zorblat hipaa legacy premium archived regulated offshore".split())
NOUNS = st.sampled_from(["table", "dataset", "bucket", "report", "ledger"])
NAMES = st.sampled_from(["orders_daily", "web_clicks", "north_region", "alpha"])


@settings(max_examples=60, deadline=None)
@given(qualifier=QUALIFIERS, noun=NOUNS, name=NAMES)
def test_a_class_qualifier_is_never_ruled_out_by_the_nouns_name(qualifier, noun, name):
    """'Zorblat tables need a manager's approval': a table named 'web_clicks' may be one, so the
    request is never approved on the strength of its name alone."""
    rule = f"{qualifier.capitalize()} {noun}s require manager approval."
    got = outcome(rule, f"export_{noun}", {noun: name, "format": "csv"})
    assert got != "approved", rule


ORDER_WORDS = st.sampled_from(["before", "after", "until", "prior to", "later than", "since"])
VALUES = st.sampled_from(["21:00", "06:30", "2026-12-31", "9am", "17"])


@settings(max_examples=60, deadline=None)
@given(word=ORDER_WORDS, value=VALUES, subject=st.sampled_from(["Promo ads", "Deploys", "Trades"]))
def test_an_ordering_word_before_a_value_is_never_read_as_a_listed_value(word, value, subject):
    """'may not air before 21:00' compares with 21:00: a rule that only lists 21:00 for equality
    (or compares nothing in order) keeps the ordering word unaccounted and never decides."""
    compiled = compile_rule(0, "c:r0", f"{subject} may not run {word} {value}.")
    listed = {str(v).lower() for c in compiled.checks for v in getattr(c, "values", ()) or ()}
    if compiled.decides:
        assert value.lower() not in listed, compiled.checks
        assert any(
            c.kind in ("numeric_limit", "date_window", "time_of_day") for c in compiled.checks
        )
    else:
        assert compiled.unaccounted or compiled.uncompiled or not compiled.checks


@pytest.mark.parametrize(
    "rule",
    [
        "Trades may not settle after 2026-12-31.",
        "Invoices may not be paid before 2027-01-15.",
    ],
)
def test_a_date_after_an_ordering_word_leaves_the_rule_partly_understood(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood", compiled.checks
    assert not compiled.decides


TIME_RULE = "Gambling promos may not air before 21:00."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"promo_id": "P-1", "air_time": "20:15"}, "denied"),
        ({"promo_id": "P-1", "air_time": "21:00"}, "approved"),  # 'before 21:00' excludes it
        ({"promo_id": "P-1", "air_time": "2026-11-24T22:30:00"}, "approved"),
        ({"promo_id": "P-1", "air_time": "8:15pm"}, "denied"),
        # no time, a zone the rule does not state, or two times that disagree: a human decides
        ({"promo_id": "P-1"}, "pending_review"),
        ({"promo_id": "P-1", "air_time": "2026-11-24T22:30:00Z"}, "pending_review"),
        ({"promo_id": "P-1", "air_time": "22:00", "repeat_time": "19:00"}, "pending_review"),
    ],
)
def test_a_time_of_day_bound_reads_the_requests_time(args, expected):
    compiled = compile_rule(0, "c:r0", TIME_RULE)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.kind == "time_of_day"
    assert check.reading().startswith("When the request's time of day is before 21:00")
    assert outcome(TIME_RULE, "schedule_gambling_promo", args) == expected


def test_after_a_time_of_day_is_the_later_side():
    rule = "No schema migrations after 18:00."
    assert outcome(rule, "run_schema_migration", {"db": "core", "start_time": "18:30"}) == "denied"
    assert outcome(rule, "run_schema_migration", {"db": "core", "start_time": "17:45"}) == (
        "approved"
    )


def test_a_forbidden_time_is_never_approved():
    rule = "Gambling promos may not air before 21:00."
    args = {"promo_id": "P-1", "category": "gambling", "air_time": "20:15"}
    assert outcome(rule, "schedule_promo", args) != "approved"


def test_a_freezes_own_duration_still_reads_as_its_lifetime():
    compiled = compile_rule(0, "c:r0", "Change freeze on ledger-svc until 1 Dec.")
    assert compiled.understanding == "understood", compiled.unaccounted


# ---- presence is not a state: a rule asking for an outcome is satisfied only by a value stating it
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a background check asked for: an id shows one exists, not that it came out well
        (
            "Hires require a background check.",
            "onboard_hire",
            {"background_check_id": "BC-1"},
            "pending_review",
        ),
        (
            "Hires require a background check.",
            "onboard_hire",
            {"background_check": "failed"},
            "pending_review",
        ),
        (
            "Hires require a background check.",
            "onboard_hire",
            {"background_check_status": "cleared"},
            "approved",
        ),
        # an outcome written in the phrase ('to pass', 'successful')
        (
            "Trades require a pre-trade compliance check to pass.",
            "place_trade",
            {"symbol": "MNO", "compliance_check_id": "PC-1"},
            "pending_review",
        ),
        (
            "Trades require a pre-trade compliance check to pass.",
            "place_trade",
            {"symbol": "MNO", "compliance_check": "passed"},
            "approved",
        ),
        (
            "Releases require a successful test run.",
            "cut_release",
            {"version": "2.1", "test_run_id": "TR-9"},
            "pending_review",
        ),
        (
            "Releases require a successful test run.",
            "cut_release",
            {"version": "2.1", "test_run": "failed"},
            "denied",
        ),
        (
            "Releases require a successful test run.",
            "cut_release",
            {"version": "2.1", "test_run": "success"},
            "approved",
        ),
        # a code named for the state is not the state, and not a missing identity either
        (
            "Withdrawals require a verified identity.",
            "process_withdrawal",
            {"amount": 5, "currency": "USD", "verification_code": "123456"},
            "pending_review",
        ),
    ],
)
def test_a_required_state_is_read_from_a_value_that_states_it(rule, tool, args, expected):
    assert outcome(rule, tool, args) == expected


def test_a_noun_that_only_looks_like_an_outcome_stays_a_thing_to_send():
    # 'a gate pass' is a document: its presence is what the rule asks for
    compiled = compile_rule(0, "c:r0", "Visitors need a gate pass.")
    assert compiled.understanding == "understood"
    assert (
        outcome("Visitors need a gate pass.", "admit_visitor", {"gate_pass": "GP-7"}) == "approved"
    )


def test_the_reading_says_which_values_satisfy_a_required_state():
    (check,) = compile_rule(0, "c:r0", "Releases require a successful test run.").checks
    reading = check.reading()
    assert "only a value stating it is successful satisfies the rule" in reading
    assert "`test run`" in reading


ACTIVITIES = st.sampled_from(
    [
        "a background check",
        "a sanctions screening",
        "a successful test run",
        "a compliance check to pass",
        "a completed credit assessment",
        "an approved purchase order",
    ]
)
NOT_STATES = st.sampled_from(["REF-1", "8812", "see ticket", "pending", "failed", "in progress"])


@settings(max_examples=80, deadline=None)
@given(
    thing=ACTIVITIES, value=NOT_STATES, name_tail=st.sampled_from(["", "_id", "_ref", "_status"])
)
def test_a_value_that_states_no_good_outcome_never_satisfies_a_required_state(
    thing, value, name_tail
):
    rule = f"Payouts require {thing}."
    key = "_".join(
        w
        for w in thing.split()[1:]
        if w not in ("to", "pass", "successful", "completed", "approved")
    )
    args = {"amount": 10, "currency": "EUR", key + name_tail: value}
    assert outcome(rule, "create_payout", args) != "approved", (rule, args)


def test_the_same_policy_version_passed_twice_is_judged_not_failed():
    from webapp.judge.engine import evaluate
    from webapp.judge.history import StaticHistory
    from webapp.judge.types import ClearanceQuery, PolicyVersion

    rules = (
        "Refunds above 500 EUR need a manager's approval.",
        "Refunds must reference an order_id.",
    )
    policy = PolicyVersion("p", "pv_twice", "0" * 64, "", rules, ())
    query = ClearanceQuery(
        "issue_refund", {"amount": 100, "currency": "EUR", "order_id": "O-1"}, "a"
    )
    verdict = evaluate(query, [policy, policy], StaticHistory.from_dict(None))
    assert verdict.reason_code != "judge_unavailable", verdict.details
    assert verdict.decision == "allow"
    big = ClearanceQuery("issue_refund", {"amount": 900, "currency": "EUR", "order_id": "O-1"}, "a")
    assert evaluate(big, [policy, policy], StaticHistory.from_dict(None)).decision == "review"


# ---- a code does not spell a word, and an exception is not an allow-list
@pytest.mark.parametrize("state", ["TX", "CA"])
def test_a_place_code_neither_rules_out_nor_confirms_a_place_word(state):
    # 'TX' does not spell 'Texas': before, it ruled 'Texas customers' out and the fee was approved
    rule = "Oklahoma customers may not be charged a card surcharge."
    args = {"surcharge_type": "card", "amount": 3, "customer_state": state}
    assert outcome(rule, "charge_surcharge", args) == "pending_review"


def test_an_exception_to_a_requirement_is_not_read_as_an_allow_list():
    # before: 'Deny unless ticket except is reverts', which denied every revert (`reverts` !=
    # `revert`) and claimed to be understood
    rule = "Changes to staging require a change ticket, except for reverts."
    compiled = compile_rule(0, "c:r0", rule)
    assert all(c.kind != "value_list" for c in compiled.checks), compiled.checks
    # seventh session: the exception is read as a kind the request must spell (`revert`), so a
    # revert needs no ticket; a change that does not show it is a revert or not goes to review
    args = {"environment": "staging", "change_type": "revert"}
    assert outcome(rule, "apply_change", args) == "approved"
    args = {"environment": "staging", "change_type": "deploy"}
    assert outcome(rule, "apply_change", args) == "pending_review"
    args = {"environment": "staging", "change_type": "deploy", "change_ticket": "CHG-1"}
    assert outcome(rule, "apply_change", args) == "approved"


# ---- a cap and several items: each within it is not the whole request within it
@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([{"sku": "A", "quantity": 30}, {"sku": "B", "quantity": 40}], "approved"),
        # each line is under 100, the order is not: the rule may mean either, a human decides
        ([{"sku": "A", "quantity": 80}, {"sku": "B", "quantity": 70}], "pending_review"),
        ([{"sku": "A", "quantity": 120}, {"sku": "B", "quantity": 5}], "denied"),
    ],
)
def test_a_cap_is_not_approved_item_by_item_when_the_items_total_exceeds_it(lines, expected):
    rule = "Purchase orders may not exceed 100 units."
    assert outcome(rule, "create_purchase_order", {"lines": lines}) == expected


# ---- a required currency
@pytest.mark.parametrize(
    ("rule", "wanted", "other"),
    [
        ("Subscription prices must be set in USD.", "USD", "EUR"),
        ("Supplier quotes must be issued in euros.", "EUR", "USD"),
        ("Royalties shall always be paid out in pounds sterling.", "GBP", "EUR"),
        ("Credit notes must be denominated in EUR or CHF.", "CHF", "USD"),
    ],
)
def test_a_required_currency_is_an_allow_list_on_the_requests_currency(rule, wanted, other):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.checks[0].reading().startswith("Deny unless currency is ")
    assert outcome(rule, "record_amount", {"amount": 120, "currency": wanted}) == "approved"
    assert outcome(rule, "record_amount", {"amount": 120, "currency": other}) == "denied"
    # no currency stated: the rule cannot be checked
    assert outcome(rule, "record_amount", {"amount": 120}) == "pending_review"


def test_an_ambiguous_currency_name_is_not_read():
    # 'dollars' may be USD, CAD or AUD: never an allow-list of one of them
    rule = "Subscription prices must be set in dollars."
    assert not compile_rule(0, "c:r0", rule).decides
    assert outcome(rule, "set_price", {"amount": 12, "currency": "CAD"}) == "pending_review"


# ---- a permission grants only where it is shown to cover the request
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"member_tier": "gold", "amount": 150, "currency": "EUR"}, "approved"),
        # another tier, or none: the permission does not speak for the request (review)
        ({"member_tier": "silver", "amount": 150, "currency": "EUR"}, "pending_review"),
        ({"amount": 150, "currency": "EUR"}, "pending_review"),
    ],
)
def test_a_permission_whose_scope_is_not_shown_grants_nothing(args, expected):
    rule = "Credits over 100 EUR are fine for gold members."
    assert outcome(rule, "issue_credit", args) == expected


def test_an_arguments_name_alone_does_not_show_a_permissions_qualifier():
    rule = "Urgent payouts up to 500 EUR are allowed."
    args = {"payout_urgency": "low", "amount": 300, "currency": "EUR"}
    assert outcome(rule, "create_payout", args) == "pending_review"
    # a rule that leaves the dimension open still grants
    rule = "Cache purges may be run by agents in any region."
    assert outcome(rule, "run_cache_purge", {"region": "eu-west-1"}) == "approved"


# ---- a placeholder is not a reference
@settings(max_examples=40, deadline=None)
@given(value=st.sampled_from(["N/A", "n/a", "none", "TBD", "-", "null", "unknown", " tbc ", "000"]))
def test_a_placeholder_never_satisfies_a_required_reference(value):
    rule = "Every credit note must cite a ticket number."
    got = outcome(rule, "issue_credit_note", {"amount": 20, "ticket_number": value})
    assert got == "pending_review", value


def test_a_real_reference_still_satisfies_it():
    rule = "Every credit note must cite a ticket number."
    args = {"amount": 20, "ticket_number": "TCK-2291"}
    assert outcome(rule, "issue_credit_note", args) == "approved"


# ---- a form's code is one word
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"name": "A", "i9_document": "DOC-2"}, "approved"),
        ({"name": "A"}, "denied"),
    ],
)
def test_a_forms_code_names_its_argument(args, expected):
    # before: 'I-9' was read as an argument 'I' (the digit dropped), and every hire was denied
    rule = "New hires must provide an I-9."
    (check,) = compile_rule(0, "c:r0", rule).checks
    assert "`I-9`" in check.reading()
    assert outcome(rule, "onboard_hire", args) == expected


# ---- a word turned around by 'non-' is never read as the word itself
@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(UNDERSTOOD), joiner=st.sampled_from(["-", " "]))
def test_an_inserted_non_prefix_leaves_the_rule_partly_understood(rule, joiner):
    """The understanding invariant for a negating prefix: 'Payouts to RU or BY are blocked' ->
    'Non-payouts …'; no check reads a negated word, so the rule never decides alone."""
    head, rest = rule.split(" ", 1)
    text = f"Non{joiner}{head.lower()} {rest}"
    compiled = compile_rule(0, "c:r0", text)
    assert not compiled.decides, (text, compiled.checks)


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Non-EU transfers are blocked.",
            "send_transfer",
            {"amount": 10, "currency": "EUR", "destination_country": "US"},
        ),
        (
            "Non-refundable fares cannot be cancelled.",
            "cancel_booking",
            {"booking": "B1", "refundable": False},
        ),
    ],
)
def test_a_negated_word_is_not_read_as_the_word(rule, tool, args):
    # before: 'Deny when country or region is EU' approved a transfer to the US
    assert outcome(rule, tool, args) == "pending_review"


# ---- the exception to a permission is what it does not allow
@pytest.mark.parametrize(
    ("region", "expected"),
    [("ap-south-2", "denied"), ("eu-central-1", "approved")],
)
def test_an_exception_to_a_permission_is_a_deny_list(region, expected):
    # before: 'Deny unless an argument is ap-south-2', which approved only the excluded region
    rule = "Cache purges are allowed in all regions except ap-south-2."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.checks[0].reading().startswith("Deny when an argument is ap-south-2")
    assert outcome(rule, "run_cache_purge", {"region": region}) == expected


# ---- a list decides only with the qualifiers of its subject read
def test_a_qualifier_of_a_place_list_is_a_subject_word_the_request_must_show():
    rule = "Crypto payouts to US or UK residents are prohibited."
    (check,) = compile_rule(0, "c:r0", rule).checks
    assert "crypto" in check.reading()  # before: accounted as the list's argument, never read
    assert outcome(rule, "create_payout", {"method": "sepa", "resident_country": "US"}) == (
        "approved"
    )
    args = {"method": "crypto", "resident_country": "US"}
    assert outcome(rule, "create_payout", args) == "denied"


def test_two_values_of_one_class_in_a_rule_do_not_rule_each_other_out():
    # 'prod' in the request does not show the account is not a test account
    rule = "Sandbox accounts in production may not be created."
    assert outcome(rule, "create_account", {"environment": "production"}) == "pending_review"


def test_an_exception_written_after_the_list_is_not_the_lists():
    # 'read-only' is listed before 'except the platform team': the exception is not read
    rule = "Production databases are read-only for everyone except the platform team."
    compiled = compile_rule(0, "c:r0", rule)
    assert {"except", "platform", "team"} <= set(compiled.unaccounted)
    args = {"database": "prod-main", "access": "write", "team": "data"}
    assert outcome(rule, "grant_db_access", args) == "pending_review"


def test_a_negative_amount_is_not_under_a_cap_by_its_sign():
    rule = "Payouts must not exceed 1,000 USD."
    assert outcome(rule, "create_payout", {"amount": -5000, "currency": "USD"}) == (
        "pending_review"
    )
    assert outcome(rule, "create_payout", {"amount": 500, "currency": "USD"}) == "approved"
