"""jred14: rules labelled understood whose reading said something else (webapp/judge/wrongreads.py).

Each vector is a rule beside a satisfied one, so a misreading shows as an unsafe approval or a
false denial. What was found is now read right or left partly understood (review); the
near-misses show the readings that were right stay decided.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule


def _rule(text: str):
    return compile_rule(0, "c:r0", text)


def _readings(text: str) -> str:
    return "; ".join(c.reading() for c in _rule(text).checks)


# -- misread, now partly understood: never approved --------------------------------------------

LEFT_PARTLY = [
    # an argument's name compared with another, read as a value
    (
        "A group booking must not push guests_count over room_capacity.",
        "booking.create_group",
        {"guests_count": 14, "room_capacity": 12},
    ),
    (
        "An invite must not push seats_used over seats_licensed.",
        "workspace.invite",
        {"seats_used": 51, "seats_licensed": 50},
    ),
    (
        "4) aircraft_type must be one of the crew member's qualified_types.",
        "roster.assign",
        {"aircraft_type": "A350", "qualified_types": ["A320"]},
    ),
    (
        "SAML: sha1 signing NOT allowed -> signature_algorithm must be rsa-sha256 or rsa-sha512",
        "sso.update_saml",
        {"signature_algorithm": "rsa-sha1"},
    ),
    # a range read as one literal (or as two alternatives)
    (
        "F → any passing grade (D- or better) requires Dept Chair approval, no exceptions",
        "grades.change",
        {"old_grade": "F", "new_grade": "C"},
    ),
    # alternatives after a colon read as subject words, every one required
    (
        "Screening may not use protected characteristics as criteria: race, color, religion, "
        "sex, national origin, disability, familial status.",
        "screening.run",
        {"criteria": ["credit_score", "religion"]},
    ),
    # a span between two dates read as one duration
    (
        "effective_date must be at least 30 days after filing_date.",
        "tariff.file",
        {"filing_date": "2026-11-01", "effective_date": "2026-11-10", "duration_days": 45},
    ),
]


@pytest.mark.parametrize("rule, tool, args", LEFT_PARTLY)
def test_misread_rule_is_partly_understood_and_never_approves(
    rule: str, tool: str, args: dict
) -> None:
    assert _rule(rule).understanding == "partly_understood", _readings(rule)
    assert outcome_beside_ticket(rule, tool, args) != "approved"


# -- misread, now read right ----------------------------------------------------------------------

READ_RIGHT = [
    # the bound once read as what a money total measures ('max' summed): the per-agent daily
    # total (agentrules.py restates it for the total_today check)
    (
        "Daily refund total per agent: EUR 20k max.",
        "refund.issue",
        {"amount": 25000, "currency": "EUR", "max": 1},
        "denied",
    ),
    # a lower-case slash list of names read in part
    ("NEVER export cols ssn / card_number / dob", "export.table", {"columns": ["dob"]}, "denied"),
    ("NEVER export cols ssn / card_number / dob", "export.table", {"columns": ["ssn"]}, "denied"),
    (
        "NEVER export cols ssn / card_number / dob",
        "export.table",
        {"columns": ["email"]},
        "approved",
    ),
    # an 'A and B' name in an or-list split into alternatives
    (
        "Governing law: New York, Delaware, or England and Wales only.",
        "contract.execute",
        {"governing_law": "Wales"},
        "denied",
    ),
    (
        "Governing law: New York, Delaware, or England and Wales only.",
        "contract.execute",
        {"governing_law": "England and Wales"},
        "approved",
    ),
    # two arguments that differ
    (
        "Cross-border transfers - from_country different from to_country - need Loyalty Ops "
        "approval.",
        "points.transfer",
        {"from_country": "DE", "to_country": "US"},
        "pending_review",
    ),
    (
        "Cross-border transfers - from_country different from to_country - need Loyalty Ops "
        "approval.",
        "points.transfer",
        {"from_country": "DE", "to_country": "de "},
        "approved",
    ),
    (
        "Cross-border transfers - from_country different from to_country - need Loyalty Ops "
        "approval.",
        "points.transfer",
        {"from_country": "DE"},
        "pending_review",
    ),
    # 'within one hour' restating a count's window, no second bound
    (
        "More than 3 payments by the same agent within one hour -> hold for review.",
        "payment.issue",
        {"amount": 10, "duration_hours": 0.5},
        "approved",
    ),
    # a heading in capitals read as a deny list's argument
    # (with no word naming the vendor's argument, another vendor goes to review here; the
    # policy's description 'Vendor payments' names it in dev_jred14 and it is approved there)
    (
        "DEBARRED - do not pay: Apex Restoration LLC, QuickFix Plumbing Inc.",
        "ap.pay",
        {"vendor_name": "Northside Roofing", "amount": 900, "currency": "USD"},
        "pending_review",
    ),
    (
        "DEBARRED - do not pay: Apex Restoration LLC, QuickFix Plumbing Inc.",
        "ap.pay",
        {"vendor_name": "Apex Restoration LLC"},
        "denied",
    ),
    # values after a colon read into a required argument's name
    (
        "Every credit needs a reason_code from: SLA, BILLING_ERROR, GOODWILL.",
        "accounts.credit",
        {"reason_code": "GOODWILL"},
        "approved",
    ),
    (
        "Every credit needs a reason_code from: SLA, BILLING_ERROR, GOODWILL.",
        "accounts.credit",
        {"reason_code": "OTHER"},
        "pending_review",
    ),
    (
        "Every credit needs a reason_code from: SLA, BILLING_ERROR, GOODWILL.",
        "accounts.credit",
        {"amount": 5},
        "denied",
    ),
    (
        "(a) Each log entry must state the privilege basis: attorney-client, work product, or "
        "common interest.",
        "privlog.add_entry",
        {"privilege_basis": "work product"},
        "approved",
    ),
]


@pytest.mark.parametrize("rule, tool, args, expected", READ_RIGHT)
def test_misread_rule_now_read_right(rule: str, tool: str, args: dict, expected: str) -> None:
    assert _rule(rule).understanding == "understood", _readings(rule)
    assert outcome_beside_ticket(rule, tool, args) == expected, _readings(rule)


def test_readings_say_what_the_rule_says() -> None:
    assert "ssn, card_number or dob" in _readings("NEVER export cols ssn / card_number / dob")
    assert "England and Wales" in _readings(
        "Governing law: New York, Delaware, or England and Wales only."
    )
    assert "`from_country` and `to_country` hold different values" in _readings(
        "Cross-border transfers - from_country different from to_country - need Ops approval."
    )
    assert "DEBARRED" not in _readings("DEBARRED - do not pay: Apex Restoration LLC, Foo Inc.")


# -- near misses: readings that were right stay decided -----------------------------------------

STILL_DECIDED = [
    ("Never export card_number.", "export.table", {"columns": ["card_number"]}, "denied"),
    ("NEVER export ssn, card_number or dob", "export.table", {"columns": ["dob"]}, "denied"),
    ("Payments in USD only.", "ap.pay", {"amount": 5, "currency": "USD"}, "approved"),
]


@pytest.mark.parametrize("rule, tool, args, expected", STILL_DECIDED)
def test_right_readings_stay_decided(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected, _readings(rule)


# -- properties ------------------------------------------------------------------------------------

_NAME = st.from_regex(r"[a-z]{3,8}_[a-z]{3,8}", fullmatch=True)


@settings(max_examples=30, deadline=None)
@given(_NAME, _NAME, st.sampled_from(["over", "above", "beyond"]))
def test_a_name_compared_with_another_never_decides(left: str, right: str, word: str) -> None:
    """'X must not push <a> over <b>': whatever the names, the rule is not read as a value."""
    if left == right:
        return
    compiled = _rule(f"A change must not push {left} {word} {right}.")
    assert not (
        compiled.understanding == "understood"
        and any(left in getattr(c, "values", ()) for c in compiled.checks)
    )


@settings(max_examples=30, deadline=None)
@given(st.lists(_NAME, min_size=3, max_size=5, unique=True))
def test_a_slash_list_of_names_is_read_whole(names: list[str]) -> None:
    """'NEVER export cols a / b / c': every member is refused, or the rule does not decide."""
    rule = f"NEVER export cols {' / '.join(names)}"
    compiled = _rule(rule)
    if compiled.understanding != "understood":
        return
    for name in names:
        assert outcome_beside_ticket(rule, "export.table", {"columns": [name]}) != "approved"
