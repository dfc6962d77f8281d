"""Rules whose condition the request clearly does not meet (helper jsat, eighth session).

A place group ('outside the EEA'), a kind named by an argument ('Involuntary …' against a type
'voluntary'), the same value on both sides of 'a change to a different country', paths outside
the named folders, a ratio of two named arguments, a reference under a recognisable name, an
obligation met by the argument it names in brackets: each takes the rule out of reach or meets
it, so the other rules can approve. The near-misses (a list with one member inside the group, a
nested value, a case difference, a value close to the group, a contradicting argument) must
never approve.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.judge_support import outcome_beside_ticket
from webapp.judge.gates import out_of_reach
from webapp.judge.history import StaticHistory
from webapp.judge.request_view import RequestView

EEA_SMS = "SMS sends to countries outside the EEA require Legal sign-off (legal_signoff_ref)."
NON_EEA = "Data transfers to non-EEA countries require a transfer impact assessment."
INVOL = "Involuntary separations need Employee Relations sign-off."
MOVE = "Shipping address changes to a different country need fraud review."
FOLDERS = "No external sharing of anything under /Legal or /Board."
RAISE = "Price increases of more than 8% over the current price need pricing-committee approval."
EITHER = "Every purchase must reference a contract or PO number."
NAMED = "Refunds to a card other than the original need a fraud check reference (fraud_check_id)."
MAIL = "Never send reports to personal email accounts."
LOCATIONS = "Export destination must be one of: s3://acme-exports, sftp.partner-hub.net"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "expected"),
    [
        # place groups
        (EEA_SMS, "sms.campaign.send", {"destination_countries": ["NO", "IE"]}, "approved"),
        (EEA_SMS, "sms.campaign.send", {"destination_countries": ["NO", "US"]}, "pending_review"),
        (EEA_SMS, "sms.campaign.send", {"destination_countries": ["CH"]}, "pending_review"),
        (EEA_SMS, "sms.campaign.send", {"destination_countries": ["Europe"]}, "pending_review"),
        (NON_EEA, "data.transfer", {"target_countries": ["DE", "NO"]}, "approved"),
        (NON_EEA, "data.transfer", {"target_countries": ["GB"]}, "pending_review"),
        (
            NON_EEA,
            "data.transfer",
            {"target_countries": ["DE"], "vendor": {"country": "US"}},
            "pending_review",
        ),
        # a kind named by an argument of its kind
        (INVOL, "hr.separation.create", {"separation_type": "voluntary"}, "approved"),
        (INVOL, "hr.separation.create", {"separation_type": "INVOLUNTARY"}, "pending_review"),
        (
            INVOL,
            "hr.separation.create",
            {"separation_type": "voluntary", "involuntary": True},
            "pending_review",
        ),
        (INVOL, "hr.separation.create", {"separation_type": "mutual"}, "pending_review"),
        # the same value on both sides of a change
        (
            MOVE,
            "orders.update_shipping_address",
            {"old_address": {"country": "FR"}, "new_address": {"country": "FR"}},
            "approved",
        ),
        (
            MOVE,
            "orders.update_shipping_address",
            {"old_address": {"country": "FR"}, "new_address": {"country": "BE"}},
            "pending_review",
        ),
        (
            MOVE,
            "orders.update_shipping_address",
            {"new_address": {"country": "FR"}},
            "pending_review",
        ),
        (
            MOVE,
            "orders.update_shipping_address",
            {
                "old_address": {"country": "FR"},
                "new_address": {"country": "FR"},
                "billing": {"country": "DE"},
            },
            "pending_review",
        ),
        # folders
        (FOLDERS, "drive.share", {"path": "/Sales/deck.pptx", "external": True}, "approved"),
        (FOLDERS, "drive.share", {"path": "/legal/nda.pdf", "external": True}, "pending_review"),
        (
            FOLDERS,
            "drive.share",
            {"path": "/Shared/Board/x.pdf", "external": True},
            "pending_review",
        ),
        (
            FOLDERS,
            "drive.share",
            {"path": "/Sales/x.pdf", "source": "/Board/y.pdf", "external": True},
            "pending_review",
        ),
        (FOLDERS, "drive.share", {"file_id": "f1", "external": True}, "pending_review"),
        (FOLDERS, "drive.share", {"path": "/Legal-old/x.pdf", "external": True}, "pending_review"),
        (FOLDERS, "drive.share", {"path": "/Boardroom/x.pdf", "external": True}, "approved"),
        (
            "No public links ('anyone with the link') on anything under /HR or /Finance.",
            "drive.create_link",
            {"path": "/Marketing/kit.zip", "access": "anyone_with_link"},
            "approved",
        ),
        (
            "No public links ('anyone with the link') on anything under /HR or /Finance.",
            "drive.create_link",
            {"path": "/Finance/q3.xlsx", "access": "anyone_with_link"},
            "pending_review",
        ),
        (
            "No public links ('anyone with the link' or 'domain') on anything under /HR.",
            "drive.create_link",
            {"path": "/Marketing/kit.zip", "access": "anyone_with_link"},
            "pending_review",
        ),
        # ratio of two named arguments
        (RAISE, "pricing.update", {"current_price": 100, "new_price": 105}, "approved"),
        (RAISE, "pricing.update", {"current_price": 100, "new_price": 108}, "approved"),
        (RAISE, "pricing.update", {"current_price": 100, "new_price": 108.01}, "pending_review"),
        (RAISE, "pricing.update", {"new_price": 105}, "pending_review"),
        # a reference under a recognisable name
        (EITHER, "procurement.purchase", {"po_ref": "PO-1"}, "approved"),
        (EITHER, "procurement.purchase", {"invoice_ref": "INV-1"}, "pending_review"),
        (EITHER, "procurement.purchase", {"po_date": "2025-01-01"}, "pending_review"),
        (EITHER, "procurement.purchase", {"contract_no": "N/A"}, "pending_review"),
        # an obligation met by the argument it names
        (NAMED, "refunds.issue", {"amount": 5, "fraud_check_id": "FC-1"}, "approved"),
        (NAMED, "refunds.issue", {"amount": 5, "fraud_check_id": "pending"}, "pending_review"),
        (NAMED, "refunds.issue", {"amount": 5, "fraud_check_id": "TBD"}, "pending_review"),
        (
            "Refunds to a card we have not seen need two fraud checks (fraud_check_id).",
            "refunds.issue",
            {"amount": 5, "fraud_check_id": "FC-1"},
            "pending_review",
        ),
        (
            "Receiving scheme must be registered (registered = true).",
            "pensions.transfers.initiate",
            {"scheme": "S-1", "registered": True},
            "approved",
        ),
        (
            "Receiving scheme must be registered (registered = true).",
            "pensions.transfers.initiate",
            {"scheme": "S-1", "registered": "yes"},
            "pending_review",
        ),
        (
            "Orders require an account in good standing (account_status = active).",
            "wholesale.orders.create",
            {"account_status": "Active-pending"},
            "pending_review",
        ),
        (
            "A signed nomination form reference (form_ref) is required for every change.",
            "pensions.beneficiaries.update",
            {"member_id": "M-1", "form_ref": "NOM-1"},
            "approved",
        ),
        (
            "A signed nomination form reference (form_ref) is required for every change.",
            "pensions.beneficiaries.update",
            {"member_id": "M-1", "form_reference": "NOM-1"},
            "pending_review",
        ),
        # a target that is no email address
        (MAIL, "reports.send", {"destination": "slack:#finance"}, "approved"),
        (MAIL, "reports.send", {"destination": "slack", "cc": "a@gmail.com"}, "denied"),
        (MAIL, "reports.send", {"destination": "slack", "notify": "a@x.io"}, "pending_review"),
        # locations
        (LOCATIONS, "exports.create", {"destination": "s3://acme-exports"}, "approved"),
        (LOCATIONS, "exports.create", {"destination": "s3://acme-exports/q3"}, "approved"),
        (
            LOCATIONS,
            "exports.create",
            {"destination": "sftp://sftp.partner-hub.net/in"},
            "approved",
        ),
        (
            LOCATIONS,
            "exports.create",
            {"destination": "s3://acme-exports-old"},
            "pending_review",
        ),
    ],
)
def test_condition_clearly_false_or_met(rule: str, tool: str, args: dict, expected: str) -> None:
    got = outcome_beside_ticket(rule, tool, args)
    if expected == "approved":
        assert got == "approved", (rule, args)
    else:
        assert got != "approved", (rule, args)
        if expected == "denied":
            assert got == "denied", (rule, args)


def test_a_review_from_a_check_that_read_an_amount_is_kept() -> None:
    # the check read total_amount_usd as well; the gate's amount alone must not set it aside
    got = outcome_beside_ticket(
        "Transfers above 1,000 USD require a second approver.",
        "bank.transfer",
        {"amount_usd": 500, "total_amount_usd": 1500},
    )
    assert got != "approved"


def test_a_named_argument_is_not_met_by_another_obligations_words() -> None:
    got = outcome_beside_ticket(
        "Every termination must carry an HR case number (hr_case_id) and the last working day.",
        "hr.employee.terminate",
        {"last_working_day": "2025-06-30"},
    )
    assert got != "approved"


def _view(args: dict) -> RequestView:
    # a plain send: a campaign tool shows "promotional" (marketing), which the property inserts
    return RequestView("sms.send", args, "agent", StaticHistory.from_dict(None))


_INSIDE = {"destination_countries": ["NO", "IE"], "legal_signoff_ref": ""}


@given(
    word=st.sampled_from(
        ["or", "and", "any", "promotional", "including", "all", "non-urgent", "daily", "per"]
    ),
    at=st.integers(min_value=0, max_value=5),
)
def test_an_inserted_word_keeps_a_region_gate_in_reach(word: str, at: int) -> None:
    """The gate of 'SMS sends to countries outside the EEA' is read in full; a word inserted in
    it (a widening connector, an unread qualifier, a measure changer) leaves the rule in reach."""
    assert out_of_reach(EEA_SMS, _view(_INSIDE), None) is not None
    gate = "SMS sends to countries outside the EEA".split()
    i = min(at, len(gate))
    widened = (
        " ".join(gate[:i] + [word] + gate[i:])
        + EEA_SMS[len("SMS sends to countries outside the EEA") :]
    )
    assert out_of_reach(widened, _view(_INSIDE), None) is None, widened


@given(member=st.sampled_from(["US", "CH", "GB", "PR", "Europe", "eu", "", "N/A"]))
def test_one_member_outside_the_group_keeps_it_in_reach(member: str) -> None:
    args = {"destination_countries": ["NO", member, "IE"]}
    assert out_of_reach(EEA_SMS, _view(args), None) is None


_OBLIGED = "Wires to a beneficiary account we have not paid before require callback verification"


@given(
    extra=st.sampled_from(
        [
            " and a second approver",
            " or a lead",
            " from two officers",
            " within 2 days",
            " before release",
            ", plus a ticket",
        ]
    )
)
def test_a_second_demand_keeps_a_named_obligation_unmet(extra: str) -> None:
    """'… require callback verification (callback_ref)' is met by callback_ref; anything that
    asks for more beside it (another party, a count, a time) keeps the rule relevant."""
    from webapp.judge.gates import obligations_met

    args = {"amount": 10, "callback_ref": "CB-1"}
    view = RequestView("treasury.wire.create", args, "agent", StaticHistory.from_dict(None))
    assert obligations_met(f"{_OBLIGED} (callback_ref).", view) is not None
    assert obligations_met(f"{_OBLIGED}{extra} (callback_ref).", view) is None
    assert obligations_met(f"{_OBLIGED} (callback_ref){extra}.", view) is None
