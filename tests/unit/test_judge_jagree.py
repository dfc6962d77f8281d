"""Readings added by the sixth session's helper jagree, each tested on phrasings of our own.

- a required argument is found under an abbreviated name ('an acct number' and
  `account_number`, 'the employee ref' and `emp_ref`), and a closing participle ('the line items
  refunded') qualifies the noun the argument is named for;
- an obligation stated in a policy's description is judged like a rule;
"""

from __future__ import annotations

import hashlib

import pytest

from tests.unit.test_judge_fourth_round import outcome
from webapp.judge.checks import RequiredArgument, abbreviates
from webapp.judge.compiler import compile_policy, compile_rule
from webapp.judge.engine import evaluate
from webapp.judge.explain import policy_report
from webapp.judge.history import StaticHistory
from webapp.judge.text import stem
from webapp.judge.types import ClearanceQuery, PolicyVersion
from webapp.judge.vocabulary import Glossary


@pytest.mark.parametrize(
    ("short", "long", "expected"),
    [
        ("chg", "chang", True),
        ("acct", "account", True),
        ("amt", "amount", True),
        ("emp", "employe", True),
        ("id", "identiti", False),  # an identifier word is never an abbreviation
        ("mgr", "merg", False),  # letters out of order
        ("dept", "deposit", False),  # a vowel that is not a prefix: a guess
        ("pr", "pre", False),  # too close in length to be written short
    ],
)
def test_abbreviation_reads_letters_in_order(short, long, expected):
    assert abbreviates(short, long) is expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"shipment_id": "S-1", "acct_number": "A-77"}, "approved"),
        ({"shipment_id": "S-1", "account_number": ""}, "denied"),
        ({"shipment_id": "S-1"}, "denied"),
    ],
)
def test_a_required_argument_is_found_under_an_abbreviated_name(args, expected):
    rule = "Every shipment must cite the customer account number."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome(rule, "ship_goods", args) == expected


def test_an_abbreviation_in_the_rule_reads_the_argument_spelled_out():
    rule = "Each shipment must cite a mfr ref."
    assert outcome(rule, "ship_goods", {"manufacturer_ref": "M-1"}) == "approved"
    assert outcome(rule, "ship_goods", {"merchant_ref": "M-1"}) != "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"note_id": "N-9", "line_items": ["sku-1"], "refund_reason": "damaged"}, "approved"),
        # `refund_reason` names the participle's word, not the noun: a person decides
        ({"note_id": "N-9", "refund_reason": "damaged"}, "pending_review"),
    ],
)
def test_a_closing_participle_qualifies_the_noun_the_argument_is_named_for(args, expected):
    rule = "Credit notes must list the line items refunded."
    compiled = compile_rule(0, "c:r0", rule)
    (check,) = compiled.checks
    assert isinstance(check, RequiredArgument) and check.head_word == "item"
    assert compiled.understanding == "understood"
    assert outcome(rule, "issue_credit_note", args) == expected


def _pv(description: str, rules: list[str]) -> PolicyVersion:
    # compiled policies are cached by version id and content hash: each content its own
    digest = hashlib.sha256(repr((description, rules)).encode()).hexdigest()
    return PolicyVersion("p", f"pv_{digest[:12]}", digest, description, tuple(rules), ())


def _judge(description: str, rules: list[str], tool: str, args: dict) -> str:
    v = evaluate(ClearanceQuery(tool, args, "agent"), [_pv(description, rules)], StaticHistory())
    if v.decision == "deny":
        return "denied"
    return "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"


DESCRIPTION = "Kitchen orders. Orders with unresolved allergen flags can't be dispatched."


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"order_id": "K-1", "ticket": "T-4", "unresolved_allergen_flags": ["nuts"]}, "denied"),
        ({"order_id": "K-1", "ticket": "T-4", "unresolved_allergen_flags": []}, "approved"),
    ],
)
def test_an_obligation_in_the_description_is_judged_like_a_rule(args, expected):
    rules = ["Every kitchen order must reference a ticket."]
    assert _judge(DESCRIPTION, rules, "dispatch_order", args) == expected


