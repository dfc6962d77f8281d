"""One table for what every boundary phrase means: which values it takes in, inclusive or not.

Two uses of a phrase differ. As a *condition* in a rule's subject ("Refunds of at least 200 EUR
need a manager") it picks the values the rule speaks of. As a *limit* in its predicate ("Refunds
must be at most 200 EUR", "must not exceed 200 EUR") it states the values that are allowed.
`CONDITION` gives, per phrase, the comparison a value must pass to be picked; `LIMIT` gives the
comparison an allowed value passes. The compiler's boundary reading is tested against this table
(tests/unit/test_judge_boundaries.py), and readings use `OP_WORDS` to say it back.
"""

from __future__ import annotations

import re

# phrase -> operator a value must satisfy to be *in* the condition ('over 500': value > 500)
CONDITION: dict[str, str] = {
    "over": "gt",
    "above": "gt",
    "more than": "gt",
    "greater than": "gt",
    "exceeding": "gt",
    "in excess of": "gt",
    "at least": "ge",
    "under": "lt",
    "below": "lt",
    "less than": "lt",
    "at most": "le",
    "up to": "le",
    "no more than": "le",
}

# phrase after 'must' / 'must not' -> operator an *allowed* value satisfies
LIMIT: dict[str, str] = {
    "must not exceed": "le",
    "must be at most": "le",
    "must be no more than": "le",
    "may be up to": "le",
    "must be under": "lt",
    "must be below": "lt",
    "must be less than": "lt",
    "must stay under": "lt",
    "must be at least": "ge",
    "must be over": "gt",
    "must be above": "gt",
    "must be more than": "gt",
}

# phrase written before a quantity as a cap ('up to €180 in EU cities', 'no more than 50 laptops
# on a PO') -> operator an *allowed* value satisfies
CAP: dict[str, str] = {
    "up to": "le",
    "at most": "le",
    "no more than": "le",
    "not more than": "le",
    "max": "le",
    "maximum": "le",
    "max of": "le",
    "maximum of": "le",
    "capped at": "le",
}


def phrase_pattern(phrases: dict[str, str] | list[str]) -> str:
    """A regex alternation (no group) of `phrases`, longest first, any run of spaces between
    words, so that a compiler pattern reads exactly the phrases of a table."""
    return "|".join(
        r"\s+".join(map(re.escape, p.split())) for p in sorted(phrases, key=len, reverse=True)
    )


def phrase_op(table: dict[str, str], written: str) -> str:
    """The operator `table` gives for a phrase as written (any case and spacing)."""
    return table[" ".join(written.lower().split())]


OP_WORDS = {"gt": "above", "ge": "at or above", "lt": "below", "le": "at or below"}
NEGATE = {"gt": "le", "ge": "lt", "lt": "ge", "le": "gt"}

# word written after a date window ('Jun 15 - Jun 30 inclusive', 'Dec 24-26 (exclusive)') ->
# whether the window's two end days are themselves inside it. Written without one, a window of
# two days ('between Dec 24 and Dec 26', 'Jun 24 through Jun 30') takes both end days in.
WINDOW_ENDS: dict[str, bool] = {
    "inclusive": True,
    "incl": True,
    "both inclusive": True,
    "exclusive": False,
    "excl": False,
    "both exclusive": False,
}

# word written before a date a named date argument is compared with ('an entry_date after
# 2025-06-30', 'a settle_date on or before 2025-01-02') -> operator a date *in* the rule's side
# satisfies. 'before' and 'after' leave the day itself out; 'on or …' and 'no later / earlier
# than' take it in.
DATE_SIDE: dict[str, str] = {
    "before": "lt",
    "prior to": "lt",
    "earlier than": "lt",
    "after": "gt",
    "later than": "gt",
    "on or before": "le",
    "no later than": "le",
    "on or after": "ge",
    "no earlier than": "ge",
}
