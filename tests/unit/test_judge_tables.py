"""Rules written as a table of values and what each gets (webapp/judge/tables.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.tables import table_checks

CHANNEL = "Channel retail_store or app: OK. Phone or chat -> fraud team must review."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"channel": "retail_store"}, "approved"),
        ({"channel": "App"}, "approved"),
        ({"channel": "phone"}, "pending_review"),
        ({"channel": "chat"}, "pending_review"),
        # a value in no row, no channel, or two arguments named for it: a human decides
        ({"channel": "kiosk"}, "pending_review"),
        ({"msisdn": "+1"}, "pending_review"),
        ({"channel": "app", "order": {"channel": "phone"}}, "pending_review"),
        ({"channel": ["app", "phone"]}, "pending_review"),
        # the heading's words end an argument's name
        ({"sales_channel": "app"}, "approved"),
    ],
)
def test_each_value_gets_its_row(args: dict, expected: str) -> None:
    assert outcome_beside_ticket(CHANNEL, "telecom.sim_swap", args) == expected


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ("channel: app, web = ok; phone = deny", "phone", "denied"),
        ("channel: app, web = ok; phone = deny", "web", "approved"),
        ("Env: dev/staging fine. prod -> deny.", "prod", "denied"),
        ("Env: dev/staging fine. prod -> deny.", "staging", "approved"),
    ],
)
def test_other_ways_of_writing_a_table(rule: str, value: str, expected: str) -> None:
    key = "channel" if rule.lower().startswith("channel") else "env"
    assert compile_rule(0, "c", rule).understanding == "understood"
    assert outcome_beside_ticket(rule, "deploy.run", {key: value}) == expected


def test_the_reading_says_every_row_and_what_else_gets() -> None:
    (check,) = compile_rule(0, "c", CHANNEL).checks
    assert check.reading() == (
        "Approve when `channel` is retail_store or app; send to review when it is Phone or chat; "
        "any other value, none or several arguments named for the channel: review"
    )


@pytest.mark.parametrize(
    "rule",
    [
        # a condition, a second clause or a row with no effect is no table
        "Channel app: OK if amount < 500. Phone -> fraud team must review.",
        "Channel app: OK. Phone -> fraud team must review unless the customer is VIP.",
        "Channel app: OK. Phone.",
        "Channel app: OK.",
        "Channel app: OK. app -> deny.",  # one value in two rows
        "Channel phone -> deny. chat -> deny.",  # nothing a request may have
    ],
)
def test_what_is_no_table_is_left_to_the_other_readings(rule: str) -> None:
    assert table_checks(0, rule) is None


_VALUE = st.from_regex(r"[a-z][a-z0-9_]{1,8}", fullmatch=True).filter(
    lambda v: v not in {"or", "and", "if", "no", "not", "only", "never", "other", "else", "must"}
)


@given(
    ok=st.lists(_VALUE, min_size=1, max_size=3, unique=True),
    other=_VALUE,
    qualifier=st.sampled_from(
        [" if over 500 USD", " unless the customer is VIP", " for EU customers", " except weekends"]
    ),
)
def test_a_value_in_no_row_is_never_approved_and_a_qualified_row_is_no_table(
    ok: list[str], other: str, qualifier: str
) -> None:
    rule = f"Channel {' or '.join(ok)}: OK. zz_phone -> fraud team must review."
    if other not in ok and other != "zz_phone":
        assert outcome_beside_ticket(rule, "x.do", {"channel": other}) != "approved"
    assert outcome_beside_ticket(rule, "x.do", {"channel": ok[0]}) == "approved"
    qualified = f"Channel {' or '.join(ok)}: OK{qualifier}. zz_phone -> fraud team must review."
    assert table_checks(0, qualified) is None
