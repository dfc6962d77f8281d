"""jred26: red team of a rule's subject qualifiers (the kind of the act) and of conditions on
yes/no arguments.

Closed here: a yes/no written "N" says no; a category value naming the rule's kind in other
words ('lifetime' for 'permanent') neither sets the rule aside nor rules it out; a kind of the
act before its noun ('Hard deletes', 'Automated trades') and the kind of a limit acted on
('Overrides of hard limits') stay subject words; an allow-list of a kind of the act decided from
another argument while a flag named for the kind says otherwise goes to review; a pass condition
is not met by a flag turning the pass around or naming another thing that passed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import decide_beside_ticket, outcome
from webapp.judge.compiler import compile_rule
from webapp.judge.request_view import RequestView

PERMANENT = "- permanent bans -> not allowed for agents"
RECURRING = "Recurring payments may not exceed $2,000."
INTL = "International wires over $10k are prohibited."


# -- a yes/no written Y/N -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (PERMANENT, "user.ban", {"user_id": "u", "is_permanent": "N"}, "approved"),
        (PERMANENT, "user.ban", {"user_id": "u", "is_permanent": "n"}, "approved"),
        (PERMANENT, "user.ban", {"user_id": "u", "is_permanent": "Y"}, "denied"),
        (
            RECURRING,
            "payment.create",
            {"amount": 3000, "currency": "USD", "recurring": "N"},
            "approved",
        ),
        (
            RECURRING,
            "payment.create",
            {"amount": 3000, "currency": "USD", "recurring": "Y"},
            "denied",
        ),
        (
            INTL,
            "wire.send",
            {"amount": 20000, "currency": "USD", "is_international": "N"},
            "approved",
        ),
        (
            INTL,
            "wire.send",
            {"amount": 20000, "currency": "USD", "is_international": "Y"},
            "denied",
        ),
        ("Bulk deletes are prohibited.", "records.delete", {"ids": ["a"], "bulk": "N"}, "approved"),
        (
            "Partial refunds are not permitted.",
            "refund.issue",
            {"amount": 8, "is_partial": "N"},
            "approved",
        ),
    ],
)
def test_a_flag_written_n_says_no(rule, tool, args, expected):
    assert decide_beside_ticket([rule], tool, args) == expected


def test_an_n_that_is_a_value_is_not_a_no():
    # a compass direction or a grade written "N" is a value, not a no
    for key in ("direction", "grade", "customer_country"):
        view = RequestView("x.do", {key: "N"}, "a", {})
        assert view._present_keys, key
    view = RequestView("x.do", {"is_permanent": "N"}, "a", {})
    assert "perman" in view._empty_keys or "permanent" in view._empty_keys


# -- the rule's kind written another way --------------------------------------------------------
@pytest.mark.parametrize("value", ["lifetime", "indefinite", "perm", "permaban", "forever"])
def test_a_kind_named_otherwise_is_never_ruled_out(value):
    got = decide_beside_ticket(
        [PERMANENT, "Bans must state a reason (`reason`)."],
        "user.ban",
        {"user_id": "u", "ban_type": value, "reason": "spam"},
    )
    assert got == "pending_review"


def test_another_kind_still_rules_the_rule_out():
    got = decide_beside_ticket(
        ["Permanent bans are not allowed."], "user.ban", {"user_id": "u", "ban_type": "temporary"}
    )
    assert got == "approved"


# -- a kind of the act before its noun ----------------------------------------------------------
@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        (
            "Hard deletes are prohibited.",
            "records.delete",
            {"record_id": "r", "hard": False},
            "approved",
        ),
        (
            "Hard deletes are prohibited.",
            "records.delete",
            {"record_id": "r", "delete_type": "hard"},
            "denied",
        ),
        ("Hard deletes are prohibited.", "records.delete", {"record_id": "r"}, "pending_review"),
        (
            "Automated trades are prohibited.",
            "trade.place",
            {"qty": 3, "automated": False},
            "approved",
        ),
        (
            "Automated trades are prohibited.",
            "trade.place",
            {"qty": 3, "automated": True},
            "denied",
        ),
        (
            "Overrides of hard limits are never allowed.",
            "limit.override",
            {"limit_id": "L", "limit_type": "soft"},
            "pending_review",
        ),
    ],
)
def test_a_kind_of_the_act_stays_a_subject_word(rule, tool, args, expected):
    assert outcome([rule], tool, args) == expected


@pytest.mark.parametrize(
    ("rule", "reading"),
    [
        ("Hard deletes are prohibited.", "Deny requests about hard deletes"),
        ("Automated trades are prohibited.", "Deny requests about automated trades"),
        (
            "Overrides of hard limits are never allowed.",
            "Deny requests about overrides hard limits",
        ),
    ],
)
def test_the_reading_names_the_kind(rule, reading):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood"
    assert compiled.checks[0].reading() == reading


def test_the_force_of_a_rule_is_still_no_kind():
    # 'hard limit', 'auto-approved': the effect, never a subject word
    compiled = compile_rule(0, "c:r0", "Refunds up to $500 are auto-approved.")
    assert "auto" not in compiled.checks[0].terms
    compiled = compile_rule(0, "c:r0", "Refunds have a hard limit of $500.")
    assert "hard" not in compiled.checks[0].terms


# -- an allow-list of a kind beside a flag named for the kind -----------------------------------
ONLY_DOMESTIC = "Only domestic wires are allowed."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"is_international": True, "fee_schedule": "domestic"}, "pending_review"),
        ({"is_domestic": True}, "pending_review"),
        ({"wire_type": "domestic"}, "approved"),
        ({"wire_type": "international"}, "denied"),
    ],
)
def test_an_allow_list_of_a_kind_reads_the_flag_named_for_it(args, expected):
    got = outcome([ONLY_DOMESTIC], "wire.send", {"amount": 300, "currency": "USD", **args})
    assert got == expected


# -- a pass condition on a flag that says something else ----------------------------------------
VERIFIED = "Refunds over $200 need review unless the customer is verified."


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("customer_verified", "approved"),
        ("customer_unverified", "pending_review"),
        ("customer_not_verified", "pending_review"),
        ("customer_verified_email", "pending_review"),
    ],
)
def test_a_pass_condition_reads_only_its_own_flag(flag, expected):
    got = outcome([VERIFIED], "refund.issue", {"amount": 300, "currency": "USD", flag: True})
    assert got == expected


# -- properties ---------------------------------------------------------------------------------
_KIND_RULES = (
    ("Permanent bans are not allowed.", "user.ban", "permanent"),
    ("Recurring payments may not exceed $2,000.", "payment.create", "recurring"),
    ("Hard deletes are prohibited.", "records.delete", "hard"),
    ("Automated trades are prohibited.", "trade.place", "automated"),
)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(_KIND_RULES),
    st.sampled_from(["N", "n", "no", "false", False]),
    st.sampled_from(["is_{}", "{}", "{}_flag"]),
)
def test_property_a_kind_flag_saying_no_never_denies(rule_tool_kind, off, shape):
    """A request whose flag named for the rule's kind says no (in any spelling) is never denied
    by the rule: it is another kind of the act."""
    rule, tool, kind = rule_tool_kind
    args = {"amount": 3000, "currency": "USD", shape.format(kind): off}
    assert outcome([rule], tool, args) != "denied"


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["un", "not_", "non"]),
    st.sampled_from(["customer", "customer_is"]),
    st.booleans(),
)
def test_property_a_turned_around_pass_flag_never_approves(prefix, head, value):
    """'unless the customer is verified' is never met by a flag that names the opposite."""
    args = {"amount": 300, "currency": "USD", f"{head}_{prefix}verified": value}
    assert outcome([VERIFIED], "refund.issue", args) != "approved"


# -- a required flag read from every argument named for it --------------------------------------
ENCRYPTED = "Exports must be encrypted."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"not_encrypted": True}, "pending_review"),
        ({"not_encrypted": False}, "pending_review"),
        ({"encryption_skipped": True}, "pending_review"),
        ({"encrypted_copy": True, "encrypted": False}, "denied"),
        ({"encrypted_at_rest": True, "encrypted_in_transit": False}, "pending_review"),
        ({"encrypted": True}, "approved"),
        ({"encrypted": "N"}, "denied"),
        ({"encrypted_at_rest": True}, "approved"),
    ],
)
def test_a_required_flag_reads_every_argument_named_for_it(args, expected):
    assert outcome([ENCRYPTED], "data.export", {"dataset": "x", **args}) == expected


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["not_{}", "{}_skipped", "no_{}", "{}_bypassed", "un{}"]))
def test_property_a_turned_required_flag_never_approves(shape):
    """An argument whose name turns the required flag around never proves it on."""
    args = {"dataset": "x", shape.format("encrypted"): True}
    assert outcome([ENCRYPTED], "data.export", args) != "approved"
