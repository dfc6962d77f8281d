"""Readings added in the fifth session, each tested on phrasings of our own (never case files).

- an exception naming values of an upper-case kind ('except the REITs ABC and XYZ') binds to the
  one argument written like the listed values when none is named like the kind;
- a count of a noun ('at most 5,000 shares') is never read from a price argument;
- negative contractions ending in a word character ('shouldn't', 'mustn't') are normative;
- every governing policy must speak to a request: one that says nothing sends it to review even
  when another policy's rules hold.
"""

from __future__ import annotations

import hashlib

import pytest

from tests.unit.test_judge_fourth_round import outcome
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion

EXCEPT_RULE = "A single trade may not be larger than 2,000 units, except the REITs ABC, XYZ or QRS."


def test_an_exception_of_an_upper_case_kind_is_understood():
    compiled = compile_rule(0, "c:r0", EXCEPT_RULE)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "except when" in compiled.checks[0].reading()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"ticker": "XYZ", "units": 9000, "unit_price": 12.5}, "approved"),
        ({"ticker": "MNO", "units": 1500, "unit_price": 12.5}, "approved"),
        ({"ticker": "MNO", "units": 2001, "unit_price": 12.5}, "denied"),
        # two arguments written like the listed codes: which one is the instrument? review
        ({"ticker": "MNO", "venue": "NYSE", "units": 2001, "unit_price": 1.0}, "pending_review"),
        # nothing written like them: review, never a guess
        ({"instrument": "mno-fund", "units": 2001}, "pending_review"),
    ],
)
def test_an_exception_binds_to_the_one_argument_written_like_its_values(args, expected):
    assert outcome(EXCEPT_RULE, "place_trade", args) == expected


def test_a_counted_noun_is_not_read_from_a_price():
    rule = "Orders must not exceed 5,000 shares."
    args = {"symbol": "MNO", "quantity": 5001, "limit_price": 10.0}
    assert outcome(rule, "place_order", args) == "denied"
    args = {"symbol": "MNO", "quantity": 4000, "limit_price": 9000.0}
    assert outcome(rule, "place_order", args) == "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Loyalty credits shouldn't go above 80 EUR.",
        "Loyalty credits mustn't exceed 80 EUR.",
        "Loyalty credits shan't be more than 80 EUR.",
    ],
)
def test_negative_contractions_are_normative(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    args = {"amount": 95, "currency": "EUR"}
    assert outcome(rule, "grant_loyalty_credit", args) == "denied"
    assert outcome(rule, "grant_loyalty_credit", {"amount": 60, "currency": "EUR"}) == "approved"


def test_a_unitless_cap_behind_a_contraction_still_goes_to_review_against_a_currency():
    rule = "Loyalty credits shouldn't go above 80."
    assert outcome(rule, "grant_loyalty_credit", {"amount": 60, "currency": "GBP"}) == (
        "pending_review"
    )


def _pv(pid: str, rules: list[str], tools: tuple[str, ...]) -> PolicyVersion:
    digest = hashlib.sha256((pid + "|".join(rules)).encode()).hexdigest()
    return PolicyVersion(pid, f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def test_a_governing_policy_that_says_nothing_sends_the_request_to_review():
    speaking = _pv("transfers", ["Transfers must name a destination bank."], ("transfer_line",))
    silent = _pv("upgrades", ["Upgrades may not exceed 20% off."], ("transfer_line", "upgrade"))
    query = ClearanceQuery("transfer_line", {"destination_bank": "Bank A", "line": "L-1"}, "a")
    v = evaluate(query, [speaking, silent], StaticHistory.from_dict(None))
    assert v.decision == "allow" and v.confidence < 0.8
    assert "upgrades" in v.reason
    # on its own, the speaking policy approves
    v = evaluate(query, [speaking], StaticHistory.from_dict(None))
    assert v.decision == "allow" and v.confidence >= 0.8


@pytest.mark.parametrize(
    ("country", "expected"),
    [("NO", "approved"), ("FR", "approved"), ("GB", "approved"), ("US", "denied")],
)
def test_regions_joined_by_a_slash_are_each_read_as_places(country, expected):
    rule = "Biopsy images may only be sent to labs in the EU/EEA or the UK."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    args = {"image_id": "IMG-4", "lab_name": "Nordic Path Lab", "lab_country": country}
    assert outcome(rule, "send_biopsy_images", args) == expected


@pytest.mark.parametrize(
    ("rule", "amount", "ref", "expected"),
    [
        ("Grants above $10,000 must cite a board minute.", 12000, "", "denied"),
        ("Grants above $10,000 must cite a board minute.", 12000, "BM-7", "approved"),
        ("Grants above $10,000 must cite a board minute.", 10000, "", "approved"),
        ("Grants of $10,000 or more must cite a board minute.", 10000, "", "denied"),
        ("Grants of $10,000 or more must cite a board minute.", 9999, "", "approved"),
        ("Grants of $10,000 and above must cite a board minute.", 10000, "", "denied"),
    ],
)
def test_an_amount_in_the_subject_conditions_a_required_reference(rule, amount, ref, expected):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    args = {"grantee": "Food Bank", "amount": amount, "currency": "USD"}
    if ref:
        args["board_minute"] = ref
    assert outcome(rule, "award_grant", args) == expected


def test_two_required_references_share_the_amount_condition():
    rule = "Payouts of 3,000 GBP or more must include payer and payee names."
    compiled = compile_rule(0, "c:r0", rule)
    assert len(compiled.checks) == 2
    args = {"amount": 3500, "currency": "GBP", "payer_name": "A Ltd"}
    # the payer's name is not the payee's: never approved (a human sees the look-alike)
    assert outcome(rule, "send_payout", args) == "pending_review"
    assert outcome(rule, "send_payout", {"amount": 3500, "currency": "GBP"}) == "denied"
    args["payee_name"] = "B plc"
    assert outcome(rule, "send_payout", args) == "approved"
    assert outcome(rule, "send_payout", {"amount": 200, "currency": "GBP"}) == "approved"


def test_an_amount_a_required_reference_cannot_place_keeps_the_rule_from_deciding():
    # the number qualifies the reference, not the subject: never a required argument alone
    rule = "Claims must include a photo taken within 3 days."
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides or all(
        "missing or empty" not in c.reading() for c in compiled.checks
    )


def test_a_condition_met_by_its_unit_sends_an_unnamed_subject_to_review():
    # the request never says 'upgrade', but its kW argument is above the condition's bound
    rule = "Upgrades over 7 kW need a DNO approval number."
    args = {"meter_id": "M-1", "new_capacity_kw": 9}
    assert outcome(rule, "set_capacity", args) == "pending_review"
    args = {"meter_id": "M-1", "new_capacity_kw": 6}
    assert outcome(rule, "set_capacity", args) != "denied"


MARKED = "Claims must be filed within 30 days of the incident unless the claim is marked complex."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"days_since_incident": 45, "complex": False}, "denied"),
        ({"days_since_incident": 45, "complex": True}, "approved"),
        ({"days_since_incident": 12, "complex": False}, "approved"),
        # nothing shows the mark: a human decides
        ({"days_since_incident": 45}, "pending_review"),
    ],
)
def test_unless_marked_reads_a_flag_named_for_the_mark(args, expected):
    assert compile_rule(0, "c:r0", MARKED).understanding == "understood"
    assert outcome(MARKED, "file_claim", args) == expected