def test_a_title_in_the_description_states_nothing_and_reports_stay_the_rules():
    cp = compile_policy(_pv("Kitchen order limits. Applies to the Leeds site only.", ["x"]))
    assert not any(r.from_description for r in cp.rules)
    cp = compile_policy(_pv(DESCRIPTION, ["Every kitchen order must reference a ticket."]))
    assert [r.chunk_id[-3:] for r in cp.rules if r.from_description] == [":d0"]
    assert [r["text"] for r in policy_report(cp)] == [
        "Every kitchen order must reference a ticket."
    ]


def test_examples_in_brackets_do_not_narrow_a_scope():
    # the brackets name examples of state grants; a code not spelled like them is no sign the
    # request is outside the scope (when unsure, a policy governs)
    pv = PolicyVersion(
        "p",
        "pv_scope",
        "h",
        "Applies to state grants (Cal Grant, Chafee) only.",
        ("Each award must reference a grant ID.",),
        (),
    )
    cp = compile_policy(pv)
    assert cp.scope == ("state", "grants")
    v = evaluate(
        ClearanceQuery("award_grant", {"grant_program": "CG_B", "amount": 10}, "agent"),
        [pv],
        StaticHistory(),
    )
    assert v.reason_code != "no_matching_policy"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"account_id": "A-1", "account_age_days": 45}, "approved"),
        ({"account_id": "A-1", "account_age_days": 30}, "denied"),  # 'older than' is exclusive
        ({"account_id": "A-1", "account_age_days": 12}, "denied"),
    ],
)
def test_only_before_a_bounded_subject_restricts_the_permission_to_the_bound(args, expected):
    rule = "Only accounts older than 30 days may be upgraded."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    # never an allow-list holding the subject's own noun
    assert check.kind == "numeric_limit" and check.op == "le" and check.threshold == 30
    assert (
        check.reading()
        == "Deny when the duration is at or below 30 days (about: accounts upgraded)"
    )
    assert outcome(rule, "upgrade_account", args) == expected


def test_only_with_more_after_the_permission_is_not_this_reading():
    rule = "Only accounts older than 30 days may be upgraded without a review."
    compiled = compile_rule(0, "c:r0", rule)
    assert not any(getattr(c, "op", "") == "le" for c in compiled.checks)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"lab": "Bank of the West", "sample_ids": ["S-1"]}, "approved"),
        ({"lab": "Regional Health Lab", "sample_ids": ["S-1"]}, "approved"),
        ({"lab": "Bank of the East", "sample_ids": ["S-1"]}, "denied"),
    ],
)
def test_a_listed_name_with_a_joining_word_stays_one_value(args, expected):
    rule = "Samples may be sent only to partner labs: Bank of the West, Regional Health Lab."
    (check,) = compile_rule(0, "c:r0", rule).checks
    assert check.values == ("Bank of the West", "Regional Health Lab")
    assert outcome(rule, "send_samples", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"ticket_id": "T-1", "ticket_status": "Open"}, "approved"),
        ({"ticket_id": "T-1", "ticket_status": "Archived"}, "denied"),
        ({"ticket_id": "T-1", "ticket_status": "merged"}, "denied"),
        ({"ticket_id": "T-1"}, "pending_review"),  # no status sent: a person decides
    ],
)
def test_states_joined_by_or_before_a_state_noun_are_ruled_out_by_another_status(args, expected):
    rules = [
        "No comments on tickets in Archived or Merged status.",
        "Comments must cite a ticket ID.",
    ]
    assert _judge("", rules, "add_comment", args) == expected


def test_a_state_word_does_not_rule_out_a_qualifier_of_another_noun():
    # 'Gold or Platinum' qualify the customers, not a status: an open order does not show the
    # customer is not Gold
    rule = "No refunds to Gold or Platinum customers."
    args = {"order_status": "open", "customer": "C-1", "amount": 5}
    assert outcome(rule, "issue_refund", args) != "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"clinic": "C-1", "visit_mode": "onsite", "notes_ref": "N-1"}, "approved"),
        ({"clinic": "C-1", "visit_mode": "remote", "notes_ref": "N-1"}, "denied"),
        ({"clinic": "C-1", "notes_ref": "N-1"}, "pending_review"),
    ],
)
def test_remote_is_ruled_out_by_an_onsite_value(args, expected):
    rules = ["Remote visits are not allowed.", "Visits must cite a notes ref."]
    assert _judge("", rules, "schedule_visit", args) == expected


