"""Red team of holds.py (helper jred18, issue #10): what a hold on named values approved that a
careful compliance officer would not.

Each vector is (rule, tool, arguments, expected outcome beside a satisfied ticket rule): the
held value spelt another way ('The Elm Court', 'Elm Ct.', 'sub114', 'SUB-0114'), a held code
inside an identifier-like value ('vendors/VND-2310'), an id spelling a held name
('ELM-COURT-01'), a class written with a code ('Tier-3 vendors', 'EU vendors') or joined to the
values ('VND-2310 and subsidiaries'), a bracket that extends the hold, makes an exception or says
it ended, and a read by another name where the held act is itself a kind of read ('no
collection' and `ediscovery.search`).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import assert_never_decides, outcome_beside_ticket

from webapp.judge.holds import hold_checks

RECEIVERSHIP = (
    "R4 - Elm Court and Birchwood Towers are in receivership. No rent collection at those "
    "properties; the receiver collects."
)
PORTFOLIO = (
    "6. FREEZE: Harbor Point portfolio - no lease changes of any kind until the sale closes."
)
SUBSTATION = (
    "CHANGE FREEZE - substation SUB-114 (Riverside): no setpoint or configuration writes until "
    "the relay retrofit closes."
)
VENDOR = "VND-2310 is SUSPENDED (lapsed insurance cert) - do not issue work to them."
MAILBOX = "CEO mailbox (ceo@northwind.com): no collection without GC sign-off."
SUPPLIER = (
    "SUP-7781 is SUSPENDED (expired food-safety certificate) - do not place orders with them."
)

VECTORS = [
    # spellings of the held value
    (RECEIVERSHIP, "rent.charge", {"property": "The Elm Court", "amount": 10}, "denied"),
    (RECEIVERSHIP, "rent.charge", {"property": "Elm Ct.", "amount": 10}, "pending_review"),
    (RECEIVERSHIP, "rent.charge", {"property": "Birchwood Twrs", "amount": 10}, "pending_review"),
    (PORTFOLIO, "lease.amend", {"portfolio": "Harbor Pt", "unit": "7A"}, "pending_review"),
    (PORTFOLIO, "lease.amend", {"portfolio": "Harbor Park", "unit": "7A"}, "approved"),
    (
        RECEIVERSHIP,
        "rent.charge",
        {"property": "Apartments at Elm Court", "amount": 10},
        "pending_review",
    ),
    (RECEIVERSHIP, "rent.charge", {"property": "Elmwood Court", "amount": 10}, "approved"),
    (PORTFOLIO, "lease.amend", {"portfolio": "HP", "unit": "7A"}, "pending_review"),
    (PORTFOLIO, "lease.amend", {"portfolio": "OR", "unit": "7A"}, "approved"),
    (SUBSTATION, "scada.write_setpoint", {"substation": "sub114", "value": 1}, "denied"),
    (SUBSTATION, "scada.write_setpoint", {"substation": "SUB114", "value": 1}, "denied"),
    (SUBSTATION, "scada.write_setpoint", {"substation": "SUB-0114", "value": 1}, "pending_review"),
    (VENDOR, "workorders.create", {"vendor_id": "VND-02310", "work_type": "x"}, "pending_review"),
    (VENDOR, "workorders.create", {"vendor_id": "VND-2311", "work_type": "x"}, "approved"),
    # an id spelling a held name, beside another name
    (
        RECEIVERSHIP,
        "rent.charge",
        {"property": "Maple Gardens", "property_id": "ELM-COURT-01", "amount": 10},
        "pending_review",
    ),
    (
        RECEIVERSHIP,
        "rent.charge",
        {"property": "Maple Gardens", "property_id": "P-77", "amount": 10},
        "approved",
    ),
    # a held code inside an identifier-like value of another argument; free text is not one
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND-1044", "subcontract_to": "vendors/VND-2310", "work_type": "x"},
        "pending_review",
    ),
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND-1044", "also": "VND-1050, VND-2310", "work_type": "x"},
        "pending_review",
    ),
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND-1044", "vendor_name": "VND-2310 Acme", "work_type": "x"},
        "pending_review",
    ),
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND-1044", "notes": "replaces VND-2310 while it is suspended"},
        "approved",
    ),
    (
        VENDOR,
        "workorders.create",
        {"vendor_id": "VND-1044", "subcontract_to": "vendors/VND-23100", "work_type": "x"},
        "approved",
    ),
    # the held value as a key of a nested object
    (
        SUBSTATION,
        "scada.write_setpoint",
        {"substation": "SUB-115", "setpoints": {"SUB-114": 120, "SUB-115": 118}},
        "pending_review",
    ),
    (
        RECEIVERSHIP,
        "rent.charge",
        {"property": "Maple Gardens", "amounts": {"Elm Court": 100}},
        "pending_review",
    ),
    (
        SUBSTATION,
        "scada.write_setpoint",
        {"substation": "SUB-115", "setpoints": {"SUB-115": 118}},
        "approved",
    ),
    # a read by another name where the held act is a kind of read
    (MAILBOX, "ediscovery.search", {"custodians": ["ceo@northwind.com"]}, "pending_review"),
    (MAILBOX, "ediscovery.search", {"custodians": ["a.bauer@northwind.com"]}, "approved"),
    # money collected is a charge: reading the ledger stays outside the hold
    (RECEIVERSHIP, "rent.get_ledger", {"property": "Elm Court"}, "approved"),
    # a reason in brackets that reads like an end ('expired … certificate') is still a reason
    (SUPPLIER, "purchasing.create_order", {"supplier_id": "SUP-7781", "qty": 4}, "denied"),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_a_hold_red_team_vector(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        # a class written with a code, or joined to the named value
        "Tier-3 vendors are suspended - do not issue work to them.",
        "EU vendors are suspended - do not issue work to them.",
        "VND-2310 and subsidiaries are suspended - do not issue work to them.",
        "VND-2310 and sister companies are suspended - do not issue work to them.",
        # a bracket that extends the hold, makes an exception or says it ended
        "VND-2310 is SUSPENDED (and its affiliate VND-2311) - do not issue work to them.",
        "VND-2310 (and affiliates) is suspended - do not issue work to them.",
        "Elm Court is in receivership (also covers Elm Court Annex). No rent collection.",
        "VND-2310 is SUSPENDED (emergency repairs excepted) - do not issue work to them.",
        "VND-2310 is SUSPENDED (emergency work allowed) - do not issue work to them.",
        "Harbor Point portfolio is frozen (renewals exempt). No changes.",
        "VND-2310 is suspended (reinstated 11/01) - do not issue work to them.",
        "FREEZE: Harbor Point portfolio - no lease changes until the sale closes (sale closed "
        "10/15).",
    ],
)
def test_shapes_left_to_the_other_readings(rule: str) -> None:
    assert hold_checks(0, rule) is None
    assert_never_decides(rule)


_BRACKETS = (
    "and its affiliate VND-2311",
    "also Seaview",
    "renewals exempt",
    "emergency work allowed",
    "lifted 10/15",
    "reinstated",
    "sale closed",
    "subsidiaries included",
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_BRACKETS))
def test_a_bracket_that_is_no_reason_leaves_the_hold_partly_understood(inner: str) -> None:
    rule = f"Harbor Point portfolio is frozen ({inner}). No changes."
    assert hold_checks(0, rule) is None
    assert_never_decides(rule)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["SUB-0114", "SUB-00114", "sub-0114", "SUB 0114"]))
def test_a_zero_padded_held_code_is_never_approved(spelt: str) -> None:
    got = outcome_beside_ticket(
        SUBSTATION, "scada.write_setpoint", {"substation": spelt, "value": 1}
    )
    assert got != "approved"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["vendors/{}", "{},VND-1044", "VND-1044; {}", "urn:vnd:{}"]))
def test_a_held_code_within_an_identifier_value_is_never_approved(form: str) -> None:
    args = {"vendor_id": "VND-1044", "also_for": form.format("VND-2310"), "work_type": "x"}
    assert outcome_beside_ticket(VENDOR, "workorders.create", args) != "approved"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["SUB-11*", "SUB-113..SUB-115", "SUB-1%", "all", "SUB-1??", "any"]))
def test_a_pattern_or_range_that_may_cover_the_held_code_is_never_approved(value: str) -> None:
    got = outcome_beside_ticket(
        SUBSTATION, "scada.write_setpoint", {"substation": value, "value": 1}
    )
    assert got != "approved"