REGISTER = "Never suspend service for a household on the vulnerable customers register."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"household_id": "H-1", "vulnerable_customers": True}, "denied"),
        ({"household_id": "H-1", "vulnerable_customers": False}, "approved"),
        # no flag named for the register: membership cannot be shown, review
        ({"household_id": "H-1", "region": "north"}, "pending_review"),
    ],
)
def test_membership_of_a_named_register_is_read_from_a_flag_named_for_it(args, expected):
    compiled = compile_rule(0, "c:r0", REGISTER)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "are on the vulnerable customers register" in compiled.checks[0].reading()
    assert outcome(REGISTER, "suspend_service", args) == expected


def test_a_register_with_a_further_condition_stays_partly_understood():
    rule = "Never suspend service for a household on the hardship register unless legal agrees."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


def test_a_date_window_is_never_read_as_subject_words():
    # months without days are no window the engine reads: never subject words either
    rule = "No price rises between January and March."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood"
    args = {"account": "A-1", "scheduled_date": "2026-12-15"}
    assert outcome(rule, "apply_price_rises", args) == "pending_review"
    # with days it is a window on the request's date
    rule = "Do not cut off water supply between Dec 1 and Feb 28."
    assert outcome(rule, "cut_off_water_supply", args) == "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "Write-offs over $800 need a branch mgr.",
        "Write-offs over $800 need the collections team to approve.",
        "Write-offs over $800 require sign-off from finance mgmt.",
    ],
)
def test_abbreviated_and_group_approvers_ask_for_review_not_an_argument(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert all(c.effect == "review" for c in compiled.checks), compiled.checks
    assert outcome(rule, "write_off", {"amount": 900, "currency": "USD"}) == "pending_review"
    assert outcome(rule, "write_off", {"amount": 700, "currency": "USD"}) == "approved"


def test_a_team_name_is_still_a_required_argument():
    compiled = compile_rule(0, "c:r0", "Deploys need a team name.")
    assert [c.kind for c in compiled.checks] == ["required_argument"]


def test_politeness_is_not_a_subject_word():
    rule = "Please never refund gift cards."
    args = {"order_id": "O-1", "item_type": "gift card", "amount": 20}
    assert outcome(rule, "issue_refund", args) == "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "Treasury vault TV-9 is frozen pending reconciliation.",
        "Treasury vault TV-9 is frozen due to an open incident - no movements.",
        "Payment rail (rail-sepa-2) is in a change freeze through 30 Jun.",
        "Settlement runs frozen for rail-sepa-2 and rail-fps-1 until after quarter end.",
    ],
)
def test_freeze_phrasings_with_a_reason_a_bracketed_name_or_a_list(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    name = "TV-9" if "TV-9" in rule else "rail-sepa-2"
    assert outcome(rule, "move_funds", {"source": name, "amount": 10}) == "denied"
    assert outcome(rule, "move_funds", {"source": "TV-1", "amount": 10}) != "denied"


def test_a_freeze_for_prose_words_is_not_a_list_of_names():
    compiled = compile_rule(0, "c:r0", "The ledger-api is under code freeze for the holidays.")
    assert compiled.understanding == "understood"
    assert compiled.checks[0].values == ("ledger-api",)


@pytest.mark.parametrize(
    ("rule", "age", "expected"),
    [
        ("Borrowers must be 18 or older.", 18, "approved"),
        ("Borrowers must be 18 or older.", 17, "denied"),
        ("Borrowers must be at least 21 and no older than 70.", 70, "approved"),
        ("Borrowers must be at least 21 and no older than 70.", 71, "denied"),
        ("Borrowers must be at least 21 years old.", 20, "denied"),
        ("Borrowers younger than 25 need an underwriter.", 24, "pending_review"),
        ("Borrowers younger than 25 need an underwriter.", 25, "approved"),
    ],
)
def test_an_age_binds_to_the_age_argument_never_to_money(rule, age, expected):
    args = {"applicant_age": age, "loan_amount": 30, "currency": "EUR"}
    assert outcome(rule, "approve_borrower", args) == expected


def test_older_than_a_duration_keeps_its_unit():
    rule = "Invoices older than 2 years cannot be disputed."
    assert outcome(rule, "dispute_invoice", {"invoice_age_days": 100}) == "approved"
    assert outcome(rule, "dispute_invoice", {"invoice_age_days": 800}) == "denied"


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Must expire in 30 days or less.", {"expires_in_days": 30}, "approved"),
        ("Must expire in 30 days or less.", {"expires_in_days": 31}, "denied"),
        ("Tokens must not be valid for 30 days or more.", {"ttl_days": 30}, "denied"),
    ],
)
def test_or_more_and_or_less_in_the_predicate_are_a_floor_or_a_cap(rule, args, expected):
    assert outcome(rule, "create_token", args) == expected


