"""A rule out of the request's reach: the gate of a rule the engine does not fully read.

A rule the engine does not fully understand (partly understood, or kept as text) sends every
request it shares a word with to review. Many such rules hang their obligation on a *gate*, the
subject phrase before the predicate, which says which requests the rule speaks to; the gate is
often readable when the obligation is not:

- "Loan amt over $766,550 = jumbo; needs chief credit officer sign-off." (an amount);
- "Payouts to high-risk sellers are held for T&S review." (a tenant glossary category);
- "Rotating production keys outside an approved change window is not permitted …" and "Decline
  decisions must cite …" (a value qualifier on a closed dimension: environment, decision …).

When that gate is fully read and definitely false for the request, the rule does not govern the
request (`out_of_reach` gives the reason). The conditions make the unread part unable to widen the
gate, only to narrow it or to be the obligation:

- the gate is the text before the first predicate word (a modal, a copula, "=" …), and every
  token of it is accounted for: a connector from a short list (to, of, for, on …), the amount
  read with its boundary phrase (`boundaries.CONDITION`) and currency, a glossary term, a
  qualifier of the closed table below bound to an argument named for its dimension, or a subject
  word the request shows (the tool's name, the bound argument's name). Any other word, any
  punctuation, "or", "and", "any", "either", "including", "such as", "per", "daily", "total" …
  keeps the rule in reach. A trailing condition ("… outside an approved change window") may
  follow the gate: it can only narrow it, and nothing in it is read;
- every obligation of the rule (clauses split at ";", at sentence ends, at a second modal) must be
  out of reach on its own; a clause without a subject of its own is in reach, except right after
  a definition ("… = jumbo; needs …"), whose gate it takes;
- a permission ("may be issued by agents") is never out of reach: its bound implies a limit on
  what lies outside it; nor is a predicate that reaches further ("otherwise", "all others",
  "always", "likewise", "any" …);
- definite only: the bound argument is present, its value parses, a currency is known and the
  gate's own (a gate in USD against an amount in EUR, or a gate with no currency against an
  amount with one, stays in reach), a value close to a category is in reach (`vocabulary.near`),
  a value not shaped like the category's members cannot be compared, and a qualifier is out of
  reach only when the argument holds a value of another group of a closed table, never from
  string inequality.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from webapp.judge.boundaries import CONDITION, phrase_op, phrase_pattern
from webapp.judge.checks import (
    _ID_WORDS,
    _NOT_ALNUM,
    _OPS,
    APPROVAL_STEMS,
    _currency_of,
    _doubtful_record,
    _id_in_members,
    _in_glossary,
    _key_stems,
    _slip_of,
    _unit_argument,
    abbreviates,
    no_reference,
    outcome_stated,
)
from webapp.judge.compiler import _narrows, _normalise  # the compiler's own normal form of a rule
from webapp.judge.glossvalues import (
    GRADES as _GATE_GRADES,
)
from webapp.judge.glossvalues import (
    abbreviates as _abbreviates,
)
from webapp.judge.glossvalues import (
    may_be_value as _gate_value_may_be,
)
from webapp.judge.glossvalues import (
    value_token as _gate_token,
)
from webapp.judge.places import (
    COUNTRY_NAMES,
    COUNTRY_REGIONS,
    REGION_ALIASES,
    country_code,
    location_regions,
    region_name,
)
from webapp.judge.quantities import CURRENCY_CODES, find_quantities, parse_number_value
from webapp.judge.request_view import MONEY_KEYS, Leaf, RequestView, scalars, truthy
from webapp.judge.text import GENERIC, STOPWORDS, normalise_value, stem, words
from webapp.judge.vocabulary import Glossary, term_key

# Function words a gate may hold without a reading: they join the subject to its qualifiers.
_CONNECTORS = frozenset("a an the to of for from on in by with at into onto via".split())
# Words that start a trailing condition of the gate ('… outside an approved change window'):
# what follows narrows the gate and is not read.
_NARROWING = frozenset("outside during within without while whilst when whenever".split())
# Inside a trailing condition: anything that could join another subject or widen it.
_WIDENING = re.compile(
    r"\b(?:or|and|nor|either|any|all|every|each|including|such|other|others|plus|except|"
    r"excluding|unless|not|non|no|also|as well)\b|[,;:()\[\]/+&]|\d",
    re.I,
)
# Words that change what an amount measures ('daily refunds over 500', 'per day', 'in total').
_MEASURE_CHANGERS = frozenset(
    stem(w)
    for w in "per daily weekly monthly yearly annual annually quarterly hourly total totals "
    "cumulative cumulatively aggregate aggregated combined sum overall running rolling ytd mtd "
    "lifetime average avg net gross day days week weeks month months year years hour hours "
    "quarter quarters same".split()
)

# The first word of the predicate: the gate ends before it.
_PREDICATE = re.compile(
    r"(?<![\w-])(?:must|mustn't|may|might|can|cannot|can't|could|should|shall|will|won't|"
    r"need|needs|needed|require|requires|required|is|are|was|were|be|been|isn't|aren't|"
    r"get|gets|go|goes|has|have|do|does|don't|doesn't|not|never|only|always|mandatory|"
    r"prohibited|forbidden|allowed|permitted|banned|blocked|trigger|triggers|warrant|warrants|"
    r"demand|demands|undergo|undergoes)(?![\w-])|=",
    re.I,
)
# A second obligation inside the predicate: a predicate word after a separator ('… need a lead,
# and refunds are logged', '… and must cite a ticket').
_SECOND_PREDICATE = re.compile(
    r"(?:,|\band\b|\bbut\b|\bor\b|\bwhile\b|\bwhereas\b|\bthen\b).*?(?:" + _PREDICATE.pattern + ")",
    re.I,
)
# A predicate that reaches beyond the gate's subject ('otherwise …', 'all others …', 'likewise').
_REACHING = re.compile(
    r"\b(?:nor|neither|likewise|also|too|as well|same|regardless|irrespective|whatever|"
    r"whichever|otherwise|else|other|others|rest|remaining|any|all|every|each|always|"
    r"including|such as|e\.g|in addition|as are|as is|but|however)\b",
    re.I,
)
# A predicate that relieves the gated requests ('… are exempt from the ticket rule', '… need no
# review', '… are the only ones that may skip it'): what lies outside the gate is held to it.
_RELIEVING = re.compile(
    r"\b(?:exempt\w*|exception|excepted|skip\w*|bypass\w*|waiv\w*|excused|need\s+not|"
    r"needn't|no\s+need|only\s+ones?|the\s+only|suffice\w*|enough)\b|"
    r"\b(?:not?|don't|doesn't|never)\b[^.;]*\b(?:need|needs|needed|required|necessary|subject)\b",
    re.I,
)
# Coordination or punctuation inside a predicate: what follows may be a second subject whose
# predicate is left out ('… held for review and payouts to new sellers for 7 days').
_COORDINATED = re.compile(
    r"[,:;()\[\]—–/+]|(?<![\w])&|&(?![\w])|\s-\s|\b(?:and|or|nor|plus|as|then|too|also|"
    r"together|along|alongside|besides|likewise|ditto|idem)\b",
    re.I,
)
_EXCEPTION_TAIL = re.compile(r",?\s+(?:except|unless)\b(?P<tail>.*)$", re.I)
_PERMISSIVE = re.compile(
    r"\b(?:may|can|could|allowed|permitted|ok|okay|fine|eligible|automatically|auto)\b", re.I
)
_RESTRICTIVE = re.compile(r"\b(?:not|never|no|cannot|only)\b|n't\b", re.I)
# 'Loan amt over $766,550 = jumbo', 'Claims over 10k are considered large': a definition, whose
# gate the next clause without a subject takes ('…; needs CCO sign-off').
_DEFINITION = re.compile(
    r"^(?:=|(?:is|are)\s+(?:considered|deemed|treated\s+as|classed\s+as|classified\s+as))"
    r"\s*(?:an?\s+|the\s+)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2}\s*$",
    re.I,
)
# A place group in a gate: 'outside the EEA', 'out of the EU', 'non-EEA', 'in the EU', 'within
# the US', 'EU countries'. The place is a region or country name the table knows (any case) or
# a two-letter code in capitals; `_read_region` reads it or refuses.
_PLACE_NAMES = "|".join(
    re.escape(n).replace(r"\ ", r"\s+")
    for n in sorted({*COUNTRY_NAMES, *REGION_ALIASES}, key=len, reverse=True)
)


def _place(n: int) -> str:
    return rf"(?P<place{n}>(?i:{_PLACE_NAMES})|[A-Z]{{2,3}})"


_REGION_PHRASE = re.compile(
    r"(?<![\w-])(?:(?P<out>(?i:outside(?:\s+of)?|out\s+of|beyond))\s+(?i:the\s+)?"
    + _place(1)
    + r"|(?P<non>(?i:non)-?)"
    + _place(2)
    + r"|(?i:in|within|inside)\s+(?i:the\s+)?"
    + _place(3)
    + r"(?=\s*$)|"
    + _place(4)
    + r"(?=\s+(?i:countries|country|nations|jurisdictions|destinations)\b))(?![\w-])"
)
_CLOCK = r"\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?"
_TIME_WINDOW = re.compile(
    r"\s*\(\s*" + _CLOCK + r"\s*(?:-|to|until)\s*" + _CLOCK + r"(?:\s*(?-i:[A-Z]{2,4}))?\s*\)"
    r"|\s+between\s+" + _CLOCK + r"\s+and\s+" + _CLOCK + r"(?:\s*(?-i:[A-Z]{2,4}))?(?=\s*$)",
    re.I,
)
_ARGUMENT_NAMED = re.compile(r"\s*\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\s*\)", re.I)
# 'anything under /HR or /Finance', 'files in /Legal', 'in the /Board folder'
_PATH_PHRASE = re.compile(
    r"(?<![\w-])(?:(?:anything|everything|any\s+files?|files?|documents?|folders?|items?|"
    r"content)\s+)?(?:under|in|within|inside|beneath)\s+(?:the\s+)?(?:folders?\s+)?"
    r"(?P<paths>/[\w\-./]*(?:\s*(?:,\s*or|,|or|and)\s*/[\w\-./]*)*)(?:\s+folders?)?(?![\w/-])",
    re.I,
)
_PATH_TAIL = re.compile(
    r"\s+(?:for|on|of|to)\s+(?P<phrase>" + _PATH_PHRASE.pattern + r")\s*$", re.I
)
_PATH_KEYS = frozenset(
    stem(w)
    for w in "path paths folder folders dir directory filepath url uri link location".split()
)
# 'changes to a different country', 'relocations to another state'
_DIFFERENT = re.compile(
    r"(?<![\w-])(?:to|into|in)\s+(?:a\s+)?(?:different|another)\s+(?P<noun>[A-Za-z]+)\b", re.I
)
_BEFORE_WORDS = frozenset(
    "current old from existing previous prior source src origin original".split()
)
_AFTER_WORDS = frozenset("new to target destination dest updated".split())
_CLOSED_REGIONS = frozenset({"EU", "EEA"})
# Country codes that are also common words in a gate ('in', 'it', 'me', 'no', 'us' …).
_AMBIGUOUS_PLACES = frozenset(
    "in it is me no us be do am at by to of on or as id my so go hi".split()
)
# An obligation met by one argument it names in brackets, ending the clause: '… require callback
# verification (callback_ref)', '… must include a DPA reference (dpa_ref)'.
_ARG_NAMED = (
    r"\(\s*(?P<arg>[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*)"
    r"(?:\s*=\s*[\"'“]?(?P<val>[\w\-]+)[\"'”]?)?\s*\)"
)
_NAMED_OBLIGATION = re.compile(
    r"(?<![\w-])(?P<verb>must\s+(?:include|carry|cite|reference|have|provide|state|give|name|"
    r"record|attach|identify|specify|quote|supply|show|be)|need|needs|require|requires)\s+"
    r"(?P<what>[A-Za-z][\w'’\- ]{0,60}?)\s*" + _ARG_NAMED + r"$",
    re.I,
)
# '<a reference> (form_ref) is required for every change': the obligation is the whole clause
_NAMED_REQUIRED = re.compile(
    r"^(?P<what>[A-Za-z][\w'’\- ]{0,60}?)\s*"
    + _ARG_NAMED
    + r"\s+(?:is|are)\s+(?:required|mandatory|needed)"
    r"(?:\s+(?:for|on|in)\s+(?:every|each|all|any)\s+[A-Za-z][\w\- ]{0,40})?$",
    re.I,
)
_GATE_FORCE = re.compile(
    r"\b(?:must|may|might|shall|should|can|cannot|can't|could|need|needs|require|requires|"
    r"required|prohibited|forbidden|allowed|permitted|banned|blocked|never|mandatory|only|"
    r"except|unless|otherwise)\b",
    re.I,
)
# Words in the obligation that ask for more than one value is: a count, a second party, a list.
_MANY = re.compile(
    r"\b(?:and|or|plus|both|dual|two|three|second|multiple|several|all|each|every|per|"
    r"at\s+least|unless|except|before|after|within|"
    # a phrase qualifying what is asked for ('a co-signer in the EU', 'a guarantee from a
    # parent company', 'in good standing for a year', 'in the seller's own name'): the named
    # argument holding a value does not show the qualifier holds
    r"in|from|for|by|with|without|under|over|outside|inside|to|since|until|during|own|than)\b|\d",
    re.I,
)
# "('anyone with the link')": a quoted gloss in brackets right after the words it explains
_GLOSS = re.compile(r"\s*\(\s*['\"‘“](?P<g>[^'\"’”()]{1,60})['\"’”]\s*\)")
_ALSO_END = re.compile(r"\s+(?:also|additionally)$", re.I)
_ANY_CURRENCY = re.compile(r"^\s*\(\s*(?:in\s+)?(?:any|all)\s+currenc(?:y|ies)\s*\)", re.I)
_BOUNDARY_BEFORE = re.compile(
    r"(?:^|(?<=\s))(?P<phrase>" + phrase_pattern(CONDITION) + r")\s*$", re.I
)
_OR_MORE = re.compile(
    r"^\s*(?P<phrase>or\s+more|and\s+above|or\s+above|or\s+higher|and\s+over|or\s+greater|"
    r"or\s+less|or\s+fewer|and\s+below|and\s+under|or\s+below|or\s+lower)\b",
    re.I,
)
_OR_MORE_OP = {"more": "ge", "above": "ge", "higher": "ge", "over": "ge", "greater": "ge"}
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’.&\-][A-Za-z0-9]+)*(?:'s|’s)?")
_CLAUSES = re.compile(r";|(?<=[.!?])\s+(?=[A-Z0-9])|\s-\s")
_NEGATED = re.compile(r"^non\b|^non-", re.I)
_NEGATION_PREFIX = re.compile(r"^(?:non-?|un(?=[a-z]))", re.I)

_ID_KEYS = frozenset(stem(w) for w in "id ids number no num ref code uuid key name".split())
_IDENT = frozenset(stem(w) for w in "id ids name code ref number no num uuid handle".split())
_CURRENCY_KEYS = frozenset({"currenc", "ccy", "cur"})
_LOWER_CODES = frozenset(c.lower() for c in CURRENCY_CODES)
# Argument names that state a request's own amount ('amount', 'amount_usd', 'total').
_UNIT_FAMILIES = frozenset({"time", "mass", "bytes", "percent"})
_PERCENT_KEYS = frozenset({"percent", "pct", "rate", "ratio", "share"})
_OWN_AMOUNT = frozenset({"amount", "amt", "sum", "valu", "value", "total"})
# Argument name words that say the value is a place ('to_country', 'destination_countries').
# Arguments that name a place in a form the country table does not read.
_PLACE_HINT_KEYS = frozenset(
    stem(w)
    for w in "phone phones msisdn mobile tel telephone address addresses city state province "
    "postcode zip swift bic routing".split()
)
_PHONE = re.compile(r"^\s*(?:\+|00)\d[\d\s().\-]{5,}$")
_PLACE_KEYS = frozenset(
    stem(w)
    for w in "country countries nation jurisdiction destination dest region market location "
    "residence domicile".split()
)


# ---------------------------------------------------------------------------------------------
# The closed table of value qualifiers. A qualifier word in a gate ('production keys', 'decline
# decisions') is read only through an argument named for its dimension, and only a value of
# another group of the same dimension puts the request out of reach; an unknown value, or one of
# the rule's own group, keeps it in reach.
# A group may weigh more than another ('production' more than 'staging', 'permanent' more than
# 'temporary'): a rule on the lighter group does not leave the heavier one out of its reach (a
# fortiori, 'Staging deploys need a ticket' is no licence for production), so a request is out of
# reach only when its group weighs no more than the rule's.
@dataclass(frozen=True)
class _Dimension:
    name: str
    groups: dict[str, frozenset[str]]  # group -> normalised values
    own_keys: frozenset[str]  # argument name words that name the dimension on their own
    typed_keys: frozenset[str]  # words that name it only beside the qualified noun ('ban_type')
    weight: dict[str, int]  # group -> weight (0 unless named)


def _dimension(
    name: str, groups: dict[str, str], own: str, typed: str = "", heavier: str = ""
) -> _Dimension:
    return _Dimension(
        name,
        {g: frozenset(normalise_value(v) for v in vs.split(",")) for g, vs in groups.items()},
        frozenset(stem(w) for w in own.split()),
        frozenset(stem(w) for w in typed.split()),
        {g: int(g in heavier.split()) for g in groups},
    )


DIMENSIONS: tuple[_Dimension, ...] = (
    _dimension(
        "environment",
        {
            "production": "production,prod,prd,live",
            "staging": "staging,stage,stg,preprod,pre-prod,preproduction,pre-production",
            "development": "development,dev,develop",
            "test": "test,testing,qa,uat",
            "sandbox": "sandbox,sbx",
            "local": "local",
        },
        "env environment stage",
        "tier",
        heavier="production",
    ),
    _dimension(
        "decision",
        {
            "approve": "approve,approved,approval,accept,accepted,grant,granted",
            "decline": "decline,declined,deny,denied,reject,rejected,refuse,refused",
        },
        "decision outcome result disposition verdict action",
    ),
    _dimension(
        "permanence",
        {
            "permanent": "permanent,perm,indefinite",
            "temporary": "temporary,temp,timed,time-limited,time limited",
        },
        "permanence",
        "type kind duration term",
        heavier="permanent",
    ),
    _dimension(
        "presence",
        {"remote": "remote", "onsite": "onsite,on-site,on site,in-person,in person,onprem"},
        "presence",
        "type kind mode location",
        heavier="remote",
    ),
    _dimension(
        "direction",
        {"inbound": "inbound,ingress,incoming", "outbound": "outbound,egress,outgoing"},
        "direction",
        "type kind",
    ),
    _dimension(
        "reach",
        {"domestic": "domestic", "international": "international,cross-border,cross border"},
        "reach",
        "type kind scope",
        heavier="international",
    ),
    _dimension(
        "severity",
        {"major": "major,critical,severe", "minor": "minor,trivial"},
        "severity sev",
        "class classification level",
        heavier="major",
    ),
    # 'Involuntary terminations need …' against termination_type 'voluntary'
    _dimension(
        "voluntariness",
        {"voluntary": "voluntary", "involuntary": "involuntary,non-voluntary"},
        "voluntariness",
        "type kind category",
        heavier="involuntary",
    ),
    # 'Unscheduled maintenance windows need …' against window_type 'scheduled'
    _dimension(
        "planning",
        {"planned": "planned,scheduled", "unplanned": "unplanned,unscheduled,emergency"},
        "planning",
        "type kind category",
        heavier="unplanned",
    ),
)
# The words a rule's gate is read through: a subset of the values, without the words that are
# often something else ('live chat', 'local deliveries', 'IPC tests', 'temp workers', 'critical
# assets', 'grant applications', 'approval requests'); those stay subject words to be shown.
_RULE_WORDS = {
    "environment": "production prod staging stg preprod pre-prod development dev sandbox qa uat",
    "decision": "approved accepted declined denied rejected refused",
    "permanence": "permanent temporary indefinite",
    "presence": "remote onsite on-site",
    "direction": "inbound outbound ingress egress incoming outgoing",
    "reach": "domestic international cross-border",
    "severity": "major minor",
    "voluntariness": "voluntary involuntary",
    "planning": "planned unplanned scheduled unscheduled",
}
# Bare verbs name a decision only before a noun of its dimension ('Decline decisions', 'Deny
# outcomes'); 'Reject transactions over 500' is an imperative, not a qualifier.
_DECISION_VERBS = frozenset("approve accept decline deny reject refuse".split())
_DECISION_NOUNS = frozenset(stem(w) for w in "decision outcome result disposition verdict".split())
_QUALIFIERS: dict[str, tuple[_Dimension, str]] = {
    v: (d, g)
    for d in DIMENSIONS
    for g, vs in d.groups.items()
    for v in vs
    if v in _RULE_WORDS[d.name].split() or (d.name == "decision" and v in _DECISION_VERBS)
}


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Amount:
    op: str
    threshold: float
    currency: str | None  # None: no currency written; "*": '(any currency)'
    measure: tuple[str, ...]  # stems of the words naming what is measured, right before it
    at_start: bool  # the measured words open the gate (the subject's own amount)
    phrase: str  # the boundary phrase as written, for the reason
    phrase_after: bool = False  # written after the amount ('25,000 EUR or more')
    # 'money'; a unit family ('time', 'mass', 'bytes', 'percent') with the rule's unit factor; or
    # 'count' of `noun` ('accounts with more than 1M followers')
    kind: str = "money"
    unit_factor: float = 1.0
    noun: str = ""
    written: str = ""  # the bound as written ('1M followers', '12 hours', '20%')


@dataclass(frozen=True)
class _Category:
    phrase: str
    members: tuple[str, ...]
    head: str  # stem of the noun the category qualifies ('seller')
    # 'non-approved vendors': the gate is what lies outside the term it names ('approved vendors')
    outside_of: str = ""


@dataclass(frozen=True)
class _Qualifier:
    word: str
    dimension: _Dimension
    group: str
    head: tuple[str, ...]  # stems of the words after it ('keys', 'decisions')


@dataclass(frozen=True)
class _Region:
    """'outside the EEA', 'non-EU', 'in the EU', 'EU countries', 'outside the US': a place
    group the request's countries are inside (`inside`) or outside of."""

    phrase: str
    codes: frozenset[str]  # the countries of the group
    inside: bool


