"""Phrases glossed with the argument they mean, in brackets (helper jgloss).

Staff who write rules for agent tools annotate the prose with the argument a phrase speaks of,
and often the exact condition:

- "NO cancellation while claim(s) open (open_claims > 0)."
- "All involuntary terminations (termination_type = involuntary) must be reviewed by HR Legal."
- "Off-cycle runs (run_type: off_cycle) need Payroll Mgr sign-off."
- "Do not terminate anyone on leave (leave_status: FMLA, medical or parental)."
- "Credit checks are prohibited for candidates working in CA, NY or IL (work_state)."
- "No upgrades at all for residents of sanctioned countries (residence_country)."

The rule is read through its gloss: the phrase's condition is bound to the named argument (the
exact key, or a path ending with it), as the bracket states it (`= value`, `: a, b or c`, a
comparison with a number) or, for a bare name, as the phrase states it (a literal list right
before the bracket, or a category the tenant glossary resolves). The phrase's words that the
gloss restates (they share a word with the argument's name or value) are read by the check;
a word it does not restate ('Downgrade' in "Downgrade mid-contract (contract_months_left > 0)",
'dormant' in "dormant accounts (days_inactive >= 365)") is left unaccounted, so the rule stays
partly understood and never decides on its own.

What the rest of the clause must be, for the reading to be whole:
- the gloss in the subject, then one predicate: a review ("must be reviewed by HR Legal", "need
  Payroll Mgr sign-off", "-> compliance review") or a prohibition ("cannot be credited", "are
  not allowed", "is prohibited", "-> deny");
- or a prohibition first ("No edits while", "Never ship to", "Do not terminate anyone",
  "Credit checks are prohibited for"), the glossed phrase closing the clause.
Anything else (a second condition after the bracket, an exception, 'only', a negated gloss, two
glosses) is left to the other readings.

A missing glossed argument is unknown (review), never satisfied; a value written in another case
or type, a value holding the glossed one among other words, a list or object, or a second
argument with the same name that disagrees, goes to review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.judge.checks import (
    _NOT_APPLICABLE,
    UNKNOWN,
    Binding,
    Outcome,
    _not_applicable_or_satisfied,
    binding_equal,
    binding_literal,
)
from webapp.judge.checks import SATISFIED as _SATISFIED_STATUS
from webapp.judge.places import country_code
from webapp.judge.request_view import VERBS, RequestView
from webapp.judge.text import STOPWORDS, stem, words
from webapp.judge.vocabulary import Glossary, near

_OP_WORDS = {
    "gt": "above",
    "ge": "at or above",
    "lt": "below",
    "le": "at or below",
}
_SIGNS = {
    ">": "gt",
    ">=": "ge",
    "≥": "ge",
    "<": "lt",
    "<=": "le",
    "=<": "le",
    "≤": "le",
    "over": "gt",
    "above": "gt",
    "more than": "gt",
    "greater than": "gt",
    "at least": "ge",
    "under": "lt",
    "below": "lt",
    "less than": "lt",
    "fewer than": "lt",
    "at most": "le",
}


@dataclass(frozen=True)
class Glossed(Binding):
    """'NO cancellation while claim(s) open (open_claims > 0)': the rule's effect holds where the
    named argument meets the glossed condition (`op`: `is` one value, `in` a closed list, `gt`
    `ge` `lt` `le` a number, `member` of a glossary category). It does not hold where the
    argument plainly does not meet it; a missing argument, or a value in another case or type,
    is unknown (review)."""

    members: tuple[Any, ...] = ()
    category: str = ""  # the glossary's term for op 'member' ('sanctioned countries')
    kind: str = field(default="glossed", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(members=list(self.members), category=self.category)
        return d

    def _cond_words(self) -> str:
        if self.op in _OP_WORDS:
            return f"is {_OP_WORDS[self.op]} {_num(self.value)}"
        if self.op == "member":
            if not self.members:
                return f"is one of the {self.category} (no glossary lists them: review)"
            return f"is one of the glossary's {self.category} ({_listed(self.members)})"
        return f"is {_listed(self.members)}"

    def _want(self) -> str:
        return self._cond_words()

    def reading(self) -> str:
        verb = {"deny": "Deny", "review": "Send to review"}.get(self.effect, "Deny")
        gloss = f" ({self.gloss})" if self.gloss else ""
        return f"{verb} when `{self.path}`{gloss} {self._cond_words()}{self._about()}"

    def _speaks_of(self, view: RequestView) -> bool:
        for t in (*self.terms, *self.reads):
            if view.term_matches(t):
                return True
        return False

    def _holds(self, got: Any) -> bool | None:
        """True when the rule is met (the glossed condition plainly does not hold), False when
        it is broken, None when a human must say."""
        met = self._condition(got)
        return None if met is None else not met

    def _condition(self, got: Any) -> bool | None:
        if got is None or isinstance(got, (list, tuple, dict)):
            return None
        if self.op in _OP_WORDS:
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                return None
            x, bound = float(got), float(self.value)
            return {
                "gt": x > bound,
                "ge": x >= bound,
                "lt": x < bound,
                "le": x <= bound,
            }[self.op]
        if self.op == "member":
            if not self.members or not isinstance(got, str):
                return None
            g = got.strip()
            code = country_code(g)
            for m in self.members:
                if g.lower() == str(m).strip().lower():
                    return True
                if code and country_code(str(m)) == code:
                    return True
            if near(g, tuple(str(m) for m in self.members)):
                return None
            return False
        seen_close = False
        for m in self.members:
            same = binding_equal(got, m)
            if same is True:
                return True
            if same is None:
                seen_close = True
        if not seen_close and isinstance(got, str) and len(got.strip()) > 2:
            # 'Iran' against '(dest_country: IR, KP)': the same place named another way
            code = country_code(got)
            if code and any(isinstance(m, str) and country_code(m) == code for m in self.members):
                seen_close = True
        if not seen_close and _spelt_out(got, self.members):
            # 'California' against '(work_state)' after 'CA, NY, IL': a code list and a name
            # no vocabulary maps to a code; it may be one of them spelt out (red team jred13)
            seen_close = True
        if not seen_close and close_value(got, self.members):
            # 'contractors', 'subcontractor' against '(crew_type = contractor)' (red team jred16)
            seen_close = True
        return None if seen_close else False

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = self._leaves(view)
        if not leaves and not self._speaks_of(view):
            return _NOT_APPLICABLE  # neither the argument nor a word of the rule is shown
        applies, anchored = self.applicability(view)
        if applies == "absent":
            return _not_applicable_or_satisfied(anchored)
        if not leaves:
            near = self._near_outcome(view)
            if near is not None:
                return near
            return Outcome(
                UNKNOWN,
                f"`{self.path}` is not among the arguments: cannot tell whether it "
                f"{self._cond_words()}",
            )
        if len({lf.path for lf in leaves}) > 1:
            return self._several_outcome(leaves)
        for leaf in leaves:
            met = self._condition(leaf.value)
            if met is True:
                return self.fire(
                    applies,
                    f"{leaf.path} = {leaf.value!r} {self._cond_words()}",
                    (leaf.path,),
                )
            if met is None:
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {leaf.value!r}: cannot tell whether it {self._cond_words()}; "
                    "a human should decide",
                    (leaf.path,),
                )
        beside = self._beside(view, leaves)
        if beside is not None:
            return self._beside_outcome(beside)
        return Outcome(
            _SATISFIED_STATUS,
            f"{leaves[0].path} = {leaves[0].value!r}: not {self._cond_words().removeprefix('is ')}",
            tuple(lf.path for lf in leaves),
        )


def close_value(got: Any, members: tuple[Any, ...]) -> bool:
    """A request's value written close to a glossed value without being it: one contains the
    other ('subcontractor', 'credit_card' against "card") or both are one word inflected
    ('contractors'); never a value and its negation ('involuntary', 'unhosted')."""
    if not isinstance(got, str):
        return False
    g = re.sub(r"[^a-z0-9]", "", got.lower())
    if len(g) < 3:
        return False
    for m in members:
        if not isinstance(m, str):
            continue
        mm = re.sub(r"[^a-z0-9]", "", m.lower())
        if len(mm) < 3 or mm == g:
            continue
        short, long_ = sorted((g, mm), key=len)
        if long_.endswith(short) and long_[: -len(short)] in _NEGATING:
            continue  # 'involuntary' and "voluntary", 'unhosted' and "hosted": plainly opposite
        if mm in g or g in mm or stem(g) == stem(mm):
            return True
    return False


_NEGATING = frozenset({"un", "in", "non", "dis", "im", "ir", "il", "de", "a", "anti", "no", "not"})


def _spelt_out(got: Any, members: tuple[Any, ...]) -> bool:
    """`got` is a name written out (a word longer than a code) while every member is a code of two
    or three capitals ('California' beside CA, NY, IL): it may name one of them another way."""
    if not isinstance(got, str) or not members:
        return False
    g = got.strip()
    if country_code(g):
        return False  # a country named in full: its code was compared above ('Germany' is DE)
    codes = all(isinstance(m, str) and re.fullmatch(r"[A-Z]{2,3}", m.strip()) for m in members)
    return codes and len(g) > 3 and bool(re.fullmatch(r"[A-Za-z][A-Za-z .'\-]+", g))


def _num(value: Any) -> str:
    f = float(value)
    return f"{int(f):,}" if f.is_integer() else f"{f:,}"


def _literal(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _num(value)
    return f'"{value}"'


def _listed(values: tuple[Any, ...]) -> str:
    shown = [_literal(v) for v in values[:8]]
    if len(values) > 8:
        shown.append("…")
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


# -- reading the clause ------------------------------------------------------------------------

_NAME = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*"
_SNAKE = r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+"
_WORD_VALUE = r"[A-Za-z0-9][\w\-]*"
_VALUE = rf"\"[^\"]{{1,60}}\"|'[^']{{1,60}}'|-?\d+(?:\.\d+)?(?![\w.])|{_WORD_VALUE}"
_NUMBER = r"-?\d+(?:\.\d+)?"
# the bodies of a gloss: '(open_claims > 0)', '(termination_type = involuntary)', '(run_type:
# off_cycle)', '(leave_status: FMLA, medical or parental)', '(work_state)'
# (the rule's signs arrive as words: the engine writes '>' as 'over', '>=' as 'at least')
_COMPARE = re.compile(
    rf"^(?P<name>{_NAME})\s*(?P<sign>>=|<=|=<|>|<|≥|≤|(?<=\s)(?:over|above|more\s+than|"
    r"greater\s+than|at\s+least|under|below|less\s+than|fewer\s+than|at\s+most)(?=\s))\s*"
    rf"(?P<num>{_NUMBER})$"
)
_EQUALS = re.compile(rf"^(?P<name>{_NAME})\s*(?:==|=|:)\s*(?P<value>{_VALUE})$")
_LISTED = re.compile(
    rf"^(?P<name>{_SNAKE})\s*:\s*(?P<items>{_WORD_VALUE}(?:\s*(?:,|/|\bor\b|,\s*or\b)\s*"
    rf"{_WORD_VALUE})+)$"
)
_BARE = re.compile(rf"^(?P<name>{_SNAKE})$")
_BRACKET = re.compile(r"\(\s*([^()]{1,200}?)\s*\)")

# A literal list right before a bare name's bracket: 'in CA, NY or IL (work_state)'
_LIST_BEFORE = re.compile(
    r"(?P<items>(?:[A-Z][A-Z0-9]{1,4}|[A-Z][a-z]+)(?:\s*(?:,|/)\s*(?:or\s+|and\s+)?"
    r"(?:[A-Z][A-Z0-9]{1,4}|[A-Z][a-z]+)|\s+(?:or|and)\s+(?:[A-Z][A-Z0-9]{1,4}|[A-Z][a-z]+))+)"
    r"\s*$"
)
_ITEM_SPLIT = re.compile(r"\s*(?:,|/)\s*(?:or\s+|and\s+)?|\s+(?:or|and)\s+")

# Words inside a glossed phrase that read nothing of their own (copulas, articles after the
# linker), and the linkers a phrase crosses ('records of minors', 'accounts in collections').
_COPULA = frozenset("is are was were be being been currently".split())
_LINKERS = frozenset("of in on with from at under".split())
# What ends the phrase: a determiner or quantifier, a condition marker, a preposition the
# phrase never crosses, a modal or a negation.
_STOPS = (
    frozenset(
        """a an the all any every each no not never nor to for while when whenever if during until
    by via against into onto after before unless except who whom whose which that where
    must shall should may might can cannot could will would need needs require requires and
    or but than over under above below per other besides apart excluding outside instead
    beyond else""".split()
    )
    - _LINKERS
)
_MARKERS = frozenset("while when whenever if during".split())
_NEGATIONS = frozenset("no never not don't dont cannot can't".split())

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'\-.]*(?:\(s\))?|,")

# The predicate after a gloss in the subject: who reviews, and nothing more ('must be reviewed
# by HR Legal', 'need Payroll Mgr sign-off', 'need a supervisor's approval', '-> compliance
# review'). A word that could narrow or add ('for executives', 'over 10,000 USD', 'before
# separation', 'or a manager') is not one of who reviews.
_WHO_WORD = (
    r"(?!(?:for|to|in|on|with|of|when|if|unless|over|under|above|below|except|only|or|and|"
    r"before|after|from|at|by|not|no|never|without|within|per|than|while|once|until|who|"
    r"whose|which|that|where)\b)[A-Za-z][\w&+\-]*(?:'s|\u2019s)?"
)
_WHO = rf"(?:(?:a|an|the|their|its)\s+)?{_WHO_WORD}(?:\s+{_WHO_WORD}){{0,3}}"
_REVIEW_PRED = re.compile(
    r"^\s*(?:(?:(?:must|shall|should|will)\s+(?:always\s+)?be\s+(?:reviewed|approved|"
    rf"signed\s+off|escalated)\s+(?:by|to)\s+{_WHO})|(?:(?:needs?|requires?|must\s+(?:have|"
    rf"get|obtain))\s+{_WHO})|(?:(?:->|\u2192|=>)\s*{_WHO}))\s*\.?\s*$",
    re.I,
)
_DENY_PRED = re.compile(
    r"^\s*(?:(?:are|is)\s+(?:not\s+(?:allowed|permitted)|prohibited|forbidden|banned|blocked|"
    r"disallowed)|(?:cannot|can't|can\s+not|may\s+not|must\s+not|mustn't|shall\s+not|must\s+"
    r"never|may\s+never|can\s+never)\s+be\s+(?P<act>[a-z]+)|(?:->|→|=>)\s*(?:deny|denied|"
    r"reject(?:ed)?|block(?:ed)?|prohibited|forbidden|not\s+allowed|decline[d]?))"
    # 'cannot be adjusted by agents': every request here is an agent's
    r"(?:\s+by\s+(?:an?\s+|the\s+|any\s+)?(?:agents?|bots?|ai))?\s*\.?\s*$",
    re.I,
)
_PRED_REFUSED = re.compile(
    r"\b(?:unless|except|if|when|whenever|only|otherwise|or|and|but|not|never|no|nor|without|"
    r"where|who|whose|which|that|exempt|waived?)\b|[;,\d%$€£]",
    re.I,
)
# A prohibition opening the clause whose glossed phrase closes it.
_DENY_HEAD = re.compile(
    r"^\s*(?P<neg>no|never|do\s+not|don't|dont|must\s+not|may\s+not|cannot|can't)\s+(?P<rest>.+)$",
    re.I,
)
_DENY_MID = re.compile(
    r"^\s*(?P<what>[A-Za-z][\w\-\s]*?)\s+(?:(?:are|is)\s+)?(?P<neg>not\s+(?:allowed|permitted)|"
    r"prohibited|forbidden|banned|blocked|disallowed)\s+(?P<rest>.+)$",
    re.I,
)
_HEAD_REFUSED = re.compile(
    r"\b(?:unless|except|only|otherwise|or|and|but|nor|without|exempt|may|can|must|should|shall|"
    r"need|needs|require|requires|not|never|no|"
    # the outside of the phrase ('Refunds other than store credit (…) are not allowed')
    r"other|others|than|apart|besides|excluding|beyond|outside|instead|else|"
    # an effect named as the act ('Never deny cancellation while …' permits it)
    r"den(?:y|ied|ies)|reject\w*|refus\w*|declin\w*|block\w*|allow\w*|permit\w*|approv\w*)\b"
    r"|[;,\d%$€£]",
    re.I,
)
# 'anyone who is currently on leave': when the state holds, not a word the request shows
_NOW = re.compile(r"\b(?:currently|presently|now|still)\b", re.I)
_FORCE = re.compile(r"\s+at\s+all\b|\s+whatsoever\b|\s+ever\b", re.I)


@dataclass
class _Gloss:
    name: str
    op: str
    members: tuple[Any, ...] = ()
    value: Any = None
    value_words: frozenset[str] = frozenset()


def _read_gloss(body: str) -> _Gloss | None:
    body = body.strip()
    m = _COMPARE.match(body)
    if m:
        sign = re.sub(r"\s+", " ", m.group("sign").lower())
        return _Gloss(m.group("name"), _SIGNS[sign], value=float(m.group("num")))
    m = _LISTED.match(body)
    if m and (re.search(r"[,/]|\bor\b", m.group("items"))):
        raw = tuple(i for i in _ITEM_SPLIT.split(m.group("items")) if i)
        if len(raw) < 2 or any(i.lower() in ("and", "or") for i in raw):
            return None
        items = tuple(binding_literal(i) for i in raw)  # '(tier: 1, 2 or 3)' lists numbers
        vw = frozenset(stem(w) for i in raw for w in words(i))
        return _Gloss(m.group("name"), "in", members=items, value_words=vw)
    m = _EQUALS.match(body)
    if m:
        value = binding_literal(m.group("value"))
        if isinstance(value, str) and value.lower() in ("required", "mandatory", "given", "set"):
            return None
        vw = (
            frozenset(stem(w) for w in words(str(value))) if isinstance(value, str) else frozenset()
        )
        return _Gloss(m.group("name"), "is", members=(value,), value=value, value_words=vw)
    m = _BARE.match(body)
    if m:
        return _Gloss(m.group("name"), "bare")
    return None


def _plain(token: str) -> str:
    return re.sub(r"\(s\)$", "", token).replace(".", "").lower()


def _restates(token: str, name_stems: frozenset[str], value_words: frozenset[str]) -> bool:
    """Whether a word of the phrase is one the gloss restates: it shares a word with the
    argument's name or value ('claim(s) open' and `open_claims`; 'Insurance' and `insured`;
    'Off-cycle' and `off_cycle`; 'P.O. boxes' and `po_box`)."""
    parts = [p for p in re.split(r"-", _plain(token)) if p]
    if not parts:
        return False
    joined = stem("".join(parts))
    if joined in name_stems or joined in value_words:
        return True
    known = name_stems | value_words
    for p in parts:
        s = stem(p)
        if s in known:
            continue
        if any(_kin(s, k) for k in known):
            continue  # 'promotion' and `promo_active`, 'residents' and `residence_country`
        return False
    return True


def _kin(a: str, b: str) -> bool:
    """Two stems of one word ('promot' and 'promo', 'resident' and 'residenc'): the shorter,
    of five letters or more, is the longer's start but for its last two letters."""
    short, long_ = sorted((a, b), key=len)
    if len(short) < 5:
        return False
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    return common >= len(short) - 2 and common >= 5


