"""Rules the engine labelled "understood" but misread (helper jmis, seventh session).

An understood rule decides on its own, so a misreading is an unsafe approval or a false denial.
Each class is tested on phrasings of several domains; a rule the engine cannot read exactly
stays partly understood (its unread words unaccounted: review).

- a time or a state the request is in ('while an incident is open', 'during a chargeback
  dispute', 'once they are approved') is a condition, never subject words;
- a role or a department named after 'needs' ('needs the DBA', 'need legal') is a person who
  decides, never a required argument;
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery, PolicyVersion


def _policy(rules: list[str], tools: tuple[str, ...] = ()) -> PolicyVersion:
    digest = hashlib.sha256(repr((rules, tools)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:16]}", digest, "", tuple(rules), tools)


def outcome(rules: list[str] | str, tool: str, args: dict, tools: tuple[str, ...] = ()) -> str:
    if isinstance(rules, str):
        rules = [rules]
    v = evaluate(
        ClearanceQuery(tool, args, "agent"), [_policy(rules, tools)], StaticHistory.from_dict(None)
    )
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


# -- a time or a state condition ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "marker", "tool", "args"),
    [
        (
            "Refunds may not be issued during a chargeback dispute.",
            "during",
            "payments.issue_refund",
            {"order_id": "O-1", "amount": 50, "currency": "EUR", "ticket_id": "T-1"},
        ),
        (
            "Invoices can be paid once they are approved.",
            "once",
            "ap.pay_invoice",
            {"invoice_id": "I-1", "amount": 10, "currency": "EUR", "ticket_id": "T-1"},
        ),
        (
            "No firmware pushes while the turbine is running.",
            "while",
            "scada.push_firmware",
            {"turbine_id": "T-2", "version": "2.1", "ticket_id": "T-1"},
        ),
        (
            "Payroll exports are blocked whilst the quarter is being closed.",
            "whilst",
            "hr.export_payroll",
            {"period": "2026-Q1", "ticket_id": "T-1"},
        ),
        (
            "Listings cannot be edited throughout an active auction.",
            "throughout",
            "market.edit_listing",
            {"listing_id": "L-1", "ticket_id": "T-1"},
        ),
    ],
)
def test_a_time_or_state_condition_is_not_subject_words(rule, marker, tool, args):
    compiled = compile_rule(0, "c:r0", rule)
    # either the condition stays unaccounted, or a check reads it as the state it names (the
    # 'while/once <state>' reading, test_judge_seventh_text.py): never subject words
    assert _condition_kept(compiled, marker)
    # beside a satisfied rule, the request is neither approved past the condition nor denied
    # for a state the request does not show
    assert outcome(["Every request must include a ticket_id.", rule], tool, args) == (
        "pending_review"
    )


@pytest.mark.parametrize(
    "rule",
    [
        "Refunds may be issued once per order.",
        "Reports are sent at once.",
    ],
)
def test_once_as_a_count_is_no_condition(rule):
    assert "once" not in compile_rule(0, "c:r0", rule).unaccounted


# -- a role named where an argument is expected ------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Restarting a database host needs the DBA.",
            "infra.restart_host",
            {"host": "db-01", "dba_on_call": "alice"},
        ),
        (
            "Contract changes need legal.",
            "contracts.update_contract",
            {"contract_id": "K-1", "legal_entity": "ACME GmbH"},
        ),
        ("Termination letters need HR.", "hr.send_letter", {"hr_case_id": "HR-1"}),
        (
            "Schema migrations require the CAB.",
            "db.run_schema_migration",
            {"database": "orders", "cab_ticket": "CAB-1"},
        ),
        (
            "Vendor bank detail changes need treasury.",
            "vendors.update_bank_details",
            {"vendor_id": "V-1", "treasury_ref": "TR-1"},
        ),
    ],
)
def test_a_role_after_needs_is_a_person_who_decides(rule, tool, args):
    compiled = compile_rule(0, "c:r0", rule)
    assert {c.effect for c in compiled.checks} == {"review"}, [c.reading() for c in compiled.checks]
    # an argument named for the role (the DBA on call, a treasury reference) is not its approval
    assert outcome(rule, tool, args) == "pending_review"


@pytest.mark.parametrize(
    "rule",
    ["Exports need a DBA ticket.", "Refunds need finance codes.", "Logins require security keys."],
)
def test_a_role_word_before_a_noun_names_data_not_a_person(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert all(c.effect != "review" for c in compiled.checks)


def test_new_vendor_before_another_noun_is_not_a_first_time_vendor():
    rule = "New vendor bank details need treasury."
    compiled = compile_rule(0, "c:r0", rule)
    assert all(c.kind != "first_time_counterparty" for c in compiled.checks)
    history = StaticHistory.from_dict({"seen": {"vendor_id": ["V-1"]}})
    v = evaluate(
        ClearanceQuery("vendors.update_bank_details", {"vendor_id": "V-1"}, "agent"),
        [_policy([rule])],
        history,
    )
    assert v.decision == "review"
    # 'new vendors' alone stays a first-time counterparty
    assert any(
        c.kind == "first_time_counterparty"
        for c in compile_rule(0, "c:r0", "Payments to new vendors need review.").checks
    )


_CONDITIONS = st.sampled_from(
    [
        "while an incident is open",
        "during a chargeback dispute",
        "once the retention period has ended",
        "whilst the account is frozen",
        "throughout the audit",
    ]
)
_UNDERSTOOD = st.sampled_from(
    [
        "Refunds need manager approval",
        "Deploys to production are not allowed",
        "Never delete audit logs",
        "Payouts must include a ticket_id",
    ]
)


@settings(max_examples=40, deadline=None)
@given(_UNDERSTOOD, _CONDITIONS)
def test_a_time_or_state_condition_added_to_an_understood_rule_is_unaccounted(base, cond):
    assert compile_rule(0, "c:r0", base + ".").understanding == "understood"
    compiled = compile_rule(0, "c:r0", f"{base} {cond}.")
    assert _condition_kept(compiled, cond.split()[0].lower())


def _condition_kept(compiled, marker: str) -> bool:
    """Whether a rule's time or state condition is unaccounted, or read by a check as a state."""
    if compiled.understanding == "partly_understood" and marker in compiled.unaccounted:
        return True
    return compiled.understanding == "understood" and any(
        f"only {marker} " in c.reading() and "state argument" in c.reading()
        for c in compiled.checks
    )


