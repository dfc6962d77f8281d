"""The acts a rule speaks of, read from its words, for rules the engine judges as text.

A policy's tools glob often covers several tools ('kms.*', 'orders.*'), and a rule written for
one act ('Scheduling key deletion is prohibited') would send every other act of the family to
review as soon as it shares a word ('key') with the request. `rule_actions` reads which acts a
rule names, so that the engine can tell a rule about another act (`RequestView.other_action`).

It answers only when it is sure the rule names specific acts, and it errs towards naming more:
- the acts *named* are the action words of the rule's subject ('Scheduling key deletion', 'Refunds
  on orders …'), of a clause opened by 'never', 'no' or 'do not', and the verb a permission or a
  prohibition puts on the subject ('may not be removed', 'may isolate', 'can only be shipped');
  not a participle that qualifies a noun ('accounts created …', 'content posted by …'), not a
  state ('read-only', 'sign-off'), not what an obligation asks ('must be encrypted'), not the
  place an act starts from ('from isolation', 'from backup'), not a noun that names a thing as
  often as an act ('posts', 'lists', 'emails', 'ships');
- a rule whose named acts include a broad one ('use', 'access', 'run', 'approve', 'process', any
  word for a change), that speaks generally ('any change', 'all operations', 'of any kind', 'such
  as', 'including'), or that joins a named act with a word the lexicon does not know ('archiving
  or deleting', 'refunds and chargebacks': the other word may be the request's act) names nothing
  for sure: None, and the rule keeps today's relevance;
- every action word of the rule, wherever it stands (conditions and effects too, 'from …'
  excepted), is returned for the comparison with the request: any of them that may be the
  request's act keeps the rule relevant.
"""

from __future__ import annotations

import re
from functools import lru_cache

from webapp.judge.request_view import (
    _MUTATION_WORDS,
    ACT_STEMS,
    BROAD_ACTIONS,
    MONEY_GENERIC,
    MONEY_MOVEMENT_VERBS,
    MONEY_SPECIFIC,
)
from webapp.judge.text import STOPWORDS, content_stems, stem