@dataclass
class _Phrase:
    start: int  # where the glossed phrase starts in the clause
    read_from: int  # where the words the gloss restates start (all after it are read)
    unread: list[str]  # words of the phrase the gloss does not restate
    restated: list[str]  # stems of the words it restates
    members: tuple[str, ...] = ()  # a literal list right before a bare name
    category: str = ""  # an open category in the phrase ('sanctioned countries')


def _phrase(pre: str, gloss: _Gloss) -> _Phrase | None:
    """The phrase the gloss follows, read backwards from its bracket: every word up to a
    determiner, a condition marker, a modal or the start of the clause; after a linker ('of',
    'in', 'with' …) the first word the gloss does not restate is the thing the phrase qualifies
    ('claimant records of minors'), not part of it."""
    name_stems = frozenset(stem(w) for w in words(gloss.name.replace(".", " ")) if len(w) > 1)
    value_words = gloss.value_words
    members: tuple[str, ...] = ()
    body = pre.rstrip()
    if gloss.op == "bare":
        lm = _LIST_BEFORE.search(body)
        if lm:
            items = tuple(i for i in _ITEM_SPLIT.split(lm.group("items").strip()) if i)
            if len(items) >= 2:
                members = items
                value_words = frozenset(stem(i.lower()) for i in items)
    tokens = list(_TOKEN.finditer(body))
    start = len(body)
    read_from = len(body)
    unread: list[str] = []
    restated: list[str] = []
    crossed = False
    in_list = bool(members)
    category = ""
    i = len(tokens) - 1
    while i >= 0:
        t = tokens[i]
        w = t.group(0)
        low = w.lower()
        if w == ",":
            if in_list:
                i -= 1
                continue
            break
        if members and in_list and (w in members or low in ("or", "and")):
            start = t.start()
            read_from = t.start()
            i -= 1
            continue
        in_list = False
        if low in _STOPS:
            break
        if low in _LINKERS:
            crossed = True
            i -= 1
            continue
        if low in _COPULA:
            i -= 1
            continue
        if _restates(w, name_stems, value_words):
            restated.append(stem(_plain(w)))
            start = t.start()
            if not unread:
                read_from = t.start()
            i -= 1
            continue
        parts = [p for p in _plain(w).split("-") if p]
        said = [p for p in parts if _restates(p, name_stems, value_words)]
        if len(parts) > 1 and said and not crossed:
            # 'mid-contract (contract_months_left > 0)': the part it restates is read, the
            # other ('mid') is a condition the gloss does not state
            restated += [stem(p) for p in said]
            unread += [p for p in parts if p not in said]
            start = t.start()
            i -= 1
            continue
        if crossed:
            break  # the thing the phrase qualifies: the clause's subject
        if low in STOPWORDS:
            break
        if (
            i > 0
            and tokens[i - 1].group(0).lower() in _NEGATIONS
            and stem(low) in VERBS
            and not unread
        ):
            break  # 'Never refund orders (…)': the act the negation forbids, not the phrase
        unread.append(w)
        start = t.start()
        i -= 1
    if start >= len(body) or not restated and not members:
        return None
    # an open category in the phrase ('residents of sanctioned countries'): a vocabulary decides
    from webapp.judge.coverage import CATEGORY_QUALIFIERS

    for w in list(unread):
        if w.lower() in CATEGORY_QUALIFIERS and gloss.op == "bare":
            nxt = re.search(re.escape(w) + r"\s+([A-Za-z][\w\-]*)", body[start:])
            if nxt and _restates(nxt.group(1), name_stems, value_words):
                category = f"{w.lower()} {nxt.group(1).lower()}"
                unread.remove(w)
    # 'in moderation', 'of minors': the phrase never opens with its linker
    lead = re.match(r"(?:(?:of|in|on|with|from|at|under)\s+)+", body[start:], re.I)
    if lead:
        start += lead.end()
        read_from = max(read_from, start)
    return _Phrase(start, read_from, unread, restated, members, category)


