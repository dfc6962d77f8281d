"""Rules labelled "understood" but misread so that they approved (helper jmis2, seventh session).

The red team (jred) left these in the compiled layer. Each class is tested with phrasings of
several domains, every policy carrying a second, understood and satisfied rule (a ticket), so a
misreading shows as an approval at full confidence. A rule the engine cannot read exactly stays
partly understood, and a bound it cannot place is unknown (review):

- a second subject after the predicate ('… as do payouts to new sellers', '… too', '(same for
  …)', ': also …', 'likewise …', 'and so do …');
- a preposition that orders or excludes ('beyond staging', 'besides domestic parcels') whose
  object a check took for subject words;
- a bound with a second candidate argument ('max_depth_m' beside 'depth_m'), or a unit price
  beside a quantity;
- an act performed by an argument (`drop_source: true`, `role: "admin"`);
- a closed dimension's word shown by other arguments than the one naming the dimension (two
  countries beside `wire_type: domestic`, `via: vpn` beside `session_type: onsite`), and 'prd'.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket as outcome
from webapp.judge.compiler import compile_rule

_PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- a second subject after the predicate --------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Payouts over $10,000 need review as do payouts to new sellers.",
            "payments.payout",
            {"amount": 200, "currency": "USD", "seller_status": "new"},
        ),
        (
            "Payouts over $10,000 need review — payouts to new sellers too.",
            "payments.payout",
            {"amount": 200, "currency": "USD", "seller_status": "new"},
        ),
        (
            "Payouts over $10,000 need review (same for payouts to new sellers).",
            "payments.payout",
            {"amount": 200, "currency": "USD", "seller_status": "new"},
        ),
        (
            "Payouts over $10,000 need review: also payouts to new sellers.",
            "payments.payout",
            {"amount": 200, "currency": "USD", "seller_status": "new"},
        ),
        (
            "Bulk exports over 10,000 rows require review, likewise exports of health data.",
            "data.export",
            {"rows": 20, "dataset": "health_records"},
        ),
        (
            "Leases longer than 5 years need legal, and so do leases with break clauses.",
            "re.sign_lease",
            {"term_years": 2, "break_clause": True},
        ),
        (
            "Orders above 5,000 USD need approval - orders from new customers as well.",
            "shop.create_order",
            {"amount": 30, "currency": "USD", "customer_status": "new"},
        ),
    ],
)
def test_a_second_subject_after_the_predicate_is_not_dropped(rule, tool, args):
    assert compile_rule(0, "c:r0", rule).understanding == "partly_understood"
    assert outcome(rule, tool, args) == "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        "Every SO must reference a customer PO number.",  # 'SO' is an order, not 'so do'
        "Refunds must be logged as is required by law.",
        "Payouts over $10,000 need review.",
    ],
)
def test_words_like_a_second_subject_marker_leave_other_rules_alone(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(w in compiled.unaccounted for w in ("so must", "as is", "too", "also"))


_SECOND = st.sampled_from(
    [
        ", as do {s}",
        " as are {s}",
        " — {s} too",
        " ({s} as well)",
        " (same for {s})",
        " (the same goes for {s})",
        "; likewise {s}",
        ": also {s}",
        ", and so do {s}",
    ]
)
_SECOND_SUBJECTS = st.sampled_from(
    ["payouts to new sellers", "refunds to gift cards", "payouts flagged by risk"]
)


@_PROPERTY
@given(second=_SECOND, subject=_SECOND_SUBJECTS)
def test_property_a_second_subject_keeps_the_rule_partly_understood(second, subject):
    rule = "Payouts over $10,000 need review" + second.format(s=subject) + "."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    args = {"amount": 200, "currency": "USD", "seller_status": "new", "destination": "gift_card"}
    assert outcome(rule, "payments.payout", args) != "approved"


# -- a preposition that orders or excludes -------------------------------------------------------
_EXCLUDING = st.sampled_from(
    ["beyond", "past", "besides", "beside", "outside", "excluding", "other than", "apart from"]
)
_SUBJECTS = st.sampled_from(
    [
        ("Deploys", "ci.deploy", "env"),
        ("Firmware rollouts", "fleet.rollout_firmware", "fleet"),
        ("Promotions", "release.promote", "ring"),
        ("Shipments", "logistics.ship", "shipment_type"),
    ]
)
_OBJECTS = st.sampled_from(["staging", "the pilot fleet", "canary", "domestic parcels"])


@_PROPERTY
@given(prep=_EXCLUDING, subject=_SUBJECTS, obj=_OBJECTS)
def test_property_an_excluding_preposition_is_never_read_as_subject_words(prep, subject, obj):
    noun, tool, key = subject
    rule = f"{noun} {prep} {obj} need CAB approval."
    compiled = compile_rule(0, "c:r0", rule)
    # understood only when a check compares with the object ('Send to review unless an argument
    # is staging'), never when the object is taken for subject words
    listed = {str(v).lower() for c in _flat(compiled.checks) for v in getattr(c, "values", ())}
    assert compiled.understanding != "understood" or obj.split()[-1] in listed
    # a request naming something else: 'beyond staging' is not ruled out by `env: production`
    assert outcome(rule, tool, {key: "production"}) != "approved"


def test_a_plain_preposition_still_reads_its_object():
    rule = "Deploys to staging need CAB approval."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome(rule, "ci.deploy", {"env": "dev"}) == "approved"
    assert outcome(rule, "ci.deploy", {"env": "staging"}) == "pending_review"


def test_a_place_or_a_law_after_the_preposition_is_read_as_before():
    # 'outside the EU' is a list of places a check compares with; 'under GDPR' names a law
    rule = "Data exports to regions outside the EU are prohibited under GDPR."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


# -- a bound with two candidate arguments --------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "key", "other"),
    [
        (
            "Dives deeper than 30 m require a dive supervisor.",
            "ops.plan_dive",
            "depth_m",
            "max_depth_m",
        ),
        (
            "Loads heavier than 2,000 kg need a rigging plan.",
            "crane.lift",
            "weight_kg",
            "gross_weight_kg",
        ),
        (
            "Flights above 12,000 ft need an oxygen plan.",
            "aviation.file_plan",
            "altitude_ft",
            "max_altitude_ft",
        ),
    ],
)
def test_a_second_argument_of_the_measure_is_not_ignored(rule, tool, key, other):
    compiled = compile_rule(0, "c:r0", rule)
    threshold = next(c for c in _flat(compiled.checks) if hasattr(c, "threshold")).threshold
    low, high = threshold * 0.5, threshold * 1.3
    assert outcome(rule, tool, {key: low, other: high}) == "pending_review"
    assert outcome(rule, tool, {key: low, other: threshold * 0.8}) == "approved"


def _flat(checks):
    out = []
    for c in checks:
        out.append(c)
        for name in ("base", "condition", "body", "fallback"):
            inner = getattr(c, name, None)
            if inner is not None:
                out.extend(_flat([inner]))
    return out


@_PROPERTY
@given(
    low=st.floats(min_value=1, max_value=29.9),
    other=st.floats(min_value=30.5, max_value=500),
    name=st.sampled_from(["max_depth_m", "planned_depth_m", "target_depth_m"]),
)
def test_property_two_candidate_arguments_for_one_bound_are_never_passed(low, other, name):
    rule = "Dives deeper than 30 m require a dive supervisor."
    assert outcome(rule, "ops.plan_dive", {"depth_m": low, name: other}) != "approved"


@_PROPERTY
@given(
    price=st.integers(min_value=10, max_value=4_999),
    quantity=st.integers(min_value=2, max_value=1_000),
    key=st.sampled_from(["quantity", "qty", "count"]),
)
def test_property_a_unit_price_is_judged_with_its_quantity(price, quantity, key):
    rule = "Purchases above $5,000 need a manager's approval."
    got = outcome(rule, "procure.create_po", {"unit_price_usd": price, key: quantity})
    if price * quantity > 5_000:
        assert got == "pending_review"
    else:
        assert got == "approved"


# -- an act performed by an argument -------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Granting admin rights needs CISO approval.",
            "iam.create_user",
            {"user": "eve", "role": "admin"},
        ),
        (
            "Granting admin rights needs CISO approval.",
            "iam.promote_user",
            {"user": "eve", "role": "admin"},
        ),
        (
            "Superuser grants need a CISO sign-off.",
            "db.create_role",
            {"role_name": "ops", "superuser": True},
        ),
        (
            "Deleting customer data needs DPO approval.",
            "data.migrate_customer_data",
            {"source": "db1", "target": "db2", "drop_source": True},
        ),
        (
            "Revoking MFA needs security approval.",
            "iam.update_user",
            {"user": "x", "revoke_mfa": True},
        ),
        (
            "Purging audit logs requires a CISO.",
            "logs.archive_logs",
            {"stream": "audit", "purge_after_archive": True},
        ),
    ],
)
def test_an_act_an_argument_performs_is_the_requests_act(rule, tool, args):
    assert outcome(rule, tool, args) == "pending_review"


def test_an_act_flag_is_reviewed_and_one_that_is_off_performs_nothing():
    rule = "Deleting customer data is forbidden."
    base = {"source": "db1", "target": "db2"}
    tool = "data.migrate_customer_data"
    # the flag's name is no proof of the act the rule means: review, never a denial on it alone
    assert outcome(rule, tool, {**base, "drop_source": True}) == "pending_review"
    assert outcome(rule, tool, {**base, "drop_source": False}) == "approved"
    assert outcome(rule, tool, {**base, "drop_source": "no"}) == "approved"
    # ('skip_delete': true and 'deleted': true are denied, as before this change: the argument's
    # name shows the rule's word; see docs/judge.md, left)


# -- a closed dimension shown by other arguments -------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "International wires need a compliance sign-off.",
            "bank.send_wire",
            {"wire_type": "domestic", "from_country": "US", "to_country": "DE", "amount": 1},
            "pending_review",
        ),
        (
            "International wires need a compliance sign-off.",
            "bank.send_wire",
            {"wire_type": "domestic", "from_country": "US", "to_country": "US", "amount": 1},
            "approved",
        ),
        (
            "Remote sessions into OT networks are not allowed.",
            "ot.open_session",
            {"session_type": "onsite", "via": "vpn", "network": "ot-plant-3"},
            "pending_review",
        ),
        (
            "Remote sessions into OT networks are not allowed.",
            "ot.open_session",
            {"session_type": "onsite", "via": "badge", "network": "ot-plant-3"},
            "approved",
        ),
    ],
)
def test_a_closed_dimension_contradicted_by_other_arguments(rule, tool, args, expected):
    assert outcome(rule, tool, args) == expected


@_PROPERTY
@given(
    shape=st.sampled_from(["{w}-eu-1", "{w}_payments_kek", "ring-{w}", "{w}"]),
    word=st.sampled_from(["prd", "PRD", "prod", "production"]),
    key=st.sampled_from(["key_id", "cluster", "alias"]),
)
def test_property_prd_is_production_to_the_compiled_checks(shape, word, key):
    rule = "Signing with production keys requires security approval."
    args = {"env": "staging", key: shape.format(w=word)}
    assert outcome(rule, "kms.sign", args) == "pending_review"
