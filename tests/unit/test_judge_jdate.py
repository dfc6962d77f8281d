"""Date windows on the date argument a rule names (jdate): 'Quiet period Dec 24-26: no sends
(send_date)', 'no new POs with a po_date Jun 15 - Jun 30 inclusive'. The window reads that
argument alone; a request without it, or with a value that is no date, goes to review; the end
words come from boundaries.WINDOW_ENDS."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    assert_qualified_never_decides,
    outcome_beside_ticket,
)
from webapp.judge.boundaries import WINDOW_ENDS
from webapp.judge.compiler import compile_rule

QUIET = "Quiet period Dec 24-26: no sends (send_date)"
PO = "3. FY-end freeze: no new POs with a po_date Jun 15 - Jun 30 inclusive"
AWARDS = "no awards with an award_date of Jun 24 through Jun 30, inclusive (cycle close)"
MORATORIUM = "Holiday moratorium (Nov 25 - Jan 2): no account closures (closure_date)."
EXCLUSIVE = "No sends (send_date) Dec 24-26 exclusive"


def _send(rule: str, **args: object) -> str:
    return outcome_beside_ticket(rule, "email.send_campaign", {"campaign_id": "C-1", **args})


def _reading(rule: str) -> str:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", (rule, compiled.unaccounted)
    return " ".join(c.reading() for c in compiled.checks)


def test_readings_name_the_argument_the_days_and_the_ends() -> None:
    assert _reading(QUIET) == (
        "When `send_date` is Dec 24-26 (the quiet period; both end days included; without a "
        "readable `send_date`, review): Deny requests about sends"
    )
    assert "When `po_date` is Jun 15 - Jun 30 inclusive" in _reading(PO)
    assert "both end days excluded" in _reading(EXCLUSIVE)
    assert "the holiday moratorium" in _reading(MORATORIUM)
    assert "the cycle close" in _reading(AWARDS)


def test_first_and_last_day_inclusive_and_one_day_outside() -> None:
    assert _send(QUIET, send_date="2025-12-24") == "denied"
    assert _send(QUIET, send_date="2025-12-26") == "denied"
    assert _send(QUIET, send_date="2025-12-23") == "approved"
    assert _send(QUIET, send_date="2025-12-27") == "approved"
    po = {"vendor_id": "V-1", "amount": 10}
    assert outcome_beside_ticket(PO, "po.create", {**po, "po_date": "2025-06-15"}) == "denied"
    assert outcome_beside_ticket(PO, "po.create", {**po, "po_date": "2025-06-30"}) == "denied"
    assert outcome_beside_ticket(PO, "po.create", {**po, "po_date": "2025-07-01"}) == "approved"
    assert outcome_beside_ticket(PO, "po.create", {**po, "po_date": "2025-06-14"}) == "approved"


def test_exclusive_ends_are_outside() -> None:
    assert _send(EXCLUSIVE, send_date="2025-12-24") == "approved"
    assert _send(EXCLUSIVE, send_date="2025-12-25") == "denied"
    assert _send(EXCLUSIVE, send_date="2025-12-26") == "approved"


def test_window_across_the_new_year() -> None:
    def close(day: str) -> str:
        return outcome_beside_ticket(
            MORATORIUM, "crm.close_account", {"account_id": "A", "closure_date": day}
        )

    assert close("2025-11-25") == "denied"
    assert close("2025-12-31") == "denied"
    assert close("2026-01-02") == "denied"
    assert close("2026-01-03") == "approved"
    assert close("2025-11-24") == "approved"


def test_a_date_time_is_read_by_its_day() -> None:
    assert _send(QUIET, send_date="2025-12-25T09:30:00Z") == "denied"


def test_missing_or_unreadable_date_is_never_approved() -> None:
    assert _send(QUIET) == "pending_review"
    assert _send(QUIET, send_date="after lunch") == "pending_review"
    assert _send(QUIET, send_date=None) == "pending_review"
    # another date of the request says nothing of the named one
    assert _send(QUIET, created_date="2025-12-01") == "pending_review"


def test_the_window_reads_only_the_named_argument() -> None:
    # the request's other date is outside, the named one inside: denied, not approved
    assert _send(QUIET, send_date="2025-12-25", approved_date="2025-11-01") == "denied"


def test_two_date_arguments_named_leave_the_rule_unread() -> None:
    compiled = compile_rule(0, "c:r0", "Quiet period Dec 24-26: no sends (send_date, post_date)")
    assert compiled.understanding != "understood" or not any(
        getattr(c, "argument", "") for c in compiled.checks
    )


def test_the_end_words_come_from_one_table() -> None:
    assert WINDOW_ENDS["inclusive"] is True and WINDOW_ENDS["exclusive"] is False


# 'when the customer is a minor' is read by its own recogniser (a yes/no argument 'minor', review
# when none is sent); the other qualifiers no recogniser consumes
UNREAD = tuple(q for q in APPENDED_QUALIFIERS if not q.startswith("when "))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from((QUIET, PO, AWARDS, MORATORIUM)), st.sampled_from(UNREAD))
def test_an_appended_qualifier_leaves_the_window_partly_understood(
    rule: str, qualifier: str
) -> None:
    assert_qualified_never_decides(rule, qualifier)


@settings(max_examples=40, deadline=None)
@given(st.dates(min_value=dt.date(2020, 1, 1), max_value=dt.date(2030, 12, 31)))
def test_a_day_inside_the_window_is_never_approved(day: dt.date) -> None:
    got = _send(QUIET, send_date=day.isoformat())
    inside = (day.month, day.day) in ((12, 24), (12, 25), (12, 26))
    assert got == ("denied" if inside else "approved")


def test_another_date_inside_the_window_sends_an_outside_named_date_to_review() -> None:
    rule = "No refunds between Dec 1 and Dec 31 for orders with an order_date"
    args = {"order_id": "O-1", "order_date": "2025-11-15"}
    assert outcome_beside_ticket(rule, "shop.refund", args) == "approved"
    late = {**args, "refund_date": "2025-12-10"}
    assert outcome_beside_ticket(rule, "shop.refund", late) == "pending_review"
    # a birth date or an expiry says nothing of when the act happens
    born = {**args, "date_of_birth": "1990-12-10"}
    assert outcome_beside_ticket(rule, "shop.refund", born) == "approved"


# -- holds until an event (holds.py) -------------------------------------------------------------

FIREWALL = "FREEZE: core-edge-fw -- no rule changes until the migration is signed off"
AUDIT = (
    "AUDIT HOLD - grantee GR-2291 (Hope Horizons Foundation): no disbursements until Internal "
    "Audit lifts the hold"
)
ENTITY = "UK01 entity: CHANGE FREEZE (year-end migration). No run submissions for UK01."


def test_a_hold_until_an_event_is_in_force_now() -> None:
    fw = {"rule_id": "r-1", "action": "allow"}
    assert (
        outcome_beside_ticket(FIREWALL, "firewall.update_rule", {**fw, "firewall": "core-edge-fw"})
        == "denied"
    )
    assert outcome_beside_ticket(FIREWALL, "firewall.update_rule", fw) == "pending_review"
    pay = {"amount": 12000}
    assert (
        outcome_beside_ticket(AUDIT, "grants.disburse", {**pay, "grantee_id": "GR-2291"})
        == "denied"
    )
    assert outcome_beside_ticket(AUDIT, "grants.disburse", pay) == "pending_review"
    run = {"period": "2025-12"}
    assert (
        outcome_beside_ticket(ENTITY, "payroll.submit_run", {**run, "entity": "UK01"}) == "denied"
    )


def test_a_similar_but_different_name_is_outside_the_hold() -> None:
    assert (
        outcome_beside_ticket(AUDIT, "grants.disburse", {"amount": 1, "grantee_id": "GR-2292"})
        == "approved"
    )
    assert outcome_beside_ticket(ENTITY, "payroll.submit_run", {"entity": "UK02"}) == "approved"
    # a value extending the held one is doubtful: never approved
    assert (
        outcome_beside_ticket(AUDIT, "grants.disburse", {"amount": 1, "grantee_id": "GR-2291A"})
        != "approved"
    )


def test_hold_readings_say_the_value_and_the_act() -> None:
    assert _reading(FIREWALL).startswith(
        "Deny rule changes when an argument holding a value of its shape is core-edge-fw"
    )
    assert _reading(AUDIT).startswith(
        "Deny disbursements when the argument named for the grantee is GR-2291"
    )
    assert _reading(ENTITY).startswith(
        "Deny run submissions when the argument named for the entity is UK01"
    )


def test_an_exception_in_the_freeze_bracket_is_not_a_reason() -> None:
    rule = "UK01 entity: CHANGE FREEZE (except payroll corrections). No run submissions for UK01."
    assert compile_rule(0, "c:r0", rule).understanding != "understood"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from((FIREWALL, AUDIT, ENTITY)), st.sampled_from(UNREAD))
def test_an_appended_qualifier_leaves_the_hold_partly_understood(rule: str, qualifier: str) -> None:
    assert_qualified_never_decides(rule, qualifier)


# -- one side of a dated day on a named argument --------------------------------------------------

AFTER = "No timesheet entries with an entry_date after 2025-06-30 (period closed)."
BEFORE = "Trades must not have a settle_date before 2025-01-02"
ON_OR_AFTER = "No invoices with an invoice_date on or after 2026-01-01"


def test_before_and_after_leave_the_day_out_on_or_takes_it_in() -> None:
    def entry(day: str) -> str:
        return outcome_beside_ticket(AFTER, "hr.timesheet_add", {"hours": 8, "entry_date": day})

    assert entry("2025-06-30") == "approved"
    assert entry("2025-07-01") == "denied"
    trade = {"symbol": "IBM", "qty": 1}
    assert (
        outcome_beside_ticket(BEFORE, "trading.book", {**trade, "settle_date": "2025-01-02"})
        == "approved"
    )
    assert (
        outcome_beside_ticket(BEFORE, "trading.book", {**trade, "settle_date": "2025-01-01"})
        == "denied"
    )
    inv = {"amount": 5}
    assert (
        outcome_beside_ticket(ON_OR_AFTER, "ar.invoice", {**inv, "invoice_date": "2026-01-01"})
        == "denied"
    )
    assert (
        outcome_beside_ticket(ON_OR_AFTER, "ar.invoice", {**inv, "invoice_date": "2025-12-31"})
        == "approved"
    )
    assert outcome_beside_ticket(ON_OR_AFTER, "ar.invoice", inv) == "pending_review"
    assert "the written day itself excluded" in _reading(AFTER)
    assert "the written day itself included" in _reading(ON_OR_AFTER)


def test_a_negated_or_excepted_side_is_not_read() -> None:
    for rule in (
        "No trades with a settle_date not later than 2025-01-02",
        "Trades settle only after 2025-01-02 (settle_date)",
        "Refunds need review unless the order_date is after 2025-01-01",
    ):
        assert compile_rule(0, "c:r0", rule).understanding != "understood", rule


def test_the_date_sides_come_from_one_table() -> None:
    from webapp.judge.boundaries import DATE_SIDE

    assert DATE_SIDE["after"] == "gt" and DATE_SIDE["on or after"] == "ge"
    assert DATE_SIDE["before"] == "lt" and DATE_SIDE["no later than"] == "le"


@settings(max_examples=40, deadline=None)
@given(st.dates(min_value=dt.date(2024, 1, 1), max_value=dt.date(2026, 12, 31)))
def test_a_day_past_the_bound_is_never_approved(day: dt.date) -> None:
    got = outcome_beside_ticket(AFTER, "hr.timesheet_add", {"entry_date": day.isoformat()})
    assert got == ("denied" if day > dt.date(2025, 6, 30) else "approved")


# -- day counts on a named argument ----------------------------------------------------------------

PAST_DUE = "Referral to agency: at least 60 days past due (days_past_due)"


def test_a_day_count_exactly_at_the_bound() -> None:
    def refer(**args: object) -> str:
        return outcome_beside_ticket(
            PAST_DUE, "collections.refer_to_agency", {"account_id": "A", **args}
        )

    assert refer(days_past_due=60) == "approved"
    assert refer(days_past_due=59) == "denied"
    assert refer() == "pending_review"
    assert _reading(PAST_DUE).startswith("Deny when `days_past_due` is below 60 days")


def test_past_outside_the_argument_name_is_still_unread() -> None:
    # 'past' names the argument's own words only when the rule names the argument
    compiled = compile_rule(0, "c:r0", "Referral to agency: at least 60 days past due")
    assert "past" in compiled.unaccounted


def test_a_zoned_instant_near_an_end_day_goes_to_review() -> None:
    # 23:30 UTC on Dec 23 is Dec 24 an hour east: inside for some tenants' calendars
    assert _send(QUIET, send_date="2025-12-23T23:30:00Z") == "pending_review"
    assert _send(QUIET, send_date="2025-12-27T00:30:00-05:00") == "pending_review"
    assert _send(QUIET, send_date="2025-12-25T12:00:00+01:00") == "denied"
    assert _send(QUIET, send_date="2025-12-20T10:00:00Z") == "approved"
    # a time without a zone is on its own calendar day
    assert _send(QUIET, send_date="2025-12-23T23:30:00") == "approved"


def test_more_days_or_a_bound_beside_the_window_leave_it_unread() -> None:
    for rule in (
        "No sends with a send_date Dec 24-26 or Dec 31",
        "No sends with a send_date Dec 24-26 or 31",
        "Quiet period Dec 24-26: no sends (send_date) over 10,000 recipients",
    ):
        assert compile_rule(0, "c:r0", rule).understanding != "understood", rule
    # Dec 31 is never approved by the window alone
    assert (
        _send("No sends with a send_date Dec 24-26 or Dec 31", send_date="2025-12-31") != "approved"
    )


def test_a_day_of_a_month_is_no_amount() -> None:
    # read as 'amount at or above 24', a send of 10 on Dec 25 had been approved
    rule = "Sends Dec 24-26 need marketing approval"
    assert compile_rule(0, "c:r0", rule).understanding != "understood"
    args = {"send_date": "2025-12-25", "amount": 10}
    assert outcome_beside_ticket(rule, "email.send", args) != "approved"
