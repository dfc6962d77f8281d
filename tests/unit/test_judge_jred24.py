"""Red-team of terse allow- and deny-lists and their polarity (helper jred24).

Each vector is a rule beside the satisfied ticket rule, so a misreading shows as an approval.
Closed: a refused 'one of' read as the allow-list ('merchant category must not be one of:
gambling, crypto'); a bare list membership read by the prose as the outside of an allow-list
('country not in (RU, BY, IR)', '- env NOT IN (...)', '`currency` not in [RUB, BYN]', 'reason ∉
{…}'); plain words under an allowing heading read as a permission ('- allowed roles: viewer,
editor': now partly understood); a quoted or spaced item drawing its neighbour into the
subject ('crypto, cash on delivery'); ' & ' between two codes held as one value ('SWIFT, SEPA & FPS'); a spaced slash or
bar in an 'only' list ('court_order / fraud only'); a list of choices read as required
arguments ('a reason in: a, b'); an allow-list bound by a listed value to another argument than
the one its kind's abbreviation names ('Permitted environments' and `env`).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.memberships import bare_membership


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a refused 'one of' is a deny-list
        (
            "merchant category must not be one of: gambling, crypto",
            "card.authorize",
            {"amount": 5, "merchant_category": "gambling"},
            "denied",
        ),
        (
            "merchant category must not be one of: gambling, crypto",
            "card.authorize",
            {"amount": 5, "merchant_category": "grocery"},
            "approved",
        ),
        (
            "ship country cannot be one of: RU, BY",
            "order.ship",
            {"order_id": "o", "ship_country": "RU"},
            "denied",
        ),
        (
            "ship country cannot be one of: RU, BY",
            "order.ship",
            {"order_id": "o", "ship_country": "DE"},
            "approved",
        ),
        (
            "account type should never be one of: savings, trust",
            "account.open",
            {"customer_id": "c", "account_type": "trust"},
            "denied",
        ),
        # still an allow-list
        (
            "roles must be one of: viewer, editor",
            "iam.grant",
            {"user_id": "u", "role": "admin"},
            "denied",
        ),
        # a bare membership is a constraint
        ("country not in (RU, BY, IR)", "payment.send", {"amount": 5, "country": "RU"}, "denied"),
        ("country not in (RU, BY, IR)", "payment.send", {"amount": 5, "country": "US"}, "approved"),
        (
            "- env NOT IN ('prod', 'production')",
            "deploy.run",
            {"service": "x", "env": "prod"},
            "denied",
        ),
        (
            "- env NOT IN ('prod', 'production')",
            "deploy.run",
            {"service": "x", "env": "staging"},
            "approved",
        ),
        (
            "`currency` not in [RUB, BYN]",
            "transfer.create",
            {"amount": 5, "currency": "RUB"},
            "denied",
        ),
        (
            "`currency` not in [RUB, BYN]",
            "transfer.create",
            {"amount": 5, "currency": "USD"},
            "approved",
        ),
        (
            "- merchant category not in (gambling, crypto)",
            "card.authorize",
            {"amount": 5, "merchant_category": "gambling"},
            "denied",
        ),
        (
            "- reason \u2209 {court_order, fraud}",
            "account.freeze",
            {"account_id": "A", "reason": "fraud"},
            "denied",
        ),
        ("- region \u2208 {us-east-1, eu-west-1}", "vm.create", {"region": "ap-south-1"}, "denied"),
        (
            "- region \u2208 {us-east-1, eu-west-1}",
            "vm.create",
            {"region": "eu-west-1"},
            "approved",
        ),
        ("env in (dev, staging)", "deploy.run", {"service": "x", "env": "prod"}, "denied"),
        # a plural noun is no name notation reads: said in prose, never 'not in (' as prose
        ("- channels NOT IN (push)", "notify.send", {"user_id": "u", "channel": "push"}, "denied"),
        # ... and the outside of a list in a subject keeps its reading
        (
            "Payments to countries not in (US, CA) are prohibited",
            "payment.send",
            {"amount": 5, "country": "RU"},
            "denied",
        ),
        (
            "Payments to countries not in (US, CA) are prohibited",
            "payment.send",
            {"amount": 5, "country": "US"},
            "approved",
        ),
        # plain words under an allowing heading are all that is allowed
        (
            "- allowed roles: viewer, editor",
            "iam.grant",
            {"user_id": "u", "role": "admin"},
            "pending_review",
        ),
        (
            "- allowed scopes: read, write",
            "token.issue",
            {"user_id": "u", "scopes": ["read", "admin"]},
            "pending_review",
        ),
        (
            "- Payment methods allowed: card, bank transfer",
            "order.pay",
            {"order_id": "o", "payment_method": "crypto"},
            "pending_review",
        ),
        (
            "Allowed product categories: fuel, adblue, car_wash. Anything else -> decline.",
            "fuelcard.authorize",
            {"card_id": "F", "product_categories": ["fuel"]},
            "pending_review",
        ),
        # a quoted or spaced item never draws its neighbour into the subject
        (
            "payment method must not be one of: crypto, cash on delivery",
            "order.pay",
            {"order_id": "o", "payment_method": "cash on delivery"},
            "pending_review",
        ),
        (
            'payment method must not be one of: crypto, "cash on delivery"',
            "order.pay",
            {"order_id": "o", "payment_method": "crypto"},
            "pending_review",
        ),
        # ' & ' between codes joins two values
        (
            "- rails must not be one of: SWIFT, SEPA & FPS",
            "payout.create",
            {"amount": 5, "rail": "FPS"},
            "denied",
        ),
        (
            "- Payout rails: ACH, SEPA & FPS only",
            "payout.create",
            {"amount": 5, "rail": "FPS"},
            "approved",
        ),
        # a spaced slash or bar separates the items of an 'only' list
        (
            "- Freeze reason: court_order / fraud only",
            "account.freeze",
            {"account_id": "A", "freeze_reason": "fraud"},
            "approved",
        ),
        (
            "- Freeze reason: court_order / fraud only",
            "account.freeze",
            {"account_id": "A", "freeze_reason": "dormant"},
            "denied",
        ),
        (
            "Freeze only for: court_order | fraud",
            "account.freeze",
            {"account_id": "A", "reason": "dormant"},
            "denied",
        ),
        (
            "- lock types: temporary | permanent only",
            "user.lock",
            {"user_id": "u", "lock_type": "forever"},
            "denied",
        ),
        # a list of choices for one noun is no list of required arguments
        (
            "- Rejections must cite a reason in: incomplete, duplicate, fraud",
            "claim.reject",
            {"claim_id": "C", "reason": "duplicate"},
            "pending_review",
        ),
        # an allow-list of a kind an argument's name abbreviates is read on that argument
        (
            "Permitted environments: dev, staging.",
            "deploy.run",
            {"service": "dev", "env": "prod"},
            "pending_review",
        ),
        (
            "Permitted environments: dev, staging.",
            "deploy.run",
            {"service": "x", "env": "prod"},
            "denied",
        ),
        (
            "Permitted environments: dev, staging.",
            "deploy.run",
            {"service": "x", "env": "dev"},
            "approved",
        ),
        # an arrow after a bare membership: notation reads it, or nothing does
        (
            "- regions NOT IN (us-east-1) -> cloud review",
            "vm.create",
            {"region": "us-east-1"},
            "pending_review",
        ),
        (
            "- reason not in (court_order, fraud) -> legal review",
            "account.freeze",
            {"account_id": "A", "reason": "dormant"},
            "pending_review",
        ),
        (
            "- reason not in (court_order, fraud) -> legal review",
            "account.freeze",
            {"account_id": "A", "reason": "fraud"},
            "approved",
        ),
        # an allowing heading is never a deny-list ('Decline' is no effect here)
        (
            '- Decline reasons allowed: "do not honor", "insufficient funds"',
            "card.decline",
            {"txn_id": "T", "decline_reason": "stolen"},
            "pending_review",
        ),
    ],
)
def test_list_polarity(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        (
            "merchant category must not be one of: gambling, crypto",
            "Deny when merchant category is gambling or crypto",
        ),
        ("country not in (RU, BY, IR)", "Deny unless `country` is not one of RU, BY, IR"),
        (
            "- rails must not be one of: SWIFT, SEPA & FPS",
            "Deny when `rails` is SWIFT, SEPA or FPS",
        ),
    ],
)
def test_readings(rule: str, reading: str) -> None:
    rule_ = compile_rule(0, "p:r0", rule)
    assert rule_.understanding == "understood"
    assert "; ".join(c.reading() for c in rule_.checks) == reading


_WORD = st.sampled_from(
    ["country", "env", "merchant_category", "reason", "region", "rail", "channels", "scopes"]
)
_VALUE = st.from_regex(r"[a-z]{3,8}", fullmatch=True)


@settings(max_examples=40, deadline=None)
@given(
    arg=_WORD,
    values=st.lists(_VALUE, min_size=2, max_size=4, unique=True),
    negated=st.booleans(),
    bullet=st.sampled_from(["", "- ", "* ", "1. "]),
    brackets=st.sampled_from(["()", "[]", "{}"]),
    quote=st.sampled_from(["", "'", '"', "`"]),
)
def test_bare_membership_never_flips(
    arg: str, values: list[str], negated: bool, bullet: str, brackets: str, quote: str
) -> None:
    """A bare membership, however it is written, refuses a listed value when negated and an
    unlisted one when not: never the other way round (the prose's allow-list of a refusal)."""
    listed = ", ".join(f"{quote}{v}{quote}" for v in values)
    op = "not in" if negated else "in"
    rule = f"{bullet}{arg} {op} {brackets[0]}{listed}{brackets[1]}"
    found = bare_membership(rule)
    assert found is not None and found.negated == negated
    assert found.values == tuple(values)
    inside = outcome_beside_ticket(rule, "ops.run", {arg: values[0]})
    outside = outcome_beside_ticket(rule, "ops.run", {arg: "zzzzzzzzz"})
    if negated:
        assert inside != "approved"
    else:
        assert outside != "approved"