# -- a noun that is also a verb names the thing acted on ---------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # the content removed may be a minor's post: review, never passed by as 'posting'
        (
            "Posts by minors need review by the youth safety team.",
            "moderation.remove_content",
            {"content_id": "P-1", "case_id": "C-1", "author_age": 15},
            "pending_review",
        ),
        # an adult's content: the rule does not apply
        (
            "Posts by minors need review by the youth safety team.",
            "moderation.remove_content",
            {"content_id": "P-2", "case_id": "C-2", "author_age": 34},
            "approved",
        ),
        # restoring a backup is not deleting it: the rule's act is 'deleted', not 'backups'
        (
            "Backups of customer data must not be deleted.",
            "storage.restore_backup",
            {"backup_id": "B-1", "case_id": "C-3"},
            "pending_review",  # no rule speaks to it: 0.6
        ),
        (
            "Messages from children may not be deleted.",
            "chat.redact_content",
            {"content_id": "M-1", "case_id": "C-4", "author_age": 9},
            "pending_review",
        ),
    ],
)
def test_a_thing_noun_is_not_the_rules_act(rule, tool, args, expected):
    rules = ["Every action must include a case_id.", rule]
    if expected == "pending_review" and "restore" in tool:
        rules = [rule]
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome(rules, tool, args) == expected


def test_a_thing_noun_keeps_the_subjects_own_verb_as_its_only_act():
    # 'Exporting subscriber lists': the act is exporting; 'lists' is what is exported, so a
    # tool that lists things is not matched by the rule's verbs read as alternatives
    rule = "Exporting subscriber lists to a third party requires the DPO's approval."
    base = {"campaign_id": "CMP-1"}
    rules = ["Every list operation must reference a campaign_id.", rule]
    assert outcome(rules, "lists.delete_segment", {**base, "segment": "old"}) == "approved"
    # sending a campaign may move the list out like an export: the rule is not passed by
    assert outcome(rules, "lists.send_campaign", {**base, "list": "vip"}) == "pending_review"