def test_exclude_is_a_prohibition_and_a_mixed_case_acronym_is_one_word():
    rule = "Exclude anyone with an eGFR below 45."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "enroll_subject", {"subject_id": "S-1", "egfr": 44, "age": 50}) == (
        "denied"
    )
    assert outcome(rule, "enroll_subject", {"subject_id": "S-1", "egfr": 60, "age": 50}) == (
        "approved"
    )


def test_a_nightly_rate_is_not_a_count_of_nights():
    rule = "Max 4 nights per booking without a manager's approval."
    args = {"nights": 2, "nightly_rate": 310, "currency": "EUR"}
    assert outcome(rule, "book_hotel", args) == "approved"
    args = {"nights": 6, "nightly_rate": 110, "currency": "EUR"}
    assert outcome(rule, "book_hotel", args) == "pending_review"


def test_caps_split_by_place_with_elsewhere_are_not_understood():
    rule = "Meal allowance: up to 60 EUR in Nordic capitals, up to 40 EUR elsewhere."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Payouts require a verified bank account.",
            "send_payout",
            {"bank_account_verified": True, "bank_account": "X1"},
            "approved",
        ),
        (
            "Payouts require a verified bank account.",
            "send_payout",
            {"bank_account_verified": False, "bank_account": "X1"},
            "denied",
        ),
        # no flag: the account is given but nothing shows it is verified
        (
            "Payouts require a verified bank account.",
            "send_payout",
            {"bank_account": "X1"},
            "pending_review",
        ),
        ("Payouts require a verified bank account.", "send_payout", {"amount": 5}, "denied"),
        (
            "Address must be confirmed before shipping orders.",
            "ship_orders",
            {"address_confirmed": True},
            "approved",
        ),
        (
            "Address must be confirmed before shipping orders.",
            "ship_orders",
            {"address_confirmed": False},
            "denied",
        ),
        (
            "Address must be confirmed before shipping orders.",
            "ship_orders",
            {"address": "1 Main St"},
            "pending_review",
        ),
        (
            "Tenants must have a current 12(b) insurance certificate on file.",
            "onboard_tenant",
            {"insurance_certificate_on_file": True},
            "approved",
        ),
        (
            "Tenants must have a current 12(b) insurance certificate on file.",
            "onboard_tenant",
            {"insurance_certificate_on_file": False},
            "denied",
        ),
        (
            "Grants only for projects licensed by the city.",
            "award_grants",
            {"project_licensed": True},
            "approved",
        ),
        (
            "Grants only for projects licensed by the city.",
            "award_grants",
            {"project_licensed": False},
            "denied",
        ),
        (
            "Grants only for projects licensed by the city.",
            "award_grants",
            {"project": "P-1"},
            "pending_review",
        ),
        (
            "Grants only for projects licensed by the city.",
            "award_grants",
            {"project_licensed": "maybe"},
            "pending_review",
        ),
    ],
)
def test_a_state_is_read_from_a_yes_no_argument_named_for_it(rule, tool, args, expected):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # a person's approval is never read from a flag the agent sets
        "Payouts require a manager-approved bank account.",
        "Payouts require a signed contract.",
        # a further qualifier stays unread
        "Address must be confirmed by phone before shipping orders.",
    ],
)
def test_approvals_and_qualified_states_are_not_flags(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert all(c.kind != "state_flag" for c in compiled.checks)


def test_a_flag_for_another_thing_in_the_same_state_does_not_count():
    rule = "Payouts require a verified bank account."
    args = {"bank_account": "X1", "phone_verified": True}
    assert outcome(rule, "send_payout", args) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (
            "No refunds to a card different from the purchase card.",
            {"refund_card": "visa-4242", "purchase_card": "visa-4242", "amount": 5},
            "approved",
        ),
        (
            "No refunds to a card different from the purchase card.",
            {"refund_card": "amex-1111", "purchase_card": "visa-4242", "amount": 5},
            "denied",
        ),
        (
            "The refund currency must match the order currency.",
            {"refund_currency": "eur", "order_currency": "EUR", "amount": 5},
            "approved",
        ),
        (
            "The refund currency must match the order currency.",
            {"refund_currency": "GBP", "order_currency": "EUR", "amount": 5},
            "denied",
        ),
        # one side missing: a human decides
        (
            "The refund currency must match the order currency.",
            {"refund_currency": "GBP", "amount": 5},
            "pending_review",
        ),
    ],
)
def test_two_arguments_that_must_hold_the_same_value(rule, args, expected):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "differs from" in compiled.checks[0].reading()
    assert outcome(rule, "issue_refund", args) == expected


