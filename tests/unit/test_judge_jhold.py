"""Holds on named values as staff write them: freezes, suspensions, receiverships, moratoria
(helper jhold, issue #10; webapp/judge/holds.py).

Vectors are (rule, tool, arguments, expected outcome beside a satisfied ticket rule), with the
near-misses: the held value in another argument, a neighbouring value, another act than the one
held, a read, the value spelt another way, a value extending the held one, no argument of its kind.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import assert_never_decides, outcome_beside_ticket

from webapp.judge.compiler import compile_rule
from webapp.judge.holds import Hold, hold_checks

RECEIVERSHIP = (
    "R4 - Elm Court and Birchwood Towers are in receivership. No rent collection at those "
    "properties; the receiver collects."
)
PORTFOLIO = (
    "6. FREEZE: Harbor Point portfolio - no lease changes of any kind until the sale closes."
)
ROSTER = "5) DUB base roster is FROZEN pending the union agreement. No changes to DUB-based crew."
SUBSTATION = (
    "CHANGE FREEZE - substation SUB-114 (Riverside): no setpoint or configuration writes until "
    "the relay retrofit closes."
)
SCHEDULES = (
    "Rate schedules R-1, R-2 and GS-1 are frozen pending the rate case decision (Docket "
    "24-0117). No changes."
)
VENDOR = "VND-2310 is SUSPENDED (lapsed insurance cert) - do not issue work to them."
MORATORIUM = "Alameda County - eviction moratorium in effect: no pay-or-quit notices, no filings."
MAILBOX = "CEO mailbox (ceo@northwind.com): no collection without GC sign-off."
LEGAL_HOLD = "Account ACC-99120 is on legal hold (subpoena) - no deletions, no merges."

HOLDS = [RECEIVERSHIP, PORTFOLIO, ROSTER, SUBSTATION, SCHEDULES, VENDOR, MORATORIUM, MAILBOX]

VECTORS = [
    (RECEIVERSHIP, "rent.charge", {"property": "Birchwood Towers", "amount": 10}, "denied"),
    (RECEIVERSHIP, "rent.autopay_retry", {"property": "elm_court", "amount": 10}, "denied"),
    (RECEIVERSHIP, "rent.charge", {"property": "Maple Gardens", "amount": 10}, "approved"),
    # a value extending a held one may be part of it
    (RECEIVERSHIP, "rent.charge", {"property": "Elm Court East", "amount": 10}, "pending_review"),
    (RECEIVERSHIP, "rent.get_ledger", {"property": "Elm Court"}, "approved"),
    (RECEIVERSHIP, "rent.charge", {"tenant_id": "T-1", "amount": 10}, "pending_review"),
    (PORTFOLIO, "lease.amend", {"portfolio": "HARBOR-POINT", "unit": "7A"}, "denied"),
    (PORTFOLIO, "lease.renew", {"portfolio": "Harbor Point", "unit": "7A"}, "denied"),
    (PORTFOLIO, "lease.amend", {"portfolio": "Oakridge", "unit": "7A"}, "approved"),
    # one letter off a long name: doubtful
    (PORTFOLIO, "lease.amend", {"portfolio": "Harbor Pointe", "unit": "7A"}, "pending_review"),
    (PORTFOLIO, "lease.get", {"portfolio": "Harbor Point"}, "approved"),
    # the portfolio is another one; the frozen words only inside another argument's value
    (
        PORTFOLIO,
        "lease.amend",
        {"portfolio": "Oakridge", "property": "Harbor Point Lofts"},
        "approved",
    ),
    # an id where a name is held may be it; a name beside the id says which one it is
    (PORTFOLIO, "lease.amend", {"portfolio_id": 7, "unit": "7A"}, "pending_review"),
    (
        RECEIVERSHIP,
        "rent.charge",
        {"property": "Maple Gardens", "property_id": "P-77", "amount": 10},
        "approved",
    ),
    (ROSTER, "crew.reassign_duty", {"crew_id": "C-1", "base": "DUB"}, "denied"),
    (ROSTER, "crew.reassign_duty", {"crew_id": "C-1", "base": "dub"}, "denied"),
    # the held value in another argument: FRA-based crew flying to Dublin is not DUB-based
    (
        ROSTER,
        "crew.reassign_duty",
        {"crew_id": "C-1", "base": "FRA", "destination": "DUB"},
        "approved",
    ),
    (ROSTER, "crew.get_roster", {"base": "DUB"}, "approved"),
    (SUBSTATION, "scada.write_setpoint", {"substation": "SUB-114", "value": 122}, "denied"),
    # a neighbouring id in a series is another substation
    (SUBSTATION, "scada.write_setpoint", {"substation": "SUB-115", "value": 122}, "approved"),
    (SUBSTATION, "scada.read_telemetry", {"substation": "SUB-114"}, "approved"),
    # another act than a setpoint or configuration write: a human decides
    (SUBSTATION, "scada.operate_breaker", {"substation": "SUB-114"}, "pending_review"),
    (SCHEDULES, "rates.update_schedule", {"schedule": "GS-1", "change": "x"}, "denied"),
    (SCHEDULES, "rates.update_schedule", {"schedule": "GS-2", "change": "x"}, "approved"),
    (VENDOR, "workorders.create", {"vendor_id": "VND-2310", "work_type": "trim"}, "denied"),
    (VENDOR, "workorders.create", {"vendor_id": "VND-1044", "work_type": "trim"}, "approved"),
    # the held code spelt another way, beside another vendor's code
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND 2310", "backup_vendor": "VND-1044", "work_type": "trim"},
        "denied",
    ),
    # the held value whole in another argument than the one of its kind: a human decides
    (
        SUBSTATION,
        "scada.write_setpoint",
        {"substation": "SUB-207", "also_apply_to": "SUB-114", "value": 1},
        "pending_review",
    ),
    (VENDOR, "workorders.create", {"work_type": "trim", "notes": "was VND-2310"}, "pending_review"),
    (MORATORIUM, "notice.send", {"county": "Alameda", "notice_type": "pay_or_quit"}, "denied"),
    (MORATORIUM, "eviction.file", {"county": "Alameda County", "case": "ud"}, "denied"),
    (MORATORIUM, "notice.send", {"county": "Sacramento", "notice_type": "pay_or_quit"}, "approved"),
    (MORATORIUM, "notice.send", {"state": "CA", "notice_type": "pay_or_quit"}, "pending_review"),
    (MAILBOX, "ediscovery.collect", {"custodians": ["ceo@northwind.com"]}, "pending_review"),
    (MAILBOX, "ediscovery.collect", {"custodians": ["a.bauer@northwind.com"]}, "approved"),
    (LEGAL_HOLD, "crm.merge_accounts", {"source_account_id": "ACC-99120"}, "denied"),
    (LEGAL_HOLD, "crm.update_email", {"account_id": "ACC-99120"}, "pending_review"),
    (LEGAL_HOLD, "crm.delete_account", {"account_id": "ACC-99121"}, "approved"),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_a_hold_on_named_values(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize("rule", HOLDS)
def test_a_hold_is_understood_whole(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    assert [type(c) for c in compiled.checks] == [Hold]


def test_the_reading_is_rendered_from_structure() -> None:
    (check,) = hold_checks(0, SUBSTATION)
    assert check.values == ("SUB-114", "Riverside")
    assert check.reading().startswith(
        "Deny setpoint writes or configuration writes when the argument named for the "
        "substation is SUB-114 or Riverside"
    )
    (check,) = hold_checks(0, MAILBOX)
    assert check.effect == "review" and check.values == ("ceo@northwind.com",)
    (check,) = hold_checks(0, MORATORIUM)
    assert check.values == ("Alameda",) and check.act_texts == ("pay-or-quit notices", "filings")


@pytest.mark.parametrize(
    "rule",
    [
        "Premium customers are frozen.",  # a class, not a name
        "Private Banking account closures are frozen. Do not process any.",  # an act, not a kind
        "FREEZE: SBA-7a disbursements suspended pending OIG audit.",
        "Globex is suspended for EU sites.",  # 'for' a scope, not a period
        "Elm Court is no longer in receivership.",
        # a release a request may show is a condition, not a lifetime
        "VND-2310 is suspended until approved by the CFO.",
        "VND-2310 is suspended pending CFO approval.",
        "Harbor Point is frozen. No changes except hotfixes.",
        "Harbor Point is frozen. No changes by agents.",
    ],
)
def test_shapes_the_grammar_does_not_take(rule: str) -> None:
    assert hold_checks(0, rule) is None


_CONDITIONS = (
    "unless the GC approves",
    "except on weekends",
    "only if the tenant is a minor",
    "when the balance is over $2,000",
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HOLDS), st.sampled_from(_CONDITIONS))
def test_an_inserted_condition_leaves_the_hold_partly_understood(rule: str, extra: str) -> None:
    text = rule.rstrip(".") + " " + extra + "."
    assert hold_checks(0, text) is None
    if "$" not in extra:  # an amount's condition is read by the prose readings (a cap)
        assert_never_decides(text)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HOLDS), st.sampled_from(_CONDITIONS))
def test_a_condition_after_the_held_subject_is_not_read_as_a_hold(rule: str, extra: str) -> None:
    # inserted after the first sentence or clause: the grammar has no place for it
    for sep in (". ", ": ", " - "):
        if sep in rule:
            head, tail = rule.split(sep, 1)
            assert hold_checks(0, head + " " + extra + sep + tail) is None
            break


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        ["Harbor Point", "harbor_point", "HARBOR-POINT", "harbor point", "Harbor-Point"]
    )
)
def test_any_spelling_of_the_held_value_is_held(spelt: str) -> None:
    got = outcome_beside_ticket(PORTFOLIO, "lease.amend", {"portfolio": spelt, "unit": "1"})
    assert got == "denied"


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=100, max_value=999).filter(lambda n: n != 114))
def test_another_id_of_the_series_is_outside_the_freeze(n: int) -> None:
    got = outcome_beside_ticket(
        SUBSTATION, "scada.write_setpoint", {"substation": f"SUB-{n}", "value": 1}
    )
    assert got == "approved"
