"""Rules labelled understood that decided on a misreading (red team jred19).

Each guard looks at a rule as written and every check compiled from it, and names the words of a
phrasing the checks read wrongly; those words stay unaccounted for, so the rule is partly
understood and never decides on its own (misreadings.py runs them beside its own guards). A guard
looks at what the checks read, not at the words alone: a reader that reads the phrasing right
makes it find nothing.

Each was an unsafe approval or a false denial on the lead's blind sets, shown beside near-misses
in bench/judge_cases/dev_jred19.json: a tool name read as a value some argument holds, an
argument's name read as a value, a count of an adjective, argument names the checks never read,
an agent glob read for every agent, an arrow's condition read only as subject words, and two
parties that must differ with no check comparing them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache

from webapp.judge.checks import (
    NOT_APPLICABLE,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Binding,
    Check,
    NumericLimit,
    Outcome,
    ValueList,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import STOPWORDS, stem, words

# The fields of a check that say only what the rule is about, or quote it: a word found only
# there was not read by the check.
_NOT_READ_FIELDS = frozenset(
    {"rule_index", "source", "effect", "terms", "alternatives", "kind", "kind_words", "about_words"}
)


@lru_cache(maxsize=4096)
def _read_text(c: Check) -> str:
    """Everything a check reads (its argument names, values, bounds), lower-cased, as one text."""
    parts: list[str] = []
    for f in dataclasses.fields(c):
        if f.name in _NOT_READ_FIELDS:
            continue
        v = getattr(c, f.name, None)
        if isinstance(v, Check):
            continue  # a nested check is in `every` on its own
        if isinstance(v, (tuple, list, frozenset, set)):
            parts += [str(x) for x in v if not isinstance(x, Check)]
        elif v is not None and not isinstance(v, (bool, int, float)):
            parts.append(str(v))
    return " ".join(parts).lower()


def _values(every: Sequence[Check]) -> list[str]:
    out: list[str] = []
    for c in every:
        vals = getattr(c, "values", None) or ()
        out += [v for v in vals if isinstance(v, str)]
        v = getattr(c, "value", None)
        if isinstance(v, str):
            out.append(v)
    return out


# -- a tool name read as a value ------------------------------------------------------------------
# 'edr.release_host: human analyst sign-off required, always.' read as "Send to review when an
# argument contains edr.release_host": no argument holds the tool's name, the rule never applied
# and the release was approved. 'no new awards (grants.award) with an award_date of Jun 24
# through Jun 30' read as "Deny when freeze awards contains grants.award". A tool name (or a tool
# glob 'iam.*') says which tool the rule governs, never a value an argument holds. A domain
# ('northwind.com') or a file ('report.pdf') ends in a suffix of its own and is left alone.
# (a namespace of letters: 't3.micro', 'c5.*' are instance types, a value an argument holds)
_TOOL_SHAPED = re.compile(r"^[a-z]{2,}[a-z_]*(?:\.[a-z][a-z0-9_]*)*\.(?:[a-z][a-z0-9_]*|\*)$")
_NOT_A_TOOL_SUFFIX = frozenset(
    "com org net io gov edu mil int co uk de fr eu us ca au nl es it ch se no dk fi be at ie "
    "pl pt jp cn in br mx ru ai dev app cloud info biz me tv ly local internal corp lan "
    "pdf csv json txt xml xlsx xls doc docx zip gz tar log yaml yml html htm png jpg jpeg gif "
    "exe dll sh py js ts sql bak eml msg ppt pptx md ini cfg conf pem key crt p12 tmp dat bin".split()
)


def _tool_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for v in _values(every):
        name = v.strip().lower()
        if not _TOOL_SHAPED.match(name) or name.rpartition(".")[2] in _NOT_A_TOOL_SUFFIX:
            continue
        if name in text.lower() and name not in out:
            out.append(name)
    return out


# -- an argument's name read as a value -----------------------------------------------------------
# 'Every filing must include preparer_id and reviewer_id' read as "Deny when an argument is
# preparer_id or reviewer_id" (a requirement turned into a ban); 'A check older than 24 months
# is expired = treat as not cleared (`check_age_months`)' read as "Deny when expired treat
# contains check_age_months". A name shaped as an identifier or a measure ('_id', '_months') or
# written in backticks names an argument, not a value it holds.
_NAME_SUFFIX = re.compile(
    r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:ids?|months?|days?|hours?|minutes?|weeks?|years?|date|"
    r"dates|at|on|by|count|number|no|num|age|amount|total|pct|percent|score|scores|email|name)$"
)
_BACKTICKED = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")


# (a list of fields an export must never include holds names as values: 'Exports must never
# include passport_number or card_number' is read right and left alone)
_REQUIRES = re.compile(
    r"\b(?:must|shall|should)\s+(?:include|contain|have|carry|cite|reference|provide)\b|"
    r"\b(?:needs?|requires?|required|mandatory)\b",
    re.I,
)
_BANS = re.compile(r"\b(?:never|not|no|without|exclude[sd]?|omit|strip|remove)\b|n't\b", re.I)


def _argument_name_read_as_value(text: str, every: Sequence[Check]) -> list[str]:
    ticked = {m.group(1) for m in _BACKTICKED.finditer(text)}
    out = []
    for c in every:
        vals = [v.strip().lower() for v in _values([c])]
        contains = isinstance(c, ValueList) and c.match == "contains"
        for v in vals:
            if not _NAME_SUFFIX.match(v) or v in out:
                continue
            if (contains and v in ticked) or _required_in_clause(text, v):
                out.append(v)
    return out


def _required_in_clause(text: str, name: str) -> bool:
    """Whether the clause that writes `name` requires it ('must include preparer_id and
    reviewer_id'), with no word of a ban in that clause ('must never include card_number')."""
    for clause in re.split(r"[,;:.]\s+|\s+-\s+", text):
        if name in clause.lower():
            return bool(_REQUIRES.search(clause)) and not _BANS.search(clause)
    return False


# -- a count of an adjective ----------------------------------------------------------------------
# 'Award needs >= 2 independent reviewer scores in `review_scores`' read as "the number of
# independent is below 2": no argument counts 'independent', the bound was never met and an award
# with one score (or the same reviewer twice) was approved. Whether the things counted are
# independent, distinct or separate is a relation among them no count reads.
_QUALIFIERS = frozenset(
    "independent distinct separate different unique additional other new valid qualified "
    "named senior external internal approved verified signed".split()
)


def _count_of_a_qualifier(text: str, every: Sequence[Check]) -> list[str]:
    out = []
    for c in every:
        if isinstance(c, NumericLimit) and c.noun and c.noun.lower() in _QUALIFIERS:
            out.append(c.noun.lower())
    if out:
        return out
    # a count read right but its qualifier dropped: '>= 3 distinct approver signatures'
    for m in re.finditer(
        r"(?:>=|at\s+least|min(?:imum)?\.?|\b\d+\s*\+)\s*\d*\s*(?P<q>"
        + "|".join(_QUALIFIERS)
        + r")\b",
        text,
        re.I,
    ):
        q = m.group("q").lower()
        if not any(q in _read_text(c) for c in every):
            out.append(q)
    return out


# -- argument names the checks never read ---------------------------------------------------------
# 'New vendors: tax_id required, and tax_form must be W-9 or W-8BEN.' read only as "Send to
# review when vendors has not been seen before": the two requirements were dropped and the rule
# still said understood. An argument named in the rule ('tax_id', 'scope=global') is a condition
# on that argument; when no check reads the name (nor compares a value of it), the rule was read
# without it.
_SNAKE = re.compile(r"(?<![\w.`@/-])`?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?(?![\w.@/-])")
_ASSIGNED = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)\s?=\s?[A-Za-z0-9]")


