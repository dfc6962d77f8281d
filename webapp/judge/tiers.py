"""Tiers, a limit with its own else branch, and 'any other X' restatements of an allow-list.

Two shapes staff write, each read wrong clause by clause:

* **An allow-list restated for the rest.** "Investor must be FNMA or FHLMC; agents may not modify
  loans for any other investor." The second clause is not a new ban on modifying loans: it says
  what happens to the values the allow-list leaves out. `other_clause` finds such a closing
  clause (one that names 'any other <noun>' and a bare effect: refused, or sent to someone's
  approval) and gives the rule without it; the compiler reads the head alone and takes it only
  when every check of the head is an allow-list on the thing the clause names, with the clause's
  effect ("Any other contract type goes to a human signatory for approval": a value outside the
  list goes to review, not to a denial). A clause carrying a number, a condition or a list of its
  own is never taken: it may say more than the allow-list.

* **A limit followed by its next band.** "Front desk can comp up to 2 room nights per stay; 3 or
  more nights -> GM approval." The cap reads 'deny above 2' and the band 'review at 3 or more';
  by precedence the denial won, so 3 nights were refused where the rule sends them to the GM.
  `banded` reads the checks of one rule on one quantity as bands: a denial that starts where a
  review band of the same quantity starts (or within one unit before it, the gap an integer or a
  cent leaves: 'up to 25,000' then '25,000.01 to 100,000') is the review band's lower edge, not a
  refusal; a denial past the review band ('above 100,000 not via agent') stays a denial and wins
  above its own bound by precedence. A value in the gap between two bands goes to review.
  Boundaries are read by the shared table (boundaries.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from webapp.judge.asides import ElseBranch
from webapp.judge.checks import Check, NumericLimit

# ---------------------------------------------------------------------------------------------
# 'any other X' closing a rule

_DENY = (
    r"(?:(?:may|must|can|shall|will)\s+not|cannot|can't|do\s+not|don't|never|"
    r"(?:is|are)\s+(?:not\s+(?:allowed|permitted|accepted)|rejected|refused|declined|"
    r"prohibited|forbidden|blocked|disallowed)|not\s+(?:allowed|permitted))"
)
_REVIEW = (
    r"(?:approval|approves|must\s+approve|sign[- ]?off|review|escalated?|"
    r"(?:goes|go|is\s+routed|are\s+routed|route|routed)\s+to)"
)
# a clause that may add a condition or a bound of its own: never read as a restatement
_OWN = re.compile(
    r"\d|\b(?:unless|if|when|where|while|except|excluding|only|over|above|under|below|more|"
    r"less|fewer|exceed\w*|without|after|before|within|until|and|or|but|also|all|each|every|"
    r"per|daily|weekly|monthly|total)\b|[,(:\"']",
    re.I,
)
_SPLIT = re.compile(r"(?:;|\.(?=\s+[A-Z])|\s[-\u2013\u2014]\s)\s*")
_OTHER = re.compile(
    r"\bany\s+other\s+(?P<noun>[a-z][a-z\-]*(?:\s+type)?)\b"
    # jlist: 'anything else -> Tax team review' names no noun: it is every value the list leaves
    # out, whatever the list is of
    r"|^(?:anything\s+else|everything\s+else|all\s+others)\b",
    re.I,
)
_NOTHING_ELSE = re.compile(
    r"(?:nothing|none|no\s+others?|no\s+other\s+(?:values?|options?))(?:\s+else)?"
    r"(?:\s+(?:is\s+|are\s+)?(?:allowed|permitted|accepted))?",
    re.I,
)
# jlist: an arrow to a person or a team is that person's review ('Any other reason ->
# supervisor', '-> Treasury desk'); only after an arrow, where no verb could say anything else
_TO_REVIEWER = re.compile(
    r"(?:->|\u2192)\s*(?:the\s+)?(?:[A-Za-z][\w&\-]*\s+){0,2}?"
    r"(?:supervisors?|managers?|leads?|desk|team|officers?|owners?|approvers?)\s*$",
    re.I,
)


def other_clause(text: str) -> ElseBranch | None:
    """The closing clause of `text` that restates an allow-list for 'any other <noun>' with a
    bare effect ('agents may not modify loans for any other investor', 'Invoices from any other
    firm are rejected', 'any other carrier needs logistics manager approval'), if it has one."""
    body = text.strip()
    parts = [p for p in _SPLIT.split(body) if p.strip()]
    if len(parts) < 2:
        return None
    last = parts[-1].strip().rstrip(".!").strip()
    if _NOTHING_ELSE.fullmatch(last):
        # 'Bureaus: Equifax, Experian, TransUnion. Nothing else.' (holdout_52's first run): the
        # closing words refuse every value the list leaves out, with no noun and no verb
        end = body.rfind(parts[-1].strip())
        head = body[:end].rstrip(" ,;:-\u2013\u2014")
        if not head:
            return None
        return ElseBranch(
            head + ("" if head.endswith((".", "!")) else "."),
            "deny",
            "",
            tuple(w.lower() for w in re.findall(r"[A-Za-z][\w\-']*", last)),
        )
    m = _OTHER.search(last)
    if m is None:
        return None
    if re.match(r"\s+(?:for|from|to|of|by|with|in|on|at|under|over|without)\b", last[m.end() :]):
        # jlist: 'Any other currency for new vendors -> review': the noun is qualified, the
        # clause says what happens to some of the values the list leaves out, not to all
        return None
    rest = (last[: m.start()] + " " + last[m.end() :]).replace("->", " ").replace("\u2192", " ")
    if _OWN.search(rest):
        return None
    deny = re.search(_DENY, last, re.I)
    review = re.search(_REVIEW, last, re.I) or _TO_REVIEWER.search(last)
    if bool(deny) == bool(review):
        return None
    end = body.rfind(parts[-1].strip())
    head = body[:end].rstrip(" ,;:-\u2013\u2014")
    if not head:
        return None
    return ElseBranch(
        head + ("" if head.endswith((".", "!")) else "."),
        "deny" if deny else "review",
        (m.group("noun") or "").lower(),
        tuple(w.lower() for w in re.findall(r"[A-Za-z][\w\-']*", last)),
    )


# jlist: a permission followed by its 'anything else' is a closed list. "Auto-file OK for
# jurisdictions US, CA, GB; anything else -> Tax team review", "Relocation allowance may be paid
# in EUR, GBP or CHF. Any other currency needs Payroll sign-off.", "USD only - any other
# currency -> Treasury review": read alone, the head grants (or, bare, says nothing), and the
# branch says what happens to every value it leaves out. `exclusive` writes the head as the
# allow-list it is, in a form the list reading knows; the compiler takes it only when it reads as
# one allow-list of exactly the values written at its end.
_LISTED = r"[A-Z0-9][\w:./\-]*"
_LIST_TAIL = rf"(?P<list>{_LISTED}(?:\s*(?:,|/|\bor\b|\band\b)\s*{_LISTED})*)"
_OK_FOR = re.compile(
    r"^(?P<act>[A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:is\s+|are\s+)?"
    r"(?i:ok|okay|allowed|permitted|fine)\s+(?:for|in)\s+(?:the\s+)?"
    rf"(?P<kind>[a-z][a-z\-]*)\s*:?\s+{_LIST_TAIL}\s*[.!]?$",
)
_MAY_BE = re.compile(
    r"^(?P<subj>[A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)\s+(?P<modal>may|can)\s+"
    r"(?P<verb>be\s+[a-z]+|[a-z]+)\s+(?P<prep>in|to|via|by|with|through)\s+"
    rf"{_LIST_TAIL}\s*[.!]?$",
)
_BARE_CODES = re.compile(rf"^{_LIST_TAIL}\s+only\s*[.!]?$")
# 'Bureaus: Equifax, Experian, TransUnion' before 'Nothing else': the kind, then its values
_KIND_COLON = re.compile(
    rf"^(?P<kind>[A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}})\s*:\s*{_LIST_TAIL}$"
)

# words before the kind that say nothing of which requests it binds ('Approved carriers: …')
_PLAIN_KIND_WORDS = frozenset(
    "approved allowed permitted valid accepted supported authorised authorized eligible".split()
)


def exclusive(head: str, is_currency: Callable[[str], bool]) -> str | None:
    """`head` written as the allow-list its closing 'anything else' makes of it, or None."""
    text = head.strip().rstrip(".!").rstrip()
    m = _OK_FOR.match(text)
    if m:
        return f"{m.group('act')} {m.group('kind')}: {m.group('list')} only."
    m = _MAY_BE.match(text)
    if m:
        return (
            f"{m.group('subj')} {m.group('modal')} only {m.group('verb')} {m.group('prep')} "
            f"{m.group('list')}."
        )
    m = _KIND_COLON.match(text)
    if m and not (set(m.group("kind").lower().split()[:-1]) - _PLAIN_KIND_WORDS):
        # jred27: a word before the kind ('EU carriers: DPD, GLS. Nothing else.') is a condition
        # of its own, left to the other readings: read as the kind alone, a UPS shipment in the
        # US was denied
        return f"{m.group('kind')}: {m.group('list')} only."
    m = _BARE_CODES.match(text)
    if m:
        codes = re.split(r"\s*(?:,|/|\bor\b|\band\b)\s*", m.group("list"))
        if codes and all(is_currency(c) for c in codes):
            return f"Currency must be {' or '.join(codes)}."
    return None


def listed_at_end(checks: Sequence[Check], head: str) -> bool:
    """The head read as exactly one allow-list whose values are all written in its list."""
    if len(checks) != 1:
        return False
    values = getattr(checks[0], "values", ())
    if getattr(checks[0], "mode", "") != "allow" or not values:
        return False
    m = re.search(_LIST_TAIL + r"(?:\s+only)?$", head.strip().rstrip(".!").rstrip())
    if m is None:
        return False
    written = {
        v.strip().lower() for v in re.split(r"\s*(?:,|/|\bor\b|\band\b)\s*", m.group("list"))
    }
    return {str(v).lower() for v in values} <= written


# ---------------------------------------------------------------------------------------------
# bands of one quantity


def _same_quantity(a: NumericLimit, b: NumericLimit) -> bool:
    # a currency written once, on the cap or on the band ('up to $500; over 500 -> supervisor
    # approval'), is both's; two currencies are two quantities (jred16)
    if a.currency and b.currency and a.currency != b.currency:
        return False
    if (a.unit_family, a.window, a.counts_calls, a.per) != (
        b.unit_family,
        b.window,
        b.counts_calls,
        b.per,
    ):
        return False
    if b.named and a.named != b.named:
        return False
    # the band names the quantity with the cap's words, with none beyond them, or by the
    # rule's subject alone ('NTE limits (not_to_exceed): up to 25,000 USD …; 25,000.01 to …')
    return (
        set(b.measure) <= set(a.measure)
        or set(a.measure) <= set(b.measure)
        or bool(a.terms)
        and a.terms == b.terms
    )


def _lower(check: NumericLimit) -> float | None:
    """The lower edge of the values `check` picks, when it picks everything from there up."""
    if check.op in ("gt", "ge"):
        return check.threshold
    return None


# a limit written as a prohibition ('must not exceed 1,000 EUR; bigger ones need CFO approval',
# 'shall not exceed … under any circumstances'): its denial stays, whatever follows
_HARD = re.compile(
    r"\b(?:must|shall|may|can|should|will|do|does)\s*n[o']t\b|\bcannot\b|\bnever\b|"
    r"\bexceed|\bhard\b|\bcircumstances\b|\bno\s+exceptions?\b|\bstrict|\babsolute",
    re.I,
)
# the cap is a permission: what the agent may do ('can comp up to 2', 'may issue up to 25,000')
_GRANT = re.compile(r"\b(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to)\b", re.I)


def banded(checks: Sequence[Check], text: str) -> list[Check] | None:
    """`checks` with each denial above a cap that the rule's own review band takes over read as
    that band's lower edge (review); None when no check changes. Only for a cap written as what
    may be done ('can comp up to 2 room nights'), never for one written as a prohibition."""
    if _HARD.search(text) or not _GRANT.search(text):
        return None
    limits = [c for c in checks if isinstance(c, NumericLimit)]
    reviews = [c for c in limits if c.effect == "review" and _lower(c) is not None]
    if not reviews:
        return None
    out: list[Check] = []
    caps: list[NumericLimit] = []
    for c in checks:
        if (
            isinstance(c, NumericLimit)
            and c.effect == "deny"
            and c.op in ("gt", "ge")
            and any(_continues(c, r) for r in reviews)
        ):
            caps.append(c)
            out.append(replace(c, effect="review"))
        else:
            out.append(c)
    if len(caps) != 1 or _refused_at(text, caps[0].threshold):
        # none, two denials from one bound, or a clause refusing at the cap's own bound ('up to
        # $200; over $200 need a supervisor; over $200 to gift cards are forbidden'): which
        # denial is the cap cannot be told
        return None
    # the argument the cap names once ('NTE limits (not_to_exceed): up to 25,000 USD …') is the
    # quantity of every band after it that names none
    named = {c.named for c in caps if c.named}
    if len(named) == 1:
        arg = named.pop()
        out = [
            replace(c, named=arg)
            if isinstance(c, NumericLimit)
            and not c.named
            and any(_same_quantity(cap, c) for cap in caps)
            else c
            for c in out
        ]
    return out


def _refused_at(text: str, bound: float) -> bool:
    """A clause of `text` that refuses something states `bound`."""
    for clause in re.split(r";|\.(?:\s|$)", text):
        if re.search(_DENY_WORDS, clause, re.I) and any(
            _number(n) == bound for n in re.findall(r"\d[\d,]*(?:\.\d+)?", clause)
        ):
            return True
    return False


_DENY_WORDS = (
    r"\bnot\b|\bnever\b|\bno\b|refus|reject|forbid|prohibit|declin|block|den(?:y|ied)|banned"
)


def _continues(cap: NumericLimit, band: NumericLimit) -> bool:
    """`band` (a review from its lower edge up) starts where the denial `cap` starts, or within
    one unit after it (the gap of an integer count or of a cent)."""
    if not _same_quantity(cap, band):
        return False
    lo = _lower(band)
    if lo is None:
        return False
    return cap.threshold <= lo <= cap.threshold + 1


# ---------------------------------------------------------------------------------------------
# a band 'A to B' sent to someone's approval

_NUM = r"(?:[$\u00a3\u20ac]\s?)?\d[\d,]*(?:\.\d+)?\s?(?:k|m)?"
_CUR = r"(?:\s?(?:USD|EUR|GBP|CHF|CAD|AUD))?"
_UNIT_AFTER = r"(?:\s?%|\s(?!(?:needs?|requires?|goes|go|is|are|must|should|will|gets?|to|per|"
_UNIT_AFTER += r"and|or|by|for|in|on|at|of|with|from|inclusive|exclusive|inclusively|exclusively)"
_UNIT_AFTER += r"\b)[a-z][a-z\-]*)?"
# 'A to B inclusive', '(exclusive)': whether the band's own edges are in it (jred16)
_EDGES = re.compile(r"\s*,?\s*\(?\s*(?P<w>inclusive|exclusive)(?:ly)?\s*\)?", re.I)
_RANGE = re.compile(
    r"(?<![\w:.,/])(?:(?P<pre>from|between)\s+)?(?P<a>"
    + _NUM
    + _CUR
    + r")(?P<ua>"
    + _UNIT_AFTER
    + r")"
    r"\s*(?P<sep>to|through|-|\u2013|\u2014|and)\s*"
    r"(?P<b>" + _NUM + _CUR + r")(?P<ub>" + _UNIT_AFTER + r")(?![\w:/]|[.,]\d)",
    re.I,
)
_CLAUSE_END = re.compile(r";|\.(?:\s|$)|$")
_REVIEW_EFFECT = re.compile(
    r"approv|sign[- ]?off|\breview|escalat|\bmanager\b|\bdesk\b|\blead\b", re.I
)
_DENY_EFFECT = re.compile(
    r"\bnot\b|\bnever\b|\bno\b|refus|reject|forbid|prohibit|declin|block|den(?:y|ied)", re.I
)
# a band that is what may be done ('between 10% and 20% - approved automatically; anything else
# needs approval'), or a rule with an else branch, is never read from where it starts
_ALLOW_EFFECT = re.compile(
    r"\bapproved\b|\bauto|\ballowed\b|\bpermitted\b|\bfine\b|\bok(?:ay)?\b|\bwithout\b|"
    r"\bno\s+(?:approval|review|sign)|\bself[- ]?serve|\bagents?\s+(?:may|can)\b",
    re.I,
)
_ELSEWISE = re.compile(
    r"\b(?:anything|everything)\s+else\b|\botherwise\b|\b(?:any|all)\s+other\b|\bor\s+else\b|"
    r"\boutside\b|\bonly\b",
    re.I,
)
_BARE_ABOVE = re.compile(
    r"\s*(?:(?:anything|everything|any\s+amount|amounts?)\s+)?(?P<w>above|over|higher|more|beyond)"
    r"(?:\s+(?:than\s+)?(?:that|this|it)\b)?(?!\s*(?:than\s+)?(?:[$\u00a3\u20ac]|\d|the\b))",
    re.I,
)
_CAP_BEFORE = re.compile(
    r"\b(?:up\s+to|at\s+most|max(?:imum)?|no\s+more\s+than)\s+(?P<n>" + _NUM + r")", re.I
)
_MONTHS = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:am|pm|utc|h)\b", re.I
)


