"""Blind-set failure classes of issue #10 (second round), with our own phrasings.

Named literal values after a kind noun are a closed list on the argument named like the noun;
restricting phrases stay unaccounted; conditional lists, conditions on a field, freezes with a
duration, unit-noun caps and consumer mail providers decide.
"""

from __future__ import annotations

import hashlib

import pytest

from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion


def _decide(rule: str, tool: str, args: dict) -> str:
    digest = hashlib.sha256(rule.encode()).hexdigest()
    policy = PolicyVersion("p", f"pv_{digest[:12]}", digest, "", (rule,), ())
    verdict = evaluate(ClearanceQuery(tool, args, "a"), [policy], StaticHistory.from_dict(None))
    if verdict.decision == "allow" and verdict.confidence < 0.8:
        return "review"
    return verdict.decision


NAMED = [
    (
        "The buckets ml-raw and finance-archive must never be deleted.",
        "delete_bucket",
        {"bucket": "finance-archive"},
        "deny",
    ),
    (
        "The buckets ml-raw and finance-archive must never be deleted.",
        "delete_bucket",
        {"bucket": "tmp-scratch"},
        "allow",
    ),
    (
        "The buckets ml-raw and finance-archive must never be deleted.",
        "delete_bucket",
        {"name": "ml-raw"},
        "deny",
    ),
    (
        "Labels gdpr, sox and owner_team must not be stripped.",
        "strip_label",
        {"label": "sox"},
        "deny",
    ),
    (
        "Labels gdpr, sox and owner_team must not be stripped.",
        "strip_labels",
        {"labels": ["misc", "gdpr"]},
        "deny",
    ),
    (
        "Labels gdpr, sox and owner_team must not be stripped.",
        "strip_labels",
        {"labels": ["misc"]},
        "allow",
    ),
    (
        "Exports must never include the fields ssn, dob or salary.",
        "export_rows",
        {"fields": ["email", "dob"]},
        "deny",
    ),
    (
        "Exports must never include the fields ssn, dob or salary.",
        "export_rows",
        {"fields": ["email"]},
        "allow",
    ),
    (
        "Exports must never include the fields ssn, dob or salary.",
        "export_rows",
        {"field": "ssn"},
        "deny",
    ),
    (
        "Members may never be granted the roles superuser or auditor.",
        "grant_role",
        {"roles": ["viewer", "superuser"]},
        "deny",
    ),
    (
        "Members may never be granted the roles superuser or auditor.",
        "grant_role",
        {"role": "viewer"},
        "allow",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), NAMED)
def test_named_values_are_a_closed_list_on_the_argument_named_like_the_noun(
    rule, tool, args, expected
):
    assert _decide(rule, tool, args) == expected


@pytest.mark.parametrize("rule", sorted({r for r, *_ in NAMED}))
def test_a_list_of_named_values_is_never_read_as_an_argument_name_or_action_words(rule):
    compiled = compile_rule(0, "c", rule)
    assert compiled.understanding == "understood"
    reading = " ".join(c.reading() for c in compiled.checks)
    assert "contains" not in reading
    assert "requests to" not in reading


def test_literal_names_without_their_kind_noun_are_a_closed_list_on_any_argument():
    rule = "Never purge ml-raw or finance-archive."
    compiled = compile_rule(0, "c", rule)
    assert [c.reading() for c in compiled.checks] == [
        "Deny when an argument is ml-raw or finance-archive (about: purge)"
    ]
    assert _decide(rule, "purge_store", {"target": "finance-archive"}) == "deny"
    assert _decide(rule, "purge_store", {"target": "tmp-cache"}) == "allow"
    assert _decide(rule, "purge_store", {"target_id": 42}) == "review"


def test_an_action_check_does_not_account_for_literal_names_among_its_words():
    from webapp.judge.checks import ActionRule
    from webapp.judge.compiler import _accounted_stems

    rule = "Never purge ml-raw stores."
    check = ActionRule(0, rule, "deny", ("purg", "ml", "raw", "store"))
    assert not {"ml", "raw"} & _accounted_stems(rule, [check], [])


@pytest.mark.parametrize(
    "rule",
    [
        "Quotes may be shared only with members of the sales team and never with addresses "
        "outside the EU.",
        "Invoices may be sent only to contacts in our CRM, and never to addresses outside the EU.",
    ],
)
def test_a_restricting_phrase_stays_unaccounted_for(rule):
    compiled = compile_rule(0, "c", rule)
    assert compiled.understanding == "partly_understood"
    assert _decide(rule, "share_quote", {"email": "a@b.de", "country": "DE"}) == "review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"weight_kg": 31, "courier": "DHL"}, "deny"),
        ({"weight_kg": 8, "courier": "DHL"}, "allow"),
        ({"weight_kg": 31, "courier": "Colissimo"}, "allow"),
    ],
)
def test_a_conditional_allow_list_on_a_weight_decides(args, expected):
    rule = "Packages over 25 kg may only be sent through couriers Colissimo or Bpost."
    assert _decide(rule, "send_package", args) == expected