def _reviews(post: str) -> bool:
    from webapp.judge.compiler import REVIEW  # the engine's words for a person who decides

    return bool(REVIEW.search(post))


def read_glossed(
    clause: str, glossary: Glossary | None
) -> tuple[str, str, str, _Gloss, _Phrase, int, int, str, str] | None:
    """The parts of a clause this reading takes whole, or None: (effect, head, act, gloss,
    phrase, bracket start, bracket end, marker, category)."""
    text = clause.strip().rstrip(".").rstrip()
    brackets = [m for m in _BRACKET.finditer(text) if _read_gloss(m.group(1)) is not None]
    if len(brackets) != 1:
        return None
    b = brackets[0]
    # any other bracket but a plural's '(s)' is a second gloss or a note no check reads
    others = [m for m in re.finditer(r"\(([^()]*)\)", text) if m.start() != b.start()]
    if any(m.group(1).strip().lower() != "s" for m in others):
        return None
    gloss = _read_gloss(b.group(1))
    assert gloss is not None
    pre, post = text[: b.start()], text[b.end() :]
    phrase = _phrase(pre, gloss)
    if phrase is None:
        return None
    head = pre[: phrase.start].strip()
    act = ""
    marker = ""
    category = phrase.category
    if gloss.op == "bare" and not phrase.members and not category:
        return None  # a bare name with nothing the phrase lists: another reading's
    said = [t.group(0) for t in _TOKEN.finditer(text[phrase.start : b.start()])]
    if gloss.op == "is" and isinstance(gloss.value, str):
        # 'All terminations (termination_type = involuntary)': the prose says every
        # termination, the gloss one kind of it; read so, a voluntary one would pass
        names = frozenset(stem(w) for w in words(gloss.name.replace(".", " ")) if len(w) > 1)
        in_state = re.search(
            r"\b(?:in|on|under|at)\s+([A-Za-z][\w\-]*)\s*$", text[: b.start()], re.I
        )
        if not any(_restates(w, frozenset(), gloss.value_words) for w in said) and not (
            in_state and _restates(in_state.group(1), names, frozenset())
        ):
            # ('a listing is in moderation (moderation_status = in_review)': the state the
            # thing is in, named by the argument, is the value's own gloss)
            return None
    if gloss.value is False:
        # 'records of minors (include_minors = false)': the phrase must say the negation
        # ('unverified sellers (seller_verified = false)'), else the gloss contradicts it
        names = frozenset(stem(w) for w in words(gloss.name.replace(".", " ")) if len(w) > 1)
        if not any(
            re.match(r"(?:un|non-?)(?P<w>[a-z]{3,})$", w.lower())
            and _restates(re.sub(r"^(?:un|non-?)", "", w.lower()), names, frozenset())
            for w in said
        ):
            return None
    if post.strip():
        # the gloss in the subject, then one predicate
        if _HEAD_REFUSED.search(head) or re.search(r"\b(?:if|when|while|whenever)\b", head, re.I):
            return None
        if re.match(r"^(?:(?:all|any|every|each)\s+)?$", head, re.I) is None and re.search(
            r"\b(?:a|an|the)\s*$", head, re.I
        ):
            return None
        dm = _DENY_PRED.match(post)
        if dm:
            effect = "deny"
            act = dm.group("act") or ""
        elif _REVIEW_PRED.match(post) and not _PRED_REFUSED.search(post) and _reviews(post):
            effect = "review"
        else:
            return None
        head = re.sub(r"^(?:all|any|every|each)\s+", "", head, flags=re.I)
        return effect, head, act, gloss, phrase, b.start(), b.end(), marker, category
    # the prohibition first, the glossed phrase closing the clause
    hm = _DENY_HEAD.match(head)
    mm = _DENY_MID.match(head) if hm is None else None
    if hm is not None:
        rest = hm.group("rest")
    elif mm is not None:
        rest = mm.group("what") + " " + mm.group("rest")
    else:
        return None
    rest = _FORCE.sub(" ", " " + rest).strip()
    cm = re.search(
        r"\b(?P<marker>while|when|whenever|if|during|for|to|on|in|from|with|of|under|into|onto|"
        r"at|via)"
        r"(?:\s+(?:anyone|anybody|any|a|an|the))?(?:\s+(?!(?:who|that)\b)[A-Za-z][\w\-]*)?"
        r"(?:\s+(?:who|that)\s+(?:is|are))?(?:\s+currently)?"
        r"(?:\s+(?:is|are))?(?:\s+(?:on|in|with|under))?\s*$",
        rest,
        re.I,
    )
    if cm is None and re.fullmatch(r"[A-Za-z][\w\-]*", rest):
        # 'Never refund orders (order_total > 500)': the act, then the glossed thing
        return "deny", rest, "", gloss, phrase, b.start(), b.end(), marker, category
    if cm is None:
        return None
    if _HEAD_REFUSED.search(rest):
        return None
    if re.search(r"\b(?:who|that)\b", rest, re.I):
        marker = re.search(r"\b(who|that)\b", rest, re.I).group(1).lower()  # type: ignore[union-attr]
    m2 = cm.group("marker").lower()
    if m2 in _MARKERS:
        marker = (marker + "|" + m2) if marker else m2
    return "deny", rest, "", gloss, phrase, b.start(), b.end(), marker, category


