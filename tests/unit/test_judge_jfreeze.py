"""Freezes on named values in the shapes staff write them (helper jfreeze, issue #10).

Vectors are (rule, tool, arguments, expected outcome beside a satisfied ticket rule), near-misses
included: another value, a value in a nested object or an array, a read during a change freeze,
a dated window with and without the request's date, a date of another year.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_support import assert_never_decides, outcome_beside_ticket

from webapp.judge.compiler import compile_rule

LIST_COLON = "Code freeze: billing-api, ledger-writer (until the Q4 close)."
LIST_STATE = "billing-api and ledger-writer are under change freeze until further notice."
DATED_ISO = "No changes to checkout-service between 2025-11-24 and 2025-12-02."
DATED_YEAR = "Change freeze on checkout-service from Nov 24 to Dec 2, 2025."
NO_CHANGES = "No changes to checkout-service."
LIFTED = "Change freeze on: billing-api, ledger-writer. Nothing goes out for these until lifted."
PATH = "Vault path secret/payments-core/* is frozen for the PCI audit window - no writes."
PATH_DASH = "secret/payments-core/* - frozen (PCI audit)."
STOCKTAKE = "Stocktake freeze: DAL-2 (all SKUs). Other sites unaffected."
AT_SITE = "Inventory freeze at site DAL-2 for stocktake (all SKUs)."

VECTORS = [
    (LIST_COLON, "deploy.release", {"service": "ledger-writer"}, "denied"),
    (LIST_COLON, "deploy.release", {"service": "search-api"}, "approved"),
    (LIST_COLON, "deploy.release", {"services": ["search-api", "billing-api"]}, "denied"),
    (LIST_COLON, "deploy.release", {"target": {"service": "billing-api"}}, "denied"),
    (LIST_STATE, "deploy.release", {"service": "billing-api"}, "denied"),
    (LIST_STATE, "deploy.release", {"service": "notifications"}, "approved"),
    # a read of a frozen service changes nothing
    (LIST_STATE, "deploy.get_status", {"service": "billing-api"}, "approved"),
    # a name extending the frozen one is close to it: a human decides
    (LIST_STATE, "deploy.release", {"service": "billing-api-canary"}, "pending_review"),
    # a word for any change is shown by a deploy (it had approved this beside the ticket rule)
    (NO_CHANGES, "deploy.release", {"service": "checkout-service"}, "denied"),
    (NO_CHANGES, "vault.read", {"service": "checkout-service"}, "approved"),
    # a dated window: no date in the request is review, inside is denied, outside approved
    (DATED_ISO, "deploy.release", {"service": "checkout-service"}, "pending_review"),
    (DATED_ISO, "deploy.release", {"service": "checkout-service", "date": "2025-12-02"}, "denied"),
    (
        DATED_ISO,
        "deploy.release",
        {"service": "checkout-service", "date": "2025-12-03"},
        "approved",
    ),
    (DATED_ISO, "deploy.release", {"service": "cart-service", "date": "2025-11-30"}, "approved"),
    (DATED_YEAR, "deploy.release", {"service": "checkout-service"}, "pending_review"),
    (DATED_YEAR, "deploy.release", {"service": "checkout-service", "date": "2025-11-24"}, "denied"),
    # the later date written first: the days between them
    (
        "No changes to checkout-service between 2025-12-02 and 2025-11-24.",
        "deploy.release",
        {"service": "checkout-service", "date": "2025-11-30"},
        "denied",
    ),
    # a window over the new year, its year written once at the end
    (
        "No changes to checkout-service from Dec 20 to Jan 3, 2026.",
        "deploy.release",
        {"service": "checkout-service", "date": "2025-12-25"},
        "denied",
    ),
    # the same days of another year are outside a window whose year is written
    (
        DATED_YEAR,
        "deploy.release",
        {"service": "checkout-service", "date": "2026-11-30"},
        "approved",
    ),
    # a read of a value under a change freeze is outside it; a change or an unknown act is not
    (
        "The billing-api is under change freeze.",
        "deploy.get_status",
        {"service": "billing-api"},
        "approved",
    ),
    (
        "The billing-api is under change freeze.",
        "deploy.release",
        {"service": "billing-api"},
        "denied",
    ),
    ("The billing-api is under change freeze.", "run", {"service": "billing-api"}, "denied"),
    # a read tool carrying a write is no mere read: the freeze reaches it
    (
        "The billing-db is under change freeze.",
        "db.query",
        {"database": "billing-db", "sql": "DROP TABLE invoices"},
        "denied",
    ),
    (
        "The billing-db is under change freeze.",
        "db.query",
        {"database": "billing-db", "sql": "SELECT * FROM invoices"},
        "approved",
    ),
    (
        "No changes to billing-db.",
        "db.query",
        {"database": "billing-db", "statement": "UPDATE invoices SET paid = true"},
        "denied",
    ),
    # a restating second sentence is read with the freeze
    (LIFTED, "deploy.release", {"service": "billing-api"}, "denied"),
    (LIFTED, "deploy.release", {"service": "search-api"}, "approved"),
    # the frozen name only in free text: a human decides
    (LIFTED, "deploy.release", {"summary": "bump billing-api client lib"}, "pending_review"),
    # a path glob: under it (any depth) denied, a sibling prefix or another path approved,
    # a read approved, the path in an argument not named for a path only when listed
    (PATH, "vault.write", {"path": "secret/payments-core/db"}, "denied"),
    (PATH, "vault.write", {"path": "secret/payments-core/api/stripe"}, "denied"),
    (PATH, "vault.delete", {"path": "secret/payments-core/db"}, "denied"),
    (PATH, "vault.write", {"path": "secret/payments-core-staging/db"}, "approved"),
    (PATH, "vault.write", {"path": "secret/payments-edge/db"}, "approved"),
    (PATH, "vault.read", {"path": "secret/payments-core/db"}, "approved"),
    (PATH_DASH, "vault.write", {"paths": ["secret/x/y", "secret/payments-core/db"]}, "denied"),
    # the folder written from another root, through '..', or the folder itself: a human decides
    (PATH, "vault.write", {"path": "/secret/payments-core/db"}, "pending_review"),
    (PATH, "vault.write", {"path": "secret/data/payments-core/db"}, "pending_review"),
    (PATH, "vault.write", {"path": "secret/other/../payments-core/db"}, "pending_review"),
    (PATH, "vault.write", {"path": "secret/payments-core"}, "pending_review"),
    (PATH_DASH, "vault.write", {"key": "secret/payments-edge/db"}, "pending_review"),
    (PATH_DASH, "vault.write", {"note": "rotate secret/payments-core/db"}, "pending_review"),
    # a site freeze: the site named denies (also as a transfer's source), another approves,
    # a site extending the frozen one is close to it, a read of the levels changes nothing
    (STOCKTAKE, "inventory.adjust_stock", {"site": "DAL-2", "delta": -3}, "denied"),
    (STOCKTAKE, "inventory.transfer", {"from_site": "DAL-2", "to_site": "HOU-1"}, "denied"),
    (STOCKTAKE, "inventory.adjust_stock", {"site": "DAL-3", "delta": -3}, "approved"),
    (STOCKTAKE, "inventory.adjust_stock", {"site_id": "DAL-21", "delta": 1}, "pending_review"),
    (STOCKTAKE, "inventory.get_levels", {"site": "DAL-2"}, "approved"),
    (AT_SITE, "inventory.adjust_stock", {"site": "DAL-2", "delta": 5}, "denied"),
    (AT_SITE, "inventory.adjust_stock", {"site": "DAL-3", "delta": 5}, "approved"),
]


@pytest.mark.parametrize(("rule", "tool", "args", "expected"), VECTORS)
def test_freeze_vectors(rule: str, tool: str, args: dict, expected: str) -> None:
    assert outcome_beside_ticket(rule, tool, args) == expected


@pytest.mark.parametrize(
    "rule", [LIST_COLON, LIST_STATE, DATED_ISO, DATED_YEAR, LIFTED, PATH, PATH_DASH, STOCKTAKE]
)
def test_freezes_are_understood(rule: str) -> None:
    assert compile_rule(0, "c:r0", rule).understanding == "understood"


def test_window_reading_says_the_years() -> None:
    (check,) = compile_rule(0, "c:r0", DATED_ISO).checks
    assert check.describe()["window"]["years"] == [2025, 2025]
    assert "between 2025-11-24 and 2025-12-02" in check.reading()


def test_a_window_whose_end_year_is_not_written_is_not_read_as_dated() -> None:
    compiled = compile_rule(0, "c:r0", "No changes to checkout-service from 24 Nov 2025 to 2 Dec.")
    assert all(c.kind != "date_window" for c in compiled.checks)


_QUALIFIERS = ("for privileged vendors", "unless the CAB approves", "only if risky")


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([LIST_STATE, DATED_ISO, NO_CHANGES, PATH, LIST_COLON]),
    st.sampled_from(_QUALIFIERS),
)
def test_an_inserted_condition_leaves_the_freeze_partly_understood(rule: str, extra: str) -> None:
    assert_never_decides(rule.rstrip(".") + " " + extra + ".")


@settings(max_examples=30, deadline=None)
@given(st.dates().map(lambda d: d.isoformat()))
def test_a_dated_freeze_never_approves_a_date_inside_its_window(day: str) -> None:
    got = outcome_beside_ticket(
        DATED_ISO, "deploy.release", {"service": "checkout-service", "date": day}
    )
    inside = "2025-11-24" <= day <= "2025-12-02"
    assert got == ("denied" if inside else "approved")


@pytest.mark.parametrize(
    "rule",
    [
        "Change freeze on: billing-api, ledger-writer. Nothing goes out for these unless urgent.",
        "Stocktake freeze: DAL-2 (all SKUs). Other sites unaffected unless the GM approves.",
        "Vault path secret/payments-core/* is frozen for the audit window unless the CISO approves.",
        "No writes under secret/payments-core/ during the PCI audit window.",
    ],
)
def test_a_freeze_with_a_condition_or_an_unread_window_never_decides(rule: str) -> None:
    assert_never_decides(rule)