_NEW_PARTY_KINDS = frozenset({"first_time_counterparty"})
_REQUIRED_AFTER = re.compile(r"\s*(?:is\s+|are\s+)?(?:required|mandatory|must\b|needed)", re.I)


def _names_never_read(text: str, every: Sequence[Check]) -> list[str]:
    names: list[str] = []
    if every and all(c.kind in _NEW_PARTY_KINDS for c in every):
        # 'New vendors: tax_id required, and tax_form must be W-9': the new-party check alone
        names = [m.group(1) for m in _SNAKE.finditer(text)]
        names += [
            m.group(1)
            for m in re.finditer(r"\b([a-z][a-z0-9_]*)\b(?=" + _REQUIRED_AFTER.pattern + ")", text)
            if m.group(1).lower() not in STOPWORDS
        ]
    if every and all(c.kind == "action" for c in every) and any(c.effect == "allow" for c in every):
        # 'scope=global requires SOC lead sign-off; scope=site is fine.' read as subject words,
        # an allowance by topic: a scope of another value passed by silence
        names += [m.group(1) for m in _ASSIGNED.finditer(text)]
    if not names:
        return []
    read = " ".join(_read_text(c) for c in every)
    out = []
    for name in dict.fromkeys(names):
        if name not in read and name.replace("_", " ") not in read:
            out.append(name)
    return out


