"""Rules about the requesting agent (agentrules.py), and per-agent rates and totals.

Vectors (rule, request, agent, history, expected outcome) with their near-misses: an id that
almost matches ('sandbox7', 'cx-bots-1'), the count at the limit and one past it, a total that
crosses the cap with this request; and properties: a glob or a prefix matches exactly the ids it
names, and a clause inserted into such a rule takes it out of this reading (partly understood,
or read by another recogniser), never letting the barred agent's act be approved."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import decide_beside_ticket as decide
from webapp.judge.agentrules import agent_matches, agent_rule, restated
from webapp.judge.compiler import compile_rule

SANDBOX = "Agents whose id starts with 'sandbox-' must not execute live payments."
INTAKE = "intake-bot may not grant access at all (revoking is fine)."
CX = "cx-bot-* agents may only issue vouchers under 100 EUR."
RATES = "Only rates-analyst-bot may use rates.* tools."
RELAY = (
    "Relay settings (scada.update_relay_settings): only agents protection-eng-bot or "
    "relay-config-agent."
)
RETRIES = "autopay retries: max 2/hr per agent"
CREDITS = "R5 - goodwill credits: max 3/hr per agent"
DAILY = "Daily cap per agent: $12,000 total."
REFUNDS = "Daily refund total per agent: EUR 20k max."

GRANT = {"grantee": "r.pillai@lexbridge.com", "workspace": "Matter 2231", "role": "reviewer"}
PAY = {"payment_id": "P-1", "amount": 40.0, "currency": "USD"}


def voucher(amount: float, currency: str = "EUR") -> dict:
    return {"passenger_id": "PX-1", "amount": amount, "currency": currency}


@pytest.mark.parametrize(
    ("rules", "tool", "args", "agent", "history", "expected"),
    [
        # an agent barred from an act; another agent, another act
        ([INTAKE], "workspace.grant_access", GRANT, "intake-bot", None, "denied"),
        ([INTAKE], "workspace.revoke_access", GRANT, "intake-bot", None, "approved"),
        ([INTAKE], "workspace.grant_access", GRANT, "intake-bot-2", None, "approved"),
        ([INTAKE], "workspace.grant_access", GRANT, "docket-agent", None, "approved"),
        ([SANDBOX], "payments.execute_payment", PAY, "sandbox7", None, "approved"),
        ([SANDBOX], "payments.execute_payment", PAY, "qa-sandbox-2", None, "approved"),
        ([SANDBOX], "payments.get_status", {"payment_id": "P-1"}, "sandbox-7", None, "approved"),
        # a glob of agents under a cap
        ([CX], "voucher.issue", voucher(120), "cx-bot-2", None, "denied"),
        ([CX], "voucher.issue", voucher(100), "cx-bot-2", None, "denied"),
        ([CX], "voucher.issue", voucher(95), "cx-bot-2", None, "approved"),
        ([CX], "voucher.issue", voucher(95, "USD"), "cx-bot-2", None, "pending_review"),
        ([CX], "voucher.issue", voucher(120), "cx-bots-1", None, "approved"),
        ([CX], "voucher.issue", voucher(120), "cx-desk-4", None, "approved"),
        # tools reserved to named agents
        (
            [RATES],
            "rates.update_schedule",
            {"schedule": "GS-2"},
            "rates-analyst-bot",
            None,
            "approved",
        ),
        ([RATES], "rates.update_schedule", {"schedule": "GS-2"}, "billing-copilot", None, "denied"),
        (
            [RATES],
            "rates.get_schedule",
            {"schedule": "GS-2"},
            "rates-analyst-bot-2",
            None,
            "denied",
        ),
        (
            [RATES],
            "billing.adjust_bill",
            {"account_id": "A-1"},
            "billing-copilot",
            None,
            "approved",
        ),
        (
            [RELAY],
            "scada.update_relay_settings",
            {"relay_id": "R-5"},
            "grid-ops-assistant",
            None,
            "denied",
        ),
        (
            [RELAY],
            "scada.update_relay_settings",
            {"relay_id": "R-5"},
            "relay-config-agent",
            None,
            "approved",
        ),
        # requests per agent in the hour: at the limit, one past it, no history
        (
            [RETRIES],
            "rent.autopay_retry",
            {"tenant_id": "T-1"},
            "ledger-bot",
            {"count_last_hour": 1},
            "approved",
        ),
        (
            [RETRIES],
            "rent.autopay_retry",
            {"tenant_id": "T-1"},
            "ledger-bot",
            {"count_last_hour": 2},
            "denied",
        ),
        ([RETRIES], "rent.autopay_retry", {"tenant_id": "T-1"}, "ledger-bot", None, "approved"),
        (
            [CREDITS],
            "billing.goodwill_credit",
            {"account_id": "A"},
            "b",
            {"count_last_hour": 2},
            "approved",
        ),
        (
            [CREDITS],
            "billing.goodwill_credit",
            {"account_id": "A"},
            "b",
            {"count_last_hour": 3},
            "denied",
        ),
        # today's total per agent: within, exactly at, crossing with this request
        (
            [DAILY],
            "vendor.pay",
            {"amount": 1840.0, "currency": "USD"},
            "ap-7",
            {"total_today": {"amount": 6000}},
            "approved",
        ),
        (
            [DAILY],
            "vendor.pay",
            {"amount": 6000.0, "currency": "USD"},
            "ap-7",
            {"total_today": {"amount": 6000}},
            "approved",
        ),
        (
            [DAILY],
            "vendor.pay",
            {"amount": 6000.01, "currency": "USD"},
            "ap-7",
            {"total_today": {"amount": 6000}},
            "denied",
        ),
        (
            [REFUNDS],
            "refund.fare",
            {"amount": 900, "currency": "EUR"},
            "r",
            {"total_today": {"amount": 19200}},
            "denied",
        ),
        (
            [REFUNDS],
            "refund.fare",
            {"amount": 800, "currency": "EUR"},
            "r",
            {"total_today": {"amount": 19200}},
            "approved",
        ),
    ],
)
def test_vectors(
    rules: list[str], tool: str, args: dict, agent: str, history: dict | None, expected: str
) -> None:
    assert decide(rules, tool, args, agent, history) == expected


BARRED_OVER = "refund-bot must not issue refunds above $1,000."


@pytest.mark.parametrize(
    ("amount", "agent", "expected"),
    [
        (1000, "refund-bot", "approved"),  # at the bound: not above it
        (1000.01, "refund-bot", "denied"),
        (5000, "billing-bot", "approved"),  # another agent
        (1000, "refund-bots", "approved"),  # an id that almost matches
    ],
)
def test_a_barred_act_above_a_bound(amount: float, agent: str, expected: str) -> None:
    got = decide(
        [BARRED_OVER], "payments.issue_refund", {"amount": amount, "currency": "USD"}, agent
    )
    assert got == expected


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        (INTAKE, "When the requesting agent is `intake-bot`: deny grant access"),
        (
            SANDBOX,
            "When the requesting agent is an id starting `sandbox-`: deny execute live payments",
        ),
        (CX, "When the requesting agent is an id starting `cx-bot-`: allow only issue vouchers"),
        (
            RATES,
            "Deny a request for a tool matching `rates.*` from an agent other than `rates-analyst-bot`",
        ),
        (DAILY, "Deny when today's total of the amount is above 12,000 USD"),
        (REFUNDS, "Deny when today's total of the amount is above 20,000 EUR"),
        (RETRIES, "Deny when the number of requests per hour is above 2"),
    ],
)
def test_plain_readings(text: str, reading: str) -> None:
    rule = compile_rule(0, "c", text)
    assert rule.understanding == "understood"
    assert "; ".join(c.reading() for c in rule.checks).startswith(reading)


@pytest.mark.parametrize(
    "text",
    [
        "Non-employees may not receive payouts.",  # a hyphenated word, not an agent
        "Only co-signers may use loan.* tools.",  # people, not agent ids
        "DUS-2 may not receive slotting changes.",  # a site, not an agent
    ],
)
def test_hyphenated_words_are_not_agents(text: str) -> None:
    assert agent_rule(0, text, text) is None


def test_per_customer_rates_and_totals_are_not_restated_as_the_agents() -> None:
    assert restated("goodwill credits: max 3/hr per customer") is None
    assert restated("Daily cap per customer: $2,000 total.") is None
    assert (
        restated("autopay retries: max 2/hr per agent")
        == "autopay retries: max 2 per agent per hour."
    )


def test_an_unread_agent_subject_is_never_an_argument_value() -> None:
    rule = compile_rule(0, "c", "intake-bot may not grant access unless approved.")
    assert rule.understanding != "understood"
    assert (
        decide(
            ["intake-bot may not grant access unless approved."],
            "workspace.grant_access",
            GRANT,
            "intake-bot",
        )
        != "approved"
    )


_IDS = st.from_regex(r"[a-z][a-z0-9]{0,5}(?:[-_][a-z0-9]{1,5}){0,2}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(agent=_IDS)
def test_a_glob_matches_exactly_the_ids_it_names(agent: str) -> None:
    assert agent_matches(("cx-bot-*",), agent) == agent.startswith("cx-bot-")
    assert agent_matches(("intake-bot",), agent) == (agent == "intake-bot")
    got = decide([CX], "voucher.issue", voucher(120), agent)
    assert got == ("denied" if agent.startswith("cx-bot-") else "approved")


_INSERTS = st.sampled_from(
    [
        " unless a supervisor approves",
        " over 500 USD",
        " when the customer is new",
        " except for VIP customers",
        " before 9am",
        " if the account is frozen",
    ]
)


@settings(max_examples=40, deadline=None)
@given(insert=_INSERTS)
def test_an_inserted_clause_is_never_read_as_the_agent_rule(insert: str) -> None:
    for rule, tool, args, agent in (
        (
            INTAKE.replace(" at all (revoking is fine)", ""),
            "workspace.grant_access",
            GRANT,
            "intake-bot",
        ),
        (
            SANDBOX,
            "payments.execute_payment",
            {**PAY, "amount": 800.0, "mode": "live"},
            "sandbox-7",
        ),
        (
            "triage-agent must not close tickets.",
            "tickets.close",
            {"ticket_id": "T-8"},
            "triage-agent",
        ),
    ):
        text = rule[:-1] + insert + "."
        read = agent_rule(0, text, text, lambda t: list(compile_rule(0, "c", t).checks))
        # not read here, or read with the inserted bound as the barred act's own (`body`)
        assert read is None or all(getattr(c, "body", None) is not None for c in read)
        compiled = compile_rule(0, "c", text)
        # whatever else reads it, it does not read the barred agent's id as an argument value
        assert not (
            compiled.understanding == "understood"
            and any("argument is" in c.reading() for c in compiled.checks)
        )
        assert decide([text], tool, args, agent) != "approved"