@dataclass(frozen=True)
class _Paths:
    """'anything under /HR or /Finance', 'files in /Legal': the request's paths lie under one of
    the folders."""

    phrase: str
    folders: tuple[str, ...]  # as written, without a trailing slash


@dataclass(frozen=True)
class _Different:
    """'changes to a different country', 'relocations to another state': the value after the
    act differs from the value before it."""

    phrase: str
    noun: str  # stem of the thing that must differ ('country')


@dataclass(frozen=True)
class _Gate:
    conditions: tuple[Any, ...]
    subject: tuple[str, ...]  # stems of the subject words the request must show
    # "public links ('anyone with the link')": a quoted gloss of the subject; when a value of the
    # request is the gloss (`anyone_with_link`), the subject's words are shown by it
    gloss: tuple[str, ...] = ()


_Reading = tuple[_Gate, ...] | None


# 'Store #0388: controlled substances suspended', 'Warehouse WH-04: inbound receiving paused
# (audit)': a hold whose scope is one named value of a kind, written first. Whatever the words
# after the colon mean, they speak only of that value; a second subject ('all other stores',
# 'elsewhere', 'also') or a second clause keeps the rule in reach.
_HELD_VALUE = re.compile(
    r"^(?:the\s+)?(?P<kind>[A-Za-z]+)\s+#?(?P<name>(?=[\w.\-/]*\d)[\w.\-/]*\w)\s*:\s*"
    r"(?P<rest>[^;:()]+?)\s+(?:(?:is|are)\s+)?(?:suspended|on\s+hold|paused|halted|frozen|stopped)"
    r"(?:\s+(?:until|till|pending|due to)\s+[^;:()]+?)?(?:\s*\([^()]*\))?\s*[.!]?\s*$",
    re.I,
)
_WIDER = re.compile(r"\b(?:other|others|elsewhere|also|too|every|each|any|and|or|plus)\b", re.I)