# -- an agent glob read for every agent -----------------------------------------------------------
# 'sandbox-* agents: dry_run must be true; live actions are denied.' read as "Deny when `dry_run`
# is not true (about: sandbox)": the glob became a subject word, and every agent's live action
# was judged by a rule for sandbox agents only. Who a rule is about is read by an agent check.
_GLOB = r"(?:(?:[a-z][a-z0-9]*-)+\*|\*-[a-z][\w-]*)"
_AGENT_GLOB = re.compile(
    rf"(?<![\w.*])(?:{_GLOB}(?=\s*(?:agents?|bots?|accounts?)\b)|^\W*{_GLOB}(?=\s*:)|"
    rf"(?<=agents\s)(?:named\s+|matching\s+)?{_GLOB})",
    re.I,
)
_AGENT_KINDS = frozenset(
    {"agent_blocked", "agent_bar", "agent_only", "tool_reserved", "reserved_act", "agent_scope"}
)


def _agent_glob_unread(text: str, every: Sequence[Check]) -> list[str]:
    globs = [m.group(0).lower() for m in _AGENT_GLOB.finditer(text)]
    if not globs or any(c.kind in _AGENT_KINDS for c in every):
        return []
    return globs


# -- an arrow's condition read only as subject words ----------------------------------------------
# 'Memory/disk images -> encryption must be aes-256.' read as "Deny unless an argument is aes-256
# (about: memory disk images encryption)": the condition became subject words beside the checked
# argument's own name ('encryption'), which every export carries, so a log bundle sent with
# aes-128 was denied. A condition before an arrow is read by a check or left unread.
_ARROW = re.compile(r"^(?P<cond>[^.;:]{2,80}?)\s*(?:->|=>|\u2192)\s*(?P<then>.+)$")


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 2}


def _arrow_condition(text: str, every: Sequence[Check]) -> tuple[str, set[str]] | None:
    """The condition before an arrow (its words and stems) when the checks read it only as
    subject words beside the consequent's own ('encryption'), else None."""
    m = _ARROW.match(re.sub(r"^\s*(?:\d+[.)]|[a-z][.)])\s*", "", text.strip()))
    if m is None or "`" in m.group("cond"):
        return None
    cond = _stems(m.group("cond"))
    then = _stems(m.group("then"))
    if not cond:
        return None
    read = _stems(" ".join(_read_text(c) for c in every))
    if cond & read or all(c.kind == "action" for c in every):
        return None  # (an act read by its subject words, 'Adding executives -> review', stays)
    # only when a subject word of the consequent sits beside the condition's words in the
    # checks' terms: any request naming the consequent's argument meets the whole subject
    terms = {t for c in every for t in c.terms}
    if cond & terms and then & terms:
        return m.group("cond").strip().lower(), cond
    return None


def _arrow_condition_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    found = _arrow_condition(text, every)
    return [found[0]] if found else []


# -- two parties that must differ, with no check comparing them -----------------------------------
# 'preparer and reviewer must not be the same person', 'requester and approver must differ':
# a relation between two arguments; with no check comparing them the rule was read without it.
_DIFFERENT = re.compile(
    r"\b(?:(?:must|may|can|should|shall)\s*(?:not|n't)?\s*(?:be\s+)?(?:the\s+)?same\s+"
    r"(?:person|people|user|individual|employee|account|party|agent|analyst)|"
    r"cannot\s+be\s+the\s+same|must\s+(?:differ|be\s+different)|not\s+the\s+same\s+"
    r"(?:person|user|individual))\b",
    re.I,
)
_COMPARING = frozenset({"same_value", "argument_comparison", "argument_pair", "distinct_arguments"})


def _parties_differ_unread(text: str, every: Sequence[Check]) -> list[str]:
    m = _DIFFERENT.search(text)
    if m is None or any(c.kind in _COMPARING or "Same" in type(c).__name__ for c in every):
        return []
    return [m.group(0).lower()]


