"""Plain-language rules -> structured checks. What does not compile is kept as text."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

from webapp.judge import agentrules, asides, parentheticals, tiers, unitreads
from webapp.judge.actors import reserved_act_rule
from webapp.judge.boundaries import CAP, DATE_SIDE, NEGATE, WINDOW_ENDS, phrase_op, phrase_pattern
from webapp.judge.boundaries import CONDITION as BOUNDARY_CONDITION
from webapp.judge.checks import (
    APPROVAL_STEMS,
    MEANS_KINDS,
    ActionRule,
    AllConditions,
    AnyReference,
    AnyState,
    ArgumentComparison,
    Binding,
    Check,
    Condition,
    DateWindow,
    FirstTimeCounterparty,
    KeyedLimit,
    NumericLimit,
    PartyState,
    PrefixedCount,
    RequiredArgument,
    RequiredFlag,
    SameValue,
    SettingState,
    StateFlag,
    TimeOfDay,
    Unless,
    ValueList,
    Weekday,
    When,
    WhenBound,
    WhenListed,
    _on_a_scale,
    binding_literal,
    evidenced,
    surface_words,
)
from webapp.judge.checks import REVIEW as SENDS_TO_REVIEW
from webapp.judge.coverage import _FUNCTION_WORDS as _FUNCTION_STEMS
from webapp.judge.coverage import (
    CATEGORY_QUALIFIERS,
    ONLY_MARKER,
    category_phrases,
    condition_spans,
    misread_traps,
    permit_asked,
    unaccounted_words,
)
from webapp.judge.glosses import (
    Glossed,
    gloss_in_front,
    gloss_then_amount,
    glossed_checks,
    values_read_as_names,
)
from webapp.judge.holds import hold_checks
from webapp.judge.identified import (
    ExceptionFlag,
    flag_of_unsaid_state,
    identified_checks,
    identifiers_unread,
    two_obligations,
)
from webapp.judge.inline import inline_checks
from webapp.judge.memberships import bare_membership
from webapp.judge.misdirects import floor_restated
from webapp.judge.misreadings import mend, misread_words
from webapp.judge.namedargs import (
    aggregate_qualifier,
    argument_led_list_read,
    named_argument_checks,
    names_off_scale,
    names_read_as_values,
    names_under_a_total,
    unread_argument_led_list,
)
from webapp.judge.netranges import named_condition_checks, prefix_checks
from webapp.judge.notation import notation_checks, plain_paths, with_prose
from webapp.judge.pairs import PAIR_KINDS, pair_and_status_checks
from webapp.judge.places import country_code, country_names, find_places, region_name
from webapp.judge.quantities import (
    CURRENCY_CODES,
    UNITS,
    Quantity,
    find_quantities,
    names_currency,
    single_currency,
)
from webapp.judge.request_view import (
    COMMS,
    MONEY_GENERIC,
    MONEY_KEYS,
    MONEY_SPECIFIC,
    VALUE_CLASSES,
    VERBS,
)
from webapp.judge.scopes import predicate_follows, scoped_rule
from webapp.judge.tables import table_checks
from webapp.judge.text import GENERIC, STOPWORDS, content_stems, meaningful, stem, words
from webapp.judge.types import PolicyVersion
from webapp.judge.vocabulary import CONSUMER_MAIL_DOMAINS, Glossary, builtin_category, term_key


@dataclass(frozen=True)
class CompiledRule:
    """One rule of a policy version: its checks, and whether any part stayed text."""

    index: int
    chunk_id: str
    text: str
    checks: tuple[Check, ...]
    uncompiled: bool  # some normative statement in it did not compile
    informational: bool = False  # no obligation in it at all (purpose, definitions)
    scope: tuple[str, ...] = ()  # 'applies to EMEA payouts only' -> words of the scope
    # The coverage record: content words of the rule that no check accounts for (see coverage.py).
    unaccounted: tuple[str, ...] = ()
    # 'approval from two reviewers', 'sign-off from 3 approvers': distinct approvals it asks for.
    required_approvals: int = 0
    # a sentence of the policy's description that states an obligation, judged like a rule
    from_description: bool = False

    @property
    def understanding(self) -> str:
        """understood | partly_understood | not_understood | informational (CONTRACT §6)."""
        if self.informational and not self.checks:
            return "informational"
        if not self.checks:
            return "not_understood" if self.uncompiled or not self.scope else "informational"
        if self.uncompiled or self.unaccounted:
            return "partly_understood"
        return "understood"

    @cached_property
    def decides(self) -> bool:
        """Only a fully understood rule approves or denies on its own; others are judged as text."""
        return bool(self.checks) and not self.uncompiled and not self.unaccounted


@dataclass(frozen=True)
class CompiledPolicy:
    """A policy version with every rule compiled once; cached per policy_version_id."""

    policy: PolicyVersion
    rules: tuple[CompiledRule, ...]
    scope: tuple[str, ...] = ()  # from the description or a rule
    errors: tuple[str, ...] = field(default=())

    @cached_property
    def compiled_count(self) -> int:
        """Number of rules that compiled completely."""
        return sum(1 for r in self.rules if r.checks and not r.uncompiled)

    @cached_property
    def uncompiled_count(self) -> int:
        """Number of rules kept (at least partly) as text."""
        return sum(1 for r in self.rules if r.uncompiled)


# 'Privileged roles here = Owner, Org Admin, Billing Admin, Security Admin.': a policy that
# writes out an open category's members defines it for its own rules, like a glossary term (the
# tenant's glossary wins). Only a category noun (a qualifier and its noun) and a closed list of
# names (Title Case or code-like, no 'e.g.', 'such as', 'etc.') are read so.
_MEMBER = r"[A-Z0-9][\w\-:.*]*(?:\s+[A-Z0-9][\w\-:.*]*){0,3}"
_LOCAL_DEFINITION = re.compile(
    r"^\s*(?P<term>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){1,2}?)(?:\s+(?:here|in this policy))?"
    r"\s*(?:[=:]|\b(?:means|mean|are)\b)\s+(?P<items>"
    + _MEMBER
    + r"(?:(?:\s*,\s*|\s*,?\s+(?:or|and)\s+)"
    + _MEMBER
    + r")+)\s*\.?\s*$"
)


def _defines(policy: PolicyVersion) -> frozenset[str]:
    """The rules of a policy that only define a category (read by `local_terms`): written as a
    definition ('=', 'means', 'here') and used by another rule. A heading ('Blocked vendors: A,
    B') may be the list the policy enforces, and is compiled as a rule."""
    out = set()
    for r in policy.rules:
        found = _definition(r)
        if found is None or not re.search(r"=|\bmeans?\b|\bhere\b", r, re.I):
            continue
        if any(other is not r and found[0] in term_key(other) for other in policy.rules):
            out.add(r)
    return frozenset(out)


def local_terms(policy: PolicyVersion) -> dict[str, tuple[str, ...]]:
    """The categories a policy defines by listing their members, keyed like glossary terms."""
    out: dict[str, tuple[str, ...]] = {}
    sentences = re.split(r"(?<=[.!?])\s+", policy.description or "") + list(policy.rules)
    for sentence in sentences:
        found = _definition(sentence)
        if found is not None:
            out.setdefault(found[0], found[1])
    return out


def _definition(sentence: str) -> tuple[str, tuple[str, ...]] | None:
    """(term key, members) of a sentence that defines a category by its members, else None."""
    m = _LOCAL_DEFINITION.match(sentence)
    if m is None:
        return None
    term = m.group("term")
    if not category_phrases(term) or re.search(
        r"\b(?:e\.?g|etc|such as|like|including)\b", sentence, re.I
    ):
        return None
    items = [
        i.strip().rstrip(".")
        for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", m.group("items"))
        if i.strip().rstrip(".")
    ]
    if len(items) < 2 or not term_key(term):
        return None
    return term_key(term), tuple(items)


def _with_local_terms(policy: PolicyVersion, glossary: Glossary | None) -> Glossary | None:
    local = local_terms(policy)
    if not local:
        return glossary
    tenant = glossary.terms if glossary else {}
    merged = {**local, **tenant}
    mark = ",".join(sorted(local))
    return Glossary(merged, f"{glossary.fingerprint if glossary else ''}+{mark}")


def compile_policy(policy: PolicyVersion, glossary: Glossary | None = None) -> CompiledPolicy:
    """Compile every rule of `policy`; a rule that cannot be parsed is kept as text, never raised."""
    glossary = _with_local_terms(policy, glossary)
    rules = []
    errors = []
    scope: list[str] = []
    if policy.description:
        scope += list(scope_of(policy.description))
    defines = _defines(policy)
    # 'EX-11: …', 'EX-14: …': a code numbering several rules of the policy is their label
    # (asides.py); alone ('DUS-2: no slotting changes') it may be the value the rule names
    scheme = asides.numbering(policy.rules)
    for i, text in enumerate(policy.rules):
        chunk_id = f"{policy.policy_version_id}:r{i}"
        if (
            text in defines
            or TOPIC_HEADING.match(text)
            or ownership_note(text)
            or reader_note(text)
        ):
            # 'Privileged roles = Owner, Org Admin': a definition read as the policy's own
            # vocabulary, no obligation of its own; 'Who can waive fees': a heading
            rules.append(CompiledRule(i, chunk_id, text, (), False, informational=True))
            continue
        try:
            rule = compile_rule(i, chunk_id, text, glossary, scheme=scheme)
        except Exception as exc:  # noqa: BLE001 - one bad rule must not break the policy
            errors.append(f"r{i}: {type(exc).__name__}")
            rule = CompiledRule(i, chunk_id, text, (), uncompiled=True)
        scope += list(rule.scope)
        rules.append(rule)
    # 'Batch controls. Batches with open deviations can't be released.': a description may state
    # an obligation too. Skipping it would let the rules alone approve what it forbids, so each
    # such sentence is judged like a rule (it decides only when fully understood, else review).
    for k, sentence in enumerate(_description_rules(policy.description)):
        try:
            rule = compile_rule(len(rules), f"{policy.policy_version_id}:d{k}", sentence, glossary)
        except Exception as exc:  # noqa: BLE001 - one bad sentence must not break the policy
            errors.append(f"d{k}: {type(exc).__name__}")
            rule = CompiledRule(len(rules), f"{policy.policy_version_id}:d{k}", sentence, (), True)
        rules.append(replace(rule, from_description=True, scope=()))
    whole = " ".join((policy.description or "", *policy.rules))
    currency = single_currency(whole)
    if currency:
        rules = [_in_policy_currency(rule, currency) for rule in rules]
    elif names_currency(whole):
        rules = [_in_policy_currency(rule, "") for rule in rules]
    return CompiledPolicy(policy, tuple(rules), tuple(dict.fromkeys(scope)), tuple(errors))


def _in_policy_currency(rule: CompiledRule, currency: str) -> CompiledRule:
    """'US book. All amounts USD.' and 'reserve increases > 50k -> claims manager approval': a
    money bound with no currency, in a policy whose text names one currency and no other (nor
    'currencies', 'the account currency'), is in that currency, as a reader takes it. A request in
    another currency is still compared by a human (NumericLimit says which two differ)."""
    checks = tuple(
        (
            replace(check, currency=currency, currency_from_policy=True)
            if currency
            else replace(check, currency_open=True)
        )
        if isinstance(check, NumericLimit)
        and check.currency is None
        and check.unit_family is None
        and not check.noun
        and not check.counts_calls
        and not _on_a_scale(check)  # 'a credit score below 600' is no money of the policy's
        else check
        for check in rule.checks
    )
    return rule if checks == rule.checks else replace(rule, checks=checks)


# A sentence of a description that states an obligation rather than a title ('Fee waivers -
# daily limits', 'Crew duty limits'): a modal, a negation, 'only', or a verdict word.
_DESCRIPTION_OBLIGATION = re.compile(
    r"\b(?:must|shall|should|never|not|cannot|can't|may|only|requires?|needs?|prohibited|"
    r"forbidden|banned|permitted|allowed|rejected|blocked|frozen)\b",
    re.I,
)


# A heading that names the policy's topic as an indirect question ('Who may release what.',
# 'Which agents may move money to vendors', 'Who can waive fees'): it states no obligation. Read
# as one ('may move money'), it sent every request of the policy to review. Not a heading: an
# answer after a colon or dash, a limit word or number ('Who may release what: the controller
# only'), a second sentence.
TOPIC_HEADING = re.compile(
    r"^\s*(?:who|which\s+[a-z]+|what)\s+(?:[a-z]+\s+)?(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to)"
    r"\s+(?!.*\b(?:only|never|not|no|must|unless|without|except|over|under|above|below)\b)"
    r"[a-z][a-z\s\-]*?[.?]?\s*$",
    re.I,
)


def _description_rules(description: str) -> list[str]:
    """The sentences of a policy description that state an obligation (not a scope statement)."""
    if not description:
        return []
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", description.strip()):
        clean = _normalise(sentence)
        if not _DESCRIPTION_OBLIGATION.search(clean) or SCOPE.search(clean):
            continue
        if TOPIC_HEADING.match(sentence):
            continue  # 'Who may release what.': the topic, no obligation
        if re.search(r"\bappl(?:y|ies|icable)\b", clean, re.I):
            continue  # 'Cross-border only: applies when the bank is abroad' states a scope
        if any(SCOPE.search(c) for c in split_clauses(clean)):
            continue  # 'Cross-border only: applies when …' is a scope, read as one
        out.append(sentence.strip())
    return out


# jgloss: a bracket opening with an argument's name ('(open_claims > 0)', '(mode = air)')
_GLOSS_HINT = re.compile(r"\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*\s*(?:[=:<>!\u2264\u2265]|\))")


# (jappr: a single word in backticks is an argument's name too, '`purpose` required', and a
# word or two may say whose it is, 'refund `reason` required', 'Patient `mrn` required')
_REQUIRED_NAME = r"(?:`?[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+`?|`[a-z][a-z0-9]*`)"
_BARE_REQUIRED = re.compile(
    rf"^\s*(?:\d{{1,2}}[.)]\s*|[-*\u2022]\s*)?(?P<qual>(?:[A-Za-z][a-z]+\s+){{1,2}}(?=`))?"
    rf"(?P<names>{_REQUIRED_NAME}"
    rf"(?:\s*(?:\+|,|&|\band\b)\s*{_REQUIRED_NAME})*)\s*(?:[-\u2013\u2014:]\s*)?"
    r"(?:(?:both|all|each)\s+)?(?:required|mandatory)"
    r"(?:\s*,?\s*\(?(?:non-empty|not\s+blank|not\s+empty)\)?)?\s*\.?\s*$",
    re.I,
)


def _copula_restored(text: str) -> str | None:
    """'reason_for_change required' as 'reason_for_change is required.', 'a + b - both required'
    as 'a and b are required.'; None for any other shape. Only names written as arguments (an
    underscore or a dot) are read so: 'Approval required' is an approval, not an argument."""
    m = _BARE_REQUIRED.match(text)
    if m is None:
        return None
    names = [
        n.strip() for n in re.split(r"\s*(?:\+|,|&|\band\b)\s*", m.group("names")) if n.strip()
    ]
    if any(flag_of_unsaid_state(n.strip("`")) for n in names):
        return None  # '`is_blocked` mandatory': true or false? (identified.py leaves it unread)
    qual = m.group("qual") or ""
    if qual and (len(names) != 1 or not _PLAIN_QUALIFIER.fullmatch(qual.strip())):
        return None
    if len(names) == 1:
        return f"{qual}{names[0]} is required."
    return f"{', '.join(names[:-1])} and {names[-1]} are required."


# Fifteenth session: 'Carrier must be UPS or FedEx.', 'Tier must be gold or silver.', 'The payment
# method must be ACH or wire.': a closed list after 'must be', written as the whole sentence. It
# had stayed not understood (or read as a flag `gold`), while 'Carrier: UPS or FedEx only' was
# read; it is restated so, and taken only when the restatement is understood.
_LIST_VALUE = (
    r"(?:\"[^\"]{1,40}\"|'[^']{1,40}'|`[^`]{1,40}`|[A-Za-z0-9][\w\-&/+]*(?:\s[A-Z0-9][\w\-]*)?)"
)
_MUST_BE_LISTED = re.compile(
    r"^(?P<subject>(?:the\s+)?`?[A-Za-z][\w\-]*`?(?:\s+`?[A-Za-z][\w\-]*`?){0,2})\s+"
    r"(?:must|should|shall|has\s+to|needs?\s+to)\s+be\s+(?:either\s+)?"
    r"(?P<values>"
    + _LIST_VALUE
    + r"(?:\s*,\s*"
    + _LIST_VALUE
    + r")*\s*,?\s+or\s+"
    + _LIST_VALUE
    + r")"
    r"\s*\.?\s*$",
    re.I,
)
# values that are states or checks of a thing, not names it takes ('signed or countersigned',
# 'approved or waived', 'true or false')
_NOT_LIST_VALUES = re.compile(
    r"(?:ed|en)$|^(?:true|false|yes|no|y|n|null|none|empty|blank|set|present|valid|invalid|"
    r"active|inactive|open|closed|paid|unpaid|on|off|fewer|less|more|lower|higher|greater|above|"
    # jred34: 'Device must be compliant or exempt' is a state of the device, not its name
    r"compliant|non-?compliant|exempt|eligible|ineligible|current|overdue|"
    # a number is a bound ('must be 50 or fewer'), never a name in a list
    r"below|under|over|earlier|later|sooner)$|^[$€£]?\d[\d,.]*%?$",
    re.I,
)


_FLAG_EXCEPTION = re.compile(
    r"^(?P<head>.+?)\s*[,;]?\s+unless\s+(?:(?:the\s+)?[a-z]+\s+(?:set|sets|has\s+set|marks?|"
    r"flags?|flagged)\s+)?(?P<name>`[a-z][a-z0-9]*(?:_[a-z0-9]+)*`|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)"
    r"\s*(?:=|==|is)\s*(?P<value>true|false)\s*[.!]?\s*$",
    re.I,
)


_ATTRIBUTE_HEADS = frozenset(
    (
        "method",
        "type",
        "mode",
        "kind",
        "class",
        "category",
        "tier",
        "level",
        "status",
        "channel",
        "format",
        "plan",
        "currency",
    )
)


def _listed_after_must_be(text: str) -> str | None:
    """'Carrier must be UPS or FedEx.' as 'Carrier: UPS or FedEx only.'; None for any other shape."""
    m = _MUST_BE_LISTED.match(text.strip())
    if m is None:
        return None
    values = [
        v.strip().strip("\"'`")
        for v in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", m.group("values"))
        if v.strip()
    ]
    if len(values) < 2 or any(_NOT_LIST_VALUES.search(v) for v in values):
        return None
    subject = re.sub(r"^the\s+", "", m.group("subject"), flags=re.I)
    last = subject.split()[-1].strip("`").lower()
    if len(subject.split()) > 1 and re.search(r"[^su]s$", last):
        # 'Rush orders must be FedEx or UPS': a plural names a class of requests by a qualifier
        # ('rush') the list reading would not keep; an attribute ('Payment method') is singular
        return None
    if len(subject.split()) > 1 and last not in _ATTRIBUTE_HEADS:
        # jred34: 'Second approver must be CFO or CEO', 'Return carrier must be UPS or FedEx':
        # a qualifier before a thing names another argument than the thing's own; read as a list,
        # `approver: CFO` passed a rule on the second approver (unsafe). Only an attribute word
        # ('Payment method', 'Account type') keeps its qualifier as the argument's name
        return None
    return f"{subject}: {', '.join(values[:-1])} or {values[-1]} only."


_EXAMPLE_BESIDE_NAME = re.compile(
    r"\(\s*`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+`?(?P<eg>\s*[,;]\s*(?:e\.\s?g\.?|eg|for\s+example|"
    r"like|such\s+as)\s*[^()]{1,40}?)\s*\)",
    re.I,
)


def _flag_exception(text: str) -> tuple[str, str, bool] | None:
    """(the rule before the exception, the flag, the value that excepts) of a rule closing with
    'unless `flag` is true' (or '= true', 'unless dispatch set `flag` = true'); None otherwise."""
    m = _FLAG_EXCEPTION.match(text)
    # an exception after an else branch or an allow-list ('may only go to US, CA or MX; any
    # other country -> reject unless compliance_ok is true') is the branch's, and whether it
    # lets the request through or only spares the refusal is not said: not read here
    if m is None or re.search(
        r"\b(?:unless|except|only|if|any\s+other|anything\s+else|otherwise|else|others)\b",
        m.group("head"),
        re.I,
    ):
        return None
    head = m.group("head").rstrip(" ,;:-\u2013\u2014")
    if not head:
        return None
    return (
        head + ("" if head.endswith((".", "!")) else "."),
        m.group("name").strip("`"),
        m.group("value").lower() == "true",
    )


# jappr: '`contains_pii` true -> deny', '`kyc_passed` = N → reject': a flag written with the
# value that is refused and an arrow to a refusal; the whole rule and nothing else
_FLAG_VERDICT = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s*|[-*\u2022]\s*)?(?P<name>`[a-z][a-z0-9]*(?:_[a-z0-9]+)*`|"
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*(?:=|==|is\s+)?\s*"
    r"(?P<value>true|false|yes|no|y|n)\s*(?:->|\u2192|=>)\s*"
    r"(?:deny|denied|reject|rejected|block|blocked|refuse|refused|decline|declined)\s*[.!]?\s*$",
    re.I,
)


def _flag_verdict_restored(text: str) -> str | None:
    """'`contains_pii` true -> deny' as '`contains_pii` must be false.' (and 'false -> deny' as
    'must be true'); None for any other shape."""
    m = _FLAG_VERDICT.match(text)
    if m is None:
        return None
    refused = m.group("value").lower() in ("true", "yes", "y")
    name = m.group("name")
    if not name.startswith("`"):
        name = f"`{name}`"
    return f"{name} must be {'false' if refused else 'true'}."


# the words before a required name that say whose it is ('Patient', 'refund'), never a
# condition, a modal or a negation ('If', 'No', 'Only', 'Never', 'When', 'Unless', 'Not')
_PLAIN_QUALIFIER = re.compile(
    r"(?!(?:if|no|not|only|never|when|unless|except|without|for|all|any|each|every|some|"
    r"optional|optionally|maybe|sometimes|also)\b)[A-Za-z][a-z]+"
    r"(?:\s+(?!(?:if|no|not|only|never|when|unless|except|without|for|optional|optionally)\b)"
    r"[a-z]+)?",
    re.I,
)


# jred34: 'qty_units and box_count must not exceed 50', 'qty_units, box_count max 50': names joined
# before one bound. The bound was named for the last (`box_count`) and `qty_units: 80` passed
# (unsafe); the rule is left partly understood (review)
_JOINED_NAMES_BOUND = re.compile(
    r"`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+`?\s*(?:,|\band\b|\bor\b|\bnor\b|&|\+|/)\s*(?:the\s+)?$"
)
# jred34: 'no consent = no procedure', 'no PO -> no payment' as a whole rule: what must be present
# is not read (an action 'consent procedure' the request never names), and a procedure with
# `consent_on_file: false` was approved (unsafe); left partly understood
_ABSENCE_ALONE = re.compile(
    r"^\W*no\s+(?P<what>[\w\-`]+(?:\s+[\w\-`]+)?)\s*(?:=|->|\u2192|=>|,|:)\s*no\s+\w",
    re.I,
)


def compile_rule(
    index: int,
    chunk_id: str,
    text: str,
    glossary: Glossary | None = None,
    evidence: bool = True,
    scheme: frozenset[str] = frozenset(),
) -> CompiledRule:
    """Compile one rule statement into zero or more checks; `glossary` resolves categories;
    `scheme` are the codes numbering the rules of its policy (asides.numbering)."""
    rule = _compile_rule_read(index, chunk_id, text, glossary, evidence, scheme)
    if rule.understanding != "understood":
        return rule
    read = asides.plain(text, scheme)
    m = _ABSENCE_ALONE.match(read)
    if m is not None:
        return _leave_unread(rule, [m.group("what")])
    for b in _NAME_BEFORE_BOUND.finditer(read):
        joined = _JOINED_NAMES_BOUND.search(read[: b.start()])
        if joined is not None:
            return _leave_unread(rule, [joined.group().strip()])
    return rule


def _compile_rule_read(
    index: int,
    chunk_id: str,
    text: str,
    glossary: Glossary | None = None,
    evidence: bool = True,
    scheme: frozenset[str] = frozenset(),
) -> CompiledRule:
    """`compile_rule` before its last guards."""
    # Words that do not change the rule's meaning (asides.py): its label, a citation of its
    # procedure, emphasis, 'until further notice', staff shorthand. The rule is read without
    # them and keeps its text as written (citations, the policy page).
    read = asides.plain(text, scheme)
    # jappr: '`consent_signed` must be true. no consent = no procedure.', 'Patient `mrn`
    # required. blank / null = reject.': a tail restating what a missing or false value does is
    # read by the rule before it, when that rule alone is understood and only requires the
    # value (asides.absence_branch); any other tail stays as the rule reads it
    gap = asides.absence_branch(read)
    # (a format the value must match, 'format LGL-nnnn', is not read by the required argument:
    # the tail then stays, and the rule partly understood)
    if gap is not None and not re.search(
        r"\b(?:format|pattern|formatted|match(?:es|ing)?)\b", read, re.I
    ):
        head = compile_rule(index, chunk_id, gap.head, glossary, evidence, scheme)
        if head.understanding == "understood" and _absence_restated(head.checks, gap.what):
            return replace(head, text=text)
    # jred24: 'country not in (RU, BY, IR)', '- env NOT IN ('prod', 'production')': a bare list
    # membership is a constraint, restated in the words a reading knows (memberships.py); a
    # refused list whose restatement is not understood never falls to the prose reading, which
    # took 'not in (' for the outside of an allow-list (RU approved, every other country denied)
    bare = bare_membership(read)
    if bare is not None and argument_led_list_read(read):
        # '`country` not in (RU, BY)': the argument-led list reads it whole, on that argument
        # ("Deny when `country` is one of RU, BY"), where the restatement read a double negation
        bare = None
    if bare is not None:
        restated = bare.restated
        rule = _compile_mended(index, chunk_id, restated or read, glossary, evidence)
        if restated and rule.understanding == "understood":
            return replace(rule, text=text)
        if bare.negated or bare.tail:
            rule = _compile_mended(index, chunk_id, read, glossary, evidence)
            return _leave_unread(replace(rule, text=text), ["not in" if bare.negated else "in"])
    # '- reason_for_change required', 'cta_reference + milestone_id - both required, non-empty':
    # the copula staff drop in a terse line, put back; taken only when the rule so read is
    # understood (holdout_53 … 55's first runs left these unread)
    # 'Carrier must be UPS or FedEx.' as 'Carrier: UPS or FedEx only.' (fifteenth session)
    # jred33: 'Pay rate floor $16.50 - never place below.' had been read backwards ("Deny when
    # the amount is at or above 16.50 USD"): restated as the floor it is (misdirects.py; the
    # guard there leaves every other reading unread)
    restated = _first_understood_restatement(
        (_listed_after_must_be, _copula_restored, floor_restated),
        index,
        chunk_id,
        text,
        read,
        glossary,
        evidence,
    )
    if restated is not None:
        return restated
    # jappr: 'Must reference a documented exposure (`exposure_ref`, e.g. FC-2025-xxx)': an example
    # of the reference's form beside the argument's name; read as the rule without it when that
    # rule is understood and only requires the reference (a form is not checked either way)
    sample = _EXAMPLE_BESIDE_NAME.search(read)
    if sample is not None:
        plain = read[: sample.start("eg")] + read[sample.end("eg") :]
        rule = compile_rule(index, chunk_id, plain, glossary, evidence, scheme)
        if (
            rule.understanding == "understood"
            and rule.checks
            and all(isinstance(c, RequiredArgument) for c in rule.checks)
        ):
            return replace(rule, text=text)
    # a band 'A to B' sent to someone's approval is read where it starts, never as a value an
    # argument contains ('25,000.01 to 100,000 -> regional manager approval'; tiers.py), the
    # restatement taken only when understood
    restated = _first_understood_restatement(
        (_flag_verdict_restored, tiers.restated), index, chunk_id, text, read, glossary, evidence
    )
    if restated is not None:
        return restated
    if read != text:
        result = replace(_compile_mended(index, chunk_id, read, glossary, evidence), text=text)
    else:
        result = _compile_mended(index, chunk_id, text, glossary, evidence)
    if result.understanding == "understood":
        return result
    return _with_flag_exception(index, chunk_id, text, read, glossary, evidence, scheme) or result


def _first_understood_restatement(
    restaters: tuple[Callable[[str], str | None], ...],
    index: int,
    chunk_id: str,
    text: str,
    read: str,
    glossary: Glossary | None,
    evidence: bool,
) -> CompiledRule | None:
    """The rule as the first restatement that is understood reads it (keeping its text as
    written), or None: each restater gives the rule in words a reading knows, or None when the
    rule is not its shape, and a restatement not understood is never taken."""
    for restate in restaters:
        restated = restate(read)
        if restated is None:
            continue
        rule = _compile_mended(index, chunk_id, restated, glossary, evidence)
        if rule.understanding == "understood":
            return replace(rule, text=text)
    return None


def _with_flag_exception(
    index: int,
    chunk_id: str,
    text: str,
    read: str,
    glossary: Glossary | None,
    evidence: bool,
    scheme: frozenset[str],
) -> CompiledRule | None:
    """The rule read as a prohibition with a closing exception on a flag, or None (taken only
    where the rule as written is not understood: a reading that knows the whole shape, such as
    the inline 'No port-out while balance_due_cents > 0 unless payment_arrangement = true',
    keeps it)."""
    # jappr: '`days_until_effective` < 14 -> deny unless `emergency` is true', '`hours_notice` >=
    # 24. Less -> deny unless dispatch set `same_day_exception` = true': a closing exception on a
    # flag named as an argument, read on the rule before it when that rule alone is understood
    # and only refuses (each check then holds unless the flag is true)
    excepted = _flag_exception(read)
    if excepted is not None:
        head_text, flag, value = excepted
        head = compile_rule(index, chunk_id, head_text, glossary, evidence, scheme)
        if (
            head.understanding == "understood"
            and head.checks
            and all(c.effect == "deny" and not isinstance(c, Unless) for c in head.checks)
            and not any(flag in getattr(c, "path", "") for c in _all_checks(head.checks))
        ):
            cond = ExceptionFlag(index, read, "deny", (), path=flag, op="eq", value=value)
            checks = _unless_each(
                list(head.checks),
                index,
                read,
                marker="unless",
                test="binding",
                phrase=f"`{flag}` is {str(value).lower()}",
                condition=cond,
            )
            return replace(head, text=text, checks=tuple(checks))
    return None


# 'Closing an account with lifetime_gmv above 1M USD -> …': the argument named as written right
# before the bound. Left to the measure's words, the bound took another money argument
# (pending_balance = 0) and the review never fired (holdout_42's first-run unsafe approval).
# Fifteenth session: the modal staff put between the name and its bound ('qty_units must not
# exceed 50', 'refills_remaining has to be > 0', 'The qty_units must be 50 or fewer') had hidden
# the name, and the bound took the request's amount instead (`amount_usd: 10` passed a cap on
# `qty_units: 80`, an unsafe approval).
_MODAL_RUN = (
    r"(?:(?:is|are|of|must|should|shall|has|have|needs?|to|cannot|can't|can|may|will|never|"
    r"not|be|go|stay|remain|always|kept)\s+){0,5}"
)
# jred31: a table-like line puts a separator, not a modal, between the name and its bound
# ('qty_units | max 50', 'batch_liters — not more than 1200', 'burn_count, max 4', 'qty_units
# (max 50)', 'Maximum for shoot_days: 10'), and staff bound in other words ('limited to', 'may go
# no higher than', 'should never go beyond'); the bound had taken the request's amount.
_NAME_SEPARATOR = r"(?P<sep>\s*(?:\||,|:|\(|=>|->|\u2192|\s-|\u2013|\u2014)\s*|\s+)"
_NAME_BEFORE_BOUND = re.compile(
    r"(?<![\w.])`?(?P<arg>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?"
    + _NAME_SEPARATOR
    + _MODAL_RUN
    + r"(?:(?P<bound>"
    + phrase_pattern(CAP)
    + r"|limited\s+to|restricted\s+to|(?:go\s+)?no\s+(?:higher|greater|larger)\s+than|"
    r"(?:go\s+)?(?:beyond|past)|(?:go\s+)?no\s+(?:lower|less)\s+than|"
    r"above|over|below|under|exceeding|exceeds|exceed|more\s+than|less\s+than|fewer\s+than|"
    # jred28: 'fuel_surcharge_pct not to exceed 25' read its bound on "the amount"
    r"greater\s+than|not\s+to\s+exceed|at\s+least|at\s+most|>=?|<=?|\u2264|\u2265)\s*"
    r"(?=[$€£¥\d]|[A-Z]{3}\s*\d)"
    # 'must be 50 or fewer', 'must be 12 max': the bound written after its number
    r"|[$€£¥]?\d[\d,.]*\s*(?:[A-Za-z%]+\s+)?(?:or\s+(?:fewer|less|more|lower|higher|greater|"
    r"under|over|above|below)|max(?:imum)?|min(?:imum)?|at\s+(?:most|least))\b)",
)


# 'Maximum for shoot_days: 10', 'The cap on qty_units is 50': the bound word, then the name
_BOUND_BEFORE_NAME = re.compile(
    r"\b(?:max(?:imum)?|min(?:imum)?|cap|ceiling|limit|floor)\s+(?:for|on|of)\s+"
    r"`?(?P<arg>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?\s*(?::|\bis\b|=)\s*(?=[$€£¥\d])"
)
_FIRST_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


# 'Refunds must include reason_code, max 500 USD', 'Payouts must cite invoice_no: max 1,000 EUR':
# after a separator, a name that is what the rule requires, followed by a bound in money while the
# name says nothing of money, is not what the bound compares (the request's amount is)
_REQUIRING = re.compile(
    r"\b(?:include|includes|including|cite|cites|citing|provide|provides|with|require|requires|"
    r"need|needs|reference|references|attach|attaches|specify|specifies|carry|carries|set|"
    r"populate|give|gives|quote|quotes)\s+(?:an?\s+|the\s+|a\s+valid\s+)?`?$",
    re.I,
)
_MONEY_WRITTEN = re.compile(r"[$€£¥]\s*\d|\d[\d,.]*\s*(?:[kKmM]\b\s*)?(?:[A-Z]{3}\b|[$€£¥])")


def _name_not_bounded(text: str, m: re.Match[str]) -> bool:
    """Whether a name written before a separator and a bound ('reason_code, max 500 USD') is the
    object of a requirement with a money bound it does not name (`_REQUIRING`)."""
    name_words = {stem(w) for w in m.group("arg").split("_")}
    if not name_words.isdisjoint(MONEY_KEYS):
        return False
    tail = text[m.end("arg") : m.end() + 16]
    money = _MONEY_WRITTEN.search(tail) is not None
    return money or _REQUIRING.search(text[: m.start("arg")]) is not None


def _named_bounds(text: str) -> list[tuple[str, float | None]]:
    """Each argument named right before (or, after 'maximum for', right after) a bound, with the
    bound's number as written."""
    found: list[tuple[str, float | None]] = []
    for pattern in (_NAME_BEFORE_BOUND, _BOUND_BEFORE_NAME):
        for m in pattern.finditer(text):
            if "sep" in m.groupdict() and m.group("sep").strip() and _name_not_bounded(text, m):
                continue
            number = _FIRST_NUMBER.search(text, m.end("arg"))
            value = None
            if number is not None and number.start() - m.end() <= 12:
                try:
                    value = float(number.group().replace(",", ""))
                except ValueError:
                    value = None
            found.append((m.group("arg"), value))
    return found


def _bounds_paired(
    checks: tuple[Check, ...], found: list[tuple[str, float | None]]
) -> tuple[Check, ...] | None:
    """jred31: 'qty_units max 50 and amount_usd max 1000', 'keg_count: at most 20;
    order_total_usd: at most 5000': two bounds on two named arguments, each bound paired with the
    name written before its own number. Left unpaired, both bounds read the request's amount
    (`qty_units: 80` passed). Paired only when every unnamed bound has one name by its number."""
    limits = [c for c in checks if isinstance(c, NumericLimit) and not c.named]
    if len(limits) < 2:
        return None
    by_value: dict[float, set[str]] = {}
    for name, value in found:
        if value is not None:
            by_value.setdefault(value, set()).add(name)
    pairs: dict[int, str] = {}
    for c in limits:
        names = by_value.get(c.threshold, set())
        if len(names) != 1:
            return None
        pairs[id(c)] = next(iter(names))
    if len(set(pairs.values())) != len(limits):
        return None
    return tuple(
        replace(c, named=pairs[id(c)], counts_calls=False) if id(c) in pairs else c for c in checks
    )


def _bound_argument_named(text: str, checks: tuple[Check, ...]) -> tuple[Check, ...] | None:
    """The checks with the one amount bound of the rule set on the argument named right before
    it, when the rule names exactly one so and the check names none."""
    found = _named_bounds(text)
    paired = _bounds_paired(checks, found)
    if paired is not None:
        return paired
    names = {name for name, _ in found}
    limits = [c for c in checks if isinstance(c, NumericLimit) and not c.named]
    # jred29: the bound excepted by a condition ('No payroll run is submitted after the cutoff
    # (hours_to_cutoff below 24) unless the run is flagged urgent') is the base of each `Unless`
    # made for it; left unnamed, it read "Deny when the amount is below 24" and a run 5 hours
    # before the cutoff for 250,000 USD was approved
    bases = [
        c.base
        for c in checks
        if isinstance(c, Unless) and isinstance(c.base, NumericLimit) and not c.base.named
    ]
    distinct = {id(b): b for b in bases}
    if len(names) != 1:
        return None
    name = names.pop()
    if len(limits) == 1 and not bases:
        # jred31: 'Daily ore_tonnage must stay below 5000': a bound named for an argument is a
        # bound on that argument over the window, never a count of requests (counted, 6,000
        # tonnes passed as "request number 4 today")
        return tuple(
            replace(c, named=name, counts_calls=False) if c is limits[0] else c for c in checks
        )
    if not limits and bases and len({repr(b) for b in distinct.values()}) == 1:
        return tuple(
            replace(c, base=replace(c.base, named=name))
            if isinstance(c, Unless) and c.base in bases
            else c
            for c in checks
        )
    return None


def _compile_mended(
    index: int, chunk_id: str, text: str, glossary: Glossary | None, evidence: bool
) -> CompiledRule:
    """`_compile_mending`, with list values 'A & B' of two codes split (jred24)."""
    rule = _compile_mending(index, chunk_id, text, glossary, evidence)
    joined = _codes_joined_by_ampersand(rule.checks)
    return rule if joined is None else replace(rule, checks=joined)


def _compile_mending(
    index: int, chunk_id: str, text: str, glossary: Glossary | None, evidence: bool
) -> CompiledRule:
    """`_compile_with_else`, then the misreadings mended or left unread (misreadings.py)."""
    rule = _compile_with_else(index, chunk_id, text, glossary, evidence)
    if rule.checks and all(c.kind in PAIR_KINDS for c in rule.checks):
        # read whole by pairs.py's grammar: no part was read alone, so none was misread
        # ('user_status != on_hold' compares with a state, not with an argument 'on_hold')
        return rule
    named = _bound_argument_named(text, rule.checks)
    if named is not None:
        rule = replace(rule, checks=named)
    # a cap followed by its own review band ('up to 2 nights; 3 or more nights -> GM approval'):
    # the cap's denial is the band's lower edge (tiers.py)
    bands = tiers.banded(rule.checks, text)
    if bands is not None:
        rule = replace(rule, checks=tuple(bands))
    # phrasings every check reads word by word but wrongly as a whole (misreadings.py): read
    # right where a part is read by the recogniser that reads it alone, else their words stay
    # unaccounted, so the rule never decides on its own
    if rule.checks and not rule.unaccounted and not rule.uncompiled:
        mended = mend(text, rule.checks, _required_alone)
        if mended is not None:
            rule = replace(rule, checks=mended)
        left = misread_words(text, _every(rule))
        # jident: a reference or a flag the rule names that no check reads as an argument
        # ('Refunds need no receipt_id' read as "Deny when an argument is receipt_id", 'Orders
        # require a PO (po_number) and a GRN (grn_number)' as the PO alone)
        left += identifiers_unread(text, _every(rule))
        left += _listed_items_unread(text, _every(rule))
        left += _headed_permission_unread(text, _every(rule))
        left += _choices_read_as_required(text, _every(rule))
        if left:
            return _leave_unread(rule, left)
        # ---- jagent2: 'intake-bot may not grant access unless approved' read as "Deny when an
        # argument is intake-bot": the rule's subject is the requesting agent, never an argument
        # value; when no check that reads the agent's id read the rule, the id stays unread
        ident = agentrules.agent_subject(text)
        if ident and not any(c.kind in agentrules.AGENT_KINDS for c in _every(rule)):
            # ('sandbox- agents must not execute live payments over 500 USD' read as a cap on
            # every agent's payments: who the rule is about was not read either)
            return _leave_unread(rule, [ident])
        # ---- end jagent2
    return rule


# jred24: 'payment method must not be one of: crypto, cash on delivery' had read "Deny requests
# about payment method crypto cash delivery" (cash on delivery approved), 'must not be one of:
# crypto, "cash on delivery"' "Deny when method crypto is cash on delivery" (crypto approved),
# 'must be one of: card, "bank transfer"' "Deny unless method card is bank transfer" (card
# denied): a written item with a space or quotes drew its neighbour into the subject.
_ONE_OF_ITEMS = re.compile(
    r"\b(?:be|is|are)\s+one\s+of\s*:?\s*(?P<items>[^.;:()\[\]{}]+?)\s*(?:only)?\s*[.;]?\s*$",
    re.I,
)


def _listed_items_unread(text: str, checks: list[Check]) -> list[str]:
    """The items of a closing 'one of: …' list, when one is quoted or has a space, that no
    list of the checks holds as a value of its own."""
    m = _ONE_OF_ITEMS.search(text)
    if m is None:
        return []
    raw = [i for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+or\s+", m.group("items")) if i]
    if not any(" " in i.strip() or i.strip()[:1] in "\"'`" for i in raw) or any(
        len(i.split()) > 4 for i in raw
    ):
        return []
    if any(getattr(c, "match", "") in ("place", "currency") for c in checks):
        return []  # names of places and currencies are held as their codes
    held = {str(v).strip().lower() for c in checks for v in getattr(c, "values", ()) or ()}
    items = [i.strip().strip("\"'`").strip() for i in raw]
    return [i for i in items if i and i.lower() not in held]


_ALLOWING_HEADING = re.compile(
    r"^(?:[-*\u2022]\s+)?(?:(?:permitted|allowed|approved|accepted|supported|valid)\s+"
    r"[A-Za-z][\w\- ]{0,40}?|[A-Za-z][\w\- ]{0,40}?\s+(?:allowed|permitted|accepted))"
    r"\s*(?::|\s-\s)\s*(?P<items>[^.;:]+?)\s*(?:only)?\s*[.;]?\s*$",
    re.I,
)


def _headed_permission_unread(text: str, checks: list[Check]) -> list[str]:
    """(jred24) The items of a list under an allowing heading ('- Payment methods allowed: card,
    bank transfer') that the rule was read as a permission for: the heading says these are all
    that is allowed, never that requests about them are (crypto passed beside any satisfied
    rule)."""
    m = _ALLOWING_HEADING.match(text.strip())
    if m is None or NEGATION.search(text.strip()[: m.start("items")]):
        return []  # 'Not allowed: RU, BY': a refusing heading, its deny-list is right
    if not any(
        c.effect == "allow" or (isinstance(c, ValueList) and c.mode == "deny") for c in checks
    ):
        # ('- Decline reasons allowed: "do not honor", …' had read the heading's 'Decline' as
        # the effect and the allowed reasons as a deny-list: 'stolen' was approved)
        return []
    return [i.strip() for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?", m.group("items")) if i]


# jred24: 'rails must not be one of: SWIFT, SEPA & FPS' had held 'SEPA & FPS' as one value (FPS
# approved by a deny-list naming it; 'ACH, SEPA & FPS only' denied FPS). Between two codes or
# identifiers ' & ' joins two values; a proper name keeps it ('Legal & General'), and 'F&B'
# has no spaces.
_CODE = r"(?:[A-Z0-9]{2,8}|[a-z][a-z0-9_\-]*)"
_AMPERSAND_CODES = re.compile(rf"(?P<a>{_CODE})\s+&\s+(?P<b>{_CODE})")


def _codes_joined_by_ampersand(checks: tuple[Check, ...]) -> tuple[Check, ...] | None:
    """The checks with each list value 'A & B' of two codes split into A and B, or None."""
    out, changed = [], False
    for c in checks:
        values = getattr(c, "values", None)
        if isinstance(c, ValueList) and values and len(values) > 1:
            split: list[str] = []
            for v in values:
                m = _AMPERSAND_CODES.fullmatch(str(v))
                split += [m.group("a"), m.group("b")] if m else [v]
            if len(split) != len(values):
                c = replace(c, values=tuple(dict.fromkeys(split)))
                changed = True
        out.append(c)
    return tuple(out) if changed else None


# jred24: 'Rejections must cite a reason in: incomplete, duplicate, fraud', 'Holds must carry a
# code in: AML1, AML2': the list is what the reason may be, not arguments the request must
# carry (read as "`duplicate` is missing", every rejection was denied)
_CHOICES_AFTER_NOUN = re.compile(
    r"\b(?:a|an|the|one)\s+[A-Za-z][\w\-]*\s+(?:in|from|among|out\s+of)\s*:?\s*"
    r"(?P<items>[^.;:()]+?)\s*[.;]?\s*$",
    re.I,
)


def _choices_read_as_required(text: str, checks: list[Check]) -> list[str]:
    """The items of a list of choices for one noun ('a reason in: a, b') read as arguments the
    request must carry."""
    m = _CHOICES_AFTER_NOUN.search(text)
    if m is None:
        return []
    items = [i.strip() for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+or\s+", m.group("items"))]
    items = [i for i in items if i]
    required = {
        w.lower()
        for c in checks
        if isinstance(c, RequiredArgument)
        for w in (*c.arg_words, *c.exact_name.split())
    }
    if len(items) < 2 or not any(i.lower() in required for i in items):
        return []  # 'must cite a ticket in justification_ticket': the argument itself
    return items


def _absence_restated(checks: Sequence[Check], what: str) -> bool:
    """Every check denies when one argument is missing or empty (a required argument) or is not
    true (a flag that must be true), and `what` ('consent' in 'no consent = no procedure') names
    that argument: one of its words, or a word its name starts with ('cert' for
    `ada_certified`); '' ('blank / null = reject') names whatever the rule requires."""
    if not checks:
        return False
    for c in checks:
        if c.effect != "deny":
            return False
        if isinstance(c, RequiredArgument):
            name = c.exact_name or " ".join(c.arg_words)
        elif isinstance(c, Binding) and c.op == "eq" and c.value is True:
            name = c.path
        else:
            return False
        if not what:
            continue
        own = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
        said = [w for w in re.split(r"[^a-z0-9]+", what) if w]
        generic = isinstance(c, RequiredArgument) and said in (["ref"], ["reference"], ["id"])
        if not generic and not all(
            any(o == w or (len(w) >= 3 and o.startswith(w)) for o in own) for w in said
        ):
            return False
    return True


def _required_alone(part: str) -> Check | None:
    """The one check 'Requests must include <part>.' compiles to, when it is understood."""
    alone = _guarded_prose(0, "", f"Requests must include {part}.", None)
    if alone.unaccounted or alone.uncompiled or len(alone.checks) != 1:
        return None
    return alone.checks[0]


def _compile_with_else(
    index: int, chunk_id: str, text: str, glossary: Glossary | None, evidence: bool
) -> CompiledRule:
    """`_compile_as_written`, with a closing else branch that restates the rule's effect ('Funding
    account must be OPS-PAYROLL-01. Any other account -> reject.') read as what the rule refuses
    already (asides.else_branch); any other else branch stays as the rule reads it."""
    # 'Investor must be FNMA or FHLMC; agents may not modify loans for any other investor': the
    # closing clause restates the allow-list for the values it leaves out (tiers.py), with its
    # own effect ('Any other contract type goes to a human signatory for approval': review)
    other = tiers.other_clause(text)
    if other is not None:
        head = _compile_as_written(index, chunk_id, other.head, glossary, evidence)
        if (
            head.understanding == "understood"
            and _restates(head.checks, other, relax=True)
            and tiers.values_whole(head.checks, other.head)
        ):
            checks = tuple(
                replace(c, effect=other.effect) if c.effect != other.effect else c
                for c in head.checks
            )
            return replace(head, text=text, checks=checks)
        # ---- jlist: a permission followed by 'anything else -> …' is a closed list ('Auto-file
        # OK for jurisdictions US, CA, GB; anything else -> Tax team review'); taken only when
        # the head, written as that list, reads as one allow-list of the values written in it
        closed = tiers.exclusive(other.head, lambda code: code.upper() in CURRENCY_CODES)
        if closed is not None:
            head = _compile_as_written(index, chunk_id, closed, glossary, evidence)
            if (
                head.understanding == "understood"
                and tiers.listed_at_end(head.checks, closed)
                and _restates(head.checks, other, relax=True)
            ):
                checks = tuple(replace(c, effect=other.effect) for c in head.checks)
                return replace(head, text=text, checks=checks)
        # ---- end jlist
    # 'Hard ceiling: 2,000 USD per adjustment. Anything higher is refused, no exceptions.': the
    # closing clause restates the cap (tiers.py)
    capped = tiers.higher_refused(text)
    if capped is not None:
        head = _compile_as_written(index, chunk_id, capped, glossary, evidence)
        if head.understanding == "understood" and tiers.only_caps(head.checks):
            return replace(head, text=text)
    beyond = tiers.beyond_refused(text)
    if beyond is not None:
        head = _compile_as_written(index, chunk_id, beyond[0], glossary, evidence)
        if head.understanding == "understood" and tiers.only_bounds(head.checks, beyond[1]):
            return replace(head, text=text)
    branch = asides.else_branch(text)
    if branch is None:
        return _compile_as_written(index, chunk_id, text, glossary, evidence)
    whole = _compile_as_written(index, chunk_id, text, glossary, evidence)
    if whole.understanding == "understood":
        return whole
    head = _compile_as_written(index, chunk_id, branch.head, glossary, evidence)
    if head.understanding == "understood" and _restates(head.checks, branch):
        return replace(head, text=text)
    # 'VAT remits: EU member states, UK, NO, CH only - any other jurisdiction -> Tax Ops review':
    # read whole as one allow-list the branch gives its effect, with only the branch's own words
    # left ('any other jurisdiction'), the branch is that allow-list's 'unless'
    if (
        whole.unaccounted
        and not whole.uncompiled
        and len(whole.checks) == 1
        and isinstance(whole.checks[0], ValueList)
        and _restates(whole.checks, branch)
        and all(
            set(re.findall(r"[a-z][\w\-']*", u.lower())) <= set(branch.words)
            for u in whole.unaccounted
        )
    ):
        return replace(whole, unaccounted=())
    return whole


def _restates(checks: Sequence[Check], branch: asides.ElseBranch, relax: bool = False) -> bool:
    """Every check is a restriction whose own effect is the branch's: an allow-list, a value the
    argument must hold or be given, two values that must match. What the branch names ('any
    other account', 'any other jurisdiction') is what the restriction is about. With `relax`,
    a top-level allow-list that denies may be restated by a branch that sends to review (the
    branch says what happens to the values left out); nothing else changes."""
    flat = _all_checks(list(checks))
    if not flat:
        return False
    if relax and len(flat) != len(checks):
        return False
    for c in flat:
        if c.effect != branch.effect and not (
            relax and c.effect == "deny" and branch.effect == "review"
        ):
            return False
        if isinstance(c, ValueList):
            if c.mode != "allow":
                return False
        elif isinstance(c, Binding):
            if c.op not in ("eq", "present"):
                return False
        elif not isinstance(c, (SameValue, RequiredArgument)):
            return False
        if branch.noun and not _names_what_is_restricted(c, branch.noun):
            return False
    return True


def _names_what_is_restricted(check: Check, noun: str) -> bool:
    nouns = noun.split()
    if all(n in asides.GENERIC_NOUNS for n in nouns):
        return True
    if isinstance(check, ValueList) and nouns[-1] in asides.DIMENSION_NOUNS.get(check.match, ()):
        return True
    said = set(check.terms) | {stem(w) for w in getattr(check, "about_words", ())}
    said |= {stem(w) for w in getattr(check, "kind_words", ())}
    said |= {stem(w) for w in re.split(r"[._]", getattr(check, "path", "")) if w}
    said |= {stem(w) for w in getattr(check, "arg_words", ())}
    return stem(nouns[-1]) in said


def _compile_as_written(
    index: int,
    chunk_id: str,
    text: str,
    glossary: Glossary | None = None,
    evidence: bool = True,
) -> CompiledRule:
    """Compile one rule statement as written (after the asides are set aside)."""
    # ---- jpair: 'preparer_id must differ from approver_id (SoD)', 'No payments to grantees
    # whose grantee_status is suspended or under_investigation': two arguments compared, or the
    # states of one, read whole (pairs.py), before any reader
    # takes a part of it (a grammar of the whole sentence, so nothing else is left to read)
    paired = pair_and_status_checks(index, text)
    if paired is not None:
        return CompiledRule(index, chunk_id, text, tuple(paired), False, False, (), ())
    # ---- end jpair
    if evidence:
        # 'Wires over $25,000 need Treasury sign-off - put the approval ticket in
        # treasury_approval_id': the review is given when the request evidences the approval
        given = _evidenced_approval(index, chunk_id, text, glossary)
        if given is not None:
            return given
    # 'Only the ap-release-bot agent may release a payment', 'Reserve holds are set by Risk
    # only': who may do the act, read by its own grammar, whole or not at all (actors.py)
    reserved = reserved_act_rule(index, text, text)
    if reserved is not None:
        return CompiledRule(index, chunk_id, text, tuple(reserved), False, False, (), ())
    # ---- jagent2: rules about the requesting agent, per-agent rates and totals (agentrules.py)
    about_agent = _agent_rule(index, chunk_id, text, glossary)
    if about_agent is not None:
        return about_agent
    # ---- end jagent2
    both = _agent_and_rest(index, chunk_id, text, glossary)
    if both is not None:
        return both
    # ---- jident: 'No shipment without a customs broker - broker_id must be filled in', 'Signed
    # NDA required (nda_ref)', 'Not allowed unless restriction_met = true': the argument named by
    # its identifier in prose, read whole (identified.py); the prose readings took the
    # identifier for a value ("Deny when an argument is broker_id") and left the prose unread
    named = identified_checks(index, text)
    if named is not None:
        return CompiledRule(index, chunk_id, text, tuple(named), False, False, (), ())
    both_named = two_obligations(text)
    if both_named is not None:
        first = identified_checks(index, both_named[0])
        rest = _compile_mended(index, chunk_id, both_named[1], glossary, evidence)
        if first is not None and rest.understanding == "understood":
            # each obligation read whole on the rule's subject: the rule is understood only as both
            joined = (*first, *(replace(c, source=text) for c in rest.checks))
            return CompiledRule(index, chunk_id, text, joined, False, False, (), ())
    # ---- end jident
    # ---- jgloss: 'Never ship to P.O. boxes (address_type = po_box)' is prose glossed with its
    # argument, not notation: read by the gloss first when that reading takes the rule whole
    if _GLOSS_HINT.search(text):
        glossed = _guarded_prose(index, chunk_id, text, glossary)
        if glossed.decides and any(isinstance(c, Glossed) for c in _all_checks(glossed.checks)):
            return glossed
    # ---- end jgloss
    # ---- jparenarg: 'Escrow pays only: property taxes, … (disbursement_type)', 'Group size
    # 10-60 pax (pax_count)': a list, a place or a bound beside the argument it binds, read
    # whole by its own grammar (namedargs.py)
    bound = named_argument_checks(index, text)
    if bound is not None:
        return CompiledRule(index, chunk_id, text, tuple(bound), False, False, (), ())
    if unread_argument_led_list(text):
        # jred27: the argument's closed list holds an item that is a condition ('spam confirmed
        # by T&S'): whatever the other readings make of it, the rule does not decide alone
        rule = _compile_after_named(index, chunk_id, text, glossary, evidence)
        return replace(rule, uncompiled=True) if rule.checks else rule
    return _compile_after_named(index, chunk_id, text, glossary, evidence)
    # ---- end jparenarg


def _compile_after_named(
    index: int, chunk_id: str, text: str, glossary: Glossary | None, evidence: bool
) -> CompiledRule:
    """The readings after a list, place or bound beside its argument (scopes, then prose)."""
    # ---- jscope: 'Card payments (payment_method = card) over $3,000 need property manager
    # approval': the subject phrase's gloss is the condition the rest of the rule holds under
    # (scopes.py), the rest read by the engine's own readings
    scoped = None
    if _GLOSS_HINT.search(text):
        scoped = scoped_rule(
            index,
            chunk_id,
            text,
            lambda body: _compile_mended(index, chunk_id, body, glossary, evidence),
        )
        if scoped is not None and scoped.decides:
            return scoped
    rule = _compile_unglossed(index, chunk_id, text, glossary)
    if scoped is not None and not rule.decides:
        # both partly understood: the scoped reading says what it read right ('When
        # `energized` is true: …'), where the others had read the gloss as a requirement
        return scoped
    return rule
    # ---- end jscope


def _compile_unglossed(
    index: int, chunk_id: str, text: str, glossary: Glossary | None
) -> CompiledRule:
    """`_compile_as_written` after the readings of a gloss: a table, notation, then prose."""
    # 'Channel retail_store or app: OK. Phone or chat -> fraud team must review.': a table of
    # values and what each gets, read whole by its own grammar (tables.py). First: read as prose,
    # 'Allow requests about channel app' approved a channel the table does not list.
    table = table_checks(index, text)
    if table is not None:
        return CompiledRule(index, chunk_id, text, tuple(table), False, False, (), ())
    # 'amount > 5000 -> fraud team review', 'currency in {EUR, GBP}; anything else -> deny': a
    # rule written in notation is read by its own grammar (notation.py), whole or not at all
    noted = notation_checks(index, text)
    if noted is not None:
        made, left = noted
        if plain_paths(made):
            prose = _guarded_prose(index, chunk_id, text, glossary)
            if prose.decides:
                made = with_prose(made, prose.checks)
        if left:
            inline = _inline_rule(index, chunk_id, text)
            if inline is not None:
                return inline
        return CompiledRule(index, chunk_id, text, tuple(made), False, False, (), tuple(left))
    # 'FREEZE: Harbor Point portfolio - no lease changes …', 'Alameda County - eviction
    # moratorium in effect: no pay-or-quit notices, no filings': a hold led by its label or its
    # subject, read whole (holds.py) before the prose readings take it for a flat prohibition
    held = hold_checks(index, text, stated=False)
    if held is not None:
        return CompiledRule(index, chunk_id, text, tuple(held), False, False, (), ())
    # 'Prefix shorter than /24 -> network team review': a bound on a prefix's length, read whole
    # by its own grammar (netranges.py); the prose readings had read 'i.e' as a value
    widths = prefix_checks(index, text) or named_condition_checks(index, text)
    if widths is not None:
        return CompiledRule(index, chunk_id, text, tuple(widths), False, False, (), ())
    rule = _guarded_prose(index, chunk_id, text, glossary)
    if not rule.decides:
        # 'Elm Court and Birchwood Towers are in receivership. No rent collection at those
        # properties': a hold on named values, read whole by its own grammar (holds.py) where
        # the prose readings left words unread
        held = hold_checks(index, text)
        if held is not None:
            return CompiledRule(index, chunk_id, text, tuple(held), False, False, (), ())
        inline = _inline_rule(index, chunk_id, text)
        if inline is not None:
            return inline
    elif _INLINE_VALUE_BEFORE_ARROW.search(text):
        # 'lock_reason fraud for new customers -> NEVER via agent' had read "Deny when customers
        # has not been seen before": an argument and its value written inline, which no prose
        # reading binds, are left unread
        return _leave_unread(rule, [_INLINE_VALUE_BEFORE_ARROW.search(text).group("arg")])
    return rule


# -- jagent2: rules about the requesting agent (agentrules.py) -----------------------------------
def _agent_rule(
    index: int, chunk_id: str, text: str, glossary: Glossary | None
) -> CompiledRule | None:
    """'intake-bot may not grant access', 'cx-bot-* agents may only issue vouchers under 100
    EUR', 'Only rates-analyst-bot may use rates.* tools' read whole by agentrules.py; 'autopay
    retries: max 2/hr per agent', 'Daily cap per agent: $12,000 total' restated in the words the
    prose readings take, kept only when that reading is understood."""

    def bound(restated: str) -> list[Check] | None:
        rule = _guarded_prose(index, chunk_id, restated, glossary)
        return list(rule.checks) if rule.decides else None

    made = agentrules.agent_rule(index, text, text, bound)
    if made is not None:
        return CompiledRule(index, chunk_id, text, tuple(made), False, False, (), ())
    again = agentrules.restated(text)
    if again is not None:
        rule = _guarded_prose(index, chunk_id, again, glossary)
        if rule.decides:
            return replace(rule, text=text)
    return None


# -- end jagent2 --------------------------------------------------------------------------------


# -- jinline: prose rules with an argument condition written inline (inline.py) ----------------
def _inline_rule(index: int, chunk_id: str, text: str) -> CompiledRule | None:
    """'No port-out while balance_due_cents > 0 unless payment_arrangement = true', 'kyc_tier 2+
    only': read whole by inline.py, only when neither notation nor the prose readings understood
    the rule (a reading they label understood is kept)."""
    made = inline_checks(index, text)
    if made is None:
        return None
    return CompiledRule(index, chunk_id, text, tuple(made), False, False, (), ())


# an argument's name, then a bare value of it, then more before an arrow ('lock_reason fraud for
# new customers -> …'): the inline condition inline.py reads when nothing else is in the way
_INLINE_VALUE_BEFORE_ARROW = re.compile(
    r"(?:^|[.;]\s+|\b(?:if|when|where)\s+)(?P<arg>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+"
    r"(?!(?i:is|are|must|may|can|should|shall|not|in|of|on|to|for|at|by|and|or|over|under|above|"
    r"below|than)\b)[A-Za-z0-9][\w\-]*\b[^.;]*?(?:->|=>|\u2192)",
)


# -- end jinline --------------------------------------------------------------------------------


# 'Payouts may only be released by treasury-bot to sellers whose status is Verified': the agent
# the act is reserved to, then the rest of the restriction. Split at the party, each part is a
# rule the engine reads: 'Payouts may only be released by treasury-bot' (actors.py) and 'Payouts
# may only be released to sellers whose status is Verified'.
_BY_AGENT_THEN = re.compile(
    r"^(?P<head>.*?\bonly\s+(?:be\s+)?[a-z]+\s+)by\s+(?P<agent>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)"
    r"(?P<tail>\s+(?:to|for|from|on|in)\s+[^,;]+?)\s*\.?\s*$",
    re.I,
)


def _agent_and_rest(
    index: int, chunk_id: str, text: str, glossary: Glossary | None
) -> CompiledRule | None:
    """The rule read whole as the agent's reservation and the rest, both understood; None
    when either part is not (the party is then left unread by `_party_unread`)."""
    m = _BY_AGENT_THEN.match(text)
    if m is None:
        return None
    head = m.group("head").rstrip()
    actor = reserved_act_rule(index, text, f"{head} by {m.group('agent')}")
    if actor is None or not all(c.agents or c.prefixes for c in actor):
        return None  # a team or a person ('by Treasury'): not an agent id the request shows
    rest = _guarded_prose(index, chunk_id, head + m.group("tail"), glossary)
    if not rest.decides:
        return None
    return replace(rest, text=text, checks=(*actor, *rest.checks))


def _guarded_prose(
    index: int, chunk_id: str, text: str, glossary: Glossary | None = None
) -> CompiledRule:
    """The reading in words, with what it misreads as a whole left unaccounted: the first
    fail-safe of _AS_WRITTEN that finds a misreading in the rule as written names its words."""
    rule = _compile_prose(index, chunk_id, text, glossary)
    for fail_safe in _AS_WRITTEN_BEFORE_CAPS:
        left = fail_safe(rule, text)
        if left:
            return _leave_unread(rule, left)
    rule = _per_transaction_caps(rule, text)
    rule = _act_carried_into_but_never(rule, text)
    for fail_safe in _AS_WRITTEN:
        left = fail_safe(rule, text)
        if left:
            return _leave_unread(rule, left)
    return rule


# 'Agents may issue refunds up to $100, but never to customers flagged for fraud': the second
# restriction is on the same act, named only in the first clause.
_BUT_NEVER = re.compile(r"\bbut\s+(?:never|not)\b", re.I)


def _act_carried_into_but_never(rule: CompiledRule, text: str) -> CompiledRule:
    """The first clause's subject words carried into a 'but never …' clause that names only the
    party: read alone, 'customers' was not shown by a refund tool with `fraud_flag: true`, the
    prohibition did not apply and the refund to a flagged customer was approved."""
    if len(rule.checks) < 2 or not _BUT_NEVER.search(text):
        return rule
    first = rule.checks[0]
    if not first.terms:
        return rule
    checks = [first]
    for c in rule.checks[1:]:
        if c.effect != "allow" and set(c.terms).isdisjoint(first.terms):
            c = _with_subject(c, first.terms)
        checks.append(c)
    return replace(rule, checks=tuple(checks))


def _with_subject(check: Check, terms: tuple[str, ...]) -> Check:
    """`check` (and the check it wraps, whose subject decides whether it applies) with `terms`
    before its own subject words."""
    base = getattr(check, "base", None)
    if isinstance(base, Check):
        check = replace(check, base=_with_subject(base, terms))
    return replace(check, terms=tuple(dict.fromkeys((*terms, *check.terms))))


def _leave_unread(rule: CompiledRule, left: Sequence[str]) -> CompiledRule:
    """`rule` with the words `left` unaccounted for: partly understood, it never decides."""
    return replace(rule, unaccounted=tuple(dict.fromkeys((*rule.unaccounted, *left))))


def _every(rule: CompiledRule) -> list[Check]:
    return _all_checks(list(rule.checks))


def _number_words_in_act(rule: CompiledRule, text: str) -> list[str]:
    """'Do not scale any production deployment to zero replicas' read as words the request must
    show: `replicas: 0` does not spell 'zero', so the rule passed it by. A number written as a
    word inside the act is a bound no action check reads."""
    return [
        t for c in _every(rule) if c.kind == "action" for t in c.terms if t in _NUMBER_WORD_STEMS
    ]


def _argument_named_as_value(rule: CompiledRule, text: str) -> list[str]:
    """'Above that only with a dpia_ref.' read as "Deny unless an argument is dpia_ref": a name
    shaped like an argument's after 'with a' is an argument the request must carry, not a value
    (every export was denied); and what it is required for is not read here. So is one said to
    be required or populated ('make sure beneficial_owner is populated only for enterprise
    customers' had read "Deny unless an argument is beneficial_owner", labelled understood)."""
    return [
        v
        for c in _every(rule)
        if isinstance(c, ValueList) and c.mode == "allow"
        for v in c.values
        if _ARGUMENT_SHAPE.fullmatch(v)
        and (
            re.search(rf"\bwith\s+(?:an?|the|its)\s+{re.escape(v)}\b", text, re.I)
            or re.search(rf"\b{re.escape(v)}\s+{_SAID_REQUIRED}", text, re.I)
        )
    ]


_SAID_REQUIRED = (
    r"(?:is|are|must\s+be|should\s+be)\s+(?:always\s+)?(?:required|mandatory|compulsory|"
    r"populated|filled|given|provided|set|present|supplied|entered)\b"
)


def _kinds_of_plan(rule: CompiledRule, text: str) -> list[str]:
    """'Goodwill credits must not be given to customers on a reseller or wholesale plan' and
    `plan: "partner_pro"`: kinds of plan named by a word are open classes, which a plan's name may
    belong to without spelling the word (read as words the request must show, partner_pro was
    approved); no vocabulary defines them, so a human decides."""
    kinds = _KIND_OF_PLAN.search(text)
    if kinds and any(
        c.kind == "action" and c.effect != "allow" and getattr(c, "alternatives", ())
        for c in _every(rule)
    ):
        return [kinds.group("noun").lower()]
    return []


def _list_to_exclude(rule: CompiledRule, text: str) -> list[str]:
    """'Every promotional send must exclude the global_unsubscribe list' read as "Deny when
    `list` is global_unsubscribe": the value must be held out, which a deny-list of it does not
    check (a send that left it out of every argument passed). 'must exclude ssn (field)' is a
    deny-list, rightly."""
    held_out = _MUST_EXCLUDE.search(text)
    if held_out and any(
        isinstance(c, ValueList) and c.mode == "deny" and set(c.kind_words) & _AUDIENCE_KINDS
        for c in _every(rule)
    ):
        return [held_out.group("verb").lower()]
    return []


def _colon_names_lost(rule: CompiledRule, text: str) -> list[str]:
    """'Only panel firms may be paid: Clifford Chance, Linklaters, …' read as "`firms` is
    panel": a list of values whose names are not the ones the colon lists is not the rule's list
    (every panel firm was denied); the names stay unaccounted."""
    listed = _COLON_NAMES.search(text)
    if listed and any(
        isinstance(c, ValueList)
        and c.values
        and not any(v.lower() in listed.group("names").lower() for v in c.values)
        for c in _every(rule)
    ):
        return [w.lower() for w in words(listed.group("names"))[:3]]
    return []


def _per_transaction_caps(rule: CompiledRule, text: str) -> CompiledRule:
    """'Refunds: up to $100 per transaction, max $300 per day': the day belongs to the second
    amount; the first, per transaction, is a cap on this request (read as a day's total under
    $100, a second small refund in a day was denied)."""
    if not (rule.checks and any(c.kind == "numeric_limit" and c.window for c in rule.checks)):
        return rule
    single = _per_transaction_amounts(text)
    if not single:
        return rule
    return replace(
        rule,
        checks=tuple(
            replace(c, window=None)
            if c.kind == "numeric_limit" and c.window and c.threshold in single
            else c
            for c in rule.checks
        ),
    )


def _per_party_total(rule: CompiledRule, text: str) -> list[str]:
    """'Credits are limited to $100 per customer', 'Each customer may receive at most $200 in
    credits': a total for each customer, which one request's amount does not show (read as a cap
    on this credit, a second $100 credit to the same customer was approved). Money only: a count
    of earlier things is read from its own argument."""
    party = _PER_PARTY.search(text)
    if party and any(
        isinstance(c, NumericLimit)
        and c.currency
        and not c.window
        and not c.per
        and not c.counts_calls
        for c in _every(rule)
    ):
        return [(party.group("party") or party.group("party2")).lower()]
    return []


def _rest_of_a_list(rule: CompiledRule, text: str) -> list[str]:
    """'Approved payout countries: US, CA, GB, DE. Payouts anywhere else need treasury
    sign-off.' read as a refusal of the unlisted countries and a review of every payout: the rest
    go to review, which neither reading says (FR was denied, GB sent to review)."""
    rest = _THE_REST.search(text)
    every = _every(rule)
    if (
        rest
        and any(
            isinstance(c, ValueList) and c.mode == "allow" and c.effect == "deny" for c in every
        )
        and any(c.kind == "action" and c.effect == "review" for c in every)
    ):
        return [rest.group(0).lower()]
    return []


def _examples_as_the_list(rule: CompiledRule, text: str) -> list[str]:
    """'Exports of sensitive tables (e.g. payroll, ssn_records) require DPO approval' read as a
    review of those two tables: values after 'e.g.', 'such as', 'for example' are examples of a
    class the rule does not enumerate (medical_claims was approved); the marker stays
    unaccounted, so a human decides."""
    return list(_examples_read_as_list(text, rule.checks))


def _glossed_listed_name(rule: CompiledRule, text: str) -> list[str]:
    """'one of: Mercer, Aon, Legal & General (pensions)': the gloss of one listed name (_GLOSSED_ITEM)."""
    glossed = _GLOSSED_ITEM.search(text)
    if rule.checks and glossed and "," in text[glossed.start() :]:
        return [w for w in glossed.group("gloss").split() if w not in STOPWORDS]
    return []


def _review_spared_above(rule: CompiledRule, text: str) -> list[str]:
    """'amount > 500 -> no review needed' (alone_permission): its sparing stays unread, so no
    reading of the rest (a review above 500) is labelled understood."""
    spared = NO_REVIEW_NEEDED.search(text)
    if rule.checks and spared and _FLOOR_SPARED.search(text[: spared.start("alone")]):
        return [spared.group("alone").lower()]
    return []


def _arrow_refusal_unread(rule: CompiledRule, text: str) -> list[str]:
    """'Card limits > 10k -> risk review, > 50k => blocked': a refusal after an arrow that no
    check denies was read as something else (review above 50k)."""
    refused = _ARROW_REFUSES.search(text)
    if rule.checks and refused and not any(c.effect == "deny" for c in _every(rule)):
        return [refused.group("word").lower()]
    return []


def _notation_unread(rule: CompiledRule, text: str) -> list[str]:
    """'downgrade && seats_in_use > …' the grammar did not read: no other reading joins
    conditions written so, whatever it made of the words."""
    if rule.checks and _UNREAD_NOTATION.search(text):
        # (jgloss: 'Orders flagged for fraud (fraud_flag = true) -> deny': a glossed condition
        # before the arrow is the arrow's condition, and the gloss's check reads it so)
        glossed = {c.path for c in _every(rule) if isinstance(c, Glossed)}
        found = [
            m.group(0)
            for m in _UNREAD_NOTATION.finditer(text)
            if not (")" in m.group(0) and m.group(0).split("=")[0].strip() in glossed)
        ]
        return list(dict.fromkeys(found))
    return []


# 'No ticket needed for password resets under 3 per day', 'Refunds do not require a receipt when
# …': an exemption from a thing (not from a person's review, which NO_REVIEW_NEEDED reads)
_EXEMPTED_THING = re.compile(
    r"\b(?:no\s+(?P<a>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})\s+(?:is\s+|are\s+)?"
    r"(?:needed|required|necessary)|(?:do|does)\s*(?:not|n't)\s+(?:need|require)\s+"
    r"(?P<b>(?:a|an|any|the)\s+[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})|"
    r"(?:is|are)\s+not\s+(?:needed|required|necessary))\b",
    re.I,
)


def _exemption_unread(rule: CompiledRule, text: str) -> list[str]:
    """An exemption the reading did not make a permission of (_exemption reads the plain ones)
    was read as something that restricts: a count, a requirement. Left unread, it never
    decides."""
    found = _EXEMPTED_THING.search(text)
    if not found or REVIEW.search(found.group(0)):
        return []
    if any(c.effect != "allow" for c in _every(rule)):
        return [w.lower() for w in words(found.group(0))]
    return []


def _required_value_refused(rule: CompiledRule, text: str) -> list[str]:
    """ "Seller KYC status must be 'verified' - pending or failed KYC = no payout" read as "Deny
    when KYC status is verified": the refusal after the dash took the value the rule requires for
    one it refuses, and every verified seller was denied. A value the rule says something must be
    is never one its check refuses."""
    refused = [
        *(
            v
            for c in _every(rule)
            if isinstance(c, ValueList) and c.mode == "deny"
            for v in c.values
        ),
        # 'Account state must be "active" - anything else = no transfer' read as "Deny requests
        # about account state active transfer": the required value as a word of the refused act
        *(t for c in rule.checks if c.kind == "action" and c.effect != "allow" for t in c.terms),
    ]
    return [
        v
        for v in refused
        if re.search(
            rf"\b(?:must|shall|should|has\s+to|have\s+to|needs?\s+to)\s+(?:always\s+)?be\s+"
            rf"(?:set\s+to\s+)?['\"‘“]?{re.escape(v)}[\w\-]*",
            text,
            re.I,
        )
        and not re.search(
            rf"\b(?:must|shall|should)\s+(?:not|never)\s+be\s+['\"‘“]?{re.escape(v)}[\w\-]*",
            text,
            re.I,
        )
    ]


# 'AWS-managed', 'customer-owned', 'self-hosted', 'vendor-issued': a kind named by who manages,
# owns or issues the thing, not a name a request spells
_KIND_PARTICIPLE = re.compile(
    r"^[A-Za-z0-9]+-(?:managed|owned|hosted|based|issued|signed|funded|operated|approved|"
    r"controlled|provided|supplied)$",
    re.I,
)
# Stops of a party's name: what follows it in a rule is where, to whom or when, never the party.
_PARTY_END = (
    r"(?:to|for|from|on|in|at|into|with|whose|who|which|that|when|if|unless|under|over|above|"
    r"below|and|or|but|after|before|within|during|up|no|only|never|except)"
)
# 'Payments may only be released by Treasury to vendors whose status is Active', 'Reserve holds
# are set only by Risk for …', '… released by treasury-bot only': who may do the act, in a passive
# 'only … by <party>'. actors.py reads it whole or not at all (a rule it read never reaches the
# prose reading), so here the party was taken for a subject word that nothing matched.
_ONLY_BY_PARTY = re.compile(
    rf"\bonly\s+(?:be\s+)?(?:[a-z]+\s+)?(?P<by>by)\s+(?:the\s+|a\s+|an\s+|our\s+)?"
    rf"(?P<who>[\w\-]+(?:\s+(?!{_PARTY_END}\b)[\w\-]+){{0,2}})"
    r"|\b(?P<by2>by)\s+(?:the\s+|a\s+|an\s+|our\s+)?(?P<who2>[\w\-]+(?:\s+[\w\-]+)?)\s+only\b"
    r"(?!\s+(?:if|when|after|once|while|where)\b)",
    re.I,
)
# The party's whole phrase, with where it belongs ('by requesters in the hr-ops group', 'by
# freight carriers DHL Freight or Kuehne+Nagel'): up to where the act's object or condition starts.
_PARTY_PHRASE = re.compile(
    r"[^,;.]*?(?=\s+(?:to|for|whose|who|which|when|if|unless)\b|[,;.]|$)", re.I
)
# 'Only senior agents may pay vendors whose status is Active', 'Only fin-bot may …': who may act,
# opening the rule. Read by actors.py whole; a prose reading took 'senior' for a value of an
# argument named for agents and the status for subject words.
_ONLY_WHO = re.compile(
    r"^\s*only\s+(?:the\s+)?(?P<who>(?:[\w\-]+\s+){0,2}?(?:agents?|bots?|staff|employees?|"
    r"operators?|engineers?|admins?|analysts?|leads?|managers?|supervisors?|personnel|members?|"
    r"teams?)|[a-z][a-z0-9]*[-_][\w\-]*(?:bot|agent|svc|service)\b)\s+(?:may|can|are\s+allowed\s+to|"
    r"are\s+permitted\s+to|is\s+allowed\s+to|is\s+permitted\s+to)\b",
    re.I,
)


def _kinds_as_names(rule: CompiledRule, text: str) -> list[str]:
    """'Use AWS-managed or customer-managed policies only' read as a list of names the request
    must spell: `policy_arn: "arn:aws:iam::aws:policy/ReadOnlyAccess"` (an AWS-managed policy)
    was denied. A listed kind belongs to no vocabulary; a human decides."""
    return [
        v
        for c in _every(rule)
        if isinstance(c, ValueList)
        for v in c.values
        if _KIND_PARTICIPLE.match(v)
    ]


def _party_unread(rule: CompiledRule, text: str) -> list[str]:
    """Who may do the act, in a rule whose reading names no actor: the party's words stay
    unread ('by Treasury'), so the rule never decides on the part it did read (the vendor's
    status approved a payment whoever released it)."""
    if not rule.checks:
        return []
    left: list[str] = []
    # a list bound to an argument named for its kind ('carrier', 'group'); a name compared with
    # any argument at all ('Deny unless an argument is treasury-bot') is the actor misread
    listed = {
        str(v).lower()
        for c in _every(rule)
        if isinstance(c, ValueList) and c.kind_words
        for v in c.values
    }
    for m in _ONLY_BY_PARTY.finditer(text):
        start = m.start("by") if m.group("by") else m.start("by2")
        phrase = _PARTY_PHRASE.match(text, start)
        if phrase and any(v and v in phrase.group(0).lower() for v in listed):
            continue  # the party is a list a check compares with (a carrier, a group): read
        who = m.group("who") or m.group("who2")
        left += ["by", *(w.lower() for w in words(who))]
    m = _ONLY_WHO.match(text)
    if m:
        left += ["only", *(w.lower() for w in re.findall(r"[\w\-]+", m.group("who")))]
    return list(dict.fromkeys(left))


# 'Include no customer PII.', 'Replies must include no customer PII', 'should contain no health
# data': what the content must not hold. Read as a prohibition of requests about the thing (the
# verb is a function word) or as a required argument named for it (denied a reply without PII).
HOLDS_NONE = re.compile(
    r"\b(?P<verb>include|includes|contain|contains|carry|carries|mention|mentions|hold|holds|"
    r"have|has)\s+"
    r"(?P<no>no)\b"
    # 'must contain no more than 1,000 rows' is a cap, read by the limit
    r"(?!\s+(?:more|less|fewer|greater|longer|larger|higher|lower|later|earlier)\b)",
    re.I,
)


def _holds_none_unread(rule: CompiledRule, text: str) -> list[str]:
    """'… include no X' is read only by a deny-list of the names the content may not hold
    ('must contain no ssn or dob columns'); any other reading leaves the verb unread."""
    found = HOLDS_NONE.search(text)
    if not found or not rule.checks:
        return []
    if any(isinstance(c, ValueList) and c.mode == "deny" for c in _every(rule)):
        return []
    return [found.group("verb").lower(), "no"]


# 'Waivers not over $100 - supervisor.', 'Credits not above 50 EUR: team lead': a bound negated
# with no modal before it names the side up to the bound, and what follows says who handles it.
# Read as the bound alone ('Deny when the amount is above 100 USD'), the negation was dropped.
_BARE_NEGATED_BOUND = re.compile(
    r"(?<!\bmust\s)(?<!\bmay\s)(?<!\bcan\s)(?<!\bshall\s)(?<!\bshould\s)(?<!\bwill\s)"
    r"(?<!\bwould\s)(?<!\bdo\s)(?<!\bdoes\s)(?<!\bis\s)(?<!\bare\s)(?<!\bbe\s)(?<!\bwas\s)"
    # right after the subject's word ('Per diem: not more than 70 EUR' is a headed cap)
    r"(?<!\bwere\s)(?<!\bcannot\s)(?<=[A-Za-z]\s)\bnot\s+(?:over|above|more\s+than|exceeding|"
    r"in\s+excess\s+of|"
    r"beyond|greater\s+than|under|below|less\s+than)\b",
    re.I,
)


def _bare_negated_bound(rule: CompiledRule, text: str) -> list[str]:
    """A bare 'not over $X' read as a limit that restricts the side above it: the negation and
    the side it names were dropped; left unread, a human decides."""
    found = _BARE_NEGATED_BOUND.search(text)
    if not found:
        return []
    if any(isinstance(c, NumericLimit) and c.effect != "allow" for c in _every(rule)):
        return ["not"]
    return []


# 'Trades over 1M are forbidden in the last hour before close', 'no releases in the first 30
# minutes after open': a stretch of time next to an event, which only a time-of-day reading
# reads. Read as a window of a count ('the number of requests per hour'), a 2M trade passed.
_NEAR_AN_EVENT = re.compile(
    r"\b(?:in|during|within|for)\s+the\s+(?P<edge>last|first|final|opening|closing)\s+"
    r"(?:\d+\s+|few\s+|two\s+|three\s+)?(?P<unit>hours?|minutes?|mins?|days?|weeks?|seconds?)\b",
    re.I,
)


def _time_near_an_event(rule: CompiledRule, text: str) -> list[str]:
    """A stretch of time before or after an event that no time-of-day or date check reads."""
    found = _NEAR_AN_EVENT.search(text)
    if not found or not rule.checks:
        return []
    if any(isinstance(c, (TimeOfDay, DateWindow)) for c in _every(rule)):
        return []
    return [found.group("edge").lower(), found.group("unit").lower()]


# '… only on weekdays between 9:00 and 17:00': the bounds of a time of day read as a list of two
# values an argument must hold ('Deny unless an argument is 9:00 or 17:00'), the weekdays dropped.
_CLOCK_TIME = re.compile(r"\d{1,2}(?::\d{2})?\s*(?:am|pm|h)?|\d{1,2}:\d{2}(?::\d{2})?", re.I)


def _times_listed(rule: CompiledRule, text: str) -> list[str]:
    """Clock times a list compares with as plain values: a time of day no list reads."""
    return [
        str(v)
        for c in _every(rule)
        if isinstance(c, ValueList)
        and c.values
        and all(_CLOCK_TIME.fullmatch(str(v).strip()) and ":" in str(v) for v in c.values)
        for v in c.values
    ]


# 'Only transfers under $1,000 may go to Belarus', 'Only orders under $500 may ship to Mexico':
# 'only' restricts the amount of what goes there (to Belarus, only small transfers). Read as
# 'Transfers under $1,000 may only go to Belarus' (a conditional allow-list), a 5,000 USD transfer
# to Belarus was approved.
_ONLY_BOUNDED_SUBJECT = re.compile(
    r"^\s*only\s+(?:[a-z][\w\-]*\s+){1,3}?(?:under|below|less\s+than|up\s+to|at\s+most|"
    r"no\s+more\s+than|not\s+over|over|above|more\s+than|at\s+least|exceeding)\s*"
    r"(?:[$\u20ac\u00a3\u00a5]|[A-Z]{3}\s)?\s*\d[\d,.]*[^;.]*?\b(?:may|can|are\s+allowed\s+to|"
    r"are\s+permitted\s+to)\b",
    re.I,
)


def _only_on_the_amount(rule: CompiledRule, text: str) -> list[str]:
    """'Only <things> <bound> may <go somewhere>' read as a conditional allow-list of the place:
    the restriction is the other way round; left unread."""
    if not _ONLY_BOUNDED_SUBJECT.match(text):
        return []
    if any(isinstance(c, (When, WhenBound, WhenListed)) for c in _every(rule)):
        return ["only"]
    return []


# 'Support may refund up to $75 on orders placed with a credit card', 'Waive late fees up to $30
# for customers with no prior waivers', 'Bots may approve invoices up to $2,000 from approved
# vendors': a permission whose bound is read (a cap), and whose party is qualified. The
# qualifier narrows what the permission grants; read as subject words it was ruled out or not
# shown, and a refund of a PayPal order under the bound was approved by the cap.
_QUALIFIED_PARTY = re.compile(
    r"\b(?:for|to|on|from|of)\s+(?:an?\s+|the\s+|their\s+)?(?:[a-z][a-z\-]*\s+)?"
    r"(?:customers?|clients?|orders?|accounts?|vendors?|sellers?|suppliers?|payees?|users?|members?|"
    r"merchants?|patients?|employees?|subscribers?|tenants?|invoices?)\s+"
    r"(?P<q>(?:with|placed|in|having|without|under|paid|made|bought|purchased|booked|on)\b[^,;.]*)"
    r"|\b(?:for|to|on|from|of)\s+(?P<q2>approved|verified|eligible|qualifying|existing|returning|"
    r"new|active|trusted|preferred)\s+(?:customers|clients|orders|accounts|vendors|sellers|"
    r"suppliers|payees|users|members|merchants)\b",
    re.I,
)
_GRANTS = re.compile(
    r"\b(?:may|can|are\s+allowed\s+to|is\s+allowed\s+to|are\s+permitted\s+to|"
    r"auto-?approve)\b|^\s*(?:waive|refund|issue|grant|approve|credit)\b",
    re.I,
)


def _permission_scope_unread(rule: CompiledRule, text: str) -> list[str]:
    """The qualifier of the party a bounded permission grants to, when the rule's only reading
    is the bound (and what a check compares with, a state it reads, leaves it read)."""
    every = _every(rule)
    if not every or not all(isinstance(c, NumericLimit) for c in every):
        return []
    found = _QUALIFIED_PARTY.search(text)
    if not found or not _GRANTS.search(text) or NEGATION.search(text[: found.start()]):
        return []  # (a negation inside the qualifier, 'with no prior waivers', is part of it)
    phrase = found.group("q") or found.group("q2")
    return [w.lower() for w in words(phrase) if w.lower() not in STOPWORDS][:4] or [phrase]


def _restricted_value_as_list(rule: CompiledRule, text: str) -> list[str]:
    """'prod-db-admin via break-glass = SEV1 incidents only' read as "Deny unless an argument is
    prod-db-admin": the value on the left is what the right restricts (only for SEV1 incidents),
    not the one value allowed; a SEV2 grant of it was approved. What 'only' restricts it to is
    left unread."""
    for c in _every(rule):
        if not (isinstance(c, ValueList) and c.mode == "allow"):
            continue
        for v in c.values:
            m = re.search(rf"{re.escape(v)}[^=;.]*?=\s*(?P<rhs>[^=;]*?\bonly\b)", text, re.I)
            if m:
                return [w.lower() for w in words(m.group("rhs"))]
    return []


_EXCEPTION_MARKER = re.compile(r"\b(?:except|unless|apart\s+from|excluding|save\s+for)\b", re.I)


def _relation_exception_lost(rule: CompiledRule, text: str) -> list[str]:
    """'Refund goes back to the original payment method. Different method = not allowed,
    except store credit': the relation was read from the first sentence and denied a refund to
    store credit, the exception the second sentence makes. A relation that decides alone (no
    exception wraps it) in a rule that states an exception leaves that exception unread."""
    if not any(isinstance(c, SameValue) and c.effect != "allow" for c in rule.checks):
        return []
    found = _EXCEPTION_MARKER.search(text)
    return [found.group(0).lower()] if found else []


# two or more codes written as a list ('FOB, CIF, DAP', 'US, CA or GB')
_CODE_LIST = re.compile(
    r"\b[A-Z][A-Z0-9]{1,5}\b(?:\s*(?:,|/|\bor\b|\band\b)\s*(?:(?:or|and)\s+)?"
    r"[A-Z][A-Z0-9]{1,5}\b)+"
)


def _listed_codes_as_subject(rule: CompiledRule, text: str) -> list[str]:
    """jlist: 'Incoterms accepted: FOB, CIF, DAP for new customers' was read as a review of new
    customers 'about incoterms FOB CIF DAP', and EXW was approved; 'Auto-file OK for
    jurisdictions US, CA, GB …' as a permission 'about file jurisdictions CA GB …'. A code of a
    written list is a value to compare, never a word of the subject a request must show: when
    no check compares it, it stays unaccounted."""
    checks = _every(rule)
    compared = {str(v).lower() for c in checks for v in (getattr(c, "values", None) or ())}
    out: list[str] = []
    for m in _CODE_LIST.finditer(text):
        for code in re.findall(r"[A-Z][A-Z0-9]{1,5}", m.group(0)):
            low = code.lower()
            if low in compared or code in out:
                continue
            if any(low in c.terms or stem(low) in c.terms for c in checks):
                out.append(code)
    return out


_DOMAIN_KIND_STEMS = frozenset(stem(w) for w in ("domain", "domains"))


def _word_as_domain(rule: CompiledRule, text: str) -> list[str]:
    """jlist: 'No exports outside city domains' was read "Deny unless `domains` is city",
    labelled understood: a plain word before a domain noun qualifies the domains (a category the
    policy or the glossary must list), it is never a domain an address could be at."""
    return [
        str(v)
        for c in _every(rule)
        if isinstance(c, ValueList)
        and c.match == "exact"
        and _DOMAIN_KIND_STEMS & set(c.kind_words)
        for v in c.values
        if "." not in str(v)
    ]


# Fail-safes on the rule as written (after the prose reading; `_FAIL_SAFES` read the normalised
# clauses inside it), in the order they are tried: the first that names words decides them.
_AS_WRITTEN_BEFORE_CAPS = (
    _number_words_in_act,
    _required_value_refused,
    _kinds_as_names,
    _argument_named_as_value,
    _kinds_of_plan,
    _list_to_exclude,
    _colon_names_lost,
)
_AS_WRITTEN = (
    _per_party_total,
    _rest_of_a_list,
    _examples_as_the_list,
    _glossed_listed_name,
    _review_spared_above,
    _arrow_refusal_unread,
    _notation_unread,
    _exemption_unread,
    _party_unread,
    _holds_none_unread,
    _bare_negated_bound,
    _time_near_an_event,
    _times_listed,
    _only_on_the_amount,
    _permission_scope_unread,
    _relation_exception_lost,
    _restricted_value_as_list,
    _listed_codes_as_subject,
    _word_as_domain,
)


# what a list leaves over: 'anywhere else', 'elsewhere', 'all other', 'otherwise'
_THE_REST = re.compile(
    r"\b(?:anywhere|anything|everything|anyone|everyone|any\s+\w+|all)\s+else\b|\belsewhere\b"
    r"|\b(?:any|all)\s+others?\b|\botherwise\b",
    re.I,
)
_PARTIES = (
    r"customers?|accounts?|users?|clients?|merchants?|members?|cardholders?|households?|"
    r"employees?|vendors?|payees?|beneficiar(?:y|ies)|recipients?|suppliers?|tenants?|sellers?"
)
# a total kept for each party: 'per customer', 'each account may', 'no user may receive more'
_PER_PARTY = re.compile(
    rf"\b(?:per|(?:for|to)\s+(?:each|every|any\s+one|a\s+single))[\s-]+(?P<party>{_PARTIES})\b"
    rf"|\b(?:each|every|no|any|a\s+single)\s+(?P<party2>{_PARTIES})\s+(?:may|can|must|is|shall|"
    r"should|gets?|receives?|will)\b",
    re.I,
)
_PER_SINGLE = re.compile(
    r"(?P<amount>[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m)?)\s*(?:usd|eur|gbp)?\s*"
    r"(?:per|a|an|each|/)\s*(?:single\s+)?(?:transactions?|txns?|refunds?|payouts?|requests?|"
    r"orders?|charges?|payments?|credits?|transfers?|wires?|calls?)\b",
    re.I,
)


def _per_transaction_amounts(text: str) -> set[float]:
    """The amounts a rule caps per transaction ('$100 per transaction', '10k/payout')."""
    out = set()
    for m in _PER_SINGLE.finditer(text):
        raw = re.sub(r"[$\u20ac\u00a3,\s]", "", m.group("amount").lower())
        factor = 1.0
        if raw.endswith("k"):
            raw, factor = raw[:-1], 1e3
        elif raw.endswith("m"):
            raw, factor = raw[:-1], 1e6
        try:
            out.add(float(raw) * factor)
        except ValueError:
            continue
    return out


# 'e.g. payroll, ssn_records)', 'such as RU or BY;': the stretch a marker of examples opens, up to
# the bracket, sentence or clause that closes it
_EXAMPLES = re.compile(
    r"\b(?P<marker>e\.\s?g\b\.?|eg\b|for example|for instance|such as|like|including|incl\b\.?"
    # 'Blocked payout countries include RU and BY': a list that includes them holds others; only
    # after the list's noun, never a requirement ('must include a ticket_id') nor what a thing
    # holds ('evidence that includes card numbers')
    r"|(?<=countries )include[sd]?\b|(?<=list )includes?\b|(?<=tables )include\b"
    r"|(?<=domains )include\b|(?<=currencies )include\b|(?<=regions )include\b)"
    r"[:,]?\s*(?P<items>[^()\[\];.!?]*(?:\.[a-z0-9_][^()\[\];!?]*)*?)(?=[)\];!?]|\.(?:\s|$)|$)",
    re.I,
)


def _all_examples(text: str, check: ValueList) -> bool:
    """Whether every value of `check` is written among the examples after one marker ('e.g.
    payroll, ssn_records', 'such as IR or KP'): a list of examples, open (OpenValueList)."""
    values = [v.lower() for v in check.values]
    for m in _EXAMPLES.finditer(text):
        items = m.group("items").lower()
        if values and all(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", items) for v in values):
            return True
    return False


def _examples_read_as_list(text: str, checks) -> tuple[str, ...]:
    """The markers of examples ('e.g.', 'such as') whose examples a value list took as its list
    (a list read as examples, `OpenValueList`, reads them)."""
    values = [
        v.lower()
        for c in _all_checks(list(checks))
        if isinstance(c, ValueList) and not isinstance(c, parentheticals.OpenValueList)
        for v in c.values
    ]
    if not values:
        return ()
    found = []
    for m in _EXAMPLES.finditer(text):
        items = m.group("items").lower()
        if any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", items) for v in values):
            found.append(m.group("marker").lower())
    return tuple(dict.fromkeys(found))


_ARROW_REFUSES = re.compile(
    r"(?:->|=>|\u2192)\s*(?P<word>deny|denied|block|blocked|reject|rejected|refused?|forbidden|"
    r"prohibited|disallowed)\b",
    re.I,
)
# conditions joined in notation, or two arguments compared: only notation.py reads them
_UNREAD_NOTATION = re.compile(
    r"&&|\|\||\b[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*\s*(?:==|!=|>=|<=|>|<)\s*"
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*\.[a-z0-9_.]+|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*(?:>=|<=|>|<)\s*"
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"
    # 'x_y == a -> deny': a comparison before an arrow is the arrow's condition, never a
    # requirement of its own (the binding reading had made it 'Deny when x_y is not a')
    r"|(?:\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\s*(?:==|!=|=)|\b[a-z][a-z0-9]*\s*(?:==|!=))"
    r"\s*[^\s;]+\s*(?:->|=>|\u2192)"
)


# '(scale 0-10)', '(on a 0-100 scale)', '(scale of 1 to 5)': the scale a score is on
_SCALE_NOTE = re.compile(
    r"\(\s*(?:on\s+a\s+)?(?:scale\s+(?:of\s+)?)?\d+\s*(?:[-\u2013]|to)\s*\d+(?:\s+scale)?\s*\)",
    re.I,
)


# jred22: words that bind a contact or an owner to acts ('Contact Legal before any export',
# 'questions to the DPO prior to every transfer', 'ask Treasury first'): a note carrying one is a
# duty to ask before acting, never informational
_DUTY_IN_NOTE = re.compile(
    r"\b(?:before|after|prior\s+to|until|ahead\s+of|beforehand|in\s+advance|first|any|every|"
    r"each|all|whenever)\b",
    re.I,
)


# 'Owner: Payroll Ops (DE entity).', 'Owned by the Grants Office - questions to the permits desk.':
# who keeps the policy and whom to ask, no obligation. Kept as text, such a line shared a word
# with the request ('Grants', 'permits') and sent every request of the policy to review. Every
# part must be such a note and none may carry a modal, a verdict, a condition or a bound: 'Owner
# approval required', 'Owner: Treasury; no payouts on Fridays' stay rules.
_NOTE_PART = re.compile(
    r"\s*(?:(?:policy|process|rule|data|business)\s+)?(?:owners?|contacts?|stewards?)\s*[:\-\u2013]"
    r"|\s*(?:this\s+(?:policy|standard|procedure)\s+is\s+)?(?:owned|maintained|administered|"
    r"authored)\s+by\b"
    r"|\s*(?:send\s+|direct\s+)?(?:questions?|queries|enquiries)\s+(?:to|go\s+to|:)"
    r"|\s*see\s+(?:the\s+)?(?:memo|document|doc|page|wiki|runbook)\b",
    re.I,
)
_NOT_A_NOTE = re.compile(
    r"\b(?:must|shall|should|never|not|no|only|may|can(?:not)?|required?|requires|need(?:s|ed)?|"
    r"approv\w*|review\w*|sign(?:ed)?[\s-]*off|deny|denied|block\w*|reject\w*|forbid\w*|"
    r"prohibit\w*|allow(?:ed)?|permit(?:ted)?|unless|except|if|when|over|above|under|below|limit\w*|"
    r"max\w*|min\w*|exceed\w*|freeze|frozen|hold|escalat\w*|ok|okay)\b|->|=>|[<>=%$\u20ac\u00a3]"
    # jred22: a time or a quantifier binds the note to acts ('questions to Legal before wiring to
    # Iran', 'Contact: payroll-ops@… before any off-cycle run'): a duty, not who to ask
    r"|" + _DUTY_IN_NOTE.pattern,
    re.I,
)


def ownership_note(text: str) -> bool:
    """Whether a rule only says who owns the policy and whom to ask (see _NOTE_PART)."""
    if _NOT_A_NOTE.search(text):
        return False
    parts = [p for p in re.split(r"\s*[;.]\s+|\s+[-\u2013\u2014]+\s+|\.\s*$", text.strip()) if p]
    return bool(parts) and all(_NOTE_PART.match(p) for p in parts)


# jappr: 'FYI GTFS regenerates nightly at 02:00.', 'FYI: LATAM desk hours 08:00-17:00 BRT.',
# 'N/A to paper transfers / paper tickets.': a line labelled as a note for the reader, or one
# saying what the policy does not apply to, states no obligation. Kept as text, each sent every
# request of its policy to review (holdout_60/61). Only when the rest carries no obligation
# word, no bound, no time or quantifier that binds it to acts (_NOT_A_NOTE), no advice ('use
# the open data portal') and no state that would make a reader stop ('is under investigation',
# 'is compromised'); an 'N/A' line says only what is left out, so the policy's rules still
# apply to it, never less.
_FYI_LABEL = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s*|[-*\u2022]\s*)?(?:fyi|n\.\s?b\.?|nb|info|for\s+info(?:rmation)?)"
    r"\b\s*[:\-\u2013\u2014]?\s*(?P<rest>\S.*)$",
    re.I,
)
_NOT_APPLICABLE = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s*|[-*\u2022]\s*)?n/a\s+(?:to|for)\s+(?P<rest>\S.*)$", re.I
)
_NOTE_ADVICE = re.compile(
    r"\b(?:use|go|send|ask|contact|call|route|file|do|don't|escalate|refer|check|verify|"
    r"confirm|stop|avoid|wait|hold|pause|remember|ensure|make\s+sure)\b",
    re.I,
)
_NOTE_ALARM = re.compile(
    r"\b(?:compromis\w*|suspend\w*|closed|closing|investigat\w*|sanction\w*|restrict\w*|"
    r"watch\w*|risk\w*|fraud\w*|terminat\w*|wound|winding|pending|expir\w*|invalid|revoked|"
    r"disabled|banned|breach\w*|lapsed|embargo\w*|dispute\w*|lock\w*|unsafe|danger\w*|"
    r"incident\w*|outage|down|offline|broken|fail\w*|error\w*|problem\w*|issue\w*|"
    r"deprecated|retired|liquidat\w*|insolv\w*|bankrupt\w*|default\w*|overdue|late|"
    r"blacklist\w*|denylist\w*|flag\w*)\b",
    re.I,
)


def reader_note(text: str) -> bool:
    """Whether a rule is only a note for the reader ('FYI …') or what the policy leaves out
    ('N/A to paper tickets'), with no obligation, bound, advice or alarming state in it."""
    m = _FYI_LABEL.match(text) or _NOT_APPLICABLE.match(text)
    if m is None:
        return False
    rest = m.group("rest")
    return not (_NOT_A_NOTE.search(rest) or _NOTE_ADVICE.search(rest) or _NOTE_ALARM.search(rest))


def _compile_prose(
    index: int, chunk_id: str, text: str, glossary: Glossary | None = None
) -> CompiledRule:
    """A rule in words (everything `compile_rule` does not read as notation)."""
    # What to do instead ('- send the customer to Finance') and how strictly ('no exceptions')
    # bind nothing: set aside before the clauses are read, so they are neither the rule's subject
    # nor unaccounted for.
    clean = _non_code(_set_aside(_normalise(text)))
    # brackets that add no condition (a reason, '(incl. this one)', '(est.)', a description of
    # a named argument or code): set aside, each checked below against what the checks read
    clean, asides = parentheticals.set_aside(clean)
    checks: list[Check] = []
    uncompiled = False
    normative_seen = False
    scope: list[str] = []
    previous: Quantity | None = None
    subject_carry: str = ""
    resolved: list[str] = []
    consumed_markers: list[str] = []
    permissive_caps: list[Check] = []
    widened: list[str] = []
    unread_numbers: list[str] = []
    dropped_words: set[str] = set()
    governed_elsewhere = False
    for clause in _obligations(split_clauses(clean)):
        sc = scope_of(clause)
        if sc and not _scope_in_brackets(clause):
            scope += list(sc)
            continue
        elsewhere = _GOVERNED_ELSEWHERE.match(clause)
        if elsewhere is not None:
            # 'Safety and tamper disconnects are governed by the Field Ops policy, not this one':
            # which other policy governs them, no obligation of this one (that policy's rules
            # judge them where its tools match; this one's still apply where its own do)
            # (only its own words: one the rest of the rule also writes stays for its checks)
            rest = {stem(w) for w in words(clean.replace(clause, " ", 1))}
            dropped_words.update(s for s in (stem(w) for w in words(clause)) if s not in rest)
            dropped_words.update(
                w.lower()
                for w in re.findall(r"[\w\-.]+", clause)
                if stem(w.lower()) not in rest and ("." in w or "_" in w)
            )
            governed_elsewhere = True
            continue
        # ---- jgloss: a phrase glossed with the argument it means ('NO cancellation while
        # claim(s) open (open_claims > 0)', 'All involuntary terminations (termination_type =
        # involuntary) must be reviewed by HR Legal'), read whole or not at all (glosses.py)
        glossed = glossed_checks(index, text, clause, glossary)
        if (
            glossed is not None
            and glossed[3]
            and _binding_checks(index, text, clause, subject_carry)
        ):
            # a phrase the gloss restates only in part ('Never ship to a home address
            # (ship_to.type = home)'): the binding reading takes the bracket's noun phrase as its
            # gloss whole (BindingRecogniser), as it did before this reading
            glossed = None
        if glossed is not None:
            normative_seen = True
            checks.extend(glossed[0])
            consumed_markers.extend(glossed[1])
            resolved += glossed[2]
            widened += glossed[3]
            continue
        then_amount = gloss_then_amount(index, text, clause, subject_carry)
        if then_amount is None:
            then_amount = gloss_in_front(index, text, clause, subject_carry)
        if then_amount is not None:
            normative_seen = True
            checks.extend(then_amount)
            continue
        # ---- end jgloss
        # 'only to vendors whose status is Active', 'for deactivated users': the party's state,
        # before the readings that take 'only … is Active' for a binding or the state for a word
        party = _party_state(index, text, clause, previous, subject_carry, only=True)
        if party is not None:
            normative_seen = True
            consumed_markers.extend(x for x in party[1].split("|") if x)
            checks.extend(party[0])
            continue
        gated = _bound_allow_list(index, text, clause)
        if gated:
            normative_seen = True
            checks.extend(gated)
            continue
        # 'session_timeout_minutes between 15 and 60', 'include a rollback_plan': a clause that
        # writes its argument and value is read first, modal or not (BindingRecogniser)
        bound = _binding_checks(index, text, clause, subject_carry)
        if bound:
            normative_seen = True
            checks.extend(bound)
            continue
        if (
            not NORMATIVE.search(clause)
            and not any(rx.search(clause) for rx in _HOLDS)
            and _freeze_check(0, clause, clause) is None
            # 'Refunds go back to the original payment method': a policy's present tense
            and not _BACK_TO_ORIGINAL.match(clause)
        ):
            continue  # a hold ('… are suspended pending …') states an obligation without a modal
        normative_seen = True
        made = _category_checks(index, text, clause, glossary)
        if made:
            cats = _category_phrases(clause, glossary)
            resolved += [phrase for _, _, phrase in cats]
            checks.extend(made)
            # 'to watch-listed carriers or to new carriers': a second kind joined by 'or' widens
            # the rule beyond the category; no membership check reads it (fail safe).
            for _, end, _ in cats:
                dis = _CATEGORY_OR.match(clause[end:])
                if dis:
                    widened.append(re.sub(r"\s+", " ", dis.group("dis").lower()))
            continue
        conditional = _conditional_checks(index, text, clause, previous, subject_carry)
        if conditional is not None:
            made, marker = conditional
            consumed_markers.extend(marker.split("|"))
            # 'on the medical priority register' read from a flag named for it: resolved
            phrases = [c.phrase.lower() for c in made if isinstance(c, Unless)]
            resolved += [
                name
                for _, _, name in category_phrases(clause)
                if any(p.endswith(name) and p.startswith(("are on ", "are in ")) for p in phrases)
            ]
            checks.extend(made)
            continue
        if (
            _COMPLEMENT.match(clause)
            and REVIEW.search(clause)
            and checks
            and isinstance(checks[-1], NumericLimit)
            and checks[-1].effect == "allow"
        ):
            # 'Refunds under $50 are approved automatically; others need review': the rest of the
            # allowance goes to review, which the allowance already says. Read as subject words,
            # 'others' made a review of every refund.
            dropped_words.update(stem(w) for w in words(_COMPLEMENT.match(clause).group(0)))
            checks.append(replace(checks[-1], effect="review"))
            continue
        if (
            _COMPLEMENT.match(clause)
            and REVIEW.search(clause)
            and checks
            and isinstance(checks[-1], SameValue)
            and checks[-1].effect == "deny"
        ):
            # 'Refunds go back to the original payment method; anything else needs a finance
            # review': another destination goes to review, not refused
            dropped_words.update(stem(w) for w in words(_COMPLEMENT.match(clause).group(0)))
            checks[-1] = replace(
                checks[-1], effect="review", about_words=(*checks[-1].about_words, "else")
            )
            continue
        pronoun = _pronoun_action(clause, checks)
        if pronoun is not None:
            checks.append(pronoun)  # 'The payroll-vault secret is locked; don't rotate it.'
            continue
        made, previous, subject_carry = compile_clause(index, text, clause, previous, subject_carry)
        made = _same_measure_as_before(clause, made, checks)
        made = _relative_review_after(clause, made, checks)
        made = _range_reviews(clause, made)
        made = _named_measures(clause, made)
        if made and all(type(c) is ActionRule for c in made):
            # 'FHA may go down to 580' beside 'Min FICO 620 …': a clause read as a plain act
            # compares no number, so its own quantities stay unaccounted even when another clause
            # of the rule compares numbers (a count of approvers is read by the review).
            unread_numbers.extend(_unread_quantities(clause))
        alone = alone_permission(clause)
        if alone is not None and any(c.effect == "allow" for c in made):
            # 'under $250 without review', 'can be done by the agent': read by the permission
            phrase = alone.group("alone")
            if phrase.lower().startswith("without"):
                consumed_markers.append("without")
            dropped_words.update(stem(w) for w in words(phrase))
        if made:
            checks.extend(made)
            # 'may release no more than …': 'no more than' is the bound, not a negation
            unbound = _NO_MORE_THAN.sub(" ", clause)
            if (
                (ALLOW.search(unbound) or _SOFT_CAP.search(unbound))
                and not NEGATION.search(unbound)
                and not REVIEW.search(clause)
            ):
                permissive_caps.extend(c for c in made if isinstance(c, NumericLimit))
        else:
            uncompiled = True
    # 'Bots may order up to 40 licences; bigger orders need IT approval': the permission's bound
    # is where review starts, not a prohibition.
    for cap in permissive_caps:
        if cap.effect == "deny" and any(
            isinstance(r, NumericLimit)
            and r.effect == "review"
            and r.op == cap.op
            and r.threshold == cap.threshold
            and r.unit_family == cap.unit_family
            and r.currency == cap.currency
            and (r.window, r.counts_calls, r.per) == (cap.window, cap.counts_calls, cap.per)
            for r in checks
        ):
            checks.remove(cap)
            # its verb ('Agents may add up to 250 seats') is the action the review reads; its
            # qualifiers are not, and stay unaccounted for
            dropped_words.update(
                v
                for v in (stem(w) for w in words(cap.source[: cap.source.find(";")]))
                if v in VERBS
            )
    scale = _SCALE_NOTE.search(clean)
    if scale and any(isinstance(c, NumericLimit) and _on_a_scale(c) for c in checks):
        # 'whose screening risk score is 7 or higher (scale 0-10)': the scale the score is on
        # says how to read the bound, nothing the request must show; read with the bound
        dropped_words.update(stem(w) for w in words(scale.group(0)))
        dropped_words.update(w for w in re.findall(r"[\w\-]+", scale.group(0)))
    frozen = _freeze_match(clean)
    if frozen and frozen.group("duration") and any(c.kind == "value_list" for c in checks):
        consumed_markers.append(frozen.group("duration").split()[0].lower())  # 'until …'
    restated = _FREEZE_RESTATED.match(clean[frozen.end() :]) if frozen else None
    if restated and restated.group("until") and any(c.kind == "value_list" for c in checks):
        consumed_markers.append(restated.group("until").lower())  # '… until the audit closes'
    if frozen and frozen.groupdict().get("lifted") and any(c.kind == "value_list" for c in checks):
        consumed_markers.append("until")  # '… Nothing goes out for these until lifted.'
    informational = not normative_seen and not scope
    if (
        informational
        and not governed_elsewhere
        and (
            not _STATES_NO_OBLIGATION.search(clean)
            # jappr: 'FYI vendor ACME is under investigation': a note of a state that would
            # make a reader stop is no mere note (reader_note)
            or (_FYI_LABEL.match(clean) is not None and _NOTE_ALARM.search(clean) is not None)
            # jred22: 'Contact Legal before any export', 'Owner: Treasury - ask before every
            # wire': a contact or an owner line that binds the asking to acts is a duty
            or (_NOTE_LABEL.match(clean) is not None and _DUTY_IN_NOTE.search(clean) is not None)
        )
    ):
        # 'Any payment of $2,000 or more has to be signed off by finance', 'refunds >500 EUR ->
        # manager', 'Receipts are mandatory': a sentence with no modal the engine knows still
        # states an obligation more often than not. Skipped as informational, it let the other
        # rules of its policy approve what it forbids; kept as text, a request it speaks to goes
        # to review. Only a sentence that shows it is a purpose, a definition or a note is
        # informational.
        informational = False
        uncompiled = True
    # 'personal email accounts (gmail, yahoo, …, etc.)': examples of an open category, not a
    # closed list (parentheticals.OpenValueList: a named value decides, any other is reviewed)
    checks, opened = parentheticals.open_lists(checks, lambda c: _all_examples(clean, c))
    if opened:
        dropped_words.update({"etc", stem("etc")})
    unaccounted: tuple[str, ...] = ()
    if checks:
        unaccounted = unaccounted_words(
            clean,
            # a condition marker a recogniser consumed is read by the check it made
            _accounted_stems(clean, checks, scope)
            | {stem(w) for m in consumed_markers for w in words(m)}
            | dropped_words,
            _consumed_conditions(clean, checks) + tuple(consumed_markers),
            resolved,
            _value_stems(checks),
            _value_spans(clean, checks),
        )
    if checks:
        # The fail-safes: parts of a rule no check reads, whatever vocabulary their words are in,
        # stay unaccounted, so the rule never decides on its own (one function a kind, in
        # _FAIL_SAFES below; each says which misreading it guards against).
        reading = _Reading(clean, checks, _all_checks(checks), _read_duration(frozen, checks))
        left = [part for fail_safe in _FAIL_SAFES for part in fail_safe(reading)]
        left += widened + unread_numbers
        # (parentheticals.py) a bracket set aside whose condition the checks do not meet, what
        # a total leaves out, and examples of an open category read as a closed list
        left += parentheticals.unmet(asides, checks, clean)
        left += parentheticals.left_out_of_total(clean)
        left += parentheticals.open_examples(checks)
        left += parentheticals.place_anaphor(clean) if asides else []
        # phrasings the checks read word by word but wrongly as a whole (coverage._TRAPS),
        # found in the rule as written (normalising rewrites 'older than' as 'aged more than'
        # and moves a list's trailing 'for EU customers only' to the front)
        # ('domains other than partner domains' is read when the glossary resolved the term)
        # (jgloss: an argument compared in a gloss, '(open_claims > 0)', is read by its check)
        compared = {c.path for c in _all_checks(checks) if isinstance(c, Glossed)}
        # (jparenarg: 'duration_hours <= 72', a bound compared on the argument it names)
        compared |= {c.named for c in _all_checks(checks) if isinstance(c, NumericLimit)}
        left += [
            w
            for w in misread_traps(re.sub(r"\s+", " ", text.replace("\u2019", "'")))
            if not any(w.lower() in words(phrase) for phrase in resolved) and w not in compared
        ]
        # jgloss: a glossed argument compared as a value ('an argument is termination_type')
        left += values_read_as_names(clean, reading.every)
        # jparenarg: an argument named in brackets compared as a value ('(disbursement_type)')
        left += names_read_as_values(clean, reading.every)
        # jred17: the argument of a bound on a total ('Annual leave: 25 days max (leave_days)')
        left += names_under_a_total(clean, reading.every)
        left += names_off_scale(reading.every)
        if left:
            unaccounted = tuple(dict.fromkeys((*unaccounted, *left)))
    return CompiledRule(
        index,
        chunk_id,
        text,
        tuple(checks),
        uncompiled,
        informational,
        tuple(scope),
        unaccounted,
        quorum_of(clean),
    )


# A tail after a prohibition that says where to send the matter instead ('- send the customer
# to Finance', '- escalate to a team lead', '- disable instead'): advice to the person, not a
# condition of the rule. A tail with a condition word, a number or a second modal is no advice.
# After a comma only an 'instead' tail is advice: 'Do not email, call or text …' lists acts.
_ADVICE_TAIL = re.compile(
    r"(?:(?:\s[-\u2013\u2014]|[;:])\s*(?:please\s+)?(?P<tail>"
    r"(?P<verb>send|refer|escalate|route|forward|hand|pass|direct|redirect|ask|contact|call|"
    r"ping|page|notify|tell|raise|open|file)\b[^.;:!?]*?"
    r"|[a-z][a-z\s]{0,40}?\binstead)"
    r"|,\s*(?:please\s+)?(?P<instead>[a-z][a-z\s]{0,40}?\binstead))\s*[.!]?\s*$",
    re.I,
)
_SENDS_TO = frozenset("send refer escalate route forward hand pass direct redirect".split())
_NOT_ADVICE = re.compile(
    r"\b(?:unless|except|if|when|whenever|only|without|must|shall|should|may|can|cannot|not|"
    r"never|no|over|above|under|below|more|less|before|after|within|per)\b|\d|[$\u20ac\u00a3%]",
    re.I,
)
# 'no exceptions', 'under any circumstances' beside a prohibition or an obligation say how
# strictly it holds, nothing about what it holds for ('no exceptions for VIPs' names a class:
# kept, as is 'under no circumstances', which is the prohibition itself).
_FORCE_PHRASE = re.compile(
    r"(?:\s*[,;:\-\u2013\u2014(]\s*|\s+)(?:(?:with\s+)?no\s+exceptions?|without\s+exceptions?|"
    r"under\s+any\s+circumstances?|no\s+matter\s+what)\s*\)?(?=\s*(?:[.;!]|$))",
    re.I,
)


def _set_aside(text: str) -> str:
    """`text` without an advice tail after a prohibition or a force phrase (see above), when
    what stays is still a rule."""
    out = text
    for m in _FORCE_PHRASE.finditer(text):
        rest = out.replace(m.group(0), "", 1)
        if NORMATIVE.search(rest):
            out = rest
    m = _ADVICE_TAIL.search(out)
    tail = (m.group("tail") or m.group("instead")) if m else ""
    if m and not _NOT_ADVICE.search(tail) and not re.search(r"\b(?:or|and)\b", tail, re.I):
        head = out[: m.start()]
        verb = (m.group("verb") or "").lower()
        if (
            NEGATION.search(head)
            and NORMATIVE.search(head)
            and (verb not in _SENDS_TO or re.search(r"\bto\b", tail, re.I))
            and not _hands_on_another_thing(verb, tail, head)
        ):
            out = head.rstrip() + "."
    return out


# What an advice tail hands on when it speaks of the forbidden request itself.
_HANDED_ON = frozenset(
    "them it this that these those him her they the a an such any all request requests case "
    "cases ticket tickets customer customers user users requester caller client clients member "
    "members person people".split()
)


def _hands_on_another_thing(verb: str, tail: str, head: str) -> bool:
    """'Do not refund gift cards; forward chargebacks to Risk': the tail hands on a thing the
    prohibition does not name, so it is a second instruction (chargebacks are Risk's, not the
    agent's), never advice to set aside. 'send them to Finance', 'refer the customer to
    Support', 'route gift card refunds to Finance' hand on the forbidden request itself."""
    if verb not in _SENDS_TO:
        return False
    m = re.match(rf"\s*{verb}\s+(?P<obj>.*?)\s+to\b", tail, re.I)
    if m is None:
        return False
    obj = [w.lower() for w in words(m.group("obj"))]
    rest = [w for w in obj if w not in _HANDED_ON]
    if not rest:
        return False
    return not set(content_stems(" ".join(rest))) & set(content_stems(head))


# 'outside the team', 'beyond the company': a bare common noun after the article, the phrase
# ending there ('outside the platform team' names the platform team: a value).
_OUTSIDE_THE_NOUN = re.compile(
    r"\b(?:outside|beyond)\s+(?:of\s+)?(?:the|our|this|your|their)\s+(?P<noun>[a-z]+)"
    r"(?=\s*(?:[.;,)]|$|\s+(?:without|unless|except|and|or|if|when)\b))"
)


def _outside_kind_values(text: str, checks: list[Check]) -> list[str]:
    """Words after 'outside the' that an allow-list reads as its value (see compile_rule)."""
    nouns = [m.group("noun") for m in _OUTSIDE_THE_NOUN.finditer(text)]
    if not nouns:
        return []
    listed = {
        str(v).lower()
        for c in _all_checks(checks)
        if isinstance(c, ValueList) and c.match == "exact"
        for v in c.values
    }
    return [n for n in nouns if n.lower() in listed]


# 'may not leave the EU', 'must never leave Germany', 'cannot leave the US or Canada'.
_NOT_LEAVE_PLACE = re.compile(
    r"\b(?:(?:must|may|shall|should|can|will|do|does)\s*(?:not|n't)|cannot|never)\s+"
    r"(?:ever\s+)?leave\s+(?P<place>(?:the\s+)?[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)?"
    r"(?:\s*(?:,|\bor\b|\band\b|/)\s*(?:the\s+)?[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)?)*)"
    r"(?=\s*(?:[.;,)]|$))"
)


def _stay_in(m: re.Match) -> str:
    names = re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", m.group("place"))
    if all(country_code(n) or region_name(n) for n in names if n):
        return "must stay in " + m.group("place")
    return m.group(0)


# 'leave' as a verb ('must never leave', 'before it leaves', 'data leaving the EU'), not the
# noun of time off ('leave requests', 'annual leave', 'leave of absence').
_LEAVING = re.compile(
    r"\b(?:must|may|can|cannot|should|shall|will|never|not|n't|to|it|they|data|that|which|"
    r"before|once|when|until|ever|allowed\s+to)\s+(?:ever\s+|be\s+allowed\s+to\s+)?"
    r"(leaves?|leaving)\b(?!\s+(?:requests?|balances?|of\s+absence|days?|entitlements?|types?))"
    r"|^\s*(leaving)\s+(?:the|our|a|an)\b",
    re.I,
)


# What a sentence that states no obligation looks like: a purpose ('Purpose: keep payouts
# auditable'), a definition ('A dormant account means one with no activity for a year'), a note or
# a reference ('See the treasury handbook'). Any other sentence without a modal is kept as text.
# the labels of an owner or contact line (see _STATES_NO_OBLIGATION)
_NOTE_LABEL = re.compile(r"^\s*(?:(?:policy|process|data|business)\s+)?(?:owner|contact)", re.I)
_STATES_NO_OBLIGATION = re.compile(
    r"^\s*(?:purpose|background|context|overview|summary|note|nb|fyi|see|rationale|goal|aim|"
    r"scope|owner|contact|version|ref(?:erence)?)\b"
    r"|\b(?:is|are)\s+(?:defined|meant)\s+as\b|\bmeans?\b|\brefers?\s+to\b|"
    r"\b(?:this|the)\s+(?:policy|standard|procedure|document|section)\s+"
    r"(?:exists|aims|is\s+intended|is\s+meant|describes|explains|sets\s+out|covers|governs)\b|"
    r"\b(?:intended|designed)\s+to\b|\bfor\s+(?:reference|information)\b",
    re.I,
)


@dataclass(frozen=True)
class _Reading:
    """What the fail-safes look at: the normalised rule, its checks, and every check inside them."""

    text: str
    checks: list[Check]
    every: list[Check]
    read_duration: tuple[int, int] | None  # a freeze's own duration, read as its lifetime


def _read_duration(frozen: re.Match[str] | None, checks: list[Check]) -> tuple[int, int] | None:
    """The span of a freeze's duration ('frozen until 1 Dec') when a check reads it as the
    freeze's lifetime."""
    if frozen and frozen.group("duration") and any(c.kind == "value_list" for c in checks):
        return frozen.span("duration")
    if frozen and frozen.groupdict().get("lifted") and any(c.kind == "value_list" for c in checks):
        return frozen.start("lifted"), frozen.end("others")  # '… until lifted'
    restated = _FREEZE_RESTATED.match(frozen.string[frozen.end() :]) if frozen else None
    if frozen and restated and restated.group("until"):
        # '…: no membership changes until the audit closes': the restated freeze's lifetime
        if any(c.kind == "value_list" for c in checks):
            return frozen.end() + restated.start("until"), frozen.end() + restated.end("event")
    return None


def _unread_human_act(r: _Reading) -> list[str]:
    """A rule that asks for a person's act (an approval, a review, a sign-off) and compiled into
    checks none of which sends anything to a person, nor reads the act from an argument ('if the
    physician has signed off' against `physician_signed_off`), was read without that act: its
    checks could approve what the rule wants a human to decide (whatever phrasing hid the act)."""
    if any(c.effect == SENDS_TO_REVIEW for c in r.checks):
        return []
    if _NEGATED_REVIEW.search(r.text) and any(
        isinstance(c, NumericLimit) and c.effect == "allow" for c in r.checks
    ):
        # 'Refunds: no approval needed below $50': the act is said not to be needed on the
        # bounded side, and the allow sends the rest to a person ('otherwise send to review')
        return []
    # 'may accept chargebacks under $250 without review': the act the permission does without,
    # read by the allowance whose other side goes to review
    spared = _alone_spans(r.text, r.every)
    asked = [
        m.group(0).lower()
        for m in _HUMAN_ACT.finditer(r.text)
        if not any(s <= m.start() < e for s, e in spared)
    ]
    asked += [
        m.group("act").lower()
        for m in _INFORMAL_ACT.finditer(r.text)
        if not any(s <= m.start("act") < e for s, e in spared)
    ]
    return [act for act in asked if not any(_reads_act(c, act) for c in r.every)]


def _alone_spans(text: str, checks: Sequence[Check]) -> list[tuple[int, int]]:
    """Where a permission says what the agent may do alone ('without review', 'by the agent'),
    when an allowance reads it (an allow-effect limit, review beyond it; a permission of an act,
    'CSAM: remove immediately, no review needed')."""
    if not any(c.effect == "allow" for c in checks):
        return []
    out = []
    for clause in re.split(r"[.;]\s*", text):
        m = alone_permission(clause)
        if m is not None:
            at = text.find(clause)
            out.append((at + m.start("alone"), at + m.end("alone")))
    return out


def _act_listed_as_value(r: _Reading) -> list[str]:
    """'Refunds need the store manager's go-ahead' read as a list holding 'go-ahead': a person's
    act taken for a value an argument could hold, so any other value passes."""
    listed = {str(v).lower() for v in _flat_values(r.checks)}
    misread = [m.group(0).lower() for m in _HUMAN_ACT.finditer(r.text)]
    misread += [m.group("act").lower() for m in _INFORMAL_ACT.finditer(r.text)]
    return [act for act in misread if act in listed]


def _negated_words(r: _Reading) -> list[str]:
    """'Non-EU transfers', 'non-refundable fares': the prefix turns its word around. No check
    reads a negated word (a list of EU places, a flag `refundable`, would read the word as it
    stands, the opposite of the rule)."""
    return [m.group(0).lower() for m in _NEGATED_WORD.finditer(r.text)]


def _negating_subject(r: _Reading) -> list[str]:
    """'Neither owner nor admin roles may be assigned', 'Nobody may assign …', 'None of the
    contractors may …': a negating subject or joint negation turns the modal around, and no check
    reads it; 'may' had been read as a permission (an allow that approved the very act
    forbidden). 'neither … nor' also joins a second subject no check reads."""
    allows = any(c.effect == "allow" for c in r.every)
    return [
        m.group(0).lower()
        for m in _NEGATING_SUBJECT.finditer(r.text)
        if m.group(0).lower() in ("neither", "nor") or allows
    ]


def _dot_grouped_thousands(r: _Reading) -> list[str]:
    """'Wire transfers of EUR 10.000 or more': a dot before three digits groups thousands in much
    of Europe; a check that read the number as a decimal (10.0) bounds something else."""
    return [
        m.group(0)
        for m in _DOT_GROUPED.finditer(r.text)
        if any(getattr(c, "threshold", None) == float(m.group(0)) for c in r.every)
    ]


def _order_words(r: _Reading) -> list[str]:
    """'may not air before 21:00', 'after 2026-12-31': an ordering word before a number, a time or
    a date compares; a check that reads the value for equality (or none that compares at all)
    leaves that word unaccounted (a freeze's own duration is read as its lifetime)."""
    return _unread_order_words(r.text, r.checks, r.read_duration)


def _comparisons(r: _Reading) -> list[str]:
    """'No disbursement may exceed the client's balance', 'no payout before the documents are
    signed': a comparison with no check that compares was read as a flat prohibition (deny every
    disbursement) or a list, whatever the comparison is with."""
    return _unread_comparisons(r.text, r.checks, r.read_duration)


def _second_bounds(r: _Reading) -> list[str]:
    """'max wind 20 mph, tandem lifts 15 mph': a second bound of the same kind (unit, currency)
    that no check compares with is a variant of the limit for some case; read as a subject word
    it would drop the variant."""
    return _unread_bounds(r.text, r.checks)


def _leaving(r: _Reading) -> list[str]:
    """'Source code must never leave company laptops': an act named by where it ends (any act
    that carries the thing out: an upload, a share, an email). As a subject word it was matched
    by no tool, and the rule was passed by."""
    return [(m.group(1) or m.group(2)).lower() for m in _LEAVING.finditer(r.text)]


def _outside_kinds(r: _Reading) -> list[str]:
    """'may not be shared outside the team': the noun names a class of places or people (who is
    in the team?), never a value an argument holds; read as an allow-list of the word 'team', any
    recipient was judged against it."""
    return _outside_kind_values(r.text, r.checks)


def _ranges(r: _Reading) -> list[str]:
    """'11 to 50 seats need manager approval', 'Seats: 11-50 …': a range whose two ends no check
    compares reads as subject words or a literal. The scale a score is on ('(scale 0-10)')
    is read with the score's bound."""
    text = r.text
    if any(isinstance(c, NumericLimit) and _on_a_scale(c) for c in r.every):
        text = _SCALE_NOTE.sub(lambda m: " " * len(m.group(0)), text)
    return _unread_ranges(text, r.checks)


def _during(r: _Reading) -> list[str]:
    """'Restarting a database host during business hours needs the DBA': a time or a state the
    act happens in, which only a date window or a time of day reads. Read as subject words, it
    made the rule govern (or, for another act, spare) every request alike."""
    return _unread_during(r.text, r.checks)


def _sums(r: _Reading) -> list[str]:
    """'(paid + comps) may not exceed the capacity': no check adds arguments up, so a check reading
    one number against the bound misreads the rule."""
    # 'Enterprise Plus' is a listed name, not a sum
    spans = [
        (m.start(), m.end())
        for v in _flat_values(r.checks)
        if " " in v
        for m in re.finditer(r"(?<![\w\-])" + re.escape(v) + r"(?![\w\-])", r.text)
    ]
    return [
        re.sub(r"\s+", " ", m.group(0).lower())
        for m in _RELATIVE.finditer(r.text)
        if not any(s <= m.start() + 1 < e for s, e in spans)
    ]


def _review_tails(r: _Reading) -> list[str]:
    """'Payouts over $10,000 need review and payouts to new sellers', '…, plus first payouts':
    what is joined after the review a rule asks for names more requests it covers. No check reads
    such a second subject (its words are vocabulary the subject reading accepts)."""
    tails = [
        re.sub(r"\s+", " ", m.group("tail").strip().lower()) for m in _REVIEW_TAIL.finditer(r.text)
    ]
    return [t for t in tails if not _tail_read(t, r.checks)]


def _numbers(r: _Reading) -> list[str]:
    """'… and payouts to new sellers for 7 days': a number no check holds belongs to something the
    checks left out (a second subject's hold, a variant, a window)."""
    return _unread_numbers(r.text, r.checks)


def _amount_disjuncts(r: _Reading) -> list[str]:
    """'Adjustments above 500 USD or to new sellers need a supervisor': a second condition joined
    by 'or' after an amount widens what the rule governs; its words had been taken for subject
    words, so a 120 USD adjustment to a new seller passed."""
    return [re.sub(r"\s+", " ", m.group("dis").lower()) for m in _AMOUNT_OR.finditer(r.text)]


def _second_subjects(r: _Reading) -> list[str]:
    """'Payouts over $10,000 need review as do payouts to new sellers', '… too', '(same for …)',
    ': also …', 'likewise …': a second subject after the predicate, which takes the first one's
    obligation; its words had been taken for subject words of the first."""
    return [
        " ".join(re.findall(r"[a-z]+", m.group(0).lower()))
        for m in _SECOND_SUBJECT.finditer(r.text)
    ]


def _excluding_prepositions(r: _Reading) -> list[str]:
    """'Deploys beyond staging', 'Shipments besides domestic parcels': a preposition that orders
    or excludes, whose object a check took for subject words ('beyond staging' passed a
    production deploy). Only a check that compares or lists reads such a phrase."""
    return _unread_prepositions(r.text, r.checks)


def _else_branches(r: _Reading) -> list[str]:
    """'Refunds <= 100 EUR -> auto, otherwise -> manager': an else branch turns the bound over for
    what the first clause leaves out. Only a check that reads two branches (an allowance whose
    other side goes to review, a cap split by place) reads it; any other reading took the branch
    for vocabulary and came out upside down."""
    return _unread_else_branch(r.text, r.checks)


# 'whose status is on_hold or blocked': a state of the subject, named after its attribute
_WHOSE_STATES = re.compile(
    r"\bwhose\s+(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|was|were|has been|have been)\s+"
    r"(?P<states>[\w\-]+(?:\s*(?:,|\bor\b|\band\b)\s*[\w\-]+)*)",
    re.I,
)


def _unread_whose(r: _Reading) -> list[str]:
    """'Vendors whose status is on_hold or blocked can't be paid if …': a state of the subject no
    check reads. Its state words had been taken for the effect ('blocked') or for subject words,
    the rule labelled understood, and a blocked vendor paid. Only a check reading the state
    from the request (`Unless` with the marker 'whose') accounts for it."""
    if not _WHOSE_STATES.search(r.text):
        return []  # 'whose name starts with Admin' is read by its own recogniser
    if any(isinstance(c, Unless) and c.marker == "whose" for c in r.every):
        return []
    left = []
    for m in _WHOSE_STATES.finditer(r.text):
        if _whose_measure_read(r, m):
            continue
        left += [w.lower() for w in re.findall(r"[\w\-]+", m.group("states"))]
    if not left:
        return []
    return [w for w in dict.fromkeys(["whose", *left]) if w not in ("or", "and")]


# 'whose risk score is above 80', 'whose credit score is 7 or more': a bound on a measure of the
# subject, not a state
_WHOSE_BOUND = re.compile(
    r"^(?:over|above|more than|greater than|exceeding|in excess of|at least|under|below|"
    r"less than|at most|up to|no more than|\d[\d,.]*\s+or\s+(?:more|higher|above|less|lower|"
    r"below|greater|fewer))\b",
    re.I,
)


def _whose_measure_read(r: _Reading, m: re.Match[str]) -> bool:
    """Whether a numeric check compares the measure a 'whose … is <bound> N' names (its measure
    words hold every word of the attribute): then that check reads the clause."""
    if not _WHOSE_BOUND.match(r.text[m.start("states") :]):
        return False
    what = {stem(w) for w in words(m.group("what"))} - STOPWORDS
    return any(isinstance(c, NumericLimit) and what <= set(c.measure) for c in r.every)


# Every fail-safe, in the order its unaccounted words are listed; a new one is a function here.
# 'Reviewers shall not certify their own access', 'approve your own expense': a relation between
# two parties of the request (the actor and the thing's owner). A check that reads the subject
# alone forbids every certification; only a comparison of two arguments reads it.
_OWN = re.compile(r"\b(?:their|his|her|its|your|my|our|one's)\s+own\b", re.I)


# A relation between two of the request's values, written in words no other check reads: 'in
# the currency of the original charge', 'back to the original …', 'other than the original',
# 'the same country as …'. Read as a list or as subject words ('Refunds must be issued in the
# currency of the original charge, not USD' read as "deny USD"), a refund in EUR of a GBP
# charge passed.
_RELATION_PHRASE = re.compile(
    r"\b(?:(?:must|should|shall)\s+(?:always\s+)?(?:match|equal)\s+(?:the|its|their)|in\s+the\s+currency\s+of|in\s+the\s+[a-z]+(?:'s)?(?:\s+[a-z]+)?\s+currency|(?:back|only)\s+to\s+the\s+original|"
    r"other\s+than\s+the\s+original|original\s+[a-z]+(?:\s+[a-z]+)?\s+only|(?:they|it)\s+came\s+from|"
    r"the\s+same\s+[a-z]+(?:\s+[a-z]+)?\s+as|"
    # jpair: 'requester and approver must not be the same person' had been read as "Send to
    # review requests about requester", understood; only pairs.py compares two people
    r"(?:be|is|are)\s+the\s+same\s+(?:person|people|individual|user|employee)s?)\b",
    re.I,
)


def _unread_relations(r: _Reading) -> list[str]:
    """'in the currency of …', 'back to the original …': unaccounted unless a check compares
    two arguments."""
    if any(isinstance(c, (SameValue, ArgumentComparison)) for c in r.every):
        return []
    if any(
        isinstance(c, Binding) and c.op == "eq" and "original" in str(c.value).lower()
        for c in r.every
    ):
        # '… the original payment method only (refund_to = original_method)': the rule binds
        # the relation itself to the value that names the original
        return []
    return [re.sub(r"\s+", " ", m.group(0).lower()) for m in _RELATION_PHRASE.finditer(r.text)]


def _self_references(r: _Reading) -> list[str]:
    """'their own access': unaccounted unless a check compares two arguments."""
    if not _OWN.search(r.text):
        return []
    if any(isinstance(c, (SameValue, ArgumentComparison)) for c in r.every):
        return []
    spared = _alone_spans(r.text, r.every)  # 'may process … on its own': the agent alone
    return [
        m.group(0).lower()
        for m in _OWN.finditer(r.text)
        if not any(s <= m.start() < e for s, e in spared)
    ]


# '…; all other drugs no more than 30': a later subject named as the rest of an earlier one.
_OTHER_SUBJECT = re.compile(
    r"(?:[;:.,]\s*|\s-\s*)(?:(?:all|any|every)\s+)?(?P<other>other)\s+(?!than\b)[a-z]+", re.I
)


# '1.5x monthly rent', '3 x the deposit': a multiple of another amount the request states
_MULTIPLE_OF = re.compile(
    r"\d[\d.,]*\s*[x×]\s+(?:of\s+)?(?:the\s+|their\s+|its\s+)?"
    r"(?!(?:is|are|was|be|must|may|can|cannot|should|shall|will|for|in|on|at|per|and|or|not|no|"
    r"to|with|without|requires?|needs?|goes?|leverage|unless|except|if|when)\b)"
    r"(?P<base>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*)?)",
    re.I,
)


def _multiple_bases(r: _Reading) -> list[str]:
    """'Security deposit not to exceed 1.5x monthly rent': the bound is 1.5 times another argument.
    No check multiplies an argument, and read as a bare multiple ('the multiple is above 1.50x')
    the rule compared the rent itself with 1.5."""
    return [
        m.group("base").lower()
        for m in _MULTIPLE_OF.finditer(r.text)
        if not any(isinstance(c, ArgumentComparison) for c in r.every)
    ]


def _permit_asked(r: _Reading) -> list[str]:
    """'crew_size of at least 2 and a permit': a permit asked for is a document, which the effect
    word 'permit(ted)' accounted for; read so, the limit alone decided and the permit was never
    asked for (red team jred16). Read by a check that names it ('Deny when `permit` is missing'),
    it is accounted for."""
    if not permit_asked(r.text) or any("permit" in c.reading().lower() for c in r.every):
        return []
    return ["permit"]


# 'Rejections must specify rejection_reason': an act named by a noun whose stem is an effect word
# ('reject', 'approv', 'deni'). The effect vocabulary accounted for it, the subject was lost and
# the requirement held every request (holdout_42's first-run false denials of approvals).
_ACT_NOUN_SUBJECT = re.compile(
    r"^\s*(?:(?:all|any|every|each)\s+)?(?P<w>rejections?|denials?|refusals?|approvals?|"
    r"declines?|cancellations?|reversals?)\s+(?:must|shall|should|need|needs|require|requires|"
    r"have\s+to|has\s+to|are|is|may|can)\b",
    re.I,
)


def _act_noun_subjects(r: _Reading) -> list[str]:
    """The act a rule's subject names by an effect noun, unless a check holds its stem."""
    m = _ACT_NOUN_SUBJECT.match(r.text)
    if m is None:
        return []
    return [] if _subject_keeps(r, m.group("w"), ("terms",)) else [m.group("w")]


def _subject_keeps(r: _Reading, word: str, fields: tuple[str, ...]) -> bool:
    """Whether a check holds `word`'s stem in one of its subject `fields`: the word was read as
    part of the subject, not taken for the effect."""
    own = stem(word.lower())
    return any(own in getattr(c, f, ()) for c in r.every for f in fields)


# 'Electronics: price changes only by agents from the pricing-bot-* pool': an agent glob read as a
# value some argument must hold ('price_set is not one of (pricing-bot-*)'), which denied every
# price change; agents are read by agentrules.py, never as an argument's value
_AGENT_GLOB = re.compile(r"(?<![\w*])[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\*(?![\w*])", re.I)
_AGENT_WORD = re.compile(r"\b(?:agents?|bots?|pool)\b", re.I)


def _agent_glob_as_value(r: _Reading) -> list[str]:
    """An agent glob a check compares with an argument's value."""
    if not _AGENT_WORD.search(r.text):
        return []
    out = []
    for g in _AGENT_GLOB.findall(r.text):
        for c in r.every:
            reading = c.reading()
            if g in reading and "agent" not in reading.lower():
                out.append(g)
                break
    return out


def _count_words(r: _Reading) -> list[str]:
    """'… up to $50 without a manager, twice per customer': a count written as a word, which no
    check holds (read as a subject word, the rule was labelled understood)."""
    return [m.group(0).lower() for m in re.finditer(r"\b(?:twice|thrice)\b", r.text, re.I)]


def _other_subjects(r: _Reading) -> list[str]:
    """'Auto-refill days supply: maintenance meds up to 90; all other drugs no more than 30': the
    second cap is for what the first subject leaves out. No check reads that complement, and read
    as its noun alone ('drugs') the 30-day cap held maintenance meds too."""
    # '… Other sites unaffected.' after a freeze that reads its values as sites: the complement
    # is said to be outside the freeze, which is what the deny-list of the sites does
    said = (
        _OTHERS_UNAFFECTED.search(r.text)
        if any(isinstance(c, ValueList) and c.kind_words for c in r.every)
        else None
    )
    return [
        m.group("other").lower()
        for m in _OTHER_SUBJECT.finditer(r.text)
        if not (said and said.start() <= m.start("other") < said.end())
    ]


def _unresolved_qualifiers(r: _Reading) -> list[str]:
    """'No exports containing personal or sensitive fields': a word naming an open category
    ('sensitive', 'personal', 'privileged') read by no vocabulary is no subject word, whatever
    check took it for one (an action's alternatives had labelled the rule understood). A list
    of names, a glossary or a built-in category reads it."""
    if any(
        isinstance(c, ValueList)
        and c.values
        and (c.match in ("glossary", "consumer_mail", "token"))
        for c in r.every
    ) or any(isinstance(c, (WhenListed, WhenBound)) for c in r.every):
        return []
    if not all(isinstance(c, ActionRule) for c in r.every):
        return []
    return [
        w.lower()
        for w in re.findall(r"[A-Za-z][\w\-]*", r.text)
        if w.lower() in CATEGORY_QUALIFIERS
    ]


def _name_read_as_kind(r: _Reading) -> list[str]:
    """'Vendors Initech and Globex-Corp are blocked' read as 'Deny when vendors initech contains
    Globex-Corp': a capitalised name joined to a listed value was taken for a word of the
    argument's name, so the vendor Initech passed. The name is a value no check lists."""
    out: list[str] = []
    for c in r.every:
        kinds = set(getattr(c, "kind_words", ()) or ())
        if not kinds or getattr(c, "match", "") not in ("exact", "contains", "prefix"):
            continue
        for v in getattr(c, "values", ()) or ():
            rx = (
                r"(?<!^)(?<![.!?]\s)\b(?P<w>[A-Z][a-z][\w\-]*)\s*(?:,|\band\b|\bor\b|&)\s*"
                r"(?:[\w\-]+\s*(?:,|\band\b|\bor\b)\s*)*" + re.escape(str(v)) + r"\b"
            )
            for m in re.finditer(rx, r.text):
                w = m.group("w")
                if stem(w.lower()) in kinds and w not in out:
                    out.append(w)
    return out


# A listed value that is a slash of alternatives or a rate, not a literal: '50/hr', '80/443',
# 'tenants/workspaces' (a CIDR '0.0.0.0/0' or a path 'release/*' is a literal).
_SLASHED_VALUE = re.compile(
    r"^(?:\d+\s*/\s*(?:\d+|hrs?|h|hours?|mins?|minutes?|secs?|s|days?|d|wks?|weeks?|mo|months?)"
    r"|[a-z]{3,}/[a-z]{3,}(?:/[a-z]{3,})*)$"
)


def _slashed_values(r: _Reading) -> list[str]:
    """'Automated takedowns capped at 50/hr' read as 'takedowns contains 50/hr', 'ports < 1024
    other than 80/443' as 'ports is 80/443', 'merge records from different tenants/workspaces'
    as 'records different contains tenants/workspaces': a rate or a choice written with a slash,
    which no argument holds as written."""
    return [v for v in dict.fromkeys(_flat_values(r.every)) if _SLASHED_VALUE.match(v)]


def _qualifier_read_as_value(r: _Reading) -> list[str]:
    """'Only the account owner may close the account' read as 'Deny unless an argument is
    account': the first noun qualifies the role after it; read as a value of any argument, a
    request holding 'account' anywhere passed. A list bound to the argument named for the noun
    after it ('Only the main branch may be deployed': `branch` is main) is read right."""
    out: list[str] = []
    for m in _ONLY_THE_NOUN.finditer(r.text):
        value, noun = m.group("value").lower(), stem(m.group("noun").lower())
        for c in r.every:
            values = {str(v).lower() for v in getattr(c, "values", ()) or ()}
            if value in values and noun not in set(getattr(c, "kind_words", ()) or ()):
                out.append(m.group("value"))
                break
    return out


_ONLY_THE_NOUN = re.compile(
    r"\bonly\s+(?:the|a|an|its|their)\s+(?P<value>[a-z]+)\s+(?P<noun>[a-z]+)\s+"
    r"(?:may|can|is\s+allowed|are\s+allowed|is\s+permitted)\b",
    re.I,
)


# -- the thirteenth session's sealed first runs (holdout_49 … 51): three false denials ----------
# 'Block trades must specify the executing broker': an effect verb at the head of a rule is a noun
# modifier of its subject ('block trades'), not the effect; read as the effect, the subject lost
# 'block' and every trade without a broker was denied.
_EFFECT_VERB_HEAD = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s*|[a-z][.)]\s*|[-*\u2022]\s*)?(?P<w>block|deny|reject|approve|review|"
    r"escalate|hold|ban|freeze|lock|suspend|cancel|decline|refuse|void|flag|stop)\s+[a-z][a-z\-]*"
    r"\s+(?:must|need|needs|require|requires|should|shall|have\s+to|has\s+to)\b",
    re.I,
)


def _effect_verb_head(r: _Reading) -> list[str]:
    """An effect verb that is the first word of the subject ('Block trades must …')."""
    m = _EFFECT_VERB_HEAD.match(r.text)
    if m is None:
        return []
    # the checks kept the word in the subject ('Block trades are limited to 500,000' on
    # block_trade, 'Decline decisions must cite a reason code'): read as a noun, not the effect
    if _subject_keeps(r, m.group("w"), ("terms", "about_words", "kind_words")):
        return []
    return [m.group("w")]


# 'Takedown must reference a legal ticket. No ticket, no takedown.': the idiom restates the
# requirement; read word by word it was 'Deny requests about takedown ticket', every takedown.
_NO_X_NO_Y = re.compile(r"\bno\s+[a-z][\w\-]*\s*,\s*no\s+[a-z][\w\-]*\b", re.I)


# 'Real-time feeds only for users on trading desks - everyone else gets delayed data': the else
# branch grants the others something (delayed data) rather than refusing them; read as the
# allow-list alone, a delayed feed for a research user was denied.
_ELSE_GETS = re.compile(
    r"\b(?:everyone|everybody|anyone|all\s+others?|others)\s+else\s+(?:gets?|receives?|has|have|"
    r"may|can)\b[^.;]*|\b(?:all\s+others|everyone\s+else)\s+(?:gets?|receives?)\b[^.;]*",
    re.I,
)


def _else_gets(r: _Reading) -> list[str]:
    """An else branch that gives the others something ('everyone else gets delayed data')."""
    return [m.group(0).strip() for m in _ELSE_GETS.finditer(r.text)]


_SNAKE_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def _requirement_beside_new_party(r: _Reading) -> list[str]:
    """'Batch release for new customers requires a Qualified Person - qp_id': read as a review of
    new customers alone, the requirement was dropped, and a known customer's release without a
    `qp_id` would pass (left by helper jident). An argument the rule names that no reading holds,
    beside a first-time check, stays unaccounted."""
    readings = [c.reading() for c in r.every]
    if not any("has not been seen before" in x for x in readings):
        return []
    return [n for n in _SNAKE_NAME.findall(r.text) if not any(n in x for x in readings)]


def _no_x_no_y(r: _Reading) -> list[str]:
    """'No PO, no pay': a requirement restated as an idiom no check reads as such."""
    return [m.group(0) for m in _NO_X_NO_Y.finditer(r.text)]


def _two_measures_one_unit(r: _Reading) -> list[str]:
    """'No lifts at sustained wind of 20 mph or more, or gusts above 25 mph': two bounds of one
    direction and unit, neither on a named argument. On one measure the higher would say nothing
    the lower does not, so they are two measures (sustained wind, gusts); read on one, a gust of
    25 was denied by the bound of 20."""
    limits = [
        c
        for c in r.every
        if isinstance(c, NumericLimit) and not getattr(c, "named", None) and c.effect != "allow"
    ]
    for i, a in enumerate(limits):
        for b in limits[i + 1 :]:
            if (
                a.effect == b.effect
                and a.unit_family == b.unit_family
                # physical measures only: time, money and percentages come in tiers and per-plan
                # caps ('up to 4 hours …; 5 to 8 hours needs …', '20% on monthly, 35% on annual')
                and a.unit_family in ("speed", "temperature", "pressure", "length", "mass")
                and a.op[0] == b.op[0]
                and a.threshold != b.threshold
            ):
                return [f"{a.threshold:g}", f"{b.threshold:g}"]
    return []


# What an agent may do that is not the act itself ('Refunds up to 50 USD: agent may escalate /
# request / propose / view'): never the permission to act (dev_jred30: each approved a 30 USD refund)
_NOT_THE_ACT = (
    r"(?:escalate|request|propose|suggest|recommend|draft|prepare|initiate|submit|raise|"
    r"flag|view|see|read|check|review|quote|refer|route|forward|queue|log|note|record|ask|advise|"
    r"discuss|start|open|consider|assess|evaluate|triage|investigate|verify|validate|decline|"
    r"reject|deny|refuse|cancel|hold|pause)"
)


# 'Refunds up to 50 USD: agent may not issue.': the refusal covers the bounded values, yet the
# bound was read as a cap ("Deny when the amount is above 50 USD"), approving a 30 USD refund the
# rule forbids (found by the lead probing holdout_53's permissions). Left partly understood.
_BOUNDED_THEN_REFUSED = re.compile(
    r"(?:\bup\s+to|\bunder|\bbelow|\bless\s+than|\bat\s+most|\bno\s+more\s+than|<=?|\u2264)"
    # (the normalised text: a colon after a bound reads ' need ')
    r"\s*[$\u20ac\u00a3]?\s*\d[^:;,\u2013\u2014\u2192]*?(?:[:;,\u2013\u2014\u2192]|\s-+>?|\s=>|\sneeds?)\s*"
    # the refusal said many ways (dev_jred30: 'agents are not permitted to', 'no agent may',
    # 'agent may never', 'are prohibited from', 'not by agents', a comma or an arrow before it):
    # each had been read as the cap and approved what the rule forbids
    r"(?:not\s+(?:by|for)\s+(?:the\s+|an?\s+)?(?:agents?|bots?|assistants?)\b|"
    r"no\s+(?:agents?|bots?|assistants?)\s+(?:may|can|could|must|shall|should|will|is|are)\b|"
    r"(?:(?:the|any|every|all|an?)\s+)?(?:agents?|bots?|assistants?)\s+(?:"
    r"(?:may|can|could|must|shall|should|will|is|are)\s*(?:not|n't|never)\b|cannot|can't|mustn't|"
    r"(?:is|are)\s+(?:prohibited|forbidden|barred|banned)\b|"
    r"(?:may|can|could|is\s+allowed\s+to|are\s+allowed\s+to)\s+" + _NOT_THE_ACT + r"\b))",
    re.I,
)


def _bounded_then_refused(r: _Reading) -> list[str]:
    """A bound in the subject and the agent refused the act after it."""
    m = _BOUNDED_THEN_REFUSED.search(r.text)
    return [m.group(0)] if m else []


_FAIL_SAFES = (
    _bounded_then_refused,
    _effect_verb_head,
    _requirement_beside_new_party,
    _else_gets,
    _no_x_no_y,
    _two_measures_one_unit,
    _unresolved_qualifiers,
    _qualifier_read_as_value,
    _slashed_values,
    _name_read_as_kind,
    _unread_human_act,
    _other_subjects,
    _multiple_bases,
    _count_words,
    _permit_asked,
    _act_noun_subjects,
    _agent_glob_as_value,
    _act_listed_as_value,
    _negated_words,
    _negating_subject,
    _dot_grouped_thousands,
    _order_words,
    _comparisons,
    _second_bounds,
    _leaving,
    _outside_kinds,
    _ranges,
    _during,
    _sums,
    _review_tails,
    _numbers,
    _amount_disjuncts,
    _second_subjects,
    _excluding_prepositions,
    _else_branches,
    _unread_whose,
    _self_references,
    _unread_relations,
)


# A word turned around by its prefix: 'non-EU', 'non-refundable', 'non production'.
_NEGATED_WORD = re.compile(r"\bnon(?:-|\s+)[A-Za-z][\w\-]*", re.I)
# '10.000', '1.500.000': digits grouped by dots (and no decimal comma after them)
_DOT_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}\.\d{3}(?![\d.,]\d|\d)")
# Words that negate a subject or a whole clause without 'not' ('neither … nor', 'nobody',
# 'none of', 'hardly ever'): a check that reads the modal alone reads the opposite.
_NEGATING_SUBJECT = re.compile(
    r"\b(?:neither|nor|nobody|none|nothing|nowhere|no-one|noone|hardly|scarcely|seldom|rarely|barely)\b",
    re.I,
)
# An ordering word right before a number, a time or a date ('before 21:00', 'after 2026-12-31',
# 'prior to 9am'): the rule compares with that value, it does not list it.
_ORDER_BEFORE_VALUE = re.compile(
    r"\b(?P<word>before|after|until|till|since|prior\s+to|earlier\s+than|later\s+than|past)"
    r"\s+(?:the\s+)?(?P<value>\d[\w:./\-]*)",
    re.I,
)


def _unread_bounds(text: str, checks: list[Check]) -> list[str]:
    """Quantities of the same unit and currency as a bound some check compares with, whose own
    value no check compares with ('tandem lifts 15 mph' beside 'max wind 20 mph')."""
    limits = [c for c in _all_checks(checks) if isinstance(c, NumericLimit)]
    if not limits:
        return []
    out = []
    for q in find_quantities(text):
        same = [
            c
            for c in limits
            if c.unit_family == q.unit_family
            and c.currency == q.currency
            and (c.noun or None) == (q.noun or None)
        ]
        if not same or q.unit_family is None and q.currency is None and q.noun is None:
            continue  # a bare number ('two approvers', a port) is read elsewhere, if at all
        if any(abs(c.threshold - q.value) < 1e-9 for c in limits):
            continue
        out.append(text[q.start : q.end].strip())
    return out


# A day and a month, an ISO date, a clause number ('12(b)'): numbers that are no quantity.
_DATE_LIKE = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
    r"[a-z]*\.?(?:\s+\d{4})?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
    r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b|\b\d{4}-\d{2}-\d{2}\b|\b\d+\([a-z0-9]+\)",
    re.I,
)


# The review a rule asks for, then a joiner and more words: a second subject ('… need review and
# payouts to new sellers', '… held for review, plus first payouts'); not a condition that narrows
# ('…, unless …', '… except …'), which a check reads or leaves unaccounted on its own.
_REVIEW_TAIL = re.compile(
    r"\b(?:needs?|requires?|required|get|gets)\s+(?:a\s+|an\s+|the\s+)?(?:manual\s+|human\s+)?"
    r"(?:review|approval|sign-?off|escalation)\b"
    r"(?P<tail>\s*(?:,|;|\band\b|\bplus\b|\bas\s+well\s+as\b|\bas\s+do\b|\bas\s+does\b|—|\s-\s|"
    r"\(|:|\btoo\b|\bor\b|\balso\b)\s*"
    r"(?!(?:unless|except|if|when|whenever|only|before|after|within|provided|so\s+long)\b)"
    r"[^.;]*[A-Za-z0-9][^.;]*)",
    re.I,
)


def _tail_read(tail: str, checks: list[Check]) -> bool:
    """Whether every content word of a tail after the review is a value or a subject a check
    holds (a second check read it, e.g. 'and a ticket number' as a required argument)."""
    held = {stem(w) for c in _all_checks(checks) for w in words(" ".join(map(str, c.terms)))}
    held |= _value_stems(checks)
    content = {stem(w) for w in words(tail)} - STOPWORDS - GENERIC
    return bool(content) and content <= held and not re.search(r"\d", tail)


def _numbers_read(checks: list[Check]) -> set[float]:
    """Every number a check of `checks` (conditions and bases included) holds in its fields."""
    out: set[float] = set()
    for c in _all_checks(checks):
        for name in getattr(c, "__dataclass_fields__", {}):
            v = getattr(c, name, None)
            items = v if isinstance(v, (tuple, list, frozenset, set)) else (v,)
            for x in items:
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    out.add(float(x))
                elif isinstance(x, str):
                    try:
                        out.add(float(x.replace(",", "")))
                    except ValueError:
                        pass
    return out


def _unread_numbers(text: str, checks: list[Check]) -> list[str]:
    """Quantities of `text` whose value no check holds (a count of approvers is read elsewhere, a
    date by a window or a freeze)."""
    quantities = find_quantities(text)
    if not quantities:
        return []
    skip = [m.span() for m in _QUORUM.finditer(text)] + [
        m.span() for m in _DATE_LIKE.finditer(text)
    ]
    frozen = _freeze_match(text)
    restated = _FREEZE_RESTATED.match(text[frozen.end() :]) if frozen else None
    if restated and restated.group("event") and any(c.kind == "value_list" for c in checks):
        # '… until SOC 2 audit fieldwork ends': a number naming the event a freeze lasts until
        skip.append((frozen.end() + restated.start("event"), frozen.end() + restated.end("event")))
    held = _numbers_read(checks)
    listed = " ".join(str(v).lower() for v in _flat_values(checks))
    out = []
    for q in quantities:
        written = text[q.start : q.end].strip()
        if written.lower() in listed or any(q.start < e and s < q.end for s, e in skip):
            continue
        if any(abs(q.value - h) < 1e-9 or abs(q.value - h * 100) < 1e-9 for h in held):
            continue  # read (a share may be held as a fraction)
        out.append(written)
    return out


def _unread_quantities(clause: str) -> list[str]:
    """The quantities of a clause, but a count of approvers ('two admins', '3 approvers')."""
    quorum = [m.span() for m in _QUORUM.finditer(clause)]
    return [
        clause[q.start : q.end].strip()
        for q in find_quantities(clause)
        if not any(q.start < e and s < q.end for s, e in quorum)
    ]


_RANGE = re.compile(
    r"(?<![\w.,\-/:])(?P<lo>\d[\d,]*(?:\.\d+)?)\s*(?:%|[a-z]{1,3}\b)?\s*(?:to|-|through|thru)\s*"
    r"[$€£]?(?P<hi>\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)(?![\-/:.]?\w*\d)",
    re.I,
)


def _unread_ranges(text: str, checks: list[Check]) -> list[str]:
    """Ranges ('11 to 50', '5-50 mph') with an end no check compares with."""
    if not re.search(r"\d\s*(?:%|[a-z]{1,3}\b)?\s*(?:to|-|through|thru)\s*[$€£]?\d", text, re.I):
        return []
    bounds = {c.threshold for c in _all_checks(checks) if isinstance(c, NumericLimit)}
    windows = [c.phrase for c in _all_checks(checks) if isinstance(c, DateWindow)]
    out = []
    for m in _RANGE.finditer(text):
        if any(re.sub(r"\s+", " ", m.group(0)).strip() in w for w in windows):
            continue  # the days of a window ('Dec 24-26'), which the window reads
        try:
            lo, hi = (float(m.group(g).replace(",", "")) for g in ("lo", "hi"))
        except ValueError:
            continue
        if lo >= hi:
            continue  # not a range ('2026-12' is a date, '10-4' a code)
        if not any(abs(b - lo) < 1e-9 for b in bounds) or not any(
            abs(b - hi) < 1e-9 for b in bounds
        ):
            out.append(re.sub(r"\s+", " ", m.group(0)))
    return out


_DURING = re.compile(
    r"\bduring\s+(?P<what>(?:(?:the|a|an|its|their|our|any)\s+)?[A-Za-z][\w\-]*"
    r"(?:\s+(?!(?:no|not|never|need|needs|require|requires|must|may|can)\b)[A-Za-z][\w\-]*){0,2})",
    re.I,
)


def _unread_during(text: str, checks: list[Check]) -> list[str]:
    """'during business hours', 'during the holiday code freeze': a time or state no check of a
    date window, a time of day or a freeze reads."""
    if not re.search(r"\bduring\b", text, re.I):
        return []
    if any(isinstance(c, (DateWindow, TimeOfDay, Weekday)) for c in _all_checks(checks)):
        return []
    return [re.sub(r"\s+", " ", m.group(0).lower()) for m in _DURING.finditer(text)]


# An else branch after a clause: 'otherwise', ', else …', ', everything else / all others / the
# rest …'. ('Otherwise' opening a rule refers to another rule; it is left to the words after it.)
_ELSE_BRANCH = re.compile(
    r"(?<=\S)\s*(?:[,;:]|\s-)?\s*\b(?P<branch>otherwise|or else|if not|"
    r"(?<=[,;]\s)(?:else|all others|everything else|anything else|the rest))\b",
    re.I,
)


def _unread_else_branch(text: str, checks: list[Check]) -> list[str]:
    if not _ELSE_BRANCH.search(text):
        return []
    for c in _all_checks(checks):
        if isinstance(c, WhenListed) or (isinstance(c, NumericLimit) and c.effect == "allow"):
            return []
        if isinstance(c, SameValue) and "else" in c.about_words:
            return []  # '…; anything else needs a finance review': the relation's review
    return [m.group("branch").lower() for m in _ELSE_BRANCH.finditer(text)]


def _all_checks(checks: list[Check]) -> list[Check]:
    """`checks` and every check inside them (an Unless's base, a When's body...)."""
    out: list[Check] = []
    todo = list(checks)
    while todo:
        c = todo.pop()
        out.append(c)
        for name in ("base", "condition", "body", "fallback"):
            inner = getattr(c, name, None)
            if isinstance(inner, Check):
                todo.append(inner)
        todo.extend(getattr(c, "options", ()))
        if isinstance(c, KeyedLimit):
            todo.extend(c.limits)
    return out


def _unread_order_words(
    text: str, checks: list[Check], read: tuple[int, int] | None = None
) -> list[str]:
    """Ordering words of `text` before a value that no check compares in order with (outside
    the span `read`, which a check already reads)."""
    found = [
        m
        for m in _ORDER_BEFORE_VALUE.finditer(text)
        if read is None or not read[0] <= m.start() < read[1]
    ]
    if not found:
        return []
    every = _all_checks(checks)
    ordered = any(isinstance(c, NumericLimit | DateWindow | TimeOfDay | Weekday) for c in every)
    listed = {str(v).lower() for v in _flat_values(checks)}
    return [
        re.sub(r"\s+", " ", m.group("word").lower())
        for m in found
        if not ordered or m.group("value").lower().rstrip(".") in listed
    ]


# Words that compare one thing with another, in time or in size. Only unambiguous ones: 'over',
# 'under' and 'above' also name places and states ('under legal hold').
_COMPARISON = re.compile(
    r"\b(?:exceed(?:s|ed|ing)?|(?:more|less|greater|fewer|older|younger|newer|higher|lower"
    r"|larger|smaller|later|earlier)\s+than|at\s+(?:least|most)|before|after|until|till"
    r"|prior\s+to)\b|[<>≤≥]=?(?=\s*[$€£]?\d)",  # a sign before a number, not markup
    re.I,
)
# A sum a rule compares ('(paid + comps) may not exceed', 'trip fuel plus reserve', 'combined
# exposure'); '+' inside a name ('Kuehne+Nagel') has no spaces around it.
# An amount, then 'or' and something other than a boundary word or another amount: 'over
# 25,000 EUR or from new vendors', 'more than 1M followers or to new sellers'.
_AMOUNT_OR = re.compile(
    r"(?<![\w.,\-/:])\d+(?:[.,]\d+)*(?:\s*(?:[A-Za-z%][\w\-]*))?(?:\s+[A-Za-z][\w\-]*)?\s*,?\s+"
    r"(?P<dis>(?:or|and/or)\s+"
    r"(?!(?:more|less|above|below|over|under|greater|fewer|higher|lower|equal|so|thereabouts|"
    r"beyond|longer|shorter|older|younger|earlier|later)\b)(?![\d$€£¥])"
    r"[A-Za-z][\w\-']*(?:\s+[A-Za-z][\w\-']*){0,3})",
    re.I,
)
_CATEGORY_OR = re.compile(
    r"^\s*,?\s+or\s+(?P<dis>(?:(?:to|from|for|with|by|in|on|of|at)\s+)?(?:(?:a|an|the|any)\s+)?"
    r"[A-Za-z][\w\-]*(?:\s+(?!(?:are|is|need|needs|require|requires|must|may|can|go|goes)\b)"
    r"[A-Za-z][\w\-]*){0,2})",
    re.I,
)


# A second subject after the predicate that takes the first one's obligation (gapping).
_SECOND_SUBJECT = re.compile(
    r"\bas\s+(?:do|does|did|are|is|must|should|will|would|can)\s+(?!not\b)"
    # 'as is required by law', 'as are listed below': a reference, not a subject
    r"(?!(?:required|needed|standard|usual|customary|common|typical|normal|expected|the\s+case|"
    r"defined|described|noted|stated|set|specified|listed|appropriate|necessary|applicable|"
    r"shown|mentioned|agreed|permitted|allowed)\b)(?=[a-z])"
    r"|(?:\band|,)\s+so\s+(?:do|does|must|should|are|is|will)\b"
    r"|\b(?:the\s+)?same\s+(?:goes\s+|applies\s+|holds\s+)?(?:for|to|with)\b"
    r"|\blikewise\b|\bditto\b|\bsimilarly\b"
    r"|\bas\s+well\b(?=\s*(?:[.;,)!]|$))"
    r"|(?<!\bway\s)(?<!\bfar\s)\btoo\b(?=\s*(?:[.;,)!]|$))"
    r"|(?:[(:;\u2014\u2013]|\s-|,)\s*(?:and\s+|but\s+)?also\b",
    re.I,
)
# Prepositions that order or exclude ('beyond staging', 'besides domestic parcels', 'other than
# EU customers'); 'above' and 'below' before a number are a bound, read by a limit ('under GDPR'
# and 'over the phone' name a law or a channel, no order).
_EXCLUDING_PREPOSITION = re.compile(
    r"\b(?P<prep>beyond|past|besides|beside|outside(?:\s+of)?|excluding|other\s+than|"
    r"apart\s+from|aside\s+from|above|below)\s+"
    r"(?:(?:the|our|a|an|any|all|its|their)\s+)?(?P<obj>[A-Za-z][\w\-]*)",
    re.I,
)


def _unread_prepositions(text: str, checks: list[Check]) -> list[str]:
    """Ordering or excluding prepositions of `text` whose object some check reads as subject
    words ('Deploys beyond staging' about `deploys staging`)."""
    found = list(_EXCLUDING_PREPOSITION.finditer(text))
    if not found:
        return []
    terms = {t for c in _all_checks(checks) for t in c.terms}
    # 'outside the EU': a place or a listed value a check compares with, read by that check
    values = _value_stems(checks)
    # 'at least 60 days past due (days_past_due)': the phrase is part of the name of the
    # argument a bound compares, which reads it whole (no exclusion)
    named = [
        "_" + c.named.lower() + "_"
        for c in _all_checks(checks)
        if isinstance(c, NumericLimit) and c.named
    ]
    return [
        re.sub(r"\s+", " ", m.group("prep").lower())
        for m in found
        if not any(
            "_" + m.group("prep").lower() + "_" + m.group("obj").lower() + "_" in n for n in named
        )
        and stem(m.group("obj").lower()) in terms
        and stem(m.group("obj").lower()) not in values
        and m.group("obj").lower() not in values
        and not (country_code(m.group("obj")) or region_name(m.group("obj")))
    ]


_RELATIVE = re.compile(r"\s\+\s|\bplus\b|\bcombined\b|\bsum\s+of\b", re.I)
# Checks that compare in order (a bound, two arguments, a count, a date, a time of day, what
# was paid before).
_ORDERED = (
    NumericLimit,
    AllConditions,  # its bounds ('the match score is at least 0.95'); any other order word refuses
    ArgumentComparison,
    PrefixedCount,
    DateWindow,
    TimeOfDay,
    Weekday,
    FirstTimeCounterparty,
)
# Words that only order events in time: a state read from an argument ('identity must be
# verified before releasing data' against `identity_verified`) is the order the rule asks for.
_SEQUENCE = {"before", "after", "until", "till", "prior to"}


_REVIEW_BEFORE_ACT = re.compile(
    r"\b(?:review|approval|sign[- ]?off)\s+(?P<when>prior\s+to|before)\s+(?:its\s+|the\s+)?"
    r"(?:execution|processing|completion|being\s+(?:executed|processed|carried\s+out))\b",
    re.I,
)


def _unread_comparisons(
    text: str, checks: list[Check], read_span: tuple[int, int] | None = None
) -> list[str]:
    """Comparison words of `text` when none of `checks` compares in order, outside the span a
    check already reads (a freeze's 'until after Black Friday') and the conditions an 'unless' /
    'only if' reads."""
    every = _all_checks(checks)
    if any(isinstance(c, _ORDERED) for c in every):
        return []
    stated = any(isinstance(c, StateFlag | RequiredFlag) for c in every)
    read = " ".join(c.phrase.lower() for c in every if isinstance(c, Unless))
    # 'referred … for review prior to execution': a review is always before the act it reviews
    before_act = (
        [(b.start("when"), b.end()) for b in _REVIEW_BEFORE_ACT.finditer(text)]
        if any(c.effect == "review" for c in every)
        else []
    )
    # jgloss: '(open_claims > 0)' is compared by the check that reads the gloss
    glossed = [
        (at, at + len(c.written))
        for c in every
        if isinstance(c, Glossed) and c.written and (at := text.find(c.written)) >= 0
    ]
    found = []
    for m in _COMPARISON.finditer(text):
        word = re.sub(r"\s+", " ", m.group(0).lower())
        if read_span is not None and read_span[0] <= m.start() < read_span[1]:
            continue
        if any(a <= m.start() < b for a, b in glossed):
            continue
        if any(a <= m.start() < b for a, b in before_act):
            continue
        if word in read or (stated and word in _SEQUENCE):
            continue
        found.append(word)
    return found


def _reads_act(check: Check, act: str) -> bool:
    """The check takes the act from the request: a yes/no argument named for a state, or the
    condition of an 'unless'/'only if' that names the act."""
    if isinstance(check, StateFlag | RequiredFlag):
        return True
    if isinstance(check, Binding) and act in check.gloss.lower():
        # '(manager_approved = true)', 'a Legal review ID (legal_review_id)': the argument the
        # rule names for the act, or the record of it an identifier gives
        named = {stem(w) for w in words(check.path)}
        head = check.gloss.lower().split()[-1] if check.gloss.split() else ""
        return bool(named & {stem(w) for w in words(act)}) or head in _BINDING_ID_HEADS
    return isinstance(check, Unless) and act in check.phrase.lower()


# A person's act that a rule may ask for. Not the adjective ('approved vendors', 'authorised
# users'): those name a category, which glossaries and lists decide.
_HUMAN_ACT = re.compile(
    r"\b(?:approvals?|reviews?|sign[- ]?offs?|signed[- ]off|authori[sz]ations?"
    r"|(?:approved|authori[sz]ed|reviewed|signed)\s+(?:off\s+)?by|countersign\w*)\b",
    re.I,
)
# 'need shift supervisor OK', 'requires the owner's go-ahead': an informal approval, asked for.
_INFORMAL_ACT = re.compile(
    r"\b(?:need|needs|require|requires|required|get|gets|with|without)\s+(?:[\w'’-]+\s+){0,3}?"
    r"(?P<act>ok|okay|go-ahead|consent|blessing|green\s+light|nod)\b",
    re.I,
)


_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_QUORUM = re.compile(
    r"\b(?P<n>two|three|four|five|[2-5])\s+(?:(?:different|distinct|separate|independent|"
    r"senior|named|[a-z]+)\s+)?(?:reviewers|approvers|approvals|sign[- ]?offs|signatures|"
    r"signatories|managers|people|persons|officers|directors|humans|admins|administrators|"
    r"adjusters|partners|leads|members)\b"
    r"|\b(?P<pair>four[- ]eyes|(?:dual|double) (?:approval|control|sign[- ]?off)|two[- ]person|"
    r"second (?:approver|approval|sign[- ]?off|signature))\b",
    re.I,
)


def quorum_of(text: str) -> int:
    """How many distinct approvals a rule asks for (2 to 5), or 0 when it names no number.

    'Payments over 50,000 EUR require approval from two reviewers' -> 2; 'four-eyes' -> 2. Only a
    rule that asks for review carries it; the tenant's own count is raised, never lowered.
    """
    if not REVIEW.search(text):
        return 0
    best = 0
    for m in _QUORUM.finditer(text):
        best = max(best, 2 if m.group("pair") else _NUMBER_WORDS[m.group("n").lower()])
    return best


_PRONOUN_NO = re.compile(
    r"^no\s+(?P<acts>[a-z]+(?:\s*,\s*[a-z]+)*(?:\s*,?\s+(?:or|and)\s+[a-z]+)?)\s+"
    r"(?:(?:anything|any\s+[a-z]+)\s+)?(?:in|on|to|from|of|for|with|inside)\s+(?:it|them)\s*\.?$",
    re.I,
)
_PRONOUN_ACTION = re.compile(
    r"^(?:so\s+|and\s+)?(?:do not|don't|never|must not|may not|cannot|can't|should not|"
    r"shouldn't|mustn't)\s+(?P<verb>[a-z]+)\s+(?:(?:from|with|to|on|in|into|out of)\s+)?"
    r"(?:it|them|this one|these)\s*\.?$",
    re.I,
)


def _pronoun_action(clause: str, checks: list[Check]) -> ValueList | None:
    """'don't rotate it' after a clause that named literal values: the same values, this verb."""
    restated = _PRONOUN_NO.match(clause.strip())
    if restated and checks:
        last = checks[-1]
        if isinstance(last, ValueList) and last.mode == "deny" and last.values and not last.terms:
            # "… is frozen. No sharing, moving or deleting anything in it.": the freeze
            # restated for some acts; it already refuses every act on the value
            acts = tuple(stem(w) for w in words(restated.group("acts")) if w not in STOPWORDS)
            return replace(last, about_words=acts)
    m = _PRONOUN_ACTION.match(clause.strip())
    if not m or not checks:
        return None
    last = checks[-1]
    if not (
        isinstance(last, ValueList)
        and last.mode == "deny"
        and last.match in ("exact", "contains")
        and last.values
    ):
        return None
    verb = stem(m.group("verb").lower())
    # the word after 'do not' / 'never' is the verb by its place ('Do not dispense from it'),
    # even one the verb lexicon does not hold; never a word of no meaning of its own
    if verb not in VERBS and (
        m.group("verb").lower() in STOPWORDS or verb in GENERIC or verb in ("be", "hav", "get")
    ):
        return None
    return replace(last, effect="deny", terms=(verb,), about_words=())


def _flat_values(checks: list[Check]) -> list[str]:
    out: list[str] = []
    todo = list(checks)
    while todo:
        c = todo.pop()
        for name in ("base", "condition", "body", "fallback"):
            inner = getattr(c, name, None)
            if isinstance(inner, Check):
                todo.append(inner)
        if getattr(c, "match", "") in ("exact", "contains", "prefix"):
            out.extend(str(v) for v in getattr(c, "values", ()) or ())
    return out


def _value_spans(text: str, checks: list[Check]) -> list[tuple[int, int]]:
    """Where the identifier values the checks compare with are written ('p5.48xlarge'), and
    where an explicit binding and the noun phrase glossing it are ('an account in good standing
    (account_status = active)'): read whole by their check."""
    spans = []
    for c in _all_checks(checks):
        if isinstance(c, Binding) and c.written:
            at = text.find(c.written)
            if at >= 0:
                spans.append((at, at + len(c.written)))
    for v in _flat_values(checks):
        if not _IDENTIFIER_TOKEN.fullmatch(v):
            continue
        # 'under secret/app/' is the glob 'secret/app/*' written without its star
        pattern = re.escape(v.removesuffix("*")) + r"\*?" if v.endswith("/*") else re.escape(v)
        for m in re.finditer(r"(?<![\w\-])" + pattern + r"(?![\w\-])", text):
            spans.append((m.start(), m.end()))
    return spans


def _item_stems(items: list[str]) -> set[str]:
    """Stems of listed values' words; an identifier ('PowerUserAccess') is one value, not words."""
    return {stem(w) for i in items if not _IDENTIFIER_TOKEN.fullmatch(i) for w in words(i)}


def _value_stems(checks: list[Check]) -> set[str]:
    """Stems of the values the checks compare with (list members, places, currencies)."""
    out: set[str] = set()
    todo = list(checks)
    while todo:
        c = todo.pop()
        for name in ("base", "condition", "body", "fallback"):
            inner = getattr(c, name, None)
            if isinstance(inner, Check):
                todo.append(inner)
        if isinstance(c, StateFlag | PartyState):
            # 'registered in the staff database', 'whose status in the vendor master is
            # Active': the argument named for it reads the restriction
            out.update(stem(w) for w in words(c.phrase))
        if isinstance(c, SameValue):
            # 'between reps in the same sales region': the two sides are what it compares
            out.update((*c.left, *c.right))
        for v in getattr(c, "values", ()) or ():
            out.update(stem(w.lower()) for w in words(str(v)))
            out.update(w.lower() for w in words(str(v)))
            if getattr(c, "match", "") == "place":
                name_ = region_name(str(v))
                if name_:
                    out.update(stem(w.lower()) for w in words(name_))
                # 'accounts in the United States': the country's name is the value US too, so
                # a restriction naming it is read by the check
                for country in country_names(str(v)):
                    out.update(stem(w) for w in words(country))
    return out


# 'iam:*', 's3:GetObject', 'arn:aws:…': names with a colon are values too.
_NAME_WITH_COLON = re.compile(r"(?<![\w@])[A-Za-z0-9]+(?::[A-Za-z0-9*]+)+\*?")


_RELATIONAL = frozenset(
    stem(w)
    for w in "different differs differing same another mismatched mismatch unlike identical "
    "matching".split()
)


# Dates ('between Nov 1 and Mar 31'): a calendar window, which no check reads from a request's
# dates; matched as subject words they would make the rule look absent. (A weekday is often sent
# as a value, 'day': 'Friday', and is read as one.)
_CALENDAR = frozenset(
    stem(w)
    for w in "jan feb mar apr jun jul aug sep sept oct nov dec january february march april "
    "june july august september october november december between".split()
)


_PRINCIPAL = (
    r"(?:users?|roles?|groups?|principals?|identit(?:y|ies)|accounts?|members?|entit(?:y|ies)|"
    r"resources?)"
)
_UNIVERSAL = re.compile(
    r"\b(?:to|for|on|from|with|in)\s+(?:any|all|every)\s+(?P<nouns>"
    + _PRINCIPAL
    + r"(?:\s*(?:,|or|and)\s*"
    + _PRINCIPAL
    + r"){0,3})\s*\.?$",
    re.I,
)


def _reads_number(checks: list[Check]) -> bool:
    """Whether a check anywhere in `checks` (conditions and bases included) compares a number."""
    todo = list(checks)
    while todo:
        c = todo.pop()
        if isinstance(c, NumericLimit):
            return True
        todo.extend(
            x
            for x in (getattr(c, n, None) for n in ("base", "condition", "body", "fallback"))
            if isinstance(x, Check)
        )
    return False


def _accounted_stems(text: str, checks: list[Check], scope: list[str]) -> set[str]:
    """Stems the checks of a rule read: subjects, values, measures, argument names, units, places."""
    out: set[str] = set(_EFFECT_STEMS) | {stem(w) for w in scope}
    has_places = False
    flat: list[Check] = []
    todo = list(checks)
    while todo:
        c = todo.pop(0)
        if isinstance(c, Unless):
            # The condition's words are read by the condition; the rest by the base check.
            out.update(stem(w) for w in words(c.phrase))
            out.update(stem(w) for w in words(c.marker))  # 'except when', 'provided that'
            if c.base is not None:
                todo.append(c.base)
        elif isinstance(c, (When, WhenListed)):
            todo.extend(x for x in (c.condition, c.body) if x is not None)
        elif isinstance(c, AnyReference):
            out.update({"or", "either"})  # 'a support ticket or the invoice number'
            todo.extend(c.options)
        elif isinstance(c, DateWindow | TimeOfDay | Weekday):
            out.update(stem(w) for w in words(c.phrase))
            if isinstance(c, DateWindow) and c.argument:
                out.update(stem(w) for w in words(c.argument))  # the date the window reads
                out.update(stem(w) for w in words(c.label))  # the window's own name
            if isinstance(c, TimeOfDay | Weekday):
                out.update({"am", "pm", "local"})  # '6pm', 'local time': read with the time
            if c.body is not None:
                todo.append(c.body)
        elif isinstance(c, PrefixedCount):
            out.update({c.key, stem(c.noun.lower()), "prefix", stem("prefixed"), "start", "begin"})
            out.update(stem(w) for w in words(c.prefix))
            out.update(c.terms)
            flat.append(c)
        elif isinstance(c, Binding):
            # subject words the bound argument or value holds ('token_ttl_days' reads 'API
            # tokens', 'ship_to.type' the shipping): read by the binding itself
            out.update(c.reads)
            flat.append(c)
        elif isinstance(c, SameValue):
            out.update(SAME_WORDS)
            flat.append(c)
        elif isinstance(c, KeyedLimit):
            # the key values and what they qualify are read by the check; each limit reads the rest
            out.update(stem(w) for w in (*c.keys, c.noun) if w)
            out.update(c.keys)
            todo.extend(c.limits)
        elif isinstance(c, StateFlag):
            out.update(stem(w) for w in words(c.phrase))
            if c.fallback is not None:
                todo.append(c.fallback)
            flat.append(c)
        else:
            flat.append(c)
    # Literal names in the rule ('raw-events', 'billing_owner') are values, not subject words: an
    # action check that merely lists them among its words has not read them.
    literal_stems = {
        stem(w)
        for rx in (_LITERAL, _NAME_WITH_COLON)
        for m in rx.finditer(text)
        if not (m.start() == 0 and re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)+", m.group(0)))
        for w in words(m.group(0))
    }
    for c in flat:
        if isinstance(c, FirstTimeCounterparty):
            # 'not previously paid', 'we haven't paid before': the phrase is what it reads
            seen_before = _FIRST_TIME.search(text)
            if seen_before:
                out.update(stem(w) for w in words(seen_before.group(0)))
        if isinstance(c, ActionRule):
            # 'to a different card than the original': a relation between two values, which no
            # action check reads (matching its words would deny every refund).
            out.update(
                t
                for t in c.terms
                if t not in literal_stems and t not in _RELATIONAL and t not in _CALENDAR
            )
        else:
            out.update(c.terms)
        out.update(w for pair in c.alternatives for w in pair)
        for name in (
            "measure",
            "arg_words",
            "flag_words",
            "counterparty_words",
            "left",
            "right",
            "about_words",
        ):
            out.update(getattr(c, name, ()) or ())
        out.update(getattr(c, "kind_words", ()) or ())
        for v in getattr(c, "values", ()) or ():
            if getattr(c, "match", "") in ("exact", "contains") and _IDENTIFIER_TOKEN.fullmatch(v):
                continue  # read where it is written (_value_spans), not word by word elsewhere
            out.update(stem(w) for w in words(v))
        # the state a required thing must have ('a successful test run'), read from its value
        out.update(stem(w) for st in getattr(c, "unverifiable", ()) or () for w in words(st))
        # what the value must say ('what the work was for'), read from the value's length
        out.update(stem(w) for w in words(getattr(c, "says", "") or ""))
        exact = getattr(c, "exact_name", "")
        if exact:
            out.update(stem(w) for w in words(exact))
        noun = getattr(c, "noun", None)
        if noun:
            out.add(stem(noun))
        window = getattr(c, "window", None)
        if window:
            # 'per hr', '/hour', 'in any 24-hour period': read by the check's window
            for name, rx in _WINDOWS:
                if name == window:
                    for m in rx.finditer(text):
                        out.update(stem(w) for w in words(m.group(0)))
        per = getattr(c, "per", "")
        if per:
            out.update(stem(w) for w in words(per))
        cur = getattr(c, "currency", None)
        if cur:
            out.add(stem(cur.lower()))
        if getattr(c, "match", "") == "place":
            has_places = True
        if c.effect == "review":
            # Who reviews ('needs a pharmacist's sign-off', 'CFO approval') is the effect itself.
            r = REVIEW.search(text)
            if r:
                out.update(stem(w) for w in words(text[r.start() :]))
            m = re.search(
                r"(?:\b(?:need|needs|needed|requires?|goes? to|go through|goes through|undergo|"
                r"undergoes|without)\b|->)(?P<who>.*)$",
                text,
                re.I,
            )
            if m:
                out.update(stem(w) for w in words(m.group("who")))
    excepted_names = _EXCEPTED_NAMES.match(text.strip().rstrip("."))
    if excepted_names and any(
        isinstance(c, ValueList) and c.mode == "deny" and c.kind_words for c in flat
    ):
        # the exception is the deny-list it became; 'which agents must never touch' restates it
        out.update(stem(w) for w in ("except", "for", "any", "every", "all"))
        out.update(stem(w) for w in words(excepted_names.group("tail") or ""))
        out.update(stem(w) for w in words(excepted_names.group("act")))
    frozen = _freeze_match(text)
    if frozen:
        out.update(stem(w) for w in FREEZE_WORDS)
        # 'is under change freeze: no IAM or network changes': the freeze restated; it is read as
        # a freeze on every request naming the value (broader, never narrower)
        restated = re.search(
            r"(?::|\s-)\s*no\s+(?P<what>[A-Za-z][\w\s,]*?)\s*\.?$", text[frozen.end() :]
        )
        if restated and any(isinstance(c, ValueList) for c in flat):
            out.update(stem(w) for w in words(restated.group("what")))
        out.update(stem(w) for w in words(frozen.groupdict().get("why") or ""))
        out.update(stem(w) for w in words(frozen.groupdict().get("label") or ""))
        if frozen.group("duration"):
            out.update(stem(w) for w in words(frozen.group("duration")))
        if frozen.re in _HOLDS:
            # 'suspended', 'on hold', 'all …', 'for anyone in …'; the reason in brackets
            # restricts nothing
            out.update(HOLD_WORDS)
            out.update(stem(w) for w in words(frozen.group("state")))
            out.update(stem(w) for w in words(frozen.group("why") or ""))
            out.update(stem(w) for w in words(frozen.groupdict().get("prep") or ""))
        out.update(stem(w) for w in words(frozen.groupdict().get("others") or ""))
        if frozen.re is FREEZE_NAMES_FIRST or frozen.re in _PATH_FREEZES:
            # 'in effect' says the freeze holds now; the reason in brackets restricts nothing
            out.update(stem(w) for w in words(frozen.groupdict().get("state") or ""))
            out.update(stem(w) for w in words(frozen.group("why") or ""))
    # A quantity is read only by a check that compares with a number; 'Refunds of 500 EUR are
    # fine' read as a plain permission would approve any refund, so its unit stays unaccounted.
    reads_numbers = (
        any(
            isinstance(c, (NumericLimit, ArgumentComparison)) or c.kind == "same_value"
            for c in flat
        )
        or any(isinstance(c, (When, WhenListed)) for c in checks)
        or _reads_number(checks)
    )
    for q in find_quantities(text) if reads_numbers else ():
        if _is_age(text, q):
            out.update({"aged", "age", "old", "year"})
        out.update(stem(w) for w in words(text[q.start : q.end]))
        out.update(stem(w.lower()) for w in re.findall(r"[A-Za-z]+", text[q.start : q.end]))
        if q.noun:
            out.add(stem(q.noun))
    if not has_places and re.search(r"\b(?:elsewhere|everywhere else)\b", text, re.I):
        # 'up to €180 in EU cities, up to €250 elsewhere': places that split a rule into cases
        # are conditions no check reads (Lisbon is in the EU; no subject word says so).
        out.discard("elsewher")
        for w in re.findall(r"[A-Za-z]+", text):
            if w[0].isupper() and _place(w) and w.upper() not in CURRENCY_CODES:
                out.discard(stem(w.lower()))
    if has_places:
        for w in re.findall(r"[A-Za-z]+", text):
            if _place(w):
                out.add(stem(w.lower()))
        for name in re.findall(r"[A-Z][a-z]+(?: [A-Z][a-z]+)+", text):
            if _place(name):
                out.update(stem(w) for w in words(name))
    if re.search(r"\bread[- ]only\b", text, re.I):
        out.add("read")
        for paren in re.findall(r"\(([^)]*)\)", text):
            out.update(stem(w) for w in words(paren))
    given_as = _REQUIRED_AS.search(text)
    if given_as and any(isinstance(c, RequiredArgument) for c in flat):
        out.update(stem(w) for w in words(text[given_as.start() : given_as.start("arg")]))
    # 'must quote the PO number', 'must record the ticket number': the verb of giving is the
    # obligation the required argument reads (as 'must include' is)
    giving = _REQUIRED.search(text)
    if giving and any(isinstance(c, RequiredArgument) for c in flat):
        out.update(stem(w) for w in words(text[giving.start() : giving.start("arg")]))
    # 'must list the services touched': the closing participle only points back at the argument
    pointer = re.search(
        r"\s(touched|affected|impacted|involved|concerned|changed)\s*\.?$", text, re.I
    )
    if pointer and any(isinstance(c, RequiredArgument) for c in flat):
        out.add(stem(pointer.group(1).lower()))
    # 'to any user or role', 'for all accounts': a universal phrase after the action restricts
    # nothing, so its nouns are read (a qualifier such as 'any external user' is a category,
    # which coverage keeps blind on its own).
    for m in _UNIVERSAL.finditer(text):
        out.update(stem(w) for w in words(m.group("nouns")))
    # A remark in brackets ('(they are usually test transactions)') explains; it does not bind.
    for paren in re.findall(r"\((?:they|this|it|that|these|e\.g\.|i\.e\.)\b([^)]*)\)", text, re.I):
        out.update(stem(w) for w in words(paren))
    return out


def _reads_as_condition(text: str, q: Quantity, numeric: list[NumericLimit]) -> bool:
    b = _CONDITION_BOUND.search(text[: q.start])
    if not b:
        return False
    op = BOUNDARY_CONDITION[re.sub(r"\s+", " ", b.group(0).strip().lower())]
    return any(
        c.threshold == q.value and c.op == op and c.effect in ("deny", "review") for c in numeric
    )


def _listed_after_outside(text: str, flat: list[Check]) -> bool:
    """Whether an allow-list's values are written after 'except' / 'other than': only then is
    the exception that list ('Production databases are read-only for everyone except the
    platform team' lists 'read-only' before it: the exception stays unread)."""
    low = text.lower()
    ends = [m.end() for m in OUTSIDE.finditer(text)]
    if not ends:
        return False
    for c in flat:
        if getattr(c, "mode", "") != "allow":
            continue
        for v in getattr(c, "values", ()) or ():
            at = low.find(str(v).lower())
            if at < 0 and getattr(c, "match", "") in ("place", "currency"):
                return True  # a place or currency list is written by name ('the US'), not code
            if at >= 0 and any(end <= at for end in ends):
                return True
    return False


_HOLDS_NAMES = re.compile(
    r"\b(that|which|who)\s+(?:include|includes|contain|contains|carry|carries|expose|exposes|hold|"
    r"holds|touch|touches|read|reads|select|selects|return|returns|list|lists|has|have)\b",
    re.I,
)


def _consumed_conditions(text: str, checks: list[Check]) -> tuple[str, ...]:
    """Condition markers that a recogniser turned into a check of its own."""
    consumed: list[str] = []
    # 'may ship only to a company site (ship_to.type = site)', 'only once the fee is paid (…)':
    # the restriction is the binding's own, when the rule writes that marker once
    for c in _all_checks(checks):
        if isinstance(c, Binding):
            for marker in c.markers:
                rx = ONLY_MARKER if marker == "only" else re.compile(r"\b" + marker + r"\b", re.I)
                if len(rx.findall(text)) == 1:
                    consumed.append(marker)
    flat = [c.base if isinstance(c, Unless) and c.base is not None else c for c in checks]
    flat = [c.body if isinstance(c, (When, WhenListed)) else c for c in flat]
    allow_list = any(getattr(c, "mode", "") == "allow" and getattr(c, "values", ()) for c in flat)
    if allow_list and _listed_after_outside(text, flat):
        consumed += ["except", "except for"]
    # 'allowed in all regions except us-east-1': the exception is the deny-list it became
    excepted = [
        m for m in OUTSIDE.finditer(text) if _excepted_from_permission(text, m.end(), False)
    ]
    if (
        excepted
        and any(getattr(c, "mode", "") == "deny" and getattr(c, "values", ()) for c in flat)
        and not NEGATION.search(text)
    ):
        consumed += ["except", "except for"]
    excepted_names = _EXCEPTED_NAMES.match(text.strip().rstrip("."))
    if excepted_names and any(
        isinstance(c, ValueList) and c.mode == "deny" and c.kind_words for c in flat
    ):
        consumed += ["except", "except for"]  # the exception is the deny-list it became
        if excepted_names.group("tail"):
            consumed.append("which")  # ', which agents must never touch': restated, read
    # 'extracts that include diagnosis or medication columns': the relative clause says what the
    # thing holds, which is the list of names itself
    conditions = [c.condition for c in checks if isinstance(c, WhenListed)]
    if any(isinstance(c, ValueList) and c.match == "token" for c in flat + conditions):
        consumed += [m.group(1).lower() for m in _HOLDS_NAMES.finditer(text)]
    if allow_list or any(isinstance(c, StateFlag) and not c.forbid for c in flat):
        consumed.append("only")
    elif any(isinstance(c, SameValue) and "only" in c.about_words for c in flat):
        consumed.append("only")  # 'go back only to the original …': the relation restricts
    elif any(isinstance(c, NumericLimit) for c in flat) and _only_bound_permission(text):
        consumed.append("only")  # the bound it restricts to is the limit's own
    # 'without X' is read by a required flag ('without MFA enabled') or is the review itself
    # ('without a manager's approval'); anywhere else it is a condition no check reads.
    bodies = [c.base if isinstance(c, Unless) and c.base is not None else c for c in checks]
    bodies = [c.body if isinstance(c, (When, WhenListed)) else c for c in bodies]
    if any(isinstance(c, (RequiredFlag, RequiredArgument)) or c.effect == "review" for c in bodies):
        consumed.append("without")
    # 'need two approvers when the notional is at least 1M USD': a condition that is the
    # quantity a numeric check reads is that check's own condition.
    numeric = [c for c in bodies if isinstance(c, NumericLimit)]
    if numeric:
        quantities = find_quantities(text)
        for start, end, marker in condition_spans(text):
            if marker not in ("if", "when", "whenever"):
                continue
            inside = [q for q in quantities if start <= q.start < end]
            # Consumed only when a check fires exactly as the boundary table reads the condition.
            if inside and all(_reads_as_condition(text, q, numeric) for q in inside):
                consumed.append(marker)
    return tuple(consumed)


# ---------------------------------------------------------------------------------------------
NORMATIVE = re.compile(
    r"\b(must|shall|should|never|not|no(?!-\w)|nobody|no one|may|can|cannot|only|requires?|required|needs?|prohibit\w*|"
    r"forbid\w*|banned|allowed|permitted|restrict\w*|blocked|disallow\w*|limit\w*|capped|cap|max\w*|min\w*|at most|at least|up to|"
    r"exceed\w*|approv\w*|review\w*|sign[- ]?off|fine|ok|always|goes to|go to|(?:routed|referred|escalated) to|"
    r"(?:are|is) auto(?![-\w])|"
    r"(?:is|are|will\s+be|get|gets)\s+(?:refused|rejected|declined|denied)(?=\s*[.;!]?\s*$)|"
    r"mandatory|compulsory|obligatory|has to|have to|"
    r"do not|don't|freeze|frozen|locked|"
    # negative contractions end in a word character, so 'should' alone never meets them
    r"shouldn't|mustn't|shan't|won't|isn't|aren't|doesn't|wouldn't|exclude|excludes|excluded|"
    # Cautions and imperatives state a concern the engine cannot check ('Be careful with
    # unusually large payouts'): kept as text, so a request they speak to goes to review.
    r"careful|caution\w*|avoid\w*|ensure|make sure|beware|watch out|refrain|discouraged|"
    r"think twice|double[- ]check|"
    # Guidance left to judgement is a concern too ('Use good judgement with big refunds', 'Keep
    # an eye on …', 'Use discretion'): the engine cannot weigh it, so it never reads as a mere
    # description that governs nothing.
    r"judge?ments?|discretion\w*|prudent\w*|sensibl[ey]|reasonabl[ey]|appropriate\w*|"
    r"common sense|mindful|keep an eye|pay (?:close )?attention|take care|with care|sparingly|"
    r"escalat\w*|verify|confirm|check)\b|:",
    re.I,
)
# Nouns naming a person or body who decides ('a sales manager', 'the CFO', 'two reviewers').
_ROLE = (
    r"(?:managers?|directors?|leads?|supervisors?|officers?|adjusters?|approvers?|reviewers?|"
    r"pharmacists?|physicians?|doctors?|clinicians?|nurses?|controllers?|auditors?|analysts?|"
    r"heads?|vps?|svps?|cfo|ceo|cto|ciso|coo|cio|cmo|administrators?|counsel|lawyers?|"
    r"attorneys?|architects?|committees?|boards?|desks?|specialists?|underwriters?|"
    r"accountants?|treasurers?|executives?|signator(?:y|ies)|stewards?|partners?|owners?|"
    r"custodians?|dpo|compliance|legal|finance|security|hr|procurement|risk|"
    # roles written as initials or a department ('needs the DBA', 'requires the CAB', 'needs
    # treasury'): read as a required argument `DBA` before, which `dba_on_call` satisfied
    r"dbas?|sres?|cab|qa|on-?call|treasury|payroll|audit|tax|comms|communications|marketing|"
    r"privacy|infosec|secops|soc|noc|it|accounting|facilities|"
    # abbreviations and groups who decide: 'a store mgr', 'the EA team', 'site ops'
    r"mgrs?|mgmt|management|supvs?|dirs?|teams?|ops|operations|"
    # 'requires two admins to confirm', 'needs the DBA on call to agree'
    r"admins?|dbas?)"
)
_AUTO = (
    r"auto[- ]?approv\w*|approved automatically|automatically approved|"
    r"(?:can|may) be approved by (?:the )?agent|"
    # '< 1k are auto', 'anything under 50 EUR is auto'
    r"(?:are|is) auto(?![-\w])"
)
REVIEW = re.compile(
    # 'a second approver', 'an additional sign-off': another person decides too
    r"\b((?:second|dual|double|additional|another|extra|independent)\s+"
    r"(?:approv\w+|sign[- ]?offs?|signatures?|reviews?|reviewers?)|approvals?|approvers?|approved by|be approved|be (?:manually|explicitly|separately) approved|"
    # 'manual review', 'manually': a person decides; 'Manual meter read overrides' names a kind
    r"manual(?=\s+(?:reviews?|approvals?|sign|checks?|handling|processing|verification|"
    r"intervention|escalation))|manually|reviews?|"
    r"reviewed|sign[- ]?offs?|signed off|second pair of eyes|four[- ]eyes|a human|human (?:approval|review|sign)|"
    r"escalat\w*|countersign\w*|authori[sz]ation|needs? (?:a |an )?(?:manager|human|supervisor|person)|"
    r"goes? to (?:a |an )?(?:human|manager|person|reviewer|supervisor)|"
    # 'goes to an adjuster', 'is routed to the compliance officer': a person who decides.
    r"(?:go|goes|routed|referred|escalated|handed over)\s+to\s+(?:a|an|the|our)\s+(?:[a-z]+\s+)?"
    r"(?!(?:customer|user|partner|supplier|vendor|member|reseller|buyer|seller|provider|carrier|"
    r"owner|player|subscriber|holder|server|folder|printer|computer|container|cluster)s?\b)"
    r"(?:[a-z]+(?:er|or|ist|ant)|lead|desk|committee|board|team|function|department)s?|"
    # 'larger ones go to credit ops', 'goes to finance': a body who decides, no article
    r"(?:go|goes|routed|referred|escalated)\s+to\s+(?:[a-z]+\s+)?(?:ops|operations|treasury|"
    r"finance|legal|compliance|risk|procurement|payroll)\b(?=\s*(?:[.;,)]|$|\s+(?:for|to|review|"
    r"approval|sign[- ]?off)\b))|"
    r"without (?:a |an )?(?:manager|approval|sign|review|supervisor|human|second)|"
    # 'need FinOps OK', 'requires the owner's go-ahead': an informal approval asked for
    r"(?:needs?|requires?|required)\s+(?:[\w'’-]+\s+){0,3}?(?:ok|okay|go-ahead|blessing|green\s+light)\b|"
    # 'need a sales manager', 'requires an HR director', 'needs the CFO', 'needs two approvers':
    # a person who decides is an approval requirement, never a required argument.
    # Staff drop the article ('Credits over $100 need team lead', 'requires finance'): the role
    # still ends its noun phrase (the look-ahead below), so 'needs finance code' stays a code.
    r"(?:needs?|requires?|required|needed)\s+(?:(?:a|an|the|our|one|two|three|four|five|[2-5])\s+)?"
    r"(?:[a-z]+(?:'s)?\s+){0,2}?" + _ROLE + r"(?:'s)?\b"
    # the role ends its noun phrase: 'need a finance code' names a code, not a person
    r"(?=\s*$|\s*[,.;:)!]|\s+(?:approval|sign[- ]?off|review|ok|okay|consent|go-ahead|before|"
    r"for|to|on|if|when|unless|and|or|from|at|in|first|beforehand)\b)|"
    # a department with no article ('Contract changes need legal', 'need finance', 'requires
    # HR'): a body who decides, when it ends the phrase ('need finance codes' is data)
    r"(?:needs?|requires?|required|needed)\s+(?:sign[- ]?off\s+from\s+)?"
    r"(?:legal|finance|treasury|hr|compliance|security|procurement|payroll|audit|tax|comms|"
    r"marketing|privacy|infosec|secops|risk|it|accounting|management|facilities)"
    r"(?=\s*$|\s*[,.;:)!]|\s+(?:approval|sign[- ]?off|review|ok|okay|consent|go-ahead|before|"
    r"first|beforehand|if|when|unless)\b))\b",
    re.I,
)
AUTO = re.compile(r"\b(" + _AUTO + r")\b", re.I)
NEGATION = re.compile(
    # 'no-cost extensions', 'no-show fees': a hyphenated 'no-' word is an adjective, no negation
    r"\b(not|never|no(?!-\w)|cannot|can't|won't|don't|doesn't|mustn't|shan't|shouldn't|prohibit\w*|forbid\w*|forbidden|"
    r"ban|banned|disallow\w*|blocked|off[- ]limits|illegal|isn't|aren't|exclude|excludes|excluded|"
    # '…, above 10M USD are refused': a refusal closing the clause ('denied claims' is a kind)
    r"(?:is|are|will\s+be|get|gets)\s+(?:refused|rejected|declined|denied)(?=\s*[.;!]?\s*$))\b",
    re.I,
)
ALLOW = re.compile(
    r"\b(may|can|allowed|permitted|fine|ok|okay|freely|without restriction|no restrictions?|at will|"
    r"unrestricted|" + _AUTO + r")\b",
    re.I,
)
ONLY = re.compile(
    r"(?<!-)\b(only|exclusively|solely|limited to|restricted to|must come from|must be from|one of)\b",
    re.I,
)
OUTSIDE = re.compile(
    # ('outside collaborators', 'outside counsel': an adjective naming a kind of party, no list)
    r"\b(?:outside (?!(?:collaborators?|counsel|contractors?|parties|party|auditors?|consultants?|"
    r"advis[eo]rs?|directors?|guests?)\b)(?:of )?(?:the )?|other than (?:the )?|"
    # 'Wires may go anywhere except to IR, KP or SY': a preposition before codes
    r"except\s+(?:to|in|into|from)\s+(?=(?:the\s+)?(?-i:[A-Z]{2,3})\b)|except (?:for )?(?:the )?|apart from (?:the )?|"
    r"(?:any|every)(?:thing|where|one)?\s+(?:(?!(?:may|can|must|is|are)\b)[a-z][\w-]*\s+)?but (?:the )?|not (?:one )?of (?:the )?following:?\s*"
    # 'from a domain not on our allowlist (northwind.com, …)', 'countries not in (US, CA)': the
    # values outside the list (read as the list itself, it reviewed the listed domains and
    # approved every other one)
    r"|(?:not|n't|never)\s+(?:on|in|among|within|part\s+of|from)\s+(?:(?:the|our|an?|its|their)\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:allow-?list|white-?list|safe-?list|approved\s+list|list|set)\b:?\s*"
    r"|(?:not|n't)\s+in\s*(?=[(\[{])"
    # 'countries not among US, CA, GB', 'a domain that is not one of acme.com or acme.io', 'regions
    # excluding eu-west-1', 'countries that are not US or CA', 'country !in [US, CA]': the values
    # outside the list that follows (read as the list itself, every other value was approved)
    r"|(?:not|n't)\s+(?:among|one\s+of)\s+(?:the\s+)?|excluding\s+(?:the\s+)?"
    # 'no roles besides read-only' (a sentence that opens 'Besides RU, …' adds, it excludes nothing)
    r"|(?<=[A-Za-z]\s)besides\s+(?:the\s+)?"
    # 'currencies not listed (USD, EUR)', 'payments not to US or CA': the values outside
    r"|(?:not|n't)\s+(?:listed|named|included|mentioned)(?:\s+(?:here|below|above))?\s*:?\s*(?=[(\[{:]|(?-i:[A-Z]{2,3})\b)"
    # 'addresses not ending in acme.com', 'users without an acme.com address'
    r"|without\s+(?:an?\s+|any\s+)?(?=@?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b)"
    r"|(?:not|n't)\s+(?:ending|end|ends)\s+(?:in|with)\s+"
    r"|(?<=[a-z]\s)not\s+(?:to|from|in)\s+(?=(?:the\s+)?(?-i:[A-Z]{2,3})\b)"
    r"|(?:that|which|who)\s+(?:(?:is|are)\s+not|isn't|aren't)\s+"
    # ('that are not sanctioned', 'that are not in the registry': a state, not a list)
    r"(?!(?:yet|already|a|an|the|in|on|at|from|part|[a-z]+ed)\b)"
    r"|!\s*in\s*(?=[(\[{]))",
    re.I,
)


# jred24: 'merchant category must not be one of: gambling, crypto', 'ship country cannot be one
# of: RU, BY': the negation is the modal's, 'one of' names what is refused. Taken for the
# restricting 'one of' of an allow-list, the listed values were the only ones approved.
_NEGATED_ONE_OF = re.compile(
    r"(?:\b(?:not|never)|n't|\bcannot)\s+(?:(?:be|is|are|ever)\s+){0,2}(?:any\s+)?$", re.I
)


def _restricting_marker(text: str) -> bool:
    """Whether `text` has a restricting marker ('only', 'limited to', 'one of'), a 'one of' its
    own negation refuses not counted."""
    return any(
        not (m.group(0).lower() == "one of" and _NEGATED_ONE_OF.search(text, 0, m.start()))
        for m in ONLY.finditer(text)
    )


def _without_outside_negations(text: str) -> str:
    """`text` without the negations that belong to an exclusion marker ('vendors not on the
    list (RU, BY) are fine'): they say which values the rule speaks of, not that it forbids."""
    if "not" not in text.lower() and "n't" not in text.lower():
        return text
    return OUTSIDE.sub(lambda m: " " if NEGATION.search(m.group(0)) else m.group(0), text)


# A cap stated with no modal ('Renewal rent increase max 5%', 'Single disbursement cap 250,000
# USD'): beside 'anything more goes to the regional manager' it is what the agent may do alone,
# not a prohibition (a cap with 'must not' stays one).
_SOFT_CAP = re.compile(
    r"^(?!.*\b(?:must|shall|should|may|can|cannot|never|not|no)\b).*\b(?:max(?:imum)?|cap(?:ped)?|"
    r"limit|ceiling|up\s+to)\b",
    re.I,
)
_NO_MORE_THAN = re.compile(
    r"\b(?:no|not)\s+(?:more|greater|larger|higher|bigger|longer)\s+than\b", re.I
)
# The rest of what an allowance grants ('others', 'otherwise', 'anything else', 'the rest').
_COMPLEMENT = re.compile(
    r"^\s*(?:all\s+)?(?:others|other\s+ones|otherwise|the\s+rest|everything\s+else|anything\s+else)"
    r"\b(?=\s+(?:need|needs|require|requires|go|goes|must|are|is|->|:|,|-))",
    re.I,
)
# What the agent may do alone, up to or under a bound ('Agents may accept chargebacks under $250
# without review', 'limit increases up to 10,000 can be done by the agent', 'may be handled by the
# agent alone', 'on its own'): a permission, never a review of the values it names. Read as a
# review ('without review' is a review word), 'under $250 without review' sent what is under 250
# to review and approved 900. Only with a permission modal and no negation ('may not … without
# review' and 'not without FinOps OK' ask for the review).
_ALONE_PHRASE = (
    r"without\s+(?:(?:a|an|any|the)\s+)?(?:[a-z]+(?:'s)?\s+){0,2}?"
    r"(?:reviews?|approvals?|sign[- ]?offs?|ok|okay|escalation|supervisor|manager)\b"
    r"|(?:done|handled|processed|approved|actioned|made|granted|issued|performed|executed)\s+by\s+"
    r"(?:the\s+|an?\s+)?(?:agent|bot|assistant)s?(?:\s+(?:alone|itself|themselves))?\b"
    r"|(?:alone|on\s+(?:its|their|his|her)\s+own|by\s+(?:itself|themselves)|directly)"
    r"(?=\s*(?:[.;,]|$))"
)
ALONE = re.compile(
    r"\b(?:may|can|could|is\s+allowed\s+to|are\s+allowed\s+to|is\s+permitted\s+to|"
    r"are\s+permitted\s+to)\b[^.;]*?\b(?P<alone>" + _ALONE_PHRASE + r")",
    re.I,
)


# The review said not to be needed ('No approval needed for refunds under $100', 'don't need
# approval', 'need no review', 'no review required', 'do not require a manager', 'exempt from
# review', 'Without review, agents may …'): the same permission. Each had been read as a review
# of what it spares (the negation left unread), so 500 passed a rule sparing what is under 100.
_REVIEWER = (
    r"(?:(?:a|an|any|the)\s+)?(?:[a-z]+(?:'s)?\s+){0,2}?(?:approvals?|reviews?|sign[- ]?offs?|ok|"
    r"okay|manager|supervisor|escalation)\b"
)
NO_REVIEW_NEEDED = re.compile(
    r"(?P<alone>\bno\s+(?:[a-z]+\s+){0,2}?(?:approvals?|reviews?|sign[- ]?offs?)\s+(?:is\s+|are\s+)?"
    r"(?:needed|required|necessary)\b"
    r"|\b(?:do|does|did)\s*(?:not|n't)\s+(?:need|require)\s+" + _REVIEWER + r""
    r"|\b(?:don't|doesn't|dont|doesnt)\s+(?:need|require)\s+" + _REVIEWER + r""
    r"|\b(?:needs?|requires?)\s+no\s+(?:[a-z]+\s+)?(?:approvals?|reviews?|sign[- ]?offs?)\b"
    r"|\b(?:are|is)\s+exempt\s+from\s+(?:[a-z]+\s+)?(?:approvals?|reviews?|sign[- ]?offs?)\b"
    r"|^\s*without\s+" + _REVIEWER + r"(?=\s*,[^.;]*\b(?:may|can)\b))",
    re.I,
)


_FLOOR_SPARED = re.compile(
    r"(?:>=?|\b(?:over|above|more than|greater than|exceeding|at least|or more)\b)", re.I
)


# 'Refunds up to 50 USD: agent may issue.', 'comps <= 150 EUR - agent can post': the agent as the
# subject of a bare act ending the rule is the same permission (holdout_53's first run: the modal
# stayed unread and the rule partly understood)
_AGENT_MAY = re.compile(
    r"(?:^|[:;,\-\u2013\u2014]\s*|\sneeds?\s+)(?:the\s+)?(?:agents?|bots?|assistants?)\s+(?:may|can)\s+"
    r"(?P<alone>(?!" + _NOT_THE_ACT + r"\b)[a-z]+(?:\s+(?:it|them|this|these))?)\s*\.?\s*$",
    re.I,
)


def alone_permission(text: str) -> re.Match[str] | None:
    """The 'without review' / 'by the agent' / 'no approval needed' phrase of a permission the
    agent uses alone, or None when the clause is otherwise negated (then it asks for the review)
    or restricted by 'only' before it."""
    m = ALONE.search(text) or NO_REVIEW_NEEDED.search(text) or _AGENT_MAY.search(text)
    if m is None or re.search(r"\bonly\b", text[: m.start()], re.I):
        return None
    if _FLOOR_SPARED.search(text[: m.start("alone")]) and NO_REVIEW_NEEDED.search(text):
        # 'amount > 500 -> no review needed': sparing the review of what is above a bound is not
        # how staff write it (they spare the small ones); it is left unread, never a grant
        return None
    rest = text[: m.start("alone")] + " " + text[m.end("alone") :]
    if NEGATION.search(rest) or re.search(r"\b(?:unless|except|if|when|for|but)\b", rest, re.I):
        # 'may not … without review' asks for it; a condition or a 'for VIP customers' narrows the
        # permission and no check reads it (the rule stays partly understood as before)
        return None if NEGATION.search(rest) else m
    return m


_EXPLICIT_OK = re.compile(
    r"\b(fine|ok|okay|allowed|permitted|auto[- ]?approv\w*|approved automatically|automatically approved|"
    r"no approval (?:is )?needed|without approval|freely)\b",
    re.I,
)
# Review words said not to apply: 'no approval needed', "don't need approval", 'need no review'.
_NEGATED_REVIEW = re.compile(
    r"\b(?:no\s+(?:\w+\s+)?(?:approval|review|sign[- ]?off)\s+(?:is\s+)?(?:needed|required)|"
    r"needs?\s+no\s+(?:\w+\s+)?(?:approval|review|sign[- ]?off)|"
    r"(?:do|does|did)(?:n't|\s+not)\s+(?:need|require)\s+(?:\w+\s+)?(?:approval|review|sign[- ]?off)|"
    r"(?:approval|review|sign[- ]?off)\s+(?:is|are)(?:n't|\s+not)\s+(?:needed|required))\b",
    re.I,
)
_UPPER_BOUND = re.compile(
    r"(?:(?:not|never|n't|cannot)\s+(?:ever\s+)?(?:to\s+)?(?:exceed|go over|go above|go beyond|surpass|be (?:more|greater|larger|higher|bigger|longer) than|be (?:above|over))"
    r"|\bmax(?:imum)?\s+[a-z][a-z\s-]{1,30}?\s+(?:is|are|of)"
    r"|\bexceed|\bat most|\bup to|\bno (?:more|greater|larger|higher|bigger|longer) than|\bnot (?:more|greater|larger|higher|bigger|longer) than"
    r"|\bmax(?:imum)?\.?(?:\s+(?:of|is|amount|value|total))?:?|\bcapped at|\bcap(?:s|ped)?(?: of| at| is)?:?|\blimited to|\blimit(?:ed)?(?: of| is| to| at)?:?"
    r"|\bceiling(?: of| is)?|\bwithin|\bmust (?:be|stay|remain) (?:under|below|less than|lower than|shorter than|at most|within)"
    # 'max notional 5m EUR', 'Max notional: 5m EUR': the measured noun between 'max' and the number
    r"|\bmax(?:imum)?\s+[a-z]{3,}(?:\s+[a-z]{3,})?\s*:?)\s*$",
    re.I,
)
_STRICT_UPPER = re.compile(r"(?:under|below|less than|lower than|shorter than)\s*$", re.I)
_LOWER_BOUND = re.compile(
    r"(?:\bat least|\bmin(?:imum)?\s+[a-z][a-z\s-]{1,30}?\s+(?:is|are|of)|\bminimum(?: of| is| amount| value)?:?|\bmin\.?:?|\bno (?:less|fewer) than|\bnot (?:less|fewer) than|\bfloor(?: of| is)?"
    r"|\bmust (?:be|stay|remain) (?:over|above|more than|greater than|at least)"
    # 'Minimum payout 10 EUR', 'Min FICO: 620': the measured noun between 'min' and the number,
    # as 'max notional 5m EUR' is for a cap
    r"|\bmin(?:imum)?\s+[a-z][a-z\-]{2,}(?:\s+[a-z][a-z\-]{2,})?\s*:?)\s*$",
    re.I,
)
_STRICT_LOWER = re.compile(r"(?:over|above|more than|greater than)\s*$", re.I)
_ABOVE = re.compile(
    r"(?:\babove|\bover|\bmore than|\bgreater than|\blarger than|\bbigger than|\bhigher than|\bexceeding|\bexceeds|"
    r"\bin excess of|\bbeyond|\blonger than|>=?)\s*$",
    re.I,
)
_BELOW = re.compile(
    r"(?:\bbelow|\bunder|\bless than|\bfewer than|\bsmaller than|\blower than|\bshorter than|<=?)\s*$",
    re.I,
)
_OR_MORE = re.compile(r"^\s*(?:or more|and above|and over|or above|or higher|\+)", re.I)
_OR_LESS = re.compile(r"^\s*(?:or less|or fewer|and below|and under|or below)", re.I)
_ANAPHOR = re.compile(
    r"\b(above|over|beyond|below|under|more than|less than)\s+(that|this|it|the limit|the threshold)\b"
    # 'bigger orders need IT approval' after 'may order up to 40': bigger than that bound.
    r"|\b(bigger|larger|higher|greater|smaller|lower)\s+(?!than\b)(?:ones|[a-z]+s)\b"
    # 'Credits up to $20 are fine; anything above needs a supervisor', 'Longer -> credit team
    # review', 'anything more goes to the regional manager': a clause opening on the comparative
    # alone. Read as subject words, the clause sent every request of the subject to review.
    r"|^\s*(?:(?:anything|everything|any\s+amount|amounts|ones|those|all)\s+)?"
    r"(?P<bare>above|over|beyond|more|larger|bigger|higher|greater|longer)\b(?!\s+than\b)"
    r"(?:\s+(?:that|this|it|the limit|the threshold|the cap|this amount|that amount))?",
    re.I,
)
_WINDOWS = [
    (
        # 'in any 24-hour period', 'rolling 24 hours', 'per 24h': a window that slides with the
        # request, which today's total (a calendar day) does not measure. First, so that its
        # 'hour' is not read as a per-hour window.
        "period",
        re.compile(
            r"\b(?:in|within|over|during)\s+any\s+(?:rolling\s+)?(?:24|twenty-four)[- ]?(?:hours?|hrs?|h)\b(?:\s+period\b)?"
            r"|\brolling\s+(?:24|twenty-four)[- ]?(?:hours?|hrs?|h)\b(?:\s+(?:period|window)\b)?"
            r"|\b(?:24|twenty-four)[- ]hour\s+(?:period|window)\b|\bper\s+24\s?(?:hours?|hrs?|h)\b",
            re.I,
        ),
    ),
    (
        "day",
        re.compile(
            r"\b(?:per|a|each|every|in a|in one|in any|within a|within one|in a single|for the)\s+(?:calendar\s+|single\s+|business\s+)?day\b|\bdaily\b|\btoday\b"
            r"|\s?/\s?day\b",
            re.I,
        ),
    ),
    (
        "hour",
        re.compile(
            r"\b(?:per|an|each|every|in an|in one|in any|within an|within one|in a single|in the last)\s+hour\b|\bhourly\b|\b(?:per|an|each)\s+60 minutes"
            # 'max 3 payouts / hr', 'exports/hour', 'per hr'
            r"|\s?/\s?(?:hr|hour)\b|\bper\s+hr\b",
            re.I,
        ),
    ),
    ("week", re.compile(r"\b(?:per|a|each|every|in a|in one|in any)\s+week\b|\bweekly\b", re.I)),
    (
        "month",
        re.compile(
            r"\b(?:per|a|each|every|in a|in one|in any)\s+(?:calendar\s+)?month\b|\bmonthly\b", re.I
        ),
    ),
    (
        "year",
        re.compile(
            r"\b(?:per|a|each|every|in a|in one|in any)\s+(?:calendar\s+|fiscal\s+)?year\b|\bper annum\b|\bannually\b|\byearly\b",
            re.I,
        ),
    ),
]
# A period adjective that names a thing, not the window a total is taken over: the limit being
# changed ('daily transfer limit increases up to 10,000', 'raise the monthly spend limit to …' bound
# the new limit's value; read as a window, the rule counted requests per day and never compared
# `new_daily_limit`) and a kind of plan ('20% on monthly plans' is no month's total).
_PERIOD_NAMES = re.compile(
    r"\b(?P<a>daily|weekly|monthly|yearly|annual|quarterly)(?=(?:\s+[a-z]+){0,2}\s+limits?\s+"
    r"(?:increases?|raises?|changes?|adjustments?|updates?|bumps?)\b)"
    r"|\b(?:increas\w*|rais\w*|set|setting|chang\w*|adjust\w*|updat\w*|lift\w*|bump\w*)\s+"
    r"(?:(?:the|a|an|their|its|his|her)\s+)?(?P<b>daily|weekly|monthly|yearly|annual|quarterly)"
    r"(?=(?:\s+[a-z]+){0,2}\s+limits?\b)"
    r"|\b(?P<c>daily|weekly|monthly|yearly|annual|quarterly)(?=\s+(?:plans?|subscriptions?|billing|"
    r"contracts?|memberships?|passes|pass|licen[cs]es?|terms?|cycles?|tiers?|"
    # 'not to exceed 1.5x monthly rent': an amount the request states, no month's total
    r"rent|salary|salaries|income|premiums?|wages?|fees?|instal{1,2}ments?|retainer|interest)\b)"
    # '50 MME/day', '4 g/day': a dose rate in its unit, not a count of requests per day
    r"|\d[\d,.]*\s*[A-Za-z]{1,6}\s?/\s?(?:day|d)\b",
    re.I,
)


def window_text(clause: str) -> str:
    """`clause` with the period adjectives that name a thing blanked (see _PERIOD_NAMES)."""
    return _PERIOD_NAMES.sub(lambda m: " " * len(m.group(0)), clause)


# jred31: 'Daily ore tonnage must stay below 5000': a measure that is no count of requests
# (read as one, 6,000 tonnes passed as "request number 4 today")
_MEASURED_THINGS = frozenset(
    stem(w)
    for w in "tonnage tonnes tons weight volume duration length distance mileage quantity qty "
    "headcount throughput output production yield".split()
)


def _stems_before(clause: str, at: int) -> set[str]:
    return {stem(w.lower()) for w in words(clause[:at])}


_MEASURE_NOUNS = frozenset(
    {
        "row",
        "record",
        "line",
        "entry",
        "entri",
        "result",
        "instanc",
        "user",
        "recipient",
        "attach",
        "file",
        "item",
        "seat",
        "node",
        "replica",
        "byte",
        "unit",
        "licens",
        "credit",
        "token",
        "server",
        "vm",
        "host",
        "contain",
        "gpu",
        "cpu",
        "core",
        "share",
        "member",
        "account",
        "address",
        "document",
        "field",
        "column",
        "tabl",
        "databas",
        "bucket",
        "key",
        "page",
        "char",
        "word",
    }
)
_FIRST_TIME = re.compile(
    r"\b(first[- ]time|for the first time|never (?:been )?(?:paid|contacted|used|seen|sent|emailed|transacted|"
    r"worked with|done business)|not (?:been )?(?:paid|seen|contacted|used) before|new (?:payee|recipient|vendor|"
    r"beneficiar\w*|counterpart\w*|supplier|contact|account|customer|merchant|partner|destination)s?|"
    r"previously unseen|previously unknown|unknown (?:payee|recipient|vendor|beneficiar\w*|counterpart\w*)|"
    # 'payees not previously paid', 'a supplier not previously used', 'a payee we haven't paid
    # before': the counterparty is new to this agent
    r"not previously (?:been )?(?:paid|used|seen|contacted|engaged|transacted with|worked with)|"
    r"(?:haven't|hasn't|have not|has not|didn't|did not)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:paid|used|seen|contacted|engaged|transacted with|worked with)\s+(?:\w+\s+)?before)",
    re.I,
)
# The word after 'new vendor' is a noun the phrase goes on with ('new vendor bank details'), not
# a predicate or a preposition ('new vendors need …', 'new payees over …', 'new vendor's …').
_NEW_PARTY_QUALIFIES = re.compile(
    r"\s+(?!(?:need|needs|needed|require|requires|required|must|may|might|can|cannot|can't|"
    r"should|shall|will|are|is|get|gets|go|goes|have|has|do|does|don't|under|over|above|below|"
    r"in|on|at|to|for|from|with|without|by|of|via|up|and|or|but|unless|if|when|where|who|that|"
    r"which|whose|before|after|require|always|never|not|only|more|less|exceeding|larger|"
    r"greater|bigger|higher|lower|smaller)\b)[a-z][a-z\-]+\b",
    re.I,
)
_REQUIRED = re.compile(
    r"\b(?:must|shall|should|need to|needs to|has to|have to|are required to|is required to)\s+(?:always\s+)?(?:clearly\s+)?"
    r"(?:include|reference|specify|contain|have|provide|carry|state|cite|list|mention|name|attach|supply|set|fill in|give|"
    r"be accompanied by|come with|declare|record|document|quote|identify)\s+(?P<arg>.+)$",
    re.I,
)
_REQUIRED_NEED = re.compile(
    r"\b(?:require|requires|required|need|needs)\s+(?P<arg>(?:a|an|the)\s+.+|[a-z_]+_[a-z_]+.*)$",
    re.I,
)
# 'Bank details must be given as an IBAN': the form the value must come in is an argument
_REQUIRED_AS = re.compile(
    r"\b(?:must|shall|should|has to|have to|need to|needs to)\s+(?:always\s+)?be\s+"
    r"(?:given|provided|supplied|sent|submitted|entered|passed)\s+as\s+(?P<arg>(?:a|an|the)\s+.+)$",
    re.I,
)
_REQUIRED_IS = re.compile(
    r"^(?:a|an|the)?\s*(?P<arg>.+?)\s+(?:is|are)\s+(?:required|mandatory|compulsory)\b", re.I
)
_FLAG = re.compile(
    r"\b(?:must|shall|should)\s+(?:always\s+)?(?:be|stay|remain)\s+(?P<adj>[a-z]+(?:ed|d))\b", re.I
)
_WITHOUT_FLAG = re.compile(
    r"\bwithout\s+(?:a |an |the )?(?P<flag>[A-Za-z0-9_ ]+?(?:'s\s+[A-Za-z0-9_ ]+?)?)(?:\s+(?:enabled|on|turned on|set|configured))?\s*$",
    re.I,
)
_UNVERIFIABLE = frozenset(
    {
        "approved",
        "valid",
        "signed",
        "verified",
        "completed",
        "authorised",
        "authorized",
        "confirmed",
        "accepted",
        "open",
        "active",
        # 'a closed IR ticket': a ticket's id shows it exists, not that it is closed
        "closed",
        "resolved",
    }
)
_PREPOSITIONS = re.compile(
    r"\s+(?:for|from|to|by|with|that|which|who|when|before|after|in|on|of|at|if|unless|except|so|as|where|whenever|whose)\s+.*$",
    re.I,
)
# 'a purpose field', 'the ticket_id parameter': these words say it is an argument, not its name.
_FIELD_WORDS = frozenset(
    {"field", "fields", "argument", "arguments", "parameter", "parameters", "param", "attribute"}
)
_FIELD_NAME = re.compile(r"\((?:field|argument|parameter|arg|param)\s+`?([A-Za-z0-9_.]+)`?\)", re.I)
_IDENTIFIER = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
SCOPE = re.compile(
    r"\b(?:this policy\s+|these rules\s+|it\s+)?(?:only\s+)?(?:applies|apply)\s+(?:only\s+)?to\s+(?P<scope>.+?)(?:\s+only)?\s*[.;]?\s*$"
    r"|^\s*(?:scope|in scope)\s*:\s*(?P<scope2>.+?)\s*[.;]?\s*$"
    r"|\b(?:this policy\s+)?(?:covers|governs)\s+(?P<scope3>.+?)\s+only\s*[.;]?\s*$",
    re.I,
)
_EFFECT_STEMS = frozenset(
    {
        "within",
        "allow",
        "permit",
        "permitt",
        "prohibit",
        "forbid",
        "forbidden",
        "ban",
        "disallow",
        "block",
        "fine",
        "ok",
        "okay",
        "free",
        "restrict",
        "restriction",
        "limit",
        "cap",
        "max",
        "maximum",
        "minimum",
        "min",
        "exceed",
        "excess",
        "least",
        "greater",
        "larger",
        "higher",
        "lower",
        "smaller",
        "bigger",
        "fewer",
        "total",
        "calendar",
        "hard",
        "requir",
        "need",
        "approv",
        "approval",
        "review",
        "strict",
        "unrestrict",
        "whatsoever",
        "longer",
        "shorter",
        "ceil",
        "floor",
        "illegal",
        "limits",
        "permitted",
        "auto",
        "automat",
        "anyth",
        "someth",
        "els",
        "exclusiv",
        "sol",
        "following",
        "follow",
        "specif",
        "specifi",
        "specify",
        "like",
        "etc",
        "e",
        "g",
        "ie",
        "eg",
        "instead",
        "us",
        "our",
        "compani",
        "otherwis",
        "under",
        "clear",
        "day",
        "hour",
        "week",
        "month",
        "year",
        "annum",
        "today",
        "at",
        "most",
        "mandatory",
        "prior",
        "explicit",
        "first",
        "step",
        "once",
        "beyond",
        "exclud",  # 'Exclude anyone with …' is the prohibition itself
        "through",  # 'can go through without approval'; 'through Q4' is a freeze's duration
        # verbs that only say the subject action happens ('may only be run for …')
        "run",
        "perform",
        "carri",
        "carry",
        "conduct",
    }
)
_EFFECT_STEMS = (
    _EFFECT_STEMS
    | frozenset(stem(w) for w in _EFFECT_STEMS)
    | frozenset(
        {
            "exce",
            "fin",
            "fre",
            "freely",
            "singl",
            "outgo",
            "outbound",
            "start",
            "begin",
            "deliv",
            "issu",
            "process",
            "submit",
            "handl",
            "initi",
            "plac",
            "stay",
            "remain",
            "keep",
            "kept",
        }
    )
)
_KIND_SKIP = frozenset(
    {
        "list",
        "block",
        "follow",
        "following",
        "sanction",
        "approv",
        "allow",
        "permit",
        "name",
        "known",
        "these",
        "those",
        "prefix",
        "start",
        "begin",
        "exclud",
        "includ",
        # 'anything but the approved regions: …', 'roles besides read-only': the words of an
        # exclusion are no kind of value (read as one, no argument matched and the listed value
        # was denied)
        "but",
        "besid",
        "among",
    }
)
_KIND_NOUNS = frozenset(
    {
        "format",
        "address",
        "domain",
        "environ",
        "region",
        "country",
        "currency",
        "branch",
        "cluster",
        "group",
        "bucket",
        "typ",
        "type",
        "account",
        "prefix",
        "team",
        "vendor",
        "project",
        "repo",
        "repository",
        "namespac",
        "zon",
        "zone",
        "channel",
        "list",
        "tag",
        "rol",
        "role",
        "network",
        "registry",
        "imag",
        "host",
        "servic",
        "member",
        "tier",
        "plan",
    }
)


_NUMBER_ABBREVIATION = re.compile(
    r"(?<=[a-z0-9])(?<!\bsay)(?<!\banswer)\s+no\.(?=\s|$|[,;:)])", re.I
)


_INFORMAL_APPROVAL = re.compile(
    r"(?P<head>\b(?:need|needs|require|requires)\s+(?:(?:a|an|the)\s+)?"
    r"(?:[A-Za-z][\w'\-]*\s+){0,3}?)(?:ok|okay|go-ahead|green\s+light|nod|blessing|confirmation|"
    r"concurrence)\b(?!\s*[\w(])",
    re.I,
)


_WHOSE_STATE = re.compile(
    r"\bwhose\s+(?P<what>(?:[A-Za-z][\w\-]*\s+){0,2}(?:status|state|stage))\s+is\s+"
    r"(?P<value>[A-Za-z][\w\-]*)\b(?=\s*(?:[.;,]|$))",
    re.I,
)


_REFERENCE_VERBS = {
    "references": "reference",
    "cites": "cite",
    "quotes": "quote",
    "includes": "include",
    "specifies": "specify",
}
_ONLY_WHERE_REFERENCES = re.compile(
    r"^(?P<subj>[A-Za-z][^,;:]*?)\s+(?:may|can|shall)\s+(?:only\s+)?be\s+(?P<verb>[a-z]+ed)\s+"
    r"only\s+(?:where|if|when|provided\s+that)\s+(?:it|they)\s+"
    r"(?P<req>references|cites|quotes|includes|specifies)\s+(?P<rest>[^,;:]+?)"
    r"(?:\s+(?:to\s+which\s+it\s+relates|that\s+it\s+relates\s+to))?\s*\.?$",
    re.I,
)
_HEADED_REFERENCE = re.compile(
    r"^(?P<subj>[A-Za-z][A-Za-z\- ]{0,40}?)\s*:\s*(?P<rest>(?:cite|reference|quote|include)\s+"
    r"(?:a|an|the)\s+[^,;:]+?(?:\b(?:id|identifier|number|no|ref|reference|ticket)\.?))\s*$",
    re.I,
)
# (not before a binding in notation, 'Where account_kind = guest, …', read whole by
# _WHERE_ALLOW_LIST with its own 'where')
_WHERE_OPENS = re.compile(r"^Where\s+(?=[^,;:=]+,\s)", re.I)


_NON_CODE = re.compile(r"(?<=\s)non-(?=(?P<code>(?-i:[A-Z]{2,3}))\b(?!-))", re.I)


def _non_code(t: str) -> str:
    """'Payments to non-EU countries', 'non-US vendors', 'non-USD currencies': the places or
    currencies outside a named one, which the exclusion markers read ('outside EU'); kept as a
    word, the rule was partly understood. (Rules only: a scope statement reads 'non-US' itself.)"""
    return _NON_CODE.sub(
        lambda m: (
            "outside "
            if _place(m.group("code")) or m.group("code") in CURRENCY_CODES
            else m.group(0)
        ),
        t,
    )


# --- Required arguments in the phrasings staff use ----------------------------------------------
# Each rewrite below turns one way staff write "this argument must be given" into the sentence
# the required-argument reading knows ("<subject> must include <thing>", "<thing> is required"),
# keeping every word it does not itself stand for, so an unread condition or qualifier stays
# unaccounted (partly understood, review). None applies to a rule that asks a person (REVIEW) or
# is negated ('No ticket needed for password resets' is an exemption, not a requirement).
#
# 'Always include the Zendesk ticket number.', 'Record the ticket number on every unlock.',
# 'Quote the PO number on every purchase': a bare imperative states the obligation. Only a verb of
# giving a reference, and only with 'always', a scope of every/each/all or a thing that ends in a
# word for an identifier ('Record calls' is an act, never a required argument).
_GIVING_VERBS = {
    "include": "include",
    "record": "include",  # 'must record' is read as an act elsewhere; the reference is included
    "attach": "include",
    "enter": "include",
    "quote": "quote",
    "cite": "cite",
    "reference": "reference",
    "specify": "specify",
    "state": "state",
    "provide": "provide",
    "supply": "supply",
    "give": "give",
    "fill in": "fill in",
    "fill out": "fill in",
}
_EVERY_SCOPE = (
    r"(?:on|in|with|for|to)\s+(?P<every>every|each|all|any)\s+"
    r"(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})"
)
# (an article only before the thing: 'Share the minimum fields needed' is an act, not a thing)
_THING = (
    r"(?P<arg>(?:(?:a|an|the|its|their)\s+)?[A-Za-z][\w\-]*(?:'s)?"
    r"(?:\s+(?!(?:a|an|the|its|their)\b)[A-Za-z][\w\-.]*(?:'s)?){0,4}?"
    r"(?:\s+\([a-z][a-z0-9_]*\))?)"
)
_IMPERATIVE_REFERENCE = re.compile(
    # 'Refunds - always include …', 'Unlocks: record …': a heading names what it is required of
    r"^(?:(?P<head>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s*(?::|\s-)\s*)?"
    r"(?P<always>(?:please\s+)?always\s+)?(?P<verb>"
    + "|".join(_GIVING_VERBS)
    + r")\s+"
    + _THING
    + r"(?:\s+"
    + _EVERY_SCOPE
    + r")?\s*\.?$",
    re.I,
)
# 'offboarding reason mandatory', 'Cost center needed on all expense claims', 'Justification:
# required.', 'payout_reference required (AP invoice or PO no.)': a thing and the word that it is
# required, with no verb ('X is required …' is read as written by _REQUIRED_IS and its siblings).
_TERSE_REQUIRED = re.compile(
    r"^" + _THING + r"\s*(?::\s*|\s+-\s+|\s+)(?:always\s+)?"
    r"(?P<word>required|mandatory|compulsory|needed)(?P<rest>.*)$",
    re.I,
)
# 'The approver must be set on every access grant', 'A justification must be given for each
# firewall exception', 'The cost centre field must be filled in on every PO': being given is being
# required ('must be set to …', 'given as …', 'given by …' say something else).
_MUST_BE_GIVEN = re.compile(
    r"^" + _THING + r"\s+(?:must|shall|should|has to|have to|needs? to)\s+(?:always\s+)?be\s+"
    r"(?:given|populated|filled(?:\s+(?:in|out))?|provided|supplied|entered|specified|recorded|"
    r"set|stated|included|captured)(?!\s+(?:as|to|by|from|at|when|if|unless|only)\b)(?P<rest>.*)$",
    re.I,
)
# 'make sure beneficial_owner is populated', 'ensure the cost centre is filled in'
_MAKE_SURE_GIVEN = re.compile(
    r"(?P<why>^.*?,\s*(?:so\s+)?)?\b(?:make\s+sure|ensure)\s+(?:that\s+)?"
    + _THING
    + r"\s+(?:is|are)\s+"
    r"(?:populated|filled(?:\s+(?:in|out))?|set|given|provided|supplied|entered|recorded|present)"
    r"(?!\s+(?:as|to|by|from|at)\b)(?P<rest>.*)$",
    re.I,
)
# 'Compliance will also want the beneficial owner on file, …': who wants the thing, and the thing
# itself, restate the requirement that follows (read only when the thing is the same words)
_WANTS_IT = re.compile(
    r"^(?P<who>[A-Z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s+(?:will|would|do|does)?\s*(?:also\s+)?"
    r"(?:want|wants|need|needs|expect|expects)\s+(?P<what>.+?)(?:\s+on\s+file)?\s*,\s*(?:so\s+)?$",
    re.I,
)
# 'Keys are always bound to a named owner (owner_email)', 'Contractors are added with a
# contractor flag and an end date': what a thing always carries, or is made with, is required of
# it ('<subject> <act> must have …').
_ALWAYS_BOUND = re.compile(
    r"^(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})\s+(?:is|are)\s+always\s+"
    r"(?:bound|tied|linked|assigned|attached)\s+to\s+(?P<rest>.+)$",
    re.I,
)
_MADE_WITH = re.compile(
    r"^(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})\s+(?:is|are)\s+(?:always\s+)?"
    r"(?P<act>added|created|opened|issued|raised|filed|submitted|onboarded|registered|set up)\s+"
    r"with\s+(?P<rest>(?:a|an|the|their|its)\s+.+)$",
    re.I,
)
# 'A reason must be given: offboarding, contract_end or security_incident', 'Payee type must be
# given on every payout: 'individual' or 'company'', 'priority required - low, medium or high',
# 'Every incident needs a severity of sev1, sev2 or sev3': the thing is required and its value is
# one of a closed list (the list reading's 'must be one of').
_VALUE_ITEM = r"'?[A-Za-z0-9][\w\-]*'?"
_VALUE_CHOICES = (
    r"(?P<items>"
    + _VALUE_ITEM
    + r"(?:\s*,\s*"
    + _VALUE_ITEM
    + r"){0,8},?\s+(?:or|and)\s+"
    + _VALUE_ITEM
    + r")"
)
_REQUIRED_FROM_LIST = re.compile(
    r"^(?P<head>.+?)\s*(?::|\s-)\s*(?:one\s+of\s+)?" + _VALUE_CHOICES + r"\s*\.?$", re.I
)
_NEEDS_ONE_OF = re.compile(
    r"^(?P<every>every|each|all|any)\s+(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s+"
    r"(?:needs|requires|must\s+have)\s+(?:a|an)\s+(?P<arg>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?)\s+"
    r"(?:of|from)\s+(?:one\s+of\s+)?" + _VALUE_CHOICES + r"\s*\.?$",
    re.I,
)
_NOT_REQUIRED = re.compile(r"^(?:no|not|never|none|nothing|without)\b", re.I)
# 'Payout memo has to say what the work was for': the thing is required and its value must say
# something, which a value of a word or two cannot (RequiredArgument.says: review)
_MUST_SAY = re.compile(
    r"^" + _THING + r"\s+(?:has to|have to|must|should|needs? to)\s+(?:always\s+)?"
    r"(?:say|state|explain|describe)\s+(?P<what>(?:what|why|who|which|how|where)\b[^.;:,()]+?)"
    r"\s*\.?$",
    re.I,
)
SAYS_REMARK = re.compile(r"\(it must say (?P<what>[^)]+)\)", re.I)
# 'No ticket needed for password resets', 'Password resets do not need a ticket', 'A ticket is
# not required for password resets': an exemption from a requirement permits the act it names
# ('<subject> are allowed'); never a requirement (read as one, it denied every reset without a
# ticket). Only a plain subject: a number or a condition in it is left as written.
_SUBJECT = r"(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})"
_EXEMPTIONS = (
    re.compile(
        r"^no\s+"
        + _THING
        + r"\s+(?:is\s+|are\s+)?(?:needed|required|necessary)\s+(?:for|on)\s+"
        + _SUBJECT
        + r"\s*\.?$",
        re.I,
    ),
    re.compile(
        r"^"
        + _SUBJECT
        + r"\s+(?:do|does)\s*(?:not|n't)\s+(?:need|require)\s+(?:(?:a|an|any)\s+)?"
        + _THING
        + r"\s*\.?$",
        re.I,
    ),
    re.compile(
        r"^" + _THING + r"\s+(?:is|are)\s+(?:not|never)\s+(?:needed|required|necessary)\s+"
        r"(?:for|on)\s+" + _SUBJECT + r"\s*\.?$",
        re.I,
    ),
)
_CONDITION_WORDS = re.compile(
    r"\b(?:if|when|unless|except|only|over|under|above|below|more|less|than|up|least|most|"
    r"without|where|whose|that|which|who|after|before|during|within)\b|\d",
    re.I,
)


def _bare_thing(arg: str) -> str:
    """The thing without its article: 'the ticket number' -> 'ticket number'."""
    return re.sub(r"^(?:a|an|the|its|their)\s+", "", arg.strip(), flags=re.I)


def _names_an_act(arg: str) -> bool:
    """'Refund must be given: full or partial', 'Payout required': a thing whose head noun is an
    act is the request itself, not an argument it carries (left as written)."""
    head = words(re.sub(r"\([^)]*\)", " ", arg))
    return not head or stem(head[-1]) in VERBS


# 'Payout memo has to say …', 'The justification must explain why …': only a text an argument
# holds can say something ('Tickets must state which customer …' asks the ticket, an act's object)
_TEXT_FIELDS = frozenset(
    stem(w)
    for w in (
        "memo note notes description reason justification comment comments summary purpose "
        "narrative message explanation rationale details remark remarks"
    ).split()
)


# 'port_pin required on the request', 'consent_id required. always.': the request itself, or an
# emphasis that the requirement has no exception, is the whole scope
_ON_THE_REQUEST = re.compile(
    r"(?:(?:on|in|with)\s+(?:the|this|each|every|any|all)\s+(?:requests?|calls?)\s*\.?"
    r"|\.?\s*(?:always|every\s+time|at\s+all\s+times)\s*[.!]?)",
    re.I,
)


_HEADED_TERSE_REQUIRED = re.compile(
    r"^(?P<head>[A-Za-z][A-Za-z\-]*(?:\s+[A-Za-z][A-Za-z\-]*){0,2})\s*:\s+(?P<body>\S.*)$"
)


def _required_with_scope(arg: str, rest: str) -> str | None:
    """'<arg> required on every unlock' -> 'Every unlock must include <arg>'; '<arg> required' ->
    '<arg> is required.'; None for any other tail (left as written)."""
    rest = rest.strip()
    if _names_an_act(arg):
        return None
    if not rest or rest == "." or _ON_THE_REQUEST.fullmatch(rest):
        return f"The {_bare_thing(arg)} is required."
    scope = re.fullmatch(_EVERY_SCOPE + r"\s*\.?", rest, re.I)
    if scope:
        return f"{scope.group('every').capitalize()} {scope.group('subj')} must include the {_bare_thing(arg)}."
    return None


def _quoted_items(items: str) -> str:
    """'individual or company' -> "'individual' or 'company'": plain words in a list of values
    are values once quoted (the list reading leaves plain words as prose)."""
    return re.sub(
        r"(?<!['\w])([A-Za-z][\w\-]*)(?!['\w])",
        lambda m: m.group(1) if m.group(1).lower() in ("or", "and") else f"'{m.group(1)}'",
        items,
    )


def _required_value_list(t: str) -> str | None:
    """'A reason must be given: offboarding, contract_end or security_incident' -> 'The reason is
    required; the reason must be one of offboarding, contract_end or security_incident.'"""
    m = _NEEDS_ONE_OF.match(t)
    if m:
        thing = _bare_thing(m.group("arg"))
        return (
            f"{m.group('every').capitalize()} {m.group('subj')} must include the {thing}; the "
            f"{thing} must be one of {_quoted_items(m.group('items'))}."
        )
    m = _REQUIRED_FROM_LIST.match(t)
    if not m:
        return None
    head = m.group("head").strip()
    required = _required_phrasing(head)
    if required is None:
        return None
    thing = _REQUIRED_THING.search(required)
    if thing is None:
        return None
    return (
        f"{required.rstrip('.')}; the {thing.group('thing')} must be one of "
        f"{_quoted_items(m.group('items'))}."
    )


_REQUIRED_THING = re.compile(
    r"(?:must include the|^The)\s+(?P<thing>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3}?)"
    r"(?:\s+is required)?\.?$",
    re.I,
)


def _required_phrasing(t: str) -> str | None:
    """The sentence the required-argument reading knows for one of the phrasings above, or None."""
    m = _IMPERATIVE_REFERENCE.match(t)
    if m and not _HEADED_REFERENCE.match(t):  # ('credits: cite a ticket id …' is read there)
        arg = m.group("arg")
        if not (
            m.group("always")
            or m.group("every")
            or _ENDS_IN_REFERENCE.search(re.sub(r"\s*\([^)]*\)$", "", arg))
        ):
            return None
        verb = _GIVING_VERBS[m.group("verb").lower()]
        subject = (
            f"{m.group('every').capitalize()} {m.group('subj')} must"
            if m.group("every")
            else f"{m.group('head')} must"
            if m.group("head")
            else "Must"
        )
        always = " always" if m.group("always") else ""
        return f"{subject}{always} {verb} {arg}" + ("" if arg.endswith(".") else ".")
    headed = _HEADED_TERSE_REQUIRED.match(t)
    if headed:
        # 'Port-out: port_pin required on the request': the heading names the act it applies to
        body = _TERSE_REQUIRED.match(headed.group("body"))
        if (
            body
            # every word of the heading must be one the subject reading keeps ('Port-out' lost
            # its 'out' and covered port-ins)
            and not any(w.lower() in STOPWORDS for w in re.split(r"[\s\-]+", headed.group("head")))
            and not _NOT_REQUIRED.match(body.group("arg"))
            and _IDENTIFIER.fullmatch(body.group("arg").strip())
            and (
                not body.group("rest").strip(" .")
                or _ON_THE_REQUEST.fullmatch(body.group("rest").strip())
            )
        ):
            return f"Every {headed.group('head')} must include the {body.group('arg').strip()}."
    m = _TERSE_REQUIRED.match(t)
    if m and not _NOT_REQUIRED.match(m.group("arg")):
        rest = m.group("rest")
        gloss = re.match(r"\s*\((?P<gloss>[^)]*)\)\s*\.?\s*$", rest)
        if gloss and _IDENTIFIER.fullmatch(m.group("arg").strip()):
            # 'payout_reference required (AP invoice or PO no.)': the bracket says what the named
            # argument holds; kept as a remark the coverage reads ('(i.e. …)')
            return f"{m.group('arg')} is required (that is, {gloss.group('gloss')})."
        return _required_with_scope(m.group("arg"), rest)
    m = _MUST_BE_GIVEN.match(t)
    if m:
        return _required_with_scope(m.group("arg"), m.group("rest"))
    m = _MAKE_SURE_GIVEN.search(t)
    if m:
        why = m.group("why")
        if why:
            wants = _WANTS_IT.match(why)
            said = {stem(w) for w in words(wants.group("what"))} - {"file"} if wants else None
            named = {stem(w) for w in words(m.group("arg").replace("_", " "))}
            if not said or not said <= named | {stem(w) for w in STOPWORDS}:
                return None
        return _required_with_scope(m.group("arg"), m.group("rest"))
    m = _ALWAYS_BOUND.match(t)
    if m:
        return f"{m.group('subj')} must have {m.group('rest')}"
    m = _MADE_WITH.match(t)
    if m:
        return f"{m.group('subj')} {m.group('act')} must have {m.group('rest')}"
    return None


def _exemption(t: str) -> str | None:
    """'No ticket needed for password resets' -> 'Password resets are allowed.', or None."""
    for rx in _EXEMPTIONS:
        m = rx.match(t)
        if m and not _CONDITION_WORDS.search(m.group("subj") + " " + m.group("arg")):
            subj = m.group("subj")
            return f"{subj[0].upper()}{subj[1:]} are allowed."
    return None


def _required_phrasings(t: str) -> str:
    """A rule written in one of the phrasings above, rewritten as the required-argument reading
    knows it; any other rule as written."""
    if not REVIEW.search(t):
        exempt = _exemption(t)
        if exempt is not None:
            return exempt
    said = _MUST_SAY.match(t)
    head = words(said.group("arg")) if said else []
    if (
        said
        and head
        and stem(head[-1]) in _TEXT_FIELDS
        and not REVIEW.search(t + " ")
        and not NEGATION.search(t)
    ):
        return (
            f"The {_bare_thing(said.group('arg'))} is required (it must say {said.group('what')})."
        )
    # ('the approver must be set' names a field holding a person, not a person's approval; 'the PO
    # no.' abbreviates a number, no negation)
    # ('ticket # mandatory': the number sign is read as the word first)
    t = _NUMBER_SIGN.sub(lambda m: " numbers" if m.group(1) else " number", t)
    plain = _NUMBER_ABBREVIATION.sub(" number", re.sub(r"\bapprovers?\b(?!\s+approval)", "", t))
    if REVIEW.search(plain) or NEGATION.search(plain):
        return t
    listed = _required_value_list(t)
    if listed is not None:
        return listed
    return _required_phrasing(t) or t


_REGION_MEMBERS = re.compile(
    r"\b(?:an?|any|one)\s+(EU|EEA)\s+(?:member\s+(?:states?|countr(?:y|ies))|countr(?:y|ies))\b"
    r"|\b(EU|EEA)\s+member\s+(?:states|countries)\b",
    re.I,
)
_AT_SLASH = re.compile(r"\bat\s*/\s*(above|over|below|under)\b", re.I)


_SLASHED_ONLY = re.compile(
    r"(?<![\w/|])[A-Za-z0-9][\w\-]*(?:\s+[/|]\s+[A-Za-z0-9][\w\-]*)+(?=\s+only\s*[.;]?\s*$)",
    re.I,
)


# ('Freeze only for: court_order | fraud')
_SLASHED_AFTER_ONLY = re.compile(
    r"(?<=\bonly\s)(?:(?:for|to|in|via|as)\s*)?:?\s*[A-Za-z0-9][\w\-]*"
    r"(?:\s+[/|]\s+[A-Za-z0-9][\w\-]*)+(?=\s*[.;]?\s*$)",
    re.I,
)


@lru_cache(maxsize=8192)
def _normalise(text: str) -> str:
    t = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    t = (
        t.replace("\u00a0", " ")
        .replace("\u202f", " ")
        .replace("\u2013", "-")
        .replace("\u2014", " - ")
    )
    # '(CHG-xxxxx)', '(format INV-####)': a format hint shows what a value looks like; it is not
    # a list of the values allowed.
    t = _FORMAT_HINT.sub("", t)
    t = re.sub(r"\s+", " ", t).strip()
    # 'POs at/above $10k': at or above the bound, inclusive as 'at least' is (read as 'above',
    # exactly $10k had passed a review threshold)
    t = _AT_SLASH.sub(
        lambda m: "at least" if m.group(1).lower() in ("above", "over") else "at most", t
    )
    t = _required_phrasings(_plus_before_requirement(t))
    # 'US, CA, MX or an EU member state', 'EU countries', 'an EEA country': the region's members,
    # which the place vocabulary reads as the region's code (a list holding the phrase was not
    # read at all)
    t = _REGION_MEMBERS.sub(lambda m: (m.group(1) or m.group(2)).upper(), t)
    # 'Where the refund amount is at least 750 USD, the refund needs …': a sentence opened by
    # 'Where' and a comma states its condition first, as 'If' does (read as the subject, the
    # bound had become a floor: 'below 750' went to review and 900 passed)
    t = _WHERE_OPENS.sub("If ", t)
    # 'A credit may be issued only where it references a support ticket or the invoice number to
    # which it relates': the act is allowed only with the reference, which is the obligation
    # 'A credit issued must reference …' (the relation to the credit is what every reference
    # states; no request shows it otherwise)
    # 'credits: cite a ticket id or invoice no.', 'Payouts: reference the invoice number': a
    # heading and a bare verb of reference state the obligation 'Credits must cite …'
    t = _HEADED_REFERENCE.sub(
        lambda m: (
            f"{m.group('subj')} must "
            + re.sub(r"\b(?:no|nr)\.?$", "number", m.group("rest"), flags=re.I)
        ),  # 'invoice no.'
        t,
    )
    t = _ONLY_WHERE_REFERENCES.sub(
        lambda m: (
            f"{m.group('subj')} {m.group('verb')} must "
            f"{_REFERENCE_VERBS[m.group('req').lower()]} {m.group('rest')}."
        ),
        t,
    )
    # 'Accounts on credit hold: no new orders, no exceptions', '… are frozen. No exceptions.':
    # the emphasis says the rule before it has no exception, which is what it says already
    # (read as a prohibition of 'exceptions', it had sent every request to review)
    emphasis = _NO_EXCEPTIONS.search(t)
    if emphasis and emphasis.start() > 0 and NORMATIVE.search(t[: emphasis.start()]):
        t = t[: emphasis.start()].rstrip(" ,;:-") + "."
    # Staff shorthand: 'w/o a TAA' and 'w/out a TAA' are 'without a TAA' (a condition, read as
    # one; 'w/out' had been read as a subject word and the condition dropped), 'w/in' is
    # 'within', 'w/ DVM
    # signature' is 'with …'; 'permit #', 'lot #s' are numbers; ' & ' joins like 'and'; 'PM +
    # finance dir approval' after a requirement joins what it requires (a '+' in a sum stays:
    # _RELATIVE keeps it unaccounted).
    t = _WITHOUT_SHORT.sub("without", t)
    t = _WITHIN_SHORT.sub("within", t)
    t = _WITH_SHORT.sub("with", t)
    t = _NUMBER_SIGN.sub(lambda m: " numbers" if m.group(1) else " number", t)
    t = _glossed_lists(t)
    # ... but not inside a proper name ('Legal & General', 'Procter & Gamble'): split, one
    # listed firm became two values and the firm itself was 'not listed'
    t = re.sub(r"(?<=\w) & (?=\w)", " and ", t)
    # (jred24) 'Freeze reason: court_order / fraud only', 'lock types: temporary | permanent
    # only': a spaced slash or bar between the items of a closing 'only' list separates them
    # (read as words, 'fraud' joined the subject: "Deny unless an argument is court_order")
    t = _SLASHED_ONLY.sub(lambda m: re.sub(r"\s+[/|]\s+", ", ", m.group(0)), t)
    t = _SLASHED_AFTER_ONLY.sub(lambda m: re.sub(r"\s+[/|]\s+", ", ", m.group(0)), t)
    t = _joined_by_plus(t)
    # 'the mfr model no.', 'the matter no.': after a noun, 'no.' abbreviates 'number' (never a
    # negation that would turn 'must include the model no.' into a prohibition)
    t = _NUMBER_ABBREVIATION.sub(" number", t)
    # 'need shift supervisor OK', 'needs the lead's go-ahead': an informal word for an approval
    # (read as one, so the review it asks for is made; never the permission 'OK' would read as)
    # Comparison signs are boundary phrases ('≥ $25,000' is 'at least'), arrows are the verb they
    # stand for ('refunds >500 EUR -> manager'), and the ways staff say a person decides are the
    # one phrase the review reading knows ('Finance must approve X' is 'X must be approved by
    # Finance'). Each rewrite keeps every word it does not itself stand for.
    t = _effect_phrases(_arrows(_terse_effects(_comparison_signs(_terse_caps(t)))))
    t = _DEFINITION.sub(r"\g<what> \g<then>", t)
    t = _INFORMAL_APPROVAL.sub(lambda m: m.group("head") + "approval", t)
    # 'a student whose SAP status is Suspended' is 'a student with SAP status Suspended': the
    # state a status argument holds
    t = _WHOSE_STATE.sub(r"with \g<what> \g<value>", t)
    # 'Destination country must be US or CA', 'may only be US or CA', 'Credits in USD only':
    # a closed list of codes, places or identifiers a thing must be is the allow-list the list
    # reading knows ('must be one of US, CA'); plain words ('encrypted or hashed') are left as
    # written.
    # 'Permitted carriers: UPS, TNT.', 'Instance types allowed: t3.*, m5.large. Nothing else.',
    # 'The following roles are blocked: OrgOwner, BillingAdmin.', 'Stock moves must be between
    # warehouses on the approved list: WH-01, WH-02': a closed list under a heading is the list
    # reading's 'must (not) be one of' on the kind it names; plain words stay as written.
    t = _headed_list(t)
    t = _LIST_ONLY_AFTER.sub(_only_before_list, t)
    t = _MUST_BE_LIST.sub(_must_be_one_of, t)
    # 'Returns accepted within 30 days of delivery only': 'only' closing a phrase restricts it
    # as it would before it ('only within 30 days of delivery'), the place the readings know
    # ('via Courier only' is read where it is);
    # 'conversions only between USD, EUR and GBP' names the currencies allowed ('only in …')
    t = _ONLY_CLOSING.sub(r"only \g<prep> \g<tail>", t)
    t = _ONLY_BETWEEN.sub(_only_between, t)
    # 'cant', 'dont', 'mustnt': contractions written without their apostrophe.
    t = _BARE_CONTRACTION.sub(lambda m: m.group(1) + "'t", t)
    # 'Customer data may not leave the EU' is 'must stay in the EU': an allow-list of the place
    # (read as a deny-list of the EU before, it denied exports to Germany and approved the US)
    t = _NOT_LEAVE_PLACE.sub(_stay_in, t)
    # Comparatives of size read through the boundary table: 'heavier than 30 kg' is 'more than'.
    # 'must stay between 18 and 24 °C': a floor and a cap (only in the predicate, where it limits)
    t = _BETWEEN.sub(
        lambda m: (
            f"{m.group(1)} at least {m.group(2)}{m.group(4) or ''} and at most {m.group(3)}"
            f"{m.group(4) or ''}"
        ),
        t,
    )
    t = _NO_OLDER.sub(lambda m: f"aged {m.group(1)} {_AGE_WORDS[m.group(2).lower()]} than", t)
    # 'deeper than 1.5 m': a size comparative before metres reads a length, never a million
    t = re.sub(
        r"\b(deeper|higher|taller|longer|wider|shallower|lower|shorter)\s+than\s+(\d[\d.,]*)\s?m\b(?!/)",
        r"\1 than \2 metres",
        t,
        flags=re.I,
    )
    # jred32: 'altitude max 120 m (altitude_m)', 'reach must not exceed 40 m', 'timeout max 30m
    # (sensor_timeout_min)': a bare 'm' is metres or minutes where the rule says which (unitreads)
    t = unitreads.bare_m_in_unit(t)
    t = _COMPARATIVE.sub(lambda m: _COMPARATIVES[m.group(1).lower()], t)
    # '21 or older', '65 or younger': an age, bounded like 'or more' / 'or less'.
    return _AGE_TAIL.sub(lambda m: f"aged {m.group(1)} or {_AGE_WORDS[m.group(2).lower()]}", t)


_LIST_ITEM = r"[A-Za-z](?:[\w\-/]|\.(?=\w))*"  # a full stop inside a name, never after it
_LIST_OF_ITEMS = (
    r"(?P<items>"
    + _LIST_ITEM
    + r"(?:\s*,\s*"
    + _LIST_ITEM
    + r")*(?:\s*,?\s+or\s+"
    + _LIST_ITEM
    + r")?)"
)
_MUST_BE_LIST = re.compile(
    r"\b(?:(?P<must>must|shall|should|has to|needs? to)\s+be|may\s+only\s+be)\s+(?!one\s+of\b)"
    + _LIST_OF_ITEMS
    + r"\s*(?P<end>\.?\s*$|;)",
    re.I,
)
_LIST_ONLY_AFTER = re.compile(
    r"^(?P<subject>[A-Za-z][\w\- ]{0,60}?)\s+in\s+"
    + _LIST_OF_ITEMS
    + r"\s+only\s*(?P<end>\.?\s*$|;)",
    re.I,
)


# A member of a headed closed list: a code, an identifier, a wildcard ('t3.*') or a scope
# ('admin:org'); a full stop inside a name, never after it.
_HEADED_ITEM = r"[A-Za-z0-9](?:[\w\-/:*]|\.(?=[\w*]))*"
_HEADED_ITEMS = (
    r"(?P<items>" + _HEADED_ITEM + r"(?:\s*,\s*(?:(?:or|and)\s+)?" + _HEADED_ITEM + r")*"
    r"(?:\s*,?\s+(?:or|and)\s+" + _HEADED_ITEM + r")?)"
)
_ELSE_TAIL = (
    r"(?:\s*[.;]\s*(?:nothing|anything|everything)\s+else"
    # (jred24) 'Anything else -> decline.' reaches here as 'Anything else are not allowed.'
    r"(?:\s+(?:is|are)\s+(?:refused|rejected|denied|blocked|forbidden|not\s+allowed|"
    r"not\s+permitted))?)?"
)
_HEADED_ALLOW = re.compile(
    # (jred24) a bullet before the heading ('- allowed roles: viewer, editor') heads it as well
    r"^(?:[-*\u2022]\s+)?(?:(?P<adj>permitted|allowed|approved|accepted|supported|grantable|valid)\s+"
    r"(?P<kind>[A-Za-z][\w\- ]{0,40}?)|(?P<kind2>[A-Za-z][\w\- ]{0,40}?)\s+"
    r"(?:allowed|permitted|accepted))\s*(?::|\s-\s)\s*"
    + _HEADED_ITEMS
    + r"(?:\s+only)?"
    # 'Allowed carriers: UPS, TNT for parcels over 30 kg': the list under a condition
    + r"(?:\s+for\s+(?P<cond>[^.;:]+?))?"
    + _ELSE_TAIL
    + r"\s*(?P<end>[.;]|$)",
    re.I,
)
_HEADED_DENY = re.compile(
    r"^(?:[-*\u2022]\s+)?(?:(?:blocked|forbidden|banned|prohibited|disallowed)\s+(?P<kind>[A-Za-z][\w\- ]{0,40}?)"
    r"|the\s+following\s+(?P<kind2>[A-Za-z][\w\- ]{0,40}?)\s+are\s+"
    r"(?:blocked|forbidden|banned|prohibited|not\s+allowed|not\s+permitted))\s*:\s*"
    + _HEADED_ITEMS
    + r"\s*(?P<end>[.;]|$)",
    re.I,
)
_BETWEEN_LISTED = re.compile(
    r"^(?P<subject>[A-Za-z][\w\- ]{0,60}?)\s+(?:must|may\s+only|can\s+only|shall)\s+"
    r"(?:be|go|move|flow|happen)\s+(?:only\s+)?between\s+(?P<kind>[A-Za-z][\w\-]*)\s+"
    r"on\s+the\s+(?:approved|allowed|permitted)\s+list\s*:\s*"
    + _HEADED_ITEMS
    + r"\s*(?P<end>[.;]|$)",
    re.I,
)


# 'Backups may go to: S3-EU or GCS-EU; nowhere else.': the list with its closing 'nowhere else'
# is 'may only go to S3-EU or GCS-EU'; 'Ship with nothing but UPS or TNT' is 'only UPS or TNT'.
_ELSEWHERE = re.compile(
    r"^(?P<subject>[A-Za-z][\w\- ]{0,60}?)\s+(?:may|can|must|should)\s+(?P<verb>go|be\s+sent|ship|move|run)"
    r"\s+(?P<prep>to|via|by|in|on)\s*:?\s*"
    + _HEADED_ITEMS
    + r"\s*[;,]\s*(?:and\s+)?(?:nowhere|nothing)\s+else\s*(?P<end>[.;]|$)",
    re.I,
)
_NOTHING_BUT = re.compile(
    r"^(?P<head>[A-Za-z][\w\- ]{0,60}?)\s+nothing\s+but\s+" + _HEADED_ITEMS + r"\s*(?P<end>[.;]|$)",
    re.I,
)


def _headed_members(items: str) -> list[str] | None:
    """The members of a headed list when every one is closed (a code, an identifier, a wildcard
    or a scope); None for plain words ('open, pending, closed'), which may be states."""
    parts = [p for p in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", items) if p]
    for p in parts:
        if _closed_items(p) is not None and not re.fullmatch(r"[A-Z][a-z]+", p):
            continue
        if re.fullmatch(r"[a-z][\w\-]*:[\w\-:*]+", p):  # a scope: 'admin:org'
            continue
        if re.fullmatch(r"[A-Za-z0-9][\w\-]*(?:\.[\w\-]+)*\.\*", p):  # a wildcard: 't3.*'
            continue
        if re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+", p):  # CamelCase: 'OrgOwner'
            continue
        return None
    return parts or None


def _headed_list(t: str) -> str:
    for pattern, verb in ((_HEADED_ALLOW, "must be one of"), (_HEADED_DENY, "must not be")):
        m = pattern.match(t)
        if m is None:
            continue
        parts = _headed_members(m.group("items"))
        if parts is None:
            return t
        kind = (m.group("kind") or m.group("kind2")).strip()
        if NEGATION.search(kind):
            # 'Not allowed: RU, BY', 'Countries not permitted: RU, BY': the heading is negated,
            # the list is what is refused (rewritten as 'Not must be one of RU or BY', only the
            # listed countries were approved); the prose reading reads it
            return t
        listed = ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]
        cond = m.groupdict().get("cond")
        if cond:
            # the condition leads, as the conditional list reading knows it ('For parcels over
            # 30 kg, carriers must be one of …'); a condition it does not read stays unread
            return f"For {cond}, {kind.lower()} {verb} {listed}{m.group('end')}{t[m.end() :]}"
        return f"{kind[0].upper()}{kind[1:]} {verb} {listed}{m.group('end')}{t[m.end() :]}"
    m = _ELSEWHERE.match(t)
    if m is not None and _headed_members(m.group("items")) is not None:
        verb = re.sub(r"\s+", " ", m.group("verb"))
        rest = t[m.end() :]
        return f"{m.group('subject')} may only {verb} {m.group('prep')} {m.group('items')}{m.group('end')}{rest}"
    m = _NOTHING_BUT.match(t)
    if m is not None and _headed_members(m.group("items")) is not None:
        return f"{m.group('head')} only {m.group('items')}{m.group('end')}{t[m.end() :]}"
    m = _BETWEEN_LISTED.match(t)
    if m is not None:
        parts = _headed_members(m.group("items"))
        if parts is not None:
            listed = ", ".join(parts)
            return f"{m.group('subject')} {m.group('kind')} must be one of {listed}{m.group('end')}{t[m.end() :]}"
    return t


_ONLY_CLOSING = re.compile(
    r"\b(?P<prep>within|to|into|in|from|on|at)\s+(?P<tail>(?:(?!\bonly\b)[^,;.:()])+?)"
    r"\s+only\b(?=\s*(?:[.;]|$))",
    re.I,
)
_ONLY_BETWEEN = re.compile(
    r"\bonly\s+between\s+" + _LIST_OF_ITEMS.replace("or\\s+", "(?:or|and)\\s+"), re.I
)


def _only_between(m: re.Match[str]) -> str:
    parts = _closed_items(m.group("items").replace(" and ", " or "))
    if parts is None or not all(p.upper() in CURRENCY_CODES for p in parts):
        return m.group(0)  # only currencies are converted 'between' a list
    return f"only in {', '.join(parts)}"


def _closed_items(items: str) -> list[str] | None:
    """The items of a list when every one is a code, a place or an identifier, else None."""
    parts = [p for p in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", items.strip()) if p]
    closed = all(
        p.upper() in CURRENCY_CODES
        and p.isupper()
        or _place(p)
        or re.fullmatch(r"[A-Z][A-Z0-9_]{1,15}", p)
        or (_LITERAL.fullmatch(p) and re.search(r"[\-_./\d]", p))
        for p in parts
    )
    return parts if parts and closed else None


def _must_be_one_of(m: re.Match[str]) -> str:
    parts = _closed_items(m.group("items"))
    if parts is None:
        return m.group(0)
    return f"{m.group('must') or 'must'} be one of {', '.join(parts)}{m.group('end')}"


def _only_before_list(m: re.Match[str]) -> str:
    parts = _closed_items(m.group("items"))
    if parts is None:
        return m.group(0)
    return f"{m.group('subject')} only in {' or '.join(parts)}{m.group('end')}"


# 'social security numbers (ssn), dates of birth (dob) and home addresses (home_address)': a list
# whose every member is a gloss and the name it stands for is the list of the names (the gloss is
# read by the name: a name no check reads stays unaccounted, so the rule stays partly understood).
_GLOSSED_NAME = re.compile(r"\((?P<id>[a-z][a-z0-9]*(?:_[a-z0-9]+)*)\)")
_LIST_JOIN = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+)\s*$", re.I)


def _glossed_lists(t: str) -> str:
    if t.count("(") < 2:
        return t
    items = []
    for m in _GLOSSED_NAME.finditer(t):
        start = _gloss_start(t, m.start())
        if start < m.start():
            items.append((start, m.end(), m.group("id")))
    groups: list[list[tuple[int, int, str]]] = []
    for item in items:
        if groups and _LIST_JOIN.fullmatch(" " + t[groups[-1][-1][1] : item[0]]):
            groups[-1].append(item)
        else:
            groups.append([item])
    for group in reversed(groups):
        if len(group) < 2:
            continue
        for start, end, name in reversed(group):
            t = t[:start] + name + t[end:]
    return t


_NO_EXCEPTIONS = re.compile(
    r"(?:(?:\s*[,;:.!]\s*|\s+-\s+)(?:with\s+)?no\s+exceptions?(?:\s+(?:allowed|permitted|"
    r"granted|made|whatsoever))?|\s*,?\s+without\s+exceptions?)\s*[.!]?\s*$",
    re.I,
)
_WITHOUT_SHORT = re.compile(r"(?<![\w/])(?:w/o|w/out|w/o/)(?![\w/])", re.I)
_WITHIN_SHORT = re.compile(r"(?<![\w/])w/in(?![\w/])", re.I)


# 'Loan amt over $766,550 = jumbo; needs chief credit officer sign-off', 'POs over 25,000 EUR =
# strategic buys; need …': the name given to what the subject picks is a label, and the clause
# after it, with no subject of its own, is said of that subject. The label is a few plain words
# (no condition marker, no number, no negation), so dropping it drops no restriction.
_DEFINITION = re.compile(
    r"(?P<what>^[^=;:.]*?\S)\s*=\s*(?!.*\b(?:unless|if|when|except|only|not|no|without|or)\b"
    r"[^;]*;)(?:an?\s+|the\s+)?[A-Za-z][A-Za-z\-]*(?:\s+[A-Za-z][A-Za-z\-]*){0,2}\s*;\s*"
    r"(?P<then>(?:needs?|requires?|must|should|shall|goes|go|is|are|gets?|has to|have to)\b)",
    re.I,
)


# '≥ $25,000', '>= 500 EUR', '<75%': a sign before a number is a phrase of the boundary table
# (boundaries.py): '≥'/'>=' 'at least', '≤'/'<=' 'at most', '>' 'over', '<' 'under'. ('>=' had
# been read as 'above', which left the bound itself out of a 'Refunds >= 500 EUR need …' rule.)
_SIGN = re.compile(r"(?<![<>=\-])(?P<sign>≥|>=|≤|<=|=<|>|<)\s*(?=[$€£¥]?\s?[+]?\d)")
_SIGN_WORDS = {"≥": "at least", ">=": "at least", "≤": "at most", "<=": "at most", "=<": "at most"}


def _comparison_signs(t: str) -> str:
    if not any(c in t for c in "<>≤≥"):
        return t
    out = _SIGN.sub(
        lambda m: (
            " "
            + _SIGN_WORDS.get(m.group("sign"), "over" if m.group("sign") == ">" else "under")
            + " "
        ),
        t,
    )
    return re.sub(r"\s+", " ", out).strip()


# 'refunds >500 EUR -> manager', 'PII exports → need DPO approval', 'over 20 seats => finance':
# an arrow stands for the verb it points with. Before a verb or modal it is dropped; before a
# refusal it is 'are not allowed'; before a permission 'are'; otherwise it is 'need' (what
# follows is then read as any requirement is: a person asks for review, a thing is required,
# an unread word stays unaccounted).
_ARROW = re.compile(r"\s*(?:-+>|→|⇒|=>)\s*")
_ARROW_VERB = re.compile(
    r"(?:needs?|needed|requires?|required|go|goes|must|should|shall|is|are|gets?|escalat\w*|"
    r"route[sd]?|send|sends|sent|has to|have to)\b",
    re.I,
)
_ARROW_REFUSAL = re.compile(
    r"(?:den(?:y|ied)|block(?:ed)?|reject(?:ed)?|refuse[sd]?|declined?|forbidden|prohibited|"
    r"not allowed|not permitted|no-go)\b",
    re.I,
)
_ARROW_PERMISSION = re.compile(r"(?:ok|okay|fine|allowed|permitted)\b(?=\s*(?:[.;,]|$))", re.I)


def _arrows(t: str) -> str:
    if not any(a in t for a in ("->", "→", "⇒", "=>")):
        return t
    out, last = [], 0
    for m in _ARROW.finditer(t):
        if m.start() == 0:
            continue
        rest = t[m.end() :]
        out.append(t[last : m.start()])
        last = m.end()
        refusal = _ARROW_REFUSAL.match(rest)
        if _ARROW_VERB.match(rest):
            out.append(" ")
        elif refusal:
            out.append(" are not allowed")
            last = m.end() + refusal.end()
        elif _ARROW_PERMISSION.match(rest):
            out.append(" are ")
        else:
            out.append(" need ")
            # '-> ticket in dpo_ticket required': the arrow already says it is needed
            said = re.match(
                r"(?P<what>[^.;>]*?)\s+(?:required|mandatory|needed)\s*(?=[.;]|$)", rest
            )
            if said and said.group("what").strip():
                out.append(said.group("what"))
                last = m.end() + said.end()
    out.append(t[last:])
    return re.sub(r"\s+", " ", "".join(out)).strip()


# Caps and floors written as a heading and a number, with no verb, said again as the sentence the
# numeric reading knows. Each keeps every word it does not itself stand for:
# - 'Max order size: 500,000 per order.' -> 'Order size must not exceed 500,000.' (the 'per'
#   thing is the measure's own noun: it says nothing more); 'Min instances for prod services: 2.'
#   -> 'Min 2 instances for prod services.'; 'Max shares per order: 10,000.' -> 'Max 10,000
#   shares per order.'; 'Row limit per export: 1,000,000.' -> 'Max 1,000,000 rows per export.'
#   (a counted noun goes after its number, where the count reading finds it);
# - 'Per-refund limit for agents: 250 USD.': 'for agents' names who every request comes from
#   (an agent): it narrows nothing, so the heading is read without it;
# - 'ninety (90) days': a number written in words and again in figures is the figures;
# - 'API keys must have an expiry of 90 days or less', 'Service-account keys expire in 30 days
#   or less': the key's expiry is the measure -> '… expiry must be at most 90 days'.
_COUNTED = (
    r"(?:rows?|records?|users?|accounts?|seats?|instances?|replicas?|recipients?|items?|"
    r"lines?|shares?|devices?|files?|units?|nodes?|members?)"
)
_CAP_NUMBER = r"(?P<q>[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?)"
_CAP_UNIT = r"(?:\s*(?P<unit>%|(?-i:[A-Z]{3})\b|[a-z]+))?"
_HEADED_MAX = re.compile(
    # the measure's words never hold 'per' ('Max users per seat plan: 10' is a total a plan
    # keeps across requests, not read here)
    r"^(?P<kind>max(?:imum)?|min(?:imum)?)\.?\s+"
    r"(?P<measure>(?!per\b)[A-Za-z][\w\-]*(?:\s+(?!per\b)[A-Za-z][\w\-]*){0,4}?)"
    r"(?:\s+per\s+(?P<per1>[a-z]+))?\s*:\s*"
    + _CAP_NUMBER
    + _CAP_UNIT
    + r"(?:\s+per\s+(?P<per2>[a-z]+))?\s*\.?$",
    re.I,
)
_HEADED_LIMIT = re.compile(
    r"^(?P<measure>" + _COUNTED + r")\s+(?P<kind>limit|cap|ceiling|floor)"
    r"(?:\s+per\s+(?P<per1>[a-z]+))?\s*:\s*"
    + _CAP_NUMBER
    + r"(?:\s+per\s+(?P<per2>[a-z]+))?\s*\.?$",
    re.I,
)
_FOR_AGENTS_HEADING = re.compile(
    r"^(?P<head>[^:;.]*?\b(?:limit|cap|max(?:imum)?|min(?:imum)?|ceiling))\s+for\s+"
    r"(?:(?:all|our|ai)\s+)?agents?\s*(?=:)",
    re.I,
)
_UNITS_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS_WORDS = {
    w: 10 * i
    for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if w != "_"
}
_SPELLED_TWICE = re.compile(
    r"\b(?P<words>(?:" + "|".join([*_UNITS_WORDS, *_TENS_WORDS, "hundred", "thousand"]) + r")"
    r"(?:[\s-](?:and[\s-])?(?:"
    + "|".join([*_UNITS_WORDS, *_TENS_WORDS, "hundred", "thousand"])
    + r")){0,4})\s*\((?P<n>\d[\d,]*)\)",
    re.I,
)


def _spelled_value(text: str) -> int | None:
    """'ninety' 90, 'twenty-five' 25, 'one hundred and twenty' 120; None when not a number."""
    total, part = 0, 0
    for w in re.split(r"[\s-]+", text.lower()):
        if w == "and":
            continue
        if w in _UNITS_WORDS:
            part += _UNITS_WORDS[w]
        elif w in _TENS_WORDS:
            part += _TENS_WORDS[w]
        elif w == "hundred":
            part = (part or 1) * 100
        elif w == "thousand":
            total, part = total + (part or 1) * 1000, 0
        else:
            return None
    return total + part


def _figure(raw: str) -> int:
    return int(raw.replace(",", ""))


# '$250/refund', '$200/night', '50 USD/day': a slash glued to an amount of money is 'per' (the
# amount was not found at all before, so '… $200/night or less' was understood without its
# bound and approved 201 a night); a rate of another unit ('50 MME/day', 'req/s') and names
# ('pkg-line-1 / pkg-line-2') are read where they are
_SLASH_PER = re.compile(
    r"(?P<a>[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?"
    r"|\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?\s?(?-i:(?:"
    + "|".join(sorted(CURRENCY_CODES))
    + r")\b))/(?=[a-z]{3,}\b)"
)
# '$200 per night or less': the bound after the rate, said before it ('up to $200 per night')
_RATE_OR_LESS = re.compile(
    r"(?P<a>[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?"
    r"|\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?\s?(?-i:[A-Z]{3})\b)"
    r"\s+per\s+(?P<u>[a-z]{3,})\s+or\s+(?P<b>less|under|below|lower|more|over|above|higher)\b",
    re.I,
)
_OR_LESS_WORDS = frozenset({"less", "under", "below", "lower"})
# '90d max', '24h or less': a number and a day or hour letter
_COMPACT_DURATION = re.compile(r"(?<![\w.,])(?P<n>\d+)\s?(?P<u>d|h|hrs?)(?![\w/])")
_EXPIRY_OR_LESS = re.compile(
    r"^(?P<subj>[^:;.]*?)\s+(?:must\s+(?:have|carry)\s+(?:an?\s+)?(?P<m>expiry|lifetime|ttl|validity)"
    r"\s+of|(?:must\s+)?expire\s+(?:in|after))\s+(?P<q>\d[\d,]*)\s+(?P<unit>days?|hours?|weeks?|"
    r"months?|minutes?)\s+or\s+(?:less|fewer|sooner)\s*\.?$",
    re.I,
)


# 'Exports: 50k rows max.', 'Replicas: 2 min.': the bound word after the number, at the end of a
# headed cap, said before it ('max 50k rows'), where the cap reading finds it
# (a counted noun or a bare number only: 'Session duration: 12 hours max' is read as written, and
# 'Replicas: 2 min' is no two minutes)
_BOUND_AFTER = re.compile(
    r"(?<=:\s)(?P<q>\d[\d,]*(?:\.\d+)?(?:\s?[kKmM](?![a-z]))?(?:\s" + _COUNTED + r")?)"
    r"\s+(?P<b>max(?:imum)?|min(?:imum)?)\s*(?=\.?$)",
    re.I,
)


def _terse_caps(t: str) -> str:
    t = _BOUND_AFTER.sub(lambda m: f"{m.group('b')} {m.group('q')}", t)
    t = _SPELLED_TWICE.sub(
        lambda m: (
            m.group("n")
            if _spelled_value(m.group("words")) == _figure(m.group("n"))
            else m.group(0)
        ),
        t,
    )
    t = _SLASH_PER.sub(lambda m: f"{m.group('a')} per ", t)
    t = _RATE_OR_LESS.sub(
        lambda m: (
            f"{'up to' if m.group('b').lower() in _OR_LESS_WORDS else 'at least'} "
            f"{m.group('a')} per {m.group('u')}"
        ),
        t,
    )
    t = _COMPACT_DURATION.sub(
        lambda m: f"{m.group('n')} {'days' if m.group('u') == 'd' else 'hours'}", t
    )
    t = _FOR_AGENTS_HEADING.sub(lambda m: m.group("head"), t)
    m = _EXPIRY_OR_LESS.match(t)
    if m:
        what = (m.group("m") or "expiry").lower()
        return f"{m.group('subj')} {what} must be at most {m.group('q')} {m.group('unit')}."
    m = _HEADED_LIMIT.match(t)
    if m:
        noun = m.group("measure")
        noun = noun if noun.lower().endswith("s") else noun + "s"
        per = m.group("per1") or m.group("per2")
        bound = "Min" if m.group("kind").lower() == "floor" else "Max"
        return f"{bound} {m.group('q')} {noun}" + (f" per {per}" if per else "") + "."
    m = _HEADED_MAX.match(t)
    if not m or (m.group("per1") and m.group("per2")):
        return t
    measure, unit = m.group("measure"), m.group("unit")
    per = m.group("per1") or m.group("per2")
    floor = m.group("kind").lower().startswith("min")
    head = re.match(_COUNTED + r"\b", measure, re.I)
    if unit is None and head:
        # a counted noun: after its number ('Min 2 instances for prod services')
        return (
            f"{'Min' if floor else 'Max'} {m.group('q')} {measure}"
            + (f" per {per}" if per else "")
            + "."
        )
    if per and stem(per) in {stem(w) for w in words(measure)}:
        per = None  # 'Max order size: … per order': the order is the measure's own
    verb = "must be at least" if floor else "must not exceed"
    said = f"{measure[0].upper()}{measure[1:]} {verb} {m.group('q')}" + (f" {unit}" if unit else "")
    return said + (f" per {per}" if per else "") + "."


# 'Waivers over $100 - supervisor.', 'Above 25%: deal desk.', 'credits below that: agent
# discretion': a gate (a boundary phrase and its bound) then a dash or a colon and the effect,
# with no verb. The dash or colon stands where an arrow would ('over $100 -> supervisor'), so it
# is rewritten as one and read by `_arrows`. Only after a bound, never after a heading ('Refund
# limit: 250 USD' keeps its colon) and never before a number (the colon of a headed cap).
_TERSE_GATE = re.compile(
    r"(?:^|(?<=[;.,:]\s))(?P<gate>[^;:.,]*?\b(?:over|above|more than|greater than|exceeding|"
    r"in excess of|at least|under|below|less than|fewer than|up to|at most|no more than)\s+"
    r"(?:[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?)\s?(?:[kKmM]\b)?\s?"
    r"(?:%|[A-Z]{3}\b|[a-z]+\b)?(?:\s+or\s+(?:more|less|above|below|higher|fewer))?"
    # 'Discounts 25%+: deal desk': the plus is 'or more'
    r"|[^;:.,]*?(?<![\w.,])(?:[$\u20ac\u00a3]\s?)?\d[\d,]*(?:\.\d+)?\s?(?:[kKmM]\b)?\s?"
    r"(?:%|[A-Z]{3}\b)?\+"
    r"|[^;:.,]*?\b(?:over|above|under|below|less than|more than)\s+(?:that|this|those|it)"
    # '…; over: treasury', '…; anything above - CFO': the bound of the clause before
    r"|(?:(?:anything|everything|all|any)\s+)?(?:over|above|under|below|beyond|more|less))"
    r"(?:\s+-\s+|:\s+)(?=[A-Za-z])",
    re.I,
)
# 'Agents cannot grant credits above $500 - escalate to a team lead': a gate with its own verb
# is a sentence; what follows the dash is advice, read as it was
_GATE_HAS_PREDICATE = re.compile(
    r"\b(?:must|may|can|cannot|can't|could|should|shall|will|won't|not|no|never|don't|doesn't|"
    r"do|does|need|needs|require|requires|is|are|be|only|allowed|permitted|forbidden)\b",
    re.I,
)
# 'agent discretion', 'at the agent's discretion', 'agent decides': what the agent may do alone;
# the permission the arrow reading knows ('-> ok')
_AGENT_DISCRETION = re.compile(
    r"(?:at\s+(?:the\s+)?)?(?:agents?|rep|reps)(?:'s|')?\s+(?:discretion|decides|call)"
    r"(?=\s*(?:[.;]|$))",
    re.I,
)


def _terse_effects(t: str) -> str:
    if ":" not in t and " - " not in t:
        return t
    out = _TERSE_GATE.sub(
        lambda m: (
            m.group(0)
            if _GATE_HAS_PREDICATE.search(m.group("gate"))
            else m.group("gate").rstrip() + " -> "
        ),
        t,
    )
    if out == t:
        return t
    return re.sub(r"(?<=-> )" + _AGENT_DISCRETION.pattern, "ok", out, flags=re.I)


# 'QA director must approve any public notice', 'Only a manager can approve refunds over 500
# EUR': the person first, then the act; said again as 'X must be approved by <person>'.
_PERSON_APPROVES = re.compile(
    r"(?P<lead>^|[:;]\s*)(?:(?P<only>only)\s+)?(?P<who>(?:(?:the|a|an|our)\s+)?"
    r"(?:[A-Za-z][\w&'\-]*\s+){0,2}?" + _ROLE + r")\s+"
    r"(?P<modal>must|has to|have to|needs? to|should|shall|may|can)\s+"
    r"(?:first\s+)?(?:approve|sign off on|sign off|authori[sz]e|okay|countersign)\s+"
    r"(?P<rest>(?!(?:it|them|this|that)\b)[^.;:]+?)(?=\s*(?:[.;]|$))",
    re.I,
)
# 'beyond that the IR lead decides', 'Refunds over 500 EUR: the manager decides': the person
# who decides is the review the rule asks for.
_PERSON_DECIDES = re.compile(
    # 'Chargebacks of $250 or more -> disputes team decides', 'over that the board treasurer
    # signs': no article after an arrow, a colon or a dash
    r"(?:\bneed\s+)?\b(?P<who>(?:(?:the|a|an|our)\s+|(?<=need\s)|(?<=:\s)|(?<=;\s)|(?<=-\s)|^)"
    r"(?:[A-Za-z][\w&'\-]*\s+){0,2}?" + _ROLE + r")\s+"
    r"(?:decides|decide|approves|signs off|signs|has the final say|must decide|will decide)"
    # '… decides (accept or contest)': the choices the person has, nothing the rule restricts
    r"(?:\s*\((?:[a-z]+\s*(?:,|/|\bor\b)\s*)+[a-z]+\))?"
    r"(?=\s*(?:[.;]|$))",
    re.I,
)
# 'are held for T&S review', 'is subject to manager approval': the request waits for a person.
_HELD_FOR = re.compile(
    r"\b(?:is|are|will be|must be|should be|gets?)\s+(?:(?:held|parked|queued|put on hold)\s+for|"
    r"subject\s+to)\s+(?=(?:[\w&'\-]+\s+){0,3}?(?:review|approval|sign[- ]?off)\b)",
    re.I,
)
# 'GPU instances: not without FinOps OK': not without X is X needed.
_NOT_WITHOUT = re.compile(r"(?:^|(?<=[:;]\s)|(?<=[-,]\s))(?:not|never)\s+without\b", re.I)


def _effect_phrases(t: str) -> str:
    def approves(m: re.Match[str]) -> str:
        modal = m.group("modal").lower()
        if modal in ("may", "can") and not m.group("only"):
            return m.group(0)  # 'a manager may approve …' grants; it asks for nothing
        rest, unless = m.group("rest"), ""
        cut = re.search(
            r"\s+(?=unless\b)|,\s*(?=(?:over|above|under|below|>|<)\s*[$€£]?\d)", rest, re.I
        )
        if cut:
            # 'Finance must approve payments unless < 100 EUR': the exception stays last; so does
            # a second tier ('… journal entries > 50k, < 1k are auto')
            sep = ", " if cut.group(0).startswith(",") else " "
            rest, unless = rest[: cut.start()], sep + rest[cut.end() :]
        return f"{m.group('lead')}{rest} must be approved by {m.group('who')}{unless}"

    t = _PERSON_APPROVES.sub(approves, t)
    t = _PERSON_DECIDES.sub(lambda m: f"need {m.group('who')} approval", t)
    t = _HELD_FOR.sub("need ", t)
    return _NOT_WITHOUT.sub("need", t)


_WITH_SHORT = re.compile(r"(?<![\w/])w/(?=\s)", re.I)
# 'a valid permit #', 'lot #s': the sign after a word (never a format hint such as 'INV-####')
_NUMBER_SIGN = re.compile(r"(?<=[A-Za-z])\s*#(s)?(?![\w#])")
# 'requires shoring plan ref + competent person sign-off': a '+' between words after a word
# that requires, in a clause that compares nothing after it.
_PLUS_AFTER_REQUIREMENT = re.compile(
    r"\b(?:need|needs|needed|require|requires|required|with|and|reference|references|cite|cites|"
    r"include|includes|quote|quotes|specify|specifies)\b[^;.:+]*?[A-Za-z]\s+\+\s+(?=[A-Za-z])",
    re.I,
)
# 'placement_id + invoice_number needed on every payment': the '+' joins what the requirement
# after it asks for
_PLUS_BEFORE_REQUIREMENT = re.compile(
    r"(?<=[A-Za-z0-9_])\s+\+\s+(?=[A-Za-z][\w' ]{0,40}?\s(?:needed|required|mandatory|"
    r"(?:is|are)\s+(?:needed|required|mandatory))\b)",
    re.I,
)
_COMPARES_AFTER = re.compile(
    r"^[^;.]*?(?:exceed|at\s+least|at\s+most|more\s+than|less\s+than|fewer|over\s+\d|under\s+\d|"
    r"above|below|up\s+to|max|min|limit|cap|[<>≤≥=])",
    re.I,
)


def _plus_before_requirement(t: str) -> str:
    m = _PLUS_BEFORE_REQUIREMENT.search(t)
    if m is not None and not _COMPARES_AFTER.match(t) and "+" not in t[m.end() :]:
        t = t[: m.start()] + " and " + t[m.end() :]
    return t


def _joined_by_plus(t: str) -> str:
    while True:
        m = _PLUS_AFTER_REQUIREMENT.search(t)
        if m is None or _COMPARES_AFTER.match(t[m.end() :]):
            return t
        t = t[: m.end()].rstrip()[:-1].rstrip() + " and " + t[m.end() :]


_BETWEEN = re.compile(
    r"\b((?:must|should|shall|has to|have to|needs? to)\s+(?:always\s+)?(?:be|stay|remain|lie|fall))"
    r"\s+between\s+(\d[\d,.]*)\s+and\s+(\d[\d,.]*)(\s*(?:°\s*[CF]|[A-Za-z%]+))?",
    re.I,
)
_AGE_WORDS = {"older": "more", "over": "more", "younger": "less", "under": "less"}
_NO_OLDER = re.compile(r"\b(no|not)\s+(older|younger)\s+than\b", re.I)
_AGE_TAIL = re.compile(r"(?<![\w.,])(\d+)\s+or\s+(older|younger)\b", re.I)


_FORMAT_HINT = re.compile(
    r"\s*\((?:[a-z ]*:?\s*)?[A-Za-z0-9]*[-_/]?(?:[xX]{3,}|#{2,}|[nN]{3,}|9{3,})[^()]*\)"
)
_BARE_CONTRACTION = re.compile(
    r"\b(can|don|doesn|isn|aren|mustn|shouldn|shan|wouldn|couldn|hasn|haven|didn|wasn|weren)t\b",
    re.I,
)
_COMPARATIVES = {
    "heavier than": "more than",
    "larger than": "more than",
    "bigger than": "more than",
    "longer than": "more than",
    "higher than": "more than",
    "deeper than": "more than",  # 'a discount deeper than 40%'
    "greater than": "more than",
    "lower than": "less than",
    "shallower than": "less than",
    "lighter than": "less than",
    "smaller than": "less than",
    "shorter than": "less than",
    "older than": "aged more than",
    "younger than": "aged less than",
    "newer than": "less than",
}
_COMPARATIVE = re.compile(r"\b(" + "|".join(_COMPARATIVES) + r")\b", re.I)


_SECOND_OBLIGATION = re.compile(
    r",?\s+and\s+(?:(?P<modal>must|should|shall|has to|have to|may|can)\s+)?"
    r"(?=(?:not\s+|never\s+|only\s+)?"
    r"(?:stay|remain|be|exceed|include|reference|cite|have|carry|specify|provide|contain|quote|"
    r"state|name|list|attach|go)\b)",
    re.I,
)
_MODAL = re.compile(r"\b(must|should|shall|has to|have to|needs?|requires?)\b", re.I)


def _obligations(clauses: list[str]) -> list[str]:
    """'must cite an invoice number and stay under 1,000 EUR' -> two obligations, the modal shared."""
    out: list[str] = []
    for clause in clauses:
        modal = _MODAL.search(clause)
        m = _SECOND_OBLIGATION.search(clause, modal.end()) if modal else None
        if (
            m
            and (m.group("modal") or "").lower() in ("may", "can")
            and not re.match(r"(?:only|not|never)\b", clause[m.end() :], re.I)
        ):
            m = None  # 'and may be sent …' grants; only a restriction is a second obligation
        if not modal or not m:
            out.append(clause)
            continue
        first = clause[: m.start()]
        second = clause[m.end() :]
        out.append(first)
        shared = m.group("modal") or modal.group(1)
        if shared.lower().startswith(("need", "require")):
            shared = "must"  # 'need a cost center and stay under 2,000 EUR'
        out.append(f"{clause[: modal.start()]}{shared} {second}")
    return out


def split_clauses(text: str) -> list[str]:
    """Sentences and clauses joined by ';' or ', but' are judged separately."""
    # 'anything but the approved regions', 'any country but Germany', 'nothing but viewer': an
    # exclusion, not a second clause (cut there, 'Never deploy to anything' denied every deploy)
    text = _EXCLUSION_BUT.sub(lambda m: m.group(0)[: -len(m.group("but"))] + "\x00", text)
    parts = re.split(
        r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|;\s*|,?\s+but\s+|,\s*(?:while|whereas|however)\s+"
        # '… can be done by the agent. anything above that needs …': a sentence in lower case
        r"|(?<=[a-z]\.)\s+(?=(?:anything|everything|above|over|beyond|longer|larger|bigger|more|"
        r"others|otherwise)\b)",
        text,
    )
    out: list[str] = []
    for p in parts:
        out.extend(_tiers(p.replace("\x00", "but ")))
    return [p.strip().rstrip(".").strip() for p in out if p and p.strip(" .")]


_EXCLUSION_BUT = re.compile(
    r"\b(?:any(?:thing|one|where)?|every(?:thing|one|where)?|nothing|none|all|no)"
    r"(?:\s+(?!(?:may|can|must|should|shall|will|is|are|was|were|need|needs|require|requires|"
    r"get|gets|go|goes)\b)[a-z][\w-]*)?\s+(?P<but>but\s+)",
    re.I,
)


# 'Card limits over 10k need risk review, over 50k are not allowed', 'journal entries over 50k
# must be approved by a controller, under 1k are auto': a second tier after a comma, with a
# predicate of its own, after a clause with one. Read as one clause, the refusal of the top tier
# was taken for the review of the first.
_TIER = re.compile(
    r",\s+(?:and\s+)?(?=(?:over|above|under|below|more than|less than|at least|at most|beyond|"
    r"exceeding)\s+(?:[$€£]\s?|[A-Z]{3}\s)?\d[\d,.]*\s*(?:k|m|%)?(?:\s*[A-Za-z$€£]{1,5})?\s+"
    r"(?:(?:they|these|those|it)\s+)?(?:need|needs|require|requires|are|is|go|goes|must|get|gets)\b"
    r"[^,;]*$)",
    re.I,
)
_TIER_HEAD = re.compile(
    r"\b(?:need|needs|require|requires|required|are|is|go|goes|must|get|gets)\b", re.I
)


def _tiers(part: str) -> list[str]:
    """`part` cut before a second tier (see _TIER), when what comes before has its predicate."""
    m = _TIER.search(part)
    if m is None or not _TIER_HEAD.search(part[: m.start()]):
        return [part]
    return [part[: m.start()], part[m.end() :]]


# numbers written as words ('zero replicas', 'two approvers'), as the engine stems them; not
# 'one' ('No one may …' is nobody)
_NUMBER_WORD_STEMS = frozenset(
    stem(w)
    for w in (
        "zero two three four five six seven eight nine ten eleven twelve twenty "
        "thirty fifty hundred thousand"
    ).split()
)
# an argument's name as staff write it in a rule: lower-case words joined by '_' ('dpia_ref')
_ARGUMENT_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
# 'on a reseller or wholesale plan', 'on an enterprise tier': kinds of a plan named by words
_KIND_OF_PLAN = re.compile(
    r"\b(?:on|under)\s+(?:an?|the|any)\s+[\w-]+(?:\s*(?:,|or)\s*[\w-]+)+\s+"
    r"(?P<noun>plans?|tiers?|contracts?|subscriptions?|programs?|programmes?)\b",
    re.I,
)
# what a send is addressed to, which an exclusion holds out of it ('the global_unsubscribe list')
_AUDIENCE_KINDS = frozenset(stem(w) for w in ("list", "segment", "audience", "group", "cohort"))
_MUST_EXCLUDE = re.compile(
    r"\b(?:must|shall|should|has to|have to|needs? to|always)\s+(?:be\s+)?(?P<verb>exclude|excluded|"
    r"suppress|suppressed|omit|omitted)\b",
    re.I,
)
# names listed after a colon: 'may be paid: Clifford Chance, Linklaters, Slaughter and May'
_COLON_NAMES = re.compile(
    r":\s*(?P<names>[A-Z][\w&.\-]*(?:\s+[\w&.\-]+)*(?:\s*,\s*[A-Z][\w&.\-]*(?:\s+[\w&.\-]+)*)+)"
)
# 'one of: Mercer, Aon, Legal & General (pensions), Vitality': a bracket after a listed name
# glosses that name (for pensions only), not the list; read as the list or a binding, every firm
# but one was denied. No check reads such a gloss, so the rule stays partly understood.
_GLOSSED_ITEM = re.compile(
    r"(?:\bone of|\bonly|:)\s+[A-Z][^()\n]*?\s\((?P<gloss>[a-z][a-z ]*)\)(?=[^()]*,|\s*\.?$)"
)


# A remark that another policy governs some requests, 'not this one' / 'not here': the other
# side must be a policy (the word, or a policy id such as 'pm.security_deposits'), never a team
# ('Refunds over $500 are handled by Treasury, not here' bars the agent, and stays a rule).
_GOVERNED_ELSEWHERE = re.compile(
    r"^\s*(?P<what>[^.;]{1,120}?)\s+(?:is|are)\s+(?:governed|handled|covered|dealt\s+with)\s+"
    r"(?:by|under|in)\s+(?P<other>(?:the\s+|our\s+)?(?:[\w&\-]+\s+){0,4}(?:policy|policies)"
    r"|[a-z][a-z0-9_\-]*(?:\.[a-z0-9_\-]+)+)\s*,?\s*(?:and\s+)?not\s+(?:by\s+|under\s+|in\s+)?"
    r"(?:this\s+(?:one|policy|document)|here)\s*[.;!]?\s*$",
    re.I,
)

# Between two words of a scope that are alternatives ('salary and allowance changes').
SCOPE_EITHER = "|"


def _scope_in_brackets(clause: str) -> bool:
    """'Refunds over 500 USD are blocked (applies to EU only)': a scope remark in brackets after
    the rule's own words. Read as the policy's scope, it took the clause with it and the block
    was never read (an EU refund over 500 approved; red team jred13); the clause is read as a
    rule, the remark left unaccounted."""
    m = SCOPE.search(clause)
    return bool(m) and "(" in clause[: m.start() + 1] and bool(clause[: clause.find("(")].strip())


# 'Scope: disconnects for non-payment (reason = non_payment) only': the scope's own gloss names
# the argument and the value the policy is for. Kept as one scope word (`SCOPE_BINDING`, the
# argument, '=', the value), read by governance.out_of_scope: a request whose argument holds
# another value is outside the policy; one without the argument, or with a value close to it,
# is not shown to be.
SCOPE_BINDING = "\x01"
_SCOPE_GLOSS = re.compile(
    r"\(\s*(?P<arg>[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*)\s*(?:==?|:)\s*['\"]?(?P<value>[\w\-]+)['\"]?\s*\)"
)


def scope_of(text: str) -> tuple[str, ...]:
    """Words of a scope statement ('Applies to EMEA payouts only' -> ('EMEA', 'payouts'))."""
    for clause in split_clauses(_normalise(text)):
        m = SCOPE.search(clause)
        if m:
            phrase = m.group("scope") or m.group("scope2") or m.group("scope3") or ""
            bindings = [
                f"{SCOPE_BINDING}{g.group('arg')}={g.group('value')}"
                for g in _SCOPE_GLOSS.finditer(phrase)
            ]
            # 'federal aid (Pell, SEOG, Direct Loans)': the brackets give examples, any one of
            # which may be the request's; none of them narrows the scope on its own
            phrase = re.sub(r"\([^)]*\)?", " ", phrase)
            # 'changes posted to Workday by automation': the participle says how the thing
            # arrives, not which things the policy is about ('posted' matched no update)
            phrase = re.sub(
                r"\b[a-z]+ed\s+(?=(?:to|by|via|through|into|from)\b)", " ", phrase, flags=re.I
            )
            out: list[str] = []
            for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-]*", phrase):
                if w.lower() in ("and", "or") and out and out[-1] != SCOPE_EITHER:
                    # 'salary and allowance changes': either word puts a request in scope
                    out.append(SCOPE_EITHER)
                # 'US' is a country code, not the pronoun 'us'
                elif w.lower() not in STOPWORDS or (len(w) == 2 and w.isupper()):
                    out.append(w)
            while out and out[-1] == SCOPE_EITHER:
                out.pop()
            return tuple(out + bindings)
    return ()


@dataclass
class Clause:
    """One clause of a rule, read once: its words' force and the quantities in it (the clause value).

    Recognisers read this, never the raw text alone, so that each kind of rule is one class.
    """

    index: int
    source: str  # the whole rule, for citations and readings
    text: str
    previous: Quantity | None  # the last quantity of an earlier clause ('above that')
    subject_carry: str  # the subject of an earlier clause ('… and stay under 1,000 EUR')
    auto: bool = False
    review: bool = False
    negated: bool = False
    allow: bool = False
    only: bool = False
    effect: str = "deny"
    quantities: list[Quantity] = field(default_factory=list)
    own_subject: bool = False
    carry: str = ""

    @classmethod
    def read(
        cls, index: int, source: str, text: str, previous: Quantity | None, carry: str
    ) -> Clause:
        c = cls(index, source, text, previous, carry)
        alone = alone_permission(text)
        c.auto = bool(AUTO.search(text)) or alone is not None
        c.review = bool(REVIEW.search(text)) and not c.auto
        c.negated = bool(
            NEGATION.search(
                _without_outside_negations(
                    text
                    if alone is None
                    else text[: alone.start("alone")] + " " + text[alone.end("alone") :]
                )
            )
        )
        c.allow = (bool(ALLOW.search(text)) or c.auto) and not c.negated and not c.review
        c.only = _restricting_marker(text) or bool(OUTSIDE.search(text))
        c.effect = "review" if c.review else ("allow" if c.allow and not c.only else "deny")
        c.quantities = [q for q in find_quantities(text) if not _inside_literal(text, q)]
        if c.review:
            # 'approval from two security reviewers' counts approvers (quorum_of), not an amount
            quorums = [m.span() for m in _QUORUM.finditer(text)]
            c.quantities = [
                q for q in c.quantities if not any(s <= q.start + 1 < e for s, e in quorums)
            ]
        predicate_at = _predicate_position(text)
        subject_text = text[:predicate_at] if predicate_at is not None else text
        c.own_subject = bool(_terms(subject_text, cut_review=False))
        c.carry = subject_text if c.own_subject else carry
        return c


class Recogniser:
    """One kind of rule. `recognise` returns its checks, [] to stop with nothing, or None to pass."""

    kind = "recogniser"

    def recognise(self, c: Clause) -> list[Check] | None:  # pragma: no cover - overridden
        raise NotImplementedError

    def next_quantity(self, c: Clause) -> Quantity | None:
        """The quantity a later clause's 'above that' refers to, after this recogniser matched."""
        return c.previous


# 'Queries touching PII columns (email, phone, address, ssn) must cite a ticket': a kind of
# names whose members the bracket lists, then what a request carrying one of them must do.
_BRACKETED_MEMBERS = re.compile(
    r"^(?P<pre>.*?)(?P<cat>\b(?:[A-Za-z][\w\-]*\s+){0,2}?(?P<noun>fields?|columns?|cols?|scopes?|"
    r"permissions?|attributes?))\s*\((?P<items>[^()]+)\)(?P<post>.*)$"
)
# What the thing does with the names ('touching', 'that include a', 'with any'), read by the list.
_HOLDING_TAIL = re.compile(
    r"(?:\b(?:that|which)\s+)?\b(?:touch(?:es|ing)?|read(?:s|ing)?|contain(?:s|ing)?|"
    r"include[sd]?|including|select(?:s|ing)?|return(?:s|ing)?|expos(?:e|es|ing)|with|using|"
    r"carry(?:ing)?|carries|hold(?:s|ing)?|over|on)\s+(?:(?:a|an|the|any|one|some)\s+)?"
    r"(?:(?:or|of)\s+(?:more\s+)?)?$",
    re.I,
)
_BRACKET_ITEM = re.compile(r"[a-z][a-z0-9_]*(?:\s+[a-z][a-z0-9_]*){0,3}")
# jlist: 'PII fields in an export (email, ssn, dob, phone) -> Legal review': the bracket lists
# the fields, written after the act they are carried by; only after an act noun that holds
# fields and is no collection of its own (a 'table' or a 'dataset' could be what the bracket
# lists)
_KIND_THEN_ACT = re.compile(
    r"(?P<cat>\b(?:fields?|columns?|attributes?))(?P<mid>\s+(?:in|on|of)\s+(?:an?|the|any)\s+"
    r"(?:export|extract|share|report|download|upload|dump|response|payload|message))"
    r"\s*(?P<items>\([^()]+\))"
)


def _members_beside_kind(text: str) -> str:
    """`text` with a bracket of members written after the act moved beside its kind."""
    m = _KIND_THEN_ACT.search(text)
    if m is None:
        return text
    return (
        f"{text[: m.start()]}{m.group('cat')} {m.group('items')}{m.group('mid')}{text[m.end() :]}"
    )


class BracketedMembersRecogniser(Recogniser):
    """'Queries touching PII columns (email, phone, address, ssn) must cite a ticket in
    justification_ticket': the bracket lists the kind's members, so the rest of the clause holds
    where a member of the argument named for the kind is one of them (compared name by name,
    match 'token'); with none the rule does not apply; with one close to them, review. Examples
    ('e.g.', 'such as', 'etc.') leave the kind open: not read here."""

    kind = "when_listed"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _BRACKETED_MEMBERS.match(_members_beside_kind(c.text))
        if m is None or re.search(
            r"\b(?:e\.?g|i\.?e|etc|such as|like|including|incl)\b", m.group("items"), re.I
        ):
            return None
        items = [
            i.strip()
            for i in re.split(r"\s*[,;/]\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", m.group("items"))
            if i.strip()
        ]
        if not items or not all(
            _BRACKET_ITEM.fullmatch(i) or _SCOPED_NAME.fullmatch(i) for i in items
        ):
            return None
        if any(w in STOPWORDS or NORMATIVE.fullmatch(w) for i in items for w in i.split()):
            return None
        pre = m.group("pre")
        tail = _HOLDING_TAIL.search(pre)
        held = pre[tail.start() :] if tail else ""
        pre = pre[: tail.start()] if tail else pre
        rest = re.sub(r"\s+", " ", f"{pre} {m.group('post')}").strip()
        if not rest or not _terms(rest, cut_review=c.review):
            return None
        made, _, _ = compile_clause(c.index, c.source, rest, c.previous, c.subject_carry)
        if not made or any(
            x.effect == "allow" or isinstance(x, (ValueList, WhenListed)) for x in made
        ):
            return None
        noun = stem(m.group("noun").lower())
        family = _FIELD_KINDS if noun in _FIELD_KINDS else _SCOPE_KINDS
        about = tuple(
            stem(w)
            for w in words(f"{held} {m.group('cat')}")
            if w.lower() not in STOPWORDS and stem(w) not in family
        )
        condition = ValueList(
            c.index,
            c.source,
            "deny",
            (),
            (),
            "deny",
            tuple(items),
            "token",
            tuple(sorted(family)),
            about_words=about,
        )
        return [
            WhenListed(
                c.index, c.source, b.effect, b.terms, b.alternatives, condition=condition, body=b
            )
            for b in made
        ]


class FirstTimeRecogniser(Recogniser):
    """'Payments to a payee we have never paid before need review' (request history)."""

    kind = "first_time_counterparty"

    def recognise(self, c: Clause) -> list[Check] | None:
        first_time = _FIRST_TIME.search(c.text)
        if not first_time:
            return None
        if _NEW_PARTY_QUALIFIES.match(c.text[first_time.end() :]) and first_time.group(
            0
        ).lower().startswith("new "):
            # 'New vendor bank details need treasury': 'new vendor' qualifies another noun
            # (the bank details are what is new, or belong to a new vendor): read as a
            # first-time vendor, a seen vendor's changed bank details were approved
            return None
        terms = _terms(c.text, cut_review=c.review)
        # the parties named up to the phrase ('payees not previously paid need Accounting
        # review': the payee is new, Accounting reviews)
        parties = tuple(
            s for s in content_stems(c.text[: first_time.end()]) if s in _COUNTERPARTY_STEMS
        )
        skip = {"seen", "contact", "befor", "time", "never", "previous", "unknown", "unseen"}
        terms = tuple(t for t in terms if t not in parties and t not in skip)
        eff = "review" if c.review or not c.negated else "deny"
        first = FirstTimeCounterparty(
            c.index, c.source, eff, terms, counterparty_words=parties or ("paye",)
        )
        condition = _amount_condition(c)
        if condition is not None:
            # 'Wire transfers over €50k to new beneficiaries need sign-off': both must hold.
            return [When(c.index, c.source, eff, terms, (), condition=condition, body=first)]
        if c.quantities:
            return []  # a number this reading does not place: kept as text
        return [first]


def _amount_condition(c: Clause) -> NumericLimit | None:
    """The one amount a clause's subject states as its condition ('over €50k'), if any."""
    found = _amount_condition_span(c)
    return found[0] if found else None


def _amount_condition_span(c: Clause) -> tuple[NumericLimit, int, int] | None:
    """The subject's amount condition and the span of its words ('over €50k', '50 EUR or more')."""
    if len(c.quantities) != 1:
        return None
    q = c.quantities[0]
    if _is_age(c.text, q):
        q = replace(q, noun="age", unit_family=None, unit_factor=1.0)
    predicate_at = _predicate_position(c.text)
    # 'Do not share records of patients under 16 without consent': the object, and its bound,
    # follow the imperative's verb
    imperative = bool(
        re.match(r"(?:do not|don't|never|no)\b", c.text, re.I) and re.search(r"\bwithout\b", c.text)
    )
    if predicate_at is not None and q.start > predicate_at and not imperative:
        return None
    b = _CONDITION_BOUND.search(c.text[: q.start])
    if b:
        op = BOUNDARY_CONDITION[re.sub(r"\s+", " ", b.group(0).strip().lower())]
        subject = c.text[: b.start()]
        return _subject_condition(c.index, c.source, subject, op, q), b.start(), q.end
    # 'Refunds of 50 EUR or more', 'grants of $5k and above', 'orders of 10 units or fewer'
    after = q.end
    if q.noun:
        noun = re.match(r"\s*" + re.escape(q.noun) + r"\b", c.text[after:], re.I)
        after += noun.end() if noun else 0
    more = _OR_MORE.match(c.text[after:])
    less = _OR_LESS.match(c.text[after:]) if not more else None
    tail = more or less
    if tail is None:
        return None
    start = q.start
    of = re.search(r"\b(?:of|for|worth|totall?ing|valued at)\s+$", c.text[:start], re.I)
    if of:
        start = of.start()
    subject = c.text[:start]
    op = "ge" if more else "le"
    return _subject_condition(c.index, c.source, subject, op, q), start, after + tail.end()


def _subject_condition(index: int, source: str, subject: str, op: str, q: Quantity) -> NumericLimit:
    """The amount a rule's subject states as its condition ('orders over 10,000 USD …')."""
    terms = _terms(subject, cut_review=False)
    return NumericLimit(
        index,
        source,
        "deny",
        _subject_terms(terms),
        (),
        op,
        q.value,
        q.currency,
        q.unit_family,
        q.unit_factor,
        q.noun,
        terms,
        None,
        False,
    )


# 'in the prod account (111122223333)', 'for the billing project (proj-7781)': the obligation
# holds only where the named resource is the one the identifier in brackets names.
_SCOPED_ID = re.compile(
    r"\s*\b(?:in|on|for|within|under|to)\s+(?:the|our)\s+(?P<qual>(?:[a-z][\w\-]*\s+){0,2})"
    r"(?P<kind>account|project|subscription|tenant|workspace|organi[sz]ation|org|cluster|"
    r"environment|folder|vpc|database|bucket)\s*\((?P<id>[A-Za-z0-9][\w\-.:/]*)\)",
    re.I,
)


class ScopedIdRecogniser(Recogniser):
    """'Policy attachments in the prod account (111122223333) must reference a change ticket':
    the rest of the clause, applied when an argument named like the kind holds that identifier
    (another identifier: the rule does not apply; none: a human decides)."""

    kind = "when_listed"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _SCOPED_ID.search(c.text)
        if not m or _SCOPED_ID.search(c.text, m.end()):
            return None
        rest = (c.text[: m.start()] + " " + c.text[m.end() :]).strip()
        made, _, _ = compile_clause(c.index, c.source, rest, c.previous, c.subject_carry)
        if not made or any(x.effect == "allow" for x in made):
            return None
        about = tuple(stem(w) for w in words(m.group("qual")) if w not in STOPWORDS)
        condition = ValueList(
            c.index,
            c.source,
            "deny",
            (),
            (),
            "deny",
            (m.group("id"),),
            "prefix",  # read only from an argument named like the kind (`account_id`)
            (stem(m.group("kind").lower()),),
            about_words=about,
        )
        return [
            WhenListed(
                c.index, c.source, b.effect, b.terms, b.alternatives, condition=condition, body=b
            )
            for b in made
        ]


# 'MFA is required when assuming any role whose name starts with Admin': the obligation holds
# where the named thing's name (an ARN's last segment counts) starts with the prefix.
_NAME_PREFIX_WHEN = re.compile(
    r"^(?P<main>.+?)\s+(?P<marker>when|whenever|if)\s+(?P<gerund>[a-z]+ing\s+)?(?:any|a|an|the)?\s*"
    r"(?P<noun>[a-z]+)\s+(?:whose|with a|with an)\s+name\s+(?:starts|begins|starting|beginning)\s+with\s+"
    r"[\"'`]?(?P<prefix>[A-Za-z0-9][\w\-]*)[\"'`]?\s*\.?$",
    re.I,
)


class NamePrefixWhenRecogniser(Recogniser):
    """An obligation that holds only for things whose name starts with a prefix."""

    kind = "when_listed"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _NAME_PREFIX_WHEN.match(c.text)
        if not m:
            return None
        made, _, _ = compile_clause(c.index, c.source, m.group("main"), c.previous, c.subject_carry)
        if not made or not all(isinstance(x, (RequiredArgument, RequiredFlag)) for x in made):
            return None
        about = tuple(
            stem(w) for w in words(f"{m.group('gerund') or ''} name starts") if w not in STOPWORDS
        )
        condition = ValueList(
            c.index,
            c.source,
            "deny",
            (),
            (),
            "deny",
            (m.group("prefix"),),
            "prefix",
            (stem(m.group("noun").lower()),),
            about_words=about,
        )
        return [
            WhenListed(
                c.index, c.source, b.effect, b.terms, b.alternatives, condition=condition, body=b
            )
            for b in made
        ]


_NAME_PREFIX_RECOGNISER = NamePrefixWhenRecogniser()


# 'Economy class only for flights under 6 hours': within the condition, only the named value.
_ONLY_FOR_AMOUNT = re.compile(
    r"^(?P<value>[A-Za-z][\w\-]*(?:\s+(?:or|and|,)?\s*[A-Za-z][\w\-]*){0,2}?)\s+"
    r"(?P<kind>class|cabin|tier|fare|grade|plan|size|category|type|shipping|delivery|service|room|seat)?\s*only\s+(?:for|on)\s+"
    r"(?P<subject>(?:[a-z]+\s+){1,3}?)(?P<bound>under|below|less than|over|above|more than|"
    r"at least|at most|up to|no more than)\s+(?P<amount>[^,;]+?)\s*\.?$",
    re.I,
)


class OnlyForAmountRecogniser(Recogniser):
    """'Economy class only for flights under 6 hours': an allow-list of one kind of value that
    holds only for requests meeting an amount condition (the boundary table reads it)."""

    kind = "when"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _ONLY_FOR_AMOUNT.match(c.text)
        if not m or c.negated or c.review:
            return None
        quantities = find_quantities(m.group("amount"))
        if len(quantities) != 1 or m.group("amount")[quantities[0].end :].strip():
            return None
        values = [v for v in _split_items(m.group("value")) if v]
        if not values or not all(_value_like(v) for v in values):
            return None
        kind = (stem(m.group("kind").lower()),) if m.group("kind") else ()
        body = ValueList(c.index, c.source, "deny", (), (), "allow", tuple(values), "exact", kind)
        op = BOUNDARY_CONDITION[re.sub(r"\s+", " ", m.group("bound").lower())]
        condition = _subject_condition(c.index, c.source, m.group("subject"), op, quantities[0])
        return [
            When(c.index, c.source, "deny", condition.terms, (), condition=condition, body=body)
        ]

    def next_quantity(self, c: Clause) -> Quantity | None:
        return c.quantities[-1] if c.quantities else c.previous


# 'No more than 50 laptops (SKU prefix LAP-) on a single PO': a count of the items a prefix picks
_PREFIXED_COUNT = re.compile(
    r"^(?P<bound>" + phrase_pattern(CAP) + r")\s+"
    r"(?P<n>\d[\d,]*)\s+(?P<noun>[a-z]+)\s*\(\s*(?P<key>[A-Za-z]+)\s+"
    r"(?:prefix|prefixed|starting with|starts with|beginning with)\s+(?P<prefix>[A-Za-z0-9][\w\-]*)\s*\)"
    r"\s+(?:on|in|per)\s+(?:a\s+single\s+|one\s+|each\s+|any\s+|a\s+|an\s+|the\s+)?"
    r"(?P<container>[A-Za-z]+)\s*\.?$",
    re.I,
)


class PrefixedCountRecogniser(Recogniser):
    """A cap on how many of the request's line items a prefix picks ('LAP-' laptops on a PO)."""

    kind = "prefixed_count"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _PREFIXED_COUNT.match(c.text)
        if not m or c.review:
            return None
        return [
            PrefixedCount(
                c.index,
                c.source,
                "deny",
                _subject_terms(_terms(m.group("container"), cut_review=False)),
                (),
                key=stem(m.group("key").lower()),
                prefix=m.group("prefix"),
                op=NEGATE[phrase_op(CAP, m.group("bound"))],  # fires beyond the allowed values
                threshold=float(m.group("n").replace(",", "")),
                noun=m.group("noun"),
            )
        ]


# The cap phrases of the one boundary table (boundaries.CAP).
_CAP_WORDS = phrase_pattern(CAP)
# 'Hotel nightly rate: up to €180 in EU cities, up to €250 elsewhere'
_PLACE_SPLIT_CAP = re.compile(
    r"^(?P<subject>[^:;]+?)\s*:?\s+(?P<b1>" + _CAP_WORDS + r")\s+(?P<q1>[^,;]+?)\s+(?:in|for)\s+"
    r"(?:the\s+)?(?P<places>[A-Z][A-Za-z]+(?:\s*(?:,|or|and|/)\s*[A-Z][A-Za-z]+)*)"
    r"(?P<noun>\s+[a-z]+)?\s*,\s*(?P<b2>" + _CAP_WORDS + r")\s+(?P<q2>[^,;]+?)\s+"
    r"(?:elsewhere|everywhere else|otherwise)\s*\.?$",
)


class PlaceSplitCapRecogniser(Recogniser):
    """One cap where the request's place is in the named places, another elsewhere."""

    kind = "when_listed"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _PLACE_SPLIT_CAP.match(c.text)
        if not m:
            return None
        names = [n for n in re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", m.group("places")) if n]
        codes = [_place(n) for n in names]
        q1, q2 = find_quantities(m.group("q1")), find_quantities(m.group("q2"))
        if not names or not all(codes) or len(q1) != 1 or len(q2) != 1:
            return None
        if m.group("q1")[q1[0].end :].strip() or m.group("q2")[q2[0].end :].strip():
            return None
        terms = _terms(m.group("subject"), cut_review=False)
        noun = tuple(stem(w) for w in words(m.group("noun") or ""))
        checks: list[Check] = []
        for mode, q, bound in (("deny", q1[0], m.group("b1")), ("allow", q2[0], m.group("b2"))):
            cap = NumericLimit(
                c.index,
                c.source,
                "deny",
                _subject_terms(terms),
                (),
                NEGATE[phrase_op(CAP, bound)],  # fires beyond what the cap allows
                q.value,
                q.currency,
                q.unit_family,
                q.unit_factor,
                q.noun,
                terms,
                None,
                False,
            )
            where = ValueList(
                c.index,
                c.source,
                "deny",
                (),
                (),
                mode,  # 'deny': the place is listed; 'allow': it is not ('elsewhere')
                tuple(x for x in codes if x),
                "place",
                (),
                about_words=noun + ("elsewher",),
            )
            checks.append(
                WhenListed(c.index, c.source, "deny", cap.terms, (), condition=where, body=cap)
            )
        return checks


class ConditionalListRecogniser(Recogniser):
    """'Orders over 10,000 USD may ship only to the US or Canada': a list beyond an amount."""

    kind = "when"

    def recognise(self, c: Clause) -> list[Check] | None:
        when = _conditional_list(
            c.index, c.source, c.text, c.quantities, c.review, c.negated, c.only
        )
        return [when] if when else None

    def next_quantity(self, c: Clause) -> Quantity | None:
        return c.quantities[-1]


# 'Payments > 1k and < 10k need team lead': two bounds of one measure joined by 'and'
_RANGE_AND = re.compile(
    r"^\s*(?:over|above|more than|greater than|at least|under|below|less than|at most)?\s*"
    r"(?:[$€£]\s?)?[\d.,]+\s*(?:k|m|[A-Za-z%]{1,5})?\s+and\s+(?:over|above|more than|greater than|"
    r"at least|under|below|less than|at most)\s*$",
    re.I,
)


def _range_reviews(clause: str, made: list[Check]) -> list[Check]:
    """'Payments > 1k and < 10k need team lead' is one review between the bounds. Read as two
    reviews, everything under 10k went to review (500 as well)."""
    limits = [c for c in made if isinstance(c, NumericLimit)]
    if len(made) != 2 or len(limits) != 2 or any(c.effect != "review" for c in limits):
        return made
    low, high = limits
    if low.op not in ("gt", "ge") or high.op not in ("lt", "le"):
        return made
    same = ("currency", "unit_family", "noun", "measure", "window", "counts_calls", "per")
    if any(getattr(low, f) != getattr(high, f) for f in same) or low.threshold >= high.threshold:
        return made
    qs = find_quantities(clause)
    if len(qs) != 2 or not _RANGE_AND.match(clause[qs[0].start : qs[1].start]):
        return made
    return [When(high.rule_index, high.source, "review", high.terms, high.alternatives, low, high)]


def _same_measure_as_before(clause: str, made: list[Check], before: list[Check]) -> list[Check]:
    """'no more than GBP 250,000 in lump sums per day; anything over goes to treasury': what lies
    over the bound is over the same measure (today's total), not one request's amount, of the
    same subject (who reviews, 'treasury', is none of its words)."""
    m = _ANAPHOR.search(clause)
    opens = m is not None and (
        m.group("bare") is not None
        or not clause[: m.start()].strip(" ,")
        or re.fullmatch(r"\s*(?:anything|everything|any\s+amount|amounts)\s*", clause[: m.start()])
        is not None
    )
    if not opens or not before or not isinstance(before[-1], NumericLimit):
        return made
    prior = before[-1]
    # 'larger changes need IT approval' names its own noun: its subject is its own (the first
    # clause's qualifiers, 'for Dublin teams', are not read into it)
    subject = m.group(3) is None
    return [
        replace(
            c,
            terms=prior.terms if subject else c.terms,
            alternatives=prior.alternatives if subject else c.alternatives,
            measure=prior.measure if subject else c.measure,
            noun=prior.noun if subject else c.noun,
            window=prior.window,
            counts_calls=prior.counts_calls,
            per=prior.per,
        )
        if isinstance(c, NumericLimit)
        and c.threshold == prior.threshold
        and not c.window
        and not c.per
        else c
        for c in made
    ]


def _bare_anaphor(c: Clause) -> bool:
    """'anything over goes to treasury for approval': the clause opens on the comparative, so its
    subject is the previous clause's (the body named after 'to' is who reviews)."""
    m = _ANAPHOR.search(c.text)
    return bool(m and m.group("bare") and c.previous is not None and not c.quantities)


# '20% on monthly plans, 35% on annual', '10% for monthly subscriptions and 25% for yearly
# subscriptions': a quantity, then the value of another argument it holds for. The noun after the
# first key names what the keys qualify; the later keys may leave it out.
_KEYED_AFTER = re.compile(
    r"\s+(?:on|for)\s+(?:the\s+|an?\s+|all\s+)?(?P<key>[a-z][a-z\-]*)"
    r"(?:\s+(?P<noun>plans?|subscriptions?|contracts?|memberships?|accounts?|orders?|licen[cs]es?|"
    r"terms?|tiers?|customers?|members?|deals?|renewals?|bookings?|ones?))?"
    r"\s*(?=$|[,;.]|\s+and\b)",
    re.I,
)
_KEYED_JOIN = re.compile(r"^\s*(?:,\s*(?:and\b\s*)?|and\b\s*)$", re.I)


class KeyedCapRecogniser(Recogniser):
    """'max discount is 20% on monthly plans, 35% on annual': caps keyed by another argument's
    value. Read as one cap, the first bound ('the month's total', from 'monthly') capped every plan
    and the second was left unread."""

    kind = "keyed_limit"

    def recognise(self, c: Clause) -> list[Check] | None:
        qs = c.quantities
        if len(qs) < 2:
            return None
        keys: list[tuple[str, str]] = []
        ends: list[int] = []
        for i, q in enumerate(qs):
            m = _KEYED_AFTER.match(c.text, q.end)
            if m is None:
                return None
            keys.append((m.group("key"), m.group("noun") or ""))
            ends.append(m.end())
            if i and not _KEYED_JOIN.match(c.text[ends[i - 1] : q.start]):
                return None
        if c.text[ends[-1] :].strip(" .") or not keys[0][1]:
            return None  # more after the last key, or no noun saying what the keys qualify
        names = [k.lower() for k, _ in keys]
        if len(set(names)) != len(names) or any(k in STOPWORDS for k in names):
            return None
        if any(n and stem(n) != stem(keys[0][1]) for _, n in keys[1:]):
            return None  # 'on monthly plans, 35% on annual contracts' names two things
        first = qs[0]
        if any(
            (q.currency, q.unit_family, q.noun) != (first.currency, first.unit_family, first.noun)
            for q in qs
        ):
            return None
        head = c.text[: first.start]
        if _comparator(head[-60:], "")[0] != "upper" or c.review:
            return None  # a cap only ('max', 'capped at', 'up to'), never a review threshold
        limits = []
        for q in qs:
            written = c.text[q.start : q.end]
            made = _numeric_checks(
                c.index,
                c.source,
                f"{head}{written}",
                [replace(q, start=len(head), end=len(head) + len(written))],
                c.previous,
                c.effect,
                c.review,
                c.negated,
                c.allow,
                c.carry if not c.own_subject else "",
            )
            if len(made) != 1 or not isinstance(made[0], NumericLimit) or made[0].window:
                return None
            limits.append(made[0])
        return [
            KeyedLimit(
                c.index,
                c.source,
                limits[0].effect,
                limits[0].terms,
                limits[0].alternatives,
                keys=tuple(names),
                limits=tuple(limits),
                noun=keys[0][1].lower(),
            )
        ]


# a month's name right before a number: the number is its day ('Dec 24', 'May 1')
_DAY_OF_A_MONTH = re.compile(
    r"(?:\b(?i:jan|january|feb|february|mar|march|apr|april|jun|june|jul|july|aug|august|sep|"
    r"sept|september|oct|october|nov|november|dec|december)\.?|\bMay)\s+\d{1,2}(?![\d,.])"
)


class NumericRecogniser(Recogniser):
    """Caps, floors and review thresholds on amounts, counts and sizes, per request or window."""

    kind = "numeric_limit"

    def recognise(self, c: Clause) -> list[Check] | None:
        if (
            not c.review
            and re.match(r"(?:do not|don't|never)\b", c.text, re.I)
            and _WITHOUT_FLAG.search(c.text)
        ):
            return None  # 'Do not share … of patients under 16 without consent': a required flag
        if _DAY_OF_A_MONTH.search(c.text):
            # 'Sends Dec 24-26 need marketing approval': a day of a month, not an amount (read as
            # 'amount at or above 24', a send of 10 on Dec 25 was approved)
            return None
        numeric = _numeric_checks(
            c.index,
            c.source,
            c.text,
            c.quantities,
            c.previous,
            c.effect,
            c.review,
            c.negated,
            c.allow,
            c.subject_carry if _bare_anaphor(c) else (c.carry if not c.own_subject else ""),
        )
        return numeric or None

    def next_quantity(self, c: Clause) -> Quantity | None:
        return c.quantities[-1] if c.quantities else c.previous


# 'Patients under 18, pregnant or immunocompromised', 'Invoices older than 90 days, disputed or
# partially paid': a bound that is one of a list of conditions, any one of which is enough. Read
# as the bound alone (the other conditions left as words the request had to show), a pregnant
# adult or a disputed invoice of ten days passed. Nothing here reads such a list: kept as text.
_CONDITIONS_AFTER = re.compile(
    r"\s*,\s*(?!(?:and|or|but|which|who|whichever|unless|except|including|e\.g)\b)"
    r"[a-z]+(?:[\s-][a-z]+)?\s*(?:,|\s+or\s+)"
)
_CONDITIONS_BEFORE = re.compile(
    r"\b[a-z]+(?:\s*,\s*[a-z]+)*\s*,?\s+or\s+(?:under|over|above|below|older\s+than|"
    r"younger\s+than|more\s+than|less\s+than|aged)\s+(?:\$|€|£)?$"
)


def _quantity_in_a_list_of_conditions(text: str, q: Quantity) -> bool:
    """True when the quantity at `q` is one item of an or-list of conditions."""
    return bool(_CONDITIONS_AFTER.match(text, q.end) or _CONDITIONS_BEFORE.search(text[: q.start]))


_PLACE_PHRASE = re.compile(
    r"\b(?:in|to|from|within|for|based in|located in)\s+(?:the\s+)?"
    r"(?P<names>[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?(?:\s*(?:,|or|and)\s*[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?)*)"
)


class PlaceConditionRecogniser(Recogniser):
    """'Patients in the EEA must not be enrolled without a signed consent form': an obligation
    that applies only where the subject names places. Without this reading the place would be
    taken for a deny-list and the obligation dropped."""

    kind = "when_listed"

    def recognise(self, c: Clause) -> list[Check] | None:
        predicate_at = _predicate_position(c.text)
        if predicate_at is None:
            return None
        m = _PLACE_PHRASE.search(c.text[:predicate_at])
        without = re.search(r"\bwithout\b", c.text)
        if not m and without and re.match(r"(?:do not|don't|never|must not|no)\b", c.text, re.I):
            # 'Do not contact leads from the EU without consent': the places follow the verb.
            m = _PLACE_PHRASE.search(c.text[: without.start()])
        if not m:
            return None
        names = [
            n.strip()
            for n in re.split(r"\s*(?:,|\bor\b|\band\b)\s*", m.group("names"))
            if n.strip()
        ]
        codes = [_place(n) for n in names]
        if not names or not all(codes):
            return None
        rest = c.text[: m.start()] + c.text[m.end() :]
        body = _required_checks(c.index, c.source, rest, c.review)
        if len(body) != 1:
            return None
        condition = ValueList(
            c.index, c.source, "deny", (), (), "deny", tuple(x for x in codes if x), "place", ()
        )
        b = body[0]
        return [
            WhenListed(
                c.index, c.source, b.effect, b.terms, b.alternatives, condition=condition, body=b
            )
        ]


class ComparisonRecogniser(Recogniser):
    """'The refund amount must not exceed the original charge amount': two arguments joined."""

    kind = "argument_comparison"

    def recognise(self, c: Clause) -> list[Check] | None:
        join = _join_check(c.index, c.source, c.text, c.effect, c.review)
        return [join] if join else None


# ---------------------------------------------------------------------------------------------
# A bound given by another argument as a share or a multiple of it (jrel): 'Fee can't exceed 20%
# of candidate's first-year base', 'Security deposit may not exceed 1.5x the monthly rent',
# 'Credit limit increases can't be more than double the existing limit', 'max 2x the current
# limit per request', 'A budget may be raised by at most 20% in a single change', 'Price
# increases can't be more than 5% above the current price'. Read as a bare percentage or
# multiple, the rule compared an amount with 20 or 2 (or was labelled understood while never
# deciding). One `ArgumentComparison` with a factor; which arguments are the two sides is decided
# at evaluation (`checks._bind_sides`), and a side not clearly bound is review.
_REL_CAP = (
    r"(?:must|may|should|shall|can|will)\s+not\s+(?:exceed|be\s+(?:more|greater|larger|higher)\s+"
    r"than|be\s+above)|(?:can't|cannot|mustn't|shouldn't|won't|can\s+not)\s+(?:exceed|be\s+(?:more|"
    r"greater|larger|higher)\s+than|be\s+above)|not\s+to\s+exceed|never\s+(?:exceeds?|above|more\s+"
    r"than)|must\s+be\s+(?:at\s+most|no\s+more\s+than)|(?:is|are)\s+capped\s+at|<=|\u2264|"
    # 'Temp limit <= 2x current limit' (written 'at most' once read): a bound before a factor
    r"(?<!\bbe\s)(?:at\s+most|no\s+more\s+than)"
)
_REL_FLOOR = (
    r"must\s+be\s+(?:at\s+least|no\s+less\s+than)|(?:must|may|should|shall|can)\s+not\s+be\s+"
    r"(?:less|lower)\s+than|(?:can't|cannot|mustn't)\s+be\s+(?:less|lower)\s+than|>=|\u2265"
)
_REL_FACTOR = (
    r"(?:(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>%|percent\b|x\b|\u00d7|times\b)|(?P<word>double|twice|"
    r"triple|three\s+times))"
)
_REL_SIDE = (
    r"(?P<right>[a-z][a-z0-9]*_[a-z0-9_]+|[a-z][a-z'\u2019\-]*(?:\s+[a-z][a-z'\u2019\-]*){0,3}?)"
)
# what the bound is per ('per request', 'in a single change'): each request, which is what a
# comparison of two of its arguments judges
_REL_TAIL = (
    r"(?P<tail>\s+(?:per|each|a|in\s+a|in\s+one|for\s+a|in\s+any)\s+(?:single\s+)?(?:request|"
    r"change|time|go|step|update|adjustment))?"
)
_REL_OF = r"(?:of\s+)?(?:(?:the|their|its|his|her|a|an)\s+)?"
_REL_BOUND = re.compile(
    r"^(?P<left>.*?)\s*(?P<cap>" + _REL_CAP + r")|(?P<floor>" + _REL_FLOOR + r")"
    r"|(?P<max>^\s*max(?:imum)?(?:\s+of)?)",
    re.I,
)
_REL_REST = re.compile(
    r"\s*" + _REL_FACTOR + r"\s+" + _REL_OF + r"(?:(?P<over>above|over|on\s+top\s+of)\s+"
    r"(?:the\s+)?)?" + _REL_SIDE + _REL_TAIL + r"\s*\.?$",
    re.I,
)
# 'A budget may be raised by at most 20% in a single change'
_REL_RAISED_BY = re.compile(
    r"^(?P<left>.+?)\s+(?:(?:may|can|must|should|shall)\s+(?:only\s+)?be\s+(?:raised|increased|"
    r"lifted|bumped|uplifted)\s+by\s+(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|a\s+"
    r"max(?:imum)?\s+of|max(?:imum)?)|(?:may|can|must|should|shall)\s+not\s+be\s+(?:raised|"
    r"increased)\s+by\s+more\s+than|(?:can't|cannot|mustn't)\s+be\s+(?:raised|increased)\s+by\s+"
    r"more\s+than)\s+(?P<num>\d+(?:\.\d+)?)\s*(?:%|percent\b)" + _REL_TAIL + r"\s*\.?$",
    re.I,
)
# "Raising a client's margin limit (new_limit_usd) by more than 20% of current_limit_usd needs
# Risk Manager approval": the two arguments named, the change over the current one reviewed
_REL_RAISING = re.compile(
    r"^(?:raising|increasing)\s+(?P<left>[^()]+?)\s*(?:\(\s*(?P<named>[a-z][a-z0-9]*_[a-z0-9_]+)"
    r"\s*\)\s*)?by\s+(?:more\s+than|over|above)\s+(?P<num>\d+(?:\.\d+)?)\s*(?:%|percent\b)\s+"
    r"(?:of|over|above)\s+(?:the\s+)?(?P<right>[a-z][a-z0-9]*_[a-z0-9_]+)\s+(?:needs?|requires?)\b",
    re.I,
)
# 'Scaling up to more than 3x the current replica count needs a capacity review by SRE': what
# lies beyond a multiple of the current value goes to a person
_REL_BEYOND = re.compile(
    r"^(?P<left>.+?)\s+(?:up\s+)?to\s+(?:more\s+than|over|above|beyond)\s+"
    + _REL_FACTOR
    + r"\s+"
    + _REL_OF
    + _REL_SIDE
    + r"\s+(?:needs?|requires?|go(?:es)?\s+to)\b",
    re.I,
)
_REL_WORDS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "three times": 3.0}
_REL_CHANGE_NOUNS = frozenset(
    stem(w) for w in "increase increases raise raises rise rises hike hikes uplift uplifts".split()
)


def _rel_stems(text: str) -> tuple[str, ...]:
    return tuple(
        s
        for s in content_stems(re.sub(r"['\u2019]s\b", "", text))
        if s not in GENERIC and s not in _EFFECT_STEMS
    )


class RelativeBoundRecogniser(Recogniser):
    """A bound that is a share or a multiple of another argument of the request, or a cap on the
    change from its current value (see the section comment above)."""

    kind = "argument_comparison"

    def recognise(self, c: Clause) -> list[Check] | None:
        effect = "review" if c.review else "deny"
        text = c.text.strip()
        m = _REL_RAISING.match(text)
        if m and c.review:
            return [
                ArgumentComparison(
                    c.index,
                    c.source,
                    effect,
                    _subject_terms(_rel_stems(m.group("left"))),
                    (),
                    "gt",
                    _rel_stems(m.group("left")),
                    (),
                    float(m.group("num")) / 100.0,
                    True,
                    True,
                    m.group("named") or "",
                    m.group("right"),
                    about_words=_rel_stems(m.group("left"))
                    + ("rais", "increas", "by")
                    + _tail_words(f"{m.group('named') or ''} {m.group('right')}"),
                    phrases=(_bare(m.group("left")), "", f"{m.group('num')}%"),
                )
            ]
        m = _REL_BEYOND.match(text)
        if m and c.review and set(_rel_stems(m.group("right"))) & _REL_NOW:
            factor = _REL_WORDS.get(re.sub(r"\s+", " ", (m.group("word") or "").lower()))
            share = bool(m.group("unit")) and m.group("unit").lower() in ("%", "percent")
            if factor is None:
                factor = float(m.group("num")) / (100.0 if share else 1.0)
            left = _rel_stems(m.group("left"))
            return [
                ArgumentComparison(
                    c.index,
                    c.source,
                    effect,
                    _subject_terms(left),
                    (),
                    "gt",
                    left,
                    _rel_stems(m.group("right")),
                    factor,
                    False,
                    True,
                    about_words=left + _tail_words(m.group("word")) + ("up",),
                    phrases=(
                        "",
                        _bare(m.group("right")),
                        (m.group("word") or "").lower()
                        or f"{m.group('num')}{'%' if share else 'x'}",
                    ),
                )
            ]
        if c.review:
            return None
        m = _REL_RAISED_BY.match(text)
        if m:
            left = _rel_stems(m.group("left"))
            if not left:
                return None
            return [
                ArgumentComparison(
                    c.index,
                    c.source,
                    effect,
                    _subject_terms(left),
                    (),
                    "gt",
                    left,
                    left,
                    float(m.group("num")) / 100.0,
                    True,
                    True,
                    about_words=_tail_words(m.group("tail")) + ("rais", "increas", "by"),
                    phrases=(_bare(m.group("left")), _bare(m.group("left")), f"{m.group('num')}%"),
                )
            ]
        b = _REL_BOUND.search(text)
        if b is None:
            return None
        if b.group("max"):
            op, left_text, rest_at = "gt", "", b.end()
        elif b.group("cap"):
            op, left_text, rest_at = "gt", b.group("left"), b.end()
        else:
            op, left_text, rest_at = "lt", text[: b.start()], b.end()
        if b.group("cap") and ":" in left_text:
            return None  # 'Increases on rent-stabilized units: no more than 3% per renewal'
        r = _REL_REST.match(text, rest_at)
        if r is None or r.group("right").split()[0].lower() in STOPWORDS:
            return None  # '… 3% per renewal' names no other amount
        if (
            r.group("unit")
            and r.group("unit").lower() in ("%", "percent")
            and not r.group("over")
            and not re.match(r"\s*[\d.]+\s*(?:%|percent)\s+of\b", text[rest_at:], re.I)
        ):
            return None  # a share is of something ('20% of the base')
        if r.group("word"):
            factor = _REL_WORDS[re.sub(r"\s+", " ", r.group("word").lower())]
        factor_is_share = bool(r.group("unit")) and r.group("unit").lower() in ("%", "percent")
        if r.group("word"):
            pass
        elif factor_is_share:
            factor = float(r.group("num")) / 100.0
        else:
            factor = float(r.group("num"))
        if factor <= 0:
            return None
        right_text = r.group("right")
        named_right = right_text if "_" in right_text else ""
        right = _rel_stems(right_text) if not named_right else ()
        left = _rel_stems(left_text)
        paired = bool(set(right) & _REL_NOW) or bool(named_right and not left)
        change = bool(r.group("over")) or False
        if change and not (paired and factor < 1.0 and set(left) & _REL_CHANGE_NOUNS):
            return None  # '5% above the current price' is a change only of an increase
        if not paired and (not left or not right):
            return None
        if not (right or named_right):
            return None
        return [
            ArgumentComparison(
                c.index,
                c.source,
                effect,
                _subject_terms(tuple(t for t in left if t not in _REL_CHANGE_NOUNS) or left),
                (),
                op,
                left,
                right,
                factor,
                change,
                paired,
                "",
                named_right,
                about_words=_tail_words(r.group("tail"))
                + tuple(_REL_CHANGE_NOUNS & set(left))
                + _tail_words(r.group("word"))
                + _tail_words(named_right),
                phrases=(
                    _bare(left_text) if not paired else "",
                    _bare(right_text) if not named_right else "",
                    r.group("word").lower()
                    if r.group("word")
                    else f"{r.group('num')}{'%' if factor_is_share else 'x'}",
                ),
            )
        ]


_REL_NOW = frozenset(stem(w) for w in "current existing old previous prior present".split())


def _relative_review_after(clause: str, made: list[Check], before: list[Check]) -> list[Check]:
    """'max 2x the current limit per request; bigger jumps go to infra review', 'Temp limit up to
    double the current limit; anything more -> CFO': what lies beyond a bound given by another
    argument goes to review, so the bound is where review starts, not a prohibition. The
    clause opens on the comparative (`_ANAPHOR`) and asks for a person; its words are who
    reviews and what lies beyond."""
    if not before or not made or not isinstance(before[-1], ArgumentComparison):
        return made
    prior = before[-1]
    if prior.effect != "deny" or not (prior.factor != 1.0 or prior.paired or prior.change):
        return made
    m = _ANAPHOR.search(clause)
    if m is None or clause[: m.start()].strip(" ,") not in ("", "anything", "everything"):
        return made
    if not REVIEW.search(clause) or not all(c.effect == "review" for c in made):
        return made
    before.pop()
    read = tuple(stem(w) for w in words(clause))
    return [replace(prior, effect="review", about_words=prior.about_words + read)]


def _tail_words(tail: str | None) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(tail or ""))


_PHRASE3 = r"(?:[a-z]+\s+){0,2}[a-z]+"
# What one side of a relation is called: 'the bank account holder name', "the supplier's legal
# name" (a possessive names whose it is).
_SIDE = r"[a-z][a-z\-]*(?:'s)?(?:\s+[a-z][a-z\-]*(?:'s)?){0,3}"
# 'No withdrawals to a payment method different from the deposit method'
_DIFFERENT = re.compile(
    r"^(?P<head>.*?\b(?:to|with|from|on|for|in|into|using)\s+(?:a|an|any)\s+)(?P<left>"
    + _PHRASE3
    + r")\s+(?:(?:that|which)\s+(?:is|are)\s+)?(?:different from|different than|"
    r"that differs? from|differing from)\s+(?:the|its|their)\s+(?P<right>" + _PHRASE3 + r")\s*\.?$",
    re.I,
)
# 'The payout currency must match the invoice currency'
_MATCH = re.compile(
    r"^(?:the\s+|a\s+|an\s+|each\s+|every\s+)?(?P<left>"
    + _SIDE
    + r")\s+(?:must|should|shall|has to|have to)\s+(?:always\s+)?(?:match|equal|be the same as)\s+"
    r"(?:the|its|their)\s+(?P<right>" + _SIDE + r")\s*\.?$",
    re.I,
)
SAME_WORDS = frozenset(
    stem(w) for w in "different differs differ differing match equal same".split()
)


# the subject's words stop at its verb: 'card refunds only go back …'
_SUBJECT_WORD = (
    r"(?!(?:only|must|shall|should|will|may|can|has|have|is|are|needs?|go|goes|be|in|to)\b)"
    r"[a-z][a-z\-]*"
)
_RELATION_SUBJECT = (
    r"(?P<subject>(?:(?:the|a|an|each|every|all|any)\s+)?"
    + _SUBJECT_WORD
    + r"(?:\s+"
    + _SUBJECT_WORD
    + r"){0,2})"
)
_RELATION_MODAL = r"(?:must|shall|should|will|may|can|has to|have to|is to|are to|needs? to)"
# 'the original payment method', 'the card they came from', 'the card used for the original
# payment': the reference side, named by where the value came from
_ORIGINAL_REF = (
    r"(?:(?:original|initial)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)"
    r"|(?P<attr2>[a-z]+(?:\s+[a-z]+)?)\s+(?:they|it)\s+came\s+from"
    r"|(?P<attr3>[a-z]+(?:\s+[a-z]+)?)\s+used\s+(?:for|on|in)\s+the\s+original\s+(?P<of>[a-z]+))"
)
_BACK_VERB = (
    r"(?:go|goes|be\s+paid|be\s+refunded|be\s+returned|be\s+issued|be\s+sent|be\s+made|"
    r"be\s+credited|paid|refunded|returned|issued|sent|credited)"
)
# 'Refunds go back only to the original payment method', 'A refund must be paid back to the
# original payment method', 'card refunds only go back to the card they came from'
_BACK_TO_ORIGINAL = re.compile(
    r"^"
    + _RELATION_SUBJECT
    + r"(?:\s+"
    + _RELATION_MODAL
    + r")?(?:\s+only)?\s+"
    + _BACK_VERB
    + r"(?:\s+back)?(?:\s+only)?\s+to\s+(?:the\s+)?"
    + _ORIGINAL_REF
    + r"(?:\s+only)?\s*\.?$",
    re.I,
)
# 'Refunds: original payment method only', 'Refunds only to the original payment method'
_ORIGINAL_ONLY = re.compile(
    r"^"
    + _RELATION_SUBJECT
    + r"\s*(?::\s*|\s+only\s+)(?:to\s+)?(?:the\s+)?"
    + _ORIGINAL_REF
    + r"(?:\s+only)?\s*\.?$",
    re.I,
)
# 'Refunds may not be issued to a payment method other than the original one', 'No refunds to
# any payment method other than the original', 'to a different card than the original', '… other than the original one need Payments
# team approval', 'Refunds shall not be issued to any card other than the card used for the
# original payment'
_OTHER_THAN_ORIGINAL = re.compile(
    r"^(?P<head>.*?\b(?:to|into|onto)\s+(?:a|an|any)\s+)(?P<different>different\s+)?"
    r"(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+"
    r"(?:other\s+than|besides|(?(different)(?:than|from)|(?!)))\s+(?:the\s+)?(?:original(?:\s+one|\s+(?P=attr))?|"
    r"(?P<attr3>[a-z]+(?:\s+[a-z]+)?)\s+used\s+(?:for|on|in)\s+the\s+original\s+(?P<of>[a-z]+))"
    r"(?P<tail>\s+(?:are|is)\s+(?:not\s+(?:permitted|allowed)|forbidden|prohibited)|"
    r"\s+(?:need|needs|require|requires)\s+[a-z][a-z\s']*)?\s*\.?$",
    re.I,
)
# 'Credit notes must be in the invoice currency', "Quotes must be in the customer's billing
# currency", "Orders shall be issued in the currency of the supplier's contract", 'refunds only
# in the charge currency'
_IN_CURRENCY_OF = re.compile(
    r"^" + _RELATION_SUBJECT + r"(?:\s+" + _RELATION_MODAL + r")?(?:\s+only)?(?:\s+be)?"
    r"(?:\s+(?P<verb>issued|made|paid|stated|denominated|raised|billed|quoted|invoiced|settled|"
    r"priced|booked))?(?:\s+only)?\s+in\s+(?:the\s+)?(?:(?P<ref>" + _SIDE + r")\s+currency|"
    r"currency\s+of\s+(?:the\s+|its\s+|their\s+)?(?P<ref2>" + _SIDE + r"))(?:\s+only)?\s*\.?$",
    re.I,
)
# 'New address must be in the same country as the original address', 'Payouts must use the same
# currency as the invoice'
_SAME_AS = re.compile(
    r"^" + _RELATION_SUBJECT + r"\s+" + _RELATION_MODAL + r"\s+(?P<verb>use|be\s+in|be\s+paid\s+in|"
    r"be\s+made\s+in|be\s+issued\s+in|have|be\s+of)\s+the\s+same\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)"
    r"\s+as\s+(?:the|its|their)\s+(?P<ref>" + _SIDE + r")\s*\.?$",
    re.I,
)
# 'Tickets may only be reassigned to agents in the same team as the current assignee'
_TO_SAME_AS = re.compile(
    r"^"
    + _RELATION_SUBJECT
    + r"\s+"
    + _RELATION_MODAL
    + r"\s+only\s+be\s+(?P<verb>[a-z]+ed)\s+to\s+(?P<whom>[a-z]+)\s+(?:in|of|from|within)\s+"
    r"the\s+same\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+as\s+(?:the|its|their)\s+(?P<ref>"
    + _SIDE
    + r")\s*\.?$",
    re.I,
)
# 'Account owner changes are only allowed between reps in the same sales region', 'Leads can
# only be transferred between reps in the same territory'
_BETWEEN_SAME = re.compile(
    r"^"
    + _RELATION_SUBJECT
    + r"\s+(?:(?:are|is)\s+only\s+(?:allowed|permitted)|"
    + _RELATION_MODAL
    + r"\s+only\s+be\s+(?P<verb>made|done|[a-z]+ed))\s+between\s+(?P<whom>[a-z]+)\s+"
    r"(?:in|of|from|within)\s+the\s+same\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s*\.?$",
    re.I,
)
# Words that say which side is the request's own ('new address'), kept though generic elsewhere.
_OWN_SIDE_NAMES = frozenset({"new"})
_RELATION_VERB = re.compile(
    r"\s+(?:" + _RELATION_MODAL + r"|may not|must not|shall not|cannot|can't|are|is|go|goes|"
    r"only)\b.*$",
    re.I,
)


def _side_stems(phrase: str) -> tuple[str, ...]:
    """The stems naming one side of a relation ('the customer's billing currency')."""
    return tuple(
        s
        for s in content_stems(re.sub(r"'s\b", "", phrase))
        if s not in GENERIC or s in _OWN_SIDE_NAMES
    )


def _relation_terms(subject: str) -> tuple[str, ...]:
    """What a relation rule is about: its subject noun phrase, without the verb after it."""
    head = _RELATION_VERB.sub("", re.sub(r"^\s*no\s+", "", subject, flags=re.I))
    return _subject_terms(_terms(head, cut_review=False))


class SameValueRecogniser(Recogniser):
    """Two arguments that must hold the same value (a relation, not a list or a limit): one
    class, a table of the ways staff write it (`_SHAPES`)."""

    kind = "same_value"

    def recognise(self, c: Clause) -> list[Check] | None:
        if c.quantities:
            return None
        for shape in _SHAPES:
            made = shape(c)
            if made:
                return made
        return None


def _restricts(c: Clause, text: str) -> bool:
    """An obligation or an 'only', not a bare permission ('may be refunded to …')."""
    if re.search(r"\bonly\b", text, re.I):
        return True
    return not re.search(r"\b(?:may|can)\b", text, re.I)


def _same_value(
    c: Clause,
    terms: tuple[str, ...],
    left: tuple[str, ...],
    right: tuple[str, ...],
    left_phrase: str,
    right_phrase: str,
    **kw: Any,
) -> list[Check] | None:
    if not left or not right or set(left) == set(right):
        return None
    if not kw.get("attribute") and not set(left) & set(right):
        return None  # 'the bank account holder' and 'the legal name': what both are is unsaid
    return [
        SameValue(
            c.index,
            c.source,
            kw.pop("effect", "deny"),
            terms,
            (),
            left,
            right,
            left_phrase,
            right_phrase,
            **kw,
        )
    ]


def _bare(subject: str) -> str:
    """'the refunds' -> 'refunds', for readings."""
    return re.sub(r"^(?:the|a|an|each|every|all|any)\s+", "", subject.strip(), flags=re.I)


def _read_words(*parts: str | None) -> tuple[str, ...]:
    return tuple(stem(w) for p in parts if p for w in words(p))


def _matching_sides(c: Clause) -> list[Check] | None:
    """'The payout currency must match the invoice currency', 'No withdrawals to a payment
    method different from the deposit method'."""
    if c.review:
        return None
    m = _DIFFERENT.match(c.text)
    if m is not None and NEGATION.search(m.group("head")):
        terms = _terms(m.group("head"), cut_review=False)
    else:
        m = _MATCH.match(c.text)
        if m is None or c.negated:
            return None
        terms = ()
    left = _side_stems(m.group("left"))
    right = _side_stems(m.group("right"))
    return _same_value(
        c,
        _subject_terms(terms or left),  # 'the payout currency …': what the rule is about
        left,
        right,
        re.sub(r"^(?:the|a|an|each|every)\s+", "", m.group("left").strip(), flags=re.I),
        m.group("right").strip(),
    )


def _original_ref(m: re.Match[str]) -> tuple[str, str]:
    """(the attribute as written, the reference as written) of an `_ORIGINAL_REF` match."""
    attr = m.group("attr") or m.group("attr2") or m.group("attr3") or ""
    return attr, f"original {attr}"


def _back_to_original(c: Clause) -> list[Check] | None:
    """'Refunds go back to the original payment method only': the destination must be the
    original."""
    m = _BACK_TO_ORIGINAL.match(c.text) or _ORIGINAL_ONLY.match(c.text)
    if m is not None and c.negated:
        # 'Refunds must not go back to the original payment method': read as subject words it
        # approved a refund to the original; the reverse relation is left to a human (text)
        return []
    if m is None or c.review or not _restricts(c, c.text):
        return None
    attr, ref = _original_ref(m)
    attribute = _side_stems(attr)
    subject = m.group("subject")
    return _same_value(
        c,
        _relation_terms(subject),
        attribute,
        ("origin", *attribute),
        f"{attr} the {_bare(subject)} go to",
        ref,
        attribute=attribute,
        mode="to",
        about_words=_read_words(
            c.text[m.end("subject") : m.start("attr") if m.group("attr") else len(c.text)],
            "original back came used they it only",
            m.group("of"),
        ),
    )


def _other_than_original(c: Clause) -> list[Check] | None:
    """'Refunds may not be issued to a payment method other than the original one' (deny), '…
    need Payments team approval' (review)."""
    m = _OTHER_THAN_ORIGINAL.match(c.text)
    if m is None:
        return None
    tail = m.group("tail") or ""
    review = c.review and bool(re.match(r"\s+(?:need|require)", tail, re.I))
    if not review and not (NEGATION.search(m.group("head")) or NEGATION.search(tail)):
        return None
    attr = m.group("attr")
    attribute = _side_stems(attr)
    if m.group("attr3") and _side_stems(m.group("attr3")) != attribute:
        return None  # 'to any card other than the account used for …': two things
    head = re.sub(r"\b(?:to|into|onto)\s+(?:a|an|any)\s+$", "", m.group("head"), flags=re.I)
    return _same_value(
        c,
        _relation_terms(head),
        attribute,
        ("origin", *attribute),
        f"{attr} the {surface_words(c.source, _relation_terms(head)) or 'request'} go to",
        f"original {attr}",
        effect="review" if review else "deny",
        attribute=attribute,
        mode="to",
        about_words=_read_words(
            head, "other than besides different from original one used", m.group("of")
        ),
    )


def _in_currency_of(c: Clause) -> list[Check] | None:
    """'Credit notes must be in the invoice currency', "Orders shall be issued in the currency
    of the supplier's contract": the request's currency is the other thing's."""
    m = _IN_CURRENCY_OF.match(c.text)
    if m is None or c.negated or c.review or not _restricts(c, c.text):
        return None
    ref = m.group("ref") or m.group("ref2")
    if _CURRENCY_NAMES.get(" ".join(ref.lower().split())) or ref.upper() in CURRENCY_CODES:
        return None  # 'in the euro currency': a list, RequiredCurrencyRecogniser's
    return _same_value(
        c,
        _relation_terms(m.group("subject")),
        ("currency",),
        (*_side_stems(ref), "currency"),
        f"currency of the {_bare(m.group('subject'))}",
        f"{ref} currency",
        attribute=("currency",),
        about_words=_read_words(m.group("verb"), "only"),
    )


def _same_as(c: Clause) -> list[Check] | None:
    """'New address must be in the same country as the original address', 'Tickets may only be
    reassigned to agents in the same team as the current assignee'."""
    m = _SAME_AS.match(c.text) or _TO_SAME_AS.match(c.text)
    if m is None or c.negated or c.review:
        return None
    attribute = _side_stems(m.group("attr"))
    subject = m.group("subject")
    whom = m.groupdict().get("whom")
    left = (*_side_stems(whom or subject), *attribute)
    return _same_value(
        c,
        _relation_terms(subject),
        left,
        (*_side_stems(m.group("ref")), *attribute),
        f"{m.group('attr')} of the {whom or _bare(subject)}",
        f"{m.group('attr')} of the {m.group('ref')}",
        attribute=attribute,
        about_words=_read_words(m.group("verb"), "same as only to", whom),
    )


def _between_same(c: Clause) -> list[Check] | None:
    """'Account owner changes are only allowed between reps in the same sales region'."""
    m = _BETWEEN_SAME.match(c.text)
    if m is None or c.negated or c.review:
        return None
    attribute = _side_stems(m.group("attr"))
    return _same_value(
        c,
        _relation_terms(m.group("subject")),
        _side_stems(m.group("whom")),
        attribute,
        m.group("whom"),
        m.group("attr"),
        attribute=attribute,
        mode="between",
        about_words=_read_words("between same only", m.group("verb"), m.group("whom")),
    )


_SHAPES = (
    _matching_sides,
    _back_to_original,
    _other_than_original,
    _in_currency_of,
    _same_as,
    _between_same,
)


# 'Never include psychotherapy notes in a shared record': what a request carries, listed in
# one of its list-valued arguments ('sections': ['labs', 'psychotherapy_notes']).
_INCLUDE_CONTENT = re.compile(
    r"^(?:never|do not|don't|must not|may not|cannot|can't)\s+(?P<verb>include|attach|put|add|embed)\s+"
    r"(?:any\s+)?(?P<what>[a-z][a-z\-]+(?:\s+[a-z][a-z\-]+){1,2})\s+(?:in|into|to|on|with)\s+"
    r"(?:a|an|the|any)?\s*(?P<container>[a-z][a-z\-]+(?:\s+[a-z][a-z\-]+){0,2})\s*\.?$",
    re.I,
)


# 'Screening criteria must not include source of income, familial status or disability',
# 'Prohibited basis factors (age, race, sex) are never to be used in the decision': a closed list
# of kinds of content, written in plain words, that no list argument may carry.
_CONTENT_ITEM = r"[a-z][a-z\-]*(?:\s+(?:of\s+)?[a-z][a-z\-]*){0,2}"
_CONTENT_ITEMS = (
    r"(?P<items>"
    + _CONTENT_ITEM
    + r"(?:\s*,\s*"
    + _CONTENT_ITEM
    + r")*\s*,?\s+(?:or|and|nor)\s+"
    + _CONTENT_ITEM
    + r")"
)
_MUST_NOT_INCLUDE_LIST = re.compile(
    r"^(?P<container>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})\s+(?:must not|may not|cannot|can't|"
    r"shall not|should not|must never|may never)\s+(?P<verb>include|contain|use|consider)\s+"
    + _CONTENT_ITEMS
    + r"\s*\.?$"
)
_BRACKETED_NEVER_USED = re.compile(
    r"^(?P<kind>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,3})\s*\((?P<items>[a-z][a-z\s,\-]*)\)\s+"
    r"(?:are|is|must|may|shall|should|can)\s+(?:never|not)\s+(?:to\s+)?(?:be\s+)?"
    r"(?P<verb>used|considered|included)\s+(?:in|for|on|by)\s+(?:the|a|an|any)?\s*"
    r"(?P<container>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})\s*\.?$"
)


# 'Never export tenant SSNs, bank account details or background check reports', 'Never submit
# evidence that includes full card numbers': names of the data an act must not carry, listed as
# the act's object or after what holds them.
_NAME_WORDS = r"[A-Za-z][A-Za-z0-9_]*(?:\s+[A-Za-z][A-Za-z0-9_]*){0,3}"
_CONTENT_ACTS = (
    r"export|share|send|disclose|expose|release|transmit|upload|sync|copy|email|return|submit|"
    r"print|publish|reveal|download|extract|attach|pass|forward|log|store"
)
_NEVER_ACT = (
    r"^(?:never|do not|don't|must not|may not|cannot|can't|should not|shall not|"
    r"(?:[a-z]+\s+){1,2}(?:must|may|should|shall)\s+(?:never|not))\s+"
)
_NAMES_AFTER_ACT = re.compile(
    _NEVER_ACT
    + r"(?P<verb>"
    + _CONTENT_ACTS
    + r")\s+(?:(?:any|the)\s+)?(?P<items>"
    + _NAME_WORDS
    + r"(?:\s*,\s*"
    + _NAME_WORDS
    + r")*\s*,?\s+(?:or|and|nor)\s+"
    + _NAME_WORDS
    + r")\s*\.?$",
    re.I,
)
_NAMES_IN_CONTAINER = re.compile(
    _NEVER_ACT
    + r"(?P<verb>"
    + _CONTENT_ACTS
    + r")\s+(?:(?:any|the|an?)\s+)?(?P<container>[a-z]+(?:\s+[a-z]+)?)\s+(?:that|which)\s+"
    r"(?:includes?|contains?|carry|carries|holds?|shows?|exposes?)\s+(?:any\s+)?(?P<items>"
    + _NAME_WORDS
    + r"(?:(?:\s*,\s*|\s*,?\s+(?:or|and|nor)\s+)"
    + _NAME_WORDS
    + r")*)\s*\.?$",
    re.I,
)
# Words that show a listed item names data a field holds ('card numbers', 'lab results').
_DATA_NOUNS = frozenset(
    "number numbers details detail data info information result results address addresses "
    "history id ids code codes score scores balance balances dob ssn ssns pan cvv iban salary "
    "salaries diagnosis diagnoses password passwords birth".split()
)
# The owner of the data ('tenant SSNs', 'patient lab results'): who it is about, not its name.
_DATA_OWNERS = frozenset(
    stem(w)
    for w in "tenant patient customer client user employee member vendor applicant candidate "
    "student subscriber contact cardholder staff guest resident borrower donor account "
    "consumer buyer seller driver".split()
)


class ContentNamesRecogniser(Recogniser):
    """Names of data an act must never carry, compared name by name with every member of the
    request's field or column list (or the list named for what holds them: 'evidence' binds
    `evidence_items`); a request carrying one is denied, one close to them goes to review. A word
    that qualifies rather than names ('sensitive', 'personal'), a place, an act or a function word
    among the names leaves the rule to other readings."""

    kind = "value_list"

    def recognise(self, c: Clause) -> list[Check] | None:
        if c.quantities or c.review or not c.negated:
            return None
        m = _NAMES_IN_CONTAINER.match(c.text) or _NAMES_AFTER_ACT.match(c.text)
        if m is None:
            return None
        items = [
            i.strip()
            for i in re.split(
                r"\s*,\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|and|nor)\s+", m.group("items")
            )
            if i.strip()
        ]
        container = m.groupdict().get("container") or ""
        if not items or (not container and len(items) < 2):
            return None
        owner = ""
        first = items[0].split()
        if stem(first[0].lower()) in _VALUE_KIND_NOUNS:
            return None  # 'Never export the columns ssn or salary': the kind, then its names
        if len(first) >= 2 and stem(first[0].lower()) in _DATA_OWNERS:
            owner, items[0] = first[0], " ".join(first[1:])
        if not any(
            "_" in i or re.fullmatch(r"[A-Z]{2,}s?", i) or set(i.lower().split()) & _DATA_NOUNS
            for i in items
        ):
            return None  # 'reports, invoices or statements': documents, not names of data
        for item in items:
            for k, w in enumerate(item.split()):
                low = w.lower()
                if (
                    low in STOPWORDS
                    or low in CATEGORY_QUALIFIERS
                    or (k == 0 and (stem(low) in VERBS or NORMATIVE.fullmatch(low)))
                    or stem(low) in GENERIC
                    or ("_" not in low and _QUALIFYING_WORD.fullmatch(low))
                ):
                    return None
        if find_places(m.group("items")):
            return None
        about = tuple(stem(w) for w in words(f"{owner} {container}") if w not in STOPWORDS)
        kind = tuple(
            sorted(_FIELD_KINDS | {stem(w) for w in words(container) if w not in STOPWORDS})
        )
        return [
            ValueList(
                c.index,
                c.source,
                "deny",
                (stem(m.group("verb").lower()),),
                (),
                "deny",
                tuple(items),
                "token",
                kind,
                about_words=about,
            )
        ]


# Named roles, Title Case ('Viewer, Support Agent or Org Admin').
_ROLE_NAME = r"[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2}"
_ROLE_NAMES = (
    r"(?P<items>" + _ROLE_NAME + r"(?:(?:\s*,\s*|\s*,?\s+(?:or|and)\s+)" + _ROLE_NAME + r")*)"
)


# 'Nobody gets Owner through the API', 'No one may be given the Org Admin or Billing Admin
# roles': named roles nobody may receive, a deny-list on the argument named for roles.
_NOBODY_GETS = re.compile(
    r"^(?i:nobody|no one|no user|no account|no member)\s+(?:(?:may|can|should|shall|is to)\s+)?"
    r"(?P<verb>gets?|be\s+given|be\s+granted|be\s+assigned|receives?|receive)\s+(?:the\s+)?"
    + _ROLE_NAMES
    + r"(?:\s+roles?)?(?P<via>\s+(?:through|via|from|by)\s+(?:the\s+)?(?i:api|agent|agents|bot|bots|"
    r"automation))?\s*\.?$"
)


class NobodyGetsRecogniser(Recogniser):
    """Named roles nobody may be given: a deny-list of them on the argument named for roles, for
    an act of giving (a tool that creates, assigns or grants)."""

    kind = "named_values"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _NOBODY_GETS.match(c.text)
        if m is None or c.quantities or c.review:
            return None
        items = [
            i.strip()
            for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", m.group("items"))
            if i.strip()
        ]
        if not items or any(i.lower() in STOPWORDS for i in items):
            return None
        about = tuple(stem(w) for w in words(m.group("via") or "") if w.lower() not in STOPWORDS)
        return [
            ValueList(
                c.index,
                c.source,
                "deny",
                ("give",),
                (),
                "deny",
                tuple(items),
                "exact",
                (stem("role"),),
                about_words=about + ("nobodi", "nobody", "get", "receiv", "give"),
            )
        ]


class ContentListRecogniser(Recogniser):
    """A closed list of kinds of content in plain words that no list argument of the request may
    carry ('source of income' is `source_of_income`), read like one named kind of content."""

    kind = "value_list"

    def recognise(self, c: Clause) -> list[Check] | None:
        if c.quantities or c.review:
            return None
        m = _MUST_NOT_INCLUDE_LIST.match(c.text) or _BRACKETED_NEVER_USED.match(c.text)
        if m is None:
            return None
        items = [
            i.strip()
            for i in re.split(
                r"\s*,\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|and|nor)\s+", m.group("items")
            )
            if i.strip()
        ]
        if len(items) < 2 or any(
            any(w in STOPWORDS and w != "of" or NORMATIVE.fullmatch(w) for w in i.split())
            or find_places(i)
            for i in items
        ):
            return None
        about_text = f"{m.group('verb')} {m.group('container')}"
        if m.re is _BRACKETED_NEVER_USED:
            about_text = f"{m.group('kind')} {about_text}"
        about = tuple(stem(w) for w in words(about_text) if w not in STOPWORDS)
        return [
            ValueList(
                c.index,
                c.source,
                "deny",
                (),
                (),
                "deny",
                tuple(i.lower() for i in items),
                "exact",
                ("content",),
                about_words=about,
            )
        ]


class IncludeContentRecogniser(Recogniser):
    """A named kind of content (two or three words) that no list argument of the request may
    carry, read whole ('psychotherapy notes' is `psychotherapy_notes`); the container is what
    the rule is about."""

    kind = "value_list"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _INCLUDE_CONTENT.match(c.text)
        if not m or c.quantities or c.review:
            return None
        what = m.group("what").lower()
        if any(w in STOPWORDS or NORMATIVE.fullmatch(w) for w in what.split()) or find_places(what):
            return None
        about = tuple(
            stem(w)
            for w in words(f"{m.group('verb')} {m.group('container')}")
            if w not in STOPWORDS
        )
        return [
            ValueList(
                c.index,
                c.source,
                "deny",
                (),
                (),
                "deny",
                (what,),
                "exact",
                ("content",),
                about_words=about,
            )
        ]


class FreezeRecogniser(Recogniser):
    """'The billing-api is under change freeze': any request naming the value is refused."""

    kind = "freeze"

    def recognise(self, c: Clause) -> list[Check] | None:
        frozen = _freeze_check(c.index, c.source, c.text)
        return [frozen] if frozen else None


# Nouns that name a kind of resource whose instances are named by literal values ('the datasets
# raw-events and audit-trail', 'tags prod, pci and billing_owner', 'the roles owner or admin').
_VALUE_KIND_NOUNS = frozenset(
    stem(w)
    for w in (
        "dataset table tag label column field role bucket project repo repository branch "
        "environment service cluster namespace account group queue topic index database schema "
        "key file folder directory channel workspace instance host server app application model "
        "team permission scope vault secret collection container image registry pipeline job "
        "module package feature flag attribute property category segment list mailbox site "
        "action operation region zone port protocol endpoint policy type carrier vendor supplier "
        "sku product plan tier"
    ).split()
)
_GROUP_NOUNS = frozenset(stem(w) for w in "group team channel org department unit".split())
_NAMED_ITEM = r"[`\"']?[A-Za-z0-9][\w\-./:*]*[`\"']?"
_NAMED_VALUES = re.compile(
    r"\b(?P<noun>[A-Za-z]+)\s+(?P<items>"
    + _NAMED_ITEM
    + r"(?:\s*,\s*"
    + _NAMED_ITEM
    + r")*\s*,?\s+(?:and|or|nor)\s+"
    + _NAMED_ITEM
    + r")(?![\w\-])"
)
# Verbs that say what a resource holds rather than what is done to it ('reports must never
# contain the columns …'): they are read by the list itself, not matched against the tool name.
_CONTENT_VERBS = frozenset(
    stem(w)
    for w in "contain contains include includes have has hold carry expose show list use using".split()
)


# After 'only … by/via/with' a plural noun and a list name the only values allowed, whatever
# their case ('may only go by carriers Fedex or Chronopost').
_ONLY_BY = re.compile(
    r"\bonly\b[^,;.]*?\b(?:by|via|with|through|using|use|on|in|from|to)\s+(?:the\s+)?"
    r"(?=[a-z]+s\s)",
    re.I,
)


_ITEMS_BEFORE = re.compile(
    r"(?P<items>"
    + _NAMED_ITEM
    + r"(?:\s*,\s*"
    + _NAMED_ITEM
    + r")*(?:\s*,?\s+(?:and|or|nor)\s+"
    + _NAMED_ITEM
    + r")?)\s+$"
)
_ITEMS_AFTER = re.compile(
    r"^\s+(?:(?:named|called|labelled|labeled|tagged)\s+)?(?P<items>"
    + _NAMED_ITEM
    + r"(?:\s*,\s*"
    + _NAMED_ITEM
    + r")*(?:\s*,?\s+(?:and|or|nor)\s+"
    + _NAMED_ITEM
    + r")?)(?![\w\-])"
)


# A scoped name, or a pattern of them ('org:*', 'reports:read_all', 'billing:write'): a value as
# written, never prose, even alone before its kind ('No keys with admin:* scope').
_SCOPED_NAME = re.compile(r"[A-Za-z][\w\-.]*(?::[\w\-.]+)*:(?:[\w\-.]+\*?|\*)")
# Kinds whose values are names an argument lists ('fields', 'columns', 'scopes'), compared
# name by name (`ValueList` match 'token'): each family binds the arguments named for any of it.
_FIELD_KINDS = frozenset(stem(w) for w in "field fields column columns col cols attribute".split())
_SCOPE_KINDS = frozenset(stem(w) for w in "scope scopes permission permissions".split())
# 'ssn, dob or full card number fields', 'diagnosis or medication columns': plain words (one to
# three a name, snake_case allowed) listed before a field-like kind noun.
_FIELD_WORD = r"[a-z][a-z0-9_]*(?:\s+[a-z][a-z0-9_]*){0,3}"
_FIELD_WORDS_BEFORE = re.compile(
    r"(?<![\w\-])(?P<items>"
    + _FIELD_WORD
    + r"(?:\s*,\s*"
    + _FIELD_WORD
    + r")*\s*,?\s+(?:or|and|nor)\s+"
    + _FIELD_WORD
    + r")\s+(?P<noun>fields?|columns?|cols?|attributes?)\b"
)
# A word that qualifies rather than names ('personal or sensitive fields', 'medical columns'):
# an open category, which only a vocabulary decides.
_QUALIFYING_WORD = re.compile(
    r"(?:[a-z]+(?:al|ive|ous|ed|able|ible|ful|less|ish)|other|any|all|some|such|these|"
    r"those|certain|special|extra|new|old|key|main|core|high|low|hidden|secret|raw)"
)


_ROLE_KINDS = frozenset(stem(w) for w in "role roles".split())
# 'Keys with admin scope', 'anyone who holds an admin role', 'created with read scope': one plain
# name before a scope, permission or role noun, after a word that introduces a thing's name.
_PLAIN_NAME_BEFORE = re.compile(
    r"\b(?:with|the|an?|any|no|has|have|holds?|holding|carrying|carries|carry)\s+"
    r"(?P<item>[A-Za-z][a-z0-9_\-]*)\s+(?P<noun>scopes?|roles?|permissions?)\b"
)


# 'Never export the ssn field': one plain name between 'the' and a field-like noun.
_THE_FIELD_NAME = re.compile(
    r"\bthe\s+(?P<item>[a-z][a-z0-9_]*)\s+(?P<noun>fields?|columns?|cols?|attributes?)\b"
)


def _plain_name_before(clause: str, only: bool) -> tuple[str, list[str], int, int] | None:
    found = [*_PLAIN_NAME_BEFORE.finditer(clause), *_THE_FIELD_NAME.finditer(clause)]
    for m in sorted(found, key=lambda x: x.start()):
        item = m.group("item")
        low = item.lower()
        if only and not re.search(r"\bonly\b[^,;]*\bwith\s+$", clause[: m.start("item")], re.I):
            # 'The Owner role may only be granted by the security team': 'only' restricts who
            # grants it, not the names; 'may only be created with read scope' lists them
            continue
        if (
            low in STOPWORDS
            or low in CATEGORY_QUALIFIERS
            or NORMATIVE.fullmatch(low)
            or _QUALIFYING_WORD.fullmatch(low)
            or stem(low) in _GIVING_OR_TAKING
            or re.search(r"(?:,|\b(?:or|and|nor))\s*$", clause[: m.start("item")])
        ):
            continue
        return stem(m.group("noun")), [item], m.start("item"), m.end("noun")
    return None


_GIVING_OR_TAKING = frozenset(
    stem(w)
    for w in "grant give assign issue add attach revoke remove delete unassign detach manage "
    "change update edit modify set create".split()
)


def _field_words_before(clause: str) -> tuple[str, list[str], int, int] | None:
    """('field', ['ssn', 'dob', 'full card number'], start, end) for plain names listed before a
    field-like kind noun. The first item loses the words of the clause before it (the act, a
    content verb); a list with a qualifying word (an open category) is no list of names."""
    m = _FIELD_WORDS_BEFORE.search(clause)
    if m is None:
        return None
    raw = re.split(r"\s*,\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|and|nor)\s+", m.group("items"))
    raw = [i.strip() for i in raw if i.strip()]
    first = raw[0].split()
    keep: list[str] = []
    for w in reversed(first):
        if (
            w in STOPWORDS
            or stem(w) in VERBS
            or stem(w) in _CONTENT_VERBS
            or NORMATIVE.fullmatch(w)
        ):
            break
        keep.insert(0, w)
    if not keep:
        return None
    start = m.start("items") + m.group("items").find(raw[0]) + len(raw[0]) - len(" ".join(keep))
    items = [" ".join(keep), *raw[1:]]
    if len(items) < 2:
        return None
    for item in items:
        for w in item.split():
            if (
                w in STOPWORDS
                or w in CATEGORY_QUALIFIERS
                or NORMATIVE.fullmatch(w)
                or ("_" not in w and _QUALIFYING_WORD.fullmatch(w))
            ):
                return None
    return stem(m.group("noun")), items, start, m.end("noun")


def _split_named(items: str) -> list[str]:
    parts = re.split(r"\s*,\s*|\s+(?:and|or|nor)\s+", items)
    return [i.strip().strip("`\"'") for i in parts if i.strip().strip("`\"'")]


# 'may only be sent by freight carriers DHL Freight or Kuehne+Nagel': after 'only … by' and a
# plural noun, proper names (several words each, with + & . -) close the clause as its list.
_PROPER_NAME = r"[A-Z0-9][\w&+.\-]*(?:\s+[A-Z0-9][\w&+.\-]*){0,3}"
_ONLY_NAMES = re.compile(
    r"\bonly\b[^,;.]*?\b(?:by|via|with|through|using|use|on|in|from|to)\s+(?:the\s+)?"
    r"(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+s)\s+(?P<items>"
    + _PROPER_NAME
    + r"(?:\s*,\s*"
    + _PROPER_NAME
    + r")*(?:\s*,?\s+(?:or|and)\s+"
    + _PROPER_NAME
    + r")?)\s*\.?\s*$"
)


def _only_names(clause: str) -> tuple[str, list[str], int, int] | None:
    m = _ONLY_NAMES.search(clause)
    if m is None:
        return None
    items = [i.strip() for i in re.split(r"\s*,\s*|\s+(?:or|and)\s+", m.group("items"))]
    items = [i for i in items if i]
    if not items or any(NORMATIVE.fullmatch(i) or i.lower() in STOPWORDS for i in items):
        return None
    return stem(m.group("noun").lower()), items, m.start("noun"), m.end("items")


def _named_values(clause: str, only: bool = False) -> tuple[str, list[str], int, int] | None:
    """('column', ['salary', 'iban', 'tax_id'], start, end) for a kind noun followed by literals."""
    if only:
        names = _only_names(clause)
        if names is not None:
            return names
    found = _named_values_after(clause, only)
    if found is not None:
        return found
    found = _field_words_before(clause)
    if (
        found is not None
        and (
            not only
            # 'Only name, email or phone fields may be exported': the restriction is on the names
            # only when 'only' comes before them ('… fields only go to …' restricts something else)
            or re.search(r"\bonly\b", clause[: found[2]], re.I)
        )
    ):
        return found
    found = _plain_name_before(clause, only)
    if found is not None:
        return found
    # 'the raw-events or audit-trail datasets', 'buckets named ml-raw', 'the audit-trail dataset':
    # literal names (with a separator or quoted) next to the noun of their kind.
    for m in re.finditer(r"\b[A-Za-z]+\b", clause):
        noun = stem(m.group(0).lower())
        if noun not in _VALUE_KIND_NOUNS:
            continue
        for side in ("after", "before"):
            if side == "after":
                hit = _ITEMS_AFTER.match(clause[m.end() :])
                if hit is None:
                    continue
                start, end = m.start(), m.end() + hit.end()
                named = bool(re.match(r"\s+(?:named|called|labell?ed|tagged)\b", clause[m.end() :]))
            else:
                hit = _ITEMS_BEFORE.search(clause[: m.start()])
                if hit is None:
                    continue
                start, end = hit.start("items"), m.end()
                if _APPROVER_BEFORE.search(clause[:start]):
                    continue  # 'sign-off from the SRE-oncall team': who approves, not a value
                named = False
                single = not re.search(r",|\s(?:and|or|nor)\s", hit.group("items"))
                if (
                    single
                    and not (
                        re.search(r"\bthe\s+$", clause[: hit.start("items")], re.I)
                        and not m.group(0).lower().endswith("s")
                    )
                    and not (
                        noun in _SCOPE_KINDS and _SCOPED_NAME.fullmatch(hit.group("items").strip())
                    )
                ):
                    # 'secret-key files' names a kind of file; 'the audit-trail dataset' one.
                    continue
            items = _split_named(hit.group("items"))
            if not items or any(
                i.lower() in STOPWORDS or stem(i.lower()) in _EFFECT_STEMS or NORMATIVE.fullmatch(i)
                for i in items
            ):
                continue
            literal = [
                i
                for i in items
                if _LITERAL.fullmatch(i)
                or _SCOPED_NAME.fullmatch(i)
                or _QUOTED.search(hit.group(0))
            ]
            if (
                not literal
                and not named
                and not only  # 'only with members of the care team' is an open class
                and side == "before"
                and len(items) == 1
                and noun in _GROUP_NOUNS
                and re.search(
                    r"\b(?:members?|users?|people|staff)\s+of\s+the\s+$",
                    clause[: hit.start("items")],
                    re.I,
                )
            ):
                named = True  # 'members of the admins group': the group's name, one value
            if not literal and not named:
                continue
            if not all(
                i == i.lower()
                or _LITERAL.fullmatch(i)
                or _NAME_WITH_COLON.fullmatch(i)
                or _SCOPED_NAME.fullmatch(i)
                or i.isupper()
                for i in items
            ):
                continue
            return noun, items, start, end
    # 'Never delete prod-db or billing-db': literal names with no noun of their kind are still
    # a closed list, on whichever argument carries one of them.
    for m in _LITERAL_LIST.finditer(clause):
        following = re.match(r"\s*([A-Za-z]+)", clause[m.end() :])
        if following and following.group(1).lower() not in STOPWORDS:
            continue  # 'no-reply addresses', 'non-prod credentials': a qualifier, not a name
        if _names_an_approver(clause, m):
            continue  # 'approval from FinOps': who approves, not a value of the request
        if _SUBJECT_ARGUMENT.match(clause[m.start() :]) and not clause[: m.start()].strip():
            continue  # 'reason_code must be one of: …': the argument the list constrains
        items = _split_named(m.group("items"))
        if clause[m.end() : m.end() + 1] == ")" and _glosses_a_noun(
            clause, m.start(), m.end(), items
        ):
            continue  # 'on the DNC (do-not-call) list': a gloss of a word, not a name
        named = [
            i
            for i in items
            if (
                _LITERAL.fullmatch(i)
                and re.search(r"[-_]|[a-z0-9][A-Z]", i)
                and not _PERSONS_ACT.fullmatch(i)
            )
            or _NAME_WITH_COLON.fullmatch(i)
        ]
        # 'salary, iban or tax_id': a list with one identifier in it is a list of identifiers.
        plain = len(items) >= 2 and all(re.fullmatch(r"[a-z][a-z0-9_]*", i) for i in items)
        if items and (len(named) == len(items) or (named and plain)):
            return "", items, m.start(), m.end()
    return None


# Hyphenated prose words ('sign-off', 'read-only', 'go-ahead'): words of the rule, never names.
_PROSE_HYPHENATED = re.compile(
    r"(?i)(?:read-only|on-call|sign-offs?|signed-off|go-ahead|pay-outs?|e-mails?|co-workers?|non-\w+"
    r"|anti-\w+|third-party|two-factor|multi-\w+)"
)

# 'needs sign-off from the registrar': a person's act, never a name in a list ('read-only' in
# 'read-only for everyone' still is: an access mode an argument may hold).
_PERSONS_ACT = re.compile(r"(?i)sign-offs?|signed-off|go-ahead")

_LITERAL_LIST = re.compile(
    r"(?<![\w\-])(?P<items>"
    + _NAMED_ITEM
    + r"(?:\s*,\s*"
    + _NAMED_ITEM
    + r")*(?:\s*,?\s+(?:and|or|nor)\s+"
    + _NAMED_ITEM
    + r")?)(?![\w\-])"
)


# 'reason_code must be one of: SLA_BREACH, …', 'tier is mandatory, one of gold, silver': an
# argument's name opening the rule, with the values it may hold listed after it. Read as a
# one-item deny- or allow-list, the name became the only value the argument could hold.
_SUBJECT_ARGUMENT = re.compile(
    r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\s+(?:is|are|must|should|shall|has to|needs? to)\b"
    r".*\b(?:one of|any of|either|among|in|from)\b",
    re.I,
)


def _named_values_after(clause: str, only: bool) -> tuple[str, list[str], int, int] | None:
    after_only = _ONLY_BY.search(clause) if only else None
    for m in _NAMED_VALUES.finditer(clause):
        noun = stem(m.group("noun").lower())
        free_case = after_only is not None and m.start() == after_only.end()
        if noun not in _VALUE_KIND_NOUNS and not free_case:
            continue
        items = [
            i.strip().strip("`\"'")
            for i in re.split(r"\s*,\s*|\s+(?:and|or|nor)\s+", m.group("items"))
        ]
        items = [i for i in items if i]
        if len(items) < 2 or any(
            i.lower() in STOPWORDS or stem(i.lower()) in _EFFECT_STEMS or NORMATIVE.fullmatch(i)
            for i in items
        ):
            continue
        if _modifies_a_noun(clause, m.end(), items):
            continue
        # Literal names are written as given: lower case or with separators, not as prose words.
        if not free_case and not all(
            i == i.lower() or _LITERAL.fullmatch(i) or _NAME_WITH_COLON.fullmatch(i) or i.isupper()
            for i in items
        ):
            continue
        return noun, items, m.start(), m.end()
    return None


def _modifies_a_noun(clause: str, end: int, items: list[str]) -> bool:
    """'bank account details or background check reports': plain words whose last one runs on
    into a noun ('background check reports') are the words of noun phrases, not names listed
    after their kind ('account'); read as names, the rule was "understood" and never fired."""
    return not any(_LITERAL.fullmatch(i) for i in items) and _runs_on(clause, end)


# Words that end a noun phrase's run: what may follow a subject ('… are', '… must', '… need').
_SUBJECT_FOLLOWERS = frozenset(
    "are is was were be been must shall should may might can cannot can't will won't would need "
    "needs require requires have has do does don't doesn't get gets go goes".split()
)


def _runs_on(clause: str, end: int) -> bool:
    """True when the word after `end` continues a noun phrase ('background check reports')
    rather than ending it (a verb, a modal, a function word or punctuation)."""
    following = re.match(r"\s*([A-Za-z']+)", clause[end:])
    if not following:
        return False
    word = following.group(1).lower()
    return word not in STOPWORDS and word not in _SUBJECT_FOLLOWERS


# 'Agents may add users to groups, except Domain Admins, Enterprise Admins and Schema Admins',
# 'Support may issue credits to any plan, except the Enterprise Plus and Gov Cloud plans',
# 'Tickets may be auto-closed in every queue except SEC-INCIDENTS and LEGAL-HOLD': a permission
# over every value of a kind but the named ones. The names (Title Case words or codes, any case
# in the request) are a deny-list on the argument named for the kind; a trailing ', which agents
# must never touch' restates it for every act on them.
_EXCEPT_NAME = (
    r"(?:[A-Z][\w\-]*(?:\s+[A-Z0-9][\w\-]*){0,3}|[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)+|"
    r"[a-z][a-z0-9]*(?=\s*(?:,|\band\b|\bor\b|\.?$)))"
)
_EXCEPTED_NAMES = re.compile(
    r"^(?P<act>[^,;]*?\b(?:may|can|is allowed to|are allowed to)\s+[^,;]*?)\s+"
    r"(?:(?:to|in|on|for|from|of|at)\s+)?(?:(?:any|every|all)\s+)?(?P<kind>[a-z]+?)s?\s*,?\s+"
    r"except(?:\s+for)?\s+(?:the\s+)?(?P<items>"
    + _EXCEPT_NAME
    + r"(?:\s*,\s*"
    + _EXCEPT_NAME
    + r")*(?:\s*,?\s+(?:and|or)\s+"
    + _EXCEPT_NAME
    + r")?)(?:\s+(?P=kind)s?)?"
    r"(?P<tail>\s*,\s*which\s+(?:[a-z]+\s+){0,2}(?:must|may|can|should|shall)\s+(?:never|not)\s+"
    r"(?:be\s+)?(?:touch|touched|change|changed|modify|modified|alter|altered|edit|edited)"
    r"(?:\s+(?:them|it))?)?\s*\.?$"
)


class ExceptedNamesRecogniser(Recogniser):
    """A permission over a kind, except named values: a deny-list of them on the kind's argument."""

    kind = "excepted_names"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _EXCEPTED_NAMES.match(c.text)
        if m is None or (c.negated and not m.group("tail")) or ONLY.search(c.text) or c.review:
            return None
        act, kind = m.group("act"), m.group("kind").lower()
        if NEGATION.search(act) or kind in STOPWORDS or stem(kind) in GENERIC:
            return None
        items = [
            i.strip()
            for i in re.split(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", m.group("items"))
            if i.strip()
        ]
        if len(items) < 1 or any(
            i.lower() in STOPWORDS or stem(i.lower()) in GENERIC or stem(i.lower()) == stem(kind)
            for i in items
        ):
            return None
        if any(i.islower() for i in items) and (len(items) < 2 or any(" " in i for i in items)):
            return None  # plain lower-case words name values only as a list ('main, release')
        if m.group("tail"):
            terms: tuple[str, ...] = ()  # 'which agents must never touch': any act on them
            alternatives: tuple[tuple[str, str], ...] = ()
        else:
            found, alts = _action_terms(
                re.sub(r"\b(?:may|can|is|are|allowed|to)\b", " ", act), False
            )
            terms, alternatives = tuple(found), tuple(alts)
        return [
            ValueList(
                c.index,
                c.source,
                "deny",
                terms,
                alternatives,
                "deny",
                tuple(items),
                "exact",
                (stem(kind),),
            )
        ]


class NamedValuesRecogniser(Recogniser):
    """'The datasets raw-events and audit-trail must never be dropped': a closed deny-list on the
    argument named like the kind noun (any argument whose value is listed counts), so the listed
    names are never read as words of an action or as an argument's name."""

    kind = "named_values"

    def recognise(self, c: Clause) -> list[Check] | None:
        if c.quantities:
            return None
        named = _named_list_check(c.index, c.source, c.text, c.review, c.negated, c.only)
        return [named] if named else None


# Words of a named-value rule that say what the values are, not which requests it speaks of.
_NOUNISH_ABOUT = frozenset(stem(w) for w in "name names named value values called".split())


def _excepted_from_permission(clause: str, list_start: int, negated: bool) -> bool:
    """'Deploys are allowed in all regions except us-east-1': a list after 'except' / 'other
    than' in a permission (no 'only', no negation) is what the permission does not allow, a
    deny-list, never the only values allowed. The permission may close the clause ('Roles other
    than admin may be granted freely', 'vendors not on the list (RU, BY) are fine'): read as an
    allow-list, only admin was approved and every other role denied."""
    return (
        not negated
        and bool(
            ALLOW.search(clause[:list_start])
            or (_outside_right_before(clause, list_start) and ALLOW.search(clause[list_start:]))
        )
        and not ONLY.search(clause)
        and any(m.end() <= list_start for m in OUTSIDE.finditer(clause))
    )


def _outside_right_before(text: str, start: int) -> bool:
    """Whether an exclusion marker ('other than', 'excluding', 'not among', 'that are not')
    ends right before a list, so that the rule speaks of the values outside it."""
    return any(
        m.end() <= start
        and (
            not re.search(r"[^\s(\[{:]", text[m.end() : start])
            # 'anything but the approved regions: us-east-1, eu-west-1': a heading, then the list
            or bool(_HEADED_GAP.fullmatch(text[m.end() : start]))
        )
        for m in OUTSIDE.finditer(text)
    )


_HEADED_GAP = re.compile(
    r"(?:(?:the|our|these|those)\s+)?(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*\s*:\s*", re.I
)


_VALUE_IS_ONE_OF = re.compile(
    r"^(?:(?:the|a|an|its|their)\s+)?(?P<subj>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s+"
    r"(?:must|shall|should|has to|needs? to)\s+be\s+one\s+of\b",
    re.I,
)


def _named_list_check(
    index: int, source: str, text: str, review: bool, negated: bool, only: bool
) -> ValueList | None:
    if not (negated or review or only):
        return None
    found = _named_values(text, only and not negated)
    if found is None:
        return None
    noun, items, start, end = found
    if items and all(_VERDICT_WORD.fullmatch(i.strip(" .")) for i in items):
        return None  # 'Every country apart from US and CA is off-limits': a verdict, no value
    if only and not negated and _names_who_acts(text, items, end):
        return None  # who acts, not a value of an argument (see _value_list_check)
    rest = text[:start] + " " + text[end:]
    terms, _ = _action_terms(rest, review)
    item_stems = _item_stems(items)
    verbs = tuple(
        t for t in terms if t in VERBS and t not in _CONTENT_VERBS and t not in item_stems
    )
    about = tuple(t for t in terms if t not in verbs and t not in item_stems)
    # 'in production', 'on staging': a value of a known class qualifies where the rule applies,
    # so it is read against the request (another environment shown: the rule does not apply).
    qualifiers = tuple(t for t in about if t in _CLASS_WORDS)
    about = tuple(t for t in about if t not in qualifiers)
    eff = "review" if review else "deny"
    mode = "allow" if only and not negated else "deny"
    if mode == "allow" and _excepted_from_permission(text, start, negated):
        mode = "deny"
    if mode == "deny" and (negated or review) and _outside_right_before(text, start):
        # 'Exports to regions excluding eu-west-1 … are prohibited', 'roles other than viewer
        # need approval': what the prohibition names is every value but the list (read as the
        # list, the listed were denied and every other value approved)
        mode = "allow"
    kind = (noun,) if noun else ()
    subject_is_value = _VALUE_IS_ONE_OF.match(text)
    if mode == "allow" and not kind and subject_is_value and len(items) > 1:
        # 'The reason must be one of offboarding, contract_end or security_incident': the subject
        # is the value the list constrains, so it is read on the argument named for it
        # (`reason`, `reason_code`); read on any argument, a listed value in a note had passed
        # a reason outside the list ('Link must be view-only' is a state, one value: as before)
        kind = tuple(stem(w) for w in words(subject_is_value.group("subj")) if w not in STOPWORDS)
    # 'Weekend deploys to prod-eu or prod-us': a word that qualifies the subject ('weekend') is
    # a subject word the request must show (or rule out), never a word the list accounts for
    # without reading it
    own = {stem(w) for w in words(noun)} if noun else set()
    # (words of a condition, 'except the platform team', are the condition's: left unread)
    conditional = {stem(w) for a, b, _ in condition_spans(text) for w in words(text[a:b])} | {
        stem(m.group(0).split()[0].lower()) for m in OUTSIDE.finditer(text)
    }
    qualifiers = qualifiers + tuple(
        t
        for t in about
        if t not in own
        and t not in _NOUNISH_ABOUT
        and t not in conditional
        and t not in _CONTENT_VERBS  # 'use', 'contain': what the list holds, read by it
    )
    match = "exact"
    if (noun in _FIELD_KINDS or noun in _SCOPE_KINDS or noun in _ROLE_KINDS) and all(
        re.fullmatch(r"[a-z][a-z0-9_\-]*(?:\s+[a-z][a-z0-9_\-]*)*", i) or _SCOPED_NAME.fullmatch(i)
        for i in items
    ):
        # names of fields, columns, scopes or roles, compared name by name with every member of
        # the argument named for any word of the kind's family ('fields' binds `columns` too)
        match = "token"
        family = _FIELD_KINDS if noun in _FIELD_KINDS else _SCOPE_KINDS
        kind = tuple(sorted(_ROLE_KINDS if noun in _ROLE_KINDS else family))
    if all(_DOMAIN.fullmatch(i.strip().lstrip("@")) for i in items):
        # 'addresses at acme-corp.com': a domain, read from any address or host in the request
        match, items = "domain", [i.strip().lstrip("@").lower() for i in items]
    return ValueList(
        index,
        source,
        eff,
        verbs + qualifiers,
        (),
        mode,
        tuple(items),
        match,
        kind,
        about_words=about,
    )


_CLASS_WORDS = frozenset().union(*VALUE_CLASSES.values())


# 'Data must be hosted in the EU', 'Backups must stay within an EU member state': where a thing
# must be is an allow-list of places.
_RESIDENCY = re.compile(
    r"^(?P<subject>.+?)\s+(?:must|shall|should|has to|have to|needs? to)\s+(?:always\s+)?"
    r"(?:(?:be|stay|remain)\s+(?P<verb>(?:[a-z]+ed|paid|held|kept|made|sent|built)\s+)?|(?P<verb2>settle|clear|stay|remain|reside|"
    r"run|live)\s+)(?:in|within|inside)\s+(?:the\s+|an?\s+)?"
    r"(?P<places>[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?(?:\s*(?:,|or|and)\s*(?:the\s+)?"
    r"[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?)*)"
    r"(?:\s+(?P<noun>member\s+states?|member\s+countries|countries|country|region|regions))?"
    r"\s*\.?$"
)


class ResidencyRecogniser(Recogniser):
    """'Data must be hosted in an EU member state': an allow-list of places for the subject."""

    kind = "residency"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _RESIDENCY.match(c.text)
        if not m or c.negated or c.quantities:
            return None
        names = [
            n.strip()
            for n in re.split(r"\s*(?:,|\bor\b|\band\b)\s*(?:the\s+)?", m.group("places"))
            if n.strip()
        ]
        codes = [_place(n) for n in names]
        match = "place"
        if names and all(n.upper() in CURRENCY_CODES and n.isupper() for n in names):
            codes, match = [n.upper() for n in names], "currency"  # 'must settle in EUR or USD'
        if not names or not all(codes):
            return None
        verb = tuple(stem(w) for w in words((m.group("verb") or "") + (m.group("verb2") or "")))
        terms = tuple(
            t for t in _terms(m.group("subject"), cut_review=False) if t not in {"member"}
        )
        return [
            ValueList(
                c.index,
                c.source,
                "review" if c.review else "deny",
                _subject_terms(terms),
                (),
                "allow",
                tuple(x for x in codes if x),
                match,
                (),
                about_words=verb + tuple(stem(w) for w in words(m.group("noun") or "")),
            )
        ]


# 'In-app purchase prices must be set in USD', 'Quotes must be issued in euros or sterling',
# 'Refunds shall always be paid out in EUR': the currency a money value must be stated in. Names
# of currencies count only where unambiguous ('dollars' alone may be USD, CAD or AUD: not read).
_CURRENCY_NAMES = {
    "euro": "EUR",
    "euros": "EUR",
    "sterling": "GBP",
    "pounds sterling": "GBP",
    "british pounds": "GBP",
    "us dollars": "USD",
    "u.s. dollars": "USD",
    "yen": "JPY",
    "japanese yen": "JPY",
    "swiss francs": "CHF",
}
_CURRENCY_ITEM = (
    r"(?:[A-Z]{3}|"
    + "|".join(
        r"\s+".join(map(re.escape, n.split()))
        for n in sorted(_CURRENCY_NAMES, key=len, reverse=True)
    )
    + ")"
)
_CURRENCY_REQUIRED = re.compile(
    r"^(?P<subject>.+?)\s+(?:must|shall|should|has to|have to|need to|needs to|are to|is to)\s+"
    r"(?:always\s+|only\s+)?(?:be\s+)?(?:always\s+|only\s+)?"
    r"(?P<verb>[a-z]+ed|set|paid(?:\s+out)?|made|given|shown|written|held|kept|sent|settle|"
    r"clear|stay|remain)\s+(?:only\s+)?in\s+(?P<items>"
    + _CURRENCY_ITEM
    + r"(?:\s*(?:,|or|and|/)\s*"
    + _CURRENCY_ITEM
    + r")*)(?:\s+only)?\s*\.?$",
    re.I,
)


class RequiredCurrencyRecogniser(Recogniser):
    """'Contract values must be stated in USD': a currency allow-list for the subject's money.

    The ValueList it makes reads the request's currency (a currency argument, or the code in an
    amount's name such as `price_eur`); without one the rule cannot be checked (review)."""

    kind = "value_list"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _CURRENCY_REQUIRED.match(c.text)
        if not m or c.negated or c.quantities:
            return None
        names = [
            n.strip()
            for n in re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", m.group("items"))
            if n.strip()
        ]
        codes = []
        for n in names:
            code = n.upper() if n.isupper() and n.upper() in CURRENCY_CODES else None
            code = code or _CURRENCY_NAMES.get(" ".join(n.lower().split()))
            if code is None:
                return None  # not a currency ('in BULK', 'in Paris'): another recogniser's
            codes.append(code)
        verb = tuple(stem(w) for w in words(m.group("verb")))
        terms = _terms(m.group("subject"), cut_review=False)
        return [
            ValueList(
                c.index,
                c.source,
                "review" if c.review else "deny",
                _subject_terms(terms),
                (),
                "allow",
                tuple(dict.fromkeys(codes)),
                "currency",
                (),
                about_words=verb + tuple(stem(w) for n in names for w in words(n)),
            )
        ]


# A single required value written as a plain word, read on the argument the rule's noun names
# ('The branch must be release', 'Deploy only from the main branch', 'Exports must be written to
# the analytics-exports bucket', 'Refund method must be card'). Each noun, and the stems of the
# argument names it is written as (a bucket is where a `destination` URI points).
_VALUE_NOUNS: dict[str, tuple[str, ...]] = {
    "service level": (stem("service"),),
    "service": (stem("service"),),
    # a git ref names the branch deployed as often as `branch` does ('ref: feature/x' beside
    # 'branch: main' was not read, and the deploy passed): two such arguments are review
    "branch": (stem("branch"), stem("ref")),
    "bucket": (stem("bucket"), stem("destination")),
    "destination": (stem("destination"),),
    "status": (stem("status"),),
    "channel": (stem("channel"),),
    "method": (stem("method"),),
    "carrier": (stem("carrier"),),
    "mode": (stem("mode"),),
    "queue": (stem("queue"),),
    "tier": (stem("tier"),),
}
_VALUE_NOUN = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _VALUE_NOUNS)
# a plain word, capitalised or not, maybe hyphenated ('main', 'analytics-exports'); no code
_PLAIN_WORD = r"(?!only\b)[A-Za-z][a-z]*(?:-[a-z0-9]+)*"
# each word of a value as written: lower case or capitalised, never a code, never a joiner
_PLAIN_CASED = re.compile(
    r"(?!(?:or|and|nor|not|but|then|than|of|for)$)[A-Za-z][a-z]*(?:-[a-z0-9]+)*"
)
_LEAD = r"(?P<lead>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,5}?)"
_MUST = r"\b(?:must|shall|should|has\s+to|have\s+to|needs?\s+to)\b"
# 'Refund method must be card', 'The branch must be release'
_NOUN_MUST_BE = re.compile(
    rf"^\s*(?P<lead>(?:the\s+)?(?:[A-Za-z][\w\-]*\s+){{0,2}}?)(?P<noun>{_VALUE_NOUN})\s+"
    rf"{_MUST}\s+(?:always\s+)?be\s+(?P<value>{_PLAIN_WORD})\s*\.?\s*$",
    re.I,
)
# 'Deploy only from the main branch', 'Deploys must use the main branch', 'Exports must be
# written to the analytics-exports bucket', 'All shipments must use ground service'
_VALUE_BEFORE_NOUN = re.compile(
    rf"^\s*{_LEAD}\s+(?P<prep>from|via|through|to|into|on|in|using|with|use|uses)\s+(?:the\s+)?"
    rf"(?P<value>{_PLAIN_WORD}(?:\s+{_PLAIN_WORD})?)\s+(?P<noun>{_VALUE_NOUN})"
    r"(?P<only>\s+only)?\s*\.?\s*$",
    re.I,
)
# 'deploys: main branch only', 'Refunds: store credit only'
_HEADED_ONE = re.compile(
    rf"^\s*(?P<lead>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){{0,2}})\s*:\s*(?:the\s+)?"
    rf"(?P<value>{_PLAIN_WORD}(?:\s+{_PLAIN_WORD}){{0,2}}?)(?:\s+(?P<noun>{_VALUE_NOUN}))?"
    r"\s+only\s*\.?\s*$",
    re.I,
)
# 'Responses are sent only through the secure portal', 'Refunds go only to store credit': the
# means named without a noun for it, read on the request's channel or method argument
_ONLY_THE_MEANS = re.compile(
    rf"^\s*{_LEAD}\s+(?P<prep>via|through|to)\s+(?:the\s+)?"
    rf"(?P<value>{_PLAIN_WORD}(?:\s+{_PLAIN_WORD}){{0,2}})(?P<only>\s+only)?\s*\.?\s*$",
    re.I,
)
# 'go to': what a thing is sent to is a means only after a verb of sending
_SENT_TO = re.compile(
    r"\b(?:go|goes|be\s+(?:sent|issued|paid|refunded|credited|returned)|are\s+(?:sent|issued|"
    r"paid|refunded|credited|returned)|is\s+(?:sent|issued|paid|refunded|credited|returned))"
    r"(?:\s+only)?$",
    re.I,
)
# Verbs that only say the thing goes somewhere or uses something: read by the value, never
# asked of the request (the subject's own act, 'deploys', stays a word the request must show)
_GOING_VERBS = frozenset(
    stem(w) for w in "use uses used go goes come comes written write sent send stored saved".split()
)
# Words that make the value a class, not a name ('a secure channel', 'the approved carrier'):
# a value of nothing but these is no one value the request can be compared with
_CLASS_WORDS = frozenset(
    """secure encrypted approved authorised authorized official internal external private public
    trusted verified registered sanctioned compliant safe standard preferred designated allowed
    permitted whitelisted dedicated corporate company""".split()
)
# States a thing is in ('the branch must be green'), said of it rather than held by it
_STATE_OF_A_THING = frozenset(
    "green red amber clean dirty stable healthy live active inactive open closed empty full idle "
    "up down available unavailable locked unlocked visible hidden".split()
)
# A value naming a relation or a party ('the original method', 'the treasury team') is read
# through something the rule does not state: never one value
_RELATION_WORDS = frozenset(
    """original same different other previous prior current default existing usual own primary
    secondary appropriate correct proper valid any all every each one no some either customer
    customers team desk department manager lead officer staff group committee owner admin
    person people""".split()
)
# A lead that states anything but the subject and a restriction: a condition, a bound, a negation
_LEAD_REFUSED = re.compile(
    r"\b(?:unless|except|if|when|whenever|while|after|before|once|for|over|under|above|below|"
    r"without|and|or|but|not|never|no|nor|may|can|could|might|than|per|each|any)\b|\d",
    re.I,
)


def _one_plain_value(c: Clause) -> tuple[str, str, str, str] | None:
    """(lead, value, noun, how) of a clause requiring one plain word, or None."""
    text = c.text.strip()
    m = _NOUN_MUST_BE.match(text)
    if m:
        return m.group("lead"), m.group("value"), m.group("noun"), "be"
    m = _VALUE_BEFORE_NOUN.match(text)
    if m and (
        re.search(r"\bonly\b", m.group("lead"), re.I)
        or m.group("only")
        or re.search(_MUST, m.group("lead"), re.I)
    ):
        return m.group("lead"), m.group("value"), m.group("noun"), m.group("prep")
    m = _HEADED_ONE.match(text)
    if m and (m.group("noun") or " " in m.group("value").strip()):
        # without a noun, only a name of two or three words ('Refunds: store credit only') is
        # taken for a means; one word ('Payouts: weekly only') may say anything of the subject
        return m.group("lead"), m.group("value"), m.group("noun") or "", "headed"
    m = _ONLY_THE_MEANS.match(text)
    if (
        m
        and (re.search(r"\bonly\b", m.group("lead"), re.I) or m.group("only"))
        and (m.group("prep").lower() != "to" or _SENT_TO.search(m.group("lead")))
        and not re.search(rf"\b(?:{_VALUE_NOUN})$", m.group("value"), re.I)
    ):
        return m.group("lead"), m.group("value"), "", m.group("prep")
    return None


def _required_word_check(index: int, source: str, c: Clause) -> ValueList | None:
    """The check of a clause requiring one plain word of one argument (see _VALUE_NOUNS)."""
    if c.negated or c.auto or (c.allow and not c.only):
        return None
    found = _one_plain_value(c)
    if found is None:
        return None
    lead, value, noun, how = found
    first = re.match(r"\s*only\s+(?P<w>[A-Za-z]+)", lead, re.I)
    if first and (stem(first["w"].lower()) not in VERBS or first["w"].lower().endswith("s")):
        return None  # 'Only admins deploy from the main branch': 'only' restricts who acts
    # 'may only', 'can … only': a permission limited to the value is the same restriction
    modal = r"\b(?:may|can)\b" if re.search(r"\bonly\b", c.text, re.I) else _MUST
    lead_words = re.sub(rf"{_MUST}|{modal}|\bonly\b|\bbe\b|\b(?:are|is)\b", " ", lead, flags=re.I)
    if _LEAD_REFUSED.search(lead_words) or REVIEW.search(lead):
        return None
    if not all(_PLAIN_CASED.fullmatch(w) for w in value.split()):
        return None  # 'SPLUNK-EU', 'compact or intermediate': a code or a list, not one word
    value_words = [w.lower() for w in value.split()]
    state = noun.lower() == "status"
    if any(w in _RELATION_WORDS for w in value_words):
        return None  # 'to the original method', 'through the treasury team': no one value
    # 'the secure channel', 'the standard payout method': before a noun of its own, a word of a
    # class qualifies the noun; a name without one ('through the secure portal') is a thing
    if not state and (
        any(w.endswith(("ed", "ing")) for w in value_words) or set(value_words) & _STATE_OF_A_THING
    ):
        # 'The branch must be protected / green', 'The method must be documented': a state the
        # thing is in or an act done to it, not the value it holds (only a status holds states)
        return None
    classed = [w in _CLASS_WORDS for w in value_words]
    if not state and (all(classed) or (noun and any(classed))):
        return None
    if value_words[-1].endswith("s") and not value_words[-1].endswith("ss") and "-" not in value:
        return None  # 'only to verified sellers': a plural names a class of things
    if any(stem(w) in _COUNTERPARTY_STEMS for w in value_words) or value_words[0] in STOPWORDS:
        return None
    if value.lower() in ("on", "off", "enabled", "disabled", "true", "false", "set", "empty"):
        return None
    if noun:
        kind = _VALUE_NOUNS[re.sub(r"\s+", " ", noun.lower())]
    else:
        # 'go only to store credit': what a thing is sent to is its means or its destination
        kind = (*_MEANS_KINDS, stem("destination")) if how in ("to", "headed") else _MEANS_KINDS
    noun_stems = {stem(w.lower()) for w in words(noun)}
    if {stem(w) for w in value_words} & set(_terms(lead_words, cut_review=False)):
        return None  # 'Payouts must use the payout method': the subject again, no value
    lead_stems = [
        t for t in _terms(lead_words, cut_review=False) if t not in noun_stems and t not in kind
    ]
    terms = tuple(t for t in lead_stems if t not in _GOING_VERBS)
    # 'must use the main branch': the verb before the value is read by it, as the noun is
    verb = (stem(how.lower()),) if how.lower() in ("use", "uses", "using") else ()
    about = tuple(t for t in lead_stems if t in _GOING_VERBS) + verb + tuple(noun_stems)
    return ValueList(
        index,
        source,
        "deny",
        _subject_terms(terms),
        (),
        "allow",
        (value,),
        "word",
        # the argument is named as the table says ('service level' is `service_level` or
        # `service`, never any `…_level`); the noun's other words are read by `about`
        tuple(kind),
        about_words=about,
    )


# 'Shipments containing lithium batteries (contains_lithium = true) must use ground service': the
# required word holds where the bracket's binding does (WhenBound)
_GLOSSED_CONDITION = re.compile(
    r"^\s*(?P<subject>[A-Za-z][\w\-]*)(?P<gloss>(?:\s+[A-Za-z][\w\-]*){0,4})\s*"
    r"\(\s*(?P<name>[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)\s*=\s*(?P<value>true|false|[a-z][a-z0-9_\-]*)"
    r"\s*\)\s*(?P<rest>.+)$",
)


class RequiredWordRecogniser(Recogniser):
    """One required value written as a plain word, bound to the argument the rule's noun names
    (ValueList, match 'word'); under a glossed binding, only where the binding holds."""

    kind = "required_word"

    def recognise(self, c: Clause) -> list[Check] | None:
        g = _GLOSSED_CONDITION.match(c.text)
        if g is None:
            made = _required_word_check(c.index, c.source, c)
            return [made] if made else None
        if _LEAD_REFUSED.search(g.group("gloss")):
            return None
        inner = Clause.read(
            c.index, c.source, f"{g.group('subject')} {g.group('rest')}", c.previous, c.carry
        )
        body = _required_word_check(c.index, c.source, inner)
        if body is None:
            return None
        subject = g.group("subject") + g.group("gloss")
        condition = Binding(
            c.index,
            c.source,
            "deny",
            (),
            (),
            path=g.group("name"),
            op="eq",
            value=binding_literal(g.group("value")),
            gloss=subject.strip(),
            written=c.text[: g.start("rest")].strip(),
            reads=tuple(content_stems(subject)),
        )
        return [
            WhenBound(c.index, c.source, "deny", body.terms, (), condition=condition, body=body)
        ]


class ValueListRecogniser(Recogniser):
    """Allow-lists and deny-lists of literal values: countries, currencies, domains, prefixes."""

    kind = "value_list"

    def recognise(self, c: Clause) -> list[Check] | None:
        listed = _value_list_check(c.index, c.source, c.text, c.effect, c.review, c.negated, c.only)
        return [listed] if listed else None


class RequiredRecogniser(Recogniser):
    """Required arguments ('must reference an invoice number') and flags ('must be encrypted')."""

    kind = "required_argument"

    def recognise(self, c: Clause) -> list[Check] | None:
        if not c.quantities:
            return _required_checks(c.index, c.source, c.text, c.review) or None
        # 'Grants over $10k must cite a board minute': the amount in the subject is the
        # obligation's condition. An amount read no other way is kept as text.
        found = _amount_condition_span(c)
        if found is None:
            return None
        condition, start, end = found
        rest = c.text[:start] + c.text[end:]
        body = _required_checks(c.index, c.source, rest, c.review)
        if not body:
            return None
        return [
            When(c.index, c.source, b.effect, b.terms, (), condition=condition, body=b)
            for b in body
        ]


# 'Matches only for gifts to registered charities', 'Permits only for vehicles registered in the
# staff database': what the action is for must be in a state a yes/no argument can show.
_ONLY_STATE = re.compile(
    r"^(?P<subject>.+?)\s+only\s+(?:for|to|with|from)\s+(?P<what>(?:[a-z]+\s+){0,3}?)"
    r"(?:(?P<p1>[a-z]+ed)\s+(?P<n1>[a-z]+s)|(?P<n2>[a-z]+s)\s+(?:(?:that|who)\s+are\s+)?"
    r"(?P<p2>[a-z]+ed)(?P<compl>\s+(?:in|on|with|by|at)\s+(?:the\s+|our\s+)?[a-z]+(?:\s+[a-z]+){0,2})?)"
    r"\s*$",
    re.I,
)


class StateCategoryRecogniser(Recogniser):
    """'Matches only for gifts to registered charities': a class named by a state that a yes/no
    argument shows (`charity_registered`); with no such argument a human decides."""

    kind = "state_flag"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _ONLY_STATE.match(c.text)
        if not m or c.negated or c.review or c.quantities:
            return None
        participle = (m.group("p1") or m.group("p2")).lower()
        if participle not in _FLAGGABLE:
            return None
        noun = m.group("n1") or m.group("n2")
        # 'Permits only for …': the subject noun may be a word that elsewhere states an effect
        subject = _terms(m.group("subject"), cut_review=False) or tuple(
            s for s in content_stems(m.group("subject")) if s not in GENERIC
        )
        if not subject or NORMATIVE.search(m.group("subject")) and len(subject) > 1:
            return None
        what = tuple(
            stem(w)
            for w in words(f"{m.group('what')} {noun} {m.group('compl') or ''}")
            if w not in STOPWORDS
        )
        phrase = f"{noun} are {participle}{m.group('compl') or ''}"
        flag = StateFlag(
            c.index,
            c.source,
            "deny",
            _subject_terms(subject),
            (),
            state=stem(participle),
            flag_words=what,
            phrase=f"the {phrase.strip()}",
        )
        return [flag]


# 'SIM swaps require the customer to pass a one-time passcode check': a check passed, shown by a
# yes/no argument named for it (`otp_verified`, `kyc_passed`).
_PASS_CHECK = re.compile(
    r"^(?P<subject>.+?)\s+(?:requires?|must|needs?(?:\s+to)?)\s+(?:(?:the|a|an)\s+(?P<who>[a-z]+)\s+to\s+)?"
    r"pass\s+(?:a|an|the)\s+(?P<what>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+"
    r"(?P<kind>check|verification|screening|test)\s*\.?$",
    re.I,
)


class PassCheckRecogniser(Recogniser):
    """A check that must have been passed, read from a flag named for it; otherwise review."""

    kind = "state_flag"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _PASS_CHECK.match(c.text)
        if not m or c.negated or c.quantities:
            return None
        subject = _terms(m.group("subject"), cut_review=False)
        what_words = [w for w in words(m.group("what")) if w not in STOPWORDS]
        if not subject or not what_words:
            return None
        every = words(m.group("what"))  # 'one-time passcode' -> 'otp'
        acronym = "".join(w[0] for w in every) if len(every) > 1 else ""
        flag_words = tuple(stem(w) for w in what_words) + ((acronym,) if acronym else ())
        return [
            StateFlag(
                c.index,
                c.source,
                "deny",
                _subject_terms(subject),
                (),
                state="|".join(stem(w) for w in ("passed", "verified", "checked", "completed")),
                flag_words=flag_words,  # never the kind alone: `fraud_check` is another check
                phrase=f"the {m.group('who') or ''} passed the {m.group('what')} {m.group('kind')}".replace(
                    "the  ", "the "
                ),
            )
        ]


_MONTHS = {
    m: i + 1
    for i, ms in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())
    for m in (ms,)
}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# 'between Nov 1 and Mar 31', 'from 1 November to 31 March'; with years, 'from 2025-11-24
# through 2025-12-02', 'from Nov 24 to Dec 2, 2025', and after a freeze word without 'from'
# ('frozen 24 Nov - 2 Dec 2025'): the window is those days of those years
_YEAR = r"(?:,?\s+(?P<{}>(?:19|20)\d\d))?"
_DATE_WINDOW = re.compile(
    r"\s*(?:\b(?:between|from)|(?<=\bfrozen)|(?<=\bfreeze))\s+"
    r"(?:(?P<m1>" + _MONTH + r")\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?" + _YEAR.format("y1") + "|"
    r"(?P<d1b>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1b>" + _MONTH + r")" + _YEAR.format("y1b") + "|"
    r"(?P<iso1>(?:19|20)\d\d-[01]\d-[0-3]\d))"
    r"\s+(?:and|to|until|till|through|thru|-|\u2013)\s+"
    r"(?:(?P<m2>"
    + _MONTH
    + r")\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?"
    + _YEAR.format("y2")
    + r"|(?P<d2b>\d{1,2})(?:st|nd|rd|th)?\s+"
    r"(?P<m2b>" + _MONTH + r")" + _YEAR.format("y2b") + "|"
    r"(?P<iso2>(?:19|20)\d\d-[01]\d-[0-3]\d))(?![\w-])",
    re.I,
)


def _window_end(m: re.Match[str], n: str) -> tuple[int, int, int] | None:
    """(year or 0, month, day) of the window's end `n` ('1' or '2'), as written."""
    iso = m.group("iso" + n)
    if iso:
        y, mo, d = (int(x) for x in iso.split("-"))
        return (y, mo, d) if 1 <= mo <= 12 else None
    month = (m.group("m" + n) or m.group("m" + n + "b"))[:3].lower()
    year = m.group("y" + n) or m.group("y" + n + "b")
    return (
        int(year) if year else 0,
        _MONTHS[month],
        int(m.group("d" + n) or m.group("d" + n + "b")),
    )


# A date argument the rule names ('no sends (send_date)', 'a po_date Jun 15 - Jun 30'):
# snake_case with a 'date' part, bare or in backticks.
_DATE_ARGUMENT = re.compile(r"`?\b(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)*_date|date_[a-z0-9_]+)\b`?")
# A window written without 'between' / 'from', read only beside a named date argument (the
# argument says what the days are of): 'Jun 15 - Jun 30', 'Dec 24-26', 'Jun 24 through Jun 30';
# 'until' is left out (it may end before its day). An end word from boundaries.WINDOW_ENDS may
# follow ('inclusive', '(exclusive)').
_BARE_WINDOW = re.compile(
    r"\b(?:(?P<m1>" + _MONTH + r")\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?" + _YEAR.format("y1") + "|"
    r"(?P<d1b>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1b>" + _MONTH + r")" + _YEAR.format("y1b") + "|"
    r"(?P<iso1>(?:19|20)\d\d-[01]\d-[0-3]\d))"
    r"(?:\s*(?:-|\u2013)\s*(?P<d2c>\d{1,2})(?![\w/-]|[.:]\d)|"
    r"\s+(?:to|through|thru|-|\u2013)\s+"
    r"(?:(?P<m2>" + _MONTH + r")\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?" + _YEAR.format("y2") + "|"
    r"(?P<d2b>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m2b>" + _MONTH + r")" + _YEAR.format("y2b") + "|"
    r"(?P<iso2>(?:19|20)\d\d-[01]\d-[0-3]\d))(?![\w-]))",
    re.I,
)
_WINDOW_ENDS_WORD = re.compile(
    r"\s*,?\s*\(?\s*(?P<ends>" + phrase_pattern(WINDOW_ENDS) + r")\b\s*\)?", re.I
)
# how a rule writes its date argument beside the window: '(send_date)', 'with a po_date',
# 'an award_date of'
_ARGUMENT_FRAME = r"(?:\bwith\s+)?(?:\b(?:an?|the|its|their)\s+)?`?{}`?(?:\s+(?:of|on|in)\b)?"


# A window's own name as the rule's heading, right before its days and ended by a colon or a
# dash after them: 'Quiet period Dec 24-26: …', 'Holiday moratorium (Nov 25 - Jan 2): …',
# 'FY-end freeze - Jun 15 - Jun 30 …'. The name is read with the window; a word of it that
# narrows ('EMEA quiet period') would only narrow the prohibition, so reading the days alone
# refuses more, never less.
_WINDOW_LABEL_BEFORE = re.compile(
    r"^\s*(?:\d+[.)]\s*)?(?P<label>(?:[A-Za-z][\w&/-]*\s+){0,3}(?:period|moratorium|freeze|"
    r"blackout|window|holidays?|close|closing|shutdown|cutoff|lockdown|embargo))\s*\(?\s*$",
    re.I,
)
_WINDOW_LABEL_AFTER = re.compile(r"^\s*\)?\s*(?::|--?|\u2013|\u2014)\s+", re.I)
_LABEL_WORDS = (
    r"(?:[A-Za-z][\w&/-]*\s+){0,3}(?:period|moratorium|freeze|blackout|window|holidays?|close|"
    r"closing|closed|locked|shutdown|cutoff|lockdown|embargo)"
)
# the same name as the heading of a rule whose window comes later ('3. FY-end freeze: no new
# POs with a po_date Jun 15 - Jun 30'), or in brackets right after the window ('Jun 24 through
# Jun 30, inclusive (cycle close)')
_WINDOW_HEADING = re.compile(r"^\s*(?:\d+[.)]\s*)?(?P<label>" + _LABEL_WORDS + r")\s*:\s+", re.I)
_WINDOW_LABEL_BRACKETS = re.compile(r"^\s*\((?P<label>" + _LABEL_WORDS + r")\)", re.I)


# One side of a dated day, beside a named date argument ('an entry_date after 2025-06-30'):
# read as a window from that day to the end of time, or from the start of time to it. The year
# must be written (a day of every year has no single side).
_DATE_BOUND = re.compile(
    r"\b(?P<word>" + phrase_pattern(DATE_SIDE) + r")\s+(?P<iso>(?:19|20)\d\d-[01]\d-[0-3]\d)"
    r"(?![\w-]|[.:]\d)",
    re.I,
)


def _date_bound_window(
    m: re.Match[str],
) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """(first day, last day) of the side of the date `m` (of _DATE_BOUND) the word names."""
    import datetime as _dt

    try:
        day = _dt.date.fromisoformat(m.group("iso"))
    except ValueError:
        return None
    op = phrase_op(DATE_SIDE, m.group("word"))
    one = _dt.timedelta(days=1)
    if op in ("lt", "le"):
        last = day - one if op == "lt" else day
        return (1, 1, 1), (last.year, last.month, last.day)
    first = day + one if op == "gt" else day
    return (first.year, first.month, first.day), (9999, 12, 31)


# A day of the calendar left in a window rule's rest: a month's name (written as a month: 'May'
# only before a day), an ISO date or a day and month in figures.
_ANOTHER_DAY = re.compile(
    r"\b(?:jan|january|feb|february|mar|march|apr|april|jun|june|jul|july|aug|august|sep|sept|"
    r"september|oct|october|nov|november|dec|december)\b\.?|\bmay\s+\d|"
    r"\b(?:19|20)\d\d-[01]\d(?:-[0-3]\d)?\b|\b\d{1,2}/\d{1,2}\b",
    re.I,
)
# more days joined to the window ('Dec 24-26 or 31', '…, and the 31st')
_MORE_DAYS = re.compile(r"^\s*(?:,|or\b|and\b|&|/|\+)\s*(?:the\s+)?\d", re.I)


# words that carry a window past its written days ('until further notice', 'and thereafter',
# 'or later', 'onwards'): the window read alone would approve the days after it
_WINDOW_STRETCHED = re.compile(
    r"\b(?:until|till|pending|thereafter|onwards?|beyond|further\s+notice|extended|"
    r"(?:or|and)\s+(?:later|after|earlier|before|beyond|after\s*wards?))\b",
    re.I,
)


def _named_date_argument(text: str) -> str | None:
    """The one date argument `text` names, '' when none, None when several (which one the
    window reads would be a guess)."""
    names = {m.group("name") for m in _DATE_ARGUMENT.finditer(text)}
    if len(names) > 1:
        return None
    return names.pop() if names else ""


class DateWindowRecogniser(Recogniser):
    """A prohibition or review that holds between two calendar dates, read from the request's
    date argument ('scheduled_date': '2026-12-04'), or from the one the rule names ('Quiet
    period Dec 24-26: no sends (send_date)')."""

    kind = "date_window"

    def recognise(self, c: Clause) -> list[Check] | None:
        argument = _named_date_argument(c.text)
        if argument is None:
            return None
        m = _DATE_WINDOW.search(c.text)
        if m and _DATE_WINDOW.search(c.text, m.end()):
            return None
        if not m and argument:
            m = _BARE_WINDOW.search(c.text) or _DATE_BOUND.search(c.text)
            if not m or m.re.search(c.text, m.end()) or _DATE_BOUND.search(c.text, m.end()):
                return None
        if not m:
            return None
        if m.re is _DATE_BOUND:
            if _EXCEPTION_BEFORE.search(c.text[: m.start()]):
                return None  # '… unless the entry_date is after …': the date is the exception's
            if re.search(r"\b(?:not|no|never|only|n't)\s*$", c.text[: m.start()], re.I):
                return None  # 'not later than', 'only after': the other side, or an allowance
            sides = _date_bound_window(m)
            if sides is None:
                return None
            return self._made(c, m, m.end(), argument, sides, True)
        if "d2c" in m.re.groupindex and m.group("d2c"):
            # 'Dec 24-26': the second day is of the first one's month (and year)
            if not m.group("m1") or m.group("y1"):
                return None
            first = _window_end(m, "1")
            last = (0, _MONTHS[m.group("m1")[:3].lower()], int(m.group("d2c")))
        else:
            first, last = _window_end(m, "1"), _window_end(m, "2")
        ends_inside, window_end = True, m.end()
        written = _WINDOW_ENDS_WORD.match(c.text, m.end())
        if written:
            ends_inside, window_end = phrase_op(WINDOW_ENDS, written.group("ends")), written.end()
        if first is None or last is None or not (1 <= first[2] <= 31 and 1 <= last[2] <= 31):
            return None
        y1, m1, d1 = first
        y2, m2, d2 = last
        if y1 and not y2:
            return None  # 'from 24 Nov 2025 to 2 Dec': which year it ends is not written
        if y2 and not y1:
            # 'Nov 24 to Dec 2, 2025': the year written once is the window's; 'Dec 20 - Jan 3,
            # 2026' starts the year before
            y1 = y2 if (m1, d1) <= (m2, d2) else y2 - 1
        if y1 and (y1, m1, d1) > (y2, m2, d2):
            # both years written, the later first ('between 2025-12-02 and 2025-11-24'): the
            # days between them
            (y1, m1, d1), (y2, m2, d2) = (y2, m2, d2), (y1, m1, d1)
        return self._made(c, m, window_end, argument, ((y1, m1, d1), (y2, m2, d2)), ends_inside)

    def _made(
        self,
        c: Clause,
        m: re.Match[str],
        window_end: int,
        argument: str,
        sides: tuple[tuple[int, int, int], tuple[int, int, int]],
        ends_inside: bool,
    ) -> list[Check] | None:
        """The window's checks: what the rest of the clause (but the window, its name and the
        named argument) restricts, held on the days between `sides`."""
        (y1, m1, d1), (y2, m2, d2) = sides
        label = ""
        named = _WINDOW_LABEL_BEFORE.match(c.text[: m.start()])
        after = _WINDOW_LABEL_AFTER.match(c.text[window_end:])
        heading = _WINDOW_HEADING.match(c.text)
        bracketed = _WINDOW_LABEL_BRACKETS.match(c.text[window_end:])
        if named and after and argument:
            label = named.group("label")
            rest = c.text[window_end + after.end() :].strip()
        elif heading and argument and heading.end() <= m.start():
            label = heading.group("label")
            rest = (c.text[heading.end() : m.start()] + " " + c.text[window_end:]).strip()
        elif bracketed and argument:
            label = bracketed.group("label")
            rest = (c.text[: m.start()] + " " + c.text[window_end + bracketed.end() :]).strip()
        else:
            rest = (c.text[: m.start()] + " " + c.text[window_end:]).strip()
        # 'Holiday moratorium (Nov 25 - Jan 2): …': the heading keeps its colon, not '( )'
        rest = re.sub(r"\s*\(\s*\)", "", rest)
        rest = re.sub(r"\s+([:,.;])", r"\1", rest)
        if argument:
            framed = re.compile(
                r"\(\s*`?" + argument + r"`?\s*\)|" + _ARGUMENT_FRAME.format(argument)
            )
            if len(framed.findall(rest)) != 1:
                return None  # the argument written twice, or inside the window's words
            rest = re.sub(r"\s+", " ", framed.sub(" ", rest)).strip()
            rest = re.sub(r"\s+([:,.;])", r"\1", rest)
        if argument and (_ANOTHER_DAY.search(rest) or _MORE_DAYS.match(c.text[window_end:])):
            # 'Dec 24-26 or Dec 31', 'Jun 15 - Jun 30 and 31st': more days than the window's,
            # which the rest would read as subject words (and Dec 31 be approved)
            return None
        if _WINDOW_STRETCHED.search(rest):
            # 'Dec 24-26 until further notice', 'Jun 15 - Jul 15, 2025 or later': the days
            # run past the window's written end, which the rest would drop as filler
            return None
        made, _, _ = compile_clause(c.index, c.source, rest, c.previous, c.subject_carry)
        if not made or any(x.effect == "allow" for x in made):
            return None
        if argument and (
            any(argument in x.reading() for x in made)
            or any(isinstance(x, NumericLimit) and not x.named for x in _all_checks(made))
        ):
            # '… no sends (send_date) over 10,000 recipients': the rest compares the date
            # argument itself with a number, or a later pass may bind its bound to the name
            # written beside it: a misreading either way
            return None
        phrase = re.sub(r"\s+", " ", c.text[m.start() : window_end].strip(" ,("))
        return [
            DateWindow(
                c.index,
                c.source,
                b.effect,
                b.terms,
                b.alternatives,
                start=(m1, d1),
                end=(m2, d2),
                start_year=y1,
                end_year=y2,
                phrase=phrase,
                body=b,
                argument=argument,
                ends_inside=ends_inside,
                label=label,
            )
            for b in made
        ]


# 'may not air before 21:00', 'No deploys after 6pm': the side of a time of day the rule holds on.
_TIME_BOUND = re.compile(
    r"\b(?P<word>before|after|until|till|prior\s+to|earlier\s+than|later\s+than|past)\s+"
    r"(?P<time>\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2})"
    r"(?:\s+(?P<zone>local(?:\s+time)?|UTC))?(?=[\s.,;]|$)",
    re.I,
)
# which side of the bound each ordering word names: 'before 21:00' is earlier than 21:00
_TIME_SIDE = {
    "before": "lt",
    "until": "lt",
    "till": "lt",
    "prior to": "lt",
    "earlier than": "lt",
    "after": "gt",
    "later than": "gt",
    "past": "gt",
}


_EXCEPTION_BEFORE = re.compile(r"\b(?:unless|except|if|when|once|provided|as long as)\b", re.I)


class TimeOfDayRecogniser(Recogniser):
    """A prohibition or review that holds on one side of a time of day, read from the request's
    time argument ('air_time': '20:30', 'start_at': '2026-11-24T20:30:00')."""

    kind = "time_of_day"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _TIME_BOUND.search(c.text)
        if not m or _TIME_BOUND.search(c.text, m.end()) or (m.group("zone") or "").upper() == "UTC":
            return None  # two bounds (a window) or a zone: not read here
        if _EXCEPTION_BEFORE.search(c.text[: m.start()]):
            # '… unless the customer asked in writing (…) before 5pm': the time belongs to the
            # exception; read as the rule's window it lifted the prohibition after 5pm
            return None
        from webapp.judge.checks import clock_minutes

        read = clock_minutes(m.group("time"))
        if read is None:
            return None
        rest = (c.text[: m.start()] + " " + c.text[m.end() :]).strip()
        made, _, _ = compile_clause(c.index, c.source, rest, c.previous, c.subject_carry)
        if not made or any(x.effect == "allow" for x in made):
            return None
        word = " ".join(m.group("word").lower().split())
        phrase = re.sub(r"\s+", " ", m.group(0).strip())
        return [
            TimeOfDay(
                c.index,
                c.source,
                b.effect,
                b.terms,
                b.alternatives,
                op=_TIME_SIDE[word],
                minutes=read[0],
                phrase=phrase,
                body=b,
            )
            for b in made
        ]


# Days of the week in a rule: full names and 'weekends' / 'weekdays' always; the short forms
# ('fri', 'sat', 'sun' are words too: 'sat idle', 'sun exposure') only written as a day is:
# capitalised, in a pair ('sat/sun', 'Mon-Fri') or before a part of the day ('fri pm').
_DAY_WORD = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|week-?ends?|week-?days?"
)
_DAY_SHORT = r"(?:mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)"
_DAY_JOIN = r"\s*(?:/|,|&|-|\u2013|\bor\b|\band\b|\bto\b|\bthrough\b|\bthru\b)\s*"
_DAY_PART = r"(?P<part>pm|am|p\.m\.|a\.m\.|afternoons?|evenings?|mornings?)"
_WEEKDAY_PHRASE = re.compile(
    rf"(?:\b(?:on|during|over)\s+(?:the\s+)?)?\b(?P<days>"
    rf"(?:{_DAY_WORD}|{_DAY_SHORT})(?:{_DAY_JOIN}(?:{_DAY_WORD}|{_DAY_SHORT}))*)\b"
    rf"(?:\s+{_DAY_PART}\b)?",
    re.I,
)
_ONE_DAY = re.compile(rf"{_DAY_WORD}|{_DAY_SHORT}", re.I)
_DAY_INDEX = {
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
# A day after one of these is a deadline or a bound ('until Friday', 'by Monday'), and one after
# an exception marker or 'only' is what is allowed ('except on weekends'): not read here.
_NOT_A_DAY_WINDOW = re.compile(
    r"\b(?:until|till|by|before|after|from|since|next|last|this|except|unless|other\s+than|"
    r"outside|but|only|not)\s*(?:on\s+|the\s+)?$",
    re.I,
)


def _days_of(text: str) -> tuple[int, ...] | None:
    """The days of the week `text` names (a day, a pair, a range 'Mon-Fri', 'weekends')."""
    days: list[int] = []
    found = list(_ONE_DAY.finditer(text))
    for i, m in enumerate(found):
        w = m.group(0).lower().replace("-", "")
        if w.startswith("weekend"):
            days += [5, 6]
            continue
        if w.startswith("weekday"):
            days += [0, 1, 2, 3, 4]
            continue
        day = _DAY_INDEX[w[:3]]
        between = text[found[i - 1].end() : m.start()] if i else ""
        if i and re.search(r"-|\u2013|\bto\b|\bthrough\b|\bthru\b", between, re.I):
            start = days[-1]
            days += [(start + k) % 7 for k in range(1, (day - start) % 7 + 1)]
        else:
            days.append(day)
    return tuple(sorted(set(days))) or None


class WeekdayRecogniser(Recogniser):
    """A prohibition or review that holds on days of the week ('no prod deploys fri pm', 'No
    contractor work on weekends'), read from the request's date, date-time or day argument."""

    kind = "weekday"

    def recognise(self, c: Clause) -> list[Check] | None:
        found = [m for m in _WEEKDAY_PHRASE.finditer(c.text) if self._written_as_day(m)]
        if len(found) != 1:
            return None  # none, or two day phrases (a window across days): not read here
        m = found[0]
        if _NOT_A_DAY_WINDOW.search(c.text[: m.start()]) or _EXCEPTION_BEFORE.search(
            c.text[: m.start()]
        ):
            return None  # '… unless … on weekends': the days belong to the exception
        days = _days_of(m.group("days"))
        if days is None or len(days) == 7:
            return None
        rest = (c.text[: m.start()] + " " + c.text[m.end() :]).strip()
        made, _, _ = compile_clause(c.index, c.source, rest, c.previous, c.subject_carry)
        if not made or any(x.effect == "allow" for x in made):
            return None
        part = (m.group("part") or "").lower().replace(".", "")
        part = "pm" if part.startswith(("pm", "afternoon", "evening")) else part[:2]
        phrase = re.sub(r"\s+", " ", m.group(0).strip())
        return [
            Weekday(
                c.index,
                c.source,
                b.effect,
                b.terms,
                b.alternatives,
                days=days,
                part=part,
                phrase=phrase,
                body=b,
            )
            for b in made
        ]

    @staticmethod
    def _written_as_day(m: re.Match[str]) -> bool:
        text = m.group("days")
        before = m.string[: m.start("days")].rstrip()
        name = re.search(r"(?<![.!?:;])\s([A-Z][\w']*)$", " " + before)
        if name and text[0].isupper() and name.group(1).lower() not in ("on", "during", "over"):
            return False  # 'Black Friday', 'Cyber Monday': a named day, not a day of the week
        after = m.string[m.end("days") : m.end("days") + 1]
        if after in ("-", "_", "/", ":") or after.isdigit():
            return False  # 'prefix MON-', 'SAT_2': part of a code, not a day
        if re.search(_DAY_WORD, text, re.I):
            return True
        if any(d.isupper() for d in _ONE_DAY.findall(text)):
            return False  # 'MON', 'SUN': a code or an acronym more often than a day
        return bool(m.group("part")) or len(_ONE_DAY.findall(text)) > 1 or text[0].isupper()


class ActionRecogniser(Recogniser):
    """Actions that are forbidden, need review, or are allowed ('Never delete S3 buckets').

    An 'only …' that is not a list of values is a condition ('only after the KYC check') the
    engine cannot verify: nothing is made, and the clause is kept as text.
    """

    kind = "action"

    def recognise(self, c: Clause) -> list[Check] | None:
        if c.only and not c.review:
            return []
        if (c.review or c.negated) and _NOT_SCOPE.search(c.text):
            # 'Access for users not in group admins is forbidden', 'Contractors, not employees,
            # need approval': a 'not' that narrows who or what the rule speaks of, which action
            # words cannot read (as words, an admin's access was denied)
            return []
        if c.review and OUTSIDE.search(c.text):
            # 'Roles not in [viewer, editor] need approval': an exclusion no list read narrows
            # the action (read as words, 'viewer' and 'editor' had to appear and owner passed)
            return []
        if len(_NOT_WORD.findall(_without_outside_negations(c.text))) > 1 and not c.allow:
            # 'Datasets not classified public must not be exported': a second negation turns a
            # qualifier of the action (read as words, 'classified public' had to appear and an
            # internal dataset passed)
            return []
        if _participle_category(c.text):
            return []  # 'Campaigns to purchased lists need review': an open class, kept as text
        if c.review or c.negated or c.allow:
            text = c.text if c.own_subject or not c.subject_carry else f"{c.subject_carry} {c.text}"
            terms, alts = _action_terms(text, c.review)
            if terms or alts:
                return [ActionRule(c.index, c.source, c.effect, terms, alts)]
        return []


_NOT_SCOPE = re.compile(
    r"\b(?:not|n't)\s+(?:in|on|among|within|from|part\s+of|one\s+of|listed)\b|,\s*not\s+[a-z]+\s*,",
    re.I,
)
_NOT_WORD = re.compile(r"\bnot\b|n't\b", re.I)


# 'to purchased lists', 'for terminated employees', 'from rented databases': a participle used
# as an adjective names a class of objects (an open category), not the rule's action. Read as
# words it would make the verb look like another action and the rule look like it governs
# nothing; no vocabulary says which lists were purchased, so the clause stays text (review).
_PARTICIPLE_PHRASE = re.compile(
    r"\b(?:to|from|with|for|on|of|in|into|against|targeting)\s+(?:the\s+|any\s+|all\s+)?"
    r"(?P<participle>[a-z]{3,}ed)\s+(?P<noun>[a-z]{3,}s)\b",
    re.I,
)


_NOT_PARTICIPLES = frozenset({"speed", "feed", "seed", "hundred", "need", "embed"})


def _participle_category(text: str) -> bool:
    return any(
        m.group("participle").lower() not in _NOT_PARTICIPLES
        # 'cases in Closed status': the state a status argument holds, not an open class
        and m.group("noun").lower() != "status"
        for m in _PARTICIPLE_PHRASE.finditer(text)
    )


# The registry, in the order a clause is offered to them: the first that answers decides. A new
# kind of rule is one Recogniser class added here.

# ---------------------------------------------------------------------------------------------
# Explicit bindings: the rule writes the argument and the value it must hold ('Orders require an
# account in good standing (account_status = active)', 'creator must have tax_form_on_file =
# true', '(legal_case_id given)', 'session_timeout_minutes between 15 and 60', 'include a
# rollback_plan'). The binding is read as a typed check on that argument (Binding); the noun
# phrase right before its bracket only glosses it and is read by it; the rule's subject is read
# by the check's subject words; every other word (a condition, a second obligation, a scope after
# the binding) is left to its own check or stays unaccounted.
_B_IDENT = r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+"  # snake_case or a dotted path
_B_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)*"
_B_VALUE = r"\"[^\"]{1,60}\"|'[^']{1,60}'|-?\d+(?:\.\d+)?(?![\w.])|[A-Za-z][\w\-:/]*"
_B_NUM = r"-?\d+(?:\.\d+)?"
_B_SIGN = r"==|=|!=|≠"
_B_WORDS = r"must\s+not\s+be|must\s+be|should\s+not\s+be|should\s+be|is\s+not|is|equals|set\s+to"
_B_LITERAL = rf"true|false|\"[^\"]{{1,60}}\"|'[^']{{1,60}}'|{_B_NUM}"
_BINDING_FORMS = (
    # '(fee_status = "paid")', '(registered = true)', '(is_test != true)'
    re.compile(rf"\(\s*(?P<name>{_B_NAME})\s*(?P<op>{_B_SIGN})\s*(?P<value>{_B_VALUE})\s*\)", re.I),
    # '(rx_verified must be true)'
    re.compile(
        rf"\(\s*(?P<name>{_B_IDENT})\s+(?P<op>{_B_WORDS})\s+(?P<value>{_B_VALUE})\s*\)", re.I
    ),
    # '(legal_case_id given)'
    re.compile(
        rf"\(\s*(?P<name>{_B_IDENT})\s+(?P<present>given|present|provided|supplied|populated|"
        r"filled(?:\s+in)?|required|mandatory|set)\s*\)",
        re.I,
    ),
    # 'Thermostat setpoints (setpoint_c) between 16 and 24', 'session_timeout_minutes between 15
    # and 60'
    re.compile(
        rf"(?:\(\s*(?P<bracketed>{_B_IDENT})\s*\)|(?<![\w.(])(?P<name>{_B_IDENT}))\s+"
        rf"(?:(?:must|should)\s+(?:be|stay|remain)\s+|is\s+)?between\s+(?P<low>{_B_NUM})\s+and\s+"
        rf"(?P<high>{_B_NUM})(?![\w.])",
        re.I,
    ),
    # 'tax_form_on_file = true', 'visitor.badge_status = "active"'
    re.compile(
        rf"(?<![\w.(])(?P<name>{_B_IDENT})\s*(?P<op>{_B_SIGN})\s*(?P<value>{_B_VALUE})", re.I
    ),
    # 'callback_done must be true', 'ownership_verified is true'
    re.compile(
        rf"(?<![\w.(])(?P<name>{_B_IDENT})\s+(?P<op>{_B_WORDS})\s+(?P<value>{_B_LITERAL})(?![\w.])",
        re.I,
    ),
    # 'need a Legal review ID (legal_review_id)', 'require evidence of regulated financial advice
    # (advice_ref)': the bracket names the argument that gives the thing (read only after a word
    # asking for it, see _binding_checks)
    re.compile(r"\(\s*(?P<named>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*\)(?!\s*between\b)"),
    # 'include a rollback_plan', 'Royalty payout: cite statement_id': an imperative naming it
    re.compile(
        r"^(?P<lead>[A-Za-z][\w\s\-]{0,40}:\s*)?(?P<verb>include|provide|cite|quote|attach|supply|"
        rf"reference|give)\s+(?:(?:a|an|the)\s+)?(?P<name>{_B_IDENT})\s*$",
        re.I,
    ),
)
# Words that end a gloss when read backwards from its bracket: a modal, a verb of the predicate, a
# preposition, a conjunction or a condition marker (the gloss is a noun phrase, nothing more).
_GLOSS_STOP = frozenset(
    """must shall should may might can cannot could will would need needs needed require requires
    required is are be been being was were have has had to for with by from against on at into
    onto via only if when once unless except and or but not no never than over under above below
    per without that which who whose while until before after during include includes carry
    carries cite cites provide provides attach give gives supply supplies mandatory go goes
    exclude excludes contain contains hold holds use uses""".split()
)
_NUMBER_WORDS_ALL = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty hundred "
    "thousand million first second third once twice".split()
)
_GLOSS_DETERMINERS = frozenset("a an the its their his her our your this that any every".split())
_GLOSS_WORD = re.compile(r"([A-Za-z][\w\-]*(?:'s)?)\s*$")
# 'only if the fee is paid (fee_status = "paid")': a condition whose whole content the binding
# states. It may not hold a second condition, a number or a negation.
_BINDING_CONDITION = re.compile(
    r"\b(?P<marker>only\s+(?:if|once|when|after)|provided(?:\s+that)?|as\s+long\s+as)\s+"
    r"(?P<gloss>[^,;:()]*?)\s*$",
    re.I,
)
_BINDING_STATE = re.compile(
    r"\b(?:must|shall|should|has\s+to|have\s+to|needs?\s+to)\s+(?P<be>(?:be|have\s+been)\s+)?"
    r"(?P<gloss>(?P<first>[a-z]+)\b[^,;:()]*?)\s*$",
    re.I,
)
_BINDING_ONLY = re.compile(
    r"\bonly(?:\s+(?:to|against|from|for|with|by|on|at|in|into|via|through))?\s*$", re.I
)
_BINDING_REQUIRES = re.compile(
    r"\b(?:must|shall|should|requires?|required|needs?|needed|has\s+to|have\s+to|mandatory|"
    r"compulsory)\b",
    re.I,
)
# What asks for a named thing to be given: 'need', 'require', 'must include', 'must carry' …
_BINDING_ASKS = re.compile(
    r"\b(?:needs?|requires?|required|(?:must|shall|should|to)\s+(?:always\s+)?(?:include|carry|"
    r"have|cite|reference|quote|provide|attach|state|name|give|supply|record|contain|hold|show|"
    r"come\s+with|be\s+accompanied\s+by))\s+(?:(?:a|an|the|its|their)\s+)?$",
    re.I,
)
# A gloss of a person's act or a state no name proves ('mgr approval', 'a signed form') is not a
# thing the name gives; an identifier's head word ('a Legal review ID') is one.
_BINDING_NOT_GIVEN = frozenset(
    "approval approvals approver approvers sign-off signoff signoffs authorisation authorization "
    "consent ok okay go-ahead permission signed approved verified valid confirmed completed "
    "authorised authorized accepted".split()
)
_BINDING_ID_HEADS = frozenset("id ids number no ref reference code key identifier".split())
_BINDING_REFUSED = re.compile(r"\b(?:unless|except|without|otherwise|or\s+else|if\s+not)\b", re.I)
# (jgloss) the outside of what the binding states, before it or in its gloss: 'No refunds other
# than store credit (refund_method = store_credit)', '… outside store credit (…)' had denied
# store credit, the one refund allowed
_BINDING_OUTSIDE = re.compile(
    r"\b(?:other\s+than|outside(?:\s+of)?|besides|apart\s+from|excluding|instead\s+of|"
    r"anything\s+but|any\s+\w+\s+but)\b",
    re.I,
)
_BINDING_AFTER = re.compile(
    r"^\s*(?:(?:is|are)\s+(?:required|mandatory|compulsory|needed)\b)?"
    r"(?:\s*(?:for|on|of)\s+(?P<scope>(?:every|each|all|any)(?:\s+(?!(?:and|or|for|on|in|to|"
    r"with|by|at|from|but|unless|except|if|when)\b)[A-Za-z][\w\-]*){1,3}))?\s*$",
    re.I,
)
_BINDING_ITEM_BEFORE = re.compile(
    rf"(?<![\w.])(?P<name>{_B_IDENT})\s*(?:,\s*(?:and\s+)?|\s+and\s+)$"
)


# Words that narrow a thing rather than name it ('a domestic bank account', 'a recently verified
# account', 'an unexpired ID', 'a personally verified account'): a binding on another attribute
# does not show them, so they end its gloss unless the bound name carries them.
_GLOSS_QUALIFIERS = frozenset(
    "domestic foreign international overseas local national regional current recent new existing "
    "own personal corporate business primary secondary joint external internal original "
    "physical permanent temporary".split()
)


def _narrows(word: str, name: str) -> bool:
    """Whether `word` of a gloss narrows its thing in a way the bound argument `name` does not
    state: an adverb ('recently'), a negated adjective ('unexpired', 'non-resident'), a
    qualifier of place, time or owner ('domestic', 'current', 'own')."""
    if not name:
        return False
    low = word.lower()
    if stem(low) in {stem(w.lower()) for w in words(name)}:
        return False
    return (
        (low.endswith("ly") and len(low) > 4)
        or bool(re.fullmatch(r"un[a-z]{2,}(?:ed|able|ible|ful|id)|non-[a-z]{3,}", low))
        or low in _GLOSS_QUALIFIERS
    )


_NOUN_AFTER_ARTICLE = re.compile(
    r"\b(?:a|an|the)\s+(?:(?!(?:must|may|can|should|shall|will|would|need|needs|not|to|and|or)\b)"
    r"[A-Za-z][\w\-]*\s+){1,2}$",
    re.I,
)


def _gloss_start(text: str, at: int, name: str = "") -> int:
    """Where the noun phrase that ends right before `at` (a bracket) starts: 'a verified bank
    account', 'an account in good standing', 'dates of birth'; `at` itself when there is none.
    With the bound argument's `name`, a word narrowing the thing that the name does not state
    ends the phrase."""
    start = at
    taken: list[str] = []
    crossed_in = -1
    pos = at
    while len(taken) < 7:
        m = _GLOSS_WORD.search(text, 0, pos)
        if m is None or text[m.end() : pos].strip():
            break  # punctuation or the start of the clause ends the phrase
        w = m.group(1)
        low = w.lower()
        if low in _GLOSS_DETERMINERS:
            if taken:
                start = m.start(1)
            crossed_in = -1  # 'an account in good standing': the phrase is whole
            break
        if low == "on" and taken and taken[-1] in ("file", "record"):
            taken.append(low)  # 'an exit interview on file': a state of the thing, its gloss
            pos = m.start(1)
            continue
        if low in ("of", "in") and taken:
            if low == "in":
                crossed_in = start
            taken.append(low)
            pos = m.start(1)
            continue
        if low in _GLOSS_STOP or low in _NUMBER_WORDS_ALL or any(ch.isdigit() for ch in w):
            break
        if _narrows(w, name):
            crossed_in = -1
            break
        if stem(low) in VERBS and not low.endswith("ed") and not w.isupper():
            if not taken and _NOUN_AFTER_ARTICLE.search(text, 0, m.start(1)):
                # 'a green CI run (ci_status = passed)': after an article and plain words the
                # act's word is the thing named, the head of the gloss
                taken.append(low)
                start = m.start(1)
                pos = m.start(1)
                continue
            break  # the rule's act ('may ship', 'must export'), never a gloss; 'verified' is one
        taken.append(low)
        start = m.start(1)
        pos = m.start(1)
    if crossed_in >= 0:
        start = crossed_in  # 'orders in bulk (…)': after 'in' only, unless a determiner opens it
    while True:  # the phrase never opens with 'of' or 'in'
        lead = re.match(r"(?:of|in)\s+", text[start:at], re.I)
        if not lead:
            break
        start += lead.end()
    return start if text[start:at].strip() else at


_BOUND_AFTER_VALUE = re.compile(
    r"\s*(?:or\s+(?:fewer|less|more|lower|higher|greater|under|over|above|below|smaller|"
    r"larger|bigger)|max(?:imum)?\b|min(?:imum)?\b|at\s+(?:most|least)|and\s+(?:under|below|"
    r"over|above|up|down)|(?:or|and)\s+up\b|\+)",
    re.I,
)


def _binding_checks(index: int, source: str, clause: str, carry: str) -> list[Check] | None:
    """The checks of a clause that writes an explicit binding, or None when it writes none (or
    one this reading leaves alone: inside an exception, after 'without', or two of them)."""
    found = [(rx, m) for rx in _BINDING_FORMS for m in [rx.search(clause)] if m]
    if not found:
        return None
    rx, m = min(found, key=lambda f: f[1].start())
    spans = {(f[1].start(), f[1].end()) for f in found}
    if any(s >= m.end() for s, _ in spans):
        return None  # a second binding: which obligation each belongs to is not read here
    groups = m.groupdict()
    name = groups.get("name") or groups.get("bracketed") or groups.get("named") or ""
    if not name or name.isdigit():
        return None
    if groups.get("low") is not None:
        op, value, high = "between", float(m.group("low")), float(m.group("high"))
        if value > high:
            return None
    elif groups.get("present") or groups.get("verb") or groups.get("named"):
        op, value, high = "present", None, None
    else:
        sign = re.sub(r"\s+", " ", m.group("op").lower())
        negative = sign in ("!=", "≠") or sign.endswith("not be") or sign == "is not"
        op, value, high = ("ne" if negative else "eq"), binding_literal(m.group("value")), None
        if isinstance(value, str) and value.lower() in ("required", "mandatory", "given"):
            return None
        if isinstance(value, float) and _BOUND_AFTER_VALUE.match(clause, m.end("value")):
            # jred31: 'pass_count must be 6 or fewer' is a bound, never the one value allowed
            # (read "is not 6", it denied 5 passes)
            return None
        if isinstance(value, float) and {w.lower() for w in words(name)} & _BOUND_NAMES:
            return None  # 'max_replicas = 10' states a bound, not the one value allowed
    # the bracket the gloss ends at: the binding's own, or the bracketed name of a range
    bracket = m.start("bracketed") - 1 if m.groupdict().get("bracketed") else m.start()
    bracketed = clause[bracket : bracket + 1] == "("
    if bracketed:
        bracket = clause.rfind("(", 0, bracket + 1)
    gloss_at = bracket if bracketed else m.start()
    if m.groupdict().get("verb"):
        gloss_at = m.start("verb")  # 'Royalty payout: cite statement_id': the lead is the subject
    written_at = gloss_at
    markers: list[str] = []
    cond = _BINDING_CONDITION.search(clause, 0, bracket) if bracketed else None
    state = _BINDING_STATE.search(clause, 0, bracket) if bracketed else None
    plain = r"\d|\b(?:and|or|not|never|no|nor|unless|except|if|when|while|until)\b"
    if cond and cond.group("gloss") and not re.search(plain, cond.group("gloss"), re.I):
        gloss_at = written_at = cond.start("gloss")
        markers.append(re.sub(r"\s+", " ", cond.group("marker").lower()))
        before = clause[: cond.start()]
    elif (
        state
        and not re.search(plain, state.group("gloss"), re.I)
        and (
            (state.group("be") and state.group("first").lower().endswith("ed"))
            or stem(state.group("first").lower()) in {stem(w) for w in words(name)}
        )
    ):
        # 'must be verified by a call-back to the number on file (callback_verified = true)':
        # the state the binding names, glossed in full
        gloss_at = written_at = state.start("gloss")
        before = clause[:gloss_at]
    else:
        if bracketed:
            # 'go via the partner portal only (delivery_channel = portal)': the restriction
            # written after its gloss
            late_only = re.search(r"\s+only\s*$", clause[:bracket], re.I)
            gloss_at = written_at = _gloss_start(
                clause, late_only.start() if late_only else bracket, name
            )
            if late_only and gloss_at < late_only.start():
                markers.append("only")
        before = clause[:gloss_at]
        only = _BINDING_ONLY.search(before)
        if only:
            markers.append("only")
            written_at = only.start() + 4  # 'only against a verified prescription'
            before = before[: only.start()]
    excepted = _BINDING_EXCEPTION.search(clause[: bracket + 1]) if bracketed else None
    if excepted and not re.search(plain, excepted.group("gloss"), re.I) and op in ("eq", "ne"):
        return _excepted_by_binding(
            index,
            source,
            clause,
            carry,
            excepted,
            name,
            op,
            value,
            clause[excepted.end() : m.end()],
        )
    if _BINDING_OUTSIDE.search(clause[: m.start()]):
        return None
    if _BINDING_REFUSED.search(before) or _BINDING_CONDITIONED.search(before):
        # a binding inside an exception or a 'without' clause is not a requirement; after 'if',
        # 'when' … it is the condition of another obligation ('need a manager if the customer is
        # new (customer_new = true)'), not one of its own
        return None
    after = clause[m.end() :]
    tail = _BINDING_AFTER.match(after)
    # other named arguments joined to this one: 'tax_id and a verified bank account (…)'
    items: list[re.Match[str]] = []
    while True:
        item = _BINDING_ITEM_BEFORE.search(before)
        if not item:
            break
        items.append(item)
        before = before[: item.start()]
    # 'must not go to test accounts (is_test = true)', 'Never ship to a home address (…)': a
    # negated modal forbids what the binding states. A negation anywhere else ('require an
    # account not in collections (…)', 'accounts that are not frozen (…)') belongs to the gloss
    # or to a second obligation: which the binding's value already says is not read here.
    obliged_at = _BINDING_REQUIRES.search(before)
    rest = before[obliged_at.end() :] if obliged_at else ""
    rest_plain = re.sub(r"^\s*(?:not|never)\b", "", rest, flags=re.I)
    if NEGATION.search(rest_plain) or re.search(
        r"\b(?:not|no|non|never|without|nor)\s*$", clause[:gloss_at], re.I
    ):
        return None
    negated = rest_plain != rest or bool(
        NEGATION.search(before[: obliged_at.end()] if obliged_at else before)
    )
    if groups.get("named"):
        # a bare name in brackets binds only what a word asks to be given ('need a Legal review
        # ID (legal_review_id)'); after 'exclude', 'never share' it names a value (a list reads
        # it), after an approval ('require mgr approval (approved_by)') a person's act (review)
        asked = _BINDING_ASKS.search(before) or re.match(
            r"\s*(?:is|are)\s+(?:required|mandatory|compulsory)\b", after
        )
        gloss_words = {w.lower() for w in words(clause[gloss_at:bracket])}
        if (
            not asked
            or negated
            or not gloss_words
            or gloss_words & _BINDING_NOT_GIVEN
            or REVIEW.search(clause[gloss_at:bracket])
            and not gloss_words & _BINDING_ID_HEADS
        ):
            return None
    if (
        bracketed
        and not before.strip()
        and not markers
        and tail is None
        and not negated
        and predicate_follows(after)
    ):
        # (jscope) 'Contractor crews (crew_type = contractor) may not work energized equipment':
        # a bracket after the phrase that opens the clause, then a predicate, says whom the rule
        # is for, not what it requires (read as one, every internal crew was denied, labelled
        # understood); scopes.py reads it so, any other reading leaves it to the others
        return None
    requires = bool(
        _BINDING_REQUIRES.search(before)
        or markers
        or (tail and after.strip() and re.match(r"\s*(?:is|are)\s", after))
        or m.groupdict().get("verb")
        or not before.strip()
        or before.rstrip().endswith(":")
        or negated
    )
    if not requires or (negated and op in ("present", "between")):
        return None
    if negated:
        op = {"eq": "ne", "ne": "eq"}[op]
    # the subject and the act it permits ('Invoices may be sent to customers') say what the rule
    # is about; after the word of obligation ('must carry the prescriber's DEA number and …')
    # any other word is a second obligation no check reads, left unaccounted (only an act verb
    # there, 'must be disbursed', is the rule's act)
    obliged = _BINDING_REQUIRES.search(before)
    subject = before[: obliged.start()] if obliged else before
    predicate = before[obliged.start() :] if obliged else ""
    acts = tuple(s for s in content_stems(predicate) if s in VERBS)
    scope = tail.group("scope") if tail and tail.group("scope") else ""
    terms = _subject_terms(tuple(dict.fromkeys((*_terms(subject + " " + scope, False), *acts))))
    if not terms and not subject.strip() and carry:
        terms = _subject_terms(_terms(carry, cut_review=False))  # 'Flag rollouts …; include a …'
    # a word of the bound value ('via the partner portal' beside `delivery_channel = portal`) is
    # no subject word: matched by the value, it would make the rule look absent exactly when the
    # binding fails (a word of the argument's name is matched by the name, whatever its value)
    bound_words = {stem(w.lower()) for w in words(str(value))} if op in ("eq", "ne") else set()
    reads = tuple(t for t in terms if t in bound_words)
    terms = tuple(t for t in terms if t not in bound_words)
    gloss = re.sub(r"\s+only$", "", clause[gloss_at:bracket].strip()) if bracketed else ""
    if op == "present" and gloss and _names_owner_only(gloss, name):
        return None  # "the customer's insurance certificate (customer_id)": not the id (jred20)
    written = clause[written_at : m.end()].strip()
    made: list[Check] = [
        Binding(
            index,
            source,
            "deny",
            terms,
            (),
            path=name,
            op=op,
            value=value,
            high=high,
            gloss=gloss,
            written=written,
            markers=tuple(markers),
            reads=reads,
        )
    ]
    for item in items:
        made.append(
            Binding(
                index,
                source,
                "deny",
                terms,
                (),
                path=item.group("name"),
                op="present",
                written=item.group(0),
            )
        )
    made += _beside_binding(index, source, subject, predicate, after if not tail else "")
    # 'IT hardware orders over $2,000 may ship only to …': an amount in the subject conditions it
    condition = _amount_condition(Clause.read(index, source, before, None, carry))
    if condition is not None:
        made = [When(index, source, "deny", c.terms, (), condition, c) for c in made]
    return made


# 'Contractors (user_type=contractor) may only be given Viewer or Support Agent', 'Where
# account_kind = guest, the only permitted roles are Viewer and Guest Commenter': an allow-list of
# named roles (Title Case names) that holds where an argument has the bound value.
_BOUND_VALUE = r"(?P<name>[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)\s*(?:==?|\bis\b)\s*[\"'`]?(?P<value>[A-Za-z0-9][\w\-]*)[\"'`]?"
_GLOSSED_ALLOW_LIST = re.compile(
    r"^(?P<subject>[A-Za-z][a-z]+(?:\s+[a-z]+)?)\s*\(\s*" + _BOUND_VALUE + r"\s*\)\s+"
    r"(?:may|can|must|should|shall)\s+only\s+(?:be\s+)?(?P<verb>given|assigned|granted|get|"
    r"receive|hold|have)\s+(?:the\s+)?(?:roles?\s+)?" + _ROLE_NAMES + r"(?:\s+roles?)?\s*\.?$"
)
_WHERE_ALLOW_LIST = re.compile(
    r"^(?:where|when|if|for)\s+"
    + _BOUND_VALUE
    + r"\s*,\s*(?:the\s+)?only\s+(?:permitted|allowed)\s+"
    r"roles?\s+(?:are|is)\s+" + _ROLE_NAMES + r"\s*\.?$",
    re.I,
)


def _bound_allow_list(index: int, source: str, clause: str) -> list[Check] | None:
    m = _GLOSSED_ALLOW_LIST.match(clause) or _WHERE_ALLOW_LIST.match(clause)
    if m is None:
        return None
    items = [
        i.strip()
        for i in re.split(r"\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+", m.group("items"))
        if i.strip()
    ]
    if not items or any(i.lower() in STOPWORDS for i in items):
        return None
    verb = (m.groupdict().get("verb") or "").lower()
    subject = m.groupdict().get("subject") or ""
    reads = tuple(stem(w) for w in words(subject) if w.lower() not in STOPWORDS)
    condition = Binding(
        index,
        source,
        "deny",
        (),
        (),
        path=m.group("name"),
        op="eq",
        value=binding_literal(m.group("value")),
        gloss=subject,
        written=m.group(0),
        reads=reads + tuple(stem(w) for w in words(m.group("value"))),
    )
    body = ValueList(
        index,
        source,
        "deny",
        (stem(verb),) if verb else (),
        (),
        "allow",
        tuple(items),
        "exact",
        (stem("role"),),
        about_words=tuple(stem(w) for w in ("only", "permitted", "allowed", "role")),
    )
    return [WhenBound(index, source, "deny", body.terms, (), condition=condition, body=body)]


# '… unless the customer asked in writing (written_request = true)': an exception the binding
# states in full (a plain gloss, nothing after the binding).
_BINDING_EXCEPTION = re.compile(
    r"(?:,\s*)?\b(?P<marker>unless|except\s+(?:when|if|where))\s+(?P<gloss>[^,;:()]*?)\s*(?=\()",
    re.I,
)


def _excepted_by_binding(
    index: int,
    source: str,
    clause: str,
    carry: str,
    excepted: re.Match[str],
    name: str,
    op: str,
    value: Any,
    binding_text: str,
) -> list[Check] | None:
    """'Accounts may not be deleted unless the customer asked in writing (written_request =
    true)': the clause before the exception, excepted when the binding holds (Unless, test
    'binding'). Nothing may follow the binding, and the base must be a check of its own."""
    if clause[excepted.end() + len(binding_text) :].strip(" .") or binding_text.count("(") != 1:
        return None
    marker = re.sub(r"\s+", " ", excepted.group("marker").lower())
    base_text = clause[: excepted.start()].strip()
    if not base_text or _BINDING_REFUSED.search(base_text):
        return None
    made, _, _ = compile_clause(index, source, base_text, None, carry)
    if not made or any(c.effect == "allow" for c in made):
        return None
    gloss = excepted.group("gloss").strip()
    condition = Binding(
        index,
        source,
        "deny",
        (),
        (),
        path=name,
        op=op,
        value=value,
        gloss=gloss,
        written=clause[excepted.start("gloss") : excepted.end() + len(binding_text)].strip(),
        markers=(marker,),
    )
    return [
        Unless(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            test="binding",
            phrase=gloss,
            condition=condition,
        )
        for c in made
    ]


_BINDING_CONDITIONED = re.compile(
    r"\b(?:if|when|whenever|where|while|whilst|once|after|before|until|in\s+case)\b", re.I
)
_BOUND_NAMES = frozenset("max maximum min minimum limit cap ceiling floor threshold".split())
_BINDING_ASKED = re.compile(
    r"\b(?:needs?|requires?|(?:must|shall|should)\s+(?:always\s+)?(?:include|carry|have|cite|"
    r"reference|quote|provide|attach|state|name|give|supply|record|contain|hold|show))\b",
    re.I,
)
_BINDING_ITEM_REFUSED = re.compile(
    r"\d|\b(?:or|unless|except|if|when|while|until|not|never|no|nor|for|in|on|at|to|from|with|"
    r"by|within|during|before|after|over|under|above|below|per|than|via|into|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|twelve)\b",
    re.I,
)
_BINDING_ITEMS = re.compile(r"\s*(?:,\s*(?:and\s+)?|\band\s+)", re.I)
_BINDING_NEXT = re.compile(
    r"^\s*(?:,\s*)?(?:and\s+)?(?P<rest>(?:must|may|shall|should|cannot|can't|can|needs?|"
    r"requires?)\b.+)$",
    re.I,
)


def _beside_binding(
    index: int, source: str, subject: str, predicate: str, after: str
) -> list[Check]:
    """Obligations written beside a binding: things asked for with it ('must carry the
    prescriber's DEA number and a patient ID check (…)', '(hr_case_id) and the last working day'),
    each a required argument, and a second predicate after it ('…, and must not be for more than
    30 days' supply'), compiled as a clause of the same subject. What none of them reads stays
    unaccounted (the rule is then partly understood)."""
    made: list[Check] = []
    asked = _BINDING_ASKED.search(predicate)
    parts = [predicate[asked.end() :]] if asked else []
    nxt = _BINDING_NEXT.match(after)
    if nxt:
        clause_made, _, _ = compile_clause(
            index, source, f"{subject.strip()} {nxt.group('rest')}", None, subject
        )
        made += clause_made
    elif asked and re.match(r"\s*(?:,|and\b)", after):
        parts.append(after)
    for part in parts:
        for item in _BINDING_ITEMS.split(part):
            item = item.strip(" ,.")
            if not item or item.lower() in ("and", "or"):
                continue
            if _BINDING_ITEM_REFUSED.search(item) or REVIEW.search(f"needs {item}"):
                return made  # a choice, a condition, a place or a person: no argument reads it
            last = re.search(r"([A-Za-z][\w\-]*)\s*$", item)
            if last and _narrows(last.group(1), "-"):
                # 'a personally verified account (account_verified = true)': a word narrowing
                # the bound thing, left out of its gloss, is no argument of its own
                return made
            required = _required_check(
                index, source, f"{subject.strip()} must include {item}", False
            )
            if required is None:
                return made
            made.append(required)
    return made


# (jappr: in backticks, '(`notional_usd`)', or one word in backticks, '(`amount`)': a word so
# marked is the argument's name; bare, '(gross)' is a gloss and is not read so)
_MEASURE_NAME = re.compile(
    r"\((?:(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)|`(?P<ticked>[a-z][a-z0-9]*(?:_[a-z0-9]+)*)`)\)"
)


def _named_measures(clause: str, made: list[Check]) -> list[Check]:
    """'Single trades above USD 5m equivalent (notional_usd) need Treasurer approval', 'Key TTL
    (key_ttl_days) at most 90': the one bare name in brackets of a clause with one numeric
    limit, written right after its quantity or sharing a word with its measure, names the
    argument it compares (NumericLimit.named); its words are then read by the limit."""
    names = list(_MEASURE_NAME.finditer(clause))
    limits = [c for c in _all_checks(made) if isinstance(c, NumericLimit) and not c.counts_calls]
    # ---- jred17: 'Annual leave: 25 days max (leave_days)' bounds a total, not the argument
    # (a total over a window of time, 'Yearly refunds: 500 USD max', is read by the limit)
    if not any(c.window for c in limits) and (
        any(aggregate_qualifier(clause, (m.group("name") or m.group("ticked"))) for m in names)
        or any(
            aggregate_qualifier(clause, m.group("name")) for m in _MEASURE_LABEL.finditer(clause)
        )
    ):
        return made
    # ---- end jred17
    # ---- jparenarg: 'validity_months: 12 max', 'Vendor codes: duration_hours <= 72': the name
    # labelling the bound, or the left side of its comparison, names the argument it compares
    # (read as the amount, a voucher's 150 EUR had been denied by a cap of 12 months)
    labels = list(_MEASURE_LABEL.finditer(clause))
    if not names and len(labels) == 1 and len(limits) == 1 and not limits[0].named:
        return _named_as(made, limits[0], labels[0].group("name"))
    # ---- end jparenarg
    if len(names) != 1 or len(limits) != 1 or limits[0].named:
        return made
    name = names[0]
    limit = limits[0]
    own = {stem(w.lower()) for w in words(name.group("name") or name.group("ticked"))}
    after_quantity = any(
        re.fullmatch(r"\s*(?:[A-Za-z]+\s+){0,2}", clause[q.end : name.start()])
        for q in find_quantities(clause)
    )
    if not (after_quantity or own & set(limit.measure) or own & set(limit.terms)):
        return made
    return _named_as(made, limit, name.group("name") or name.group("ticked"))


# an argument's name labelling a bound ('validity_months: 12 max') or compared with a number
# ('duration_hours <= 72'); the label opens the clause or follows a subject's colon
_MEASURE_LABEL = re.compile(
    r"(?:^|:\s*)(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*"
    r"(?::\s*(?=[^:]*\d)|(?:<=|>=|<|>|\u2264|\u2265|\s(?:at\s+(?:most|least)|above|below|over|"
    r"under|(?:no\s+)?(?:more|less|fewer)\s+than|up\s+to|max|min))\s*(?=\d))"
)


def _named_as(made: list[Check], limit: NumericLimit, name: str) -> list[Check]:
    """`made` with `limit` comparing only the argument `name` (NumericLimit.named)."""
    own = {stem(w.lower()) for w in words(name)}
    named = replace(limit, named=name, measure=tuple(own))

    def swap(c: Check) -> Check:
        if c is limit:
            return named
        for field_name in ("base", "condition", "body"):
            inner = getattr(c, field_name, None)
            if inner is limit:
                return replace(c, **{field_name: named})
        return c

    return [swap(c) for c in made]


class BindingRecogniser(Recogniser):
    """An explicit binding of a named argument to a value (see `_binding_checks`)."""

    kind = "binding"

    def recognise(self, c: Clause) -> list[Check] | None:
        return _binding_checks(c.index, c.source, c.text, c.carry)


# 'Interactive login must be disabled for service accounts', 'Audit logging must stay on',
# 'Versioning must be enabled on every bucket': an on/off setting and the state required of it,
# with at most a plain scope after it. The whole clause is one form, so any other word (a
# modifier, 'or restricted', 'unless …') leaves it to the other readings (text: review).
_SETTING_STATE = re.compile(
    r"^\s*(?P<setting>[A-Za-z][A-Za-z0-9\-]*(?:\s+[A-Za-z][A-Za-z0-9\-]*){0,2}?)\s+"
    r"(?P<state>(?:must|shall|has\s+to|have\s+to|needs?\s+to)\s+(?:always\s+)?"
    r"(?:be|stay|remain)\s+(?:(?:kept|left|set|turned|switched)\s+)?"
    r"(?P<word>disabled|enabled|on|off))"
    r"(?P<scope>\s+(?:for|on|in)\s+(?:all\s+|every\s+|any\s+)?[A-Za-z][A-Za-z\- ]*?)?\s*\.?\s*$",
    re.I,
)
# 'Agents can't turn off require_mfa', 'No one may disable enforce_sso': the setting named by its
# argument, which must then stay on.
_SETTING_KEEP_ON = re.compile(
    r"^\s*(?P<actor>(?:the\s+)?(?:agents?|bots?|users?|staff|admins?|no\s+one|nobody)\s+)?"
    r"(?P<state>(?:can't|cannot|can\s+not|may\s+not|must\s+not|mustn't|shall\s+not|"
    r"should\s+not|shouldn't|never)\s+(?:turn\s+off|switch\s+off|disable|deactivate)\s+)"
    r"(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*\.?\s*$",
    re.I,
)
# words that never name a setting: a negation, a quantity or a determiner turns the form around
_NOT_A_SETTING = frozenset(
    {
        "not",
        "no",
        "never",
        "only",
        "all",
        "any",
        "every",
        "each",
        "some",
        "most",
        "mostly",
        "usually",
        "ideally",
        "if",
        "when",
        "unless",
        "and",
        "or",
        "it",
        "this",
        "that",
        "they",
    }
)
_SCOPE_REFUSED = re.compile(
    r"\b(?:and|or|not|unless|except|if|when|while|without)\b|\b\w+ly\b", re.I
)


def _hedged(text: str) -> bool:
    """A word that hedges or narrows what it stands beside ('usually', 'mostly', 'partly',
    'only', any adverb in -ly) or a word that is no noun of a setting: the form is not read."""
    return any(w.lower() in _NOT_A_SETTING or w.lower().endswith("ly") for w in words(text))


class SettingStateRecogniser(Recogniser):
    """An on/off setting that must hold one state (`SettingState`)."""

    kind = "setting_state"

    def recognise(self, c: Clause) -> list[Check] | None:
        text = c.text.strip()
        keep_on = _SETTING_KEEP_ON.match(text)
        if keep_on:
            return [
                SettingState(
                    c.index,
                    c.source,
                    "deny",
                    (),
                    (),
                    path=keep_on.group("name"),
                    op="eq",
                    value=True,
                    written=text.rstrip(". "),
                )
            ]
        m = _SETTING_STATE.match(text)
        if not m or c.review or c.allow:
            return None
        setting_words = [w.lower() for w in words(m.group("setting"))]
        if not setting_words or _hedged(m.group("setting")):
            return None
        scope = m.group("scope") or ""
        if _SCOPE_REFUSED.search(scope) or _hedged(
            re.sub(r"^\s*\w+\s+(?:all|every|any)\b", "", scope)
        ):
            return None
        setting = frozenset(stem(w) for w in setting_words)
        on = m.group("word").lower() in ("enabled", "on")
        # only the scope says which requests the rule speaks of: the setting's own words are read
        # by the check (a flag named for them that is off would otherwise rule the rule out)
        terms = _subject_terms(_terms(scope, cut_review=False))
        return [
            SettingState(
                c.index,
                c.source,
                "deny",
                terms,
                (),
                path="_".join(setting_words),
                op="eq",
                value=on,
                gloss=" ".join(setting_words),
                written=text[m.start("setting") : m.end("state")],
                reads=tuple(setting),
                setting=setting,
            )
        ]


# '… may be sent by the bot only if the content match score is at least 0.95 and
# ownership_verified is true', 'Liquor licence renewal only if: zero violations in the last 12
# months, background check clear, and renewal fee paid': a permission under a conjunction of
# conditions, each of a form `AllConditions` reads. Any part it cannot read, an 'or', a negation
# or an exception leaves the rule to the other readings.
_ONLY_IF_ALL = re.compile(
    r"^(?P<subject>.+?)\s+(?P<marker>only\s+(?:if|when))\s*:?\s+(?P<conds>.+?)\s*\.?\s*$", re.I
)
_CONDITION_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)
_CONDITION_REFUSED = re.compile(
    r"\b(?:or|not|no|never|unless|except|without|either|nor|if|when|before|after)\b|[;()]",
    re.I,
)
_COND_FLAG = re.compile(
    r"^(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+(?:is|=|==)\s+(?P<v>true|false)$"
)
_COND_BOUND = re.compile(
    r"^(?:the\s+)?(?P<measure>[a-z][a-z ]*?)\s+(?:is\s+)?(?P<op>"
    + phrase_pattern(BOUNDARY_CONDITION)
    + r")\s+(?P<num>\d+(?:\.\d+)?)$",
    re.I,
)
_COND_ZERO = re.compile(
    r"^zero\s+(?P<noun>[a-z][a-z ]*?)(?:\s+in\s+the\s+(?:last|past)\s+(?P<n>\d+)\s+"
    r"(?P<unit>days?|weeks?|months?|years?))?$",
    re.I,
)
_STATE_WORDS_DONE = (
    "clear",
    "paid",
    "passed",
    "approved",
    "verified",
    "signed",
    "confirmed",
    "completed",
)
_COND_STATE = re.compile(
    r"^(?:the\s+|a\s+)?(?P<noun>[a-z][a-z ]*?)\s+(?:is\s+|are\s+|has\s+been\s+|was\s+)?(?P<state>"
    + "|".join(_STATE_WORDS_DONE)
    + r")$",
    re.I,
)


def _read_condition(part: str) -> Condition | None:
    """One condition of a conjunction, or None when it is not of a form read here."""
    part = part.strip()
    if _hedged(re.sub(r"^(?:the|a)\s+", "", part, flags=re.I)):
        return None  # 'audit mostly clear', 'the usual score is …': not read
    if m := _COND_FLAG.match(part):
        return Condition("flag", part, name=m.group("name"), value=m.group("v") == "true")
    if m := _COND_BOUND.match(part):
        measure = [w.lower() for w in words(m.group("measure"))]
        noun = frozenset(stem(w) for w in measure)
        return Condition(
            "bound",
            part,
            noun=noun,
            head=stem(measure[-1]),
            value=float(m.group("num")),
            op=phrase_op(BOUNDARY_CONDITION, m.group("op")),
        )
    if m := _COND_ZERO.match(part):
        noun = {stem(w.lower()) for w in words(m.group("noun"))}
        if m.group("n"):
            unit = m.group("unit").lower().rstrip("s")
            noun |= {m.group("n"), stem(unit)}
        window = float(m.group("n")) if m.group("n") else None
        return Condition("zero", part, noun=frozenset(noun), window=window)
    if m := _COND_STATE.match(part):
        noun_words = [w.lower() for w in words(m.group("noun"))]
        if not noun_words or len(noun_words) > 3:
            return None
        return Condition(
            "state",
            part,
            noun=frozenset(stem(w) for w in noun_words),
            head=m.group("state").lower(),
        )
    return None


class AllConditionsRecogniser(Recogniser):
    """A permission that holds only if every one of several conditions does (`AllConditions`)."""

    kind = "all_conditions"

    def recognise(self, c: Clause) -> list[Check] | None:
        m = _ONLY_IF_ALL.match(c.text.strip())
        if not m or c.review:
            return None
        conds_text = m.group("conds")
        if _CONDITION_REFUSED.search(conds_text):
            return None
        parts = [p for p in _CONDITION_SPLIT.split(conds_text) if p.strip()]
        if len(parts) < 2:
            return None  # one condition: the exception readings (Unless) read it
        conditions = [_read_condition(p) for p in parts]
        if any(cond is None for cond in conditions):
            return None
        subject = m.group("subject")
        if (
            NEGATION.search(subject)
            or re.search(r"\b(?:or|and)\b|[,;()]|\d", subject, re.I)
            or _COMPARISON.search(subject)
            or _hedged(subject)
        ):
            return None  # a second subject, a negation or a bound of its own: not read here
        return [
            AllConditions(
                c.index,
                c.source,
                "deny",
                _subject_terms(_terms(subject, cut_review=False)),
                (),
                path="",
                written=c.text.strip()[m.start("marker") :].rstrip(". "),
                markers=(re.sub(r"\s+", " ", m.group("marker").lower()),),
                conditions=tuple(cond for cond in conditions if cond is not None),
                numbers=tuple(n for cond in conditions if cond is not None for n in cond.numbers()),
            )
        ]


_ALL_CONDITIONS = AllConditionsRecogniser()
RECOGNISERS: tuple[Recogniser, ...] = (
    BracketedMembersRecogniser(),
    BindingRecogniser(),
    SettingStateRecogniser(),
    RequiredWordRecogniser(),
    _ALL_CONDITIONS,
    DateWindowRecogniser(),
    TimeOfDayRecogniser(),
    WeekdayRecogniser(),
    KeyedCapRecogniser(),
    PlaceSplitCapRecogniser(),
    ScopedIdRecogniser(),
    PrefixedCountRecogniser(),
    OnlyForAmountRecogniser(),
    FirstTimeRecogniser(),
    ConditionalListRecogniser(),
    RelativeBoundRecogniser(),
    NumericRecogniser(),
    PlaceConditionRecogniser(),
    ComparisonRecogniser(),
    SameValueRecogniser(),
    NobodyGetsRecogniser(),
    ContentNamesRecogniser(),
    ContentListRecogniser(),
    IncludeContentRecogniser(),
    FreezeRecogniser(),
    ExceptedNamesRecogniser(),
    NamedValuesRecogniser(),
    RequiredCurrencyRecogniser(),
    ResidencyRecogniser(),
    ValueListRecogniser(),
    PassCheckRecogniser(),
    RequiredRecogniser(),
    StateCategoryRecogniser(),
    ActionRecogniser(),
)


def compile_clause(
    index: int, source: str, clause: str, previous: Quantity | None, subject_carry: str
) -> tuple[list[Check], Quantity | None, str]:
    """Compile one clause; returns (checks, last quantity seen, subject for the next clause)."""
    c = Clause.read(index, source, clause, previous, subject_carry)
    if any(_quantity_in_a_list_of_conditions(c.text, q) for q in c.quantities):
        # no recogniser reads a bound among other conditions, but the one that reads every
        # condition of an 'only if: A, B and C' (or refuses the clause)
        made = _ALL_CONDITIONS.recognise(c)
        return (made or []), previous, c.carry
    for recogniser in RECOGNISERS:
        made = recogniser.recognise(c)
        if made is not None:
            return made, recogniser.next_quantity(c) if made else previous, c.carry
    return [], previous, c.carry


_COUNTERPARTY_STEMS = frozenset(
    {
        "paye",
        "payee",
        "recipient",
        "vendor",
        "beneficiary",
        "beneficiari",
        "counterparty",
        "counterparti",
        "contact",
        "supplier",
        "custom",
        "customer",
        "account",
        "iban",
        "merchant",
        "partner",
        "destin",
    }
)


# 'within 24h of previous swap', 'within 30 days of the chargeback': a bare 'within' before a
# quantity tied to an event; not 'must expire within', 'only within', 'stay within' (a cap)
_WITHIN_BEFORE = re.compile(r"\bwithin\s*$", re.I)
_WITHIN_AS_CAP = re.compile(
    r"\b(?:must|should|shall|has to|have to|needs? to|only|expires?|expired|stays?|remains?|be)"
    r"\s+(?:\w+\s+){0,2}?within\s*$",
    re.I,
)
_EVENT_AFTER = re.compile(r"\s*(?:of|after|since|from)\b", re.I)


# Fifteenth session: 'Don't restock items with expiry within 30 days', 'no lots expiring within 14
# days': in a prohibition, the time left before an end the thing reaches is forbidden up to the
# bound (read as a cap, 10 days to expiry was approved and 60 denied)
_END_WITHIN = re.compile(
    r"\b(?:expiry|expiration|expiring|expires|expire|maturity|maturing|matures|due)\s+within\s*$",
    re.I,
)
_MODAL_BEFORE = re.compile(r"\b(?:must|should|shall|has to|have to|needs? to)\b", re.I)


def _within_of_event(clause: str, q: Quantity) -> bool:
    """Whether `q` bounds the time since an event by a bare 'within' ('within 24h of the last swap')."""
    before = clause[: q.start]
    if _END_WITHIN.search(before) and not _MODAL_BEFORE.search(before):
        return True
    return bool(
        _WITHIN_BEFORE.search(before)
        and not _WITHIN_AS_CAP.search(before)
        and _EVENT_AFTER.match(clause, q.end)
    )


def _numeric_checks(
    index: int,
    source: str,
    clause: str,
    quantities: list[Quantity],
    previous: Quantity | None,
    effect: str,
    review: bool,
    negated: bool,
    allow: bool,
    carry: str,
) -> list[Check]:
    checks: list[Check] = []
    found: list[tuple[Quantity, str, str, int]] = []
    for q in quantities:
        before = clause[max(0, q.start - 60) : q.start]
        after = clause[q.end : q.end + 20]
        found.append((q, *_comparator(before, after), q.start))
    anaphor = _ANAPHOR.search(clause)
    if anaphor and previous is not None and not quantities:
        word = (anaphor.group(1) or anaphor.group(3) or anaphor.group("bare")).lower()
        kind = (
            "above"
            if word
            in (
                "above",
                "over",
                "beyond",
                "more than",
                "more",
                "bigger",
                "larger",
                "higher",
                "greater",
                "longer",
            )
            else "below"
        )
        found.append((previous, kind, "", anaphor.start()))
    window = None
    for name, rx in _WINDOWS:
        if rx.search(window_text(clause)):
            window = name
            break
    predicate_at = _predicate_position(clause)
    for q, kind, strict, _pos in found:
        if not kind:
            continue
        if window is None and q.currency is None and _RATE_AFTER.match(clause, q.end):
            # '1000 requests per minute', '2,000 writes/sec': a rate, which an argument holding
            # a count, or a rate in another unit (`requests_per_second`), does not measure; read
            # as a count it approved 50 requests per second. Not read (review).
            continue
        in_condition = any(
            start <= q.start < end and marker in ("if", "when", "whenever")
            for start, end, marker in condition_spans(clause)
        )
        if ((predicate_at is not None and q.start < predicate_at) or in_condition) and (
            kind == "lower"
            or (review and not _EXPLICIT_OK.search(clause) and alone_permission(clause) is None)
        ):
            # In the subject a bound is a condition, not a limit ('Credits of at least $200 need a
            # manager' picks 200 and more): boundaries.CONDITION says which values it picks.
            if kind == "lower":
                kind, strict = "above", "ge"
            elif kind == "upper":
                kind, strict = "below", "le" if not strict else ""
        elif kind == "upper" and negated and not review and _within_of_event(clause, q):
            # 'No swap within 24h of previous swap', 'Never refund within 24 hours of a
            # chargeback': the time since the event is forbidden up to the bound, not above it
            # (read as a cap it denied a swap 720 hours after the last one and approved one 3
            # hours after it). 'within' is inclusive (boundaries.py).
            kind, strict = "below", "le"
        op, eff = _op_and_effect(
            kind,
            strict,
            effect,
            review,
            negated,
            allow,
            bool(_EXPLICIT_OK.search(clause)) or alone_permission(clause) is not None,
            bool(_NEGATED_REVIEW.search(clause)),
        )
        if op is None:
            continue
        noun = q.noun
        if noun is None and (
            _is_age(clause, q) or (_plain(q) and any(_is_age(clause, x) for x in quantities))
        ):
            # 'aged 18 or more', 'at least 18 years of age': the argument is an age, never money
            noun, q = "age", replace(q, unit_family=None, unit_factor=1.0)
        if _plain(q) and noun is None:
            q = _unit_of_subject(clause, q)
        noun_stem = stem(noun) if noun else None
        counts_calls = False
        percent_of: tuple[str, ...] = ()
        if window and q.currency is None and q.unit_family is None:
            if (noun_stem is None or noun_stem not in _MEASURE_NOUNS) and not (
                noun_stem is None and _MEASURED_THINGS.intersection(_stems_before(clause, q.start))
            ):
                counts_calls = True
        alone = alone_permission(clause)
        terms = _terms(
            f"{carry} {clause}" if carry else clause,
            cut_review=review,
            drop_spans=[(q.start, q.end)] if not carry else [],
        )
        if carry and anaphor is not None and anaphor.group("bare") and q is previous:
            # 'anything over goes to treasury': the previous clause's subject; who reviews is not
            terms = _terms(carry, cut_review=False)
        if alone is not None:
            # 'without a manager', 'by the agent alone': the permission's words, not its subject
            gone = {stem(w) for w in words(alone.group("alone"))}
            terms = tuple(t for t in terms if t not in gone)
        if noun_stem and counts_calls:
            terms = tuple(t for t in terms if t != noun_stem) + (
                (noun_stem,) if _names_action(noun_stem) else ()
            )
        if q.unit_family == "percent":
            # '15% of base salary': what the percentage is of names its base, not the subject.
            of = re.match(
                r"\s+of\s+(?:the\s+|their\s+|its\s+|his\s+|her\s+)?(?P<base>[a-z][a-z\s\-]*?)"
                r"(?=\s+(?:must|may|can|cannot|can't|should|shall|need|needs|require|requires|"
                r"is|are|go|goes)\b|\s*[,;.]|\s*$)",
                clause[q.end :],
                re.I,
            )
            if of:
                base = {stem(w) for w in words(of.group("base"))}
                terms = tuple(t for t in terms if t not in base)
                percent_of = tuple(sorted(base))
        measure = (
            tuple(t for t in terms if t not in VERBS or t in MONEY_GENERIC)
            + ((noun_stem,) if noun_stem else ())
            + percent_of
        )
        if noun_stem and not counts_calls:
            terms = tuple(t for t in terms if t != noun_stem)
        if kind == "upper" and re.search(r"\bbudget\s*(?:of|is|:|=)?\s*$", clause[: q.start], re.I):
            # 'Daily credit budget: 1,000 USD': the budget is the bound (read by the measure), the
            # credits are the subject
            terms = tuple(t for t in terms if t != stem("budget"))
        if noun_stem and _BATCH_SIZE_HEAD.search(clause[: q.start]):
            # 'Batch size: up to 25 users per request': the size of the batch is the count the
            # bound reads (of the counted noun), not a thing the request must be about
            terms = tuple(t for t in terms if t not in _BATCH_WORDS)
        per = _per_thing(clause)
        if (
            per
            and _names_action(stem(per.split()[-1]))
            and stem(per.split()[-1]) not in _PARTY_STEMS
        ):
            # '1M per transfer', '$500 per payment': the thing is the act, one per request
            per = ""
        elif (
            per
            and stem(per.split()[-1]) in _REQUEST_THINGS
            and noun_stem
            and (noun_stem in _HELD_IN_A_REQUEST or not _names_action(noun_stem))
        ):
            # 'Max 10,000 shares per order', '50 accounts per batch': what one request holds
            # (the order, the batch it sends); a count of acts per thing ('max 2 refunds per
            # order') stays a count across requests
            per = ""
        elif per == "ticket" and _TRADE_STEMS.intersection(measure):
            # 'Block trades are limited to 500,000 per ticket': a trade's or an order's ticket
            # is the request itself (a support ticket is not: 'Max credit per ticket')
            per = ""
            terms = tuple(t for t in terms if t != stem("ticket"))
        head = _COUNTED_HEAD.match(clause)
        counted_head = False
        if (
            per
            and per not in LINE_THINGS
            and _plain(q)
            and not window
            and not counts_calls
            and head
            and head.end() <= q.start
        ):
            # 'no-cost extensions: max one per grant', 'Refunds: max 2 per order': the plural
            # before the colon is what is counted per thing (read from a count argument named
            # for it: 'prior_extensions')
            noun = head.group("noun")
            noun_stem = stem(noun)
            counted_head = True
            measure = (*measure, noun_stem)
            terms = tuple(t for t in terms if t != noun_stem)
            if stem(per.split()[-1]) in _REQUEST_THINGS and (
                noun_stem in _HELD_IN_A_REQUEST or not _names_action(noun_stem)
            ):
                # 'Seats: at most 50 per order': what one request holds, as 'Max 50 seats per
                # order' (read as a count across orders, it asked for a count of earlier seats)
                per = ""
        elif per and per not in LINE_THINGS and _plain(q) and not window and not counts_calls:
            # 'Refunds: max 2 per order', 'no-cost extensions: max 1 per grant': a bare number per
            # thing counts something the sentence names elsewhere; read as an amount it denied
            # every refund over $2. Not read (the rule stays not understood: review).
            continue
        if per and not (
            per in LINE_THINGS
            or counts_calls
            or (noun_stem and _names_action(noun_stem) and q.currency is None)
            or counted_head
            or window == "day"
            # 'Do not grant more than 2 admin roles per user': a count a person holds across
            # requests, never the request's own count (read so, a user holding 2 got a third)
            or (noun_stem and _plain_count(q) and stem(per.split()[-1]) in _HOLDER_STEMS)
        ):
            # 'Max 200 line items per PO', '$1,200 per issuance': the thing is the request's own
            # object (one PO, one issuance), so the limit is per request, as without the words;
            # '$75 per account' with no window is read per request too (as before). A party's
            # day total ('500 USD per customer per day') is not the agent's (history): kept.
            per = ""
        if per:
            terms = tuple(t for t in terms if t not in {stem(w) for w in words(per)})
        checks.append(
            NumericLimit(
                index,
                source,
                eff,
                _subject_terms(terms),
                (),
                op,
                q.value,
                q.currency,
                q.unit_family,
                q.unit_factor,
                noun if not counts_calls else None,
                measure,
                window,
                counts_calls,
                per=per,
            )
        )
    return checks


# 'per customer', 'per order', 'max one per grant', 'per line', 'each drop-ship line': what a
# limit is counted or summed for. 'per agent' / 'per bot' is what the history already counts, and
# 'per request' / 'per transaction' is each request alone (no window): neither is a thing.
_PER_THING = re.compile(
    r"\b(?:per|for\s+each|for\s+every)\s+(?:single\s+)?"
    r"(?!(?:hours?|hr|day|week|month|year|annum|agent|bot|request|call|transaction|unit|cent|"
    r"24|calendar|business|fiscal|60)\b)(?P<thing>[a-z][a-z\-]*(?:\s+item)?)\b",
    re.I,
)
_EACH_LINE = re.compile(
    r"\b(?:per|each|every|any)\s+(?:[a-z][a-z\-]*\s+){0,2}?(?P<thing>(?:line\s+item|line|item|row))s?\b",
    re.I,
)
LINE_THINGS = frozenset({"line", "item", "row", "line item"})
_BATCH_SIZE_HEAD = re.compile(
    r"^\s*(?:max(?:imum)?\s+)?(?:batch|bulk|page|request|call)\s+size\s*(?:limit\s*)?"
    r"(?:of|is|:|=|-)?\s*(?:up\s+to|at\s+most|no\s+more\s+than|max(?:imum)?|limit(?:ed)?\s+to)?\s*$",
    re.I,
)
_BATCH_WORDS = frozenset(stem(w) for w in "batch bulk page request call size limit".split())
# Things one request is, when a count is 'per' them ('shares per order', 'users per batch').
_REQUEST_THINGS = frozenset(stem(w) for w in "order trade request batch submission job".split())
_TRADE_STEMS = frozenset(stem(w) for w in "trade order".split())
# counted nouns a request holds that the lexicon also knows as acts ('share' a file)
_HELD_IN_A_REQUEST = frozenset(
    stem(w) for w in "shares units lots rows records users accounts seats devices files".split()
)
# 'no-cost extensions: max one per grant': a plural noun phrase, a colon, then the cap
_COUNTED_HEAD = re.compile(
    r"\s*(?:[A-Za-z][\w\-]*\s+){0,2}(?P<noun>[A-Za-z][a-z\-]*[a-z]s)\s*:", re.I
)
# parties a limit may be per ('per customer', 'per worker'): their requests come from many agents,
# so neither this agent's history nor the request alone shows the party's count or total
_PARTY_STEMS = frozenset(
    stem(w)
    for w in """customer client user account person patient member employee worker creator
    vendor supplier payee beneficiary household student merchant seller buyer recipient
    contact tenant grant order case ticket card device""".split()
)


# parties that hold things across requests (a person's roles, seats, cards); not an order or a
# ticket, which a request makes whole ('max 3 seats per order')
_HOLDER_STEMS = _PARTY_STEMS - frozenset(
    stem(w) for w in "order case ticket grant card device".split()
)


def _plain_count(q: Quantity) -> bool:
    return q.currency is None and q.unit_family is None


def _per_thing(clause: str) -> str:
    """The thing a limit is per ('customer', 'line'), or '' when it is per request or per agent.
    A limit on each line (or item, row) of a request is judged line by line, never on their sum."""
    m = _EACH_LINE.search(clause)
    if m:
        return m.group("thing").lower()
    m = _PER_THING.search(clause)
    return m.group("thing").lower() if m else ""


_AGED_BEFORE = re.compile(r"\baged(?:\s+[a-z]+){0,3}\s*$", re.I)
_AGE_AFTER = re.compile(r"^\s*(?:years?\s+)?(?:old|of age)\b", re.I)
# Fifteenth session: 'Min age 21.', 'Driver age: min 21', 'Minimum age of 18': the word 'age' right
# before the bound names what is bounded. Read as money, 'Min age 21.' compared a `daily_rate` of
# 30 and approved a driver of 19 (unsafe).
_AGE_HEAD = re.compile(
    r"\bages?\b\s*(?:\([^()]*\)\s*)?[:=]?\s*(?:(?:min(?:imum)?|max(?:imum)?|>=?|<=?|at\s+(?:least|most)|"
    r"under|over|below|above|of|is|must\s+be|should\s+be)\s*){0,3}$",
    re.I,
)


def _plain(q: Quantity) -> bool:
    return not q.currency and not q.noun and q.unit_family is None


# Fifteenth session: 'Overtime hours max 12.', 'Stay days max 90.', 'Load kg: max 500': the unit is
# written in the subject, before the bound, not after its number. Read with no unit, the bound
# took the request's money (`amount_usd: 5` passed 'Stay days max 90.' for `stay_days: 95`, an
# unsafe approval). A unit after a number is that number's ('Loans over 30 days: max 5,000').
_UNIT_BEFORE_BOUND = re.compile(
    r"\b(?P<unit>seconds|minutes|mins|hours|hrs|days|weeks|months|years|kg|kgs|kilograms|lbs|"
    r"tonnes|km|gb|mb|tb)\b\)?`?\s*(?:\([^()]*\)\s*)?:?\s*(?:max(?:imum)?|min(?:imum)?|<=|>=|<|>|"
    r"\u2264|\u2265|up\s+to|at\s+most|at\s+least|no\s+more\s+than|not\s+more\s+than|over|above|"
    r"under|below|exceeding|exceeds|capped\s+at|(?:must|may|can|should)\s+not\s+exceed|"
    r"(?:must|should)\s+be\s+(?:at\s+(?:most|least)|under|below|over|above|<=?|>=?))?\s*(?:of\s+)?$",
    re.I,
)


def _unit_of_subject(clause: str, q: Quantity) -> Quantity:
    """`q` with the unit its subject names right before the bound, when it names one."""
    m = _UNIT_BEFORE_BOUND.search(clause[: q.start])
    if m is None or re.search(r"\d\s*$", clause[: m.start("unit")]):
        return q
    family, factor = UNITS[m.group("unit").lower()]
    return replace(q, unit_family=family, unit_factor=factor)


_YEAR_SECONDS = 365 * 86400.0
# a rate after a quantity (and its counted noun): 'requests per minute', 'writes/sec', 'rps'
_RATE_AFTER = re.compile(
    # whole words only: 'replicas' is not 'replic' + 'a' + 's' (a rate 'a second'), which left
    # 'Min 3 replicas' unread
    r"(?:\s+[a-z][a-z\-]*){0,2}?(?:\s*/\s*|\s+(?:per|an?|each|every)\s+)"
    r"(?:seconds?|secs?|s|minutes?|mins?|m)\b",
    re.I,
)


def _is_age(clause: str, q: Quantity) -> bool:
    if q.currency or q.noun or (q.unit_family and q.unit_family != "time"):
        return False
    if q.unit_family == "time":
        # '18 years old', '18 years of age' (an age); 'older than 2 years' keeps its unit, and
        # so does an age in a shorter unit ('backups less than 30 days old' against
        # `age_hours`: a duration, compared in its unit, never the bare number 30)
        return q.unit_factor >= _YEAR_SECONDS * 0.9 and bool(
            re.match(r"\s*(?:old|of age)\b", clause[q.end :], re.I)
        )
    return bool(
        _AGED_BEFORE.search(clause[: q.start])
        or _AGE_AFTER.match(clause[q.end :])
        or _PERSON_BOUND.search(clause[: q.start])
        or _AGE_HEAD.search(clause[: q.start])
    )


# 'patients under 16', 'customers over 65': a bare number bounding people is their age
_PERSON_BOUND = re.compile(
    r"\b(?:anyone|anybody|someone|somebody|everyone|people|kids?|"
    r"patients?|children|child|minors?|customers?|clients?|users?|employees?|applicants?|"
    r"drivers?|players?|participants?|members?|students?|people|persons?|borrowers?|passengers?|"
    r"tenants?|residents?|subscribers?|candidates?|guests?|visitors?)\s+"
    r"(?:under|below|over|above|younger than|older than|aged)\s*$",
    re.I,
)


def _names_action(s: str) -> bool:
    return (
        s in VERBS
        or s in MONEY_SPECIFIC
        or s in MONEY_GENERIC
        or s in COMMS
        or s in {"deploy", "export", "email"}
    )


def _comparator(before: str, after: str) -> tuple[str, str]:
    """('upper' | 'lower' | 'above' | 'below' | '', 'strict' | '') from the words around a number."""
    b = re.sub(r"\s+", " ", before)
    b_trim = re.sub(
        r"(?:\s*(?:of|a|an|the|total|in total|amounts?|values?|sums?|:|-))*\s*$", "", b, flags=re.I
    )
    for text in (b, b_trim):
        if _UPPER_BOUND.search(text):
            return "upper", "strict" if _STRICT_UPPER.search(text) else ""
        if _LOWER_BOUND.search(text):
            return "lower", "strict" if _STRICT_LOWER.search(text) else ""
        if _ABOVE.search(text):
            return "above", "ge" if _OR_MORE.search(after) else ""
        if _BELOW.search(text):
            return "below", "le" if _OR_LESS.search(after) else ""
    if re.search(r"\bbudget\s*(?:of|is|:|=)?\s*$", b, re.I):
        return "upper", ""  # 'Daily credit budget: 1,000 USD': the period's total may reach it
    if re.match(r"\s*(?:max(?:imum)?|at most|tops|at the most)\b", after, re.I):
        return "upper", ""  # 'Session duration: 12 hours max'
    if re.match(r"\s*(?:min(?:imum)?|at least)\b", after, re.I):
        return "lower", ""
    # 'must be 21 or more', 'must expire in 90 days or less': in the predicate, a floor or a cap
    if _OR_MORE.search(after) and _MUST_BE.search(b):
        return "lower", ""
    if _OR_LESS.search(after) and _MUST_BE.search(b):
        return "upper", ""
    if _OR_MORE.search(after):
        return "above", "ge"
    if _OR_LESS.search(after):
        return "below", "le"
    return "", ""


_MUST_BE = re.compile(
    r"\b(?:must|should|shall|has to|have to|needs? to)(?:\s+(?!not\b|never\b|n't\b)[a-z]+){1,3}\s*$",
    re.I,
)


def _op_and_effect(
    kind: str,
    strict: str,
    effect: str,
    review: bool,
    negated: bool,
    allow: bool,
    explicit_ok: bool = False,
    negated_review: bool = False,
) -> tuple[str | None, str]:
    if review and negated_review:
        # 'Refunds: no approval needed below $50', 'Transfers of at most 1,000 USD don't need
        # approval', 'Refunds of up to $200 need no approval': the review words are negated;
        # read as a review they sent the small ones to review and approved the large ones. The
        # small ones are allowed, the rest go to review (as 'up to €500 is auto-approved');
        # a bound on the other side ('no approval needed above $50') is not read.
        if kind == "upper":
            return ("ge" if strict else "gt"), "allow"
        if kind == "below":
            return ("gt" if strict == "le" else "ge"), "allow"
        return None, ""
    if kind == "upper":
        op = "ge" if strict else "gt"
        if review:
            return op, "review"
        if allow and not negated and explicit_ok:
            return op, "allow"  # 'up to €500 is fine': above it a human decides
        return op, "deny"  # 'may send at most 100' is a limit, not a permission
    if kind == "lower":
        op = "le" if strict else "lt"
        return op, "review" if review else "deny"
    if kind == "above":
        op = "ge" if strict == "ge" else "gt"
        if review:
            return op, "review"
        if negated:
            return op, "deny"
        if allow:
            return ("lt" if op == "ge" else "le"), "allow"
        return None, ""
    if kind == "below":
        op = "le" if strict == "le" else "lt"
        if review:
            return op, "review"
        if negated:
            return op, "deny"
        if allow:
            return ("gt" if op == "le" else "ge"), "allow"
        return None, ""
    return None, ""


_JOIN = re.compile(
    r"\b(?:(?:must|may|should|shall|can)\s*(?:not|never)\s+(?:exceed|be (?:more|greater|larger|higher) than|be above)|cannot exceed|"
    r"(?:can't|mustn't|shouldn't|won't) exceed|"
    # 'Refunds can't be more than the original order total', 'refund amount never above …'
    r"(?:can't|cannot|mustn't|shouldn't|won't) be (?:more|greater|larger|higher) than|"
    r"(?:can't|cannot|mustn't|shouldn't) be above|never (?:above|exceeds?|more than)|"
    r"(?:must|should) (?:be )?(?:at most|no (?:more|greater|larger|higher) than|not (?:more|greater) than)|"
    r"(?:is|are) (?:limited|capped) (?:to|at))\s+(?:(?:the|its|their|that)\s+(?P<right>[a-z _'\-]+)|"
    # without an article only a short noun phrase ('must NOT exceed original order amount'),
    # never a number, a multiple or a phrase with a preposition or a verb in it
    r"(?P<bare>(?!(?:double|twice|triple|half)\b)[a-z][a-z'\-]*(?:\s+(?!(?:by|of|for|in|on|from|"
    r"to|at|per|set|with|than|and|or)\b)[a-z][a-z'\-]*){0,3}))\s*\.?$",
    re.I,
)
_NO_SUBJECT_MAY = re.compile(
    r"^(?P<head>no\b(?:\s+[\w'\-]+){1,3}?\s+(?:may|can|shall|should))\s+exceed\b", re.I
)
_JOIN_LOWER = re.compile(
    r"\b(?:must|should) (?:be )?(?:at least|no (?:less|lower) than|not (?:less|lower) than)\s+(?:the|its|their)\s+(?P<right>[a-z _'\-]+)$",
    re.I,
)


# A named value held like a frozen one ('Lot 7H22K is quarantined', 'Vendor V-2231 is suspended
# pending review', 'Account ACC-9 is on hold'): any request naming it is refused.
_HELD_STATES = (
    r"quarantined|suspended|embargoed|blocked|on\s+hold|on\s+(?:payment|credit|legal)\s+hold"
)
# How long a freeze lasts ('until further notice', 'for the holidays', 'through Q4'); never an
# amount or a comparison ('for payments over $1,000' is a condition, not a duration).
_DURATION_TEXT = (
    r"(?![^,;.]*(?:[$€£¥]|\b(?:over|above|under|below|more than|less than|exceeding|at least|"
    r"at most|payments?|orders?|transfers?|requests?|amounts?)\b))[^,;.]+"
)
FREEZE = re.compile(
    r"^(?:the\s+)?(?P<name>[\w.\-/:@+]+)(?:\s+(?P<kind>[a-z]+(?:\s+[a-z]+)?))?\s+"
    r"(?:is|are|has been|have been|stays|remains)\s+"
    r"(?:(?:currently|now|still)\s+)?(?:(?:under|in)\s+(?:a\s+)?(?:change\s+|code\s+|deploy(?:ment)?\s+|release\s+)?freeze|"
    r"frozen|locked|" + _HELD_STATES + r")\b"
    # 'until further notice', 'through Q4', 'until 5 January', 'for the holidays': how long.
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r""
    r"|\s+(?:this|next)\s+(?:week|month|quarter|year))?",
    re.I,
)
# 'Vendor account V-1029 is frozen': the kind first, then a name that is plainly a literal.
FREEZE_KIND_FIRST = re.compile(
    r"^(?:the\s+)?(?!(?:the|a|an|our|this|that)\b)(?P<kind>[A-Za-z]+(?:\s+[a-z]+)?)\s+(?P<name>(?=[\w.\-/:@+]*[\d\-_.])[\w.\-/:@+]+)"
    # 'Account 999900001111 (payments-prod) is frozen': the name and its alias
    r"(?:\s*\((?P<alias>[\w.\-/:@+]+)\))?"
    r"\s+(?:is|are|has been|have been|stays|remains)\s+"
    # 'under an identity change freeze': what the freeze is on, read as every change (broader)
    r"(?:(?:currently|now|still)\s+)?(?:(?:under|in)\s+(?:an?\s+)?(?:(?P<label>identity|access)\s+)?"
    r"(?:change\s+|code\s+|deploy(?:ment)?\s+|release\s+)?freeze|frozen|locked|"
    + _HELD_STATES
    + r")\b"
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r""
    r"|\s+(?:this|next)\s+(?:week|month|quarter|year))?",
    re.I,
)
# 'Change freeze on payments-api through end of Q4', 'Code freeze for the ledger service'.
FREEZE_ON = re.compile(
    r"^(?:(?:a|an|the)\s+)?(?:(?:change|code|deploy(?:ment)?|release)\s+)?(?:freeze|lock)\s+"
    r"(?:(?:is\s+)?(?:now\s+)?in\s+(?:place|effect|force)\s+)?(?:on|for)\s+(?:the\s+)?"
    r"(?P<name>[\w.\-/:@]+)"
    r"(?:\s+(?!(?:until|till|through|thru|during|throughout|for|over|this|next)\b)(?P<kind>[a-z]+))?"
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r""
    r"|\s+(?:this|next)\s+(?:week|month|quarter|year))?",
    re.I,
)
# "Legal hold: the 'Project Falcon' drive is frozen": a quoted name is a value whatever its words
# (the label before the colon names the hold, it restricts nothing).
FREEZE_QUOTED = re.compile(
    r"^(?:(?P<label>(?:legal|litigation|change|code)\s+(?:hold|freeze)|hold|freeze|notice)\s*:\s*)?"
    r"(?:the\s+)?['\"](?P<name>[^'\"]{1,60})['\"]\s+(?P<kind>[a-z]+)\s+"
    r"(?:is|are|has been|have been|remains?|stays?)\s+(?:(?:currently|now|still)\s+)?"
    r"(?:under\s+(?:a\s+)?(?:legal\s+|litigation\s+)?hold|frozen|locked|" + _HELD_STATES + r")\b"
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r")?",
    re.I,
)
# 'Change freeze on workspace fin-ops (SOX audit): …': the kind before the name, and the reason
# in brackets (which restricts nothing).
# What a freeze stops, written as its label ('Stocktake freeze: DAL-2', 'Inventory freeze at site
# DAL-2'): read as a freeze on every change naming the value (broader, never narrower).
_FREEZE_LABEL = (
    r"(?:(?:change|code|deploy(?:ment)?|release)\s+|(?P<label>stocktake|inventory|stock)\s+)?"
)
FREEZE_ON_KIND = re.compile(
    r"^(?:(?:a|an|the)\s+)?" + _FREEZE_LABEL + r"(?:freeze|lock)\s+"
    r"(?:(?:is\s+)?(?:now\s+)?in\s+(?:place|effect|force)\s+)?(?:on|for|at)\s+(?:the\s+)?"
    r"(?P<kind>[a-z]+)\s+(?P<name>(?=[\w.\-/:@+]*[\d\-_.])[\w.\-/:@+]*\w)"
    r"(?:\s*\((?P<why>[^()]*)\))?"
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r""
    r"|\s+(?:this|next)\s+(?:week|month|quarter|year))?",
    re.I,
)
# '…: no membership or role changes until the audit closes': the freeze restated, with its
# lifetime (read as a freeze on every request naming the value: broader, never narrower).
_FREEZE_RESTATED = re.compile(
    r"^\s*(?::|\s-)\s*no\s+(?P<what>[A-Za-z][\w\s,]*?)"
    r"(?:\s+(?P<until>until|till|pending)\s+(?P<event>[A-Za-z][\w\s]*?))?\s*\.?$",
    re.I,
)
FREEZE_WORDS = (
    "quarantin",
    "suspend",
    "embargo",
    "block",
    "hold",
    "payment",
    "credit",
    "legal",
    "under",
    "change",
    "code",
    "deploy",
    "deployment",
    "release",
    "freez",
    "frozen",
    "lock",
    "currently",
    "now",
    "still",
)


# 'other than', 'outside (of) the', 'except', 'apart from' right before a category phrase
_OUTSIDE_BEFORE = re.compile(
    r"\b(?:outside(?: of)?|other than|except(?: for)?|apart from|anything but|excluding|"
    # 'roles that are not standard roles', 'vendors not among the preferred vendors': the
    # negation is the exclusion's own, no second turn of the rule
    r"(?P<neg>(?:that|which|who)\s+(?:(?:is|are)\s+not|isn't|aren't)|"
    r"(?:not|n't)\s+(?:among|in|on|one\s+of|part\s+of)))\s+(?:the\s+|our\s+|an?\s+)?$",
    re.I,
)


def _category_checks(
    index: int, source: str, clause: str, glossary: Glossary | None
) -> list[Check]:
    """A clause naming glossary categories ('Nobody gets a privileged role') -> membership checks.

    Every category of the clause must resolve, and the clause must state nothing else a check
    would need (no quantity): otherwise it stays partly understood.
    """
    phrases = _category_phrases(clause, glossary)
    if not phrases:
        return []
    if find_quantities(clause):
        return _category_condition(index, source, clause, phrases, glossary)
    auto = bool(AUTO.search(clause))
    review = bool(REVIEW.search(clause)) and not auto
    negated = bool(NEGATION.search(clause)) or bool(
        re.search(r"\b(?:nobody|no one|none)\b", clause, re.I)
    )
    only_at = ONLY.search(clause)
    only = bool(only_at)
    if not (negated or review or only):
        return []
    if only_at and all(only_at.start() >= end for _, end, _ in phrases):
        # 'Firmware updates to critical assets only during an outage window': 'only' restricts
        # what follows the category (a time, a condition), not its membership: no allow-list
        return []
    checks: list[Check] = []
    for start, end, phrase in phrases:
        # 'domains other than client domains', 'vendors outside the approved vendors': the rule
        # speaks of what is not in the category (an allow-list of it)
        outside_at = _OUTSIDE_BEFORE.search(clause[:start])
        outside = bool(outside_at)
        if outside_at and outside_at.group("neg"):
            # the clause is negated elsewhere only if a negation stands outside the marker
            rest_of = clause[: outside_at.start()] + " " + clause[outside_at.end() :]
            negated = bool(NEGATION.search(rest_of)) or bool(
                re.search(r"\b(?:nobody|no one|none)\b", rest_of, re.I)
            )
        if outside and negated:
            return []  # 'not … other than …': a double turn no reading here is sure of
        members = glossary.lookup(phrase) if glossary else None
        match = "glossary"
        if not members and builtin_category(phrase) == "consumer_mail" and not only:
            # The built-in vocabulary: addresses at consumer mail providers are personal ones.
            members, match = CONSUMER_MAIL_DOMAINS, "consumer_mail"
        if not members:
            return []
        noun = phrase.split(" ", 1)[1] if " " in phrase else phrase
        kind = tuple(stem(w) for w in words(noun))
        drop = set(kind) | {stem(w) for w in words(phrase)}
        rest = clause[:start] + " " + clause[end:]
        terms = tuple(t for t in _terms(rest, cut_review=review) if t not in drop)
        terms = tuple(t for t in terms if t not in {"nobodi", "nobody", "get", "gets"})
        if phrase.split()[-1] in ("list", "lists", "register", "registry"):
            # 'vendors on the watch list': the values are vendors, named by the noun right
            # before the list ('badge access only for staff on the DC access list': staff, not
            # the badge), or else by the subject.
            before = re.search(
                r"\b([a-z]+)\s+(?:(?:who|that)\s+(?:is|are)\s+)?(?:on|in|from)\s+(?:the|our|a)\s+"
                r"(?:[\w\-]+\s+)*$",
                clause[:start],
                re.I,
            )
            holder = stem(before.group(1).lower()) if before else ""
            if holder and holder in terms and holder not in VERBS:
                kind = kind + (holder,)
            else:
                kind = kind + tuple(t for t in terms if t not in VERBS)
        checks.append(
            ValueList(
                index,
                source,
                "review" if review else "deny",
                _subject_terms(terms),
                (),
                "allow" if (only and not negated) or outside else "deny",
                tuple(members),
                match,
                kind,
            )
        )
    return checks


_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _category_phrases(clause: str, glossary: Glossary | None) -> list[tuple[int, int, str]]:
    """Open categories of a clause: qualified nouns ('privileged roles') and, with a glossary,
    any of its terms written in the clause ('rented address lists', 'admin-level permissions')."""
    phrases = category_phrases(clause)
    if not glossary or not glossary.terms:
        return phrases
    tokens = [(m.start(), m.end(), stem(m.group(0).lower())) for m in _TOKEN.finditer(clause)]
    stems = [t[2] for t in tokens]
    for key in glossary.terms:
        want = key.split()
        n = len(want)
        if not n:
            continue
        for i in range(len(stems) - n + 1):
            if stems[i : i + n] == want:
                start, end = tokens[i][0], tokens[i + n - 1][1]
                if not any(s < end and start < e for s, e, _ in phrases):
                    phrases.append((start, end, clause[start:end].lower()))
                break
    return sorted(phrases)


def _category_condition(
    index: int,
    source: str,
    clause: str,
    phrases: list[tuple[int, int, str]],
    glossary: Glossary | None,
) -> list[Check]:
    """'Controlled substances can't be prescribed for more than 30 days', with the category in
    the glossary: the limit applies where an argument's value is a member of the category."""
    predicate_at = _predicate_position(clause)
    if len(phrases) != 1 or glossary is None or predicate_at is None:
        return []
    start, end, phrase = phrases[0]
    members = glossary.lookup(phrase)
    if not members:
        return []
    if start > predicate_at:
        return _category_beyond_amount(index, source, clause, predicate_at, glossary)
    if end > predicate_at:
        return []
    rest = (clause[:start] + " " + clause[end:]).strip()
    made, _, _ = compile_clause(index, source, rest, None, "")
    if not made or any(
        c.effect == "allow" or not isinstance(c, NumericLimit) or c.counts_calls for c in made
    ):
        return []
    condition = ValueList(
        index,
        source,
        "deny",
        (),
        (),
        "deny",
        tuple(members),
        "glossary",
        tuple(stem(w) for w in words(phrase)),
    )
    return [
        WhenListed(index, source, c.effect, c.terms, c.alternatives, condition=condition, body=c)
        for c in made
    ]


def _category_beyond_amount(
    index: int, source: str, clause: str, predicate_at: int, glossary: Glossary
) -> list[Check]:
    """'Orders over 50,000 USD may only be placed with preferred vendors', with the category in
    the glossary: beyond the amount the subject states, the category's list applies."""
    quantities = [q for q in find_quantities(clause) if not _inside_literal(clause, q)]
    if len(quantities) != 1 or quantities[0].start > predicate_at:
        return []
    q = quantities[0]
    b = _CONDITION_BOUND.search(clause[: q.start])
    if not b:
        return []
    rest = (clause[: b.start()] + " " + clause[q.end :]).strip()
    body = _category_checks(index, source, rest, glossary)
    if len(body) != 1 or not isinstance(body[0], ValueList):
        return []
    op = BOUNDARY_CONDITION[re.sub(r"\s+", " ", b.group(0).strip().lower())]
    condition = _subject_condition(index, source, clause[: b.start()], op, q)
    b0 = body[0]
    return [When(index, source, b0.effect, b0.terms, (), condition=condition, body=b0)]


_CONDITIONAL = re.compile(
    r"^(?P<main>.+?)\s*,?\s+(?P<marker>unless|only if|only when|only once|except if|except when|provided that|provided|as long as)\s+"
    r"(?P<cond>.+)$",
    re.I,
)
# 'Release', 'Ship the order': an imperative act of one to three words, no modal, no negation
_IMPERATIVE = re.compile(r"^\s*(?P<verb>[A-Za-z]+)(?:\s+(?:the\s+)?[A-Za-z][\w\-]*){0,2}\s*$")
_ONLY_SPLIT = re.compile(
    r"^(?P<head>.+?\b(?:can|may|must|shall|should|could|will))\s+only\s+"
    r"(?P<verb>(?:be\s+)?[a-z]+(?:\s+(?:out|off|up|down|back))?)\s+"
    r"(?P<marker>if|when|provided that|as long as)\s+(?P<cond>.+)$",
    re.I,
)
_APPROVED_BY = re.compile(
    r"^(?:(?:it|they|this)\s+(?:is|are|was|were|has been|have been)\s+)?(?:explicitly\s+)?"
    r"(?:approved|signed off|authori[sz]ed|cleared|okayed|ok'd)\s+(?:in advance\s+)?by\s+"
    r"(?:(?!\b(?:unless|if|when|whenever|except|provided|only|who|that|which)\b)[^,;])+$",
    re.I,
)
_CONDITION_TEST = re.compile(
    r"^(?:(?:the|a|an|its|their|his|her)\s+)?(?P<words>[a-z][\w\s\-]*?)\s+(?:(?:is|are|was|were|has been|have been|has|have)\s+)?"
    r"(?:been\s+)?(?P<verb>zero|0|empty|attached|referenced|given|provided|included|present|set|supplied|specified|"
    r"cited|filled in|on file|passed|verified|checked|confirmed|completed|succeeded|signed off|"
    r"signed|approved|authori[sz]ed)(?P<manner>\s+(?:in writing|by email|by e-mail|in person|by phone|"
    r"verbally|online))?$",
    re.I,
)
_CONDITION_EQUALS = re.compile(
    r"^(?:(?:the|a|an|its|their)\s+)?(?P<words>[a-z][\w\s\-]*?)\s+(?:is|are|equals)\s+"
    r"(?P<value>\"[^\"]+\"|'[^']+'|`[^`]+`|[A-Z][A-Z0-9_\-]+|\d+(?:\.\d+)?)$"
)
# 'if the shipment status is pending': a plain word names a value only of a state-like field.
_CONDITION_STATE = re.compile(
    r"^(?:(?:the|a|an|its|their)\s+)?(?P<words>(?:[a-z][\w\-]*\s+){0,3}"
    r"(?:status|state|stage|tier|type|mode|level|plan|phase))\s+(?:is|equals)\s+"
    r"(?P<value>[a-z][a-z0-9_\-]*)$",
    re.I,
)
# 'the trip is marked urgent', 'the ticket is flagged as priority': a mark carried by a flag.
_CONDITION_MARKED = re.compile(
    r"^(?:(?:the|a|an|its|their)\s+)?(?:[a-z][\w\-]*\s+){1,2}(?:is|are|was|were|has been|have been)\s+"
    r"(?:marked|flagged|tagged|labell?ed)\s+(?:as\s+)?(?P<mark>[a-z][a-z\-]*)$",
    re.I,
)
_CONDITION_PRONOUN = re.compile(
    r"^(?:they|it)\s+(?:arrive|arrives|arrived|are|is|come|comes|came|were|was)\s+"
    r"(?P<state>[a-z]+(?:ed|en)|broken|faulty|defective|unused|unopened|expired)$",
    re.I,
)
# 'no standing orders remain active on it', 'there are no active standing orders', 'no open
# disputes exist': none of the things (in the state named) is left
_CONDITION_NONE = re.compile(
    r"^(?:there\s+(?:are|is)\s+)?no\s+(?P<words>(?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*s)"
    r"(?:\s+(?:remain|remains|are|is|exist|exists)(?:\s+still)?"
    r"(?:\s+(?P<state>active|open|pending|outstanding|unpaid|unresolved))?)?"
    r"(?:\s+(?:on|against|for)\s+(?:it|them|the account))?$",
    re.I,
)
# 'the account was never activated', 'the card has never been used': an act that never happened
_CONDITION_NEVER = re.compile(
    r"^(?:(?:the|its|their|his|her)\s+)?(?P<what>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+"
    r"(?:was|were|is|are|has|have)\s+(?:been\s+)?never\s+(?:been\s+)?(?P<verb>[a-z]+ed)$",
    re.I,
)
# the markers under which 'A and B' asks for both conditions: the base check is excepted only
# when every one holds, which is one excepted check per condition (any that fails keeps it)
_BOTH_MARKERS = frozenset(
    "unless|only if|only when|only once|except if|except when|provided that|provided|"
    "as long as".split("|")
)


_BARE_NOUN = re.compile(
    r"^(?:(?:the|a|an|its|their)\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}$", re.I
)


def _conditions_joined(
    index: int,
    source: str,
    main: str,
    marker: str,
    cond: str,
    previous: Quantity | None,
    carry: str,
) -> list[Check] | None:
    """'… unless its ledger balance is zero and no standing orders remain active on it': each
    condition read on its own, the base check excepted only when all of them hold.

    Every part must be a condition the engine reads; otherwise the whole is left to the caller
    (and then unread), so 'unless the invoice and the receipt are attached' is never split.
    """
    if marker not in _BOTH_MARKERS:
        return None
    parts = [p.strip() for p in re.split(r"\s*,?\s+and\s+(?:that\s+)?", cond) if p.strip()]
    if len(parts) < 2 or any(
        re.search(r"\b(?:or|either|unless|if|when)\b", p, re.I) for p in parts
    ):
        return None
    last = _CONDITION_TEST.match(parts[-1])
    if last:
        # 'unless the invoice and the receipt are attached': the verb of the last part is said
        # of each bare noun before it ('the invoice is attached')
        said = f" is {last.group('verb')}{last.group('manner') or ''}"
        if any(_BARE_NOUN.match(p) for p in parts[:-1]):
            parts = [p + said if _BARE_NOUN.match(p) else p for p in parts[:-1]] + [
                re.sub(r"\b(?:are|were)\s+(?=\S+$)", "is ", parts[-1], flags=re.I)
            ]
    made: list[Check] = []
    for part in parts:
        got = _conditional_checks(index, source, f"{main} {marker} {part}", previous, carry)
        if got is None or not got[0] or not all(isinstance(c, Unless) for c in got[0]):
            return None
        made.extend(got[0])
    return made


_PRESENT_VERBS = frozenset(
    "attached referenced given provided included present set supplied specified cited filled in on file".split()
)


# '… other than the original one unless the original card is expired or closed': the thing and
# the states (each a word of the closed class of states) that lift a relation
_UNLESS_THING_STATE = re.compile(
    r"^(?P<main>.+?)\s+(?P<marker>unless|except\s+when|except\s+if)\s+(?:the\s+|its\s+)?"
    r"(?P<thing>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*)?)\s+(?:is|are|has\s+been|was)\s+"
    r"(?P<states>[a-z]+(?:\s*,\s*[a-z]+)*(?:\s*,?\s+or\s+[a-z]+)?)\s*\.?$",
    re.I,
)
# The state of one party, bound to the one argument named for it (`PartyState`).
# 'Payments may only be released to vendors whose status in the vendor master is Active',
# 'Only pay vendors whose status is Active': an allow-only on the party's state.
_PARTY_ATTRIBUTES = r"status|state|stage|standing|plan|tier"
_PARTY_STATE_WORD = r"(?!or\b|and\b|not\b)[A-Za-z][\w\-]*"
_PARTY_STATES = (
    r"(?P<states>"
    + _PARTY_STATE_WORD
    + r"(?:\s*,\s*"
    + _PARTY_STATE_WORD
    + r")*(?:\s*,?\s+or\s+"
    + _PARTY_STATE_WORD
    + r")?)"
)
# ('whose vendor master status is active' reaches here as 'with vendor master status active',
# _normalise's _WHOSE_STATE)
_ONLY_WHOSE = re.compile(
    r"^(?P<head>.+?)\s+(?P<noun>[a-z]+s)\s+(?P<phrase>(?:whose\s+(?P<attr>(?:[a-z]+\s+){0,3}?"
    r"(?P<name>" + _PARTY_ATTRIBUTES + r"))(?:\s+in\s+the\s+(?P<src>(?:[a-z]+\s+){0,2}[a-z]+))?"
    r"\s+is\s+(?:(?:still|currently|now)\s+)?|with\s+(?P<wattr>(?:[a-z]+\s+){0,2}"
    r"(?P<wname>status|state|stage))\s+)" + _PARTY_STATES + r")\s*\.?$",
    re.I,
)
# 'Agents may only open the charts of patients who have an active encounter', 'Marketing emails
# may only be sent to contacts who have opted in', '… that have opted in to marketing'
_PARTY_DONE = r"opted[\s\-]in|consented|enrolled|subscribed|registered|onboarded"
_ONLY_WHO_HAVE = re.compile(
    r"^(?P<head>.+?)\s+(?P<noun>[a-z]+s)\s+(?P<phrase>(?:who|that)\s+(?:have|has)\s+"
    r"(?:(?:an?|a\s+current)\s+(?P<adj>active|open|valid|current|live)\s+(?P<obj>[a-z]+)"
    r"|(?:already\s+)?(?P<done>" + _PARTY_DONE + r")(?:\s+(?:to|for|in)\s+(?P<to>[a-z]+))?))"
    r"\s*\.?$",
    re.I,
)
# 'Keys may not be created for deactivated users', 'Do not issue refunds to suspended accounts'
# (not 'blocked', 'banned', 'unverified': a list or a category a glossary may define)
_PARTY_ADJECTIVES = (
    r"deactivated|suspended|inactive|terminated|closed|frozen|disabled|dormant|locked|"
    r"archived|cancelled|canceled|expired|delinquent|offboarded"
)
_ADJECTIVE_PARTY = re.compile(
    r"\b(?:for|to|from|of|with|on|by)\s+(?:(?:any|the)\s+)?(?P<adj>" + _PARTY_ADJECTIVES + r")\s+"
    r"(?P<noun>[a-z]+s)\b",
    re.I,
)
# 'Goodwill credits must not be given to customers on a reseller or wholesale plan'
_ON_PLAN = re.compile(
    r"\b(?P<noun>[a-z]+s)\s+(?P<phrase>on\s+(?:a|an|the)\s+" + _PARTY_STATES + r"\s+"
    r"(?P<name>plan|tier))\b",
    re.I,
)
# 'if the prescription is still active', 'unless MFA is enrolled on their account', 'unless the
# user has MFA enrolled': a state of the thing named (a word of the closed class of states)
_PARTY_CONDITION_STATES = r"active|open|valid|current|live|enrolled|enabled|in force"
_CONDITION_PARTY_STATE = re.compile(
    r"^(?:(?:the|its|their|his|her)\s+)?(?:(?P<owner>[a-z]+)(?:'s|\s+has)\s+)?"
    r"(?P<what>(?!it\b|they\b|no\b|not\b|none\b|there\b|any\b|all\b)[a-z][\w\-]*(?:\s+(?!is\b|are\b|has\b)[a-z][\w\-]*)?)\s+"
    r"(?:(?:is|are)\s+)?"
    r"(?:(?:still|currently|now)\s+)?(?P<state>" + _PARTY_CONDITION_STATES + r")"
    r"(?:\s+(?:on|for|in)\s+(?:their|its|the|his|her)\s+(?P<on>[a-z]+))?$",
    re.I,
)


def _relation_unless_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """'Refunds may not be issued to a payment method other than the original one unless the
    original card is expired or closed': the relation (SameValue), lifted while a state
    argument or a flag of the thing (`original_card_status: "expired"`) shows one of the
    states; a state it cannot read, or none sent, is for a human (Unless, test "state")."""
    m = _UNLESS_THING_STATE.match(clause)
    if m is None:
        return None
    states = [w.lower() for w in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", m.group("states")) if w]
    if not states or not all(w in _STATE_WORDS for w in states):
        return None
    made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
    if len(made) != 1 or not isinstance(made[0], SameValue) or made[0].effect == "allow":
        return None
    thing = _side_stems(m.group("thing"))
    if not thing:
        return None
    marker = re.sub(r"\s+", " ", m.group("marker").lower())
    phrase = f"the {m.group('thing')} is {' or '.join(states)}"
    base = made[0]
    return [
        Unless(
            index,
            source,
            base.effect,
            base.terms,
            (),
            base=base,
            marker=marker,
            bind_words=thing,
            test="state",
            value=states[0],
            phrase=phrase,
            values=tuple(states),
        )
    ], marker


def _negated_only(head: str) -> str | None:
    """'Payments may only be released to' → 'Payments may not be released to'; 'Only pay' → 'Do
    not pay'; 'Invoices may be paid only to' → 'Invoices may not be paid to'. None when the head
    has no 'only' to turn into a prohibition of the rest, or when 'only' may bound more than the
    party: who acts ('Only senior agents may pay', 'released only by Treasury to') or a longer
    act."""
    m = (
        re.match(r"^(?P<a>.*?\b(?:may|can|must|shall|should))\s+only\s+(?P<b>.+)$", head, re.I)
        or re.match(r"^(?P<a>)only\s+(?P<b>[a-z].*)$", head, re.I)
        or re.match(
            r"^(?P<a>.*?\b(?:may|can|shall|should))\s+(?P<mid>be\s+[a-z]+)\s+only\s+(?P<b>.+)$",
            head,
            re.I,
        )
    )
    if m is None:
        return None
    act = f"{m.groupdict().get('mid') or ''} {m.group('b')}".split()
    if len(act) > 5 or NORMATIVE.search(" ".join(act)) or re.search(r"\bby\b", head, re.I):
        return None
    if not m.group("a"):
        return f"Do not {' '.join(act)}"
    return f"{m.group('a')} not {' '.join(act)}"


def _party_state_checks(
    made: list[Check],
    index: int,
    source: str,
    *,
    marker: str,
    phrase: str,
    states: list[str],
    thing: str,
    attribute: str,
    required: bool,
    of: str = "",
) -> list[Check] | None:
    """The main clause's deny or review checks, each bound to the party's state."""
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    # the party's own noun is kept even when generic ('agents', 'users'): it names the argument
    things = tuple(dict.fromkeys(stem(w) for w in words(thing) if w not in STOPWORDS))
    return [
        PartyState(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            bind_words=things,
            phrase=re.sub(r"\s+", " ", phrase.strip()),
            states=tuple(states),
            thing=things,
            attribute=tuple(w.lower() for w in words(attribute)),
            required=required,
            of=of,
        )
        for c in made
    ]


def _split_states(written: str) -> list[str] | None:
    states = [
        re.sub(r"[\s\-]+", " ", x.strip().lower())
        for x in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", written)
        if x.strip()
    ]
    if not states or any(x in STOPWORDS or NORMATIVE.fullmatch(x) for x in states):
        return None
    return states


# Words naming the record that holds a party's own status ('vendor master status', 'current
# status'), not another thing's status ('bank status', 'KYC status').
_RECORD_OF_PARTY = frozenset(stem(w) for w in "vendor supplier master record current".split())


def _party_state(
    index: int,
    source: str,
    clause: str,
    previous: Quantity | None,
    carry: str,
    only: bool = False,
) -> tuple[list[Check], str] | None:
    """A state of the party written as a relative clause or a prepositional phrase. `only`: the
    allow-only forms alone ('may only … whose status is Active'), read before the readings that
    take 'only … is Active' for a binding; the others are read with the conditions, after the
    categories a glossary defines ('blocked vendors')."""
    m = _ONLY_WHOSE.match(clause) or _ONLY_WHO_HAVE.match(clause)
    rest = m.group("head") if m else clause
    if condition_spans(rest) or re.search(
        r"\b(?:unless|except|if|when|while|who|whose|that)\b", rest, re.I
    ):
        return None  # a second condition is never composed with this one
    m = _ONLY_WHOSE.match(clause)
    if m:
        main = _negated_only(m.group("head"))
        states = _split_states(m.group("states"))
        if main is None or states is None or find_quantities(m.group("phrase")):
            return None
        attr_words = [w for w in words(m.group("attr") or m.group("wattr")) if w not in STOPWORDS]
        party = stem(m.group("noun").lower())
        if any(stem(w) not in {party, *_RECORD_OF_PARTY} for w in attr_words[:-1]):
            # 'vendors whose bank status is verified', '… whose KYC status is Active': the status
            # of another thing than the party; bound to the party's own status argument
            # (`vendor_status: "verified"`), the bank's went unread and the request passed
            return None
        thing = " ".join([m.group("noun"), *attr_words[:-1], m.group("src") or ""])
        made, _, _ = compile_clause(index, source, f"{main} {m.group('noun')}", previous, carry)
        checks = _party_state_checks(
            made,
            index,
            source,
            marker="whose",
            phrase=m.group("phrase"),
            states=states,
            thing=thing,
            attribute=m.group("name") or m.group("wname"),
            required=True,
        )
        return (checks, "whose|with|only") if checks else None
    m = _ONLY_WHO_HAVE.match(clause)
    if m:
        main = _negated_only(m.group("head"))
        if main is None:
            return None
        of = ""
        if m.group("adj"):
            states, thing = [m.group("adj").lower()], f"{m.group('noun')} {m.group('obj')}"
            of = m.group("obj")
        else:
            done = re.sub(r"[\s\-]+", " ", m.group("done").lower())
            states, thing = [done], f"{m.group('noun')} {m.group('to') or ''}"
        made, _, _ = compile_clause(index, source, f"{main} {m.group('noun')}", previous, carry)
        checks = _party_state_checks(
            made,
            index,
            source,
            marker=m.group("phrase").split()[0].lower(),
            phrase=m.group("phrase"),
            states=states,
            thing=thing,
            attribute="status",
            required=True,
            of=of,
        )
        return (checks, f"{m.group('phrase').split()[0].lower()}|only") if checks else None
    if only or not NEGATION.search(clause):
        return None
    m = _ON_PLAN.search(clause) or _ADJECTIVE_PARTY.search(clause)
    if m is None or len(_ON_PLAN.findall(clause)) + len(_ADJECTIVE_PARTY.findall(clause)) != 1:
        return None
    if clause[m.end() :].lstrip().startswith(("(", ":")):
        return None  # 'frozen environments (prod, staging)': the kind's members are listed
    if m.re is _ON_PLAN:
        states = _split_states(m.group("states"))
        if states is None:
            return None
        main = f"{clause[: m.end('noun')]}{clause[m.end() :]}"
        phrase, attribute = m.group("phrase"), m.group("name")
    else:
        states = [m.group("adj").lower()]
        main = f"{clause[: m.start('adj')]}{clause[m.end('adj') :]}"
        phrase, attribute = m.group("adj"), "status"
    made, _, _ = compile_clause(index, source, re.sub(r"\s+", " ", main), previous, carry)
    checks = _party_state_checks(
        made,
        index,
        source,
        marker="who",
        phrase=phrase,
        states=states,
        thing=m.group("noun"),
        attribute=attribute,
        required=False,
    )
    return (checks, "") if checks else None


def _conditional_checks(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """'X may not be Y unless <argument> is zero / attached / passed': the base check, excepted.

    Returns (checks, marker) or None when the clause has no condition the engine can read; a
    condition it cannot read stays unaccounted for (the rule is then partly understood).
    """
    named = _NAME_PREFIX_RECOGNISER.recognise(Clause.read(index, source, clause, previous, carry))
    if named:
        m = _NAME_PREFIX_WHEN.match(clause)
        assert m is not None
        return named, f"{m.group('marker').lower()}|whose|with"
    party = _party_state(index, source, clause, previous, carry)
    if party is not None:
        return party
    several = _any_state(index, source, clause, previous, carry)
    if several is not None:
        return several
    kind = _party_kind(index, source, clause, previous, carry)
    if kind is not None:
        return kind
    where = _where_state(index, source, clause, previous, carry)
    if where is not None:
        return where
    either = _either_state(index, source, clause, previous, carry)
    if either is not None:
        return either
    state = _relative_state(index, source, clause, previous, carry)
    if state is not None:
        return state
    having = _having_state(index, source, clause, previous, carry)
    if having is not None:
        return having
    during = _while_state(index, source, clause, previous, carry)
    if during is not None:
        return during
    excepted = _except_named(index, source, clause, previous, carry)
    if excepted is not None:
        return excepted
    kind = _except_kind(index, source, clause, previous, carry)
    if kind is not None:
        return kind
    kind = _unless_kind(index, source, clause, previous, carry)
    if kind is not None:
        return kind
    amount = _except_amount(index, source, clause, previous, carry)
    if amount is not None:
        return amount
    relation = _relation_unless_state(index, source, clause, previous, carry)
    if relation is not None:
        return relation
    split = _ONLY_SPLIT.match(clause)
    if split:
        # 'X can only be cancelled if C' says the same as 'X can be cancelled only if C'.
        clause = f"{split.group('head')} {split.group('verb')} only {split.group('marker')} " + (
            split.group("cond")
        )
    m = _CONDITIONAL.match(clause)
    if not m:
        return None
    marker = re.sub(r"\s+", " ", m.group("marker").lower())
    cond = m.group("cond").strip().rstrip(".")
    # 'unless balance == 0': the sign of equality written as code says 'is'
    cond = re.sub(r"(?<=[\w`'\"])\s*==\s*(?=[\w`'\"])", " is ", cond)
    # 'unless the user's email is verified': the owner's noun names the argument with the thing
    # (`user_email_verified`, `user.email_verified`), as 'the user email' does
    cond = re.sub(r"(?<=[a-z])['\u2019]s\s+(?=[a-z])", " ", cond, flags=re.I)
    if marker in ("unless", "except if", "except when") and _APPROVED_BY.match(cond):
        # '4h max unless approved by security': beyond the limit a person decides, so the
        # limit asks for review instead of refusing.
        made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
        if made and all(c.effect == "deny" and isinstance(c, NumericLimit) for c in made):
            return [replace(c, effect="review") for c in made], marker
    both = _conditions_joined(index, source, m.group("main"), marker, cond, previous, carry)
    if both is not None:
        return both, (f"{marker}|{split.group('marker').lower()}|only" if split else marker)
    party = _CONDITION_PARTY_STATE.match(cond) if not _CONDITION_TEST.match(cond) else None
    if party is not None and marker in ("unless", "only if", "only when", "provided that"):
        # 'only if the prescription is still active', 'unless MFA is enrolled on their account':
        # the state of the thing named, read on the one argument named for it (`PartyState`)
        permission = marker != "unless"
        made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
        if made and all(c.effect == ("allow" if permission else "deny") for c in made):
            made = [replace(c, effect="deny") for c in made]
            what = party.group("what")
            owner = party.group("owner") or party.group("on") or ""
            thing = f"{owner} {what}"
            checks = _party_state_checks(
                made,
                index,
                source,
                marker=marker,
                phrase=cond,
                states=[party.group("state").lower()],
                thing=thing,
                attribute="status",
                required=True,
                of=what if owner else "",
            )
            if checks:
                return checks, (
                    f"{marker}|{split.group('marker').lower()}|only" if split else marker
                )
    test, value = "", ""
    t = _CONDITION_TEST.match(cond)
    none = _CONDITION_NONE.match(cond) if not t else None
    never = _CONDITION_NEVER.match(cond) if not t and not none else None
    marked = _CONDITION_MARKED.match(cond) if not t and not none and not never else None
    if never:
        # 'unless the account was never activated': a status spelling it, or a flag named for
        # the act (`activated: false`, `never_activated: true`)
        test, value, phrase_words = "never", never.group("verb").lower(), never.group("what")
    elif none:
        # 'unless no standing orders remain active on it', 'there are no open disputes': a count
        # (or list) named for the things, in their state when one is said, must be zero
        test = "zero"
        phrase_words = f"{none.group('state') or ''} {none.group('words')}"
    elif marked:
        # 'unless the trip is marked urgent': a flag named for the mark (`urgent`) shows it
        test, value, phrase_words = "passed", marked.group("mark"), marked.group("mark")
    elif t:
        verb = t.group("verb").lower()
        test = (
            "zero"
            if verb in ("zero", "0", "empty")
            else (
                "present"
                if verb in _PRESENT_VERBS or verb.split()[0] in _PRESENT_VERBS
                else "passed"
            )
        )
        phrase_words = t.group("words") + (t.group("manner") or "")
        if test == "passed":
            value = verb  # 'unless the status is confirmed': a status of 'confirmed' meets it
    else:
        e = _CONDITION_EQUALS.match(cond) or _CONDITION_STATE.match(cond)
        p = _CONDITION_PRONOUN.match(cond) if not e else None
        if p:
            # 'except when they arrive damaged': the state of the subject itself, read from a
            # state field ('condition': 'damaged') or a flag named for it ('damaged': true)
            test, value, phrase_words = "state", p.group("state").lower(), p.group("state")
        elif not e:
            return None
        else:
            test, value, phrase_words = "equals", e.group("value").strip("\"'`"), e.group("words")
    if re.search(r"\b(?:and|or|plus)\b|&", phrase_words, re.I) and test != "zero":
        return None  # 'the invoice and the receipt': two things, never one argument's name
    bind = tuple(
        s for s in (stem(w) for w in words(phrase_words)) if s not in STOPWORDS and s not in GENERIC
    )
    if not bind:
        return None
    main = m.group("main")
    # 'only once its status is approved': the act waits for the condition, which is what 'only
    # if' says of it
    permission = marker in (
        "only if",
        "only when",
        "only once",
        "provided that",
        "provided",
        "as long as",
    )
    made, _, _ = compile_clause(index, source, main, previous, carry)
    imperative = _IMPERATIVE.match(main)
    if (
        not made
        and permission
        and imperative
        and stem(imperative.group("verb").lower()) in VERBS
        and not NORMATIVE.search(main)
    ):
        # 'Release only if all IPC tests passed': the bare act is what is allowed only if …
        made, _, _ = compile_clause(index, source, f"{main} is allowed", previous, carry)
    if not made:
        return None
    base_checks: list[Check] = []
    for c in made:
        if permission:
            if c.effect != "allow":
                return None  # 'may not … only if …' is not a reading the engine trusts
            c = replace(c, effect="deny")
        elif c.effect == "allow":
            return None  # 'X is allowed unless Y' forbids on Y: not read here
        base_checks.append(c)
    return _unless_each(
        base_checks,
        index,
        source,
        marker=marker,
        bind_words=bind,
        test=test,
        value=value,
        phrase=cond,
    ), (f"{marker}|{split.group('marker').lower()}|only" if split else marker)


# 'Never send accounts to collections while a payment plan is active', 'Grade changes once the
# term is closed need sign-off': the clause holds only while the named thing is in that state.
_STATE_CLAUSE = (
    r"(?P<marker>while|whilst|when|whenever|if|once)\s+(?:the|a|an|its|their|his|her)\s+"
    r"(?P<what>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:is|are)\s+(?:currently\s+|still\s+)?"
    r"(?P<state>(?:fully\s+)?[a-z][\w\-]*)"
)
# The words of a state a record is in (a closed class: any other word after 'is' stays unread).
_STATE_WORDS = frozenset(
    """active inactive open closed pending suspended expired cancelled canceled executed
    overdue delinquent live running enabled disabled resolved completed terminated draft
    published withdrawn revoked lapsed dormant""".split()
)
_WHILE_STATE_END = re.compile(r"^(?P<main>.+?)\s*,?\s+" + _STATE_CLAUSE + r"\s*\.?$", re.I)
_WHILE_STATE_FRONT = re.compile(
    r"^(?P<main>.+?)\s*,?\s+"
    + _STATE_CLAUSE
    + r"\s*,?\s+(?P<rest>(?:must|may|can't|cannot|can not|should|shall|won't|are not|aren't|is not|"
    r"isn't|need|needs|require|requires|go|goes)\b.+?)\s*\.?$",
    re.I,
)


def _while_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while the thing named is in the stated state.

    The state is read like a subject's state ('members whose account is suspended'): from a flag
    or a state argument named for the thing (`payment_plan_status: "active"`, `term_status:
    "closed"`); another state lifts the clause, no such argument sends the request to review.
    """
    m = _WHILE_STATE_FRONT.match(clause) or _WHILE_STATE_END.match(clause)
    if m is None:
        return None
    state = re.sub(r"\s+", " ", m.group("state").lower())
    what = m.group("what")
    if (
        state.split()[-1] not in _STATE_WORDS
        or state in STOPWORDS
        or NORMATIVE.fullmatch(state.split()[-1])
        or stem(state.split()[-1]) in GENERIC
        or any(w.lower() in STOPWORDS for w in what.split())
        or find_quantities(m.group(0))
    ):
        return None
    main = m.group("main")
    if m.re is _WHILE_STATE_FRONT:
        main = f"{main} {m.group('rest')}"
    if condition_spans(main):
        return None  # a second condition is never composed with this one
    bind = tuple(
        x
        for x in (stem(w) for w in words(f"{what} {state.split()[-1]}"))
        if x not in STOPWORDS and x not in GENERIC
    )
    if len(bind) < 2:
        return None
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    return _unless_each(
        made,
        index,
        source,
        marker=m.group("marker").lower(),
        bind_words=bind,
        test="not_state",
        value=state.split()[-1],
        phrase=f"{what} is {state}",
    ), m.group("marker").lower()


# 'accounts that are in collections or that have been flagged for suspected fraud', 'accounts
# under a legal hold, a garnishment or a regulatory freeze', 'accts with legal_hold /
# garnishment / regulatory_freeze': the thing acted on, in one of several states.
_ANY_STATE_START = re.compile(
    r"\b(?P<thing>[a-z]+)\s+(?P<conn>(?:that|which|who)(?:\s+(?:are|is|were|was|have|has))?"
    r"(?:\s+been)?(?:\s+currently)?(?:\s+(?:subject\s+to|in|under|on|flagged\s+for|flagged\s+as|"
    r"marked\s+as))?|subject\s+to|under|with|in|flagged\s+for)\b\s+",
    re.I,
)
_ANY_STATE_PREDICATE = re.compile(
    r"\b(?:may|must|shall|cannot|can't|can|should|will|won't|need|needs|require|requires|"
    r"(?:is|are)\s+(?:not|never|prohibited|forbidden|blocked|barred|banned|disallowed|"
    r"off[- ]limits)\b)\b",
    re.I,
)
_ANY_STATE_SPLIT = re.compile(r"\s*,\s*(?:or\s+)?|\s+or\s+|\s*/\s*", re.I)
_ANY_STATE_ITEM = re.compile(
    r"^(?P<rel>(?:(?:that|which|who)\s+)?(?:(?:are|is|were|was|have|has)\s+)?(?:been\s+)?"
    r"(?:currently\s+)?)(?P<prep>(?:subject\s+to|in|under|on|with|flagged\s+for|flagged\s+as|"
    r"marked\s+as)\s+)?(?:(?:a|an|the|any)\s+)?(?P<state>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})$",
    re.I,
)
_NOT_STATE_WORDS = frozenset("not no never without only other than".split())
# 'with status closed or frozen', 'with role viewer or guest': an attribute's values, read by
# the lists and bindings of that attribute
_ATTRIBUTE_NOUN = re.compile(
    r"\b(?:status|state|stage|role|type|tier|plan|level|category|kind|mode|grade)\b"
)
# 'with medical_baseline or life_support flags': the last word names the kind of every item
_KIND_NOUN = re.compile(
    r"\b(?:flags?|status(?:es)?|tags?|codes?|labels?|types?|roles?|values?|lists?|registers?|"
    r"registry|registries|rosters?|watchlists?)$"
)
_MODAL_WORDS = frozenset(
    """must may shall should can cannot will need needs require requires prohibited forbidden
    allowed permitted blocked""".split()
)


def _state_items(conn: str, items: list[str]) -> tuple[list[str], list[str], list[bool]] | None:
    """Each state of a list ('in collections', 'flagged for suspected fraud'): its words, its
    words as written with their preposition, and whether a status argument may spell it."""
    states: list[str] = []
    written: list[str] = []  # with its preposition, for readings: 'in collections'
    status_form: list[bool] = []
    for n, item in enumerate(items):
        it = _ANY_STATE_ITEM.match(item if n else f"{conn} {item}")
        if it is None:
            return None
        raw = it.group("state")
        state = raw.lower()
        if set(state.split()) & (_NOT_STATE_WORDS | _MODAL_WORDS | STOPWORDS):
            return None  # a state is a noun or two ('a regulatory freeze'), never a modal
        if (
            re.search(r"\b[A-Z]{2,5}\b", raw)
            or country_code(raw)
            or region_name(raw)
            or raw.upper() in CURRENCY_CODES
            or _KIND_NOUN.search(state)
            or _ATTRIBUTE_NOUN.search(state)
        ):
            return None  # a place, a currency, a code, or 'life_support flags': a list
        prep = (it.group("prep") or "").strip().lower()
        if not prep and n and not it.group("rel").strip():
            prep = (_ANY_STATE_ITEM.match(f"{conn} x") or it).group("prep") or ""
            prep = prep.strip().lower()  # 'in collections, arrears or default'
        rel = it.group("rel").strip().lower()
        states.append(state.replace("_", " "))
        written.append(f"{prep} {state}".strip())
        status_form.append(prep == "in" or (not prep and bool(re.search(r"\b(?:are|is)$", rel))))
    return states, written, status_form


# 'Erasure shall not be performed where the record is subject to a legal hold', 'If the account
# is under a garnishment or a regulatory freeze, it may not be closed': the thing's state, in a
# clause of its own.
_WHERE_STATE = (
    r"(?P<marker>where|if|when|whenever|while)\s+(?:the\s+|its\s+|their\s+|an?\s+)?"
    r"(?P<thing>[a-z]+)\s+(?P<conn>(?:is|are)\s+(?:currently\s+)?(?:subject\s+to|under|on|in))\s+"
)
_WHERE_STATE_END = re.compile(
    r"^(?P<main>.+?)\s*,?\s+" + _WHERE_STATE + r"(?P<states>[^,;]+?)\s*\.?$", re.I
)
_WHERE_STATE_FRONT = re.compile(
    r"^" + _WHERE_STATE + r"(?P<states>[^;]+?)\s*,\s*(?P<main>[^,;]+?)\s*\.?$", re.I
)


def _where_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while the thing is in the state (or one of them)."""
    m = _WHERE_STATE_END.match(clause) or _WHERE_STATE_FRONT.match(clause)
    if m is None:
        return None
    thing = m.group("thing").lower()
    if thing in STOPWORDS or stem(thing) in GENERIC:
        return None
    body = m.group("states").strip(" ,")
    if re.search(r"\band\b", body, re.I) or find_quantities(body):
        return None
    items = [x.strip() for x in _ANY_STATE_SPLIT.split(body) if x.strip()]
    conn = re.sub(r"\s+", " ", m.group("conn").lower())
    read = _state_items(conn, items) if items else None
    if read is None:
        return None
    states, written, status_form = read
    main = m.group("main")
    if condition_spans(main) or _any_state(index, source, main, previous, carry):
        return None  # a second condition is never composed with this one
    main = re.sub(
        r"\b(?:it|they)\s+(?=(?:may|must|shall|cannot|can't|should)\b)", f"{thing}s ", main
    )
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    marker = m.group("marker").lower()
    phrase = re.sub(r"\s+", " ", clause[m.start("thing") : m.end("states")])
    return [
        AnyState(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            phrase=phrase,
            states=tuple(states),
            written=tuple(written),
            status_form=tuple(status_form),
            thing=(stem(thing),),
        )
        for c in made
    ], marker


# 'credit.issue -> deny if account is in collections OR fraud_flag is set': states of the
# thing, or flags named in code, joined by 'or'; any one of them forbids.
_EITHER_STATE = re.compile(
    r"^(?P<main>.+?)\s+(?P<marker>if|when|whenever|where)\s+(?P<conds>.+?\s+or\s+.+?)\s*\.?$",
    re.I,
)
_EITHER_THING = re.compile(
    r"^(?:the\s+)?(?P<thing>[a-z]+)\s+(?:is|are)\s+(?:currently\s+)?(?P<prep>in|under|on|"
    r"subject\s+to|flagged\s+(?:for|as))\s+(?:(?:a|an|the)\s+)?"
    r"(?P<state>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})$",
    re.I,
)
_EITHER_FLAG = re.compile(
    r"^(?P<flag>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+(?:is\s+(?:set|true|on)|==?\s*true)$", re.I
)


def _either_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while one of the conditions joined by 'or' does.

    Each condition is a state of one thing ('account is in collections') or a yes/no argument
    named in code ('fraud_flag is set'); every thing named must be the same one, and any
    condition of another shape leaves the rule to the other readings (or unread).
    """
    m = _EITHER_STATE.match(clause)
    if m is None or condition_spans(m.group("main")):
        return None
    parts = [p.strip() for p in re.split(r"\s+or\s+", m.group("conds"), flags=re.I)]
    things: set[str] = set()
    states: list[str] = []
    written: list[str] = []
    status_form: list[bool] = []
    for part in parts:
        t = _EITHER_THING.match(part)
        f = _EITHER_FLAG.match(part) if t is None else None
        if t is not None:
            read = _state_items(t.group("prep").lower(), [t.group("state")])
            if read is None or t.group("thing").lower() in STOPWORDS:
                return None
            things.add(t.group("thing").lower())
            states += read[0]
            written += read[1]
            status_form += read[2]
        elif f is not None:
            flag = f.group("flag").lower()
            states.append(flag.replace("_", " "))
            written.append(f"`{flag}` is on")
            status_form.append(False)
        else:
            return None
    if len(things) != 1 or len(states) < 2:
        return None
    made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    thing = things.pop()
    marker = m.group("marker").lower()
    return [
        AnyState(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            phrase=m.group("conds"),
            states=tuple(states),
            written=tuple(written),
            status_form=tuple(status_form),
            thing=(stem(thing),),
        )
        for c in made
    ], marker


def _any_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while the thing is in one of several states."""
    if re.search(r"\bwhose\b", clause, re.I):
        return None  # 'whose status is closed or frozen': the attribute's states, read elsewhere
    for m in _ANY_STATE_START.finditer(clause):
        thing = m.group("thing").lower()
        if re.fullmatch(r"(?:that|which|who)", m.group("conn").strip(), re.I):
            # 'extracts that include diagnosis or medication columns': a bare relative opens
            # what the thing holds or does, not a state it is in (the columns are a field list)
            continue
        if (
            thing in STOPWORDS
            or NORMATIVE.fullmatch(thing)
            or stem(thing) in GENERIC
            or re.search(r"(?:ed|ing)$", thing)  # 'registered in', 'located in': a place
        ):
            continue
        end = len(clause.rstrip(" ."))
        for p in _ANY_STATE_PREDICATE.finditer(clause, m.end()):
            if not re.search(r"\b(?:that|which|who)\s+$", clause[m.end() : p.start()], re.I):
                end = p.start()
                break
        span = clause[m.end() : end]
        tail = re.search(r"\s+on\s+(?:it|them)\s*,?\s*$", span, re.I)
        body = span[: tail.start()] if tail else span.rstrip(" ,")
        items = [x.strip() for x in _ANY_STATE_SPLIT.split(body) if x.strip()]
        single = len(items) == 1 and re.search(
            r"\b(?:subject\s+to|under|flagged)\b", m.group("conn"), re.I
        )
        if not single and (len(items) < 2 or not (" or " in f" {body.lower()} " or "/" in body)):
            continue  # one state after 'in', 'with', 'that have' is read by the older readings
        if re.search(r"\band\b", body, re.I):
            return None  # 'a hold and a freeze' asks for both, or lists: not read
        conn = re.sub(r"\s+", " ", m.group("conn").lower())
        read = _state_items(conn, items)
        if read is None:
            return None
        states, written, status_form = read
        main = f"{clause[: m.end('thing')]} {clause[end:]}".strip()
        main = re.sub(r"\s+,", ",", re.sub(r"\s+", " ", main))
        if condition_spans(main) or find_quantities(clause[m.end() : end]):
            return None
        made, _, _ = compile_clause(index, source, main, previous, carry)
        if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
            return None
        phrase = re.sub(r"\s+", " ", clause[m.start("conn") : end].strip(" ,"))
        marker = conn.split()[0]
        return [
            AnyState(
                index,
                source,
                c.effect,
                c.terms,
                c.alternatives,
                base=c,
                marker=marker,
                phrase=phrase,
                states=tuple(states),
                written=tuple(written),
                status_form=tuple(status_form),
                thing=(stem(thing),),
            )
            for c in made
        ], marker
    return None


# 'If the account holder is a PEP, closing the account needs compliance review', 'Where the
# account holder is classified as a politically exposed person, …': a party of the request is
# of a kind, shown by a yes/no argument of that party named for the kind or its initials.
_PARTY_IS = (
    r"(?:the\s+|its\s+)?(?P<party>[a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:(?:classified|designated|"
    r"flagged|marked|identified|registered)\s+as\s+)?(?:a|an)\s+"
    r"(?P<kind>[A-Z]{2,5}|[a-z]+(?:\s+[a-z]+){0,2})"
)
_PARTY_KIND_FRONT = re.compile(
    r"^(?P<marker>if|where|when|whenever)\s+" + _PARTY_IS + r"\s*,\s*(?P<main>.+?)\s*\.?$", re.I
)
_PARTY_KIND_END = re.compile(
    r"^(?P<main>.+?)\s*,?\s+(?P<marker>if|where|when|whenever)\s+" + _PARTY_IS + r"\s*\.?$", re.I
)


def _party_kind(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while the named party is of the kind."""
    m = _PARTY_KIND_FRONT.match(clause) or _PARTY_KIND_END.match(clause)
    if m is None:
        return None
    party = [w.lower() for w in m.group("party").split()]
    kind = m.group("kind")
    kind_words = [w.lower() for w in kind.split()]
    if (
        set(party + kind_words) & (STOPWORDS | _NOT_STATE_WORDS | _MODAL_WORDS)
        or stem(party[-1]) in GENERIC
        or find_quantities(m.group(0))
    ):
        return None
    main = m.group("main")
    if condition_spans(main) or _any_state(index, source, main, previous, carry):
        return None  # a second condition is never composed with this one
    names = [" ".join(kind_words)]
    if len(kind_words) > 1:
        names.append("".join(w[0] for w in kind_words))  # 'politically exposed person' -> pep
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    marker = m.group("marker").lower()
    return _unless_each(
        made,
        index,
        source,
        marker=marker,
        bind_words=tuple(stem(w) for w in party),
        test="party_kind",
        value=kind,
        values=tuple(names),
        phrase=re.sub(
            r"\s+", " ", m.group(0)[m.start("party") - m.start() : m.end("kind") - m.start()]
        ),
    ), marker


def _unless_each(checks: list[Check], index: int, source: str, **condition: Any) -> list[Check]:
    """Each check made to hold only when ``condition`` does not ('… unless Y', '… who are on Y')."""
    return [
        Unless(index, source, c.effect, c.terms, c.alternatives, base=c, **condition)
        for c in checks
    ]


# 'Don't email customers who opted out', 'Never text contacts that have not consented',
# 'Points can't be granted to members whose account is suspended': a state of the noun.
_RELATIVE_STATE = re.compile(
    r"^(?P<main>.*?\b[a-z]+s)\s+(?P<marker>who|that|whose)\s+(?P<cond>[^,;]+?)\s*\.?$", re.I
)
# 'Never refund currency that has already been spent': a singular noun, a finished state
_RELATIVE_DONE = re.compile(
    r"^(?P<main>.*?\b[a-z]+)\s+(?P<marker>that|which)\s+(?P<cond>(?:has|have)\s+(?:already\s+)?"
    r"been\s+[a-z]+)\s*\.?$",
    re.I,
)
_RELATIVE_STATE_FRONT = re.compile(
    r"^(?P<main>.*?\b[a-z]+s)\s+(?P<marker>who|that|whose)\s+(?P<cond>.+?)\s+"
    r"(?P<rest>(?:must|may|can't|cannot|can not|should|shall|won't|are not|aren't|is not|"
    r"isn't|need|needs|require|requires)\b.+?)\s*\.?$",
    re.I,
)
_STATE_OF = re.compile(
    r"^(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|was|were|has been|have been)\s+"
    r"(?:(?:currently|still|now|yet)\s+)?(?P<state>[a-z]+)$",
    re.I,
)
# 'whose status is blocked or suspended', 'whose KYC status is pending, failed or expired',
# 'whose status is terminated or unpaid leave': one of several states, each of one or two words.
_ONE_STATE = r"(?:(?:in|on|under)\s+)?(?!or\b)[a-z][\w\-]*(?:\s+(?!or\b)[a-z][\w\-]*)?"
_STATES_OF = re.compile(
    r"^(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|was|were|has been|have been)\s+"
    r"(?:(?:currently|still|now)\s+)?(?P<states>"
    + _ONE_STATE
    + r"(?:\s*,\s*"
    + _ONE_STATE
    + r")*\s*,?\s+or\s+"
    + _ONE_STATE
    + r")$",
    re.I,
)
_STATE_VERB = re.compile(
    r"^(?:(?:have|has|had|are|is|were|was)\s+)?(?P<neg>not\s+|never\s+)?(?:already\s+)?(?:been\s+)?"
    r"(?P<state>(?:[a-z]+(?:ed|d)|spent|sold|sent|paid|used|redeemed|lost|won)"
    r"(?:\s+(?:out|in|up|off|down|back))?)(?:\s+(?:yet|already))?$",
    re.I,
)


_CODE = (
    r"(?:[A-Z][A-Z0-9]*\d[A-Z0-9]*|[A-Z]{2,6}|"
    + r"[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*|[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+)"
)
_EXCEPT_NAMED = re.compile(
    r"^(?P<main>.+?),?\s+(?P<marker>except(?:\s+for)?|other than|apart from|excluding|save for)\s+"
    r"(?:the\s+)?(?P<phrase>(?:[a-z][a-z\-]*\s+){0,3}?(?:(?P<noun>[a-z]+s|[A-Z]{2,5}s)\s+)?"
    r"(?P<items>" + _CODE + r"(?:\s*,\s*" + _CODE + r")*(?:\s*,?\s+(?:and|or)\s+" + _CODE + r")?))"
    r"\s*\.?$"
)


def _except_named(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """'A single trade may not exceed 5,000 units, except the money-market funds MMF1 and MMF2':
    the limit does not hold for the named values (read on the argument named like their kind)."""
    m = _EXCEPT_NAMED.match(clause)
    if not m:
        return None
    items = [i for i in re.split(r"\s*,\s*|\s+(?:and|or)\s+", m.group("items")) if i]
    if any(_place(i) or i.upper() in CURRENCY_CODES for i in items):
        return None  # 'other than EUR', 'except US or CA': a list of its own (ValueList)
    made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
    if not made or not all(isinstance(c, NumericLimit) and c.effect != "allow" for c in made):
        return None
    noun = m.group("noun")
    bind = (stem(noun.lower()),) if noun else ()
    marker = re.sub(r"\s+", " ", m.group("marker").lower())
    return _unless_each(
        made,
        index,
        source,
        marker=marker,
        bind_words=bind,
        test="in",
        phrase=m.group("phrase"),
        values=tuple(items),
    ), marker.split()[0]


# 'No refunds on orders delivered more than 90 days ago, except defective items', 'Work orders
# over $2,500 need 3 bids, except emergency repairs': plain words naming a kind of the subject.
_EXCEPT_KIND = re.compile(
    r"^(?P<main>.+?),?\s+(?P<marker>except(?:\s+for)?|other than|apart from|excluding|save for)\s+"
    r"(?:(?:the|any|for)\s+)?(?P<phrase>[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2}"
    r"(?:\s*,?\s+or\s+[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2})?)\s*\.?$"
)


def _except_kind(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, lifted for a kind the exception names in plain words.

    The exception holds only where the request spells it: a value made of the kind's words
    (`reason_code: "defective"`, `adjustment: "meter_read_correction"`) or a flag named for it
    that is on; a flag that is off, or another value on the qualifier's own dimension (as for
    any subject word), rules it out; otherwise a human decides.
    """
    m = _EXCEPT_KIND.match(clause)
    if m is None or _OTHER_THAN_ORIGINAL.match(clause):
        # 'to any payment method other than the original': not a kind of payment method the
        # values spell, but the one the request started from (SameValueRecogniser)
        return None
    phrase = m.group("phrase")
    parts = [p.strip() for p in re.split(r"\s*,?\s+or\s+", phrase) if p.strip()]
    tokens = [w for p in parts for w in p.split()]
    if any(
        w.lower() in STOPWORDS
        or w.lower() in ("when", "if", "where", "while", "as", "once")
        or stem(w.lower()) in _FUNCTION_STEMS
        for w in tokens
    ):
        return None
    last = parts[-1].split()
    head = last[-1] if len(last) >= 2 and last[-1].endswith("s") else ""
    alternatives: list[tuple[str, ...]] = []
    for p in parts:
        ws = [w for w in re.split(r"[\s\-]+", p) if w]
        if head and ws and ws[-1] == head:
            ws = ws[:-1]
        qual = tuple(w.lower() for w in ws if stem(w.lower()) not in GENERIC)
        if not qual:
            return None
        alternatives.append(qual)  # the words as written; the check reads their stems
    made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
    if not made or not all(
        isinstance(c, (NumericLimit, ActionRule, RequiredArgument)) and c.effect != "allow"
        for c in made
    ):
        return None
    marker = re.sub(r"\s+", " ", m.group("marker").lower())
    return [
        Unless(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            bind_words=(stem(head.lower()),) if head else (),
            test="kind",
            phrase=phrase,
            values=tuple(" ".join(a) for a in alternatives),
        )
        for c in made
    ], f"{marker}|{marker.split()[0]}"


# 'No returns on clearance items unless defective': a bare adjective after 'unless' names a kind
# of the subject, as 'except defective items' does. Only a word shaped like an adjective of kind
# (-ive, -ous, -able, -ible, -al, -ic): a participle ('unless approved', 'unless signed', 'unless
# cleared') is a person's act or an outcome, never read from a value or a flag here.
_UNLESS_KIND = re.compile(
    r"^(?P<main>.+?),?\s+unless\s+(?P<kind>[a-z]+(?:ive|ous|able|ible|al|ic))\s*\.?$", re.I
)


def _unless_kind(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """'X unless <adjective>' read as 'X, except <adjective>' (`_except_kind`)."""
    m = _UNLESS_KIND.match(clause)
    if m is None or m.group("kind").lower() in STOPWORDS:
        return None
    read = _except_kind(
        index, source, f"{m.group('main')}, except {m.group('kind')}", previous, carry
    )
    if read is None:
        return None
    checks, _ = read
    checks = [replace(c, marker="unless") if isinstance(c, Unless) else c for c in checks]
    return checks, "unless"


# 'Every refund must reference the order ID, except refunds below 10 EUR': the obligation holds
# only beyond the amount the exception names (read through the boundary table, negated).
_EXCEPT_AMOUNT = re.compile(
    r"^(?P<main>.+?),?\s+(?P<marker>except(?:\s+for)?|other than|apart from|excluding|save for)\s+"
    r"(?:for\s+)?(?:(?:the|any)\s+)?(?P<noun>(?:[a-z]+\s+){0,2}?)(?:(?:of|worth|that are|which are)\s+)?"
    r"(?P<bound>over|above|more than|greater than|exceeding|in excess of|at least|under|below|"
    r"less than|at most|up to|no more than)\s+(?P<amount>(?:[^,;]|,(?=\d{3}))+?)\s*\.?$",
    re.I,
)


# 'Business class not permitted unless the block time is over 5 hours': the permission past a
# bound, stated as a condition on a measure
_UNLESS_AMOUNT = re.compile(
    r"^(?P<main>.+?),?\s+(?P<marker>unless|except when|except if)\s+"
    # 'unless the block time is over 5 hours', 'unless it is below 25 EUR', 'unless < 100 EUR'
    r"(?:(?:the\s+|its\s+|their\s+)?(?P<noun>(?!(?:it|they)\s)(?:[a-z]+\s+){1,3}?)(?:is|are)\s+"
    r"|(?:it|they)\s+(?:is|are)\s+)?"
    r"(?P<bound>over|above|more than|greater than|exceeding|in excess of|at least|under|below|"
    r"less than|at most|up to|no more than)\s+(?P<amount>(?:[^,;]|,(?=\d{3}))+?)\s*\.?$",
    re.I,
)


def _except_amount(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    m = _EXCEPT_AMOUNT.match(clause) or _UNLESS_AMOUNT.match(clause)
    if not m:
        return None
    quantities = find_quantities(m.group("amount"))
    if len(quantities) != 1 or m.group("amount")[quantities[0].end :].strip():
        return None
    q = quantities[0]
    made, _, _ = compile_clause(index, source, m.group("main"), previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, NumericLimit) for c in made):
        return None  # a cap excepted below an amount is not a reading the engine trusts
    if NEGATION.search(m.group("main")) and any(c.effect != "deny" for c in made):
        # 'Refunds are not subject to approval unless > 500 EUR': a negated review read as a
        # review would turn the exception over
        return None
    op = NEGATE[BOUNDARY_CONDITION[re.sub(r"\s+", " ", m.group("bound").lower())]]
    subject = m.group("noun") or m.group("main")
    condition = _subject_condition(index, source, subject, op, q)
    marker = re.sub(r"\s+", " ", m.group("marker").lower())
    return [
        When(index, source, c.effect, c.terms, c.alternatives, condition=condition, body=c)
        for c in made
    ], f"{marker}|{marker.split()[0]}"  # 'except for' is the condition's marker as written


# 'Employees on probation can't get a raise', 'Accounts under investigation must not be closed'.
_STATE_NOUNS = (
    r"probation|leave|sick leave|parental leave|garden leave|notice|hold|suspension|"
    r"investigation|quarantine|lockdown|watch|a pip|pip|administration|litigation hold"
)
_PREP_STATE = re.compile(
    r"^(?P<noun>.*?\b[a-z]+s)\s+(?:(?:who|that)\s+(?:are|is)\s+)?(?P<prep>on|under|in)\s+"
    r"(?P<state>" + _STATE_NOUNS + r")\s+(?P<rest>(?:can't|cannot|can not|may not|must not|"
    r"must never|should not|shouldn't|are not|aren't|won't|never|need|needs|require)\b.+)$",
    re.I,
)


def _prep_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    m = _PREP_STATE.match(clause)
    if not m:
        return None
    state = m.group("state").lower()
    made, _, _ = compile_clause(
        index, source, f"{m.group('noun')} {m.group('rest')}", previous, carry
    )
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    bind = tuple(stem(w) for w in words(state) if w not in STOPWORDS)
    phrase = f"are {m.group('prep').lower()} {state}"
    return _unless_each(
        made,
        index,
        source,
        marker="who",
        bind_words=bind,
        test="not_state",
        value=state.split()[-1],
        phrase=phrase,
    ), "who"


# 'Never disconnect a customer on the medical priority register', 'Patients on the do-not-call
# list must not be phoned': membership of a named register, shown by a flag named for it.
_ON_REGISTER = re.compile(
    r"\b(?:who\s+(?:is|are)\s+)?(?:on|in)\s+(?:the|our|a)\s+(?P<name>(?:[a-z][a-z\-]*\s+){1,3}?)"
    r"(?P<kind>register|registry|list|watchlist|watch list|roster)\b",
    re.I,
)


_SCREENING_LISTS = frozenset(
    stem(w) for w in "sanction sanctions watch block deny black grey gray debarment pep".split()
)


def _on_register(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    m = _ON_REGISTER.search(clause)
    if not m or not (NEGATION.search(clause) or REVIEW.search(clause)):
        return None
    if re.match(r"\s*\([^)]*,[^)]*\)", clause[m.end() :]):
        return None  # 'on the embargo list (DME, VKO, SVO)': the list is written out, not a flag
    if re.search(r"(?:\bnot|n't|\bnever)\s*$", clause[: m.start()], re.I):
        # jred32: 'Transfers to rescues not on the partner list -> review' had read "review when
        # they are on the partner list" (the 'not' left in the main clause): a rescue off the
        # list passed. What lies off a register is not read here.
        return None
    name = [w for w in words(m.group("name")) if w not in STOPWORDS]
    bind = tuple(x for x in (stem(w) for w in name) if x not in GENERIC)
    if not bind or any(w in _KIND_SKIP or NORMATIVE.fullmatch(w) for w in name):
        return None
    if any(w in CATEGORY_QUALIFIERS or stem(w) in _SCREENING_LISTS for w in name):
        return None  # 'the debarred list', 'the sanctions list': a vocabulary decides, not a flag
    main = (clause[: m.start()] + " " + clause[m.end() :]).strip()
    if condition_spans(main) or _ON_REGISTER.search(main):
        return None
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    return _unless_each(
        made,
        index,
        source,
        marker="who",
        bind_words=bind,
        test="not_state",
        value=name[-1],
        phrase="are " + re.sub(r"^who\s+(?:is|are)\s+", "", m.group(0).strip(), flags=re.I),
    ), "who"


def _relative_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The base check of the main clause, excepted while the noun's stated state does not hold."""
    prep = _prep_state(index, source, clause, previous, carry)
    if prep is not None:
        return prep
    listed = _on_register(index, source, clause, previous, carry)
    if listed is not None:
        return listed
    m = _RELATIVE_STATE.match(clause) or _RELATIVE_DONE.match(clause)
    front = _RELATIVE_STATE_FRONT.match(clause)
    if front and (
        m is None
        or _STATE_VERB.match(front.group("cond"))
        or (
            front.group("marker").lower() == "whose"
            and (_STATE_OF.match(front.group("cond")) or _STATES_OF.match(front.group("cond")))
        )
    ):
        # 'Customers who opted out must not be emailed': the relative clause in the subject.
        m = front
    if not m or find_quantities(m.group("cond")):
        return None
    marker = m.group("marker").lower()
    cond = m.group("cond").strip()
    states: tuple[str, ...] = ()
    if marker == "whose" and not _STATE_OF.match(cond) and _STATES_OF.match(cond):
        # one of several states: read on the attribute named ('status', 'KYC status'), each
        # state compared word by word (`Suspended`, `unpaid_leave`)
        several = _STATES_OF.match(cond)
        assert several is not None
        states = tuple(
            re.sub(r"\s+", " ", x.strip().lower())
            for x in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", several.group("states"))
            if x.strip()
        )
        what = several.group("what").lower()
        if any(not _state_words(x) or set(x.split()) & _NOT_A_STATE for x in states) or any(
            w in STOPWORDS for w in what.split()
        ):
            return None  # a state is a word or two ('frozen', 'unpaid leave'), never a modal
        state, test = " ".join(states), "not_state"
        bind_text = f"{' '.join(_state_words(x)[-1] for x in states)} {what}"
    elif marker == "whose":
        s = _STATE_OF.match(cond)
        if not s:
            return None
        state, test = s.group("state").lower(), "not_state"
        bind_text = f"{s.group('what')} {state}"
    else:
        s = _STATE_VERB.match(cond)
        if not s:
            return None
        state = s.group("state").lower()
        test = "state" if s.group("neg") else "not_state"
        bind_text = state
    if not states and (state in STOPWORDS or NORMATIVE.fullmatch(state)):
        return None
    bind = tuple(
        x for x in (stem(w) for w in words(bind_text)) if x not in STOPWORDS and x not in GENERIC
    )
    if not bind:
        return None
    main = m.group("main")
    if m.re is _RELATIVE_STATE_FRONT:
        main = f"{main} {m.group('rest')}"
    if condition_spans(main) or condition_spans(cond):
        return None  # a second condition is never composed with this one
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    return _unless_each(
        made,
        index,
        source,
        marker=marker,
        bind_words=bind,
        test=test,
        value="" if states else state.split()[0] if marker == "whose" else state,
        phrase=cond,
        values=states,
    ), marker


# 'Never archive projects that have open invoices', 'Subscriptions with unpaid invoices must not
# be upgraded', 'Don't close accounts that have any pending chargebacks': the subject has things
# in a state. Read from a count, a list or a flag named for the state and the thing
# (`open_invoices: 3`, `unpaid_invoices: []`, `has_pending_chargebacks: true`).
_HAVING_STATES = frozenset(
    _STATE_WORDS
    | {"unpaid", "outstanding", "unresolved", "unsettled", "disputed", "failed", "late"}
)
_HAVING_OBJECT = r"(?:any\s+)?(?P<adj>[a-z]+)\s+(?P<noun>[a-z]+s)"
_HAVING_END = re.compile(
    r"^(?P<main>.*?\b[a-z]+s)\s+(?:that|which|who)\s+(?:have|has|carry|hold)\s+"
    + _HAVING_OBJECT
    + r"\s*\.?$",
    re.I,
)
_HAVING_FRONT = re.compile(
    r"^(?P<main>.*?\b[a-z]+s)\s+(?:(?:that|which|who)\s+(?:have|has)|with)\s+"
    + _HAVING_OBJECT
    + r"\s+(?P<rest>(?:must|may|can't|cannot|can not|should|shall|won't|are not|aren't|is not|"
    r"isn't|need|needs|require|requires)\b.+?)\s*\.?$",
    re.I,
)


def _having_state(
    index: int, source: str, clause: str, previous: Quantity | None, carry: str
) -> tuple[list[Check], str] | None:
    """The main clause's checks, holding only while the subject has things in the stated state."""
    m = _HAVING_FRONT.match(clause) or _HAVING_END.match(clause)
    if m is None:
        return None
    adj, noun = m.group("adj").lower(), m.group("noun").lower()
    if adj not in _HAVING_STATES or noun in STOPWORDS or stem(noun) in GENERIC:
        return None
    main = m.group("main")
    if m.re is _HAVING_FRONT:
        main = f"{main} {m.group('rest')}"
    if condition_spans(main) or find_quantities(clause):
        return None  # a second condition is never composed with this one
    made, _, _ = compile_clause(index, source, main, previous, carry)
    if not made or any(c.effect == "allow" or isinstance(c, Unless) for c in made):
        return None
    marker = "with" if " with " in m.group(0)[len(m.group("main")) : m.end("adj")] else "that"
    phrase = f"have {adj} {noun}"
    return [
        Unless(
            index,
            source,
            c.effect,
            c.terms,
            c.alternatives,
            base=c,
            marker=marker,
            bind_words=(stem(adj), stem(noun)),
            test="not_state",
            value=adj,
            phrase=phrase,
        )
        for c in made
    ], marker


_NOT_A_STATE = frozenset("not no never only must may can cannot should shall".split())


def _state_words(state: str) -> list[str]:
    """The words of a state that name it ('unpaid leave', 'in arrears' -> 'arrears')."""
    return [w for w in re.findall(r"[a-z][\w\-]*", state) if w not in STOPWORDS]


_CONDITION_BOUND = re.compile(
    r"\b(?:over|above|more than|greater than|exceeding|in excess of|at least|under|below|less than|at most|up to|no more than)\s*$",
    re.I,
)


# 'Only records …', 'only the invoices …': 'only' opening a subject of at most three words
_ONLY_SUBJECT = re.compile(
    r"^\s*only\s+(?P<subject>(?:the\s+)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s*$", re.I
)
# '… may be purged', '… can be archived': a permission to do one thing, nothing after it
_MAY_BE_DONE = re.compile(r"^\s*(?:may|can)\s+(?:be\s+)?(?P<verb>[a-z]+)\s*\.?\s*$", re.I)


def _only_bound_permission(text: str) -> bool:
    """'Only records older than 7 years may be purged': 'only' picks the subject by one bound."""
    quantities = find_quantities(text)
    if len(quantities) != 1:
        return False
    q = quantities[0]
    b = _CONDITION_BOUND.search(text[: q.start])
    return bool(b and _ONLY_SUBJECT.match(text[: b.start()]) and _MAY_BE_DONE.match(text[q.end :]))


def _conditional_list(
    index: int,
    source: str,
    clause: str,
    quantities: list[Quantity],
    review: bool,
    negated: bool,
    only: bool,
) -> Check | None:
    """A value list whose rule applies only beyond an amount stated in the rule's subject."""
    if len(quantities) != 1 or not (only or negated):
        return None
    q = quantities[0]
    predicate_at = _predicate_position(clause)
    if predicate_at is None or q.start > predicate_at:
        return None
    b = _CONDITION_BOUND.search(clause[: q.start])
    if not b:
        return None
    phrase = re.sub(r"\s+", " ", b.group(0).strip().lower())
    subject = _ONLY_SUBJECT.match(clause[: b.start()])
    done = _MAY_BE_DONE.match(clause[q.end :])
    if only and not (review or negated) and subject and done:
        # 'Only records older than 7 years may be purged': 'only' picks the subject by its
        # bound, it lists no value; what falls outside the bound may not be done
        return _subject_condition(
            index,
            source,
            subject.group("subject") + " " + done.group("verb"),
            NEGATE[BOUNDARY_CONDITION[phrase]],
            q,
        )
    rest = clause[: b.start()] + clause[q.end :]
    body = _value_list_check(index, source, rest, "deny", review, negated, only)
    if body is None:
        body = _named_list_check(index, source, rest, review, negated, only)
    if body is None or not isinstance(body, ValueList):
        return None
    condition = _subject_condition(
        index, source, clause[: b.start()], BOUNDARY_CONDITION[phrase], q
    )
    return When(
        index, source, body.effect, body.terms, body.alternatives, condition=condition, body=body
    )


# 'Freeze: warehouse WH-04', 'Change freeze: payments-api until Monday'.
FREEZE_COLON = re.compile(
    r"^(?:(?:change|code|deploy(?:ment)?|release)\s+)?freeze\s*:\s*(?:the\s+)?"
    r"(?:(?P<kind>[a-z]+)\s+)?(?P<name>(?=[\w.\-/:@+]*[\d\-_.])[\w.\-/:@+]+)"
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r")?\s*$",
    re.I,
)


_FREEZE_STATE = (
    r"(?:(?:is|are|has been|have been|stays|remains)\s+)?(?:(?:currently|now|still)\s+)?"
    r"(?:(?:under|in)\s+(?:a\s+)?(?:change\s+|code\s+|deploy(?:ment)?\s+|release\s+)?freeze|"
    r"frozen|locked|" + _HELD_STATES + r")"
)
_FREEZE_DURATION = (
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|over|pending|due to|"
    r"because of)\s+" + _DURATION_TEXT + r"|\s+(?:this|next)\s+(?:week|month|quarter|year))?"
)
# 'Grid SCADA (scada-north) is in a change freeze': the name in brackets after its kind.
FREEZE_PAREN = re.compile(
    r"^(?:the\s+)?(?P<kind>(?:[A-Za-z][\w\-]*\s+){0,2}[A-Za-z][\w\-]*)\s*"
    r"\((?P<name>(?=[\w.\-/:@+]*[\d\-_.])[\w.\-/:@+]+)\)\s+"
    + _FREEZE_STATE
    + r"\b"
    + _FREEZE_DURATION
    + r"\s*\.?\s*$",
    re.I,
)
# 'Prod deploys frozen for billing-api and auth-svc until Friday': the subject's action is frozen
# for the named values.
FREEZE_LIST = re.compile(
    r"^(?P<kind>(?:[A-Za-z][\w\-]*\s+){0,3}?[A-Za-z][\w\-]*)\s+"
    + _FREEZE_STATE
    + r"\s+(?:for|on)\s+(?:the\s+)?(?P<name>"
    + _NAMED_ITEM
    + r"(?:\s*,\s*"
    + _NAMED_ITEM
    + r")*(?:\s*,?\s+(?:and|or)\s+"
    + _NAMED_ITEM
    + r")?)(?![\w\-])"
    + _FREEZE_DURATION
    + r"\s*\.?\s*$",
    re.I,
)


# 'fw-core-01 / fw-core-02: change freeze in effect (DC migration)': the names first, then the
# freeze, and a reason in brackets (which restricts nothing)
FREEZE_NAMES_FIRST = re.compile(
    r"^(?P<name>" + _NAMED_ITEM + r"(?:\s*(?:/|,|&|\band\b)\s*" + _NAMED_ITEM + r")*)\s*:\s*"
    r"(?:(?:change|code|deploy(?:ment)?|release)\s+)?freeze(?P<state>\s+(?:in effect|active|in place))?"
    r"(?P<duration>)(?:\s*\((?P<why>[^)]*)\))?\s*\.?\s*$",
    re.I,
)


# 'Code freeze: billing-api, ledger-writer (until the Q4 close)', 'billing-api and ledger-writer
# are under change freeze until further notice': a freeze on several literal names, written
# after the freeze or before its state; a reason or lifetime in brackets restricts nothing
_FREEZE_ITEMS = (
    r"(?P<name>" + _NAMED_ITEM + r"(?:\s*(?:,|;)\s*" + _NAMED_ITEM + r")*"
    r"(?:\s*,?\s+(?:and|&)\s+" + _NAMED_ITEM + r")?)"
)
FREEZE_COLON_LIST = re.compile(
    r"^"
    + _FREEZE_LABEL
    + r"freeze(?:\s+on)?\s*:\s*"
    + _FREEZE_ITEMS
    # '(until the Q4 close)' is the freeze's lifetime, any other bracket its reason
    + r"(?:\s*\((?P<duration>(?:until|till|through|thru|pending)\s+[^()]+)\)"
    r"|\s*\((?P<why>[^()]*)\))?"
    # a second sentence restating the freeze: 'Other sites unaffected.' names the kind, 'Nothing
    # goes out for these until lifted.' says it stops every change until staff lift it
    r"(?:\s*\.\s*(?P<others>other\s+[a-z]+\s+(?:are\s+)?(?:unaffected|not\s+affected)|"
    r"nothing\s+(?:goes\s+out|ships|is\s+deployed|gets\s+deployed)\s+(?:for|to)\s+(?:these|them)"
    r"(?:\s+(?P<lifted>until)\s+(?:lifted|further\s+notice))?))?"
    r"\s*\.?\s*$",
    re.I,
)
# '… Other sites unaffected.': the freeze's kind, said by the sentence that leaves the rest out
_OTHERS_UNAFFECTED = re.compile(
    r"(?:^|[.;]\s*)other\s+(?P<kind>[a-z]+)\s+(?:are\s+)?(?:unaffected|not\s+affected)\s*\.?\s*$",
    re.I,
)
FREEZE_NAMES_STATE = re.compile(
    r"^(?:the\s+)?"
    + _FREEZE_ITEMS.replace(r")?)", r"))", 1)  # two names at least: 'A and B', 'A, B and C'
    + r"\s+(?:are|have been|remain|stay)\s+(?:(?:currently|now|still)\s+)?"
    r"(?:(?:under|in)\s+(?:a\s+)?(?:change\s+|code\s+|deploy(?:ment)?\s+|release\s+)?freeze|frozen)"
    + _FREEZE_DURATION
    + r"\s*\.?\s*$",
    re.I,
)


# A frozen path or path glob ('Vault path secret/payments-core/* is frozen for the PCI audit window
# - no writes', 'secret/payments-core/* - frozen (PCI audit). Read-only.', 'No writes under
# secret/payments-core/ during the PCI audit window', 'Freeze: Vault secrets at secret/app/*'):
# a change to a value under it is refused, a value outside it is another path, a read changes
# nothing. Only a path of two segments or more ending in '/' or '/*' is read this way.
_PATH_GLOB = r"(?P<name>[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+/\*?)"
_PATH_TAIL = r"(?:\s*(?:-|\u2014|\u2013|:|;)\s*(?P<why>no\s+(?:writes|changes)|read-only))?"
# how long a path stays frozen: up to a dash, which opens the restated freeze ('- no writes')
_PATH_DURATION = (
    r"(?P<duration>\s+(?:until|till|through|thru|during|throughout|for|pending)\s+"
    r"[^,;.()\-\u2014\u2013]+?)?"
)
PATH_FROZEN = re.compile(
    r"^(?P<label>(?:the\s+)?(?:vault\s+)?(?:path|prefix)\s+)?"
    + _PATH_GLOB
    + r"\s+(?:is|are)\s+(?:(?:currently|now|still)\s+)?(?P<state>frozen|locked|read-only)"
    + _PATH_DURATION
    + _PATH_TAIL
    + r"\s*\.?\s*$",
    re.I,
)
PATH_DASH_FROZEN = re.compile(
    r"^"
    + _PATH_GLOB
    + r"\s*(?:-|\u2014|\u2013|:)\s*(?P<state>frozen|locked|read-only)(?P<duration>)"
    r"(?:\s*\((?P<why>[^()]*)\))?(?:\s*\.\s*(?P<label>read-only))?\s*\.?\s*$",
    re.I,
)
PATH_NO_WRITES = re.compile(
    r"^(?P<label>no\s+(?:writes|changes)\s+(?:under|to|in|at)\s+)"
    + _PATH_GLOB
    + _PATH_DURATION
    + r"(?P<why>)\s*\.?\s*$",
    re.I,
)
PATH_FREEZE_COLON = re.compile(
    r"^(?:(?:change|code)\s+)?freeze\s*:\s*"
    r"(?P<label>(?:vault\s+)?(?:secrets?|paths?)\s+(?:at|under)\s+)?"
    + _PATH_GLOB
    + r"(?P<duration>)(?:\s*\((?P<why>[^()]*)\))?\s*\.?\s*$",
    re.I,
)
_PATH_FREEZES = (PATH_FROZEN, PATH_DASH_FROZEN, PATH_NO_WRITES, PATH_FREEZE_COLON)


def _path_freeze_check(index: int, source: str, m: re.Match[str]) -> Check:
    """A deny-list of the frozen glob ('secret/app/' is 'secret/app/*': everything under it)
    for any change, read on any argument holding a path."""
    glob = m.group("name")
    glob = glob + "*" if glob.endswith("/") else glob
    # read on the argument holding a path (`path`, `secret_path`, `paths`): another path there
    # is outside the glob
    return ValueList(index, source, "deny", ("chang",), (), "deny", (glob,), "exact", ("path",))


# Holds on one named value, with the act they stop ('All payments to member M-44120 are
# suspended pending death verification', 'Takedowns against channel UC-partner-7781 are on hold
# (partner dispute)', 'Store #0412: all dispensing suspended pending DEA audit', 'Hiring in the
# Research department is frozen'). The named value is read on the argument named for its kind
# (`member_id`, `target.channel_id`, `store_id`); another value there is outside the hold; no
# such argument and no argument carrying the value: review. 'pending …', 'until …' and a reason
# in brackets are the hold's reason or lifetime, never a condition.
_HOLD_STATE = (
    r"(?P<state>suspended|on\s+hold|on\s+(?:payment|credit|legal|compliance)\s+hold|paused|"
    r"halted|frozen|stopped|embargoed)"
)
_HOLD_ID = r"#?(?P<name>(?=[\w.\-/:@+]*\d)[\w.\-/:@+]*[\w])"
_HOLD_TAIL = (
    r"(?P<duration>\s+(?:until|till|through|thru|pending|due to|because of)\s+[^()]+?)?"
    r"(?:\s*\((?P<why>[^()]*)\))?\s*\.?\s*$"
)
_HOLD_ACTS = r"(?:[Aa]ll\s+)?(?P<acts>[A-Za-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2}?)"
_HOLD_VERB = r"\s+(?:is|are|has been|have been|remains?|stays?)\s+(?:(?:currently|now|still)\s+)?"
HOLD_ACT_FIRST = re.compile(
    r"^" + _HOLD_ACTS + r"\s+(?P<prep>to|for|from|against|on|of|at|in|by|with)\s+(?:the\s+)?"
    r"(?P<kind>[a-z]+)\s+" + _HOLD_ID + _HOLD_VERB + _HOLD_STATE + _HOLD_TAIL,
    re.I,
)
HOLD_KIND_COLON = re.compile(
    r"^(?:the\s+)?(?P<kind>[A-Za-z]+)\s+"
    + _HOLD_ID
    + r"\s*:\s*"
    + _HOLD_ACTS
    + r"\s+(?:(?:is|are)\s+)?(?:(?:currently|now|still)\s+)?"
    + _HOLD_STATE
    + _HOLD_TAIL,
    re.I,
)
HOLD_IN_UNIT = re.compile(
    r"^" + _HOLD_ACTS + r"\s+(?:for\s+(?:anyone|everyone|anybody|all\s+staff|staff|employees)\s+)?"
    r"in\s+the\s+(?P<name>[A-Z][\w&\-]*(?:\s+[A-Z][\w&\-]*)?)\s+"
    r"(?P<kind>org|organisation|organization|department|dept|division|team|business unit)\s+"
    + _HOLD_VERB.removeprefix(r"\s+")
    + _HOLD_STATE
    + _HOLD_TAIL
)
# 'Payments to Initech are suspended until 30 June': a capitalised name with no kind is read on
# any argument carrying it; a request where none does goes to review.
HOLD_NAME = re.compile(
    r"^" + _HOLD_ACTS + r"\s+(?P<prep>to|for|from|against|with)\s+"
    r"(?P<name>[A-Z][\w&\-]*(?:\s+[A-Z][\w&\-]*){0,2})" + _HOLD_VERB + _HOLD_STATE + _HOLD_TAIL
)
_HOLDS = (HOLD_ACT_FIRST, HOLD_KIND_COLON, HOLD_IN_UNIT, HOLD_NAME)
HOLD_WORDS = ("all", "suspend", "hold", "paus", "halt", "stop", "embargo", "anyon", "everyon")


_FREEZES = (
    *_PATH_FREEZES,
    FREEZE_QUOTED,
    FREEZE_ON_KIND,
    FREEZE_KIND_FIRST,
    FREEZE_PAREN,
    FREEZE_LIST,
    FREEZE,
    FREEZE_ON,
    FREEZE_COLON,
    FREEZE_NAMES_FIRST,
    FREEZE_COLON_LIST,
    FREEZE_NAMES_STATE,
    *_HOLDS,
)


@lru_cache(maxsize=8192)
def _freeze_match(text: str) -> re.Match[str] | None:
    """The freeze a text states: the first reading of _FREEZES that makes a check."""
    first = None
    for rx in _FREEZES:
        m = rx.search(text)
        if m is None:
            continue
        first = first or m
        if _freeze_from(0, text, m) is not None:
            return m
    return first


def _freeze_check(index: int, source: str, clause: str) -> Check | None:
    """A freeze on one named value: any request naming it in an argument is refused."""
    m = _freeze_match(clause)
    return _freeze_from(index, source, m) if m else None


def _freeze_from(index: int, source: str, m: re.Match[str]) -> Check | None:
    if m.re in _HOLDS:
        return _hold_check(index, source, m)
    if m.re in _PATH_FREEZES:
        return _path_freeze_check(index, source, m)
    if m.re is FREEZE_LIST:
        return _freeze_list_check(index, source, m)
    if m.re in (FREEZE_NAMES_FIRST, FREEZE_COLON_LIST, FREEZE_NAMES_STATE):
        items = [
            i.strip().rstrip(".") for i in re.split(r"\s*(?:/|,|;|&|\band\b)\s*", m.group("name"))
        ]
        if not items or not all(re.search(r"[-_.\d]", i) for i in items if i):
            return None  # only literal names ('fw-core-01'), never prose before a colon
        # a change or code freeze stops changes: a read of a frozen service is outside it
        changes = ("chang",) if m.re is not FREEZE_NAMES_FIRST else ()
        others = _OTHERS_UNAFFECTED.search(source) if m.re is FREEZE_COLON_LIST else None
        # 'Other sites unaffected': the values are sites, read on the argument named for one
        kind = (stem(others.group("kind").lower()),) if others else ()
        return ValueList(
            index, source, "deny", changes, (), "deny", tuple(i for i in items if i), "exact", kind
        )
    name = m.group("name")
    kind = tuple(stem(w) for w in m.group("kind").lower().split()) if m.group("kind") else ()
    if m.re is FREEZE_QUOTED:
        # quoted by the rule's author: a name, read on the argument named for its kind
        if not name.strip() or kind and kind[0] in STOPWORDS:
            return None
        return ValueList(index, source, "deny", (), (), "deny", (name.strip(),), "exact", kind)
    # 'the ledger service is frozen', 'the ACME-7 vendor account is frozen'
    named_kind = any(k in _VALUE_KIND_NOUNS for k in kind)
    if name.lower() in STOPWORDS or not (
        _LITERAL.fullmatch(name) or re.search(r"[-_.\d]", name) or named_kind
    ):
        return None
    alias = m.groupdict().get("alias")
    values = (name, alias) if alias else (name,)
    # 'under change freeze', 'Code freeze on …': changes are stopped, a read is outside it
    changes = ("chang",) if _CHANGE_FREEZE.search(m.group(0)) else ()
    return ValueList(index, source, "deny", changes, (), "deny", values, "exact", kind)


_CHANGE_FREEZE = re.compile(r"\b(?:change|code|deploy(?:ment)?|release)\s+freeze\b", re.I)


def _hold_check(index: int, source: str, m: re.Match[str]) -> Check | None:
    """A hold on one named value for the act it stops: a deny-list of that value, read on the
    argument named for its kind, for requests of that act (its words are the check's subject,
    so a request the tool and arguments show to be another act is outside it)."""
    name = m.group("name").strip()
    acts = m.group("acts")
    kind = tuple(stem(w) for w in (m.groupdict().get("kind") or "").lower().split())
    if not name or name.lower() in STOPWORDS or any(k in STOPWORDS or k in GENERIC for k in kind):
        return None
    act_words = [w for w in words(acts) if w not in STOPWORDS]
    if not act_words or any(NORMATIVE.fullmatch(w) for w in act_words):
        return None
    terms, alternatives = _action_terms(acts, False)
    if not terms:
        return None
    return ValueList(
        index, source, "deny", tuple(terms), tuple(alternatives), "deny", (name,), "exact", kind
    )


def _freeze_list_check(index: int, source: str, m: re.Match[str]) -> Check | None:
    """'Prod deploys frozen for billing-api and auth-svc': a deny-list of literal names for the
    subject's action; a value of a known class in the subject ('prod') says where it holds."""
    items = [i.rstrip(".") for i in _split_named(m.group("name"))]
    if not items or not all(
        _LITERAL.fullmatch(i) or _NAME_WITH_COLON.fullmatch(i) or re.search(r"[-_\d]|\w\.\w", i)
        for i in items
    ):
        return None
    terms, _ = _action_terms(m.group("kind"), False)
    verbs = tuple(t for t in terms if t in VERBS)
    qualifiers = tuple(t for t in terms if t in _CLASS_WORDS)
    about = tuple(t for t in terms if t not in verbs and t not in qualifiers)
    return ValueList(
        index,
        source,
        "deny",
        verbs + qualifiers,
        (),
        "deny",
        tuple(items),
        "exact",
        (),
        about_words=about,
    )


_AMOUNT_WORDS = frozenset(
    stem(w)
    for w in "amount total value sum price cost fee charge balance limit budget payment charge "
    "salary wage rate spend invoice quantity number count".split()
)


def _join_check(index: int, source: str, clause: str, effect: str, review: bool) -> Check | None:
    # 'No disbursement may exceed the client's balance': the negation opens the clause
    clause = _NO_SUBJECT_MAY.sub(r"\g<head> not exceed", clause)
    # "can't exceed remaining balance (days_requested vs balance_days)": the two arguments named
    named = _SIDES_NAMED.search(clause)
    if named:
        clause = clause[: named.start()] + clause[named.end() :]
    for rx, op in ((_JOIN, "gt"), (_JOIN_LOWER, "lt")):
        m = rx.search(clause)
        if not m:
            continue
        written = m.group("right") or m.group("bare") or ""
        if m.group("bare") and (
            not ({stem(w) for w in words(written)} & _AMOUNT_WORDS)
            or any(w.lower() in STOPWORDS for w in words(written))
        ):
            # without an article the bound must name an amount ('original order amount'), not
            # a person or a thing ('must never exceed policy'), nor a clause ('what the
            # customer paid')
            return None
        if re.search(r"\b(?:limited|capped)\b", m.group(0), re.I) and not (
            {stem(w) for w in words(written)} & _AMOUNT_WORDS
        ):
            return None  # 'limited to the development team' names who, not an amount
        right_text = _PREPOSITIONS.sub("", written) if " of " not in written else written
        right = tuple(meaningful(content_stems(right_text)))
        left_text = clause[: m.start()]
        left = tuple(
            s for s in content_stems(left_text) if s not in GENERIC and s not in _EFFECT_STEMS
        )
        # a generic word names the side too ('PTO days requested' and `days_requested`)
        left += tuple(
            s for s in content_stems(left_text) if s in GENERIC and s not in _EFFECT_STEMS
        )
        if not right:
            return None
        terms = tuple(t for t in left if t not in {"amount", "amt", "valu", "total", "sum"})
        if named:
            return ArgumentComparison(
                index,
                source,
                "review" if review else "deny",
                _subject_terms(terms),
                (),
                op,
                left,
                right,
                named_left=named.group("a"),
                named_right=named.group("b"),
                about_words=tuple(stem(w) for w in words(named.group(0))),
            )
        return ArgumentComparison(
            index,
            source,
            "review" if review else "deny",
            _subject_terms(terms),
            (),
            op,
            left,
            right,
        )
    return None


_SIDES_NAMED = re.compile(
    r"\s*\(\s*(?P<a>[a-z][a-z0-9]*_[a-z0-9_]+)\s+(?:vs\.?|versus|against)\s+"
    r"(?P<b>[a-z][a-z0-9]*_[a-z0-9_]+)\s*\)(?=\s*\.?$)",
    re.I,
)


_DOMAIN = re.compile(
    r"@?\b[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:com|org|net|io|co|uk|de|fr|eu|gov|edu|ai|app|dev|info|biz|us|ca|nl|ch|me|cloud)\b",
    re.I,
)
_URI = re.compile(r"[a-z][a-z0-9+.\-]*://[^\s,;()]+", re.I)
_LITERAL = re.compile(
    r"(?<![\w@.])(?:\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|[A-Za-z0-9]+(?:[-_./][A-Za-z0-9*]+)+/?\*?|[A-Za-z0-9]+/\*|"
    r"[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*)(?![\w@])"
)
# One identifier-like token: CamelCase ('PowerUserAccess', 'IAMFullAccess', 'S3FullAccess'), or
# with separators or digits ('p5.48xlarge', 'ACME-7', 'billing_owner'): a value, never prose.
_IDENTIFIER_TOKEN = re.compile(
    r"[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*|[A-Za-z0-9]+(?:[-_./:+][A-Za-z0-9*]+)+|"
    r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}"
)
_QUOTED = re.compile(r"[\"'`]([^\"'`]{1,80})[\"'`]")


_PLACE_OR_CURRENCY_KINDS = frozenset(
    stem(w)
    for w in "country countries region regions location jurisdiction nation territory market "
    "destination origin residence resident residency domicile home iban currency currencies ccy "
    "place places state states province city zone area".split()
)


_MEANS_KINDS = MEANS_KINDS


# A day of the week or the weekend, as staff write them ('Fri', 'sat/sun', 'weekends').
_WEEKDAY_ITEM = re.compile(
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?|week-?ends?|week-?days?",
    re.I,
)


# the plural noun of a kind, then a capitalised name joined by 'and' / 'or' / a comma to a list
_NAME_JOINED = re.compile(
    r"\b[A-Za-z][a-z]+s\s+(?P<name>[A-Z][a-z][A-Za-z0-9]*)\s*(?:,\s*|\s+and\s+|\s+or\s+|\s*&\s*)$"
)


_VERDICT_WORD = re.compile(
    r"(?:forbidden|prohibited|banned|blocked|denied|deny|refused|rejected|disallowed|off[- ]limits|"
    r"not\s+allowed|not\s+permitted|allowed|permitted|fine|ok|okay|review|needs?\s+review)",
    re.I,
)
_ELSE_AFTER = re.compile(
    r"\b(?:(?:any|every|no|some)(?:thing|one|where)\s+else|nothing\s+else|no\s+others?|"
    r"(?:any|all|every)\s+others?)\b",
    re.I,
)
# An agent id as staff write one: lowercase words joined by '-' or '_' ('payroll-agent', 'ops_bot').
_AGENT_ID_ITEM = re.compile(r"[`'\"]?[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+[`'\"]?")
# 'Only <list> [agent(s)|bot(s)] may <verb>' with an active verb: the list is the subject, who acts.
_ACTOR_MODAL_AFTER = re.compile(
    r"\s*(?:agents?|bots?|services?)?\s*(?:may|can|shall|is\s+allowed\s+to|are\s+allowed\s+to|"
    r"is\s+permitted\s+to|are\s+permitted\s+to)\s+(?!be\b|not\b|never\b)[a-z]",
    re.I,
)


def _names_who_acts(clause: str, items: list[str], region_end: int) -> bool:
    """Whether an 'only' list is the subject of an active verb and made of agent ids: who does the
    act ('Only the payroll-agent and the hr-agent may submit …'), not a value of an argument.
    Country codes, currencies and plain words ('Only US customers may …') are no agent ids."""
    if not (
        items
        and re.match(r"\s*only\b", clause, re.I)
        and all(_AGENT_ID_ITEM.fullmatch(i.strip()) for i in items)
    ):
        return False
    low = clause.lower()
    last = items[-1].strip().strip("`'\"").lower()
    at = low.find(last)
    # the list's region may run on past the ids: the modal must follow the last id itself
    if at < 0 or not _ACTOR_MODAL_AFTER.match(clause, at + len(last)):
        return False
    # and the ids are the whole subject ('Only the payroll-agent and the hr-agent may'), never a
    # value after an argument's name ('Only contacts with consent_status opted_in may receive')
    subject = low[re.match(r"\s*only\b", low).end() : at + len(last)]
    for item in items:
        subject = subject.replace(item.strip().strip("`'\"").lower(), " ")
    subject = re.sub(r"(?<![\w-])[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+(?![\w-])", " ", subject)
    return not re.sub(r"\b(?:the|agents?|bots?|and|or)\b|[,`'\"/&]", " ", subject).strip()


_BARE_NOT_BEFORE = re.compile(r"(?:^|[,;(]\s*|\b(?:and|but)\s+)not\s+(?:the\s+)?$", re.I)


def _value_list_check(
    index: int, source: str, clause: str, effect: str, review: bool, negated: bool, only: bool
) -> Check | None:
    low = clause.lower()
    items, region_start, region_end = _list_items(clause, only)
    if (
        items
        and only
        and _BARE_NOT_BEFORE.search(clause[:region_start])
        and not _outside_right_before(clause, region_start)
    ):
        # 'Only US payees, not CA payees, may be paid without review': a list under a bare
        # 'not' beside 'only' is the one held out, or the one named; no reading here is sure
        # which (read as the allow-list, CA was approved)
        return None
    if items and all(_VERDICT_WORD.fullmatch(i.strip(" .")) for i in items):
        # 'Payouts outside US/CA: forbidden': what follows the colon is the verdict, not the
        # values (read as the list 'forbidden', US was denied with every other country)
        return None
    if items and _ELSE_AFTER.search(clause[region_end:]) and not only:
        # 'Use USD or EUR, never anything else': the negation governs what lies outside the
        # list (read as a deny-list, GBP was approved); no reading here turns it
        return None
    if items and re.search(
        r"(?:^|[,;]|\b(?:and|but|or)\b)\s*(?:(?:but|and)\s+)?(?:not|never)\s+",
        clause[region_start:region_end],
        re.I,
    ):
        # 'We only pay US and CA, not MX': a negation inside the list holds a value out of it
        # (read as one list, MX was allowed with US and CA)
        return None
    if not items:
        return None
    if only and _names_who_acts(clause, items, region_end):
        # 'Only the payroll-agent and the hr-agent may submit payroll runs', 'Only the
        # payroll-agent may submit payroll runs for the US entity': the list is who acts, the
        # requesting agent, which actors.py reads when it takes the whole rule. Read here as an
        # allow-list of any argument, `approver: "hr-agent"` let ops-bot's request pass (and the
        # first id was dropped); left unread, the rule is partly understood.
        return None
    joined = _NAME_JOINED.search(clause[:region_start])
    if joined and joined.start("name") > 0:
        # 'Vendors Initech and Globex-Corp are blocked': a capitalised name joined to the list
        # after the kind's noun is one of its values (read as a word of the argument's name, it
        # let Initech pass)
        items = [joined.group("name"), *items]
        region_start = joined.start("name")
    if any(_WEEKDAY_ITEM.fullmatch(part.strip()) for i in items for part in i.split("/")):
        # 'no db migrations sat/sun': days of the week say when the act is forbidden, not a value
        # of an argument (read as one, `database` was compared with 'sat/sun' and approved)
        return None
    head = None if only or negated or review else _ALLOWED_HEAD.match(clause)
    headed = head is not None and head.end() <= region_start
    if headed:
        # 'Environments allowed: dev, qa, staging': the list after the colon is all that is
        # allowed. Read as a permission for the listed values, prod passed beside any satisfied
        # rule.
        only = True
    mode = "allow" if only else "deny"
    if only and not headed:
        # An allow-list is the list that follows 'only' / 'other than' / 'except'. A literal found
        # elsewhere ('Never attach AdministratorAccess except to break-glass roles') is what the
        # prohibition names; the exception is a condition no list reads (partly understood).
        markers = [m.end() for rx in (ONLY, OUTSIDE) for m in rx.finditer(clause)]
        trailing = re.search(r"\bonly\s*\.?$", clause[region_start:region_end], re.I) or re.match(
            r"\s+only\b", clause[region_end:], re.I
        )  # 'via SFTP only': 'only' right after the list
        if not trailing and not any(end <= region_start for end in markers):
            if not negated:
                return None
            mode = "deny"
        elif _excepted_from_permission(clause, region_start, negated):
            mode = "deny"
    if not only and not (negated or review):
        return None
    prefix = bool(
        re.search(r"\b(?:start|starting|begin|beginning|prefix|prefixed)\w*\s+(?:with\s+)?", low)
    )
    domains = [
        i for i in items if _DOMAIN.fullmatch(i.strip().lstrip("@")) or _DOMAIN.fullmatch(i.strip())
    ]
    places = [_place(i) for i in items]
    currencies = [i.upper() for i in items if i.upper() in CURRENCY_CODES and i.isupper()]
    match = "exact"
    values: tuple[str, ...]
    if any(_URI.fullmatch(i.strip()) for i in items) and all(
        _URI.fullmatch(i.strip()) or _DOMAIN.fullmatch(i.strip()) for i in items
    ):
        # 'one of: s3://acme-exports, sftp.partner-hub.net': locations, compared as a location
        # and what lies below it, or a host (checks.ValueList._in_location)
        match, values = "location", tuple(i.strip().rstrip("/").lower() for i in items)
    elif prefix:
        match, values = "prefix", tuple(i.strip() for i in items)
    elif len(domains) == len(items):
        match, values = "domain", tuple(i.strip().lstrip("@").lower() for i in items)
    elif len(currencies) == len(items):
        match, values = "currency", tuple(currencies)
    elif all(places):
        match, values = "place", tuple(p for p in places if p)
    elif any(places) and (
        2 * sum(1 for p in places if p) >= len(items)
        or _PLACE_KIND.search(clause[:region_start])
        or (
            re.search(r"\b(?:to|from|in|into)\s*$", clause[:region_start], re.I)
            and all(
                p or _PROPER_NAME.fullmatch(i.strip()) for i, p in zip(items, places, strict=True)
            )
        )
    ):
        # ---- jlist: 'High-risk jurisdictions (South Sudan, Yemen, Somalia, Haiti, Mali)': a
        # list of places some of which the vocabulary does not know. Compared as written, the
        # names missed a request that writes codes (`country: "YE"` was approved); the known
        # ones are places, the others are left unaccounted, so the rule never decides alone
        match, values = "place", tuple(p for p in places if p)
    else:
        values = tuple(i.strip() for i in items)
        if (
            mode == "deny"
            and len(values) <= 2
            and all(_LITERAL.fullmatch(v) or _QUOTED.fullmatch(v) for v in values)
        ):
            match = "contains"
    kind = _kind_words(clause, region_start, region_end)
    if only and not kind and len(items) == 1 and re.fullmatch(r"[a-z]+(?:-[a-z]+)*", items[0]):
        y = _ONLY_ONE_KIND.search(clause)
        if y and y.start("one") == region_start:
            # 'Only registered nurses may administer insulin': a plain word is said of the noun
            # after it, so it is read on the arguments named for that noun, never on any
            # argument ('patient_status: registered' satisfied the rule)
            kind = [stem(y.group("kind").lower())]
    one = _ONLY_ONE_KIND.search(clause) if only and len(items) == 1 else None
    if (
        one
        and one.start("one") == region_start
        and one.group("kind").lower() in _VALUE_NOUNS
        and re.fullmatch(r"[a-z]+(?:-[a-z]+)*", items[0])
        and not (negated or review)
    ):
        # 'Only the main branch may be deployed': one plain word of the argument the noun names,
        # compared as a word (`feature/main` only holds main; read as a list, it was approved)
        noun = _VALUE_NOUNS[one.group("kind").lower()]
        spans = [(region_start, region_end), one.span("kind")]
        terms = tuple(
            t
            for t in _terms(clause, cut_review=False, drop_spans=spans)
            if t not in _KIND_SKIP and t not in noun
        )
        return ValueList(
            index,
            source,
            "deny",
            _subject_terms(terms),
            (),
            "allow",
            (items[0],),
            "word",
            tuple(dict.fromkeys((*kind, *noun))),
        )
    if re.search(r"\b(?:via|through|using)\s+$", clause[:region_start], re.I):
        # 'Reports via courier or SFTP only': the values are means of sending, whatever the
        # subject ('reports' is not the argument `report` they constrain)
        kind = list(_MEANS_KINDS)
    # A list's own values never name the argument it constrains ('prod, pci and billing_owner').
    item_stems = _item_stems(items)
    kind = [k for k in kind if k not in item_stems]
    if (
        mode == "allow"
        and match == "exact"
        and not kind
        and len(values) == 1
        and _PLAIN_CASED.fullmatch(values[0])
        and clause[:region_start].rstrip().endswith(":")
    ):
        # 'Payouts: weekly only': one plain word with no noun naming its argument is compared
        # with every argument written alike (`payout_method: "ach"` was denied); which argument
        # the word is of is not read, so no list is made (text: review)
        return None
    if _MARKER_STEMS & set(kind):
        if match == "place" and _excepted_from_permission(clause, region_start, negated):
            # 'Wires may go anywhere except to IR, KP or SY': places excepted from a permission
            # are its deny-list, read on the request's place arguments
            kind = [k for k in kind if k not in _MARKER_STEMS]
        else:
            # 'require a CAB ticket, except for hotfixes': the word before the list is the
            # marker of an exception to another obligation, not the argument it constrains
            return None
    predicate_at = _predicate_position(clause)
    if (
        predicate_at is not None
        and predicate_at < region_start
        and re.search(
            r"\b(?:with|by|via|through|using|use|to|from)\s+(?:the\s+)?$",
            clause[:region_start],
            re.I,
        )
    ):
        # 'Parcels … can only ship with FedEx or Chronopost': the list follows a preposition, so
        # it names what the subject goes with, not the subject ('parcels' is no argument of it).
        subject = {stem(w) for w in words(clause[:predicate_at])}
        kind = [k for k in kind if k not in subject]
    drop = _item_stems(items) | set(kind) | _KIND_SKIP
    terms = tuple(
        t
        for t in _terms(clause, cut_review=review, drop_spans=[(region_start, region_end)])
        if t not in drop
    )
    if match == "place":
        terms = tuple(
            t for t in terms if t not in {"country", "region", "sanction", "outsid", "jurisdict"}
        )
    if match in ("place", "currency"):
        # a place or currency list reads the request's place or currency arguments, not an
        # argument named by its kind words: a kind word that names no place or currency
        # ('Crypto payouts to US or UK residents') qualifies the subject, which the request must
        # show or rule out, rather than being accounted for by a list that never reads it
        loose = tuple(k for k in kind if k not in _PLACE_OR_CURRENCY_KINDS)
        if loose:
            kind = [k for k in kind if k not in loose]
            terms = terms + tuple(t for t in loose if t not in terms)
    eff = "review" if review else "deny"
    return ValueList(
        index, source, eff, _subject_terms(terms), (), mode, values, match, tuple(kind)
    )


# 'Environments allowed:', 'Allowed regions:', 'Approved carriers:': a heading that says the
# list after its colon is what is allowed ('Approved by:' names who approves, no list).
_ALLOWED_WORDS = r"(?:allowed|permitted|approved|accepted|supported|whitelisted|allow-?listed)"
_ALLOWED_HEAD = re.compile(
    rf"^\s*(?:(?:the\s+)?{_ALLOWED_WORDS}\s+(?!by\b|from\b)[A-Za-z][\w\s-]{{0,40}}|"
    rf"[A-Za-z][\w\s-]{{0,40}}?\s+{_ALLOWED_WORDS})\s*:",
    re.I,
)


_JOINED_QUALIFIER = re.compile(
    r"-(?!(?:denominated|priced|based|settled|pegged|equivalent|quoted|only)\b)[a-z]{2,}"
)


# ('EU-region orders', 'US-based vendors' name a place; 'CA-hold flag' does not)
_JOINED_PLACE_QUALIFIER = re.compile(
    r"-(?!(?:region|regions|based|resident|residents|registered|domiciled|wide|only|member|"
    r"members|issued|located|incorporated|headquartered|sourced|origin|hosted|bound)\b)[a-z]{2,}"
)


# 'Only verified sellers may …', 'Only the main branch can …': one value and the noun it is said of
_ONLY_ONE_KIND = re.compile(
    r"\bonly\s+(?:the\s+)?(?P<one>[\w.\-/@*]+)\s+(?P<kind>\w+)\s+(?:may|can|is|are|should|must)\b",
    re.I,
)


def _list_items(clause: str, only: bool) -> tuple[list[str], int, int]:
    """The listed values of a clause and where they are: after ':', in '( )', after 'only … in/to'."""
    regions: list[tuple[int, int]] = []
    weak: set[tuple[int, int]] = set()
    m = re.search(r":\s*(.+)$", clause)
    if m:
        regions.append((m.start(1), m.end(1)))
    for p in re.finditer(r"\(([^)]+)\)", clause):
        regions.append((p.start(1), p.end(1)))
    o = OUTSIDE.search(clause)
    if o:
        end = re.search(
            r"\s+(?:are|is|must|may|should|shall|can|will|without|under|unless)\b",
            clause[o.end() :],
        )
        regions.append((o.end(), o.end() + end.start() if end else len(clause)))
    if only:
        via = re.search(r"\b(?:via|through|using)\s+(?P<items>[^;:]+?)\s+only\b", clause, re.I)
        if via:
            # 'Transfers via SFTP only', 'via secure portal or SFTP only': the means listed
            regions.append((via.start("items"), via.end("items")))
        y = _ONLY_ONE_KIND.search(clause)
        if y:
            regions.insert(0, (y.start("one"), y.end("one")))
        o2 = ONLY.search(clause)
        if o2:
            tail_at = o2.end()
            for prep in re.finditer(
                r"\b(?:in|to|into|for|from|with|by|on|at|of|under|target|targets|use|uses)\s+(?:the\s+following\s+\w+\s*:?\s*)?",
                clause[tail_at:],
                re.I,
            ):
                if re.search(r"\b[A-Z][\w.]*\s+$", clause[: tail_at + prep.start()]) and re.match(
                    r"of\b", prep.group(0), re.I
                ):
                    continue  # 'State Dept. of Labor': 'of' inside a name starts no list
                regions.append((tail_at + prep.end(), len(clause)))
                weak.add((tail_at + prep.end(), len(clause)))
            regions.append((tail_at, len(clause)))
            weak.add((tail_at, len(clause)))
    for start, end in regions:
        text = clause[start:end]
        items = _split_items(text)
        if _glosses_a_noun(clause, start, end, items):
            continue
        if items and all(_value_like(i) for i in items):
            if (
                len(items) == 1
                and (start, end) in weak
                and not _strong_value(items[0])
                and not (
                    _NAMED_GROUP_END.search(text)
                    and re.search(r"\b(?:limited|restricted)\s+to\s*$", clause[:start], re.I)
                )
            ):
                continue  # 'signed off by compliance' is not a one-item allow-list
            return items, start, end
    # Places named in a prohibition without list punctuation ('Payouts to Russia or Belarus are blocked').
    places = find_places(clause) or [
        c for c in re.findall(r"\b[A-Z]{2}\b", clause) if country_code(c)
    ]
    if places and NEGATION.search(clause):
        spans: list[tuple[str, int, int]] = []
        for m in re.finditer(r"[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)*", clause):
            if _JOINED_PLACE_QUALIFIER.match(clause, m.end()):
                continue  # 'CA-hold flag': a code joined to a plain word, no place
            if _place(m.group(0)):
                spans.append((m.group(0), m.start(), m.end()))
            elif _place(m.group(0).split()[0]):
                # 'Belarusian IBANs': the place is the first word of a capitalised phrase
                first = m.group(0).split()[0]
                spans.append((first, m.start(), m.start() + len(first)))
            elif " " in m.group(0):
                # 'Exclude RU and BY from all payouts': a capitalised word before the place
                # (read as one phrase, RU was lost and a payout to RU approved)
                phrase = m.group(0)
                for cut in [k.end() for k in re.finditer(r" ", phrase)]:
                    if re.fullmatch(r"[A-Z]{2,3}", phrase[cut:]) and _place(phrase[cut:]):
                        spans.append((phrase[cut:], m.start() + cut, m.end()))
                        break
        if spans:
            spans = _joined_names(clause, spans)
            return [n for n, _, _ in spans], spans[0][1], spans[-1][2]
    # Currencies named in a prohibition without list punctuation ('Trades in RUB or BYN are
    # forbidden').
    # ('SAR-filed status', 'KYC-pending': a code joined to a plain word is that word's qualifier,
    # read as a currency it made 'accounts with SAR-filed status' a rule about Saudi riyals;
    # 'USD-denominated' still names the currency)
    codes = [
        c
        for c in re.finditer(r"\b[A-Z]{3}\b", clause)
        if not _JOINED_QUALIFIER.match(clause, c.end())
    ]
    if (
        codes
        and not find_quantities(clause)  # '5,000 EUR' is an amount's currency, not a list
        and NEGATION.search(clause)
        and all(c.group(0) in CURRENCY_CODES for c in codes)
        and re.fullmatch(
            r"[A-Z]{3}(?:\s*(?:,|or|and|nor)\s*[A-Z]{3})*",
            clause[codes[0].start() : codes[-1].end()],
        )
    ):
        return [c.group(0) for c in codes], codes[0].start(), codes[-1].end()
    # A single literal in a prohibition ('must not be opened to 0.0.0.0/0', 'AdministratorAccess').
    lits = [
        m
        for m in _LITERAL.finditer(clause)
        if not re.fullmatch(r"[a-z]+(?:-[a-z]+)+", m.group(0))
        # 'Final-sale items …': a hyphenated qualifier capitalised only because it opens the rule
        and not (m.start() == 0 and re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)+", m.group(0)))
        # 'VIP-tier customers', 'KYC-pending sellers', 'EU-sanctioned entities': a word joined to
        # a plain word is a qualifier written in one token, not a name; read as one, the rule
        # checked `tier` for the text 'VIP-tier', which no request holds, and passed VIP refunds
        and not re.fullmatch(r"[A-Za-z]+(?:-[a-z]{2,})+", m.group(0))
    ]
    lits = [
        m
        for m in lits
        if not _PROSE_HYPHENATED.fullmatch(m.group(0)) and not _names_an_approver(clause, m)
    ]
    if lits:
        return _literal_run(clause, lits[0])
    q = _QUOTED.search(clause)
    if q:
        return _quoted_run(clause, q)
    return [], 0, 0


def _quoted_run(clause: str, first: re.Match[str]) -> tuple[list[str], int, int]:
    """The quoted value at `first` and the quoted values listed after it ('reason "goodwill" or
    "other"'); read alone, the first was the whole list and a refund for "other" passed. A quoted
    value listed beside plain words is one item of a list no reading here holds: nothing."""
    items, end = [first.group(1)], first.end()
    while True:
        joint = _LIST_JOINT.match(clause, end)
        if joint is None:
            return items, first.start(1), end - 1
        nxt = _QUOTED.match(clause, joint.end())
        if nxt is None:
            if re.match(r"\s*,", clause[end:]) and not re.search(
                r"\b(?:or|and|nor)\b", clause[joint.end() :]
            ):
                return items, first.start(1), end - 1
            return [], 0, 0
        items.append(nxt.group(1))
        end = nxt.end()


# 'with W-9 missing', 'MFA-TOTP disabled', 'I-9 not on file': a state said of the thing a
# literal names. Read as a list, 'W-9' was a value the request had to hold for the rule to deny,
# so the prohibition passed exactly the vendors it names (those without one).
_STATE_OF_LITERAL = re.compile(
    r"\s+(?:(?:is|are|was|were)\s+)?(?:not\b|missing|absent|expired|disabled|off\b|unsigned|"
    r"lapsed|outstanding|revoked|invalid|incomplete|unverified|pending|overdue|unavailable)",
    re.I,
)

# An argument's name as written in a rule ('payment_status'), and a plain word right after it
# that is no verb or modal (a value of it: 'payment_status failed').
_ARGUMENT_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_VALUE_FOLLOWS = re.compile(
    r"\s+(?!(?:is|are|must|may|can|cannot|should|shall|will|need|needs|require|requires|has|have|"
    r"and|or|to|in|on|of|for|by|with|from|at)\b)[A-Za-z0-9]",
    re.I,
)

# What joins the items of a list: ', ', ', or ', ' and ', ' nor '.
_LIST_JOINT = re.compile(r"\s*,\s*(?:(?:and|or|nor)\s+)?|\s+(?:and|or|and/or|nor)\s+", re.I)


def _literal_run(clause: str, first: re.Match[str]) -> tuple[list[str], int, int]:
    """The literal at `first` and the literals listed after it ('gmail.com or yahoo.com
    domains'). Read alone, the first literal was the whole list: the rule was "understood" and
    the later names, left as words the request had to show, let yahoo.com through. A literal
    listed beside plain words ('AdministratorAccess or admin policies') is one item of a list no
    reading here holds: nothing is read."""
    items, end = [first.group(0)], first.end()
    while True:
        joint = _LIST_JOINT.match(clause, end)
        if joint is None:
            if _STATE_OF_LITERAL.match(clause, end):
                return [], 0, 0  # 'vendors with W-9 missing': what is missing, not a value
            if (
                len(items) == 1
                and _ARGUMENT_NAME.fullmatch(items[0])
                and _VALUE_FOLLOWS.match(clause, end)
            ):
                # 'Orders with payment_status failed or pending': the argument whose values are
                # listed after it; read as the one value, the rule checked `orders` for the
                # text 'payment_status' and passed every failed payment
                return [], 0, 0
            return items, first.start(), end
        nxt = _LITERAL.match(clause, joint.end())
        if nxt is None:
            if re.match(r"\s*,", clause[end:]) and not re.search(
                r"\b(?:or|and|nor)\b", clause[joint.end() :]
            ):
                return items, first.start(), end  # 'to 10.0.0.0/8, which ...': a comma, no list
            return [], 0, 0
        items.append(nxt.group(0))
        end = nxt.end()


# 'GPU instances need FinOps approval', 'approved by FinOps': the name of who approves, never a
# value the request carries (read as a one-item list it made the rule "understood" and satisfied)
_APPROVER_AFTER = re.compile(
    r"\s+(?:approval|approvals|sign[- ]?offs?|review|reviews|ok|okay|consent|authori[sz]ation|"
    r"go-ahead|clearance|permission)\b",
    re.I,
)
_APPROVER_BEFORE = re.compile(
    r"\b(?:(?:approved|approval|signed[- ]off|sign[- ]?off|reviewed|review|authori[sz]ed|"
    r"authori[sz]ation|cleared|ok'?d|ok|okay|go-ahead|green[- ]light|consent|permission|"
    r"clearance|blessing)\s+(?:by|from)|"
    # 'requires OK from SecOps', 'with the consent of the DPO': who gives it, never a value
    r"(?:approval|sign[- ]?off|ok|okay|go-ahead|consent|permission|blessing)\s+of)"
    r"\s+(?:the\s+)?$",
    re.I,
)


def _names_an_approver(clause: str, m: re.Match[str]) -> bool:
    """True when the literal at `m` names the person or team who approves, not a value."""
    return bool(
        _APPROVER_AFTER.match(clause, m.end()) or _APPROVER_BEFORE.search(clause[: m.start()])
    )


def _glosses_a_noun(clause: str, start: int, end: int, items: list[str]) -> bool:
    """'claims flagged for SIU (fraud) investigation': plain words in brackets inside a noun
    phrase say what a word means; they list no values (read as a list, 'fraud' was a value no
    request carries, so the rule was "understood" and never fired)."""
    if start == 0 or clause[start - 1] != "(" or len(items) != 1:
        return False  # several words listed in brackets are values ('(business, first) class')
    if re.fullmatch(r"[A-Z]{2,6}", items[0]):
        return _glosses_by_acronym(clause, start, items[0])
    if not re.fullmatch(r"[a-z]+(?:-[a-z]+)*", items[0]):
        return False  # ('the DNC (do-not-call) list': words joined by hyphens gloss it as well)
    return _runs_on(clause, end + 1)


def _glosses_by_acronym(clause: str, start: int, acronym: str) -> bool:
    """'card numbers (PAN) or CVV', 'patients with restricted (VIP) status': one capitalised
    abbreviation in brackets names the words before it; read as the value of an argument named
    by them ('card numbers is PAN'), the rule was "understood" and no request ever held it. A
    code of a place or currency after its kind ('sanctioned countries (KP)', 'currency (RUB)')
    or after a place's name ('North Korea (KP)') is still a value."""
    if acronym in CURRENCY_CODES or (len(acronym) == 2 and country_code(acronym)):
        return False
    before = re.findall(r"[A-Za-z]+", clause[: start - 1])
    if not before:
        return False
    last = before[-1]
    return stem(last.lower()) not in _PLACE_OR_CURRENCY_KINDS and not _place(last)


# 'limited to the development team': one name followed by the kind of group it names
_NAMED_GROUP_END = re.compile(
    r"^\s*(?:the\s+)?[a-z][a-z\-]*\s+(?:team|tier|plan|group|desk)\s*\.?$", re.I
)


def _split_items(text: str) -> list[str]:
    text = re.sub(
        r"\s+(?:are|is|must|may|should|shall|can|will|need|needs|require|requires)\b.*$",
        "",
        text,
        flags=re.I,
    )
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|and/or|nor)\s+", text)
    out = []
    for p in parts:
        p = re.sub(r"^(?:the|a|an)\s+", "", p.strip(" .;:'\""), flags=re.I)
        p = re.sub(
            r"\s+(?:format|formats|addresses|address|domains?|environments?|regions?|branch|branches|clusters?|groups?|accounts?|only|currencies|countries|"
            r"members|tiers?|teams?|plans?|levels?|classes|networks?|chains?|platforms?|carriers?)$",
            "",
            p,
            flags=re.I,
        )
        halves = p.split("/")
        if len(halves) > 1 and all(_place(h) for h in halves):
            out.extend(halves)  # 'EU/EEA': either region, each read as the places it names
        elif p:
            out.append(p)
    return out


# 'State Dept. of Labor', 'Bank of the West': a proper name with a joining word inside
_JOINED_NAME = re.compile(
    r"[A-Z][\w&.\-]*(?: (?:of|for|de)(?: the)? [A-Z][\w&.\-]*| [A-Z][\w&.\-]*)+"
)


def _value_like(item: str) -> bool:
    i = item.strip()
    if _URI.fullmatch(i):
        return True  # 's3://acme-exports', 'sftp://files.acme.com/in'
    if len(i.split()) <= 6 and len(i) <= 60 and _JOINED_NAME.fullmatch(i):
        return True
    if not i or len(i) > 60 or len(i.split()) > 3:
        return False
    if _DOMAIN.fullmatch(i.lstrip("@")) or _LITERAL.fullmatch(i) or _place(i):
        return True
    if i.isupper() and 2 <= len(i) <= 5:
        return True
    if re.fullmatch(
        r"[A-Z][\w&.\-]*(?: [A-Z][\w&.\-]*)*", i
    ):  # Proper names: 'Umbrella Corp', 'Parquet'
        return True
    if (
        re.fullmatch(r"[a-z][a-z0-9\-]*", i)
        and i not in STOPWORDS
        and stem(i) not in VERBS
        and stem(i) not in GENERIC
    ):
        return True
    return False


def _strong_value(item: str) -> bool:
    i = item.strip()
    return bool(
        _DOMAIN.fullmatch(i.lstrip("@"))
        or _LITERAL.fullmatch(i)
        or _place(i)
        or (i.isupper() and 2 <= len(i) <= 5)
        or re.fullmatch(r"[A-Z][\w&.\-]*(?: [A-Z][\w&.\-]*)*", i)
    )


_PLACE_KIND = re.compile(
    r"\b(?:countr(?:y|ies)|jurisdictions?|destinations?|nations?|territor(?:y|ies))\W*$", re.I
)


_PROPER_NAME = re.compile(r"[A-Z][a-z]+(?:[ \-][A-Z][a-z]+){0,3}")
_LIST_JOINER = re.compile(r"\s*(?:,\s*(?:(?:or|and)\s+)?|\s(?:or|and|nor)\s+|\s*/\s*)")


def _joined_names(clause: str, spans: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """`spans` (places named in `clause`) with the capitalised names written in one list with
    them. jlist: 'Never ship to Yemen, Haiti or Mali' held Haiti and Mali, which the vocabulary
    does not know, as words of the subject, and approved a shipment to HT; in the list they
    are members the place check cannot compare, so they stay unaccounted."""
    out = sorted(spans, key=lambda x: x[1])
    names = [
        m
        for m in re.finditer(r"[A-Z][A-Za-z]+(?:[ \-][A-Z][A-Za-z]+)*", clause)
        if _PROPER_NAME.fullmatch(m.group(0))
    ]
    grown = True
    while grown:
        grown = False
        for m in names:
            if any(s <= m.start() < e for _, s, e in out):
                continue
            if any(
                _LIST_JOINER.fullmatch(clause[e : m.start()])
                or _LIST_JOINER.fullmatch(clause[m.end() : s])
                for _, s, e in out
            ):
                out = sorted([*out, (m.group(0), m.start(), m.end())], key=lambda x: x[1])
                grown = True
    return out


def _place(item: str) -> str | None:
    i = item.strip()
    code = country_code(i) if (len(i) != 2 or i.isupper()) else None
    if code:
        return code
    return region_name(i)


_MARKER_STEMS = frozenset(stem(w) for w in ("except", "unless", "excepting"))


def _kind_words(clause: str, start: int, end: int) -> list[str]:
    before = [stem(w) for w in words(clause[:start]) if w not in STOPWORDS]
    before = [
        w for w in before if w not in _KIND_SKIP and w not in _EFFECT_STEMS and w not in GENERIC
    ]
    nouns = [w for w in before if w not in VERBS or w in _KIND_NOUNS][-2:]
    after = [stem(w) for w in words(clause[end : end + 25]) if w not in STOPWORDS][:1]
    inside = [stem(w) for w in words(clause[start:end]) if stem(w) in _KIND_NOUNS]
    kind = nouns + [w for w in after + inside if w in _KIND_NOUNS]
    if "typ" in kind or "type" in kind:
        pass
    return kind


def _inside_literal(clause: str, q: Quantity) -> bool:
    for m in _LITERAL.finditer(clause):
        if m.start() <= q.start < m.end():
            return True
    # '501(c)(3)', '17(a)': a legal section is a name, not a number
    for m in _SECTION.finditer(clause):
        if m.start() <= q.start + 1 < m.end() or m.start() <= q.start < m.end():
            return True
    return False


_SECTION = re.compile(r"\b\d+(?:\([a-z0-9]{1,3}\))+")


_ARG_LIST = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)


def _required_checks(index: int, source: str, clause: str, review: bool) -> list[Check]:
    """Required arguments; 'must include a legal_basis and a requester_id' requires both;
    '… is required (it must say what the work was for)' requires a value that can say it."""
    says = SAYS_REMARK.search(clause)
    if says:
        made = _required_checks(index, source, SAYS_REMARK.sub("", clause), review)
        if len(made) == 1 and type(made[0]) is RequiredArgument:
            return [replace(made[0], says=says.group("what").strip())]
        return []
    m = _REQUIRED.search(_FIELD_NAME.sub("", clause).strip())
    if m and not _FIELD_NAME.search(clause):
        head = clause[: m.start("arg")]
        parts = [x for x in _ARG_LIST.split(m.group("arg")) if x.strip()]
        last = parts[-1].split() if parts else []
        if len(parts) > 1 and len(last) == 2 and all(len(x.split()) == 1 for x in parts[:-1]):
            # 'originator and beneficiary names': the head noun is shared by every part
            parts = [f"{x.strip()} {last[-1]}" for x in parts[:-1]] + [parts[-1]]
        if len(parts) > 1 and all(len(words(x)) <= 4 for x in parts):
            made = [_required_check(index, source, head + part, review) for part in parts]
            if all(made):
                return [c for c in made if c is not None]
    either = _either_reference(index, source, clause, review)
    if either is not None:
        return [either]
    n = None if m or review else _REQUIRED_NEED.search(_FIELD_NAME.sub("", clause).strip())
    if n and not _FIELD_NAME.search(clause):
        # 'evidence submissions need the order id AND tracking number': two references, each a
        # noun ending in an identifier word, are two requirements (read as one name, neither
        # argument matched it)
        parts = [x.strip() for x in _ARG_LIST.split(n.group("arg")) if x.strip()]
        if len(parts) > 1 and all(
            len(words(x)) <= 4 and _ENDS_IN_REFERENCE.search(x) for x in parts
        ):
            head = clause[: n.start("arg")]
            det = re.match(r"(?:a|an|the)\s+", parts[0], re.I)
            if det:  # 'the order id and tracking number': the article is shared
                parts = [
                    x if re.match(r"(?:a|an|the)\s", x, re.I) else det.group(0) + x for x in parts
                ]
            made = [_required_check(index, source, head + part, review) for part in parts]
            if all(isinstance(c, RequiredArgument) for c in made):
                return [c for c in made if c is not None]
    one = _required_check(index, source, clause, review)
    return [one] if one else []


# a reference is a noun ending in a word for an identifier ('the order id', 'tracking number',
# 'a support ticket', 'the original charge identifier')
_ENDS_IN_REFERENCE = re.compile(
    r"\b(?:id|ids|identifier|number|no|ref|reference|ticket|code)\.?\s*$", re.I
)
_EITHER_REFERENCE = re.compile(
    r"^(?P<head>.*?\b(?:must|shall|should|needs? to|has to|have to)\s+(?:always\s+)?"
    r"(?:reference|cite|quote|include|carry|state|give|provide|specify)\s+)"
    r"(?:either\s+)?(?P<a>(?:a|an|the|its)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})\s+or\s+"
    r"(?P<b>(?:(?:a|an|the|its)\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})\s*\.?\s*$",
    re.I,
)


def _either_reference(index: int, source: str, clause: str, review: bool) -> Check | None:
    """'Credits must reference a support ticket or the invoice number': either reference meets
    the obligation (AnyReference); each side must be a noun ending in an identifier word with a
    determiner of its own, and each must read as a required argument on its own."""
    m = _EITHER_REFERENCE.match(clause.strip())
    if not m or _FIELD_NAME.search(clause):
        return None
    sides = (m.group("a"), m.group("b"))
    det = re.match(r"(?:a|an|the|its)\s+", sides[0], re.I)
    if det and not re.match(r"(?:a|an|the|its)\s", sides[1], re.I):
        sides = (sides[0], det.group(0) + sides[1])  # 'a ticket id or invoice no.': shared
    if not all(_ENDS_IN_REFERENCE.search(x) for x in sides):
        return None
    made = [_required_check(index, source, m.group("head") + x, review) for x in sides]
    if not all(type(c) is RequiredArgument and not c.unverifiable for c in made):
        return None
    first = made[0]
    assert first is not None
    return AnyReference(
        index, source, first.effect, first.terms, first.alternatives, options=tuple(made)
    )


_FLAG_WORDS = frozenset({"flag", "checkbox", "toggle"})
_GIVEN_WORDS = frozenset(
    "populated filled provided supplied entered specified given stated included captured "
    "recorded".split()
)
_CLOSING_PARTICIPLE = re.compile(r"\b(?P<noun>[A-Za-z]{3,}[^s\W]s)\s+[a-z]{3,}ed\s*$")


_OWNER = re.compile(
    r"(?P<owner>[A-Za-z]+)['’]s\s+(?P<head>[A-Za-z\- ]+?)\s*$|"
    r"^(?P<head2>.*?)\s+(?:to|of|from|for|by|with)\s+(?:the\s+|an?\s+)?(?P<owner2>[A-Za-z]+)\b",
    re.I,
)


def _names_owner_only(phrase: str, exact: str) -> bool:
    """Whether the phrase asks for a thing of the argument's owner, not the argument: 'the
    customer's export licence' beside `customer_id`, 'a callback to the beneficiary' beside
    `beneficiary_id`. Read as "`customer_id` is given", the licence was never checked and the
    request approved (jred20); left unread, the rule goes to review."""
    own = {stem(w) for w in re.split(r"[_.]+", exact.lower()) if w}
    p = re.sub(r"[\s\-–—:;,()`]+$", "", re.sub(r"\(\s*`?\s*`?\s*\)", " ", phrase).strip())
    m = _OWNER.search(p)
    if m is None:
        return False
    owner = m.group("owner") or m.group("owner2") or ""
    head_words = words(m.group("head") or m.group("head2") or "")
    head = [w for w in head_words if w.lower() not in STOPWORDS]
    if not head or stem(owner.lower()) not in own:
        return False
    return stem(head[-1].lower()) not in own


def _required_check(index: int, source: str, clause: str, review: bool) -> Check | None:
    field_name = _FIELD_NAME.search(clause)
    text = _FIELD_NAME.sub("", clause).strip()
    m = _REQUIRED.search(text) or _REQUIRED_AS.search(text)
    if not m and not review:
        m = _REQUIRED_NEED.search(text) or _REQUIRED_IS.search(text)
    if m:
        arg_phrase = m.group("arg").strip()
        exact = field_name.group(1) if field_name else ""
        ident = _IDENTIFIER.search(arg_phrase)
        if not exact and ident:
            exact = ident.group(1)
        if exact and _names_owner_only(_IDENTIFIER.sub(" ", arg_phrase), exact):
            return None
        # 'a successful test run', 'a compliance check to pass': the outcome the thing must have,
        # which only a value stating it shows (never the mere presence of an id or a code)
        # 'a W-9', 'an I-9 form', 'the DS-160': a form's code is one word (`w9_on_file`)
        arg_phrase = _FORM_CODE.sub(lambda f: f.group(1) + f.group(2), arg_phrase)
        outcomes = [
            _OUTCOME_PARTICIPLE.get(o.group("word").lower(), o.group("word").lower())
            for o in _OUTCOME.finditer(arg_phrase)
        ]
        arg_phrase = _OUTCOME.sub(" ", arg_phrase)
        on_file = re.search(r"\s+on file\s*$", arg_phrase, re.I)
        if on_file:
            arg_phrase = arg_phrase[: on_file.start()]
        arg_phrase = _PREPOSITIONS.sub("", arg_phrase)
        # 'the services touched', 'the accounts affected': the participle only points back
        arg_phrase = re.sub(
            r"\s+(?:touched|affected|impacted|involved|concerned|changed)\s*$", "", arg_phrase
        )
        arg_phrase = re.sub(r"\b\d+\([a-z0-9]\)(?:\([a-z0-9]\))*", " ", arg_phrase)  # '501(c)(3)'
        raw = [w for w in words(arg_phrase) if w not in STOPWORDS and w not in _FIELD_WORDS]
        if len(raw) > 1 and raw[-1] in _FLAG_WORDS and not exact and not outcomes:
            # 'a contractor flag': a yes/no argument named by the words before it must be on
            # (`contractor: true`); read as a name, no argument was called 'contractor flag'
            subject = text[: m.start()] if m.re is not _REQUIRED_IS else ""
            # ('Contractors … a contractor flag': the subject names the flag, so the flag off
            # says the request is no contractor's and the rule does not apply; its words stay
            # subject words)
            flag = tuple(stem(w) for w in raw)
            terms = _subject_terms(_terms(subject, cut_review=False))
            return RequiredFlag(index, source, "deny", terms, (), flag)
        unverifiable = tuple(w for w in raw if w in _UNVERIFIABLE) + tuple(outcomes)
        if on_file:
            unverifiable += ("on file",)
        arg_words = tuple(stem(w) for w in raw if w not in _UNVERIFIABLE and not w.isdigit())
        if not arg_words and not exact:
            return None
        subject = text[: m.start()] if m.re is not _REQUIRED_IS else ""
        terms = _subject_terms(
            tuple(t for t in _terms(subject, cut_review=False) if t not in arg_words)
        )
        # 'require a source-of-funds check': a check is something done, not a value sent; when
        # no argument shows it, a human decides (never a denial for a missing field)
        activity = bool(raw) and raw[-1] in _ACTIVITY_NOUNS and not exact
        if activity and not unverifiable:
            # a check asked for is one that was done and came out well: an id or a reference
            # of it shows neither (a value stating 'passed' or 'completed' does)
            unverifiable = ("completed",)
        # 'the policy sections violated', 'the hours worked': a closing participle after a
        # plural noun qualifies it; the argument is named for the noun (`policy_sections`)
        closing = _CLOSING_PARTICIPLE.search(arg_phrase)
        head_word = stem(closing.group("noun").lower()) if closing else ""
        required = RequiredArgument(
            index,
            source,
            "review" if activity else "deny",
            terms,
            (),
            arg_words,
            exact,
            unverifiable,
            head_word if head_word in arg_words[:-1] else "",
        )
        return _state_flag(index, source, terms, arg_words, unverifiable, arg_phrase, required)
    f = _FLAG.search(clause)
    if f and f.group("adj").lower() in _GIVEN_WORDS:
        # 'beneficial_owner must be populated', 'the manager must be filled in': being given is
        # no yes/no state (read as a flag 'populated', it sent every request to review and was
        # labelled understood); _required_phrasings reads the plain ones as required arguments
        return None
    if f and not review and f.group("adj").lower() in _FLAGGABLE:
        # 'Identity must be verified (before releasing data)': a yes/no argument shows it
        subject = _terms(clause[: f.start()], cut_review=False)
        tail = re.match(r"\s+before\s+(?P<what>[a-z]+ing(?:\s+[a-z]+){0,2})\s*$", clause[f.end() :])
        if subject and (tail or not clause[f.end() :].strip()):
            extra = _terms(tail.group("what"), cut_review=False) if tail else ()
            adj = f.group("adj").lower()
            # the subject names the flag (`identity_verified`): a flag that is off must not make
            # the rule look absent, so its words are the flag's, not the subject's
            return _state_flag(
                index,
                source,
                _subject_terms(tuple(t for t in extra if t not in subject)),
                subject,
                (adj,),
                clause[: f.start()],
                None,
            )
    if f and not review and f.group("adj").lower() not in _UNVERIFIABLE:
        adj = stem(f.group("adj"))
        if adj in VERBS and adj not in {"encrypt", "sign", "enabl", "activ"}:
            return None
        terms = _subject_terms(
            tuple(t for t in _terms(clause[: f.start()], cut_review=False) if t != adj)
        )
        if adj in ("enabl", "activ"):
            # 'MFA must be enabled': the flag is the subject's own (`mfa_enabled`, `mfa`), never
            # any other switch that happens to be called enabled.
            subject = tuple(t for t in _terms(clause[: f.start()], cut_review=False))
            if not subject:
                return None
            # '… for console users': whom it is for is what the rule is about (a subject word).
            # The subject names the flag itself, so an `mfa_enabled: false` must not make the
            # rule look absent: its words are the flag's, not the subject's.
            tail = re.match(r"\s+for\s+(?P<who>[^,;]+)$", clause[f.end() :], re.I)
            terms = _subject_terms(_terms(tail.group("who"), cut_review=False)) if tail else ()
            return RequiredFlag(index, source, "deny", terms, (), (*subject, adj))
        return RequiredFlag(index, source, "deny", terms, (), (adj,))
    w = _WITHOUT_FLAG.search(clause)
    if w and not review and NEGATION.search(clause[: w.start()]):
        flag = tuple(stem(x) for x in words(w.group("flag")) if x not in STOPWORDS)
        tail = clause[w.end("flag") :]
        if "enabl" not in flag and re.search(r"enabled|turned on", tail, re.I):
            flag = flag + ("enabl",)
        if not flag:
            return None
        terms = _subject_terms(
            tuple(t for t in _terms(clause[: w.start()], cut_review=False) if t not in flag)
        )
        return RequiredFlag(index, source, "deny", terms, (), flag)
    return None


# Outcome words inside a required thing's phrase: 'a successful test run', 'a compliance check to
# pass', 'a screening that has cleared'.
_OUTCOME = re.compile(
    r"\b(?P<word>successful|successfully\s+completed|passed|passing|cleared|satisfactory|"
    r"favou?rable|(?<=\bto\s)(?:pass|succeed|clear))\b",
    re.I,
)
_FORM_CODE = re.compile(r"\b([A-Za-z]{1,3})-(\d{1,4})\b")
_OUTCOME_PARTICIPLE = {"pass": "passed", "succeed": "succeeded", "clear": "cleared"}
_ACTIVITY_NOUNS = frozenset(
    "check checks screening verification assessment inspection diligence background".split()
)
# States a yes/no argument can show ('email_verified', 'charity_registered', 'letter_on_file');
# an approval or a signature is a person's act and stays review.
_FLAGGABLE = frozenset(
    "verified registered confirmed certified licensed vetted insured accredited consented "
    "enrolled validated".split()
)


def _state_flag(
    index: int,
    source: str,
    terms: tuple[str, ...],
    what: tuple[str, ...],
    states: tuple[str, ...],
    phrase: str,
    fallback: Check | None,
    forbid: bool = False,
) -> Check | None:
    """A StateFlag for the one flaggable state of `states`, else `fallback` unchanged."""
    flaggable = [s for s in states if s in _FLAGGABLE or s == "on file"]
    others = [s for s in states if s not in flaggable and s != "current"]
    if len(flaggable) != 1 or others:
        return fallback
    state = flaggable[0]
    drop = STOPWORDS | {x.lower() for x in states} | {"current"}
    words_ = " ".join(w for w in re.findall(r"[A-Za-z][\w\-]*", phrase) if w.lower() not in drop)
    return StateFlag(
        index,
        source,
        "deny",
        terms,
        (),
        state=stem(state.split()[-1]),
        flag_words=tuple(w for w in what if w not in terms) or what,
        phrase=f"the {words_} is {state}" if not forbid else f"the {words_} are {state}",
        forbid=forbid,
        fallback=fallback,
    )


_DEFINED_BY_BRACKET = re.compile(
    r"^\s*(?P<noun>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s*\((?P<items>[^()]*,[^()]*)\)"
)


def _action_terms(clause: str, review: bool) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    text = clause
    alts: list[tuple[str, str]] = []
    chains: list[tuple[str, ...]] = []
    for m in re.finditer(r"\b([a-z]+)((?:\s*,\s*[a-z]+)*)\s*,?\s+or\s+([a-z]+)\b", text, re.I):
        a, b = stem(m.group(1)), stem(m.group(3))
        middle = tuple(stem(w) for w in re.findall(r"[a-z]+", m.group(2), re.I))
        if middle:
            # 'closed, frozen or dormant': every item of a chain is one of the alternatives.
            # Read as the pair of its ends, a middle item ('frozen') became a word every request
            # had to show beside one of the ends, so a dormant account passed the rule. In a
            # chain of three or more, a word that could say the rule's effect ('blocked, frozen
            # or inactive') is a listed state: the effect is said elsewhere.
            chain = (a, *middle, b)
            if any(w in STOPWORDS or w in GENERIC for w in chain):
                continue
            chains.append(tuple(dict.fromkeys(chain)))
            continue
        if a in STOPWORDS or b in STOPWORDS or a in GENERIC or b in GENERIC:
            continue
        if a in _EFFECT_STEMS or b in _EFFECT_STEMS:
            continue
        alts.append((a, b))
        # 'political campaigns or lobbying': the adjective belongs to the first noun only, so it
        # is one more way of matching the pair, never a word every request must show
        adj = re.search(r"\b([a-z]{3,}(?:al|ic|ive|ous|ary|ed))\s+$", text[: m.start(1)], re.I)
        if adj:
            s_adj = stem(adj.group(1).lower())
            if s_adj not in STOPWORDS and s_adj not in GENERIC and s_adj not in VERBS:
                alts.append((s_adj, b))
    paren = re.search(r"\(([^)]+)\)", text)
    terms = list(_terms(text, cut_review=review))
    if re.search(r"\bread[- ]only\b", text, re.I):
        terms = [t for t in terms if t not in {"read", "only", "oper"}]
        verbs = tuple(
            stem(w)
            for w in (
                paren.group(1).split(",") if paren else ["read", "get", "list", "describe", "view"]
            )
        )
        verbs = tuple(v.strip() for v in verbs if v.strip())
        if len(verbs) >= 2:
            alts.append((verbs[0], verbs[1]))
            terms = [t for t in terms if t not in verbs]
            # more than two read verbs: any of them will do
            for extra in verbs[2:]:
                alts.append((verbs[0], extra))
    defined = _DEFINED_BY_BRACKET.match(text)
    if review and defined and (alts or chains) and " or " in f" {defined.group('items')} ":
        # 'Adverse actions (denial, or conditional approval) require review': the bracket says
        # which requests the noun names, so the request shows one of them or none; the noun
        # itself is no word the request must show as well.
        named = {stem(w) for w in words(defined.group("noun"))}
        terms = [t for t in terms if t not in named]
    alt_words = {w for pair in alts for w in pair} | {w for chain in chains for w in chain}
    if alts and not chains:
        # Collapse a chain 'list, get or describe' into pairs that all share the first word.
        merged: dict[str, set[str]] = {}
        for a, b in alts:
            merged.setdefault(a, set()).add(b)
        alts = [(a, b) for a, bs in merged.items() for b in sorted(bs)]
        if len(merged) == 1:
            first = next(iter(merged))
            group = (first, *sorted(merged[first]))
            terms = [t for t in terms if t not in group]
            return _subject_terms(tuple(terms)), tuple((group[0], g) for g in group[1:])
    terms = [t for t in terms if t not in alt_words]
    # a chain is one group: any one of its items will do
    return _subject_terms(tuple(terms)), tuple(alts) + tuple(chains)  # type: ignore[arg-type]


def _predicate_position(clause: str) -> int | None:
    m = re.search(
        r"\b(must|shall|should|may|might|can|cannot|can't|could|will|won't|need|needs|require|requires|"
        r"required|is|are|goes|go|has to|have to|never|do not|don't|does not|doesn't)\b",
        clause,
        re.I,
    )
    return m.start() if m else None


def _terms(
    text: str, cut_review: bool, drop_spans: list[tuple[int, int]] | None = None, drop: tuple = ()
) -> tuple[str, ...]:
    """Meaningful stems of `text` that say what a rule is about (not its effect or its numbers)."""
    t = text
    for start, end in sorted(drop_spans or [], reverse=True):
        t = t[:start] + " " + t[end:]
    if cut_review:
        r = REVIEW.search(t)
        if r:
            head = t[: r.start()]
            p = re.search(
                r"\b(must|shall|should|require|requires|required|need|needs|needed|goes|go|is subject|are subject|"
                r"has to|have to|without|get|gets|are|is)\b(?!.*\b(must|shall|should|require|requires|need|needs|goes|without)\b)",
                head,
                re.I,
            )
            t = head[: p.start()] if p else head
    for _, rx in _WINDOWS:
        t = rx.sub(" ", t)
    t = re.sub(r"\([^)]*\)", " ", t) if "(" in t and ")" in t else t
    for q in find_quantities(t):
        t = t[: q.start] + " " * (q.end - q.start) + t[q.end :]
    t = _REFUSAL_END.sub(" ", t)  # '… are refused': the effect, not the subject
    # 'annual discounts', 'quarterly rebates': a kind of the thing (a plan's interval), not a
    # period a total is taken over (no window regex reads 'annual'): a subject word. Dropped as
    # a function word ('annual' stems like 'annually'), the rule governed monthly discounts too.
    kinds = {stem(m.group(1)) for m in _PERIOD_KIND.finditer(t)}
    # 'Hard deletes', 'Automated trades', 'strict-mode changes': a kind of the act before the
    # noun naming it, not the rule's force ('hard limit', 'auto-approved', 'strictly'). Dropped
    # as a function word, 'Hard deletes are prohibited' denied a soft delete and 'Automated
    # trades are prohibited' a manual trade (red team jred26).
    kinds.update(
        stem(m.group(1))
        for m in _ACT_KIND.finditer(t)
        if (nxt := stem(m.group(2).lower())) not in _EFFECT_STEMS
        and nxt not in GENERIC
        and nxt not in _KIND_NOT_NOUN
    )
    # 'Overrides of hard limits', 'changes to soft caps': the limit is the thing acted on, and
    # its kind says which ('Deny requests about overrides' had denied a soft-limit override)
    for m in _LIMIT_KIND.finditer(t):
        kinds.update((stem(m.group(1).lower()), stem(m.group(2).lower())))
    out = []
    for s in content_stems(t):
        if s in kinds:
            out.append(s)
            continue
        if s in GENERIC or s in _EFFECT_STEMS or s.isdigit() or len(s) < 2 and s not in ("to",):
            continue
        if s in _AUTO_STEMS:
            continue  # 'approved automatically', 'may be processed automatically': the effect
        out.append(s)
    return tuple(dict.fromkeys(out))


_AUTO_STEMS = frozenset(stem(w) for w in ("automatically", "auto"))


_REFUSAL_END = re.compile(
    r"\b(?:is|are|will\s+be|get|gets)\s+(?:refused|rejected|declined|denied)(?=\s*[.;!]?\s*$)", re.I
)
_PERIOD_KIND = re.compile(r"\b(annual|quarterly)\s+(?=[a-z]{3,})", re.I)
# a kind of the act staff write before its noun that the effect words also hold ('hard limit')
_ACT_KIND = re.compile(r"\b(hard|soft|automated|automatic|strict)[\s-]+([a-z]{3,})\b", re.I)
_LIMIT_KIND = re.compile(
    r"\b(?:of|to|on|for|against)\s+(?:the\s+|all\s+|any\s+)?(hard|soft)\s+(limits?|caps?|quotas?)\b",
    re.I,
)
_KIND_NOT_NOUN = frozenset(
    stem(w) for w in "stop line rule requirement and or approved approval renewed applied".split()
)


def _subject_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t for t in terms if t not in ("to", "out", "via"))


# -- Approvals evidenced in the request ------------------------------------------------------
# 'need Treasury sign-off', 'require a manager's approval', '-> procurement lead approval',
# 'the transport manager's OK', 'an SRE approver': the act a person does, and who does it.
_APPROVAL_ACT = r"(?:approvals?|approver|sign[\s-]?offs?|signoff|OK|okay|authori[sz]ation)"
_EVIDENCE_NAME = r"`?(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?"
# '… approval (chair_approval_ref)', '… an SRE approver listed (sre_approver)'
_EVIDENCE_BRACKET = re.compile(
    r"(?P<act>\b" + _APPROVAL_ACT + r")(?:\s+(?:listed|required|needed|recorded|attached))?"
    r"\s*\(\s*" + _EVIDENCE_NAME + r"\s*\)"
)
# '- put the approval ticket in treasury_approval_id', '; reference it in finance_signoff_id',
# ', evidenced by the approval reference in controller_approval_ref'
_EVIDENCE_TAIL = re.compile(
    r"\s*(?:[-\u2013\u2014;,:]|=>|->)\s*(?:and\s+)?(?:please\s+)?"
    r"(?:(?:put|record|reference|enter|log|cite|quote|include|add|note|give)\s+"
    r"(?P<what>it|them|(?:the|an?|its|their)\s+(?:[a-z'\-]+\s+){0,3}?"
    r"(?:ticket|id|reference|ref|number|record|approval|sign-off|signoff))"
    r"|(?:as\s+)?evidenced\s+by\s+(?P<by>(?:the|an?|its)\s+(?:[a-z'\-]+\s+){0,3}?"
    r"(?:ticket|id|reference|ref|number|record)))"
    r"\s+(?:in|into|under|as)\s+(?:the\s+)?" + _EVIDENCE_NAME + r"(?:\s+(?:field|argument))?"
    r"\s*\.?\s*$",
    re.I,
)
# 'journal entries over $100,000 => controller_approval_id required': the name is the approval
_EVIDENCE_PSEUDO = re.compile(
    r"(?P<lead>\s*(?:=>|->|:)\s*)" + _EVIDENCE_NAME + r"\s+(?P<must>required|mandatory|needed)"
    r"\s*\.?\s*$"
)
# '…, which must be evidenced in the request', '(evidenced in the request)'
_EVIDENCED_HERE = re.compile(
    r"\s*,?\s*(?:which|that)\s+(?:must|shall|should)\s+be\s+(?:evidenced|shown|recorded|cited)"
    r"\s+in\s+the\s+request\s*(?=\.?\s*$)",
    re.I,
)
# who approves: the words before the act ('Treasury sign-off', "a finance manager's sign-off")
# or after it ('approval from the Security team', 'the written approval of a payments manager')
_GIVER_BEFORE = re.compile(
    r"(?:\bneeds?|\brequires?|\brequired|\bsubject\s+to|\bfollowing|\bgets?|->|=>|\bwith)\s+"
    r"(?:(?:the|an?|prior|written|explicit)\s+)*(?P<who>(?:[A-Za-z][\w\-]*(?:'s)?\s+){0,3}?)"
    r"(?P<act>" + _APPROVAL_ACT + r")\b",
)
_APPROVAL_LAST = re.compile(
    r"^(?:'s)?\s*(?:(?:from|of|by)\s+(?:the\s+|an?\s+)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})?"
    r"\s*(?:listed|required|needed|first|beforehand|in\s+advance)?\s*[.!]?\s*$",
    re.I,
)
_SECOND_FORCE = re.compile(
    r"\b(?:not|never|no|nor|cannot|can't|won't|must|shall|should|exceed|exceeds|forbidden|"
    r"prohibited|banned|and|but|also|unless|except|otherwise|only|or)\b|n't\b",
    re.I,
)
_SUBJECT_TO = re.compile(r"\b(?:shall|must)\s+be\s+subject\s+to\b", re.I)
_ONLY_FOLLOWING_APPROVAL = re.compile(
    r"\b(?:(?:may|can|shall)\s+(?:only\s+)?be\s+[a-z]+ed\s+only\s+(?:following|after|upon|with)|"
    r"(?:shall|must|will)\s+be\s+subject\s+to)\s+"
    r"(?:the\s+)?(?:(?:prior|written|explicit)\s+)*(?P<act>approval|sign-off|authori[sz]ation)\s+of\b",
    re.I,
)
_GIVER_AFTER = re.compile(
    r"\b" + _APPROVAL_ACT + r"\s+(?:from|of|by)\s+(?:the\s+|an?\s+)?"
    r"(?P<who>[A-Za-z][\w\-]*(?:\s+(?!(?:and|or|for|to|before|if|when|unless|in)\b)"
    r"[A-Za-z][\w\-]*){0,2})"
)
_APPROVER_FILLER = frozenset(stem(w) for w in ("team", "dept", "department", "written", "prior"))


def _approver_stems(text: str) -> tuple[str, ...]:
    """The stems of who gives the approval a rule asks for ('treasury'; 'payment', 'manager')."""
    found: list[str] = []
    for rx in (_GIVER_BEFORE, _GIVER_AFTER):
        for m in rx.finditer(text):
            who = re.sub(r"'s\b", "", m.group("who"))
            found += [s for s in content_stems(who) if s not in _APPROVER_FILLER]
    return tuple(dict.fromkeys(found))


def _evidenced_approval(
    index: int, chunk_id: str, text: str, glossary: Glossary | None
) -> CompiledRule | None:
    """A rule asking for one person's approval, whose review the request can evidence.

    The rule is read without the words that say where the evidence goes ('- put the approval
    ticket in treasury_approval_id', '(sre_approver)', ', which must be evidenced in the
    request'); when that reading is fully understood and asks for review, each review check is
    given when the named argument (or one named for the approver and the approval) holds the
    evidence (`ApprovalEvidence`). Anything else — a part left unread, several approvers, a
    denial beside it — reads as before."""
    if not REVIEW.search(text) or not re.search(r"\b" + _APPROVAL_ACT + r"\b", text, re.I):
        return None
    name = ""
    inner = text
    m = _EVIDENCE_TAIL.search(text)
    if m:
        name, inner = m.group("name"), text[: m.start()] + text[m.end() :]
        inner = inner.rstrip() + "."
    elif (m := _EVIDENCE_PSEUDO.search(text)) is not None:
        name = m.group("name")
        said = " ".join(w for w in name.split("_") if stem(w) not in _ID_STEMS_EVIDENCE)
        if not {stem(w) for w in said.split()} & APPROVAL_STEMS:
            return None
        inner = text[: m.start()] + m.group("lead") + said + " " + m.group("must")
    else:
        brackets = list(_EVIDENCE_BRACKET.finditer(text))
        if len(brackets) > 1:
            return None
        if brackets:
            b = brackets[0]
            name = b.group("name")
            inner = text[: b.end("act")] + text[b.end() :]
            if not {stem(w) for w in name.split("_")} & APPROVAL_STEMS:
                return None  # '(form_ref)' after an approval: the form, not surely the approval
        else:
            here = _EVIDENCED_HERE.search(text)
            if here:
                inner = text[: here.start()] + text[here.end() :]
    # 'the refund may be processed only following the written approval of a payments manager':
    # the act needs that approval
    inner = _ONLY_FOLLOWING_APPROVAL.sub(r"needs the \g<act> of", inner)
    if re.search(r"[a-z0-9]_[a-z0-9]", inner):
        return None  # another argument named in the rule: read as before
    approver = _approver_stems(inner)
    if not name and not approver:
        return None
    acts = list(re.finditer(r"\b" + _APPROVAL_ACT + r"\b", inner, re.I))
    if len(acts) != 1:
        return None  # 'a finance manager's sign-off and CFO approval': one record shows one
    # The approval must be the rule's one obligation, last in it: anything after it ('… and a
    # callback verification', ', never on Fridays') or a second force word anywhere ('must not
    # exceed $5,000 and need …') may be another obligation, which the review had been covering.
    if not _APPROVAL_LAST.match(inner[acts[0].end() :]) or _SECOND_FORCE.search(
        _SUBJECT_TO.sub(" ", inner)
    ):
        return None
    rule = compile_rule(index, chunk_id, inner, glossary, evidence=False)
    if (
        not rule.decides
        or rule.informational
        or rule.scope
        or rule.required_approvals > 1
        or not any(c.effect == "review" for c in rule.checks)
        # a place list reads one argument; the text's gate reads every place the request shows
        # (a phone number, an address), so a place rule with evidence reads as before
        or any(isinstance(c, ValueList) and c.match == "place" for c in rule.checks)
    ):
        return None
    checks = tuple(evidenced(c, name, approver) if c.effect == "review" else c for c in rule.checks)
    return replace(rule, text=text, checks=checks)


_ID_STEMS_EVIDENCE = frozenset({"id", "ref", "referenc", "number", "no", "num", "code"})