@lru_cache(maxsize=65536)
def _held_value(text: str) -> tuple[str, str, str, str] | None:
    """The hold of `text` on one named value, as (kind stem, kind word, name, name's letters and
    digits), or None when the rule is no such hold. It depends on the rule's words alone, so it
    is read once per rule text rather than for every request (most rules are no hold at all)."""
    m = _HELD_VALUE.match(" ".join(text.split()))
    if m is None or _WIDER.search(m.group("rest")):
        return None
    kind, name = stem(m.group("kind").lower()), m.group("name")
    if kind in _IDENT or kind in _CONNECTORS:
        return None
    return kind, m.group("kind").lower(), name, _NOT_ALNUM.sub("", name.upper())


def _held_elsewhere(text: str, view: RequestView) -> str | None:
    """Why a hold on one named value ('Store #0388: …') does not reach the request: the argument
    named for the kind (`store_id`) holds another identifier of the series, and no other value
    of the request names the held one."""
    hold = _held_value(text)
    if hold is None:
        return None
    kind, kind_word, name, held = hold
    bound = [lf for lf in view.leaves if kind in lf.last_keys and lf.last_keys - {kind} <= _IDENT]
    if not bound or not held:
        return None
    for _, v in _strings(view):
        # the held value written anywhere (a note, a longer id), or a slip for it
        got = _NOT_ALNUM.sub("", v.upper())
        if len(v) > 2000 or held in got or _slip_of(got, held):
            return None
    for lf in bound:
        for v in scalars(lf.value):
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                return None
            got = _NOT_ALNUM.sub("", str(v).upper())
            # another identifier of the series: the same length and shape, or one digit put
            # for another; anything closer (a slip, one inside the other) stays in reach
            if not got or got == held or got in held or held in got:
                return None
            if _slip_of(got, held):
                return None
            if _skeleton(got) != _skeleton(held):
                return None
    where = ", ".join(f"{lf.path} {lf.value!r}" for lf in bound)
    return f"the hold is on {kind_word} {name}; the request is for {where}"


# 'Sterile products (product_class = sterile): endotoxin … must be below 0.25, otherwise do not
# release', 'Amended returns (is_amendment = true) always go to Head of Tax', 'Prod DB credentials
# (environment=prod, secret_type=db_credential): only with dual_credential=true': the subject at
# the head of the rule, glossed with the argument and the values that make a request one of them,
# in the request's own words. When the request carries every argument the gloss binds and one of
# them holds none of its values (nor a value holding one, or held in one: 'sterile_injectable'),
# the rule does not reach it, whatever its unread obligation says. The gloss must open the rule
# (after a number or a bullet) and end its subject: a widening word in the subject ('all', 'any',
# 'including'), an example marker in the bracket ('e.g.', 'such as', 'etc'), another subject after
# it ('… or injectables'), or a second sentence keeps the rule in reach.
_BOUND_GATE = re.compile(
    r"^\s*(?:(?:\d{1,2}|[a-z])[.)]\s+|[-*\u2022]\s+)?"
    r"(?P<subject>[A-Za-z][A-Za-z\- ']{1,60}?)\s*\(\s*(?P<binds>[^()]{3,120})\)\s*"
    r"(?P<after>:|->|\u2192|always\b|must\b|need|require|are\b|is\b|may\b|go\b|should\b)",
    re.I,
)
_BOUND_PAIR = re.compile(
    r"^\s*`?(?P<arg>[a-z][a-z0-9_]*)`?\s*(?:==|=|:)\s*(?P<vals>[^=:,;]+?)\s*$", re.I
)
_GATE_WIDENING = re.compile(
    r"\b(?:all|any|every|each|including|incl|even|both|other|others|plus|e\.g|eg|such\s+as|"
    r"etc|like|for\s+example|among|besides|beyond|outside|except|excluding|apart|not|no|non|"
    r"never|without|than|unlike|instead)\b|n't\b",
    re.I,
)
_GATE_VALUE_SPLIT = re.compile(r"\s*(?:/|,|\bor\b)\s*", re.I)
# jred23: words that make the glossed subject one of several, or its complement, or the gloss a
# negation ('Refunds and credits (refund_type = goodwill)', 'Only sterile products (…) may be
# released', '(status = not closed)'), and words after the gloss that speak of the other
# requests ('…, all other products need QA review', '… may be released by agents, otherwise QA
# review', '… are exempt'): the rule then speaks to a request outside the gloss too
_GATE_SUBJECT_WIDE = re.compile(
    r"\b(?:and|or|only|solely|exclusively|except|excluding|but|not|no|non|un|anything|"
    r"everything|unlike|than|without|besides|beside|outside|beyond|apart|save|instead)\b|[&/+]",
    re.I,
)
_GATE_VALUE_NEGATED = re.compile(
    r"\b(?:not|non|no|except|excluding|but|other|than|anything|everything|never|neither|nor)\b",
    re.I,
)
_GATE_REST_OTHERS = re.compile(
    r"\b(?:other|others|else|rest|remaining|remainder|solely|exclusively|unlike|but|non|"
    r"otherwise|except|excluding|may(?!\s+(?:not|never)\b)|can(?!not\b|\s+not\b|'t)|allowed|"
    r"permitted|ok|okay|exempt|free|without|"
    r"only(?!\s+(?:with|if|when|after|once|by)\b)|"
    r"unless|whereas|while|instead)\b",
    re.I,
)
# '… must be below 0.25, otherwise do not release': the otherwise of the condition, not of the
# subject (it speaks of the glossed products that fail it)
_CONDITION_OTHERWISE = re.compile(
    r"\bmust\s+(?:be|stay|remain)\s+(?:below|above|under|over|at\s+(?:least|most)|less\s+than|"
    r"more\s+than|within|between)\b[^,;]*,\s*otherwise\s+(?:do\s+not|don't|never|no)\b",
    re.I,
)


