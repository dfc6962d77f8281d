"""A rule out of the request's reach (webapp/judge/gates.py).

A rule the engine does not fully read sent every request it shares a word with to review. When
its gate (the subject phrase its obligation hangs on) is read in full and definitely false for the
request, the rule does not govern the request: it is left out of review, cited nowhere, and
recorded in the verdict's details as out of reach with the reason.

The safety invariant, tested with hypothesis below: the unread part of a rule can only narrow the
gate or be the obligation. Widening the gate with an unread disjunct, inserting an unread word in
it, adding a second obligation, removing the argument it reads, or switching the currency keeps the
rule in reach (review); and a rule the engine understands decides exactly as it did.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.judge import engine
from webapp.judge.compiler import NORMATIVE, compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.gates import out_of_reach
from webapp.judge.history import StaticHistory
from webapp.judge.request_view import RequestView
from webapp.judge.types import ClearanceQuery, PolicyVersion
from webapp.judge.vocabulary import Glossary

SELLERS = {"high-risk sellers": ["S-20417", "S-88310", "S-90021"]}
CARRIERS = {"watch-listed carriers": ["CAR-1001", "CAR-2040"]}


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256("|".join(rules).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def judge(rules: list[str] | str, tool: str, args: dict, glossary: dict | None = None):
    rules = [rules] if isinstance(rules, str) else rules
    return evaluate(
        ClearanceQuery(tool, args, "agent"),
        [_policy(rules)],
        StaticHistory.from_dict(None),
        glossary=glossary,
    )


def outcome(rules: list[str] | str, tool: str, args: dict, glossary: dict | None = None) -> str:
    v = judge(rules, tool, args, glossary)
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


def reach(rule: str, tool: str, args: dict, glossary: dict | None = None) -> str | None:
    view = RequestView(tool, args, "agent", StaticHistory.from_dict(None))
    return out_of_reach(rule, view, Glossary.of(glossary))


# The brief's examples (phrasings of the sixth session's blind sets), then ours in other domains.
# (a label before a subjectless clause is read in full since jtext2; 'unless …' keeps these text)
JUMBO = "Loan amt over $766,550 = jumbo; needs chief credit officer sign-off unless pre-cleared."
# ('held for review' alone is read in full since jtext2; the condition keeps this one text)
HELD = "Payouts to high-risk sellers are held for T&S review until the seller is re-verified."
ROTATE = (
    "Rotating production keys outside an approved change window is not permitted unless "
    "compromise is suspected."
)
DECLINE = "Decline decisions must cite at least one adverse action reason code."
REFUNDS = "Refunds over 500 (any currency) need a CS team lead."

OUT = [
    (JUMBO, "loan.approve_application", {"app_id": "A-1", "loan_amount_usd": 410000}, None),
    (HELD, "payouts.create", {"seller_id": "S-31002", "amount": 80, "currency": "USD"}, SELLERS),
    (ROTATE, "kms.rotate_key", {"key_alias": "alias/x", "env": "staging"}, None),
    (DECLINE, "uw.record_decision", {"app_id": "A-2", "decision": "approve"}, None),
    (REFUNDS, "orders.refund", {"order_id": "O-1", "refund_amount": 80, "currency": "USD"}, None),
    (
        "Tuition reimbursements above 5,250 USD require HR director approval, except for "
        "approved degree programs.",
        "hr.reimburse_tuition",
        {"employee_id": "E-1", "amount": 1800, "currency": "USD"},
        None,
    ),
    (
        "Purchase orders of 25,000 EUR or more = strategic buys; need procurement committee "
        "sign-off unless pre-cleared.",
        "po.create_purchase_order",
        {"vendor": "Acme", "amount": 24999.99, "currency": "EUR"},
        None,
    ),
    (
        "Shipments tendered to watch-listed carriers are held for compliance review until cleared.",
        "tms.tender_shipment",
        {"shipment_id": "SH-1", "carrier_id": "CAR-5150"},
        CARRIERS,
    ),
    (
        "Major deviations must be reported to the IRB within 5 working days.",
        "close_deviation",
        {"deviation_id": "DEV-1", "severity": "minor", "capa_reference": "CAPA-1"},
        None,
    ),
    (
        "Permanent bans need T&S director sign-off before they take effect.",
        "accounts.ban",
        {"account_id": "U-1", "ban_type": "temporary", "strikes": 1},
        None,
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "glossary"), OUT)
def test_a_rule_whose_gate_is_false_does_not_reach_the_request(rule, tool, args, glossary):
    # before: the rule, not fully read (or bound to nothing here), sent the request to review
    original = engine.out_of_reach
    engine.out_of_reach = lambda *a, **k: None
    try:
        assert outcome(rule, tool, args, glossary) == "pending_review"
    finally:
        engine.out_of_reach = original
    why = reach(rule, tool, args, glossary)
    assert why, "the gate should be read and false"
    v = judge(rule, tool, args, glossary)
    assert outcome(rule, tool, args, glossary) == "approved", v.reason
    assert v.citations == ()  # cited nowhere
    (recorded,) = v.details["out_of_reach"]
    assert recorded.endswith(f"out of reach: {why}")
    assert v.details["relevant_text_rules"] == []


def test_the_reason_says_what_was_read():
    why = reach(JUMBO, "loan.approve_application", {"loan_amount_usd": 410000})
    assert why == "loan_amount_usd 410,000 is not over 766,550 USD"
    assert "decision is 'approve', not decline" in reach(
        DECLINE, "uw.record_decision", {"decision": "approve"}
    )
    assert "not among the high-risk sellers" in reach(
        HELD, "payouts.create", {"seller_id": "S-1", "amount": 5}, SELLERS
    )


# The same rules where the gate holds, or cannot be told: in reach, so review as before.
IN = [
    (JUMBO, "loan.approve_application", {"loan_amount_usd": 900000}, None),
    (JUMBO, "loan.approve_application", {"loan_amount_usd": 766551}, None),
    (JUMBO, "loan.approve_application", {"loan_amount": 410000, "currency": "EUR"}, None),
    (JUMBO, "loan.approve_application", {"loan_amount": 410000}, None),  # no currency shown
    (JUMBO, "loan.approve_application", {"loan_amount_usd": "410k"}, None),
    (JUMBO, "loan.approve_application", {"loan_amount_usd": -5}, None),
    (JUMBO, "loan.approve_application", {"app_id": "A-1"}, None),
    (HELD, "payouts.create", {"seller_id": "S-20417", "amount": 80}, SELLERS),
    (HELD, "payouts.create", {"seller_id": "S-20471", "amount": 80}, SELLERS),  # one slip away
    (HELD, "payouts.create", {"seller_id": "s20417", "amount": 80}, SELLERS),
    (HELD, "payouts.create", {"seller_name": "Acme Ltd", "amount": 80}, SELLERS),  # not an id
    (HELD, "payouts.create", {"seller_country": "US", "amount": 80}, SELLERS),  # an attribute
    (HELD, "payouts.create", {"seller_id": "S-1", "payee": "S-88310", "amount": 80}, SELLERS),
    (HELD, "payouts.create", {"seller_id": "S-31002", "amount": 80}, None),  # no glossary
    (ROTATE, "kms.rotate_key", {"key_alias": "alias/x", "env": "production"}, None),
    (ROTATE, "kms.rotate_key", {"key_alias": "alias/x", "env": "prod-eu"}, None),
    (ROTATE, "kms.rotate_key", {"key_alias": "alias/x"}, None),
    (ROTATE, "kms.rotate_key", {"key_alias": "alias/x", "env": ["staging", "production"]}, None),
    (DECLINE, "uw.record_decision", {"decision": "declined"}, None),
    (DECLINE, "uw.record_decision", {"decision": "counteroffer"}, None),
    (DECLINE, "uw.record_decision", {"app_id": "A-2"}, None),
    (REFUNDS, "orders.refund", {"refund_amount": 500.01, "currency": "JPY"}, None),
    # a gate with no currency against an amount with one is ambiguous
    (
        "Refunds over 500 need a CS team lead.",
        "orders.refund",
        {"refund_amount": 80, "currency": "USD"},
        None,
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "glossary"), IN)
def test_a_gate_that_holds_or_cannot_be_told_keeps_the_rule_in_reach(rule, tool, args, glossary):
    assert reach(rule, tool, args, glossary) is None
    assert outcome(rule, tool, args, glossary) == "pending_review"


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        # above a bound written as 'up to' / 'under': a fortiori restricted, never out of reach
        (
            "Refunds up to 500 USD need a CS team lead.",
            "orders.refund",
            {"refund_amount": 900, "currency": "USD"},
        ),
        (
            "Refunds under 500 USD need a CS team lead.",
            "orders.refund",
            {"refund_amount": 900, "currency": "USD"},
        ),
        # a rule on the lighter group is no licence for the heavier one
        (
            "Staging deploys must reference a ticket in the tracker.",
            "deploy.release",
            {"env": "production"},
        ),
        ("Temporary bans need a reviewer's note.", "accounts.ban", {"ban_type": "permanent"}),
        # a permission's bound limits what lies outside it
        (
            "Refunds over 500 USD may be issued by team leads.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        # a predicate that reaches past the gate's subject
        (
            "Refunds over 500 USD need a team lead; all others need a ticket.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        (
            "Refunds over 500 USD need a team lead, otherwise a ticket.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        # a predicate that relieves the gated requests holds the others to the rule
        (
            "Refunds over 500 USD are exempt from the ticket requirement.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        (
            "Refunds over 500 USD do not need a ticket.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        (
            "Refunds over 500 USD are the only ones that skip review.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        # what is measured changes: a total, a day, another thing's amount
        (
            "Daily refunds over 500 USD need a team lead.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        (
            "Refunds over 500 USD per day need a team lead.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
        (
            "Refunds on orders over 500 USD need a team lead.",
            "orders.refund",
            {"amount": 80, "currency": "USD"},
        ),
        (
            "Withdrawals over 500 USD within a day need a team lead.",
            "withdraw_funds",
            {"amount": 80, "currency": "USD"},
        ),
        # a clause with no subject of its own after an obligation (not a definition)
        (
            "Refunds over 500 USD need a team lead; must cite a ticket.",
            "orders.refund",
            {"refund_amount": 80, "currency": "USD"},
        ),
    ],
)
def test_shapes_that_keep_the_rule_in_reach(rule, tool, args):
    assert reach(rule, tool, args) is None


APPROVED_VENDORS = {"approved vendors": ["National Student Clearinghouse", "Parchment"]}


@pytest.mark.parametrize(
    ("rule", "vendor", "out"),
    [
        ("Exports to non-approved vendors require Privacy Office review.", "Parchment", True),
        ("Exports to unapproved vendors require Privacy Office review.", "Parchment", True),
        ("Exports to non-approved vendors require Privacy Office review.", "Acme Data", False),
        # close to a listed name is not listed: it may be outside the approved vendors
        ("Exports to non-approved vendors require Privacy Office review.", "Parchment Inc", False),
        (
            "Exports to non-approved vendors require Privacy Office review.",
            ["Parchment", "Acme"],
            False,
        ),
    ],
)
def test_a_gate_outside_a_glossary_term_is_false_only_for_listed_values(rule, vendor, out):
    args = {"vendor": vendor, "record_count": 10}
    why = reach(rule, "sis.export_records", args, APPROVED_VENDORS)
    assert bool(why) is out
    if out:
        assert "is among the approved vendors" in why
        assert outcome(rule, "sis.export_records", args, APPROVED_VENDORS) == "approved"
    else:
        assert outcome(rule, "sis.export_records", args, APPROVED_VENDORS) == "pending_review"


FOLLOWERS = "Bans on accounts with more than 1M followers require T&S director sign-off."
SESSIONS = "Sessions longer than 12 hours need security sign-off."
DISCOUNTS = "Discounts over 20% need sales director sign-off."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "out"),
    [
        (FOLLOWERS, "accounts.ban", {"account_id": "U-1", "follower_count": 52000}, True),
        (FOLLOWERS, "accounts.ban", {"account_id": "U-1", "follower_count": 1000000}, True),
        (FOLLOWERS, "accounts.ban", {"account_id": "U-1", "follower_count": 1000001}, False),
        (FOLLOWERS, "accounts.ban", {"account_id": "U-1"}, False),
        (FOLLOWERS, "accounts.ban", {"account_id": "U-1", "follower_count": "lots"}, False),
        (SESSIONS, "create_session", {"user": "u", "duration_hours": 4}, True),
        (SESSIONS, "create_session", {"user": "u", "duration_minutes": 300}, True),
        (SESSIONS, "create_session", {"user": "u", "duration_minutes": 800}, False),
        (SESSIONS, "create_session", {"user": "u", "duration": 4}, False),  # no unit shown
        (DISCOUNTS, "apply_discount", {"order": "O-1", "discount_pct": 15}, True),
        (DISCOUNTS, "apply_discount", {"order": "O-1", "discount_pct": 25}, False),
        (DISCOUNTS, "apply_discount", {"order": "O-1", "discount_pct": 0.15}, False),
        (
            "Campaigns to more than 50,000 recipients need marketing-ops sign-off.",
            "send_campaign",
            {"recipients": ["a@x.io", "b@x.io"]},
            True,
        ),
        # a count of requests is the history's, never this request's
        ("Agents with more than 3 requests need review.", "send_campaign", {"requests": 1}, False),
    ],
)
def test_counts_and_measures_in_units_gate_like_amounts(rule, tool, args, out):
    assert bool(reach(rule, tool, args)) is out


def test_an_amount_that_does_not_parse_anywhere_keeps_the_rule_in_reach():
    args = {"refund_amount": 80, "amount": "1.2M", "currency": "USD"}
    assert reach("Refunds over 500 USD need a team lead.", "orders.refund", args) is None


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        # words of the closed table that are often something else are not read as qualifiers
        (
            "Live streams must carry a content rating.",
            "start_stream",
            {"stream": "s", "env": "staging"},
        ),
        (
            "Local deliveries must carry a signature.",
            "create_delivery",
            {"parcel": "p", "env": "dev"},
        ),
        (
            "Critical assets must be patched in a window.",
            "patch_asset",
            {"asset": "a", "severity": "minor"},
        ),
        (
            "Reject transactions must cite a code.",
            "record_transaction",
            {"txn": "t", "decision": "approve"},
        ),
        (
            "Approval requests must cite a justification.",
            "submit_approval_request",
            {"decision": "deny"},
        ),
    ],
)
def test_ambiguous_words_are_not_read_as_qualifiers(rule, tool, args):
    assert reach(rule, tool, args) is None


def test_refunds_on_orders_read_the_order_amount():
    rule = "Refunds on orders over 500 USD need a team lead."
    tool = "orders.refund"
    assert reach(rule, tool, {"amount": 80, "order_total": 90, "currency": "USD"})
    assert reach(rule, tool, {"amount": 80, "order_total": 900, "currency": "USD"}) is None


# ---------------------------------------------------------------------------------------------
# Hypothesis: the unread part can only narrow the gate or be the obligation.

# (rule with a gate marked by '|' after it, tool, args out of reach, glossary)
BASES = [
    (
        "Loan amt over $766,550| = jumbo; needs chief credit officer sign-off unless pre-cleared.",
        "loan.approve_application",
        {"app_id": "A-1", "loan_amount_usd": 410000},
        None,
    ),
    (
        "Payouts to high-risk sellers| are held for T&S review until the seller is re-verified.",
        "payouts.create",
        {"seller_id": "S-31002", "amount": 80, "currency": "USD"},
        SELLERS,
    ),
    (
        "Rotating production keys| is not permitted unless compromise is suspected.",
        "kms.rotate_key",
        {"key_alias": "alias/x", "env": "staging"},
        None,
    ),
    (
        "Decline decisions| must cite at least one adverse action reason code.",
        "uw.record_decision",
        {"app_id": "A-2", "decision": "approve"},
        None,
    ),
    (
        "Refunds over 500 (any currency)| need a CS team lead.",
        "orders.refund",
        {"order_id": "O-1", "refund_amount": 80, "currency": "USD"},
        None,
    ),
    (
        "Bill adjustments above 500 USD| require a supervisor, except meter-read corrections signed by the field lead.",
        "adjust_bill",
        {"account_id": "A-1", "amount": 120, "currency": "USD"},
        None,
    ),
    (
        "Bans on accounts with more than 1M followers| = high-profile bans; need T&S director "
        "sign-off unless pre-cleared.",
        "accounts.ban",
        {"account_id": "U-1", "follower_count": 52000},
        None,
    ),
    (
        "Sessions longer than 12 hours| = long sessions; need security sign-off unless pre-cleared.",
        "create_session",
        {"user": "u", "duration_hours": 4},
        None,
    ),
    (
        "Exports to non-approved vendors| require Privacy Office review.",
        "sis.export_records",
        {"vendor": "Parchment", "record_count": 10},
        {"approved vendors": ["National Student Clearinghouse", "Parchment"]},
    ),
]
_base = st.sampled_from(BASES)
# An unread word: not a connector, and not a word that states the rule's force ('only', 'must',
# 'never' end the gate there: what follows is the predicate, so nothing was inserted in the gate).
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(
    lambda w: (
        w not in {"the", "for", "from", "into", "onto", "via", "with"}
        and not NORMATIVE.fullmatch(w)
    )
)


def _rule(marked: str) -> str:
    return marked.replace("|", "")


def _in_reach(marked: str, tool: str, args: dict, glossary: dict | None) -> bool:
    rule = _rule(marked)
    if reach(rule, tool, args, glossary) is not None:
        return False
    return outcome(rule, tool, args, glossary) != "approved"


@pytest.mark.parametrize(("marked", "tool", "args", "glossary"), BASES)
def test_every_base_is_out_of_reach(marked, tool, args, glossary):
    # each base is judged as text (not fully read, or bound to nothing here): without the gate,
    # review; with it, out of reach
    original = engine.out_of_reach
    engine.out_of_reach = lambda *a, **k: None
    try:
        assert outcome(_rule(marked), tool, args, glossary) == "pending_review"
    finally:
        engine.out_of_reach = original
    assert reach(_rule(marked), tool, args, glossary)
    assert outcome(_rule(marked), tool, args, glossary) == "approved"


_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(
    base=_base,
    join=st.sampled_from(["or", "and/or", "and", "or any", "either", "including", "such as"]),
    extra=st.sampled_from(
        ["to new sellers", "credits", "staging keys", "any refund", "legacy accounts"]
    ),
)
def test_an_unread_disjunct_widening_the_gate_keeps_the_rule_in_reach(base, join, extra):
    marked, tool, args, glossary = base
    gate, rest = marked.split("|")
    assert _in_reach(f"{gate} {join} {extra}|{rest}", tool, args, glossary)


@_SETTINGS
@given(base=_base, word=_word, data=st.data())
def test_an_unread_word_inserted_in_the_gate_keeps_the_rule_in_reach(base, word, data):
    marked, tool, args, glossary = base
    gate, rest = marked.split("|")
    parts = gate.split(" ")
    at = data.draw(st.integers(min_value=0, max_value=len(parts)))
    widened = " ".join(parts[:at] + [word] + parts[at:])
    rule = f"{widened}|{rest}"
    # a word the request happens to show (its tool, an argument) is read as the subject
    view = RequestView(tool, args, "agent", StaticHistory.from_dict(None))
    from webapp.judge.checks import abbreviates
    from webapp.judge.text import stem, words

    if view.term_matches(stem(word)):
        return
    if any(abbreviates(word, w) for w in words(" ".join([tool, *map(str, args)]))):
        return  # 'exp' written for the tool's 'export' is the subject, abbreviated
    assert _in_reach(rule, tool, args, glossary)


@_SETTINGS
@given(
    base=_base,
    second=st.sampled_from(
        [
            "; every request must cite a ticket.",
            " and must cite a ticket.",
            ". All of them must be logged.",
            "; the same applies to credits.",
            ", and refunds need a manager.",
        ]
    ),
)
def test_a_second_unread_obligation_keeps_the_rule_in_reach(base, second):
    marked, tool, args, glossary = base
    rule = _rule(marked).rstrip(".") + second
    assert reach(rule, tool, args, glossary) is None


@_SETTINGS
@given(base=_base)
def test_removing_the_argument_the_gate_reads_keeps_the_rule_in_reach(base):
    marked, tool, args, glossary = base
    read = {
        "loan_amount_usd",
        "seller_id",
        "env",
        "decision",
        "refund_amount",
        "follower_count",
        "duration_hours",
        "vendor",
    } & set(args)
    gone = sorted(read)[0] if read else "amount"
    left = {k: v for k, v in args.items() if k != gone}
    assert _in_reach(marked, tool, left, glossary)


@_SETTINGS
@given(
    currency=st.sampled_from(["EUR", "GBP", "JPY", "CHF", "CAD", "usd ", "US Dollar", 5]),
    amount=st.floats(min_value=0, max_value=499, allow_nan=False),
)
def test_another_currency_keeps_a_currency_gate_in_reach(currency, amount):
    rule = (
        "Bill adjustments above 500 USD require a supervisor, except meter-read corrections signed "
        "by the field lead."
    )
    args = {"account_id": "A-1", "amount": amount, "currency": currency}
    if currency == "usd ":  # the same currency written loosely is read as it
        return
    assert reach(rule, "adjust_bill", args) is None
    assert (
        reach(JUMBO, "loan.approve_application", {"loan_amount": amount, "currency": currency})
        is None
    )


@_SETTINGS
@given(amount=st.one_of(st.text(max_size=12), st.lists(st.integers(), max_size=3), st.none()))
def test_an_amount_that_does_not_parse_keeps_the_rule_in_reach(amount):
    from webapp.judge.quantities import parse_number_value

    if parse_number_value(amount) is not None and 0 <= parse_number_value(amount) <= 766550:
        return  # a numeric string below the line is read
    assert reach(JUMBO, "loan.approve_application", {"loan_amount_usd": amount}) is None


@_SETTINGS
@given(amount=st.floats(min_value=0, max_value=2e6, allow_nan=False))
def test_an_amount_gate_reads_the_boundary_table(amount):
    args = {"app_id": "A-1", "loan_amount_usd": amount}
    out = reach(JUMBO, "loan.approve_application", args) is not None
    assert out == (amount <= 766550)


# An understood rule decides exactly as before: the gate is asked of rules judged as text only.
UNDERSTOOD = [
    ("Refunds over 500 USD need a team lead.", "orders.refund"),
    ("Payouts must not exceed 10,000 EUR.", "payouts.create"),
    ("Wire transfers to IR or KP are forbidden.", "wire_transfer"),
]


@_SETTINGS
@given(
    case=st.sampled_from(UNDERSTOOD),
    amount=st.integers(min_value=0, max_value=20000),
    currency=st.sampled_from(["USD", "EUR"]),
    country=st.sampled_from(["US", "IR", "DE"]),
)
def test_an_understood_rule_decides_exactly_as_before(case, amount, currency, country):
    rule, tool = case
    assert compile_rule(0, "c0", rule).decides
    args = {"amount": amount, "currency": currency, "country": country}
    with_gates = judge(rule, tool, args)
    original = engine.out_of_reach
    engine.out_of_reach = lambda *a, **k: None
    try:
        without = judge(rule, tool, args)
    finally:
        engine.out_of_reach = original
    assert (with_gates.decision, with_gates.reason_code, with_gates.confidence) == (
        without.decision,
        without.reason_code,
        without.confidence,
    )
    assert "out_of_reach" not in with_gates.details


@_SETTINGS
@given(
    extra=st.sampled_from(
        [
            "Payouts must not exceed 10,000 EUR.",
            "Payouts to KP are forbidden.",
            "Payouts must include a reference.",
        ]
    ),
    amount=st.integers(min_value=0, max_value=20000),
    country=st.sampled_from(["US", "KP"]),
    ref=st.sampled_from([None, "INV-1"]),
)
def test_a_rule_out_of_reach_never_lifts_another_rules_verdict(extra, amount, country, ref):
    args = {"seller_id": "S-31002", "amount": amount, "currency": "EUR", "country": country}
    if ref:
        args["reference"] = ref
    rules = [HELD, extra]
    with_gates = judge(rules, "payouts.create", args, SELLERS)
    original = engine.out_of_reach
    engine.out_of_reach = lambda *a, **k: None
    try:
        without = judge(rules, "payouts.create", args, SELLERS)
    finally:
        engine.out_of_reach = original
    if without.decision == "deny":
        assert with_gates.decision == "deny"
    if with_gates.decision == "allow":
        # only the out-of-reach rule's review was lifted: every other rule allowed it
        assert without.details.get("relevant_text_rules") and not without.details.get("fired")


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(max_size=200),
    args=st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.integers(), st.text(max_size=8), st.booleans()),
        max_size=4,
    ),
)
def test_a_rule_of_any_shape_never_crashes_the_gate(text, args):
    view = RequestView("payouts.create", args, "agent", StaticHistory.from_dict(None))
    out_of_reach(text, view, Glossary.of(SELLERS))


def test_a_policy_whose_only_rule_is_out_of_reach_has_spoken():
    v = judge(ROTATE, "kms.rotate_key", {"key_alias": "alias/x", "env": "staging"})
    assert v.decision == "allow" and v.confidence >= 0.9
    assert "does not reach this request" in v.reason
    # beside a rule that holds, the citations are that rule's alone
    rules = [ROTATE, "Key rotations must reference a change ticket."]
    v = judge(
        rules,
        "kms.rotate_key",
        {"key_alias": "alias/x", "env": "staging", "change_ticket": "CHG-1"},
    )
    assert v.decision == "allow"
    assert [c.text for c in v.citations] == [rules[1]]
