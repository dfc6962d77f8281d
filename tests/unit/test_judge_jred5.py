"""Red team jred5: the mechanisms that approve or turn a deny into a pass (eighth session).

Each case is a rule beside the satisfied ticket rule (judge_support): a request the rule forbids
or sends to review must never come out approved; the plain request it allows still is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import outcome_beside_ticket

from webapp.judge.checks import no_reference
from webapp.judge.compiler import compile_rule

SSO = "SSO enforcement may not be disabled."
CALLBACK = "Wire transfers require callback verification (callback_ref)."
EXPORT = "Never export to personal email accounts."
HR = "Deleting anything under /HR needs HR approval."
EEA = "SMS sends to countries outside the EEA require Legal sign-off (legal_signoff_ref)."
SALARY = "Salary increases of more than 10% over current base require VP approval."
FRIDAYS = "No prod deploys on Fridays."
INVOICES = "Never archive projects that have open invoices."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # a flag named for the rule's thing, set off in any spelling, on a generic change tool
        (SSO, "org.settings.update", {"sso_enforced": "off"}, "pending_review"),
        (SSO, "org.settings.update", {"sso_enforced": 0}, "pending_review"),
        (SSO, "org.settings.update", {"sso": {"enforced": False}}, "pending_review"),
        (SSO, "org.settings.update", {"sso_mode": "optional"}, "pending_review"),
        (SSO, "org.settings.update", {"settings": [{"key": "sso_enforced", "value": False}]}, "pending_review"),
        (SSO, "org.settings.update", {"enforce_sso": "disabled"}, "denied"),
        (SSO, "org.settings.update", {"sso_enforced": True}, "approved"),
        ("MFA may not be disabled.", "users.update", {"user": "u1", "mfa": "off"}, "pending_review"),
        # a reference that says there is none
        (CALLBACK, "wire.send", {"amount": 10, "callback_ref": "to follow"}, "pending_review"),
        (CALLBACK, "wire.send", {"amount": 10, "callback_ref": "skipped"}, "pending_review"),
        (CALLBACK, "wire.send", {"amount": 10, "callback_ref": "not done"}, "pending_review"),
        (CALLBACK, "wire.send", {"amount": 10, "callback_ref": "CB-991"}, "approved"),
        ("Payments over $5,000 require an invoice or PO number.", "payments.create",
         {"amount_usd": 9000, "invoice_ref": "INV-1", "invoice_ref_status": "missing"}, "pending_review"),
        ("Escalations need a legal case (legal_case_id given).", "cases.escalate",
         {"legal_case_id": "requested from Legal"}, "pending_review"),
        # an obligation met whatever its gate asks for one plain thing
        ("Loans require a co-signer in the EU (cosigner_id).", "loans.create",
         {"cosigner_id": "G-1", "cosigner_country": "US"}, "pending_review"),
        ("Orders require a bank account in good standing for a year (account_status = active).",
         "orders.create", {"account_status": "active"}, "pending_review"),
        # a gloss word narrowing the bound thing
        ("Refunds require a recently verified account (account_verified = true).",
         "refunds.create", {"account_verified": True}, "pending_review"),
        ("Payouts require a domestic verified bank account (bank_verified = true).",
         "payouts.create", {"bank_verified": True, "bank_country": "FR"}, "pending_review"),
        # a target that may be an email address
        (EXPORT, "data.export", {"destination": "bob at gmail dot com"}, "pending_review"),
        (EXPORT, "data.export", {"destination": "mailto:bob%40gmail.com"}, "pending_review"),
        (EXPORT, "data.export", {"destination": "gmail", "recipient": "bob"}, "pending_review"),
        (EXPORT, "data.export", {"destination": "snowflake"}, "approved"),
        # a folder named another way, or a path above it
        (HR, "files.delete", {"folder": "/Eng", "name": "HR/payroll.xlsx"}, "pending_review"),
        (HR, "files.delete", {"path": "/%48R/payroll.xlsx"}, "pending_review"),
        (HR, "files.delete", {"file": "/Eng/a.txt", "recursive_target": "/"}, "pending_review"),
        (HR, "files.delete", {"path": "/Eng/a.txt"}, "approved"),
        # a place the country table does not read
        (EEA, "sms.send", {"sender_country": "DE", "recipient_phone": "+15551234567"}, "pending_review"),
        (EEA, "sms.send", {"country": "de", "body": "hi"}, "approved"),
        # a change over a current value of zero, or in different terms
        (SALARY, "hr.salary.update", {"current_salary": 0, "new_salary": 105000}, "pending_review"),
        (SALARY, "hr.salary.update",
         {"current_salary": 8000, "new_salary": 8400, "new_salary_period": "monthly"}, "pending_review"),
        (SALARY, "hr.salary.update", {"current_salary": 100000, "new_salary": 105000}, "approved"),
        # a bound range whose unit another argument states
        ("session_timeout_minutes between 15 and 60.", "org.settings.update",
         {"session_timeout_minutes": 45, "unit": "hours"}, "pending_review"),
        ("session_timeout_minutes between 15 and 60.", "org.settings.update",
         {"session_timeout_minutes": 45, "idle_session_timeout_minutes": 600}, "pending_review"),
        # a hold's identifier written without its leading zeros
        ("Store #0412: all dispensing suspended pending DEA audit.", "pharmacy.dispense",
         {"store_id": 412, "rx": "R1"}, "pending_review"),
        # some of the thing in another state word
        (INVOICES, "projects.archive", {"project_id": "P1", "open_invoices": 0, "unpaid_invoices": 3}, "pending_review"),
        (INVOICES, "projects.archive", {"project_id": "P1", "open_invoices": 0}, "approved"),
        # a request that lasts or repeats past the day read
        (FRIDAYS, "deploys.create", {"env": "prod", "date": "2024-11-07", "duration_hours": 30}, "pending_review"),
        (FRIDAYS, "deploys.create", {"env": "prod", "date": "2024-11-06"}, "approved"),
        # second batch: the same thing named another way beside a binding; a day read outside
        # the rule's while the request ends later, staggers or repeats
        ("Refunds require an account in good standing (account_status = active).", "refunds.create",
         {"account_status": "active", "account": {"status": "closed"}}, "pending_review"),
        ("Refunds require is_test != true.", "refunds.create", {"is_test": False, "test_mode": True}, "pending_review"),
        ("Refunds require is_test != true.", "refunds.create", {"is_test": False}, "approved"),
        (FRIDAYS, "deploys.create", {"env": "prod", "date": "2024-11-07", "end_date": "2024-11-09"}, "pending_review"),
        (FRIDAYS, "deploys.create", {"env": "prod", "date": "2024-11-07", "schedule": "every day at 9"}, "pending_review"),
        # an advice tail handing on another thing is a second instruction
        ("Do not refund gift cards; forward chargebacks to Risk.", "chargebacks.accept",
         {"chargeback_id": "c1"}, "pending_review"),
    ],
)  # fmt: skip
def test_the_red_team_requests_are_never_approved(rule, tool, args, expected):
    assert outcome_beside_ticket(rule, tool, args) == expected


def test_an_advice_tail_about_the_forbidden_request_is_still_set_aside():
    rule = "Do not refund orders older than 90 days - send the customer to Finance."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


@pytest.mark.parametrize(
    ("value", "none"),
    [
        ("CB-991", False),
        ("INV 2231", False),
        ("to follow", True),
        ("none yet", True),
        ("skipped", True),
        ("verbal agreement", True),
        (["", None], True),
        ([], False),  # missing: the caller's to judge
    ],
)
def test_a_reference_that_says_there_is_none(value, none):
    assert no_reference(value, frozenset({"ref"})) is none


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["domestic", "recently", "unexpired", "personally", "foreign", "unsigned"]))
def test_a_narrowing_word_in_a_gloss_never_leaves_the_binding_deciding_alone(word):
    rule = f"Refunds require a {word} verified account (account_verified = true)."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "refunds.create", {"account_verified": True}) != "approved"