@lru_cache(maxsize=16384)
def _bound_gate(text: str) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """The (argument, values) pairs of a rule's glossed subject (_BOUND_GATE), or None."""
    m = _BOUND_GATE.match(text)
    if (
        m is None
        or _GATE_WIDENING.search(m.group("subject"))
        or _GATE_WIDENING.search(m.group("binds"))
        or _GATE_SUBJECT_WIDE.search(m.group("subject"))
        or _GATE_VALUE_NEGATED.search(m.group("binds"))
        or re.search(r"!=|<>|[<>\u2260]", m.group("binds"))
    ):
        return None
    rest = text[m.end() :]
    if re.search(r"[.;!?]\s+\S|\n", rest.strip()) or re.match(r"\s*(?:or|and|/|,)\b", rest):
        return None
    if _GATE_REST_OTHERS.search(_CONDITION_OTHERWISE.sub(" ", text[m.start("after") :])):
        return None
    subject_words = {_gate_token(w) for w in re.split(r"[\s\-']+", m.group("subject")) if w}
    pairs: list[tuple[str, tuple[str, ...]]] = []
    for part in m.group("binds").split(","):
        pm = _BOUND_PAIR.match(part)
        if pm is None:
            return None
        vals = tuple(
            v.strip(" '\"`\u2018\u2019\u201c\u201d").lower()
            for v in _GATE_VALUE_SPLIT.split(pm.group("vals"))
        )
        if not vals or not all(re.fullmatch(r"[a-z0-9][a-z0-9 _.\-]{0,40}", v) for v in vals):
            return None
        if not set(vals) <= {"true", "false"}:
            if any(_gate_token(t) in _GATE_GRADES for v in vals for t in re.split(r"[\s_\-]+", v)):
                return None
            # the gloss restates the subject ('Sterile products (product_class = sterile)'); a
            # value the subject does not name ('Controlled substances (schedule = II)') may be
            # one example of it
            if not any(
                _gate_token(t) in subject_words
                or any(_abbreviates(_gate_token(t), w) for w in subject_words)
                or any(len(w) >= 3 and _gate_token(t).startswith(w) for w in subject_words)
                for v in vals
                for t in re.split(r"[\s_\-]+", v)
                if len(_gate_token(t)) >= 2
            ):
                return None
        elif "false" in vals:
            # 'Test accounts (is_test = false)': a subject that names the flag it says is off
            flag = {_gate_token(t) for t in pm.group("arg").lower().split("_")} - {"is", "has"}
            if flag & subject_words:
                return None
        pairs.append((pm.group("arg").lower(), vals))
    return tuple(pairs) or None


def _gloss_shown_elsewhere(view: RequestView, gated: Leaf, vals: tuple[str, ...]) -> bool:
    """Whether another argument of the request names a glossed value (`sub_class: sterile`,
    `product_classes: [oral, sterile]`, `kit_contents: 'sterile syringe'`, `is_sterile: true`): the
    request may be one of the subject whatever the gated argument says."""
    wanted = {
        _gate_token(t)
        for v in vals
        if v not in ("true", "false")
        for t in re.split(r"[\s_\-]+", v)
        if len(t) >= 3
    }
    if not wanted:
        return False
    for lf in view.leaves:
        if lf is gated:
            continue
        keys = {_gate_token(t) for t in re.split(r"[._\[\]\d]+", lf.path.lower()) if t}
        if wanted & keys and lf.value not in (False, None, "", 0):
            return True
        for x in scalars(lf.value):
            if isinstance(x, str) and wanted & {
                _gate_token(t) for t in re.split(r"[^A-Za-z0-9]+", x)
            }:
                return True
    return False


def _bound_gate_false(text: str, view: RequestView) -> str | None:
    """Why the glossed subject of `text` (_bound_gate) is false for the request, or None."""
    pairs = _bound_gate(text)
    if pairs is None:
        return None
    why = None
    for arg, vals in pairs:
        leaves = [lf for lf in view.leaves if lf.path.lower() == arg]
        if len(leaves) != 1:
            return None  # not carried (or carried twice): the gate may hold
        if _gloss_shown_elsewhere(view, leaves[0], vals):
            return None  # 'components: [{product_class: sterile}]', `is_sterile: true`
        value = leaves[0].value
        flags = set(vals) <= {"true", "false"}
        if isinstance(value, bool) and flags:
            shown = "true" if value else "false"
        elif isinstance(value, str) and value.strip() and not flags:
            shown = re.sub(r"\s+", " ", value.strip().lower())
        else:
            # a number, a list, an empty value, 'yes' for a flag: not compared here
            return None
        if any(shown == v or v in shown or shown in v for v in vals):
            continue
        if not flags and _gate_value_may_be(shown, vals):
            return None
        if any(location_regions(x) is not None for x in (shown, *vals)):
            return None  # '(region = EU)' and 'FR': a place is inside another, a human reads it
        why = why or f"{arg} = {value!r} is not {' or '.join(vals)}, the rule's subject"
    return why


def text_readings(text: str) -> tuple[bool, bool, bool]:
    """Which readings of the rule's words alone `out_of_reach` and `obligations_met` can answer
    from: a hold on one named value (`_held_value`), a glossed subject (`_bound_gate`), named
    obligations (`_named_obligations`). They depend on the text alone: the engine keeps them per
    compiled rule, so a text rule that holds none of them is not read again for every request."""
    return (
        _held_value(text) is not None,
        _bound_gate(text) is not None,
        bool(_named_obligations(text)),
    )


def out_of_reach(
    text: str,
    view: RequestView,
    glossary: Glossary | None,
    compiled: bool = False,
    *,
    held: bool = True,
    glossed: bool = True,
) -> str | None:
    """Why the rule `text` does not reach the request of `view`, or None when it may.

    `compiled`: the rule compiled and a check of it asks for review; its gate may set that aside
    only when it holds no amount (the check read every amount of the request itself).
    `held`, `glossed`: False when `text_readings` found no hold or no glossed subject in the
    text (they would answer None)."""
    if held:
        why = _held_elsewhere(text, view)
        if why is not None:
            return why
    if glossed:
        bound = _bound_gate_false(text, view)
        if bound is not None:
            return bound
    gates = read_gates(text, glossary)
    if not gates:
        return None
    if compiled and any(isinstance(c, _Amount) for g in gates for c in g.conditions):
        return None
    whys = []
    for gate in gates:
        why = _gate_false(gate, view)
        if why is None:
            return None
        whys.append(why)
    return "; ".join(dict.fromkeys(whys))


_READINGS: dict[tuple[str, str], _Reading] = {}
_READINGS_SIZE = 16384


def read_gates(text: str, glossary: Glossary | None) -> _Reading:
    """The gate of every obligation of `text`, or None when one of them has no readable gate.

    Read once per rule text and glossary (its fingerprint), like the compiled policies."""
    terms = glossary.terms if glossary is not None else {}
    key = (text, glossary.fingerprint if glossary is not None and terms else "")
    hit = _READINGS.get(key, _READINGS)
    if hit is not _READINGS:
        return hit  # type: ignore[return-value]
    reading = _read_gates(text, terms)
    if len(_READINGS) >= _READINGS_SIZE:
        _READINGS.clear()
    _READINGS[key] = reading
    return reading


def _read_gates(text: str, glossary: Mapping[str, tuple[str, ...]]) -> _Reading:
    clean = _normalise(text).strip().rstrip(".!").strip()
    gates: list[_Gate] = []
    defined: _Gate | None = None
    clauses = [c.strip() for c in _CLAUSES.split(clean)]
    clauses = [c.rstrip(".!").strip() for c in clauses if c.strip(" .!")]
    if not clauses:
        return None
    for clause in clauses:
        m = _PREDICATE.search(clause)
        if m is None:
            no = re.match(r"(?i)no\s+", clause)
            if no is None:
                return None  # no predicate: not a shape read here
            # 'No external sharing of anything under /Legal': a prohibition of its whole gate
            gate_text, predicate = clause[no.end() :].strip(), "not allowed"
        else:
            gate_text, predicate = clause[: m.start()].strip(), clause[m.start() :].strip()
        tail = _PATH_TAIL.search(predicate)
        if tail is not None:
            # 'Public links are not allowed for files in /HR': the folders narrow the subject
            gate_text = f"{gate_text} {tail.group('phrase')}"
            predicate = predicate[: tail.start()]
        # 'Involuntary terminations also need …': the adverb adds the obligation to others the
        # subject has, it does not widen the subject
        gate_text = _ALSO_END.sub("", gate_text)
        if not gate_text:
            if defined is None:
                return None  # 'needs sign-off' with no subject of its own: in reach
            gate = defined
        else:
            gate = _read_gate(gate_text, glossary)
            if gate is None:
                return None
        if _DEFINITION.match(predicate):
            defined = gate
        else:
            if not _predicate_stays(predicate):
                return None
            defined = None
        gates.append(gate)
    return tuple(gates)