def glossed_checks(
    index: int, source: str, clause: str, glossary: Glossary | None
) -> tuple[list[Binding], list[str], list[str], list[str]] | None:
    """The check of a clause that glosses a phrase with its argument, the condition markers it
    reads, the categories a vocabulary resolved and the ones none did (left unaccounted); None
    when the clause is not one."""
    got = read_glossed(clause, glossary)
    if got is None:
        return None
    effect, head, act, gloss, phrase, b_start, b_end, marker, category = got
    from webapp.judge.compiler import _subject_terms, _terms  # the engine's subject words

    text = clause.strip().rstrip(".").rstrip()
    terms = _subject_terms(_terms(_NOW.sub(" ", head), cut_review=False))
    if act:
        terms = tuple(dict.fromkeys((*terms, stem(act.lower()))))
    restated = frozenset(phrase.restated)
    terms = tuple(t for t in terms if t not in restated)
    op = gloss.op
    members: tuple[Any, ...] = gloss.members
    value = gloss.value
    resolved: list[str] = []
    left: list[str] = []
    if op == "bare":
        if phrase.members:
            op, members = "in", phrase.members
        else:
            op = "member"
            found = Glossary.of(glossary).lookup(category) if glossary is not None else None
            members = tuple(found or ())
            if found:
                resolved.append(category)
            else:
                left.append(category)  # no vocabulary lists the category: partly understood
    written = text[phrase.read_from : b_end]
    gloss_words = text[phrase.start : b_start].strip()
    check = Glossed(
        index,
        source,
        effect,
        terms,
        (),
        path=gloss.name,
        op=op,
        value=value,
        gloss=gloss_words,
        written=written,
        markers=tuple(x for x in marker.split("|") if x),
        reads=(*restated, *(stem(m.group(0).lower()) for m in _NOW.finditer(head))),
        members=members,
        category=category,
    )
    # the phrase's words the gloss does not restate ('privileged claims open (open_claims > 0)'):
    # a bracket after them is no list that closes them as a category (coverage), so say so
    left += [w.lower() for w in phrase.unread if w.lower() not in category.split()]
    return [check], [x for x in marker.split("|") if x], resolved, left


