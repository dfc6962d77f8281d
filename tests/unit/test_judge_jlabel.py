"""Words that do not change a rule's meaning (webapp/judge/asides.py): labels, citations,
emphasis, 'until further notice', staff shorthand and an else branch that restates the effect.

Each is read by a reader that knows its form; a real qualifier beside one (a condition, an open
category, a real end, a branch with another effect) still leaves the rule partly understood."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from judge_support import (
    APPENDED_QUALIFIERS,
    assert_never_decides,
    outcome,
    outcome_beside_ticket,
    policy,
)

from webapp.judge import asides
from webapp.judge.compiler import compile_policy, compile_rule

EUR = {"currency": "EUR"}

# (rule, tool, args, outcome, a phrase of the reading)
VECTORS = [
    # labels and section numbers
    (
        "PR-2. Refunds must not exceed 500 EUR.",
        "refund.issue",
        {"amount": 900, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "R3: Refunds must not exceed 500 EUR.",
        "refund.issue",
        {"amount": 400, **EUR},
        "approved",
        "above 500 EUR",
    ),
    (
        "(a) Payouts to RU or BY are blocked.",
        "payout.create",
        {"country": "RU", "amount": 5},
        "denied",
        "RU or BY",
    ),
    (
        "1) Payouts to RU or BY are blocked.",
        "payout.create",
        {"country": "DE", "amount": 5},
        "approved",
        "RU or BY",
    ),
    (
        "3. Refunds must not exceed 500 EUR.",
        "refund.issue",
        {"amount": 501, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "4.2.2 shipper_cert_id is required.",
        "dg.book",
        {"un_number": "UN1203"},
        "denied",
        "`shipper_cert_id` is missing",
    ),
    (
        "§4.2 Discounts over 20% need a sales manager.",
        "crm.quote",
        {"discount_pct": 30},
        "pending_review",
        "above 20%",
    ),
    (
        "SOP-7 §2: Discounts over 20% need a sales manager.",
        "crm.quote",
        {"discount_pct": 10},
        "approved",
        "above 20%",
    ),
    (
        "Refunds must not exceed 500 EUR (SOP-7 §2).",
        "refund.issue",
        {"amount": 700, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "Refunds must not exceed 500 EUR (see SOP-7).",
        "refund.issue",
        {"amount": 70, **EUR},
        "approved",
        "above 500 EUR",
    ),
    # emphasis
    (
        "Never refund more than 500 EUR. Full stop.",
        "refund.issue",
        {"amount": 900, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "no refunds over 500 EUR, period",
        "refund.issue",
        {"amount": 650, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "No exceptions: refunds over 500 EUR are forbidden.",
        "refund.issue",
        {"amount": 650, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "Under no circumstances may refunds exceed 500 EUR.",
        "refund.issue",
        {"amount": 650, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "Under no circumstances may refunds exceed 500 EUR.",
        "refund.issue",
        {"amount": 500, **EUR},
        "approved",
        "above 500 EUR",
    ),
    (
        "Refunds over 500 EUR: absolutely not.",
        "refund.issue",
        {"amount": 800, **EUR},
        "denied",
        "above 500 EUR",
    ),
    (
        "Wire transfers to RU are forbidden, no ifs or buts.",
        "wire.send",
        {"country": "RU", "amount": 1},
        "denied",
        "is RU",
    ),
    (
        "Refunds must not exceed 500 EUR for any reason.",
        "refund.issue",
        {"amount": 700, "reason": "goodwill", **EUR},
        "denied",
        "above 500 EUR",
    ),
    # a duration with no end
    (
        "billing-api is under change freeze until further notice.",
        "deploy.release",
        {"service": "billing-api"},
        "denied",
        "billing-api",
    ),
    (
        "billing-api is under change freeze until further notice.",
        "deploy.release",
        {"service": "search-api"},
        "approved",
        "billing-api",
    ),
    (
        "No refunds over 500 EUR until further notice, except for gold customers.",
        "refund.issue",
        {"amount": 900, "customer_tier": "gold", **EUR},
        "approved",
        "above 500 EUR",
    ),
    (
        "No refunds over 500 EUR until further notice, except for gold customers.",
        "refund.issue",
        {"amount": 900, "customer_tier": "silver", **EUR},
        "denied",
        "above 500 EUR",
    ),
    # shorthand
    (
        "Refunds over 500 EUR need mgr approvl.",
        "refund.issue",
        {"amount": 900, **EUR},
        "pending_review",
        "above 500 EUR",
    ),
    (
        "Every payment must incl an invoice_id.",
        "payment.send",
        {"amount": 3},
        "denied",
        "`invoice_id` is missing",
    ),
    (
        "invoice_id requried",
        "payment.send",
        {"amount": 3, "invoice_id": "INV-1"},
        "approved",
        "`invoice_id` is missing",
    ),
    (
        "Acct closures must reference a ticket_id.",
        "account.close",
        {"account_id": "A-1"},
        "denied",
        "`ticket_id` is missing",
    ),
    (
        "Agent daily total max 250,000 USD incl. this one.",
        "fiat.withdraw",
        {"amount": 300000, "currency": "USD"},
        "denied",
        "today's total of the amount",
    ),
    # an else branch that restates the restriction's effect
    (
        "Funding account must be OPS-PAYROLL-01. Any other account -> reject.",
        "payroll.submit",
        {"funding_account": "OPS-PAYROLL-02"},
        "denied",
        "OPS-PAYROLL-01",
    ),
    (
        "Funding account must be OPS-PAYROLL-01. Any other account -> reject.",
        "payroll.submit",
        {"funding_account": "OPS-PAYROLL-01"},
        "approved",
        "OPS-PAYROLL-01",
    ),
    (
        "Currency must be EUR or GBP. Anything else -> reject.",
        "fx.convert",
        {"currency": "USD", "amount": 5},
        "denied",
        "EUR or GBP",
    ),
    (
        "Payments may only go to US, CA or MX. Any other country is denied.",
        "payment.send",
        {"country": "FR", "amount": 5},
        "denied",
        "US, CA or MX",
    ),
    (
        "Every payment must reference an invoice_id, otherwise reject.",
        "payment.send",
        {"amount": 5, "invoice_id": "INV-2"},
        "approved",
        "`invoice_id` is missing",
    ),
    (
        "Refunds must go to the original payment method; otherwise deny.",
        "refund.issue",
        {"amount": 5, "payment_method": "card_1", "original_payment_method": "card_2", **EUR},
        "denied",
        "original payment method",
    ),
    (
        "VAT remits: EU member states, UK, NO, CH only - any other jurisdiction -> Tax Ops review",
        "tax.vat.remit",
        {"country": "US", "amount": 5},
        "pending_review",
        "EU, GB, NO or CH",
    ),
    (
        "VAT remits: EU member states, UK, NO, CH only - any other jurisdiction -> Tax Ops review",
        "tax.vat.remit",
        {"country": "FR", "amount": 5},
        "approved",
        "EU, GB, NO or CH",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected", "reading"), VECTORS)
def test_a_rule_with_words_that_change_nothing_reads_as_without_them(
    rule, tool, args, expected, reading
):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.text == rule  # the rule keeps its text as written
    assert any(reading in c.reading() for c in compiled.checks), [
        c.reading() for c in compiled.checks
    ]
    assert outcome([rule], tool, args) == expected


# Near-misses: the same words beside something that does change the rule.
NEAR_MISSES = [
    # an else branch with another effect or a condition is a rule of its own ('Currency must be
    # EUR or GBP. Anything else -> treasury review.' is read since jlist: the branch is the
    # list's complement, sent to review, as 'any other currency' was; test_judge_jlist2.py)
    "Currency must be EUR or GBP; other currencies need treasury approval.",
    "Payments may only go to US, CA or MX; any other country -> reject unless compliance_ok is true.",
    "Governing law must be England or New York. Any other governing law is referred to Legal.",
    "Funding account must be OPS-PAYROLL-01. Any other account for privileged vendors -> reject.",
    # a real end, a real exception, an open category beside the emphasis
    "No refunds over 500 EUR until the Q3 close.",
    "No refunds over 500 EUR until the Q3 close. Full stop.",
    "No refunds over 500 EUR to high-risk customers, ever.",
    "Refunds over 500 EUR are forbidden, period, unless the customer_tier is gold.",
    "Refunds over 500 EUR are forbidden - no exceptions for VIP customers.",
    "R3: refunds over 500 EUR to privileged vendors are forbidden.",
]


@pytest.mark.parametrize("rule", NEAR_MISSES)
def test_a_real_qualifier_beside_those_words_is_not_swallowed(rule):
    assert_never_decides(rule)


def test_always_and_a_pointer_to_the_glossary_change_nothing():
    assert outcome(["consent_id required. always."], "bgcheck.order", {"candidate_id": "C"}) == (
        "denied"
    )
    rule = "No payments to vendors located in sanctioned countries (see glossary)."
    glossary = {"sanctioned countries": ["IR", "KP", "SY", "CU", "RU", "BY"]}
    args = {"vendor": {"name": "Baltic Parts", "country": "PL"}, "amount": 5, "currency": "EUR"}
    assert outcome_beside_ticket(rule, "vendors.pay", args, glossary) == "approved"
    args["vendor"]["country"] = "RU"
    assert outcome_beside_ticket(rule, "vendors.pay", args, glossary) == "denied"
    # without the glossary the category stays open: review
    assert outcome_beside_ticket(rule, "vendors.pay", args) == "pending_review"


def test_under_no_circumstances_is_the_prohibition_itself():
    # the inversion is kept ('Never may …'), never rebuilt around a guessed subject
    assert (
        asides.plain("Under no circumstances may customer data be shared with third parties.")
        == "Never may customer data be shared with third parties."
    )
    rule = "At no time are payouts to RU allowed."
    assert outcome([rule], "payout.create", {"country": "RU", "amount": 5}) == "denied"
    assert outcome([rule], "payout.create", {"country": "FR", "amount": 5}) == "approved"


def test_a_bare_r_code_is_a_label_only_before_a_sentence():
    assert (
        asides.plain("R3: Refunds must not exceed 500 EUR.") == "Refunds must not exceed 500 EUR."
    )
    for text in ("R2: public buckets allowed.", "R3: refunds over 500 EUR are forbidden"):
        assert asides.plain(text) == text


def test_a_code_that_names_the_value_is_no_label():
    # 'DUS-2: …' alone names the warehouse; 'PR-2 runs …' has no separator: both stay as written
    for text in (
        "DUS-2: no slotting changes.",
        "PR-2 runs are frozen.",
        "EX-11: gift cards are not reimbursable.",
    ):
        assert asides.plain(text) == text
    assert outcome(
        ["DUS-2: no slotting changes."], "wms.update_slotting", {"warehouse": "DUS-3"}
    ) == ("approved")
    assert outcome(
        ["DUS-2: no slotting changes."], "wms.update_slotting", {"warehouse": "DUS-2"}
    ) == ("denied")


def test_a_code_numbering_several_rules_of_a_policy_is_their_label():
    rules = [
        "EX-11: Refunds must not exceed 500 EUR.",
        "EX-14: Every refund must reference an order_id.",
    ]
    assert asides.numbering(rules) == frozenset({"EX"})
    assert asides.numbering(rules[:1]) == frozenset()
    compiled = compile_policy(policy(rules))
    assert [r.understanding for r in compiled.rules] == ["understood", "understood"]
    assert [r.text for r in compiled.rules] == rules
    # alone, 'EX-11:' may be the value the rule names: read as written
    assert asides.plain(rules[0]) == rules[0]


@pytest.mark.parametrize(
    "text",
    [
        "Refunds go to whichever card was charged.",
        "Runs above 2M need Payroll manager sign off regardless of amount.",
        "Deploys must finish before 17:00 EST.",
        "Payments must not exceed 1.5 kg.",
        "Refunds are capped per billing period.",
        "No refunds over 500 EUR until the Q3 close.",
        "Refunds must go to the account on file; anything else needs a ticket_id.",
        "Payroll Mgr approval is needed for retro pay.",
        "Case data may be shared only with State Dept. of Labor.",
    ],
)
def test_what_only_resembles_those_words_stays_as_written(text):
    assert asides.plain(text) == text


def test_shorthand_is_read_only_in_its_exact_forms():
    assert (
        asides.expanded("needs mgr approvl b4 release") == "needs manager approval before release"
    )
    assert asides.expanded("must incl an invoice_id") == "must include an invoice_id"
    assert asides.expanded("(incl. fees)") == "(including fees)"
    assert asides.expanded("est. value over 5k") == "estimated value over 5k"
    # not a resemblance: 'mgrs2', 'acctg', 'amtrak', 'EST.'
    for text in ("mgrs2 only", "acctg review", "amtrak tickets", "ends at 5pm EST. Then"):
        assert asides.expanded(text) == text


# ---- the property: a real qualifier beside these words still leaves the rule partly understood

BASES = (
    "Refunds must not exceed 500 EUR",
    "Payouts to RU or BY are blocked",
    "Every payment must reference an invoice_id",
    "Discounts over 20% need a sales manager",
    "Deleting S3 buckets is forbidden",
    "The ACME-7 vendor account is frozen",
)
LABELS = ("PR-2.", "(a)", "1)", "3.", "R3:", "4.2.2", "§4.2", "Rule 4:", "SOP-7 §2:")
CLOSINGS = (
    ", period.",
    ". Full stop.",
    ", ever.",
    ", no ifs or buts.",
    " for any reason.",
    ", no exceptions.",
    " until further notice.",
    " (SOP-7 §2).",
    ". Period.",
)
MUSTS = (
    "Currency must be EUR or GBP",
    "Funding account must be OPS-PAYROLL-01",
    "Payments may only go to US, CA or MX",
)
ELSES = (". Any other value -> reject.", "; anything else -> reject.", ", otherwise deny.")
# qualifiers no recogniser reads (the shared ones, a real end, a state)
QUALIFIERS = (
    *APPENDED_QUALIFIERS,
    "if the zorblat is frobbed",
    "only if the ledger is signed",
    "while an audit is open",
    "until the Q3 close",
)


def _without(text: str, aside: str) -> str:
    return text.replace(aside, ".", 1) if aside.startswith((",", " ", ".")) else text


@pytest.mark.parametrize("base", BASES)
def test_the_property_bases_are_understood_with_every_aside(base):
    for label in LABELS:
        assert compile_rule(0, "c", f"{label} {base}.").understanding == "understood", label
    for closing in CLOSINGS:
        assert compile_rule(0, "c", f"{base}{closing}").understanding == "understood", closing


def _undecided_without_asides(text: str) -> bool:
    return not compile_rule(0, "c", text).decides


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(BASES),
    label=st.sampled_from(LABELS),
    closing=st.sampled_from(CLOSINGS),
    qualifier=st.sampled_from(QUALIFIERS),
    before=st.booleans(),
)
def test_a_qualifier_inserted_beside_a_label_or_emphasis_leaves_the_rule_partly_understood(
    base, label, closing, qualifier, before
):
    if before:  # 'PR-2. Unless a manager agrees otherwise, refunds must not exceed 500 EUR.'
        bare = f"{qualifier[0].upper()}{qualifier[1:]}, {base[0].lower()}{base[1:]}."
    else:  # 'PR-2. Refunds must not exceed 500 EUR, unless a manager agrees otherwise.'
        bare = f"{base}, {qualifier}."
    # a qualifier some recogniser reads in the bare rule is that recogniser's ('Payouts to RU or
    # BY are blocked, when the customer is a minor'): the property is that no aside consumes one
    assume(_undecided_without_asides(bare))
    assert_never_decides(f"{label} {bare}")
    # right before the emphasis: 'Refunds must not exceed 500 EUR, except on weekends, period.'
    assume(_undecided_without_asides(f"{base}, {qualifier}."))
    assert_never_decides(f"{base}, {qualifier}{closing}")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    must=st.sampled_from(MUSTS),
    branch=st.sampled_from(ELSES),
    qualifier=st.sampled_from(QUALIFIERS),
    where=st.sampled_from(("head", "branch", "after")),
)
def test_a_qualifier_inserted_beside_an_else_branch_leaves_the_rule_partly_understood(
    must, branch, qualifier, where
):
    assert compile_rule(0, "c", f"{must}{branch}").understanding == "understood"
    assume(_undecided_without_asides(f"{must}, {qualifier}."))
    if (
        where == "head"
    ):  # 'Currency must be EUR or GBP, except on weekends; anything else -> reject.'
        text = f"{must}, {qualifier}{branch}"
    elif where == "branch":  # '… anything else -> reject unless a manager agrees otherwise.'
        text = f"{must}{branch[:-1]} {qualifier}."
    else:
        text = f"{must}{branch[:-1]}, {qualifier}."
    assert_never_decides(text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(BASES),
    aside=st.sampled_from((*CLOSINGS, *(f" {lab}" for lab in LABELS))),
    words=st.lists(
        st.sampled_from("customer ledger zorblat escrow weekend minor partner".split()),
        min_size=1,
        max_size=3,
    ),
)
def test_asides_never_make_an_undecided_rule_decide(base, aside, words):
    # whatever else the rule holds, reading its asides never turns 'partly' into 'decides'
    core = f"{base} for the {' '.join(words)} frobbed"
    if aside.startswith(" ") and aside.strip() in LABELS:
        text = f"{aside.strip()} {core}."
    else:
        text = f"{core}{aside}"
    if _undecided_without_asides(f"{core}."):
        assert_never_decides(text)