def obligations_met(text: str, view: RequestView) -> str | None:
    """Why every obligation of the rule `text` is met by the request whatever its gate, or None.

    Each clause must end in one obligation on an argument it names in brackets ('Wires to a
    beneficiary we have not paid before require callback verification (callback_ref)'), asking
    for one thing (no count, no second party, no 'and'/'or', no time condition), and that
    argument must hold a value: a non-empty string that is no stand-in ('N/A', 'TBD') and
    states no bad or unfinished outcome ('pending', 'rejected'), or true. The gate is not read:
    whichever requests it speaks to, the obligation is met."""
    named = _named_obligations(text)
    if not named:
        return None
    met = []
    for arg, val in named:
        leaf = next(
            (lf for lf in view.leaves if lf.path == arg or lf.path.endswith("." + arg)), None
        )
        if leaf is None:
            return None
        v = leaf.value
        if val:
            # '(registered = true)', '(account_status = active)': that value, written the same
            ok = (
                v is True
                if val.lower() == "true"
                else isinstance(v, str) and normalise_value(v) == normalise_value(val)
            )
        elif _key_stems(arg.rsplit(".", 1)[-1]) & APPROVAL_STEMS:
            # an approval's record: a value naming it, never a flag ('approved: true') or a
            # stand-in, an outcome or a requesting agent
            ok = bool(
                isinstance(v, str)
                and truthy(v)
                and not no_reference(v, leaf.last_keys | {"id"})
                and outcome_stated(v) is None
                and v.strip().lower() != (view.agent_id or "").strip().lower()
                and not _doubtful_record(v)
            )
            # `security_approval_status: "withdrawn"`, `…_approval_scope`: an argument named with
            # the whole name says more of the approval than the check compares (review)
            mine = _key_stems(arg.rsplit(".", 1)[-1]) - _ID_WORDS
            ok = ok and not any(
                lf.path != leaf.path and mine < _key_stems(lf.path.rsplit(".", 1)[-1])
                for lf in view.leaves
            )
        else:
            ok = v is True or bool(
                isinstance(v, str)
                and v.strip()
                and not no_reference(v, leaf.last_keys)
                and truthy(v)
            )
        if not ok:
            return None
        met.append(f"{leaf.path} is {v!r}" if val else f"{leaf.path} is given")
    return "its obligation is met: " + "; ".join(met)


@lru_cache(maxsize=16384)
def _named_obligations(text: str) -> tuple[tuple[str, str], ...]:
    """(argument, required value or '') of each clause's one obligation on an argument it names
    in brackets, or () when a clause has another shape (read once per rule text)."""
    if "(" not in text:
        return ()
    clean = _normalise(text).strip().rstrip(".!").strip()
    clauses = [c.strip().rstrip(".!").strip() for c in _CLAUSES.split(clean)]
    clauses = [c for c in clauses if c]
    named = []
    for clause in clauses:
        m = _NAMED_REQUIRED.match(clause)
        gate = ""
        if m is None:
            m = _NAMED_OBLIGATION.search(clause)
            if m is None:
                return ()
            gate = clause[: m.start()]
            if m.group("verb").lower().endswith(" be") and not m.group("val"):
                return ()  # 'must be registered (reg_ref)': a reference is no state
        what = m.group("what")
        given_by = _APPROVAL_FROM.match(what)
        if given_by is not None and _named_for(m.group("arg"), given_by.group("who")):
            # 'needs approval from the Security team (security_approval_id)': who approves names
            # the argument the approval is recorded in, it asks for nothing more
            what = given_by.group("act")
        if _MANY.search(what):
            return ()
        from webapp.judge.compiler import _names_owner_only

        if _names_owner_only(what, m.group("arg")):
            return ()  # "the manager's approval (manager_id)": the approval is not the id
        if any(_narrows(w, m.group("arg")) for w in m.group("what").split()):
            return ()  # 'a recently verified account (account_verified = true)': unread
        if _GATE_FORCE.search(gate) or re.match(r"\s*no\b", gate, re.I):
            return ()  # the subject holds an obligation of its own ('… are not allowed and …')
        arg, val = m.group("arg"), m.group("val") or ""
        if not val and not re.search(r"[_.]", arg):
            return ()  # '(urgent)': a bracketed word, not an argument's name
        named.append((arg, val))
    return tuple(named)


# 'approval from the Security team', 'sign-off of the dept chair', "the transport manager's OK"
_APPROVAL_FROM = re.compile(
    r"^(?P<act>(?:(?:the|an?|prior|written)\s+)*(?:approval|sign-off|signoff|authori[sz]ation))\s+"
    r"(?:from|of|by)\s+(?:the\s+|an?\s+)?(?P<who>[A-Za-z][\w\-]*(?:\s+(?:team|desk|office))?)$",
    re.I,
)


def _named_for(arg: str, who: str) -> bool:
    """Whether the argument `arg` is named for an approval by `who` (`security_approval_id` for
    'the Security team'): an approval word and the approver's own word in its name."""
    keys = _key_stems(arg.rsplit(".", 1)[-1])
    own = {stem(w) for w in words(who)} - {stem("team"), stem("desk"), stem("office")}
    return bool(keys & APPROVAL_STEMS) and bool(own) and own <= keys


def _predicate_stays(predicate: str) -> bool:
    """Whether the predicate speaks only of the gate's subject, and restricts it."""
    # '… require Legal sign-off (legal_signoff_ref)': the argument the obligation is checked on,
    # named in brackets, adds no subject
    predicate = _ARGUMENT_NAMED.sub("", predicate)
    # '… must run off-peak (22:00-06:00 UTC)', '… only between 22:00 and 06:00 UTC': the hours of
    # a time-of-day window are a term of the obligation, when it is met; they add no subject
    predicate = _TIME_WINDOW.sub("", predicate)
    if _REACHING.search(predicate) or _RELIEVING.search(predicate):
        return False
    exception = _EXCEPTION_TAIL.search(predicate)
    if exception and not (
        _COORDINATED.search(exception.group("tail")) or find_quantities(exception.group("tail"))
    ):
        # '… require HR director approval, except for approved degree programs': an exception
        # only relieves some of the gated requests (in one plain phrase)
        predicate = predicate[: exception.start()]
    if _COORDINATED.search(predicate) or any(
        q.currency is not None or (q.unit_family is None and q.noun is None)
        for q in find_quantities(predicate)
    ):
        # '… are held for review plus payouts over 10k', '… and payouts to new sellers for 7
        # days', '…, new sellers' payouts for 7 days', '… need review, $1,000 for new sellers':
        # a second subject or bound, often with no predicate word of its own (gapping); a
        # duration ('within 5 days') is a term of the obligation
        return False
    if _SECOND_PREDICATE.search(predicate, 1):
        return False  # '… need a lead and must cite a ticket': a second obligation
    if _PERMISSIVE.search(predicate) and not _RESTRICTIVE.search(predicate):
        return False  # 'Refunds up to 500 may be issued by agents': its bound limits the rest
    return True


