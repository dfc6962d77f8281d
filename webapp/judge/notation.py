"""Rules written in notation, as engineers and ops staff write them.

`amount > 5000 -> fraud team review`, `card_country in (RU, BY, IR) -> deny`,
`currency in {EUR, GBP}; anything else -> deny`, `downgrade && seats_in_use >
new_plan.seat_limit -> deny`, `payment_scheme == SEPA => beneficiary.iban required`,
`scope in {contact, lead} ok; scope=account -> DPO review`.

A rule is read here only when every statement of it is notation: a condition over named
arguments (`arg op value`, `arg in {A, B}`, `arg op other.arg`, joined by `&&`/`and` and
`||`/`or`, brackets allowed) and an effect after `->`, `=>`, `→` or `:` (deny, review by a
person or team, ok, a required argument), or an else branch after an allowance. Anything
else the rule says (a trailing qualifier, a second sentence of prose) is kept as unaccounted
words, so the rule is partly understood and never decides on its own. A rule in which no
statement is notation is left to the other readings.

The condition is exact on the argument it names (the exact path, or a path ending with it):
a missing argument, a value in another case, type or shape than the rule's literal, or a
name that matches several arguments is unknown (review), never an approval. A bare word that
names no argument (`downgrade`) is read only as the value of an argument naming the kind of
request (`change_type`, `action`, `direction` …) or a word of the tool name; otherwise it is
unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.judge.checks import (
    NOT_APPLICABLE,
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Check,
    Outcome,
    _currency_of,
    _find_unit_argument,
    binding_equal,
    no_reference,
)
from webapp.judge.quantities import CURRENCY_CODES
from webapp.judge.request_view import Leaf, RequestView, truthy
from webapp.judge.text import stem as _stem

# -- the condition tree: ('and', a, b, …) | ('or', a, b, …) | ('cmp', path, op, value, kind)
#    | ('in', path, negated, values) | ('word', literal)
# kind of a compared value: 'num' | 'str' | 'bool' | 'path'

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_AMOUNT = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*[kKmM]?"
_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*[kKmM]?(?![A-Za-z0-9_])"
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<and>&&|\band\b)|(?P<or>\|\||\bor\b)"
    r"|(?P<notin>\bnot\s+in\b|!\s*in\b)|(?P<in>\bin\b)"  # '!in': 'not in' (read as 'in', it denied the listed)
    r"|(?P<op>==|!=|>=|<=|=<|=|>|<|\u2265|\u2264|\u2260)"
    r"|(?P<set>\{[^{}()\[\]]*\}|\[[^{}()\[\]]*\])"
    r"|(?P<lpar>\()|(?P<rpar>\))"
    r"|(?P<money>[$\u20ac\u00a3]\s?" + _NUMBER + r"|" + _AMOUNT + r"\s?(?:%|(?-i:[A-Z]{3})\b))"
    r"|(?P<num>" + _NUMBER + r")|(?P<comma>,)|(?P<bang>!(?!=))"
    r"|(?P<str>\"[^\"]*\"|'[^']*')"
    r"|(?P<ident>" + _IDENT + r")"
    r")",
    re.I,
)
_OPS = {
    "==": "eq",
    "=": "eq",
    "!=": "ne",
    "\u2260": "ne",
    ">": "gt",
    ">=": "ge",
    "\u2265": "ge",
    "<": "lt",
    "<=": "le",
    "=<": "le",
    "\u2264": "le",
}
_OP_WORDS = {
    "eq": "is",
    "ne": "is not",
    "gt": "is above",
    "ge": "is at or above",
    "lt": "is below",
    "le": "is at or below",
}
# words that are never an argument name nor a literal of a condition
_RESERVED = frozenset(
    "if when and or not in is are the a an any all else otherwise anything everything".split()
)
# An argument naming the kind of request: a bare word of the rule ('downgrade') is read as its
# value ('change_type = downgrade'), never as any other argument's value.
# Only a name for the request's own kind counts: `contract_type` names a contract's kind.
_KIND_NAMES = re.compile(
    r"(?:(?:change|event|request|operation|action|op|txn|transaction)_)?"
    r"(?:type|kind|action|operation|direction)",
    re.I,
)


_ARG = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*")


class _Fail(Exception):
    """The text is not notation."""


def _number(raw: str) -> float:
    raw = raw.replace(",", "").replace(" ", "")
    scale = 1.0
    if raw[-1:] in "kK":
        scale, raw = 1e3, raw[:-1]
    elif raw[-1:] == "M":
        scale, raw = 1e6, raw[:-1]
    elif raw[-1:] == "m":
        raise _Fail(raw)  # '1.5m': metres, minutes or millions
    return float(raw) * scale


_SYMBOLS = {"$": "USD", "\u20ac": "EUR", "\u00a3": "GBP"}


def _money(raw: str) -> tuple[float, str]:
    """'$5,000' -> (5000, 'money:USD'), '500 EUR' -> (500, 'money:EUR'), '20%' -> (20, 'pct')."""
    raw = raw.strip()
    if raw[0] in _SYMBOLS:
        return _number(raw[1:].strip()), "money:" + _SYMBOLS[raw[0]]
    if raw.endswith("%"):
        return _number(raw[:-1].strip()), "pct"
    code = raw[-3:]
    if code not in CURRENCY_CODES:
        raise _Fail(raw)
    return _number(raw[:-3].strip()), "money:" + code


def _literal(kind: str, raw: str) -> tuple[str, Any]:
    if kind == "num":
        return "num", _number(raw)
    if kind == "str":
        return "str", raw[1:-1]
    low = raw.lower()
    if low in ("true", "false"):
        return "bool", low == "true"
    return "str", raw


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _Fail(text[pos:])
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("end", "")

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.i += 1
        return tok

    def parse(self) -> tuple:
        tree = self.disjunction()
        if self.peek()[0] != "end":
            raise _Fail(self.peek()[1])
        return tree

    def disjunction(self) -> tuple:
        parts = [self.conjunction()]
        while self.peek()[0] == "or":
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else ("or", *parts)

    def conjunction(self) -> tuple:
        parts = [self.atom()]
        while self.peek()[0] == "and":
            self.take()
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else ("and", *parts)

    def atom(self) -> tuple:
        kind, raw = self.take()
        if kind == "bang" or (
            kind == "ident" and raw.lower() == "not" and self.peek()[0] in ("ident", "lpar")
        ):
            return ("not", self.atom())  # '!is_verified', 'not (a && b)'
        if kind == "lpar":
            inner = self.disjunction()
            if self.take()[0] != "rpar":
                raise _Fail("(")
            return inner
        if (
            kind == "ident"
            and re.fullmatch(r"[A-Z][a-z0-9_]*(?:\.[a-z0-9_]+)*", raw)
            and self.peek()[0] in ("op", "in", "notin")
        ):
            raw = raw[0].lower() + raw[1:]  # 'Amount > 5000 -> review': a sentence's capital
        if kind != "ident" or raw.lower() in _RESERVED or not _ARG.fullmatch(raw):
            raise _Fail(raw)  # 'Card limits > 10k': a noun phrase, not an argument's name
        if re.fullmatch(r"[a-z]+[^su]s", raw) and self.peek()[0] in ("op", "in", "notin"):
            # 'refunds >500 EUR -> manager', 'voids over …': a plural noun names the requests,
            # not an argument; the prose readings bind its amount
            raise _Fail(raw)
        path = raw
        # 'name_check (CoP) result': a gloss in brackets, then the field of the named object
        if self.peek()[0] == "lpar" and self.peek(1)[0] == "ident" and self.peek(2)[0] == "rpar":
            if self.peek(3)[0] == "ident" and self.peek(3)[1].lower() not in _RESERVED:
                self.i += 3
                path = f"{path}.{self.take()[1]}"
        nxt, sign = self.peek()
        if nxt == "ident" and sign.lower() == "between":
            # 'session_minutes between 15 and 60': both ends inclusive
            self.take()
            lo_kind, lo = self.take()
            and_kind, _ = self.take()
            hi_kind, hi = self.take()
            if lo_kind != "num" or and_kind != "and" or hi_kind != "num":
                raise _Fail(sign)
            low, high = _number(lo), _number(hi)
            if low > high:
                raise _Fail(sign)
            return ("and", ("cmp", path, "ge", low, "num"), ("cmp", path, "le", high, "num"))
        if nxt == "op":
            self.take()
            op = _OPS.get(sign)
            if op is None:
                raise _Fail(sign)
            vk, vraw = self.take()
            if vk == "num":
                return ("cmp", path, op, _number(vraw), "num")
            if vk == "money":
                return ("cmp", path, op, *_money(vraw))
            if vk == "str":
                if op not in ("eq", "ne"):
                    raise _Fail(vraw)
                return ("cmp", path, op, vraw[1:-1], "str")
            if vk == "ident" and vraw.lower() not in _RESERVED:
                if op in ("eq", "ne"):
                    if "." in vraw:
                        return ("cmp", path, op, vraw, "path")
                    lk, lv = _literal("ident", vraw)
                    return ("cmp", path, op, lv, lk)
                return ("cmp", path, op, vraw, "path")
            raise _Fail(vraw)
        if nxt in ("in", "notin"):
            self.take()
            vk, vraw = self.take()
            if vk == "set":
                body = vraw[1:-1]
            elif vk == "lpar":
                parts = []
                while self.peek()[0] not in ("rpar", "end"):
                    parts.append(self.take()[1])
                if self.take()[0] != "rpar":
                    raise _Fail("(")
                body = " ".join(parts)
            else:
                raise _Fail(vraw)
            items = [s.strip() for s in re.split(r"[,/|]", body)]
            values = []
            for item in items:
                m = re.fullmatch(r"\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_\-]+)", item)
                if not m:
                    raise _Fail(item)
                values.append(m.group(1) or m.group(2) or m.group(3))
            if not values:
                raise _Fail(vraw)
            return ("in", path, nxt == "notin", tuple(values))
        # a bare word: a flag named by it, or the kind of request ('downgrade')
        if "." in path or not re.fullmatch(r"[a-z][a-z0-9_]*", path):
            raise _Fail(path)
        return ("word", path)


# 'bulk (record_count > 1000)': a plain word the bracket defines, read as the bracket's condition
_LABELLED = re.compile(r"^\s*[a-z][a-z\-]*(?:\s+[a-z][a-z\-]*)?\s*\((?P<cond>[^()]*)\)\s*$")


def _real(atom: tuple) -> bool:
    """A comparison, a list, or a flag named as an argument is (`is_verified`): a bare plain
    word alone ('not more') is no condition written in notation."""
    return atom[0] in ("cmp", "in") or (atom[0] == "word" and "_" in atom[1])


def parse_condition(text: str) -> tuple:
    """The condition tree of `text`, or raise _Fail when it is not notation throughout."""
    text = re.sub(r"^\s*(?:if|when)\s+", "", text, flags=re.I)
    labelled = _LABELLED.match(text)
    if (
        labelled
        and labelled.group("cond").strip()
        and not _RESERVED.intersection(text[: text.index("(")].lower().split())
    ):
        tree = _Parser(_tokens(labelled.group("cond"))).parse()
        if not any(_real(a) for a in _numeric_atoms(tree)):
            raise _Fail(text)
        return tree
    tree = _Parser(_tokens(text)).parse()
    if not any(_real(a) for a in _numeric_atoms(tree)):
        raise _Fail(text)  # bare words alone ('not more') are no condition written in notation
    return tree


# -- effects
_DENY = re.compile(
    r"(?:deny|denied|block|blocked|reject|rejected|refuse|refused|forbidden|prohibited|"
    r"disallowed|not\s+allowed|not\s+permitted|decline|declined)",
    re.I,
)
_ALLOW = re.compile(r"(?:ok|okay|allow|allowed|fine|auto|auto[- ]approved?|permitted)", re.I)
# an effect with a negation or a condition in it ('deny unless manager', 'no review needed') is
# more than one effect: not read here
_NOT_ONE_EFFECT = re.compile(
    r"\b(?:not|no|never|without|skip|unless|if|when|except|only|but|deny|denied|block(?:ed)?|"
    r"reject(?:ed)?|allowed?)\b",
    re.I,
)
_REVIEW_NOUN = r"(?:review|approval|approves|sign[- ]?off|decides|check|escalation|ok)"
_ROLE = (
    r"(?:manager|supervisor|lead|director|officer|head|owner|steward|dpo|cfo|ciso|cto|ceo|"
    r"finance|legal|compliance|risk|security|secops|ops|hr|fraud|treasury|admin|approver)"
)
_REVIEW = re.compile(
    r"(?:(?:a|an|the)\s+)?(?:manual\s+review|review|escalate|hold|"
    r"(?:[A-Za-z&/\-]+\s+){0,3}" + _REVIEW_NOUN + r"|"
    r"(?:[A-Za-z&/\-]+\s+){0,2}" + _ROLE + r"s?)"
    r"(?:\s+(?:required|needed|first|before\s+[a-z]+ing))?",
    re.I,
)
_NAMES = _IDENT + r"(?:\s*(?:,|\+|&|\band\b)\s*" + _IDENT + r")*"
_REQUIRED = re.compile(
    r"(?:(?:require|requires|need|needs)\s+(?P<a>" + _NAMES + r")|"
    r"(?P<b>" + _NAMES + r")\s+(?:(?:is|are)\s+)?(?:required|mandatory|must\s+be\s+(?:set|given|"
    r"present)))",
    re.I,
)
_ELSE = re.compile(
    r"^\s*(?:(?:anything|everything|all)\s+else|all\s+others?|otherwise|else|"
    r"any\s+other(?:\s+value)?)\s*(?:->|=>|\u2192|:|,)?\s*",
    re.I,
)
_ELSE_ONLY = re.compile(
    r"\s*(?:(?:anything|everything|all)\s+else|all\s+others?|otherwise|else|any\s+other"
    r"(?:\s+value)?)\s*",
    re.I,
)
_ARROW = re.compile(r"\s*(?:->|=>|\u2192|-->|==>)\s*|\s*:\s+|\s+then\s+", re.I)
# the effect alone before 'if': 'deny', 'block', 'manual review', 'DPO review', 'escalate' (a
# subject before it, 'Refunds need review if …', narrows the rule and is left to prose readings)
_BARE_REVIEW = re.compile(
    r"(?:manual\s+|[A-Za-z&]+\s+(?:team\s+)?)?review|escalate|hold(?:\s+for\s+review)?", re.I
)
_IF_COMMA = re.compile(r"^\s*(?:if|when)\s+(?P<c>.+?)\s*,\s*(?:then\s+)?(?P<e>[^,]+)$", re.I)
_EFFECT_FIRST = re.compile(r"^\s*(?P<e>[A-Za-z][\w &/\-]*?)\s+(?:if|when|where)\s+(?P<c>.+)$", re.I)
_TRAIL_ALLOW = re.compile(
    r"\s+(?:->\s*|=>\s*|\u2192\s*|:\s*)?(?P<e>ok|okay|allowed|fine)\s*$", re.I
)
_RESTATED = re.compile(
    r"^\s*(?:never|not|no)\s+(?P<w>lower|less|below|under|shorter|higher|more|above|over|longer)\s*$",
    re.I,
)


# 'deny for agents': every request the judge sees is an agent's
_VACUOUS = re.compile(r"\s+for\s+(?:all\s+|any\s+)?(?:ai\s+)?(?:agents?|bots?)$", re.I)


# ', any direction', ', either way', ', regardless of plan', ', always': the effect holds whatever
# the named thing is, so the condition read is the whole condition (a widening never narrows)
_WIDENS = re.compile(
    r"\s*[,(]?\s*(?:(?:in\s+)?any\s+(?:direction|case|amount|plan|tier|region|size)|either\s+way|"
    r"regardless(?:\s+of\s+[a-z_]+)?|always|in\s+all\s+cases|no\s+exceptions?)\s*\)?$",
    re.I,
)


def _effect(text: str) -> tuple[str, str] | None:
    """('deny' | 'review' | 'allow' | 'require', path) of an effect, or None."""
    text = text.strip().rstrip(".!,;").strip()
    text = _VACUOUS.sub("", text)
    text = _WIDENS.sub("", text)
    if _DENY.fullmatch(text):
        return "deny", ""
    if _ALLOW.fullmatch(text):
        return "allow", ""
    m = _REQUIRED.fullmatch(text)
    if m:
        # 'beneficiary.iban required', 'tax_id and w9_ref required': each name an argument's
        names = re.split(r"\s*(?:,|\+|&|\band\b)\s*", m.group("a") or m.group("b"))
        if all("_" in n or "." in n for n in names):
            return "require", "|".join(names)
        return None
    if _REVIEW.fullmatch(text) and not _NOT_ONE_EFFECT.search(text):
        return "review", ""
    return None


@dataclass(frozen=True)
class Statement:
    cond: tuple
    effect: str  # deny | review | allow | require | else-deny | else-review | bound
    path: str = ""  # the required argument
    branches: tuple = ()  # for an else branch: the allowed conditions before it
    text: str = ""


def _split_statements(text: str) -> list[str]:
    text = text.strip().rstrip(".")
    parts = re.split(
        r"\s*;\s*|\.\s+(?=[A-Za-z(])|,\s*(?=(?:otherwise|else|anything\s+else|"
        r"everything\s+else|all\s+others?)\b)",
        text,
    )
    return [p for p in parts if p and p.strip()]


def _statement(text: str) -> tuple[Statement | None, list[str]]:
    """A statement and the words it leaves unread, or (None, words) when it is no notation."""
    arrow = None
    for m in _ARROW.finditer(text):
        arrow = m  # the last arrow: the effect follows it
    if arrow is not None:
        head, tail = text[: arrow.start()], text[arrow.end() :]
        if ":" in arrow.group(0) and _effect(head) is not None and _effect(head)[0] != "require":
            # 'deny: card_country in {RU, BY}': the effect first, then its condition
            try:
                return Statement(parse_condition(tail), _effect(head)[0], text=text), []
            except _Fail:
                return None, []
        if _ELSE_ONLY.fullmatch(head):
            eff = _effect(tail)
            if eff and eff[0] in ("deny", "review"):
                return Statement((), "else-" + eff[0], text=text), []
            return None, []
        try:
            cond = parse_condition(head)
        except _Fail:
            return None, []
        eff = _effect(tail)
        if eff is None:
            # the condition is notation, the effect has more to it: read what can be read
            words = tail.split()
            for k in range(len(words) - 1, 0, -1):
                eff = _effect(" ".join(words[:k]))
                if eff is not None:
                    st = Statement(cond, eff[0], eff[1], text=text)
                    return st, [w.strip(".,;:()").lower() for w in words[k:]]
            return None, []
        return Statement(cond, eff[0], eff[1], text=text), []
    comma = _IF_COMMA.match(text)
    if comma and arrow is None:
        # 'If x_y == true, deny', 'when risk_score >= 80, block'
        eff = _effect(comma.group("e"))
        if eff is not None:
            try:
                return Statement(parse_condition(comma.group("c")), eff[0], eff[1], text=text), []
            except _Fail:
                pass
    first = _EFFECT_FIRST.match(text)
    if first and (
        _DENY.fullmatch(first.group("e").strip())
        or _BARE_REVIEW.fullmatch(first.group("e").strip())
    ):
        eff = _effect(first.group("e"))
        if eff is not None and eff[0] != "require":
            try:
                return Statement(parse_condition(first.group("c")), eff[0], text=text), []
            except _Fail:
                return None, []
    allow = _TRAIL_ALLOW.search(text)
    if allow:
        try:
            return Statement(parse_condition(text[: allow.start()]), "allow", text=text), []
        except _Fail:
            return None, []
    m = _ELSE.match(text)
    if m and m.end() < len(text):
        eff = _effect(text[m.end() :])
        if eff and eff[0] in ("deny", "review"):
            return Statement((), "else-" + eff[0], text=text), []
    # a statement with no effect states what must hold: only a comparison or a list does
    # ('postal_code is mandatory' names a flag-like word and is left to the other readings)
    try:
        cond = parse_condition(text)
        if any(a[0] in ("cmp", "in") for a in _numeric_atoms(cond)):
            return Statement(cond, "bound", text=text), []
        return None, []
    except _Fail:
        pass
    # 'retention_days >= 365 for audit logs': a comparison and a qualifier no check reads
    words = text.split()
    for k in range(len(words) - 1, 0, -1):
        try:
            cond = parse_condition(" ".join(words[:k]))
        except _Fail:
            continue
        atoms = [a for a in _numeric_atoms(cond) if a[0] in ("cmp", "in")]
        if (
            any(s in ("and", "or") for s in words[k:])
            or not atoms
            or any("_" not in a[1] and "." not in a[1] for a in atoms)
        ):
            break  # 'Excavation > 1.5 m deep requires …': a noun of prose, not an argument
        return Statement(cond, "bound", text=text), [w.strip(".,;:()").lower() for w in words[k:]]
    return None, []


def _membership(cond: tuple) -> bool:
    """Whether a condition is one argument's membership of a written list (`country not in
    (RU, BY, IR)`, `env in {dev, staging}`)."""
    return bool(cond) and cond[0] == "in"


def read(text: str) -> tuple[list[Statement], list[str]] | None:
    """The statements of a rule written in notation and its unread words, or None."""
    statements: list[Statement] = []
    left: list[str] = []
    parts = _split_statements(text)
    notation = 0
    for part in parts:
        st, unread = _statement(part)
        if st is None:
            restated = _RESTATED.match(part)
            if restated and statements and statements[-1].effect == "bound":
                continue  # 'never lower' after 'retention_days >= 365'
            left += [w.strip(".,;:()").lower() for w in part.split()]
            continue
        notation += 1
        left += unread
        if st.effect.startswith("else-"):
            allowed = tuple(s.cond for s in statements if s.effect in ("allow", "bound"))
            if not allowed or any(s.effect not in ("allow", "bound") for s in statements):
                left += [w.lower() for w in part.split()]
                continue
            statements = [s for s in statements if s.effect not in ("allow", "bound")]
            st = Statement(
                (),
                st.effect,
                branches=allowed,
                text="; ".join([*(p for p in parts[: parts.index(part)]), part]),
            )
        statements.append(st)
    if not notation or not statements:
        return None
    if (
        not left
        and all(st.effect == "bound" for st in statements)
        and not all(_membership(st.cond) for st in statements)
    ):
        # 'session_timeout_minutes between 15 and 60', 'max_replicas <= 10': a binding alone is
        # the binding reading's (compiler._binding_checks), whose guards hold for it (a setting
        # the request does not change is not judged, a near name is review)
        return None
    return statements, [w for w in left if w]


# -- evaluation


def _leaves_for(view: RequestView, path: str) -> list[Leaf]:
    """The arguments `path` names: the exact path or a path ending with it, and any argument
    spelled the same with dots for underscores (`card.country` beside `card_country`,
    `name_check_result` for `name_check.result`), so that two of them make it ambiguous."""
    flat = path.replace(".", "_")
    out = []
    for lf in view.leaves:
        lp = lf.path
        if lp == path or lp.endswith("." + path):
            out.append(lf)
            continue
        # the same name with dots for underscores, from a segment boundary on
        tail = lp[len(lp) - len(flat) :]
        if tail.replace(".", "_") == flat and (len(lp) == len(flat) or lp[-len(flat) - 1] == "."):
            out.append(lf)
    return out


def _shape(value: str) -> str:
    s = re.sub(r"[A-Z]", "A", value)
    s = re.sub(r"[a-z]", "a", s)
    s = re.sub(r"[0-9]", "9", s)
    return re.sub(r"(.)\1+", r"\1", s)


def _equal(got: Any, want: Any, kind: str, listed: tuple[str, ...] = ()) -> bool | None:
    if kind == "num":
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return None
        return float(got) == float(want)
    if kind == "bool":
        return binding_equal(got, want)
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        if re.fullmatch(r"-?\d+(?:\.\d+)?", str(want)):
            return float(got) == float(want)  # '80/443' against `port: 443`
        return None
    if not isinstance(got, str):
        return None
    same = binding_equal(got, str(want))
    if same is False:
        a, b = got.strip().lower(), str(want).strip().lower()
        if a.startswith(b) or b.startswith(a):
            return None  # 'production' against prod, 'GB' against GBR: a human says
    if same is False:
        # 'Russia' against (RU, BY, IR), 'Euro' against {EUR, GBP}: written another way than
        # codes the rule lists, so a human says whether it is one of them
        members = listed or (str(want),)
        if all(re.fullmatch(r"[A-Z]{2,4}", v) for v in members) and not re.fullmatch(
            r"[A-Z]{2,6}", got
        ):
            return None
        sizes = {len(v) for v in members}
        if sizes in ({2}, {3}) and all(v.isupper() for v in members) and len(got) not in sizes:
            return None  # 'RUS' against (RU, BY): an ISO code of another length
    return same


_CMP = {
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
}


def _beside(view: RequestView, leaf: Leaf) -> list[Leaf]:
    """Other arguments named with the whole of `leaf`'s last name ('idle_session_timeout_minutes'
    beside `session_timeout_minutes`, `amount_override` beside `amount`): any of them may be the
    value that counts."""
    last = leaf.path.rsplit(".", 1)[-1]
    out = []
    for lf in view.leaves:
        if lf is leaf:
            continue
        other = lf.path.rsplit(".", 1)[-1]
        if other != last and (
            other.endswith("_" + last) or other.startswith(last + "_") or f"_{last}_" in other
        ):
            out.append(lf)
    return out


def _value_of(view: RequestView, path: str) -> tuple[Any, str]:
    leaves = _leaves_for(view, path)
    if not leaves:
        return None, f"`{path}` is not among the arguments"
    if len({lf.path for lf in leaves}) > 1 or len(leaves) > 1:
        return None, f"`{path}` names several arguments ({', '.join(lf.path for lf in leaves)})"
    return leaves[0], ""


def _eval(node: tuple, view: RequestView, notes: list[str]) -> bool | None:
    kind = node[0]
    if kind in ("and", "or"):
        results = [_eval(n, view, notes) for n in node[1:]]
        if kind == "and":
            if any(r is False for r in results):
                return False
            return None if any(r is None for r in results) else True
        if any(r is True for r in results):
            return True
        return None if any(r is None for r in results) else False
    if kind == "word":
        return _word(node[1], view, notes)
    if kind == "not":
        inner = _eval(node[1], view, notes)
        return None if inner is None else not inner
    path = node[1]
    leaf, why = _value_of(view, path)
    if leaf is None:
        notes.append(why)
        return None
    held = _on_leaf(node, view, notes, leaf)
    if held is not None:
        for other in _beside(view, leaf):
            if _on_leaf(node, view, [], other) is not held:
                notes.append(f"{other.path} = {other.value!r} may state `{path}` otherwise")
                return None
    return held


def _on_leaf(node: tuple, view: RequestView, notes: list[str], leaf: Leaf) -> bool | None:
    """One comparison or list on the argument `leaf`."""
    kind = node[0]
    got = leaf.value
    if kind == "in":
        if isinstance(got, (list, tuple, dict)):
            notes.append(f"{leaf.path} holds several values")
            return None
        results = [_equal(got, v, "str", node[3]) for v in node[3]]
        inside = (
            True
            if any(r is True for r in results)
            else (None if any(r is None for r in results) else False)
        )
        if inside is None:
            notes.append(f"{leaf.path} = {got!r} is not written as a listed value")
            return None
        notes.append(f"{leaf.path} = {got!r}")
        return (not inside) if node[2] else inside
    _, _, op, want, vkind = node
    if vkind == "path":
        other, why = _value_of(view, want)
        if other is None:
            notes.append(why)
            return None
        a, b = got, other.value
        if any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in (a, b)):
            if op in ("eq", "ne") and isinstance(a, str) and isinstance(b, str):
                same = a == b
                notes.append(f"{leaf.path} = {a!r}, {other.path} = {b!r}")
                return same if op == "eq" else not same
            notes.append(f"{leaf.path} = {a!r} and {other.path} = {b!r} are not both numbers")
            return None
        notes.append(f"{leaf.path} = {a!r}, {other.path} = {b!r}")
        if op in ("eq", "ne"):
            return (float(a) == float(b)) is (op == "eq")
        return _CMP[op](float(a), float(b))
    if isinstance(got, (list, tuple, dict)):
        notes.append(f"{leaf.path} holds several values")
        return None
    if op in ("eq", "ne"):
        same = _equal(got, want, vkind)
        if same is None:
            notes.append(f"{leaf.path} = {got!r} is not written as the rule's value")
            return None
        notes.append(f"{leaf.path} = {got!r}")
        return same if op == "eq" else not same
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        notes.append(f"{leaf.path} = {got!r} is not a number")
        return None
    if vkind.startswith("money:"):
        currency = _currency_of(view, leaf)
        if currency != vkind[6:]:
            # '> 5000 EUR' against an amount in another currency or in none shown
            notes.append(f"{leaf.path} = {got!r} is in {currency or 'no currency shown'}")
            return None
    elif vkind == "pct" and abs(float(got)) <= 1 < abs(float(want)):
        notes.append(f"{leaf.path} = {got!r} may be a fraction, not a percentage")
        return None
    elif (
        vkind == "num"
        and 0 < abs(float(got)) < 1 < abs(float(want)) <= 100
        and leaf.keys & _SCALE_KEYS
        and _CMP[op](float(got), float(want)) != _CMP[op](float(got) * 100, float(want))
    ):
        # 'If risk_score >= 80' and `risk_score: 0.85`: a score on a scale of 1 may be 85 on the
        # rule's scale of 100, on the other side of the bound (red team jred13); 0.3 or 30 is
        # below it either way
        notes.append(f"{leaf.path} = {got!r} may be on another scale than {want!r}")
        return None
    unit = _find_unit_argument(view, leaf)
    if unit is not None:
        # `amount: 6` beside `amount_unit: "thousands"`: the number may not be the rule's
        notes.append(f"{unit.path} = {unit.value!r} may scale {leaf.path} = {got!r}")
        return None
    notes.append(f"{leaf.path} = {got!r}")
    return _CMP[op](float(got), float(want))


_SCALE_KEYS = frozenset(
    _stem(w) for w in "score rate ratio probability prob confidence likelihood risk share".split()
)


def _word(word: str, view: RequestView, notes: list[str]) -> bool | None:
    """'downgrade': a flag of that name, the value of an argument naming the kind of request,
    or a word of the tool name; otherwise unknown."""
    leaves = _leaves_for(view, word)
    if leaves:
        if len(leaves) == 1 and isinstance(leaves[0].value, bool):
            notes.append(f"{leaves[0].path} = {leaves[0].value!r}")
            return leaves[0].value
        notes.append(f"{leaves[0].path} = {leaves[0].value!r} is not a flag")
        return None
    if "_" in word:
        notes.append(f"`{word}` is not among the arguments")
        return None  # 'is_verified': a flag's name, never a kind of request
    if word in re.split(r"[^a-z0-9]+", view.tool_name.lower()):
        notes.append(f"the tool {view.tool_name} names {word}")
        return True
    kinds = [
        lf
        for lf in view.leaves
        if isinstance(lf.value, str) and _KIND_NAMES.fullmatch(lf.path.rsplit(".", 1)[-1])
    ]
    held = [(lf, binding_equal(lf.value, word)) for lf in kinds]
    for lf, same in held:
        if same:
            notes.append(f"{lf.path} = {lf.value!r}")
            return True
    if len(held) == 1 and held[0][1] is False:
        lf = held[0][0]
        if re.fullmatch(r"[a-z]+(?:[_\-][a-z]+)*", lf.value) and not any(
            isinstance(o.value, str) and word in o.value.lower() for o in view.leaves
        ):
            notes.append(f"{lf.path} = {lf.value!r}, not {word!r}")
            return False
    notes.append(f"no argument says whether the request is a {word}")
    return None


def render(node: tuple) -> str:
    kind = node[0]
    if kind in ("and", "or"):
        inner = f" {kind} ".join(
            f"({render(n)})" if n[0] in ("and", "or") else render(n) for n in node[1:]
        )
        return inner
    if kind == "not":
        return f"not ({render(node[1])})"
    if kind == "word":
        if "_" in node[1]:
            return f"`{node[1]}` is true"
        return f"`{node[1]}` is true or the request is a {node[1]} (its tool or kind says so)"
    if kind == "in":
        return f"`{node[1]}` is {'not ' if node[2] else ''}one of {', '.join(node[3])}"
    _, path, op, want, vkind = node
    if vkind == "path":
        shown = f"`{want}`"
    elif vkind == "bool":
        shown = "true" if want else "false"
    elif vkind == "num" or vkind.startswith("money:") or vkind == "pct":
        shown = f"{want:,.2f}".rstrip("0").rstrip(".")
        shown += f" {vkind[6:]}" if vkind.startswith("money:") else "%" if vkind == "pct" else ""
    else:
        shown = f'"{want}"'
    return f"`{path}` {_OP_WORDS[op]} {shown}"


def _paths(node: tuple) -> list[str]:
    if node[0] in ("and", "or"):
        return [p for n in node[1:] for p in _paths(n)]
    if node[0] == "word":
        return []
    if node[0] == "not":
        return _paths(node[1])
    out = [node[1]]
    if node[0] == "cmp" and node[4] == "path":
        out.append(node[3])
    return out


_VERBS = {"deny": "Deny", "review": "Send to review", "allow": "Allow"}


@dataclass(frozen=True)
class NotationRule(Check):
    """One statement of a rule written in notation (see the module's docstring)."""

    statement: Statement = field(default_factory=lambda: Statement((), "bound"))
    # 'When discount >= 20% => VP approval': a plain word on the left may be the rule's noun, not
    # an argument. When no argument has exactly that name, the rule's reading in words decides
    # (only when that reading is understood; otherwise the plain word is unknown: review).
    prose: tuple[Check, ...] = ()
    # 'risk_score >= 70 -> deny; risk_score < 30 -> auto': an allowance names what may go
    # through on its own; a request outside it that no other statement speaks to (50) is not
    # cleared by the rule: review (no else branch says otherwise)
    others_review: bool = False
    kind: str = field(default="notation", init=False)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(statement=self.statement.text, form=self.statement.effect)
        return d

    def reading(self) -> str:
        own = self._reading()
        if self.prose:
            words = "; ".join(c.reading() for c in self.prose)
            return f"{own} (when no argument is named {', '.join(self._plain)}: {words})"
        return own

    def _reading(self) -> str:
        st = self.statement
        if st.effect == "bound":
            return f"Deny unless {render(st.cond)}"
        if st.effect == "require":
            return f"Deny when {render(st.cond)} and `{st.path}` is missing or empty"
        if st.effect.startswith("else-"):
            either = " or ".join(render(c) for c in st.branches)
            return f"{_VERBS[st.effect[5:]]} unless {either}"
        if st.effect == "allow":
            rest = "; otherwise send to review" if self.others_review else ""
            return f"Allow when {render(st.cond)}{rest}"
        return f"{_VERBS[st.effect]} when {render(st.cond)}"

    @property
    def _plain(self) -> tuple[str, ...]:
        conds = (
            self.statement.branches
            if self.statement.effect.startswith("else-")
            else (self.statement.cond,)
        )
        return tuple(p for c in conds if c for p in _paths(c) if "." not in p and "_" not in p)

    def evaluate(self, view: RequestView) -> Outcome:
        if self.prose and any(not any(lf.path == p for lf in view.leaves) for p in self._plain):
            outcomes = [c.evaluate(view) for c in self.prose]
            return min(outcomes, key=lambda o: _SEVERITY.get(o.status, 9))
        st = self.statement
        notes: list[str] = []
        if st.effect.startswith("else-"):
            results = [_eval(c, view, notes) for c in st.branches]
            held = (
                True
                if any(r is True for r in results)
                else (None if any(r is None for r in results) else False)
            )
        else:
            held = _eval(st.cond, view, notes)
            if st.effect == "bound" and held is not None:
                held = not held  # the rule states what must hold: it fires when it does not
        message = "; ".join(notes)
        conds = st.branches if st.effect.startswith("else-") else (st.cond,)
        args = tuple(p for c in conds for p in _paths(c) if _leaves_for(view, p))
        if st.effect.startswith("else-"):
            if held is None:
                return Outcome(UNKNOWN, message, args)
            if held:
                return Outcome(SATISFIED, message, args)
            outcome = VIOLATED if st.effect == "else-deny" else REVIEW
            return Outcome(outcome, f"{message}: none of the allowed values", args)
        if held is None:
            return Outcome(UNKNOWN, message, args)
        if st.effect == "allow":
            if not held and self.others_review:
                return Outcome(REVIEW, f"{message}: outside what the rule allows on its own", args)
            return Outcome(SATISFIED if held else NOT_APPLICABLE, message, args)
        if not held:
            return Outcome(SATISFIED, message, args)
        if st.effect == "require":
            leaves = _leaves_for(view, st.path)
            if not leaves:
                return Outcome(VIOLATED, f"{message}, and `{st.path}` is missing", args)
            if len(leaves) > 1:
                return Outcome(UNKNOWN, f"`{st.path}` names several arguments", args)
            got = leaves[0].value
            if not truthy(got):
                return Outcome(VIOLATED, f"{message}, and `{st.path}` is empty", args)
            if no_reference(got):
                return Outcome(UNKNOWN, f"{leaves[0].path} = {got!r} may say it is missing", args)
            return Outcome(SATISFIED, f"{message}; {leaves[0].path} is given", args)
        if st.effect in ("deny", "bound"):
            return Outcome(VIOLATED, message, args)
        return Outcome(REVIEW, message, args)


_SEVERITY = {VIOLATED: 0, REVIEW: 1, UNKNOWN: 2, SATISFIED: 3, "permitted": 4, NOT_APPLICABLE: 5}


def _numeric_atoms(node: tuple) -> list[tuple]:
    if not node:
        return []
    if node[0] in ("and", "or"):
        return [a for n in node[1:] for a in _numeric_atoms(n)]
    if node[0] == "not":
        return _numeric_atoms(node[1])
    return [node]


def plain_paths(checks: list[Check]) -> bool:
    """Whether a notation reading names an argument by a plain word ('discount', 'amount') in
    a numeric comparison only: there the prose reading binds the measure by its words. A plain
    word compared with a value or a list ('scope in {…}') has no such fallback (unknown)."""
    atoms = [
        a
        for c in checks
        if isinstance(c, NotationRule)
        for cond in (c.statement.branches or (c.statement.cond,))
        for a in _numeric_atoms(cond)
    ]
    plain = [a for a in atoms if a[0] != "word" and "." not in a[1] and "_" not in a[1]]
    return bool(plain) and all(
        a[0] == "cmp" and (a[4] in ("num", "pct") or a[4].startswith("money:")) for a in plain
    )


def with_prose(checks: list[Check], prose: tuple[Check, ...]) -> list[Check]:
    """The notation checks, each falling back on the understood prose reading `prose`."""
    return [
        replace(c, prose=prose) if isinstance(c, NotationRule) and c._plain else c for c in checks
    ]


def notation_checks(index: int, source: str) -> tuple[list[Check], list[str]] | None:
    """The checks of a rule written in notation and the words they leave unread, or None."""
    found = read(source)
    if found is None:
        return None
    statements, left = found
    checks: list[Check] = []
    for st in statements:
        effect = {"allow": "allow", "review": "review", "else-review": "review"}.get(
            st.effect, "deny"
        )
        for path in st.path.split("|") if st.effect == "require" else [st.path]:
            one = replace(st, path=path)
            checks.append(
                NotationRule(
                    index,
                    source,
                    effect,
                    (),
                    (),
                    statement=one,
                    others_review=st.effect == "allow",
                )
            )
    return checks, left