def test_a_vendor_qualifier_is_ruled_out_by_another_kind_of_person():
    rules = ["Vendor logins to the payroll system are not allowed.", "Logins must cite a ticket."]
    args = {"user_kind": "employee", "ticket": "T-1"}
    assert _judge("", rules, "payroll_login", args) == "approved"
    args["user_kind"] = "vendor"
    assert _judge("", rules, "payroll_login", args) == "denied"


def test_only_after_a_category_restricts_what_follows_not_membership():
    # the glossary lists the regulated pumps; 'only' speaks of the maintenance window, which no
    # check reads: the rule is not read as an allow-list of regulated pumps
    glossary = Glossary.of({"regulated pumps": ["P-1", "P-2"]})
    rule = "Restarts of regulated pumps only during a maintenance window."
    compiled = compile_rule(0, "c:r0", rule, glossary)
    assert compiled.understanding != "understood"
    assert not any(getattr(c, "mode", "") == "allow" for c in compiled.checks)
    # 'only' before the category still makes the allow-list
    listed = compile_rule(0, "c:r0", "Restarts are allowed only for regulated pumps.", glossary)
    assert [c.values for c in listed.checks] == [("P-1", "P-2")]


def test_a_scope_sentence_of_the_description_is_no_rule():
    cp = compile_policy(_pv("Overseas only: applies when the carrier is foreign.", ["x must y."]))
    assert not any(r.from_description for r in cp.rules)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"patient": "P-1", "lot_number": "L-9"}, "approved"),
        ({"patient": "P-1"}, "denied"),
    ],
)
def test_no_dot_after_a_noun_is_a_number_never_a_negation(args, expected):
    rule = "Each vaccination record must include the lot no."
    compiled = compile_rule(0, "c:r0", rule)
    (check,) = compiled.checks
    assert isinstance(check, RequiredArgument)  # before: a deny-list holding 'no.'
    assert outcome(rule, "record_vaccination", args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "No withdrawal may exceed the available cash balance.",
        "A withdrawal can't exceed the available cash balance.",
    ],
)
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"amount": 300, "currency": "EUR", "available_cash_balance": 500}, "approved"),
        ({"amount": 500, "currency": "EUR", "available_cash_balance": 500}, "approved"),
        ({"amount": 501, "currency": "EUR", "available_cash_balance": 500}, "denied"),
    ],
)
def test_a_negated_subject_or_a_contraction_compares_two_arguments(rule, args, expected):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.kind == "argument_comparison" and check.op == "gt"
    assert check.reading().startswith("Deny when withdrawal is above available cash balance")
    assert outcome(rule, "make_withdrawal", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"route": "R-1", "cabin": "premium", "flight_hours": 9}, "approved"),
        ({"route": "R-1", "cabin": "premium", "flight_hours": 6}, "denied"),  # 'over' is exclusive
        ({"route": "R-1", "cabin": "premium", "flight_hours": 4}, "denied"),
        ({"route": "R-1", "cabin": "premium"}, "pending_review"),
    ],
)
def test_a_prohibition_unless_a_measure_passes_a_bound(args, expected):
    rule = "Premium cabin not permitted unless the flight time is over 6 hours."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.reading() == (
        "When the duration is at or below 6 hours: Deny requests about premium cabin"
    )
    assert outcome(rule, "book_cabin", args) == expected


@pytest.mark.parametrize("word", ["OK", "okay", "go-ahead", "green light"])
def test_an_informal_approval_asks_for_review_never_permits(word):
    rule = f"Discounts above 30% need the regional manager's {word}."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.effect == "review" and check.op == "gt" and check.threshold == 30
    assert outcome(rule, "apply_discount", {"order": "O-1", "discount_pct": 35}) == (
        "pending_review"
    )


