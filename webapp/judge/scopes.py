"""A subject phrase glossed with an argument condition scopes the rule (helper jscope).

Staff name the requests a rule is for with a phrase and write its condition in brackets right
after it, then the rule itself:

- "Contractor crews (crew_type = contractor) may not work energized equipment."
- "Energized equipment (energized = true): crew_size of at least 2, no exceptions."
- "Card payments (payment_method = card) over $3,000 need property manager approval."
- "Principal forgiveness (principal_forgiveness > 0) is NEVER done by an agent."
- "Borrower in active bankruptcy (bankruptcy_status = active): counsel must approve …"

The bracket is a condition, not a requirement: when `crew_type` is "contractor", the rest of
the rule applies; for another crew it does not. (Read as a binding the rule must meet, it had
been "Deny when `crew_type` is not contractor", labelled understood: every internal crew was
denied, and a contractor crew was not.)

How it is read (`scoped_rule`), whole or not at all:
- the gloss is the first bracket of the rule, read by `glosses._read_gloss` (one value, a closed
  list or a comparison with a number); a bare name '(arg)' is another reading's;
- the phrase before it opens the rule (after 'All', 'Any', 'Every', 'Each'), or follows the
  thing it qualifies and a linker ('Borrower in active bankruptcy', 'Vegetation work in
  wetlands'); a phrase after a verb, a modal, a negation or a condition marker is not a subject
  ('… go only to the seller of record (payee_is_seller_of_record = true)' is a binding);
- the phrase's words the gloss restates (they share a word with the argument's name or value,
  glosses._phrase) are read by the condition; its last word, when the gloss does not restate it,
  is the thing the rule speaks of ('productions' in 'Regulator productions') and stays the
  rule's subject word; any other word it does not restate ('Chargeback disputes (dispute_open
  = true)') is a condition no check reads, left unaccounted (partly understood);
- the rest of the rule, the phrase and the predicate without the bracket ("Contractor crews may
  not work energized equipment."), is read by the engine's own readings (`compile_body`), and
  each of its checks holds only where the gloss does (`Scoped`). What they leave unaccounted
  stays so: a predicate that is not read leaves the rule partly understood.

At evaluation: the gloss's condition plainly false (`crew_type: "internal"`, `energized: false`,
`principal_forgiveness: 0`) – the rule does not apply; true – the predicate decides; the argument
missing, named several times, written in another case or type, or close to the glossed value
(`contractor_sub`, 'Card') – a human decides whenever the predicate would not be met.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from webapp.judge.checks import (
    NOT_APPLICABLE,
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    ActionRule,
    Check,
    Outcome,
    ReservedAct,
    WhenBound,
    _flag_for_value,
    _WhenTheRequestIs,
)
from webapp.judge.glosses import (
    _BRACKET,
    _SIGNS,
    _TOKEN,
    Glossed,
    _Gloss,
    _phrase,
    _plain,
    _read_gloss,
    _restates,
    close_value,
)
from webapp.judge.glossvalues import GRADES, may_be_value, value_token
from webapp.judge.request_view import RequestView
from webapp.judge.text import stem, words


@dataclass(frozen=True)
class Scoped(WhenBound):
    """'Card payments (payment_method = card) over $3,000 need property manager approval': a
    check of the rule (`body`) that holds only where the glossed argument meets the gloss
    (`condition`, a Glossed: one value, a closed list or a comparison with a number). Plainly
    not met: the rule does not apply; not known (missing, close, another type): review when
    the body is not met."""

    condition: Glossed | None = None  # type: ignore[assignment]
    # the body as the rest of the rule reads it, with the subject words the gloss restates:
    # where the gloss holds, the request shows them ('Energized equipment' and `energized`)
    whole: Check | None = None
    kind: str = field(default="scoped", init=False)

    def reading(self) -> str:
        assert self.condition is not None and self.body is not None
        cond = self.condition
        gloss = f" ({cond.gloss})" if cond.gloss else ""
        # the rest of the rule as the engine reads it alone, subject words and all, unless the
        # gloss changed what it does ('NEVER done by an agent': denied where the gloss holds)
        rest = self.whole if type(self.whole) is type(self.body) else self.body
        return f"When `{cond.path}`{gloss} {cond._cond_words()}: {rest.reading()}"

    def evaluate(self, view: RequestView) -> Outcome:
        assert self.condition is not None and self.body is not None
        outcome = self.body.evaluate(view)
        if outcome.status == NOT_APPLICABLE:
            held, why = self._holds_here(view)
            if held is None:
                return outcome
            # the gloss's argument is shown and says whether the rule is for this request: it
            # speaks to it (`crew_type: "contractor"` on de-energized equipment is allowed by it)
            return Outcome(SATISFIED, f"{why}; {outcome.message}" if held else why, ())
        if outcome.status not in (VIOLATED, REVIEW, UNKNOWN):
            return outcome
        held, why = self._holds_here(view)
        if held is False and _ON_THE_OTHERS.search(self.source.split(")", 1)[-1]):
            # jred23: 'Sterile products (product_class = sterile) need QA release, remaining
            # lots need QA review': the rule speaks to the requests outside its gloss too
            return Outcome(
                UNKNOWN, f"{outcome.message}; the rule also speaks of other requests", ()
            )
        if held is False:
            return Outcome(SATISFIED, f"the rule's condition does not hold ({why})", ())
        if held is True:
            if outcome.status == UNKNOWN and self.whole is not None:
                # 'the rule may not apply' for want of the words the gloss reads: the rest of the
                # rule read with them decides, when it is met or broken outright
                whole = self.whole.evaluate(view)
                if whole.status in (VIOLATED, REVIEW):
                    return whole
            return outcome
        return Outcome(UNKNOWN, f"{outcome.message}; {why}", outcome.args)

    def _holds_here(self, view: RequestView) -> tuple[bool | None, str]:
        """Whether the request meets the gloss: True, False, or None with why it is not known."""
        cond = self.condition
        assert cond is not None
        want = cond._cond_words()
        leaves = cond._leaves(view)
        if not leaves:
            near = cond._near(view)
            if near is not None:
                return (
                    None,
                    f"`{cond.path}` is not among the arguments, but {near.path} may state it",
                )
            return None, f"`{cond.path}` is not among the arguments: cannot tell whether it {want}"
        if len({lf.path for lf in leaves}) > 1:
            return None, f"`{cond.path}` names several arguments"
        met = {cond._condition(lf.value) for lf in leaves}
        leaf = leaves[0]
        if met == {True}:
            return True, f"{leaf.path} = {leaf.value!r} {want}"
        if met != {False}:
            return None, f"{leaf.path} = {leaf.value!r}: cannot tell whether it {want}"
        if cond._beside(view, leaves) is not None:
            return None, f"another argument may state `{cond.path}` otherwise"
        if cond.op == "is" and close_value(leaf.value, cond.members):
            # 'subcontractor', 'contractors', 'contract' against "contractor": the glossed value
            # inside the request's or the request's inside it, or one word inflected (jred16)
            return None, f"{leaf.path} = {leaf.value!r}: close to {want}, not it"
        if (
            cond.op in ("is", "in")
            and isinstance(leaf.value, str)
            and all(isinstance(m, str) for m in cond.members)
            and (
                may_be_value(
                    re.sub(r"\s+", " ", leaf.value.strip().lower()),
                    tuple(str(m).lower() for m in cond.members),
                )
                or any(value_token(str(m)) in GRADES for m in cond.members)
            )
        ):
            # jred23: 'oral-solid' for "oral_solid", 'prd' or 'live' for "prod", 'critical' past
            # "high", 'unknown': the request may be of the glossed value written another way
            return None, f"{leaf.path} = {leaf.value!r}: may be {want} written another way"
        if cond.op == "is" and len(cond.members) == 1:
            flag = _flag_for_value(view, cond.members[0], {lf.path for lf in leaves})
            if flag:
                # `crew_type: "internal"` beside `is_contractor: true`: the request says both
                return None, f"{leaf.path} = {leaf.value!r} but {flag} may say otherwise"
        return False, f"{leaf.path} = {leaf.value!r}"


# words after a gloss that speak of the requests outside it ('…, remaining lots need QA review')
_ON_THE_OTHERS = re.compile(
    r"\b(?:other|others|else|rest|remaining|remainder|otherwise|non-?\w+)\b", re.I
)


# -- reading the rule --------------------------------------------------------------------------

# what may stand before the glossed phrase: nothing, a quantifier, or the thing it qualifies and
# a linker ('Borrower in', 'Vegetation work in', 'Claims via a')
_HEAD = re.compile(
    r"^(?:(?:all|any|every|each)\s+)?"
    r"(?:(?P<thing>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2})\s+"
    r"(?:in|on|with|under|of|from|at|via|through|for)(?:\s+(?:a|an|the))?)?\s*$",
    re.I,
)
# words that make the 'thing' before a linker no noun phrase (a verb, a modal, a negation …)
_NOT_A_THING = re.compile(
    r"\b(?:must|shall|should|may|might|can|cannot|could|will|would|need|needs|require|requires|"
    r"is|are|be|been|was|were|do|does|don't|not|no|never|only|if|when|while|unless|except|"
    r"whenever|where|who|which|that|and|or|but|to|go|goes|send|sent)\b",
    re.I,
)
# the gloss then a separator: a colon, an arrow, a dash or nothing
_AFTER_GLOSS = re.compile(r"^\s*(?:(?P<sep>:|->|\u2192|=>|[-\u2013\u2014](?=\s))\s*)?(?P<rest>.+)$")
# a restatement of a comparison gloss right before its bracket: 'Patients under 18 (age < 18)'
_RESTATED_BOUND = re.compile(
    r"\s+(?P<sign>over|above|more\s+than|greater\s+than|at\s+least|under|below|less\s+than|"
    r"fewer\s+than|at\s+most)\s+(?P<num>\d+(?:\.\d+)?)\s*$",
    re.I,
)
# an arrow to a refusal: 'Prepaid lines (plan_type = prepaid) -> deny number port-outs'
_ARROW_DENY = re.compile(
    r"^(?:deny|refuse|reject|block|no)\s+(?P<act>[A-Za-z].*)$",
    re.I,
)
_ARROW_DENIED = re.compile(r"^(?:deny|denied|refuse[d]?|reject(?:ed)?|block(?:ed)?|no)$", re.I)


def scoping_predicate(after: str) -> bool:
    """Whether the text after a glossed subject is a predicate about the requests it names (a
    prohibition, an obligation, a review, a bound after a colon or an arrow), so the bracket is
    their condition. Not: the glossed thing said to be required ('Signed NDA (nda_signed = true)
    is required', '… before any data room access'), a permission ('Approved vendors (…) can be
    paid up to $50,000': who else may is not said), or no predicate at all ('… on all wires')."""
    am = _AFTER_GLOSS.match(after)
    if am is None:
        return False
    rest, sep = am.group("rest").strip(), am.group("sep") or ""
    if _SAYS_REQUIRED.match(rest) or _PERMITS.match(rest):
        return False
    if sep in ("->", "\u2192", "=>"):
        return True
    if _PREDICATE.match(_AMOUNT_FIRST.sub("", rest, count=1)):
        return True  # 'Card payments (…) over $3,000 need …': the amount is the rest's own
    return sep == ":" and bool(_BOUND_OR_MODAL.search(rest))


def _narrowed(rest: str) -> bool:
    """The predicate says more than the engine's readings of it should decide on, beside a gloss
    (the glosses.py near-misses): a condition in prose ('…, unless the employee agrees', 'except
    on weekends'; one the rule states with its own argument, '(scc_on_file = true)', is read), a
    party it narrows to ('… by HR Legal for executives'), a prohibition on someone other than an
    agent ('cannot be adjusted by Finance'), or a ban on giving something ('must not reference an
    incident ID')."""
    for m in _CONDITION_MARKER.finditer(rest):
        clause = re.split(r"[;,]", rest[m.end() :], maxsplit=1)[0]
        if not _STATED_BINDING.search(clause):
            return True
    if _FOR_WHOM.search(rest):
        return True
    if _NEGATED.search(rest) and _BY_OTHER.search(rest):
        return True
    return bool(_NOT_GIVE.match(rest))


_CONDITION_MARKER = re.compile(
    r"\b(?:when|whenever|if|unless|except|while|provided|as\s+long\s+as|only\s+if|once|until)\b",
    re.I,
)
_STATED_BINDING = re.compile(r"\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*\s*(?:==|=|:|>|<|!=)")
_FOR_WHOM = re.compile(
    r"\bfor\s+(?!(?:a\s+|an\s+|the\s+)?(?:review|approval|sign[- ]?off|ok|okay|consent|"
    r"authori[sz]ation|decision|check)\b)(?:(?:all|any|every|each|a|an|the)\s+)?[A-Za-z]",
    re.I,
)
_NEGATED = re.compile(r"\b(?:not|never|cannot|can't|mustn't|no)\b", re.I)
_BY_OTHER = re.compile(
    r"\bby\s+(?!(?:an?\s+|the\s+|any\s+)?(?:agents?|bots?|ai|automation|automated)\b)[A-Za-z]",
    re.I,
)
_NOT_GIVE = re.compile(
    r"^(?:must|may|shall|should|can)\s*(?:not|never)\s+(?:reference|include|cite|attach|"
    r"provide|give|quote|state|name)\b",
    re.I,
)


def _another_clause(rest: str) -> bool:
    """A clause after the predicate that is not its continuation ('…; interns may not either',
    '…; cash payments are never refunded', '… approval. Cash over $500 needs …'): it has a
    subject of its own, which the gloss does not scope; only a clause that goes on about the
    glossed requests ('; over $10,000 are refused', '; must also …') is read with it (jred16)."""
    for clause in _CLAUSES.split(rest.strip())[1:]:
        clause = re.sub(
            r"^(?:and|but|also|then)\s+", "", clause.strip().rstrip(".!").strip(), flags=re.I
        )
        if not clause or _NO_EXCEPTIONS.match(clause):
            continue
        bare = _AMOUNT_FIRST.sub("", clause, count=1)
        if bare != clause and (not bare or _PREDICATE.match(bare) or _ARROW_START.match(bare)):
            continue
        if _PREDICATE.match(clause):
            continue
        return True
    return False


_CLAUSES = re.compile(r"\s*;\s*|(?<=[.!?])\s+(?=[A-Z])")
_NO_EXCEPTIONS = re.compile(r"^no\s+exceptions?$", re.I)
_ARROW_START = re.compile(r"^(?:->|\u2192|=>|:)")
# a second predicate or requirement joined to the first: the readings of the rest may drop it
# ('crew_size of at least 2 and a permit', '… may not work energized equipment and must carry a
# permit'), so the glossed rule is not read whole
_SECOND = re.compile(
    r"\band\s+(?:(?:also|always)\s+)?(?:must|shall|should|may|can|cannot|can't|needs?|"
    r"requires?|has\s+to|have\s+to|is|are)\b"
    r"|\b(?:at\s+least|at\s+most|no\s+more\s+than|no\s+fewer\s+than|up\s+to|minimum|"
    r"maximum|min|max)\s+\S+(?:\s+[a-z]+){0,2}\s+(?:and|plus|with)\s+(?:a|an|the|one|two)\b",
    re.I,
)


def _second_predicate(rest: str) -> bool:
    return bool(_SECOND.search(rest))


def predicate_follows(after: str) -> bool:
    """Whether a predicate follows a glossed subject anywhere ('… and interns may not work …'),
    other than the glossed thing said to be required or a permission: the bracket is then no
    requirement of its own, whether or not `scoping_predicate` reads the rest."""
    if scoping_predicate(after):
        return True
    am = _AFTER_GLOSS.match(after)
    if am is None:
        return False
    rest = am.group("rest").strip()
    if _SAYS_REQUIRED.match(rest) or _PERMITS.match(rest):
        return False
    return bool(_ANY_PREDICATE.search(rest))


_ANY_PREDICATE = re.compile(
    r"\b(?:must|shall|should|may\s+not|may\s+never|cannot|can't|can\s+not|mustn't|never|"
    r"needs?|requires?|prohibited|forbidden|not\s+allowed|not\s+permitted)\b|->|\u2192|=>",
    re.I,
)


# what opens a predicate about the requests a glossed phrase names
_PREDICATE = re.compile(
    r"^(?:(?:always|never|also)\s+)?(?:must|shall|should|has\s+to|have\s+to|needs?|requires?|"
    r"may\s+(?:not|never)|can\s*not|cannot|can't|can\s+never|won't|will\s+not|mustn't|"
    r"shouldn't|is\s+(?:never|not|prohibited|forbidden|banned|blocked|subject\s+to)|"
    r"are\s+(?:never|not|prohibited|forbidden|banned|blocked|subject\s+to)|"
    r"(?:is|are)\s+(?:always\s+)?(?:sent|routed|escalated|held|referred)\s+to|"
    r"go(?:es)?\s+(?:only\s+)?to|get\s+(?:routed|sent)\s+to|(?:always\s+)?go(?:es)?\b|"
    r"need|require|never|(?:may|can)(?:\s+[a-z]+){0,2}\s+only)\b",
    re.I,
)
_AMOUNT_FIRST = re.compile(
    r"^(?:(?:over|above|under|below|exceeding|of|at\s+least|at\s+most|more\s+than|less\s+than|"
    r"up\s+to|no\s+more\s+than)\s+)?(?:[$\u20ac\u00a3]\s*)?\d[\d,.]*\s*(?:k|m|bn)?\s*"
    r"(?:[A-Z]{3}\b|%|percent\b)?\s*(?:(?:or|and)\s+(?:more|less|above|below|over|under|"
    r"higher|lower)\s+)?",
    re.I,
)
_PERMITS = re.compile(
    r"^(?:(?:may|can|could|might)\b(?!\s+(?:not|never)\b)(?!(?:\s+[a-z]+){0,2}\s+only\b)|(?:is|are)\s+(?:allowed|permitted|"
    r"eligible|entitled|free|exempt|ok)\b|qualif\w*\b|get\b(?!\s+(?:routed|sent)\b)|"
    r"receive\b|need\s+(?:no|not)\b|needs?\s+no\b|do\s+not\s+need|don't\s+need|"
    r"(?:is|are)\s+not\s+(?:required|needed|subject))",
    re.I,
)
_BOUND_OR_MODAL = re.compile(
    r"\b(?:at\s+least|at\s+most|no\s+more\s+than|not\s+(?:more|less)\s+than|up\s+to|max(?:imum)?|"
    r"min(?:imum)?|over|under|above|below|exceed\w*|must|shall|should|may\s+not|cannot|can't|"
    r"never|no|not|need\w*|requires?|review\w*|approv\w*|sign[- ]?off)\b",
    re.I,
)


# a predicate that requires the glossed thing itself, not something of the requests it names
_SAYS_REQUIRED = re.compile(
    r"^(?:(?:is|are|being)\s+)?(?:(?:always|strictly|absolutely)\s+)?(?:required|mandatory|"
    r"compulsory|needed|necessary|a\s+must|expected|obligatory|essential|a\s+(?:pre-?)?"
    r"requisite|a\s+condition)\b"
    r"|^(?:must|should|shall|has\s+to|have\s+to|needs?\s+to)\s+(?:always\s+)?(?:be|have\s+been|"
    r"exist|happen|come)\b(?!\s+(?:reviewed|approved|signed\s+off|escalated|sent|routed|"
    r"escorted|supervised|held|blocked|denied|refused|rejected|declined|paused|frozen|flagged|"
    r"limited|capped|restricted|excluded|kept|handled|done|made|issued|paid|processed|"
    r"performed|treated))"
    r"|^(?:first|before|prior\s+to|ahead\s+of|in\s+place|on\s+file|present|given|obtained|"
    r"completed?|done|set|true|yes|on)\b",
    re.I,
)
# a review's own timing at the end of the rule: '… sign-off before any credit posts'
_REVIEW_BEFORE = re.compile(
    r"\b(?:approv\w*|sign[- ]?off|review\w*|ok|okay|consent|authori[sz]\w*)\s+before\s+"
    r"(?:(?:any|the|each|every|a|an|it|its)\s+)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2}"
    r"\s*\.?\s*$",
    re.I,
)


@dataclass
class ScopeParts:
    """A rule read as a glossed subject and what it says of it."""

    gloss: _Gloss
    body: str  # the rule without the bracket: the phrase, then the predicate
    restated: frozenset[str]  # stems the gloss restates, read by the condition
    unread: tuple[str, ...]  # words of the phrase the gloss does not restate, but its head
    phrase: str  # the glossed phrase as written
    written: str  # the phrase and its bracket


def read_scope(text: str) -> ScopeParts | None:
    """The parts of a rule whose subject phrase is glossed with its condition, or None."""
    clean = text.strip()
    brackets = [m for m in _BRACKET.finditer(clean) if _read_gloss(m.group(1)) is not None]
    if not brackets:
        return None
    b = brackets[0]
    if re.search(r"\(", clean[: b.start()]):
        return None  # an earlier bracket (a note, a plural's '(s)' aside) is not read here
    gloss = _read_gloss(b.group(1))
    if gloss is None or gloss.op == "bare":
        return None  # '(work_state)': a bare name is another reading's
    if gloss.op == "is" and gloss.value is None:
        return None
    pre = clean[: b.start()]
    if gloss.op in ("gt", "ge", "lt", "le"):
        said = _RESTATED_BOUND.search(pre)
        if said is not None:
            sign = re.sub(r"\s+", " ", said.group("sign").lower())
            if _SIGNS.get(sign) != gloss.op or float(said.group("num")) != float(gloss.value):
                return None  # 'under 18 (age <= 18)': the prose and the bracket disagree
            pre = pre[: said.start()]
    if gloss.value is False:
        # 'Unlicensed drivers (license_valid = false)': the negation the phrase says is the
        # gloss's false; the rest of the word is what the argument names
        masked = re.sub(
            r"\b(?:un|non-?)(?=[a-z]{3,})", lambda m: " " * len(m.group(0)), pre, flags=re.I
        )
        phrase = _phrase(masked, gloss)
        if phrase is not None:
            while phrase.start > 0 and not pre[phrase.start - 1].isspace():
                phrase.start -= 1
    else:
        phrase = _phrase(pre, gloss)
    if phrase is None or phrase.members or phrase.category:
        return None
    head = pre[: phrase.start]
    hm = _HEAD.match(head)
    if hm is None or (hm.group("thing") and _NOT_A_THING.search(hm.group("thing"))):
        return None
    after = clean[b.end() :]
    am = _AFTER_GLOSS.match(after)
    if am is None or not re.search(r"[A-Za-z]", am.group("rest")):
        return None  # 'Everything encrypted in transit (encrypted = true).': the binding itself
    said_words = [t.group(0) for t in _TOKEN.finditer(pre[phrase.start :]) if t.group(0) != ","]
    if not said_words:
        return None
    if gloss.value is False and not any(
        re.match(r"(?:un|non-?)[a-z]{3,}$", w, re.I) for w in said_words
    ):
        # 'records of minors (include_minors = false)': the phrase must say the negation
        return None
    unread = list(phrase.unread)
    if gloss.value is False:
        names = frozenset(stem(w) for w in words(gloss.name.replace(".", " ")) if len(w) > 1)
        unread = [
            w
            for w in unread
            if not (
                re.match(r"(?:un|non-?)[a-z]{3,}$", w, re.I)
                and _restates(re.sub(r"^(?:un|non-?)", "", w.lower()), names, frozenset())
            )
        ]
    if isinstance(gloss.value, str) and gloss.op == "is":
        # 'Regulator productions (recipient_type = regulator)': the phrase must say the value,
        # else the bracket names a kind the prose does not ('All terminations (type = involuntary)')
        if not any(
            _restates(p, frozenset(), gloss.value_words)
            for w in said_words
            for p in _plain(w).split("-")
            if p
        ):
            return None
    # the phrase's last word, when the gloss does not restate it, is the thing it names
    last = said_words[-1]
    head_noun = ""
    if unread and _plain(unread[0]) == _plain(last):
        # _phrase lists the words read backwards, its last word first: 'productions' in
        # 'Regulator productions (recipient_type = regulator)' names what the gloss defines
        unread = unread[1:]
        head_noun = _plain(last)
    rest = am.group("rest")
    sep = am.group("sep") or ""
    if not scoping_predicate(after) or _narrowed(am.group("rest")):
        return None
    if _another_clause(rest) or _second_predicate(rest):
        return None
    words_before = pre.rstrip()  # without a bound the gloss restates ('under 18')
    arrow = sep in ("->", "\u2192", "=>")
    denied = _ARROW_DENY.match(rest) if arrow else None
    if arrow and denied is not None:
        body = f"No {words_before} {denied.group('act')}"  # '-> deny port-outs': no port-outs
    elif arrow and _ARROW_DENIED.match(rest.strip().rstrip(".")):
        body = f"No {words_before}."
    elif arrow:
        body = f"{words_before} -> {rest}"
    elif sep == ":":
        body = f"{words_before}: {rest}"
    elif sep:
        body = f"{words_before} - {rest}"
    else:
        body = f"{words_before} {rest}"
    restated = set(phrase.restated)
    if head_noun:
        restated |= {stem(p) for p in [head_noun, *head_noun.split("-")] if p}
    if gloss.value is False:
        restated |= {
            stem(_plain(w)) for w in said_words if re.match(r"(?:un|non-?)[a-z]{3,}$", w, re.I)
        }
    for w in said_words:
        for part in _plain(w).split("-"):
            if part and _restates(part, _name_stems(gloss), gloss.value_words):
                restated.add(stem(part))  # 'Broker-submitted': 'broker' and 'submit'
    return ScopeParts(
        gloss,
        re.sub(r"\s+", " ", body).strip(),
        frozenset(restated),
        tuple(w.lower() for w in unread),
        clean[phrase.start : b.start()].strip(),
        clean[phrase.start : b.end()],
    )


def scoped_rule(
    index: int,
    chunk_id: str,
    text: str,
    compile_body: Callable[[str], Any],
) -> Any | None:
    """The rule read as its glossed subject's condition over the rest (`compile_body` reads the
    rest as a rule of its own), or None when it is not one. The result is the body's compiled
    rule, its checks each held to the gloss; its unaccounted words stay, with the phrase's words
    the gloss does not restate."""
    parts = read_scope(text)
    if parts is None or read_scope(parts.body) is not None:
        return None
    body = compile_body(parts.body)
    if not body.checks or body.uncompiled:
        return None
    every = _flatten(list(body.checks))
    if any(_requires_the_phrase(c, _name_stems(parts.gloss)) for c in every):
        return None  # 'Encryption at rest (encrypted = true) is … for all exports': see above
    if any(c.effect == "allow" for c in every):
        return None  # 'P1 emergencies (priority = P1) may skip the PO': a permission, not read here
    g = parts.gloss
    condition = Glossed(
        index,
        text,
        "deny",
        (),
        (),
        path=g.name,
        op=g.op,
        value=g.value,
        gloss=parts.phrase,
        written=parts.written,
        reads=tuple(parts.restated),
        members=g.members,
    )
    checks = tuple(
        Scoped(
            c.rule_index,
            c.source,
            c.effect,
            _without(c.terms, parts.restated),
            c.alternatives,
            condition=condition,
            body=_unscoped(c, parts.restated),
            whole=c,
        )
        for c in body.checks
    )
    restated = parts.restated | _value_stems(g)
    left = [w for w in body.unaccounted if not _said_by_gloss(w, restated)]
    if (
        "before" in left
        and _REVIEW_BEFORE.search(parts.body)
        and all(c.effect == "review" for c in body.checks)
    ):
        # '-> Regulatory Affairs sign-off before any credit posts', 'counsel must approve
        # before any modification': when the review comes, which a review is already; no
        # condition of the rule
        left.remove("before")
    left += [w for w in parts.unread if w not in left]
    return replace(body, text=text, checks=checks, unaccounted=tuple(left))


def _value_stems(g: _Gloss) -> frozenset[str]:
    out = set(g.value_words)
    out |= {stem(w) for w in words(g.name.replace(".", " ")) if len(w) > 1}
    if isinstance(g.value, float):
        n = g.value
        out.add(str(int(n)) if n.is_integer() else str(n))
    return frozenset(out)


def _said_by_gloss(word: str, restated: frozenset[str]) -> bool:
    """An unaccounted word (or phrase) of the body that the gloss states ('3' and 'Tier 3' for
    '(support_tier = 3)')."""
    parts = re.findall(r"[A-Za-z0-9][\w\-]*", word.lower())
    return bool(parts) and all(stem(p) in restated or p in restated for p in parts)


def _without(terms: tuple[str, ...], restated: frozenset[str]) -> tuple[str, ...]:
    return tuple(t for t in terms if t not in restated)


def _unscoped(check: Check, restated: frozenset[str]) -> Check:
    """`check` without the subject words the gloss reads (and the checks inside it), so that it
    speaks of the request wherever the gloss holds ('Card payments' is the gloss's)."""
    if (
        isinstance(check, ReservedAct)
        and check.effect == "deny"
        and not (check.agents or check.prefixes or check.acts or check.permitted)
        and check.groups
        and all(w in restated for g in check.groups for w in g)
    ):
        # 'Principal forgiveness (principal_forgiveness > 0) is NEVER done by an agent': the act
        # reserved to people is what the gloss states; where it holds, no agent may go on
        return ActionRule(check.rule_index, check.source, "deny", ())
    phrase = getattr(check, "phrase", "")
    inner = getattr(check, "body", None)
    if (
        isinstance(check, _WhenTheRequestIs)
        and isinstance(inner, Check)
        and phrase
        and all(stem(w.lower()) in restated for w in words(phrase))
    ):
        # 'Weekend deploys (is_weekend = true)': the gloss says when it is the weekend, not the
        # request's day
        return _unscoped(inner, restated)
    changes: dict[str, Any] = {}
    names = {f.name for f in fields(check)}
    if "terms" in names:
        changes["terms"] = _without(check.terms, restated)
    for name in ("base", "body", "fallback"):
        inner = getattr(check, name, None)
        if name in names and isinstance(inner, Check):
            changes[name] = _unscoped(inner, restated)
    return replace(check, **changes) if changes else check


def _flatten(checks: list[Check]) -> list[Check]:
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
    return out


def _name_stems(g: _Gloss) -> frozenset[str]:
    return frozenset(stem(w) for w in words(g.name.replace(".", " ")) if len(w) > 1)


def _requires_the_phrase(check: Check, named: frozenset[str]) -> bool:
    """A check of the rest that asks for an argument named by a word of the glossed argument's
    name ('Deny when `NDA` is missing' from 'Signed NDA (nda_signed = true) …'): the rule requires
    the glossed thing, so the bracket is its requirement, not a scope. (A word of the value is
    no sign: 'Broker-submitted claims (submission_channel = broker) must include the broker
    licence number (broker_license_no)'.)"""
    names: list[str] = []
    for attr in ("path", "exact_name", "named"):
        v = getattr(check, attr, "")
        if isinstance(v, str) and v:
            names.append(v)
    names += [w for w in getattr(check, "arg_words", ()) if isinstance(w, str)]
    said = {stem(w.lower()) for n in names for w in re.split(r"[^A-Za-z0-9]+", n) if w}
    return bool(said & named)