@pytest.mark.parametrize(("count", "expected"), [(2000, "allow"), (2001, "deny")])
def test_a_cap_on_a_counted_noun_binds_the_argument_named_after_it(count, expected):
    rule = "A mailing may reach at most 2,000 subscribers."
    assert _decide(rule, "send_mailing", {"subscriber_count": count}) == expected


@pytest.mark.parametrize(("balance", "expected"), [(40, "deny"), (0, "allow"), ("0.00", "allow")])
def test_only_if_on_a_field_value_decides(balance, expected):
    rule = "Memberships can only be terminated if the outstanding amount is zero."
    assert _decide(rule, "terminate_membership", {"outstanding_amount": balance}) == expected


@pytest.mark.parametrize(
    ("state", "expected"), [("verified", "allow"), ("approved", "deny"), ("draft", "deny")]
)
def test_a_satisfied_unless_lifts_the_prohibition(state, expected):
    # 'approved' is not 'verified': the exception holds only for the value the rule names.
    rule = "Payouts must not be released unless the kyc state is verified."
    assert _decide(rule, "release_payout", {"kyc_state": state}) == expected


def test_doubled_l_past_tenses_meet_the_tool_verb():
    rule = "Orders can only be cancelled if the shipment status is pending."
    assert compile_rule(0, "c", rule).understanding == "understood"


@pytest.mark.parametrize(
    "rule",
    [
        "The checkout-svc is under code freeze until further notice.",
        "The checkout-svc is frozen through the end of Q1.",
        "The checkout service is frozen until 3 January.",
        "The checkout-svc is under release freeze for the holidays.",
    ],
)
def test_a_freeze_consumes_its_duration(rule):
    compiled = compile_rule(0, "c", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    name = "checkout" if "checkout service" in rule else "checkout-svc"
    assert _decide(rule, "deploy_service", {"service": name}) == "deny"


@pytest.mark.parametrize(
    ("rule", "amount", "expected"),
    [
        ("Any claim above USD 5,000 goes to an adjuster.", 5000, "allow"),
        ("Any claim above USD 5,000 goes to an adjuster.", 5000.01, "review"),
        ("Trades over 1M USD are routed to the risk desk.", 1_000_000, "allow"),
        ("Trades over 1M USD are routed to the risk desk.", 1_000_001, "review"),
    ],
)
def test_over_and_above_are_exclusive_for_review_thresholds(rule, amount, expected):
    assert _decide(rule, "submit", {"notional": amount, "currency": "USD"}) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"share_with": "jane.doe@yahoo.co.uk"}, "deny"),
        ({"share_with": "ops@gmx.de"}, "deny"),
        ({"invitees": ["a@contoso-legal.com", "x@icloud.com"]}, "deny"),
        ({"share_with": "jane@contoso-legal.com"}, "review"),
    ],
)
def test_a_consumer_mail_provider_is_a_personal_account_and_other_domains_need_a_human(
    args, expected
):
    rule = "Contracts must never be shared with private e-mail addresses."
    assert _decide(rule, "share_contract", args) == expected


def test_a_tenant_glossary_term_overrides_the_built_in_mail_vocabulary():
    from webapp.judge.vocabulary import Glossary

    glossary = Glossary.of({"personal email accounts": ["corp-mail.example"]})
    compiled = compile_rule(0, "c", "Never share files with personal email accounts.", glossary)
    assert [c.match for c in compiled.checks] == ["glossary"]


def test_the_decision_precedence_is_one_table():
    from webapp.judge.engine import PRECEDENCE

    assert PRECEDENCE == ("violated", "model_deny", "review", "unknown", "satisfied")


def _verdict(rules: tuple[str, ...], args: dict):
    digest = hashlib.sha256("|".join(rules).encode()).hexdigest()
    policy = PolicyVersion("p", f"pv_{digest[:12]}", digest, "", rules, ())
    return evaluate(
        ClearanceQuery("pay_vendor", args, "a"), [policy], StaticHistory.from_dict(None)
    )