# -- readings made right --------------------------------------------------------------------------
# 'edr.release_host: human analyst sign-off required, always.', '`iam.grant_admin` -> two-person
# approval, no exceptions.', 'iam.* : security sign-off required.': the rule's subject is a tool
# (or a tool glob), written first before a colon or an arrow, and all it asks is a person's
# decision. Read as a review of that tool's requests; another tool is not governed. Only a rule
# whose one check is that review of the tool's name as a value is read so: a condition, a bound
# or a denial beside the tool name keeps the guard's reading (review of every request).
_TOOL_HEAD = re.compile(
    r"^\W*(?:\d+[.)]\s*|[a-z][.)]\s+)?`?(?P<tool>[a-z]{2,}[a-z_]*(?:\.[a-z][a-z0-9_]*)*"
    r"\.(?:[a-z][a-z0-9_]*|\*))`?\s*(?::|->|=>|\u2192|\s[-\u2013\u2014])\s*(?P<tail>.+)$"
)
# the tail says only who must decide (and that there is no exception)
_DECISION_ONLY = re.compile(
    r"^(?:(?:always|every\s+time)\s*,?\s*)?(?:needs?|requires?)?\s*[\w\s-]{0,40}?"
    r"(?:sign-?off|approval|review)(?:\s+(?:required|needed|first))?"
    r"(?:\s*,?\s*(?:always|every\s+time|no\s+exceptions?))?\s*[.!]?$",
    re.I,
)


@dataclass(frozen=True)
class ToolNamed(Check):
    """A person decides every request to the named tool ('edr.release_host: human analyst
    sign-off required, always.'); another tool's request is not governed."""

    tool: str = ""
    kind: str = field(default="tool_named", init=False)

    def reading(self) -> str:
        return f"Send to review when the tool is `{self.tool}`"

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "tool": self.tool}

    def evaluate(self, view: RequestView) -> Outcome:
        if not fnmatchcase((view.tool_name or "").lower(), self.tool):
            return Outcome(NOT_APPLICABLE)
        return self.fire("matched", f"`{view.tool_name}` needs a person's decision")


def _mend_tool_subject(text: str, checks: list[Check]) -> list[Check] | None:
    m = _TOOL_HEAD.match(text.strip())
    if m is None or len(checks) != 1:
        return None
    tool, c = m.group("tool").lower(), checks[0]
    if m.group("tool").rpartition(".")[2] in _NOT_A_TOOL_SUFFIX:
        return None
    values = [v.strip().lower() for v in _values([c])]
    if c.effect != "review" or values != [tool] or not _DECISION_ONLY.match(m.group("tail")):
        return None
    return [ToolNamed(c.rule_index, c.source, "review", tool=tool)]


# 'Memory/disk images -> encryption must be aes-256.': the denial holds where the request names
# the condition's words (an image type `memory`, a tool `export_image`); where it names none of
# them the rule may not apply and a breach goes to a person. A denial is only ever turned into a
# review: nothing is approved that the check alone would not approve.
@dataclass(frozen=True)
class UnderCondition(Check):
    """A denial that holds when the request names the condition written before an arrow."""

    body: Check | None = None
    condition_terms: tuple[str, ...] = ()
    condition: str = ""
    kind: str = field(default="under_condition", init=False)

    def reading(self) -> str:
        inner = self.body.reading() if self.body else ""
        return (
            f"When the request is about {self.condition}: {inner} (a breach on a request that "
            "names none of it: review)"
        )

    def describe(self) -> dict[str, object]:
        inner = self.body.describe() if self.body else {}
        return {**super().describe(), "condition": self.condition, "body": inner}

    def evaluate(self, view: RequestView) -> Outcome:
        out = self.body.evaluate(view) if self.body else Outcome(NOT_APPLICABLE)
        if out.status == VIOLATED and not any(view.term_matches(t) for t in self.condition_terms):
            return Outcome(
                UNKNOWN,
                f"{out.message} (the request does not say it is about {self.condition}; a human "
                "should decide)",
                out.args,
            )
        return out


def _mend_arrow_condition(text: str, checks: list[Check]) -> list[Check] | None:
    found = _arrow_condition(text, checks)
    if found is None or any(c.effect != "deny" or c.kind == "action" for c in checks):
        return None
    phrase, cond = found
    return [
        UnderCondition(
            c.rule_index,
            c.source,
            c.effect,
            c.terms,
            c.alternatives,
            body=c,
            condition_terms=tuple(sorted(cond)),
            condition=phrase,
        )
        for c in checks
    ]


