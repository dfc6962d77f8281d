"""Red team jred16 on the glossed-subject scope (scopes.py) and the tiers (tiers.py).

What the readings approved that a compliance officer would not, each beside a satisfied rule:
- a value close to the glossed one ('subcontractor', 'contractors' against '(crew_type =
  contractor)') read as plainly another, so the rule did not apply: now a human decides, except
  for a value and its negation ('involuntary' against "voluntary" is plainly another);
- a clause after the glossed predicate with a subject of its own ('…; interns may not either',
  '…; cash payments are never refunded') scoped by the first clause's gloss, so it never applied
  to the requests it names: now the rule is not read as scoped (partly understood);
- a second predicate or requirement joined to the first ('crew_size of at least 2 and a permit',
  '… may not work energized equipment and must carry a permit'), which the readings of the rest
  dropped: not read as scoped either.
And what the tiers denied that goes to review: a band 'A to B inclusive' (the word read as the
band's unit), '; above is refused' after a band (read above the band's start, so the band was
refused), a band written without the cap's currency ('up to $500; over 500 -> supervisor').
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.compiler import compile_rule
from webapp.judge.glosses import close_value
from webapp.judge.tiers import ranged

CREWS = "Contractor crews (crew_type = contractor) may not work energized equipment."
CREWS_DENY = "Contractor crews (crew_type = contractor) -> deny."
INTERNS = "Contractor crews (crew_type = contractor) may not work energized equipment; interns may not either."
CASH = (
    "Card payments (payment_method = card) over $3,000 need property manager approval; "
    "cash payments are never refunded."
)
CASH_COUNT = (
    "Card payments (payment_method = card) over $3,000 need property manager approval. "
    "Cash over $500 needs a second count (second_count_by)."
)
PERMIT_AND = "Energized equipment (energized = true): crew_size of at least 2 and a permit"
PERMIT_MUST = (
    "Contractor crews (crew_type = contractor) may not work energized equipment and must carry "
    "a permit."
)
INCLUSIVE = (
    "Agents can refund up to £250; £250.01 to £1,000 inclusive -> team leader sign-off; "
    "above is refused."
)
THAT = (
    "Agents can refund up to £250; £250.01 to £1,000 -> team leader sign-off; over that is refused."
)
NO_CURRENCY = "Agents can refund up to $500; over 500 -> supervisor approval."
OTHER_CURRENCY = "Agents can refund up to $500; over 500 EUR -> supervisor approval."


@pytest.mark.parametrize(
    "rule,tool,args,expected",
    [
        (
            CREWS,
            "crew.assign_energized_work",
            {"crew_type": "subcontractor", "energized": True},
            "pending_review",
        ),
        (
            CREWS,
            "crew.assign_energized_work",
            {"crew_type": "contractors", "energized": True},
            "pending_review",
        ),
        (
            CREWS,
            "crew.assign_energized_work",
            {"crew_type": "contract", "energized": True},
            "pending_review",
        ),
        (
            CREWS,
            "crew.assign_energized_work",
            {"crew_type": "internal", "energized": True},
            "approved",
        ),
        (CREWS_DENY, "crew.assign_work", {"crew_type": "contractors"}, "pending_review"),
        (CREWS_DENY, "crew.assign_work", {"crew_type": "contractor"}, "denied"),
        (CREWS_DENY, "crew.assign_work", {"crew_type": "internal"}, "approved"),
        (
            INTERNS,
            "crew.assign_energized_work",
            {"crew_type": "internal", "energized": True, "intern": True},
            "pending_review",
        ),
        (CASH, "pms.refund_payment", {"payment_method": "cash", "amount": 100}, "pending_review"),
        (
            CASH_COUNT,
            "pms.take_payment",
            {"payment_method": "cash", "amount": 900},
            "pending_review",
        ),
        (PERMIT_AND, "crew.dispatch", {"energized": True, "crew_size": 2}, "pending_review"),
        (
            PERMIT_MUST,
            "crew.assign_work",
            {"crew_type": "contractor", "energized": False},
            "pending_review",
        ),
        (INCLUSIVE, "refunds.issue", {"amount": 600}, "pending_review"),
        (INCLUSIVE, "refunds.issue", {"amount": 1000}, "pending_review"),
        (INCLUSIVE, "refunds.issue", {"amount": 1500}, "denied"),
        (INCLUSIVE, "refunds.issue", {"amount": 200}, "approved"),
        (THAT, "refunds.issue", {"amount": 600}, "pending_review"),
        (THAT, "refunds.issue", {"amount": 1500}, "denied"),
        (NO_CURRENCY, "refunds.issue", {"amount": 550}, "pending_review"),
        (NO_CURRENCY, "refunds.issue", {"amount": 450}, "approved"),
        (OTHER_CURRENCY, "refunds.issue", {"amount": 550, "currency": "USD"}, "denied"),
    ],
)
def test_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize("rule", [INTERNS, CASH, CASH_COUNT, PERMIT_AND, PERMIT_MUST])
def test_not_read_as_scoped(rule: str) -> None:
    compiled = compile_rule(0, "c:r0", rule)
    assert not compiled.decides
    assert not any(c.kind == "scoped" for c in compiled.checks)


def test_close_values() -> None:
    assert close_value("subcontractor", ("contractor",))
    assert close_value("contractors", ("contractor",))
    assert close_value("credit_card", ("card",))
    assert not close_value("internal", ("contractor",))
    assert not close_value("involuntary", ("voluntary",))
    assert not close_value("voluntary", ("involuntary",))
    assert not close_value("hosted", ("unhosted",))
    assert not close_value("contractor", ("contractor",))


def test_ranges() -> None:
    assert ranged(INCLUSIVE) == (
        "Agents can refund up to £250; £250.01 or more -> team leader sign-off; "
        "above £1,000 is refused."
    )
    assert ranged("Agents can refund up to £250; £250 to £1,000 exclusive -> lead sign-off.") == (
        "Agents can refund up to £250; more than £250 -> lead sign-off."
    )
    assert ranged("£250 to £1,000 (inclusive) -> team leader sign-off.") == (
        "£250 or more -> team leader sign-off."
    )
    # a number of its own after the band is left as written
    assert "over £5,000 is refused" in (
        ranged(
            "Agents can refund up to £250; £250.01 to £1,000 -> lead sign-off; over £5,000 is refused."
        )
        or ""
    )


_SUBJECTS = st.sampled_from(["interns", "cash payments", "visitors", "Apprentices", "temps"])
_PREDICATES = st.sampled_from(
    ["may not either", "are never refunded", "must be escorted", "need a badge (badge_id)"]
)


@settings(max_examples=30, deadline=None)
@given(subject=_SUBJECTS, predicate=_PREDICATES, sep=st.sampled_from(["; ", ". "]))
def test_a_clause_with_its_own_subject_is_never_scoped(
    subject: str, predicate: str, sep: str
) -> None:
    """Whatever the second clause says of another subject, the first clause's gloss never
    scopes it: no scoped check reads the rule."""
    second = subject[0].upper() + subject[1:] if sep == ". " else subject
    rule = f"Contractor crews (crew_type = contractor) may not work energized equipment{sep}{second} {predicate}."
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(c.kind == "scoped" for c in compiled.checks), rule


@settings(max_examples=30, deadline=None)
@given(
    value=st.sampled_from(["contractor", "card", "wire", "regulator"]),
    affix=st.sampled_from(["sub", "s", "_sub", "credit_", "-present"]),
    front=st.booleans(),
)
def test_a_value_around_the_glossed_one_is_close(value: str, affix: str, front: bool) -> None:
    got = affix + value if front else value + affix
    assert close_value(got, (value,))
