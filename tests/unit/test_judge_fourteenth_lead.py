"""The lead's readings of the fourteenth session, from the first runs of holdout_52 … 55.

A closed list written after the argument it binds ('permissible_purpose - one of: a, b, c',
'comp_category: F&B / spa only', '`channel` in (web, app)'); a kind and its values closed by
'Nothing else.'; an effect verb heading a singular subject ('ban reason must be one of …') is no
effect; a deny-list about one side of an opposite pair ('no manual credits …') says nothing of a
request that states the other side (`direction: "debit"`).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket, policy, status
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import JudgeUnavailable, evaluate
from webapp.judge.history import NoHistory, StaticHistory
from webapp.judge.types import ClearanceQuery

LED = [
    # (rule, argument, allowed value, refused value, effect on the refused value)
    (
        "2. permissible_purpose - one of: credit_application, account_review, collection.",
        "permissible_purpose",
        "collection",
        "marketing",
        "denied",
    ),
    (
        "comp_category: F&B / spa / parking / room_night only",
        "comp_category",
        "F&B",
        "minibar",
        "denied",
    ),
    ("`channel` in (web, app, kiosk)", "channel", "kiosk", "phone", "denied"),
    (
        "Allowed `commodity`: power, natural_gas, crude_oil. Anything else is prohibited.",
        "commodity",
        "natural_gas",
        "coal",
        "denied",
    ),
    (
        "commodity_code: power, natural_gas, crude_oil. Anything else -> desk head review.",
        "commodity_code",
        "power",
        "coal",
        "pending_review",
    ),
    ("ship_method not in {freight, pallet}", "ship_method", "parcel", "pallet", "denied"),
    (
        "2. channel: sms | email. Nothing else (no WhatsApp etc.)",
        "channel",
        "sms",
        "whatsapp",
        "denied",
    ),
    (
        "6. payout_method: bank_transfer or paypal only. No crypto.",
        "payout_method",
        "paypal",
        "crypto",
        "denied",
    ),
    ("reason - one of: cheating, botting", "reason", "botting", "griefing", "denied"),
]


@pytest.mark.parametrize(("text", "arg", "good", "bad", "refused"), LED)
def test_a_list_after_the_argument_it_binds_is_read_on_that_argument(text, arg, good, bad, refused):
    rule = compile_rule(0, "c0", text)
    assert rule.understanding == "understood"
    assert f"`{arg}`" in rule.checks[0].reading()
    # another argument holding a listed value never speaks for the named one ('outlet: spa'
    # had passed comp_category 'minibar' when the list was read on any argument)
    other = {"outlet": good, "note": good}
    assert outcome_beside_ticket(text, "desk.act", {arg: bad, **other}) == refused
    assert outcome_beside_ticket(text, "desk.act", {arg: good, "outlet": bad}) == "approved"


def test_a_list_after_the_argument_with_the_argument_missing_is_for_a_human():
    text = "comp_category: F&B / spa / parking / room_night only"
    assert outcome_beside_ticket(text, "folio.post_comp", {"outlet": "spa"}) == "pending_review"


@pytest.mark.parametrize(
    "text",
    [
        "Reason: cheating, botting only",  # a plain word may be prose: left to the others
        "comp_category: spa, parking. Anything else -> we'll see.",  # a tail read as neither
        "Comp_Category: spa / parking only",  # not written as an argument
        "Withdrawals: BTC or ETH only",  # a plain word before 'only' names the act
        "Bureaus: Equifax, Experian. Nothing else.",  # a plural kind: the list readings bind it
        "payout_method: bank_transfer or crypto only. No crypto.",  # a tail that contradicts
        "Currency: USD, EUR. Nothing else.",  # a word with readings of its own
    ],
)
def test_shapes_left_to_the_other_readings(text):
    from webapp.judge.namedargs import named_argument_checks

    assert named_argument_checks(0, text) is None


def test_a_kind_and_its_values_closed_by_nothing_else_is_an_allow_list():
    text = "5. Bureaus: Equifax, Experian, TransUnion. Nothing else."
    assert compile_rule(0, "c0", text).understanding == "understood"
    assert outcome_beside_ticket(text, "bureau.pull_report", {"bureau": "Innovis"}) == "denied"
    assert outcome_beside_ticket(text, "bureau.pull_report", {"bureau": "Experian"}) == "approved"


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        (
            "- ban reason must be one of: cheating, botting, harassment, rmt, chargeback_abuse",
            "moderation.ban_player",
            {"reason": "griefing"},
        ),
        ("Block trades must specify the executing broker", "trade.place", {"is_block": True}),
    ],
)
def test_an_effect_verb_heading_the_subject_is_never_the_effect(text, tool, args):
    rule = compile_rule(0, "c0", text)
    assert rule.understanding != "understood"
    # read as a deny-list with 'ban' the effect, a ban for an unlisted reason was approved
    assert outcome_beside_ticket(text, tool, args) != "approved"


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("Decline decisions must cite at least one adverse action reason code.", "decline"),
        ("hold codes must be one of: fraud, abuse", "hold codes"),
        ("Freeze requests must cite a ticket", "freeze"),
    ],
)
def test_an_effect_verb_the_checks_keep_in_the_subject_is_read(text, reads):
    rule = compile_rule(0, "c0", text)
    assert rule.understanding == "understood"
    assert reads in rule.checks[0].reading()


GLOSSARY = {"restricted accounts": ["SUSPENDED", "UNDER_INVESTIGATION", "CLOSED"]}
CREDITS = "- no manual credits to restricted accounts"


def _points(**more):
    return {"member_id": "L-1", "points": 1200, "account_status": "SUSPENDED", **more}


def test_a_deny_list_about_credits_does_not_reach_a_debit():
    assert (
        outcome_beside_ticket(
            CREDITS, "loyalty.adjust_points", _points(direction="debit"), GLOSSARY
        )
        == "approved"
    )


@pytest.mark.parametrize("more", [{"direction": "credit"}, {}, {"direction": "credit debit"}])
def test_a_deny_list_about_credits_still_refuses_a_credit_or_an_unsaid_side(more):
    assert (
        outcome_beside_ticket(CREDITS, "loyalty.adjust_points", _points(**more), GLOSSARY)
        == "denied"
    )


def test_a_compound_naming_a_thing_is_no_act():
    # 'credit card' names a card, not a credit: a debit does not set the rule aside
    text = "No credit card payments to restricted accounts"
    assert (
        outcome_beside_ticket(text, "payments.charge", _points(direction="debit"), GLOSSARY)
        == "denied"
    )


@given(
    name=st.from_regex(r"[a-z]{2,8}_[a-z]{2,8}", fullmatch=True),
    values=st.lists(
        st.from_regex(r"[a-z]{3,9}", fullmatch=True), min_size=2, max_size=5, unique=True
    ),
    outside=st.from_regex(r"[a-z]{3,9}", fullmatch=True),
    sep=st.sampled_from([" - one of: ", ": one of ", " must be one of: "]),
)
def test_an_argument_led_list_never_approves_a_value_outside_it(name, values, outside, sep):
    if outside in values:
        return
    text = f"{name}{sep}{', '.join(values)}."
    # the unlisted value in the named argument, a listed one in another
    got = outcome_beside_ticket(text, "ops.act", {name: outside, "zz_other": values[0]})
    assert got != "approved"
    assert outcome_beside_ticket(text, "ops.act", {name: values[-1]}) in (
        "approved",
        "pending_review",
    )


# -- a count per day ('Max 3 disbursements / agent / day'): this agent's requests since midnight

DAILY = "Max 3 disbursements per agent per day."


def _daily(history):

    q = ClearanceQuery("loan.disburse", {"loan_id": "L-1"}, "agent-1")
    return status(evaluate(q, [policy([DAILY])], history))


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"count_today": 2}, "approved"),  # this is the third
        ({"count_today": 3}, "denied"),  # the fourth
        ({"count_today": 0, "count_last_hour": 3}, "denied"),  # the day holds the hour
        ({"count_last_hour": 1}, "pending_review"),  # the facts do not say: a human decides
        (None, "approved"),  # no history at all: nothing counted today
    ],
)
def test_a_count_per_day_reads_todays_requests(facts, expected):

    assert _daily(StaticHistory.from_dict(facts)) == expected


def test_a_history_that_cannot_count_a_day_leaves_the_rule_to_a_human():
    class HourOnly:
        def total_today(self, agent_id, tool_name, arg):
            return 0.0

        def count_last_hour(self, agent_id, tool_name):
            return 0

        def seen_value(self, agent_id, tool_name, arg, value):
            return False

    assert _daily(HourOnly()) == "pending_review"


def test_a_daily_count_that_fails_makes_the_judge_unavailable():

    class Broken(NoHistory):
        def count_today(self, agent_id, tool_name):
            raise ConnectionError("database down")

    q = ClearanceQuery("loan.disburse", {"loan_id": "L-1"}, "agent-1")
    v = evaluate(q, [policy([DAILY])], Broken())
    assert (v.decision, v.reason_code) == ("deny", "judge_unavailable")
    with pytest.raises(JudgeUnavailable):
        evaluate(q, [policy([DAILY])], Broken(), raise_unavailable=True)


@given(earlier=st.integers(min_value=0, max_value=50), cap=st.integers(min_value=1, max_value=40))
def test_a_count_per_day_never_approves_past_its_cap(earlier, cap):

    rule = f"Max {cap} disbursements per agent per day."
    q = ClearanceQuery("loan.disburse", {"loan_id": "L-1"}, "agent-1")
    got = status(evaluate(q, [policy([rule])], StaticHistory.from_dict({"count_today": earlier})))
    assert got == ("approved" if earlier + 1 <= cap else "denied")


SANCTIONED = {"sanctioned countries": ["IR", "KP", "SY", "CU", "RU", "BY"]}
RESIDENTS = "No loans to applicants resident in sanctioned countries (see glossary)."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"applicant_id": "CUS-55102", "residence_country": "US"}, "approved"),
        ({"applicant_id": "CUS-55102", "residence_country": "CU"}, "denied"),
        ({"applicant_id": "A-1", "address": "Havana, CU"}, "pending_review"),
        ({"applicant_id": "CUS-55102", "residence_country": "Cuba"}, "denied"),
    ],
)
def test_an_identifier_is_no_place_of_a_country_glossary(args, expected):
    # 'CUS-55102' had been close to 'CU': every loan of a US resident went to a human
    assert outcome_beside_ticket(RESIDENTS, "loan.originate", args, SANCTIONED) == expected


@pytest.mark.parametrize(
    ("age", "expected"), [(17, "denied"), (18, "approved"), (75, "approved"), (76, "denied")]
)
def test_a_bracket_saying_how_the_ends_count_names_no_argument(age, expected):
    # '(inclusive)' had been read as an argument: every enrolment went to a human
    text = "1. age 18–75 (inclusive)"
    assert outcome_beside_ticket(text, "trial.enrol", {"age": age}) == expected
    assert outcome_beside_ticket(text, "trial.enrol", {"participant_age": age}) == "pending_review"


@pytest.mark.parametrize("text", ["1. age 18–75 (exclusive)", "Participants 18–75 (inclusive)"])
def test_other_boundary_brackets_are_left_to_the_other_readings(text):
    from webapp.judge.namedargs import named_argument_checks

    assert named_argument_checks(0, text) is None


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("- reason_for_change required", ["reason_for_change"]),
        ("• cta_reference + milestone_id required", ["cta_reference", "milestone_id"]),
        (
            "hardship_reason + documentation_ref - both required, non-empty.",
            ["hardship_reason", "documentation_ref"],
        ),
        ("- reason_code mandatory (not blank)", ["reason_code"]),
    ],
)
def test_a_terse_requirement_without_its_copula_is_read(text, names):
    rule = compile_rule(0, "c0", text)
    assert rule.understanding == "understood"
    full = {n: "X-1" for n in names}
    assert outcome_beside_ticket(text, "ops.act", full) == "approved"
    for n in names:
        assert outcome_beside_ticket(text, "ops.act", {**full, n: ""}) == "denied"


@pytest.mark.parametrize(
    "text", ["`is_blocked` mandatory", "has_disputes required", "Approval required"]
)
def test_a_requirement_that_does_not_say_what_it_wants_is_not_read_so(text):
    from webapp.judge.compiler import _copula_restored

    assert _copula_restored(text) is None


@pytest.mark.parametrize(
    ("amount", "expected"), [(120, "approved"), (150, "approved"), (151, "pending_review")]
)
@pytest.mark.parametrize(
    "text", ["comps <= 150 EUR - agent can post directly", "Comps up to 150 EUR: agent may post."]
)
def test_the_agent_may_act_directly_within_a_bound(text, amount, expected):
    assert compile_rule(0, "c0", text).understanding == "understood"
    args = {"amount": amount, "currency": "EUR"}
    assert outcome_beside_ticket(text, "folio.post_comp", args) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Refunds up to 50 USD: agent may not issue.",
        "Refunds up to 50 USD - agents cannot issue them",
    ],
)
def test_a_refusal_of_the_bounded_values_is_never_read_as_a_cap(text):
    # read as "Deny when the amount is above 50 USD", a 30 USD refund the rule forbids passed
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert outcome_beside_ticket(text, "folio.refund", {"amount": 30, "currency": "USD"}) != (
        "approved"
    )


PERSONAL = {"personal email accounts": ["gmail.com", "yahoo.com", "hotmail.com"]}
MANIFESTS = "Don't send manifests / crew lists to personal email accounts"


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("j.tan@gmail.com", "denied"),
        ("j.tan@proton.me", "pending_review"),  # a consumer provider the glossary leaves out
        ("ops@acme-shipping.com", "approved"),  # sharing '.com' with gmail.com is no closeness
        ("ops@mygmail.com", "pending_review"),  # close to a listed one
    ],
)
def test_a_glossary_of_mail_providers_and_the_ones_it_leaves_out(address, expected):
    args = {"recipient_email": address, "document_type": "manifest"}
    assert outcome_beside_ticket(MANIFESTS, "docs.share", args, PERSONAL) == expected
