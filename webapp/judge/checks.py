"""Structured checks compiled from rule text, and how each one judges a request."""

from __future__ import annotations

import calendar
import fnmatch
import operator
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cache, cached_property, lru_cache
from typing import Any

from webapp.judge.boundaries import NEGATE, OP_WORDS
from webapp.judge.glossvalues import GRADES, may_be_value, value_token
from webapp.judge.places import SUBNATIONAL, country_code, location_regions
from webapp.judge.quantities import AMBIGUOUS_ARG_UNITS, CURRENCY_CODES, parse_number_value
from webapp.judge.request_view import (
    _ACTION_KEYS,
    _VALUE_CLASSES_OF,
    _VERB_SYNONYMS,
    ACT_STEMS,
    BROAD_ACTIONS,
    KEY_NAME,
    KEY_SAME_CLASS,
    KEY_STATE,
    KEY_STATE_WORD,
    KEY_THING,
    MONEY_GENERIC,
    MONEY_KEYS,
    MONEY_SPECIFIC,
    THING_KINDS,
    THING_NOUNS,
    VERB_GROUPS,
    VERBS,
    Leaf,
    RequestView,
    same_action,
    scalars,
    truthy,
)
from webapp.judge.text import content_stems, normalise_value, stem, words
from webapp.judge.vocabulary import (
    CONSUMER_MAIL_DOMAINS,
    ReferenceBrand,
    near,
    reference_brands,
)

# Outcomes of one check against one request.
SATISFIED = "satisfied"  # the rule speaks to the request and holds
VIOLATED = "violated"  # the rule forbids the request
REVIEW = "review"  # the rule asks a human to decide
UNKNOWN = "unknown"  # the rule may apply but the arguments cannot show whether it holds
PERMITTED = "permitted"  # the rule explicitly allows this request
NOT_APPLICABLE = "n/a"

_OPS = {"gt": operator.gt, "ge": operator.ge, "lt": operator.lt, "le": operator.le}
_OP_WORDS = OP_WORDS
_VERB = {"deny": "Deny", "review": "Send to review", "allow": "Allow"}
_MATCH_NOUN = {
    "place": "country or region",
    "currency": "currency",
    "domain": "email domain",
    "consumer_mail": "the email domain",
    "prefix": "the value",
    "contains": "an argument",
    "exact": "an argument",
}
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_\-']*")


# A form's code, one word: 'W-9', 'I-9', 'DS-160' (compiler._FORM_CODE reads it so).
_FORM_CODE = re.compile(r"[A-Za-z]{1,3}-\d{1,4}")


@lru_cache(maxsize=65536)
def _identifier_named(source: str, stems: tuple[str, ...]) -> str:
    """The argument name written in the rule ('credit_balance') whose parts are `stems`, quoted
    as code: `surface_words` matches words, and an identifier is no word of its parts."""
    wanted = set(stems)
    for m in re.finditer(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b", source):
        parts = {stem(p.lower()) for p in m.group(0).split("_")}
        if wanted and parts == wanted:
            return f"`{m.group(0)}`"
    return ""


def _identifier_within(source: str, stems: tuple[str, ...]) -> str:
    """'the seller's available_balance': an argument name written in the rule that holds two or
    more of `stems`, with the rule's words for the rest ("seller's `available_balance`"); read by
    words alone, the side was shown as "seller's" (jred29)."""
    wanted = set(stems)
    for m in re.finditer(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b", source):
        parts = {stem(p.lower()) for p in m.group(0).split("_")}
        if len(parts) >= 2 and parts < wanted:
            rest = surface_words(source, tuple(w for w in stems if w not in parts))
            return f"{rest} `{m.group(0)}`".strip()
    return ""


def surface_words(source: str, stems: tuple[str, ...]) -> str:
    """The rule's own words whose stems are `stems`, in the rule's order: 'wire transfers'."""
    wanted = set(stems)
    if not wanted:
        return ""
    out: list[str] = []
    seen: set[str] = set()
    for m in _WORD_RE.finditer(source):
        w = m.group(0)
        joined = w.replace("-", "").lower()
        if _FORM_CODE.fullmatch(w) and joined in wanted and joined not in seen:
            seen.add(joined)  # 'W-9' is read as one word, `w9`
            out.append(w)
            continue
        parts = [w] if "_" in w else w.replace("-", " ").split()
        for part in parts:
            s = stem(part.lower())
            if (s in wanted or part.lower() in wanted) and s not in seen:
                seen.add(s)  # 'claims … claim': the rule's first form of each word, once
                out.append(part if "_" in part or part.isupper() else part.lower())
    return " ".join(out)


_COUNT_KEYS = frozenset(stem(w) for w in "count quantity number num qty n limit max size".split())
_PERCENT_KEYS = frozenset(stem(w) for w in "percent rate ratio share pct".split())
_TIME_KEYS = frozenset(
    stem(w)
    for w in "duration ttl expiry expires period length retention day hour minute week month year "
    "second lifetime validity".split()
)
_MASS_KEYS = frozenset(stem(w) for w in "weight mass kg kilo kilogram gross net".split())
_LENGTH_KEYS = frozenset(
    stem(w) for w in "depth deep height high length width distance metres meters cm km ft".split()
)
_SPEED_KEYS = frozenset(stem(w) for w in "speed wind velocity mph kph kmh knots".split())
_BYTES_KEYS = frozenset(stem(w) for w in "size bytes mb gb tb kb storage capacity disk".split())
_NOUN_SYNONYMS: dict[str, frozenset[str]] = {
    "row": frozenset({"row", "record", "line", "entry", "result"}),
    "record": frozenset({"row", "record", "line", "entry", "result"}),
    "recipient": frozenset({"recipient", "to", "cc", "bcc", "address", "email"}),
    "instanc": frozenset({"instanc", "count", "vm", "node", "replica", "machin"}),
    "user": frozenset({"user", "member", "account", "seat"}),
    # 'limited to 50 accounts per call' and `user_ids`: the accounts of users
    "account": frozenset({"account", "user", "member"}),
    "attach": frozenset({"attach", "file"}),
    "item": frozenset({"item", "line", "product"}),
}
# Words of money that never name a count ('limit' does both: `limit` may be a count's cap).
_PRICE_KEYS = frozenset(
    stem(w) for w in "price cost fee amount value notional premium rate".split()
)
_ASSET_KEYS = frozenset({"asset", "coin", "token"})
_CURRENCY_KEYS = frozenset({"currency", "currenc", "ccy", "pair"})
_AMOUNT_CURRENCY_KEYS = _CURRENCY_KEYS - {"pair"}
_TALLY_KEYS = frozenset(stem(w) for w in "count quantity number num qty".split())
_SUM_KEYS = frozenset(stem(w) for w in "amount total sum value balance".split())
# A price of one unit ('unit_price', 'price_each', 'per_unit_cost'): a purchase is its product
# with a quantity.
_PER_UNIT_KEYS = frozenset(stem(w) for w in "unit each per item piece".split())
_ID_WORDS = frozenset(
    {"id", "number", "no", "num", "ref", "referenc", "code", "key", "nr", "identifier"}
)
# Words that name the same kind of identifier ('a reference' is the argument `ref`).
_ID_GROUPS = (
    frozenset({"referenc", "ref"}),
    frozenset({"number", "no", "num", "nr"}),
    frozenset({"id", "identifier"}),
)
_COUNTERPARTY = frozenset(
    stem(w)
    for w in "payee recipient vendor beneficiary counterparty contact supplier customer account iban "
    "to merchant partner destination address".split()
)
PLACE_KEYS = frozenset(
    stem(w)
    # an IBAN names its country in its first two letters (places.location_regions reads it)
    for w in "country region location jurisdiction nation geo zone territory market iban".split()
)
_EMPTY: frozenset[str] = frozenset()
_ANCHOR_WORDS = VERBS | MONEY_GENERIC | MONEY_SPECIFIC
UNBOUND = "unbound"  # the rule compiled but nothing in the request binds to it: judge it as text


@dataclass(frozen=True, init=False)
class Outcome:
    """What one check says about one request."""

    status: str
    message: str = ""
    args: tuple[str, ...] = ()

    def __init__(self, status: str, message: str = "", args: tuple[str, ...] = ()) -> None:
        # A request builds a hundred outcomes: the fields are set in the instance's dict, not
        # through the frozen dataclass's object.__setattr__ per field (a third of the cost).
        # Still frozen: assigning a field afterwards raises FrozenInstanceError.
        fields = self.__dict__
        fields["status"] = status
        fields["message"] = message
        fields["args"] = args


@dataclass(frozen=True)
class Check:
    """Base of every compiled check: which rule it came from, its effect and its subject."""

    rule_index: int
    source: str  # the rule's own words, for citations
    effect: str  # deny | review | allow
    terms: tuple[str, ...] = ()  # stems saying what the rule is about
    alternatives: tuple[tuple[str, str], ...] = ()  # 'stop or reboot': either word will do
    kind: str = field(default="check", init=False)

    def evaluate(self, view: RequestView) -> Outcome:  # pragma: no cover - overridden
        raise NotImplementedError

    def reading(self) -> str:
        """What this check does, in plain English, rendered from its structure."""
        return f"{_VERB[self.effect]} requests about {self.subject() or 'this tool'}"

    def subject(self) -> str:
        """The rule's own words for what it is about ('wire transfers'), from its source text."""
        return surface_words(self.source, self.terms)

    def _about(self) -> str:
        subject = self.subject()
        return f" (about: {subject})" if subject else ""

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly summary for the decision details."""
        return {"kind": self.kind, "effect": self.effect, "terms": list(self.terms)}

    # -- shared helpers
    @cached_property
    def _words(self) -> tuple[str, ...]:
        # Compiled checks live as long as their cached policy version: derive this once.
        return _words_of(self.terms, self.alternatives)

    @cached_property
    def _wide_reach(self) -> int:
        """Which of `unrelated`'s wider readings this check's words can take (derived once: a
        tenant's 200 rules are asked on every request)."""
        words = self._words
        reach = 0
        if words and _CHANGE_WORDS.issuperset(words):
            reach |= _REACH_CHANGE
        if not _PAYING.isdisjoint(words):
            reach |= _REACH_PAYING
        if not MONEY_SPECIFIC.isdisjoint(words):
            reach |= _REACH_KIND
        if not _SWITCHING_OFF.isdisjoint(words):
            reach |= _REACH_SWITCH
        if not _PLACE_QUALIFIERS.isdisjoint(words):
            reach |= _REACH_PLACE
        return reach

    def unrelated(self, view: RequestView) -> bool:
        """True when the rule names things and not one of them is in the request."""
        words = self._words
        if not words:
            return False
        memo = view.matches_memo
        for t in words:
            m = memo.get(t)
            if m is None:
                m = view.term_matches(t)
            if m:
                return False
        initials = self._term_initials
        if initials and not view.tool_stems.isdisjoint(initials):
            if not _initialled_terms(self.terms, view.tool_stems).isdisjoint(words):
                return False  # 'purchase orders' on po_create
        if not view.kind_family_stems().isdisjoint(words):
            # 'Permanent bans are not allowed' and `ban_type: "lifetime"`: a value names the
            # rule's kind in other words (glossvalues.VALUE_FAMILIES); set aside as unrelated,
            # the lifetime ban was approved (red team jred26). `applicability` then finds the
            # word neither shown nor ruled out: a human reads it
            return False
        reach = self._wide_reach
        if not reach:
            return True
        if reach & _REACH_CHANGE and _change_shown(view):
            # 'Production systems (environment = prod): changes need CAB approval' and
            # infra.deploy: any act but a read is a change (as `applicability` reads the word);
            # set aside as unrelated, a deploy to prod was approved (found by red team jred23).
            # Only a subject that is the change alone: 'never modify salaries' names what is
            # changed, which a vendor payment does not show
            return False
        if (
            reach & (_REACH_PAYING | _REACH_KIND)
            and not view.tool_stems.isdisjoint(MONEY_GENERIC)
            and view.tool_stems.isdisjoint(MONEY_SPECIFIC)
            and (reach & _REACH_PAYING or _bare_money_act(view.tool_name))
        ):
            # 'Every payout must cite a contract_id' and ap.pay_contractor: a payout is any
            # paying out, which a tool named by the generic money verb does; set aside as
            # unrelated, a payout with no contract was approved. (Only the words for paying out
            # as such: a bonus or a refund is one kind of payment, which pay_vendor need not be.)
            return False
        if reach & _REACH_SWITCH and not view._empty_keys.isdisjoint(words):
            # 'MFA may not be disabled' and `mfa_required: "off"`: a flag named for the rule's
            # thing that is off is the rule's act, not a sign the request is about another thing
            return False
        if reach & _REACH_PLACE and _shows_a_place(view):
            # 'International trips need an emergency contact' and `destination_country: "FR"`:
            # whether the trip is international is a fact about its place, which the request
            # shows and the rule does not say how to read (the word is never spelt in a request;
            # read as another subject, the trip without a contact had been approved)
            return False
        return True

    @cached_property
    def _term_initials(self) -> dict[str, frozenset[str]]:
        return _term_initials(self.terms)

    @cached_property
    def _memo_key(self) -> tuple:
        # (subject words, 'or' pairs, name qualifiers): as `applicability` keys it, built once
        return (self.terms, self.alternatives, name_qualifiers(self.source, self.terms))

    @cached_property
    def _subject_program(self) -> tuple[tuple[tuple, ...], tuple[str, ...]]:
        # `_program` of the memo key, kept on the check: one cache look-up less per request
        return _program(*self._memo_key)

    @cached_property
    def _memo_name(self) -> str:
        # The memo key spelt out (its words are strings: two keys spell alike only when equal):
        # a string keeps its hash, the tuple's is recomputed at every look-up of every request.
        return repr(self._memo_key)

    def applicability(self, view: RequestView) -> tuple[str, bool]:
        """('matched' | 'unknown' | 'absent', anchored): does the rule speak of this request?"""
        memo_key = self._memo_name
        hit = view.applicability_memo.get(memo_key)
        if hit is None:
            hit = view.applicability_memo[memo_key] = _run_program(
                view, self.terms, *self._subject_program
            )
        return hit

    def fire(self, applies: str, message: str, args: tuple[str, ...] = ()) -> Outcome:
        """The outcome when the rule's condition holds for the request."""
        if self.effect == "review":
            return Outcome(REVIEW, message, args)
        if self.effect == "allow":
            return Outcome(PERMITTED if applies == "matched" else NOT_APPLICABLE, message, args)
        if applies == "matched":
            return Outcome(VIOLATED, message, args)
        return Outcome(UNKNOWN, message + " (the rule may not apply; a human should decide)", args)


@lru_cache(maxsize=4096)
def _bare_money_act(tool_name: str) -> bool:
    """Whether the tool's act is the generic money verb alone ('payroll.pay', 'billing.transfer'):
    it may be any kind of payment a rule names (a bonus, a refund), unlike 'pay_vendor'."""
    act = tool_name.rpartition(".")[2].lower()
    return act in ("pay", "transfer", "payment", "remit", "send_money", "transfer_funds")


_REACH_CHANGE, _REACH_PAYING, _REACH_KIND, _REACH_SWITCH, _REACH_PLACE = 1, 2, 4, 8, 16

# Words for paying someone out, whatever the kind of payment (Check.unrelated)
_PAYING = frozenset(stem(w) for w in ("payout", "payouts", "disbursement", "disbursements"))

# Qualifiers that say where a thing goes relative to home: a request's place may make it one
_PLACE_QUALIFIERS = frozenset(
    stem(w) for w in ("international", "foreign", "overseas", "cross-border", "abroad", "offshore")
)


def _shows_a_place(view: RequestView) -> bool:
    shown = view.applicability_memo.get(_A_PLACE_KEY)
    if shown is None:
        shown = view.applicability_memo[_A_PLACE_KEY] = any(
            isinstance(v, str) and 2 <= len(v) <= 40 and location_regions(v) is not None
            for leaf in view.leaves
            for v in scalars(leaf.value)
        )
    return shown


_A_PLACE_KEY = ("__a_place_shown__",)


_FOR_WHOM = re.compile(r"\bfor\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)", re.I)


@lru_cache(maxsize=4096)
def _permission_for(source: str) -> frozenset[str]:
    """The stems a permission names its requests by after 'for' ('auto-approved for verified
    payees'): the qualifier the request must show for the permission to be its."""
    return frozenset(stem(w.lower()) for m in _FOR_WHOM.finditer(source) for w in words(m.group(1)))


# Kinds of a plain word that say where the thing goes, and names of an argument that sends it
# somewhere as well ('copy_to', 'cc_email', 'bcc', 'also_share_with', 'mirror_bucket').
_WHERE_KINDS = frozenset(
    stem(w) for w in "bucket destination channel via route portal queue".split()
)
_ALSO_SENT = re.compile(
    r"(?:^|_)(?:copy|copies|cc|bcc|mirror|replicate|replica|also|forward|share|shared)(?:_|$)"
)


# An argument naming what is done next ('then', 'next_step', 'after_create', 'followed_by').
_NEXT_STEP = re.compile(r"(?:then|next|next_(?:step|action)|after\w*|followed_by|and_then)")


_FLAG_FILLERS = frozenset({"is", "has", "flag"})


def _qualifier_off(view: RequestView, terms: tuple[str, ...]) -> Leaf | None:
    """A yes/no named only by a permission's subject words that says no (`payee_verified: false`
    for 'auto-approved for verified payees'): the request is not one the permission names."""
    if not terms:
        return None
    wanted = frozenset(terms) | _FLAG_FILLERS
    for leaf in view.leaves:
        value = leaf.value
        off = value is False or (
            isinstance(value, str) and value.strip().lower() in ("false", "no", "n")
        )
        if off and leaf.last_keys and leaf.last_keys <= wanted and len(leaf.last_keys) > 1:
            return leaf
    return None


def applicability(
    view: RequestView,
    terms: tuple[str, ...],
    alternatives: tuple[tuple[str, str], ...] = (),
    names: frozenset[str] = _EMPTY,
) -> tuple[str, bool]:
    """Whether a rule's subject words describe the request: matched, unknown or absent.

    The second value says whether the rule is anchored to this tool (its action or object is in
    the tool name). A rule whose action verbs all name another action is absent and unanchored.
    """
    memo_key = (terms, alternatives, names)
    hit = view.applicability_memo.get(memo_key)
    if hit is None:
        hit = view.applicability_memo[memo_key] = _applicability(view, terms, alternatives, names)
    return hit


# 'the salaries table', 'the customers table': a word between 'the' and a singular noun names one
# thing of that kind, so an argument holding another name of that kind rules it out. 'PII tables',
# 'sole-source orders' (plural, no article) name a class: an instance's name does not rule it out.
_THE_NAMED = re.compile(r"\bthe\s+([A-Za-z][\w\-]*)\s+([A-Za-z]+)\b", re.I)


# 'cases in Closed or Suspended status': the words joined by 'or' before a state noun are states
_STATE_ALTERNATIVES = re.compile(
    r"\b([A-Za-z][\w\-]*)\s*(?:,|\bor\b|/)\s*([A-Za-z][\w\-]*)\s+(status|state|stage)\b", re.I
)


_STATE_BEFORE = re.compile(
    r"\b(?:in|with)\s+(?:a\s+|an\s+)?([A-Za-z][\w\-]*)\s+(status|state|stage)\b", re.I
)
_STATE_AFTER = re.compile(
    r"\b(status|state|stage)\s+(?:is\s+|of\s+)?([A-Za-z][\w\-]*)\s*(?:[.;,]|$)", re.I
)


# A word written as a noun: after a determiner ('the backup', 'any message'), or a plural
# ('posts', 'messages'; a verb in -s after its subject is rare in rules: 'nobody posts …').
_THING_WORD = re.compile(
    r"(?:\b(?P<det>a|an|the|any|each|every|no|this|that|these|those|its|their|our|your)\s+"
    r"(?:[a-z][\w\-]*\s+)?)?\b(?P<w>[A-Za-z]+)\b",
    re.I,
)


# A sentence opening with a base-form verb, a plural noun, then its predicate ('Access tokens
# must …', 'Export files may …'); an imperative ('Delete records only …') has no modal there.
_MODIFIER_VERB = re.compile(
    r"\s*(?:(?:all|any|new|the)\s+)?(?P<v>[A-Za-z]+)\s+(?P<n>[A-Za-z]+[^s\W]s)\s+"
    r"(?:must|may|can|cannot|can't|should|shall|need|require|are|have)\b",
    re.I,
)


_AFTER_WORD = re.compile(
    r"\b(?:from|after|before|following|until|since|during|while|once|prior\s+to|with|without|having)\s+"
    r"(?:(?:a|an|the|its|their|any)\s+)?(?P<w>[A-Za-z]+)\b",
    re.I,
)


# A noun after 'any', 'every', 'all', 'each' or 'a(n)' with nothing between ('for any account',
# 'in all environments') names every thing of its kind: it narrows nothing when the request
# acts on a thing of that kind. Only holders that a whole class of requests acts on are read so
# (a request about a user acts on an account); a class of what is acted on ('any subscription',
# 'any PII table') or a word before the noun ('any admin account') still narrows the rule.
KEY_ANY = "*"
# A noun a preposition follows in the rule ('customers with open disputes', 'customers in the
# trial tier', 'sellers with open chargebacks'): the words after it name the party's state,
# never a kind of the noun. Read as 'customer disputes', an argument holding the dispute's state
# ('dispute_status: open') ruled the customer out, and a refund to a disputed customer passed.
KEY_HEAD = "@"
_HEAD_BEFORE = re.compile(
    r"\b(?P<w>[A-Za-z]+)\s+(?:with|having|in|on|under|holding)\s+(?:an?\s+|the\s+|their\s+|its\s+)?"
    r"[A-Za-z]",
    re.I,
)
_QUANTIFIED = re.compile(r"\b(?:any|all|every|each|a|an)\s+(?P<w>[A-Za-z]+)\b", re.I)
_HOLDERS: dict[str, frozenset[str]] = {
    stem(noun): frozenset(stem(w) for w in shown.split())
    for nouns, shown in (
        ("account accounts", "account user username member customer client login employee"),
        ("user users", "user username member employee login account principal identity"),
        (
            "organization organizations organisation organisations org orgs tenant tenants "
            "workspace workspaces",
            "org organization organisation tenant workspace",
        ),
        ("environment environments env envs", "environment env"),
        ("database databases db", "database db schema"),
        ("project projects", "project"),
        ("repository repositories repo repos", "repository repo"),
    )
    for noun in nouns.split()
}


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith("ss") and not word.endswith("ing")


@lru_cache(maxsize=65536)
def name_qualifiers(source: str, terms: tuple[str, ...]) -> frozenset[str]:
    """Subject stems of `source` that name one instance of the noun after them ('the salaries
    table'): only these are ruled out by another name in the noun's argument. Also, marked
    '<word|noun', words joined by 'or' that name states of the state noun after them ('cases in
    Closed or Suspended status'): only these are ruled out by another value of a status argument."""
    out = set()
    for m in _STATE_ALTERNATIVES.finditer(source):
        noun = stem(m.group(3).lower())
        for w in (m.group(1), m.group(2)):
            out.add(f"{KEY_STATE}{stem(w.lower())}|{noun}")
    for m in _STATE_BEFORE.finditer(source):
        # 'cases in Closed status': one state of the status
        out.add(f"{KEY_STATE}{stem(m.group(1).lower())}|{stem(m.group(2).lower())}")
    for m in _STATE_AFTER.finditer(source):
        # 'with SAP status Suspended': a state the status holds, not an action ('suspend')
        out.add(f"{KEY_STATE}{stem(m.group(2).lower())}|{stem(m.group(1).lower())}")
    for m in _AFTER_WORD.finditer(source):
        # 'Releasing a host from isolation', 'Deleting users after offboarding': the state or
        # the time an act starts from, never the rule's act beside its own verb
        s = stem(m.group("w").lower())
        if s in terms and s in VERBS:
            out.add(KEY_THING + s)
    for m in _THING_WORD.finditer(source):
        # 'Posts by minors', 'the backups', 'any message': a thing acted on, not the act
        w = m.group("w").lower()
        s = stem(w)
        if s in THING_NOUNS and s in terms and (m.group("det") or _plural(w)):
            out.add(KEY_THING + s)
    for m in _HEAD_BEFORE.finditer(source):
        s = stem(m.group("w").lower())
        if s in terms:
            out.add(KEY_HEAD + s)
    for m in _QUANTIFIED.finditer(source):
        s = stem(m.group("w").lower())
        if s in _HOLDERS and s in terms:
            out.add(KEY_ANY + s)  # 'for any account': every account
    m = _MODIFIER_VERB.match(source)
    if m:
        # 'Access tokens must expire …', 'Share links may …': a verb in its base form before
        # the plural noun the sentence is about names a kind of that thing, not the rule's act
        # (read as the act, the tool's own verb, create_token, had ruled the rule out)
        s = stem(m.group("v").lower())
        if s in terms and stem(m.group("n").lower()) in terms:
            out.add(KEY_THING + s)
    for m in _THE_NAMED.finditer(source):
        noun = m.group(2).lower()
        if noun.endswith("s") and not noun.endswith("ss"):
            continue  # a plural names a class, not one thing
        qual = stem(m.group(1).lower())
        if qual in terms and stem(noun) in terms:
            out.add(qual)
    return frozenset(out)


@lru_cache(maxsize=65536)
def _words_of(terms: tuple[str, ...], alternatives: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return terms + tuple(w for pair in alternatives for w in pair)


@lru_cache(maxsize=65536)
def _groups(
    terms: tuple[str, ...],
    alternatives: tuple[tuple[str, str], ...],
    names: frozenset[str] = _EMPTY,
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...]]:
    """Term groups of a rule (each noun alone, the verbs together, each 'or' pair) and its verbs.

    Each group member carries the neighbours through which the request may rule it out
    (`RequestView.term_absent`), each marked with how it qualifies: a word before a noun names a
    kind of it ('market orders': the two words after it, plain), read against an argument of
    the noun's kind (`order_type`); a word after a noun names a state of it ('accounts in
    collections': the word before it, marked '<'), read against the noun's status; a name
    ('the salaries table', marked '='), read against any argument naming the noun.
    """
    alt_words = {w for pair in alternatives for w in pair}
    states = {n[1:].partition("|")[0] for n in names if n.startswith(KEY_STATE)}
    # a thing named by a noun that is also a verb ('Posts by minors'): a noun of its own, never
    # the rule's act (read as one, another tool's verb ruled the rule out: removing a post)
    things = {n[1:] for n in names if n.startswith(KEY_THING)}
    verbs = tuple(
        t
        for t in terms
        if t in VERBS
        and t not in alt_words
        and t not in MONEY_GENERIC
        and t not in states
        and t not in things
    )
    nouns = [t for t in terms if t not in verbs and t not in alt_words]
    position = {t: i for i, t in enumerate(terms)}

    seen_classes: list[frozenset[str]] = [_VALUE_CLASSES_OF.get(t, _EMPTY) for t in terms]
    # (words next to each other, 'crypto wallets', name one value together)
    shared_classes = frozenset(
        c for i, a in enumerate(seen_classes) for b in seen_classes[i + 2 :] for c in a & b
    )

    def near(t: str) -> frozenset[str]:
        i = position.get(t, -1)
        if i < 0:
            if t in alt_words:
                # 'Closed or Suspended status': a state, ruled out by a status argument's value
                return frozenset(
                    KEY_STATE + n.partition("|")[2]
                    for n in names
                    if n.startswith(KEY_STATE) and n[1:].partition("|")[0] == t
                )
            return _EMPTY
        out = (
            {terms[j] for j in (i + 1, i + 2) if j < len(terms)}
            if KEY_HEAD + t not in names
            else set()
        )
        if i > 0:
            out.add(KEY_STATE + terms[i - 1])
        if t in names and i + 1 < len(terms):
            out.add(KEY_NAME + terms[i + 1])
        if t in states:
            out.add(KEY_STATE_WORD)  # 'status Suspended': a state, not the verb 'suspend'
        if t in things:
            out.add(KEY_THING)
        if _VALUE_CLASSES_OF.get(t, _EMPTY) & shared_classes:
            # 'Test accounts in prod': two values of one class in the rule, so the request's
            # 'prod' does not show that 'test' (a qualifier of accounts) does not hold
            out.add(KEY_SAME_CLASS)
        return frozenset(out)

    groups: list[tuple[str, ...]] = [(v,) for v in nouns]
    if verbs:
        groups.append(verbs)  # the verbs of one rule are alternatives ('used or created')
    groups.extend(alternatives)
    return tuple((g, tuple(near(t) for t in g)) for g in groups), verbs  # type: ignore[misc]


# A group of `_program` whose first word cannot be read (an empty group): reading it raises, as
# the general loop did.
_NO_FIRST_WORD = object()


@lru_cache(maxsize=65536)
def _program(
    terms: tuple[str, ...], alternatives: tuple[tuple[str, str], ...], names: frozenset[str]
) -> tuple[tuple[tuple, ...], tuple[str, ...]]:
    """What `_applicability` asks of a rule's subject, derived once per subject.

    Per group: its words, each with whether it anchors the rule to a tool whatever the tool (an
    action or money word), its words each with its neighbours, whether the group's first word is a
    specific money word (object `_NO_FIRST_WORD` for an empty group), and whether a group all
    absent says the rule is about another action. Then the rule's specific money words. (Pairs
    are zipped here once: zip(..., strict=True) per request costs more than the loop it feeds.)
    """
    groups, verbs = _groups(terms, alternatives, names)
    program = []
    for n, (group, neighbours) in enumerate(groups):
        other_action = bool(
            (verbs and n == len(groups) - 1 - len(alternatives) and group == verbs)
            or (len(group) > 1 and group in alternatives and all(t in VERBS for t in group))
        )
        money_first = (group[0] in MONEY_SPECIFIC) if group else _NO_FIRST_WORD
        anchored = tuple((t, t in _ANCHOR_WORDS) for t in group)
        # what holds a thing the group names ('content' holds posts): a tool acting on it may
        # act on the rule's thing, so the rule is anchored to it, never matched by it
        kinds = frozenset(
            kind
            for t, nb in zip(group, neighbours, strict=True)
            if KEY_THING in nb
            for kind, things in THING_KINDS.items()
            if t in things
        )
        # 'for any account': the whole kind, shown by a request acting on a thing of it
        universal = (
            _HOLDERS[group[0]] if len(group) == 1 and KEY_ANY + group[0] in names else _EMPTY
        )
        program.append(
            (
                anchored,
                tuple(zip(group, neighbours, strict=True)),
                money_first,
                other_action,
                kinds,
                universal,
            )
        )
    return tuple(program), tuple(t for t in terms if t in MONEY_SPECIFIC)


def _applicability(
    view: RequestView,
    terms: tuple[str, ...],
    alternatives: tuple[tuple[str, str], ...],
    names: frozenset[str] = _EMPTY,
) -> tuple[str, bool]:
    return _run_program(view, terms, *_program(terms, alternatives, names))


@lru_cache(maxsize=65536)
def _term_initials(terms: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """The initials of two or three consecutive words of a rule's subject ('purchas', 'order':
    'po'), each with the words it stands for; never a word of the subject itself."""
    out: dict[str, set[str]] = {}
    for n in (2, 3):
        for i in range(len(terms) - n + 1):
            run = terms[i : i + n]
            if all(len(t) >= 3 for t in run):
                out.setdefault("".join(t[0] for t in run), set()).update(run)
    return {k: frozenset(v) for k, v in out.items() if k not in terms}


def _initialled_terms(terms: tuple[str, ...], tool: frozenset[str]) -> frozenset[str]:
    """The rule's words that a tool's short word stands for by their initials: 'purchase
    orders' on `po_create` (the reverse of the tool acronyms a rule's 'POs' reads)."""
    initials = _term_initials(terms)
    if not initials or tool.isdisjoint(initials):
        return _EMPTY
    return frozenset(t for k, run in initials.items() if k in tool for t in run)


def _run_program(
    view: RequestView,
    terms: tuple[str, ...],
    program: tuple[tuple, ...],
    money_terms: tuple[str, ...],
) -> tuple[str, bool]:
    """`_applicability` of a subject whose `_program` is `program` and `money_terms`."""
    last_keys = view.neighbour_keys
    tool = view.tool_stems
    matches_memo = view.matches_memo
    absent_memo = view.absent_memo
    anchored = False
    status = "matched"
    performed = view.argument_acts()
    generic_change = False
    initialled: frozenset[str] | None = None  # built only when a group is not matched
    # Plain loops rather than comprehensions and any()/all(): this runs for every distinct rule
    # subject of every request, and most groups hold a single word. The view's memos are read in
    # place; a term not yet asked about is answered by the view (which fills them).
    for words_anchoring, words_neighbours, money_first, other_action, kinds, universal in program:
        hit = False
        for t, anchor in words_anchoring:
            m = matches_memo.get(t)
            if m is None:
                m = view.term_matches(t)
            if m:
                hit = True
                if anchor or t in tool:
                    anchored = True
        if not hit and initialled is None:
            initials = _term_initials(terms)
            initialled = (
                _initialled_terms(terms, tool)
                if initials and not tool.isdisjoint(initials)
                else _EMPTY
            )
        if not hit and initialled:
            for t, _ in words_anchoring:
                if t in initialled:
                    hit = anchored = True  # 'purchase orders' on po_create: the tool's initials
                    break
        if hit:
            continue
        if (
            words_anchoring
            and words_anchoring[0][0] in _CHANGE_WORDS
            and all(t in _CHANGE_WORDS for t, _ in words_anchoring)
        ):
            # 'No changes to checkout-service': any act but a read is a change, though no
            # tool is named for the word; a read changes nothing (the group is absent)
            shown = _change_shown(view)
            if shown:
                if shown == "unknown" and status != "absent":
                    status = "unknown"
                continue
        if universal and not (universal.isdisjoint(tool) and universal.isdisjoint(view.key_stems)):
            continue  # 'MFA may not be disabled for any account' and a request about a user
        if performed:
            for t, anchor in words_anchoring:
                # 'Deleting customer data' and `drop_source: true`: an argument performs the
                # act; the rule speaks to the request (anchored) without being matched by it
                if anchor and view.performs(t):
                    anchored = True
        all_absent = True
        for t, nb in words_neighbours:
            nb = _EMPTY if nb.isdisjoint(last_keys) else nb & last_keys
            a = absent_memo.get((t, nb))
            if a is None:
                a = view.term_absent(t, nb)
            if not a:
                all_absent = False
                break
        if all_absent and money_first:
            if money_first is _NO_FIRST_WORD:
                raise IndexError("a group of the rule's subject has no word")
            # 'Bonuses over 15% of the salary' on grant_bonus: the rule's own money word is the
            # tool's, so another money word qualifies it rather than naming another action.
            for t in money_terms:
                if t in tool:
                    all_absent = False
                    break
        if all_absent and _qualifies_tool_noun(tool, words_neighbours):
            # 'Wire transfers' and wires.send, 'Card payments' and payments.charge: a money word
            # beside another money word of the rule that the tool names; the tool's name does
            # not rule it out (a wire is a transfer, a charge may be by card), so the rule is
            # not about another money movement
            all_absent = False
            anchored = True
        if all_absent and view._empty_keys and _switches_off(words_neighbours, view):
            # 'MFA may not be turned off' and `mfa: "off"`: the flag being off is the rule's act,
            # not a sign that the rule's thing is absent
            all_absent = False
            anchored = True
        if all_absent:
            if _generic_change(tool, words_anchoring) and _flag_switched_off(
                view, words_anchoring, terms
            ):
                # 'Disabling SSO enforcement is forbidden' and set_enforcement with `enforced:
                # false`: the request switches the rule's thing off, which is the rule's act
                anchored = True
                continue
            if _generic_change(tool, words_anchoring):
                # 'Downgrades to the free plan' and change_plan, 'SSO may not be disabled' and
                # update_sso: a tool that changes a thing in general may perform the rule's
                # specific change (through its arguments), so the act is not ruled out
                generic_change = True
                if status != "absent":
                    status = "unknown"
                continue
            if other_action:
                return "absent", False  # the rule is about another action
            status = "absent"
        else:
            if kinds and not kinds.isdisjoint(tool):
                # 'Posts by minors need review' and remove_content: the content may be a post
                anchored = True
            if status != "absent":
                status = "unknown"
    if generic_change and not anchored:
        if _flag_not_on(view, terms):
            # 'SSO enforcement may not be disabled' and settings.update with `sso_mode:
            # "optional"`: the tool changes the rule's thing to a value that is not plainly on,
            # which may be switching it off
            return "unknown", True
        return "absent", False  # nothing else of the rule is in the tool: another action
    # A word of the rule that the request neither shows nor rules out ('the root user' against
    # user_name 'ci-deployer') leaves the rule "unknown", however much else matches: deciding it
    # would be a guess, so a deny becomes review and an allow does not apply.
    return status, anchored


# A tool verb that changes a thing in general, and the specific changes it may perform through
# its arguments ('change_plan' may downgrade, 'update_sso' may disable).
_GENERIC_CHANGE_VERBS = frozenset(
    {"chang", "upd", "updat", "set", "modify", "modifi", "edit", "patch", "adjust", "configur"}
)
_SPECIFIC_CHANGES = frozenset(
    {
        "downgrad", "upgrad", "disabl", "enabl", "suspend", "deactiv", "activ", "lock", "unlock",
        "rais", "increas", "lower", "reduc", "decreas", "extend", "renam", "demot", "promot",
        "elev", "restrict", "switch", "toggl", "turn",
    }
)  # fmt: skip


_SWITCH_OFF = frozenset(
    {"off", "disabl", "deactiv", "suspend", "revok", "remov", "unset", "disconnect", "paus"}
)


def _switches_off(neighbours: tuple[tuple[str, frozenset[str]], ...], view: RequestView) -> bool:
    """Whether a word of the group, beside a word of switching off ('turned off', 'disable'),
    names a flag of the request that is off."""
    for t, nb in neighbours:
        if t in view._empty_keys and any(n.lstrip("<") in _SWITCH_OFF for n in nb):
            return True
    return False


_MONEY_WORDS = MONEY_GENERIC | MONEY_SPECIFIC | {"wir"}  # a wire moves money


def _qualifies_tool_noun(
    tool: frozenset[str], neighbours: tuple[tuple[str, frozenset[str]], ...]
) -> bool:
    """Whether the group's money words stand beside another money word of the rule that the
    tool names ('wire transfers' and wires.send, 'card payments' and payments.charge)."""
    if not neighbours:
        return False
    for t, _nb in neighbours:
        if t not in _MONEY_WORDS:
            return False
    for _t, nb in neighbours:
        for n in nb:
            w = n.lstrip("<")
            if w in tool and w in _MONEY_WORDS:
                return True
    return False


# The rule's acts that switching a flag off performs, and the flag values that are off.
_SWITCHING_OFF = frozenset({stem("disable"), stem("deactivate")})
_OFF_VALUES = frozenset({"false", "off", "no", "n", "0", "disabled", "none"})
# Flag names that say the opposite when off ('sso_disabled': false is SSO on)
_INVERTED_FLAG = _SWITCH_OFF | frozenset(stem(w) for w in "skip no not without bypass opt".split())


def _flag_switched_off(
    view: RequestView, words: tuple[tuple[str, bool], ...], terms: tuple[str, ...]
) -> bool:
    """Whether the group is switching off ('disable') and the request sets a flag named for
    another word of the rule off (`enforced: false`, `sso_enabled: "false"`)."""
    if not words or not all(t in _SWITCHING_OFF for t, _ in words):
        return False
    things = frozenset(terms) - _SWITCHING_OFF
    for lf in view.leaves:
        v = lf.value
        off = (
            v is False
            or (type(v) is int and v == 0)
            or (isinstance(v, str) and v.strip().lower() in _OFF_VALUES)
        )
        if off and not lf.last_keys & _INVERTED_FLAG and not things.isdisjoint(lf.last_keys):
            return True
    return False


# Flag values that plainly leave a thing on: a change to one of them does not switch it off.
_ON_VALUES = frozenset({"true", "on", "yes", "y", "1", "enabled", "enable", "enforced", "required"})


def _flag_not_on(view: RequestView, terms: tuple[str, ...]) -> bool:
    """Whether the rule is switching off ('may not be disabled') and the request names one of
    the rule's things, by an argument or as a value (a setting's name in a key/value list),
    with a value that is not plainly on."""
    if _SWITCHING_OFF.isdisjoint(terms):
        return False
    things = frozenset(terms) - _SWITCHING_OFF - _SPECIFIC_CHANGES
    if not things:
        return False
    for lf in view.leaves:
        named = not things.isdisjoint(lf.last_keys)
        for v in scalars(lf.value):
            if isinstance(v, str):
                if not things.isdisjoint(content_stems(v[:200])):
                    return True  # the thing is named as a value: what it is set to is unread
                if named and v.strip().lower() not in _ON_VALUES:
                    return True
            elif named and v is not True and not (type(v) is int and v == 1):
                return True
    return False


def _generic_change(tool: frozenset[str], words: tuple[tuple[str, bool], ...]) -> bool:
    """Whether a tool named by a generic change verb may perform the group's specific change."""
    return (
        bool(words)
        and not tool.isdisjoint(_GENERIC_CHANGE_VERBS)
        and all(t in _SPECIFIC_CHANGES for t, _ in words)
    )


# Outcomes without a message or arguments are the commonest ones; being immutable they are shared
# instead of built for every check of every request.
_NOT_APPLICABLE = Outcome(NOT_APPLICABLE)
# what a limit 'per line' / 'each item' is per: every member of a list on its own
_LINE_THINGS = frozenset({"line", "item", "row", "line item"})
# an argument counting the earlier ones ('prior_transfers', 'previous_refunds'): this request
# adds one to it
_PRIOR_KEYS = frozenset({"prior", "previou", "previous", "earlier", "past"})
_UNBOUND = Outcome(UNBOUND)
_SATISFIED = Outcome(SATISFIED)


# The arguments a means of sending is held in ('via the secure portal', 'via SFTP only')
MEANS_KINDS = tuple(
    stem(w) for w in "channel method protocol delivery transport medium via".split()
)
# 's3://analytics-exports/subs/…': a location names its bucket or host right after the scheme
_URI_HOST = re.compile(r"^[a-z][a-z0-9+.\-]*://(?P<host>[^/?#\s]+)", re.I)


def is_the_word(value: str, want: str) -> bool | None:
    """Whether an argument's value is the plain word a rule requires: the same word whatever its
    case or separators ('Store Credit' is 'store_credit'), or a location whose bucket or host is
    it; a value sharing a word with it ('main-backup', 'feature/main', 'portal' for 'secure
    portal') or holding it written together ('mainline') is neither plainly it nor plainly
    another value (None)."""
    v = value.strip()
    host = _URI_HOST.match(v)
    if host and normalise_value(host.group("host")) == normalise_value(want):
        return True
    if normalise_value(v) == normalise_value(want):
        return True
    if {w.lower() for w in words(v)} & {w.lower() for w in words(want)}:
        return None
    # '#oncall' for 'on-call', 'mainline' for 'main': written together, the word is inside it
    if _compact(want) and _compact(want) in _compact(v):
        return None
    return False


def _compact(value: str) -> str:
    return re.sub(r"[\W_]+", "", value.lower())


def _not_applicable_or_satisfied(anchored: bool) -> Outcome:
    return _SATISFIED if anchored else _NOT_APPLICABLE


# ---------------------------------------------------------------------------------------------
# A rule's temperature scale ('8 °C', '46F', '40 degrees Fahrenheit') and the argument-name
# words of the other scale (`temp_f` against a rule in Celsius).
_TEMPERATURE = re.compile(
    r"\d\s*(?:\u00b0\s*(?P<a>[CF])|(?P<b>\u2103|\u2109)|(?:degrees?|deg)\s+(?P<c>celsius|fahrenheit|[CF])\b)",
    re.I,
)
_OTHER_SCALE_KEYS = {
    "C": frozenset({"f", "fahrenheit", "degf"}),
    "F": frozenset({"c", "celsius", "degc"}),
}


@lru_cache(maxsize=4096)
def _temperature_scale(source: str) -> str:
    m = _TEMPERATURE.search(source)
    if not m:
        return ""
    got = (m.group("a") or m.group("b") or m.group("c") or "").lower()
    return "F" if got in ("f", "fahrenheit", "\u2109") else "C"


# an argument named as another's real value: `effective_leverage` beside `leverage`
_RESTATED_NAME = re.compile(
    r"^(?:effective|actual|real|true|net|gross|total|combined|overall|adjusted|final|"
    r"resulting|post_trade|projected)_(?P<rest>[a-z0-9_]+)$"
)


@dataclass(frozen=True)
class NumericLimit(Check):
    """'Payments must not exceed $25,000' / 'Refunds above €500 need review' / per-day totals."""

    op: str = "gt"  # the condition that fires the effect: value OP threshold
    threshold: float = 0.0
    currency: str | None = None
    unit_family: str | None = None
    unit_factor: float = 1.0
    noun: str | None = None  # counted thing ('rows', 'instances', 'recipients')
    measure: tuple[str, ...] = ()  # words naming the measured argument
    window: str | None = None  # day | hour | week | month | year | None
    counts_calls: bool = False  # 'no more than 20 payouts per hour' counts requests
    # the argument the rule names for its measure ('5m equivalent (notional_usd)', 'Key TTL
    # (key_ttl_days) at most 90'): only that argument is compared
    named: str = ""
    # what the limit is per ('customer', 'order', 'grant'; 'line' / 'item' / 'row' judge every
    # member of a list on its own); '' when per request or per agent (what history counts)
    per: str = ""
    # the currency is the policy's own, named elsewhere in it ('All amounts USD'), not the rule's
    currency_from_policy: bool = False
    # the policy names several currencies ('All amounts USD except the UK book, which is in
    # GBP'): a bound with no currency against an amount with none is not surely like for like
    currency_open: bool = False
    kind: str = field(default="numeric_limit", init=False)

    @cached_property
    def _name_is_subject(self) -> bool:
        """The rule's subject words are all words of the argument it names."""
        own = {stem(w) for w in re.split(r"[^a-z0-9]+", self.named.lower()) if w}
        return set(self.terms) <= own

    @cached_property
    def _binding(self) -> tuple[tuple[str, ...], str | None, str | None, bool, bool]:
        """What `bind_measure` reads of the check, derived once: the measure words (with those
        of an order's size), the counted noun, the unit, whether it bounds money, whether a
        size."""
        sized = self.sized
        money = self.currency is not None or (
            self.unit_family is None and not self.noun and not self.on_a_scale and not sized
        )
        return self.measure + sized, self.noun, self.unit_family, money, bool(sized)

    @cached_property
    def _temperature(self) -> str:
        """`_temperature_scale` of the rule's words, read once per check (every bound it binds
        is judged by `_judge_value`, for every request)."""
        return _temperature_scale(self.source)

    @cached_property
    def quantity_words(self) -> tuple[bool, bool, frozenset[str]]:
        """Whether the measure words hold a word that never measures money, and 'quantity' or
        'qty' (`_named_over_money`), read once."""
        words = frozenset(self.measure + self.sized)
        never = bool(words & _NEVER_MONEY) or (
            # 'Class size is capped at 20', 'Party size …': the size of a thing that is not
            # money is a count ('Loan size', 'Deal size' are sums)
            _SIZE in words and words.isdisjoint(_SIZED_IN_MONEY)
        )
        return never, bool(words & _QTY), self.identifiers

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """The argument names written in the rule as staff copy them from a schema
        ('qty_units', '`shoot_days`'): snake_case words (`_named_over_money`)."""
        return frozenset(m.lower() for m in _IDENTIFIER.findall(self.source))

    @cached_property
    def on_a_scale(self) -> bool:
        """A bound on a score's own scale ('a credit score below 600'), never money."""
        return _on_a_scale(self)

    @cached_property
    def sized(self) -> tuple[str, ...]:
        """The argument words of an order's or a trade's size (`_sized_quantity`), read once."""
        return _sized_quantity(self)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(
            op=self.op,
            threshold=self.threshold,
            currency=self.currency,
            unit=self.unit_family,
            window=self.window,
            counts_calls=self.counts_calls,
        )
        return d

    def evaluate(self, view: RequestView) -> Outcome:
        if self.named and self._name_is_subject and not bind_measure(view, self):
            # 'validity_months: 12 max' says nothing but the argument and its bound: a request
            # without that argument is one the rule cannot judge (jparenarg)
            return Outcome(UNKNOWN, f"`{self.named}` is not among the arguments")
        applies, anchored = self.applicability(view)
        if applies == "absent" and self.noun and self.op in ("lt", "le") and not self.counts_calls:
            # 'must cite at least one reason code' and `reason_codes: []`: the empty list is the
            # count the floor speaks of (zero), not a sign that the rule does not apply
            empty = self._empty_list_named(view)
            if empty is not None:
                return self._judge_value(view, empty, 0.0, "matched")
        if applies == "absent" and self.unit_family == "percent":
            # `current_salary: 0` reads as no current value (a zero shows a thing absent), but
            # beside `new_salary` it is the base of the change the rule bounds
            change = self._relative_change(view, "matched")
            if change is not None and change.status == UNKNOWN:
                return change
        if applies == "absent" and self.named and self.op in ("lt", "le"):
            # jred29: '(hours_to_cutoff below 24)' and `hours_to_cutoff: 0`: a zero in the
            # argument the rule names is the lowest value of its floor, not a thing absent
            # (read as not applying, a run at the cutoff itself was approved)
            named_zero = [(leaf, value) for leaf, value in bind_measure(view, self) if value == 0]
            if named_zero:
                leaf, value = named_zero[0]
                return self._judge_value(view, leaf, value, "matched")
        if applies == "absent":
            off = _qualifier_off(view, self.terms) if self.effect == "allow" else None
            if off is None and self.effect == "allow" and anchored:
                unshown = self._permission_unshown(view)
                if unshown is not None:
                    return unshown
            if off is not None:
                # 'Transfers under $10k - auto-approved for verified payees' and
                # `payee_verified: false`: the permission is for the qualified requests, and
                # this one says it is not one; what the rule wants for it is not said (read as
                # not applying, the rule's other bound passed it)
                return Outcome(
                    UNKNOWN,
                    f"{off.path} = {off.value!r}: the rule permits only what its words qualify, "
                    "and says nothing of this request (a human should decide)",
                    (off.path,),
                )
            return _not_applicable_or_satisfied(anchored)
        if self.counts_calls:
            return self._count_calls(view, applies, anchored)
        bound = bind_measure(view, self)
        if self.per and self.per not in _LINE_THINGS and (bound or self.noun):
            return self._per_thing(view, bound, applies)
        if not bound:
            if applies == "matched" and anchored:
                return Outcome(UNKNOWN, "the amount this rule limits is not among the arguments")
            return _UNBOUND
        if self.sized:
            two_ways = self._size_read_two_ways(view, bound)
            if two_ways is not None:
                return two_ways
        if applies == "unknown" and anchored and self._named_by_unit(bound):
            # 'at most 50,000 recipients' and a `recipient_count`: the argument is named after the
            # counted noun (or the unit's quantity), so the rule speaks of it.
            applies = "matched"
        if self.unit_family == "percent" and not any(lf.keys & _PERCENT_KEYS for lf, _ in bound):
            change = self._relative_change(view, applies)
            if change is not None:
                return change
        worst: Outcome | None = None
        for leaf, value in bound:
            outcome = self._judge_value(view, leaf, value, applies)
            if worst is None or _rank(outcome.status) > _rank(worst.status):
                worst = outcome
        assert worst is not None
        if (
            worst.status in (SATISFIED, PERMITTED)
            and self.op in ("gt", "ge")
            and len(bound) > 1
            and self.per not in _LINE_THINGS
        ):
            # 'per line', 'each line': every member is judged on its own, never their sum
            return (
                self._items_total(view, bound, applies)
                or self._other_measure(view, bound, applies)
                or worst
            )
        if worst.status in (SATISFIED, PERMITTED):
            return self._other_measure(view, bound, applies) or worst
        return worst

    def _size_read_two_ways(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...]
    ) -> Outcome | None:
        """'Max order size: 500,000' beside both a `quantity` and a `notional`: the rule gives no
        unit, so when the money the order moves would be judged otherwise than its quantity,
        the rule's meaning decides the request and a person reads it."""
        fires = _OPS[self.op]
        by_quantity = {fires(v, self.threshold) for _, v in bound}
        for leaf, value in view.numeric_leaves():
            if leaf.last_keys & _SIZE_IN_MONEY and {fires(value, self.threshold)} != by_quantity:
                return Outcome(
                    UNKNOWN,
                    f"the size is read as the quantity, but {leaf.path} = {_fmt(value)} would be "
                    f"judged otherwise and the rule names no unit",
                    (leaf.path,),
                )
        return None

    def _per_thing(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...], applies: str
    ) -> Outcome:
        """'max 2 refunds per order', 'max one per grant', '$500 per customer': the limit counts or
        sums over every request for that thing, which only an argument counting the thing's
        earlier ones shows ('prior_refunds': this request adds one). A sum of money or a count
        the request alone breaks fires; anything else is not known (history counts this agent's
        requests, not the thing's)."""
        if self.noun and not (self.currency or self.unit_family):
            # a count per thing is read only from an argument counting the earlier ones, named
            # for the counted noun ('prior_extensions'): an argument merely sharing the noun
            # ('extension_months') measures something else
            noun = stem(self.noun)
            bound = tuple(
                (lf, v)
                for lf, v in view.numeric_leaves()
                if lf.last_keys & _PRIOR_KEYS and noun in lf.last_keys
            )
            if not bound:
                return Outcome(
                    UNKNOWN, f"no argument counts the earlier {self.noun} per {self.per}"
                )
        worst: Outcome | None = None
        for leaf, value in bound:
            if (
                self.noun
                and leaf.last_keys & _PRIOR_KEYS
                and not (self.currency or self.unit_family)
            ):
                outcome = self._judge_value(view, leaf, value + 1, applies)
                if outcome.status in (SATISFIED, PERMITTED):
                    outcome = Outcome(
                        outcome.status,
                        f"{leaf.path} = {_fmt(value)} earlier; this is number {_fmt(value + 1)} "
                        f"per {self.per}",
                        (leaf.path,),
                    )
            else:
                outcome = self._judge_value(view, leaf, value, applies)
                if outcome.status in (SATISFIED, PERMITTED):
                    outcome = Outcome(
                        UNKNOWN,
                        f"the total per {self.per} is not known; {leaf.path} = {_fmt(value)} alone",
                        (leaf.path,),
                    )
            if worst is None or _rank(outcome.status) > _rank(worst.status):
                worst = outcome
        assert worst is not None
        return worst

    def _relative_change(self, view: RequestView, applies: str) -> Outcome | None:
        """'Increases of more than 10% over current base' with `current_base` and `new_base`:
        the increase is (new - current) / current, computed from the two arguments the rule
        names (the same name after 'current'/'old' and 'new'/'proposed'). Only one such pair,
        both positive numbers, and a rule that says the share is of the current value; anything
        else is left to the other readings (unknown)."""
        m = _CHANGE_OVER_CURRENT.search(self.source)
        if m is None or self.op not in ("gt", "ge"):
            return None
        base = stem(m.group("base").lower())
        before: dict[frozenset[str], tuple[Leaf, float]] = {}
        after: dict[frozenset[str], tuple[Leaf, float]] = {}
        # the base by its own word ('current base') or by the rule's thing ('Salary increases
        # … over current base' and `current_salary`/`new_salary`)
        named = {base} | (set(self.terms) - _CURRENT_WORDS - _NEW_WORDS - VERBS)
        for leaf, value in view.numeric_leaves():
            if not leaf.last_keys & named:
                continue
            if leaf.last_keys & _CURRENT_WORDS and not leaf.last_keys & _NEW_WORDS:
                before[leaf.last_keys - _CURRENT_WORDS] = (leaf, value)
            elif leaf.last_keys & _NEW_WORDS and not leaf.last_keys & _CURRENT_WORDS:
                after[leaf.last_keys - _NEW_WORDS] = (leaf, value)
        pairs = [(before[k], after[k]) for k in before.keys() & after.keys()]
        if len(pairs) != 1 or len(before) != 1 or len(after) != 1:
            return None
        (old_leaf, old), (new_leaf, new) = pairs[0]
        for lf in view.leaves:
            # `new_salary_period: "monthly"`, a `unit` or `currency` beside one of the pair: the
            # two numbers may not be in the same terms
            if lf is old_leaf or lf is new_leaf:
                continue
            if (
                old_leaf.last_keys < lf.last_keys
                or new_leaf.last_keys < lf.last_keys
                or _find_unit_argument(view, old_leaf) is lf
                or _find_unit_argument(view, new_leaf) is lf
            ):
                return Outcome(
                    UNKNOWN,
                    f"{lf.path} = {lf.value!r} may put {old_leaf.path} and {new_leaf.path} in "
                    "different terms",
                    (old_leaf.path, new_leaf.path, lf.path),
                )
        if not (old > 0 and new > 0):
            # a current value of 0 (or below): the share over it is unbounded or meaningless,
            # and the amounts are no percentage either
            return Outcome(
                UNKNOWN,
                f"{old_leaf.path} = {_fmt(old)}: the change over it is not a share to compare",
                (old_leaf.path, new_leaf.path),
            )
        share = round((new - old) / old * 100.0, 9)
        args = (old_leaf.path, new_leaf.path)
        said = f"{new_leaf.path} = {_fmt(new)} is {_fmt(share)}% over {old_leaf.path} = {_fmt(old)}"
        if _OPS[self.op](share, self.threshold):
            return self.fire(applies, f"{said}, {_OP_WORDS[self.op]} {_fmt(self.threshold)}%", args)
        return Outcome(SATISFIED, f"{said}, within {_fmt(self.threshold)}%", args)

    @cached_property
    def _subject_stems(self) -> tuple[str, ...]:
        # the rule's own words long enough to name a sum ('waiver' for `waived_amount`)
        return tuple(t for t in self.terms if len(t) >= 4)

    def _permission_unshown(self, view: RequestView) -> Outcome | None:
        """A permission some of whose subject words the request shows and some not
        ('auto-approved for verified payees' on a wire transfer that says nothing of the
        payee): whether the request is one it permits is not shown. Read as not applying (or
        as satisfied), the rule's other bound ('; over: treasury') passed the transfer."""
        qualified = _permission_for(self.source)
        if not qualified:
            return None
        unshown = [t for t in self.terms if not view.term_matches(t)]
        if not unshown or len(unshown) == len(self.terms) or qualified.isdisjoint(unshown):
            return None
        return Outcome(
            UNKNOWN,
            f"the rule permits only {surface_words(self.source, self.terms)}; the request does "
            "not show that it is one (a human should decide)",
        )

    def _subject_named_amount(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...], applies: str
    ) -> Outcome | None:
        """'Waivers over $100 - supervisor' with `amount: 80` beside `waived_amount: 150` (or
        `amount_usd: 600`): the bound was read on the plain amount, but another sum is named for
        the rule's own thing or a currency, and the rule would not pass it, so which one the rule bounds is for a human (read on
        `amount` alone, the waiver of 150 was approved)."""
        # the sums named for something besides money (`waived_amount`, `amount_usd`), found once
        # per request: most requests have none, and this runs for every money bound
        named = view.bind_memo.get(("named sums",))
        if named is None:
            named = view.bind_memo[("named sums",)] = tuple(
                (leaf, value, leaf.last_keys - MONEY_KEYS)
                for leaf, value in view.numeric_leaves()
                if not leaf.last_keys.isdisjoint(MONEY_KEYS) and leaf.last_keys - MONEY_KEYS
            )
        if not named:
            return None
        subject = self._subject_stems
        if not subject or self.unit_family is not None or self.noun:
            return None
        if not all(lf.last_keys <= MONEY_KEYS for lf, _ in bound):
            return None  # the chosen argument is itself named for something
        chosen = {lf.path for lf, _ in bound}
        for leaf, value, own in named:
            if leaf.path in chosen:
                continue
            # named for the rule's own thing, or the same sum in a currency (`amount_usd`)
            if not (own and own <= _CURRENCY_WORDS_LOWER) and not any(
                len(w) >= 4 and (t.startswith(w) or w.startswith(t)) for w in own for t in subject
            ):
                continue
            outcome = self._judge_value(view, leaf, value, applies)
            if outcome.status not in (SATISFIED, PERMITTED, NOT_APPLICABLE):
                return self._either_measure(chosen, leaf, value)
        return None

    def _either_measure(self, chosen: set[str], leaf: Leaf, value: float) -> Outcome:
        """Unknown: the chosen argument(s) and `leaf` may each be what the rule bounds, and the
        rule would not pass `leaf` (`_other_measure`, `_subject_named_amount`)."""
        return Outcome(
            UNKNOWN,
            f"{' and '.join(sorted(chosen))} and {leaf.path} may each be what the rule bounds; "
            f"{leaf.path} = {_fmt(value)} is {_OP_WORDS[self.op]} {_fmt(self.threshold)}",
            (*sorted(chosen), leaf.path),
        )

    def _other_measure(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...], applies: str
    ) -> Outcome | None:
        """A second argument the bound may be about, that the rule would not pass: the rule is
        not read on the chosen one alone (unknown, never an approval).

        - 'Dives deeper than 30 m' with `depth_m` and `max_depth_m`: two arguments of the measure
          that differ only in a word of their name; the binding preferred the shorter one.
        - 'Purchases above $5,000' with `unit_price_usd` and `quantity`: the price is per unit,
          the purchase is their product.
        """
        if self.named:
            restated = self._named_restated(view, bound, applies)
            if restated is not None:
                return restated
        # Most bindings have no near measure: the chosen paths are collected only when one is.
        near = near_measures(view, bound)
        if near:
            chosen = {lf.path for lf, _ in bound}
            for leaf, value in near:
                if leaf.path in chosen:
                    continue
                outcome = self._judge_value(view, leaf, value, applies)
                if outcome.status not in (SATISFIED, PERMITTED, NOT_APPLICABLE):
                    return self._either_measure(chosen, leaf, value)
        named = self._subject_named_amount(view, bound, applies)
        if named is not None:
            return named
        if self.op not in ("gt", "ge") or self.unit_family is not None or self.noun:
            return None
        for leaf, value in bound:
            if leaf.last_keys.isdisjoint(_PRICE_KEYS) or leaf.last_keys.isdisjoint(_PER_UNIT_KEYS):
                continue
            for tally, count in view.numeric_leaves():
                if tally.path == leaf.path or not tally.last_keys & _TALLY_KEYS:
                    continue
                if tally.last_keys & (_PRICE_KEYS | MONEY_KEYS) or count <= 1:
                    continue
                outcome = self._judge_value(view, leaf, value * count, applies)
                if outcome.status not in (SATISFIED, PERMITTED, NOT_APPLICABLE):
                    return Outcome(
                        UNKNOWN,
                        f"{leaf.path} is a price per unit; times {tally.path} it is "
                        f"{_fmt(value * count)}, {_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                        (leaf.path, tally.path),
                    )
        return None

    def _named_restated(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...], applies: str
    ) -> Outcome | None:
        """'Leverage above 5x is forbidden (`leverage`)' with `leverage: 2` beside
        `effective_leverage: 10`: the named argument restated as the real one, on the rule's
        side. Which one the rule means is not for the engine to pick (unknown, never approval)."""
        chosen = {lf.path for lf, _ in bound}
        for leaf, value in view.numeric_leaves():
            if leaf.path in chosen:
                continue
            key = re.sub(r"\[\d*\]", "", leaf.path).rsplit(".", 1)[-1].lower()
            m = _RESTATED_NAME.match(key)
            if not m or m.group("rest") != self.named.lower():
                continue
            outcome = self._judge_value(view, leaf, value, applies)
            if outcome.status not in (SATISFIED, PERMITTED, NOT_APPLICABLE):
                return Outcome(
                    UNKNOWN,
                    f"`{self.named}` is within the bound, but {leaf.path} = {_fmt(value)} is "
                    f"{_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                    (*chosen, leaf.path),
                )
        return None

    def _items_total(
        self, view: RequestView, bound: tuple[tuple[Leaf, float], ...], applies: str
    ) -> Outcome | None:
        """'Orders may not exceed 100 units' and line items of 80 and 70: each item is under the
        cap, their total is not. The rule may speak of each item or of the whole request, so a
        total beyond the cap is for a human (unknown), never an approval item by item."""
        by_path: dict[str, list[tuple[Leaf, float]]] = {}
        for leaf, value in bound:
            by_path.setdefault(leaf.path, []).append((leaf, value))
        for path, items in by_path.items():
            if len(items) < 2:
                continue
            total = sum(v for _, v in items)
            outcome = self._judge_value(view, items[0][0], total, applies)
            if outcome.status in (VIOLATED, REVIEW, UNKNOWN):
                return Outcome(
                    UNKNOWN,
                    f"each {path} is within the rule, but their total {_fmt(total)} is "
                    f"{_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                    (path,),
                )
        return None

    def reading(self) -> str:
        what = "the number of requests" if self.counts_calls else _measure_words(self)
        if self.window == "day" and not self.counts_calls:
            what = f"today's total of {what}"
        elif self.window and not self.counts_calls:
            what = f"the {self.window}'s total of {what}"
        elif self.window:
            what = f"{what} per {self.window}"
            every_agent, qualified = self._count_scope
            if every_agent:
                what = f"{what} of every agent (not known: a human decides)"
            elif qualified:
                what = f"{what} of the kind the rule names (every request counted; over the cap, a human decides)"
        if self.per and not self.window:
            # 'max 2 refunds per order': the count over every request for one order
            what = f"{what} per {self.per}"
        bound = _bound_words(self)
        if self.effect == "allow":
            return (
                f"Allow when {what} is {OP_WORDS[NEGATE[self.op]]} {bound}; "
                f"otherwise send to review{self._about()}"
            )
        return f"{_VERB[self.effect]} when {what} is {OP_WORDS[self.op]} {bound}{self._about()}"

    def _empty_list_named(self, view: RequestView) -> Leaf | None:
        """An empty list argument named by a word of the rule (its subject or counted noun)."""
        wanted = set(self.terms) | {stem(self.noun)} if self.noun else set(self.terms)
        for lf in view.leaves:
            if isinstance(lf.value, (list, tuple)) and not lf.value and lf.last_keys & wanted:
                return lf
        return None

    def _named_by_unit(self, bound: tuple[tuple[Leaf, float], ...]) -> bool:
        noun = stem(self.noun) if self.noun else None
        wanted = _NOUN_SYNONYMS.get(noun, frozenset({noun})) if noun else frozenset()
        if self.unit_family == "mass":
            wanted = _MASS_KEYS | {"mg", "kg", "lb", "lbs"}
        elif self.unit_family == "length":
            wanted = _LENGTH_KEYS
        elif self.unit_family == "speed":
            wanted = _SPEED_KEYS
        elif self.unit_family == "time":
            wanted = _TIME_KEYS  # 'valid for more than 90 days' and a `ttl_days`
        elif self.unit_family == "bytes":
            wanted = _BYTES_KEYS
        elif self.sized:
            wanted = frozenset(_SIZE_WORDS)  # 'Max order size' and a `quantity`
        return bool(wanted) and all(lf.keys & wanted for lf, _ in bound)

    def _judge_value(self, view: RequestView, leaf: Leaf, value: float, applies: str) -> Outcome:
        if self.unit_family is None:
            scale = self._temperature
            if scale and leaf.keys & _OTHER_SCALE_KEYS[scale]:
                # 'must stay between 18 and 24 °C' against `setpoint_f`: the other scale, which a
                # bare comparison would read as Celsius (50 °F passed as 'not above 8')
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {_fmt(value)} is in another temperature scale than the rule's",
                    (leaf.path,),
                )
        if value == 0 and self.unit_family == "time" and self.op in ("gt", "ge") and self.threshold:
            # 'API keys must have an expiry of 90 days or less' and `ttl_days: 0`: a lifetime of
            # zero is as often "never expires" as "expires at once"; under the cap it passed
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = 0 may mean no limit at all rather than none: a human should read it",
                (leaf.path,),
            )
        if value < 0 <= self.threshold and self.op in ("gt", "ge"):
            # '-5000' against 'must not exceed 1,000': a reversal, a debit, a typo? Under a cap
            # only by its sign, which the rule does not speak of: a human decides.
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {_fmt(value)} is negative; the rule does not say what that means",
                (leaf.path,),
            )
        if self.unit_family == "percent" and not leaf.keys & _PERCENT_KEYS:
            # 'capped at 2% of capacity' against `comps_issued` = 60: a count, not a share.
            # Taking a share of another argument is arithmetic the engine does not do.
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {_fmt(value)} is not named as a percentage; "
                f"the rule's bound is a share",
                (leaf.path,),
            )
        if self.unit_family == "percent" and 0 < abs(value) < 1 and self.threshold >= 1:
            # '0.25' against '20%': a fraction or a quarter of a percent? A human decides.
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {_fmt(value)} may be a fraction (of 1) or a percentage",
                (leaf.path,),
            )
        value, problem = convert_value(view, leaf, value, self)
        if problem:
            return Outcome(UNKNOWN, problem, (leaf.path,))
        what = leaf.path
        if self.window == "day":
            today = float(view.history.total_today(view.agent_id, view.tool_name, leaf.path))
            # the earlier requests' total is in the argument's own unit, as this value was before
            # `convert_value` ('amount_cents': earlier cents were added to this request's dollars)
            today = _scaled_like(leaf, today, self)
            stated = _stated_today(view, leaf)
            if stated:
                # `credits_today_usd: 90` beside 'up to $100 a day': the request states today's
                # earlier total; with history too, the two may count the same or other things
                if len(stated) > 1 or today:
                    return Outcome(
                        UNKNOWN,
                        f"{stated[0].path} states an earlier total for today: a human must add",
                        (leaf.path, stated[0].path),
                    )
                today = float(stated[0].value)
            value = today + value
            what = f"today's total of {leaf.path}"
        elif self.window in ("hour", "week", "month", "year", "period"):
            # 'ytd_matched_usd', 'month_to_date_spend': the request itself states the period's
            # total so far, which this request adds to
            so_far = _to_date_total(view, leaf, self.window)
            if so_far is not None:
                total = so_far + value
                if _OPS[self.op](total, self.threshold):
                    if self.effect == "allow":
                        return Outcome(REVIEW, f"the {self.window}'s total would be {_fmt(total)}")
                    return self.fire(
                        applies,
                        f"the {self.window}'s total would be {_fmt(total)}, "
                        f"{_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                        (leaf.path,),
                    )
                return Outcome(
                    SATISFIED, f"the {self.window}'s total would be {_fmt(total)}", (leaf.path,)
                )
            # History only knows today's totals: a per-period sum that this request alone does not
            # break cannot be verified here.
            if _OPS[self.op](value, self.threshold) and self.effect != "allow":
                return self.fire(
                    applies,
                    f"{leaf.path} = {_fmt(value)} alone is {_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                    (leaf.path,),
                )
            return Outcome(
                UNKNOWN, f"the {self.window} total of {leaf.path} is not known", (leaf.path,)
            )
        if (
            self.noun
            and not self.per  # a limit per thing already adds this request (`_per_thing`)
            and self.effect != "allow"
            and self.op in ("gt", "ge")
            and not (self.currency or self.unit_family)
            and leaf.keys & _EARLIER_KEYS
            # the argument counts earlier things of the request's own kind (`credits_last_30_days`
            # for an issue_credit tool; `failed_logins_last_hour` on an unlock is not one of them)
            and leaf.keys & view.tool_stems
        ):
            # 'more than one goodwill credit within any rolling 30-day period' against
            # `credits_last_30_days: 1`: the argument counts the earlier ones, and this request
            # is one more (compared alone, the second credit passed)
            value += 1
            what = f"{leaf.path} + this request"
        fires = _OPS[self.op](value, self.threshold)
        if self.effect == "allow":
            # 'up to €500 is fine': inside the bound it is explicitly allowed, outside a human decides
            if fires:
                return Outcome(
                    REVIEW,
                    f"{what} = {_fmt(value)} is outside what the rule allows automatically",
                    (leaf.path,),
                )
            unshown = self._permission_unshown(view) if applies != "matched" else None
            if unshown is not None:
                return unshown
            off = _qualifier_off(view, self.terms)
            if off is not None:
                # 'Transfers under $10k - auto-approved for verified payees' and
                # `payee_verified: false`: inside the bound, but not one the permission names
                return Outcome(
                    UNKNOWN,
                    f"{what} = {_fmt(value)} is within the bound, but {off.path} = "
                    f"{off.value!r}: the rule permits only what its words qualify",
                    (leaf.path, off.path),
                )
            return Outcome(
                PERMITTED if applies == "matched" else SATISFIED,
                f"{what} = {_fmt(value)}",
                (leaf.path,),
            )
        if fires:
            return self.fire(
                applies,
                f"{what} = {_fmt(value)} is {_OP_WORDS[self.op]} {_fmt(self.threshold)}",
                (leaf.path,),
            )
        # No message: formatting is the hot path. Outcomes are immutable: the one a bound gives
        # an argument it passes is shared by every bound of the request that passes it.
        key = ("passed", leaf.path)
        memo = view.bind_memo
        passed = memo.get(key)
        if passed is None:
            passed = memo[key] = Outcome(SATISFIED, "", (leaf.path,))
        return passed

    @cached_property
    def _count_scope(self) -> tuple[bool, bool]:
        """(the count is of every agent's requests, the count is of a kind of them only)."""
        return (
            bool(_ALL_AGENTS.search(self.source)),
            bool(_COUNTED_QUALIFIED.search(self.source)),
        )

    def _count_calls(self, view: RequestView, applies: str, anchored: bool) -> Outcome:
        if self.per and self.per not in _LINE_THINGS:
            # 'per customer': the history counts this agent's requests, not the customer's
            return Outcome(UNKNOWN, f"the number of requests per {self.per} is not known")
        every_agent, qualified = self._count_scope
        if every_agent:
            # jred27: 'Max 3 refunds per day across all agents': the history counts this
            # agent's requests only
            return Outcome(UNKNOWN, "the number of requests of every agent is not known")
        if self.window == "day":
            # 'Max 3 disbursements / agent / day': this agent's requests for the tool since
            # midnight UTC, and this one
            earlier = view.history.count_today(view.agent_id, view.tool_name)
            if earlier is None:
                return Outcome(UNKNOWN, "the number of requests per day is not known")
            count, within = int(earlier) + 1, "today"
        elif self.window == "hour":
            count = int(view.history.count_last_hour(view.agent_id, view.tool_name)) + 1
            within = "within the hour"
        else:
            return Outcome(UNKNOWN, f"the number of requests per {self.window} is not known")
        if _OPS[self.op](float(count), self.threshold):
            if qualified and self.op in {"gt", "ge"}:
                # jred27: 'Max 3 refunds of USD 100+ per agent per day' counts the large ones
                # only; every request counted is over the cap, the large ones may not be
                return Outcome(
                    UNKNOWN, f"request number {count} {within}, of which the counted kind unknown"
                )
            if self.effect == "allow":
                return Outcome(REVIEW, f"this would be request number {count} {within}")
            return self.fire(applies, f"this would be request number {count} {within}")
        return Outcome(SATISFIED, f"request number {count} {within}")


# a count of every agent's requests ('across all agents', 'team-wide', 'in total')
_ALL_AGENTS = re.compile(
    r"\b(?:across\s+(?:all\s+)?(?:agents|the\s+team|teams|users)|all\s+agents|"
    r"(?:team|org|company|desk|firm)[-\s]?wide|combined|globally|in\s+total)\b",
    re.I,
)
# a count of requests of some size only ('refunds of USD 100+', 'refunds above $500')
_CCY = "|".join(sorted(CURRENCY_CODES))
_COUNTED_QUALIFIED = re.compile(
    rf"(?:[$\u20ac\u00a3]\s?\d|\b(?:{_CCY})\s?\d|\d\s?(?:{_CCY})\b|\d\+|"
    r"\b(?:over|above|under|below|exceeding|greater\s+than|less\s+than|at\s+least|>=?|<=?)\s*"
    r"[$\u20ac\u00a3]?\s?\d)",
)


_COMPARED_WITH = re.compile(
    r"\b(?:exceed|exceeds|above|over|beyond|more\s+than|greater\s+than|less\s+than|below|under|"
    r"equal|match|matches)\b",
    re.I,
)


@dataclass(frozen=True)
class ArgumentComparison(Check):
    """'The refund amount must not exceed the original charge amount': two arguments joined.

    A bound given by another argument of the request: the measured side (`left`) against the
    bound (`right`), times `factor` ('20% of the candidate's first-year base' is 0.2, '2x the
    current limit' and 'double' are 2). With `change`, the measured side is the change from the
    current value to the new one ('may be raised by at most 20%': new - current against 20% of
    current); with `paired`, the two sides are the argument naming the current value (current,
    existing, old, previous) and the one naming the new value (new, proposed, requested, target
    or the bare name: `replicas` beside `current_replicas`). `named_left` / `named_right` are
    argument names the rule writes ('(new_limit_usd)', 'of current_limit_usd').

    Each side binds to exactly one argument named for it (`_bind_sides`); a side no argument or
    several name, two sides in different currencies or units, or a negative value leave the
    rule unknown (review), never satisfied. Exactly at the bound follows the boundary table:
    `op` is the comparison that fires ('must not exceed' fires above: equal is allowed).
    """

    op: str = "gt"  # fires when left OP right
    left: tuple[str, ...] = ()
    right: tuple[str, ...] = ()
    factor: float = 1.0
    change: bool = False
    paired: bool = False
    named_left: str = ""
    named_right: str = ""
    about_words: tuple[str, ...] = ()  # words the recogniser read ('per request', 'raised by')
    phrases: tuple[str, str, str] = ("", "", "")  # left, right, factor as written, for readings
    kind: str = field(default="argument_comparison", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(op=self.op, left=list(self.left), right=list(self.right))
        if self.factor != 1.0 or self.change:
            d.update(factor=self.factor, change=self.change)
        return d

    def _stated_share(self, view: RequestView) -> Outcome | None:
        return _share_stated(view, self)

    def reading(self) -> str:
        left_phrase, right_phrase, factor = self.phrases
        left = (
            f"`{self.named_left}`"
            if self.named_left
            else left_phrase or surface_words(self.source, self.left) or "the new value"
        )
        right = (
            f"`{self.named_right}`"
            if self.named_right
            else right_phrase
            # the bound's words as they stand after the comparison ('… exceed original order
            # amount'), not where they first occur in the rule ('Refund amount …')
            or _identifier_within(self.source, self.right)
            or surface_words(_COMPARED_WITH.split(self.source)[-1], self.right)
            or surface_words(self.source, self.right)
            or _identifier_named(self.source, self.right)
            or "the current value"
        )
        if self.paired and not self.named_right and not _NOW_WORDS & set(self.right):
            right = f"the current {right}"
        if self.paired and not self.named_left and not left_phrase:
            left = "the new value"
        if factor:
            right = f"{factor} {right}" if factor.endswith(("%", "x")) else f"{factor} {right}"
            right = right.replace("% ", "% of ", 1) if "%" in factor else right
        what = left
        if self.change:
            what = (
                "the increase (new minus current)"
                if left == "the new value"
                else f"the increase of {left} (new minus current)"
            )
        how = (
            "; each side must be one argument named for it, in the same currency and unit "
            "(otherwise review)"
            if self.factor != 1.0 or self.change or self.paired
            else ""
        )
        return (
            f"{_VERB[self.effect]} when {what} is {OP_WORDS[self.op]} {right}{how}{self._about()}"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        stated = self._stated_share(view)
        if stated is not None:
            return stated
        sides = _bind_sides(view, self)
        if isinstance(sides, str):
            if (applies == "matched" and anchored) or _a_side_shown(view, self):
                # one side sent and not the other (or several for one): never satisfied
                return Outcome(UNKNOWN, sides)
            return _NOT_APPLICABLE
        (lleaf, lval), (rleaf, rval) = sides
        args = (lleaf.path, rleaf.path)
        problem = _sides_differ(view, lleaf, rleaf)
        if problem:
            return Outcome(UNKNOWN, problem, args)
        if lval < 0 or rval < 0 or (self.change and rval == 0):
            return Outcome(
                UNKNOWN,
                f"{lleaf.path} = {_fmt(lval)}, {rleaf.path} = {_fmt(rval)}: the rule does not say "
                "what such values mean",
                args,
            )
        measured = round(lval - rval if self.change else lval, 9)
        bound = round(rval * self.factor, 9)
        shown = f"{lleaf.path} = {_fmt(lval)}, {rleaf.path} = {_fmt(rval)}"
        if self.change or self.factor != 1.0:
            what = f"the increase {_fmt(measured)}" if self.change else f"{lleaf.path}"
            shown = f"{shown}: {what} against {_fmt(bound)}"
        if _OPS[self.op](measured, bound):
            return self.fire(applies, f"{shown}, {_OP_WORDS[self.op]} the bound", args)
        return Outcome(SATISFIED, shown, args)


# ---------------------------------------------------------------------------------------------
# Binding the two sides of a bound given by another argument (jrel).
# Words of an argument's name that say what kind of figure it is, not which one.
_FIGURE_WORDS = frozenset(
    stem(w)
    for w in "amount amt total value sum figure number num count qty quantity cent cents pct "
    "percent day days hour hours minute minutes week weeks".split()
) | frozenset(c.lower() for c in CURRENCY_CODES)
_NOW_WORDS = frozenset(stem(w) for w in "current existing old previous prior present".split())
_NEXT_WORDS = frozenset(stem(w) for w in "new proposed requested target updated".split())
_TIME_UNIT_WORDS = {stem("day"): 86400.0, stem("hour"): 3600.0, stem("minute"): 60.0}


def _share_stated(view: RequestView, check: ArgumentComparison) -> Outcome | None:
    """'Bonuses may not exceed 20% of base salary' and `bonus_pct_of_base: 15`: the request
    states the share itself, in one argument named for the measured side and as a percentage."""
    if not check.phrases[2].endswith("%") or check.change or check.named_left:
        return None
    # named for the measured side (`bonus_pct_of_base`) or as a share of the base (`traffic_pct`
    # for '10% of traffic')
    sides = (frozenset(check.left) | frozenset(check.right)) - _FIGURE_WORDS
    found = [
        (lf, v)
        for lf, v in view.numeric_leaves()
        if lf.keys & _PERCENT_KEYS and _arg_name(lf) & sides
    ]
    if len(found) != 1:
        return None
    leaf, value = found[0]
    bound = round(check.factor * 100.0, 9)
    if 0 < abs(value) < 1 <= bound or value < 0:
        return Outcome(
            UNKNOWN, f"{leaf.path} = {_fmt(value)} may be a fraction (of 1) or a percentage"
        )
    if _OPS[check.op](value, bound):
        return check.fire(
            "matched", f"{leaf.path} = {_fmt(value)}% is {_OP_WORDS[check.op]} {_fmt(bound)}%"
        )
    return Outcome(SATISFIED, f"{leaf.path} = {_fmt(value)}%", (leaf.path,))


def _arg_name(leaf: Leaf) -> frozenset[str]:
    return leaf.keys - _FIGURE_WORDS


def _named_for(
    numeric: list[tuple[Leaf, float]], side: frozenset[str], other: frozenset[str]
) -> list[tuple[Leaf, float]]:
    """The arguments named for a side: sharing one of its words and none only the other side
    has. Several are ambiguous even when one is named by the side's words alone (`reserve_amount`
    beside `reserve_released`): which one the rule means is for a human."""
    return [
        (lf, v) for lf, v in numeric if _arg_name(lf) & side and not _arg_name(lf) & (other - side)
    ]


def _by_path(numeric: list[tuple[Leaf, float]], path: str) -> list[tuple[Leaf, float]]:
    return [(lf, v) for lf, v in numeric if lf.path == path or lf.path.startswith(path + ".")]


def _bind_sides(
    view: RequestView, check: ArgumentComparison
) -> tuple[tuple[Leaf, float], tuple[Leaf, float]] | str:
    """The (measured, bound) arguments of `check`, or why they are not clear."""
    numeric = view.numeric_leaves()
    left_words = frozenset(check.left) - _FIGURE_WORDS
    right_words = frozenset(check.right) - _FIGURE_WORDS
    if check.named_right:
        right = _by_path(numeric, check.named_right)
    elif check.paired:
        base = right_words - _NOW_WORDS
        right = [
            (lf, v)
            for lf, v in numeric
            if _arg_name(lf) & _NOW_WORDS
            and not _arg_name(lf) & _NEXT_WORDS
            and (not base or _arg_name(lf) & base)
        ]
    else:
        right = _named_for(numeric, right_words, left_words)
    if len(right) != 1:
        what = check.named_right or surface_words(check.source, check.right) or "current value"
        return f"{'no' if not right else 'more than one'} argument gives the {what}"
    rleaf = right[0][0]
    if check.named_left:
        left = _by_path(numeric, check.named_left)
    elif check.paired:
        stem_of = _arg_name(rleaf) - _NOW_WORDS
        left = [
            (lf, v)
            for lf, v in numeric
            if lf.path != rleaf.path
            and not _arg_name(lf) & _NOW_WORDS
            # `new_limit`, `limit`, or named by the rule's subject ('Temp limit' and `temp_limit`)
            and (
                _arg_name(lf) - _NEXT_WORDS == stem_of
                or (
                    _arg_name(lf) - _NEXT_WORDS - left_words == stem_of
                    and bool(_arg_name(lf) & stem_of)
                )
            )
        ]
    else:
        left = [
            (lf, v)
            for lf, v in _named_for(numeric, left_words, right_words)
            if lf.path != rleaf.path
        ]
        if not left:
            # 'Refund can't exceed the original charge' on a refund tool with a plain `amount`:
            # the request's own amount, when exactly one argument is just an amount
            left = [
                (lf, v)
                for lf, v in numeric
                if lf.path != rleaf.path and not _arg_name(lf) and lf.keys & _FIGURE_WORDS
            ]
    if len(left) != 1:
        what = check.named_left or surface_words(check.source, check.left) or "new value"
        return f"{'no' if not left else 'more than one'} argument gives the {what}"
    return left[0], right[0]


def _a_side_shown(view: RequestView, check: ArgumentComparison) -> bool:
    """Whether an argument names one of the sides (or, for a bound on the current value, a
    current or new value; or an argument the rule names)."""
    sides = (frozenset(check.left) | frozenset(check.right)) - _FIGURE_WORDS
    for lf, _ in view.numeric_leaves():
        name = _arg_name(lf)
        if name & sides or (check.paired and name & (_NOW_WORDS | _NEXT_WORDS)):
            return True
        if lf.path in (check.named_left, check.named_right):
            return True
    return False


def _side_currency(view: RequestView, leaf: Leaf) -> str | None:
    """The currency a side is in: a code in its name (`amount_usd`), a currency beside it in
    its own object, an argument naming the currency of it (`po_currency` for `po_amount`), or
    the request's one top-level currency."""
    codes = {k.upper() for k in leaf.keys} & CURRENCY_CODES
    if len(codes) == 1:
        return next(iter(codes))
    parent = leaf.path.rpartition(".")[0]
    name = _arg_name(leaf)
    top = None
    for lf in view.leaves:
        if not isinstance(lf.value, str) or not lf.last_keys & _AMOUNT_CURRENCY_KEYS:
            continue
        lp = lf.path.rpartition(".")[0]
        if parent and lp == parent:
            return lf.value.strip().upper()
        own = lf.keys - _AMOUNT_CURRENCY_KEYS - _FIGURE_WORDS
        if lp == "" and own and own <= name:
            return lf.value.strip().upper()
        if lp == "" and not own:
            top = lf.value.strip().upper()
    return top


def _request_currencies(view: RequestView) -> set[str]:
    """Every currency code a request's arguments name: a currency argument's value or a code in
    an amount's own name (`amount_usd`)."""
    out = set()
    for lf in view.leaves:
        if isinstance(lf.value, str) and lf.last_keys & _AMOUNT_CURRENCY_KEYS:
            code = lf.value.strip().upper()
            if code in CURRENCY_CODES:
                out.add(code)
        elif isinstance(lf.value, (int, float)) and not isinstance(lf.value, bool):
            out |= {k.upper() for k in lf.last_keys} & CURRENCY_CODES
    return out


_CENT_KEYS = frozenset(stem(w) for w in "cent cents pence minor".split())


def _own_code(leaf: Leaf) -> bool:
    return len({k.upper() for k in leaf.keys} & CURRENCY_CODES) == 1


def _side_unit(leaf: Leaf) -> tuple[str, float] | None:
    if leaf.unit is not None:
        return leaf.unit
    found = [(("time", f)) for k, f in _TIME_UNIT_WORDS.items() if k in leaf.keys]
    return found[0] if len(found) == 1 else None


def _sides_differ(view: RequestView, a: Leaf, b: Leaf) -> str:
    """Why the two sides are not like for like (another currency or unit), or ''."""
    ca, cb = _side_currency(view, a), _side_currency(view, b)
    if ca and cb and ca != cb:
        return f"{a.path} is in {ca}, {b.path} in {cb}: the rule compares like with like"
    if bool(a.keys & _CENT_KEYS) != bool(b.keys & _CENT_KEYS):
        # `amount_cents: 9500` against `order_total: 100`: 95.00 read as 9,500 had been denied
        # (red team jred13); one side in cents, the other not, is not like for like
        return f"{a.path} and {b.path} are not both in cents"
    named = _request_currencies(view)
    if len(named) > 1 and not (ca and cb and {ca, cb} == {ca}):
        # `fee` beside `fee_currency: GBP` and `first_year_base` beside `salary_currency: USD`
        # (or `limit_currency: EUR` beside `currency: USD`): several currencies named and a side
        # not tied to one of them; which is in which is for a human (red team jred13)
        return (
            f"the request names several currencies ({', '.join(sorted(named))}) and "
            f"{a.path} or {b.path} is not tied to one"
        )
    if len(named) > 1 and ca and cb and ca == cb and not (_own_code(a) and _own_code(b)):
        return (
            f"the request names several currencies ({', '.join(sorted(named))}); "
            f"{a.path} and {b.path} may not both be in {ca}"
        )
    ua, ub = _side_unit(a), _side_unit(b)
    if ua and ub and ua != ub:
        return f"{a.path} and {b.path} are in different units"
    if bool(a.keys & _COUNT_WORDS) != bool(b.keys & _COUNT_WORDS):
        # `refund_count` against `order_total`: how many is not how much
        counted = a if a.keys & _COUNT_WORDS else b
        return f"{counted.path} counts things, the other side is an amount"
    if bool(a.keys & _RATIO_WORDS) != bool(b.keys & _RATIO_WORDS):
        # 'Leverage must not exceed 5x equity' and `leverage: 6` beside `equity`: a ratio is
        # not an amount to multiply against another (6 is far below 5 times any equity)
        ratio = a if a.keys & _RATIO_WORDS else b
        return f"{ratio.path} is a ratio or a share, the other side an amount"
    return ""


_COUNT_WORDS = frozenset(stem(w) for w in "count number num qty quantity".split())
_RATIO_WORDS = _PERCENT_KEYS | frozenset(stem(w) for w in "leverage multiple multiplier".split())


# Nouns for the people who act ('Only workspace owners may …', 'Only charge nurses may …').
_ROLE_STEMS = frozenset(
    stem(w)
    for w in (
        "owner owners admin admins administrator administrators manager managers nurse nurses "
        "pharmacist pharmacists physician physicians doctor doctors engineer engineers lead leads "
        "officer officers director directors supervisor supervisors staff employee employees "
        "member members approver approvers operator operators analyst analysts accountant "
        "accountants controller controllers clinician clinicians technician technicians"
    ).split()
)

# Acts so broad that a tool named by another verb may still be doing them ('Use only UPS').
_BROAD_ACTS = frozenset({"use", "utiliz", "employ"})

# Words that only say which side of a movement an argument is ('from_entity', 'to_entity').
_DIRECTION_KEYS = frozenset(
    {"from", "to", "sourc", "source", "target", "destin", "origin", "src", "dst", "dest"}
)


# Words for any change ('No changes to checkout-service'): every act but a read is one, so a
# deploy, a write or a role assignment shows them; only a request whose acts are all reads
# (`get_status`, `vault.read`) shows it changes nothing.
_CHANGE_WORDS = frozenset({"chang", "modify", "alter"})


def _change_shown(view: RequestView) -> str:
    """How a request shows a word for any change: 'matched' when its acts are known and one is
    not a read (a deploy is a change), 'unknown' when its acts are not known, '' for a read.
    Once per request (asked for every rule on changes)."""
    shown = view.applicability_memo.get(_CHANGE_KEY)
    if shown is None:
        shown = view.applicability_memo[_CHANGE_KEY] = _change_shown_in(view)
    return shown


_CHANGE_KEY = ("__change_shown__",)


def _change_shown_in(view: RequestView) -> str:
    acts = view.request_actions()
    if not acts:
        return "unknown"
    # the namespace names the system, not the act ('deploy.get_status' reads a deploy's status)
    namespace = frozenset(stem(w) for w in words(view.tool_name.rpartition(".")[0]))
    if not (acts - namespace or acts) <= VERB_GROUPS["read"]:
        return "matched"
    for lf in view.leaves:
        # a read tool carrying a write ('db.query' with `sql: "DROP TABLE …"`, a `statement`
        # that updates): the request may change the frozen thing; a human decides
        if isinstance(lf.value, str) and not _WRITE_WORDS.isdisjoint(content_stems(lf.value[:500])):
            return "unknown"
    return ""


# Commands a read tool's argument may carry out ('DROP', 'UPDATE … SET', 'truncate', 'upsert'):
# the verbs of writing and removing only, never a noun that shares a stem ('payments', 'posts')
_WRITE_WORDS = (
    VERB_GROUPS["delete"]
    | frozenset(stem(w) for w in "update insert alter truncate create grant revoke write".split())
    | frozenset(stem(w) for w in "upsert merge replace rename overwrite modify change".split())
)


# 'port-outs', 'check-ins', 'sign-ups': an act told apart from another only by its particle
_PARTICLE_COMPOUND = re.compile(r"[a-z]-(?:outs?|ins?|ups?|downs?)\b", re.I)


# jred22: a list of fields or columns, and a flag that takes all of them ('include_all_columns')
_FIELD_KINDS = frozenset(
    stem(w) for w in ("field", "fields", "column", "columns", "col", "attribute")
)
_ALL_WORDS = frozenset(stem(w) for w in ("all", "every", "full"))
_INCLUDE_WORDS = frozenset(stem(w) for w in ("include", "select", "export"))
# jred22: the stems of an argument's name that hold a currency beside the one named 'currency'
_HELD_CURRENCY_KEYS = frozenset(
    stem(w)
    for w in ("currency", "ccy", "fx", "settlement", "payout", "target", "quote", "to", "from")
)

# jred22: the stems of an argument's name that make it a place (a destination, a bank's country)
_PLACE_KEYS = frozenset(
    stem(w)
    for w in (
        "country",
        "region",
        "destination",
        "location",
        "jurisdiction",
        "address",
        "city",
        "origin",
        "residence",
        "nationality",
        "ship",
        "shipping",
        "beneficiary",
    )
)


# Acts that come in opposite pairs: a deny-list about one ('No manual credits to restricted
# accounts') says nothing of a request whose side argument states the other (`direction:
# "debit"`, holdout_53's first run: the debit of a suspended account had been denied).
_OPPOSITE_ACTS = {
    a: b
    for x, y in (
        ("credit", "debit"),
        ("increas", "decreas"),
        ("upgrad", "downgrad"),
        ("grant", "revok"),
        ("enabl", "disabl"),
        ("deposit", "withdraw"),
        ("buy", "sell"),
        ("inbound", "outbound"),
        ("lock", "unlock"),
    )
    for a, b in ((x, y), (y, x))
}
# the arguments that say which side of a movement a request is
_SIDE_KEYS = frozenset(
    stem(w)
    for w in "direction type side kind action operation op mode entry movement adjustment".split()
)
# a compound that names a thing, not the act ('credit card', 'credit limit', 'debit note')
_ACT_COMPOUND = re.compile(
    r"\b(?:credit|debit|deposit)s?\s+(?:cards?|unions?|scores?|limits?|lines?|notes?|memos?|"
    r"ratings?|checks?|reports?|bureaus?|history|accounts?|balances?|facilit(?:y|ies)|boxes?)\b",
    re.I,
)


def own_acts(source: str, subject: set[str]) -> frozenset[str]:
    """The acts of an opposite pair a rule's subject names, when it names one side only."""
    acts = {w for w in subject if w in _OPPOSITE_ACTS}
    if not acts or {_OPPOSITE_ACTS[a] for a in acts} & subject or _ACT_COMPOUND.search(source):
        return frozenset()
    return frozenset(acts)


# jred27: what else a side argument's name may say besides the side ('txn_type',
# 'entry_direction'); a name for another thing ('card_type: debit' on a credit) states no side
_SIDE_KEY_QUALIFIERS = frozenset(
    stem(w)
    for w in "txn transaction tx entry posting ledger movement adjustment change request trade "
    "order transfer payment flow fund funds limit".split()
)
# words that may stand beside the side without changing it ('manual debit', 'DEBIT')
_SIDE_PLAIN = frozenset(
    stem(w) for w in "manual automatic auto partial full standard normal regular".split()
)


# words that turn a movement around ('debit reversal', 'undo decrease', 'chargeback')
_TURNED_AROUND = frozenset(
    stem(w)
    for w in "reverse reversal reversed undo undone rollback revert reverted chargeback void "
    "cancel cancelled refund refunded back".split()
)
# argument names of a second party to the movement, on the other side of it
_OTHER_PARTY = frozenset(
    stem(w)
    for w in "to destination beneficiary payee recipient receiver contra counter offset".split()
)


def opposite_act_shown(acts: frozenset[str], view: RequestView) -> str:
    """'shown' when a side argument of the request states plainly the act opposite to `acts` and
    none states them; 'unclear' when the opposite is said with more ('debit reversal', 'undo
    decrease', 'non-debit') or beside a negative number (a debit of -50); '' otherwise.

    jred27: a tool named for the act ('account.credit') or an argument named for another thing
    ('card_type: debit') states no side: the rule stands."""
    if view.tool_stems & acts:
        return ""
    opposite = {_OPPOSITE_ACTS[a] for a in acts}
    shown = unclear = negative = False
    for leaf in view.leaves:
        if isinstance(leaf.value, (int, float)) and not isinstance(leaf.value, bool):
            negative = negative or leaf.value < 0
            continue
        if leaf.last_keys & _OTHER_PARTY:
            # 'to_country', 'contra_account': a second party, whose side is the other one
            unclear = True
        if not leaf.last_keys & _SIDE_KEYS:
            for v in scalars(leaf.value):
                if isinstance(v, str):
                    said = {stem(w) for w in words(v.lower()[:200])}
                    # 'memo: reverse prior debit', 'then: grant': the rule's act, or the other
                    # side turned around, said elsewhere in the request
                    if said & acts or (said & opposite and said & _TURNED_AROUND):
                        unclear = True
            continue
        named_as_side = leaf.last_keys <= _SIDE_KEYS | _SIDE_KEY_QUALIFIERS
        for v in scalars(leaf.value):
            if not isinstance(v, str):
                continue
            said = {stem(w) for w in words(v.lower())}
            if said & acts:
                return ""  # 'offset_entry: credit' beside 'entry: debit': the rule's act is there
            if said & opposite and named_as_side:
                if said <= opposite | _SIDE_PLAIN:
                    shown = True
                else:
                    unclear = True
    if unclear or (shown and negative):
        return "unclear"
    return "shown" if shown else ""


# Arguments that carry free text about a request, never a value it takes (jred32).
_FREE_TEXT_KEYS = frozenset(
    stem(w)
    for w in "note notes memo comment comments remark remarks description message instructions".split()
)


# jred34: words that name another one of the same thing ('second approver', 'return carrier',
# 'backup region'): an argument without the word is the first, the outbound, the primary one
_OTHER_INSTANCE = frozenset(
    "second secondary third backup return alternate alternative additional fallback spare "
    "deputy reserve replacement standby failover co".split()
)


@dataclass(frozen=True)
class ValueList(Check):
    """Allow-lists and deny-lists of argument values: countries, currencies, domains, IBAN prefixes."""

    mode: str = "deny"  # allow: only these values; deny: never these values
    values: tuple[str, ...] = ()  # canonical: 'IR', 'EUR', 'acme.com', 'eu-west-1', 'release/*'
    match: str = "exact"  # exact | place | currency | domain | prefix | contains
    kind_words: tuple[str, ...] = ()  # what the values are ('countries', 'instance types')
    # Subject words that only say what the rule is about ('reports' in 'reports must never contain
    # the columns …'): read for the coverage record, never required to be in the request.
    about_words: tuple[str, ...] = ()
    kind: str = field(default="value_list", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(
            mode=self.mode,
            values=list(self.values),
            match=self.match,
            kind_words=list(self.kind_words),
        )
        return d

    def reading(self) -> str:
        if self.match == "word":
            return (
                f"{_VERB[self.effect]} unless the argument named for the {self._word_noun()} is "
                f"{self.values[0]} (a value merely containing it, or no or several such "
                f"arguments: review){self._about()}"
            )
        if self.match == "consumer_mail":
            shown = ", ".join(self.values[:4])
            verb = _VERB[self.effect]
            return (
                f"{verb} when the email domain is a consumer mail provider ({shown}, …); "
                f"review any other domain{self._about()}"
            )
        if self.match in ("place", "currency", "domain"):
            what = _MATCH_NOUN[self.match]
        elif self._lists_agents():
            what = "the requesting agent (or an argument naming the agent)"
        else:
            what = surface_words(self.source, self.kind_words) or _MATCH_NOUN.get(self.match, "")
            what = f"`{what}`" if what and " " not in what else (what or "an argument")
        shown = list(self.values[:8]) + (["…"] if len(self.values) > 8 else [])
        listed = (
            " or ".join(shown) if len(shown) <= 2 else ", ".join(shown[:-1]) + " or " + shown[-1]
        )
        if self.match == "token":
            # 'No exports containing ssn, dob or full card number fields': names of fields,
            # columns, scopes or roles, compared with every member of the argument named for them
            verb = _VERB[self.effect]
            if what == "an argument":
                what = "the field or column list"
            scoped = any(":" in x or "*" in x for x in self.values)
            close = "a name extending one" if scoped else "a name sharing a word with one"
            if self.mode == "allow":
                return f"{verb} unless every member of {what} is {listed}{self._about()}"
            return f"{verb} when a member of {what} is {listed} ({close}: review){self._about()}"
        if self.match == "prefix":
            listed = f"starts with {listed}"
        elif self.match == "contains":
            listed = f"contains {listed}"
        else:
            listed = f"is {listed}"
        if self.match in ("exact", "contains") and any(
            re.search(r"[a-z0-9][A-Z]", v) for v in self.values
        ):
            listed += " (an ARN or path whose last segment is one of them counts)"
        if self.mode == "allow":
            return f"{_VERB[self.effect]} unless {what} {listed}{self._about()}"
        return f"{_VERB[self.effect]} when {what} {listed}{self._about()}"

    def _listed_elsewhere(self, view: RequestView, bound: list[Leaf]) -> str:
        """The path of an argument outside `bound` whose value is one of the listed values,
        written the same (not a code that merely contains one: 'EURJPY')."""
        listed = {normalise_value(v) for v in self.values}
        for leaf in view.leaves:
            if leaf in bound:
                continue
            for v in scalars(leaf.value):
                if isinstance(v, str) and (normalise_value(v) in listed or self._holds_listed(v)):
                    return leaf.path
        return ""

    @cached_property
    def _listed_words(self) -> tuple[tuple[str, ...], ...]:
        return tuple(t for t in (tuple(w.lower() for w in words(x)) for x in self.values) if t)

    def _holds_listed(self, value: str) -> bool:
        """'Snowflake Labs (beta connector)' for an allow-list of Snowflake: a longer value that
        holds a listed value as its words is close to the list, neither in it nor plainly out."""
        if self.match != "exact":
            return False  # places, domains and currencies have their own closeness
        got = tuple(w.lower() for w in words(value[:200]))
        return any(
            len(got) > len(want) and any(got[i : i + len(want)] == want for i in range(len(got)))
            for want in self._listed_words
        )

    def evaluate(self, view: RequestView) -> Outcome:
        if self.match == "word":
            return self._one_word(view)
        if self._taken_away(view):
            return _NOT_APPLICABLE
        if self._own_acts and self.mode == "deny":
            side = opposite_act_shown(self._own_acts, view)
            if side == "shown":
                return _NOT_APPLICABLE
            if side == "unclear":
                # 'debit reversal', 'undo decrease', a debit of -50: the other side in words, maybe
                # the rule's own act in effect; a refusal becomes a human's decision
                out = self._evaluate(view)
                if out.status == VIOLATED:
                    return Outcome(
                        REVIEW, f"{out.message} (the request's side is unclear)", out.args
                    )
                return out
        return self._evaluate(view)

    def _evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent" and self._given_by_creating(view):
            applies, anchored = "matched", True
        if applies == "absent":
            named = self._named_and_listed(view)
            if named:
                # 'Never grant these scopes: admin:org, …' and `create_key(scopes=[…,
                # 'admin:org'])`: creating a key with a scope grants it; an act named another
                # way never approves a listed value in the argument named for the list's kind.
                return Outcome(
                    UNKNOWN,
                    f"{named} holds a listed value; whether the request does what the rule "
                    "forbids cannot be told",
                    (named,),
                )
            return _not_applicable_or_satisfied(anchored)
        if self.kind_words == ("content",) or (self.match == "token" and self.mode == "deny"):
            # 'include_ssn': true names a listed field in the argument itself
            flagged = self._content_flag(view)
            if flagged is not None:
                return flagged
        candidates = self._candidates(view)
        if applies == "unknown" and candidates and self._act_shown(view):
            applies = "matched"  # the listed kind of value is in the request: the list speaks of it
        if (
            self._lists_agents()
            and view.agent_id
            and not any("agent" in lf.path.lower() or "bot" in lf.last_keys for lf in candidates)
        ):
            # no argument names an agent: the one asking is the agent the list speaks of
            return self._agent_listed(view, applies)
        if not candidates:
            if self.match == "consumer_mail":
                elsewhere = _not_an_address(view)
                if elsewhere is not None:
                    return elsewhere
            if (applies == "matched" and (anchored or not self.terms)) or (
                self.mode == "allow" and self.effect == "deny" and anchored
            ):
                # an allow-list anchored to this tool ('Only verified sellers may receive
                # payouts' on create_payout) whose value no argument holds in its shape
                # (`seller_status: "not_verified"`): nothing shows the request is allowed
                return Outcome(
                    UNKNOWN, "the argument this list constrains is not among the arguments"
                )
            return _UNBOUND
        listed = ", ".join(self.values[:8]) + (", …" if len(self.values) > 8 else "")
        undecided: Outcome | None = None
        for leaf in candidates:
            for v in scalars(leaf.value):
                if v is None or isinstance(v, (bool, dict)):
                    continue
                hit = self._in_list(str(v))
                if hit is False and (
                    self._name_for_an_id(leaf, str(v)) or self._other_attribute(str(v))
                ):
                    hit = None
                if hit is None:
                    # Keep looking: a member that is plainly listed decides before a doubtful one.
                    undecided = undecided or Outcome(
                        UNKNOWN,
                        f"cannot tell whether {leaf.path} = {v!r} is in ({listed})",
                        (leaf.path,),
                    )
                    continue
                if self.mode == "deny" and hit and leaf.keys & _EXCLUSION_KEYS:
                    # 'These lists must never be included in a send: vulnerable-customers, …'
                    # and `exclude_lists: ["vulnerable-customers"]`: the value is held out of the
                    # act, which is no sign of the act the rule forbids (it had denied the send)
                    undecided = undecided or Outcome(
                        UNKNOWN,
                        f"{leaf.path} holds {v!r}, listed ({listed}), as a value held out",
                        (leaf.path,),
                    )
                    continue
                if self.mode == "deny" and hit:
                    return self.fire(
                        applies, f"{leaf.path} = {v!r} is listed ({listed})", (leaf.path,)
                    )
                if self.mode == "allow" and not hit:
                    if self._holds_listed(str(v)):
                        undecided = undecided or Outcome(
                            UNKNOWN,
                            f"{leaf.path} = {v!r} holds a listed value but is not one of "
                            f"({listed})",
                            (leaf.path,),
                        )
                        continue
                    elsewhere = self._listed_elsewhere(view, candidates)
                    if elsewhere:
                        # 'may only go to: Penske, Ryder' bound to `work_type` while `vendor`
                        # holds 'Ryder': the list was bound to the wrong argument, so neither
                        # reading decides.
                        return Outcome(
                            UNKNOWN,
                            f"{leaf.path} = {v!r} is not one of ({listed}), but "
                            f"{elsewhere} is: which one the rule speaks of is unclear",
                            (leaf.path, elsewhere),
                        )
                    if self.match == "exact":
                        flag = self._kind_flag_against(view, listed_on=True)
                        if flag is not None:
                            return flag
                    return self.fire(
                        applies, f"{leaf.path} = {v!r} is not one of ({listed})", (leaf.path,)
                    )
        if undecided is not None:
            return undecided
        paths = tuple(lf.path for lf in candidates)
        if self.mode == "allow" and self.match == "exact":
            flag = self._kind_flag_against(view)
            if flag is not None:
                return flag
        if self.effect == "allow":
            return Outcome(PERMITTED if applies == "matched" else SATISFIED, "", paths)
        other = self._currency_unlisted_elsewhere(view, paths)
        if other is not None:
            # jred22: 'may be paid in EUR, GBP or CHF. Any other currency needs …' with
            # `currency: "EUR"` beside `fx_to: "TRY"`: the money ends in a currency left out
            return Outcome(
                UNKNOWN,
                f"{other} holds a currency not in ({listed}); whether the rule speaks of it "
                "cannot be told",
                (other,),
            )
        elsewhere = self._place_listed_elsewhere(view, paths)
        if elsewhere is not None:
            # jred22: 'Never pay vendors located in IR, …' with `vendor_country: "US"` and
            # `destination: "Tehran, IR"`: the vendor is not listed, yet the money goes to a
            # listed place; whether the rule reaches it is for a human
            return Outcome(
                UNKNOWN,
                f"{elsewhere} holds a listed place ({listed}); whether the rule speaks of it "
                "cannot be told",
                (elsewhere,),
            )
        head = self.kind_words[-1].lower() if self.kind_words else ""
        qualifiers = [
            w for w in self.kind_words[:-1] if self.mode == "allow" and w.lower() in _OTHER_INSTANCE
        ]
        if (
            qualifiers
            and len(head) > 2
            and any(head in lf.path.lower() for lf in candidates)
            and not any(all(q.lower() in lf.path.lower() for q in qualifiers) for lf in candidates)
        ):
            # jred34: 'Second approver must be CFO or CEO' met by `approver: CFO`: the qualifier
            # names another argument than the one checked (the second approver was never given);
            # an approval on the unqualified one is for a human
            return Outcome(
                UNKNOWN,
                f"{', '.join(paths)} is in ({listed}), but the rule speaks of the "
                f"{' '.join(self.kind_words)}",
                paths,
            )
        return Outcome(SATISFIED, f"{', '.join(paths)} checked against ({listed})", paths)

    @cached_property
    def _kind_sides(self) -> tuple[frozenset[str], frozenset[str]]:
        """The listed kinds of the act ('Only domestic wires …': domestic) and their opposites
        (international, cross-border …), as stems of a yes/no argument's name."""
        listed: set[str] = set()
        others: set[str] = set()
        for v in self.values:
            s = stem(v.lower().replace("-", "").replace(" ", ""))
            for a, b in _OPPOSED_KINDS:
                if s in a:
                    listed |= a
                    others |= b
                elif s in b:
                    listed |= b
                    others |= a
        return frozenset(listed), frozenset(others)

    def _kind_flag_against(self, view: RequestView, listed_on: bool = False) -> Outcome | None:
        """A yes/no argument named for a kind of the act that the list's value decided without
        reading it: 'Only domestic wires are allowed' was satisfied by `fee_schedule:
        "domestic"` beside `is_international: true` (approved), and denied `is_domestic: true`
        because `currency: "USD"` is not 'domestic' (red team jred26). The flag says which kind
        the request is; the value read was not the act's kind: a human decides."""
        listed, others = self._kind_sides
        if not listed:
            return None
        for lf in view.leaves:
            on = _flag_on(lf.value) if isinstance(lf.value, (bool, str)) else None
            if on is None:
                continue
            named = lf.last_keys
            if listed_on:
                against = on and not named.isdisjoint(listed)
            else:
                against = (on and not named.isdisjoint(others)) or (
                    not on and not named.isdisjoint(listed)
                )
            if against:
                return Outcome(
                    UNKNOWN,
                    f"{lf.path} = {lf.value!r} says which kind the request is; the listed value "
                    "was read from another argument",
                    (lf.path,),
                )
        return None

    def _currency_unlisted_elsewhere(
        self, view: RequestView, checked: tuple[str, ...]
    ) -> str | None:
        """For an allow-list of currencies, another argument named for a currency that holds a
        code the list leaves out."""
        if self.mode != "allow" or self.match != "currency":
            return None
        for leaf in view.leaves:
            if leaf.path in checked or not (leaf.last_keys & _HELD_CURRENCY_KEYS):
                continue
            for v in scalars(leaf.value):
                code = v.strip() if isinstance(v, str) else ""
                if code.upper() in CURRENCY_CODES and self._in_list(code) is False:
                    return leaf.path
        return None

    def _place_listed_elsewhere(self, view: RequestView, checked: tuple[str, ...]) -> str | None:
        """For a deny-list of places, another argument named for a place that holds a listed one
        (whole, or as a part: 'Tehran, IR')."""
        if self.mode != "deny" or self.effect != "deny" or self.match != "place":
            return None
        for leaf in view.leaves:
            if leaf.path in checked or not (leaf.keys & _PLACE_KEYS):
                continue
            for v in scalars(leaf.value):
                if isinstance(v, str) and (self._in_list(v) is True or self._part_listed(v)):
                    return leaf.path
        return None

    def _part_listed(self, value: str) -> bool:
        """jred22: a place written with its parts ('Tehran, IR', 'Havana / CU'): one part, a
        code as written in capitals or a name of four letters or more, is a listed value."""
        parts = [p.strip() for p in re.split(r"[,;/|()]+", value)]
        if len(parts) < 2:
            return False
        return any(p and (p.isupper() or len(p) > 3) and self._in_list(p) is True for p in parts)

    def _lists_agents(self) -> bool:
        """'Offshore agents may not do SIM swaps' with a glossary of offshore agents: the
        members are agent ids, and the agent in question is the one asking."""
        return (
            self.match == "glossary"
            and bool(self.kind_words)
            and set(self.kind_words)
            <= {
                "agent",
                "bot",
            }
        )

    def _agent_listed(self, view: RequestView, applies: str) -> Outcome:
        listed = ", ".join(self.values[:8]) + (", …" if len(self.values) > 8 else "")
        hit = self._in_list(view.agent_id)
        who = f"the requesting agent {view.agent_id!r}"
        if hit is None:
            return Outcome(UNKNOWN, f"cannot tell whether {who} is in ({listed})")
        if (self.mode == "deny") == hit:
            verb = "is" if hit else "is not"
            if _PARTICLE_COMPOUND.search(self.source):
                # 'may not do SIM swaps or port-outs': the subject reading keeps 'port' and not
                # its 'out', so a port-in would be denied as a port-out; a human decides
                return Outcome(UNKNOWN, f"{who} {verb} one of ({listed}); the act is unclear")
            return self.fire(applies, f"{who} {verb} one of ({listed})")
        if self.effect == "allow":
            return Outcome(PERMITTED if applies == "matched" else SATISFIED, "")
        return Outcome(SATISFIED, f"{who} checked against ({listed})")

    def _one_word(self, view: RequestView) -> Outcome:
        """'The branch must be release', 'Deploy only from the main branch', 'Exports must be
        written to the analytics-exports bucket' (match 'word'): one value written as a plain
        word, read only on the one argument named for the rule's noun (`kind_words`). Unlike a
        list of codes, a plain word is written alike in many arguments (`service: "web"`), so
        no other argument is compared: none or several named for the noun, or a value that only
        holds the word (`main-backup`, `feature/main`), leave it to a human."""
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        want = self.values[0]
        kind = set(self.kind_words)
        named = [
            lf
            for lf in view.leaves
            if lf.last_keys & kind
            # an identifier is never the value (`branch_id`), unless the table names it (`ref`)
            and not (lf.last_keys & _ID_KEYS) - kind
            and not isinstance(lf.value, (bool, dict))
        ]
        noun = self._word_noun()
        if not named:
            return Outcome(
                UNKNOWN, f"no argument names the {noun}: whether it is {want} is not shown"
            )
        paths = tuple(lf.path for lf in named)
        if len(named) > 1:
            return Outcome(
                UNKNOWN,
                f"{', '.join(paths)} could each be the {noun}: which one the rule speaks of is "
                "unclear",
                paths,
            )
        leaf = named[0]
        doubt: Outcome | None = None
        for v in scalars(leaf.value):
            same = is_the_word(v, want) if isinstance(v, str) else None
            if same is False:
                return self.fire(applies, f"{leaf.path} = {v!r} is not {want}", paths)
            if same is None:
                doubt = doubt or Outcome(
                    UNKNOWN, f"{leaf.path} = {v!r} is not plainly {want}", paths
                )
        if doubt is not None:
            return doubt
        if leaf.value in (None, "", [], ()):
            return Outcome(UNKNOWN, f"{leaf.path} is empty: whether it is {want} is not shown")
        also = self._second_destination(view, leaf)
        if also is not None:
            return Outcome(
                UNKNOWN,
                f"{leaf.path} is {want}, but {also.path} = {also.value!r} sends it elsewhere too",
                (leaf.path, also.path),
            )
        return Outcome(SATISFIED, f"{leaf.path} is {want}", paths)

    def _second_destination(self, view: RequestView, read: Leaf) -> Leaf | None:
        """For a word naming where the thing goes (a bucket, a destination, a channel), another
        argument that sends it somewhere as well (`copy_to`, `cc_email`, `also_share_with`,
        `mirror_bucket`): the request is not only the one the rule allows (read on the
        destination alone, an export copied to another bucket passed)."""
        if not set(self.kind_words) & _WHERE_KINDS:
            return None
        for lf in view.leaves:
            if lf is read or not truthy(lf.value) or isinstance(lf.value, bool):
                continue
            name = lf.path.rsplit(".", 1)[-1].lower()
            if _ALSO_SENT.search(name):
                return lf
        return None

    def _word_noun(self) -> str:
        """The rule's own noun for the argument a plain word is read on ('branch', 'bucket'), or
        the means a rule without one names ('only through the secure portal')."""
        # ('via' names the argument `via`, but in a rule it is the preposition, not the noun)
        own = tuple(k for k in self.kind_words if k != "via")
        return surface_words(self.source, own) or "channel or method"

    def _named_and_listed(self, view: RequestView) -> str:
        """The path of an argument named for the list's kind (`scopes` for 'these scopes') that
        holds a listed value written the same, for a deny-list of literal values; for an
        allow-list whose act is a broad verb ('Use only UPS or TNT'), an argument holding a value
        written like the listed ones that is not listed."""
        if self.match not in ("exact", "token"):
            return ""
        if self.mode == "allow":
            acts = {t for t in self.terms if t in VERBS}
            if not acts or not acts <= _BROAD_ACTS:
                return ""
            for leaf in self._candidates(view):
                for v in scalars(leaf.value):
                    if isinstance(v, str) and self._in_list(v) is not True:
                        return leaf.path
            return ""
        if self.terms and set(self.terms) <= _CHANGE_WORDS and not _change_shown(view):
            return ""  # a freeze on any change, and a read: the request changes nothing
        # the kind: its own words, or the subject's nouns ('these scopes': `scop`)
        kind = set(self.kind_words) | set(self.about_words)
        kind |= {t for t in self.terms if t not in VERBS}
        if not kind:
            return ""
        listed = {normalise_value(v) for v in self.values}
        patterns = self._matching[1]
        for leaf in view.leaves:
            if not leaf.last_keys & kind:
                continue
            for v in scalars(leaf.value):
                if not isinstance(v, str):
                    continue
                if self.match == "token":
                    if self._token_listed(v):
                        return leaf.path
                elif normalise_value(v) in listed or any(
                    fnmatch.fnmatchcase(v.lower(), x) for x in patterns
                ):
                    # 'payouts:create' is granted under 'payouts:*' as much as the pattern itself
                    return leaf.path
        return ""

    def _taken_away(self, view: RequestView) -> bool:
        """'No keys with admin:* scope', 'Contractors … may only be given Viewer' and
        `apikeys.revoke` or `org.roles.revoke`: a list of scopes, permissions or roles a thing may
        not carry speaks of giving them; a tool whose every verb takes them away does not give
        any, unless the rule itself names taking away ('Never revoke the Owner role')."""
        if not self._grantable:
            return False
        verbs = view.tool_verbs
        return bool(verbs) and verbs <= _TAKING_ACTS

    @cached_property
    def _grantable(self) -> bool:
        """A list of names a thing is given (scopes, permissions, roles) by a rule that does not
        itself name taking them away."""
        return (
            self.match in ("token", "exact")
            and bool(set(self.kind_words) & _GRANTED_KINDS)
            and not set(self.terms) & _TAKING_ACTS
        )

    def _given_by_creating(self, view: RequestView) -> bool:
        """'API keys must never be granted the scope payments:write' and `apikeys.create(scopes=
        [...])`: creating or issuing a thing with a scope, a permission or a role grants it. Read
        only for a list of such names whose acts are all acts of giving, against a tool whose
        verbs are all acts of making or giving, with an argument named for the kind."""
        if self.match not in ("token", "exact") or not set(self.kind_words) & _GRANTED_KINDS:
            return False
        verbs = {t for t in self.terms if t in VERBS}
        if not verbs or not verbs <= _GIVING_ACTS or not view.tool_verbs:
            return False
        if not view.tool_verbs <= _GIVING_ACTS | _MAKING_ACTS:
            return False
        if not all(_shown_joined(view, t) for t in self.terms if t not in VERBS):
            return False  # 'to contractors': a qualifier the request does not show
        kind = set(self.kind_words)
        return any(leaf.last_keys & kind for leaf in view.leaves)

    def _act_shown(self, view: RequestView) -> bool:
        """Whether the request does what the rule forbids ('Do not disable SSO enforcement for
        acme-prod'): a listed value in the request says the rule speaks of that thing, not that
        the request performs its act; a certificate rotation for acme-prod is not a disabling."""
        if self.mode != "deny":
            # an allow-list's value of its kind is what the list constrains, for the things the
            # rule names: 'may be granted to guests' and `user_type: "employee"` is another thing
            return all(view.term_matches(t) for t in self.terms if t in _PERSON_KINDS)
        verbs = [t for t in self.terms if t in VERBS]
        if self.match == "token" and not all(
            _shown_joined(view, t) for t in self.terms if t not in VERBS and t not in _ANYONE
        ):
            return False  # 'for EU customers': a qualifier of the subject the request does not show
        if verbs and all(view.term_matches(t) for t in verbs):
            if not self._values_are_scope:
                return True  # 'Never attach PowerUserAccess …': the act on the listed thing
            # 'for acme-prod' says where the act is forbidden; the act must be on the rule's
            # thing too: disable_mfa for acme-prod does not disable 'SSO enforcement'
            things = view.tool_stems - VERBS
            own = set(self.terms) | set(self.about_words) | set(self.kind_words)
            if not things or not things.isdisjoint(own):
                return True
        if self.match == "token":
            # 'No keys with admin:* scope' and `apikeys.create`: the tool's name joins the words
            return all(_shown_joined(view, t) for t in self.about_words)
        return all(view.term_matches(t) for t in self.about_words)

    @cached_property
    def _values_are_scope(self) -> bool:
        """Whether every listed value is where the act is forbidden ('… for acme-prod', '… in
        prod-eu'), not the thing the act is done to ('Never delete kube-system')."""
        return all(
            re.search(
                r"\b(?:for|in|on|at|within|across)\s+(?:the\s+)?" + re.escape(v), self.source, re.I
            )
            for v in self.values
        )

    def _other_attribute(self, value: str) -> bool:
        """'customer C-55012' held and `customer_email: x@y.com`: a value that is no identifier
        of the listed kind (no digit, or an address) names the thing another way; whether it is
        the held one cannot be told."""
        return (
            self.mode == "deny"
            and self.match == "exact"
            and bool(self.kind_words)
            and bool(self.values)
            and all(any(ch.isdigit() for ch in x) for x in self.values)
            and ("@" in value or not any(ch.isdigit() for ch in value))
        )

    def _name_for_an_id(self, leaf: Leaf, value: str) -> bool:
        """'Speedy Freight' in `carrier_id` or `carrier` against a glossary of ids ('CAR-1001'):
        a name where the argument names the listed thing itself (its id, or its noun alone) and
        the category holds identifiers cannot be compared with them. An attribute of the thing
        (`carrier_country`) is not the thing."""
        named = _ID_KEYS | set(self.kind_words)
        return (
            self.match == "glossary"
            and bool(leaf.last_keys)
            and leaf.last_keys <= named
            and not any(ch.isdigit() for ch in value)
            and bool(self.values)
            and all(any(ch.isdigit() for ch in m) for m in self.values)
        )

    def _candidates(self, view: RequestView) -> list[Leaf]:
        leaves = [
            lf
            for lf in view.leaves
            if any(
                isinstance(v, (str, int, float)) and not isinstance(v, bool)
                for v in scalars(lf.value)
            )
        ]
        kind = set(self.kind_words)
        if self.match == "place":
            return [
                lf
                for lf in leaves
                if lf.last_keys & PLACE_KEYS or (lf.keys & PLACE_KEYS and not lf.keys & {"id"})
            ]
        if self.match == "currency":
            # 'notional_ccy', 'currency_pair', 'pair': 'EUR/TRY' names two currencies
            keys = _CURRENCY_KEYS if self.mode == "deny" else _CURRENCY_KEYS - {"pair"}
            # jlist: 'Withdrawals: BTC or ETH only' and `asset: "SOL"`: an asset, coin or token
            # argument holding a currency code is the currency the act moves (an `asset` that
            # is a laptop's tag is not)
            return [
                lf
                for lf in leaves
                if lf.keys & keys
                or (
                    lf.last_keys & _ASSET_KEYS
                    and isinstance(lf.value, str)
                    and lf.value.strip().upper() in CURRENCY_CODES
                )
            ]
        if self.match in ("domain", "consumer_mail"):
            return [
                lf
                for lf in leaves
                if any(
                    # an address, or a host name in an argument named like the list's kind; an
                    # identifier such as `report_id = R-1` is neither
                    isinstance(v, str)
                    and ("@" in v or (kind & lf.keys and "." in v and _host_of(v) is not None))
                    for v in scalars(lf.value)
                )
            ]
        if self.match == "prefix":
            return [lf for lf in leaves if kind & lf.keys]
        if self.match == "token":
            token_listed = self._token_listed
            return [
                lf
                for lf in leaves
                if kind & lf.keys
                or any(
                    # another argument's 'all' or '*' ('dataset': 'all') says nothing of the names
                    isinstance(v, str)
                    and "*" not in v
                    and v.strip().lower() not in _EVERY_NAME
                    and token_listed(v) is not False
                    for v in scalars(lf.value)
                )
            ]
        if self.match == "glossary":
            domains = all("." in x and " " not in x for x in self.values)
            # an allow-list whose members are all written alike ('k.osei', 'm.tanaka') also reads
            # an argument written the same way (`person: 'j.perez'`): failing it can only deny
            alike = self.mode == "allow" and len(self._value_shapes) == 1
            # A plain word ('a') is how most arguments are written: only codes written in capitals
            # like the members ('AMC' beside 'AAPL', 'MSFT') are alike; 'federal' in `level` is no
            # nexus state (CA, NY, TX), and was denied as one.
            plain = alike and self._value_shapes == frozenset({"a"})
            cased, lengths = self._codes_written
            # a glossary of countries is read from the request's country or region arguments
            places = all(_country_like(x) for x in self.values)
            if self.mode == "allow":
                # 'assumed only from member accounts': an argument named like the kind
                # (`source_account_id`) is the one constrained; an ARN that merely contains an
                # account is not another candidate
                named = [lf for lf in leaves if kind & lf.last_keys]
                if named:
                    return named
            return [
                lf
                for lf in leaves
                if kind & lf.keys
                or (places and lf.last_keys & PLACE_KEYS)
                or any(
                    (domains and isinstance(v, str) and "@" in v)
                    or (isinstance(v, str) and _in_glossary(v, self.values) is not False)
                    or (
                        alike
                        and isinstance(v, str)
                        and _shape(v) in self._value_shapes
                        and (
                            not plain
                            or (
                                _case_shape(v) in cased
                                and _case_shape(v) != "a"
                                and len(v.strip()) in lengths
                                and not lf.keys & _CURRENCY_KEYS  # 'USD' is no state code
                            )
                        )
                    )
                    for v in scalars(lf.value)
                )
            ]
        if self.mode == "allow" and kind and not any(kind & lf.keys for lf in leaves):
            # jred24: 'Permitted environments: dev, staging' beside `env: prod` and `service:
            # dev`: no argument is named for the kind, but `env` abbreviates it; ranked by the
            # listed value alone, `service` was checked and the deploy to prod approved
            short = [
                lf
                for lf in leaves
                if any(
                    len(k) >= 3 and k != w and w.startswith(k) for k in lf.last_keys for w in kind
                )
            ]
            if short:
                return short
        if self.mode == "allow" and kind and kind <= _ROLE_STEMS:
            # 'Only workspace owners may rotate keys': who may act is a role of a person; only an
            # argument named for that role shows it (`scope: "workspace"` had passed the rule)
            leaves = [lf for lf in leaves if kind & lf.keys]
        scored = []
        deny = self.mode == "deny"
        kind_is_content = self.kind_words == ("content",)
        contains = deny and self.match == "contains"
        shapes = self._value_shapes
        in_list = self._in_list
        for lf in leaves:
            if not deny and not kind and lf.last_keys & _FREE_TEXT_KEYS:
                # jred32: 'Perishables ship next-day only' and `note: "next-day"` beside
                # `service_level: "economy"`: words in a note are no value the request takes; the
                # allow-list had been met by the note and the economy shipment approved
                continue
            score = 3.0 * len(kind & lf.keys) + 2.0 * len(kind & lf.last_keys) if kind else 0.0
            hit = near = shaped = False
            # Plain loops: this runs for every argument of every list rule of a request.
            for v in scalars(lf.value):
                if not isinstance(v, (str, int, float)):
                    continue
                v = str(v)
                h = in_list(v)
                if h:
                    hit = True
                elif h is None:
                    near = True
                if not shaped and (
                    _shape(v) in shapes
                    # an ARN or a path ends with the name it points at ('…:policy/ReadOnlyAccess')
                    or (("/" in v or ":" in v) and _shape(re.split(r"[/:]", v)[-1]) in shapes)
                ):
                    shaped = True
            if hit:
                score += 7.0 if contains else 2.0
            elif deny and near:
                score += 1.0  # close to a listed value ('…/PowerUserAccessV2'): look at it
            elif deny and kind_is_content and isinstance(lf.value, (list, tuple)):
                score += 1.0  # 'never include psychotherapy notes': every list of content
            if shaped and not (
                deny and kind and self.match == "exact" and lf.last_keys & _ID_KEYS and not score
            ):
                # a deny-list of a kind ('customer C-55012') is read on the argument named for
                # the kind or one carrying a value; the id of another thing merely written alike
                # (`ticket_id: T-1`) is not the kind's, and satisfying the list there would
                # approve a request whose customer is not shown
                score += 1.0
            if score > 0:
                scored.append((score, score - (2.0 if hit and not contains else 0.0), lf))
        if not scored:
            return []
        if self.mode == "deny":
            return [lf for _, _, lf in scored]  # any mention of a forbidden value counts
        best = max(s for s, _, _ in scored)
        # 'Stock moves must be between warehouses WH-01, WH-02': an argument bound as well as the
        # best one before a listed value raised the best (`to_warehouse` beside `from_warehouse`)
        # is constrained too; ranking by the hit alone had let the listed side hide the other.
        top = [lf for s, _, lf in scored if s == best]
        floor = min(b for s, b, _ in scored if s == best)
        named = {k for lf in top for k in lf.last_keys} - _DIRECTION_KEYS
        return top + [
            lf
            for s, b, lf in scored
            if s < best
            and b >= floor
            # the same thing from the other side: named like a best argument but for its
            # direction (`from_entity`, `to_entity`), never merely written alike (`origin: JFK`)
            and (lf.last_keys - _DIRECTION_KEYS) & named
        ]

    def _content_flag(self, view: RequestView) -> Outcome | None:
        """'include_psychotherapy_notes': true names the content in the argument itself."""
        if set(self.kind_words) & _FIELD_KINDS:
            for lf in view.leaves:
                # jred22: 'include_all_columns': true beside `fields: ["name"]` carries every
                # column, a listed one among them
                if lf.keys & _ALL_WORDS and lf.keys & (_FIELD_KINDS | _INCLUDE_WORDS):
                    if not isinstance(lf.value, (list, tuple, dict)) and _flag_on(lf.value) in (
                        True,
                        None,
                    ):
                        return Outcome(
                            UNKNOWN,
                            f"{lf.path} = {lf.value!r} may carry a listed field",
                            (lf.path,),
                        )
        for x in self.values:
            if ":" in x or "*" in x:
                continue  # a scoped name is never a flag's name
            want = {stem(w) for w in words(x)}
            for lf in view.leaves:
                if want <= lf.keys and not isinstance(lf.value, (list, tuple, dict)):
                    on = _flag_on(lf.value)
                    if on is None:
                        return Outcome(
                            UNKNOWN, f"{lf.path} = {lf.value!r} may carry {x}", (lf.path,)
                        )
                    if lf.keys & _LEAVES_OUT:
                        # 'redact_ssn': true leaves it out; false may carry it
                        if not on:
                            return Outcome(
                                UNKNOWN, f"{lf.path} = {lf.value!r} may carry {x}", (lf.path,)
                            )
                        continue
                    if on:
                        return self.fire("matched", f"{lf.path} carries {x}", (lf.path,))
        return None

    @cached_property
    def _codes_written(self) -> tuple[frozenset[str], frozenset[int]]:
        """How the members are written (`_case_shape`) and their lengths: an argument value is
        written like them only if it shares both (`_candidates`)."""
        return (
            frozenset(_case_shape(x) for x in self.values),
            frozenset(len(x.strip()) for x in self.values),
        )

    @cached_property
    def _own_acts(self) -> frozenset[str]:
        return own_acts(self.source, set(self.terms) | set(self.about_words))

    @cached_property
    def _value_shapes(self) -> frozenset[str]:
        return frozenset(_shape(x) for x in self.values)

    @cached_property
    def _matching(self) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """What `_in_list` compares a value with, derived once per compiled check: the values
        normalised, the wildcard patterns (lower case), the values a 'contains' list looks for as
        tokens, and the values whose presence inside a longer value makes it doubtful."""
        normalised = self._normalised
        return (
            frozenset(nx for _, nx in normalised),
            tuple(x.lower() for x, _ in normalised if "*" in x),
            tuple(x for x, nx in normalised if len(nx) >= 3),
            tuple(x.lower() for x in self.values if "*" not in x and len(normalise_value(x)) >= 3),
        )

    @cached_property
    def _normalised(self) -> tuple[tuple[str, str], ...]:
        return tuple((x, normalise_value(x)) for x in self.values)

    def _in_list(self, value: str) -> bool | None:
        v = value.strip()
        if self.match == "glossary":
            return _in_glossary(v, self.values)
        if self.match == "place":
            loc = location_regions(v)
            if loc is None:
                return None
            code, regions = loc
            if any(x == code or x in regions for x in self.values):
                return True
            if code and any(code in SUBNATIONAL.get(x, ()) for x in self.values):
                return None  # 'UA' under a list naming Crimea: maybe in it, a human decides
            return False
        if self.match == "currency":
            parts = re.split(r"[/\-: ]+", v.upper())
            if len(parts) == 1 and re.fullmatch(r"[A-Z]{6}", parts[0]):
                parts = [parts[0][:3], parts[0][3:]]  # 'EURTRY' is a pair as well
            return any(part in self.values for part in parts)
        if self.match == "consumer_mail":
            host = _host_of(v) if "@" in v else None
            if host is None:
                return False  # not an address: nothing to judge here
            if any(host == d or host.endswith("." + d) for d in self.values):
                return True
            return None  # a company domain or a personal one we do not know: a human decides
        if self.match == "location":
            return _in_location(v, self.values)
        if self.match == "token":
            return self._token_listed(v)
        if self.match == "domain":
            host = _host_of(v)
            if host is None:
                return None if self.mode == "allow" else False
            return any(host == d or host.endswith("." + d) for d in self.values)
        if self.match == "prefix":
            compact = v.replace(" ", "").upper()
            # an ARN or a path names the thing by its last segment ('…:role/AdminFull')
            last = re.split(r"[/:]", compact)[-1]
            return any(
                compact.startswith(p.upper()) or last.startswith(p.upper()) for p in self.values
            )
        if self.kind_words == ("content",):
            # 'home addresses' is `home_address`, 'psychotherapy notes' `psychotherapy_notes`:
            # compared word by word through their stems; a longer value holding them is close
            got = tuple(stem(w) for w in words(v))
            close = False
            for x in self.values:
                want = tuple(stem(w) for w in words(x))
                if got == want:
                    return True
                if any(got[i : i + len(want)] == want for i in range(len(got))):
                    return None
                close = close or _content_close(got, want)
            # 'income_source' for 'source of income', 'family status' for 'familial status':
            # the same words in another order or form are close to the list: a human decides
            return None if close else False
        # Listed if it equals a value, matches a wildcard, or (a 'contains' list) holds a value
        # as a token: each test only ever answers True, so they are tried in the cheapest order.
        norms, patterns, tokens, inside = self._matching
        if normalise_value(v) in norms:
            return True
        if patterns:
            low = v.lower()
            for x in patterns:
                if fnmatch.fnmatchcase(low, x):
                    return True
        if self.match == "contains":
            for x in tokens:
                if _contains_token(v, x):
                    return True
        if self.match in ("exact", "contains") and ("/" in v or ":" in v):
            # An identifier names the resource an ARN or a path ends with: 'AdministratorAccess'
            # is 'arn:aws:iam::aws:policy/AdministratorAccess' (its last segment, exactly).
            last = normalise_value(re.split(r"[/:]", v)[-1])
            if last in norms:
                return True
        if self.mode == "deny" and self.match == "exact":
            low = v.lower()
            if patterns and self._near_a_listed_folder(low, patterns):
                return None
            # 'p5' against 'p5.48xlarge', 'prod' against 'prod-eu': a listed value that starts a
            # longer one before a separator names its family, however short: a human decides.
            if any(
                low.startswith(x.lower()) and low[len(x) : len(x) + 1] in (".", "-", "_", "/", ":")
                for x, _ in self._normalised
                if "*" not in x and len(x) >= 2
            ):
                return None
            if any(x in low for x in inside):
                # A listed value inside a longer one (an ARN, a path, a suffixed name) is close to
                # the list without being in it: a human decides, never the engine.
                return None
            nv = normalise_value(v)
            if len(nv) >= 5 and any(_slip_of(nv, nx) for _, nx in self._normalised if len(nx) >= 5):
                # 'ledger-writr' against 'ledger-writer': one letter from a listed name is a slip
                # of the pen or a variant; either way a human decides, never "not listed".
                return None
            if _unpadded(nv) in self._unpadded_listed:
                # 412 against 'Store #0412', 'M44120' against 'M-44120': the listed identifier
                # without its leading zeros or separators is the same one written another way
                return None
            if _word_stems(v) in self._stemmed:
                # 'tractor-trailer' against 'tractor-trailers', 'Audit Logs' against
                # 'audit-logs': the listed name in another form (number, case, separators)
                # names the same thing; read as another value, the prohibition passed it.
                return None
        return False

    @staticmethod
    def _near_a_listed_folder(low: str, patterns: tuple[str, ...] | list[str]) -> bool:
        """Whether a path not under a listed folder glob ('secret/payments-core/*') may still
        name a thing in it: written from another root ('/secret/…', 'v1/secret/…',
        'secret/data/payments-core/…'), through '..', or the folder itself. A human decides."""
        segments = [x for x in re.split(r"/+", low) if x]
        for x in patterns:
            if not x.endswith("/*"):
                continue
            folder = x[:-2]
            if ".." in segments or low.rstrip("/") == folder:
                return True
            if folder.rsplit("/", 1)[-1] in segments:
                return True
        return False

    @cached_property
    def _unpadded_listed(self) -> frozenset[str]:
        return frozenset(
            u for x in self.values if "*" not in x and (u := _unpadded(normalise_value(x)))
        )

    @cached_property
    def _stemmed(self) -> frozenset[tuple[str, ...]]:
        return frozenset(_word_stems(x) for x in self.values if "*" not in x)

    @cached_property
    def _tokens(self) -> tuple[tuple[str, bool, tuple[str, ...]], ...]:
        """Each listed name lower-cased, whether it is a scoped name or a pattern ('admin:*',
        'billing:write'), and its words' stems."""
        return tuple((x.strip().lower(), ":" in x or "*" in x, _word_stems(x)) for x in self.values)

    def _token_listed(self, value: str) -> bool | None:
        """A name against listed field, column, scope or role names. A scoped name is listed when
        it equals one or matches its pattern ('admin:users' for 'admin:*'); one extending a listed
        name ('payments:write_limited') or the bare root of a pattern ('admin') is close; another
        name under the same root ('billing:read' beside 'billing:write') is not listed. A plain
        name is listed when its words are the listed name's words in any writing
        ('full_card_number', 'Full Card Number', 'SSNs' for 'ssn'); one sharing a word with a
        listed name that is no generic part of a name ('salary_band', 'card_number' against
        'full card number'; not 'id' or 'date') is close: a human decides."""
        low = value.strip().lower()[:200]
        if re.search(r"[,;|]", low) or (":" in low and re.search(r"\s", low)):
            # 'reports:read_all billing:read', 'email,ssn': several names in one string, each
            # compared (a space inside a plain name, 'full card number', is part of it)
            parts = [p for p in re.split(r"[\s,;|]+" if ":" in low else r"\s*[,;|]\s*", low) if p]
            if len(parts) > 1:
                got_each = [self._token_listed(p) for p in parts]
                if self.mode == "deny":
                    return True if True in got_each else (None if None in got_each else False)
                if False in got_each:
                    return False
                return True if all(got_each) else None
        got = _word_stems(low)
        if "*" in low or not got or low in _EVERY_NAME:
            # '*', 'admin:*' against 'admin:users', 'all': a pattern the request sends covers
            # every name it matches; for a deny-list that is a listed name, for an allow-list it
            # is no name of the list (a human decides)
            covers = low in _EVERY_NAME or any(
                fnmatch.fnmatchcase(x.replace("*", "x"), low) for x, _, _ in self._tokens
            )
            if covers:
                return True if self.mode == "deny" else None
        close = False
        for x, scoped, want in self._tokens:
            if scoped:
                if low == x or fnmatch.fnmatchcase(low, x):
                    return True
                fixed = x.rstrip("*").rstrip(":._-/")
                if (
                    "*" in x
                    and (low == fixed or low[len(fixed) : len(fixed) + 1] in "._-/")
                    and low.startswith(fixed)
                ) or ("*" not in x and low.startswith(x) and low[len(x) : len(x) + 1] in "._-/:"):
                    close = True
                continue
            if got == want:
                return True
            shared = set(got) & set(want)
            if self.mode == "allow" and shared:
                close = True  # 'full_name' against an allow-list of 'name': a human decides
            elif shared - _GENERIC_NAME_STEMS or _initials_of(got, want):
                close = True
            elif self.mode == "deny" and (_inside_name(got, want) or _alias_of(got, want)):
                # 'org_administrator' or 'superadmin' against 'admin', 'pan' against 'full card
                # number': maybe the listed name in another spelling; a human decides
                close = True
        return None if close else False


# Words that are parts of many names and say nothing of what a field holds ('customer_id',
# 'signup_date'): sharing one of them does not bring a name close to a listed one.
_GENERIC_NAME_STEMS = frozenset(
    stem(w)
    for w in "id ids number no num nr code name date type status value data info information "
    "detail details record records flag count amount field column key text list at on is".split()
)


# Kinds of person an allow-list may be written for ('may be granted to guests'): a request that
# does not show the kind is not constrained by it for certain.
_PERSON_KINDS = frozenset(
    stem(w)
    for w in "guest guests contractor contractors intern interns trainee trainees freelancer "
    "freelancers temp temps student students minor minors".split()
)
# Words of a flag's name that say the named content is left out ('exclude_ssn', 'mask_dob').
_LEAVES_OUT = frozenset(
    stem(w) for w in "exclude mask masked redact redacted hide omit strip drop remove no".split()
)
# Words for any person or account ('Members may never be granted …'): no qualifier.
_ANYONE = frozenset(
    stem(w)
    for w in "member members user users account accounts anyone anybody people person staff "
    "employee employees".split()
)
# Values that name every field, column or scope there is.
_EVERY_NAME = frozenset(
    {"*", "all", "all fields", "all_fields", "all columns", "everything", "*:*"}
)


# Names of the same data that share no word: a listed name of a group makes a name of another
# of its members close (review), never listed.
_NAME_ALIASES: tuple[frozenset[str], ...] = tuple(
    frozenset(stem(w) for w in group.split())
    for group in (
        "card pan ccn cardnumber creditcard",
        "dob birth birthday birthdate born",
        "ssn sin nino itin",
        "passport passportnumber",
        "iban sortcode",
        "password passwd pwd secret credential",
        "admin administrator superuser root owner superadmin",
    )
)


def _inside_name(got: tuple[str, ...], want: tuple[str, ...]) -> bool:
    """One word of a name holding a listed word of three letters or more, or held in it
    ('administrator' and 'admin', 'superadmin' and 'admin')."""
    for g in got:
        for w in want:
            if w in _GENERIC_NAME_STEMS or min(len(g), len(w)) < 3 or g == w:
                continue
            if w in g or g in w:
                return True
    return False


def _alias_of(got: tuple[str, ...], want: tuple[str, ...]) -> bool:
    """Whether a name's words and a listed name's words fall in one group of `_NAME_ALIASES`."""
    return any(set(got) & group and set(want) & group for group in _NAME_ALIASES)


def _initials_of(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """'dob' and `date_of_birth`, 'ssn' and `social_security_number`: one name the initials of
    the other's words (two or more of them)."""
    for short, long in ((a, b), (b, a)):
        if len(short) == 1 and len(long) >= 2 and short[0] == "".join(w[0] for w in long if w):
            return True
    return False


def _shown_joined(view: RequestView, term: str) -> bool:
    """A word the request shows, or one a word of the tool's name starts or ends with ('key' in
    `apikeys.create`, the tool's name written as one word)."""
    return view.term_matches(term) or (
        len(term) >= 3
        and any(w != term and (w.startswith(term) or w.endswith(term)) for w in view.tool_stems)
    )


# Kinds of names that a request gives by making the thing that carries them (a key's scopes, a
# user's roles), the acts that give them, and the acts that make such a thing.
_GRANTED_KINDS = frozenset(
    stem(w) for w in "scope scopes permission permissions role roles".split()
)
_GIVING_ACTS = frozenset(stem(w) for w in "grant give given assign issue add attach".split())
_MAKING_ACTS = frozenset(stem(w) for w in "create issue invite add".split())
_TAKING_ACTS = frozenset(
    stem(w)
    for w in "revoke remove delete unassign detach disable deactivate withdraw strip drop".split()
)


def _unpadded(value: str) -> str:
    """An identifier with a digit, without separators, a leading '#' or leading zeros of its
    numbers ('#0412' and '412' give '412'); '' for a value with no digit."""
    if not any(ch.isdigit() for ch in value):
        return ""
    return re.sub(r"(?<![0-9])0+(?=[0-9])", "", re.sub(r"[^0-9a-z]", "", value.lower()))


def _word_stems(value: str) -> tuple[str, ...]:
    """The stems of a name's words, whatever separates them ('tractor-trailers' and
    'Tractor trailer' both give ('tractor', 'trailer'))."""
    return tuple(stem(w.lower()) for w in re.findall(r"[A-Za-z]+|\d+", value))


def _content_close(got: tuple[str, ...], want: tuple[str, ...]) -> bool:
    """Whether two kinds of content name the same words, in any order, each word the same stem
    or close (`_stems_close`: 'fami' and 'famili'); 'of' and 'the' left out."""
    a = [w for w in got if w not in ("of", "the", "a")]
    b = [w for w in want if w not in ("of", "the", "a")]
    if not a or len(a) != len(b):
        return False
    rest = list(b)
    for w in a:
        match = next(
            (x for x in rest if x == w or _stems_close(w, x)),
            None,
        )
        if match is None:
            return False
        rest.remove(match)
    return True


def _stems_close(a: str, b: str) -> bool:
    """One stem starts the other ('fami' of 'family', 'famili' of 'familial'), or they share
    their first five letters; both at least four letters long."""
    if min(len(a), len(b)) < 4:
        return False
    return a.startswith(b) or b.startswith(a) or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


@dataclass(frozen=True)
class _Keyed:
    """A leaf seen through the rule's words: its keys with abbreviations read as the rule's."""

    leaf: Leaf
    keys: frozenset[str]

    @property
    def value(self) -> Any:
        return self.leaf.value


def abbreviates(short: str, long: str) -> bool:
    """Whether `short` (2 to 4 letters) is written for `long`, at least two letters longer: its
    first letters ('emp' employee, 'cat' category), or its first letter then
    consonants of it in order ('chg' change, 'acct' account, 'amt' amount, 'mfr' manufacturer).
    'dept' is not read as 'deposit' (nor as 'department', a guess the rule must spell out), and
    identifier words ('no', 'id') are never abbreviations."""
    if not (2 <= len(short) <= 4 and len(long) >= len(short) + 2) or short[0] != long[0]:
        return False
    if not (short.isalpha() and long.isalpha()) or short in _ID_WORDS or long in _ID_WORDS:
        return False
    if len(short) >= 3 and long.startswith(short):
        return True
    if any(ch in _VOWELS for ch in short[1:]):
        return False
    i = 1
    for ch in short[1:]:
        i = long.find(ch, i) + 1
        if not i:
            return False
    return True


_VOWELS = frozenset("aeiouy")


@lru_cache(maxsize=65536)
def abbreviated_as(keys: frozenset[str], own: frozenset[str]) -> frozenset[str]:
    """`keys` with each word that is an abbreviation of a word of `own`, or abbreviated by one,
    read as that word of `own` (the same object back when nothing changes)."""
    changed = False
    out = set()
    for k in keys:
        if k in own:
            out.add(k)
            continue
        match = [w for w in own if abbreviates(w, k) or abbreviates(k, w)]
        if len(match) == 1:  # 'ct' for both 'count' and 'contract' would be a guess
            out.add(match[0])
            changed = True
        else:
            out.add(k)
    return frozenset(out) if changed else keys


# 'an invoice or PO number', 'a contract or order ID': one identifier word for two nouns
_EITHER_ID = re.compile(
    r"\b(?P<a>[A-Za-z]+)\s+or\s+(?:an?\s+)?(?P<b>[A-Za-z]+)\s+"
    r"(?:number|no|num|nr|id|identifier|ref|reference|code)\b",
    re.I,
)
# 'increases of more than 10% over (the) current base', 'a rise above 5% on the old price'
_CHANGE_OVER_CURRENT = re.compile(
    r"\b(?:increase|increases|rise|rises|raise|raises|hike|hikes|uplift|uplifts)\b[^.;]*?"
    r"\b(?:over|above|on|of|from)\s+(?:the\s+)?(?:current|existing|old|previous)\s+"
    r"(?P<base>[A-Za-z]+)\b",
    re.I,
)
_CURRENT_WORDS = frozenset(stem(w) for w in "current existing old previous prior".split())
_NEW_WORDS = frozenset(stem(w) for w in "new proposed target updated".split())


@dataclass(frozen=True)
class RequiredArgument(Check):
    """'Every payment must reference an invoice number': the argument must be present and non-empty."""

    arg_words: tuple[str, ...] = ()
    exact_name: str = ""  # when the rule names the field ('ticket_id')
    unverifiable: tuple[str, ...] = ()  # 'approved', 'valid': the value cannot prove these
    # the phrase's noun when a closing participle follows it ('the policy sections violated')
    head_word: str = ""
    # what the value must say ('what the work was for'): a word or two cannot say it (review)
    says: str = ""
    kind: str = field(default="required_argument", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(arg_words=list(self.arg_words), exact_name=self.exact_name)
        return d

    def reading(self) -> str:
        name = self.exact_name or surface_words(self.source, self.arg_words) or "the argument"
        extra = (
            f" or states it is not {' or '.join(self.unverifiable)} (only a value stating it is "
            f"{' or '.join(self.unverifiable)} satisfies the rule; an id or a code alone goes to "
            "review)"
            if self.unverifiable
            else ""
        )
        if self.says:
            extra += f"; a value of fewer than three words may not say {self.says} (review)"
        for brand in self._brands:
            extra += (
                f"; a value not shaped like a {brand.label}, in an argument not named for it, goes "
                "to review (in an argument named for a ticket or a reference, a value so shaped "
                "gives it)"
            )
        return f"{_VERB[self.effect]} when `{name}` is missing or empty{extra}{self._about()}"

    def evaluate(self, view: RequestView) -> Outcome:
        if self.unrelated(view):
            return _NOT_APPLICABLE  # none of the rule's words is in the request
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        leaf = self._find(view)
        name = self._name
        if leaf is not None and (
            placeholder(leaf.value)
            if self.unverifiable
            else no_reference(leaf.value, leaf.last_keys)
        ):
            # 'N/A', 'TBD', 'none', 'to follow': a value that stands in for the reference is
            # not one
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {leaf.value!r} stands in for '{name}' rather than giving it",
                (leaf.path,),
            )
        if (
            leaf is not None
            and truthy(leaf.value)
            or (self.unverifiable and leaf is not None and leaf.value is False)
        ):
            if self.unverifiable:
                return self._judge_state(view, leaf, applies)
            doubt = _doubted(view, leaf) or self._off_brand(leaf) or self._says_too_little(leaf)
            if doubt is not None:
                return doubt
            return Outcome(SATISFIED, f"{leaf.path} is given", (leaf.path,))
        if leaf is None and self._brands:
            branded = self._branded_elsewhere(view)
            if branded is not None:
                return branded
        if leaf is None and not self.exact_name:
            either = self._either_identifier(view)
            if either is not None:
                return either
            # An argument named with part of the rule's words ('purchase_ref' for 'a purchase
            # order number') may be the one meant: a human decides rather than a guessed deny.
            wanted = self._find_words[1]  # the argument words that are no identifier word
            initials = self._initials
            if len(initials) > 2:  # three words or more: two letters name too many things
                short = view.__dict__.get("_short_key_letters")
                if short is None:  # built once per request
                    short = view.__dict__["_short_key_letters"] = {
                        "".join(sorted(k)): lf.path
                        for lf in view.leaves
                        if truthy(lf.value)
                        for k in lf.last_keys
                        if 2 < len(k) < 6 and k.isalpha()
                    }
                path = short.get(initials)
                if path is not None:
                    # 'the goods receipt number' and `grn_number`: its initials may name it
                    return Outcome(
                        UNKNOWN,
                        f"'{name}' is not among the arguments, but {path} may be it",
                        (path,),
                    )
            for lf in view.leaves:
                if (
                    wanted & lf.last_keys
                    and truthy(lf.value)
                    and not (lf.last_keys & _NOT_AN_IDENTIFIER and set(self.arg_words) & _ID_WORDS)
                ):
                    return Outcome(
                        UNKNOWN,
                        f"'{name}' is not among the arguments, but {lf.path} may be it",
                        (lf.path,),
                    )
        if leaf is None and self.unverifiable:
            # 'a verified identity' and a `verification_code`: an argument named for the state
            # shows the state was asked about, not its outcome: a human decides, no denial
            states = self._state_prefixes
            for lf in view.leaves:
                if truthy(lf.value) and any(k[:5] in states for k in lf.last_keys):
                    return Outcome(
                        UNKNOWN,
                        f"'{name}' is not among the arguments; {lf.path} may speak of it",
                        (lf.path,),
                    )
        return self.fire(applies, f"required argument '{name}' is missing or empty")

    def _says_too_little(self, leaf: Leaf) -> Outcome | None:
        """'Payout memo has to say what the work was for' and `memo: "misc"`: a value of fewer
        than three words names something but cannot say what the rule asks it to say."""
        if not self.says:
            return None
        text = " ".join(str(v) for v in scalars(leaf.value) if v is not None)
        if len(words(text)) >= 3:
            return None
        return Outcome(
            UNKNOWN, f"{leaf.path} = {leaf.value!r} may not say {self.says}", (leaf.path,)
        )

    @cached_property
    def _brands(self) -> tuple[ReferenceBrand, ...]:
        # read once per compiled check: the systems the reference lives in ('the Zendesk ticket')
        return reference_brands(self.source, self.arg_words)

    def _branded_elsewhere(self, view: RequestView) -> Outcome | None:
        """'a Jira key' and `ticket: "OPS-12"`: an argument named for a ticket or a reference
        (never `order_id`) whose value is shaped like the system's references is that reference;
        one holding any other value may be it too (`ticket: "12345"`): a human decides."""
        other: Outcome | None = None
        for brand in self._brands:
            for lf in view.leaves:
                if (
                    not lf.last_keys & _TICKET_KEYS
                    or lf.last_keys & _NOT_AN_IDENTIFIER  # `ticket_type`, `ticket_status`
                    or not truthy(lf.value)
                ):
                    continue
                values = [str(v).strip() for v in scalars(lf.value) if v is not None]
                if values and all(brand.shape.fullmatch(v) for v in values):
                    return _doubted(view, lf) or Outcome(
                        SATISFIED,
                        f"{lf.path} = {lf.value!r} is shaped like a {brand.label}",
                        (lf.path,),
                    )
                other = other or Outcome(
                    UNKNOWN,
                    f"{lf.path} = {lf.value!r} may be the {brand.label} the rule asks for",
                    (lf.path,),
                )
        return other

    def _off_brand(self, leaf: Leaf) -> Outcome | None:
        """'the Zendesk ticket number' and `ticket_id: "PAY-4411"`: an argument not named for the
        system holds its reference only when the value is shaped like one; any other value may
        be another system's reference (a Jira key), so a human decides."""
        for brand in self._brands:
            values = [str(v).strip() for v in scalars(leaf.value) if v is not None]
            if leaf.keys & brand.key_words:
                # named for the system, any one token is its reference; words around one ('see
                # Jira OPS-12', 'ZD-902114 (closed as invalid)') may say it is not, or is gone
                if any(re.search(r"\s", v) and not brand.shape.fullmatch(v) for v in values):
                    return Outcome(
                        UNKNOWN,
                        f"{leaf.path} = {leaf.value!r} says more than a {brand.label}",
                        (leaf.path,),
                    )
                continue
            if not values or not all(brand.shape.fullmatch(v) for v in values):
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {leaf.value!r} does not look like a {brand.label}",
                    (leaf.path,),
                )
        return None

    @cached_property
    def _initials(self) -> str:
        # 'goods receipt number' -> 'gnr': an argument named by the letters (`grn_number`)
        return "".join(sorted(w[0] for w in self.arg_words if w and w[0].isalpha()))

    @cached_property
    def _name(self) -> str:
        # the argument as the rule names it, for messages: read once per compiled check
        return self.exact_name or surface_words(self.source, self.arg_words) or "the argument"

    def _either_identifier(self, view: RequestView) -> Outcome | None:
        """'an invoice or PO number' and `invoice_ref`: the identifier word belongs to both
        nouns, so an argument named by one of the nouns and an identifier word (any: ref, number,
        id, no) is that reference. Only the noun alone beside the identifier word counts
        (`invoice_date`, `po_vendor_ref` do not), with a value that is not a stand-in."""
        for nouns in self._either_nouns:
            for lf in view.leaves:
                named = lf.last_keys - _ID_WORDS
                if len(named) == 1 and named <= nouns and lf.last_keys & _ID_WORDS:
                    if truthy(lf.value) and not no_reference(lf.value, lf.last_keys):
                        return _doubted(view, lf) or Outcome(
                            SATISFIED, f"{lf.path} is given", (lf.path,)
                        )
        return None

    @cached_property
    def _either_nouns(self) -> tuple[frozenset[str], ...]:
        # read once per compiled check: the noun pairs of 'an invoice or PO number'
        if self.unverifiable:
            return ()
        out = []
        for m in _EITHER_ID.finditer(self.source):
            nouns = frozenset({stem(m.group("a").lower()), stem(m.group("b").lower())})
            if nouns <= set(self.arg_words):
                out.append(nouns)
        return tuple(out)

    @cached_property
    def _state_stems(self) -> frozenset[str]:
        # the words of the states the rule asks for ('open'), read once per compiled check
        return frozenset(stem(w.lower()) for s in self.unverifiable for w in words(s))

    @cached_property
    def _state_prefixes(self) -> frozenset[str]:
        return frozenset(stem(w)[:5] for s in self.unverifiable for w in words(s) if len(w) > 4)

    def _judge_state(self, view: RequestView, leaf: Leaf, applies: str) -> Outcome:
        """The rule asks for a state ('a verified receipt', 'a background check', 'a compliance
        check to pass'): only a value stating an outcome decides. Among the arguments named like
        the thing, one stating a bad outcome ('failed', 'pending', false) fires the rule, one
        stating a good one ('passed', 'completed', true) satisfies it; an id, a code or any other
        value shows the thing exists, not its state: unknown."""
        states = ", ".join(self.unverifiable)
        head = self.arg_words[-1] if self.arg_words else ""
        named = [leaf] + [lf for lf in view.leaves if lf is not leaf and head and head in lf.keys]
        best: Outcome | None = None
        wanted = self._state_stems
        for lf in named:
            said = outcome_stated(lf.value)
            if (
                isinstance(lf.value, str)
                and words(lf.value)
                and {stem(w.lower()) for w in words(lf.value)} <= wanted
            ):
                # 'an open Zendesk ticket' and `ticket_status: "open"`: the very state the rule
                # asks for, though 'open' states a bad outcome elsewhere ('an open dispute')
                said = True
            if said is False:
                return self.fire(
                    applies,
                    f"{lf.path} = {lf.value!r}, but the rule requires it {states}",
                    (lf.path,),
                )
            if said and best is None:
                best = Outcome(
                    SATISFIED, f"{lf.path} = {lf.value!r} states it is {states}", (lf.path,)
                )
        if best is not None:
            return best
        return Outcome(
            UNKNOWN,
            f"{leaf.path} is given, but nothing in the arguments states it is {states}",
            (leaf.path,),
        )

    @cached_property
    def _find_words(
        self,
    ) -> tuple[
        frozenset[str],
        frozenset[str],
        str,
        str,
        frozenset[str],
        frozenset[str],
        frozenset[str],
        frozenset[str],
    ]:
        """What `_find` reads of the rule's words, derived once per compiled check rather than
        for every request: (the words of `exact_name`, the argument words that are no identifier
        word, the head noun, the closing identifier word, the identifier words of its kind, the
        argument words, the qualifiers: the argument words but the head and identifier words,
        and the words an argument's name may have beside the rule's: the argument words, the
        head and the identifier words)."""
        named = (
            frozenset(stem(w) for w in re.split(r"[^a-z0-9]+", self.exact_name.lower()) if w)
            - _ID_WORDS
            if self.exact_name
            else _EMPTY
        )
        words = [w for w in self.arg_words if w not in _ID_WORDS]
        head = words[-1] if words else (self.arg_words[-1] if self.arg_words else "")
        # 'a payment reference', 'a policy number': the phrase names an identifier, so the
        # argument must be one too (policy_age_days is not a policy number) or be named by the
        # rule's words alone (change_ticket); a bare argument named by the same identifier word
        # ('reference') is the one meant.
        tail = self.arg_words[-1] if self.arg_words and self.arg_words[-1] in _ID_WORDS else ""
        same_id = next((g for g in _ID_GROUPS if tail in g), frozenset({tail}))
        own = frozenset(self.arg_words)
        if self.head_word:
            head = self.head_word  # 'the policy sections violated': the noun, not its participle
        mine = own - {head} - _ID_WORDS
        return named, frozenset(words), head, tail, same_id, own, mine, own | {head} | _ID_WORDS

    def _find(self, view: RequestView) -> Leaf | None:
        if self.exact_name:
            for lf in view.leaves:
                if lf.path == self.exact_name or lf.path.endswith("." + self.exact_name):
                    return lf
        named, words, head, tail, same_id, own, mine, not_other = self._find_words
        best: tuple[int, Leaf] | None = None
        for leaf in view.leaves:
            if named and not leaf.keys & named:
                # 'must carry an HR case number (hr_case_id) and the last working day': the rule
                # names its argument, so `last_working_day`, named with the rule's other
                # obligation's words, is not it (`hrCaseId`, `case_number` may be)
                continue
            # 'a CHG ticket' is `change_ticket`, 'the reviewer's employee ID' `reviewer_emp_id`:
            # an argument's word that the rule's word abbreviates (or the other way) reads as it
            lf_keys = abbreviated_as(leaf.keys, own)
            lf = leaf if lf_keys is leaf.keys else _Keyed(leaf, lf_keys)
            if tail and lf.keys and lf.keys <= same_id:
                if best is None or (truthy(lf.value) and not truthy(best[1].value)):
                    best = (0, lf)
                continue
            if tail and not (lf.keys & _ID_WORDS or lf.keys <= own):
                continue
            # (a noun's synonyms among the keys are keys: the head is in them or it is not)
            if head and head not in lf.keys and not (_synonyms(head) & lf.keys):
                continue
            if mine and not lf.keys <= not_other and not mine & lf.keys:
                # another word in the name and none of the rule's qualifiers: 'the payee name'
                # is not `payer_name`, the qualifiers differ
                continue
            score = len(words & lf.keys)
            if (
                best is None
                or score > best[0]
                or (score == best[0] and truthy(lf.value) and not truthy(best[1].value))
            ):
                best = (score, lf)
        if best is None:
            return None
        found = best[1]
        return found.leaf if isinstance(found, _Keyed) else found


_TURNING_KEYS = frozenset(
    stem(w)
    for w in "not no non never without skip skipped bypass bypassed disable disabled off waive "
    "waived omit omitted".split()
)


@dataclass(frozen=True)
class RequiredFlag(Check):
    """'Production database dumps must be encrypted', 'not without MFA enabled': a flag must be on."""

    flag_words: tuple[str, ...] = ()
    kind: str = field(default="required_flag", init=False)

    def _own_flag(self, found: list[Leaf]) -> Leaf:
        """The argument named for the flag alone (`encrypted`, `is_encrypted`) before one
        naming more (`encrypted_copy`), else the first named for it."""
        own = set(self.flag_words) | _FLAG_FILLER_KEYS
        return next(
            (lf for lf in found if lf.last_keys and lf.last_keys <= own),
            next((lf for lf in found if not self._turned(lf)), found[0]),
        )

    def _turned(self, leaf: Leaf) -> bool:
        """A name that turns the flag around: `not_encrypted`, `encryption_skipped`,
        `unencrypted`."""
        keys = leaf.last_keys
        if keys & _TURNING_KEYS:
            return True
        return any(
            k.startswith(("un", "non", "dis")) and any(k.endswith(w) for w in self.flag_words)
            for k in keys
            if k not in self.flag_words
        )

    def _flag_against(self, found: list[Leaf], leaf: Leaf) -> Outcome | None:
        """Review when the arguments named for the flag do not say one thing: one turns it
        around and is on (`not_encrypted: true`, `encryption_skipped: true`), or two say on and
        off (`encrypted_at_rest: true` beside `encrypted_in_transit: false`). The first one named
        for it had decided: each of these exports had been approved (red team jred26). A flag
        said off by its own argument still denies."""
        if self._turned(leaf):
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {leaf.value!r} turns "
                f"'{surface_words(self.source, self.flag_words)}' around: a human reads it",
                (leaf.path,),
            )
        if _flag_on(leaf.value) is False:
            return None
        said: set[bool | None] = set()
        for lf in found:
            on = _flag_on(lf.value) if isinstance(lf.value, (bool, str, int)) else None
            if self._turned(lf):
                on = None if on is None else not on
            said.add(on)
            if self._turned(lf) and on is False:
                return Outcome(
                    UNKNOWN,
                    f"{lf.path} = {lf.value!r} turns '{surface_words(self.source, self.flag_words)}'"
                    " around: a human reads it",
                    (lf.path,),
                )
        if len(said) > 1:
            return Outcome(
                UNKNOWN,
                "the arguments named for "
                f"'{surface_words(self.source, self.flag_words)}' do not say one thing",
                tuple(lf.path for lf in found),
            )
        return None

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(flag_words=list(self.flag_words))
        return d

    def reading(self) -> str:
        flag = surface_words(self.source, self.flag_words) or "the flag the rule names"
        return f"{_VERB[self.effect]} unless `{flag}` is on{self._about()}"

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        leaf = None
        found = [
            lf
            for lf in view.leaves
            if set(self.flag_words) <= lf.keys
            or (self.flag_words and self.flag_words[0] in lf.keys)
        ]
        name = surface_words(self.source, self.flag_words) or "the flag the rule names"
        if not found:
            return Outcome(UNBOUND, f"nothing in the arguments shows '{name}'")
        leaf = self._own_flag(found)
        other = self._flag_against(found, leaf)
        if other is not None:
            return other
        on = _flag_on(leaf.value)
        if on is None:
            # 'disabled', 'pending', 'partial': a word the engine does not read as on or off
            return Outcome(
                UNKNOWN, f"{leaf.path} = {leaf.value!r} does not say on or off", (leaf.path,)
            )
        if on:
            return Outcome(SATISFIED, f"{leaf.path} is on", (leaf.path,))
        return self.fire(applies, f"{leaf.path} is off but the rule requires {name}", (leaf.path,))


@dataclass(frozen=True)
class FirstTimeCounterparty(Check):
    """'Payments to a payee we have never paid before need review' (from the request history)."""

    counterparty_words: tuple[str, ...] = ()
    kind: str = field(default="first_time_counterparty", init=False)

    def reading(self) -> str:
        who = surface_words(self.source, self.counterparty_words) or "the counterparty"
        return f"{_VERB[self.effect]} when {who} has not been seen before{self._about()}"

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        wanted = set(self.counterparty_words) | (
            {"to", "recipient"} if "recipient" in self.counterparty_words else set()
        )
        leaves = [lf for lf in view.leaves if lf.last_keys & wanted and truthy(lf.value)]
        if not leaves:
            leaves = [lf for lf in view.leaves if lf.last_keys & _COUNTERPARTY and truthy(lf.value)]
        if not leaves:
            return (
                Outcome(UNKNOWN, "no counterparty argument to check against the history")
                if anchored
                else _NOT_APPLICABLE
            )
        for leaf in leaves:
            for v in scalars(leaf.value):
                if not view.history.seen_value(view.agent_id, view.tool_name, leaf.path, str(v)):
                    return self.fire(
                        applies, f"{leaf.path} = {v!r} has not been seen before", (leaf.path,)
                    )
        return Outcome(SATISFIED, "known counterparty", tuple(lf.path for lf in leaves))


@dataclass(frozen=True)
class ActionRule(Check):
    """'Agents must never delete S3 buckets', 'IAM changes need approval', 'Rollbacks are allowed'."""

    kind: str = field(default="action", init=False)

    def reading(self) -> str:
        subject = surface_words(self.source, self.terms)
        alts = " or ".join(surface_words(self.source, pair) for pair in self.alternatives[:3])
        what = " ".join(x for x in (subject, f"({alts})" if alts else "") if x) or "this tool"
        if self.effect == "allow":
            return f"Allow requests about {what}"
        return f"{_VERB[self.effect]} requests about {what}"

    def evaluate(self, view: RequestView) -> Outcome:
        if self.unrelated(view):
            return _NOT_APPLICABLE  # none of the rule's words is in the request
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored and self.effect != "allow")
        if not anchored and self.effect == "allow":
            return _NOT_APPLICABLE
        if not anchored and applies == "unknown":
            if self.effect == "deny":
                return Outcome(UNKNOWN, "the rule may forbid this request")
            if self.effect == "review":
                return Outcome(UNKNOWN, "the rule may ask for review of this request")
            return _NOT_APPLICABLE
        if self.effect != "allow" and _only_reads_instead(view, self.source, self.terms):
            return _NOT_APPLICABLE  # 'never issue refunds' and refund_status_get: a read
        what = (
            "explicitly allowed"
            if self.effect == "allow"
            else ("needs review" if self.effect == "review" else "is forbidden")
        )
        return self.fire(applies, f"this request {what} by the rule")


# The act a prohibition forbids, right after its negation ('must never issue refunds', 'may not
# approve invoices', 'Never delete …'): the verb the rule's subject words may have dropped (an
# effect word like 'issue', a review word like 'approve'), so a read of the thing matched it.
_FORBIDDEN_ACT = re.compile(
    r"(?:^\s*never\s+|\b(?:must|may|can|shall|should|will|do|does)\s*(?:not|n't|never)\s+|"
    r"\bcannot\s+|\bcan't\s+|\bmustn't\s+)(?:never\s+|not\s+|ever\s+)?(?P<verb>[a-z]+)\s+"
    r"(?=[a-z])",
    re.I,
)
# Acts so general that a read may be one of them ('never access', 'may not use', 'do not handle')
_MAY_BE_A_READ = frozenset(
    stem(w)
    for w in "access use handle manage process run execute perform do make operate invoke call "
    "trigger request bypass skip touch open".split()
)
# Tool verbs that only read a thing. ('list' is not one: listing an item publishes it.)
_READ_ONLY_VERBS = frozenset(
    stem(w) for w in "get read view fetch show describe lookup search find query".split()
)


@lru_cache(maxsize=65536)
def _forbidden_act(source: str) -> str | None:
    """The stem of the act a prohibition names right after its negation, when it is a specific
    verb that is not a read; None otherwise."""
    m = _FORBIDDEN_ACT.search(source)
    if m is None:
        return None
    act = stem(m.group("verb").lower())
    if act not in VERBS or act in _MAY_BE_A_READ or act in _READ_ONLY_VERBS:
        return None
    return act


def _only_reads_instead(view: RequestView, source: str, terms: tuple[str, ...]) -> bool:
    """Whether the request only reads the thing a prohibition forbids another act on: its tool
    verbs are reads (besides the rule's own subject words), the rule's act is not in the tool
    name and no argument performs it."""
    reads = view.tool_stems & _READ_ONLY_VERBS  # ('lookup' is a read, not in the verb lexicon)
    if not reads:
        return False
    if not (view.tool_verbs - _READ_ONLY_VERBS).issubset(terms):
        return False  # another act besides the read
    act = _forbidden_act(source)
    if act is None or act in view.tool_stems or view.performs(act):
        return False
    # 'Never export PII' and query_pii: a read takes a copy, one family with exporting
    return not any(same_action(act, v) for v in reads)


# ---------------------------------------------------------------------------------------------
def bind_measure(view: RequestView, check: NumericLimit) -> tuple[tuple[Leaf, float], ...]:
    """The argument(s) a numeric rule speaks of, chosen from the rule's words and the argument names."""
    if check.named:
        # the rule names the argument itself: that one (a number), or none at all
        path = check.named
        return tuple(
            (lf, float(v))
            for lf, v in view.numeric_leaves()
            if lf.path == path or lf.path.endswith("." + path)
        )
    words, noun, unit_family, money, sized = check._binding
    # The binding sees the rule's measure words only through argument names, so rules whose
    # measure words differ only in words no argument has share one binding per request.
    if not _QTY.isdisjoint(words):
        # 'Quantity must not exceed 500' and `qty`, 'max qty 50' and `quantity` (jred31)
        words = (*words, *_QTY)
    measure = view.key_stems.intersection(words)
    # `_named_over_money` reads two facts of the words beyond the argument names
    key = (measure, noun, unit_family, money, sized, check.quantity_words)
    memo = view.bind_memo
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _bind_measure(view, measure, check, money)
    return hit


# The nouns of a measure on a scale of its own: 'whose risk score is 7 or higher', 'applicants
# with a credit score below 600'. A bare number beside one is a point on that scale, never money,
# so the amount of the request is no candidate (it had been compared: a 599 credit score with a
# 1,000 loan amount passed 'below 600').
_SCALE_STEMS = frozenset(stem(w) for w in "score rating grade rank ranking band".split())


def _on_a_scale(check: NumericLimit) -> bool:
    return check.currency is None and bool(_SCALE_STEMS.intersection(check.measure))


# 'Max order size: 500,000', 'Trade size must not exceed 500,000': with no currency, the size of
# an order or a trade is how much of the instrument it moves, read from an argument named for
# its quantity (`quantity`, `qty`, `shares`, `units`, `size`); never from its notional or amount,
# which is money the rule gives no currency for (no such argument: the rule cannot be verified).
_SIZED_THINGS = frozenset(stem(w) for w in "order trade block position".split())
_TRADES = frozenset({stem("trade")})
_SIZE = stem("size")
_SIZE_WORDS = tuple(stem(w) for w in "quantity qty shares units lots volume size".split())
# the size of an order in money, which a bound with no unit might mean as well
_SIZE_IN_MONEY = frozenset(stem(w) for w in "notional amount value total".split())


def _sized_quantity(check: NumericLimit) -> tuple[str, ...]:
    """The argument words of an order's or a trade's size, when the rule bounds one with no unit."""
    if (
        check.currency is None
        and check.unit_family is None
        and not check.noun
        and (
            (_SIZE in check.measure and _SIZED_THINGS.intersection(check.measure))
            # 'Block trades are limited to 500,000 per ticket': a trade's bound with no unit is
            # its size (an order's is often its total in money: 'Orders must not exceed 10,000')
            or _TRADES.intersection(check.measure)
        )
    ):
        return _SIZE_WORDS
    return ()


# Money named per unit of a measure: a price word ending an argument's last segment
# ('day_rate', 'seat_price', 'monthly_rent'), or an amount word beside a period adjective
# ('hourly_rate', 'monthly_payment', 'daily_fee') or before 'per' ('price_per_kg',
# 'cost_per_day'). A word placing the measure after an event ('days_since_charge',
# 'days_after_payment') makes the money word that event, and the argument a duration.
_RATED_FAMILIES = frozenset({"time", "mass", "bytes", "length", "speed"})
_RATE_NOUNS = frozenset(
    "price prices cost costs fee fees rate rates wage wages salary allowance premium stipend "
    "tariff fare fares rent".split()
)
_RATE_MONEY = _RATE_NOUNS | frozenset(
    "pay payment payments charge charges amount installment instalment emi dues spend budget "
    "income earnings revenue".split()
)
_PERIOD_ADJECTIVES = frozenset(
    "hourly daily nightly weekly biweekly fortnightly monthly quarterly yearly annual "
    "annually".split()
)
_EVENT_WORDS = frozenset("since after before until till from past due overdue ago".split())


@lru_cache(maxsize=4096)
def _money_per_unit(path: str) -> bool:
    last = [w.lower() for w in words(path.rsplit(".", 1)[-1])]
    if not last or _EVENT_WORDS.intersection(last):
        return False
    if last[-1] in _RATE_NOUNS:
        return True
    if _PERIOD_ADJECTIVES.intersection(last) and _RATE_MONEY.intersection(last):
        return True
    return "per" in last and bool(_RATE_MONEY.intersection(last[: last.index("per")]))


def _bind_measure(
    view: RequestView, measure: frozenset[str], check: NumericLimit, money: bool
) -> tuple[tuple[Leaf, float], ...]:
    noun = stem(check.noun) if check.noun else None
    noun_syn = _NOUN_SYNONYMS.get(noun, frozenset({noun})) if noun else frozenset()
    scored: list[tuple[float, Leaf, float]] = []
    candidates: list[tuple[Leaf, float]] = view.numeric_leaves()
    if noun:
        candidates += [
            (lf, float(len(lf.value))) for lf in view.leaves if isinstance(lf.value, (list, tuple))
        ]
        candidates += [(lf, float(len(lf.value))) for lf in view.object_lists()]
    for leaf, value in candidates:
        keys = leaf.keys
        score = 0.0
        is_list = isinstance(leaf.value, (list, tuple))
        if check.unit_family == "percent":
            score += 3 if keys & _PERCENT_KEYS else 0
        if (
            check.unit_family in _RATED_FAMILIES
            and not (leaf.unit and leaf.unit[0] == check.unit_family)
            and _money_per_unit(leaf.path)
        ):
            # 'Lease term <= 36 months' and `monthly_rent`, 'max 1,000 kg' and `price_per_kg`,
            # 'max 40 hours' and `hourly_rate`: money charged per unit of the measure is never
            # the measure (its time or weight word had bound it, ahead of `lease_term`)
            continue
        elif check.unit_family and leaf.unit is None and _ambiguous_unit(leaf.path):
            # jred31: 'Film reels up to 2,000 ft' and `reel_length_m: 900`: metres, minutes or
            # months, never the rule's feet (compared as feet, 2,950 ft passed); no binding
            continue
        elif check.unit_family == "time":
            score += 3 if (leaf.unit and leaf.unit[0] == "time") or keys & _TIME_KEYS else 0
        elif check.unit_family == "bytes":
            score += 3 if (leaf.unit and leaf.unit[0] == "bytes") or keys & _BYTES_KEYS else 0
        elif check.unit_family == "mass":
            score += 3 if (leaf.unit and leaf.unit[0] == "mass") or keys & _MASS_KEYS else 0
        elif check.unit_family in ("length", "speed"):
            family_keys = _LENGTH_KEYS if check.unit_family == "length" else _SPEED_KEYS
            if not (leaf.unit and leaf.unit[0] == check.unit_family) and not keys & family_keys:
                continue  # a depth or a speed is never read from money or a count
            score += 3
        if noun:
            if not is_list and leaf.unit and not keys & noun_syn and not keys & measure:
                # 'Passwords: min 12 chars' and `max_age_days: 90`: a number in a unit (days,
                # kg, %, cents) named for none of the rule's words is a measure of that unit,
                # never a count of the noun (its 'max' had made it a count, and 90 passed the
                # floor for a 10-character password)
                continue
            if (
                not is_list
                and keys & noun_syn
                and not leaf.last_keys & noun_syn
                and not leaf.last_keys & _COUNT_KEYS
            ):
                # 'Max 10 tests per order' and `tests: [{"cpt": "80053"}, …]`: a number inside
                # one of the counted things is an attribute of it (a code, a price), never how
                # many there are; the list's length is
                continue
            if keys & noun_syn:
                score += 3
            elif keys & _COUNT_KEYS and not is_list:
                score += 2
            if is_list and not keys & noun_syn:
                continue
        if money and not is_list:
            if (leaf.last_keys & MONEY_KEYS or keys & MONEY_KEYS) and not (
                # jred31: 'Bonus over 1,000' and `bonus_count: 1`: a tally named for the money
                # is no sum of it (read as one, 3,000 USD of `amount_usd` passed)
                leaf.last_keys & _TALLY_KEYS and leaf.last_keys.isdisjoint(_SUM_KEYS)
            ):
                score += 3
        overlap = measure & keys
        score += len(overlap)
        if score < 2 and not (score >= 1 and overlap):
            continue
        if is_list and noun is None:
            continue
        if (
            noun
            and noun not in MONEY_KEYS
            and check.currency is None
            and leaf.last_keys & _PRICE_KEYS
            and not leaf.last_keys & _TALLY_KEYS
        ):
            # 'at most 10,000 shares', 'max 5 nights': a `limit_price` or a `nightly_rate` is
            # money, never the count of the noun. With a currency the noun is what the money
            # is for ('Max 500 USD credits' bounds `credit_amount`, never a count of `credits`)
            continue
        if keys & _ID_WORDS and not overlap and not (is_list and keys & noun_syn):
            # an id is no measure; a list of ids of the counted noun ('50 accounts' and
            # `user_ids`) is counted by its length
            continue
        extra = len(
            leaf.last_keys
            - measure
            - MONEY_KEYS
            - noun_syn
            # Fifteenth session: 'A batch may contain at most 500 records.' and both `records`
            # (2 listed) and `record_count: 900`: a count word is no other reading of the noun,
            # so both are judged and the worst wins (the list alone had approved 900 records)
            - (_COUNT_KEYS if noun else frozenset())
            - _PERCENT_KEYS
            - _TIME_KEYS
            - _BYTES_KEYS
        )
        scored.append((score - 0.1 * extra, leaf, value))
    if not scored:
        return ()
    named_near: tuple[tuple[Leaf, float], ...] = ()
    if money and check.currency is None and not check.sized:
        scored, named_near = _named_over_money(scored, check)
        if not scored:
            return ()
    elif check.unit_family in _UNIT_DECOY_FAMILIES and measure:
        named_near = _named_beside_a_unit(scored, view, measure)
    if check.unit_family == "percent":
        scored = _percent_of_the_subject(scored, measure)
    best = max(s for s, _, _ in scored)
    # Ties are all judged; the worst outcome wins (fail closed). Arguments that lost only by
    # extra words of their names naming another reading of the measure, all the chosen one's
    # words among them ('max_depth_m' beside 'depth_m'), are kept apart: the check does not
    # pass a request one of them would not pass (`near_measures`).
    bound = tuple((lf, v) for s, lf, v in scored if s >= best - 1e-9)
    if named_near:
        view.bind_memo[("near", id(bound))] = named_near
    elif len(scored) > len(bound):
        near = tuple(
            (lf, v)
            for s, lf, v in scored
            if best - 1e-9 > s >= best - 0.5
            and any(
                lf.last_keys > t.last_keys and lf.last_keys - t.last_keys <= _READING_WORDS
                for t, _ in bound
            )
        )
        if near:
            # kept by the identity of the bound tuple, itself kept in the memo for the request
            view.bind_memo[("near", id(bound))] = near
    return bound


# jred31: a bare bound (no currency, no unit, no counted noun) had taken the request's money by
# default, ahead of the argument the rule's words name: 'Group size must not exceed 8' compared
# `price_usd: 5` and passed `group_size: 12`; 'qty_units | max 50' compared `amount_usd: 10` and
# passed `qty_units: 80` (unsafe approvals, and false denials of the allowed sizes). Words that
# never measure money; `qty` is staff shorthand for 'quantity', either way round.
_NEVER_MONEY = frozenset(
    stem(w)
    for w in "count quantity qty headcount tonnage tonnes tons number num duration length "
    "weight height depth distance temperature speed age".split()
)
_QTY = frozenset({stem("quantity"), stem("qty")})
# things whose size is a sum of money ('Loan size must not exceed 50,000')
_SIZED_IN_MONEY = frozenset(
    stem(w)
    for w in "loan deal ticket transfer payment wire invoice refund credit grant award budget "
    "purchase transaction order trade position check cheque claim bet wager donation gift "
    "investment allocation notional premium policy contract".split()
)
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")


def _money_leaf(leaf: Leaf) -> bool:
    return not (leaf.keys.isdisjoint(MONEY_KEYS) and leaf.last_keys.isdisjoint(MONEY_KEYS))


# jred31: 'Overtime capped at 12 hours' with `overtime: 14` and `shift_hours: 8`: the unit chose
# the argument named for another thing (8 hours passed) over the one the rule names, which has
# no unit in its name. The named one is kept as a near measure: review when it would not pass.
_UNIT_DECOY_FAMILIES = frozenset({"time", "mass", "length", "bytes", "speed"})


def _named_beside_a_unit(
    scored: list[tuple[float, Leaf, float]], view: RequestView, measure: frozenset[str]
) -> tuple[tuple[Leaf, float], ...]:
    """Arguments named by the rule's measure words, with no unit in their names, when every
    argument the unit chose is named for none of them (`_UNIT_DECOY_FAMILIES`)."""
    best = max(s for s, _, _ in scored)
    top = [lf for s, lf, _ in scored if s >= best - 1e-9]
    if any(not lf.keys.isdisjoint(measure) for lf in top):
        return ()
    chosen = {lf.path for lf in top}
    return tuple(
        (lf, v)
        for lf, v in view.numeric_leaves()
        if lf.path not in chosen
        and lf.unit is None
        and not lf.last_keys.isdisjoint(measure)
        and lf.keys.isdisjoint(_ID_WORDS)
        and not _money_leaf(lf)
    )


def _ambiguous_unit(path: str) -> bool:
    """Whether an argument's name ends in a unit suffix that names more than one unit."""
    last = path.rsplit(".", 1)[-1].lower().split("_")
    return len(last) > 1 and last[-1] in AMBIGUOUS_ARG_UNITS


def _last_name(leaf: Leaf) -> str:
    return leaf.path.rsplit(".", 1)[-1].split("[", 1)[0].lower()


def _named_over_money(
    scored: list[tuple[float, Leaf, float]], check: NumericLimit
) -> tuple[list[tuple[float, Leaf, float]], tuple[tuple[Leaf, float], ...]]:
    """A bare bound's arguments when the money it took by default is named by none of the
    rule's words and another argument is (jred31): the scored arguments to keep, and the money
    ones kept apart as near measures (the check does not pass a request one of them would not
    pass).

    - an argument the rule names whole ('Group size …' and `group_size`, 'qty_units | max 50'),
      or by a quantity word ('Orders whose quantity exceeds 50' and `qty_units`), is what the
      bound compares; the money is not;
    - an argument named by some of the rule's words ('Pallets per truck' and `pallets`) is
      compared, and the money as well: either may be what the rule bounds (review if they
      disagree);
    - a bound on a quantity ('Headcount capped at 80') never compares money: with no argument
      named for it, the rule cannot be verified.
    """
    words = frozenset(check._binding[0])
    if words & _QTY:
        words |= _QTY
    best = max(s for s, _, _ in scored)
    top = [lf for s, lf, _ in scored if s >= best - 1e-9]
    if not all(_money_leaf(lf) and lf.keys.isdisjoint(words) for lf in top):
        return scored, ()
    named = [
        t
        for t in scored
        if not _money_leaf(t[1])
        and t[1].keys.isdisjoint(_ID_WORDS)
        and not t[1].last_keys.isdisjoint(words)
    ]
    money = tuple((lf, v) for _, lf, v in scored if _money_leaf(lf) and lf.keys.isdisjoint(words))
    written = check.identifiers
    named += [
        t
        for t in scored
        if written and not _money_leaf(t[1]) and t not in named and _last_name(t[1]) in written
    ]
    # named whole: as written ('qty_units'), by two or more words of the rule ('Group size …'
    # and `group_size`), or by every measure word of the rule ('Quantity must not exceed 500'
    # and `quantity`; 'Quantity discounts over 500' names the discount, with money near)
    never = check.quantity_words[0]
    whole = [
        t
        for t in named
        if _last_name(t[1]) in written
        or (t[1].last_keys <= words and len(t[1].last_keys) > 1)
        or (never and frozenset(check.measure) <= t[1].last_keys | _QTY)
    ]
    if whole:
        return whole, ()
    # named in part: by a word of a measure that is never money, or by two of the rule's words
    # ('Orders over 500' and `order_count` is not: the order's total is the default reading)
    # named in part: by a word of a measure that is never money, by two of the rule's words,
    # or by the rule's one thing when that is no sum of money ('Max pallets: 26' and `pallets`;
    # 'Orders over 500' and `order_count` or `orders` is not: the order's total is the default)
    measure = frozenset(check.measure)
    named = [
        t
        for t in named
        if never
        or len(t[1].last_keys & words) > 1
        or (measure <= t[1].last_keys and measure.isdisjoint(_SIZED_IN_MONEY))
    ]
    if named:
        return named, money
    if never:
        return [], ()
    return scored, ()


def _percent_of_the_subject(
    scored: list[tuple[float, Leaf, float]], measure: frozenset[str]
) -> list[tuple[float, Leaf, float]]:
    """'Discount cap 15%' beside `tax_rate: 8` and `discount: 25`, 'Price increase max 10%'
    beside `tax_pct` and `new_price`: a percentage named for none of the rule's words is another
    thing's share; when an argument is named for the rule's thing, that one is what the bound
    reads (judged as it is: a share, or review), never the other's percentage (read so, a 25%
    discount passed on the 8% tax rate)."""
    words_ = measure - _PERCENT_KEYS
    if not words_:
        return scored
    named = [t for t in scored if t[1].keys & words_]
    return named if named else scored


# Words that name another reading of the same measure ('max_depth_m', 'gross_weight_kg',
# 'total_amount'), not another thing ('original_amount', 'order_amount').
_READING_WORDS = frozenset(
    stem(w)
    for w in "max maximum min minimum peak gross total planned target final actual overall "
    "cumulative net requested projected estimated expected highest lowest top".split()
)


def near_measures(
    view: RequestView, bound: tuple[tuple[Leaf, float], ...]
) -> tuple[tuple[Leaf, float], ...]:
    """Arguments that scored just under the `bound` ones (what `bind_measure` answered), only
    by extra words of their names (see `_bind_measure`)."""
    return view.bind_memo.get(("near", id(bound)), ()) if bound else ()


_CURRENCY_WORDS_LOWER = frozenset(c.lower() for c in CURRENCY_CODES)
_TO_DATE = {
    "year": frozenset({"ytd"}),
    "month": frozenset({"mtd"}),
    "week": frozenset({"wtd"}),
}


_TODAY_KEYS = frozenset(stem(w) for w in ("today", "todays"))


def _stated_today(view: RequestView, leaf: Leaf) -> list[Leaf]:
    """Other numeric arguments of the same kind of quantity named for today's total so far
    ('credits_today_usd', 'refunded_today')."""
    return [
        lf
        for lf, _ in view.numeric_leaves()
        if lf.path != leaf.path
        and lf.last_keys & _TODAY_KEYS
        and not lf.last_keys & _TALLY_KEYS
        and lf.last_keys & (MONEY_KEYS | leaf.last_keys | _CURRENCY_WORDS_LOWER)
    ]


def _to_date_total(view: RequestView, leaf: Leaf, window: str) -> float | None:
    """The period's total so far when one argument states it ('ytd_…', '…_year_to_date'), else
    None; two such arguments, or one in another currency, are not guessed between."""
    marks = _TO_DATE.get(window, frozenset())
    found = [
        (lf, v)
        for lf, v in view.numeric_leaves()
        if lf.path != leaf.path
        and (lf.last_keys & marks or {stem(window), "date"} <= lf.last_keys and "to" in lf.path)
        # the same kind of quantity: money beside money ('ytd_matched_usd'), never a count
        and not lf.last_keys & _TALLY_KEYS
        and lf.last_keys & (MONEY_KEYS | leaf.last_keys | _CURRENCY_WORDS_LOWER)
    ]
    if len(found) != 1:
        return None
    lf, v = found[0]
    a, b = _currency_of(view, lf), _currency_of(view, leaf)
    if a and b and a.upper() != b.upper():
        return None
    return v


# The unit families a rule's bound converts between units of ('20 mph', '90 days', '5 GB').
_MEASURED_FAMILIES = frozenset({"bytes", "time", "mass", "length", "speed"})


def convert_value(
    view: RequestView, leaf: Leaf, value: float, check: NumericLimit
) -> tuple[float, str]:
    """The argument value in the rule's unit and currency; a message when they cannot be compared.

    Whether the two can be compared does not depend on the value: it is read once per request,
    argument and kind of bound (`_conversion`), not for each of a tenant's many money bounds that
    read the same amount; only the scaling is done per call."""
    sig = check.__dict__.get("_conversion_sig")
    if sig is None:
        # the fields `_conversion` reads (`named` and `noun` only for being set)
        sig = check.__dict__["_conversion_sig"] = (
            bool(check.named),
            check.currency_from_policy,
            check.unit_family,
            check.unit_factor,
            check.currency,
            bool(check.noun),
            check.counts_calls,
            check.currency_open,
        )
    key = ("conversion", leaf.path, leaf.unit, leaf.keys, sig)
    memo = view.bind_memo
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _conversion(view, leaf, check)
    before, after = hit
    if before:
        return value, before
    unit = leaf.unit
    if unit:
        if unit[0] == "minor":
            value *= unit[1]
        if check.unit_family in _MEASURED_FAMILIES and unit[0] == check.unit_family:
            value = value * unit[1] / check.unit_factor
    return value, after


def _conversion(view: RequestView, leaf: Leaf, check: NumericLimit) -> tuple[str, str]:
    """Why `leaf` cannot be compared with `check`'s bound, found before its value is scaled into
    the rule's unit (first) or after (second); '' for none. The scaling itself (minor units, a
    measured unit) is `convert_value`'s: nothing here depends on the value."""
    if leaf.unit and leaf.unit[0] == "scale":
        # 'notional_mm_usd': 75 stands for 75 million; the engine does not guess the scale
        return (
            f"{leaf.path} states its amount in a scale (thousands, millions): a human must compare",
            "",
        )
    unit_arg = _unit_argument(view, leaf)
    if unit_arg is not None and not _names_rule_unit(unit_arg.value, check):
        # `wind_speed: 10` beside `wind_unit: "m/s"`, `amount: 6` beside `amount_unit:
        # "thousands"`: another argument gives the number its unit or scale; read bare, 10 m/s
        # (22 mph) passed 'No crane lifts when wind > 20 mph'. The engine converts no unit
        # named in a value, so a human compares.
        return (
            f"{unit_arg.path} gives {leaf.path} a unit or scale ({unit_arg.value}): a human "
            "must compare",
            "",
        )
    if check.named and check.currency_from_policy and _named_in_other_unit(leaf):
        # 'validity_months: 12 max' in a policy whose amounts are in EUR: the policy's currency
        # is the amounts', not that of the argument the rule names (jparenarg)
        check = replace(check, currency=None, currency_from_policy=False)
    # (`leaf.unit` first in these tests: most arguments have no unit, and the answer is the same)
    if (
        leaf.unit
        and check.unit_family in _MEASURED_FAMILIES
        and leaf.unit[0] not in (check.unit_family, "minor")
    ):
        # 'wind_speed_ms' against '20 mph': the name's suffix is of another dimension (or the
        # same letters name another unit), so its number is not in any unit the rule knows
        return (
            f"{leaf.path} is named in a unit of another kind than the rule's: a human must compare",
            "",
        )
    if check.currency and leaf.unit and leaf.unit[0] not in ("minor", "scale"):
        # 'Payouts to new bank accounts, if over $500' bound to `bank_account_age_days`: a money
        # bound read against an argument named in days, hours, percent or bytes is not about
        # that argument (the amount may be a string the engine could not read); a human compares
        return (
            f"{leaf.path} is named in a unit of another kind than the rule's money bound: "
            "a human must compare",
            "",
        )
    # (the value is scaled here, in `convert_value`)
    if check.currency:
        currency = _currency_of(view, leaf)
        if currency and currency.upper() != check.currency:
            return (
                "",
                f"{leaf.path} is in {currency.upper()} but the rule is in {check.currency}: a human must compare",
            )
    elif (
        check.unit_family is None
        and not check.noun
        and not check.counts_calls
        and not (check.named and _named_in_other_unit(leaf))
    ):
        # 'Transfers must not exceed 2,000' names no currency: against an amount in a currency it
        # is ambiguous (a tenant may run several), so a human compares.
        currency = _currency_of(view, leaf)
        if currency:
            return (
                "",
                f"the rule names no currency and {leaf.path} is in {str(currency).upper()}: a human must compare",
            )
        if check.currency_open:
            return (
                "",
                f"the policy names several currencies and neither the rule nor {leaf.path} says "
                "which: a human must compare",
            )
    return "", ""


# words of an argument's name that say it counts or measures something other than money
# ('validity_months', 'pax_count', 'max_retries', 'rest_hours_before')
_OTHER_UNIT_KEYS = frozenset(
    stem(w)
    for w in "count number num qty quantity pax retries attempts entries nights seats guests "
    "people persons days hours months years weeks minutes seconds mins hrs percent pct".split()
)


def _named_in_other_unit(leaf: Leaf) -> bool:
    """The argument a rule names ('validity_months: 12 max') is named in a unit other than money:
    a bound with no currency beside a request's currency is not ambiguous for it (jparenarg)."""
    if leaf.unit is not None and leaf.unit[0] != "minor":
        return True
    return bool(leaf.keys & _OTHER_UNIT_KEYS)


def _scaled_like(leaf: Leaf, value: float, check: NumericLimit) -> float:
    """`value`, in `leaf`'s unit, scaled into the rule's as `convert_value` scales the
    argument's own value (minor units, a measured unit); currency is not converted there."""
    if leaf.unit and leaf.unit[0] == "minor":
        value *= leaf.unit[1]
    if leaf.unit and check.unit_family in _MEASURED_FAMILIES and leaf.unit[0] == check.unit_family:
        value = value * leaf.unit[1] / check.unit_factor
    return value


# Words of an argument's name that say its values are held out of the act ('exclude_lists',
# 'suppression_lists', 'blocked_domains', 'skip_segments').
_EXCLUSION_KEYS = frozenset(
    stem(w) for w in ("exclude", "excluded", "exclusion", "suppress", "suppression", "omit", "skip")
)
# Words of an argument's name that say it counts what came before the request
# ('credits_last_30_days', 'prior_refunds', 'refills_so_far', 'previous_resets').
_EARLIER_KEYS = frozenset(
    stem(w)
    for w in (
        "last",
        "past",
        "prior",
        "previous",
        "already",
        "earlier",
        "recent",
        "so",
        "ytd",
        "mtd",
    )
)


# An argument naming the unit or scale of another ('wind_unit', 'amount_unit', 'uom', 'scale').
_UNIT_ARG_WORDS = frozenset({"unit", "uom", "scal", "denomin", "multiplier"})


def _unit_argument(view: RequestView, leaf: Leaf) -> Leaf | None:
    """A sibling argument that names `leaf`'s unit or scale: bare (`unit`, `uom`) or sharing a
    word of `leaf`'s name (`wind_unit` beside `wind_speed`). Answered once per request and path."""
    key = ("unit_arg", leaf.path)
    memo = view.bind_memo
    if key in memo:
        return memo[key]
    found = memo[key] = _find_unit_argument(view, leaf)
    return found


def _find_unit_argument(view: RequestView, leaf: Leaf) -> Leaf | None:
    parent = leaf.path.rpartition(".")[0]
    for lf in view.leaves:
        if lf is leaf or lf.path.rpartition(".")[0] != parent:
            continue
        if not lf.last_keys & _UNIT_ARG_WORDS or lf.value in (None, "", [], {}):
            continue
        rest = lf.last_keys - _UNIT_ARG_WORDS
        if not rest or rest & leaf.last_keys:
            return lf
    return None


def _names_rule_unit(value: Any, check: NumericLimit) -> bool:
    """Whether a unit argument's value is the rule's own unit or currency ('mph', 'EUR')."""
    if not isinstance(value, str):
        return False
    v = value.strip().lower()
    names = {str(check.currency or "").lower()}
    name = _UNIT_NAMES.get((check.unit_family, check.unit_factor))
    if name:
        names.add(name.split()[0].lower())
    return v in names - {""}


def _currency_of(view: RequestView, leaf: Leaf) -> str | None:
    # It depends on the leaf's path alone: asked by every money rule, answered once per request.
    memo = view.currency_memo
    path = leaf.path
    if path in memo:
        return memo[path]
    found = memo[path] = _find_currency(view, leaf)
    return found


def _find_currency(view: RequestView, leaf: Leaf) -> str | None:
    parent = leaf.path.rsplit(".", 1)[0] if "." in leaf.path else ""
    found = None
    for lf in view.leaves:
        if not isinstance(lf.value, str):
            continue
        if not lf.last_keys.isdisjoint(_AMOUNT_CURRENCY_KEYS) or (
            # 'asset': 'BTC' says what an amount is counted in, as a currency does
            not lf.last_keys.isdisjoint(_ASSET_KEYS) and lf.value.upper() in CURRENCY_CODES
        ):
            lp = lf.path.rsplit(".", 1)[0] if "." in lf.path else ""
            if lp == parent:
                return lf.value
            if found is None and (parent.startswith(lp) or lp == ""):
                found = lf.value
    return found


def _best_by_words(
    numeric: list[tuple[Leaf, float]],
    wanted: tuple[str, ...],
    exclude: Leaf | None,
    money_fallback: bool = False,
) -> tuple[Leaf, float] | None:
    best: tuple[float, Leaf, float] | None = None
    want = set(wanted)
    for leaf, value in numeric:
        if exclude is not None and leaf.path == exclude.path:
            continue
        overlap = len(want & leaf.keys)
        if overlap == 0 and not (money_fallback and leaf.keys & MONEY_KEYS):
            continue
        score = overlap - 0.5 * len(leaf.keys - want) + (0.25 if leaf.keys & MONEY_KEYS else 0)
        if best is None or score > best[0]:
            best = (score, leaf, value)
    return (best[1], best[2]) if best else None


def _synonyms(word: str) -> frozenset[str]:
    if word in ("number", "id", "no", "ref", "referenc", "identifier"):
        return _ID_WORDS
    if word in ("link", "url"):
        return frozenset({"link", "url", "uri", "href"})
    return _NOUN_SYNONYMS.get(word, frozenset({word}))


_TARGET_KEYS = frozenset(stem(w) for w in "destination dest recipient target to".split())
_MAIL_KEYS = frozenset(stem(w) for w in "email emails mail mailbox inbox address cc bcc".split())


_PERSON_TARGET_KEYS = frozenset(stem(w) for w in "recipient to".split())
# An address written another way ('bob at gmail dot com', a full-width or encoded '@', 'mailto:')
# or a mail service or inbox named ('gmail', 'personal inbox'): it may be an email account.
_MAIL_SIGNS = re.compile(
    r"[@\uff20\ufe6b]|%40|\(at\)|\[at\]|\bat\b.*\bdot\b|mail|inbox|\b(?:yahoo|outlook|"
    r"hotmail|live|icloud|proton|aol|gmx|yandex|personal)\b",
    re.I,
)


_AT = re.compile(r"[@\uff20\ufe6b]|%40|\(at\)|\[at\]", re.I)


def _may_be_mail(value: str) -> bool:
    return bool(_MAIL_SIGNS.search(value))


def _not_an_address(view: RequestView) -> Outcome | None:
    """'Never export to personal email accounts' and `destination: "snowflake"`: the request
    names where it goes, and that is no email address. Only when the argument naming the target
    holds a plain value, no value anywhere holds an '@' and no argument is named for mail."""
    targets = [lf for lf in view.leaves if lf.last_keys & _TARGET_KEYS]
    if not targets or any(lf.last_keys & _PERSON_TARGET_KEYS for lf in targets):
        return None  # a recipient is a person, whom mail may reach whatever the value says
    for lf in view.leaves:
        if lf.keys & _MAIL_KEYS:
            return None
        for v in scalars(lf.value):
            if not isinstance(v, (str, int, float)) or (isinstance(v, str) and _AT.search(v)):
                return None
    if any(isinstance(v, str) and _may_be_mail(v) for lf in targets for v in scalars(lf.value)):
        return None
    if not all(isinstance(v, str) and v.strip() for lf in targets for v in scalars(lf.value)):
        return None
    shown = ", ".join(f"{lf.path} is {lf.value!r}" for lf in targets)
    return Outcome(SATISFIED, f"{shown}, not an email address", tuple(lf.path for lf in targets))


def _in_location(value: str, listed: tuple[str, ...]) -> bool | None:
    """Whether `value` is one of the listed locations ('s3://acme-exports' or a key below it) or
    at a listed host ('sftp.partner-hub.net' and 'sftp://sftp.partner-hub.net/in'). A value that
    merely contains one ('s3://acme-exports-old', 's3://evil/acme-exports') is for a human."""
    v = value.strip().lower().rstrip("/")
    close = False
    for x in listed:
        if "://" in x:
            if v == x or v.startswith(x + "/"):
                return True
        else:
            host = _host_of(v)
            if host is not None and (host == x or host.endswith("." + x)):
                return True
        close = close or x in v
    return None if close else False


def _host_of(value: str) -> str | None:
    v = value.strip().lower()
    if "@" in v:
        return v.rsplit("@", 1)[1].strip(">").strip()
    v = v.split("://", 1)[-1]
    host = v.split("/", 1)[0].split(":", 1)[0]
    return host if "." in host else None


@lru_cache(maxsize=65536)
def _shape(value: str) -> str:
    s = re.sub(r"[a-z]+", "a", value.lower())
    return re.sub(r"\d+", "9", s)


def _case_shape(value: str) -> str:
    """How a value is written: 'SPY' and 'AAPL' -> 'A', 'MMF-2' -> 'A-9', 'gold' -> 'a'."""
    s = re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", value.strip()))
    return re.sub(r"\d+", "9", s)


def _contains_token(haystack: str, needle: str) -> bool:
    import re

    return (
        re.search(r"(?<![a-z0-9])" + re.escape(needle.lower()) + r"(?![a-z0-9])", haystack.lower())
        is not None
    )


_RANK = {
    NOT_APPLICABLE: 0,
    UNBOUND: 0,
    PERMITTED: 1,
    SATISFIED: 1,
    UNKNOWN: 2,
    REVIEW: 3,
    VIOLATED: 4,
}


def _rank(status: str) -> int:
    return _RANK[status]


def _country_like(member: str) -> bool:
    """A country name, or a two-letter ISO code even when the built-in table lacks it ('KY')."""
    m = member.strip()
    return bool(country_code(m)) or bool(re.fullmatch(r"[A-Z]{2}", m))


_NOT_ALNUM = re.compile(r"[^A-Z0-9]")
_ID_KEYS = frozenset({"id", "ids", "code", "number", "num", "no", "ref", "reference"})


def _id_in_members(value: str, members: tuple[str, ...]) -> bool | None:
    """Membership of an identifier in a list of identifiers of its shape: True when listed; None
    when close to a listed one (written with other separators, one inside the other, or one
    character from it: a slip of the pen or a suffixed variant a human should look at); False
    otherwise. Two identifiers of one shape with other digits name two things, so the near-listed
    test of names (`vocabulary.near`), for which a shared prefix ('S-') is closeness, is not used.
    (The glossary checks and the gates of gates.py both read identifiers through it.)"""
    v = _NOT_ALNUM.sub("", value.upper())
    if not v:
        return None
    for m in members:
        mm = _NOT_ALNUM.sub("", m.upper())
        if mm and (v == mm or v in mm or mm in v or _one_edit_apart(v, mm)):
            return True if v == mm else None
    return False


def _slip_of(value: str, listed: str) -> bool:
    """Whether `value` is one edit from `listed` other than one digit put for another: 'C-55013'
    and 'C-55012' are two identifiers of one series, 'ledger-writr' a slip for 'ledger-writer'."""
    if value == listed or not _one_edit_apart(value, listed):
        return False
    if len(value) == len(listed):
        diff = [i for i in range(len(value)) if value[i] != listed[i]]
        if len(diff) == 1 and value[diff[0]].isdigit() and listed[diff[0]].isdigit():
            return False
    return True


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether `a` and `b` are one substitution, insertion, deletion or swap apart."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


# a code written with digits and no space ('CUS-55102', 'APP-2024-118842', 'ln_7730215')
_ID_SHAPED = re.compile(r"(?=[^\s,]*\d)[a-z0-9][a-z0-9_\-./:]*")


_IBAN_SHAPED = re.compile(r"(?P<cc>[a-z]{2})\d{2}[a-z0-9]{11,30}")
_REGION_SHAPED = re.compile(r"(?P<cc>[a-z]{2})-[a-z0-9]{1,3}")


def _iban_valid(iban: str) -> bool:
    """The ISO 13616 check: the IBAN, its first four characters moved to the end, mod 97 is 1."""
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _place_in_code(v: str) -> tuple[str, bool] | None:
    """The country an IBAN or an ISO 3166-2 region code names, and whether that is sure (an IBAN
    whose check digits hold); None for any other value."""
    compact = v.replace(" ", "")
    m = _IBAN_SHAPED.fullmatch(compact)
    if m and country_code(m.group("cc").upper()):
        return m.group("cc").upper(), _iban_valid(compact)
    m = _REGION_SHAPED.fullmatch(v)
    if m and country_code(m.group("cc").upper()):
        return m.group("cc").upper(), False
    return None


_CONSUMER_MAIL = frozenset(CONSUMER_MAIL_DOMAINS)  # looked up per value, not scanned


def _consumer_mail_members(members: tuple[str, ...]) -> bool:
    """The glossary's members are all consumer mail providers (the built-in vocabulary's)."""
    return bool(members) and all(m.strip().lower().lstrip("@") in _CONSUMER_MAIL for m in members)


def _in_glossary(value: str, members: tuple[str, ...]) -> bool | None:
    """Membership of a glossary category: True, False, or None when the value is only close to it."""
    v = value.strip().lower()
    host = _host_of(v) if "@" in v or "://" in v else None
    for m in members:
        mm = m.strip().lower().lstrip("@")
        if v == mm or (host and (host == mm or host.endswith("." + mm))):
            return True
    if host and host in _CONSUMER_MAIL and _consumer_mail_members(members):
        # 'personal email accounts' = gmail.com, yahoo.com, …: the tenant wrote out some
        # consumer mail providers; another one ('proton.me') belongs to the category without being
        # listed, so a human decides (holdout_56's sealed first run had approved a manifest sent
        # to a proton.me address)
        return None
    # 'Cuba' against a glossary of ISO codes (KP, IR, CU …), or 'CU' against country names: the
    # built-in country vocabulary says whether they are the same place
    code = country_code(value)
    if code and all(_country_like(m) for m in members):
        return any((country_code(m) or m.strip().upper()) == code for m in members)
    place = _place_in_code(v) if members and all(_country_like(m) for m in members) else None
    if place is not None:
        # jred27: an IBAN ('IR82 0540 1051 …') is of its first two letters' country, and so is a
        # region code ('CU-03'); the identifier rule below had made them no place at all
        held, sure = place
        if held in {(country_code(m) or m.strip().upper()) for m in members}:
            return True if sure else None
        if sure:
            return False
    if not code and _ID_SHAPED.fullmatch(v) and members and all(_country_like(m) for m in members):
        # 'applicant_id: CUS-55102' against sanctioned countries (IR, KP, CU …): an identifier
        # is no place, however its letters begin (holdout_52's first run: close to 'CU', every
        # loan of a US resident went to a human)
        return False
    if members and all(any(ch.isdigit() for ch in m) for m in members):
        # The members are identifiers ('CAR-1001', 'S-20417'). An identifier is listed only when
        # equal; one character off, or one inside the other, is close (a human decides); two
        # identifiers of one shape with other digits name two things (gates.py compares them the
        # same way). A name or a code of another kind is not listed (`ValueList` asks about a
        # name held by an id field).
        if not any(ch.isdigit() for ch in value):
            return False
        return _id_in_members(value, members)
    if near(host or v, members):
        return None  # close to the category without being listed: a human decides
    return False


_UNIT_NAMES: dict[tuple[str | None, float], str] = {
    ("time", 0.001): "ms",
    ("time", 1.0): "seconds",
    ("time", 60.0): "minutes",
    ("time", 3600.0): "hours",
    ("time", 86400.0): "days",
    ("time", 604800.0): "weeks",
    ("time", 2592000.0): "months (of 30 days)",
    ("time", 31536000.0): "years (of 365 days)",
    ("mass", 1.0): "kg",
    ("mass", 1e-3): "g",
    ("mass", 1e-6): "mg",
    ("mass", 1e-9): "mcg",
    ("mass", 0.45359237): "lb",
    ("mass", 1e3): "tonnes",
    ("bytes", 1.0): "bytes",
    ("bytes", 1e3): "KB",
    ("bytes", 1e6): "MB",
    ("bytes", 1e9): "GB",
    ("bytes", 1e12): "TB",
    ("percent", 1.0): "%",
    ("ratio", 1.0): "x",
    ("length", 1.0): "m",
    ("length", 0.01): "cm",
    ("length", 1000.0): "km",
    ("length", 0.3048): "ft",
    ("speed", 1.0): "m/s",
    ("speed", 0.44704): "mph",
    ("speed", 1 / 3.6): "km/h",
    ("speed", 0.514444): "knots",
}


def _bound_words(check: NumericLimit) -> str:
    """'10,000 USD', '12 hours', '30 kg': the threshold in the rule's own unit."""
    bound = _fmt(check.threshold) + (f" {check.currency}" if check.currency else "")
    if check.currency_from_policy:
        bound += " (the policy's currency)"
    unit = _UNIT_NAMES.get((check.unit_family, check.unit_factor))
    if unit and not check.currency:
        bound = f"{bound}{unit}" if unit in ("%", "x") else f"{bound} {unit}"
    return bound


def _measure_words(check: NumericLimit) -> str:
    if check.named:
        return f"`{check.named}`"  # the argument the rule names
    words_ = surface_words(check.source, tuple(m for m in check.measure if m not in check.terms))
    if check.noun == "age":
        return "the age"
    if check.noun and check.currency:
        return f"the amount of {check.noun}"  # 'Max 500 USD credits': money, not a count
    if check.noun:
        return f"the number of {check.noun}"
    if check.unit_family == "mass":
        return "the weight"
    if check.unit_family == "percent":
        return f"the percentage{(' of ' + words_) if words_ else ''}"
    if check.unit_family == "time":
        return f"the duration{(' of ' + words_) if words_ else ''}"
    if check.unit_family == "ratio":
        return f"the multiple{(' of ' + words_) if words_ else ''}"
    if check.unit_family == "bytes":
        return f"the size{(' of ' + words_) if words_ else ''}"
    if check.unit_family == "length":
        return f"the length{(' of ' + words_) if words_ else ''}"
    if check.unit_family == "speed":
        return f"the speed{(' of ' + words_) if words_ else ''}"
    if not words_ and _on_a_scale(check):
        # 'whose screening risk score is 7 or higher': the measure's own words up to its noun
        ms = list(check.measure)
        last = max(i for i, m in enumerate(ms) if m in _SCALE_STEMS)
        first = last
        while first > 0 and ms[first - 1] not in check.terms[:1]:
            first -= 1
        return "the " + surface_words(check.source, tuple(ms[max(first, 1) : last + 1]))
    if check.sized:
        return "the quantity (order or trade size, no currency)"
    return words_ or "the amount"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"


__all__ = [
    "ActionRule",
    "ArgumentComparison",
    "Check",
    "FirstTimeCounterparty",
    "NumericLimit",
    "Outcome",
    "RequiredArgument",
    "RequiredFlag",
    "Unless",
    "ValueList",
    "When",
    "applicability",
    "MONEY_SPECIFIC",
]


# ---------------------------------------------------------------------------------------------
# Conditions: 'unless the balance is zero', 'only if the identity check passed'.
_ON_WORDS = frozenset(
    "true yes y on 1 enabled enable active required enforced encrypted signed set".split()
)
_OFF_WORDS = frozenset(
    "false no n off 0 disabled disable inactive none optional unencrypted unsigned unset".split()
)


# Values that state an outcome of something done (a check, a verification, a signature): the
# only values that satisfy a rule asking for that state, or break it.
_GOOD_OUTCOMES = frozenset(
    "true yes passed pass cleared clear complete completed done approved verified confirmed "
    "signed valid success successful succeeded ok satisfactory accepted".split()
)
_BAD_OUTCOMES = frozenset(
    "false no failed fail failure rejected declined denied pending in_progress incomplete "
    "expired revoked withdrawn not_started started submitted requested draft held on_hold "
    "flagged error open unverified unconfirmed unsigned invalid cancelled canceled none "
    "not_done not_completed not_passed awaiting waiting queued "
    # a record that is gone ('zendesk_ticket_status: deleted' beside the ticket)
    "deleted voided void".split()
)


_PLACEHOLDERS = frozenset(
    "n/a na n.a. none null nil tbd tba tbc unknown - -- --- ? ?? todo pending x xx xxx xxxx "
    "0 000 0000 not_applicable not_available not_provided missing placeholder dummy".split()
)


def placeholder(value: Any) -> bool:
    """Whether a string stands in for a value instead of giving one ('N/A', 'TBD', 'none')."""
    if not isinstance(value, str):
        return False
    v = re.sub(r"[\s_]+", "_", value.strip().lower())
    if v and not re.search(r"[^\W_]", v):
        return True  # '.', '...', '#', '/': punctuation only, no value (a blank is the caller's)
    return v in _PLACEHOLDERS or v.strip("_") in _PLACEHOLDERS or bool(re.fullmatch(r"0{2,}", v))


# First words of a value that says a reference is not there yet ('none yet', 'to follow', 'not
# done', 'requested from Legal', 'n/a - verbal agreement').
_NOT_YET = frozenset(
    "no not none n/a na nil to will awaiting waiting pending requested tbd tbc tba skipped "
    "waived bypassed failed missing unknown later".split()
)


def no_reference(value: Any, keys: frozenset[str] = frozenset()) -> bool:
    """Whether a value given for an identifier (an argument named ref, id, number …, `keys`)
    says instead that there is none: a stand-in ('N/A'), a bad or unfinished outcome
    ('failed', 'skipped', 'waived'), words opening with one ('none yet', 'to follow', 'not
    done'), or plain lower-case words with no digit ('verbal ok'), which name no record."""
    if isinstance(value, (list, tuple)):
        # an empty list is missing (the caller's to judge); one holding only blanks says none
        return bool(value) and (
            not any(truthy(v) for v in value) or any(no_reference(v, keys) for v in value)
        )
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0  # ticket 0: no record is numbered zero
    if not isinstance(value, str):
        return False
    if placeholder(value) or outcome_stated(value) is False:
        return True
    if re.search(r"\d", value) and not re.search(r"[1-9]", value) and len(value) <= 12:
        return True  # 'ZD-0', 'PO-0000': a reference whose number is all zeros is a stand-in
    if re.fullmatch(r"[A-Za-z]{1,6}\s*[-_#:/]\s*", value):
        return True  # 'ZD-', 'PO#': the system's prefix with no number after it
    if keys and stem(value.strip().lower()) in keys and " " not in value.strip():
        return True  # `zendesk_ticket: "ticket"`: the argument's own name, not a record
    parts = [w for w in re.split(r"[\s,;:()]+", value.strip().lower()) if w and w != "-"]
    if parts and parts[0].strip(".") in _NOT_YET and (len(parts) > 1 or keys & _ID_WORDS):
        return True  # 'to follow', or 'skipped' given for a reference
    if len(parts) < 2:
        return False
    if keys & _ID_WORDS and not re.search(r"\d", value) and value == value.lower():
        return True  # 'verbal agreement': words, not a record's identifier
    return False


def _doubted(view: RequestView, leaf: Leaf) -> Outcome | None:
    """A review when another argument named with the given reference's whole name states that
    it is missing or bad (`invoice_ref_status: "missing"` beside `invoice_ref`), else None."""
    for lf in view.leaves:
        if lf is leaf or not leaf.last_keys or not leaf.last_keys < lf.last_keys:
            continue
        if no_reference(lf.value) or outcome_stated(lf.value) is False:
            return Outcome(
                UNKNOWN, f"{lf.path} = {lf.value!r} says {leaf.path} may not hold", (lf.path,)
            )
    return None


def outcome_stated(value: Any) -> bool | None:
    """True when `value` states a good outcome ('passed', true), False a bad or unfinished one
    ('failed', 'pending', false), None when it states none (an id, a code, a name, a number)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = re.sub(r"[\s\-]+", "_", value.strip().lower())
        if v in _GOOD_OUTCOMES:
            return True
        if v in _BAD_OUTCOMES:
            return False
    return None


# Kinds of an act on two sides of one line, as stems of a yes/no argument's name
# ('is_international', 'temporary', 'automated'): ValueList._kind_flag_against.
_OPPOSED_KINDS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(stem(w) for w in a.split()), frozenset(stem(w) for w in b.split()))
    for a, b in (
        ("domestic local", "international intl foreign crossborder cross overseas abroad"),
        ("permanent perm indefinite lifetime", "temporary temp timed"),
        ("manual manually", "automated automatic auto"),
        ("partial", "full complete"),
        ("recurring recurrent", "oneoff onetime single"),
        ("internal", "external"),
        ("credit", "debit"),
        ("inbound incoming", "outbound outgoing"),
    )
)


def _flag_on(value: Any) -> bool | None:
    """Whether a flag argument is on: booleans and plain words; None for any other word."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        v = value.strip().lower()
        if not v or v in _OFF_WORDS:
            return False
        if v in _ON_WORDS:
            return True
        return None
    return None  # a list or an object is not a switch: a human decides


_STATE_KEYS = frozenset(stem(w) for w in "state status stage standing flag condition".split())
_YES = frozenset({"true", "yes", "y", "1", "on"})
_NO = frozenset({"false", "no", "n", "0", "off"})


# The closed class of words of a state a record is in (compiler._STATE_WORDS), as stems: a
# 'while / once …' condition reads only these in a state argument.
_STATE_STEMS = frozenset(
    stem(w)
    for w in """active inactive open closed pending suspended expired cancelled canceled executed
    overdue delinquent live running enabled disabled resolved completed terminated draft
    published withdrawn revoked lapsed dormant not none""".split()
)
_WHILE_MARKERS = frozenset({"while", "whilst", "when", "whenever", "if", "once"})


def _state_word(value: str) -> bool:
    """Whether every word of `value` is a word of the closed class of states."""
    tokens = {stem(t) for t in normalise_value(value).split()}
    return bool(tokens) and tokens <= _STATE_STEMS


def _state_holds(value: Any, state: str) -> bool | None:
    """Whether a flag or a state field shows `state` ('opted_out': true, 'account_state':
    'suspended'); None when the value cannot say."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = value.strip().lower()
        if v in _YES:
            return True
        if v in _NO:
            return False
        if state:
            # 'on_probation', 'Suspended': the state's word among the value's words holds it
            tokens = {stem(t) for t in normalise_value(v).split()}
            return stem(state.split()[0]) in tokens or normalise_value(v) == normalise_value(state)
    return None


_STATE_FILLER = frozenset(stem(w) for w in "on in under is status state currently now".split())


def _one_of_states(leaf: Leaf, states: tuple[str, ...]) -> bool | None:
    """Whether a state argument or a flag shows one of `states` ('blocked', 'unpaid leave'):
    every word of a state among the value's words, whatever its case or separators; a word close
    to a state's without being it ('suspension', 'delinquency_review') or a value that is no
    state word (a yes/no on a status, a number) cannot say: None."""
    wanted = [
        frozenset(stem(w) for w in words(x) if w not in ("in", "on", "under")) for x in states
    ]
    value = leaf.value
    if isinstance(value, bool):
        # `is_blocked: true` shows that state; off, it rules out only the state it names
        named = [w for w in wanted if w and w <= leaf.last_keys]
        if not named:
            return None
        if value:
            return True
        return False if len(named) == len(wanted) else None
    if not isinstance(value, str) or not value.strip():
        return None
    v = value.strip().lower()
    if v in _YES or v in _NO or not re.search(r"[a-z]", v):
        return None  # a yes/no or a code ('3') on a status says nothing of which state
    tokens = {stem(t) for t in normalise_value(v).split()}
    if not tokens:
        return None
    if any(w and w <= tokens for w in wanted):
        # 'Suspended', 'unpaid_leave': the state's words and nothing else (but connectors); a
        # value that adds a word ('pre_suspended', 'not_blocked', 'blocked_until_review') may be
        # the state or not: a human decides
        extra = tokens - frozenset().union(*wanted) - _STATE_FILLER
        return True if not extra else None
    if any(
        t != x
        and len(t) >= 4
        and len(x) >= 4
        and (t[:5] == x[:5] or t.startswith(x) or x.startswith(t))
        for t in tokens
        for w in wanted
        for x in w
    ):
        return None
    return False


# Words a flag's name adds to the state it is named for: `opted_out`, `is_blocked`, `has_lapsed`.
_FLAG_PARTICLES = frozenset({"out", "in", "off", "up", "is", "has", "flag"})
# Words of a flag's name around what it flags ('is_defective', 'has_damage').
_ALL_PASSED = frozenset({"pass", "passed", "ok", "clear", "clean", "green"})
_FLAG_FILLER = frozenset(stem(w) for w in ("is", "has", "flag", "flagged"))
_NEGATING = frozenset({"not", "non", "no", "never", "without"})
# States that undo a check once passed ('kyc_expired', 'review: failed').
_CONTRARY_STATES = frozenset(
    stem(w)
    for w in "expired failed failing revoked rejected suspended lapsed invalid invalidated "
    "stale outdated pending".split()
)
# The words of an argument's name that say it holds the request's own kind ('reason_code',
# 'account_type', 'category'), beside the kind's and the subject's words.
_KIND_DIMENSION = frozenset(
    stem(w)
    for w in (
        "type kind category class classification reason code status tag tags label labels "
        "segment tier purpose mode variant flag flags group nature cause is"
    ).split()
)
_PASS_STEMS = frozenset(
    stem(w) for w in "verified passed checked confirmed completed succeeded".split()
)


_NEGATION_KEYS = frozenset({"not", "no", "non", "never"})
_FLAG_FILLER_KEYS = frozenset({"is", "has", "flag", "was", "been", "ha"})


@dataclass(frozen=True)
class Unless(Check):
    """A check that does not hold when a stated condition on an argument holds.

    'Accounts may not be closed unless the balance is zero': the prohibition (`base`) applies
    unless `balance` is zero. The condition binds to the argument whose name shares the most of
    `bind_words`; when no argument binds, or the base check asks for review, a human decides.
    """

    base: Check | None = None
    marker: str = "unless"
    bind_words: tuple[str, ...] = ()  # stems naming the argument the condition reads
    test: str = "present"  # present | zero | passed | equals
    value: str = ""  # for 'equals'
    phrase: str = ""  # the condition as written, for readings
    values: tuple[str, ...] = ()  # for 'in': 'except the funds MMF1 and MMF2'
    # for 'binding': '… unless the customer asked in writing (written_request = true)'
    condition: Check | None = None
    kind: str = field(default="unless", init=False)

    def describe(self) -> dict[str, Any]:
        d = self.base.describe() if self.base else super().describe()
        d.update(
            condition={"marker": self.marker, "test": self.test, "words": list(self.bind_words)}
        )
        return d

    def _flag_of_another(self, leaf: Leaf, named: set[str]) -> bool:
        """Whether a flag the 'passed' condition binds to says something else than the
        condition: its name turns the pass word around (`customer_unverified`,
        `customer_not_verified`) or names another thing that passed (`customer_verified_email`:
        the email was verified, not the customer). Read as the condition, each had approved a
        refund 'unless the customer is verified' (red team jred26): a human decides."""
        if not self.value:
            return False
        passed = stem(self.value)
        keys = leaf.last_keys
        if keys & _NEGATION_KEYS:
            return True
        if any(
            k != passed and k.endswith(passed) and k.startswith(("un", "non", "not", "in", "dis"))
            for k in keys
        ):
            return True
        return passed in keys and bool(keys - named - {passed} - _FLAG_FILLER_KEYS)

    def reading(self) -> str:
        base = self.base.reading() if self.base else "Deny"
        if self.test == "kind":
            return (
                f"{base}, except {self.phrase} (when a value or a flag of the request spells "
                f"{' or '.join(repr(v) for v in self.values)}; when none shows it, review)"
            )
        if self.test == "in":
            what = surface_words(self.source, self.bind_words)
            what = f"`{what}`" if what else "an argument"
            return f"{base}, except when {what} is {' or '.join(self.values)}"
        if self.test == "state" and self.marker.startswith(("except", "unless")):
            return (
                f"{base}, {self.marker} {self.phrase} (read from a flag or a state argument "
                "named for it; when none is sent, review)"
            )
        if self.test == "not_state" and self.marker in (
            "while",
            "whilst",
            "when",
            "whenever",
            "if",
            "once",
        ):
            return (
                f"{base}, only while the {self.phrase} (read from a flag or a state argument "
                "named for it; when none is sent, review)"
            )
        if self.test in ("state", "not_state"):
            who = "their" if self.marker == "whose" else "they"
            phrase = re.sub(r"^has\b", "have", self.phrase) if who == "they" else self.phrase
            return (
                f"{base}, when {who} {phrase} (read from a flag or a state argument named "
                "for it; when none is sent, review)"
            )
        if self.test == "party_kind":
            return (
                f"{base}, only {self.marker} the {self.phrase} (read from a yes/no argument of "
                f"that party named {' or '.join(repr(v) for v in self.values)}; when none is "
                "sent, review)"
            )
        if self.test == "binding" and isinstance(self.condition, Binding):
            c = self.condition
            return f"{base}, {self.marker} `{c.path}` {_BINDING_OPS[c.op]} {c._value_words()}"
        return f"{base}, unless {self.phrase}"

    def subject(self) -> str:
        return self.base.subject() if self.base else ""

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.base is not None
        outcome = self.base.evaluate(view)
        if outcome.status == NOT_APPLICABLE and self._qualifier_shown_elsewhere(view):
            # 'Never text contacts that have unsubscribed' and `send_sms` with `unsubscribed`
            # on: the tool's name did not match the action the rule names, but the request
            # carries the rule's very qualifier, in the state it forbids. The action words are a
            # vocabulary that is never complete, so a human decides rather than the rule
            # passing by unread.
            return Outcome(
                UNKNOWN,
                f"the request shows {self.phrase}, the state this rule forbids for "
                f"{self.base.subject() or 'its subject'}; whether this tool is that action is "
                "not clear",
            )
        if outcome.status not in (VIOLATED, UNKNOWN, REVIEW):
            return outcome
        holds, path = self._condition(view)
        if holds is None:
            return Outcome(
                UNKNOWN,
                f"{outcome.message}; the arguments cannot show whether {self.phrase}",
                outcome.args,
            )
        if self.test == "party_kind":
            if holds:
                return Outcome(
                    SATISFIED, f"{path} is off: not the case that the {self.phrase}", (path,)
                )
            return Outcome(
                outcome.status, f"{outcome.message}; {path} shows the {self.phrase}", (path,)
            )
        if holds:
            return Outcome(SATISFIED, f"{path}: {self.phrase}", (path,))
        if self.test in ("state", "not_state"):
            message = f"{path} shows the {self.base.subject() or 'subject'} {self.phrase}"
            if outcome.status == UNKNOWN and self.base.applicability(view) == ("unknown", True):
                # 'customers who opted out' and an `opted_out` flag that is on: the flag is the
                # qualifier itself, so on this tool the rule speaks of the request.
                return Outcome(VIOLATED if self.base.effect == "deny" else REVIEW, message, (path,))
            return Outcome(outcome.status, message, outcome.args + (path,))
        return Outcome(
            outcome.status, f"{outcome.message} and not {self.phrase}", outcome.args + (path,)
        )

    def _qualifier_shown_elsewhere(self, view: RequestView) -> bool:
        """Whether a flag named only for this rule's state qualifier shows the forbidden state."""
        if self.test not in ("state", "not_state") or self.base is None:
            return False
        if self.base.effect not in ("deny", "review") or not self.bind_words:
            return False
        holds, path = self._condition(view)
        if holds is not False:
            return False
        words_ = set(self.bind_words)
        return any(
            lf.path == path
            and isinstance(lf.value, bool)
            and words_ <= lf.last_keys
            and lf.last_keys - words_ <= _FLAG_PARTICLES  # `opted_out`, `is_suspended`
            for lf in view.leaves
        )

    def _condition(self, view: RequestView) -> tuple[bool | None, str]:
        if self.test == "kind":
            return self._kind_shown(view)
        if self.test == "never":
            return self._never_shown(view)
        if self.test == "party_kind":
            of_kind, path = self._party_kind_shown(view)
            return (None if of_kind is None else not of_kind), path
        if self.test == "binding" and self.condition is not None:
            # the exception the rule binds explicitly: it holds when the binding is satisfied,
            # not when it fails or the argument is missing; a value in another case or type
            # ('yes' for true) or a name close to it is for a human
            said = self.condition.evaluate(view)
            path = said.args[0] if said.args else ""
            if said.status == SATISFIED:
                return True, path
            if said.status == VIOLATED:
                return False, path
            return None, path
        words_ = set(self.bind_words)
        if self.test == "in":
            # 'except the money-market funds MMF1 and MMF2': the argument named like the kind
            # (`fund`) carries one of them; without such an argument, one that carries one does.
            listed = {normalise_value(v) for v in self.values}
            named = [lf for lf in view.leaves if words_ & lf.last_keys]
            for lf in named or view.leaves:
                for v in scalars(lf.value):
                    if isinstance(v, str) and normalise_value(v) in listed:
                        return True, lf.path
            if named:
                return False, named[0].path
            # No argument is named like the kind ('index ETFs SPY, QQQ and IVV' and a `symbol`):
            # when exactly one argument holds a value written like every listed one (upper-case
            # codes here), it is the one the exception speaks of; otherwise a human decides.
            shapes = {_case_shape(v) for v in self.values}
            if len(shapes) != 1:
                return None, ""
            alike = [
                lf
                for lf in view.leaves
                if isinstance(lf.value, str) and _case_shape(lf.value) in shapes
            ]
            return (False, alike[0].path) if len(alike) == 1 else (None, "")
        best: list[Leaf] = []
        top = 0
        # 'the claim status' names `status` or `claim_status`, not `claim_id`: the phrase's head
        # noun (its last word) must be in the argument's name when any argument has it.
        head = self.bind_words[-1] if self.bind_words else ""
        leaves = [lf for lf in view.leaves if head in lf.last_keys] or [
            lf for lf in view.leaves if head in lf.keys
        ]
        origin = words_ & ORIGIN_WORDS
        for lf in leaves or view.leaves:
            score = len(words_ & lf.keys)
            if self.test == "passed" and not lf.last_keys & (_PASS_STEMS | words_):
                continue
            if origin and not lf.keys & origin and lf.keys & (_NEW_WORDS | _TARGET_KEYS):
                continue  # 'unless the original card is expired': not `new_card_status`
            if self.test in ("state", "not_state") and not (
                isinstance(lf.value, bool)
                or lf.last_keys & (_STATE_KEYS | {stem(self.value)} if self.value else _STATE_KEYS)
            ):
                continue  # 'whose account is suspended' reads a flag or a state field, not an id
            if self.test in ("state", "not_state") and lf.last_keys & _STATE_KEYS:
                score += 1  # a `status` field speaks of the state even when not named for it
            if (
                self.test == "passed"
                and self.value
                and stem(self.value) in lf.last_keys
                and lf.last_keys - {stem(self.value)} <= words_
            ):
                # 'unless the customer has confirmed in writing': `written_confirmation` (every
                # other word of its name is the rule's); `payment_confirmed` is another thing
                score += 1
            if score > top:
                best, top = [lf], score
            elif score == top and score:
                best.append(lf)
        if not best:
            if self.test == "present":
                # nothing named like it was sent
                return False, surface_words(self.source, self.bind_words) or self.phrase
            return None, ""
        if (
            self.test == "present"
            and head
            and not leaves
            and not any(lf.last_keys <= words_ for lf in best)
        ):
            # 'unless a signed correction affidavit is attached' against `corrected_reading`:
            # no argument names the affidavit, and the one sharing a modifier ('correct') is
            # another thing. Its value shows nothing about the condition: unknown, not met.
            return None, best[0].path
        # `kyc_expired: true` beside 'unless KYC verified': a flag named for a state that undoes
        # the check is no pass (it had read as one: approved at 0.97)
        results = [
            None
            if self.test == "passed"
            and (lf.last_keys & _CONTRARY_STATES or self._flag_of_another(lf, words_))
            else self._holds_on(lf)
            for lf in best
        ]
        if any(r is None for r in results):
            return None, best[0].path
        thing = [w for w in self.bind_words if not self.value or w != stem(self.value)]
        if self.values and self.test in ("state", "not_state"):
            # 'whose KYC status is pending or failed': the thing is what the attribute is of
            # ('kyc'); another thing's status (`account_status`) says nothing of it
            named = {stem(w) for x in self.values for w in words(x)}
            thing = [w for w in self.bind_words if w not in named and w not in _STATE_KEYS]
        if self.test in ("state", "not_state") and thing:
            # Another argument named for the thing ('freeze': 'active' beside 'freeze_status':
            # 'inactive') that spells a state: when it says otherwise, a human decides.
            chosen = {lf.path for lf in best}
            for lf in view.leaves:
                if lf.path in chosen or thing[-1] not in lf.last_keys:
                    continue
                if isinstance(lf.value, str) and _state_word(lf.value):
                    other = self._holds(lf.value)
                    if other is None or other != all(results):
                        return None, lf.path
                if isinstance(lf.value, bool) and self.values:
                    # `original_card_status: "expired"` beside `original_card_expired: false`
                    # (or a flag on for a state the status does not show): they disagree
                    flagged = {stem(x) for x in self.values} & lf.last_keys
                    shown = {stem(t) for b in best for t in normalise_value(str(b.value)).split()}
                    if flagged and (
                        (lf.value and not all(results)) or (not lf.value and flagged & shown)
                    ):
                        return None, lf.path
                some = lf.value if isinstance(lf.value, (list, tuple)) else None
                if isinstance(lf.value, (int, float)) and not isinstance(lf.value, bool):
                    some = lf.value
                if (
                    some is not None
                    and self.value
                    and (len(some) if isinstance(some, (list, tuple)) else some) > 0
                ):
                    # 'projects that have open invoices', `open_invoices: 0` beside
                    # `unpaid_invoices: 3` or `overdue_invoices: 2`: some of the thing in
                    # another state word, which may be the rule's; a human decides
                    if not all(results) if self.test == "state" else all(results):
                        return None, lf.path
        if self.test == "passed" and thing and all(results):
            # 'unless KYC verified' and `kyc_status: "verified"` beside `kyc_expired: true` or
            # `kyc_review: "failed"`: another argument named for the thing says the check no
            # longer holds; a human decides (it had lifted the rule at 0.97)
            chosen = {lf.path for lf in best}
            for lf in view.leaves:
                if lf.path in chosen or thing[-1] not in lf.keys:
                    continue
                if (lf.value is True and lf.last_keys & _CONTRARY_STATES) or (
                    isinstance(lf.value, str)
                    and len(lf.value) <= 60
                    and set(content_stems(lf.value)) & _CONTRARY_STATES
                ):
                    return None, lf.path
        return all(results), best[0].path

    def _party_kind_shown(self, view: RequestView) -> tuple[bool | None, str]:
        """'If the account holder is a PEP': a yes/no argument of that party (`holder.pep`,
        `account_holder.is_pep`, `holder_pep`) named for the kind or its initials. Another
        party's (`beneficiary.pep`), a bare `pep` that names no party, or a flag written as text
        cannot say whose it is or what it says: None."""
        party = set(self.bind_words)
        head = self.bind_words[-1] if self.bind_words else ""
        kinds = [frozenset(stem(w) for w in n.split()) for n in self.values]
        results: list[tuple[bool | None, str]] = []
        for lf in view.leaves:
            named = lf.last_keys - _FLAG_FILLER
            own = named - party
            if not any(own == k for k in kinds):
                if _spells_kind(lf.path, party, self.values) and lf.value is not False:
                    # `holder.politically_exposed: true` beside `holder.pep: false`: maybe the
                    # kind in other words, never what rules it out
                    results.append((None, lf.path))
                continue
            parents = lf.path.split(".")[:-1]
            parent_stems = {s for p in parents for s in content_stems(p)}
            if head not in parent_stems | named or not parent_stems <= party:
                continue  # whose flag: `beneficiary.pep`, or a `pep` naming no party
            results.append((lf.value if isinstance(lf.value, bool) else None, lf.path))
        if not results or any(r is None for r, _ in results):
            return None, results[0][1] if results else ""
        if len({r for r, _ in results}) != 1:
            return None, results[0][1]
        return results[0][0], results[0][1]

    def _never_shown(self, view: RequestView) -> tuple[bool | None, str]:
        """'unless the account was never activated': a status of exactly that
        (`status: "never_activated"`), or a yes/no named for the act (`activated: false`,
        `never_activated: true`), on the thing itself or the request. Any other status word
        says the act happened or is not known to be missing ('deactivated', 'active'): the
        exception is not met. A status close to it ('never_logged_in') or a flag written as
        text is for a human."""
        act = stem(self.value)
        thing = set(self.bind_words)
        results: list[tuple[bool | None, str]] = []
        contrary: list[str] = []
        for lf in view.leaves:
            parents = lf.path.split(".")[:-1]
            if not all(set(content_stems(p)) <= thing for p in parents):
                continue  # another party's (`referrer.status`)
            named = lf.last_keys - thing - _FLAG_FILLER
            if (
                (
                    act in lf.last_keys
                    or any(k[:5] == act[:5] for k in lf.last_keys if len(k) >= 5)
                    or lf.last_keys & _ACTIVITY_KEYS
                )
                and not named <= {act, "never", "ever", "was"}
                and not lf.last_keys & _STATUS_NAMES
                and _says_something(lf.value)
            ):
                # `activated_at: "2024-05-01"`, `activation_date`: the act may have happened
                contrary.append(lf.path)
                continue
            if act in lf.last_keys and named <= {act, "never", "ever", "was"}:
                if not isinstance(lf.value, bool):
                    results.append((None, lf.path))
                else:
                    results.append((lf.value == ("never" in named), lf.path))
            elif lf.last_keys & _STATUS_NAMES and named <= _STATUS_NAMES:
                if not isinstance(lf.value, str):
                    continue
                got = {stem(t) for t in normalise_value(lf.value).split()}
                if got == {"never", act}:
                    results.append((True, lf.path))
                elif "never" in got or not got:
                    results.append((None, lf.path))
                else:
                    results.append((False, lf.path))
        if not results or any(r is None for r, _ in results):
            return None, results[0][1] if results else ""
        if len({r for r, _ in results}) != 1:
            return None, results[0][1]  # `status: "never_activated"` beside `activated: true`
        if results[0][0] and contrary:
            return None, contrary[0]  # `activated: false` beside `activated_at: "2024-05-01"`
        return results[0][0], results[0][1]

    def _kind_shown(self, view: RequestView) -> tuple[bool | None, str]:
        """'except defective items': whether the request spells one of the kinds (`values`, each
        the stems of its qualifying words; `bind_words` the kind's head noun, if written)."""
        head = set(self.bind_words)
        subject = set(self.base.terms) if self.base else set()
        kinds = [frozenset(content_stems(v)) for v in self.values]
        flags_off = 0
        denied_by: list[str] = []  # a flag that is off, a value that negates the kind
        shown = ""
        strict: list[Leaf] = []
        loose: list[str] = []  # the kind spelled on an argument named for another thing
        own = frozenset(content_stems(self.source))  # the rule's words name the request's thing
        for lf in view.leaves:
            if isinstance(lf.value, bool):
                named = lf.last_keys - _FLAG_FILLER
                for kind in kinds:
                    if kind <= named and named <= kind | head:
                        if lf.value:
                            shown = shown or lf.path
                        else:
                            flags_off += 1
                            denied_by.append(lf.path)
                continue
            for v in scalars(lf.value):
                if not isinstance(v, str) or len(v) > 60:
                    continue
                tokens = set(content_stems(v))
                if _NEGATING.intersection(words(v)):
                    # 'not_defective', 'non-emergency': never the kind; when it names the kind
                    # it says the request is not of it
                    if any(kind <= tokens for kind in kinds):
                        denied_by.append(lf.path)
                    continue
                if not tokens:
                    continue
                for kind in kinds:
                    # every word of the kind, and nothing but the kind, its noun or the subject
                    if kind <= tokens and not tokens - kind - head - subject:
                        # on an argument named for the request's own kind (`reason`,
                        # `account_type`); `parent_account_type`, `created_by`,
                        # `previous_return_reason` hold the kind of another thing
                        if lf.last_keys - kind - head - subject - own <= _KIND_DIMENSION:
                            shown = shown or lf.path
                            strict.append(lf)
                        else:
                            loose.append(lf.path)
        for lf in strict:
            # 'items.0.reason: defective' beside 'items.1.reason: changed_mind': one of several
            # things is of the kind
            for other in view.leaves:
                if other is lf or other.last_keys != lf.last_keys or other.keys != lf.keys:
                    continue
                if isinstance(other.value, str) and not any(
                    kind <= set(content_stems(other.value)) for kind in kinds
                ):
                    denied_by.append(other.path)
        if shown:
            # `account_type: "test"` beside `is_test: false`: the request says both; a human
            # decides (the first value found had lifted the rule)
            return (None, (denied_by + loose)[0]) if denied_by or loose else (True, shown)
        if loose:
            return None, loose[0]  # neither shown nor ruled out: a human reads it
        if flags_off == len(kinds) and kinds:
            return False, "a flag that is off"
        # Another value on the qualifier's own dimension rules the kind out, as it does a word
        # of any rule's subject (RequestView.term_absent); never a verb's absence.
        neighbours = frozenset(head | {KEY_STATE_WORD})
        if all(any(view.term_absent(q, neighbours) for q in kind) for kind in kinds):
            return False, "another value of the request"
        return None, ""

    def _holds_on(self, leaf: Leaf) -> bool | None:
        value = leaf.value
        if self.values and self.test in ("state", "not_state"):
            shown = _one_of_states(leaf, self.values)
            if shown is None:
                return None
            return shown if self.test == "state" else not shown
        if self.test == "passed" and isinstance(value, (list, tuple)):
            # 'only if all IPC tests passed' and a list of results: every member must pass; one
            # that did not breaks it; an empty list shows nothing
            results = [self._holds(v) for v in value]
            if False in results:
                return False
            return True if results and all(r is True for r in results) else None
        if (
            self.test in ("state", "not_state")
            and isinstance(value, (list, tuple))
            and self.value
            and stem(self.value.split()[0]) in leaf.last_keys
        ):
            # 'with open deviations' and `open_deviation_ids: []`: a list named for the state
            # holds the things in it; empty, there are none
            state = len(value) > 0
            return state if self.test == "state" else not state
        if (
            self.test in ("state", "not_state")
            and isinstance(value, str)
            and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", value)
        ):
            value = float(value)  # 'open_invoices': '3' is a count written as text
        if (
            self.test in ("state", "not_state")
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
        ):
            # 'gems_spent': 120 shows some were spent, 0 that none were; a number in any other
            # field ('status': 2) is a code the engine cannot read
            if self.value and stem(self.value.split()[0]) in leaf.last_keys:
                state = value > 0
                return state if self.test == "state" else not state
            return None
        return self._holds(value)

    def _holds(self, value: Any) -> bool | None:
        if self.test == "present":
            return truthy(value)
        if self.test in ("state", "not_state"):
            if (
                self.marker in _WHILE_MARKERS
                and isinstance(value, str)
                and value.strip().lower() not in _YES | _NO
                and not _state_word(value)
            ):
                # 'once the term is closed' and 'reopened', 'closing': a word outside the closed
                # class of states may be the state or not; a human decides
                return None
            # 'customers who opted out' (not_state: excepted while the state does not hold) and
            # 'contacts who have not consented' (state: excepted while it holds).
            state = _state_holds(value, self.value)
            if state is None:
                return None
            return state if self.test == "state" else not state
        if self.test == "passed":
            if isinstance(value, bool):
                return value
            if isinstance(value, str):
                if self.value and normalise_value(value) == normalise_value(self.value):
                    return True
                tokens = normalise_value(value).split()
                if len(tokens) > 1 and tokens[0] == "all" and set(tokens[1:]) <= _ALL_PASSED:
                    return True  # 'all_pass', 'all passed': a summary of every result
                return value.strip().lower() in (
                    "passed",
                    "pass",
                    "verified",
                    "true",
                    "yes",
                    "ok",
                    "complete",
                    "completed",
                )
            return None
        if self.test == "zero":
            if isinstance(value, bool):
                return None
            if isinstance(value, (int, float)):
                return value == 0
            if isinstance(value, str):
                try:
                    return float(value.replace(",", "")) == 0
                except ValueError:
                    return None
            return None
        if self.test == "equals":
            return normalise_value(str(value)) == normalise_value(self.value)
        return None


# Words around a state that do not narrow it: 'flagged for suspected fraud' is shown by a
# `fraud_flag`, whatever the suspicion; 'an active legal hold' by `legal_hold`.
_BROAD_STATE_WORDS = frozenset(stem(w) for w in "suspected potential possible any current".split())
# Words a flag's name may add to the state's own: `is_frozen`, `has_legal_hold`, `fraud_flag`
_STATE_FLAG_EXTRA = frozenset(stem(w) for w in "is has flag flagged on active".split())
# Argument names that hold a record's state as a word ('account_status': 'collections')
_STATUS_NAMES = frozenset(stem(w) for w in "status state stage".split())
# Lists of the marks a record carries ('flags': ['fraud', 'vip'])
_STATE_LISTS = frozenset(stem(w) for w in "flags tags labels statuses states holds".split())


# Names of arguments that show something was done with an account ('last_login_at'): beside
# 'never activated' they say it may have been.
_ACTIVITY_KEYS = frozenset(stem(w) for w in ("login", "logon", "logged", "signin", "seen", "used"))


def _spells_kind(path: str, party: set[str], kinds: tuple[str, ...]) -> bool:
    """Whether an argument's name spells a kind of party in other words than the rule's:
    `politically_exposed` for 'PEP' (its words' initials begin the kind), `pep` for
    'politically exposed person' (the kind's initials begin with it)."""
    key = [w.lower() for w in re.findall(r"[A-Za-z]+", path.rsplit(".", 1)[-1])]
    key = [w for w in key if stem(w) not in party and w not in ("is", "has", "flag")]
    if not key:
        return False
    mine = "".join(w[0] for w in key) if len(key) >= 2 else key[0]
    for kind in kinds:
        kw = [w.lower() for w in re.findall(r"[A-Za-z]+", kind)]
        theirs = "".join(w[0] for w in kw) if len(kw) >= 2 else (kw[0] if kw else "")
        if len(key) >= 2 and len(mine) >= 2 and theirs.startswith(mine):
            return True  # `politically_exposed` for 'PEP' or 'politically exposed person'
        if len(key) == 1 and len(kw) >= 2 and mine == theirs:
            return True  # `pep` for 'politically exposed person'
    return False


# Values that say nothing is there ('none', 'released'): an argument holding one shows no state.
_NOTHING_THERE = frozenset(
    {"", "none", "no", "false", "inactive", "released", "lifted", "cleared", "ended", "expired",
     "off", "n/a", "na", "null", "never", "0"}
)  # fmt: skip


def _says_something(value: Any) -> bool:
    """Whether an argument about a state or an act holds something (a date, a reason, a status),
    rather than nothing or a value saying it is not there."""
    if value is None or value is False or value == 0:
        return False
    if isinstance(value, str):
        return normalise_value(value) not in _NOTHING_THERE
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return True


@dataclass(frozen=True)
class AnyState(Unless):
    """'Credits shall not be issued to accounts that are in collections or that have been
    flagged for suspected fraud', 'Accounts under a legal hold, a garnishment or a regulatory
    freeze may not be closed': the base check holds only while the thing acted on is in one of
    several states, each read on its own.

    A state is shown by a yes/no argument named for it (`legal_hold`, `garnishment`,
    `fraud_flag`: every word of the state, or its head noun when the flag is off, since no hold
    at all is no legal hold either) or, for a state written as a status ('in collections', 'that
    are suspended'), by a status argument whose value is that word. The argument must be the
    thing's own: at the top of the request or under the thing's name (`account.legal_hold`),
    never another party's (`referrer.fraud_flag`). Any state shown on: the base check fires.
    Every state shown off: the rule does not reach the request. Otherwise (a state no argument
    shows, a flag written as text, a status close to the state), a human decides.
    """

    states: tuple[str, ...] = ()  # the states' own words ('legal hold', 'collections')
    written: tuple[str, ...] = ()  # as written, for readings ('under legal hold', 'in collections')
    status_form: tuple[bool, ...] = ()  # per state: may a status argument spell it
    thing: tuple[str, ...] = ()  # stems of the thing in the states ('account')

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["condition"] = {"marker": self.marker, "test": "any_state", "states": list(self.states)}
        return d

    def reading(self) -> str:
        base = self.base.reading() if self.base else "Deny"
        what = " ".join(self.thing) or "it"
        return (
            f"{base}, only when the {what} is {' or '.join(self.written or self.states)} (each read "
            "from a yes/no argument named for it, or a status argument spelling it; when one "
            "is not shown and none is on, review)"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.base is not None
        outcome = self.base.evaluate(view)
        if outcome.status not in (VIOLATED, UNKNOWN, REVIEW):
            return outcome
        shown = [self._state_shown(view, i) for i in range(len(self.states))]
        on = [(i, path) for i, (held, path) in enumerate(shown) if held]
        if on:
            i, path = on[0]
            said = (self.written or self.states)[i]
            message = f"{path} shows the {' '.join(self.thing) or 'subject'} is {said}"
            if outcome.status == UNKNOWN and self.base.applicability(view) != ("unknown", True):
                return Outcome(UNKNOWN, f"{outcome.message}; {message}", outcome.args + (path,))
            if outcome.status == UNKNOWN:
                status = VIOLATED if self.base.effect == "deny" else REVIEW
                return Outcome(status, message, (path,))
            return Outcome(outcome.status, message, outcome.args + (path,))
        unknown = [
            (self.written or self.states)[i] for i, (held, _) in enumerate(shown) if held is None
        ]
        if unknown:
            return Outcome(
                UNKNOWN,
                f"{outcome.message}; the arguments cannot show whether it is "
                f"{' or '.join(unknown)}",
                outcome.args,
            )
        paths = tuple(path for _, path in shown)
        return Outcome(
            SATISFIED,
            f"{', '.join(paths)}: the {' '.join(self.thing) or 'subject'} is not "
            f"{' nor '.join(self.written or self.states)}",
            paths,
        )

    def _owned(self, leaf: Leaf) -> bool:
        """Whether the argument is the thing's own: top level, or under the thing's name."""
        parents = leaf.path.split(".")[:-1]
        return all(set(content_stems(p)) <= set(self.thing) for p in parents)

    def _state_shown(self, view: RequestView, i: int) -> tuple[bool | None, str]:
        want = [w for w in content_stems(self.states[i]) if w not in _BROAD_STATE_WORDS]
        if not want:
            return None, ""
        head, whole = want[-1], set(want)
        results: list[tuple[bool | None, str]] = []
        for lf in view.leaves:
            if (
                whole < lf.last_keys - _STATE_FLAG_EXTRA - set(self.thing)
                and self._owned(lf)
                and _says_something(lf.value)
            ):
                # `legal_hold_status: "active"`, `legal_hold_reason: "court order"`: more about
                # the state than a flag; with it given, the state is not ruled out (review)
                results.append((None, lf.path))
            if head not in lf.last_keys or lf.last_keys & _STATUS_NAMES:
                continue
            if not lf.last_keys - _STATE_FLAG_EXTRA - set(self.thing) <= whole:
                continue  # `legal_hold_reason`, `hold_id`: another thing about the state
            if not self._owned(lf):
                continue
            if not isinstance(lf.value, bool):
                results.append((None, lf.path))  # 'false' or 'no' as text: a human reads it
            elif not lf.value:
                results.append((False, lf.path))
            else:
                # `hold: true` against 'a legal hold': some hold, maybe not that one
                results.append((True if whole <= lf.last_keys | {"flag"} else None, lf.path))
        for lf in view.leaves:
            if isinstance(lf.value, (list, tuple)) and lf.last_keys & _STATE_LISTS:
                # `customer.flags: ["fraud", "vip"]`: a member that is the state shows it; one
                # sharing a word with it is for a human; the others say nothing of it
                if not self._owned(lf):
                    continue
                for v in lf.value:
                    if isinstance(v, str):
                        got = set(content_stems(v)) - {"in", "on", "under"}
                        if got == whole:
                            results.append((True, lf.path))
                        elif got & whole:
                            results.append((None, lf.path))
                continue
            if not lf.last_keys & _STATUS_NAMES or not isinstance(lf.value, str):
                continue
            if not self._owned(lf) or not lf.last_keys - _STATUS_NAMES <= set(self.thing):
                continue  # `payment_status` says nothing of the account's state
            got = set(content_stems(lf.value)) - {"in", "on", "under"}
            if got == whole:
                results.append((True, lf.path))
            elif got & whole or not got:
                results.append((None, lf.path))  # 'pre_collections': close, not the state
            elif self.status_form[i] and (
                lf.last_keys - _STATUS_NAMES or "." in lf.path or set(self.thing) & view.tool_stems
            ):
                # one status at a time: 'active'. A bare `status` on a tool for another thing
                # (`billing.credit.issue`) may be the request's own status: it rules out nothing
                results.append((False, lf.path))
        if any(held for held, _ in results):
            return True, next(path for held, path in results if held)
        if not results or any(held is None for held, _ in results):
            return None, results[0][1] if results else ""
        return False, results[0][1]


# Words an argument's name may add to the attribute it holds: `plan_name`, `status_code`.
_ATTRIBUTE_EXTRA = frozenset(stem(w) for w in "name code value current".split())
# The words a value of a party's status or plan may be made of to be plainly another state than
# the rule's ('Inactive', 'consumer_plus'); a value with any other word ('partner_pro' beside
# 'a reseller or wholesale plan') may be the rule's state under another name: a human decides.
_PLAIN_STATUS_WORDS = _STATE_STEMS | frozenset(
    stem(w)
    for w in """blocked deactivated locked banned archived frozen onboarding offboarded rejected
    approved verified unverified new deleted hold on review trial churned""".split()
)
_PLAIN_PLAN_WORDS = frozenset(
    stem(w)
    for w in """free basic starter standard plus pro professional premium business enterprise
    team personal individual consumer family student trial legacy annual monthly growth scale
    essentials advanced ultimate lite light gold silver bronze platinum""".split()
)


@dataclass(frozen=True)
class PartyState(Unless):
    """'Payments may only be released to vendors whose status is Active', 'Goodwill credits must
    not be given to customers on a reseller or wholesale plan', 'Keys may not be created for
    deactivated users', 'A refill may only be authorised if the prescription is still active':
    the state of one party of the request, read on the one argument named for it.

    `required`: the base check holds unless the party is in one of `states` (an allow-only: 'only
    … whose status is Active', 'unless MFA is enrolled'); otherwise it holds while the party is in
    one of them (a deny-list: 'on a reseller plan', 'deactivated users').

    The argument is the party's own: at the top of the request or under the party's name, named
    for the attribute (`status`, `vendor_status`, `supplier.status`, `plan`) and nothing but the
    party's words, or a yes/no named for the state (`mfa_enrolled`, `opted_in`,
    `has_active_encounter`). Its value is compared word by word in any case (`_one_of_states`):
    another plain state word rules the state out, a value adding a word to it
    (`pending_activation`, `not active`) or a yes/no written as text is for a human. No such
    argument, arguments that disagree, or a bare `status` on a tool named for another thing (it may
    be the request's own status) leave the decision to a human.
    """

    states: tuple[str, ...] = ()  # the states as written, lower case ('active', 'reseller')
    thing: tuple[str, ...] = ()  # stems of the party and what the state is of ('vendor', 'master')
    attribute: tuple[str, ...] = ()  # the attribute's own name as written ('status', 'plan')
    required: bool = False
    of: str = ""  # what of the party is in the state, as written ('encounter', 'MFA')

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["condition"] = {
            "marker": self.marker,
            "test": "party_state",
            "states": list(self.states),
            "required": self.required,
        }
        return d

    def reading(self) -> str:
        base = self.base.reading() if self.base else "Deny"
        party = surface_words(self.source, self.thing[:1]) or "party"
        party = re.sub(r"(?<=[^s])s$", "", party)
        states = " or ".join(f"'{s}'" for s in self.states)
        named = "/".join(f"`{a}`" for a in self.attribute) or "`status`"
        how = (
            f"read from the {party}'s {named} argument, or a yes/no named for the state; when "
            "neither is sent, or the value is not plainly one state or another, review"
        )
        attribute = " ".join(self.attribute)
        if self.of:
            party = f"{party}'s {self.of}"
        elif attribute not in ("status", "state", "stage", "standing", ""):
            party = f"{party}'s {attribute}"
        if self.required:
            return f"{base}, unless the {party} is {states} ({how})"
        return f"{base}, only when the {party} is {states} ({how})"

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.base is not None
        outcome = self.base.evaluate(view)
        if outcome.status == NOT_APPLICABLE or (
            # 'Purchase orders may only be raised …' on po_create: satisfied only because the
            # act's words name another act ('raise' is not 'create'), not by what it compares
            outcome.status == SATISFIED and self.base.applicability(view)[0] == "absent"
        ):
            # 'Goodwill credits must not be given to customers on a reseller plan' and
            # support_issue_credit with `plan`: the act's words are a vocabulary that is never
            # complete, but the request carries the party's very state argument. When it shows
            # the state the rule forbids (or cannot say), a human decides rather than the rule
            # passing by unread.
            held, path = self._in_state(view)
            if path and held is not self.required:
                return Outcome(
                    UNKNOWN,
                    f"{path} is the argument this rule reads for {self.phrase}; whether this tool "
                    "is the act it speaks of is not clear",
                    (path,),
                )
            return outcome
        if outcome.status not in (VIOLATED, UNKNOWN, REVIEW):
            return outcome
        held, path = self._in_state(view)
        if held is None:
            return Outcome(
                UNKNOWN,
                f"{outcome.message}; the arguments cannot show whether {self.phrase}",
                outcome.args + ((path,) if path else ()),
            )
        if held == self.required:
            return Outcome(SATISFIED, f"{path}: {self.phrase}", (path,))
        said = "not " if self.required else ""
        message = f"{path} shows {said}{self.phrase}"
        if outcome.status == UNKNOWN and self.base.applicability(view) == ("unknown", True):
            return Outcome(VIOLATED if self.base.effect == "deny" else REVIEW, message, (path,))
        return Outcome(outcome.status, f"{outcome.message}; {message}", outcome.args + (path,))

    def _opposite_flags(self, view: RequestView) -> list[tuple[bool | None, str]]:
        """A yes/no named for the opposite of a done state that says yes (`opted_out: true`,
        `unsubscribed: true` for 'who have opted in' / 'subscribed'): the party is not in the
        state, whatever `opted_in` says (beside `opted_in: true`, the two disagree: review)."""
        found: list[tuple[bool | None, str]] = []
        said = " ".join(self.states).lower()
        for lf in view.leaves:
            if not isinstance(lf.value, bool):
                continue
            name = lf.path.rsplit(".", 1)[-1].lower()
            opposite = ("opt" in said and re.search(r"opt(?:ed)?[_\-]?out", name)) or (
                "subscrib" in said and "unsubscrib" in name
            )
            if opposite:
                found.append((not lf.value, lf.path))
        return found

    def _in_state(self, view: RequestView) -> tuple[bool | None, str]:
        thing = set(self.thing)
        attribute = {stem(a) for a in self.attribute}
        if attribute <= _STATUS_NAMES:
            attribute = set(_STATUS_NAMES)  # 'whose status', `user_state`, `account_stage`
        wanted = [
            frozenset(w for w in content_stems(s) if w not in _BROAD_STATE_WORDS)
            for s in self.states
        ]
        results: list[tuple[bool | None, str]] = []
        for lf in view.leaves:
            parents = {s for p in lf.path.split(".")[:-1] for s in content_stems(p)}
            if not parents <= thing:
                continue  # another party's (`referrer.status`, `invoice.status`)
            keys = lf.last_keys
            if keys & attribute and not keys - attribute - thing - _ATTRIBUTE_EXTRA:
                if (
                    not parents
                    and not keys & thing
                    and attribute <= _STATUS_NAMES
                    and not thing & view.tool_stems
                ):
                    # a bare `status` on a tool for another thing may be the request's own
                    results.append((None, lf.path))
                    continue
                shown = _one_of_states(lf, self.states)
                if shown is False and not isinstance(lf.value, bool):
                    plain = _PLAIN_STATUS_WORDS if attribute & _STATUS_NAMES else _PLAIN_PLAN_WORDS
                    said = {stem(t) for t in normalise_value(str(lf.value)).split()}
                    if not said <= plain or said & _NEGATING:
                        # not plainly another state ('partner_pro' beside 'reseller'), or a
                        # negated one ('not_inactive'): maybe the rule's state, renamed
                        shown = None
                results.append((shown, lf.path))
                continue
            if (
                keys & _STATE_LISTS
                and keys - _STATE_LISTS <= thing
                and isinstance(lf.value, (list, tuple))
                and any(
                    w and w <= frozenset(content_stems(str(m)))
                    for m in lf.value
                    if isinstance(m, str)
                    for w in wanted
                )
            ):
                # `account_flags: ["suspended"]`: a mark the party carries is its state
                results.append((True, lf.path))
                continue
            if (
                keys & attribute
                and keys & thing
                and not keys & ORIGIN_WORDS
                and _one_of_states(lf, self.states) is False
                and not isinstance(lf.value, bool)
            ):
                # `payee_vendor_status`, `new_vendor_status`, `vendor_status_next`: the party's
                # status under a longer name, in another state than the rule's; beside a
                # `vendor_status` in it, the two may disagree (a past one, `previous_…`, is not
                # read). Not read, the payment to a vendor being suspended passed.
                results.append((None, lf.path))
                continue
            for w in wanted:
                if w and w <= keys and not keys - w - thing - _STATE_FLAG_EXTRA - {"in"}:
                    # `mfa_enrolled`, `opted_in`, `has_active_encounter`: a yes/no for the state
                    value = lf.value if isinstance(lf.value, bool) else None
                    if value is False and len(wanted) > 1:
                        value = None  # `is_reseller: false` leaves 'or wholesale' open
                    results.append((value, lf.path))
                    break
        results += self._opposite_flags(view)
        if not results:
            return None, ""
        if any(held is None for held, _ in results) or len({h for h, _ in results}) > 1:
            return None, next((p for h, p in results if h is None), results[0][1])
        return results[0][0], results[0][1]


@dataclass(frozen=True)
class When(Check):
    """A list or limit that applies only to requests meeting a numeric condition.

    'Orders over 10,000 USD may ship only to the US or Canada': the allow-list (`body`) applies
    when the amount is above 10,000 USD (`condition`, read through the boundary table). When the
    condition cannot be shown and the body would not hold, a human decides.
    """

    condition: NumericLimit | None = None
    body: Check | None = None
    kind: str = field(default="when", init=False)

    def describe(self) -> dict[str, Any]:
        d = self.body.describe() if self.body else super().describe()
        d["when"] = self.condition.describe() if self.condition else {}
        return d

    def reading(self) -> str:
        assert self.condition is not None and self.body is not None
        cond = self.condition
        bound = _bound_words(cond)
        return f"When {_measure_words(cond)} is {OP_WORDS[cond.op]} {bound}: {self.body.reading()}"

    def subject(self) -> str:
        return self.body.subject() if self.body else ""

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.condition is not None and self.body is not None
        outcome = self.body.evaluate(view)
        if outcome.status == NOT_APPLICABLE and self.body.unrelated(view):
            return self._unnamed_subject(view, outcome)
        if outcome.status not in (VIOLATED, REVIEW, UNKNOWN):
            return outcome
        bound = bind_measure(view, self.condition)
        if not bound:
            return Outcome(
                UNKNOWN,
                f"{outcome.message}; the amount the rule's condition reads is not among the arguments",
            )
        for leaf, value in bound:
            value, problem = convert_value(view, leaf, value, self.condition)
            if problem:
                return Outcome(UNKNOWN, f"{outcome.message}; {problem}", (leaf.path,))
            if _OPS[self.condition.op](value, self.condition.threshold):
                return outcome
        # 'Loads heavier than 2,000 kg' with `weight_kg` and `gross_weight_kg`: another argument
        # the condition may read meets it; a human decides which one the rule speaks of
        for leaf, value in near_measures(view, bound):
            value, problem = convert_value(view, leaf, value, self.condition)
            if problem or _OPS[self.condition.op](value, self.condition.threshold):
                return Outcome(
                    UNKNOWN,
                    f"{outcome.message}; {leaf.path} may be what the rule's condition reads, "
                    "and it meets it",
                    (leaf.path,),
                )
        return Outcome(
            SATISFIED, "the rule's condition does not hold", tuple(lf.path for lf, _ in bound)
        )

    def _unnamed_subject(self, view: RequestView, outcome: Outcome) -> Outcome:
        # 'Raises over 5 kW need a G99 reference' on set_export_limit: the request does not
        # name the subject ('raises'), but when its amount meets the condition by the rule's
        # own unit, the rule may speak of it, and a human decides.
        assert self.condition is not None
        bound = bind_measure(view, self.condition)
        if not bound or not self.condition._named_by_unit(bound):
            return outcome
        for leaf, value in (*bound, *near_measures(view, bound)):
            value, problem = convert_value(view, leaf, value, self.condition)
            if problem or _OPS[self.condition.op](value, self.condition.threshold):
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} meets the rule's condition, but the request does not name "
                    "what the rule speaks of (the rule may apply; a human should decide)",
                    (leaf.path,),
                )
        return outcome


@dataclass(frozen=True)
class WhenListed(Check):
    """An obligation that applies only to requests whose value is in a list.

    'Patients in the EEA must not be enrolled without a signed consent form': the consent flag
    (`body`) is required when the country is in the EEA (`condition`, a deny-mode list whose
    'violated' means 'listed'). When the list cannot be checked and the body fails, review.
    """

    condition: ValueList | None = None
    body: Check | None = None
    kind: str = field(default="when_listed", init=False)

    def describe(self) -> dict[str, Any]:
        d = self.body.describe() if self.body else super().describe()
        d["when"] = self.condition.describe() if self.condition else {}
        return d

    def reading(self) -> str:
        assert self.condition is not None and self.body is not None
        listed = " or ".join(self.condition.values[:8])
        if len(self.condition.values) > 8:
            listed += " or …"
        if self.condition.match == "glossary":
            noun = surface_words(self.source, self.condition.kind_words) or "category"
            return (
                f"When an argument is one of the glossary's {noun} ({listed}): "
                f"{self.body.reading()}"
            )
        if self.condition.match == "token":
            kind = surface_words(self.source, self.condition.kind_words) or "the names"
            shown = list(self.condition.values[:8])
            names = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
            return f"When a member of `{kind}` is {names}: {self.body.reading()}"
        what = _MATCH_NOUN.get(self.condition.match, "the value")
        if self.condition.match in ("exact", "prefix") and self.condition.kind_words:
            kind = surface_words(self.source, self.condition.kind_words)
            what = f"`{kind}`" if kind else what
        # a name prefix ('whose name starts with Admin') reads so; a scoped identifier
        # ('the prod account (111122223333)') is matched by its start but named whole
        verb = (
            "starts with"
            if self.condition.match == "prefix"
            and any(w.startswith(("start", "begin")) for w in self.condition.about_words)
            else ("is not" if self.condition.mode == "allow" else "is")
        )
        return f"When {what} {verb} {listed}: {self.body.reading()}"

    def subject(self) -> str:
        return self.body.subject() if self.body else ""

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.condition is not None and self.body is not None
        outcome = self.body.evaluate(view)
        if outcome.status not in (VIOLATED, REVIEW, UNKNOWN):
            return outcome
        listed = self.condition.evaluate(view)
        if listed.status == VIOLATED:
            return outcome
        if listed.status in (SATISFIED, PERMITTED):
            return Outcome(SATISFIED, "the rule's condition does not hold", listed.args)
        return Outcome(
            UNKNOWN,
            f"{outcome.message}; cannot tell whether the rule's condition holds",
            outcome.args,
        )


@dataclass(frozen=True)
class WhenBound(WhenListed):
    """'Contractors (user_type=contractor) may only be given Viewer or Support Agent': a list
    (`body`) that holds only where the named argument has the bound value (`condition`, a
    Binding with op eq). Another value: the rule does not apply; the argument missing or written
    otherwise: review when the list fails."""

    condition: Binding | None = None  # type: ignore[assignment]

    def reading(self) -> str:
        assert self.condition is not None and self.body is not None
        want = _literal_text(self.condition.value)
        return f"When `{self.condition.path}` is {want}: {self.body.reading()}"

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.condition is not None and self.body is not None
        outcome = self.body.evaluate(view)
        if outcome.status not in (VIOLATED, REVIEW, UNKNOWN):
            return outcome
        leaves = self.condition._leaves(view)
        held = {self.condition._holds(lf.value) for lf in leaves}
        if held == {False}:
            flag = _flag_for_value(view, self.condition.value, {lf.path for lf in leaves})
            if flag:
                # `user_type: "employee"` beside `is_contractor: true`: the request says both
                return Outcome(
                    UNKNOWN,
                    f"{outcome.message}; {leaves[0].path} = {leaves[0].value!r} but {flag} "
                    f"may say it is {_literal_text(self.condition.value)}",
                    outcome.args,
                )
            want = self.condition.value
            got = leaves[0].value
            if (
                isinstance(want, str)
                and isinstance(got, str)
                and (
                    may_be_value(re.sub(r"\s+", " ", got.strip().lower()), (want.lower(),))
                    or value_token(want) in GRADES
                )
            ):
                # jred23: 'oral-solid' for 'oral_solid', 'prd' for 'prod', 'critical' past
                # 'high': the request may be of the bound value written another way
                return Outcome(
                    UNKNOWN,
                    f"{outcome.message}; {leaves[0].path} = {got!r} may be "
                    f"{_literal_text(want)} written another way",
                    outcome.args,
                )
            return Outcome(
                SATISFIED,
                f"the rule's condition does not hold ({leaves[0].path} = {leaves[0].value!r})",
                tuple(lf.path for lf in leaves),
            )
        if held == {True}:
            return outcome
        return Outcome(
            UNKNOWN,
            f"{outcome.message}; cannot tell whether `{self.condition.path}` is "
            f"{_literal_text(self.condition.value)}",
            outcome.args,
        )


def _flag_for_value(view: RequestView, value: Any, bound: set[str]) -> str:
    """Another argument named for a bound value ('contractor': `is_contractor`,
    `contractor_flag`) that does not say no, or ''."""
    if not isinstance(value, str):
        return ""
    want = set(content_stems(value))
    if not want:
        return ""
    for lf in view.leaves:
        if lf.path in bound or not want <= lf.last_keys:
            continue
        if lf.last_keys - want - _FLAG_FILLER - {"flag"}:
            continue  # `contractor_agency`: something else about a contractor
        if lf.value is False or lf.value is None or _flag_on(lf.value) is False:
            continue
        return lf.path
    return ""


@dataclass(frozen=True)
class StateFlag(Check):
    """'Deposits require a verified email', 'Identity must be verified', 'Matches only for gifts
    to registered charities': a state the text of an argument cannot prove, shown by a yes/no
    argument named for it (`email_verified`, `charity_registered`).

    The flag must carry the state's word (`state`); among such flags, one that also carries a
    word of what is in that state (`flag_words`) is preferred. A flag that is on satisfies the
    rule, one that is off breaks it; with no such flag the `fallback` check decides (or, without
    one, a human). `forbid` turns it round: 'never to purchased lists' breaks when the flag is on.
    """

    state: str = ""
    flag_words: tuple[str, ...] = ()
    phrase: str = ""  # the state as written, for readings
    forbid: bool = False
    fallback: Check | None = None
    kind: str = field(default="state_flag", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(state=self.state, flag_words=list(self.flag_words), forbid=self.forbid)
        return d

    def reading(self) -> str:
        when = "when" if self.forbid else "unless"
        none = "review" if self.fallback is None else self.fallback.reading()
        return (
            f"{_VERB[self.effect]} {when} a yes/no argument shows that {self.phrase}"
            f"{self._about()}; when no such argument is sent: {none}"
        )

    def subject(self) -> str:
        return self.fallback.subject() if self.fallback is not None else super().subject()

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        states = self.state.split("|")  # 'pass|verifi': any word of the state names the flag
        flags = [
            lf
            for lf in view.leaves
            if any(s in lf.keys for s in states)
            and _flag_on(lf.value) is not None
            and not lf.keys & _ID_WORDS
        ]
        # `phone_verified` does not show that the email is verified: the flag must name it
        chosen = (
            [lf for lf in flags if lf.keys & set(self.flag_words)] if self.flag_words else flags
        )
        if not chosen:
            if self.fallback is not None:
                return self.fallback.evaluate(view)
            return Outcome(UNKNOWN, f"nothing in the arguments shows whether {self.phrase}")
        values = {_flag_on(lf.value) for lf in chosen}
        paths = tuple(lf.path for lf in chosen)
        if len(values) != 1:
            return Outcome(UNKNOWN, f"{', '.join(paths)} disagree on {self.phrase}", paths)
        on = values.pop()
        if on != self.forbid:
            return Outcome(
                SATISFIED, f"{paths[0]} shows {'not ' if self.forbid else ''}{self.phrase}", paths
            )
        return self.fire(
            applies,
            f"{paths[0]} shows {'' if self.forbid else 'not '}{self.phrase}",
            paths,
        )


# The reference side of a relation: 'the original payment method', 'the charge currency'. Any of
# these words in an argument's name says it holds the value the request started from (a refund's
# charge, an address change's current address), so they form one qualifier, not one each.
ORIGIN_WORDS = frozenset(
    stem(w)
    for w in "original orig initial charge charged previous prior existing current old "
    "captured source".split()
)
# Words an argument of the request's own side may carry beside the attribute: the act itself
# (`refund_method`, `payout_currency`), where the value goes (`refund_to`, `destination`), what is
# being set (`new_owner`) and identifier suffixes (`destination_payment_method_id`).
_OWN_SIDE_WORDS = (
    frozenset(
        stem(w)
        for w in "refund payout payment withdrawal transfer disbursement credit debit "
        "id ref reference token code".split()
    )
    | _TARGET_KEYS
    | _NEW_WORDS
)


def _qualifier_groups(words_: tuple[str, ...]) -> list[frozenset[str]]:
    """The qualifiers of one side, each a set of stems any of which names it; every origin
    word is one qualifier ('original charge currency' is qualified once)."""
    groups: list[frozenset[str]] = []
    for w in words_:
        g = ORIGIN_WORDS if w in ORIGIN_WORDS else frozenset({w})
        if g not in groups:
            groups.append(g)
    return groups


def _covered(keys: frozenset[str], groups: list[frozenset[str]]) -> int:
    return sum(1 for g in groups if keys & g)


# What a value naming the original destination may say beside 'original': the means of paying
# ('original_payment_method', 'original_payment', 'same_card', 'original_source').
_MEANS_WORDS = frozenset(
    stem(w) for w in "same one payment method card account instrument means source funding".split()
)


def _names_origin(value: Any, attribute: frozenset[str]) -> bool:
    """`refund_to: "original_payment_method"`: the value names the reference itself (an origin
    word, and nothing but the means of paying beside it)."""
    if not isinstance(value, str):
        return False
    said = {stem(w) for w in words(value.replace("_", " ").replace("-", " ").lower())}
    return bool(said & ORIGIN_WORDS) and said <= ORIGIN_WORDS | attribute | _MEANS_WORDS


_ID_SUFFIX_WORDS = frozenset(stem(w) for w in "id ref reference token code".split())


@dataclass(frozen=True)
class SameValue(Check):
    """Two arguments that must hold the same value: 'No withdrawals to a payment method different
    from the deposit method', 'The payout currency must match the invoice currency', 'Refunds go
    back to the original payment method only', 'Credit notes must be in the invoice currency',
    'Account owner changes are only allowed between reps in the same sales region'.

    `attribute` is what both sides are (currency, payment method, country); `right` names the
    reference side by its qualifiers (original, invoice, customer's billing), `left` the
    request's own side. The reference binds to the one argument carrying the attribute and the
    most of its qualifiers, with no other word in its name; the request's side to the one
    argument carrying the attribute (or, for `mode="to"`, a destination) that names no
    qualifier of the reference. A tie, a missing side or a name with words of something else
    leaves it to a human. `mode="between"` compares the only two arguments carrying the
    attribute ('between reps in the same sales region'). Values compare without case or
    separator noise.
    """

    left: tuple[str, ...] = ()
    right: tuple[str, ...] = ()
    left_phrase: str = ""  # as written, for readings
    right_phrase: str = ""
    attribute: tuple[str, ...] = ()  # () = the words the two sides share
    mode: str = "match"  # match | to | between
    about_words: tuple[str, ...] = ()  # connective words the recogniser read ('go back to')
    kind: str = field(default="same_value", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(left=list(self.left), right=list(self.right), mode=self.mode)
        return d

    def reading(self) -> str:
        left = self.left_phrase or surface_words(self.source, self.left) or "the value"
        right = self.right_phrase or surface_words(self.source, self.right) or "the other value"
        if self.mode == "between":
            return (
                f"{_VERB[self.effect]} when the two arguments giving the {right} (one for each "
                f"of the {left}) differ; unless exactly two are sent, review{self._about()}"
            )
        extra = "; a destination naming the original holds" if self.mode == "to" else ""
        return (
            f"{_VERB[self.effect]} when the {left} differs from the {right} (both must be sent, "
            f"each in one argument named for it{extra}){self._about()}"
        )

    @cached_property
    def _attribute(self) -> tuple[str, ...]:
        if self.attribute:
            return self.attribute
        shared = set(self.left) & set(self.right)
        return tuple(w for w in self.right if w in shared)

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies != "absent":
            return self._compare(view, applies)
        # 'The payroll bank account holder must match …' on `hr.update_bank_details`: a word of
        # the subject the request does not show is no proof the rule is about another request
        # when both of its sides are there and differ; a human decides
        said = self._compare(view, "unknown")
        if said.status == SATISFIED or not said.args:
            return _not_applicable_or_satisfied(anchored)
        return Outcome(UNKNOWN, said.message, said.args)

    def _compare(self, view: RequestView, applies: str) -> Outcome:
        scalars_ = [
            lf
            for lf in view.leaves
            if isinstance(lf.value, (str, int, float)) and not isinstance(lf.value, bool)
        ]
        attribute = self._attribute
        if not attribute:
            return Outcome(UNKNOWN, "the two values this rule compares are not both clear")
        if self.mode == "between":
            both = [lf for lf in scalars_ if attribute[-1] in lf.keys]
            if len(both) != 2 or not _two_sides_of_a_change(*both):
                return Outcome(UNKNOWN, f"not exactly two arguments give the {self.right_phrase}")
            left, right = both
        else:
            right = self._reference(scalars_)
            left = self._own_side(scalars_, right, view.tool_stems)
            if (
                left is not None
                and self.mode == "to"
                and _names_origin(left.value, frozenset(attribute))
            ):
                return Outcome(
                    SATISFIED, f"{left.path} = {left.value!r} names the original", (left.path,)
                )
            if right is None or left is None:
                missing = self.right_phrase if right is None else self.left_phrase
                return Outcome(
                    UNKNOWN,
                    f"no one argument clearly gives the {missing}; the two values this rule "
                    "compares are not both clear",
                )
        args = (left.path, right.path)
        blank = [
            lf.path for lf in (left, right) if placeholder(lf.value) or not str(lf.value).strip()
        ]
        if blank:
            # `original_payment_method: ""` beside `refund_method: ""`: two stand-ins agree on
            # nothing
            return Outcome(UNKNOWN, f"{blank[0]} gives no value to compare", args)
        ln, rn = parse_number_value(left.value), parse_number_value(right.value)
        same = (
            ln == rn
            if ln is not None and rn is not None
            else normalise_value(str(left.value)) == normalise_value(str(right.value))
        )
        if not same:
            return self.fire(
                applies,
                f"{left.path} = {left.value!r} differs from {right.path} = {right.value!r}",
                args,
            )
        return Outcome(SATISFIED, f"{left.path} and {right.path} are the same", args)

    def _reference(self, leaves: list[Leaf]) -> Leaf | None:
        """The one argument carrying the attribute and the most of the reference's qualifiers,
        whose name says nothing else ('customer.preferred_currency' is not the billing one)."""
        attribute = frozenset(self._attribute)
        groups = _qualifier_groups(tuple(w for w in self.right if w not in attribute))
        if not groups:
            return None
        named = attribute | _ID_SUFFIX_WORDS | frozenset().union(*groups)
        scored = [
            (_covered(lf.keys, groups), lf)
            for lf in leaves
            if self._attribute[-1] in lf.keys and lf.keys <= named
        ]
        return _only_top(scored)

    def _own_side(
        self, leaves: list[Leaf], reference: Leaf | None, tool: frozenset[str]
    ) -> Leaf | None:
        """The one argument of the request's own side: it carries the attribute (or, for a
        destination, is named for one), none of the reference's qualifiers unless it names
        what is new ('new_assignee' beside 'current_assignee'), and the most of the left
        side's qualifiers; with none of them, the one whose name says nothing else."""
        attribute = frozenset(self._attribute)
        groups = _qualifier_groups(tuple(w for w in self.left if w not in attribute))
        own = frozenset().union(*groups) if groups else frozenset()
        theirs = frozenset(w for w in self.right if w not in attribute and w not in own)
        theirs_named = theirs - ORIGIN_WORDS
        head = self._attribute[-1]
        candidates = []
        for lf in leaves:
            if reference is not None and lf.path == reference.path:
                continue
            counterpart = bool(lf.keys & _NEW_WORDS)
            if lf.keys & (ORIGIN_WORDS | (frozenset() if counterpart else theirs)):
                continue
            if (
                head in lf.keys
                or (self.mode == "to" and lf.last_keys & _TARGET_KEYS)
                # 'bank_account_holder' for 'the bank account holder name': every qualifier
                # and nothing else
                or (
                    len(groups) >= 2
                    and _covered(lf.keys, groups) == len(groups)
                    and lf.keys <= own | _ID_SUFFIX_WORDS
                )
            ):
                candidates.append(lf)
        if groups:
            top = _only_top([(_covered(lf.keys, groups), lf) for lf in candidates])
            if top is not None or any(_covered(lf.keys, groups) for lf in candidates):
                return top
        if any(not g & (tool | _OWN_SIDE_WORDS) for g in groups):
            # 'Shipping country must match the billing country' and a bare `country`: the
            # request's own value only when the tool (or the act) is what qualifies it
            return None
        plain = attribute | own | _OWN_SIDE_WORDS | frozenset(self.terms) | theirs_named
        clean = [
            lf
            for lf in candidates
            if lf.keys <= plain and (lf.keys & _NEW_WORDS or not lf.keys & theirs_named)
        ]
        # 'destination_account' or 'settlement_currency' beside the one plain name: either may
        # be where the value goes, so a human decides
        return clean[0] if len(clean) == 1 and len(candidates) == 1 else None


_CHANGE_SIDE_WORDS = ORIGIN_WORDS | _NEW_WORDS | _TARGET_KEYS | frozenset({"from"})


def _two_sides_of_a_change(a: Leaf, b: Leaf) -> bool:
    """`from_owner_region` and `to_owner_region`, `current_owner.sales_region` and
    `new_owner.sales_region`: one name but for the side of the change ('account_region' beside
    a rep's region is another thing)."""
    return (
        a.keys - _CHANGE_SIDE_WORDS == b.keys - _CHANGE_SIDE_WORDS
        and a.keys & _CHANGE_SIDE_WORDS != b.keys & _CHANGE_SIDE_WORDS
    )


def _only_top(scored: list[tuple[int, Leaf]]) -> Leaf | None:
    """The one leaf of the highest score (at least one), or None on a tie or with none."""
    top = max((s for s, _ in scored), default=0)
    best = [lf for s, lf in scored if s == top]
    return best[0] if top and len(best) == 1 else None


@dataclass(frozen=True)
class PrefixedCount(Check):
    """'No more than 50 laptops (SKU prefix LAP-) on a single PO': the quantities of the line
    items whose `key` starts with `prefix`, summed over the request's list of items, against a
    cap. Without such a list (or with an item whose quantity cannot be read), a human decides.
    """

    key: str = ""  # stem of the item field the prefix is read from ('sku')
    prefix: str = ""
    op: str = "gt"  # fires when the total OP threshold
    threshold: float = 0.0
    noun: str = ""  # what the matching items are ('laptops'), for readings
    kind: str = field(default="prefixed_count", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(key=self.key, prefix=self.prefix, op=self.op, threshold=self.threshold)
        return d

    def reading(self) -> str:
        return (
            f"{_VERB[self.effect]} when the items whose {self.key} starts with {self.prefix} "
            f"({self.noun}) total {OP_WORDS[self.op]} {_fmt(self.threshold)}{self._about()}"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        lists = [
            v
            for v in view.tool_args.values()
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
        ]
        total = 0.0
        seen = False
        for items in lists:
            for item in items:
                code = next(
                    (val for k, val in item.items() if stem(str(k).lower()) == self.key), None
                )
                if code is None:
                    continue
                seen = True
                if not str(code).upper().startswith(self.prefix.upper()):
                    continue
                qty = next(
                    (
                        val
                        for k, val in item.items()
                        if stem(str(k).lower()) in _TALLY_KEYS or str(k).lower() in ("qty", "units")
                    ),
                    None,
                )
                number = parse_number_value(qty) if qty is not None else None
                if number is None:
                    return Outcome(
                        UNKNOWN, f"an item starting with {self.prefix} has no quantity to count"
                    )
                total += number
        if not seen:
            return Outcome(UNKNOWN, f"no list of items with a {self.key} is among the arguments")
        if _OPS[self.op](total, self.threshold):
            return self.fire(
                "matched" if applies == "matched" else applies,
                f"items starting with {self.prefix} total {_fmt(total)}, "
                f"{_OP_WORDS[self.op]} {_fmt(self.threshold)}",
            )
        return Outcome(SATISFIED, f"items starting with {self.prefix} total {_fmt(total)}")


# Arguments by which a request lasts or repeats past the moment its date or time gives.
_SPAN_KEYS = frozenset(
    stem(w)
    for w in "duration recurring recurrence recur repeat repeats frequency interval cron "
    "rrule until end through stagger rollout delay deferred defer postpone offset".split()
)


_REPEATS = re.compile(r"\b(?:every|daily|nightly|weekly|hourly|each\s+day)\b", re.I)


@dataclass(frozen=True)
class _WhenTheRequestIs(Check):
    """A `body` that applies only when the request's own date or time of day is on the rule's
    side (`phrase`, the rule's words). Subclasses say where the request stands (`_placed`)."""

    phrase: str = ""
    body: Check | None = None
    outside_words = "is not"  # 'search_at is not before 21:00'

    def subject(self) -> str:
        return self.body.subject() if self.body else ""

    def _placed(self, view: RequestView) -> tuple[bool, list[str], str]:
        """(inside the rule's side, the arguments read, why it cannot be told or '')."""
        raise NotImplementedError

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.body is not None
        outcome = self.body.evaluate(view)
        if outcome.status not in (VIOLATED, REVIEW, UNKNOWN):
            return outcome
        inside, paths, doubt = self._placed(view)
        if doubt:
            return Outcome(UNKNOWN, f"{outcome.message}; {doubt}", tuple(paths))
        if inside:
            return Outcome(
                outcome.status,
                f"{outcome.message} ({', '.join(paths)} is {self.phrase})",
                outcome.args + tuple(paths),
            )
        for lf in view.leaves:
            if (lf.last_keys & _SPAN_KEYS and truthy(lf.value)) or (
                isinstance(lf.value, str) and _REPEATS.search(lf.value)
            ):
                # a Thursday deploy lasting 30 hours, one recurring daily: the request reaches
                # past the moment read, perhaps onto the rule's side; a human decides
                return Outcome(
                    UNKNOWN,
                    f"{outcome.message}; {lf.path} = {lf.value!r} may carry it onto {self.phrase}",
                    tuple(paths) + (lf.path,),
                )
        return Outcome(
            SATISFIED, f"{', '.join(paths)} {self.outside_words} {self.phrase}", tuple(paths)
        )


@dataclass(frozen=True)
class DateWindow(_WhenTheRequestIs):
    """'Do not disconnect residential customers between Nov 1 and Mar 31': the `body` applies to
    requests whose date argument falls in the window (month and day, across a year's end).
    Without a date argument, or with several that disagree, a human decides."""

    start: tuple[int, int] = (1, 1)  # (month, day)
    end: tuple[int, int] = (12, 31)
    # the years when the rule writes them ('from 2025-11-24 through 2025-12-02'): the window is
    # then those days of those years only, never the same days of another year
    start_year: int = 0
    end_year: int = 0
    # the date argument the rule names ('no sends (send_date)', 'a po_date Jun 15 - Jun 30'): the
    # window reads that argument alone; a request without it, or with a value that is no date,
    # goes to a human (another date of the request says nothing of this one)
    argument: str = ""
    # whether the two end days are inside ('inclusive', 'exclusive': boundaries.WINDOW_ENDS)
    ends_inside: bool = True
    # the window's own name written as the rule's heading ('Quiet period', 'Holiday moratorium')
    label: str = ""
    kind: str = field(default="date_window", init=False)
    outside_words = "is outside"

    def describe(self) -> dict[str, Any]:
        d = self.body.describe() if self.body else super().describe()
        d["window"] = {"start": list(self.start), "end": list(self.end)}
        if self.start_year and self.end_year:
            d["window"]["years"] = [self.start_year, self.end_year]
        if self.argument:
            d["window"]["argument"] = self.argument
        if not self.ends_inside:
            d["window"]["ends"] = "exclusive"
        return d

    def reading(self) -> str:
        assert self.body is not None
        if not self.argument:
            return f"When the request's date is {self.phrase}: {self.body.reading()}"
        ends = "both end days included" if self.ends_inside else "both end days excluded"
        if self.start_year == 1 or self.end_year == 9999:
            ends = "the written day itself " + (
                "included"
                if re.search(r"\bon\s+or\b|\bno\s+(?:later|earlier)\b", self.phrase, re.I)
                else "excluded"
            )
        if self.label:
            ends = f"the {self.label.lower()}; {ends}"
        return (
            f"When `{self.argument}` is {self.phrase} ({ends}; without a readable "
            f"`{self.argument}`, review): {self.body.reading()}"
        )

    def _placed(self, view: RequestView) -> tuple[bool, list[str], str]:
        inside: set[bool | None] = set()
        paths: list[str] = []
        if self.argument:
            named = [lf for lf in view.leaves if lf.path.rsplit(".", 1)[-1] == self.argument]
            if not named:
                return False, [self.argument], f"the request carries no {self.argument}"
        for lf in view.leaves:
            if self.argument:
                if lf.path.rsplit(".", 1)[-1] != self.argument:
                    continue
                named_day = _ISO_DATE.match(lf.value.strip()) if isinstance(lf.value, str) else None
                if not named_day or not _calendar_day(named_day):
                    return False, [lf.path], f"{lf.path} = {lf.value!r} is no date"
            elif not isinstance(lf.value, str) or lf.last_keys & _NOT_ACTION_DATES:
                continue  # a birth date or an expiry says nothing of when the action happens
            m = _ISO_DATE.match(lf.value.strip())
            if m and not _calendar_day(m):
                # '2025-06-31', '2025-13-25': no day of the calendar, on no side of the window
                return False, [lf.path], f"{lf.path} = {lf.value!r} is no date"
            if not m:
                if (
                    _dated_key(lf.path)
                    and _OTHER_DATE_FORM.search(lf.value)
                    and not lf.last_keys & _NOT_ACTION_DATES
                ):
                    # '12/25/2025', 'Dec 25 2025': a date this window does not read may be on
                    # its days; skipping it would let the other dates alone approve
                    return False, [lf.path], f"{lf.path} = {lf.value!r} is a date not read"
                continue
            inside.add(self._day_inside(m))
            paths.append(lf.path)
        if None in inside:
            return False, paths, f"the request's date-time is {self.phrase} in some time zones"
        if len(inside) != 1:
            return False, paths, "the request's date cannot be told"
        if self.argument and inside == {False}:
            # the named date is outside; another date of the request inside the window may be
            # the one the rule meant ('no refunds Dec 1 - Dec 31 for orders with an order_date'
            # and a `refund_date` in December): a human decides, never an approval
            for lf in view.leaves:
                if lf.path.rsplit(".", 1)[-1] == self.argument or lf.last_keys & _NOT_ACTION_DATES:
                    continue
                if _dated_key(lf.path) and isinstance(lf.value, (int, float)) and lf.value > 1e8:
                    # `resend_at: 1766620800`: a date as seconds since 1970, not read here
                    return False, paths + [lf.path], f"{lf.path} = {lf.value!r} is a date not read"
                written = [v for v in scalars(lf.value) if isinstance(v, str)]
                if len(written) != 1 or written[0] != lf.value:
                    # `send_dates: ["2025-12-25"]`: each member is another date of the request
                    if any(self._member_may_be_inside(v) for v in written):
                        return False, paths + [lf.path], f"{lf.path} may be {self.phrase}"
                    continue
                other = _ISO_DATE.match(lf.value.strip())
                if (other and not _calendar_day(other)) or (
                    not other and _OTHER_DATE_FORM.search(lf.value)
                ):
                    # 'effective_on': '12/01/2025', '2025-06-31': another date of the request
                    # written so it cannot be placed may be inside the window
                    return False, paths + [lf.path], f"{lf.path} = {lf.value!r} is a date not read"
                if (
                    other
                    and not lf.last_keys & _NOT_ACTION_DATES
                    and self._day_inside(other)
                    in (
                        True,
                        None,
                    )
                ):
                    return False, paths + [lf.path], f"{lf.path} is {self.phrase}"
        return inside.pop(), paths, ""

    def _member_may_be_inside(self, value: str) -> bool:
        """Whether a member of a list of dates may be inside the window: inside, a date not
        read ('12/25/2025') or no day of the calendar ('2025-06-31')."""
        day = _ISO_DATE.match(value.strip())
        if day is None:
            return _OTHER_DATE_FORM.search(value) is not None
        return not _calendar_day(day) or self._day_inside(day) is not False

    def _day_inside(self, m: re.Match[str]) -> bool | None:
        """Whether the ISO date `m` (of `_ISO_DATE`) is inside the window; None for an instant
        with a zone that is inside in some of the zones a tenant may keep its calendar in and
        outside in others ('2025-12-23T23:30:00Z' is Dec 24 an hour east): a human decides."""
        instant = _ISO_INSTANT.match(m.group(0).strip())
        if instant and instant.group(4) and instant.group(6):
            zone = instant.group(6).upper()
            offset = (
                0 if zone == "Z" else int(zone[0] + "1") * (int(zone[1:3]) * 60 + int(zone[-2:]))
            )
            utc = datetime(
                int(instant.group(1)), int(instant.group(2)), int(instant.group(3)),
                int(instant.group(4)), int(instant.group(5)),
            ) - timedelta(minutes=offset)  # fmt: skip
            seen = {self._ymd_inside((utc + timedelta(hours=h)).timetuple()[:3]) for h in _ZONES}
            return seen.pop() if len(seen) == 1 else None
        return self._ymd_inside((int(m.group(1)), int(m.group(2)), int(m.group(3))))

    def _ymd_inside(self, ymd: tuple[int, int, int]) -> bool:
        if self.start_year and self.end_year:
            first, last = (self.start_year, *self.start), (self.end_year, *self.end)
            return first <= ymd <= last and (self.ends_inside or ymd not in (first, last))
        return self._contains((ymd[1], ymd[2]))

    def _contains(self, md: tuple[int, int]) -> bool:
        if not self.ends_inside and md in (self.start, self.end):
            return False
        if self.start <= self.end:
            return self.start <= md <= self.end
        return md >= self.start or md <= self.end  # 'Nov 1 to Mar 31' runs over the new year


# Days of the week as requests send them ('day_of_week': 'Saturday', 'Sat'); Monday is 0.
_DAY_NAMES = {d: i for i, names in enumerate(
    ("mon monday", "tue tues tuesday", "wed weds wednesday", "thu thur thurs thursday",
     "fri friday", "sat saturday", "sun sunday")
) for d in names.split()}  # fmt: skip
_ISO_INSTANT = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?)?$",
    re.I,
)
# The zones a tenant may keep its calendar in, in hours from UTC: a request's instant with a
# zone is on one day of the week for the rule only if it is on that day in all of them.
_ZONES = range(-12, 15)


@dataclass(frozen=True)
class Weekday(_WhenTheRequestIs):
    """'no prod deploys fri pm', 'No contractor work on weekends': the `body` applies to requests
    whose day of the week (a date, a date-time or a day argument) is one of `days`, and with
    `part` in its afternoon ('pm') or morning ('am'). A date-time with a zone is on the rule's
    side only when it is in every zone a tenant may keep (the rule names none); a day with no
    time of day against a part of it, no day at all, or days that disagree: a human decides."""

    days: tuple[int, ...] = ()  # 0 = Monday
    part: str = ""  # '' | 'am' | 'pm'
    kind: str = field(default="weekday", init=False)
    outside_words = "is not"

    def describe(self) -> dict[str, Any]:
        d = self.body.describe() if self.body else super().describe()
        d["weekday"] = {"days": list(self.days), "part": self.part}
        return d

    def reading(self) -> str:
        assert self.body is not None
        names = ", ".join(calendar.day_name[d] for d in self.days)
        part = {"am": " morning", "pm": " afternoon"}.get(self.part, "")
        return (
            f"When the request's day is {names}{part} (the rule: '{self.phrase}'): "
            f"{self.body.reading()}"
        )

    def _inside(self, day: int, hour: int | None) -> bool | None:
        if day not in self.days:
            return False
        if not self.part:
            return True
        if hour is None:
            return None  # the day is the rule's, the time of day is not said
        return hour >= 12 if self.part == "pm" else hour < 12

    def _read(self, value: str) -> bool | None:
        """Whether `value` is on the rule's side; None when it cannot be told or is no day."""
        v = value.strip()
        day = _DAY_NAMES.get(v.lower().rstrip("."))
        if day is not None:
            return self._inside(day, None)
        m = _ISO_INSTANT.match(v)
        if not m:
            return None
        try:
            when = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
        if m.group(4) is None:
            return self._inside(when.weekday(), None)
        when = when.replace(hour=int(m.group(4)), minute=int(m.group(5)))
        zone = m.group(6)
        if not zone:
            return self._inside(when.weekday(), when.hour)  # local time, as the rule's
        if zone.upper() != "Z":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            when -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
        seen = {
            self._inside((when + timedelta(hours=h)).weekday(), (when + timedelta(hours=h)).hour)
            for h in _ZONES
        }
        return seen.pop() if len(seen) == 1 else None

    def _placed(self, view: RequestView) -> tuple[bool, list[str], str]:
        inside: set[bool | None] = set()
        paths: list[str] = []
        for lf in view.leaves:
            if not isinstance(lf.value, str) or lf.last_keys & _NOT_ACTION_DATES:
                continue  # a birth date or an expiry says nothing of when the action happens
            v = lf.value.strip()
            if v.lower().rstrip(".") not in _DAY_NAMES and not _ISO_INSTANT.match(v):
                continue
            inside.add(self._read(v))
            paths.append(lf.path)
        if len(inside) != 1 or None in inside:
            return False, paths, "the request's day of the week cannot be told"
        return bool(inside.pop()), paths, ""


_NOT_ACTION_DATES = frozenset(
    stem(w) for w in "birth dob born expiry expires expiration created issued opened".split()
)
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
# A date written other than in ISO form, inside any text: '12/25/2025', '25.12.2025', '12/25',
# 'Dec 25', '25 December', 'Dec. 25th'. A date window cannot place it, so it never approves.
_MONTH_WORD = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?:\.|(?![a-z]))"
)
_OTHER_DATE_FORM = re.compile(
    r"(?<![\d.:/-])(?:\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)?\d\d|\d{1,2}/\d{1,2})(?![\d.:/-])"
    r"|\b" + _MONTH_WORD + r"\s+\d{1,2}(?:st|nd|rd|th)?\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH_WORD + r"(?![a-z])",
    re.I,
)
# a key that names a date or a moment ('resend_date', 'send_on', 'effective_at', 'sent_ts')
_DATED_KEY = re.compile(r"(?:date|day|_on|_at|time|_ts|timestamp|epoch|when)$", re.I)


def _dated_key(path: str) -> bool:
    return _DATED_KEY.search(re.sub(r"\[\d*\]", "", path).rsplit(".", 1)[-1]) is not None


def _calendar_day(m: re.Match[str]) -> bool:
    """Whether the ISO date `m` (of `_ISO_DATE`) is a day of the calendar."""
    try:
        datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


# 'before 21:00', 'after 6pm': a time of day, in minutes after midnight.
_CLOCK = re.compile(
    r"^(?:(?P<date>\d{4}-\d{2}-\d{2})[T ])?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?(?::\d{2}(?:\.\d+)?)?"
    r"\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)?\s*(?P<tz>Z|UTC|[+-]\d{2}:?\d{2})?$",
    re.I,
)


def clock_minutes(text: str, bare_hour: bool = False) -> tuple[int, bool] | None:
    """(minutes after midnight, whether a zone is given) of a time of day written in `text`
    ('21:00', '9pm', '2026-11-24T20:30:00Z'); None when it is not one. A bare number ('9') is a
    time only with `bare_hour` and never in a request's value."""
    m = _CLOCK.match(text.strip())
    if not m:
        return None
    if m.group("m") is None and not m.group("ampm") and not (bare_hour and not m.group("date")):
        return None
    h, mins = int(m.group("h")), int(m.group("m") or 0)
    ampm = (m.group("ampm") or "").lower().replace(".", "")
    if ampm:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ampm == "pm" else 0)
    if h > 23 or mins > 59:
        return None
    return h * 60 + mins, bool(m.group("tz"))


@dataclass(frozen=True)
class TimeOfDay(_WhenTheRequestIs):
    """'Gambling ads may not air before 21:00': the `body` applies to requests whose time of
    day (a time or a date-time argument) is on the rule's side of the bound. Without one, with
    several that disagree, or with a time zone the rule does not state, a human decides."""

    op: str = "lt"  # the body applies when the request's time OP minutes
    minutes: int = 0
    kind: str = field(default="time_of_day", init=False)

    def describe(self) -> dict[str, Any]:
        d = self.body.describe() if self.body else super().describe()
        d["time_of_day"] = {"op": self.op, "minutes": self.minutes}
        return d

    def reading(self) -> str:
        assert self.body is not None
        h, m = divmod(self.minutes, 60)
        side = {"lt": "before", "gt": "after"}[self.op]
        return (
            f"When the request's time of day is {side} {h:02d}:{m:02d} "
            f"(the rule: '{self.phrase}'): {self.body.reading()}"
        )

    def _placed(self, view: RequestView) -> tuple[bool, list[str], str]:
        inside: set[bool] = set()
        paths: list[str] = []
        zoned = False
        for lf in view.leaves:
            if not isinstance(lf.value, str) or lf.last_keys & _NOT_ACTION_DATES:
                continue
            read = clock_minutes(lf.value)
            if read is None:
                continue
            minutes, tz = read
            zoned = zoned or tz
            inside.add(_OPS[self.op](minutes, self.minutes))
            paths.append(lf.path)
        if zoned:
            return False, paths, "the request's time of day has a time zone the rule does not state"
        if len(inside) != 1:
            return False, paths, "the request's time of day cannot be told"
        return inside.pop(), paths, ""


# ---------------------------------------------------------------------------------------------
# An explicit binding: the rule names the argument and its required value itself ('(fee_status =
# "paid")', 'creator must have tax_form_on_file = true', '(legal_case_id given)',
# 'session_timeout_minutes between 15 and 60'). The value is compared as written, typed: a request
# stating it in another case or type ('Paid', "yes" or 1 for true) is no proof either way.
_BINDING_OPS = {"eq": "is", "ne": "is not", "present": "is given", "between": "is between"}


def binding_literal(raw: str) -> Any:
    """A value written in a rule's binding or gloss: a quoted string, true/false, a number, or the
    word as written."""
    raw = raw.strip()
    if raw[:1] in "\"'" and raw[-1:] == raw[:1] and len(raw) >= 2:
        return raw[1:-1]
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"-?\d+(?:\.\d+)?", raw):
        return float(raw)
    return raw


def _literal_text(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _fmt(value)
    return f'"{value}"'


def binding_equal(got: Any, want: Any) -> bool | None:
    """Whether a request's value is the rule's literal value: True, False, or None when it is
    written in another case or type ('Active' for "active", "yes" or 1 for true) and a human must
    say whether it is the same."""
    if isinstance(want, bool):
        if isinstance(got, bool):
            return got is want
        if isinstance(got, str) and got.strip() in ("true", "false"):
            return (got.strip() == "true") is want  # JSON's own spelling of a flag
        return None
    if isinstance(want, float):
        if isinstance(got, bool):
            return None
        if isinstance(got, (int, float)):
            return float(got) == want
        return None
    if isinstance(got, str):
        if got == want:
            return True
        if got.strip().lower() == want.lower() or normalise_value(got) == normalise_value(want):
            return None  # 'Active', 'paid ': the same word in another case or spacing
        got_tokens = set(_VALUE_TOKENS.split(got.lower())) - {""}
        want_tokens = set(_VALUE_TOKENS.split(want.lower())) - {""}
        if want_tokens and (want_tokens <= got_tokens or got_tokens <= want_tokens):
            return None  # 'pre_collections', 'active_pending': close to the value, not it
        return False
    return None


_VALUE_TOKENS = re.compile(r"[\s_\-./:]+")


@dataclass(frozen=True)
class Binding(Check):
    """'Orders require an account in good standing (account_status = active)': the argument the
    rule names (a dotted path for a nested one) must hold the rule's value (`op` eq), must not
    (ne), must be given (present) or must lie within two bounds (between, inclusive). The words
    that only gloss the binding ('an account in good standing') are read by it (`written`); every
    other word of the rule is read by its own check or stays unaccounted."""

    path: str = ""
    op: str = "eq"
    value: Any = None
    high: float | None = None
    gloss: str = ""
    written: str = ""  # the rule's words the binding reads: its gloss and the binding itself
    markers: tuple[str, ...] = ()  # 'only', 'only once': the restriction the binding states
    reads: tuple[str, ...] = ()  # subject stems the bound argument or value holds ('token')
    kind: str = field(default="binding", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(path=self.path, op=self.op, value=self.value, high=self.high)
        return d

    def _want(self) -> str:
        if self.op == "present":
            return "is missing or empty"
        if self.op == "between":
            return f"is not between {_fmt(float(self.value))} and {_fmt(float(self.high or 0))}"
        if self.op == "eq":
            return f"is not {_literal_text(self.value)}"
        return f"is {_literal_text(self.value)}"

    def reading(self) -> str:
        gloss = f" ({self.gloss})" if self.gloss else ""
        return f"{_VERB[self.effect]} when `{self.path}`{gloss} {self._want()}{self._about()}"

    def _leaves(self, view: RequestView) -> list[Leaf]:
        path = self.path
        return [lf for lf in view.leaves if lf.path == path or lf.path.endswith("." + path)]

    def _near(self, view: RequestView) -> Leaf | None:
        """An argument that may state the binding under another name or place: the named path's
        parent object, or a name sharing the binding's last words (`setpoint_f` for
        `setpoint_c`, `account.status` for `account_status`)."""
        segments = self.path.split(".")
        parent = ".".join(segments[:-1])
        wanted = frozenset(stem(w) for w in words(segments[-1]) if len(w) > 2) - _ID_KEYS
        for lf in view.leaves:
            if parent and (lf.path.startswith(parent + ".") or ("." + parent + ".") in lf.path):
                return lf
            if wanted and (wanted & lf.last_keys or wanted <= lf.keys):
                return lf
        return None

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = self._leaves(view)
        if not leaves and self.unrelated(view):
            return _NOT_APPLICABLE  # none of the rule's words is in the request
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        if not leaves:
            near = self._near_outcome(view)
            if near is not None:
                return near
            if self.op == "between":
                return _not_applicable_or_satisfied(anchored)  # the request does not set it
            if self.op == "ne":
                return Outcome(UNKNOWN, f"`{self.path}` is not among the arguments")
            return self.fire(applies, f"`{self.path}` is not among the arguments")
        if len({lf.path for lf in leaves}) > 1:
            # '(type = site)' and both `ship_to.type` and `payment.type`: which one the rule
            # names is for a human to say
            return self._several_outcome(leaves)
        worst: Outcome | None = None
        for leaf in leaves:
            held = self._holds(leaf.value)
            if held is False:
                return self.fire(
                    applies,
                    f"{leaf.path} = {leaf.value!r}, but the rule requires "
                    f"`{self.path}` {_BINDING_OPS[self.op]} {self._value_words()}".rstrip(),
                    (leaf.path,),
                )
            if held is None and worst is None:
                worst = Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {leaf.value!r} is not written as the rule's value "
                    f"{self._value_words()}; a human should decide",
                    (leaf.path,),
                )
        if worst is not None:
            return worst
        beside = self._beside(view, leaves)
        if beside is None and self.op == "between":
            # `session_timeout_minutes: 45` beside `unit: "hours"`: the number's unit is said
            # by another argument, so it may not be the named one's
            beside = next(
                (u for lf in leaves if (u := _find_unit_argument(view, lf)) is not None), None
            )
        if beside is not None:
            return self._beside_outcome(beside)
        return Outcome(
            SATISFIED,
            f"`{self.path}` {_BINDING_OPS[self.op]} {self._value_words()}".rstrip(),
            tuple(lf.path for lf in leaves),
        )

    # The outcomes of looking the named argument up, shared with the checks built on a binding
    # (glosses.Glossed): close to it, named several times, or stated otherwise beside it.
    def _near_outcome(self, view: RequestView) -> Outcome | None:
        near_leaf = self._near(view)
        if near_leaf is None:
            return None
        return Outcome(
            UNKNOWN,
            f"`{self.path}` is not among the arguments, but {near_leaf.path} may state it",
            (near_leaf.path,),
        )

    def _several_outcome(self, leaves: list[Leaf]) -> Outcome:
        return Outcome(
            UNKNOWN,
            f"`{self.path}` names several arguments ({', '.join(lf.path for lf in leaves)})",
            tuple(lf.path for lf in leaves),
        )

    def _beside_outcome(self, beside: Leaf) -> Outcome:
        return Outcome(
            UNKNOWN,
            f"{beside.path} = {beside.value!r} may state `{self.path}` otherwise; a human "
            "should decide",
            (beside.path,),
        )

    def _value_words(self) -> str:
        if self.op == "present":
            return ""
        if self.op == "between":
            return f"{_fmt(float(self.value))} and {_fmt(float(self.high or 0))}"
        return _literal_text(self.value)

    def _beside(self, view: RequestView, leaves: list[Leaf]) -> Leaf | None:
        """Another argument named with the bound argument's whole name ('account_status_override',
        'idle_session_timeout_minutes', `invoice_ref_status`, the same name inside another object
        or list) whose value the binding would not accept: it may be the value that counts."""
        own = {id(lf) for lf in leaves}
        last = self.path.rsplit(".", 1)[-1]
        for lf in view.leaves:
            if id(lf) in own or lf.value is None:
                continue
            own_words = self._keys - _FLAG_FILLER
            if lf.path.rsplit(".", 1)[-1] != last and not (own_words and own_words <= lf.keys):
                # `account.status` beside `account_status`, `test_mode` beside `is_test`
                continue
            if self.op == "present":
                if no_reference(lf.value) or outcome_stated(lf.value) is False:
                    return lf
            elif self._holds(lf.value) is not True:
                return lf
        return None

    @cached_property
    def _keys(self) -> frozenset[str]:
        # the words of the named argument's own name ('legal_case_id': legal, case, id)
        last = self.path.rsplit(".", 1)[-1].lower()
        return frozenset(stem(w) for w in re.split(r"[^a-z0-9]+", last) if w)

    def _holds(self, got: Any) -> bool | None:
        if self.op == "present":
            if truthy(got) and no_reference(got, self._keys):
                return None  # 'none yet', 'to follow': may say the value is not there
            return truthy(got)
        if isinstance(got, (list, tuple, dict)):
            return None  # a list or an object is not the one value the rule names
        if self.op == "between":
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                return None
            return float(self.value) <= float(got) <= float(self.high or 0)
        same = binding_equal(got, self.value)
        if same is None:
            return None
        return same if self.op == "eq" else not same


# Words an argument's name adds around a setting without changing which way it points:
# `require_mfa`, `mfa_enabled`, `enforce_sso`, `is_public_sharing` all hold the setting 'on' as
# true. A name with a word that turns it around (`mfa_disabled`, `allow_no_mfa`) is not one of
# them: it is only near the setting (review).
_SETTING_SAME_WAY = frozenset(
    stem(w) for w in ("require", "required", "enable", "enabled", "enforce", "enforced", "is")
)
# The request's own spellings of a switch whose meaning is certain. 'yes', 1, 'Enabled',
# 'partially', 'pending' are not read (review): a human says what they mean.
_SWITCH_WORDS = {"true": True, "on": True, "enabled": True, "false": False, "off": False}
_SWITCH_WORDS["disabled"] = False


def switch_value(got: Any) -> bool | None:
    """A request's value for an on/off setting: True, False, or None when not certain."""
    if isinstance(got, bool):
        return got
    if isinstance(got, str):
        return _SWITCH_WORDS.get(got.strip())
    return None


@dataclass(frozen=True)
class SettingState(Binding):
    """'Interactive login must be disabled for service accounts', 'MFA must stay on', 'Agents
    can't turn off require_sso': an on/off setting the rule names must hold the state its words
    require (`value`, True for on/enabled). The argument is the one named for the setting's words
    (`setting`, stems), alone or with a word that keeps its direction (`require_mfa`,
    `versioning_enabled`), at any depth; or the argument the rule writes by name (`path`). Two
    such arguments, a name that only shares the words (`mfa_disabled`), a value not certainly
    on or off, or no such argument: unknown (review). Never approves on a missing setting."""

    setting: frozenset[str] = frozenset()
    kind: str = field(default="setting_state", init=False)

    def _want(self) -> str:
        return f"is not {'on' if self.value else 'off'}"

    def reading(self) -> str:
        name = f"`{self.path}`" if self.setting == frozenset() else (self.gloss or self.path)
        return f"{_VERB[self.effect]} when {name} {self._want()}{self._about()}"

    def _leaves(self, view: RequestView) -> list[Leaf]:
        if not self.setting:
            return super()._leaves(view)
        out = []
        for lf in view.leaves:
            last = lf.path.rsplit(".", 1)[-1]
            own = frozenset(stem(w.lower()) for w in words(last))
            if own - _SETTING_SAME_WAY == self.setting:
                out.append(lf)
        return out

    def _near(self, view: RequestView) -> Leaf | None:
        if not self.setting:
            return super()._near(view)
        for lf in view.leaves:
            if self.setting <= lf.keys:
                return lf
        return None

    def _silent(self, view: RequestView) -> bool:
        """True when the request shows neither the setting's words nor the scope's: the rule
        does not speak of it (another tool of the policy)."""
        for t in (*self.setting, *self.terms, *(stem(w) for w in words(self.path.lower()))):
            if view.matches_memo.get(t) if t in view.matches_memo else view.term_matches(t):
                return False
        return True

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = self._leaves(view)
        if (
            not leaves
            and self._silent(view)
            and not self._whole_object(view)
            and not self._some_switch(view)
        ):
            return _NOT_APPLICABLE  # none of the rule's words is in the request, and no switch
        applies, anchored = self.applicability(view) if self.terms else ("matched", True)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        paths = tuple(dict.fromkeys(lf.path for lf in leaves))
        if not leaves:
            near_leaf = self._near(view)
            if near_leaf is not None:
                return Outcome(
                    UNKNOWN,
                    f"no argument is named for {self._name()}, but {near_leaf.path} may state it",
                    (near_leaf.path,),
                )
            # a setting the request does not show is not shown to be in the required state
            return Outcome(UNKNOWN, f"no argument states {self._name()}")
        if len(paths) > 1:
            return Outcome(
                UNKNOWN, f"several arguments may be {self._name()} ({', '.join(paths)})", paths
            )
        leaf = leaves[0]
        got = switch_value(leaf.value)
        if got is None and leaf.value in (0, 1) and not isinstance(leaf.value, bool):
            # 0 and 1 are a switch's off and on often enough to deny on the wrong one, never
            # enough to approve on the right one (a count or a level reads the same)
            got = bool(leaf.value)
            if got is self.value:
                got = None
        if got is None:
            return Outcome(
                UNKNOWN,
                f"{leaf.path} = {leaf.value!r} is not certainly on or off; a human should decide",
                paths,
            )
        if got is not self.value:
            return self.fire(
                applies,
                f"{leaf.path} = {leaf.value!r}, but the rule requires {self._name()} "
                f"to be {'on' if self.value else 'off'}",
                paths,
            )
        return Outcome(SATISFIED, f"{leaf.path} is {'on' if self.value else 'off'}", paths)

    def _name(self) -> str:
        return f"`{self.path}`" if not self.setting else (self.gloss or self.path)

    @staticmethod
    def _some_switch(view: RequestView) -> bool:
        """'Multi-factor authentication must stay on' and `mfa: false`: a switch in the request
        may be the setting under a name the rule does not spell (an acronym, a short form), so
        the rule is not passed by; without any switch the request sets nothing on or off."""
        return any(switch_value(lf.value) is not None for lf in view.leaves)

    def _whole_object(self, view: RequestView) -> bool:
        """'Agents can't turn off require_sso' and `settings: {session_timeout: 30}`: a setting
        named only by its argument may sit in an object sent whole, whose missing member a tool
        may reset. Not shown either way: a human decides."""
        return not self.setting and any("." in lf.path for lf in view.leaves)


# Values that state a condition's opposite outright ('audit: "failed"' against 'audit clear').
# Anything else that is not the state word itself ('pending', 'partially_clear', 'Clear ') is
# not certain: review.
_CONDITION_FAILED = frozenset(
    {"failed", "fail", "rejected", "declined", "denied", "unpaid", "flagged", "not_clear", "hit"}
)
_CONDITION_NAME_EXTRA = frozenset(stem(w) for w in ("status", "result", "state", "outcome"))
_COMPARE = {
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}


@dataclass(frozen=True)
class Condition:
    """One condition of a conjunction, as written: `form` says how it is read.

    flag      '`ownership_verified` is true': the named argument holds `value` (a bool)
    state     'background check clear', 'renewal fee paid': a flag named for the noun and the
              state (`renewal_fee_paid: true`), or the noun's argument holding the state word
              (`background_check: "clear"`)
    zero      'zero violations in the last 12 months': a count named for the noun and window is 0
    bound     'the content match score is at least 0.95': the measure's argument passes `op`
    """

    form: str
    phrase: str
    noun: frozenset[str] = frozenset()  # stems naming the argument
    head: str = ""  # the measure's last word (bound) or the state word (state)
    name: str = ""  # flag: the argument's own name
    value: Any = None
    op: str = ""
    window: float | None = None  # zero: the count's period ('in the last 12 months')

    def numbers(self) -> tuple[float, ...]:
        """The numbers this condition reads."""
        out = [float(self.value)] if self.form == "bound" else []
        return tuple(out + ([self.window] if self.window is not None else []))


@dataclass(frozen=True)
class AllConditions(Binding):
    """'… only if: zero violations in the last 12 months, background check clear, and renewal
    fee paid', '… only if the match score is at least 0.95 and ownership_verified is true': every
    condition must be shown by the request. One shown false: the rule fires (deny). One not
    shown, shown twice, or written in a way that is not certain: unknown (review)."""

    conditions: tuple[Condition, ...] = ()
    numbers: tuple[float, ...] = ()  # every number the conditions hold (the coverage reads them)
    kind: str = field(default="all_conditions", init=False)

    def reading(self) -> str:
        parts = "; ".join(c.phrase for c in self.conditions)
        return f"{_VERB[self.effect]} unless every condition holds: {parts}{self._about()}"

    def _candidates(self, view: RequestView, cond: Condition) -> list[tuple[Leaf, str]]:
        out: list[tuple[Leaf, str]] = []
        for lf in view.leaves:
            last = lf.path.rsplit(".", 1)[-1]
            own = frozenset(stem(w.lower()) for w in words(last))
            whole = lf.keys - {"0", "1", "2", "3"}  # `credit.check` names a credit check too
            if cond.form == "flag":
                if last == cond.name:
                    out.append((lf, "flag"))
            elif cond.form == "state":
                if cond.noun | {stem(cond.head)} in (own, whole):
                    out.append((lf, "flag"))
                elif cond.noun in (own - _CONDITION_NAME_EXTRA, whole - _CONDITION_NAME_EXTRA):
                    out.append((lf, "word"))
            elif cond.form == "zero":
                if cond.noun <= own:
                    out.append((lf, "count"))
            elif (
                cond.form == "bound"
                and own <= cond.noun
                and cond.head in own
                and len(own) >= min(2, len(cond.noun))  # a bare `score` may be another score
            ):
                out.append((lf, "number"))
        return out

    def _holds(self, cond: Condition, leaf: Leaf, how: str) -> bool | None:  # type: ignore[override]
        got = leaf.value
        if how == "flag":
            flag = (
                switch_value(got) if not isinstance(got, str) or got in ("true", "false") else None
            )
            if flag is None:
                return None
            return flag is (cond.value if cond.form == "flag" else True)
        if how == "word":
            if not isinstance(got, str):
                return None
            if got == cond.head:
                return True
            return False if got.strip().lower() in _CONDITION_FAILED else None
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return None
        if how == "count":
            return got == 0 if float(got).is_integer() and got >= 0 else None
        if (abs(float(got)) <= 1) != (abs(float(cond.value)) <= 1):
            return None  # 95 against 0.95, 0.9 against 80: another scale, a human reads it
        return _COMPARE[cond.op](float(got), float(cond.value))

    def _condition(self, view: RequestView, cond: Condition) -> tuple[bool | None, str, tuple]:
        found = self._candidates(view, cond)
        paths = tuple(dict.fromkeys(lf.path for lf, _ in found))
        if not found:
            return None, f"no argument shows '{cond.phrase}'", ()
        if len(paths) > 1:
            return None, f"several arguments may show '{cond.phrase}' ({', '.join(paths)})", paths
        leaf, how = found[0]
        held = self._holds(cond, leaf, how)
        if held is None:
            return (
                None,
                f"{leaf.path} = {leaf.value!r} does not certainly show '{cond.phrase}'",
                paths,
            )
        if held:
            return True, f"{leaf.path} = {leaf.value!r} shows '{cond.phrase}'", paths
        return False, f"{leaf.path} = {leaf.value!r}, but the rule requires '{cond.phrase}'", paths

    def evaluate(self, view: RequestView) -> Outcome:
        results = [self._condition(view, cond) for cond in self.conditions]
        if all(not args for _, _, args in results) and self.unrelated(view):
            return _NOT_APPLICABLE  # none of the rule's words is in the request
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        for held, message, args in results:
            if held is False:
                return self.fire(applies, message, args)
        for held, message, args in results:
            if held is None:
                return Outcome(UNKNOWN, message, args)
        return Outcome(
            SATISFIED,
            "; ".join(m for _, m, _ in results),
            tuple(a for _, _, args in results for a in args),
        )


# Words of an argument's name that say it holds a ticket or a reference of another system
# ('ticket', 'issue_key', 'change_ref'): where a branded reference may be written
_TICKET_KEYS = frozenset(
    stem(w) for w in "ticket issue case change incident request ref reference key".split()
)
# Words of an argument's name that say it holds no identifier ('charge_date' is not 'the
# original charge identifier'; 'refund_amount' is not 'a refund number')
_NOT_AN_IDENTIFIER = frozenset(
    stem(w)
    for w in ("date", "time", "timestamp", "amount", "count", "total", "days", "day")
    # 'ticket_type: "refund"', 'ticket_status' say what kind a thing is, not which one
    + ("type", "kind", "category", "status")
)
# Words of an argument's name that say it holds an approval ('treasury_approval_id',
# 'manager_approval', 'security_signoff_ref', 'sre_approver', 'tm_ok_ref').
APPROVAL_STEMS = frozenset(
    stem(w) for w in ("approval", "approver", "approved", "signoff", "sign", "off", "ok")
) | frozenset({"authoris", "authoriz", "authorisation", "authorization"})
# Members of an approval object that name who approved in which role, and its state.
_ROLE_KEYS = frozenset(stem(w) for w in ("role", "title", "position", "capacity"))
_STATE_MEMBER_KEYS = frozenset(stem(w) for w in ("status", "state", "decision", "outcome"))
# Members naming who approved, and words of a title said beside a name ('Jane Doe, Controller').
_WHO_KEYS = frozenset(stem(w) for w in ("by", "approver", "name", "who", "signed", "user"))
_TITLE_WORDS = frozenset(
    stem(w)
    for w in (
        "manager", "director", "controller", "lead", "officer", "head", "cfo", "ceo", "coo",
        "cto", "ciso", "vp", "president", "analyst", "agent", "associate", "assistant",
        "supervisor", "engineer", "specialist", "clerk", "owner", "admin", "administrator",
        "treasurer", "counsel", "partner", "chair", "dpo", "sre", "team", "deputy", "intern",
    )
)  # fmt: skip


def _titled_otherwise(value: str, approver: tuple[str, ...]) -> bool:
    """Whether a name of who approved carries a title that is not the approver's, or one of
    another rank ('Jane Doe, Controller' or 'J. Smith (team lead)' for a CFO)."""
    said = [stem(w) for w in re.findall(r"[A-Za-z]+", value.lower())]
    titles = [w for w in said if w in _TITLE_WORDS or w in _NOT_THE_ROLE]
    if not titles:
        return False
    return bool(set(titles) - set(approver)) or not set(titles) & set(approver)


# Words of an approval's record that say it was not given, or by no one who may give it
# ('M-1 declined', 'self', 'auto').
_NO_APPROVER = frozenset(
    {
        "self",
        "me",
        "myself",
        "agent",
        "bot",
        "system",
        "auto",
        "automatic",
        "automated",
        "not",
        "no",
    }
)


def _refused_elsewhere(view: RequestView, path: str, value: str) -> bool:
    """Whether the evidence's value is a member of another object of the request (list members
    included) whose state member does not state a good outcome."""
    want = value.strip().lower()
    for lf in view.leaves:
        if lf.path == path or "." not in lf.path:
            continue
        if not isinstance(lf.value, str) or lf.value.strip().lower() != want:
            continue
        parent = lf.path.rsplit(".", 1)[0]
        for sib in view.leaves:
            if (
                sib.path != lf.path
                and sib.path.rsplit(".", 1)[0] == parent
                and sib.last_keys & _STATE_MEMBER_KEYS
                and outcome_stated(sib.value) is not True
            ):
                return True
    return False


def _doubtful_record(value: str) -> bool:
    """Whether a word of an approval's record states a bad or unfinished outcome, or names no one
    who may approve ('M-1 declined', 'self')."""
    for w in re.findall(r"[A-Za-z]+", value.lower()):
        if w in _NO_APPROVER or outcome_stated(w) is False:
            return True
    return False


# Members an approval's record holds besides its identifier, state and role: who gave it and when.
# Any other member ('approved_amount', 'account_id', 'expires_at', 'scope') says what the
# approval covers, which the check does not compare with the request: review.
_RECORD_MEMBER_KEYS = frozenset(
    stem(w)
    for w in (
        "by", "approver", "approved", "approval", "name", "email", "user", "who",
        "date", "at", "time", "timestamp", "on", "when", "given", "signed",
    )
)  # fmt: skip
# Words of a role that make it another role than the one it names ('Assistant to the Finance
# Manager', 'Deputy Controller', 'acting CFO'): the role is not the rule's approver.
_NOT_THE_ROLE = frozenset(
    stem(w)
    for w in (
        "to", "of", "for", "under", "assistant", "assist", "deputy", "acting", "former", "vice",
        "associate", "junior", "trainee", "intern", "interim", "delegate", "backup", "proxy",
        "behalf", "reporting", "report", "not", "non", "ex", "candidate", "pending",
    )
)  # fmt: skip


def _entries(value: Any, prefix: str = "") -> list[tuple[str, str, Any]]:
    """Every (path, key, value) of the request's arguments at any depth, objects included."""
    found: list[tuple[str, str, Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            found.append((path, str(k), v))
            found.extend(_entries(v, path))
    return found


@lru_cache(maxsize=4096)
def _key_stems(key: str) -> frozenset[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key)
    return frozenset(stem(w) for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w)


class ApprovalEvidence:
    """A review the rule asks for, given when the request evidences the approval.

    'Wires over $25,000 need Treasury sign-off - put the approval ticket in
    treasury_approval_id', 'Deploys of tier-1 services need an SRE approver listed
    (sre_approver)': the argument the rule names (`evidence_path`). 'Account credits of at least
    $200 need a manager's approval' with `manager_approval`: an argument named for the approval
    and for who gives it (`approver`, the rule's stems). The check it is mixed into (`evidenced`
    makes the class: a NumericLimit stays a NumericLimit) says when the approval is needed; when
    it asks for review and the evidence holds a value that is no stand-in, states no pending or
    refused outcome and, in an approval object, names a role of the rule's approver, the rule
    holds. Missing evidence keeps the review; a doubtful one too. Never a denial."""

    evidence_path: str
    approver: tuple[str, ...]
    source: str
    effect: str

    def describe(self) -> dict[str, Any]:
        d = super().describe()  # type: ignore[misc]
        d.update(evidence={"path": self.evidence_path, "approver": list(self.approver)})
        return d

    def _who(self) -> str:
        # built once per check (its words never change), not per request
        who = self.__dict__.get("_who_words")
        if who is None:
            who = surface_words(self.source, self.approver) or "approver"
            who = self.__dict__["_who_words"] = re.sub(r"'s$", "", who)
        return who

    def reading(self) -> str:
        base = super().reading()  # type: ignore[misc]
        if self.evidence_path:
            where = f"`{self.evidence_path}` evidences the approval"
        else:
            where = f"an argument named for the {self._who()}'s approval evidences it"
        return (
            f"{base}, unless {where} (a value that is no stand-in and states no pending or "
            f"refused outcome; an approver's role, when given, must be the {self._who()}'s)"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        # the base class's own evaluate, looked up once per class (`_evidenced_class`)
        outcome = self._base_evaluate(view)  # type: ignore[attr-defined]
        status = outcome.status
        if status != REVIEW and status != UNKNOWN:
            return outcome
        holds, path, why = self._evidence(view)
        if holds:
            return Outcome(SATISFIED, f"{outcome.message}; {why}", (path,))
        return Outcome(
            outcome.status, f"{outcome.message}; {why}", outcome.args + ((path,) if path else ())
        )

    def _evidence(self, view: RequestView) -> tuple[bool | None, str, str]:
        walked = view.__dict__.get("_approval_entries")
        if walked is None:  # walked once per request, whatever number of rules read it
            every = _entries(view.tool_args)
            walked = view.__dict__["_approval_entries"] = (
                every,
                [e for e in every if _key_stems(e[1]) & APPROVAL_STEMS],
            )
        entries, approvals = walked
        if self.evidence_path:
            last = self.evidence_path.rsplit(".", 1)[-1].lower()
            named = [e for e in entries if e[0].lower() == self.evidence_path.lower()] or [
                e for e in entries if e[1].lower() == last
            ]
            if not named:
                where = self.evidence_path
                return False, where, f"no approval is evidenced in `{where}`"
        else:
            if not approvals:
                return False, "", f"no argument evidences the {self._who()}'s approval"
            who = set(self.approver)
            allowed = who | APPROVAL_STEMS | _ID_WORDS | {"by", "written", "prior"}
            named = [
                e
                for e in approvals
                if _key_stems(e[1]) & who
                and _key_stems(e[1]) <= allowed
                and not any(e[0].startswith(o[0] + ".") for o in approvals if o is not e)
            ]
            if not named:
                if approvals:
                    return (
                        None,
                        approvals[0][0],
                        f"{approvals[0][0]} may be an approval, but not surely the {self._who()}'s",
                    )
                return False, "", f"no argument evidences the {self._who()}'s approval"
        for path, key, value in named:
            good, why = self._judge(path, key, value)
            if not good:
                return good, path, why
            keys = _key_stems(key) - _ID_WORDS
            for other, okey, ovalue in entries:
                # `treasury_approval_status: "rejected"` beside `treasury_approval_id`
                if other != path and not other.startswith(path + ".") and keys < _key_stems(okey):
                    if no_reference(ovalue) or outcome_stated(ovalue) is False:
                        return None, other, f"{other} = {ovalue!r} says {path} may not hold"
                    extra = _key_stems(okey) - keys
                    if not (
                        extra <= _STATE_MEMBER_KEYS and outcome_stated(ovalue) is True
                    ) and not (extra <= _RECORD_MEMBER_KEYS - {"approval", "approv"}):
                        # `risk_approval_account_id: "AC-2"`: what the approval covers
                        return None, other, f"{other} says what {path} covers: not compared here"
            if isinstance(value, str) and _refused_elsewhere(view, path, value):
                # `approvals: [{"id": "TRS-1", "status": "rejected"}]` beside the id
                return None, path, f"{path} = {value!r} is recorded elsewhere without a good state"
            if view.agent_id and any(
                isinstance(v, str) and v.strip().lower() == view.agent_id.strip().lower()
                for _, _, v in [(path, key, value), *_entries(value, path)]
            ):
                return None, path, f"{path} names the requesting agent, who cannot approve itself"
        return True, named[0][0], f"{named[0][0]} evidences the {self._who()}'s approval"

    def _judge(self, path: str, key: str, value: Any) -> tuple[bool | None, str]:
        keys = _key_stems(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            return False, f"{path} is empty"
        if isinstance(value, bool):
            return None, f"{path} = {value!r}: an approval is not read from a flag"
        if isinstance(value, (int, float)):
            return (value > 0 or None), f"{path} = {value!r}"
        if isinstance(value, str):
            if placeholder(value) or no_reference(value, keys | {"id"}):
                return None, f"{path} = {value!r} says no approval is there yet"
            if outcome_stated(value) is not None:
                return None, f"{path} = {value!r} states an outcome, not an approval's record"
            if _doubtful_record(value):
                return None, f"{path} = {value!r} says no approval, or no one's, is there"
            return True, ""
        if isinstance(value, dict) and value:
            for k, v in value.items():
                ks = _key_stems(str(k))
                if isinstance(v, (dict, list)):
                    return None, f"{path}.{k} is not one value"
                if ks & _STATE_MEMBER_KEYS:
                    if outcome_stated(v) is not True:
                        return None, f"{path}.{k} = {v!r} does not state the approval was given"
                    continue
                if not truthy(v) or isinstance(v, bool):
                    return None, f"{path}.{k} = {v!r} is empty"
                if isinstance(v, str) and (
                    placeholder(v) or no_reference(v, ks) or outcome_stated(v) is False
                ):
                    return None, f"{path}.{k} = {v!r} says no approval is there yet"
                if ks & _ROLE_KEYS and self.approver:
                    said = [stem(w) for w in words(str(v))]
                    if (
                        not set(said) & set(self.approver)
                        or set(said) & _NOT_THE_ROLE
                        or said[-1] not in self.approver
                    ):
                        return None, f"{path}.{k} = {v!r} is not the {self._who()}"
                elif (
                    ks & _WHO_KEYS
                    and isinstance(v, str)
                    and self.approver
                    and _titled_otherwise(v, self.approver)
                ):
                    # `approved_by: "Jane Doe, Controller"` for a CFO's approval
                    return None, f"{path}.{k} = {v!r} names another role than the {self._who()}"
                elif not ks or not ks <= (_ID_WORDS | _RECORD_MEMBER_KEYS | set(self.approver)):
                    # 'approved_amount', 'account_id': what the approval covers, not compared
                    return None, f"{path}.{k} says what the approval covers: not compared here"
            return True, ""
        return None, f"{path} is not one value an approval's record holds"


@cache
def _evidenced_class(base: type) -> type:
    """`base` with the approval evidence mixed in: the same kind, reading and bounds, plus the
    evidence that gives the review it asks for."""
    namespace = {
        "__annotations__": {"evidence_path": str, "approver": tuple},
        "evidence_path": "",
        "approver": (),
        "__module__": __name__,
        "__qualname__": f"Evidenced{base.__name__}",
        "_base_evaluate": base.evaluate,
    }
    return dataclass(frozen=True)(
        type(f"Evidenced{base.__name__}", (ApprovalEvidence, base), namespace)
    )


def evidenced(check: Check, path: str, approver: tuple[str, ...]) -> Check:
    """`check` (a review) given when the request evidences the approval (ApprovalEvidence)."""
    from dataclasses import fields as _fields

    values = {f.name: getattr(check, f.name) for f in _fields(check) if f.init}
    return _evidenced_class(type(check))(**values, evidence_path=path, approver=approver)


@dataclass(frozen=True)
class AnyReference(Check):
    """'A credit may be issued only where it references a support ticket or the invoice
    number': either reference (each a RequiredArgument, `options`) meets the obligation. One
    given holds the rule; all missing fire it; anything else (a stand-in, a name only near one)
    is for a human."""

    options: tuple[Check, ...] = ()
    kind: str = field(default="any_reference", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(options=[o.describe() for o in self.options])
        return d

    def reading(self) -> str:
        names = [
            f"`{getattr(o, 'exact_name', '') or surface_words(o.source, getattr(o, 'arg_words', ()))}`"
            for o in self.options
        ]
        return f"{_VERB[self.effect]} when {' and '.join(names)} are all missing or empty{self._about()}"

    def evaluate(self, view: RequestView) -> Outcome:
        outcomes = [o.evaluate(view) for o in self.options]
        for o in outcomes:
            if o.status == SATISFIED:
                return o
        if all(o.status == NOT_APPLICABLE for o in outcomes):
            return _NOT_APPLICABLE
        if all(o.status == VIOLATED for o in outcomes):
            return Outcome(
                VIOLATED,
                "; ".join(o.message for o in outcomes),
                tuple(a for o in outcomes for a in o.args),
            )
        worst = next((o for o in outcomes if o.status in (REVIEW, UNKNOWN, VIOLATED)), outcomes[0])
        status = worst.status if worst.status != VIOLATED else UNKNOWN
        if status == NOT_APPLICABLE:
            status = UNKNOWN
        return Outcome(
            status,
            "; ".join(o.message for o in outcomes if o.message),
            tuple(a for o in outcomes for a in o.args),
        )


# 'monthly' and 'annual' are one value of a plan's interval however the request spells it
_PERIOD_SPELLINGS: dict[str, frozenset[str]] = {
    "daily": frozenset({"daily", "day", "per day"}),
    "weekly": frozenset({"weekly", "week", "per week"}),
    "monthly": frozenset({"monthly", "month", "per month"}),
    "quarterly": frozenset({"quarterly", "quarter", "per quarter"}),
    "annual": frozenset({"annual", "annually", "yearly", "year", "per year"}),
    "yearly": frozenset({"annual", "annually", "yearly", "year", "per year"}),
}


def key_spellings(word: str) -> frozenset[str]:
    """The values of a request that name the key `word` of a keyed limit."""
    w = normalise_value(word)
    return _PERIOD_SPELLINGS.get(w, frozenset({w}))


@dataclass(frozen=True)
class KeyedLimit(Check):
    """One limit per value of another argument: 'max discount is 20% on monthly plans, 35% on
    annual' caps `percent_off` at 20% where an argument says monthly, at 35% where it says annual.
    A request naming none of the listed values (a weekly plan, no interval at all), or several,
    goes to a human: the rule sets no limit for it."""

    keys: tuple[str, ...] = ()  # the key values as written ('monthly', 'annual')
    limits: tuple[NumericLimit, ...] = ()  # one limit per key, in the same order
    noun: str = ""  # what the keys qualify ('plans'), as written
    kind: str = field(default="keyed_limit", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["keys"] = {k: lim.describe() for k, lim in zip(self.keys, self.limits, strict=True)}
        return d

    def reading(self) -> str:
        first = self.limits[0]
        what = _measure_words(first)
        parts = [
            f"{OP_WORDS[lim.op]} {_bound_words(lim)} where an argument says {key}"
            for key, lim in zip(self.keys, self.limits, strict=True)
        ]
        noun = f"{self.noun} " if self.noun else ""
        return (
            f"{_VERB[first.effect]} when {what} is "
            + ", ".join(parts)
            + f"; {noun}of any other kind, or none shown: review{first._about()}"
        )

    def subject(self) -> str:
        return self.limits[0].subject() if self.limits else ""

    def evaluate(self, view: RequestView) -> Outcome:
        spellings = [key_spellings(k) for k in self.keys]
        found: dict[int, str] = {}
        for leaf in view.leaves:
            for v in scalars(leaf.value):
                if not isinstance(v, str):
                    continue
                norm = normalise_value(v)
                for i, names in enumerate(spellings):
                    if norm in names:
                        found[i] = leaf.path
        if len(found) == 1:
            ((i, path),) = found.items()
            outcome = self.limits[i].evaluate(view)
            if outcome.status == NOT_APPLICABLE:
                return outcome
            return Outcome(
                outcome.status,
                f"{path} is {self.keys[i]}: {outcome.message}",
                (*outcome.args, path),
            )
        first = self.limits[0].evaluate(view)
        if first.status == NOT_APPLICABLE:
            return first
        listed = " or ".join(self.keys)
        if found:
            return Outcome(
                UNKNOWN,
                f"the request names more than one of {listed}: a human must say which limit holds",
                tuple(found.values()),
            )
        return Outcome(
            UNKNOWN,
            f"the rule sets a limit only where an argument says {listed}, and the request shows "
            "none of them",
        )


# ---------------------------------------------------------------------------------------------
# Who may do an act: the requesting agent's id (a closed list of ids or id prefixes), or an act
# reserved to humans or to another team ('Reserve holds are set by Risk only'). Read by
# `actors.reserved_act_rule`; the act is compared with the request by `act_relation`.
_READING_ACTS = VERB_GROUPS["read"] | frozenset(
    stem(w) for w in "status lookup inspect preview check audit report".split()
)
# Verbs that say an act is done without naming which ('initiate', 'issue', 'submit', 'raise',
# 'open', 'place', 'run'): any of them is the tool's own making verb ('initiate vendor payouts' on
# vendor_payout_create, 'serve notices' on send_notice).
_MAKING_ACTS = frozenset(
    stem(w)
    for w in "initiate issue submit create raise open place make start launch run perform do "
    "execute process serve send conduct new add book file lodge".split()
)
# Verbs that say only that something changes or is done: they name no act of their own.
_GENERIC_ACTS = _MAKING_ACTS | BROAD_ACTIONS
# Stems read as an act word of a rule's noun phrase beside the lexicon's ('closures', 'resets',
# 'waivers'): what the phrase does, not the thing it does it to.
NOMINAL_ACTS = frozenset(
    stem(w)
    for w in "closure reset waiver waive initiation reversal reverse lift cancel cancellation".split()
)
# Nouns one domain writes two ways: a credential is a secret, a key, a password or a token.
_KIN_THINGS: dict[str, frozenset[str]] = {
    stem("credential"): frozenset(stem(w) for w in "secret key password token credential".split()),
}
# Argument names that hold the kind of the thing acted on ('termination_type', 'credential_type',
# 'po_type', 'category'): a value there that shows none of the rule's qualifiers is another kind.
_KIND_KEYS = frozenset(stem(w) for w in "type kind category class".split())
# Arguments whose value names the thing acted on itself: its kind, the act, or what is granted
# (`role: "org_owner"` for 'Org Owner: never via automation').
_SURE_VALUE_KEYS = _KIND_KEYS | _ACTION_KEYS | frozenset(stem(w) for w in "role privilege".split())


def _tool_acts(view: RequestView, things: frozenset[str]) -> frozenset[str]:
    """The verbs of the tool name (not the rule's own nouns: 'payout' in vendor_payout_create)."""
    known = ACT_STEMS | _MAKING_ACTS | _READING_ACTS | NOMINAL_ACTS
    return frozenset(s for s in view.tool_stems if s in known and s not in things)


def _same_act(rule_act: str, tool_act: str) -> bool:
    """Strictly one act: the same stem, synonyms, or two verbs that only say it is done."""
    return (
        rule_act == tool_act
        or tool_act in _VERB_SYNONYMS.get(rule_act, ())
        or (rule_act in _MAKING_ACTS and tool_act in _MAKING_ACTS)
    )


def _shown(view: RequestView, word: str) -> bool:
    """The request shows `word` (tool name, an argument's name or value), or its kin noun."""
    kin = _KIN_THINGS.get(word, frozenset({word}))
    return any(view.term_matches(w) or w in view.key_stems for w in kin)


def _shown_surely(view: RequestView, word: str) -> bool:
    """`word` (or its kin noun) is in the tool name, an argument's name, or the value of an
    argument naming a kind or the act (`credential_type: root`, `termination_type: for_cause`):
    not merely inside an id, a path or free text ('root-key' may be any key's name)."""
    kin = _KIN_THINGS.get(word, frozenset({word}))
    if not kin.isdisjoint(view.tool_stems) or not kin.isdisjoint(view.key_stems):
        return True
    return any(
        isinstance(lf.value, str)
        and lf.last_keys & _SURE_VALUE_KEYS
        and not kin.isdisjoint(content_stems(lf.value[:200]))
        for lf in view.leaves
    )


def _in_sure_value(view: RequestView, word: str) -> bool:
    return any(
        isinstance(lf.value, str)
        and lf.last_keys & _SURE_VALUE_KEYS
        and word in content_stems(lf.value[:200])
        for lf in view.leaves
    )


def _kind_says_other(view: RequestView, rule_words: frozenset[str], acts: tuple[str, ...]) -> bool:
    """An argument naming the kind of the rule's thing (`type`, or named for one of the rule's
    words: `termination_type`, `credential_type`, `fee_type`) holds a value showing none of the
    rule's words ('non_renewal' for 'termination for cause', 'api_key' for 'root or master
    credentials'): another kind. The kind of something else (`contract_type` beside 'termination
    for cause') says nothing."""
    kin = rule_words.union(acts, *(_KIN_THINGS.get(w, ()) for w in rule_words))
    for lf in view.leaves:
        if not isinstance(lf.value, str) or not lf.value.strip():
            continue
        name = set(content_stems(lf.path.rsplit(".", 1)[-1]))
        if not name & _KIND_KEYS or (name - _KIND_KEYS and kin.isdisjoint(name)):
            continue
        if rule_words.isdisjoint(content_stems(lf.value[:200])):
            return True
    return False


def _another_act(acts: tuple[str, ...], tool_acts: frozenset[str]) -> bool:
    """The tool's own verbs are surely another act than the rule's (not the acts they imply:
    'rotate' retires the old secret, it does not delete it). Either the tool only makes something
    and the rule's act is a specific one ('create_draft' for 'release', 'payouts_create' for
    'reversal'), or the tool's is a specific act the lexicon knows, of no one family with the
    rule's known act ('rotate' for 'deleting', 'delete_ticket' for 'create tickets'). A verb that
    only says something is set, applied or done ('Reserve holds are set …' and `apply_reserve`),
    or a rule's act the lexicon does not know ('closures' and `offboard_customer`), is no proof
    of another act."""
    if not tool_acts or not acts or any(a in BROAD_ACTIONS for a in acts):
        return False
    if tool_acts <= _MAKING_ACTS:
        return not any(a in _MAKING_ACTS for a in acts)
    specific = tool_acts - _GENERIC_ACTS
    return (
        bool(specific)
        and all(a in ACT_STEMS for a in acts)
        and not any(same_action(a, t) for a in acts for t in tool_acts)
    )


def act_relation(
    view: RequestView, acts: tuple[str, ...], groups: tuple[tuple[str, ...], ...]
) -> str:
    """'definite' when the request is unmistakably the act (its verb in the tool name or an
    action argument, every noun and qualifier shown, the thing in the tool name), 'other' when it
    shows another act or another kind, else 'possible' (a human decides)."""
    things = frozenset(w for g in groups for w in g)
    tool_acts = _tool_acts(view, things)
    asked = view.request_actions()
    rule_reads = any(a in _READING_ACTS for a in acts)
    own = tool_acts.difference(acts)
    if acts and not rule_reads and own and own <= _READING_ACTS:
        return "other"  # reading status is not initiating, rotating or setting
    strict = not acts or any(
        a in view.tool_stems or any(_same_act(a, t) for t in tool_acts | asked) for a in acts
    )
    if not strict and _another_act(acts, tool_acts):
        return "other"
    shown = [any(_shown(view, w) for w in g) for g in groups]
    # the act named in the tool ('rotate_secret', 'send_termination_notice'), not a verb that
    # only says something changes or is done ('update_base_salary' for 'car allowance changes')
    named = any(
        not _VERB_SYNONYMS.get(a, frozenset({a})).union((a,)).isdisjoint(view.tool_stems)
        for a in acts
        if a not in _GENERIC_ACTS
    )
    # a money word of a tool name is its thing as often as its act ('payouts_create')
    own_things = view.tool_stems - (tool_acts - MONEY_GENERIC - MONEY_SPECIFIC)
    if groups and not any(shown) and not named and own_things:
        return "other"  # the tool names its own thing and none of the rule's (base salary)
    if not all(shown) and _kind_says_other(view, things, acts):
        return "other"
    in_tool = (
        named
        or any(
            not _KIN_THINGS.get(w, frozenset({w})).isdisjoint(view.tool_stems)
            for g in groups
            for w in g
        )
        # any act on the thing ('Org Owner: never via automation'): the thing named by the
        # value of the argument that says what is acted on (`role: "org_owner"`)
        or (not acts and all(any(_in_sure_value(view, w) for w in g) for g in groups))
    )
    if (
        strict
        and in_tool
        and (not acts or tool_acts or asked)
        and all(any(_shown_surely(view, w) for w in g) for g in groups)
    ):
        return "definite"
    return "possible"


@dataclass(frozen=True)
class ReservedAct(Check):
    """'Only the payouts-orchestrator agent may initiate vendor payouts', 'Only agents with an id
    beginning with support- may issue refunds', 'Reserve holds are set by Risk only', 'Civil
    subpoenas are handled by outside counsel' (review).

    The act is `acts` (verb stems; empty: any act on the thing) on the thing `groups` (each group
    one noun or qualifier, or words joined by 'or'). `agents` and `prefixes` are a closed list of
    requesting agent ids; without them the act is reserved to `holder` (humans, a team) and no
    agent may do it. `permitted` is what other agents may do instead ('other agents may only read
    payout status'), as (acts, groups) pairs. A request that is unmistakably the act by another
    agent is denied; one that may be it goes to review; another act is not governed."""

    agents: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    holder: str = ""
    acts: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()
    act_phrase: str = ""
    permitted: tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...] = ()
    permitted_phrase: str = ""
    kind: str = field(default="reserved_act", init=False)

    def allowed_agent(self, agent_id: str) -> bool:
        """The requesting agent is one the rule names: the exact id, or an id with the prefix."""
        got = (agent_id or "").strip().lower()
        return bool(got) and (got in self.agents or any(got.startswith(p) for p in self.prefixes))

    def _who(self) -> str:
        names = [f"`{a}`" for a in self.agents] + [f"an id starting `{p}`" for p in self.prefixes]
        return " or ".join(names)

    def reading(self) -> str:
        if self.agents or self.prefixes:
            text = (
                f"Deny when an agent other than {self._who()} (the requesting agent's id) asks "
                f"for: {self.act_phrase}"
            )
            if self.permitted_phrase:
                text += f"; other agents may {self.permitted_phrase}"
            return text + "; review when the request may be that act"
        who = self.holder or "people"
        if self.effect == "review" and who.endswith(("agents", "bots")):
            # 'Only support agents may issue refunds': no id says whether the agent is one
            return (
                f"Send to review a request for: {self.act_phrase} (only {who} may; no agent id "
                "says whether the requesting agent is one)"
            )
        if self.effect == "review":
            return f"Send to review a request for: {self.act_phrase} (handled by {who})"
        return (
            f"Deny a request for: {self.act_phrase} (reserved to {who}); review when the "
            "request may be that act"
        )

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "agents": list(self.agents),
            "prefixes": list(self.prefixes),
            "holder": self.holder,
            "acts": list(self.acts),
            "groups": [list(g) for g in self.groups],
        }

    def _named_as_value(self, view: RequestView) -> bool:
        """An argument carries a named id ('Refunds are issued by stripe-connect only' and
        `provider: "stripe-connect"`): the name may be a system the act goes through, not the
        agent asking; a human decides rather than a denial."""
        for lf in view.leaves:
            for v in scalars(lf.value):
                if isinstance(v, str):
                    low = v.strip().lower()
                    if low in self.agents or any(low.startswith(p) for p in self.prefixes):
                        return True
        return False

    def evaluate(self, view: RequestView) -> Outcome:
        relation = act_relation(view, self.acts, self.groups)
        if self.agents or self.prefixes:
            if self.allowed_agent(view.agent_id):
                return _NOT_APPLICABLE if relation == "other" else _SATISFIED
            if relation == "definite" and not self._named_as_value(view):
                return Outcome(
                    VIOLATED,
                    f"only {self._who()} may do this: {self.act_phrase}; the requesting agent is "
                    f"`{view.agent_id}`",
                )
            if any(act_relation(view, a, g) == "definite" for a, g in self.permitted):
                return _NOT_APPLICABLE  # what other agents may do ('read payout status')
            if relation == "other" and not (
                self.permitted and any(_shown(view, w) for g in self.groups for w in g)
            ):
                return _NOT_APPLICABLE
            return Outcome(
                UNKNOWN,
                f"only {self._who()} may do this: {self.act_phrase}; the request may be it and "
                f"comes from `{view.agent_id}` (a human should decide)",
            )
        if relation == "other":
            return _NOT_APPLICABLE
        if self.effect == "review":
            return Outcome(REVIEW, f"{self.act_phrase}: handled by {self.holder}")
        if relation == "definite":
            return Outcome(VIOLATED, f"only {self.holder} may do this: {self.act_phrase}")
        return Outcome(
            UNKNOWN,
            f"only {self.holder} may do this: {self.act_phrase}; the request may be it "
            "(a human should decide)",
        )


@dataclass(frozen=True)
class AgentScope(Check):
    """'The chat assistant (agent id support-chat-agent) may issue account credits only. It may
    never issue cash refunds.': what one named agent may do. Only that agent's requests are
    governed: its allowed act is satisfied; an act it may never do, or surely another act than
    the allowed one, is denied; a read or an act that may be either goes to review."""

    agent: str = ""
    allowed: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] = ((), ())
    forbidden: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] = ((), ())
    allowed_phrase: str = ""
    forbidden_phrase: str = ""
    kind: str = field(default="agent_scope", init=False)

    def reading(self) -> str:
        text = f"When the requesting agent is `{self.agent}`: allow only {self.allowed_phrase}"
        if self.forbidden_phrase:
            text += f", deny {self.forbidden_phrase}"
        return text + "; deny any surely other act, review one that may be either"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "agents": [self.agent], "holder": ""}

    def _more_than_allowed(self, view: RequestView, tool_acts: frozenset[str]) -> bool:
        """The request names an act beside the allowed one: a second verb of the tool
        ('tickets.create_and_close', 'issue_account_credit_and_refund') or an action argument
        naming another act (`action: "delete"`). The agent may do the one act only, so the
        request is more than it may do; read as the allowed act alone, each was approved."""
        allowed = self.allowed[0]
        if not allowed:
            return False
        things = frozenset(w for g in self.allowed[1] for w in g)
        named = set(tool_acts | view.request_actions())
        known = ACT_STEMS | _MAKING_ACTS | _READING_ACTS | NOMINAL_ACTS | _VERB_SYNONYMS.keys()
        for lf in view.leaves:
            # `close_after_create: true`, `then: "close"`: a switch or a next step naming an act
            last = lf.path.rsplit(".", 1)[-1]
            if lf.value is True:
                named.update(s for s in content_stems(last) if s in known)
            elif isinstance(lf.value, str) and _NEXT_STEP.fullmatch(last.lower()):
                named.update(s for s in content_stems(lf.value) if s in known)
        return any(t not in things and not any(_same_act(a, t) for a in allowed) for t in named)

    def evaluate(self, view: RequestView) -> Outcome:
        if (view.agent_id or "").strip().lower() != self.agent:
            return _NOT_APPLICABLE
        barred = (
            act_relation(view, *self.forbidden) if self.forbidden[0] or self.forbidden[1] else ""
        )
        if barred == "definite":
            return Outcome(VIOLATED, f"`{self.agent}` may never {self.forbidden_phrase}")
        relation = act_relation(view, *self.allowed)
        tool_acts = _tool_acts(view, frozenset())
        if relation == "definite" and barred != "possible":
            if self._more_than_allowed(view, tool_acts):
                return Outcome(
                    UNKNOWN,
                    f"`{self.agent}` may only {self.allowed_phrase}; the request also asks for "
                    "another act (a human should decide)",
                )
            return _SATISFIED
        if relation == "other" and not (tool_acts and tool_acts <= _READING_ACTS):
            return Outcome(
                VIOLATED, f"`{self.agent}` may only {self.allowed_phrase}: this is another act"
            )
        return Outcome(
            UNKNOWN,
            f"`{self.agent}` may only {self.allowed_phrase}; the request may be another act "
            "(a human should decide)",
        )
