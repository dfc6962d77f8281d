"""Values a gloss or a bound argument names ('(product_class = sterile)', 'Contractors
(user_type=contractor)') against the value a request holds: whether the request's value may be the
glossed one written another way (separators, case, a plural, an abbreviation, a code, a word of
the same family, a grade past it), so that a reading setting the rule aside as not reaching the
request must not do so. Shared by gates._bound_gate and checks.WhenBound."""

from __future__ import annotations

import re
from functools import lru_cache

from webapp.judge.text import stem

# an ordered scale ('(risk_rating = high)', '(refund_tier = large)'): a request's value past the
# one glossed ('critical', 'xl') may be of the subject, a human reads it
GRADES = frozenset(
    "high low medium med moderate large small big huge major critical severe elevated "
    "extreme significant material top senior junior".split()
)
# a request's value that says nothing of which kind it is
VAGUE = frozenset(
    "unknown other others mixed multiple various varies na n/a none null nil tbd tbc pending "
    "unspecified unclassified unset blank misc miscellaneous any all".split()
)


# values staff write for one kind in several ways ('wire' and 'SWIFT', 'prod' and 'live'): a
# request's value of the same family as a glossed one may be of the subject, a human reads it
VALUE_FAMILIES = tuple(
    frozenset(f.split())
    for f in (
        "wire swift fedwire rtgs chap chaps telegraphic tt",
        "prod production live prd prn",
        "injection injectable parenteral iv intravenous im intramuscular subcutaneous sc",
        "sterile aseptic parenteral",
        "minor child under18 underage juvenile",
        "refrigerated chilled cold fridge frozen",
        "contractor freelancer 1099 consultant",
        "employee staff payroll w2",
        "card credit debit visa mastercard amex",
        "crypto bitcoin btc eth ethereum stablecoin usdt usdc",
        "cash currency notes",
        "goodwill courtesy discretionary gesture",
        # kinds of an act staff name in several ways: a rule on one kind ('Permanent bans …')
        # is not ruled out by a category argument naming it otherwise (`ban_type: "lifetime"`)
        "permanent perm perma permaban lifetime indefinite indefinitely forever unlimited "
        "noexpiry nonexpiring openended",
        "temporary temp tmp timeboxed timebound timelimited interim provisional jit justintime "
        "expiring",
        "international intl crossborder foreign overseas abroad offshore global",
        "manual manually hand handkeyed human adhoc",
        "recurring recurrent repeat repeating standing subscription periodic autopay",
        "bulk batch mass",
        "partial prorated prorata",
    )
)


@lru_cache(maxsize=1)
def _families() -> tuple[frozenset[str], ...]:
    """VALUE_FAMILIES in the form value_token gives a value."""
    return tuple(frozenset(value_token(w) for w in f) for f in VALUE_FAMILIES)


def value_token(word: str) -> str:
    """A value's word in a form that ignores case, separators and a plural ending."""
    w = re.sub(r"[^a-z0-9]", "", word.lower())
    return stem(w) if w.isalpha() and len(w) > 3 else w


def abbreviates(short: str, long: str) -> bool:
    """'prd' for 'prod', 'str' for 'sterile': the short one's letters in order in the long one,
    from its first letter."""
    if not short or not long or short[0] != long[0] or len(short) >= len(long):
        return False
    it = iter(long)
    return all(ch in it for ch in short)


def may_be_value(shown: str, vals: tuple[str, ...]) -> bool:
    """Whether the request's value `shown` may be one of the glossed `vals` (written another way:
    separators, case, a plural, an abbreviation, a code), so the gate must not set the rule aside."""
    if VAGUE & {shown, re.sub(r"[^a-z/]", "", shown)} or re.search(r"[;,+&|/]", shown):
        return True  # no kind said, or several values in one string
    s = value_token(shown)
    if not s:
        return True
    for v in vals:
        t = value_token(v)
        if not t or s == t or s in t or t in s or abbreviates(s, t) or abbreviates(t, s):
            return True
        if any({s, t} <= f for f in _families()):
            return True
        if bool(re.search(r"\d", s)) != bool(re.search(r"\d", t)):
            return True  # a code ('PC-01', 'T1') or a number in words ('one', 'I'): not compared
    return False


def same_value(shown: str, term: str) -> bool:
    """Whether a request's value `shown` is the word `term` written another way: the same token,
    an abbreviation of it ('prd' for 'production'), or a word of its family ('live')."""
    s, t = value_token(shown), value_token(term)
    if not s or not t:
        return False
    return s == t or abbreviates(s, t) or abbreviates(t, s) or any({s, t} <= f for f in _families())


# the grades in the form value_token gives them too ('large' -> 'larg')
GRADES = GRADES | frozenset(value_token(w) for w in GRADES)


@lru_cache(maxsize=4096)
def family_stems(shown: str) -> frozenset[str]:
    """The rule words (as text.stem gives them) of every family the request's value `shown`
    belongs to ('lifetime': 'permanent', 'perm', 'indefinite' …): a rule naming one of them may
    be about the request, which names its kind in other words."""
    s = value_token(shown)
    if not s:
        return frozenset()
    out: set[str] = set()
    for fam, words in zip(_families(), VALUE_FAMILIES, strict=True):
        if s in fam:
            out.update(stem(w) for w in words)
    return frozenset(out)