def _read_gate(gate: str, glossary: Mapping[str, tuple[str, ...]]) -> _Gate | None:
    """The conditions and subject words of one gate, or None when a part of it is not read."""
    # A trailing condition narrows: 'Rotating production keys outside an approved window'.
    # 'outside the EEA' is no trailing condition but a place the gate reads (`_Region`).
    in_region = [(m.start(), m.end()) for m in _REGION_PHRASE.finditer(gate)]
    for tm in _TOKEN.finditer(gate):
        if any(a <= tm.start() < b for a, b in in_region):
            continue
        if tm.group(0).lower() in _NARROWING and tm.start() > 0:
            tail = gate[tm.end() :]
            if _WIDENING.search(tail) or not tail.strip():
                return None
            if any(stem(w) in _MEASURE_CHANGERS for w in words(tail)):
                return None  # 'within a day': a window the amount may be summed over
            gate = gate[: tm.start()].strip()
            break
    consumed: list[tuple[int, int]] = []
    conditions: list[Any] = []
    gloss: tuple[str, ...] = ()
    gm = _GLOSS.search(gate)
    if gm is not None:
        if _WIDENING.search(gm.group("g")) or len(_GLOSS.findall(gate)) > 1:
            return None
        gloss = tuple(w.lower() for w in words(gm.group("g")) if w.lower() not in _CONNECTORS)
        if not gloss:
            return None
        gate = (gate[: gm.start()] + " " + gate[gm.end() :]).strip()
    for m in _REGION_PHRASE.finditer(gate):
        region = _read_region(m)
        if region is None:
            return None
        conditions.append(region)
        consumed.append((m.start(), m.end()))
    for m in _PATH_PHRASE.finditer(gate):
        if any(a <= m.start() < b for a, b in consumed):
            return None
        folders = tuple(f.rstrip("/") for f in re.findall(r"/[\w\-./]*", m.group("paths")))
        if not folders or any(not f for f in folders):
            return None  # 'under /': everything
        conditions.append(_Paths(m.group(0), folders))
        consumed.append((m.start(), m.end()))
    for m in _DIFFERENT.finditer(gate):
        if any(a <= m.start() < b for a, b in consumed):
            return None
        conditions.append(_Different(m.group(0), stem(m.group("noun").lower())))
        consumed.append((m.start(), m.end()))
    quantities = find_quantities(gate)
    if len(quantities) > 1:
        return None
    for q in quantities:
        amount = _read_amount(gate, q, consumed)
        if amount is None:
            return None
        conditions.append(amount)
    tokens = [
        (t.start(), t.end(), t.group(0))
        for t in _TOKEN.finditer(gate)
        if not any(a <= t.start() < b for a, b in consumed)
    ]
    # Everything outside the consumed spans and the tokens must be white space.
    covered = sorted(consumed + [(a, b) for a, b, _ in tokens])
    pos = 0
    for a, b in covered:
        if a > pos and gate[pos:a].strip():
            return None
        pos = max(pos, b)
    if gate[pos:].strip():
        return None
    subject: list[str] = []
    i = 0
    while i < len(tokens):
        # glossary terms, longest first, written exactly; 'non-approved vendors' or
        # 'unapproved vendors' name what lies outside the term 'approved vendors'
        hit = None
        first = tokens[i][2]
        negation = _NEGATION_PREFIX.match(first)
        for n in (5, 4, 3, 2, 1):
            if i + n > len(tokens):
                continue
            rest = [t[2] for t in tokens[i + 1 : i + n]]
            head = stem(words(tokens[i + n - 1][2])[-1])
            key = term_key(" ".join([first, *rest]))
            if key in glossary and glossary[key]:
                hit = (n, _Category(" ".join([first, *rest]), glossary[key], head))
                break
            if negation is not None and len(first) > negation.end():
                positive = " ".join([first[negation.end() :], *rest])
                key = term_key(positive)
                if key in glossary and glossary[key]:
                    phrase = " ".join([first, *rest])
                    hit = (n, _Category(phrase, glossary[key], head, positive))
                    break
        if hit is not None:
            conditions.append(hit[1])
            i += hit[0]
            continue
        word = tokens[i][2]
        low = word.lower()
        if low in _CONNECTORS:
            i += 1
            continue
        if _NEGATED.match(low) or not any(ch.isalpha() for ch in low):
            return None
        ws = words(word)
        stems = [stem(w) for w in ws]
        if not ws or any(s in _MEASURE_CHANGERS for s in stems):
            return None
        qual = _QUALIFIERS.get(normalise_value(word))
        if qual is not None:
            head = tuple(
                stem(w)
                for t in tokens[i + 1 : i + 3]
                if t[2].lower() not in _CONNECTORS
                for w in words(t[2])
            )
            if low not in _DECISION_VERBS or (head and head[0] in _DECISION_NOUNS):
                conditions.append(_Qualifier(low, qual[0], qual[1], head))
                i += 1
                continue
        if any(w in STOPWORDS for w in ws):
            return None  # 'or', 'and', 'any', 'either', 'such', 'other' … : not read
        subject.extend(stems)
        i += 1
    if not conditions:
        return None
    return _Gate(tuple(conditions), tuple(subject), gloss)


_WHO_SIGNS = frozenset(
    stem(w)
    for w in "signer signatory signature reviewer witness countersignature person people "
    "officer manager director inspector checker".split()
)


def _read_amount(gate: str, q: Any, consumed: list[tuple[int, int]]) -> _Amount | None:
    kind = "money"
    q_end = q.end
    noun = ""
    if q.unit_family in _UNIT_FAMILIES and q.currency is None:
        kind = q.unit_family
    elif q.unit_family is not None:
        return None
    elif q.noun is not None:
        if q.currency is not None:
            return None
        nm = re.match(r"\s*([A-Za-z][\w\-]*)", gate[q.end :])
        if nm is None or nm.group(1).lower() != q.noun:
            return None
        noun = stem(q.noun)
        if noun in GENERIC or noun in _MEASURE_CHANGERS or q.noun in STOPWORDS:
            return None  # 'more than 3 requests', '… times': the history, not this request
        if noun in APPROVAL_STEMS or noun in _WHO_SIGNS:
            # Fifteenth session: 'At least 2 approvers are required for releases': the count of
            # those who approve is what the rule asks for, never which requests it speaks of
            # (read as a gate, `approver_count: 1` put the rule out of reach and was approved)
            return None
        kind, q_end = "count", q.end + nm.end()
    before = gate[: q.start]
    after = gate[q_end:]
    op = None
    phrase = ""
    bm = _BOUNDARY_BEFORE.search(before)
    am = _OR_MORE.match(after)
    if bm and am:
        return None
    start, end = q.start, q_end
    if bm:
        phrase = " ".join(bm.group("phrase").lower().split())
        op = phrase_op(CONDITION, phrase)
        start = bm.start("phrase")
    elif am:
        phrase = " ".join(am.group("phrase").lower().split())
        op = _OR_MORE_OP.get(phrase.split()[-1], "le")
        end = q_end + am.end()
        after = gate[end:]
        of = re.search(r"\bof\s*$", before, re.I)
        if of:
            start = of.start()  # 'Disbursements of $250,000 or more'
    else:
        return None
    if op not in ("gt", "ge"):
        # 'Refunds up to 500 need a lead': what lies above the bound is not less restricted (a
        # fortiori it needs at least as much), so an amount above it is never out of reach.
        return None
    currency: str | None = q.currency
    cm = _ANY_CURRENCY.match(after)
    if cm:
        if currency is not None or kind != "money":
            return None
        currency = "*"
        end += cm.end()
    consumed.append((start, end))
    # the words naming what is measured: the content words right before the boundary phrase
    head_words: list[str] = []
    toks = list(_TOKEN.finditer(gate[:start]))
    j = len(toks) - 1
    while j >= 0 and toks[j].group(0).lower() not in _CONNECTORS:
        head_words.insert(0, toks[j].group(0))
        j -= 1
    if not head_words and kind != "count":
        return None
    at_start = j < 0 or all(t.group(0).lower() in _CONNECTORS for t in toks[: j + 1])
    measure = tuple(stem(w) for hw in head_words for w in words(hw))
    return _Amount(
        op,
        q.value,
        currency,
        measure,
        at_start,
        phrase,
        am is not None,
        kind,
        q.unit_factor,
        noun,
        gate[q.start : q_end].strip(),
    )


# ---------------------------------------------------------------------------------------------
def _gate_false(gate: _Gate, view: RequestView) -> str | None:
    """Why `gate` is definitely false for the request, or None (true, unknown or not read)."""
    accounted: set[str] = set()
    why: str | None = None
    for cond in gate.conditions:
        if isinstance(cond, _Amount):
            state, reason, keys = _amount_false(cond, view)
        elif isinstance(cond, _Category):
            state, reason, keys = _category_false(cond, view)
        elif isinstance(cond, _Region):
            state, reason, keys = _region_false(cond, view)
        elif isinstance(cond, _Paths):
            state, reason, keys = _paths_false(cond, view)
        elif isinstance(cond, _Different):
            state, reason, keys = _different_false(cond, view)
        else:
            state, reason, keys = _qualifier_false(cond, view)
        if state is None:
            return None  # a condition not read for this request: every word must be
        accounted |= keys
        if state is False and why is None:
            why = reason
    if why is None:
        return None
    if gate.gloss and _gloss_shown(gate.gloss, view):
        return why  # the subject is glossed by a value the request holds
    for s in gate.subject:
        if not _shown(s, view, accounted):
            return None  # a subject word the request does not show: not accounted for
    return why


def _gloss_shown(gloss: tuple[str, ...], view: RequestView) -> bool:
    """Whether one string value of the request is the gloss, word for word ('anyone with the
    link' and `anyone_with_link`; connectors aside)."""
    for _, v in _strings(view):
        toks = [t for t in re.split(r"[^a-z0-9]+", v.lower()) if t and t not in _CONNECTORS]
        if tuple(toks) == gloss:
            return True
    return False


def _shown(s: str, view: RequestView, accounted: set[str]) -> bool:
    if s in accounted or s in view.tool_stems:
        return True
    if any(abbreviates(s, k) for k in accounted | view.tool_stems):
        return True
    return view.term_matches(s)


def _fmt(x: float) -> str:
    return f"{x:,.2f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x):,}"


def _measured_false(cond: _Amount, view: RequestView) -> tuple[bool | None, str, set[str]]:
    """A count ('accounts with more than 1M followers') or a measure in a unit ('sessions longer
    than 12 hours', 'discounts over 20%'): bound to the arguments named for the counted noun or
    carrying the unit (a name's suffix, 'duration_hours'), every one of them outside the gate."""
    pool: list[tuple[Leaf, float]] = []
    for lf in view.leaves:
        if isinstance(lf.value, bool) or lf.last_keys & (_ID_KEYS | MONEY_KEYS):
            continue
        if cond.kind == "count":
            if cond.noun not in lf.keys:
                continue
            if isinstance(lf.value, (list, tuple)):
                pool.append((lf, float(len(lf.value))))
                continue
        elif cond.kind == "percent":
            if not lf.last_keys & _PERCENT_KEYS:
                continue
        elif lf.unit is None or lf.unit[0] != cond.kind:
            continue
        value = parse_number_value(lf.value)
        if value is None or value < 0 or _unit_argument(view, lf) is not None:
            return None, "", set()  # 'duration: 3' beside 'duration_unit: "days"': not read
        if cond.kind == "percent" and 0 < value < 1 <= cond.threshold:
            return None, "", set()  # '0.25' against '20%': a fraction or a percentage?
        if lf.unit is not None and cond.kind not in ("count", "percent"):
            # the rule's unit ('12 hours') against the name's ('duration_minutes')
            value = value * lf.unit[1] / cond.unit_factor
        pool.append((lf, value))
    measure = set(cond.measure)
    if cond.kind == "count" or not measure:
        bound = pool
    else:
        named = [(lf, v) for lf, v in pool if lf.keys & measure or _abbreviated(measure, lf.keys)]
        if named:
            bound = named
        elif cond.at_start and all(s in view.tool_stems for s in measure):
            bound = pool
        else:
            bound = []
    if not bound:
        return None, "", set()
    accounted = set().union(*(lf.keys for lf, _ in bound))
    if not all(s in accounted or s in view.tool_stems for s in measure):
        return None, "", set()
    reasons = []
    for lf, value in bound:
        if _OPS[cond.op](value, cond.threshold):
            return True, "", accounted
        shown = (
            f"{len(lf.value)} {lf.path}"
            if isinstance(lf.value, (list, tuple))
            else f"{lf.path} {lf.value}"
        )
        reasons.append(f"{shown} is not {cond.phrase} {cond.written}")
    return False, "; ".join(reasons), accounted