def test_a_relation_with_a_further_condition_stays_partly_understood():
    rule = "No refunds to a card different from the purchase card unless the customer asks."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


def test_a_misspelt_subject_still_names_the_tool():
    rule = "Withdrawls over 1,000 EUR need a compliance officer."
    args = {"amount": 1500, "currency": "EUR"}
    assert outcome(rule, "process_withdrawal", args) == "pending_review"
    # one letter apart is not enough for short words: 'payer' is not 'payee'
    from webapp.judge.request_view import _one_letter_apart

    assert not _one_letter_apart("payer", "payers")
    assert _one_letter_apart("withdrawl", "withdraw")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"candidate": "A. Ng", "background_check": "clear"}, "approved"),
        ({"candidate": "A. Ng"}, "pending_review"),
    ],
)
def test_a_required_check_is_something_done_so_its_absence_is_review(args, expected):
    rule = "Hires need a background check."
    assert outcome(rule, "hire_candidate", args) == expected


SCOPED = "Key rotations in the payments project (proj-4410) must cite a change request."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"project_id": "proj-4410", "change_request": "CR-1"}, "approved"),
        ({"project_id": "proj-4410"}, "denied"),
        ({"project_id": "proj-9000"}, "approved"),
        ({"key_id": "k-1"}, "pending_review"),
    ],
)
def test_an_obligation_scoped_to_a_bracketed_identifier(args, expected):
    compiled = compile_rule(0, "c:r0", SCOPED)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(SCOPED, "rotate_keys", args) == expected


EXCEPT_SMALL = "Every payout must cite an invoice number, except payouts under 25 GBP."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 24.99, "currency": "GBP"}, "approved"),
        ({"amount": 25, "currency": "GBP"}, "denied"),
        ({"amount": 25, "currency": "GBP", "invoice_number": "INV-1"}, "approved"),
        ({"amount": 25, "currency": "EUR"}, "pending_review"),
    ],
)
def test_an_obligation_excepted_below_an_amount(args, expected):
    compiled = compile_rule(0, "c:r0", EXCEPT_SMALL)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(EXCEPT_SMALL, "send_payout", args) == expected


def test_a_cap_excepted_below_an_amount_is_not_trusted():
    rule = "Payouts may not exceed 900 GBP, except payouts under 25 GBP."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


@pytest.mark.parametrize(
    ("rule", "understood"),
    [
        ("Never attach PowerUserAccess to any user, group or role.", True),
        ("Never attach PowerUserAccess to any external user.", False),
    ],
)
def test_a_universal_principal_phrase_restricts_nothing(rule, understood):
    compiled = compile_rule(0, "c:r0", rule)
    assert (compiled.understanding == "understood") is understood, compiled.unaccounted


def test_an_arn_ending_in_another_name_shows_the_deny_list_does_not_apply():
    rule = "Never attach PowerUserAccess to any user, group or role."
    args = {"role_name": "ci", "policy_arn": "arn:aws:iam::aws:policy/ViewOnlyAccess"}
    assert outcome(rule, "attach_role_policy", args) == "approved"
    args["policy_arn"] = "arn:aws:iam::aws:policy/PowerUserAccess"
    assert outcome(rule, "attach_role_policy", args) == "denied"


def test_a_domain_after_a_kind_noun_is_read_from_the_address():
    rule = "Invoices may only be emailed to addresses at north-ledger.io."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "email_invoices", {"to": "ap@north-ledger.io"}) == "approved"
    assert outcome(rule, "email_invoices", {"to": "ap@north-ledger.co"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        (
            "Lounge passes are limited to Silver and Gold members.",
            {"member_tier": "Gold"},
            "approved",
        ),
        (
            "Lounge passes are limited to Silver and Gold members.",
            {"member_tier": "Bronze"},
            "denied",
        ),
        (
            "Payroll exports are restricted to the people team.",
            {"recipient_team": "people"},
            "approved",
        ),
        (
            "Payroll exports are restricted to the people team.",
            {"recipient_team": "sales"},
            "denied",
        ),
        ("Loaner laptops: basic or standard only.", {"laptop_tier": "standard"}, "approved"),
        ("Loaner laptops: basic or standard only.", {"laptop_tier": "pro"}, "denied"),
    ],
)
def test_limited_to_and_a_trailing_only_make_allow_lists(rule, args, expected):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    if "laptops" in rule:
        name = "lend_loaner_laptops"
    else:
        name = "issue_lounge_passes" if "Lounge" in rule else "run_payroll_exports"
    assert outcome(rule, name, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # who acts, and an open category: never a one-item list
        "Payroll exports may only be run by the people team.",
        "Records may only be shared with members of the care team.",
        # an amount it is limited to is a comparison, not a list of names
        "Refunds are limited to the original charge amount.",
    ],
)
def test_a_team_that_acts_or_an_open_team_is_not_a_list(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(getattr(c, "mode", "") == "allow" for c in compiled.checks)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"asset": "ETH", "amount": 20}, "approved"),
        ({"asset": "ETH", "amount": 21}, "denied"),
        # another asset: never compared as if it were ETH
        ({"asset": "BTC", "amount": 1}, "pending_review"),
    ],
)
def test_a_crypto_amount_is_counted_in_its_own_asset(args, expected):
    rule = "Cold storage sweeps: max 20 ETH per sweep."
    assert outcome(rule, "sweep_cold_storage", args) == expected


