"""Red team of the readings of dates and networks (jred21, bench dev_jred21): a date window
beside a date it cannot place, a window stretched past its written end, a prefix whose length
is written so the address alone reads as a /32, a held code in free text, a named bound beside
its restated value. Each was labelled understood and approved; each now goes to review."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule

QUIET = "Quiet period Dec 24-26: no sends (send_date)"
PO = "3. FY-end freeze: no new POs with a po_date Jun 15 - Jun 30 inclusive"
MORATORIUM = "Holiday moratorium (Nov 25 - Jan 2): no account closures (closure_date)."
ENTRY = "No journal entries with an entry_date after 2025-06-30"
AUDIT = (
    "AUDIT HOLD - grantee GR-2291 (Lakeside Youth Fund): no disbursements until Internal Audit "
    "lifts the hold"
)
PREFIX = "Prefix shorter than /24 -> network team review"
PORTS = "Never open port 22 or 3389 to 0.0.0.0/0"
LEVERAGE = "Leverage above 5x is forbidden (`leverage`)"


def _send(rule: str = QUIET, **args: object) -> str:
    return outcome_beside_ticket(rule, "email.send_campaign", {"campaign_id": "C-1", **args})


def _po(**args: object) -> str:
    return outcome_beside_ticket(PO, "procurement.create_po", {"vendor_id": "V-1", **args})


def _route(**args: object) -> str:
    return outcome_beside_ticket(PREFIX, "network.announce_route", args)


def _open(**args: object) -> str:
    return outcome_beside_ticket(PORTS, "firewall.open_port", args)


def _reading(rule: str) -> str:
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", (rule, compiled.unaccounted)
    return " ".join(c.reading() for c in compiled.checks)


# -- dates -----------------------------------------------------------------------------------


def test_no_day_of_the_calendar_is_never_placed_outside_the_window() -> None:
    assert _send(send_date="2025-12-32") == "pending_review"
    assert _send(send_date="2025-13-25") == "pending_review"
    assert _po(po_date="2025-06-31") == "pending_review"
    assert (
        outcome_beside_ticket(ENTRY, "ledger.post_entry", {"entry_date": "2025-06-31"})
        == "pending_review"
    )
    # a real day outside still approves
    assert _send(send_date="2025-12-27") == "approved"
    assert _po(po_date="2025-07-01") == "approved"


def test_another_date_written_otherwise_beside_an_outside_one_goes_to_review() -> None:
    assert _send(send_date="2025-12-20", resend_on="Dec 25 2025") == "pending_review"
    assert _send(send_date="2025-12-20", followup="12/25/2025") == "pending_review"
    assert _send(send_date="2025-12-20", resend_at=1766620800) == "pending_review"
    close = {"account_id": "A", "closure_date": "2025-11-20", "effective_on": "12/01/2025"}
    assert outcome_beside_ticket(MORATORIUM, "crm.close_account", close) == "pending_review"


def test_a_list_of_other_dates_is_read_member_by_member() -> None:
    assert _send(send_date="2025-12-20", send_dates=["2025-12-25"]) == "pending_review"
    assert _send(send_date="2025-12-20", send_dates=["12/25/2025"]) == "pending_review"
    assert _send(send_date="2025-12-20", send_dates=["2025-12-20", "2025-12-22"]) == "approved"


def test_a_delay_may_carry_the_act_into_the_window() -> None:
    assert _send(send_date="2025-12-20", delay_days=5) == "pending_review"


def test_a_window_stretched_past_its_end_is_not_read_as_the_window() -> None:
    for rule in (
        "Quiet period Dec 24-26 until further notice: no sends (send_date)",
        "Quiet period Dec 24-26 and thereafter: no sends (send_date)",
        "no new POs with a po_date Jun 15 - Jul 15, 2025 or later",
        "no new POs with a po_date Jun 15 - Jul 15, 2025 and beyond",
        "No sends (send_date) Dec 24-26 onwards",
    ):
        assert_never_decides(rule)
    assert _send("Quiet period Dec 24-26 until further notice: no sends (send_date)",
                 send_date="2026-01-05") == "pending_review"  # fmt: skip


def test_until_further_notice_without_days_is_still_read_as_now() -> None:
    # the aside stays for a freeze with no calendar days (asides.without_open_end)
    rule = "FREEZE: core-edge-fw -- no rule changes until further notice"
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


def test_the_window_readings_are_unchanged() -> None:
    assert _reading(QUIET) == (
        "When `send_date` is Dec 24-26 (the quiet period; both end days included; without a "
        "readable `send_date`, review): Deny requests about sends"
    )
    assert _send(send_date="2025-12-25") == "denied"
    assert _send(send_date="2025-12-25T10:00") == "denied"


@settings(max_examples=60, deadline=None)
@given(
    st.dates(min_value=dt.date(2020, 1, 1), max_value=dt.date(2030, 12, 31)),
    st.sampled_from(("{m}/{d}/{y}", "{d}.{m}.{y}", "{b} {d} {y}", "{d} {b} {y}")),
)
def test_an_other_date_in_any_form_beside_an_outside_one_is_never_approved(
    day: dt.date, form: str
) -> None:
    written = form.format(m=day.month, d=day.day, y=day.year, b=day.strftime("%b"))
    assert _send(send_date="2025-12-20", resend_on=written) != "approved"


@settings(max_examples=40, deadline=None)
@given(st.integers(2020, 2030), st.integers(1, 12), st.integers(29, 40))
def test_an_impossible_day_is_never_approved(year: int, month: int, day: int) -> None:
    try:
        dt.date(year, month, day)
    except ValueError:
        assert _send(send_date=f"{year}-{month:02d}-{day:02d}") == "pending_review"


# -- holds -----------------------------------------------------------------------------------


def test_a_held_code_in_free_text_goes_to_review_unless_it_is_the_one_replaced() -> None:
    def pay(**args: object) -> str:
        return outcome_beside_ticket(AUDIT, "grants.disburse", {"amount": 100, **args})

    assert pay(grantee_id="GR-1", memo="pass-through to GR-2291") == "pending_review"
    assert pay(grantee_id="GR-1", note="sub-grant for GR-2291 programs") == "pending_review"
    assert pay(grantee_id="GR-1", note="replaces GR-2291 while it is held") == "approved"
    assert pay(grantee_id="GR-1", note="instead of GR-2291") == "approved"
    assert pay(grantee_id="GR-1") == "approved"
    assert pay(grantee_id="GR-2291") == "denied"


# -- networks --------------------------------------------------------------------------------


def test_a_prefix_length_written_otherwise_is_never_read_as_a_host() -> None:
    for written in (
        "10.0.0.0 / 16",
        "10.0.0.0/ 16",
        "10.0.0.0 /16",
        "10.0.0.0/24.5",
        "10.0.0.0/255.255.0.0",
        "10.0.0.0 255.255.0.0",
        "10.0.0.0 mask 255.255.0.0",
        "10.0.0.0\\16",
        "10.0.0.0 \u2013 10.0.255.255",
        "10.0.0.0",
    ):
        assert _route(prefix=written) == "pending_review", written
    assert _route(note="announce 10.0.0.0 / 16 for DR") == "pending_review"
    assert _route(prefix="10.0.0.0/24") == "approved"
    assert _route(prefix="10.0.0.0/23") == "pending_review"


def test_port_zero_and_a_bare_unspecified_source_go_to_review() -> None:
    assert _open(port=0, source="0.0.0.0/0") == "pending_review"
    assert _open(port=22, source="0.0.0.0") == "pending_review"
    assert _open(from_port=0, to_port=65535, source="0.0.0.0/0") == "denied"
    assert _open(port=22, source="10.0.0.0/8") == "approved"
    assert _open(port=2222, source="0.0.0.0/0") == "approved"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 23), st.sampled_from((" / {n}", "/ {n}", " /{n}", "/{n}.5", "\\{n}")))
def test_a_wider_prefix_written_loosely_is_never_approved(bits: int, form: str) -> None:
    assert _route(prefix="10.0.0.0" + form.format(n=bits)) != "approved"


# -- named bounds ----------------------------------------------------------------------------


def test_a_restated_named_value_past_the_bound_goes_to_review() -> None:
    def trade(**args: object) -> str:
        return outcome_beside_ticket(LEVERAGE, "trading.open_position", args)

    assert trade(leverage=2, effective_leverage=10) == "pending_review"
    assert trade(leverage=2, effective_leverage=4) == "approved"
    assert trade(leverage=5) == "approved"
    assert trade(leverage=5.01) == "denied"
