"""Listed names against argument values (helper jfield): fields, columns, scopes, roles.

Readings and decisions of the token lists (`ValueList` match 'token'), the bracketed members of
a kind, the conditional allow-list of roles (`WhenBound`), a policy's own definition of a
category, near-misses, and hypothesis properties (a qualifier or a condition added to an
understood rule leaves it partly understood; a name on either side of a listed one decides the
right way).
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.compiler import compile_rule, local_terms
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion
from webapp.judge.vocabulary import term_key


def _decide(rules, tool: str, args: dict, description: str = "") -> str:
    rules = (rules,) if isinstance(rules, str) else tuple(rules)
    digest = hashlib.sha256(("|".join(rules) + description).encode()).hexdigest()
    policy = PolicyVersion("p", f"pv_{digest[:12]}", digest, description, rules, ())
    verdict = evaluate(ClearanceQuery(tool, args, "a"), [policy], StaticHistory.from_dict(None))
    return verdict.decision if verdict.confidence >= 0.8 or verdict.decision != "allow" else "low"


def _reading(rule: str) -> tuple[bool, str]:
    compiled = compile_rule(0, "c", rule)
    return compiled.decides, " ".join(c.reading() for c in compiled.checks)


# --- readings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        (
            "No exports containing ssn, dob or full card number fields.",
            "Deny when a member of `fields` is ssn, dob or full card number",
        ),
        ("No keys with admin:* scope.", "Deny when a member of `scope` is admin:*"),
        ("billing:write scope needs owner approval", "Send to review when a member of `scope`"),
        (
            "Never export tenant SSNs, bank account details or background check reports.",
            "Deny when a member of the field or column list is SSNs, bank account details or "
            "background check reports",
        ),
        (
            "Queries touching PII columns (email, phone, address, ssn) must cite a ticket in "
            "justification_ticket.",
            "When a member of `columns` is email, phone, address or ssn: Deny when "
            "`justification_ticket` is missing or empty",
        ),
        (
            "Contractors (user_type=contractor) may only be given Viewer or Support Agent.",
            'When `user_type` is "contractor": Deny unless',
        ),
    ],
)
def test_understood_readings_say_what_is_compared(rule, words):
    decides, reading = _reading(rule)
    assert decides
    assert words in reading


@pytest.mark.parametrize(
    "rule",
    [
        "No exports containing personal or sensitive fields.",  # an open category
        "Exports with sensitive fields need DPO approval.",
        "No exports containing ssn or dob fields unless approved by the DPO.",
        "No exports containing ssn or dob fields to external buckets.",
        "Queries touching PII columns (email, phone, e.g. address) must cite a ticket.",
        "No keys with admin:* scope except for break-glass keys.",
    ],
)
def test_open_kinds_and_unread_conditions_stay_partly_understood(rule):
    assert not compile_rule(0, "c", rule).decides


# --- decisions ---------------------------------------------------------------------------------

EXPORT = "No exports containing ssn, dob or full card number fields."
KEYS = "No keys with admin:* scope."
PII = (
    "Queries touching PII columns (email, phone, address, ssn) must cite a ticket in "
    "justification_ticket."
)
CONTRACTORS = "Contractors (user_type=contractor) may only be given Viewer or Support Agent."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (EXPORT, "data.export.create", {"fields": ["customer_id", "email", "dob"]}, "deny"),
        (EXPORT, "data.export.create", {"fields": ["customer_id", "plan"]}, "allow"),
        # snake_case and the rule's spaced words name one field
        (EXPORT, "data.export.create", {"fields": ["full_card_number"]}, "deny"),
        # near-misses: a longer name holding a listed word, the initials of a listed name
        (EXPORT, "data.export.create", {"fields": ["dob_year"]}, "review"),
        (EXPORT, "data.export.create", {"fields": ["card_number"]}, "review"),
        (EXPORT, "data.export.create", {"fields": ["date_of_birth"]}, "review"),
        # no field list: the export may carry every field
        (EXPORT, "data.export.create", {"dataset": "customers"}, "review"),
        (KEYS, "apikeys.create", {"scopes": ["users:read", "admin:*"]}, "deny"),
        (KEYS, "apikeys.create", {"scopes": ["users:read", "admin:users"]}, "deny"),
        (KEYS, "apikeys.create", {"scopes": ["users:admin", "reports:read"]}, "allow"),
        (KEYS, "apikeys.create", {"scopes": ["admin"]}, "review"),  # the pattern's bare root
        # taking a scope away gives none
        (KEYS, "apikeys.revoke", {"key_id": "k1", "scopes": ["admin:all"]}, "low"),
        (
            "Never grant the reports:read_all scope.",
            "apikeys.create",
            {"scopes": ["reports:read"]},
            "allow",
        ),
        (
            "API keys must never be granted the scopes payments:write or payouts:*.",
            "apikeys.create",
            {"scopes": ["orders:read", "payouts:create"]},
            "deny",
        ),
        (
            "API keys must never be granted the scopes payments:write or payouts:*.",
            "apikeys.create",
            {"scopes": ["payments:write_limited"]},
            "review",
        ),
        # a qualifier the request does not show ('to contractors') is never taken as read
        (
            "Never grant write:* scopes to contractors.",
            "tokens.create",
            {"scopes": ["write:docs"], "owner": "u-77"},
            "review",
        ),
        (
            "billing:write scope needs owner approval",
            "apikeys.create",
            {"scopes": ["billing:write"]},
            "review",
        ),
        (
            "billing:write scope needs owner approval",
            "apikeys.create",
            {"scopes": ["billing:read"]},
            "allow",
        ),
        (PII, "warehouse.query.run", {"columns": ["account_id", "email"]}, "deny"),
        (
            PII,
            "warehouse.query.run",
            {"columns": ["email"], "justification_ticket": "D-1"},
            "allow",
        ),
        (PII, "warehouse.query.run", {"columns": ["account_id", "plan"]}, "allow"),
        (PII, "warehouse.query.run", {"columns": ["email_hash"]}, "review"),
        (PII, "warehouse.query.run", {"table": "crm.contacts"}, "review"),
        (CONTRACTORS, "org.roles.assign", {"user_type": "contractor", "role": "Developer"}, "deny"),
        (CONTRACTORS, "org.roles.assign", {"user_type": "contractor", "role": "Viewer"}, "allow"),
        (CONTRACTORS, "org.roles.assign", {"user_type": "employee", "role": "Developer"}, "allow"),
        (CONTRACTORS, "org.roles.assign", {"user": {"id": "u"}, "role": "Developer"}, "review"),
        (
            CONTRACTORS,
            "org.roles.assign",
            {"user_type": "contractor", "role": "Viewer Plus"},
            "review",
        ),
        (
            "Never export tenant SSNs, bank account details or background check reports.",
            "pm.tenant.export",
            {"fields": ["full_name", "ssn"]},
            "deny",
        ),
        (
            "Never export tenant SSNs, bank account details or background check reports.",
            "pm.tenant.export",
            {"fields": ["full_name", "unit"]},
            "allow",
        ),
        (
            "Never export tenant SSNs, bank account details or background check reports.",
            "pm.tenant.export",
            {"fields": ["bank_account"]},
            "review",
        ),
        (
            "Never submit evidence that includes full card numbers.",
            "disputes.submit_evidence",
            {"evidence_items": ["receipt_pdf", "full_card_number"]},
            "deny",
        ),
        ("Keys with admin scope need security review.", "keys.create", {"scope": "read"}, "allow"),
        (
            "Keys with admin scope need security review.",
            "keys.create",
            {"scope": "admin:org"},
            "review",
        ),
        (
            "API keys may only be created with read scope.",
            "iam.create_api_key",
            {"scopes": ["read", "admin"]},
            "deny",
        ),
        ("Nobody gets Owner through the API.", "org.roles.assign", {"role": "Owner"}, "deny"),
        ("Nobody gets Owner through the API.", "org.roles.assign", {"role": "Viewer"}, "allow"),
    ],
)
def test_decisions(rule, tool, args, expected):
    assert _decide(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a pattern or 'all' in the request covers every name it matches
        (KEYS, "apikeys.create", {"scopes": ["*"]}, "deny"),
        (KEYS, "apikeys.create", {"scopes": ["users:*"]}, "allow"),
        (EXPORT, "data.export.create", {"fields": ["*"]}, "deny"),
        (EXPORT, "data.export.create", {"fields": "all"}, "deny"),
        (PII, "warehouse.query.run", {"columns": ["*"]}, "deny"),
        # for an allow-list a pattern is no listed name: a human decides
        (
            "API keys may only be created with read scope.",
            "keys.create",
            {"scopes": ["*"]},
            "review",
        ),
        # a name inside a query text is close, never 'not listed'
        (EXPORT, "data.export.create", {"sql": "SELECT dob FROM users"}, "review"),
    ],
)
def test_patterns_and_names_written_elsewhere(rule, tool, args, expected):
    assert _decide(rule, tool, args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"role": "Admin", "user_type": "guest"}, "deny"),
        # another kind of person, or none shown: the list may not constrain the request
        ({"role": "Admin", "user_type": "employee"}, "review"),
        ({"role": "Admin"}, "review"),
        ({"role": "Viewer", "user_type": "employee"}, "allow"),
    ],
)
def test_an_allow_list_for_a_kind_of_person_needs_the_kind_shown(args, expected):
    rule = "No roles other than Viewer or Editor may be granted to guests."
    assert _decide(rule, "roles.assign", args) == expected


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Never export the ssn field.", {"fields": ["ssn"]}, "deny"),
        ("Never export the ssn field.", {"fields": ["name"]}, "allow"),
        ("Never export the ssn field.", {"fields": ["ssn_last4"]}, "review"),
        # a qualifier of the subject the request does not show: never a deny
        (
            "No exports containing ssn or dob fields for EU customers.",
            {"fields": ["ssn"], "customer_region": "US"},
            "review",
        ),
    ],
)
def test_one_field_name_and_an_unshown_qualifier(rule, args, expected):
    assert _decide(rule, "data.export", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"fields": ["name"], "include_ssn": True}, "deny"),
        ({"fields": ["name"], "include_ssn": False}, "allow"),
        ({"fields": ["name"], "exclude_ssn": True}, "allow"),
        ({"fields": ["name"], "redact_ssn": False}, "review"),
        ({"fields": ["name"], "mask_dob": "partial"}, "review"),
    ],
)
def test_a_flag_named_for_a_listed_field(args, expected):
    assert _decide("No exports containing ssn or dob fields.", "data.export", args) == expected


@pytest.mark.parametrize(
    ("rule", "args", "expected"),
    [
        ("Only name, email or phone fields may be exported.", {"fields": ["ssn", "email"]}, "deny"),
        (
            "Only name, email or phone fields may be exported.",
            {"fields": ["name", "email"]},
            "allow",
        ),
        # a name sharing any word with an allowed one: a human decides
        ("Only name, email or phone fields may be exported.", {"fields": ["full_name"]}, "review"),
        ("Exports may contain only name or email fields.", {"fields": ["ssn"]}, "deny"),
        # 'only' after the names restricts something else: never an allow-list of them
        (
            "Exports of email or phone fields may only go to approved buckets.",
            {"fields": ["ssn"], "bucket": "x"},
            "review",
        ),
    ],
)
def test_only_before_field_names_is_an_allow_list(rule, args, expected):
    assert _decide(rule, "data.export", args) == expected


def test_a_policy_defines_its_own_category():
    description = "Privileged roles here = Owner, Org Admin, Billing Admin, Security Admin."
    policy = PolicyVersion("p", "pv_x", "x", description, (), ())
    assert local_terms(policy) == {
        term_key("privileged roles"): ("Owner", "Org Admin", "Billing Admin", "Security Admin")
    }
    rule = "Granting privileged roles needs approval from the Security team."
    assert _decide(rule, "org.roles.assign", {"role": "Viewer"}, description) == "allow"
    assert _decide(rule, "org.roles.assign", {"role": "Org Admin"}, description) == "review"
    # close to a member without being one: a human decides
    assert _decide(rule, "org.roles.assign", {"role": "Billing Administrator"}, description) == (
        "review"
    )
    # without the definition the category is open: never approved
    assert _decide(rule, "org.roles.assign", {"role": "Viewer"}) == "review"


def test_a_definition_among_the_rules_is_vocabulary_not_an_obligation():
    rules = ("Privileged roles = Owner, Org Admin.", "Granting privileged roles needs approval.")
    assert _decide(rules, "org.roles.assign", {"role": "Viewer"}) == "allow"
    assert _decide(rules, "org.roles.assign", {"role": "Org Admin"}) == "review"
    rules = ("Privileged roles: Owner, Org Admin.", "Nobody may be given a privileged role.")
    assert _decide(rules, "org.roles.assign", {"role": "Owner"}) == "deny"
    # alone, or as a heading, it may be the list the policy enforces: never skipped
    assert _decide("Privileged roles = Owner, Org Admin.", "roles.assign", {"role": "Viewer"}) == (
        "review"
    )
    assert _decide("Sanctioned countries: IR, KP.", "pay", {"country": "IR"}) != "allow"


def test_examples_leave_a_category_open():
    description = "Privileged roles are e.g. Owner, Org Admin."
    assert local_terms(PolicyVersion("p", "pv_y", "y", description, (), ())) == {}


# --- properties --------------------------------------------------------------------------------

_UNDERSTOOD = [
    EXPORT,
    KEYS,
    PII,
    "Never export tenant SSNs, bank account details or background check reports.",
]
# (a review rule's words after its reviewer are read with the review, which only widens it: not
# tested here)
# (a qualifier of the subject, 'for premium customers', is a subject word the request must show
# or rule out, by the named-values design: not an unread word)
_INSERTS = [
    " unless the DPO approved it",
    " when the region is unknown",
    " outside business hours",
    " except for internal auditors",
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_UNDERSTOOD), st.sampled_from(_INSERTS))
def test_an_inserted_condition_leaves_the_rule_partly_understood(rule, insert):
    assert compile_rule(0, "c", rule).decides
    widened = rule.rstrip(".") + insert + "."
    assert not compile_rule(0, "c", widened).decides


_NAMES = st.from_regex(r"[a-z]{3,8}(_[a-z]{3,8}){0,2}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(_NAMES)
def test_a_listed_name_denies_and_a_longer_one_is_reviewed(name):
    rule = f"No exports containing {name} or zzq_marker fields."
    if not compile_rule(0, "c", rule).decides:
        return  # a word the reading takes for a qualifier: left to review, never approved
    assert _decide(rule, "data.export", {"fields": ["row_id", name]}) == "deny"
    assert _decide(rule, "data.export", {"fields": ["row_id", f"{name}_masked"]}) == "review"
    assert _decide(rule, "data.export", {"fields": [name.upper().replace("_", " ")]}) == "deny"


@settings(max_examples=60, deadline=None)
@given(st.from_regex(r"[a-z]{3,8}", fullmatch=True), st.from_regex(r"[a-z]{3,8}", fullmatch=True))
def test_a_scope_pattern_matches_its_own_root_only(root, action):
    rule = f"No keys with {root}:* scope."
    assert _decide(rule, "apikeys.create", {"scopes": [f"{root}:{action}"]}) == "deny"
    other = f"{action}x:{root}"
    assert _decide(rule, "apikeys.create", {"scopes": [other]}) == "allow"
