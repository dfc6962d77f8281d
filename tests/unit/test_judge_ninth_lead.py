"""The lead's readings of the ninth session.

A money bound with no currency ('reserve increases > 50k -> claims manager approval') in a policy
whose text names one currency and no other ('US book. All amounts USD.') is in that currency; a
request in another currency, or a policy that names several or says amounts come in several, is
still compared by a human (issue #10, 'units').
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome, outcome_beside_ticket, policy
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import compiled_for, evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.quantities import single_currency
from webapp.judge.types import ClearanceQuery

CAP = "reserve increases > 50k -> claims manager approval"


def _status(description: str, rules: list[str], args: dict) -> str:
    return outcome(rules, "claims.reserve.adjust", args, description)


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("US book. All amounts USD.", "USD"),
        ("Card chargebacks (amounts in USD).", "USD"),
        ("Refunds over $500 need a manager. max 2,000 per refund", "USD"),
        ("Payouts in EUR only. Cap 10k.", "EUR"),
        ("Payouts over €500 need review; payouts above 1,000 euros are blocked", "EUR"),
        ("AP pays vendors in USD, EUR and GBP.", None),
        ("Refunds over $500 need a manager; EUR refunds go to the EU desk", None),
        ("limits are in the account currency, we run GBP accounts", None),
        ("Any currency; amounts are converted at the daily rate", None),
        ("Transfers must not exceed 2,000", None),
        ("Parcels over 5 pounds need a courier", None),  # a weight, not sterling
        ("Try again later; cup sizes apply", None),  # words, not TRY or CUP
        ("Limit 5 BTC per withdrawal", None),  # a crypto asset is its own unit
    ],
)
def test_the_one_currency_a_policy_names(text, currency):
    assert single_currency(text) == currency


def test_a_bound_without_currency_takes_the_policy_currency_and_says_so():
    cp = compiled_for(policy([CAP], "US book. All amounts USD."))
    (check,) = cp.rules[0].checks
    assert check.currency == "USD"
    assert "50,000 USD (the policy's currency)" in check.reading()


@pytest.mark.parametrize(
    ("description", "args", "expected"),
    [
        # exactly 50k is not over 50k, in the policy's currency: the rule does not ask for review
        ("US book. All amounts USD.", {"amount": 50000, "currency": "USD"}, "approved"),
        ("US book. All amounts USD.", {"amount": 50001, "currency": "USD"}, "pending_review"),
        # another currency than the policy's: a human compares
        ("US book. All amounts USD.", {"amount": 100, "currency": "EUR"}, "pending_review"),
        # a policy that names no currency, or several: a human compares
        ("Claims reserves.", {"amount": 100, "currency": "USD"}, "pending_review"),
        ("Books in USD and CAD.", {"amount": 100, "currency": "USD"}, "pending_review"),
    ],
)
def test_the_cap_is_compared_only_in_the_policy_currency(description, args, expected):
    assert _status(description, [CAP], args) == expected


@given(
    currency=st.sampled_from(["EUR", "GBP", "JPY", "CHF", "CAD"]),
    amount=st.integers(min_value=1, max_value=49_999),
)
def test_a_request_in_another_currency_never_passes_a_policy_currency_cap(currency, amount):
    # under the bound in number, but in a currency the policy does not name: never approved
    args = {"amount": amount, "currency": currency}
    assert _status("US book. All amounts USD.", [CAP], args) == "pending_review"


# Merge interactions found after the helpers' branches met (each branch passed alone).


@pytest.mark.parametrize(
    ("columns", "expected"),
    [(["visit_id", "diagnosis"], "denied"), (["visit_id", "clinic"], "approved")],
)
def test_what_a_thing_includes_is_not_a_state_it_is_in(columns, expected):
    # jcond's states after a relative ('accounts that are in collections or …') had taken
    # 'extracts that include diagnosis or medication columns' for two states (review always);
    # the columns are jfield's field list
    rule = "Do not share extracts that include diagnosis or medication columns."
    args = {"extract": "q2", "columns": columns}
    assert outcome_beside_ticket(rule, "warehouse.share_extract", args) == expected


@pytest.mark.parametrize(("role", "expected"), [("Admin", "denied"), ("Viewer", "approved")])
def test_a_where_binding_keeps_its_own_reading(role, expected):
    # jevid reads 'Where <condition>, …' as 'If …'; a binding in notation after 'Where' is
    # jfield's allow-list under a bound value, which reads its own 'Where'
    rule = "Where account_kind = guest, the only permitted roles are Viewer and Guest Commenter."
    args = {"account_kind": "guest", "role": role}
    assert outcome_beside_ticket(rule, "wiki.grant_role", args) == expected


def test_sparing_the_review_above_a_bound_is_not_a_grant():
    # jauto's 'no review needed' permission met jnote's arrows: 'amount > 500 -> no review
    # needed' approved 600; sparing the review of the large ones stays unread
    rule = "amount > 500 -> no review needed"
    assert not compile_rule(0, "c:r0", rule).decides
    args = {"amount": 600}
    assert outcome_beside_ticket(rule, "payments.charge", args) == "pending_review"


# Classes closed after the lead looked at the blind sets' unsafe approvals and false denials.


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Inviting users from a domain not on our allowlist (northwind.com, northwind.co.uk) "
            "needs IT approval.",
            "admin_user_invite",
            {"email": "sam@northwind.de"},
            "pending_review",
        ),
        (
            "Inviting users from a domain not on our allowlist (northwind.com, northwind.co.uk) "
            "needs IT approval.",
            "admin_user_invite",
            {"email": "sam@northwind.com"},
            "approved",
        ),
        (
            "Payments to countries not in (US, CA) are forbidden.",
            "payments.send",
            {"country": "MX", "amount": 5},
            "denied",
        ),
        (
            "Payments to countries not on the approved list (US, CA) are forbidden.",
            "payments.send",
            {"country": "CA", "amount": 5},
            "approved",
        ),
    ],
)
def test_values_not_on_a_list_are_the_ones_it_speaks_of(rule, tool, args, expected):
    # 'not on our allowlist (…)' had been read as the list itself: the listed domains went to
    # review and every other domain was approved
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"dataset": "events", "expires_at": "2025-06-30"}, "approved"), ({"dataset": "e"}, "denied")],
)
def test_an_expiry_is_met_by_an_argument_named_for_expiring(args, expected):
    rule = "Every access grant must have an expiry."
    assert outcome_beside_ticket(rule, "dataset_access_grant", args) == expected


@given(earlier=st.integers(min_value=0, max_value=5))
def test_a_count_of_earlier_things_gets_this_request_added(earlier):
    # `credits_last_30_days: 1` under 'more than one … within any rolling 30-day period': this
    # credit is the second; compared alone it had passed
    rule = "No customer may receive more than one goodwill credit within any rolling 30-day period."
    args = {"customer_id": "C-1", "amount": 20, "currency": "USD", "credits_last_30_days": earlier}
    got = outcome_beside_ticket(rule, "support_issue_credit", args)
    assert got != "approved" if earlier >= 1 else got == "approved"


@pytest.mark.parametrize(
    ("description", "tool", "governs"),
    [
        # 'salary and allowance changes': either word puts the request in scope
        (
            "Applies to salary and allowance changes posted to Workday by automation.",
            "workday_update_base_salary",
            True,
        ),
        (
            "Applies to salary and allowance changes posted to Workday by automation.",
            "workday_update_allowance",
            True,
        ),
        ("Applies to production deploys only.", "deploy_service", False),
    ],
)
def test_scope_words_joined_by_and_are_alternatives(description, tool, governs):
    args = {"employee_id": "E1", "environment": "staging", "new_base": 10}
    pv = policy(["Every request must include a ticket_id."], description)
    v = evaluate(
        ClearanceQuery(tool, {**args, "ticket_id": "T"}, "a"), [pv], StaticHistory.from_dict(None)
    )
    assert (v.reason_code != "no_matching_policy") is governs


@pytest.mark.parametrize(
    "rule",
    [
        # a gloss after a listed name is not the list
        "Recipient must be one of: Mercer, Aon, Vitality Health, Legal & General (pensions).",
        "Recipient must be one of: Mercer, Aon (pensions), Vitality Health.",
        # the names after the colon are the list, not the adjective before it
        "Only panel firms may be paid: Clifford Chance, Linklaters, Eversheds Sutherland.",
        # a list must be held out of the send: a deny-list of it does not check that
        "Every promotional send must exclude the global_unsubscribe list.",
    ],
)
def test_lists_misread_as_another_list_never_decide(rule):
    assert not compile_rule(0, "c:r0", rule).decides


def test_a_listed_value_held_out_of_the_act_is_no_sign_of_it():
    rule = "These lists must never be included in a promotional send: vulnerable-customers, bereavement."
    held_out = {"include_lists": ["spring"], "exclude_lists": ["vulnerable-customers"]}
    assert outcome_beside_ticket(rule, "comms_send_campaign", held_out) != "denied"
    included = {"include_lists": ["vulnerable-customers"], "exclude_lists": []}
    assert outcome_beside_ticket(rule, "comms_send_campaign", included) == "denied"


@pytest.mark.parametrize(
    ("plan", "expected"),
    [("partner_pro", "pending_review"), ("reseller", "pending_review"), ("standard", "approved")],
)
def test_kinds_of_plan_named_by_words_are_open_classes(plan, expected):
    # no vocabulary says whether partner_pro is a reseller plan: a human decides (it had been
    # approved, the words not shown). Since jwhose the rule is read on the customer's `plan`
    # (PartyState): a plan made only of plain plan words ('standard') is plainly another; the
    # plan the rule names, beside a tool whose act ('issue') is not the rule's ('given'), is
    # for a human.
    rule = "Goodwill credits must not be given to customers on a reseller or wholesale plan."
    assert compile_rule(0, "c:r0", rule).decides
    args = {"plan": plan, "amount": 10, "currency": "GBP"}
    assert outcome_beside_ticket(rule, "support_issue_credit", args) == expected


def test_earlier_things_of_another_kind_are_not_this_request():
    # the unlock is no failed login: 3 failed logins are not 'more than 3'
    rule = "Accounts with more than 3 failed logins may not be unlocked by an agent."
    args = {"account_id": "A-1", "failed_logins_last_hour": 3}
    assert outcome_beside_ticket(rule, "account_unlock", args) != "denied"


def test_an_argument_name_after_with_a_is_not_a_value():
    # holdout_22: 'only with a dpia_ref' had been "Deny unless an argument is dpia_ref", which
    # denied every export (no argument holds the text 'dpia_ref')
    rule = "Bulk exports of customer records: up to 10 000 rows per job. Above that only with a dpia_ref."
    assert not compile_rule(0, "c:r0", rule).decides
    args = {"row_count": 10_000, "fields": ["customer_id"]}
    assert outcome_beside_ticket(rule, "customer_bulk_export", args) != "denied"


@pytest.mark.parametrize("replicas", [0, 3])
def test_a_number_written_as_a_word_in_the_act_is_not_passed_by(replicas):
    # holdout_23: 'to zero replicas' read as words the request must show; `replicas: 0` does not
    # spell 'zero', so scaling production to zero was approved
    rule = "Do not scale any production deployment to zero replicas."
    assert not compile_rule(0, "c:r0", rule).decides
    args = {"cluster": "prod-eu-1", "deployment": "web", "replicas": replicas}
    assert outcome_beside_ticket(rule, "k8s.scale_deployment", args) == "pending_review"


def test_no_one_is_nobody_not_a_number():
    assert compile_rule(0, "c:r0", "No one may export customer PII.").decides