def test_deeper_than_is_more_than():
    (check,) = compile_rule(0, "c:r0", "Price cuts may not be deeper than 25%.").checks
    assert check.op == "gt" and check.threshold == 25


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"policy_id": "P-1", "policy_status": "Active", "reason_code": "R1"}, "approved"),
        ({"policy_id": "P-1", "policy_status": "Lapsed", "reason_code": "R1"}, "denied"),
        # no status sent: a person decides
        ({"policy_id": "P-1", "reason_code": "R1"}, "pending_review"),
    ],
)
def test_whose_status_is_a_state_read_from_the_status_argument(args, expected):
    rules = [
        "No claim payment on a policy whose status is Lapsed.",
        "Claim payments must cite a reason code.",
    ]
    first = compile_rule(0, "c:r0", rules[0])
    assert first.understanding == "understood", first.unaccounted
    assert _judge("", rules, "pay_claim", args) == expected


def test_a_state_word_sharing_a_verbs_stem_is_not_an_action():
    # 'Suspended' is the status, not the verb 'suspend': a disbursement (another verb) of a
    # student in good standing is not forbidden, one of a suspended student is
    rules = ["No refund to a member whose account status is Suspended.", "Refunds must cite a ref."]
    args = {"member": "M-1", "account_status": "Good Standing", "ref": "R-1"}
    assert _judge("", rules, "issue_refund", args) == "approved"
    args["account_status"] = "Suspended"
    assert _judge("", rules, "issue_refund", args) == "denied"


@pytest.mark.parametrize("word", ["confirmation", "concurrence"])
def test_confirmation_by_a_person_is_an_approval(word):
    rule = f"Transfers over 5,000 EUR need treasury {word}."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.effect == "review" and check.threshold == 5000
    # a document named with the word is not an approval: 'a confirmation number'
    (required,) = compile_rule(0, "c:r0", "Bookings need a confirmation number.").checks
    assert isinstance(required, RequiredArgument)


def test_a_one_letter_class_name_is_a_content_word():
    # 'Class B' names which vehicles: a check that ignores the letter would govern every class
    compiled = compile_rule(0, "c:r0", "Rentals of Class B vehicles need branch manager approval.")
    assert "B" in compiled.unaccounted
    assert compiled.understanding == "partly_understood"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"report": "r.pdf", "channel": "Courier"}, "approved"),
        ({"report": "r.pdf", "delivery_method": "SecureMail"}, "approved"),
        # the subject's argument (`report`) is not the means: never compared with the list
        ({"report": "r.pdf", "channel": "fax"}, "denied"),
        ({"report": "r.pdf"}, "pending_review"),
    ],
)
def test_a_means_listed_before_a_closing_only_is_an_allow_list(args, expected):
    rule = "Lab reports via Courier or SecureMail only."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.mode == "allow" and check.values == ("Courier", "SecureMail")
    assert check.reading().startswith("Deny unless `via` is Courier or SecureMail")
    assert outcome(rule, "send_lab_report", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"parcel": "P-1", "shipment_scope": "domestic"}, "approved"),
        ({"parcel": "P-1", "shipment_scope": "international"}, "denied"),
        ({"parcel": "P-1"}, "pending_review"),
    ],
)
def test_domestic_rules_out_international(args, expected):
    rules = ["International shipments must include a customs form ID.", "Parcels must cite a ref."]
    args = {**args, "ref": "R-1"}
    assert _judge("", rules, "ship_parcel", args) == expected


@pytest.mark.parametrize(
    "rule",
    [
        "Purchases from suppliers not previously paid need board review.",
        "Purchases from a supplier we haven't paid before need board review.",
    ],
)
def test_a_counterparty_not_paid_before_is_read_from_history(rule):
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.kind == "first_time_counterparty"
    # the board reviews; it is not the counterparty
    assert "board" not in check.counterparty_words
    pv = _pv("", [rule])
    args = {"supplier": "Helping Hands", "amount": 100}
    seen = StaticHistory(seen={"supplier": ["Helping Hands"]})
    v = evaluate(ClearanceQuery("create_purchase", args, "agent"), [pv], seen)
    assert v.decision == "allow"
    v = evaluate(ClearanceQuery("create_purchase", args, "agent"), [pv], StaticHistory())
    assert v.decision == "review"


