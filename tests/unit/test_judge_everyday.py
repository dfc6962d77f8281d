"""Everyday rules written by different hands (seventh session, helper jtext2).

The rules an agent gateway governs most (refunds, payouts, credits, SaaS administration, exports,
deploys) are written as bullets, arrows, signs and people: 'Refunds >= 500 EUR need a manager',
'refunds >500 EUR -> manager', 'Finance must approve payouts over 2,000 EUR', 'Discounts above
15%: the sales director decides', 'Wires above 50k are held for treasury review'. Each stage that
failed them is fixed where it fails, and tested here on phrasings of other domains than the ones
the development cases (`bench/judge_cases/dev_12.json`) use:

- comparison signs are phrases of the boundary table ('>=' had been read as 'above': the bound
  itself was left out of a review);
- an arrow is the verb it points with ('-> manager' needs a manager, '-> blocked' refuses);
- a person who approves, decides, or holds the request, written first or last, is a review;
- a listed value that starts a longer value before a separator ('p5' in 'p5.48xlarge') is close,
  never 'not listed'; a name held by an id field against a glossary of ids is unknown;
- what these readings now read in full must not hide an unread part: a second kind joined to a
  glossary category by 'or', and 'during …', stay unaccounted (hypothesis properties below).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import CATEGORY_NOUNS, CATEGORY_QUALIFIERS, assert_never_decides
from tests.unit.test_judge_fourth_round import outcome
from tests.unit.test_judge_gates import outcome as outcome_with
from webapp.judge.compiler import compile_rule
from webapp.judge.vocabulary import Glossary


def _compiled(rule: str, glossary: dict | None = None):
    return compile_rule(0, "c0", rule, Glossary.of(glossary) if glossary else None)


# ---- comparison signs are phrases of the boundary table ----
@pytest.mark.parametrize(
    ("rule", "tool", "key", "at", "above", "below"),
    [
        # sign, then the outcome exactly at the bound, above it and below it
        ("Seat purchases >= 20 seats need IT approval.", "buy_seats", "seats", "pending_review",
         "pending_review", "approved"),
        ("Seat purchases ≥ 20 seats need IT approval.", "buy_seats", "seats", "pending_review",
         "pending_review", "approved"),
        ("Seat purchases > 20 seats need IT approval.", "buy_seats", "seats", "approved",
         "pending_review", "approved"),
        ("Export jobs must be <= 5000 rows.", "export_rows", "rows", "approved", "denied",
         "approved"),
        ("Export jobs must be ≤ 5000 rows.", "export_rows", "rows", "approved", "denied",
         "approved"),
        ("Export jobs must be < 5000 rows.", "export_rows", "rows", "denied", "denied",
         "approved"),
    ],
)  # fmt: skip
def test_a_comparison_sign_reads_as_its_boundary_phrase(rule, tool, key, at, above, below):
    bound = 20 if "20" in rule else 5000
    assert _compiled(rule).understanding == "understood"
    assert outcome(rule, tool, {key: bound}) == at
    assert outcome(rule, tool, {key: bound + 1}) == above
    assert outcome(rule, tool, {key: bound - 1}) == below


def test_an_inclusive_sign_in_a_money_rule_sends_the_bound_itself_to_review():
    rule = "Chargeback write-offs >= 250 GBP need a finance lead."
    args = {"case_id": "CB-1", "amount": 250, "currency": "GBP"}
    assert outcome(rule, "write_off_chargeback", args) == "pending_review"
    assert outcome(rule, "write_off_chargeback", {**args, "amount": 249.99}) == "approved"


# ---- arrows ----
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        ("Payroll corrections > 300 GBP -> payroll manager", "correct_payroll",
         {"amount": 400, "currency": "GBP"}, "pending_review"),
        ("Payroll corrections > 300 GBP -> payroll manager", "correct_payroll",
         {"amount": 200, "currency": "GBP"}, "approved"),
        ("Exports of >1,000 rows → need DPO approval.", "export_table", {"rows": 5000},
         "pending_review"),
        ("Exports of >1,000 rows → need DPO approval.", "export_table", {"rows": 50}, "approved"),
        ("Bulk user deletes of > 50 users -> blocked", "bulk_delete_users", {"users": 80},
         "denied"),
        ("Bulk user deletes of > 50 users -> blocked", "bulk_delete_users", {"users": 8},
         "approved"),
        ("Quota raises over 100 vCPUs => cloud team", "raise_quota", {"vcpus": 400},
         "pending_review"),
    ],
)  # fmt: skip
def test_an_arrow_is_the_verb_it_points_with(rule, tool, args, expected):
    assert _compiled(rule).understanding == "understood", _compiled(rule).unaccounted
    assert outcome(rule, tool, args) == expected


# ---- a person who approves, decides or holds the request ----
@pytest.mark.parametrize(
    "rule",
    [
        "Finance must approve vendor credits over 2,000 EUR.",
        "Only a controller can approve vendor credits over 2,000 EUR.",
        "Vendor credits over 2,000 EUR: the finance director decides.",
        "Vendor credits over 2,000 EUR are held for treasury review.",
        "Vendor credits over 2,000 EUR are subject to controller approval.",
        "Vendor credits over 2,000 EUR need finance lead.",
        "Vendor credits over 2,000 EUR need a second approver.",
        "Vendor credits over 2,000 EUR require two admins to confirm.",
    ],
)
def test_a_person_who_decides_is_a_review_above_the_bound(rule):
    compiled = _compiled(rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    args = {"vendor_id": "V-1", "amount": 2500, "currency": "EUR"}
    assert outcome(rule, "issue_vendor_credit", args) == "pending_review"
    assert outcome(rule, "issue_vendor_credit", {**args, "amount": 2000}) == "approved"


def test_another_approver_counts_as_a_second_approval():
    assert (
        _compiled("Vendor credits over 2,000 EUR need a second approver.").required_approvals == 2
    )
    assert _compiled("Tenant deletions require two admins to confirm.").required_approvals == 2


def test_a_person_who_may_approve_grants_nothing_by_that_sentence():
    # 'a manager may approve …' states who may, it asks for nothing: not rewritten into a review
    compiled = _compiled("A manager may approve vendor credits over 2,000 EUR.")
    assert not any(c.effect == "review" for c in compiled.checks)


def test_a_role_word_that_names_a_thing_is_still_a_thing():
    # 'needs finance code': the role word does not end its noun phrase, so it is a required value
    compiled = _compiled("Every purchase order needs finance code.")
    assert not any(c.effect == "review" for c in compiled.checks)


# ---- listed values and their families; ids against names ----
def test_a_listed_family_prefix_is_close_never_not_listed():
    rule = "Never launch instance types p5 or g5."
    assert outcome(rule, "launch_instances", {"instance_type": "p5"}) == "denied"
    assert outcome(rule, "launch_instances", {"instance_type": "g5.xlarge"}) == "pending_review"
    assert outcome(rule, "launch_instances", {"instance_type": "t3.micro"}) == "approved"
    assert outcome(rule, "launch_instances", {"instance_type": "p50x"}) == "approved"


VENDORS = {"blocked vendors": ["VND-1001", "VND-2040"]}
BLOCKED = "Payments to blocked vendors are held for AP review."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"vendor_id": "VND-1001", "amount": 5}, "pending_review"),  # listed
        ({"vendor_id": "VND-5150", "amount": 5}, "approved"),  # another id of the shape
        ({"vendor_id": "VND-1002", "amount": 5}, "pending_review"),  # one character off
        ({"vendor_id": "Acme Supplies", "amount": 5}, "pending_review"),  # a name, not an id
        ({"vendor": "Acme Supplies", "amount": 5}, "pending_review"),  # the thing's own noun
        ({"vendor_id": "VND-5150", "vendor_country": "US", "amount": 5}, "approved"),
    ],
)
def test_a_glossary_of_ids_compares_ids(args, expected):
    assert _compiled(BLOCKED, VENDORS).understanding == "understood"
    assert outcome_with(BLOCKED, "pay_vendor", args, VENDORS) == expected


# ---- what the new readings must not hide ----
def test_a_second_kind_joined_to_a_category_stays_unaccounted():
    rule = "Payments to blocked vendors or to new vendors are held for AP review."
    compiled = _compiled(rule, VENDORS)
    assert not compiled.decides
    assert outcome_with(rule, "pay_vendor", {"vendor_id": "VND-5150", "amount": 5}, VENDORS) == (
        "pending_review"
    )


def test_a_time_the_act_happens_in_stays_unaccounted():
    compiled = _compiled("Failovers during trading hours need the SRE lead's approval.")
    assert not compiled.decides
    assert any("during" in w for w in compiled.unaccounted)


# ---- the understanding invariant over the new shapes (hypothesis) ----
NEW_SHAPES = [
    "Seat purchases >= 20 seats need IT approval.",
    "Export jobs must be ≤ 5000 rows.",
    "Payroll corrections > 300 GBP -> payroll manager",
    "Bulk user deletes of > 50 users -> blocked",
    "Finance must approve vendor credits over 2,000 EUR.",
    "Vendor credits over 2,000 EUR: the finance director decides.",
    "Vendor credits over 2,000 EUR are held for treasury review.",
    "Vendor credits over 2,000 EUR are subject to controller approval.",
    "Vendor credits over 2,000 EUR need finance lead.",
]
MARKERS = ["unless", "only if", "when", "except when", "provided that", "while", "during"]
WORDS = st.sampled_from("zorblat frobbed quarter escrow tenant audit holiday minor".split())


@pytest.mark.parametrize("rule", NEW_SHAPES)
def test_the_new_shapes_are_understood(rule):
    compiled = _compiled(rule)
    assert compiled.understanding == "understood", compiled.unaccounted


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(NEW_SHAPES),
    marker=st.sampled_from(MARKERS),
    clause=st.lists(WORDS, min_size=1, max_size=3),
)
def test_an_inserted_condition_leaves_a_new_shape_partly_understood(rule, marker, clause):
    tail = f"the {' '.join(clause)}" + ("" if marker == "during" else " is frobbed")
    text = f"{rule.rstrip('.')} {marker} {tail}."
    assert_never_decides(text)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(NEW_SHAPES),
    qualifier=st.sampled_from(CATEGORY_QUALIFIERS),
    noun=st.sampled_from(CATEGORY_NOUNS),
)
def test_an_inserted_category_leaves_a_new_shape_partly_understood(rule, qualifier, noun):
    assert_never_decides(f"{rule.rstrip('.')} for {qualifier} {noun}.")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(NEW_SHAPES),
    qualifier=st.sampled_from(["privileged", "sanctioned", "high-risk", "external", "personal"]),
)
def test_an_inserted_qualifier_of_the_subject_leaves_a_new_shape_partly_understood(rule, qualifier):
    # the qualifier goes right before the rule's first noun ('Finance must approve vendor
    # credits' -> '… approve external vendor credits')
    for noun in ("Seat", "Export", "Payroll", "Bulk", "vendor credits", "Vendor credits"):
        if noun in rule:
            text = rule.replace(noun, f"{qualifier} {noun.lower()}", 1)
            break
    assert_never_decides(text)


# ---- clause splitting: a label given to the subject ----
@pytest.mark.parametrize(
    "rule",
    [
        "Invoice disputes over 5,000 USD = escalations; need a collections manager.",
        "Tenant refunds above 2,000 EUR = large refunds; require finance director sign-off.",
    ],
)
def test_a_label_given_to_the_subject_carries_the_subject_to_the_next_clause(rule):
    compiled = _compiled(rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "resolve_dispute" if "disputes" in rule else "issue_refund"
    cur = "USD" if "USD" in rule else "EUR"
    bound = 5000 if "5,000" in rule else 2000
    assert outcome(rule, tool, {"amount": bound + 1, "currency": cur}) == "pending_review"
    assert outcome(rule, tool, {"amount": bound, "currency": cur}) == "approved"


def test_a_label_with_a_condition_is_no_label():
    compiled = _compiled("Disputes over 5,000 USD = escalations unless resolved; need a manager.")
    assert not compiled.decides


# ---- terse floors, ranges and numbers a clause does not compare ----
def test_a_terse_floor_reads_like_a_terse_cap():
    rule = "Minimum top-up 10 EUR."
    assert _compiled(rule).understanding == "understood"
    assert outcome(rule, "top_up_wallet", {"amount": 5, "currency": "EUR"}) == "denied"
    assert outcome(rule, "top_up_wallet", {"amount": 10, "currency": "EUR"}) == "approved"


@pytest.mark.parametrize("rule", ["6 to 20 licences need IT approval."])
def test_a_range_no_check_compares_stays_unaccounted(rule):
    compiled = _compiled(rule)
    assert not compiled.decides, compiled.checks
    assert outcome(rule, "order_licences", {"licences": 12}) != "approved"


@pytest.mark.parametrize(
    "rule",
    [
        "Licences: 6-20 need IT approval.",
        "Licence orders: up to 5 self-serve; 6 to 20 need IT approval; above 20 not allowed.",
    ],
)
def test_a_range_sent_to_approval_is_a_band_from_where_it_starts(rule):
    # jtier: the band 'A to B' is read where it starts (tiers.ranged); nothing in or above it
    # is approved, what lies below it is
    assert outcome(rule, "order_licences", {"licences": 5}) == "approved"
    for n in (6, 12, 20, 21):
        assert outcome(rule, "order_licences", {"licences": n}) != "approved"


def test_a_number_in_a_clause_read_as_a_plain_act_stays_unaccounted():
    rule = "Min credit score 650 for auto loans; student loans may go down to 600."
    compiled = _compiled(rule)
    assert not compiled.decides
    assert "600" in compiled.unaccounted
    # a count of approvers is read by the review, not a number left over
    assert _compiled("Tenant deletions require 2 admins to confirm.").decides


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lo=st.integers(min_value=1, max_value=400),
    width=st.integers(min_value=1, max_value=400),
    noun=st.sampled_from(["seats", "licences", "users", "rows", "hosts"]),
    joint=st.sampled_from([" to ", "-", " through "]),
    effect=st.sampled_from(["need IT approval", "are not allowed", "are fine"]),
)
def test_an_unread_range_never_decides(lo, width, noun, joint, effect):
    text = f"{noun.capitalize()}: {lo}{joint}{lo + width} {effect}."
    compiled = _compiled(text)
    if effect == "need IT approval" and compiled.decides:
        # jtier: a band sent to approval is read from where it starts (tiers.ranged): nothing
        # in it is approved
        for n in (lo, lo + width):
            assert outcome(text, "order_items", {noun: n}) != "approved", (text, n)
        return
    assert not compiled.decides, (text, compiled.checks)