# -- the argument's own word read as a second subject ---------------------------------------------
# 'Refunds: receipt required (receipt_checked = true).', 'Wires to new beneficiaries: callback
# required (callback_done = true).' read as "Deny when `receipt_checked` is not true (about:
# refunds receipt)": the word that glosses the argument ('receipt') stayed a subject word beside
# the heading's, the rule was judged to be about receipts and not about this refund, and a refund
# with `receipt_checked: false` was approved. (Written 'Refunds need a receipt (…)', the word is
# read as the binding's gloss and the rule applies.) A subject word after the heading's colon
# that is a word of the argument the check binds is that gloss, which no check read.
_HEADING = re.compile(r"^[^:]{2,80}:\s*(?P<tail>.+)$")


def _glosses_as_subject(text: str, c: Check) -> list[str]:
    """The subject words of `c` after the heading's colon that are words of its argument."""
    m = _HEADING.match(text.strip())
    path = getattr(c, "path", None)
    if m is None or not isinstance(path, str) or not path:
        return []
    tail = {stem(w) for w in words(m.group("tail"))}
    head = {stem(w) for w in words(text[: m.start("tail")])}
    own = {stem(w) for w in words(path.replace("_", " ").replace(".", " "))}
    return [t for t in c.terms if t in own and t in tail and t not in head]


def _argument_word_as_subject(text: str, every: Sequence[Check]) -> list[str]:
    shown = {id(c.body) for c in every if isinstance(c, ArgumentShown)}
    out = []
    for c in every:
        if id(c) not in shown:
            out += [t for t in _glosses_as_subject(text, c) if t not in out]
    return out


@dataclass(frozen=True)
class ArgumentShown(Check):
    """A binding whose own word was read as a second subject: where the binding passes the
    request by (not about it) although the request carries the named argument against the
    rule's value, a person decides. Only a pass is turned into a review."""

    body: Binding | None = None
    kind: str = field(default="argument_shown", init=False)

    def reading(self) -> str:
        inner = self.body.reading() if self.body else ""
        path = self.body.path if self.body else ""
        return f"{inner} (a request carrying `{path}` against the rule's value: at least review)"

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "body": self.body.describe() if self.body else {}}

    def evaluate(self, view: RequestView) -> Outcome:
        body = self.body
        if body is None:
            return Outcome(NOT_APPLICABLE)
        out = body.evaluate(view)
        if out.status not in (SATISFIED, NOT_APPLICABLE):
            return out
        against = [lf for lf in body._leaves(view) if body._holds(lf.value) is False]
        if not against:
            return out
        lf = against[0]
        return Outcome(
            UNKNOWN,
            f"{lf.path} = {lf.value!r}, against the rule's `{body.path}`; whether the rule "
            "applies to this request is for a human to say",
            (lf.path,),
        )


def _mend_argument_word(text: str, checks: list[Check]) -> list[Check] | None:
    if not any(isinstance(c, Binding) and _glosses_as_subject(text, c) for c in checks):
        return None
    return [
        ArgumentShown(c.rule_index, c.source, c.effect, c.terms, c.alternatives, body=c)
        if isinstance(c, Binding) and _glosses_as_subject(text, c)
        else c
        for c in checks
    ]


# -- a code that restricts the rule, read by no check ---------------------------------------------
# 'Priority P1 incidents only: page on-call.' read as "Deny unless an argument is on-call (about:
# priority P1 incidents page)": the code became a subject word, and a P3 incident paged on-call
# was approved. A short code (a priority, a severity, a tier: 'P1', 'SEV-2', 'T3') says which
# requests the rule is about; a check reads it (a value it compares) or the rule is left unread.
_CODE = re.compile(r"(?<![\w.-])(?:P|SEV|T|TIER|L|LEVEL|PRIO|PRI)-?[0-9]{1,2}(?![\w.-])")


def _code_never_read(text: str, every: Sequence[Check]) -> list[str]:
    codes = [m.group(0) for m in _CODE.finditer(text)]
    if not codes or all(c.effect == "review" for c in every):
        return []  # (a review read by its subject words sends the matter to a person anyway)
    read = " ".join(_read_text(c) for c in every)
    return [c.lower() for c in dict.fromkeys(codes) if c.lower() not in read]


GUARDS: tuple[Callable[[str, Sequence[Check]], list[str]], ...] = (
    _tool_read_as_value,
    _argument_name_read_as_value,
    _count_of_a_qualifier,
    _names_never_read,
    _agent_glob_unread,
    _arrow_condition_as_subject,
    _parties_differ_unread,
    _argument_word_as_subject,
    _code_never_read,
)


MENDS: tuple[Callable[[str, list[Check]], list[Check] | None], ...] = (
    _mend_tool_subject,
    _mend_arrow_condition,
    _mend_argument_word,
)