def _number(written: str) -> float | None:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", written)
    if m is None:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def ranged(text: str) -> str | None:
    """`text` with each band 'A to B' that a clause sends to someone's approval written as where
    it starts ('25,000.01 to 100,000 -> regional manager approval' reads '25,000.01 or more ->
    …'; a band starting at the cap before it, '15% to 30%' after 'up to 15%', reads 'more than
    15%', the shared boundary staying with the earlier band). What lies above the band is review
    unless the rule's next band refuses it. None when the rule has no such band."""
    if _ELSEWISE.search(text):
        return None
    out = []
    pos = 0
    changed = False
    for m in _RANGE.finditer(text):
        end = _CLAUSE_END.search(text, m.end())
        clause = text[m.end() : end.start() if end else len(text)]
        starts = [x.end() for x in re.finditer(r";|\.(?:\s|$)", text[: m.start()])]
        before = text[starts[-1] if starts else 0 : m.start()]
        if not _REVIEW_EFFECT.search(clause) or _DENY_EFFECT.search(clause + " " + before):
            continue
        if _ALLOW_EFFECT.search(clause + " " + before):
            continue
        if _MONTHS.search(m.group(0)) or _MONTHS.match(text[m.end() :].lstrip()):
            continue
        if (m.group("sep").lower() == "and") != ((m.group("pre") or "").lower() == "between"):
            continue
        a, b = _number(m.group("a")), _number(m.group("b"))
        if a is None or b is None or not a < b:
            continue
        unit = m.group("ua") or m.group("ub") or ""
        cap = None
        for c in _CAP_BEFORE.finditer(text[: m.start()]):
            cap = _number(c.group("n"))
        start = m.group("a").strip()
        # the band's currency written once, after its end ('25,000.01 to 100,000 USD')
        code = re.search(r"(?:USD|EUR|GBP|CHF|CAD|AUD)$", m.group("b").strip(), re.I)
        if code and not re.search(r"[A-Za-z$\u00a3\u20ac]", start):
            start += " " + code.group(0)
        sym = re.match(r"[$\u00a3\u20ac]", m.group("b").strip())
        if sym and not re.search(r"[A-Za-z$\u00a3\u20ac]", start):
            start = sym.group(0) + start
        start += unit
        # 'inclusive': A is in the band (at or above A, even where a cap before ends at A: both
        # say so, and the band's review is the safer); 'exclusive': A is not (above A)
        edges = _EDGES.match(text, m.end())
        stop = edges.end() if edges else m.end()
        said = edges.group("w").lower() if edges else ""
        if said == "exclusive" or (not said and cap is not None and cap == a):
            new = f"more than {start}"
        else:
            new = f"{start} or more"
        if stop < len(text) and not text[stop].isspace() and text[stop] not in ".;,)":
            new += " "
        out.append(text[pos : m.start()] + new)
        pos = stop
        # the next clause refers to what lies above the band with no number of its own ('; above
        # is refused', '; anything over -> denied'): it means above B, which the band's start no
        # longer says, so B is written in (jred16)
        if end is not None and end.start() < len(text) and text[end.start()] == ";":
            nxt = _BARE_ABOVE.match(text, end.end())
            if nxt is not None:
                upper = m.group("b").strip() + (m.group("ub") or "")
                word = nxt.group("w")
                joined = (
                    f"{word} than {upper}"
                    if word.lower() in ("more", "higher")
                    else (f"{word} {upper}")
                )
                out.append(text[pos : nxt.start("w")] + joined)
                pos = nxt.end()
        changed = True
    if not changed:
        return None
    return "".join(out) + text[pos:]