def _amount_false(cond: _Amount, view: RequestView) -> tuple[bool | None, str, set[str]]:
    """(False, why, keys) when every argument the amount may be is outside the gate; (True, …)
    when one is inside; (None, …) when it cannot be told."""
    if cond.kind != "money":
        return _measured_false(cond, view)
    money: list[Leaf] = []
    for lf in view.leaves:
        if isinstance(lf.value, bool) or lf.last_keys & (_ID_KEYS | _CURRENCY_KEYS):
            continue
        if lf.unit is not None and lf.unit[0] == "scale":
            return None, "", set()  # 'loan_amount_k_usd': an amount in thousands or millions
        if lf.unit is not None and lf.unit[0] != "minor":
            continue
        if lf.last_keys & (MONEY_KEYS | {"amt"}):
            money.append(lf)
    for lf in money:
        value = parse_number_value(lf.value)
        if value is None or value < 0:
            return None, "", set()  # an amount that does not parse, anywhere: a human reads it
        if _unit_argument(view, lf) is not None:
            return None, "", set()  # 'amount_unit: "thousands"' beside it: a scale not read
    measure = set(cond.measure)
    named = [lf for lf in money if lf.keys & measure or _abbreviated(measure, lf.keys)]
    if named:
        bound = named
    elif cond.at_start and all(s in view.tool_stems for s in measure):
        # 'Bill adjustments above 500 USD' on adjust_bill: the tool's own amount
        bound = [lf for lf in money if lf.last_keys - _LOWER_CODES <= _OWN_AMOUNT]
    else:
        bound = []
    if not bound:
        return None, "", set()
    accounted = set().union(*(lf.keys for lf in bound))
    for s in measure:
        if not (
            s in accounted or s in view.tool_stems or any(abbreviates(s, k) for k in accounted)
        ):
            return None, "", set()
    reasons = []
    inside = False
    for lf in bound:
        value = parse_number_value(lf.value)
        if value is None or value < 0:
            return None, "", set()
        if lf.unit is not None:  # minor units ('amount_cents')
            value *= lf.unit[1]
        currency = _leaf_currency(view, lf)
        if currency is False:
            return None, "", set()
        if cond.currency == "*":
            pass
        elif cond.currency is None:
            if currency is not None:
                return None, "", set()  # a bound with no currency against an amount with one
        elif currency != cond.currency:
            return None, "", set()  # another currency, or none shown: a human compares
        if _OPS[cond.op](value, cond.threshold):
            inside = True
            continue
        bound_words = _fmt(cond.threshold) + (
            f" {cond.currency}" if cond.currency not in (None, "*") else ""
        )
        bound_words = (
            f"{bound_words} {cond.phrase}" if cond.phrase_after else f"{cond.phrase} {bound_words}"
        )
        reasons.append(f"{lf.path} {_fmt(value)} is not {bound_words}")
    if inside:
        return True, "", accounted
    return False, "; ".join(reasons), accounted


def _abbreviated(measure: set[str], keys: frozenset[str]) -> bool:
    return any(abbreviates(s, k) for s in measure for k in keys)


def _leaf_currency(view: RequestView, lf: Leaf) -> str | None | bool:
    """The leaf's currency (its name's suffix, or a currency argument beside it); False when the
    two disagree or a currency argument is not a code."""
    suffix = next(
        (w for w in reversed(words(lf.path.rsplit(".", 1)[-1])) if w in _LOWER_CODES), None
    )
    arg = _currency_of(view, lf)
    if arg is not None:
        if not isinstance(arg, str) or arg.strip().upper() not in CURRENCY_CODES:
            return False
        arg = arg.strip().upper()
    if suffix is not None:
        if arg is not None and arg != suffix.upper():
            return False
        return suffix.upper()
    return arg


_DIGITS = re.compile(r"\d+")


def _skeleton(value: str) -> str:
    return _DIGITS.sub("9", value.strip().upper())


def _ids(members: tuple[str, ...]) -> bool:
    return any(ch.isdigit() for m in members for ch in m)


def _comparable(value: str, members: tuple[str, ...]) -> bool:
    """Whether `value` is of the kind the category lists: an identifier shaped like a member
    ('S-31002' beside 'S-20417'), or a name or code where the members are names or codes."""
    if any(ch.isdigit() for m in members for ch in m):
        skeletons = {_skeleton(m) for m in members}
        return _skeleton(value) in skeletons
    return not any(ch.isdigit() for ch in value) and bool(value.strip())


def _category_false(cond: _Category, view: RequestView) -> tuple[bool | None, str, set[str]]:
    if cond.outside_of:
        return _outside_category_false(cond, view)
    members = cond.members
    listed = {normalise_value(m) for m in members}
    # A listed value anywhere in the request: the rule may speak of it (never out of reach).
    if not listed.isdisjoint(view.value_norms):
        return True, "", set()
    if _mentioned_anywhere(view, members):
        return None, "", set()  # written inside another value, or close to a listed one
    # the argument that names the qualified thing itself ('seller_id', 'seller', 'vendor_name'),
    # never one of its attributes ('seller_country')
    bound = [
        lf for lf in view.leaves if cond.head in lf.keys and lf.last_keys - {cond.head} <= _IDENT
    ]
    compared = []
    for lf in bound:
        values = scalars(lf.value)
        if not values or not all(isinstance(v, str) for v in values):
            continue
        if not all(_comparable(v, members) for v in values):
            continue
        for v in values:
            inside = _id_in_members(v, members) if _ids(members) else _in_glossary(v, members)
            if inside is not False:
                return True, "", set()  # listed, or close to a listed value: a human decides
        compared.append(lf)
    if not compared:
        return None, "", set()
    shown = ", ".join(f"{lf.path} {lf.value!r}" for lf in compared)
    return (
        False,
        f"{shown} is not among the {cond.phrase}",
        set().union(*(lf.keys for lf in compared)),
    )


def _strings(view: RequestView) -> list[tuple[Leaf, str]]:
    return [
        (lf, v) for lf in view.leaves for v in scalars(lf.value) if isinstance(v, str) and v.strip()
    ]


def _mentioned_anywhere(view: RequestView, members: tuple[str, ...]) -> bool:
    """Whether some string value of the request names a member other than exactly: inside a
    longer value ('merged with S-20417'), or close to it ('Globex Ltd' beside 'Globex'). A rule
    on the category may speak of that value, whatever argument the gate is bound to."""
    ids = _ids(members)
    for _, v in _strings(view):
        if len(v) > 2000:
            return True  # a text too long to scan: a human reads it
        up = _NOT_ALNUM.sub(" ", v.upper())
        padded = f" {' '.join(up.split())} "
        for m in members:
            mm = " ".join(_NOT_ALNUM.sub(" ", m.upper()).split())
            if mm and f" {mm} " in padded:
                return True
            if ids and mm and mm.replace(" ", "") in up.replace(" ", ""):
                return True
        if (_id_in_members(v, members) if ids else _in_glossary(v, members)) is not False:
            return True
    return False


# Argument names that name a party the request reaches besides the bound one ('recipients',
# 'cc', 'subprocessor'): a rule on what lies outside a category may speak of them.
_PARTY_KEYS = frozenset(
    stem(w)
    for w in "recipient recipients to cc bcc destination dest target audience partner partners "
    "subprocessor subprocessors processor processors party parties third share sharee invitee "
    "beneficiary payee counterparty assignee grantee member members via forward".split()
)


def _outside_category_false(
    cond: _Category, view: RequestView
) -> tuple[bool | None, str, set[str]]:
    """'Exports to non-approved vendors': false only when every value of the argument naming the
    vendor is exactly listed in 'approved vendors' (a value close to a listed one, or not listed,
    may be outside it: in reach)."""
    members = cond.members
    listed = {normalise_value(m) for m in members}
    bound = [
        lf for lf in view.leaves if cond.head in lf.keys and lf.last_keys - {cond.head} <= _IDENT
    ]
    if not bound:
        return None, "", set()
    for lf in bound:
        values = scalars(lf.value)
        if not values or not all(
            isinstance(v, str) and normalise_value(v) in listed for v in values
        ):
            return True, "", set()
    # Another argument naming the thing ('cc_vendor') or a party the request reaches
    # ('recipients', 'subprocessor') with a value not listed: it may lie outside the category.
    paths = {lf.path for lf in bound}
    for lf in view.leaves:
        if lf.path in paths or not (cond.head in lf.keys or lf.keys & _PARTY_KEYS):
            continue
        for v in scalars(lf.value):
            if not (isinstance(v, str) and normalise_value(v) in listed):
                return None, "", set()
    shown = ", ".join(f"{lf.path} {lf.value!r}" for lf in bound)
    return (
        False,
        f"{shown} is among the {cond.outside_of}, not the {cond.phrase}",
        set().union(*(lf.keys for lf in bound)),
    )