def test_a_station_is_not_a_state():
    # `station` once stemmed like 'state': read as the state 'on the embargo list' that did not
    # hold, it excepted an embargoed station from its own prohibition
    rule = "Refuelling at stations on the watch list (AAA, BBB) is prohibited."
    args = {"station": "BBB", "litres": 100}
    assert outcome(rule, "order_refuelling", args) != "approved"
    assert stem("station") != stem("state")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"port": "PX2", "cargo": "grain"}, "denied"),
        ({"port": "PX9", "cargo": "grain"}, "approved"),
    ],
)
def test_a_register_written_out_in_brackets_is_the_list(args, expected):
    rule = "Calls at ports on the sanctions watch list (PX1, PX2, PX3) are prohibited."
    rule = rule.replace("sanctions watch", "harbour watch")
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.kind == "value_list" and check.values == ("PX1", "PX2", "PX3")
    assert outcome(rule, "schedule_port_call", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"account_id": "A-1", "account_status": "open", "memo": "m"}, "approved"),
        ({"account_id": "A-1", "account_status": "Frozen", "memo": "m"}, "denied"),
        ({"account_id": "A-1", "memo": "m"}, "pending_review"),
    ],
)
def test_one_state_before_a_status_noun_is_read_from_the_status(args, expected):
    rules = [
        "Transfers must not be issued to accounts in Frozen status.",
        "Transfers must include a memo.",
    ]
    first = compile_rule(0, "c:r0", rules[0])
    assert first.understanding == "understood", first.unaccounted  # never an open class
    assert _judge("", rules, "issue_transfer", args) == expected


@pytest.mark.parametrize(
    ("email", "expected"),
    [
        ("buyer@northwind.com", "approved"),  # a partner: nothing to review
        ("buyer@elsewhere.org", "pending_review"),
    ],
)
def test_other_than_a_category_is_what_lies_outside_it(email, expected):
    glossary = {"partner domains": ["northwind.com", "contoso.com"]}
    rule = "Quotes sent to domains other than partner domains need sales director approval."
    compiled = compile_rule(0, "c:r0", rule, Glossary.of(glossary))
    (check,) = compiled.checks
    assert check.mode == "allow" and check.effect == "review"
    pv = _pv("", [rule])
    args = {"quote_id": "Q-1", "recipient_email": email}
    v = evaluate(
        ClearanceQuery("send_quote", args, "agent"), [pv], StaticHistory(), glossary=glossary
    )
    got = "approved" if v.decision == "allow" and v.confidence >= 0.8 else "pending_review"
    assert got == expected


def test_a_noun_in_er_names_the_tools_act():
    # 'waivers' on waive_fee: the act's noun in -er is the tool's own verb
    rule = "Total waivers per day must not exceed USD 1,000."
    args = {"amount": 50, "currency": "USD", "fee_code": "LATE"}
    pv = _pv("", [rule])
    history = StaticHistory(total_today={"amount": 990})
    v = evaluate(ClearanceQuery("waive_fee", args, "agent"), [pv], history)
    assert v.decision == "deny"  # 990 + 50 is above the cap, and the rule speaks of this tool
    view_free = evaluate(ClearanceQuery("waive_fee", args, "agent"), [pv], StaticHistory())
    assert view_free.decision == "allow"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"line": "pkg-line-2", "recipe": "R-1"}, "denied"),
        ({"line": "pkg-line-7", "recipe": "R-1"}, "approved"),
    ],
)
def test_names_before_a_freeze_are_a_deny_list(args, expected):
    rule = "pkg-line-1 / pkg-line-2: code freeze in effect (audit week)."
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted
    (check,) = compiled.checks
    assert check.reading() == "Deny when an argument is pkg-line-1 or pkg-line-2"
    rules = [rule, "Recipe loads must cite a recipe ID."]
    assert _judge("", rules, "load_recipe", args) == expected


def test_prose_before_a_freeze_colon_is_no_name():
    assert not compile_rule(0, "c:r0", "Note: freeze in effect.").checks
