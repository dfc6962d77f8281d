"""jred30: red team of the agent-permission readings ('Refunds up to 50 USD: agent may issue.')
and of lookalike mail domains."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.vocabulary import near

REFUND = {"amount": 30, "currency": "USD"}


@pytest.mark.parametrize(
    "text",
    [
        "Refunds up to 50 USD: agents are not permitted to issue.",
        "Refunds up to 50 USD: no agent may issue.",
        "Refunds up to 50 USD, agents may not issue.",
        "refunds <= 50 USD -> agents are not permitted to issue",
        "Refunds up to 50 USD: agents are never allowed to issue.",
        "Refunds up to 50 USD: agents are prohibited from issuing.",
        "Refunds up to 50 USD: agent may never issue.",
        "Refunds up to 50 USD: no bot can issue.",
        "Refunds up to 50 USD: not by agents.",
    ],
)
def test_a_refusal_of_the_bounded_values_in_other_words_is_never_a_cap(text):
    # each was read "Deny when the amount is above 50 USD" and approved a 30 USD refund
    assert compile_rule(0, "c0", text).understanding != "understood"
    assert outcome_beside_ticket(text, "folio.refund", REFUND) != "approved"


@pytest.mark.parametrize(
    "verb", ["escalate", "request", "propose", "suggest", "recommend", "draft it", "initiate"]
)
def test_an_act_that_is_not_the_act_itself_is_no_permission(verb):
    text = f"Refunds up to 50 USD: agent may {verb}."
    assert outcome_beside_ticket(text, "folio.refund", REFUND) == "pending_review"


def test_any_agent_can_view_is_no_permission_to_issue():
    text = "Refunds up to 50 USD: any agent can view."
    assert outcome_beside_ticket(text, "folio.refund", REFUND) != "approved"


@pytest.mark.parametrize(("amount", "expected"), [(30, "approved"), (80, "pending_review")])
def test_the_plain_permission_still_holds(amount, expected):
    text = "Refunds up to 50 USD: agent may issue."
    args = {"amount": amount, "currency": "USD"}
    assert outcome_beside_ticket(text, "folio.refund", args) == expected


PERSONAL = {"personal email accounts": ["gmail.com", "yahoo.com", "gmx.de"]}
MANIFESTS = "Don't send manifests to personal email accounts"


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("jo@gmai1.com", "pending_review"),  # a lookalike of gmail.com had been approved
        ("jo@grnail.com", "pending_review"),
        ("jo@gmall.com", "pending_review"),
        ("jo@gmail.com", "denied"),
        ("ops@acme-shipping.com", "approved"),
    ],
)
def test_a_lookalike_of_a_listed_mail_domain_goes_to_a_human(address, expected):
    args = {"recipient_email": address, "document_type": "manifest"}
    assert outcome_beside_ticket(MANIFESTS, "docs.share", args, PERSONAL) == expected


@given(
    st.sampled_from(["gmail", "yahoo"]),
    st.integers(min_value=0, max_value=4),
    st.sampled_from("abcdefghijklmnopqrstuvwxyz1"),
)
def test_one_letter_changed_in_a_listed_domain_is_near(name, pos, ch):
    mutated = name[:pos] + ch + name[pos + 1 :]
    assert near(f"jo@{mutated}.com", ("gmail.com", "yahoo.com"))