# ---------------------------------------------------------------------------------------------
# 'Anything higher is refused' after a cap

_HIGHER = re.compile(
    r"(?:^|[.;:\u2013\u2014-]\s*)(?P<branch>(?:anything|any\s+amount|everything|any\s+[a-z]+|all|"
    r"amounts|values)\s+(?:higher|above|larger|bigger|greater|more|over|beyond)"
    r"(?:\s+than\s+(?:that|this|the\s+(?:cap|ceiling|limit)))?(?:\s+(?:that|this|it))?\s*"
    r"(?:->|\u2192|:|,)?\s*(?:is|are|will\s+be|gets?)?\s*"
    r"(?:refused|rejected|denied|declined|blocked|forbidden|prohibited|not\s+(?:allowed|permitted))"
    r"(?:\s*[,;\u2013\u2014-]?\s*no\s+exceptions?)?)\s*[.!]?\s*$",
    re.I,
)


def higher_refused(text: str) -> str | None:
    """The rule without a closing 'Anything higher is refused(, no exceptions)', which restates
    the cap before it; None when it has no such clause."""
    m = _HIGHER.search(text)
    if m is None or m.start("branch") == 0:
        return None
    head = text[: m.start("branch")].rstrip(" ,;:-\u2013\u2014")
    if not head:
        return None
    return head + ("" if head.endswith((".", "!")) else ".")


