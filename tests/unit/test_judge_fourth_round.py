"""The fourth round's failure classes, each on several phrasings of our own (never a bench set).

Named identifiers joined by and/or; a role that approves ('need a sales manager'); 'unless' on a
state field named by a phrase; conditional lists on a weight; exclusive review thresholds; caps
on durations; freezes naming the kind; quorums from the rule text; and cautions.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.judge.compiler import compile_rule, quorum_of
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256("|".join(rules).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def outcome(rule: str, tool: str, args: dict) -> str:
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [_policy([rule])], StaticHistory.from_dict(None)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


ARN = "arn:aws:iam::aws:policy/"


@pytest.mark.parametrize(
    "rule",
    [
        "Policies AdministratorAccess and PowerUserAccess must not be attached to users",
        "Never attach PowerUserAccess or AdministratorAccess",
        "The policies AdministratorAccess, IAMFullAccess and PowerUserAccess may not be attached",
        "Do not attach the policies AdministratorAccess or PowerUserAccess.",
    ],
)
def test_every_named_identifier_is_listed_and_an_arn_ending_in_one_matches(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert {"AdministratorAccess", "PowerUserAccess"} <= set(check.values)
    assert "last segment" in check.reading()
    tool = "attach_user_policy"
    assert outcome(rule, tool, {"user": "b", "policy_arn": ARN + "PowerUserAccess"}) == "denied"
    assert outcome(rule, tool, {"user": "b", "policy_arn": ARN + "ReadOnlyAccess"}) == "approved"
    listed = {"user": "b", "policy_arns": [ARN + "ReadOnlyAccess", ARN + "AdministratorAccess"]}
    assert outcome(rule, tool, listed) == "denied"  # a list-valued argument: any member
    near = {"user": "b", "policy_arn": ARN + "PowerUserAccessV2"}
    assert outcome(rule, tool, near) == "pending_review"  # a near miss: a human decides


@pytest.mark.parametrize(
    ("rule", "tool", "key", "over", "at"),
    [
        ("Discounts over 20% need a sales manager.", "apply_discount", "discount_percent", 25, 20),
        (
            "Salary increases above 10% require an HR director",
            "change_salary",
            "increase_percent",
            12,
            10,
        ),
        (
            "Purchase orders above 10,000 EUR require a procurement lead",
            "create_po",
            "amount",
            12000,
            10000,
        ),
        ("Claims over $2,500 need an adjuster's sign-off", "pay_claim", "amount", 2600, 2500),
        ("Trades over 1M USD go to the risk desk", "place_trade", "notional", 2_000_000, 1_000_000),
        (
            "Claim payouts above $5,000 must be reviewed by a claims adjuster.",
            "pay_claim",
            "amount",
            5000.01,
            5000,
        ),
    ],
)
def test_a_role_that_approves_is_a_review_threshold_and_over_is_exclusive(
    rule, tool, key, over, at
):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert all(c.effect == "review" for c in compiled.checks)
    assert all(c.kind != "required_argument" for c in compiled.checks)
    cur = {"currency": "EUR" if "EUR" in rule else "USD"} if key in ("amount", "notional") else {}
    assert outcome(rule, tool, {"ref": "R-1", key: over, **cur}) == "pending_review"
    assert outcome(rule, tool, {"ref": "R-1", key: at, **cur}) == "approved"


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ("Claims may not be paid unless the claim status is approved.", "claim_status"),
        ("Claims may not be paid unless the claim status is approved.", "status"),
        ("Orders can't be shipped unless the payment status is settled", "payment_status"),
        (
            "Offers may not be sent except when the background check status is cleared",
            "background_check_status",
        ),
    ],
)
def test_unless_a_state_field_inverts_on_the_field_the_phrase_names(rule, field):
    value = rule.rstrip(".").split()[-1]
    tool = {"Claims": "pay_claim", "Orders": "ship_order", "Offers": "send_offer"}[rule.split()[0]]
    assert outcome(rule, tool, {"claim_id": "C-1", field: value}) == "approved"
    assert outcome(rule, tool, {"claim_id": "C-1", field: "pending"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "key", "over", "under"),
    [
        ("Session duration: 12 hours max", "duration_hours", 13, 12),
        ("API tokens must not be valid for more than 90 days", "ttl_days", 120, 90),
        (
            "Temporary credentials must not be issued for longer than 1 hour",
            "duration_minutes",
            90,
            60,
        ),
    ],
)
def test_caps_on_durations_bind_arguments_named_after_the_unit(rule, key, over, under):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    reading = compiled.checks[0].reading()
    assert "duration" in reading and ("hours" in reading or "days" in reading)
    tool = {"Session": "create_session", "API": "create_token", "Temporary": "issue_credentials"}[
        rule.split()[0]
    ]
    assert outcome(rule, tool, {"name": "x", key: over}) == "denied"
    assert outcome(rule, tool, {"name": "x", key: under}) == "approved"


@pytest.mark.parametrize(
    ("rule", "key", "name"),
    [
        ("The ACME-7 vendor account is frozen.", "vendor", "ACME-7"),
        ("Vendor account V-1029 is frozen until further notice", "vendor_id", "V-1029"),
        ("The checkout-web service is frozen for the holidays", "service", "checkout-web"),
    ],
)
def test_a_freeze_naming_its_kind_refuses_that_value_only(rule, key, name):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "update_record", {key: name, "note": "x"}) == "denied"
    assert outcome(rule, "update_record", {key: "OTHER-2", "note": "x"}) == "approved"


@pytest.mark.parametrize(
    ("rule", "n"),
    [
        ("Payments over 50,000 EUR require approval from two reviewers", 2),
        ("Block trades need sign-off from 3 approvers", 3),
        ("Wires above $1M require four-eyes approval", 2),
        ("Payments over 50,000 EUR need a manager's approval", 0),
        ("Two payments per day at most", 0),
    ],
)
def test_the_quorum_a_rule_asks_for(rule, n):
    assert quorum_of(rule) == n


def test_a_quorum_rule_puts_required_approvals_on_the_review_verdict():
    rule = "Payments over 50,000 EUR require approval from two reviewers"
    v = evaluate(
        ClearanceQuery("send_payment", {"amount": 60000, "currency": "EUR"}, "a"),
        [_policy([rule])],
        StaticHistory.from_dict(None),
    )
    assert v.decision == "review" and v.details["required_approvals"] == 2
    assert v.details["required_approvals_rule"] == rule
    v = evaluate(
        ClearanceQuery("send_payment", {"amount": 40000, "currency": "EUR"}, "a"),
        [_policy([rule])],
        StaticHistory.from_dict(None),
    )
    assert v.decision == "allow" and "required_approvals" not in v.details


@pytest.mark.parametrize(
    "rule",
    [
        "Be careful with unusually large payouts.",
        "Avoid large payouts late on Fridays.",
        "Make sure payouts look normal.",
    ],
)
def test_a_caution_is_never_ignored(rule):
    assert outcome(rule, "send_payout", {"payee_id": "P-1", "amount": 90000}) == "pending_review"


_FRAGMENTS = st.sampled_from(
    [
        "AdministratorAccess",
        "and",
        "or",
        "ACME-7",
        "vendor",
        "account",
        "is",
        "frozen",
        "need",
        "a",
        "sales",
        "manager",
        "over",
        "20%",
        "12 hours",
        "max",
        "unless",
        "the",
        "claim",
        "status",
        "approved",
        "two",
        "reviewers",
        "kg",
        "30",
        "only",
        "by",
        "carriers",
        "p5.48xlarge",
        ":",
        ",",
        "Kuehne+Nagel",
        "until",
        "further",
        "notice",
        "must",
        "not",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_FRAGMENTS, min_size=1, max_size=18))
def test_rules_built_from_the_new_recognisers_fragments_never_crash(parts):
    text = " ".join(parts)
    compiled = compile_rule(0, "c:r0", text)
    for check in compiled.checks:
        assert isinstance(check.reading(), str)
    v = evaluate(
        ClearanceQuery("pay", {"amount": 5, "vendor": "ACME-7", "status": "approved"}, "a"),
        [_policy([text])],
        StaticHistory.from_dict(None),
    )
    assert v.reason_code != "judge_unavailable"


@pytest.mark.parametrize(
    "rule",
    [
        "Shipments heavier than 30 kg may only be sent by freight carriers DHL Freight or Kuehne+Nagel.",
        "Shipments over 30 kg may only go with carriers DHL Freight or Kuehne+Nagel",
        "Shipments above 30kg can only be shipped via carriers Kuehne+Nagel, DHL Freight",
    ],
)
def test_a_conditional_allow_list_on_a_weight_with_multi_word_names(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "30 kg" in compiled.checks[0].reading()
    tool = "create_shipment"
    assert outcome(rule, tool, {"weight_kg": 45, "carrier": "UPS"}) == "denied"
    assert outcome(rule, tool, {"weight_kg": 45, "carrier": "DHL Freight"}) == "approved"
    assert outcome(rule, tool, {"weight_kg": 45, "carrier": "Kuehne+Nagel"}) == "approved"
    assert outcome(rule, tool, {"weight_kg": 20, "carrier": "UPS"}) == "approved"


def test_a_glossary_category_in_the_subject_conditions_a_duration_cap():
    from webapp.judge.vocabulary import Glossary

    rule = "Controlled substances can't be prescribed for more than 30 days."
    glossary = {"controlled substances": ["oxycodone", "fentanyl", "morphine"]}
    compiled = compile_rule(0, "c:r0", rule, Glossary.of(glossary))
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "glossary's controlled substances" in compiled.checks[0].reading()
    assert compile_rule(0, "c:r0", rule).understanding == "partly_understood"

    def judged(args: dict) -> str:
        v = evaluate(
            ClearanceQuery("prescribe", args, "a"),
            [_policy([rule])],
            StaticHistory.from_dict(None),
            glossary=glossary,
        )
        if v.decision == "deny":
            return "denied"
        return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"

    assert judged({"patient_id": "P", "drug": "morphine", "days_supply": 45}) == "denied"
    assert judged({"patient_id": "P", "drug": "morphine", "days_supply": 30}) == "approved"
    # Not a listed member, and no argument is named for the category: a human decides.
    assert judged({"patient_id": "P", "drug": "amoxicillin", "days_supply": 60}) != "approved"


@pytest.mark.parametrize(
    ("rule", "tool", "flag"),
    [
        ("Don't email customers who opted out", "send_email", "opted_out"),
        ("Never email contacts that have unsubscribed", "send_email", "unsubscribed"),
        (
            "Loyalty points can't be granted to members whose account is suspended.",
            "grant_points",
            "account_suspended",
        ),
    ],
)
def test_a_relative_clause_of_state_reads_the_flag_named_for_it(rule, tool, flag):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "flag or a state argument" in compiled.checks[0].reading()
    assert outcome(rule, tool, {"to": "a@b.example", "points": 5, flag: True}) == "denied"
    assert outcome(rule, tool, {"to": "a@b.example", "points": 5, flag: False}) == "approved"
    assert outcome(rule, tool, {"to": "a@b.example", "points": 5}) == "pending_review"


def test_a_state_field_with_another_value_lifts_a_whose_clause():
    rule = "Loyalty points can't be granted to members whose account is suspended."
    args = {"member_id": "M-1", "points": 100}
    assert outcome(rule, "grant_points", {**args, "account_state": "suspended"}) == "denied"
    assert outcome(rule, "grant_points", {**args, "account_state": "active"}) == "approved"
    # An id is not the account's state: without a state argument a human decides.
    assert outcome(rule, "grant_points", {**args, "account_id": "A-1"}) == "pending_review"


@pytest.mark.parametrize(
    "rule",
    [
        "POs must name a cost center and must not exceed 20,000 EUR",
        "All POs need a cost center and must stay under 20,000 EUR",
    ],
)
def test_the_plural_of_an_acronym_names_the_tool(rule):
    base = {"supplier": "X", "amount": 5000, "currency": "EUR"}
    assert outcome(rule, "create_po", base) == "denied"  # no cost center
    assert outcome(rule, "create_po", {**base, "cost_center": "CC-1"}) == "approved"
    assert outcome(rule, "create_po", {**base, "amount": 25000, "cost_center": "CC-1"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "flag"),
    [("MFA must be enabled for console users", "mfa_enabled"), ("MFA must be enabled", "mfa")],
)
def test_a_subject_that_must_be_enabled_reads_its_own_flag(rule, flag):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "create_console_user"
    assert outcome(rule, tool, {"user": "u", flag: False}) == "denied"
    assert outcome(rule, tool, {"user": "u", flag: True}) == "approved"
    # Another switch that happens to be called enabled is not the subject's flag.
    assert outcome(rule, tool, {"user": "u", "logging_enabled": True}) != "approved"


@pytest.mark.parametrize(
    ("rule", "key", "name"),
    [
        ("Freeze: warehouse WH-04", "warehouse", "WH-04"),
        ("Change freeze: payments-api", "service", "payments-api"),
    ],
)
def test_a_terse_freeze_with_a_colon(rule, key, name):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "update", {key: name}) == "denied"


@pytest.mark.parametrize(
    ("rule", "key", "over", "at"),
    [
        ("Markdowns cant ever go beyond 35 %.", "markdown_pct", 50, 35),
        ("Markdowns dont go above 35%", "markdown_pct", 36, 35),
        ("Dosage change: 10 mg max per step.", "step_mg", 11, 10),
        ("Dose changes must not exceed 0.01 g", "change_mg", 11, 10),
    ],
)
def test_bare_contractions_and_milligrams(rule, key, over, at):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "set_markdown" if "arkdown" in rule else "change_dosage"
    assert outcome(rule, tool, {"item": "x", key: over}) == "denied"
    assert outcome(rule, tool, {"item": "x", key: at}) == "approved"


def test_nobody_gets_a_glossary_category():
    rule = "Nobody gets a privileged role through the agent."
    glossary = {"privileged roles": ["Org Owner", "Billing Admin"]}

    def judged(role: str) -> str:
        v = evaluate(
            ClearanceQuery("grant_role", {"user": "b@corp.example", "role": role}, "a"),
            [_policy([rule])],
            StaticHistory.from_dict(None),
            glossary=glossary,
        )
        return v.decision

    assert judged("Org Owner") == "deny"
    assert judged("Viewer") == "allow"
    assert judged("Billing Administrator") == "review"  # close to a member: a human decides


@pytest.mark.parametrize(
    ("rule", "key", "inside", "outside"),
    [
        ("Data must be hosted in an EU member state.", "hosting_country", "Finland", "Switzerland"),
        ("Backups must stay in Germany or France", "region", "FR", "US"),
        ("Customer data must remain within the EEA", "country", "NO", "BR"),
    ],
)
def test_where_a_thing_must_be_is_an_allow_list_of_places(rule, key, inside, outside):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "create_backup" if "Backups" in rule else "store_data"
    assert outcome(rule, tool, {"name": "b1", key: inside}) == "approved"
    assert outcome(rule, tool, {"name": "b1", key: outside}) == "denied"
    assert outcome(rule, tool, {"name": "b1"}) == "pending_review"


def test_a_permission_up_to_a_bound_then_review_beyond_it():
    rule = "Bots may order up to 40 licences at a time; bigger orders need IT approval."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "order_licences", {"product": "ide", "licences": 40}) == "approved"
    assert outcome(rule, "order_licences", {"product": "ide", "licences": 41}) == "pending_review"
    # A prohibition stays one: 'must not exceed …; bigger ones need CFO approval' still denies.
    strict = "Payments must not exceed 10,000 EUR; bigger ones need CFO approval."
    args = {"amount": 12000, "currency": "EUR"}
    assert outcome(strict, "send_payment", args) == "denied"


@pytest.mark.parametrize(
    "rule",
    [
        "A single trade may not exceed 5,000 units, except the money-market funds MMF1 and MMF2.",
        "Trades must not exceed 5,000 units, other than funds MMF1 or MMF2",
    ],
)
def test_a_cap_excepted_for_named_values(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert "MMF1 or MMF2" in compiled.checks[0].reading()
    assert outcome(rule, "trade_fund", {"fund": "MMF2", "units": 9000}) == "approved"
    assert outcome(rule, "trade_fund", {"fund": "GRW4", "units": 9000}) == "denied"
    assert outcome(rule, "trade_fund", {"fund": "GRW4", "units": 5000}) == "approved"


def test_a_pronoun_after_a_named_value_reads_that_value():
    rule = "The payroll-vault secret is locked; don't rotate it."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert outcome(rule, "rotate_secret", {"secret_name": "payroll-vault"}) == "denied"
    assert outcome(rule, "rotate_secret", {"secret_name": "ci-cache-key"}) == "approved"


def test_a_glossary_term_without_a_known_qualifier_is_a_category():
    rule = "Mailings to rented address lists need marketing-ops review."
    glossary = {"rented address lists": ["datamart-q3", "leadpool-eu"]}

    def judged(lists: list[str]) -> str:
        v = evaluate(
            ClearanceQuery("send_mailing", {"mailing_id": "M", "lists": lists}, "a"),
            [_policy([rule])],
            StaticHistory.from_dict(None),
            glossary=glossary,
        )
        return v.decision

    assert judged(["spring-optins", "leadpool-eu"]) == "review"
    assert judged(["spring-optins"]) == "allow"


def test_a_domain_allow_list_ignores_identifiers():
    rule = "Reports may only be emailed to addresses at globex.io."
    args = {"report_id": "R-1", "recipient": "cfo@globex.io"}
    assert outcome(rule, "email_report", args) == "approved"
    assert outcome(rule, "email_report", {**args, "recipient": "x@gmail.com"}) == "denied"


@pytest.mark.parametrize(
    ("rule", "key", "over", "under"),
    [
        ("Temporary access: 4h max unless approved by security", "duration_hours", 6, 2),
        ("Refunds may not exceed 500 EUR unless approved by a manager", "amount", 600, 400),
    ],
)
def test_a_limit_unless_approved_by_someone_asks_for_review(rule, key, over, under):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "grant_temporary_access" if "access" in rule else "issue_refund"
    extra = {"currency": "EUR"} if key == "amount" else {}
    assert outcome(rule, tool, {"user": "u", key: over, **extra}) == "pending_review"
    assert outcome(rule, tool, {"user": "u", key: under, **extra}) == "approved"


def test_a_multiple_written_glued_to_its_number():
    rule = "Leverage above 5x is not permitted"
    assert "5x" in compile_rule(0, "c:r0", rule).checks[0].reading()
    assert outcome(rule, "open_position", {"symbol": "X", "leverage": 8}) == "denied"
    assert outcome(rule, "open_position", {"symbol": "X", "leverage": 5}) == "approved"


def test_a_first_time_counterparty_beyond_an_amount_needs_both():
    rule = "Wire transfers over €50k to new beneficiaries need compliance sign-off"
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    args = {"currency": "EUR", "beneficiary_id": "B-9"}
    assert outcome(rule, "send_wire", {**args, "amount": 60000}) == "pending_review"
    assert outcome(rule, "send_wire", {**args, "amount": 40000}) == "approved"


@pytest.mark.parametrize(
    ("rule", "tool"),
    [
        ("Employees on probation can't get a raise", "give_employee_raise"),
        ("Accounts under investigation must not be closed", "close_account"),
    ],
)
def test_a_state_named_by_a_preposition(rule, tool):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    flag = rule.split()[2]  # 'probation', 'investigation'
    assert outcome(rule, tool, {"id": "E", flag: True}) == "denied"
    assert outcome(rule, tool, {"id": "E", flag: False}) == "approved"
    assert outcome(rule, tool, {"id": "E", "status": f"on_{flag}"}) == "denied"
    assert outcome(rule, tool, {"id": "E"}) == "pending_review"


def test_a_prohibition_with_an_unread_exception_is_never_an_allow_list():
    # Before: read as 'only AdministratorAccess may be attached', which approved attaching it.
    rule = "Never attach AdministratorAccess except to break-glass roles"
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert all(getattr(c, "mode", "deny") == "deny" for c in compiled.checks)
    args = {"role": "ci", "policy_arn": ARN + "AdministratorAccess"}
    assert outcome(rule, "attach_role_policy", args) == "pending_review"


def test_a_freeze_for_some_requests_is_not_a_duration():
    rule = "The ACME-7 vendor account is frozen for payments over $1,000"
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert compile_rule(0, "c:r0", "The ACME-7 vendor account is frozen for the holidays").decides


def test_an_environment_qualifies_a_list_of_named_values():
    rule = "Policies AdministratorAccess and PowerUserAccess must not be attached to users in production"
    args = {"user": "b", "policy_arn": ARN + "AdministratorAccess"}
    tool = "attach_user_policy"
    assert outcome(rule, tool, {**args, "environment": "production"}) == "denied"
    assert outcome(rule, tool, {**args, "environment": "staging"}) == "approved"


@pytest.mark.parametrize(
    ("rule", "kind"),
    [
        ("Payments need a finance code", "required_argument"),
        ("Wires require a purpose code", "required_argument"),
        ("Deals above $100k need a VP", "numeric_limit"),
        ("Exports require a legal review", "action"),
    ],
)
def test_a_role_word_inside_a_longer_noun_is_not_a_person(rule, kind):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert [c.kind for c in compiled.checks] == [kind]
    if kind == "required_argument":
        assert "code" in compiled.checks[0].reading()


def test_what_a_percentage_is_of_is_not_the_subject():
    # Before: 'salary' was read as a subject word absent from grant_bonus, which approved 20 %.
    rule = "Bonuses over 15% of base salary require CHRO sign-off"
    compiled = compile_rule(0, "c:r0", rule)
    assert "percentage of base salary" in compiled.checks[0].reading()
    assert outcome(rule, "grant_bonus", {"employee_id": "E", "bonus_pct": 20}) == "pending_review"
    assert outcome(rule, "grant_bonus", {"employee_id": "E", "bonus_pct": 10}) == "approved"


@pytest.mark.parametrize(
    "rule",
    ["FX trades must settle in EUR, USD or GBP", "FX trades must be paid in EUR, USD or GBP"],
)
def test_must_settle_in_currencies_is_an_allow_list(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "place_fx_trade"
    assert outcome(rule, tool, {"pair": "EURJPY", "settlement_currency": "JPY"}) == "denied"
    assert outcome(rule, tool, {"pair": "EURUSD", "settlement_currency": "USD"}) == "approved"


def test_older_than_reads_through_the_boundary_table_with_units():
    rule = "Claims older than 2 years cannot be reopened"
    assert "2 years" in compile_rule(0, "c:r0", rule).checks[0].reading()
    assert outcome(rule, "reopen_claim", {"claim_id": "C", "claim_age_days": 900}) == "denied"
    assert outcome(rule, "reopen_claim", {"claim_id": "C", "claim_age_days": 100}) == "approved"


def test_a_second_money_word_qualifies_the_tools_own():
    rule = "Salary bonuses above 5,000 EUR need HR approval"
    args = {"employee_id": "E", "amount": 6000, "currency": "EUR"}
    assert outcome(rule, "grant_bonus", args) == "pending_review"
    # Another money action is still another action: a refund tool is not governed.
    assert outcome(rule, "issue_refund", args) != "denied"


def test_the_reading_of_a_quorum_rule_states_the_approvals():
    from webapp.judge.explain import rule_report

    rule = compile_rule(0, "c:r0", "Payments over 50,000 EUR require approval from two reviewers")
    (reading,) = rule_report(rule)["readings"]
    assert reading.startswith("Send to review when the amount is above 50,000 EUR")
    assert "(2 distinct approvals)" in reading


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "approved"),
        ("enabled", "approved"),
        (False, "denied"),
        ("disabled", "denied"),
        (0, "denied"),
        ("pending", "pending_review"),
    ],
)
def test_a_required_flag_reads_words_not_just_presence(value, expected):
    # Before: any non-empty string counted as on, so 'disabled' satisfied 'must be enabled'.
    rule = "MFA must be enabled for console users"
    assert outcome(rule, "create_console_user", {"user": "u", "mfa": value}) == expected


def test_a_fraction_against_a_percentage_is_doubtful():
    rule = "Discounts over 20% need a sales manager"
    assert outcome(rule, "apply_discount", {"deal": "D", "discount": 0.25}) == "pending_review"
    assert outcome(rule, "apply_discount", {"deal": "D", "discount_percent": 10}) == "approved"


def test_scoped_names_sharing_a_scope_are_not_near_each_other():
    rule = "Assigning admin-level permissions requires a security review."
    glossary = {"admin-level permissions": ["org:owner", "org:billing_admin", "repo:admin"]}

    def judged(perms: list[str]) -> str:
        v = evaluate(
            ClearanceQuery("assign_permissions", {"user": "u", "permissions": perms}, "a"),
            [_policy([rule])],
            StaticHistory.from_dict(None),
            glossary=glossary,
        )
        return v.decision

    assert judged(["repo:read", "issues:write"]) == "allow"
    assert judged(["repo:read", "repo:admin"]) == "review"  # one member listed
    assert judged(["repo:admin2"]) == "review"  # a listed name inside it: doubtful


@pytest.mark.parametrize(
    ("noun", "verb"),
    [
        ("erasures", "erase"),
        ("cancellations", "cancel"),
        ("modifications", "modify"),
        ("submissions", "submit"),
        ("revocations", "revoke"),
        ("closures", "close"),
        ("suspensions", "suspend"),
    ],
)
def test_a_noun_of_action_meets_its_verb(noun, verb):
    from webapp.judge.text import stem

    assert stem(noun) == stem(verb)


def test_data_erasures_govern_an_erase_tool():
    rule = "Data erasures must cite a privacy request number and may only be run for residents of the EEA."
    base = {"profile_id": "P-1", "resident_country": "Norway"}
    assert outcome(rule, "erase_profile", base) == "denied"
    assert outcome(rule, "erase_profile", {**base, "privacy_request_number": "PR-9"}) == "approved"
    brazil = {**base, "resident_country": "Brazil", "privacy_request_number": "PR-9"}
    assert outcome(rule, "erase_profile", brazil) == "denied"


def test_a_relation_between_two_values_is_not_read_by_an_action_check():
    # Before: 'different … than the original' matched card_last4 and original_card_last4 and
    # denied every refund, the same card included, labelled understood.
    # Now (jsame) it is the relation itself (SameValue); a last four digits is not the card.
    rule = "Refunds to a different card than the original are forbidden"
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood" or [c.kind for c in compiled.checks] == [
        "same_value"
    ]
    args = {"order_id": "O", "card_last4": "1111", "original_card_last4": "1111"}
    assert outcome(rule, "issue_refund", args) == "pending_review"


def test_grams_in_an_argument_name_convert():
    rule = "Parcels over 2 kg may not be sent by letter post"
    args = {"service": "letter post"}
    assert outcome(rule, "create_shipment", {**args, "weight_g": 3500}) == "denied"
    assert outcome(rule, "create_shipment", {**args, "weight_g": 1500}) == "approved"


def test_places_after_the_verb_condition_an_obligation():
    rule = "Do not contact leads from the EU without consent"
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    tool = "contact_lead"
    assert outcome(rule, tool, {"lead_id": "L", "country": "FR", "consent": False}) == "denied"
    assert outcome(rule, tool, {"lead_id": "L", "country": "FR", "consent": True}) == "approved"
    assert outcome(rule, tool, {"lead_id": "L", "country": "US", "consent": False}) == "approved"