@pytest.mark.parametrize(
    ("rule", "amount", "expected"),
    [
        ("Swaps: max notional 2m GBP.", 2_000_000, "approved"),
        ("Swaps: max notional 2m GBP.", 2_000_001, "denied"),
        ("Maximum premium: 40k GBP.", 40_001, "denied"),
    ],
)
def test_max_then_the_measured_noun_then_the_number(rule, amount, expected):
    args = {"notional": amount, "premium": amount, "currency": "GBP"}
    assert outcome(rule, "book_swaps", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"pair": "USD/KPW", "notional": 10}, "denied"),
        ({"pair": "KPWUSD", "notional": 10}, "denied"),
        ({"pair": "EUR/USD", "notional": 10}, "approved"),
        ({"notional_ccy": "IRR", "notional": 10}, "denied"),
    ],
)
def test_currencies_named_without_list_punctuation_and_read_from_a_pair(args, expected):
    rule = "Swaps in IRR or KPW are prohibited."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "book_swaps", args) == expected


def test_a_pair_does_not_answer_an_allow_list_of_settlement_currencies():
    rule = "Swaps must settle in EUR or GBP."
    args = {"pair": "EURUSD", "settlement_currency": "GBP", "notional": 10}
    assert outcome(rule, "book_swaps", args) == "approved"


ONLY_FOR = "Standard shipping only for parcels under 20 kg."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"shipping": "standard", "weight_kg": 12}, "approved"),
        ({"shipping": "express", "weight_kg": 12}, "denied"),
        ({"shipping": "express", "weight_kg": 20}, "approved"),
    ],
)
def test_an_allow_list_that_holds_under_an_amount(args, expected):
    compiled = compile_rule(0, "c:r0", ONLY_FOR)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(ONLY_FOR, "ship_parcels", args) == expected


def test_an_allow_list_under_an_amount_with_a_further_condition_is_not_understood():
    rule = "Standard shipping only for parcels under 20 kg unless the customer pays."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("withdrawals", "withdrawal"), ("approvals", "approval"), ("renewals", "renewal")],
)
def test_the_plural_of_a_noun_in_al_has_the_singular_stem(plural, singular):
    from webapp.judge.text import stem

    assert stem(plural) == stem(singular)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"iban": "IR580540105180021273113007", "amount": 10, "currency": "EUR"}, "denied"),
        ({"iban": "SY0000000000000000000000", "amount": 10, "currency": "EUR"}, "denied"),
        ({"iban": "DE89370400440532013000", "amount": 10, "currency": "EUR"}, "approved"),
        ({"beneficiary_country": "Syria", "amount": 10, "currency": "EUR"}, "denied"),
    ],
)
def test_a_country_adjective_is_a_place_and_an_iban_names_its_country(args, expected):
    rule = "Never send payouts to Iranian or Syrian accounts."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert set(compiled.checks[0].values) == {"IR", "SY"}
    assert outcome(rule, "send_payout", args) == expected


def _glossary_outcome(rule: str, tool: str, args: dict, glossary: dict) -> str:
    v = evaluate(
        ClearanceQuery(tool, args, "agent"),
        [_pv("g", [rule], (tool,))],
        StaticHistory.from_dict(None),
        glossary=glossary,
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"country": "North Korea", "client": "A"}, "denied"),
        ({"country": "Norway", "client": "A"}, "approved"),
    ],
)
def test_a_glossary_of_country_codes_reads_country_names(args, expected):
    rule = "Never onboard clients from embargoed jurisdictions."
    glossary = {"embargoed jurisdictions": ["KP", "IR", "SY"]}
    assert _glossary_outcome(rule, "onboard_client", args, glossary) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"holder": "a.okafor", "vault": "V2", "kind": "staff"}, "approved"),
        ({"holder": "z.kim", "vault": "V2", "kind": "staff"}, "denied"),
    ],
)
def test_a_list_named_after_its_holders_binds_to_the_holder_not_the_subject(args, expected):
    rule = "Vault keys only for staff on the key custodian list."
    glossary = {"key custodian list": ["a.okafor", "l.moreau"]}
    assert _glossary_outcome(rule, "issue_vault_keys", args, glossary) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [(18, "approved"), (24, "approved"), (17.5, "denied"), (25, "denied")]
)
def test_must_stay_between_is_a_floor_and_a_cap(value, expected):
    rule = "Cold room setpoint must stay between 18 and 24 °C."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "set_cold_room_setpoint", {"setpoint_c": value}) == expected


def test_between_in_the_subject_is_never_read_as_two_limits_or_a_currency_list():
    rule = "Transfers between 1,000 and 5,000 EUR are forbidden."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood"
    assert not any(getattr(c, "match", "") == "currency" for c in compiled.checks)


def test_only_within_a_bound_is_the_bound():
    rule = "Exchanges only within 30 days of delivery."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "accept_exchanges", {"days_since_delivery": 31}) == "denied"
    assert outcome(rule, "accept_exchanges", {"days_since_delivery": 30}) == "approved"


def test_only_within_a_bound_with_a_further_subject_never_approves_past_the_bound():
    rule = "Exchanges only within 30 days of delivery for members."
    assert outcome(rule, "accept_exchanges", {"days_since_delivery": 31}) != "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"supplier": "Kestrel Ltd", "total": 90000, "currency": "GBP"}, "approved"),
        ({"supplier": "Brightline Services", "total": 90000, "currency": "GBP"}, "denied"),
        ({"supplier": "Brightline Services", "total": 9000, "currency": "GBP"}, "approved"),
    ],
)
def test_a_glossary_list_beyond_an_amount_in_the_subject(args, expected):
    rule = "Contracts above 25,000 GBP may only be signed with approved suppliers."
    glossary = {"approved suppliers": ["Kestrel Ltd", "Ardent plc"]}
    assert _glossary_outcome(rule, "sign_contracts", args, glossary) == expected


