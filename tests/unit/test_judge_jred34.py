"""jred34: red team of this session's new readings: a closed list after 'must be' with a
qualified subject, names joined before one bound, an 'm' after a word that is no length, and a
whole rule 'no X = no Y'."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("Second approver must be CFO or CEO.", {"approver": "CFO"}),
        ("Second approver: CFO or CEO only.", {"approver": "CEO"}),
        ("Return carrier must be UPS or FedEx.", {"carrier": "UPS"}),
        ("Backup region must be EU or US.", {"region": "us-east-1"}),
    ],
)
def test_a_qualified_subject_is_not_met_by_the_unqualified_argument(text, args):
    # each approved: the list was checked on the argument without the qualifier
    assert outcome_beside_ticket(text, "x.act", args) != "approved"


def test_a_qualified_subject_is_met_by_its_own_argument():
    assert (
        outcome_beside_ticket(
            "Second approver must be CFO or CEO.", "x.act", {"second_approver": "CFO"}
        )
        == "approved"
    )
    assert (
        outcome_beside_ticket(
            "Payment method must be card or ACH.", "x.act", {"payment_method": "ACH"}
        )
        == "approved"
    )
    assert (
        outcome_beside_ticket(
            "Payment method must be card or ACH.", "x.act", {"payment_method": "wire"}
        )
        == "denied"
    )


JOINERS = [" and ", ", ", " or ", " + ", " & "]


@pytest.mark.parametrize("joiner", JOINERS)
def test_names_joined_before_one_bound_never_approve_the_first_over(joiner):
    text = f"qty_units{joiner}box_count must not exceed 50."
    # read "Deny when `box_count` is above 50": qty_units 80 passed
    assert outcome_beside_ticket(text, "ord.create", {"qty_units": 80, "box_count": 10}) != (
        "approved"
    )
    assert compile_rule(0, "c", text).understanding != "understood"


def test_one_name_before_its_bound_still_decides():
    text = "qty_units must not exceed 50."
    assert outcome_beside_ticket(text, "ord.create", {"qty_units": 80}) == "denied"
    assert outcome_beside_ticket(text, "ord.create", {"qty_units": 20}) == "approved"
    paired = "qty_units max 50 and amount_usd max 1000"
    assert outcome_beside_ticket(paired, "ord.create", {"qty_units": 80, "amount_usd": 5}) == (
        "denied"
    )


@pytest.mark.parametrize(
    "text",
    ["Long positions max 2m.", "High yield exposure max 5m.", "Wide spreads max 1m."],
)
def test_an_adjective_is_no_length(text):
    # 'Long positions max 2m' read 2 metres: a 3,000,000 notional passed
    args = {"notional_usd": 9_000_000, "currency": "USD"}
    assert outcome_beside_ticket(text, "trade.buy", args) != "approved"


def test_a_word_of_size_before_its_bound_is_still_metres():
    assert outcome_beside_ticket(
        "Pallet height max 1.8m.", "wh.store", {"pallet_height_cm": 200}
    ) == ("denied")


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("no consent = no procedure", {"consent_on_file": False}),
        ("no PO -> no payment", {"po_number": None}),
        ("No ID, no rental", {"id_verified": False}),
    ],
)
def test_a_whole_rule_no_x_no_y_never_approves(text, args):
    assert outcome_beside_ticket(text, "procedure.book", args) != "approved"


def test_a_tail_no_x_no_y_after_a_flag_still_reads():
    text = "`consent_signed` must be true. no consent = no procedure."
    assert outcome_beside_ticket(text, "procedure.book", {"consent_signed": False}) == "denied"
    assert outcome_beside_ticket(text, "procedure.book", {"consent_signed": True}) == "approved"


_NAME = st.from_regex(r"[a-z]{3,8}_[a-z]{3,8}", fullmatch=True)


@given(
    first=_NAME,
    second=_NAME,
    joiner=st.sampled_from(JOINERS),
    cap=st.integers(min_value=1, max_value=10_000),
    modal=st.sampled_from(["must not exceed", "must be at most", "may not exceed"]),
)
def test_property_joined_names_never_approve_the_first_over_its_cap(
    first, second, joiner, cap, modal
):
    if first == second:
        return
    text = f"{first}{joiner}{second} {modal} {cap}."
    args = {first: cap * 2 + 1, second: 0}
    assert outcome_beside_ticket(text, "x.act", args) != "approved"


@pytest.mark.parametrize(
    "text", ["Device must be compliant or exempt.", "Applicant must be eligible or exempt."]
)
def test_states_after_must_be_are_no_list_of_names(text):
    # read as `device` in (compliant, exempt): `device_id: D1` denied a compliant device
    assert compile_rule(0, "c", text).understanding != "understood"
