"""Red team jred4 (eighth session): list readings labelled "understood" that misread the rule, so
that a request the rule forbids was approved beside a satisfied rule. Each test is a class of
misreading, closed by reading the construct (or leaving the rule partly understood):

- a chain 'closed, frozen or dormant' read as the pair of its ends, its middle item a word every
  request had to show;
- a literal listed with others ('gmail.com or yahoo.com domains') read alone;
- one capitalised abbreviation in brackets ('card numbers (PAN)', 'restricted (VIP) status')
  read as the value of an argument named by the words before it;
- a capitalised word joined to a plain word ('VIP-tier customers') read as a name;
- a literal with a state said of it ('vendors with W-9 missing') read as a value to hold;
- a listed name met in another form ('tractor-trailer' for 'tractor-trailers') read as outside.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.judge_support import (
    CATEGORY_QUALIFIERS,
    assert_never_decides,
    outcome_beside_ticket,
)
from webapp.judge.compiler import compile_rule

# -- chains of states: every item is one alternative

_STATES = ["closed", "frozen", "dormant", "locked", "suspended", "banned", "delinquent", "inactive"]


@pytest.mark.parametrize("status", ["closed", "frozen", "dormant"])
def test_every_item_of_a_chain_is_an_alternative(status):
    rule = "Accounts whose status is closed, frozen or dormant cannot transact."
    args = {"account_status": status, "amount": 5}
    assert outcome_beside_ticket(rule, "accounts.transfer", args) == "denied"


def test_a_chain_of_states_leaves_other_states_alone():
    rule = "Accounts whose status is closed, frozen or dormant cannot transact."
    args = {"account_status": "active", "amount": 5}
    # (a status the chain does not name: never denied; the engine asks a human, as before)
    assert outcome_beside_ticket(rule, "accounts.transfer", args) != "denied"


@pytest.mark.parametrize("status", ["blocked", "frozen", "inactive"])
def test_a_state_spelled_like_an_effect_is_a_listed_state_in_a_chain(status):
    rule = "Do not pay vendors that are blocked, frozen or inactive."
    args = {"vendor_status": status, "amount": 5}
    assert outcome_beside_ticket(rule, "vendors.pay", args) == "denied"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(_STATES), min_size=3, max_size=5, unique=True),
    st.data(),
)
def test_no_member_of_a_chain_of_states_is_approved(chain, data):
    listed = ", ".join(chain[:-1]) + f" or {chain[-1]}"
    rule = f"Accounts whose status is {listed} cannot transact."
    status = data.draw(st.sampled_from(chain))
    args = {"account_status": status, "amount": 5}
    assert outcome_beside_ticket(rule, "accounts.transfer", args) != "approved"


# -- literals listed together


@pytest.mark.parametrize(
    ("rule", "email"),
    [
        ("Do not invite users from gmail.com or yahoo.com domains.", "bob@yahoo.com"),
        ("Do not onboard users with hotmail.com or outlook.com addresses.", "a@outlook.com"),
        ("Never onboard users with yahoo.com, aol.com or gmx.de emails.", "x@gmx.de"),
    ],
)
def test_every_listed_domain_is_read(rule, email):
    assert outcome_beside_ticket(rule, "users.invite", {"email": email, "role": "m"}) == "denied"
    other = {"email": "bob@acme.com", "role": "m"}
    assert outcome_beside_ticket(rule, "users.invite", other) == "approved"


_DOMAINS = ["gmail.com", "yahoo.com", "aol.com", "gmx.de", "rival.io", "mail.ru"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_DOMAINS), min_size=2, max_size=4, unique=True), st.data())
def test_no_listed_domain_is_approved(domains, data):
    listed = ", ".join(domains[:-1]) + f" or {domains[-1]}"
    rule = f"Do not invite users from {listed} domains."
    domain = data.draw(st.sampled_from(domains))
    args = {"email": f"someone@{domain}", "role": "member"}
    assert outcome_beside_ticket(rule, "users.invite", args) != "approved"


def test_a_literal_listed_beside_plain_words_is_not_read_alone():
    rule = "Never attach AdministratorAccess or admin-like policies."
    for c in compile_rule(0, "c", rule).checks:
        assert c.reading() != "Deny when an argument is AdministratorAccess (about: attach admin)"
    args = {"policy_arn": "arn:aws:iam::aws:policy/AdministratorAccess", "principal": "svc"}
    assert outcome_beside_ticket(rule, "iam.attach_policy", args) != "approved"


# -- one capitalised abbreviation in brackets glosses the words before it


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        ("Never export full card numbers (PAN) or CVV.", "payments.export", {"fields": ["cvv"]}),
        (
            "Never store card numbers (PAN), expiry dates or CVC codes.",
            "vault.store",
            {"fields": ["expiry_date", "cvc"]},
        ),
        (
            "Do not release records of patients with restricted (VIP) status.",
            "ehr.records.release",
            {"patient_id": "p1", "patient_status": "restricted"},
        ),
        (
            "Patients with restricted (VIP) status need privacy-officer approval.",
            "ehr.release",
            {"patient_id": "p1", "patient_status": "restricted"},
        ),
    ],
)
def test_a_bracketed_abbreviation_is_not_a_value(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, args) != "approved"
    assert not any(
        "PAN" in getattr(c, "values", ()) or "VIP" in getattr(c, "values", ())
        for c in compile_rule(0, "c", rule).checks
    )


@pytest.mark.parametrize(
    ("rule", "country"),
    [
        ("Transfers to sanctioned countries (IR, KP) are forbidden.", "KP"),
        ("Transfers to sanctioned countries (KP) are forbidden.", "KP"),
    ],
)
def test_a_code_after_a_place_kind_is_still_a_value(rule, country):
    assert compile_rule(0, "c", rule).decides
    args = {"country": country, "amount": 5}
    assert outcome_beside_ticket(rule, "transfers.send", args) == "denied"


def test_a_currency_code_in_brackets_is_still_a_value():
    rule = "Payouts in the Russian currency (RUB) are forbidden."
    args = {"currency": "RUB", "amount": 5}
    assert outcome_beside_ticket(rule, "payouts.create", args) != "approved"


# -- a word joined to a plain word is a qualifier


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Never refund VIP-tier customers without CS-lead approval.",
            "payments.refund",
            {"customer_tier": "VIP", "amount": 10},
        ),
        (
            "Payouts to KYC-pending sellers are blocked.",
            "payouts.create",
            {"seller_id": "s1", "kyc_status": "pending", "amount": 10},
        ),
    ],
)
def test_a_hyphenated_qualifier_is_not_a_name(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, args) != "approved"
    for c in compile_rule(0, "c", rule).checks:
        assert not any("-" in v for v in getattr(c, "values", ()) if isinstance(v, str))


_ACRONYMS = ["VIP", "KYC", "EU", "PCI", "SOX", "HIPAA"]
_PLAIN = ["tier", "pending", "sanctioned", "scoped", "covered", "listed", "member"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_ACRONYMS), st.sampled_from(_PLAIN))
def test_no_hyphenated_qualifier_is_read_as_a_name(acronym, plain):
    rule = f"Never refund {acronym}-{plain} customers."
    for c in compile_rule(0, "c", rule).checks:
        assert f"{acronym}-{plain}" not in getattr(c, "values", ())


# -- a state said of a literal; a listed name in another form


def test_a_literal_said_to_be_missing_is_not_a_value_to_hold():
    rule = "Never pay invoices from vendors with W-9 missing."
    args = {"invoice_id": "i1", "vendor_id": "v1", "w9_on_file": False, "amount": 5}
    assert outcome_beside_ticket(rule, "invoices.pay", args) != "approved"
    assert not any("W-9" in getattr(c, "values", ()) for c in compile_rule(0, "c", rule).checks)


def test_a_listed_name_in_another_form_is_close_to_a_deny_list():
    rule = "Never delete objects in the audit-logs bucket."
    near = {"bucket": "Audit Logs", "key": "x"}
    assert outcome_beside_ticket(rule, "s3.delete_object", near) != "approved"
    assert outcome_beside_ticket(
        rule, "s3.delete_object", {"bucket": "audit-logs", "key": "x"}
    ) == ("denied")
    assert outcome_beside_ticket(rule, "s3.delete_object", {"bucket": "tmp", "key": "x"}) == (
        "approved"
    )


# -- a heading that says the list after its colon is what is allowed


@pytest.mark.parametrize(
    ("rule", "tool", "arg", "listed", "other"),
    [
        ("Environments allowed: dev, qa, staging.", "deploy.release", "environment", "qa", "prod"),
        ("Allowed environments: dev, staging.", "deploy.release", "environment", "dev", "prod"),
        ("Payout rails allowed: ACH, SEPA.", "payouts.create", "rail", "SEPA", "wire"),
    ],
)
def test_a_list_after_an_allowed_heading_is_an_allow_list(rule, tool, arg, listed, other):
    base = {"amount": 5, "service": "api"}
    assert outcome_beside_ticket(rule, tool, {**base, arg: other}) == "denied"
    assert outcome_beside_ticket(rule, tool, {**base, arg: listed}) == "approved"


def test_who_approves_after_a_colon_is_no_allow_list():
    compiled = compile_rule(0, "c", "Approved by: finance.")
    assert not any(getattr(c, "mode", "") == "allow" for c in compiled.checks)


# -- an argument's name with its values after it


def test_an_argument_named_before_its_values_is_not_the_value():
    rule = "Orders with payment_status failed or pending cannot ship."
    args = {"order_id": "o", "payment_status": "failed"}
    assert outcome_beside_ticket(rule, "orders.ship", args) != "approved"
    assert not any(
        "payment_status" in getattr(c, "values", ()) for c in compile_rule(0, "c", rule).checks
    )


# -- a bound that is one of a list of conditions


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Patients under 18, pregnant or immunocompromised need physician review before "
            "vaccines.",
            "vaccines.administer",
            {"patient_id": "p", "patient_age": 30, "pregnant": True, "vaccine": "mmr"},
        ),
        (
            "Invoices older than 90 days, disputed or partially paid need AR review.",
            "invoices.collect",
            {"invoice_id": "i", "invoice_age_days": 10, "disputed": True},
        ),
        (
            "Orders over 1,000 USD, flagged or from new customers need review.",
            "orders.fulfil",
            {"order_id": "o", "amount": 50, "currency": "USD", "flagged": True},
        ),
    ],
)
def test_a_bound_among_other_conditions_never_decides_alone(rule, tool, args):
    assert not compile_rule(0, "c", rule).decides
    assert outcome_beside_ticket(rule, tool, args) != "approved"


def test_a_bound_alone_still_reads():
    rule = "Invoices older than 90 days need AR review."
    assert compile_rule(0, "c", rule).decides


# -- a code joined to a plain word is that word's qualifier


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        (
            "Accounts with SAR-filed status cannot be closed.",
            "accounts.close",
            {"account_id": "a", "sar_filed": True, "currency": "USD"},
        ),
        (
            "Accounts with CA-hold flag cannot transact.",
            "accounts.transfer",
            {"account_id": "a", "ca_hold": True, "country": "US", "amount": 5},
        ),
    ],
)
def test_a_code_joined_to_a_word_is_no_currency_or_place(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, args) != "approved"
    assert not any(
        getattr(c, "match", "") in ("currency", "place") for c in compile_rule(0, "c", rule).checks
    )


@pytest.mark.parametrize(
    ("rule", "match"),
    [
        ("No refunds on EU-region orders.", "place"),
        ("USD-denominated bonds cannot be sold.", "currency"),
    ],
)
def test_a_code_joined_to_a_word_of_its_kind_still_names_it(rule, match):
    assert any(getattr(c, "match", "") == match for c in compile_rule(0, "c", rule).checks)


# -- who gives the OK is never a value


@pytest.mark.parametrize(
    ("rule", "tool", "args"),
    [
        ("Access to prod requires OK from SecOps.", "access.grant", {"environment": "prod"}),
        (
            "Deleting audit logs needs the consent of Compliance-Ops.",
            "logs.delete",
            {"log_group": "audit", "older_than_days": 400},
        ),
    ],
)
def test_who_gives_the_ok_is_not_a_value(rule, tool, args):
    assert outcome_beside_ticket(rule, tool, {**args, "user": "u"}) == "pending_review"
    readings = " ".join(c.reading() for c in compile_rule(0, "c", rule).checks)
    assert "SecOps" not in readings and "Compliance-Ops" not in readings


# -- quoted values listed together


def test_every_quoted_value_of_a_list_is_read():
    rule = 'Refunds with reason "goodwill" or "other" need review.'
    base = {"amount": 5}
    tool = "payments.refund"
    assert outcome_beside_ticket(rule, tool, {**base, "reason": "other"}) == "pending_review"
    assert outcome_beside_ticket(rule, tool, {**base, "reason": "goodwill"}) == "pending_review"
    assert outcome_beside_ticket(rule, tool, {**base, "reason": "damaged"}) == "approved"


# -- an inserted category is never read away by the lists above

_TEMPLATES = (
    "Do not invite {q} users from gmail.com or yahoo.com domains.",
    "Accounts of {q} vendors whose status is closed, frozen or dormant cannot transact.",
    'Refunds with reason "goodwill" or "other" for {q} accounts need review.',
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CATEGORY_QUALIFIERS), st.sampled_from(_TEMPLATES))
def test_an_inserted_category_leaves_a_list_rule_partly_understood(qualifier, template):
    assert_never_decides(template.format(q=qualifier))


# -- a plain word after 'only' is said of the noun after it


def test_a_word_said_of_a_noun_is_read_on_the_nouns_arguments():
    rule = "Only registered nurses may administer insulin."
    tool = "meds.administer"
    base = {"nurse_id": "n7", "drug": "insulin"}
    other = {**base, "nurse_license": "LPN", "patient_status": "registered"}
    assert outcome_beside_ticket(rule, tool, other) != "approved"
    assert outcome_beside_ticket(rule, tool, {**base, "nurse_status": "registered"}) == "approved"
    (check,) = compile_rule(0, "c", rule).checks
    assert check.kind_words == ("nurs",)
