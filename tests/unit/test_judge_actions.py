"""A rule about another act does not govern the request (helper jact, seventh session).

A policy's tools glob often covers several tools ('kms.*', 'edr.*', 'orders.*'); a rule the engine
cannot fully read was relevant, and sent the request to review, as soon as it shared one word with
it, so a rule written for one act ('Scheduling key deletion is prohibited') blocked every other
('kms.rotate_key'). Now a text or partly understood rule that surely names specific acts, none of
which may be the request's, is not relevant (recorded in the verdict's details). Tested on
phrasings of our own; the safety properties (hypothesis) check that a general word, a synonym, a
generic tool verb or an argument naming the act keeps the rule relevant, and that a rule naming
no act keeps today's behaviour.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.judge.actions import rule_actions
from webapp.judge.compiler import compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.history import StaticHistory
from webapp.judge.request_view import RequestView
from webapp.judge.types import ClearanceQuery, PolicyVersion, Verdict

TICKET = "Every call must include a ticket_id."


def _policy(rules: list[str], tools: tuple[str, ...]) -> PolicyVersion:
    digest = hashlib.sha256(("|".join(rules) + "|".join(tools)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, "", tuple(rules), tools)


def judge(rule: str, tool: str, args: dict, tools: tuple[str, ...]) -> tuple[str, Verdict]:
    """The outcome of `tool` under a policy of a ticket rule (which speaks to every request) and
    `rule`, and the verdict."""
    v = evaluate(
        ClearanceQuery(tool, {"ticket_id": "T-1", **args}, "agent"),
        [_policy([TICKET, rule], tools)],
        StaticHistory.from_dict(None),
    )
    if v.decision == "deny":
        return "denied", v
    return ("approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"), v


def _cited(v: Verdict, rule: str) -> bool:
    return any(c.text == rule for c in v.citations)


# (rule the engine cannot fully read, a tool of the glob doing another act, args, glob, a tool
# doing the rule's act)
OTHER_ACT = [
    (
        "Scheduling key deletion for keys that guard customer data needs the crypto custodian.",
        "kms.rotate_key",
        {"key_alias": "alias/payments-db"},
        ("kms.*",),
        "kms.schedule_key_deletion",
    ),
    (
        "Releasing a host from isolation before the malware is eradicated needs the IR lead.",
        "edr.isolate_host",
        {"hostname": "WS-1"},
        ("edr.*",),
        "edr.release_host",
    ),
    (
        "Revoking a certificate of a production domain is for the PKI owner to approve, after the incident call.",
        "pki.issue_certificate",
        {"common_name": "api.example.com", "environment": "production"},
        ("pki.*",),
        "pki.revoke_certificate",
    ),
    (
        "Deleting a user who still owns active access keys is forbidden until the keys are "
        "deactivated.",
        "iam.create_user",
        {"user_name": "svc-reports"},
        ("iam.*",),
        "iam.delete_user",
    ),
    (
        "Publishing a story that names a juvenile suspect needs legal review.",
        "cms.delete_story",
        {"story_id": "ST-1"},
        ("cms.*",),
        "cms.publish_story",
    ),
    (
        "Refunds on orders older than a year need the finance team's blessing.",
        "orders.ship_order",
        {"order_id": "O-2"},
        ("orders.*",),
        "orders.partial_refund",
    ),
]


@pytest.mark.parametrize(("rule", "tool", "args", "tools", "own_tool"), OTHER_ACT)
def test_a_rule_about_another_act_does_not_govern_the_request(rule, tool, args, tools, own_tool):
    assert not compile_rule(1, "c:r1", rule).decides  # judged as text: this is the case at hand
    got, v = judge(rule, tool, args, tools)
    assert got == "approved", v.reason
    assert not _cited(v, rule)
    (record,) = v.details["out_of_action"]
    assert record["chunk_id"].endswith(":r1")
    assert record["rule_actions"] and record["request_actions"]
    # The tool doing the rule's own act is governed by it, as before.
    got, v = judge(rule, own_tool, args, tools)
    assert got != "approved"
    assert "out_of_action" not in v.details


@pytest.mark.parametrize(
    "rule",
    [
        # an act named next to an effect, a state, a requirement or a qualifier is not the
        # rule's act: nothing is named for sure
        "Crane lifts are suspended while wind speed exceeds 20 m/s.",
        "Production schemas are read-only unless the requester is on the platform team.",
        "Loan amt over $766,550 = jumbo; needs chief credit officer sign-off.",
        "Anything over 500 must be approved by a manager.",
        "PII must be encrypted before export.",
        "Accounts created in the last 30 days need review.",
        "Posts by minors need review by the youth safety team.",
        # an unknown word joined to the act may be the request's act
        "Archiving or deleting a repository with open pull requests needs approval.",
        "Teardowns and deploys to production need the CAB.",
        # general words, examples of an open set
        "Any change to production keys needs security sign-off.",
        "All key operations outside business hours need the on-call lead.",
        "Destructive actions such as deleting or truncating need a second pair of eyes.",
        "No modification of any kind to the ledger after close.",
        # broad acts
        "Using personal devices to export data is prohibited.",
        "Running payroll between December 24 and January 2 needs the controller.",
        # no act at all
        "Vendor remote sessions into OT networks are not allowed.",
    ],
)
def test_a_rule_naming_no_specific_act_for_sure_is_read_as_before(rule):
    assert rule_actions(rule) is None


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ("Scheduling key deletion is prohibited in all environments – disable instead.", "delet"),
        ("Releasing a host from isolation requires a closed IR ticket.", "releas"),
        ("Refund can't exceed the original order total.", "refund"),
        ("No refunds on orders delivered more than 90 days ago.", "refund"),
        ("Never delete prod-db.", "delet"),
        ("Content posted by officials may not be removed without review.", "remov"),
        ("Analysts may isolate workstations when alert severity is high.", "isol"),
        ("CSAM: remove immediately, no review needed.", "remov"),
    ],
)
def test_the_acts_a_rule_names(rule, named):
    acts = rule_actions(rule)
    assert acts is not None and named in acts
    # 'from isolation' names the state an act starts from, not an act of the rule
    if "from isolation" in rule:
        assert "isol" not in acts


def test_the_same_act_keeps_the_rule_relevant():
    rule = "Refunds on orders older than a year need the finance team's blessing."
    got, v = judge(rule, "orders.partial_refund", {"order_id": "O-1"}, ("orders.*",))
    assert got == "pending_review" and _cited(v, rule)


def test_a_tool_naming_no_known_act_keeps_the_rule_relevant():
    rule = "Publishing a story that names a juvenile suspect needs legal review."
    got, v = judge(rule, "cms.embargo_story", {"story_id": "ST-1"}, ("cms.*",))
    assert got == "pending_review" and _cited(v, rule)


@pytest.mark.parametrize(
    ("rule", "tool"),
    [
        # terminating a host stops it; sharing a list exports it; releasing records moves them
        # out; listing an item publishes it; a ban is a suspension
        ("Restarting a database host during business hours needs the DBA.", "vm.terminate_host"),
        ("Exporting subscriber lists to a third party needs the DPO.", "lists.send_campaign"),
        (
            "Outbound transfers of student PII must use an encrypted channel.",
            "records.release_to_third_party",
        ),
        ("Listing weapons or live animals is prohibited.", "listings.publish"),
        ("Suspending accounts with over 1M followers needs the T&S director.", "accounts.ban"),
        ("Deleting production instances needs the CAB.", "ec2.terminate_instances"),
        ("Viewing patient records needs a care relationship.", "ehr.download_record"),
    ],
)
def test_acts_one_domain_names_two_ways_are_never_told_apart(rule, tool):
    acts = rule_actions(rule)
    assert acts is not None
    view = RequestView(tool, {"target": "x"}, "agent", None)
    assert view.request_actions()
    assert not view.other_action(acts)


def test_an_outbound_transfer_rule_governs_a_release_of_records():
    # The rule is kept as text: it must keep the release to a third party in review.
    rule = "Outbound transfers of student PII must use an encrypted channel."
    args = {"student_id": "S-1", "fields": ["ssn"]}
    got, v = judge(rule, "records.release_to_third_party", args, ("records.*",))
    assert got == "pending_review" and _cited(v, rule)


# ---------------------------------------------------------------------------------------------
# Safety properties: what keeps a rule about another act relevant.

GENERAL = [
    "any change to keys",
    "all key operations",
    "every action on a host",
    "operations of any kind",
    "any other operation",
    "anything else done to it",
    "other actions such as exports",
    "related work, including reviews",
]
SYNONYMS = {
    "kms.schedule_key_deletion": ["delete", "purge", "remove", "destroy", "erase", "drop"],
    "edr.release_host": ["release"],
    "pki.revoke_certificate": ["revoke"],
    "iam.delete_user": ["delete", "remove", "purge", "wipe"],
    "cms.publish_story": ["publish"],
    "orders.partial_refund": ["refund"],
}
GENERIC_VERBS = [
    "execute",
    "run",
    "process",
    "submit",
    "perform",
    "handle",
    "apply",
    "call",
    "invoke",
    "manage",
    "update",
    "change",
    "modify",
    "edit",
]
ACT_ARGUMENTS = {
    "kms.schedule_key_deletion": ("deletion", "delete"),
    "edr.release_host": ("release", "release"),
    "pki.revoke_certificate": ("revocation", "revoke"),
    "iam.delete_user": ("deletion", "delete"),
    "cms.publish_story": ("publish", "publish"),
    "orders.partial_refund": ("refund", "refund"),
}


def _relevant(rule: str, tool: str, args: dict, tools: tuple[str, ...]) -> bool:
    got, v = judge(rule, tool, args, tools)
    return got != "approved" and _cited(v, rule) and "out_of_action" not in v.details


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(OTHER_ACT), general=st.sampled_from(GENERAL))
def test_a_general_word_keeps_the_rule_relevant(case, general):
    rule, tool, args, tools, _ = case
    text = f"{rule[:-1]}; the same holds for {general}."
    assert rule_actions(text) is None
    assert _relevant(text, tool, args, tools)


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(OTHER_ACT), data=st.data())
def test_a_synonym_of_the_rules_act_in_the_tool_name_keeps_it_relevant(case, data):
    rule, _, args, tools, own_tool = case
    verb = data.draw(st.sampled_from(SYNONYMS[own_tool]))
    service, name = own_tool.split(".")
    obj = name.split("_", 1)[-1] if "_" in name else "item"
    assert _relevant(rule, f"{service}.{verb}_{obj}", args, tools)


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(OTHER_ACT), verb=st.sampled_from(GENERIC_VERBS))
def test_a_generic_tool_verb_keeps_the_rule_relevant(case, verb):
    rule, tool, args, tools, _ = case
    service, name = tool.split(".")
    obj = name.split("_", 1)[-1] if "_" in name else "item"
    assert _relevant(rule, f"{service}.{verb}_{obj}", args, tools)


@settings(max_examples=60, deadline=None)
@given(
    case=st.sampled_from(OTHER_ACT),
    how=st.sampled_from(["operation", "action", "type", "name", "note"]),
)
def test_an_argument_naming_the_rules_act_keeps_it_relevant(case, how):
    rule, tool, args, tools, own_tool = case
    noun, verb = ACT_ARGUMENTS[own_tool]
    extra = {
        "operation": {"operation": verb},
        "action": {"action": f"{verb}_now"},
        "type": {"request_type": noun},
        "name": {f"{noun}_window_days": 7},
        "note": {"note": f"then {verb} it"},
    }[how]
    assert _relevant(rule, tool, {**args, **extra}, tools)


# Words that name no act: a rule made of them names nothing for sure.
NO_ACT_WORDS = [
    "production",
    "keys",
    "hosts",
    "vendor",
    "sessions",
    "networks",
    "outside",
    "business",
    "hours",
    "need",
    "the",
    "security",
    "team's",
    "blessing",
    "are",
    "not",
    "allowed",
    "must",
    "have",
    "a",
    "ticket",
    "crown-jewel",
    "read-only",
    "sign-off",
]


@settings(max_examples=150, deadline=None)
@given(ws=st.lists(st.sampled_from(NO_ACT_WORDS), min_size=1, max_size=12))
def test_a_rule_with_no_act_word_keeps_todays_behaviour(ws):
    text = " ".join(ws).capitalize() + "."
    assert rule_actions(text) is None


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_reading_the_acts_of_any_text_never_crashes(text):
    acts = rule_actions(text)
    assert acts is None or isinstance(acts, frozenset)


@settings(max_examples=60, deadline=None)
@given(
    case=st.sampled_from(OTHER_ACT),
    verb=st.sampled_from(GENERIC_VERBS + ["approve", "authorize", "set", "configure"]),
)
def test_a_request_with_a_broad_act_is_never_out_of_any_rules_act(case, verb):
    rule, _, _, _, _ = case
    acts = rule_actions(rule)
    assert acts is not None
    view = RequestView(f"svc.{verb}_thing", {"ticket_id": "T-1"}, "agent", None)
    assert not view.other_action(acts)


@pytest.mark.parametrize(
    "tool", ["billing.override_meter_read", "mod.takedown_post", "kms.key_rotation", "x_list"]
)
def test_a_tool_not_named_verb_first_has_no_known_act(tool):
    # 'meter read', 'a post', 'key rotation' name the object or are nouns: the act is unknown,
    # so no rule is out of it
    view = RequestView(tool, {"id": "1"}, "agent", None)
    assert not view.request_actions()
    assert not view.other_action(frozenset({"issu", "delet", "export"}))
