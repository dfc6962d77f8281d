"""Red team of the scope of a negation or an exclusion (jred8).

'Inviting users from a domain not on our allowlist (northwind.com, …) needs IT approval' was read
as a review of the listed domains, which approved every other domain. The class is wider: 'not
among', 'excluding', 'that are not X or Y', 'any country but', 'besides', '!in', a negated
heading ('Not allowed: RU, BY'), a permission closing the clause ('Roles other than admin may be
granted freely'), a 'not' inside a list ('only US and CA, not MX'). Each is now read exactly (the
values outside the list) or left partly understood (review); near-misses keep deciding.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome as _judge
from webapp.judge.compiler import compile_rule, split_clauses

# ---- the values outside the list: (rule, tool, args of an outside value, expected, args of a
# listed value, expected)
OUTSIDE_CASES = [
    (
        "Payments: countries not among US, CA, GB require finance review.",
        "payments.send",
        {"country": "DE", "amount": 10},
        "pending_review",
        {"country": "GB", "amount": 10},
        "pending_review",  # the heading 'Payments:' is left unread (dev_jred8-08); never denied
    ),
    (
        "Data exports to regions excluding eu-west-1 and eu-central-1 are prohibited.",
        "data.export",
        {"region": "us-east-1", "dataset": "orders"},
        "denied",
        {"region": "eu-central-1", "dataset": "orders"},
        "approved",
    ),
    (
        "Transfers to countries that are not US or CA are forbidden.",
        "transfer.create",
        {"country": "MX", "amount": 1},
        "denied",
        {"country": "CA", "amount": 1},
        "approved",
    ),
    (
        "Transfers to any country but Germany and France are not permitted.",
        "transfer.create",
        {"country": "IT", "amount": 1},
        "denied",
        {"country": "FR", "amount": 1},
        "approved",
    ),
    (
        "Never deploy to anything but the approved regions: us-east-1, eu-west-1.",
        "deploy.run",
        {"region": "ap-south-1", "service": "api"},
        "denied",
        {"region": "eu-west-1", "service": "api"},
        "approved",
    ),
    (
        "No roles besides read-only may be granted.",
        "iam.grant_role",
        {"user": "bob", "role": "admin"},
        "pending_review",  # no argument is named for roles here: a human decides
        {"user": "bob", "role": "read-only"},
        "approved",
    ),
    (
        "country !in [US, CA] => deny",
        "payments.send",
        {"country": "MX", "amount": 5},
        "denied",
        {"country": "US", "amount": 5},
        "approved",
    ),
    (
        "Refunds in currencies not listed (USD, EUR) need review.",
        "refund.issue",
        {"currency": "GBP", "amount": 5},
        "pending_review",
        {"currency": "USD", "amount": 5},
        "approved",
    ),
    (
        "Payments not to US or CA are forbidden.",
        "payments.send",
        {"country": "MX", "amount": 5},
        "denied",
        {"country": "US", "amount": 5},
        "approved",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "outside", "exp_out", "listed", "exp_in"), OUTSIDE_CASES)
def test_the_rule_speaks_of_the_values_outside_the_list(
    rule, tool, outside, exp_out, listed, exp_in
):
    assert _judge([rule], tool, outside) == exp_out
    assert _judge([rule], tool, listed) == exp_in


# ---- 'without an X address', 'not ending in X', 'apart from … is off-limits': the outside
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Invites to users without an acme.com address need approval.",
            "users.invite",
            {"email": "a@gmail.com"},
            "pending_review",
        ),
        (
            "Invites to users without an acme.com address need approval.",
            "users.invite",
            {"email": "a@acme.com"},
            "approved",
        ),
        (
            "Invites to addresses not ending in acme.com need approval.",
            "users.invite",
            {"email": "a@gmail.com"},
            "pending_review",
        ),
        (
            "Invites to addresses not ending in acme.com need approval.",
            "users.invite",
            {"email": "a@acme.com"},
            "approved",
        ),
        (
            "Every country apart from US and CA is off-limits.",
            "payments.send",
            {"country": "MX", "amount": 5},
            "denied",
        ),
        (
            "Every country apart from US and CA is off-limits.",
            "payments.send",
            {"country": "US", "amount": 5},
            "approved",
        ),
        (
            "Use USD or EUR, never anything else.",
            "payments.send",
            {"currency": "GBP", "amount": 5},
            "pending_review",
        ),
    ],
)
def test_without_and_not_ending_in_speak_of_the_outside(rule, tool, args, expected):
    assert _judge([rule], tool, args) == expected


# ---- 'non-' before a place, a group of places or a currency code: the outside of it
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Payments to non-EU countries are forbidden.",
            "payments.send",
            {"country": "US"},
            "denied",
        ),
        (
            "Payments to non-EU countries are forbidden.",
            "payments.send",
            {"country": "DE"},
            "approved",
        ),
        ("Never pay non-US vendors.", "payments.send", {"country": "CA"}, "denied"),
        ("Never pay non-US vendors.", "payments.send", {"country": "US"}, "approved"),
        (
            "Refunds in non-USD currencies need review.",
            "refund.issue",
            {"currency": "EUR"},
            "pending_review",
        ),
        (
            "Refunds in non-USD currencies need review.",
            "refund.issue",
            {"currency": "USD"},
            "approved",
        ),
        # a 'non-' word that names no place or currency stays partly understood
        (
            "Non-production deploys need no approval.",
            "deploy.run",
            {"environment": "prod"},
            "pending_review",
        ),
    ],
)
def test_non_before_a_code_is_the_outside_of_it(rule, tool, args, expected):
    assert _judge([rule], tool, {**args, "amount": 5}) == expected


# ---- a permission of what lies outside a list: the listed are what it does not allow
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Roles other than admin may be granted freely.",
            "iam.grant_role",
            {"role": "admin"},
            "denied",
        ),
        (
            "Roles other than admin may be granted freely.",
            "iam.grant_role",
            {"role": "viewer"},
            "approved",
        ),
        (
            "Payments to vendors not on the sanctions list (RU, BY) are fine.",
            "payments.send",
            {"country": "RU", "amount": 1},
            "denied",
        ),
        (
            "Payments to vendors not on the sanctions list (RU, BY) are fine.",
            "payments.send",
            {"country": "DE", "amount": 1},
            "approved",
        ),
    ],
)
def test_a_permission_of_the_outside_is_a_deny_list(rule, tool, args, expected):
    assert _judge([rule], tool, args) == expected


# ---- readings that were inverted, now exact
@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        ("Not allowed: RU, BY.", "Deny when country or region is RU or BY"),
        ("Countries not permitted: RU, BY.", "Deny when country or region is RU or BY"),
        ("country !in [US, CA] => deny", "Deny when `country` is not one of US, CA"),
        ("Transfers to countries that are not US or CA are forbidden.", "Deny unless country"),
    ],
)
def test_negated_headings_and_notation_read_exactly(rule, reading):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert compiled.checks[0].reading().startswith(reading)


# ---- what no reading here is sure of stays partly understood (never decides)
@pytest.mark.parametrize(
    "rule",
    [
        "Only US payees, not CA payees, may be paid without review.",
        "We only pay US and CA, not MX.",
        "Pay only US or CA, never MX.",
        "Roles not in [viewer, editor] need approval.",
        "Datasets not classified public must not be exported.",
        "Payments to countries that are not sanctioned are fine.",
        "Payouts outside US/CA: forbidden.",  # the verdict after the colon is no list
        "Access for users not in group admins is forbidden.",
        "Contractors, not employees, need manager approval for access.",
    ],
)
def test_an_unsure_scope_is_not_understood(rule):
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


def test_a_not_inside_an_only_list_never_approves_the_excluded():
    assert _judge(["We only pay US and CA, not MX."], "payments.send", {"country": "MX"}) != (
        "approved"
    )
    assert (
        _judge(
            ["Only US payees, not CA payees, may be paid without review."],
            "payments.send",
            {"country": "CA", "amount": 1},
        )
        != "approved"
    )


# ---- 'but' of an exclusion is no clause break; 'but' between clauses still is
def test_an_exclusion_but_does_not_cut_the_clause():
    assert split_clauses("Never deploy to anything but the approved regions: a, b.") == [
        "Never deploy to anything but the approved regions: a, b"
    ]
    assert split_clauses("Transfers to any country but Germany are not permitted.") == [
        "Transfers to any country but Germany are not permitted"
    ]
    assert split_clauses("Anyone may deploy but production needs review.") == [
        "Anyone may deploy",
        "production needs review",
    ]


# ---- near-misses that look like the class
def test_a_plain_deny_list_is_unchanged():
    rule = "Transfers to IR or KP are never allowed, regardless of amount."
    assert _judge([rule], "transfer.create", {"country": "KP", "amount": 1}) == "denied"
    assert _judge([rule], "transfer.create", {"country": "DE", "amount": 1}) == "approved"


def test_places_excepted_from_a_permission_after_a_preposition_are_its_deny_list():
    rule = "Wires may go anywhere except to IR, KP or SY."
    assert _judge([rule], "wire.send", {"country": "IR", "amount": 5}) == "denied"
    assert _judge([rule], "wire.send", {"country": "DE", "amount": 5}) == "approved"


def test_an_exception_to_a_permission_stays_a_deny_list():
    rule = "Cache purges are allowed in all regions except ap-south-2."
    assert _judge([rule], "run_cache_purge", {"region": "ap-south-2"}) == "denied"
    assert _judge([rule], "run_cache_purge", {"region": "eu-central-1"}) == "approved"


def test_not_to_be_is_no_exclusion():
    rule = "Food truck licences are not to be issued for the Downtown Core zone."
    compiled = compile_rule(0, "c:r0", rule)
    assert all(getattr(c, "mode", "deny") != "allow" for c in compiled.checks)


# ---- property: a negation or exclusion put before the list of an understood deny-list either
# turns the decision on a listed and an unlisted value, or leaves the rule partly understood
# (review); it never keeps denying the listed value while approving an unlisted one
_COUNTRIES = ["US", "CA", "GB", "DE", "FR", "MX", "JP", "BR", "IN", "AU"]
_MARKERS = [
    "other than",
    "not among",
    "excluding",
    "outside of",
    "not in",
    "that are not",
    "apart from",
    "except",
    "not one of",
]
_EFFECTS = ["are forbidden", "are prohibited", "must not be made", "are not permitted"]


@settings(max_examples=60, deadline=None)
@given(
    listed=st.lists(st.sampled_from(_COUNTRIES), min_size=2, max_size=3, unique=True),
    marker=st.sampled_from(_MARKERS),
    effect=st.sampled_from(_EFFECTS),
    joiner=st.sampled_from([" or ", ", ", " and "]),
    paren=st.booleans(),
    data=st.data(),
)
def test_a_negation_before_a_list_turns_the_rule_or_leaves_it_unread(
    listed, marker, effect, joiner, paren, data
):
    values = joiner.join(listed)
    values = f"({values})" if paren else values
    base = f"Payments to countries in {values} {effect}."
    turned = f"Payments to countries {marker} {values} {effect}."
    inside = data.draw(st.sampled_from(listed))
    outside = data.draw(st.sampled_from([c for c in _COUNTRIES if c not in listed]))
    tool = "payments.send"
    base_in = _judge([base], tool, {"country": inside, "amount": 5})
    base_out = _judge([base], tool, {"country": outside, "amount": 5})
    got_in = _judge([turned], tool, {"country": inside, "amount": 5})
    got_out = _judge([turned], tool, {"country": outside, "amount": 5})
    # fail closed: the value outside the list is never approved
    assert got_out != "approved", turned
    if compile_rule(0, "c:r0", turned).understanding == "understood":
        assert (got_in, got_out) == ("approved", "denied"), turned
    else:
        assert got_in != "denied" or got_out != "approved", turned
    if base_in == "denied" and base_out == "approved":
        assert (got_in, got_out) != (base_in, base_out), turned


def test_a_code_after_a_capitalised_verb_is_still_listed():
    # 'Exclude RU and BY from all payouts': read as the phrase 'Exclude RU', RU was lost
    rule = "Exclude RU and BY from all payouts."
    assert _judge([rule], "payout.create", {"country": "RU", "amount": 5}) == "denied"
    assert _judge([rule], "payout.create", {"country": "DE", "amount": 5}) == "approved"
    # a demonym after a capitalised word is no code ('North American' is no US)
    checks = compile_rule(
        0,
        "c:r0",
        "Territory grants cannot include US or CA - those rights sit with our North American distributor.",
    ).checks
    assert all(list(getattr(c, "values", ())).count("US") <= 1 for c in checks)