def test_a_violated_rule_outranks_a_review_and_a_review_outranks_an_unknown():
    cap = "Vendor payments must not exceed 10,000 EUR."
    review = "Vendor payments over 5,000 EUR need a manager's approval."
    unknown = "Vendor payments need a completed KYC check."
    args = {"amount": 20000, "currency": "EUR"}
    assert _verdict((review, unknown, cap), args).reason_code == "rule_violated"
    args = {"amount": 7000, "currency": "EUR"}
    assert _verdict((unknown, review, cap), args).reason_code == "review_required_by_rule"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Never purge the eu-logs or pay-ledger indexes.",
            "purge_index",
            {"index": "pay-ledger"},
            "deny",
        ),
        (
            "Never purge the eu-logs or pay-ledger indexes.",
            "purge_index",
            {"index": "scratch"},
            "allow",
        ),
        (
            "Purging the pay-ledger index is prohibited.",
            "purge_index",
            {"index_name": "pay-ledger"},
            "deny",
        ),
        (
            "Do not archive projects called apollo or gemini.",
            "archive_project",
            {"project": "gemini"},
            "deny",
        ),
        (
            "Do not share the dob, ssn or home_address fields.",
            "share_record",
            {"fields": ["name", "ssn"]},
            "deny",
        ),
        (
            "Do not share the dob, ssn or home_address fields.",
            "share_record",
            {"fields": ["name"]},
            "allow",
        ),
        (
            "Crates heavier than 50 kg may only use carriers Geodis or Kuehne.",
            "ship_crate",
            {"weight": 60, "carrier": "DPD"},
            "deny",
        ),
        (
            "Crates heavier than 50 kg may only use carriers Geodis or Kuehne.",
            "ship_crate",
            {"weight": 40, "carrier": "DPD"},
            "allow",
        ),
        (
            "Code freeze on search-api until the end of the sprint.",
            "deploy_service",
            {"service": "search-api"},
            "deny",
        ),
    ],
)
def test_more_shapes_of_named_values_conditional_lists_and_freezes(rule, tool, args, expected):
    assert _decide(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"weight": 45, "courier": "Colissimo", "pallet_id": "p-1"}, "allow"),
        ({"weight": 45, "courier": "DPD", "pallet_id": "p-1"}, "deny"),
        ({"weight": 5, "courier": "DPD", "pallet_id": "p-1"}, "allow"),
    ],
)
def test_a_list_after_a_preposition_is_not_read_as_the_subjects_argument(args, expected):
    # 'pallets' is what is shipped, not an argument the list constrains: no false denial on it.
    rule = "Pallets above 20kg can only travel with Colissimo or Bpost."
    assert _decide(rule, "ship_pallet", args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Never commit secret-key files.",
        "Never send emails to no-reply addresses.",
        "Never use non-prod credentials in prod.",
    ],
)
def test_a_hyphenated_qualifier_of_a_kind_is_not_a_list_of_names(rule):
    assert compile_rule(0, "c", rule).understanding == "partly_understood"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 300, "currency": "EUR"}, "deny"),
        ({"amount": 300, "currency": "EUR", "project_code": "P-7"}, "allow"),
        ({"amount": 3000, "currency": "EUR", "project_code": "P-7"}, "deny"),
    ],
)
def test_a_need_and_a_cap_are_two_obligations(args, expected):
    # 'a project code' is an obligation, never swallowed as words the cap is 'about'.
    rule = "Expense claims need a project code and must be below 1,000 EUR."
    assert _decide(rule, "submit_expense_claim", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"actions": ["kms:*", "ec2:Describe*"]}, "deny"), ({"actions": ["ec2:Describe*"]}, "allow")],
)
def test_names_with_a_colon_are_a_closed_list(args, expected):
    rule = "Role policies must never allow the actions kms:* or iam:PassRole."
    assert _decide(rule, "put_role_policy", args) == expected


@pytest.mark.parametrize(("signed", "expected"), [(True, "allow"), (False, "deny")])
def test_only_if_someone_signed_off(signed, expected):
    rule = "Discharges can only be completed if the physician has signed off."
    assert _decide(rule, "complete_discharge", {"physician_signed_off": signed}) == expected


def test_a_restricting_phrase_after_a_verb_stays_unaccounted_for():
    rule = "Grants may only go to charities on our allowlist and never above 10,000 EUR."
    compiled = compile_rule(0, "c", rule)
    assert "allowlist" in compiled.unaccounted
    args = {"charity": "x", "amount": 50, "currency": "EUR"}
    assert _decide(rule, "make_grant", args) == "review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [({"fields": ["email", "nin"]}, "deny"), ({"fields": ["email"]}, "allow")],
)
def test_a_bare_list_with_an_identifier_is_a_closed_list_never_an_argument_name(args, expected):
    rule = "Never export dob, nin or home_address."
    reading = " ".join(c.reading() for c in compile_rule(0, "c", rule).checks)
    # read as names of fields now (jfield): compared with every member of the field list
    assert "contains" not in reading and reading.startswith(
        ("Deny when an argument is", "Deny when a member of the field or column list is")
    )
    assert _decide(rule, "export_rows", args) == expected


@pytest.mark.parametrize(("status", "expected"), [("settled", "allow"), ("open", "deny")])
def test_except_when_a_state_holds(status, expected):
    rule = "Chargebacks are forbidden except when the dispute status is settled."
    assert _decide(rule, "create_chargeback", {"dispute_status": status}) == expected