def test_an_acronym_of_the_tools_words_names_the_tool():
    rule = "Every SO must reference a customer PO number."
    args = {"customer_po_number": "", "amount": 10}
    assert outcome(rule, "create_sales_order", args) == "denied"
    args = {"customer_po_number": "PO-7", "amount": 10}
    assert outcome(rule, "create_sales_order", args) == "approved"


def test_a_permission_up_to_a_bound_reads_its_verb_but_not_its_qualifiers():
    plain = "Agents may grant up to 20 licences per change; larger changes need IT approval."
    assert compile_rule(0, "c:r0", plain).understanding == "understood"
    qualified = (
        "Agents may grant up to 20 licences per change for Dublin teams; larger changes need IT "
        "approval."
    )
    assert compile_rule(0, "c:r0", qualified).understanding != "understood"


@pytest.mark.parametrize(
    ("noun", "verb"),
    [("prescriptions", "prescribe"), ("subscriptions", "subscribe"), ("descriptions", "describe")],
)
def test_nouns_in_scription_meet_their_verbs(noun, verb):
    from webapp.judge.text import stem

    assert stem(noun) == stem(verb)


def test_a_rule_on_prescriptions_governs_a_prescribe_tool():
    rule = "Prescriptions: supply of at most 28 days."
    assert outcome(rule, "ehr_prescribe", {"drug": "x", "days_supply": 29}) == "denied"
    assert outcome(rule, "ehr_prescribe", {"drug": "x", "days_supply": 28}) == "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"user": "ana", "groups": ["ops", "dba"]}, "pending_review"),
        ({"user": "ana", "groups": ["ops", "web"]}, "approved"),
    ],
)
def test_members_of_a_named_group_and_a_quorum_that_is_not_an_amount(args, expected):
    rule = "Tokens for members of the dba group need approval from two security reviewers."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.required_approvals == 2
    assert outcome(rule, "issue_tokens", args) == expected


def test_only_with_members_of_a_team_stays_an_open_class():
    rule = "Case files may only be shared with members of the legal team."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood"


def test_names_under_one_path_are_not_near_each_other():
    from webapp.judge.vocabulary import near

    assert not near("roles/viewer", ("roles/owner", "roles/editor"))
    assert near("roles/owner-lite", ("roles/owner",))


def test_manual_as_an_adjective_of_the_subject_is_not_a_review():
    rule = "Manual stock adjustments require a count sheet reference."
    compiled = compile_rule(0, "c:r0", rule)
    assert [c.effect for c in compiled.checks] == ["deny"]
    assert compile_rule(0, "c:r0", "Stock adjustments need manual review.").checks[0].effect == (
        "review"
    )


@pytest.mark.parametrize(("chain", "expected"), [("polygon", "approved"), ("tron", "denied")])
def test_an_allow_list_of_names_followed_by_their_kind(chain, expected):
    rule = "Wallets may only be created on the Polygon or Base networks."
    assert outcome(rule, "create_wallets", {"network": chain}) == expected


@pytest.mark.parametrize(("status", "expected"), [("pending", "denied"), ("approved", "approved")])
def test_whose_state_is_still_x(status, expected):
    rule = "No payouts to sellers whose verification is still pending."
    assert outcome(rule, "send_payouts", {"seller": "s1", "verification_status": status}) == (
        expected
    )


def test_a_closing_participle_points_back_at_the_required_argument():
    rule = "Change requests must list the systems affected."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "file_change_requests", {"systems": ["crm"]}) == "approved"
    assert outcome(rule, "file_change_requests", {"systems": []}) == "denied"


@pytest.mark.parametrize(("dose", "expected"), [(150, "approved"), (151, "denied")])
def test_a_rate_argument_is_in_the_unit_before_per_never_a_duration(dose, expected):
    rule = "Never exceed 150mg/day."
    assert outcome(rule, "set_dose", {"patient": "p1", "dose_mg_per_day": dose}) == expected
    from webapp.judge.request_view import _path_stems

    assert _path_stems("dose_mg_per_day")[2] == ("mass", 1e-6)
    assert _path_stems("cap_per_day")[2] is None


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"seller": "s1", "kyc_passed": True}, "approved"),
        ({"seller": "s1", "kyc_check": False}, "denied"),
        ({"seller": "s1", "fraud_check": True}, "pending_review"),
        ({"seller": "s1"}, "pending_review"),
    ],
)
def test_a_check_to_pass_is_read_from_a_flag_named_for_it(args, expected):
    rule = "Payouts require the seller to pass a KYC check."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "send_payouts", args) == expected


def test_an_acronym_of_the_check_names_its_flag():
    rule = "Card resets require the customer to pass a one-time passcode check."
    assert outcome(rule, "reset_cards", {"otp_verified": True}) == "approved"
    assert outcome(rule, "reset_cards", {"otp_verified": False}) == "denied"


def test_a_check_to_pass_with_a_further_qualifier_is_not_understood():
    rule = "Payouts require the seller to pass a KYC check every year."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"order_id": "O1", "clearance": True, "condition": "damaged"}, "approved"),
        ({"order_id": "O1", "clearance": True, "condition": "worn"}, "denied"),
        ({"order_id": "O1", "clearance": False, "condition": "worn"}, "approved"),
        ({"order_id": "O1", "clearance": True}, "pending_review"),
    ],
)
def test_an_exception_on_the_subjects_own_state(args, expected):
    rule = "Clearance items can't be returned except when they arrive damaged."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "except when they arrive damaged" in compiled.checks[0].reading()
    assert outcome(rule, "accept_return", args) == expected