@pytest.mark.parametrize(
    ("age", "expected"),
    [(12, "pending_review"), (17, "pending_review"), (19, "pending_review"), (40, "approved")],
)
def test_minors_are_read_from_an_age_in_years(age, expected):
    rule = "Account changes for minors need a guardian's approval."
    rules = ["Every account change must include a ticket_id.", rule]
    args = {"account_id": "A-1", "ticket_id": "T-1", "holder_age": age}
    assert outcome(rules, "accounts.change_account", args) == expected
    # an age in days is an account's age, not a person's
    args = {"account_id": "A-1", "ticket_id": "T-1", "account_age_days": 40}
    assert outcome(rules, "accounts.change_account", args) != "approved"


# -- an act named by where it ends ('leaves the company') --------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "PII must be encrypted before it leaves the company.",
            "data.export_table",
            {"table": "customers", "ticket_id": "T-1", "destination": "s3://partner"},
        ),
        (
            "Source code must never leave company laptops.",
            "files.upload_file",
            {"path": "src/main.py", "destination": "dropbox", "ticket_id": "T-2"},
        ),
        (
            "Health records must be de-identified before they go to a research partner.",
            "data.share_dataset",
            {"dataset": "encounters_2025", "destination": "univ-lab", "ticket_id": "T-3"},
        ),
        (
            "Design files may not be taken outside the studio.",
            "mail.send_email",
            {"to": "someone@example.com", "attachment": "logo.psd", "ticket_id": "T-4"},
        ),
    ],
)
def test_a_rule_on_data_leaving_speaks_to_a_tool_that_moves_data_out(rule, tool, args):
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    assert outcome(["Every request must include a ticket_id.", rule], tool, args) != "approved"


def test_leave_as_time_off_is_not_a_movement():
    for rule in (
        "Leave requests over 10 days need manager approval.",
        "Annual leave may not exceed 30 days.",
    ):
        assert compile_rule(0, "c:r0", rule).understanding == "understood"


@pytest.mark.parametrize(
    ("rule", "inside", "outside"),
    [
        ("Customer data may not leave the EU.", "DE", "US"),
        ("Patient records must never leave Germany.", "DE", "FR"),
        ("Telemetry cannot leave the US or Canada.", "CA", "MX"),
    ],
)
def test_may_not_leave_a_place_is_an_allow_list_of_it(rule, inside, outside):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood"
    tool = "data.export_table"
    assert outcome(rule, tool, {"table": "t", "destination_country": outside}) == "denied"
    assert outcome(rule, tool, {"table": "t", "destination_country": inside}) == "approved"


@pytest.mark.parametrize(
    ("rule", "word"),
    [
        ("Prod credentials may not be shared outside the team.", "team"),
        ("Customer lists must not be sent outside the company.", "company"),
        ("Design files may not be taken outside the studio.", "studio"),
    ],
)
def test_outside_a_common_noun_is_no_allow_list_of_the_word(rule, word):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "partly_understood"
    assert word in compiled.unaccounted
    # a named group after 'outside the' stays a value
    named = compile_rule(0, "c:r0", "Prod credentials may not be shared outside the platform team.")
    assert named.understanding == "understood"


# -- the verbs of a subject are not all its acts -----------------------------------------------
@pytest.mark.parametrize(
    ("rule", "other_tool", "own_tool"),
    [
        # the words after 'from' are the state the act starts from, not another act
        (
            "Releasing a host from isolation requires a closed IR ticket.",
            "edr.isolate_host",
            "edr.release_host",
        ),
        ("Restoring a database from backup needs DBA approval.", "db.backup_database", None),
    ],
)
def test_a_verb_after_from_is_not_an_alternative_act(rule, other_tool, own_tool):
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    args = {"host": "h-1", "database": "orders", "ticket_id": "T-1"}
    rules = ["Every request must include a ticket_id.", rule]
    # isolating a host is not releasing it, backing up is not restoring
    assert outcome(rules, other_tool, args) == "approved"
    if own_tool:
        # the release itself, without the ticket: not approved
        assert outcome(rules, own_tool, args) != "approved"


def test_an_act_after_after_is_when_not_what():
    from webapp.judge.actions import rule_actions

    acts = rule_actions("Refunding an order after shipping needs a manager.")
    assert acts is not None and "ship" not in acts
    rules = [
        "Every order action must include a ticket_id.",
        "Refunding an order after shipping needs a manager.",
    ]
    args = {"order_id": "O-1", "ticket_id": "T-1"}
    assert outcome(rules, "orders.ship_order", args) == "approved"
    assert outcome(rules, "orders.refund_order", args) != "approved"