# Words that say the rule speaks of acts in general, or lists examples of an open set of acts.
_GENERAL = re.compile(
    r"\b(?:any|all|every|each|no|other)\s+(?:[\w\-]+\s+){0,2}?"
    r"(?:changes?|modifications?|updates?|edits?|alterations?|operations?|actions?|"
    r"activit(?:y|ies)|acts?|work|tasks?|transactions?|uses?|usage|access|requests?|"
    r"interactions?|handling|processing|things?|steps?|calls?|jobs?|events?|way)\b"
    r"|\bof any (?:kind|sort|type)\b|\bwhatsoever\b|\banything\b|\bnothing\b|\bsuch as\b"
    r"|\be\.\s?g\b|\beg\b|\bincluding\b|\binclude[sd]?\b|\betc\b|\blike\b"
    r"|\b(?:and|or)\s+(?:any\s+)?(?:other|similar|related)\b",
    re.I,
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*")
_CLAUSE = re.compile(r"[;:!?()\[\]]|\.(?:\s|$)|\s[–—-]+\s|\n")
# Where a clause's subject ends: a modal, a copula, a negation, or an effect word.
_PREDICATE = re.compile(
    r"(?<![\w\-])(?:must|shall|should|may|might|can|cannot|can't|could|will|won't|would|need|needs|"
    r"needed|require|requires|required|is|are|was|were|be|goes|go|has|have|never|not|"
    r"no longer|don't|doesn't|prohibited|forbidden|banned|allowed|permitted|capped|limited|"
    r"blocked|restricted|only|held|subject|stays?|remains?)(?![\w\-])|=|→",
    re.I,
)
# A permission or prohibition on the subject, and the verb it puts on it.
_PERMISSIVE = re.compile(
    r"^\s*(?:(may|can|could|might)|(must|shall|should|will|would)|"
    r"(cannot|can't|won't|mustn't|shouldn't|shan't|may\s+not|must\s+not))"
    r"((?:\s+(?:not|never|only|also|ever|n't))*)\s+(?:be\s+|have\s+been\s+)?"
    r"(?:(?:only|never)\s+)?([A-Za-z][\w\-]*)",
    re.I,
)
_NEGATED_COPULA = re.compile(
    r"^\s*(?:is|are)\s+(?:not|never)\s+(?:to\s+be\s+)?([A-Za-z][\w\-]*)", re.I
)
_OPENER = re.compile(r"^\s*(?:please\s+)?(?:never|no|do\s+not|don't|not|avoid)\s+(.*)$", re.I)
_NEVER_VERB = re.compile(
    r"^\s*(?:never|do\s+not|don't|does\s+not|doesn't)\s+([A-Za-z][\w\-]*)", re.I
)
# Where an opener's action words end ('No refunds on orders …').
_OPENER_STOP = frozenset(
    "on to for of from with before after in at by unless if when without during while that "
    "which who whose into onto over under above below than".split()
)
# ... and the time an act follows or precedes ('Deleting users after offboarding', 'Copying a
# VM before deleting it'): the act named there is when the rule's act happens, not the act.
_FROM = frozenset({"from", "after", "before", "following", "until", "since", "once"})
_ARTICLES = frozenset({"a", "an", "the", "its", "their", "any"})
_COORDINATED = re.compile(
    r"^\s*(?:,|/|&|\band\b|\bor\b|\bnor\b)\s*(?:\b(?:a|an|the)\s+)?([A-Za-z][\w\-]*)", re.I
)
_COORDINATED_BEFORE = re.compile(r"([A-Za-z][\w\-]*)\s*(?:,|/|&|\band\b|\bor\b|\bnor\b)\s*$", re.I)
# Verb stems whose bare noun names a thing as often as an act ('posts', 'a list', 'emails', 'a
# ship', 'a view'): named only in their -ing form or as a verb after a modal.
_THING_NOUNS = frozenset(
    stem(w)
    for w in "post list show fire ship sign set copy dump view query search mail email message "
    "new open get put look spin call access use backup text run release wire charge key "
    "transfer".split()
) - frozenset({stem("release"), stem("transfer"), stem("wire"), stem("charge")})
_MONEY_ACTS = MONEY_GENERIC | MONEY_SPECIFIC | MONEY_MOVEMENT_VERBS
# Act words of a rule read only for the comparison: what the lexicon knows as an act.
_ACT_WORDS = ACT_STEMS | _MONEY_ACTS


def _participle(token: str) -> bool:
    t = token.lower()
    return t.endswith("ed") or t in {"sent", "done", "given", "made", "shown", "taken", "run"}


# a status argument with the states it is compared to ('vendor_status = approved (not pending,
# not blocked)'): the states are values, never acts the rule speaks of
_STATUS_STATES = re.compile(
    r"\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*[_.](?:status|state)\s*(?:=|==|!=|\bis\b|\bin\b|"
    r"must(?:\s+not)?\s+be)\s*[a-z][\w\-]*(?:\s*(?:,|/|\bor\b)\s*[a-z][\w\-]*)*"
    r"(?:\s*\([^)]*\))?",
    re.I,
)


@lru_cache(maxsize=65536)
def rule_actions(text: str) -> frozenset[str] | None:
    """Every action word of `text` (stems), when the rule surely names specific acts; None when
    it names none, names a broad one, speaks generally, or may name one the lexicon misses."""
    if not text or _GENERAL.search(text):
        return None
    # '… vendor_status = approved (not pending, not blocked), except for new vendors' had been
    # taken for a rule on approving and blocking, not on paying a vendor, and a payment to a
    # pending vendor approved as out of its acts (jred20)
    text = _STATUS_STATES.sub(" ", text)
    named: set[str] = set()
    for clause in _CLAUSE.split(text):
        found = _named_in_clause(clause)
        if found is None:
            return None
        named |= found
    if not named:
        return None
    if not named.isdisjoint(BROAD_ACTIONS) or not named.isdisjoint(_MUTATION_WORDS):
        return None
    return frozenset(named | _all_action_words(text))


def _named_in_clause(clause: str) -> set[str] | None:
    """The specific acts a clause names, or None when one of them sits next to an unknown word."""
    named: list[tuple[str, int, int]] = []  # (stem, start, end) in the clause
    opener = _OPENER.match(clause)
    if opener:
        rest_at = opener.start(1)
        never = _NEVER_VERB.match(clause)
        if never:
            _add(named, never.group(1), never.start(1), allow_thing=True)
        for m in _TOKEN.finditer(clause, rest_at):
            word = m.group(0).lower()
            if word in _OPENER_STOP:
                break
            if word in STOPWORDS:
                continue
            _add(named, m.group(0), m.start(), allow_thing=False)
            if m.start() - rest_at > 40:
                break
    else:
        p = _PREDICATE.search(clause)
        subject_end = p.start() if p else len(clause)
        tokens = list(_TOKEN.finditer(clause[:subject_end]))
        for i, m in enumerate(tokens):
            if i and tokens[i - 1].group(0).lower() in _FROM:
                continue  # 'from isolation': the state an act starts from
            if (
                i > 1
                and tokens[i - 1].group(0).lower() in _ARTICLES
                and (tokens[i - 2].group(0).lower() in _FROM)
            ):
                continue
            if _participle(m.group(0)):
                continue  # 'accounts created …': a qualifier of the noun, not the act
            _add(named, m.group(0), m.start(), allow_thing=False)
        if p:
            rest = clause[p.start() :]
            perm = _PERMISSIVE.match(rest)
            if perm and (perm.group(1) or perm.group(3) or perm.group(4)):
                # 'may isolate', 'may not be removed', 'can only be shipped'; not 'must be
                # encrypted' (an obligation on a state of the subject)
                _add(named, perm.group(5), p.start() + perm.start(5), allow_thing=True)
            neg = _NEGATED_COPULA.match(rest)
            if neg:
                _add(named, neg.group(1), p.start() + neg.start(1), allow_thing=True)
            never = _NEVER_VERB.match(rest)
            if never:
                _add(named, never.group(1), p.start() + never.start(1), allow_thing=True)
    out: set[str] = set()
    for s, start, end in named:
        if _beside_unknown(clause, start, end):
            return None
        out.add(s)
    return out


def _add(named: list[tuple[str, int, int]], token: str, start: int, allow_thing: bool) -> None:
    if "-" in token:
        return  # 'read-only', 'sign-off', 'crown-jewel': a state or a name, not an act
    s = stem(token.lower())
    if s not in ACT_STEMS:
        return
    if s in _THING_NOUNS and not allow_thing and not token.lower().endswith("ing"):
        return  # 'posts', 'a list': the thing acted on, as often as the act
    named.append((s, start, start + len(token)))


def _beside_unknown(clause: str, start: int, end: int) -> bool:
    """Whether the word at [start, end) is joined by and/or to a word the lexicon does not know
    ('archiving or deleting'): that word may name the request's act."""
    after = _COORDINATED.match(clause[end:])
    before = _COORDINATED_BEFORE.search(clause[:start])
    for m in (after, before):
        if not m:
            continue
        word = m.group(1)
        if "-" in word:
            return True
        low = word.lower()
        if low in STOPWORDS or low in _ARTICLES:
            continue
        if stem(low) not in _ACT_WORDS:
            return True
    return False


def _all_action_words(text: str) -> set[str]:
    """Every act word of `text`, for the comparison with the request ('from X' left out)."""
    out: set[str] = set()
    prev = ""
    prev2 = ""
    for m in _TOKEN.finditer(text):
        word = m.group(0).lower()
        after_from = prev in _FROM or (prev in _ARTICLES and prev2 in _FROM)
        if not after_from:
            for s in content_stems(word):
                if s in _ACT_WORDS:
                    out.add(s)
        prev2, prev = prev, word
    return out
