"""Red team of readings labelled understood that decided on a misreading (helper jred19, issue
#10): a tool name read as a value an argument holds, an argument's name read as a value, a count
of an adjective, requirements dropped beside a new-party check, an agent glob read for every
agent, an arrow's condition read only as subject words, two parties that must differ with no
check comparing them, and `name=value` notation read as subject words with an allowance.

Each vector is (rule, tool, arguments, expected outcome beside a satisfied ticket rule). A rule
whose subject is a tool and whose tail asks only for a person's decision is read as a review of
that tool; an arrow's condition keeps its denial where the request names it and sends a breach
elsewhere to review. The rest are left partly understood (review), never approved.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import decide_beside_ticket, outcome_beside_ticket

from webapp.judge.compiler import compile_rule

RELEASE = "edr.release_host: human analyst sign-off required, always."
FREEZE = (
    "Year-end freeze: no new awards (grants.award) with an award_date of Jun 24 through Jun 30, "
    "inclusive."
)
FILING = (
    "Every filing must include preparer_id and reviewer_id, and preparer and reviewer must not "
    "be the same person."
)
SCORES = "a) Award needs >= 2 independent reviewer scores in `review_scores`."
EXPIRED = "2. A check older than 24 months is expired = treat as not cleared (`check_age_months`)."
VENDORS = "New vendors: tax_id required, and tax_form must be W-9 or W-8BEN."
IMAGES = "Memory/disk images -> encryption must be aes-256."
SCOPE = "scope=global requires SOC lead sign-off; scope=site is fine."
RECEIPT = "Refunds: receipt required (receipt_checked = true)."
CALLBACK = "Wires to new beneficiaries: callback required (callback_done = true)."
PENSION = (
    "Monthly pension payments: payee account must match account on file "
    "(account_matches_record = true); no payments into accounts opened less than 30 days ago."
)
SANDBOX = "sandbox-* agents: dry_run must be true; live actions are denied."

VECTORS = [
    # a tool as the rule's subject: that tool is reviewed, another is not governed
    (RELEASE, "edr.release_host", {"host_id": "H-1"}, "pending_review"),
    (RELEASE, "edr.isolate_host", {"host_id": "H-1"}, "approved"),
    ("iam.* : security sign-off required.", "iam.add_user", {"user": "b"}, "pending_review"),
    ("iam.* : security sign-off required.", "hr.update_title", {"user": "b"}, "approved"),
    (
        "`iam.grant_admin` -> two-person approval, no exceptions.",
        "iam.grant_admin",
        {},
        "pending_review",
    ),
    (
        "payments.wire_out: always needs treasury approval.",
        "payments.wire_out",
        {"amount": 1},
        "pending_review",
    ),
    # a tool name in brackets beside a date window left unread
    (FREEZE, "grants.award", {"award_date": "2025-06-26", "amount": 5}, "pending_review"),
    (FREEZE, "grants.award", {"award_date": "2025-06-30", "amount": 5}, "pending_review"),
    # names required, read as values; two parties that must differ
    (FILING, "filings.submit", {"preparer_id": "u1", "reviewer_id": "u1"}, "pending_review"),
    (FILING, "filings.submit", {"preparer_id": "u1"}, "pending_review"),
    # a count of an adjective
    (SCORES, "grants.award", {"review_scores": [{"reviewer": "r1"}]}, "pending_review"),
    (SCORES, "grants.award", {"review_scores": [1], "independent": 5}, "pending_review"),
    (
        "Payouts need >= 3 distinct approver signatures in `approvals`.",
        "payouts.send",
        {"approvals": ["a", "a", "a"]},
        "pending_review",
    ),
    # an argument's name read as a value
    (EXPIRED, "screening.clear", {"check_age_months": 30}, "pending_review"),
    # requirements dropped beside a new-party check
    (VENDORS, "vendors.onboard", {"vendor": "Acme", "tax_form": "W-9"}, "pending_review"),
    (
        VENDORS,
        "vendors.onboard",
        {"vendor": "Acme", "tax_id": "1", "tax_form": "1099"},
        "pending_review",
    ),
    ("New payees: iban required.", "payees.add", {"payee": "Acme"}, "pending_review"),
    # an arrow's condition: denial where the request names it, review elsewhere
    (IMAGES, "forensics.export_image", {"image_type": "memory", "encryption": "none"}, "denied"),
    (
        IMAGES,
        "forensics.export_image",
        {"image_type": "memory", "encryption": "aes-256"},
        "approved",
    ),
    (
        IMAGES,
        "forensics.export",
        {"artifact_type": "log_bundle", "encryption": "aes-128"},
        "pending_review",
    ),
    # name=value notation: another value is not 'fine'
    (SCOPE, "soc.block_ioc", {"scope": "org-wide"}, "pending_review"),
    (SCOPE, "soc.block_ioc", {"scope": "global"}, "pending_review"),
    # the argument's own word read as a second subject: a pass on a failing flag is reviewed
    (RECEIPT, "payments.refund", {"receipt_checked": False}, "pending_review"),
    (RECEIPT, "payments.refund", {"receipt_checked": True}, "approved"),
    (CALLBACK, "payments.wire", {"beneficiary": "x", "callback_done": False}, "pending_review"),
    (
        PENSION,
        "pensions.payments.create",
        {"account_matches_record": True, "account_age_days": 12},
        "denied",
    ),
    (
        PENSION,
        "pensions.payments.create",
        {"account_matches_record": False, "account_age_days": 40},
        "pending_review",
    ),
    # a priority code no check reads
    (
        "Priority P1 incidents only: page on-call.",
        "pager.page",
        {"priority": "P3", "target": "on-call"},
        "pending_review",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize("agent", ["sandbox-7", "prod-agent"])
def test_agent_glob_never_decides_for_every_agent(agent: str) -> None:
    # read as a rule for every agent, a prod agent's live action had been denied
    assert decide_beside_ticket([SANDBOX], "edr.isolate_host", {"dry_run": False}, agent) == (
        "pending_review"
    )


READINGS = [
    (RELEASE, "Send to review when the tool is `edr.release_host`"),
    ("iam.* : security sign-off required.", "Send to review when the tool is `iam.*`"),
]


@pytest.mark.parametrize(("rule", "reading"), READINGS)
def test_tool_subject_reading(rule: str, reading: str) -> None:
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "understood"
    assert [c.reading() for c in compiled.checks] == [reading]


def test_arrow_condition_reading() -> None:
    compiled = compile_rule(0, "c0", IMAGES)
    assert compiled.understanding == "understood"
    assert compiled.checks[0].reading().startswith("When the request is about memory/disk images")


LEFT_UNREAD = [
    (FREEZE, "grants.award"),
    # the pair left unread (jpair's guard, pairs.pair_read_otherwise, names it first on merge)
    (FILING, "be the same person"),
    (SCORES, "independent"),
    (EXPIRED, "check_age_months"),
    (VENDORS, "tax_id"),
    (SCOPE, "scope"),
    (SANDBOX, "sandbox-*"),
    ("Never call db.drop_table in prod.", "db.drop_table"),
    ("edr.release_host: sign-off required for hosts in prod.", "edr.release_host"),
    ("test-* agents: dry_run must be true.", "test-*"),
]


@pytest.mark.parametrize(("rule", "word"), LEFT_UNREAD)
def test_misread_part_left_unaccounted(rule: str, word: str) -> None:
    compiled = compile_rule(0, "c0", rule)
    assert compiled.understanding == "partly_understood"
    assert word in compiled.unaccounted


def test_instance_types_and_domains_stay_values() -> None:
    # 't3.micro' and 'example.com' are values an argument holds, not tool names
    for rule in (
        "Instance types are limited to t3.micro, t3.small and t3.medium.",
        "Exports must never include the fields ssn, tax_id or pan.",
    ):
        assert compile_rule(0, "c0", rule).understanding == "understood"


_TOOLS = st.from_regex(r"[a-z]{3,8}\.[a-z]{3,8}_[a-z]{3,8}", fullmatch=True)
_DECIDERS = st.sampled_from(["human analyst", "treasury", "security", "two-person", "SOC lead"])


@settings(max_examples=25, deadline=None)
@given(tool=_TOOLS, who=_DECIDERS)
def test_tool_subject_reviews_that_tool_only(tool: str, who: str) -> None:
    rule = f"{tool}: {who} sign-off required, always."
    assert outcome_beside_ticket(rule, tool, {"x": 1}) == "pending_review"
    assert outcome_beside_ticket(rule, tool + "x", {"x": 1}) != "denied"


@settings(max_examples=25, deadline=None)
@given(tool=_TOOLS, extra=st.sampled_from(["for hosts in prod", "over 5 hosts", "on weekends"]))
def test_tool_subject_with_a_condition_is_never_approved_on_that_tool(
    tool: str, extra: str
) -> None:
    rule = f"{tool}: sign-off required {extra}."
    assert outcome_beside_ticket(rule, tool, {"hosts": 9, "env": "prod"}) != "approved"


@settings(max_examples=25, deadline=None)
@given(
    glob=st.from_regex(r"[a-z]{3,8}-\*", fullmatch=True),
    agent=st.from_regex(r"[a-z]{3,8}-[0-9]", fullmatch=True),
)
def test_agent_glob_rule_never_decides_on_a_misreading(glob: str, agent: str) -> None:
    rule = f"{glob} agents: dry_run must be true."
    compiled = compile_rule(0, "c0", rule)
    assert not compiled.decides or any(c.kind.startswith("agent") for c in compiled.checks)


@settings(max_examples=30, deadline=None)
@given(
    head=st.sampled_from(["Refunds", "Wires", "Playground equipment", "Joint accounts", "Payouts"]),
    word=st.sampled_from(["receipt", "callback", "certificate", "consent", "review"]),
    suffix=st.sampled_from(["checked", "done", "ok", "given"]),
)
def test_a_failing_named_flag_is_never_approved(head: str, word: str, suffix: str) -> None:
    # 'HEAD: WORD required (WORD_SUFFIX = true)' with the flag false: never approved
    rule = f"{head}: {word} required ({word}_{suffix} = true)."
    tool = head.lower().split()[0] + ".create"
    assert outcome_beside_ticket(rule, tool, {f"{word}_{suffix}": False}) != "approved"