# jappr: 'Over that = no.', 'Less -> deny', 'Below that: rejected' after a bound: the same
# restatement with no 'anything', in either direction; 'up' restates a cap, 'down' a minimum
_BEYOND = re.compile(
    r"(?:^|[.;:\u2013\u2014-]\s*)(?P<branch>(?P<dir>higher|above|larger|bigger|greater|more|over|"
    r"beyond|longer|less|lower|below|under|fewer|shorter|smaller)"
    r"(?:\s+than\s+(?:that|this|the\s+(?:cap|ceiling|limit|minimum|floor)))?"
    r"(?:\s+(?:that|this|it))?\s*(?:->|\u2192|=>|=|:|,)?\s*(?:is|are|will\s+be|gets?|=)?\s*"
    r"(?:refused|rejected|reject|denied|deny|declined|blocked|forbidden|prohibited|no|"
    r"not\s+(?:allowed|permitted|ok))"
    r"(?:\s*[,;\u2013\u2014-]?\s*no\s+exceptions?)?)\s*[.!]?\s*$",
    re.I,
)
_DOWN = frozenset("less lower below under fewer shorter smaller".split())


def beyond_refused(text: str) -> tuple[str, str] | None:
    """(the rule without a closing 'Over that = no' / 'Less -> deny', 'up' or 'down'), the
    branch restating the bound before it; None when it has no such clause."""
    m = _BEYOND.search(text)
    if m is None or m.start("branch") == 0:
        return None
    head = text[: m.start("branch")].rstrip(" ,;:-\u2013\u2014")
    if not head:
        return None
    direction = "down" if m.group("dir").lower() in _DOWN else "up"
    return head + ("" if head.endswith((".", "!")) else "."), direction


