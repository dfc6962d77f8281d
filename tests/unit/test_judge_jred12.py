"""jred12: rules labelled "understood" whose reading was wrong as a whole (misreadings.py).

Each was masked on the blind sets by another rule of its policy that sent the request to review;
beside a satisfied rule it showed as an unsafe approval or a false denial. Each is now read right
(a part read by the recogniser that reads it alone) or left partly understood (review).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    assert_qualified_never_decides,
    outcome,
)
from webapp.judge.compiler import compile_rule

PURPOSE = "Every request must state a purpose."


def _beside(rule: str, tool: str, args: dict) -> str:
    """The outcome of `rule` beside a satisfied purpose rule."""
    return outcome([rule, PURPOSE], tool, {**args, "purpose": "quarterly close"})


def _readings(rule: str) -> list[str]:
    return [c.reading() for c in compile_rule(0, "c:r0", rule).checks]


# -- read right -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule, tool, args, expected",
    [
        # joined requirements: one required argument each
        ("quota bumps need a ticket + owning team", "quota.bump", {"ticket": "OPS-1"}, "denied"),
        (
            "quota bumps need a ticket + owning team",
            "quota.bump",
            {"ticket": "OPS-1", "owning_team": "payments"},
            "approved",
        ),
        (
            "start_date and expected_return_date are required.",
            "hris.leave_create",
            {"start_date": "2026-12-01"},
            "denied",
        ),
        (
            "start_date and expected_return_date are required.",
            "hris.leave_create",
            {"start_date": "2026-12-01", "expected_return_date": "2026-12-29"},
            "approved",
        ),
        (
            "Write-off requires a dispute_id and a reason.",
            "ar.write_off",
            {"dispute_id": "D-1"},
            "denied",
        ),
        (
            "Write-off requires a dispute_id and a reason.",
            "ar.write_off",
            {"dispute_id": "D-1", "reason": "dispute upheld by the bank"},
            "approved",
        ),
        (
            "Drop-ship orders must include a PO number and a ship-to contact phone, and may not "
            "exceed 200 units per line.",
            "orders.drop_ship",
            {"po_number": "PO-1", "ship_to": {"name": "Lakeside"}, "lines": [{"qty": 20}]},
            "denied",
        ),
        # a listed name joined back at '&'
        (
            "Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners",
            "recruiting.pay_fee",
            {"agency": "Hunt & Partners"},
            "approved",
        ),
        (
            "Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners",
            "recruiting.pay_fee",
            {"agency": "Hunt"},
            "denied",
        ),
        (
            "Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners",
            "recruiting.pay_fee",
            {"agency": "Partners"},
            "denied",
        ),
        # two arguments that must differ
        (
            "Maker and checker must be different people (maker_id != checker_id).",
            "payments.release",
            {"maker_id": "u-17", "checker_id": "U-17 "},
            "denied",
        ),
        (
            "Maker and checker must be different people (maker_id != checker_id).",
            "payments.release",
            {"maker_id": "u-17", "checker_id": "u-22"},
            "approved",
        ),
        (
            "Maker and checker must be different people (maker_id != checker_id).",
            "payments.release",
            {"maker_id": "u-17"},
            "pending_review",
        ),
        # a share of a base
        (
            "Fee can't exceed 20% of candidate's first-year base",
            "recruiting.pay_fee",
            {"fee_usd": 25000, "candidate_base_usd": 100000},
            "denied",
        ),
        (
            "Fee can't exceed 20% of candidate's first-year base",
            "recruiting.pay_fee",
            {"fee_usd": 15000, "candidate_base_usd": 100000},
            "approved",
        ),
        (
            "Fee can't exceed 20% of candidate's first-year base",
            "recruiting.pay_fee",
            {"fee_usd": 15000, "fee_pct": 25, "candidate_base_usd": 100000},
            "denied",
        ),
        (
            "Fee can't exceed 20% of candidate's first-year base",
            "recruiting.pay_fee",
            {"fee_usd": 15000},
            "pending_review",
        ),
        # a place group
        (
            "Criminal record checks on candidates located in the EU -> DPO review first",
            "bgcheck.order",
            {"check_type": "criminal_record", "candidate_country": "DE"},
            "pending_review",
        ),
        (
            "Criminal record checks on candidates located in the EU -> DPO review first",
            "bgcheck.order",
            {"check_type": "criminal_record", "candidate_country": "US"},
            "approved",
        ),
        # a slash list of codes
        (
            "Source acct: TAX-EUR-01 / TAX-GBP-01 only",
            "tax.remit",
            {"source_account": "TAX-GBP-01"},
            "approved",
        ),
        (
            "Source acct: TAX-EUR-01 / TAX-GBP-01 only",
            "tax.remit",
            {"source_account": "TAX-USD-01"},
            "denied",
        ),
        (
            "credits >= $50 need reason_code: OUTAGE / BILLING_ERROR / GOODWILL only",
            "billing.credit",
            {"amount": 60, "reason_code": "OUTAGE"},
            "approved",
        ),
        (
            "credits >= $50 need reason_code: OUTAGE / BILLING_ERROR / GOODWILL only",
            "billing.credit",
            {"amount": 60, "reason_code": "PROMO"},
            "denied",
        ),
        # the window a 'no … within' forbids
        (
            "no swap within 24h of previous swap (hours_since_last_swap) - deny",
            "sim.swap",
            {"hours_since_last_swap": 3},
            "denied",
        ),
        (
            "no swap within 24h of previous swap (hours_since_last_swap) - deny",
            "sim.swap",
            {"hours_since_last_swap": 72},
            "approved",
        ),
        # an inclusive sign before a currency code
        (
            "payouts >= USD 10k: adjuster supervisor sign-off before release",
            "claims.payout",
            {"amount": 10000, "currency": "USD"},
            "pending_review",
        ),
        (
            "payouts >= USD 10k: adjuster supervisor sign-off before release",
            "claims.payout",
            {"amount": 9999, "currency": "USD"},
            "approved",
        ),
    ],
)
def test_read_right_beside_a_satisfied_rule(rule, tool, args, expected):
    assert _beside(rule, tool, args) == expected


def test_readings_say_what_is_read():
    assert _readings("quota bumps need a ticket + owning team") == [
        "Deny when `ticket` is missing or empty (about: quota bumps)",
        "Deny when `owning team` is missing or empty (about: quota bumps)",
    ]
    assert (
        "`maker_id` and `checker_id` hold the same value"
        in _readings("Maker and checker must be different people (maker_id != checker_id).")[0]
    )
    # read by jrel's comparison with a factor before this mend is needed: the two sides and the
    # share, each side one argument named for it
    assert (
        "above 20% of candidate's first-year base"
        in _readings("Fee can't exceed 20% of candidate's first-year base")[0]
    )
    assert (
        "country or region is EU"
        in _readings("Criminal record checks on candidates located in the EU -> DPO review first")[
            0
        ]
    )
    assert (
        "Hunt & Partners"
        in _readings(
            "Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners"
        )[0]
    )


# -- left partly understood ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule",
    [
        "Alert recipients must include finops@acme.io.",
        "Claim total <= $500 -> may be approved by workflow",
        "prod node pools: max nodes up to 40. beyond that -> page capacity on-call (human approval)",
        "Raising autoscaling max above 40 instances needs FinOps approval.",
        "Virtual cards need no shipping address.",
        "Rollbacks need no reference.",
        "Below that threshold there is no corridor restriction.",
        "Counterfeit and prohibited-item removals: agent may action directly.",
        "Single IP or a range up to /24: OK, no approval.",
        "No monthly budget may be set above 50,000.",
        "Monthly limit per virtual card: 1,000 max.",
        "adds > $2,000/mo (est.) -> FinOps sign-off",
        "At least two independent valuations are required (valuations[]).",
        "Write-offs over USD 1,000 are not permitted.",
        "Protection on default branches and on release/* must never be removed or weakened.",
        "No restocking fee on any return made within the 14-day withdrawal period.",
        "USD/EUR/GBP only. anything else -> no",
        "Outbound wires must include a purpose and an invoice or contract reference.",
        "Every manual journal entry must have supporting documentation attached and a description "
        "explaining the business reason.",
        "Financed vehicles: the settlement must include the lienholder payoff and the lienholder "
        "is paid first.",
        "Exports must not include any of the following columns: ssn, dob, card_pan.",
        "SAML signing cert changes -> security on-call has to approve.",
        "max 3 unlocks/resets per agent per rolling hour (including this one)",
        "A verified DSAR ticket (dsar_ticket) must be referenced.",
        "In the prod namespace, replica counts must stay between 2 and 50 inclusive.",
        "Default branches require at least 2 approving reviews.",
    ],
)
def test_misread_whole_stays_partly_understood(rule):
    assert_never_decides(rule)


@pytest.mark.parametrize(
    "rule, tool, args",
    [
        # the near-misses: read right before, read the same now
        (
            "Every wire must include a purpose field and the beneficiary's account number.",
            "wire.send",
            {"purpose": "rent", "beneficiary_account_number": "DE89"},
        ),
        (
            "Payouts must carry a payee name and an IBAN.",
            "payouts.create",
            {"payee_name": "Ana", "iban": "DE89"},
        ),
        (
            "Outgoing transfers of 1,000 USD or more must include originator and beneficiary names.",
            "transfers.send",
            {"amount": 5000, "currency": "USD", "originator_name": "A", "beneficiary_name": "B"},
        ),
        ("kyc_status != verified -> deny", "accounts.open", {"kyc_status": "verified"}),
        ("Approved pairs: EUR/USD, GBP/USD.", "fx.trade", {"pair": "EUR/USD"}),
        (
            "Overrides of 12 hours or less don't need approval.",
            "oncall.override",
            {"duration_hours": 4},
        ),
        (
            "Restocking fee: max 15% of item price.",
            "returns.approve",
            {"restocking_fee_pct": 10, "item_price": 80},
        ),
    ],
)
def test_read_right_before_still_approves(rule, tool, args):
    assert compile_rule(0, "c:r0", rule).understanding == "understood", rule
    assert _beside(rule, tool, args) == "approved"


# -- properties ---------------------------------------------------------------------------------

_MENDED = (
    "quota bumps need a ticket + owning team",
    "start_date and expected_return_date are required.",
    "Agency fees only to PSL agencies: Hays, Korn Ferry, Robert Half, Hunt & Partners",
    "Maker and checker must be different people (maker_id != checker_id).",
    "Fee can't exceed 20% of candidate's first-year base",
    "Criminal record checks on candidates located in the EU -> DPO review first",
    "Source acct: TAX-EUR-01 / TAX-GBP-01 only",
    "no swap within 24h of previous swap (hours_since_last_swap) - deny",
    "payouts >= USD 10k: adjuster supervisor sign-off before release",
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_MENDED), st.sampled_from(APPENDED_QUALIFIERS))
def test_a_qualifier_appended_to_a_mended_rule_leaves_it_partly_understood(rule, qualifier):
    assert_qualified_never_decides(rule, qualifier)


_NAMES = ("ticket_id", "owner_team", "cost_center", "change_id", "reason_code", "case_ref")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(_NAMES), min_size=2, max_size=3, unique=True),
    st.sampled_from(("and", "+")),
)
def test_every_joined_requirement_is_required(names, join):
    rule = f"Every change needs {(' ' + join + ' ').join(names)}"
    full = {n: "X-12" for n in names}
    assert _beside(rule, "ops.change", full) == "approved", rule
    for n in names:
        less = {k: v for k, v in full.items() if k != n}
        assert _beside(rule, "ops.change", less) != "approved", (rule, n)


_CODES = ("ACC-EU-01", "ACC-GB-02", "ACC-US-03", "ACC-JP-04")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(_CODES), min_size=2, max_size=4, unique=True), st.sampled_from(_CODES)
)
def test_a_slash_list_of_codes_is_read_whole(members, sent):
    rule = f"Source account: {' / '.join(members)} only"
    got = _beside(rule, "ledger.transfer", {"source_account": sent})
    if sent in members:
        assert got == "approved", (rule, sent)
    else:
        assert got != "approved", (rule, sent)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(("EU", "EEA")),
    st.sampled_from(("located", "based", "resident")),
    # ('NO' in `customer_country` is not read as Norway by the place lists: a finding of this
    # session left to the place readers, see jred12.doc.md)
    st.sampled_from(("DE", "FR", "IT", "IS", "Norway")),
)
def test_a_place_group_never_passes_a_member(group, how, country):
    rule = f"Data exports for customers {how} in the {group} need DPO review."
    eea_only = country in ("Norway", "IS")
    got = _beside(rule, "data.export", {"customer_country": country, "rows": 10})
    if group == "EU" and eea_only:
        return
    assert got != "approved", (rule, country)
