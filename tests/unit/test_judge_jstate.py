"""Eighth session, helper jstate: states of a thing the request carries, and holds on a named value.

Each rule is judged beside a satisfied ticket rule (judge_support), so a rule the engine misreads
or passes by shows as an approval. The near-misses (a state spelled otherwise, a named value only
in free text, a second condition, a name one letter off, another value of the series) must never
approve where a human would deny or look.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import assert_never_decides, outcome_beside_ticket
from webapp.judge.compiler import compile_rule

HOLD_CUSTOMER = "All refunds to customer C-55012 are on hold pending a fraud investigation."
HOLD_STORE = "Store #0412: all dispensing suspended pending DEA audit."
HOLD_STORE_CATEGORY = "Store #0388: controlled substances suspended."
HOLD_CHANNEL = "Takedowns against channel UC-partner-7781 are on hold (partner dispute)."
HOLD_VENDOR = "Payments to Initech are suspended until 30 June pending a contract dispute."
HOLD_DEPARTMENT = "Hiring in the Research department is frozen."
HOLD_ACCOUNT = "Withdrawals from account ACC-7781 are on hold (court order)."
QUARANTINED_LOT = "Lot 7H22K is quarantined. Do not dispense from it."
WHOSE_STATES = "No POs to vendors whose status is blocked or suspended."
WHOSE_KYC = "No loan disbursements to borrowers whose KYC status is pending or failed."
HAVING = "Never archive projects that have open invoices."
WITH_STATE = "Subscriptions with unpaid invoices must not be upgraded."
EXCEPT_SERVICES = (
    "Bots can restart any service except payments-core, auth-gateway and ledger-writer."
)
EXCEPT_GROUPS = (
    "Agents may add users to groups, except Domain Admins, Enterprise Admins and Schema Admins, "
    "which agents must never touch."
)
EXCEPT_PLANS = "Support may issue goodwill credits to any plan, except the Enterprise Plus and Gov Cloud plans."
CREDIT_HOLD = "Accounts on credit hold: no new orders, no exceptions."
FREEZE_TAIL = (
    "Change freeze on workspace fin-ops (SOX audit): no membership or role changes until the "
    "audit closes."
)


@pytest.mark.parametrize(
    "rule",
    [
        HOLD_CUSTOMER,
        HOLD_STORE,
        HOLD_CHANNEL,
        HOLD_VENDOR,
        HOLD_DEPARTMENT,
        HOLD_ACCOUNT,
        QUARANTINED_LOT,
        WHOSE_STATES,
        WHOSE_KYC,
        HAVING,
        WITH_STATE,
        EXCEPT_SERVICES,
        EXCEPT_GROUPS,
        EXCEPT_PLANS,
        CREDIT_HOLD,
        FREEZE_TAIL,
    ],
)
def test_the_constructs_are_understood(rule):
    # every word accounted for: the reason ('pending …', '(…)'), the lifetime ('until …'), the
    # emphasis ('no exceptions') and the restatement ('which agents must never touch')
    compiled = compile_rule(0, "c:r0", rule)
    assert compiled.understanding == "understood", compiled.unaccounted


# --- holds on a named value ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"customer_id": "C-55012", "amount": 40, "currency": "USD"}, "denied"),
        ({"customer_id": "c-55012", "amount": 40, "currency": "USD"}, "denied"),
        # another identifier of the series (a digit for a digit) is another customer
        ({"customer_id": "C-55013", "amount": 40, "currency": "USD"}, "approved"),
        ({"customer_id": "C-61877", "amount": 40, "currency": "USD"}, "approved"),
        # the held id only inside free text, no customer argument: a human reads it
        (
            {"amount": 40, "currency": "USD", "note": "customer C-55012 asked again"},
            "pending_review",
        ),
        # the customer cannot be found among the arguments
        ({"amount": 40, "currency": "USD"}, "pending_review"),
    ],
)
def test_a_hold_on_a_named_customer(args, expected):
    assert outcome_beside_ticket(HOLD_CUSTOMER, "refunds.issue", args) == expected


def test_a_hold_reads_the_value_on_the_argument_named_for_its_kind():
    assert outcome_beside_ticket(HOLD_STORE, "pharmacy.dispense", {"store_id": "0412"}) == "denied"
    assert outcome_beside_ticket(HOLD_STORE, "pharmacy.dispense", {"store_id": "0217"}) == (
        "approved"
    )
    target = {"target": {"channel_id": "UC-partner-7781", "video_ids": ["a1"]}}
    assert outcome_beside_ticket(HOLD_CHANNEL, "media.takedowns.send", target) == "denied"


def test_a_hold_stops_its_act_only():
    deposit = {"account": "ACC-7781", "amount": 100, "currency": "EUR"}
    assert outcome_beside_ticket(HOLD_ACCOUNT, "bank.withdraw", deposit) == "denied"
    assert outcome_beside_ticket(HOLD_ACCOUNT, "bank.deposit", deposit) != "denied"


def test_a_hold_with_a_date_limit_still_holds():
    args = {"vendor_name": "Initech", "amount": 900, "currency": "USD"}
    assert outcome_beside_ticket(HOLD_VENDOR, "ap.payments.create", args) == "denied"
    # no kind written: another vendor is not shown to be outside the hold
    other = {"vendor_name": "Umbrella Corp", "amount": 900, "currency": "USD"}
    assert outcome_beside_ticket(HOLD_VENDOR, "ap.payments.create", other) != "denied"


def test_a_hold_on_a_department():
    tool = "hr.hire.create"
    assert outcome_beside_ticket(HOLD_DEPARTMENT, tool, {"department": "Research"}) == "denied"
    assert outcome_beside_ticket(HOLD_DEPARTMENT, tool, {"department": "Support"}) == "approved"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"store_id": "0398", "schedule": "II"}, "approved"),  # another store: out of reach
        ({"store_id": "0388", "schedule": "II"}, "pending_review"),  # the held store
        ({"store_id": "0388-B", "schedule": "II"}, "pending_review"),  # the held one, suffixed
        ({"store_id": "0389", "note": "moved from 0388"}, "pending_review"),  # named elsewhere
    ],
)
def test_a_partly_read_hold_does_not_reach_another_value_of_its_kind(args, expected):
    assert outcome_beside_ticket(HOLD_STORE_CATEGORY, "pharmacy.dispense", args) == expected


def test_a_quarantined_lot_is_refused_in_a_list_and_only_there():
    tool = "pharmacy.dispense"
    assert outcome_beside_ticket(QUARANTINED_LOT, tool, {"lot_numbers": ["7H21A"]}) == "approved"
    both = {"lot_numbers": ["7H21A", "7H22K"]}
    assert outcome_beside_ticket(QUARANTINED_LOT, tool, both) == "denied"


def test_a_restated_freeze_with_its_lifetime():
    args = {"workspace": "fin-ops", "user_email": "a@corp.example"}
    assert outcome_beside_ticket(FREEZE_TAIL, "workspaces.add_member", args) == "denied"
    other = {"workspace": "design", "user_email": "a@corp.example"}
    assert outcome_beside_ticket(FREEZE_TAIL, "workspaces.add_member", other) == "approved"


# --- states of the subject -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("suspended", "denied"),
        ("Suspended", "denied"),
        ("SUSPENDED", "denied"),
        ("blocked", "denied"),
        ("active", "approved"),
        (True, "pending_review"),  # a yes/no on a status says nothing of which state
    ],
)
def test_whose_status_is_one_of_several_states(status, expected):
    args = {"vendor_id": "V-1", "vendor_status": status, "amount": 900, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_STATES, "procurement.po.create", args) == expected


@pytest.mark.parametrize("status", ["suspension_pending", "blockage", "under_suspension"])
def test_a_state_spelled_otherwise_never_approves(status):
    # a word of the state's family, or close to it, is the state or a human reads it
    args = {"vendor_id": "V-1", "vendor_status": status, "amount": 900, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_STATES, "procurement.po.create", args) != "approved"


def test_whose_state_with_no_status_sent_is_review():
    args = {"vendor_id": "V-1", "amount": 900, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_STATES, "procurement.po.create", args) == "pending_review"


def test_whose_state_reads_the_status_of_the_thing_named():
    args = {"kyc_status": "passed", "account_status": "pending", "amount": 10, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_KYC, "loans.disburse", args) == "approved"
    failed = {"kyc_status": "failed", "account_status": "active", "amount": 10, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_KYC, "loans.disburse", failed) == "denied"


@pytest.mark.parametrize(
    ("rule", "args"),
    [
        (
            "Vendors whose status is on_hold or blocked can't be paid if the invoice is over "
            "1,000 EUR.",
            {"vendor_status": "blocked", "amount": 4000, "currency": "EUR"},
        ),
        (
            "Don't dispatch drivers whose licence status is suspended or whose vehicle "
            "inspection is overdue.",
            {"licence_status": "valid", "inspection_status": "overdue"},
        ),
    ],
)
def test_a_second_condition_beside_the_state_never_approves(rule, args):
    assert compile_rule(0, "c:r0", rule).understanding == "partly_understood"
    tool = "fleet.dispatch" if "drivers" in rule else "ap.payments.create"
    assert outcome_beside_ticket(rule, tool, args) != "approved"


@pytest.mark.parametrize(
    ("open_invoices", "expected"),
    [(3, "denied"), (0, "approved"), ([], "approved"), (["INV-1"], "denied")],
)
def test_things_in_a_state_the_subject_has(open_invoices, expected):
    args = {"project_id": "PR-1", "open_invoices": open_invoices}
    assert outcome_beside_ticket(HAVING, "projects.archive", args) == expected


def test_things_in_a_state_not_sent_is_review():
    assert outcome_beside_ticket(HAVING, "projects.archive", {"project_id": "PR-1"}) == (
        "pending_review"
    )


def test_on_credit_hold_with_emphasis():
    tool = "orders.create"
    held = {"account_status": "credit_hold", "total": 300}
    assert outcome_beside_ticket(CREDIT_HOLD, tool, held) == "denied"
    fine = {"account_status": "good_standing", "total": 300}
    assert outcome_beside_ticket(CREDIT_HOLD, tool, fine) == "approved"


# --- except-lists ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ("search-api", "approved"),
        ("auth-gateway", "denied"),
        ("ledger-writr", "pending_review"),  # one letter from a listed name
        ("Ledger-Writer", "denied"),
    ],
)
def test_a_permission_except_named_services(service, expected):
    assert outcome_beside_ticket(EXCEPT_SERVICES, "ops.service.restart", {"service": service}) == (
        expected
    )


def test_never_touch_restates_the_exception_for_every_act():
    add = {"group": "Finance-ReadOnly", "user": "m.ortiz"}
    assert outcome_beside_ticket(EXCEPT_GROUPS, "iam.group.add_member", add) == "approved"
    removal = {"group": "Domain Admins", "user": "m.ortiz"}
    assert outcome_beside_ticket(EXCEPT_GROUPS, "iam.group.remove_member", removal) == "denied"
    slip = {"group": "Domain Admin", "user": "m.ortiz"}
    assert outcome_beside_ticket(EXCEPT_GROUPS, "iam.group.add_member", slip) == "pending_review"


def test_multiword_names_of_an_except_list():
    tool = "billing.credit"
    base = {"amount": 20, "currency": "USD"}
    assert outcome_beside_ticket(EXCEPT_PLANS, tool, {**base, "plan": "Gov Cloud"}) == "denied"
    assert outcome_beside_ticket(EXCEPT_PLANS, tool, {**base, "plan": "gov_cloud"}) == "denied"
    assert outcome_beside_ticket(EXCEPT_PLANS, tool, {**base, "plan": "Team"}) == "approved"
    assert outcome_beside_ticket(EXCEPT_PLANS, tool, base) == "pending_review"


def test_readings_name_the_value_and_its_argument():
    (hold,) = compile_rule(0, "c:r0", HOLD_CUSTOMER).checks
    assert hold.reading() == "Deny when `customer` is C-55012 (about: refunds)"
    (state,) = compile_rule(0, "c:r0", WHOSE_STATES).checks
    assert "when their status is blocked or suspended" in state.reading()


# --- property: an inserted condition is never swallowed ---------------------------------------

_BASES = (
    "All refunds to customer C-55012 are on hold{q}.",
    "Store #0412: all dispensing suspended{q}.",
    "Takedowns against channel UC-partner-7781 are on hold{q}.",
    "Payments to Initech are suspended{q}.",
    "Hiring in the Research department is frozen{q}.",
    "No POs to vendors whose status is blocked or suspended{q}.",
    "Never archive projects that have open invoices{q}.",
    "Agents may add users to any group except Domain Admins and Schema Admins{q}.",
    "Lot 7H22K is quarantined{q}.",
)
_INSERTED = (
    " for privileged vendors",
    " unless a manager agrees",
    " except for reverts",
    " and the payee is new",
    " or the region is EU",
    " outside business hours",
    " without a signed waiver",
)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_BASES), st.sampled_from(_INSERTED))
def test_an_inserted_condition_leaves_the_rule_partly_understood(base, inserted):
    assert compile_rule(0, "c:r0", base.format(q="")).understanding == "understood"
    assert_never_decides(base.format(q=inserted))


def test_lower_case_names_of_an_except_list():
    rule = "Bots may delete any branch except main, release and hotfix."
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    assert outcome_beside_ticket(rule, "git.branch.delete", {"branch": "main"}) == "denied"
    assert outcome_beside_ticket(rule, "git.branch.delete", {"branch": "Main"}) == "denied"
    assert outcome_beside_ticket(rule, "git.branch.delete", {"branch": "feature-x"}) == "approved"
    # one lower-case word alone is no list of names: kept as text
    single = "Bots can restart any service except billing."
    assert not compile_rule(0, "c:r0", single).decides


def test_a_subject_whose_state_comes_first():
    rule = "Customers whose account status is frozen or closed can't be sent marketing emails."
    tool = "marketing.email.send"
    assert outcome_beside_ticket(rule, tool, {"account_status": "frozen"}) == "denied"
    assert outcome_beside_ticket(rule, tool, {"account_status": "open"}) == "approved"


def test_a_quoted_name_under_a_legal_hold_restated_for_some_acts():
    rule = (
        "Legal hold: the 'Project Falcon' drive is frozen. No sharing, moving or deleting "
        "anything in it."
    )
    assert compile_rule(0, "c:r0", rule).understanding == "understood"
    move = {"drive": "Project Falcon", "file_id": "f_1", "destination_folder": "Archive"}
    assert outcome_beside_ticket(rule, "drive.move_file", move) == "denied"
    other = {"drive": "Marketing", "file_id": "f_2", "destination_folder": "Archive"}
    assert outcome_beside_ticket(rule, "drive.move_file", other) == "approved"
    # an unknown label before the colon is not read as the hold's name
    assert not compile_rule(0, "c:r0", "Falcon notes: the 'Falcon' drive is frozen.").decides


@pytest.mark.parametrize(
    "args",
    [
        {"customer_email": "x@y.com"},  # the customer named another way
        {"customer_name": "Ann Lee"},
        {"customer_id": "C55012"},  # the held id with other separators
        {"customer_ids": "C-1, C-55012"},  # inside a longer value
    ],
)
def test_a_hold_is_never_passed_by_a_value_that_cannot_be_compared(args):
    assert outcome_beside_ticket(HOLD_CUSTOMER, "refunds.issue", {**args, "amount": 5}) != (
        "approved"
    )


def test_counts_and_codes_written_as_text():
    assert outcome_beside_ticket(HAVING, "projects.archive", {"open_invoices": "3"}) == "denied"
    assert outcome_beside_ticket(HAVING, "projects.archive", {"open_invoices": "0"}) == "approved"
    coded = {"vendor_status": "3", "amount": 5, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_STATES, "procurement.po.create", coded) == "pending_review"


@pytest.mark.parametrize(
    "status", ["pre_suspended", "not_blocked", "blocked_until_review", "pre-blocked"]
)
def test_a_state_with_a_word_added_is_review(status):
    # close to a state without being it (the lead's 'pre_collections' shape): a human decides
    args = {"vendor_status": status, "amount": 5, "currency": "USD"}
    assert outcome_beside_ticket(WHOSE_STATES, "procurement.po.create", args) == "pending_review"