def values_read_as_names(text: str, every: list[Any]) -> list[str]:
    """The argument a gloss names with its condition ('(termination_type = involuntary)',
    '(account_status != collections)') when a check compares it as a value instead ('Send to
    review when an argument is termination_type'): no request carries an argument's name as a
    value, so that check never fires. Left unaccounted, the rule stays partly understood."""
    out: list[str] = []
    for m in _BRACKET.finditer(text):
        body = m.group(1).strip()
        g = _read_gloss(body)
        if g is None or g.op == "bare":
            ne = re.match(rf"^(?P<name>{_NAME})\s*(?:!=|≠)\s*(?:{_VALUE})$", body)
            if ne is None:
                continue
            name = ne.group("name")
        else:
            name = g.name
        low = name.lower()
        for c in every:
            values = getattr(c, "values", None) or ()
            if any(isinstance(v, str) and v.strip().lower() == low for v in values):
                if name not in out:
                    out.append(name)
                break
    return out


# 'Insurance mandatory (insured = true) for declared value of 2,500 USD or more': an obligation
# glossed with its argument, then the amount it holds for.
_THEN_AMOUNT = re.compile(
    r"^(?P<core>[^()]*\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)*\s*(?:=|==|:)\s*[^()]+\))\s+"
    r"(?P<cond>(?:for|on)\s+[^()]+?)\s*\.?\s*$",
    re.I,
)
_AMOUNT_REFUSED = re.compile(
    r"\b(?:unless|except|if|when|only|otherwise|or\s+(?!more\b|less\b|above\b|below\b|higher\b|"
    r"lower\b|greater\b|fewer\b)|and|but|not|no|never|without|per|each|daily|total)\b|[;,]\s*[a-z]",
    re.I,
)