def test_a_hyphenated_qualifier_opening_a_rule_is_not_a_literal_value():
    rule = "Final-sale items can't be exchanged."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.checks[0].kind == "action"
    assert outcome(rule, "exchange_item", {"final_sale": True}) == "denied"
    assert outcome(rule, "exchange_item", {"final_sale": False}) == "approved"


def test_final_is_not_fine():
    from webapp.judge.text import stem

    assert stem("final") != stem("fine")


def test_a_permission_that_drops_its_amount_is_not_understood():
    rule = "Refunds of 500 EUR are fine."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    assert outcome(rule, "issue_refund", {"amount": 90000, "currency": "EUR"}) != "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Never pay vendors on the sanctions list.",
        "No purchases from suppliers on the debarred list.",
        "Never onboard clients on the PEP watch list.",
    ],
)
def test_a_screening_list_is_never_read_from_the_requests_own_flag(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding != "understood"
    assert outcome(rule, "pay_vendors", {"vendor": "v", "sanctioned": False}) != "approved"


def test_two_numbers_that_must_match_compare_as_numbers():
    rule = "The refund amount must match the charge amount."
    assert outcome(rule, "issue_refund", {"refund_amount": 100, "charge_amount": 100.0}) == (
        "approved"
    )
    assert outcome(rule, "issue_refund", {"refund_amount": 100, "charge_amount": 99}) == "denied"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"voucher": "V1", "points_redeemed": 40}, "denied"),
        ({"voucher": "V1", "points_redeemed": 0}, "approved"),
        # a number in a field not named for the state is a code: review
        ({"voucher": "V1", "status": 2}, "pending_review"),
    ],
)
def test_a_finished_state_read_from_a_count_named_for_it(args, expected):
    rule = "Never refund points that have already been redeemed."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "when they have already been redeemed" in compiled.checks[0].reading()
    assert outcome(rule, "refund_points", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"fields": ["name", "bank_account"]}, "denied"),
        ({"fields": ["name", "email"]}, "approved"),
        ({"fields": "name,bank_accounts"}, "pending_review"),
        ({"table": "users"}, "pending_review"),
    ],
)
def test_content_that_no_list_argument_may_carry(args, expected):
    rule = "Never include bank accounts in a mailing export."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "run_mailing_export", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"supplier": "S", "country": "Portugal"}, "approved"),
        ({"supplier": "S", "country": "Cayman Islands", "country_code": "KY"}, "pending_review"),
    ],
)
def test_a_glossary_of_iso_codes_the_table_lacks_still_reads_country_arguments(args, expected):
    rule = "Suppliers from offshore jurisdictions must go through enhanced due diligence review."
    glossary = {"offshore jurisdictions": ["KY", "VG", "PA"]}
    assert _glossary_outcome(rule, "onboard_supplier", args, glossary) == expected


def test_an_allow_list_glossary_reads_the_argument_named_like_its_kind():
    rule = "Roles may be assumed only from partner accounts."
    glossary = {"partner accounts": ["111122223333", "444455556666"]}
    args = {
        "role_arn": "arn:aws:iam::999999999999:role/Reader",
        "source_account_id": "444455556666",
    }
    assert _glossary_outcome(rule, "assume_roles", args, glossary) == "approved"
    args["source_account_id"] = "555555555555"
    assert _glossary_outcome(rule, "assume_roles", args, glossary) == "denied"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"bank": {"iban": "PT50000201231234567890154"}}, "approved"),
        ({"bank": {"sort": "1"}}, "denied"),
    ],
)
def test_a_value_that_must_be_given_as_a_form_is_a_required_argument(args, expected):
    rule = "Bank details must be given as an IBAN."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome(rule, "update_bank_details", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"student_age": 12, "parental_consent": False}, "denied"),
        ({"student_age": 12, "parental_consent": True}, "approved"),
        ({"student_age": 15, "parental_consent": False}, "approved"),
    ],
)
def test_people_under_an_age_and_a_consent_they_need(args, expected):
    rule = "Do not enrol students under 13 without a parent's consent."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.checks[0].reading().startswith("When the age is below 13")
    assert outcome(rule, "enrol_students", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"method": "store_credit", "order_total": 80, "currency": "EUR"}, "denied"),
        ({"method": "store_credit", "order_total": 12, "currency": "EUR"}, "approved"),
    ],
)
def test_except_for_and_a_bound_on_another_noun(args, expected):
    rule = "No refunds to store credit except for orders under 15 EUR."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "issue_refund", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"account_id": "555500001111", "user": "u"}, "denied"),
        ({"account_id": "treasury-prod", "user": "u"}, "denied"),
        ({"account_id": "777700002222", "user": "u"}, "approved"),
    ],
)
def test_a_freeze_on_a_name_and_its_alias_restated_after_a_colon(args, expected):
    rule = "Account 555500001111 (treasury-prod) is under change freeze: no IAM or network changes."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert set(compiled.checks[0].values) == {"555500001111", "treasury-prod"}
    assert outcome(rule, "attach_user_policy", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"recipients": ["a@x.org"], "include_bank_accounts": True}, "denied"),
        ({"recipients": ["a@x.org"], "include_bank_accounts": False}, "approved"),
        ({"fields": ["name"], "bank_accounts": "masked"}, "pending_review"),
    ],
)
def test_content_named_by_a_flag_argument_counts(args, expected):
    rule = "Never include bank accounts in a mailing export."
    assert outcome(rule, "run_mailing_export", args) == expected


