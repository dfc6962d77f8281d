"""The lead's readings of the eleventh session.

'No swap within 24h of previous swap' forbids the time since the event up to the bound: read as a
cap ('the duration must stay within 24 hours') it denied a swap 720 hours after the last one and
approved one 3 hours after it, labelled understood (holdout_33's false denials).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import (
    APPENDED_QUALIFIERS,
    TICKET,
    assert_qualified_never_decides,
    outcome_beside_ticket,
    policy,
)
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.types import ClearanceQuery
from webapp.judge.vocabulary import Glossary

SWAP = "No swaps within 24 hours of the previous swap."
REFUND = "Never refund within 24 hours of a chargeback."
LINKS = "Links must expire within 7 days of creation."


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (SWAP, "telecom.sim_swap", {"hours_since_last_swap": 3}, "denied"),
        (SWAP, "telecom.sim_swap", {"hours_since_last_swap": 24}, "denied"),
        (SWAP, "telecom.sim_swap", {"hours_since_last_swap": 25}, "approved"),
        (REFUND, "issue_refund", {"hours_since_chargeback": 3}, "denied"),
        (REFUND, "issue_refund", {"hours_since_chargeback": 30}, "approved"),
        # a cap stays a cap: 'must expire within'
        (LINKS, "create_share_link", {"expires_in_days": 3}, "approved"),
        (LINKS, "create_share_link", {"expires_in_days": 9}, "denied"),
        # nothing to measure the time since the event: not an approval
        (SWAP, "telecom.sim_swap", {"msisdn": "+1"}, "pending_review"),
    ],
)
def test_a_banned_band_after_an_event(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@given(bound=st.integers(min_value=1, max_value=400), since=st.integers(min_value=0, max_value=800))
def test_within_an_event_is_forbidden_exactly_up_to_the_bound(bound: int, since: int) -> None:
    got = outcome_beside_ticket(
        f"No swap within {bound}h of previous swap - deny",
        "telecom.sim_swap",
        {"hours_since_last_swap": since},
    )
    assert got == ("denied" if since <= bound else "approved")


PLUS = "placement_id + invoice_number needed on every payment"


# Required arguments as staff jot them: a '+' before the requirement joins what it asks for; 'on
# the request' and a trailing 'always' are the whole scope; a heading names the act.
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (PLUS, "ap.pay_recruiter_fee", {"placement_id": "P1", "invoice_number": "I1"}, "approved"),
        (PLUS, "ap.pay_recruiter_fee", {"placement_id": "P1"}, "denied"),
        (PLUS, "ap.pay_recruiter_fee", {"invoice_number": "I1"}, "denied"),
        ("port_pin required on the request.", "telecom.port_out", {"port_pin": "1234"}, "approved"),
        ("port_pin required on the request.", "telecom.port_out", {"msisdn": "+1"}, "denied"),
        ("consent_id required. always.", "bgcheck.order", {"consent_id": "C-1"}, "approved"),
        ("consent_id required. always.", "bgcheck.order", {"candidate_id": "X"}, "denied"),
        ("Refunds: receipt_id required.", "issue_refund", {"amount": 5}, "denied"),
        ("Refunds: receipt_id required.", "issue_refund", {"receipt_id": "R-1"}, "approved"),
        # a heading the subject reading would not keep whole ('out' is no subject word) is not
        # read: 'Port-out' had covered port-ins
        ("Port-out: port_pin required.", "telecom.port_in", {"msisdn": "+1"}, "pending_review"),
        # a sum is not a list of requirements
        (
            "amount + fee needed to stay under 500",
            "pay",
            {"amount": 400, "fee": 200},
            "pending_review",
        ),
    ],
)
def test_required_arguments_as_jotted(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@given(
    rule=st.sampled_from(
        [PLUS, "port_pin required on the request.", "Refunds: receipt_id required."]
    ),
    qualifier=st.sampled_from(APPENDED_QUALIFIERS),
)
def test_a_qualifier_after_a_jotted_requirement_is_never_read_away(
    rule: str, qualifier: str
) -> None:
    assert_qualified_never_decides(rule, qualifier)


OFFSHORE = {"offshore agents": ["cc-vendor-07", "cc-vendor-12"]}


@pytest.mark.parametrize(
    ("rule", "agent", "expected"),
    [
        ("Offshore agents may not do SIM swaps.", "cc-vendor-12", "denied"),
        ("Offshore agents may not do SIM swaps.", "cc-store-114", "approved"),
        # one character off a listed id: a human decides
        ("Offshore agents may not do SIM swaps.", "cc-vendor-1", "pending_review"),
        # 'port-outs' is read as 'port': the act is unclear, so the listed agent is not denied
        ("Offshore agents may not do SIM swaps or port-outs.", "cc-vendor-12", "pending_review"),
        ("Offshore agents may not do SIM swaps or port-outs.", "cc-store-114", "approved"),
    ],
)
def test_a_glossary_of_agents_is_matched_with_the_requesting_agent(
    rule: str, agent: str, expected: str
) -> None:
    # 'Offshore agents' lists agent ids; no argument names an agent, so the one asking is meant
    v = evaluate(
        ClearanceQuery("telecom.sim_swap", {"msisdn": "+1", "ticket_id": "T-1"}, agent),
        [policy([rule, TICKET])],
        StaticHistory.from_dict(None),
        glossary=OFFSHORE,
    )
    got = {"deny": "denied", "review": "pending_review"}.get(v.decision, "approved")
    assert got == expected, v.reason
    assert (
        "requesting agent" in compile_rule(0, "c", rule, Glossary.of(OFFSHORE)).checks[0].reading()
    )


MEMBERS = "Destination country must be US, CA, MX or an EU member state."


@pytest.mark.parametrize(
    ("country", "expected"),
    [
        ("DE", "approved"),
        ("US", "approved"),
        ("MX", "approved"),
        ("BR", "denied"),
        ("CH", "denied"),
    ],
)
def test_a_region_named_by_its_members_is_the_region(country: str, expected: str) -> None:
    assert (
        outcome_beside_ticket(MEMBERS, "ship.create_shipment", {"dest_country": country})
        == expected
    )


@given(
    phrase=st.sampled_from(
        ["an EU member state", "EU member states", "an EU country", "any EU country"]
    )
)
def test_every_way_of_naming_the_members_reads_alike(phrase: str) -> None:
    rule = f"Destination country must be US, CA or {phrase}."
    assert compile_rule(0, "c", rule).understanding == "understood"
    assert outcome_beside_ticket(rule, "ship.create_shipment", {"dest_country": "FR"}) == "approved"
    assert outcome_beside_ticket(rule, "ship.create_shipment", {"dest_country": "NO"}) == "denied"


@pytest.mark.parametrize("country", ["BR", "DE"])
def test_an_unread_list_of_places_allowed_speaks_to_a_request_in_any_place(country: str) -> None:
    # the rule is not read (its '-ish' list is no vocabulary); sharing no word with the request, it
    # had been left out as irrelevant and the withdrawal to Brazil approved
    rule = "Payees must be US, UK or EU-ish, roughly."
    assert compile_rule(0, "c", rule).understanding != "understood"
    got = outcome_beside_ticket(rule, "fiat.withdraw", {"bank_country": country})
    assert got == "pending_review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"policy_number": "AU-1", "requested_by": "spouse"}, "pending_review"),
        ({"policy_number": "AU-1", "line_items": [{"requested_by": "spouse"}]}, "pending_review"),
        # a rule naming no argument of the request and sharing no word with it stays out
        ({"policy_number": "AU-1", "submitted_via": "web"}, "approved"),
    ],
)
def test_an_unread_rule_naming_an_argument_speaks_to_the_request(args: dict, expected: str) -> None:
    rule = "Only the policyholder or their agent of record may request; requested_by anything else -> review"
    assert compile_rule(0, "c", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "policy.cancel", args) == expected


def test_an_unread_rule_naming_an_argument_by_a_plain_word_speaks_to_it() -> None:
    # 'systems' stems to a generic word, so the rule had shared no word with the offboarding
    rule = "okta has to be in the systems list (it cascades to the SSO apps). Requests without it are rejected."
    args = {"employee_id": "E1", "systems": ["google_workspace", "slack"]}
    assert compile_rule(0, "c", rule).understanding != "understood"
    assert outcome_beside_ticket(rule, "hris.offboard_employee", args) == "pending_review"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"customer_country": "NO"}, "pending_review"),  # Norway is in the EEA
        ({"customer_country": "DE"}, "pending_review"),
        ({"customer_country": "US"}, "approved"),
    ],
)
def test_a_country_argument_holding_no_is_norway(args: dict, expected: str) -> None:
    # read as a 'no', `customer_country: "NO"` had ruled the customers out of the rule
    rule = "Exports of customers located in the EEA need DPO review."
    assert outcome_beside_ticket(rule, "crm.export", args) == expected


# holdout_36/37's first runs on the final engine: an argument's name read as the one value allowed
@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "paper_check only to US mailing addresses",
            "finaid.refund.issue",
            {"refund_method": "direct_deposit", "mailing_country": "US"},
        ),
        (
            "Access and portability exports are sent only to the subject's own address on file, "
            "i.e. delivery_email must equal subject_email.",
            "privacy.dsr.fulfill",
            {"type": "erasure", "subject_email": "a@b.de", "data_categories": ["profile"]},
        ),
    ],
)
def test_an_argument_name_before_only_or_opening_a_clause_is_no_value(
    rule: str, tool: str, args: dict
) -> None:
    compiled = compile_rule(0, "c", rule)
    assert compiled.understanding == "partly_understood"
    assert outcome_beside_ticket(rule, tool, args) == "pending_review"


@pytest.mark.parametrize(("amount", "expected"), [(100, "approved"), (640, "pending_review")])
def test_a_permission_given_to_the_agent_is_no_cap(amount: int, expected: str) -> None:
    # 'agent can action' permits up to the bound; read as a cap it denied 640, which the policy's
    # next rule gives to a team leader. Since the fourteenth session it is read as the permission
    # it states (compiler._AGENT_MAY): up to the bound the agent acts, above it a human decides.
    rule = "Write-offs up to £250: agent can action."
    assert compile_rule(0, "c", rule).understanding == "understood"
    args = {"amount": amount, "currency": "GBP"}
    assert outcome_beside_ticket(rule, "overpayments.writeoff", args) == expected