# the measure the amount is of, and nothing else ('declared value of', 'order total of')
_MEASURE_FIRST = re.compile(
    r"^(?:(?:declared|order|shipment|shipping|invoice|insured|total|net|gross|cargo|contract|"
    r"transaction|payment|loan)\s+){0,2}(?:value|amount|total|price|cost|worth|sum)\s+"
    r"(?:of\s+|at\s+|over\s+|above\s+)?(?:[$\u20ac\u00a3]|[A-Z]{3}\s|\d)",
    re.I,
)


def gloss_then_amount(index: int, source: str, clause: str, carry: str) -> list[Any] | None:
    """'Insurance mandatory (insured = true) for declared value of 2,500 USD or more': the
    binding the clause states before its bracket (read as `_binding_checks` reads it, whole),
    required only when the amount after it holds (`When`); None when the clause is not that."""
    m = _THEN_AMOUNT.match(clause.strip())
    if m is None or _AMOUNT_REFUSED.search(m.group("cond")):
        return None
    from webapp.judge.compiler import (  # the engine's binding and amount readings
        Clause,
        When,
        _amount_condition,
        _binding_checks,
    )

    core = _binding_checks(index, source, m.group("core"), carry)
    if not core or len(core) != 1 or not isinstance(core[0], Binding):
        return None
    binding = core[0]
    if type(binding) is not Binding or binding.op not in ("eq", "present"):
        return None
    cond_text = re.sub(r"^(?:for|on)\s+(?:(?:a|an|the|any)\s+)?", "", m.group("cond"), flags=re.I)
    if not _MEASURE_FIRST.match(cond_text):
        return None  # 'for fragile goods of 2,500 USD or more': a kind of thing, not a measure
    condition = _amount_condition(Clause.read(index, source, cond_text, None, carry))
    if condition is None or condition.op not in ("ge", "gt"):
        return None
    # 'Insurance' is what `insured` restates: read by the binding, not a word to be shown
    names = frozenset(stem(w) for w in words(binding.path.replace(".", " ")) if len(w) > 1)
    said = tuple(t for t in binding.terms if _restates(t, names, frozenset()))
    if said:
        terms = tuple(t for t in binding.terms if t not in said)
        binding = replace(binding, terms=terms, reads=(*binding.reads, *said))
    return [When(index, source, "deny", binding.terms, (), condition, binding)]