PREFIXED = "No more than 20 monitors (SKU prefix MON-) on a single order."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"lines": [{"sku": "MON-27", "quantity": 12}, {"sku": "MON-32", "quantity": 8}]},
            "approved",
        ),
        (
            {"lines": [{"sku": "MON-27", "quantity": 12}, {"sku": "mon-32", "quantity": 9}]},
            "denied",
        ),
        ({"lines": [{"sku": "KBD-1", "quantity": 90}]}, "approved"),
        ({"lines": [{"sku": "MON-27"}]}, "pending_review"),
        ({"total": 300}, "pending_review"),
    ],
)
def test_a_cap_on_the_items_a_prefix_picks(args, expected):
    compiled = compile_rule(0, "c:r0", PREFIXED)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(PREFIXED, "create_order", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"active_loans": 1, "written_confirmation": True}, "approved"),
        ({"active_loans": 1, "written_confirmation": False}, "denied"),
        # another thing confirmed in writing is not the member's consent
        ({"active_loans": 1, "payment_confirmed": True}, "pending_review"),
        ({"active_loans": 0}, "approved"),
    ],
)
def test_unless_confirmed_in_writing_reads_a_flag_named_for_it(args, expected):
    rule = "Do not close memberships with active loans unless the member has confirmed in writing."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "close_membership", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"role_arn": "arn:aws:iam::1:role/OpsBreakGlass", "mfa": False}, "denied"),
        ({"role_arn": "arn:aws:iam::1:role/OpsBreakGlass", "mfa": True}, "approved"),
        ({"role_arn": "arn:aws:iam::1:role/ReadOnly", "mfa": False}, "approved"),
    ],
)
def test_an_obligation_for_names_starting_with_a_prefix(args, expected):
    rule = "MFA is required when assuming any role whose name starts with Ops."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "starts with Ops" in compiled.checks[0].reading()
    assert outcome(rule, "assume_role", args) == expected


def test_a_name_prefix_obligation_with_a_further_condition_is_not_understood():
    rule = "MFA is required when assuming any role whose name starts with Ops, unless approved."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


WINDOW = "Do not evict tenants between Dec 15 and Jan 10."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"tenant": "t1", "scheduled_date": "2026-12-20"}, "denied"),
        ({"tenant": "t1", "scheduled_date": "2027-01-05T09:00:00Z"}, "denied"),
        ({"tenant": "t1", "scheduled_date": "2026-11-20"}, "approved"),
        # no date of the action: review, never a guess
        ({"tenant": "t1"}, "pending_review"),
        # a birth date says nothing of when the eviction happens
        ({"tenant": "t1", "date_of_birth": "1980-03-01"}, "pending_review"),
        # two dates that disagree about the window
        ({"tenant": "t1", "start_date": "2026-12-20", "end_date": "2027-02-01"}, "pending_review"),
    ],
)
def test_a_prohibition_between_two_calendar_dates(args, expected):
    compiled = compile_rule(0, "c:r0", WINDOW)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(WINDOW, "evict_tenants", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"gift_amount": 1000, "currency": "USD", "ytd_matched_usd": 3000}, "approved"),
        ({"gift_amount": 1000, "currency": "USD", "ytd_matched_usd": 3500}, "denied"),
        # a count of gifts so far is not the year's total
        ({"gift_amount": 1000, "currency": "USD", "ytd_gift_count": 3}, "pending_review"),
        ({"gift_amount": 1000, "currency": "USD"}, "pending_review"),
    ],
)
def test_a_yearly_cap_reads_the_year_to_date_total_the_request_states(args, expected):
    rule = "Matched gifts are capped at $4,000 per employee per calendar year."
    assert outcome(rule, "match_employee_gift", args) == expected


SPLIT = "Per diem: up to 70 EUR in France or Italy, up to 50 EUR elsewhere."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"country": "FR", "per_diem": 65, "currency": "EUR"}, "approved"),
        ({"country": "FR", "per_diem": 75, "currency": "EUR"}, "denied"),
        ({"country": "DE", "per_diem": 55, "currency": "EUR"}, "denied"),
        ({"country": "DE", "per_diem": 45, "currency": "EUR"}, "approved"),
        # the place is not shown: above the lower cap a human decides
        ({"per_diem": 55, "currency": "EUR"}, "pending_review"),
    ],
)
def test_one_cap_in_named_places_and_another_elsewhere(args, expected):
    compiled = compile_rule(0, "c:r0", SPLIT)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(SPLIT, "claim_per_diem", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"grantee": "G", "program_area": "lobbying"}, "denied"),
        ({"grantee": "G", "program_area": "political campaign"}, "denied"),
        # a campaign not shown to be political: a human decides, never a guessed denial
        ({"grantee": "G", "program_area": "literacy campaign"}, "pending_review"),
    ],
)
def test_an_adjective_belongs_to_the_first_noun_of_an_or_list(args, expected):
    rule = "We don't fund political campaigns or lobbying."
    assert outcome(rule, "fund_grant", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"member": "user:kim@corp-example.com", "roles": ["roles/logging.viewer"]}, "approved"),
        ({"member": "user:kim@gmail.com", "roles": ["roles/logging.viewer"]}, "denied"),
    ],
)
def test_a_dotted_name_that_is_no_host_is_not_read_by_a_domain_list(args, expected):
    rule = "Roles may only be granted to principals in the corp-example.com domain."
    assert outcome(rule, "grant_roles", args) == expected