def only_bounds(checks: Sequence[Check], direction: str) -> bool:
    """Every check is a denial beyond a bound in `direction` ('up': above a cap, 'down': below
    a minimum): what 'Over that = no' or 'Less -> deny' restates."""
    ops = ("gt", "ge") if direction == "up" else ("lt", "le")
    return bool(checks) and all(
        isinstance(c, NumericLimit) and c.effect == "deny" and c.op in ops for c in checks
    )


def only_caps(checks: Sequence[Check]) -> bool:
    """Every check is a denial above a bound: what 'anything higher is refused' restates."""
    return bool(checks) and all(
        isinstance(c, NumericLimit) and c.effect == "deny" and c.op in ("gt", "ge") for c in checks
    )


def values_whole(checks: Sequence[Check], head: str) -> bool:
    """No listed name was cut at an ampersand ('Harlow & Finch LLP' read as 'Harlow' and 'Finch
    LLP' would refuse the firm the list allows)."""
    for c in checks:
        values = getattr(c, "values", ())
        for amp in re.finditer(r"\S+\s*&\s*\S+", head):
            if not any("&" in str(v) for v in values) and any(
                str(v).lower() in amp.group(0).lower() for v in values
            ):
                return False
    return True


# ---------------------------------------------------------------------------------------------
# 'X other than A or B: route to <someone> for approval'