# 'Emergency changes (change_type: emergency) must reference an incident ID (incident_id)': a
# glossed subject whose gloss is the condition of an obligation written with its own argument.
_OBLIGED = re.compile(
    r"^\s*(?:must|shall|should|has\s+to|have\s+to|needs?\s+to|needs?|requires?)\s+"
    r"(?!not\b|never\b|be\s+(?:reviewed|approved|signed)\b)",
    re.I,
)


def gloss_in_front(index: int, source: str, clause: str, carry: str) -> list[Any] | None:
    """The obligation after a glossed subject, required only where the gloss's one value holds
    (`WhenBound`); None unless the clause is a glossed subject (every word of it restated, one
    value), an obligation, and the obligation's own bracketed argument."""
    text = clause.strip().rstrip(".").rstrip()
    first = next((m for m in _BRACKET.finditer(text) if _read_gloss(m.group(1))), None)
    if first is None:
        return None
    gloss = _read_gloss(first.group(1))
    if gloss is None or gloss.op != "is" or gloss.value is False:
        return None
    pre, post = text[: first.start()], text[first.end() :]
    if not _OBLIGED.match(post) or not re.search(r"\(\s*[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+", post):
        return None
    if re.search(r"\b(?:unless|except|if|when|only|otherwise|or)\b|;", post, re.I):
        return None
    phrase = _phrase(pre, gloss)
    if phrase is None or phrase.unread or phrase.members or phrase.category:
        return None
    head = pre[: phrase.start].strip()
    if re.fullmatch(r"(?:(?:all|any|every|each)\b)?", head, re.I) is None:
        return None
    said = [t.group(0) for t in _TOKEN.finditer(text[phrase.start : first.start()])]
    if isinstance(gloss.value, str) and not any(
        _restates(w, frozenset(), gloss.value_words) for w in said
    ):
        return None
    from webapp.judge.compiler import WhenBound, compile_clause  # the engine's own readings

    subject = text[phrase.start : first.start()].strip()
    made, _, _ = compile_clause(index, source, f"{subject} {post.strip()}", None, carry)
    if not made or any(c.effect not in ("deny", "review") for c in made):
        return None
    restated = frozenset(phrase.restated)
    condition = Binding(
        index,
        source,
        "deny",
        (),
        (),
        path=gloss.name,
        op="eq",
        value=gloss.value,
        gloss=subject,
        written=text[phrase.start : first.end()],
        reads=tuple(restated),
    )
    out = []
    for body in made:
        terms = tuple(t for t in body.terms if t not in restated)
        body = replace(body, terms=terms)
        out.append(WhenBound(index, source, "deny", terms, (), condition=condition, body=body))
    return out
