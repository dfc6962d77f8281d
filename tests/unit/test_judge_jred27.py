"""jred27: the red team of the readings added in the fourteenth lead's last hour, closed by class.

- a side said with more than the side ('debit reversal', 'undo decrease', 'non-debit', a debit
  of -50) does not set a deny-list about the other side aside: a refusal becomes review; an
  argument named for another thing ('card_type: debit') and a tool named for the act
  (account.credit) state no side;
- a closed list after its argument whose item is a condition ('reason - one of: fraud, abuse,
  spam confirmed by T&S') is partly understood;
- an IBAN (check digits holding) or a region code is of its country against a glossary of
  countries;
- an allow-list on a named argument hears a second argument of the same thing (channel_fallback,
  channels, payout_method_2, a `channel` beside `order.channel`);
- a tail that takes review away ('Others: no review needed', '-> auto approval') is no review;
- a count per day of every agent ('across all agents', 'team-wide') or of a kind of request
  ('refunds of USD 100+') is not this agent's count of every request.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import policy, status
from webapp.judge.checks import _iban_valid, _in_glossary, opposite_act_shown
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.request_view import RequestView
from webapp.judge.types import ClearanceQuery

SANCTIONED = {"sanctioned countries": ["IR", "KP", "CU", "SY"]}


def _verdict(rules, tool, args, history=None, glossary=None):
    """The clearance status of `tool(args)` under a policy of `rules`, as the bench runs it."""
    v = evaluate(
        ClearanceQuery(tool, args, "agent-1"),
        [policy(rules)],
        StaticHistory.from_dict(history or {}),
        glossary=glossary,
    )
    return status(v)


CREDITS = ["No credits to accounts in RU, BY, IR.", "Amount max 10,000 (amount)."]
INCREASES = ["No limit increases for customers in RU, IR.", "Amount max 10,000 (amount)."]


@pytest.mark.parametrize(
    ("rules", "tool", "args", "expected"),
    [
        # the other side said plainly: the deny-list is set aside
        (CREDITS, "ledger.post", {"type": "debit", "account_country": "RU", "amount": 50}, "approved"),
        (CREDITS, "ledger.post", {"txn_type": "DEBIT", "account_country": "IR", "amount": 50}, "approved"),
        (INCREASES, "limit.change", {"direction": "decrease", "customer_country": "IR", "amount": 5}, "approved"),
        # said with more than the side: a human
        (CREDITS, "ledger.post", {"type": "debit reversal", "account_country": "RU", "amount": 50}, "pending_review"),
        (CREDITS, "ledger.post", {"entry": "non-debit", "account_country": "RU", "amount": 50}, "pending_review"),
        (CREDITS, "ledger.post", {"entry": "debit", "account_country": "RU", "amount": -50}, "pending_review"),
        (INCREASES, "limit.change", {"direction": "undo decrease", "customer_country": "IR", "amount": 5}, "pending_review"),
        # no side stated: the rule stands
        (CREDITS, "account.credit", {"card_type": "debit", "account_country": "RU", "amount": 50}, "denied"),
        (CREDITS, "ledger.post", {"entry": "debit", "offset_entry": "credit", "account_country": "RU", "amount": 50}, "denied"),
        (CREDITS, "ledger.post", {"direction": "credit", "account_country": "RU", "amount": 50}, "denied"),
        # the rule's act or the other side turned around said elsewhere, a receiving party
        (CREDITS, "ledger.post", {"direction": "Debit", "account_country": "RU", "amount": 50, "memo": "reverse prior debit"}, "pending_review"),
        (CREDITS, "ledger.transfer", {"direction": "debit", "from_country": "DE", "to_country": "RU", "amount": 50}, "pending_review"),
        (CREDITS, "ledger.post", {"direction": "debit", "account_country": "DE", "to_country": "FR", "amount": 50}, "approved"),
    ],
)  # fmt: skip
def test_opposite_side(rules, tool, args, expected):
    assert _verdict(rules, tool, args) == expected


def test_opposite_side_states():
    acts = frozenset({"credit"})

    def side(args, tool="ledger.post"):
        return opposite_act_shown(acts, RequestView(tool, args, "a", None))

    assert side({"type": "debit"}) == "shown"
    assert side({"type": "manual debit"}) == "shown"
    assert side({"type": "debit reversal"}) == "unclear"
    assert side({"type": "debit", "amount": -5}) == "unclear"
    assert side({"card_type": "debit"}) == ""
    assert side({"type": "debit"}, tool="account.credit") == ""


BANS = ["reason - one of: fraud, abuse, spam confirmed by T&S", "Bans need a ticket_id."]


def test_list_item_that_is_a_condition_is_partly_understood():
    rule = compile_rule(0, "c0", BANS[0])
    assert rule.understanding == "partly_understood"
    args = {"reason": "harassment", "confirmed_by": "T&S", "ticket_id": "T-1"}
    assert _verdict(BANS, "user.ban", args) == "pending_review"
    # a plain list is still read whole
    plain = compile_rule(0, "c0", "reason - one of: fraud, abuse, spam")
    assert plain.understanding == "understood"
    assert 'Deny unless `reason` is one of "fraud", "abuse", "spam"' in plain.checks[0].reading()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"beneficiary_iban": "IR062960000000100324200001", "amount": 5}, "denied"),
        ({"beneficiary_iban": "IR06 2960 0000 0010 0324 2000 01", "amount": 5}, "denied"),
        ({"payee": {"iban": "IR062960000000100324200001"}, "amount": 5}, "denied"),
        ({"iban": "DE89370400440532013000", "amount": 5}, "approved"),
        # check digits that fail, a region code: a human
        ({"beneficiary_iban": "IR820540105180021273113007", "amount": 5}, "pending_review"),
        ({"ship_to_region": "CU-03", "amount": 5}, "pending_review"),
    ],
)
def test_iban_and_region_codes_are_places(args, expected):
    rules = ["No payouts to sanctioned countries.", "Amount max 10,000 (amount)."]
    assert _verdict(rules, "payout.create", args, glossary=SANCTIONED) == expected


def test_identifiers_stay_no_place():
    members = ("IR", "KP", "CU", "SY")
    assert _in_glossary("CUS-55102", members) is False
    assert _in_glossary("IR-1234", members) is False
    assert _in_glossary("DE89370400440532013000", members) is False
    assert _in_glossary("IR062960000000100324200001", members) is True


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=11, max_size=30))
@settings(max_examples=200, deadline=None)
def test_iban_check_digits_property(bban):
    """Whatever the account part, exactly one pair of check digits (02-98) makes an IR IBAN valid, and
    with it the IBAN is Iranian against the sanctioned glossary."""
    valid = [d for d in range(2, 99) if _iban_valid(f"IR{d:02d}{bban}".lower())]
    assert len(valid) == 1
    iban = f"IR{valid[0]:02d}{bban}"
    assert _in_glossary(iban, ("IR", "KP")) is True
    assert _in_glossary(iban, ("KP", "CU")) is False


CHANNEL = ["channel: sms | email. Nothing else.", "Max 500 recipients per send (recipient_count)."]


@pytest.mark.parametrize(
    ("rules", "args", "expected"),
    [
        (CHANNEL, {"channel": "sms", "channel_fallback": "whatsapp", "recipient_count": 5}, "pending_review"),
        (CHANNEL, {"channel": "sms", "channels": ["whatsapp"], "recipient_count": 5}, "pending_review"),
        (CHANNEL, {"channel": "sms", "channel_id": "C-1203", "recipient_count": 5}, "approved"),
        (CHANNEL, {"channel": "sms", "backup_channel": "email", "recipient_count": 5}, "approved"),
        (["order.channel: web or app only"], {"order": {"channel": "web"}, "channel": "kiosk"}, "pending_review"),
        (["order.channel: web or app only"], {"order": {"channel": "app"}, "channel": "app"}, "approved"),
    ],
)  # fmt: skip
def test_second_argument_of_the_same_thing(rules, args, expected):
    assert _verdict(rules, "notify.send", args) == expected


def test_tail_that_takes_review_away():
    rules = [
        "tier: gold | silver. Others: no review needed",
        "Max 5 perks per request (perk_count).",
    ]
    assert compile_rule(0, "c0", rules[0]).understanding != "understood"
    assert _verdict(rules, "perk.grant", {"tier": "gold", "perk_count": 1}) == "pending_review"
    reviewed = ["tier: gold | silver. Anything else -> desk head review"]
    assert _verdict(reviewed, "perk.grant", {"tier": "platinum"}) == "pending_review"
    assert _verdict(reviewed, "perk.grant", {"tier": "Silver"}) == "approved"


@pytest.mark.parametrize(
    ("rule", "args", "history", "expected"),
    [
        ("Max 3 refunds per day across all agents.", {"amount": 20}, {"count_today": 1}, "pending_review"),
        ("Max 5 refunds per hour, team-wide.", {"amount": 20}, {"count_today": 1, "count_last_hour": 1}, "pending_review"),
        ("Max 3 refunds of USD 100+ per agent per day.", {"amount": 20}, {"count_today": 4}, "pending_review"),
        ("Max 3 refunds of USD 100+ per agent per day.", {"amount": 150}, {"count_today": 1}, "approved"),
        ("Max 3 refunds per agent per day.", {"amount": 20}, {"count_today": 2}, "approved"),
        ("Max 3 refunds per agent per day.", {"amount": 20}, {"count_today": 3}, "denied"),
        ("MAX 3 refunds per agent per day.", {"amount": 20}, {"count_today": 3}, "denied"),
    ],
)  # fmt: skip
def test_count_per_day_scope(rule, args, history, expected):
    assert _verdict([rule], "refund.issue", args, history=history) == expected


def test_count_readings_say_the_scope():
    every = compile_rule(0, "c0", "Max 3 refunds per day across all agents.")
    assert "of every agent" in every.checks[0].reading()
    sized = compile_rule(0, "c0", "Max 3 refunds of USD 100+ per agent per day.")
    assert "of the kind the rule names" in sized.checks[0].reading()


def test_a_word_before_the_kind_is_a_condition():
    qualified = "EU carriers: DPD, GLS. Nothing else."
    assert compile_rule(0, "c0", qualified).understanding != "understood"
    assert _verdict([qualified], "ship.create", {"carrier": "UPS", "region": "US"}) != "denied"
    plain = "Approved carriers: UPS, FedEx, DHL. Nothing else."
    assert _verdict([plain], "ship.create", {"carrier": "USPS"}) == "denied"
    assert _verdict([plain], "ship.create", {"carrier": "ups"}) == "approved"


def test_a_country_code_that_is_a_word_is_an_item():
    rule = "`country` not in (RU, BY)"
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "understood"
    assert compiled.checks[0].reading() == 'Deny when `country` is one of "RU", "BY"'
    assert _verdict([rule], "deal.create", {"country": "BY"}) == "denied"
    assert _verdict([rule], "deal.create", {"country": "DE"}) == "approved"