def _qualifier_false(cond: _Qualifier, view: RequestView) -> tuple[bool | None, str, set[str]]:
    dim = cond.dimension
    head = set(cond.head)
    bound = [
        lf
        for lf in view.leaves
        if lf.last_keys & dim.own_keys or (lf.last_keys & dim.typed_keys and lf.keys & head)
    ]
    if not bound:
        return None, "", set()
    if _group_shown_anywhere(dim, cond.group, view):
        # 'key_id: prod-payments-kek', 'cluster: prod-eu-1', 'impact: critical' beside a
        # staging env or a minor severity: the request may be of the rule's group after all
        return None, "", set()
    if dim.name == "reach" and len(_countries_shown(view)) > 1:
        # 'wire_type: domestic' beside from_country US and to_country DE: the countries say
        # international, so the request may be of the rule's group after all
        return None, "", set()
    others = []
    for lf in bound:
        values = scalars(lf.value)
        if not values:
            return None, "", set()
        for v in values:
            if not isinstance(v, str):
                return None, "", set()
            group = _group_of(dim, v)
            if group is None or group == cond.group:
                return (None if group is None else True), "", set()
            if dim.weight[group] > dim.weight[cond.group]:
                return True, "", set()  # a heavier value than the rule's: a fortiori in reach
        others.append(lf)
    shown = ", ".join(f"{lf.path} is {lf.value!r}" for lf in others)
    return (
        False,
        f"{shown}, not {cond.word} (the {dim.name} the rule speaks of)",
        {dim.name} | {stem(cond.word)} | set().union(*(lf.keys for lf in others)),
    )


def _read_region(m: re.Match[str]) -> _Region | None:
    """The place group a region phrase names, or None when it is not one of the closed groups.

    Only groups whose every member the built-in table lists are read (the EU, the EEA, one
    country): a looser region ('APAC', 'EMEA') is not complete in the table, so a country missing
    from it must not count as outside."""
    place = " ".join(next(g for g in m.group("place1", "place2", "place3", "place4") if g).split())
    code = country_code(place)
    region = region_name(place)
    if code is not None and not (place.islower() and place in _AMBIGUOUS_PLACES):
        codes = frozenset({code})
    elif region in _CLOSED_REGIONS:
        codes = frozenset(c for c, rs in COUNTRY_REGIONS.items() if region in rs)
    else:
        return None
    inside = not (m.group("out") or m.group("non"))
    return _Region(m.group(0).strip(), codes, inside)


def _region_false(cond: _Region, view: RequestView) -> tuple[bool | None, str, set[str]]:
    """Out of reach when every country the request names lies on the other side of the group.

    Every argument named for a place (`destination_countries`, `bank.country`), each member of a
    list, and every IBAN count; one value that is not a country code or name the table knows
    ('PR', 'Europe', 'snowflake') keeps the rule in reach, and so does a request naming none."""
    codes: list[str] = []
    keys: set[str] = set()
    for lf in view.leaves:
        iban = "iban" in lf.last_keys
        if not (lf.last_keys & _PLACE_KEYS or iban):
            continue
        values = scalars(lf.value)
        if not values:
            return None, "", set()
        for v in values:
            if not isinstance(v, str):
                return None, "", set()
            place = location_regions(v) if iban else None
            code = place[0] if place else country_code(v)
            if code is None:
                return None, "", set()
            codes.append(code)
        keys |= lf.keys
    if not codes:
        return None, "", set()
    if any((c in cond.codes) == cond.inside for c in codes):
        return True, "", set()
    for lf in view.leaves:
        # a phone number ('+1 555…') or an address, city or bank written out: a place the
        # country table does not read, which may lie on the rule's side
        if lf.last_keys & _PLACE_HINT_KEYS and lf.value not in (None, "", [], {}):
            return None, "", set()
        for v in scalars(lf.value):
            if isinstance(v, str) and _PHONE.match(v):
                return None, "", set()
    shown = ", ".join(dict.fromkeys(codes))
    side = "outside" if cond.inside else "inside"
    return False, f"the request's countries ({shown}) are {side} {cond.phrase}", keys


def _may_lie_under(path: str, folder: str) -> bool:
    """Whether `path` may lie under `folder`: below it, or the folder's name as any segment of
    it ('/Shared/HR/x' beside '/HR'), letter case ignored; '/HRIS' is not under '/HR'."""
    p, f = unquote(path).replace("\\", "/").lower().rstrip("/"), folder.lower()
    if p == f or p.startswith(f + "/") or f.startswith(p + "/"):
        return True  # below the folder, or above it ('/' holds '/HR')
    name = f.rsplit("/", 1)[-1]
    # '/Legal-archive' or '/Legal_old' is close to '/Legal' (review); '/HRIS' is another word
    return any(
        seg.startswith(name) and (len(seg) == len(name) or not seg[len(name)].isalnum())
        for seg in p.split("/")
    )


def _paths_false(cond: _Paths, view: RequestView) -> tuple[bool | None, str, set[str]]:
    """Out of reach when every path the request names lies outside the rule's folders.

    Every argument named for a path, folder or link, and every value written as an absolute path,
    counts; one that is not an absolute path (a URL, a file id in a path argument) keeps the rule
    in reach, and so does a request naming no path."""
    paths: list[str] = []
    keys: set[str] = set()
    for lf in view.leaves:
        values = scalars(lf.value)
        slashed = any(isinstance(v, str) and v.startswith("/") for v in values)
        if not (lf.last_keys & _PATH_KEYS or slashed):
            continue
        if not values or not all(isinstance(v, str) and v.startswith("/") for v in values):
            return None, "", set()
        paths.extend(values)
        keys |= lf.keys
    if not paths:
        return None, "", set()
    if any(_may_lie_under(p, f) for p in paths for f in cond.folders):
        return True, "", set()
    for lf in view.leaves:
        # 'HR/payroll.xlsx' in a `name`, '\\HR\\x', an encoded '/%48R/x': a value of any
        # argument naming a segment of the rule's folder may lie under it
        for v in scalars(lf.value):
            if isinstance(v, str) and ("/" in v or "\\" in v or "%" in v):
                if any(_may_lie_under("/" + v.lstrip("/"), f) for f in cond.folders):
                    return None, "", set()
    shown = ", ".join(dict.fromkeys(paths))
    return False, f"{shown} is not {cond.phrase}", keys


def _side(lf: Leaf) -> str | None:
    """'before' for `current_address.country` or `from_state`, 'after' for `new_address.country`
    or `to_state`, None for neither or both."""
    toks = {t for t in re.split(r"[^a-z0-9]+", lf.path.lower()) if t}
    before, after = bool(toks & _BEFORE_WORDS), bool(toks & _AFTER_WORDS)
    if before == after:
        return None
    return "before" if before else "after"


def _same_place(a: Any, b: Any) -> bool:
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    ca, cb = country_code(a), country_code(b)
    if ca is not None and cb is not None:
        return ca == cb
    return normalise_value(a) == normalise_value(b) != ""


def _different_false(cond: _Different, view: RequestView) -> tuple[bool | None, str, set[str]]:
    """Out of reach when the request shows the thing before and after the act, and every value
    on both sides is the same ('DE' and 'DE'): nothing changes to a different one.

    Every argument named for the thing must be on one side (`current_…`, `old_…`, `from_…` or
    `new_…`, `to_…`, `target_…`); one on neither side, or a side not shown, keeps the rule in
    reach."""
    sides: dict[str, list[Leaf]] = {"before": [], "after": []}
    for lf in view.leaves:
        if cond.noun not in lf.last_keys:
            continue
        side = _side(lf)
        if side is None:
            return None, "", set()
        sides[side].append(lf)
    if not sides["before"] or not sides["after"]:
        return None, "", set()
    values = [v for lf in sides["before"] + sides["after"] for v in scalars(lf.value)]
    if not values or not all(_same_place(values[0], v) for v in values[1:]):
        return True, "", set()
    shown = ", ".join(f"{lf.path} is {lf.value!r}" for lf in sides["before"] + sides["after"])
    keys = set().union(*(lf.keys for lf in sides["before"] + sides["after"]))
    return False, f"{shown}: not {cond.phrase}", keys


def _countries_shown(view: RequestView) -> set[str]:
    """The country codes the request's place-named arguments hold (`to_country`, `bank.country`)."""
    codes = set()
    for lf in view.leaves:
        if lf.last_keys & _PLACE_KEYS:
            for v in scalars(lf.value):
                code = country_code(v) if isinstance(v, str) else None
                if code:
                    codes.add(code)
    return codes


def _group_shown_anywhere(dim: _Dimension, group: str, view: RequestView) -> bool:
    """Whether a word of some string value of the request (`prod` in 'prod-eu-1') is a value of
    `group` of the dimension, or of a heavier group."""
    heavy = {g for g in dim.groups if g == group or dim.weight[g] > dim.weight[group]}
    for lf in view.leaves:
        # an argument named for the rule's group ('involuntary: true' beside a type 'voluntary')
        toks = [t for t in re.split(r"[^a-z0-9]+", lf.path.lower()) if t]
        if any(t in dim.groups[g] for g in heavy for t in toks):
            return True
    for _, v in _strings(view):
        norm = normalise_value(v)
        toks = [t for t in re.split(r"[^a-z0-9]+", norm) if t]
        cands = set(toks) | {" ".join(toks[i : i + 2]) for i in range(len(toks) - 1)}
        cands |= {"-".join(toks[i : i + 2]) for i in range(len(toks) - 1)}
        if any(c in dim.groups[g] for g in heavy for c in cands):
            return True
    return False


def _group_of(dim: _Dimension, value: str) -> str | None:
    v = normalise_value(value)
    for g, vs in dim.groups.items():
        if v in vs:
            return g
    return None