_ROUTE = re.compile(
    r"^(?P<subj>[^:;.]*\bother\s+than\b[^:;]+?)\s*(?::|->|\u2192|\s[-\u2013\u2014])\s*"
    r"(?:route|send|refer|escalate)\s+(?:it\s+|them\s+)?to\s+(?:the\s+)?(?P<role>[A-Za-z&][\w&\- ]{0,40}?)"
    r"\s+for\s+(?P<what>approval|review|sign[- ]?off)\s*[.!]?\s*$",
    re.I,
)


def routed(text: str) -> str | None:
    """'Reviewers from vendors other than Lexbridge or DocuCore: route to Legal Ops for
    approval.' as 'Reviewers from vendors other than Lexbridge or DocuCore need Legal Ops
    approval.': the allow-list written with 'other than' whose rest goes to someone's approval.
    None when the rule has not that shape."""
    m = _ROUTE.match(text.strip())
    if m is None:
        return None
    what = m.group("what").lower()
    return f"{m.group('subj').strip()} need {m.group('role').strip()} {what}."


def restated(text: str) -> str | None:
    """`text` with its bands and routed lists written the way the compiler reads them (`ranged`,
    `routed`); None when nothing changes."""
    out = routed(text) or text
    out = ranged(out) or out
    return None if out == text else out
