"""Helper jflag: on/off settings that must hold one state (`SettingState`) and permissions under a
conjunction of conditions (`AllConditions`). Every near-miss must not approve."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule

LOGIN = "Interactive login must be disabled for service accounts."
AUDIT = "Audit logging must stay on."
KEEP_ON = "Agents can't turn off require_sso."
GRANTS = (
    "Grants may be released only if: budget approved, audit clear, and match_confirmed is true."
)
DISPUTE = (
    "Chargebacks may be disputed only if the evidence score is at least 0.8 "
    "and merchant_verified is true."
)
PERMITS = (
    "Permits renew only if: zero complaints in the last 6 months, inspection passed, "
    "and permit fee paid."
)


@pytest.mark.parametrize("rule", [LOGIN, AUDIT, KEEP_ON, GRANTS, DISPUTE, PERMITS])
def test_the_rules_are_understood(rule: str) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"interactive_login": False}, "approved"),
        ({"interactive_login": "false"}, "approved"),
        ({"interactive_login": True}, "denied"),
        ({"interactive_login": "on"}, "denied"),
        ({}, "pending_review"),  # not shown
        ({"interactive_login": "pending"}, "pending_review"),
        ({"interactive_login": "yes"}, "pending_review"),
        ({"interactive_login": 0}, "pending_review"),  # 0 may be off, never approved on it
        ({"interactive_login": 1}, "denied"),  # 1 is on often enough to deny
        ({"interactive_login": "Disabled"}, "pending_review"),
        # two flags of the same name: which one the rule means is for a human to say
        ({"interactive_login": False, "fallback": {"interactive_login": True}}, "pending_review"),
        # a name that turns the setting around is only near it
        ({"interactive_login_disabled": True}, "pending_review"),
    ],
)
def test_a_setting_that_must_be_off(args: dict, expected: str) -> None:
    got = outcome_beside_ticket(LOGIN, "iam.service_account.create", {"name": "svc-1", **args})
    assert got == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"settings": {"audit_logging": True}}, "approved"),
        ({"settings": {"audit_logging": False}}, "denied"),
        ({"audit_logging_enabled": False}, "denied"),  # a name that keeps its direction
        ({"settings": {"audit_logging": "partially"}}, "pending_review"),
    ],
)
def test_a_setting_that_must_stay_on(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(AUDIT, "project.settings.update", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"settings": {"require_sso": True}}, "approved"),
        ({"settings": {"require_sso": False}}, "denied"),
        ({"settings": {"session_timeout": 30}}, "pending_review"),
    ],
)
def test_a_named_setting_that_cannot_be_turned_off(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(KEEP_ON, "org.settings.update", args) == expected


def test_the_reading_says_the_state() -> None:
    (check,) = compile_rule(0, "c:r0", LOGIN).checks
    assert check.reading().startswith("Deny when interactive login is not off")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"budget_approved": True, "audit": "clear", "match_confirmed": True}, "approved"),
        ({"budget_approved": True, "audit": "clear", "match_confirmed": False}, "denied"),
        ({"budget_approved": True, "audit": "failed", "match_confirmed": True}, "denied"),
        ({"budget_approved": True, "audit": "clear"}, "pending_review"),  # one missing
        (
            {"budget_approved": True, "audit": "partially_clear", "match_confirmed": True},
            "pending_review",
        ),
        ({"budget_approved": True, "audit": "Clear", "match_confirmed": True}, "pending_review"),
        (
            {"budget_approved": "pending", "audit": "clear", "match_confirmed": True},
            "pending_review",
        ),
        ({"budget_approved": 1, "audit": "clear", "match_confirmed": True}, "pending_review"),
    ],
)
def test_every_condition_after_only_if(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(GRANTS, "grants.release", {"grant_id": "G1", **args}) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"evidence_score": 0.8, "merchant_verified": True}, "approved"),  # inclusive bound
        ({"evidence_score": 0.79, "merchant_verified": True}, "denied"),
        ({"evidence_score": 0.9, "merchant_verified": False}, "denied"),
        ({"evidence_score": 0.9}, "pending_review"),
        ({"evidence_score": "0.9", "merchant_verified": True}, "pending_review"),
    ],
)
def test_a_bound_and_a_flag(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(DISPUTE, "chargebacks.dispute", {"case": "C1", **args}) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"complaints_last_6_months": 0, "inspection": "passed", "permit_fee_paid": True},
            "approved",
        ),
        (
            {"complaints_last_6_months": 2, "inspection": "passed", "permit_fee_paid": True},
            "denied",
        ),
        (
            {"complaints_last_6_months": 0, "inspection": "passed", "permit_fee_paid": False},
            "denied",
        ),
        # a count over another period is not the rule's
        (
            {"complaints_last_12_months": 0, "inspection": "passed", "permit_fee_paid": True},
            "pending_review",
        ),
        (
            {"complaints_last_6_months": 0, "inspection": "pending", "permit_fee_paid": True},
            "pending_review",
        ),
    ],
)
def test_a_zero_count_a_state_and_a_flag(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(PERMITS, "permits.renew", {"permit_id": "P1", **args}) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Payouts may be sent only if the kyc_passed flag is true or the amount is under 100 USD.",
        "Grants may be released only if: budget approved or audit clear.",
        "Grants may be released only if: budget approved, audit mostly clear, and match_confirmed is true.",
        "Telemetry should mostly be disabled.",
        "Password login must be disabled or restricted for admins.",
        "Refunds of at least 50 EUR may be issued only if: receipt verified and order delivered.",
    ],
)
def test_what_is_not_read_never_decides(rule: str) -> None:
    assert_never_decides(rule)


_INSERTS = (
    "in most cases",
    "when possible",
    "partly",
    "not",
    "or",
    "usually",
    "mostly",
    "or restricted",
    "unless waived",
    "for privileged vendors",
    "ideally",
)


@settings(max_examples=120, deadline=None)
@given(
    rule=st.sampled_from([LOGIN, AUDIT, GRANTS, DISPUTE, PERMITS]),
    insert=st.sampled_from(_INSERTS),
    where=st.floats(min_value=0.2, max_value=0.95),
)
def test_an_inserted_qualifier_leaves_the_rule_partly_understood(
    rule: str, insert: str, where: float
) -> None:
    """A word inserted between two words of a rule a recogniser consumes is read by nothing."""
    tokens = rule.rstrip(".").split()
    at = max(1, min(len(tokens) - 1, int(len(tokens) * where)))
    text = " ".join(tokens[:at] + insert.split() + tokens[at:]) + "."
    compiled = compile_rule(0, "c:r0", text)
    assert compiled.understanding != "understood" or not any(
        type(c).__name__ in ("SettingState", "AllConditions") for c in compiled.checks
    ), text


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a switch under a name the rule does not spell may be the setting: never passed by
        (
            "Multi-factor authentication must stay on.",
            "org.settings.update",
            {"mfa": False},
            "pending_review",
        ),
        (
            "Two-factor auth must remain enabled.",
            "org.settings.update",
            {"two_fa": False},
            "pending_review",
        ),
        (
            "SSH must be disabled on production hosts.",
            "host.configure",
            {"host": "prod-1", "allow_ssh": True},
            "pending_review",
        ),
        (
            "SSH must be disabled on production hosts.",
            "host.configure",
            {"host": "prod-1", "ssh_enabled": True},
            "denied",
        ),
        (
            "Agents can't turn off require_mfa.",
            "org.settings.update",
            {"require_mfa": "no"},
            "pending_review",
        ),
        # nothing set on or off, no word of the rule: the rule does not speak of the request
        ("Agents can't turn off require_mfa.", "org.users.list", {"limit": 10}, "approved"),
    ],
)
def test_a_setting_under_another_name_is_never_passed_by(
    rule: str, tool: str, args: dict, expected: str
) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


LOAN = (
    "Loans may be disbursed only if: credit check clear, collateral verified, "
    "and signed_agreement is true."
)
TAKEDOWN = (
    "Takedown notices may be sent by the bot only if the content match score is at least 0.95 "
    "and ownership_verified is true."
)


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            LOAN,
            "loans.disburse",
            {"credit_check": "clear", "collateral": {"verified": True}, "signed_agreement": True},
            "approved",
        ),
        (
            LOAN,
            "loans.disburse",
            {"credit_check_status": "clear", "collateral_verified": True, "signed_agreement": True},
            "approved",
        ),
        # the same check written twice, one of them failed
        (
            LOAN,
            "loans.disburse",
            {
                "credit_check": "clear",
                "credit": {"check": "hit"},
                "collateral_verified": True,
                "signed_agreement": True,
            },
            "pending_review",
        ),
        # a flag of the same name nested elsewhere
        (
            LOAN,
            "loans.disburse",
            {
                "credit_check": "clear",
                "collateral_verified": True,
                "signed_agreement": True,
                "co_signer": {"signed_agreement": False},
            },
            "pending_review",
        ),
        (
            TAKEDOWN,
            "media.takedowns.send",
            {"match_score": 0.95, "ownership_verified": True},
            "approved",
        ),
        (
            TAKEDOWN,
            "media.takedowns.send",
            {"score": 0.99, "ownership_verified": True},
            "pending_review",
        ),
        (
            TAKEDOWN,
            "media.takedowns.send",
            {"match_score": 95, "ownership_verified": True},
            "pending_review",
        ),
        (
            TAKEDOWN,
            "media.takedowns.send",
            {"match_score": 0.94, "ownership_verified": True},
            "pending_review",  # under the bound, but 'by the bot' is not shown: a human decides
        ),
        (
            DISPUTE,
            "chargebacks.dispute",
            {"evidence_score": 0.5, "merchant_verified": True},
            "denied",
        ),
    ],
)
def test_conditions_read_where_they_are_certain(
    rule: str, tool: str, args: dict, expected: str
) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


CLEARANCE = "No returns on clearance items unless defective."


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([{"sku": "A", "clearance": True, "return_reason": "defective"}], "approved"),
        ([{"sku": "A", "clearance": True, "return_reason": "changed_mind"}], "pending_review"),
        ([{"sku": "A", "clearance": True, "return_reason": "not_defective"}], "pending_review"),
        # the defective item is not the clearance one
        (
            [
                {"sku": "A", "clearance": True, "return_reason": "changed_mind"},
                {"sku": "B", "clearance": False, "return_reason": "defective"},
            ],
            "pending_review",
        ),
    ],
)
def test_unless_an_adjective_names_a_kind(items: list, expected: str) -> None:
    got = outcome_beside_ticket(CLEARANCE, "wholesale.returns.create", {"items": items})
    assert got == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds not allowed unless approved.",  # a person's act, never read from a value
        "No exchanges on final-sale items unless damaged.",  # a participle: not read here
        "No returns on clearance items unless mostly defective.",
    ],
)
def test_unless_a_participle_or_a_hedge_is_not_a_kind(rule: str) -> None:
    assert_never_decides(rule)
