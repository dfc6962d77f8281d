"""Tiers, a limit with its own else branch, and 'any other X' restatements (helper jtier, #10).

Vectors are (rule, tool, arguments, expected outcome beside a satisfied ticket rule): each band
boundary exactly, one cent or one unit past it, another currency, a value just outside an
allow-list, and near-misses where one word changes the meaning ('any investor' is a ban, 'are
never comped' keeps the denial, 'must not exceed' stays a prohibition).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import assert_never_decides, outcome_beside_ticket

from webapp.judge import tiers
from webapp.judge.compiler import compile_rule

COMP = "Front desk can comp up to 2 room nights per stay; 3 or more nights -> GM approval."
NTE = (
    "NTE limits (not_to_exceed): up to 25,000 USD the agent may issue; 25,000.01 to 100,000 USD "
    "-> regional manager approval; above 100,000 USD not via agent."
)
GOODWILL = (
    "Goodwill credits: £250.01 to £1,000 -> team leader sign-off needed; over £1,000 not permitted."
)
DISCOUNT = (
    "Discounts up to 15% may be applied by the agent; 15% to 30% needs sales manager approval; "
    "anything above 30% is rejected."
)
CEILING = "Hard ceiling: 2,000 USD per adjustment. Anything higher is refused, no exceptions."
INVESTOR = "Investor must be FNMA or FHLMC; agents may not modify loans for any other investor."
CONTRACT = "Contract types NDA or SOW only; any other contract type -> legal review."
CARRIER = "Shipments may use carriers DHL or UPS only; any other carrier needs logistics manager approval."
REGION = "Cloud regions: eu-west-1 and eu-central-1 only. Deployments to any other region are prohibited."
VENDORS = (
    "Reviewers from vendors other than Lexbridge or DocuCore: route to Legal Ops for approval."
)

VECTORS = [
    (COMP, "hotel.comp_nights", {"room_nights": 2}, "approved"),
    (COMP, "hotel.comp_nights", {"room_nights": 3}, "pending_review"),
    (COMP, "hotel.comp_nights", {"room_nights": 7}, "pending_review"),
    (
        "Front desk can comp up to 2 room nights per stay; 3 or more nights are never comped.",
        "hotel.comp_nights",
        {"room_nights": 3},
        "denied",
    ),
    (GOODWILL, "billing.goodwill_credit", {"amount": 250, "currency": "GBP"}, "approved"),
    (GOODWILL, "billing.goodwill_credit", {"amount": 250.01, "currency": "GBP"}, "pending_review"),
    (GOODWILL, "billing.goodwill_credit", {"amount": 1000, "currency": "GBP"}, "pending_review"),
    (GOODWILL, "billing.goodwill_credit", {"amount": 1000.01, "currency": "GBP"}, "denied"),
    (GOODWILL, "billing.goodwill_credit", {"amount": 100, "currency": "EUR"}, "pending_review"),
    (DISCOUNT, "quote.apply_discount", {"discount_pct": 15}, "approved"),
    (DISCOUNT, "quote.apply_discount", {"discount_pct": 15.5}, "pending_review"),
    (DISCOUNT, "quote.apply_discount", {"discount_pct": 30}, "pending_review"),
    (DISCOUNT, "quote.apply_discount", {"discount_pct": 31}, "denied"),
    (CEILING, "billing.adjust", {"amount": 2000, "currency": "USD"}, "approved"),
    (INVESTOR, "loan.modify", {"investor": "FNMA"}, "approved"),
    (INVESTOR, "loan.modify", {"investor": "GNMA"}, "denied"),
    (
        "Investor must be FNMA or FHLMC; agents may not modify loans for any investor.",
        "loan.modify",
        {"investor": "FNMA"},
        "denied",
    ),
    (CONTRACT, "contract.sign", {"contract_type": "SOW"}, "approved"),
    (CONTRACT, "contract.sign", {"contract_type": "MSA"}, "pending_review"),
    (CARRIER, "shipment.create", {"carrier": "DHL"}, "approved"),
    (CARRIER, "shipment.create", {"carrier": "FedEx"}, "pending_review"),
    (REGION, "deploy.create", {"region": "eu-west-1"}, "approved"),
    (REGION, "deploy.create", {"region": "eu-west-2"}, "denied"),
    (VENDORS, "review.grant_access", {"vendor": "Lexbridge"}, "approved"),
    (VENDORS, "review.grant_access", {"vendor": "Epiq"}, "pending_review"),
    # a prohibition stays a prohibition whatever band follows it
    (
        "Refunds must not exceed 1,000 EUR; bigger ones need CFO approval.",
        "payments.refund",
        {"amount": 1500, "currency": "EUR"},
        "denied",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_tiers_and_other_values(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_a_band_is_never_a_value_an_argument_contains() -> None:
    rule = compile_rule(0, "c:r0", "£250.01 to £1,000 -> team leader sign-off needed")
    assert rule.understanding == "understood"
    assert all("contains" not in c.reading() for c in rule.checks)
    assert tiers.ranged("Leave 1 to 5 May needs manager approval") is None
    assert tiers.ranged("Changes 9:00 to 17:00 need approval") is None
    assert tiers.ranged("Credits of 5 to 10 USD are never allowed") is None


def test_the_restating_clause_is_read_only_without_a_bound_or_condition_of_its_own() -> None:
    assert tiers.other_clause(INVESTOR) is not None
    assert tiers.other_clause(INVESTOR.replace("loans ", "loans over $500,000 ")) is None
    assert tiers.other_clause(INVESTOR.replace(".", " unless the GC agrees.")) is None


def test_a_name_cut_at_an_ampersand_is_not_taken() -> None:
    rule = compile_rule(
        0,
        "c:r0",
        "Panel firms only: Harlow & Finch LLP, Ostrander Kim LLP. "
        "Invoices from any other firm are rejected.",
    )
    assert not rule.decides


_QUALIFIERS = ["unless a manager agrees otherwise", "except on weekends", "for privileged vendors"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([COMP, GOODWILL, DISCOUNT, INVESTOR, CARRIER, CEILING]),
    st.sampled_from(_QUALIFIERS),
)
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule: str, extra: str) -> None:
    assert_never_decides(rule.rstrip(".") + ", " + extra + ".")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=300_000).map(lambda c: c / 100))
def test_every_value_lands_in_its_band(value: float) -> None:
    got = outcome_beside_ticket(
        GOODWILL, "billing.goodwill_credit", {"amount": value, "currency": "GBP"}
    )
    if value <= 250:
        assert got == "approved"
    elif value <= 1000:
        assert got == "pending_review"
    else:
        assert got == "denied"


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=40))
def test_a_cap_then_its_review_band_never_refuses_what_the_band_reviews(nights: int) -> None:
    got = outcome_beside_ticket(COMP, "hotel.comp_nights", {"room_nights": nights})
    assert got == ("approved" if nights <= 2 else "pending_review")


def test_an_allowed_band_is_never_read_from_where_it_starts() -> None:
    rule = (
        "Tips between 10% and 20% - approved automatically; anything else needs manager approval."
    )
    assert tiers.ranged(rule) is None
    for pct in (5, 25):
        assert outcome_beside_ticket(rule, "pay.tip", {"tip_pct": pct}) != "approved"


def test_a_clause_refusing_at_the_caps_bound_keeps_the_denial() -> None:
    rule = (
        "Agents can approve refunds up to $200. Refunds over $200 need a supervisor; refunds "
        "over $200 to gift cards are forbidden."
    )
    assert tiers.banded(compile_rule(0, "c:r0", rule).checks, rule) is None
