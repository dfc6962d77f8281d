"""Holds on named values, as staff write them: freezes, suspensions, receiverships, moratoria.

`Elm Court and Birchwood Towers are in receivership. No rent collection at those properties; the
receiver collects.`, `FREEZE: Harbor Point portfolio - no lease changes of any kind until the sale
closes.`, `DUB base roster is FROZEN pending the union agreement. No changes to DUB-based crew.`,
`CHANGE FREEZE - substation SUB-114 (Riverside): no setpoint or configuration writes until the
relay retrofit closes.`, `VND-2310 is SUSPENDED (lapsed insurance cert) - do not issue work to
them.`, `Alameda County - eviction moratorium in effect: no pay-or-quit notices, no filings.`,
`CEO mailbox (ceo@northwind.com): no collection without GC sign-off.`

A rule is read here whole or not at all, by its own grammar: the held subject (named values, the
kind they are of), its state (frozen, suspended, in receivership, on hold, a moratorium or freeze
in effect) or a label (FREEZE:, CHANGE FREEZE -), then only words that add no condition — a reason
or a lifetime ('pending the union agreement', 'until the sale closes', '(lapsed insurance cert)',
'(Docket 24-0117)', 'in effect') — and restatements of what is stopped ('no lease changes of any
kind', 'do not issue work to them', 'No changes to DUB-based crew', 'the receiver collects'). Any
other word and the rule is left to the other readings.

What the check does (`Hold.evaluate`):
- a request whose acts are all reads changes nothing: outside the hold;
- the value is read on the arguments named for its kind (`portfolio`, `base`, `county`), or, for a
  code with no kind, on the arguments holding a code of its shape (`VND-1044` beside `VND-2310`);
  it is compared in any case and spelling ('Harbor Point', 'harbor_point', 'HARBOR-POINT'; 'Cook
  County' for the county Cook);
- the held value there and an act the rule names ('lease changes' and `lease.amend`): the rule's
  effect (deny; review for 'without … sign-off'); another act than the ones named: review;
- a value that extends a held one ('Elm Court East', 'PS-07A') or is one letter off a long name
  ('Harbor Pointe'): review; a clearly different value (SUB-115, FRA): outside the hold;
- no argument of the kind and none of the shape (or the value only in free text): review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webapp.judge.checks import (
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Check,
    Outcome,
    _change_shown,
    surface_words,
)
from webapp.judge.coverage import CATEGORY_QUALIFIERS
from webapp.judge.request_view import ACT_STEMS, RequestView, same_action, scalars
from webapp.judge.text import STOPWORDS, stem, words

# -- the grammar ----------------------------------------------------------------------------------

# a rule's own code before it ('R4 -', '6.', '5)', '(c)')
_CODE = re.compile(
    r"^\s*(?:[A-Za-z]{0,3}\d{1,3}[a-z]?|\([a-z0-9]{1,3}\))(?:\s*[-.):\u2013\u2014])\s+"
)
_DASH = r"\s*(?:\s-|\u2013|\u2014|:|;|\.)\s*"
_STATE = (
    r"(?P<state>frozen|suspended|in\s+receivership|under\s+receivership|quarantined|embargoed|"
    r"paused|halted|locked|on\s+(?:(?:a|an)\s+)?(?:legal\s+|litigation\s+|payment\s+|credit\s+|"
    r"compliance\s+|regulatory\s+)?hold|(?:under|in)\s+(?:a\s+|an\s+)?(?:change\s+|code\s+|legal\s+|"
    r"regulatory\s+)?(?:freeze|moratorium|hold))"
)
_BE = r"\s+(?:is|are|has\s+been|have\s+been|remains?|stays?)\s+(?:(?:currently|now|still)\s+)?"
# 'X is frozen …', 'Elm Court and Birchwood Towers are in receivership …'
_STATED = re.compile(
    r"^(?P<subj>[^.;:()]+?(?:\s*\([^()]*\))?)" + _BE + _STATE + r"\b(?P<tail>.*)$", re.I | re.S
)
# 'FREEZE: Harbor Point portfolio - …', 'CHANGE FREEZE - substation SUB-114 (Riverside): …'
# ('AUDIT HOLD - grantee GR-2291 (…): …', 'FREEZE: core-edge-fw -- no rule changes …': a double
# dash is a dash too)
_LABELLED = re.compile(
    r"^(?P<label>(?:change\s+|code\s+|legal\s+|regulatory\s+|audit\s+|compliance\s+)?"
    r"(?:freeze|hold|moratorium)|suspended)"
    r"\s*(?::|\s--?|\u2013|\u2014)\s*(?P<subj>[^.;:()]+?(?:\s*\([^()]*\))?)"
    r"(?P<tail>(?:\s*(?::|\s--?\s|\u2013|\u2014|;|\.)).*|\s*)$",
    re.I | re.S,
)
# 'Alameda County - eviction moratorium in effect: …'
_NAMED_FIRST = re.compile(
    r"^(?P<subj>[^.;:()]+?(?:\s*\([^()]*\))?)\s*(?:\s-\s|\u2013|\u2014|:)\s*"
    r"(?:(?:a|an|the)\s+)?(?P<what>[a-z]+\s+)?(?P<label>moratorium|freeze|hold)"
    r"(?:\s+(?:is\s+)?(?:in\s+effect|in\s+force|in\s+place|active)\b"
    # 'UK01 entity: CHANGE FREEZE (year-end migration). No run submissions for UK01.': the label
    # alone, then a reason or the sentence's end, states the freeze as in force
    r"|(?=\s*(?:\([^()]*\)\s*)?(?:[.;]|$)))(?P<tail>.*)$",
    re.I | re.S,
)
# 'CEO mailbox (ceo@northwind.com): no collection without GC sign-off.'
_GUARDED = re.compile(
    r"^(?P<subj>[^.;:()]+?\s*\([^()]+\))\s*:\s*no\s+(?P<acts>[a-z][a-z\s\-]*?)\s+without\s+"
    r"(?:(?:the|a|an)\s+)?(?P<who>[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){0,2}?)\s+"
    r"(?:sign-?\s?off|approval|review)\s*\.?\s*$",
    re.I,
)

# words of a lifetime or a reason that would make it a condition instead
_CONDITIONAL = re.compile(
    r"[$\u20ac\u00a3%]|\b(?:if|unless|except|only|when|whenever|where|while|over|above|under|below|"
    r"more|less|least|most|exceed\w*|without|but|other|others|allowed|permitted|may|can|ok)\b",
    re.I,
)
_LIFETIME = re.compile(
    r"^\s*(?:,\s*)?(?:(?:until|till|pending|through|thru|due\s+to|because\s+of|following)\s+"
    r"(?P<why>[^.,;:()\u2013\u2014]+?)"
    # 'for quarter close', 'for the stocktake': a 'for' names a period or an event only; 'for
    # Globex', 'for EU customers' would be a scope
    r"|for\s+(?P<period>(?:the\s+)?(?:[a-z][a-z\-]*\s+){0,2}(?:close|closing|audit|review|"
    r"stocktake|count|migration|sale|duration|holidays?|quarter|month|week|year|season|window|"
    r"period|investigation|cutover|retrofit|refinancing|merger|transition)))"
    r"(?=\s*(?:$|[.,;:()\u2013\u2014]|\s-\s))",
    re.I,
)
# 'until approved by the CFO', 'pending sign-off from Legal': a release a request may show,
# which is a condition, not a lifetime ('until the Q3 close is signed off' is an event)
_RELEASED_BY = re.compile(
    r"\b(?:approved|authori[sz]ed|cleared|released|lifted|waived)\s+by\b|"
    r"\b(?:approval|sign-?\s?off|consent|authori[sz]ation|clearance|waiver)\s+(?:from|by|of)\b|"
    r"^(?:[a-z]+\s+)?(?:approval|sign-?\s?off|consent|authori[sz]ation|clearance|waiver)$",
    re.I,
)
_BRACKET = re.compile(r"^\s*\((?P<why>[^()]{1,80})\)")
# words in a bracket after the state that make it more than a reason: another thing held too
# ('(and its affiliate VND-2311)', '(also covers Elm Court Annex)'), an exception ('(emergency
# repairs excepted)', '(renewals exempt)'), or the hold's end ('(reinstated 11/01)', '(sale
# closed 10/15)'): left to the other readings
_NOT_A_REASON = re.compile(
    r"\b(?:and|also|too|plus|incl\w*|cover\w*|affiliat\w*|subsidiar\w*|related|sister|same|"
    r"except\w*|exempt\w*|exclud\w*|fine|lifted|reinstated|restored|closed|ended|"
    r"released|resolved|cleared|over|done|removed|cancel\w*|withdrawn|reversed|now)\b",
    re.I,
)
_IN_EFFECT = re.compile(r"^\s*(?:(?:is\s+)?(?:in\s+effect|in\s+force|in\s+place)|active)\b", re.I)
_SEP = re.compile(r"^\s*(?:[.;:]|\s--?\s|\u2013|\u2014|,)\s*|^\s+--?\s*")
# 'no lease changes of any kind until the sale closes', 'no pay-or-quit notices, no filings'
_NO_ACTS = re.compile(
    r"^no\s+(?P<acts>[a-z][a-z\-]*(?:\s+(?!(?:of|at|to|for|on|with|in|from|until|till|pending|"
    r"by|during|or|and)\b)[a-z][a-z\-]*){0,3}(?:\s+(?:or|and)\s+[a-z][a-z\-]*(?:\s+(?!(?:of|at|to|"
    r"for|on|with|in|from|until|till|pending|by|during)\b)[a-z][a-z\-]*){0,2})?"
    r"(?:\s+to\s+(?:vacate|quit|leave|cure|pay))?)(?P<any>\s+of\s+any\s+(?:kind|sort|type))?",
    re.I,
)
# 'do not issue work to them', 'don't dispense', 'never place orders with them'
_DO_NOT = re.compile(
    r"^(?:do\s+not|don't|never)\s+(?P<acts>[a-z][a-z\-]*(?:\s+(?!(?:of|at|to|for|on|with|in|from|"
    r"until|till|pending|by|during|them|it)\b)[a-z][a-z\-]*){0,2})",
    re.I,
)
# 'at those properties', 'to them', 'with them', 'there'
_ANAPHOR = re.compile(
    r"^\s+(?:(?:at|to|for|on|with|in|from|against|under|of)\s+(?:(?:those|these|that|this|the)\s+"
    r"(?P<kind>[a-z]+)|them|it|this\s+one)|there)\b",
    re.I,
)
# 'to DUB-based crew', 'for Harbor Point': the held subject said again
_RESTATED_SUBJECT = re.compile(
    r"^\s+(?:to|for|at|on|in|with|from|against|of)\s+(?:the\s+)?(?P<subj>[A-Za-z0-9][\w@.\-]*"
    r"(?:\s+[A-Za-z][\w\-]*){0,2})",
)
# 'the receiver collects': who does it instead, which adds no condition
_INSTEAD = re.compile(
    r"^(?:the\s+)?(?:[a-z][\w\-]*\s+){0,2}(?:receiver|trustee|administrator|custodian|court|"
    r"servicer|escrow\s+agent)\s+(?:collects|handles\s+(?:it|them|this)|takes\s+over|"
    r"does\s+(?:it|this)|manages\s+(?:it|them))\b",
    re.I,
)
_EMPHASIS = re.compile(r"^(?:period|no\s+exceptions|full\s+stop)\b", re.I)

# nouns naming what kind of thing a value is, written capitalised before or after a name
_KIND_NOUNS = frozenset(
    stem(w)
    for w in "county counties city parish district region state province borough municipality "
    "counterparty counterparties tenant tenants account accounts lot lots tariff tariffs schedule "
    "schedules vendor vendors supplier suppliers customer customers member members portfolio "
    "portfolios property properties site sites store stores station stations substation "
    "substations warehouse warehouses base bases project projects matter matters client clients "
    "carrier carriers mailbox mailboxes fund funds branch branches plant plants building "
    "buildings facility facilities program programme contract contracts campus entity entities "
    "merchant merchants seller sellers partner partners ward wards clinic clinics team teams "
    "desk desks route routes gate gates grantee grantees recipient recipients".split()
)
# a kind word written after a place's name ('Alameda County'): the value is the name without it
_PLACE_KINDS = frozenset(stem(w) for w in "county city parish district borough".split())
# how one act is often written another way in a tool name
_ACT_WAYS: dict[str, frozenset[str]] = {
    "collect": frozenset({"charg", "bill", "debit", "autopay", "collect", "dun"}),
    "plac": frozenset({"creat", "submit", "plac", "book", "issu"}),
    "issu": frozenset({"creat", "issu", "assign", "dispatch", "send", "award"}),
    "fil": frozenset({"fil", "submit"}),
    "configur": frozenset({"config", "configur", "setting"}),
}
# acts that change nothing yet are what a hold may stop ('no collection', 'no exports')
_READ_LIKE = frozenset(
    stem(w)
    for w in "collection collect export download access view search read copy pull retrieve "
    "query scan inspect disclose disclosure share preview".split()
)
# 'rent collection', 'fee collection': money collected is a charge, not a read
_MONEY = frozenset(
    stem(w)
    for w in "rent rents payment payments fee fees dues debt debts invoice invoices premium "
    "premiums arrears balance balances money cash funds".split()
)
# words for any change: every act but a read is one
_ANY_CHANGE = frozenset({"chang", "modify", "alter", "writ", "updat", "edit", "touch"})
_FILLER = frozenset({"new", "any", "further", "more", "all"})
# the ends of a route: a held base or station there is where a thing goes, not the thing held
_ROUTE_KEYS = frozenset(
    stem(w) for w in "destination dest origin arrival departure route via stopover".split()
)


def hold_checks(index: int, source: str, stated: bool = True) -> list[Check] | None:
    """The one check of a hold on named values, read whole, or None; with `stated` False only
    the forms led by a label or a named subject and a dash or colon ('FREEZE: …', 'Alameda
    County - eviction moratorium in effect: …', 'CEO mailbox (…): no … without … sign-off'),
    which the prose readings take for a flat prohibition."""
    text = _CODE.sub("", source.strip(), count=1).strip()
    effect, what, state, m = "deny", None, None, None
    guarded = _GUARDED.match(text)
    if guarded:
        subj, acts, tail, effect = guarded.group("subj"), [guarded.group("acts")], "", "review"
        if _CONDITIONAL.search(guarded.group("who")):
            return None
    else:
        m = _LABELLED.match(text) or _NAMED_FIRST.match(text)
        if m is None and stated:
            m = _STATED.match(text)
        if m is None:
            return None
        subj, tail, acts = m.group("subj"), m.group("tail"), []
        what, state = m.groupdict().get("what"), m.groupdict().get("state")
    held = _subject(subj)
    if held is None:
        return None
    values, kind = held
    rest = _tail(tail, values)
    if rest is None:
        return None
    acts += rest[0]
    if not acts and not guarded and what:
        acts = [what]  # 'Alameda County - eviction moratorium in effect.': evictions stop
    on = re.match(r"on\s+(?:an?\s+)?(payment|credit)\s+hold", state or "", re.I)
    if not acts and on:
        acts = [on.group(1).lower() + "s"]  # 'on payment hold': payments stop
    kind = kind + rest[1]
    if (guarded or m.re is not _STATED) and not (
        any(_is_code(v) for v in values) or any(k in _KIND_NOUNS for k in kind)
    ):
        # 'Note: freeze in effect.': before a colon or a dash, a code or a kind says a thing is
        # named; a bare word there is a label
        return None
    phrases = [p for a in acts for p in _act_phrases(a)]
    if acts and not phrases:
        return None
    return [
        Hold(
            index,
            source,
            effect,
            values=tuple(values),
            kind_words=tuple(dict.fromkeys(kind)),
            acts=tuple(stems for _, stems in phrases),
            act_texts=tuple(text for text, _ in phrases),
        )
    ]


def _subject(subj: str) -> tuple[list[str], list[str]] | None:
    """The held values and the words of their kind: 'Harbor Point portfolio' is (Harbor Point;
    portfolio), 'substation SUB-114 (Riverside)' (SUB-114, Riverside; substation), 'Rate schedules
    R-1, R-2 and GS-1' (R-1, R-2, GS-1; rate, schedule)."""
    alias = None
    b = re.search(r"\s*\((?P<inner>[^()]+)\)\s*$", subj)
    if b:
        alias = b.group("inner").strip()
        subj = subj[: b.start()]
    subj = re.sub(r"^(?:the|our)\s+", "", subj.strip(), flags=re.I)
    parts = re.split(r"\s*(?:,|&|\band\b)\s*", subj)
    if not parts or any(not p for p in parts):
        return None
    values: list[str] = []
    kind: list[str] = []
    for part in parts:
        before = len(values)
        toks = part.split()
        if any(t.lower().strip(",") in CATEGORY_QUALIFIERS for t in toks):
            return None  # 'the high-risk ACME-7 vendor account': a class qualifies it
        if sum(_is_code(t) for t in toks) > 1:
            return None  # 'Non-the ACME-7': two codes side by side, one qualifying the other
        if any(_is_code(t) for t in toks):
            # 'Rate schedules R-1', 'pump station PS-07', 'DUB base roster': beside a code,
            # every other word says what kind of thing it is
            for tok in toks:
                if _is_code(tok):
                    values.append(tok)
                elif re.fullmatch(r"[A-Za-z][a-z\-]*", tok) and tok.lower() not in STOPWORDS:
                    if _act_noun(tok):
                        return None
                    kind.append(stem(tok.lower()))
                else:
                    return None
            if (
                len(parts) == 1
                and len(toks) > 1
                and _is_code(toks[0])
                and toks[-1][0].islower()
                and toks[-1].lower().endswith("s")
                and stem(toks[-1].lower()) in _KIND_NOUNS
            ):
                return None  # 'Tier-3 vendors', 'EU accounts': a class, not a name
            continue
        name: list[str] = []
        for tok in toks:
            low = tok.lower()
            if tok[0].isupper() and not (
                stem(low) in _KIND_NOUNS and (not name or stem(low) in _PLACE_KINDS)
            ):
                if low in STOPWORDS or not re.fullmatch(r"[A-Z][\w&'\-]*", tok):
                    return None
                name.append(tok)
            elif re.fullmatch(r"[A-Za-z][a-z\-]*", tok) and low not in STOPWORDS:
                if _act_noun(tok):
                    return None
                if name:
                    values.append(" ".join(name))
                    name = []
                kind.append(stem(low))
            else:
                return None
        if name:
            values.append(" ".join(name))
        if len(values) == before and len(parts) > 1:
            return None  # 'VND-2310 and subsidiaries': a class joined to the named value
        if (
            len(parts) == 1
            and len(values) == 1
            and toks
            and not _is_code(toks[0])
            and toks[-1].lower().endswith("s")
            and stem(toks[-1].lower()) in kind
            and toks[-1][0].islower()
        ):
            return None  # 'Premium customers', 'Enterprise accounts': a class, not a name
    if alias:
        if _is_code(alias) and " " not in alias:
            # 'CEO mailbox (ceo@northwind.com)': the literal in brackets is the value, the words
            # before it name it; 'Account 99001 (payments-prod)': both name it
            if "@" in alias or not values:
                kind += [stem(v.lower()) for v in values if re.fullmatch(r"[A-Za-z]+", v)]
                values = [alias]
            elif all(_is_code(v) for v in values):
                values.append(alias)
            else:
                return None
        elif re.fullmatch(r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2}", alias) and values:
            values.append(alias)  # 'SUB-114 (Riverside)': the same thing's name
        elif (
            re.fullmatch(r"[a-z][a-z\s\-]*", alias)
            and not _CONDITIONAL.search(alias)
            and not _NOT_A_REASON.search(alias)
        ):
            pass  # a reason ('(lapsed insurance cert)'): adds no condition
        else:
            return None
    if not values or any(_an_act(k) for k in kind):
        return None
    if any(len(v) > 60 for v in values):
        return None
    return values, kind


def _an_act(kind: str) -> bool:
    """A word beside the held name that names an act or a state, not a kind of thing
    ('disbursements', 'suspended'): the subject is an act, which this grammar does not read."""
    return kind not in _KIND_NOUNS and (kind in ACT_STEMS or kind in _STATE_STEMS)


def _act_noun(word: str) -> bool:
    """'closures', 'approvals', 'payments': a noun made from a verb names an act, not a kind."""
    low = word.lower()
    return stem(low) not in _KIND_NOUNS and bool(re.search(r"(?:ure|ion|ment|al|ing|ed)s?$", low))


_STATE_STEMS = frozenset(
    stem(w)
    for w in "frozen freeze suspended suspend hold held pending pend until halted paused "
    "locked embargoed quarantined receivership moratorium".split()
)


def _is_code(tok: str) -> bool:
    """A literal written as staff write identifiers: with a digit, a joiner or '@' ('SUB-114',
    'acme-prod', 'ceo@northwind.com'), or in capitals ('DUB', 'GS')."""
    tok = tok.strip()
    if not re.fullmatch(r"#?[A-Za-z0-9][\w.@\-/]*[A-Za-z0-9]|[A-Z0-9]", tok):
        return False
    return bool(re.search(r"[\d@_\-/]|\w\.\w", tok)) or bool(re.fullmatch(r"[A-Z]{2,6}", tok))


def _tail(tail: str, values: list[str]) -> tuple[list[str], list[str]] | None:
    """The acts the words after the state restate, and kind words they name ('at those
    properties'), when every word there adds no condition; None otherwise."""
    acts: list[str] = []
    kind: list[str] = []
    rest = tail
    guard = 0
    while rest.strip(" .") and guard < 12:
        guard += 1
        for rx in (_LIFETIME, _BRACKET, _IN_EFFECT):
            m = rx.match(rest)
            if m:
                why = m.groupdict().get("why") or ""
                if rx is _LIFETIME and (_CONDITIONAL.search(why) or _RELEASED_BY.search(why)):
                    return None
                if rx is _BRACKET and (_CONDITIONAL.search(why) or _NOT_A_REASON.search(why)):
                    return None
                rest = rest[m.end() :]
                break
        else:
            sep = _SEP.match(rest)
            if sep is None:
                return None
            rest = rest[sep.end() :]
            clause = _clause(rest, values)
            if clause is None:
                if not rest.strip(" ."):
                    break
                return None
            said, more_kind, used = clause
            acts.extend(said)
            kind.extend(more_kind)
            rest = rest[used:]
    if rest.strip(" ."):
        return None
    return acts, kind


def _clause(rest: str, values: list[str]) -> tuple[list[str], list[str], int] | None:
    """One restating clause at the start of `rest`: (acts, kind words, characters read)."""
    for rx in (_INSTEAD, _EMPHASIS):
        m = rx.match(rest)
        if m:
            return [], [], m.end()
    m = _NO_ACTS.match(rest) or _DO_NOT.match(rest)
    if m is None:
        return None
    acts = [m.group("acts")]
    end = m.end()
    kind: list[str] = []
    a = _ANAPHOR.match(rest[end:])
    if a:
        if a.group("kind"):
            kind.append(stem(a.group("kind").lower()))
        end += a.end()
    else:
        r = _RESTATED_SUBJECT.match(rest[end:])
        if r and _names_a_value(r.group("subj"), values):
            end += r.end()
    return acts, kind, end


def _names_a_value(text: str, values: list[str]) -> bool:
    """'DUB-based crew' says DUB again: the held value, then words of what it holds."""
    got = _norm(text)
    return any(
        got == _norm(v) or got.startswith(_norm(v) + " ") or _norm(v).startswith(got + " ")
        for v in values
    )


def _act_phrases(acts: str) -> list[tuple[str, tuple[str, ...]]]:
    """'setpoint or configuration writes' is two acts ('setpoint writes', 'configuration
    writes'); 'pay-or-quit notices' one; each a tuple of stems."""
    acts = acts.strip()
    if not acts or _CONDITIONAL.search(acts):
        return []
    out: list[tuple[str, tuple[str, ...]]] = []
    # 'pay-or-quit notices' is one act: its 'or' joins the words of one name
    pieces = re.split(r"(?<!-)\s+(?:or|and)\s+(?!-)|\s*,\s*", acts)
    head = pieces[-1].split()
    for i, piece in enumerate(pieces):
        toks = piece.split()
        if i < len(pieces) - 1 and len(toks) == 1 and len(head) > 1:
            toks = toks + head[1:]  # 'setpoint or configuration writes'
        stems = tuple(
            stem(w.lower())
            for t in toks
            for w in words(t)
            if w.lower() not in STOPWORDS and w.lower() not in _FILLER
        )
        if not stems:
            return []
        out.append((" ".join(t for t in toks if t.lower() not in _FILLER), stems))
    return out


def _norm(value: str) -> str:
    return re.sub(r"[\s_\-.]+", " ", value.strip().lower()).strip()


# -- the check ------------------------------------------------------------------------------------

_HIT, _DOUBT, _OTHER, _ID = "hit", "doubt", "other", "id"
# a value of identifiers: one token, or tokens joined by commas or semicolons
_TOKENS = re.compile(r"[^\s,;]+(?:\s*[,;]\s*[^\s,;]+)*")


# words right before a held code in free text that say the request is *not* about it
# ('replaces VND-2310 while it is suspended', 'instead of SUP-7781')
_STANDS_IN = re.compile(
    r"\b(?:replac(?:es|ing|ed)|replacement\s+for|instead\s+of|in\s+place\s+of|rather\s+than|"
    r"substitut(?:e|es|ing)\s+for)\s+(?:the\s+)?$",
    re.I,
)


@dataclass(frozen=True)
class Hold(Check):
    """A hold on named values for the acts it stops (every act but a read when none is named)."""

    values: tuple[str, ...] = ()
    kind_words: tuple[str, ...] = ()
    acts: tuple[tuple[str, ...], ...] = ()
    act_texts: tuple[str, ...] = ()  # the rule's own words for each act
    kind: str = field(default="hold", init=False)

    def describe(self) -> dict:
        d = super().describe()
        d.update(
            values=list(self.values),
            kind_words=list(self.kind_words),
            acts=[" ".join(a) for a in self.acts],
        )
        return d

    def reading(self) -> str:
        what = (
            f"the argument named for the {surface_words(self.source, self.kind_words)}"
            if self.kind_words
            else "an argument holding a value of its shape"
        )
        acts = " or ".join(self.act_texts) if self.act_texts else "any change"
        verb = "Deny" if self.effect == "deny" else "Send to review"
        listed = _listed(self.values)
        return (
            f"{verb} {acts} when {what} is {listed} (in any case or spelling); a read is outside "
            f"the hold; another act on {listed}, a value extending one, or no such argument: review"
        )

    def evaluate(self, view: RequestView) -> Outcome:
        act = self._act(view)
        if act == "read":
            return Outcome(SATISFIED, "the request only reads: outside the hold")
        bound = self._bound(view)
        listed = _listed(self.values)
        if not bound:
            # no argument of the kind or the shape: the held value written whole in some
            # argument is read there ('Payments to Initech …' and `payee: "Initech"`)
            bound = [
                lf
                for lf in view.leaves
                if any(isinstance(v, str) and self._compare(v) == _HIT for v in scalars(lf.value))
            ]
            if not bound or act != "held":
                return Outcome(UNKNOWN, f"no argument shows whether the request is about {listed}")
        found = _OTHER
        where: tuple[str, ...] = ()
        got_all = [
            (leaf, self._compare(str(v)))
            for leaf in bound
            for v in scalars(leaf.value)
            if isinstance(v, (str, int)) and not isinstance(v, bool)
        ]
        named_other = any(g == _OTHER for _, g in got_all)
        for leaf, got in got_all:
            if got == _ID:
                got = _OTHER if named_other else _DOUBT
            if got == _HIT or (got == _DOUBT and found == _OTHER):
                found, where = got, (leaf.path,)
            if found == _HIT:
                break
        if found == _OTHER:
            also = self._held_elsewhere(view, bound)
            if also is not None:
                # `substation: "SUB-207"` beside `also_apply_to: "SUB-114"`: which one the act
                # reaches cannot be told
                return Outcome(
                    UNKNOWN, f"{also.path} holds {listed}, though the argument of its kind does not"
                )
            return Outcome(SATISFIED, f"{', '.join(lf.path for lf in bound)} is not {listed}")
        if found == _DOUBT:
            return Outcome(UNKNOWN, f"{where[0]} may or may not be {listed}", where)
        if act == "other":
            return Outcome(
                UNKNOWN, f"{where[0]} is {listed}, held; the request is another act", where
            )
        if self.effect == "review":
            return Outcome(REVIEW, f"{where[0]} is {listed}: held for sign-off", where)
        return Outcome(VIOLATED, f"{where[0]} is {listed}, which is held", where)

    def _act(self, view: RequestView) -> str:
        """'read' when every act of the request is a read, 'held' when it does an act the rule
        names (or any change when it names none), 'other' otherwise."""
        change = _change_shown(view)
        # the acts first: a hold on a read ('no exports', 'no collection') reaches a read
        for phrase in self.acts:
            if all(self._shows(view, s, change) for s in phrase) and (
                change != "" or any(s in ACT_STEMS or s in _ACT_WAYS for s in phrase)
            ):
                return "held"  # a phrase of nouns only ('Harbor Point leases') is a change
        if change == "":
            # 'no collection', 'no exports': the held act is itself a kind of read, so a read
            # by another name (`ediscovery.search`) may be it
            if any(set(p) & _READ_LIKE and not set(p) & _MONEY for p in self.acts):
                return "other"
            return "read"
        return "other" if self.acts else "held"

    @staticmethod
    def _shows(view: RequestView, s: str, change: str) -> bool:
        if s in _ANY_CHANGE:
            return change in ("matched", "unknown")  # an act not known may be any change
        ways = _ACT_WAYS.get(s, frozenset({s}))
        if any(view.term_matches(w) for w in ways):
            return True
        if any(same_action(w, a) for w in ways for a in view.request_actions()):
            return True
        # 'work' and `workorders.create`: a noun the tool's word begins with
        return len(s) >= 4 and any(t.startswith(s) for t in view.tool_stems)

    def _bound(self, view: RequestView) -> list:
        kind = set(self.kind_words)
        leaves = [
            lf
            for lf in view.leaves
            if any(isinstance(v, (str, int)) and not isinstance(v, bool) for v in scalars(lf.value))
        ]
        if kind:
            # an argument named for the kind, holding a value written like a held one: a code
            # like a held code ('SUB-115' beside 'SUB-114'; not `rate_type: "fixed"` beside
            # 'R-1'), or anything when the held values are names ('Harbor Point')
            named = [lf for lf in leaves if lf.keys & kind and self._comparable(lf)]
            if named:
                return named
        shapes = {_shape(v) for v in self.values if _is_code(v)}
        same = [
            lf
            for lf in leaves
            if any(isinstance(v, str) and _shape(v) in shapes for v in scalars(lf.value))
        ]
        if same:
            return same
        # the held value written whole in any argument, but in none named for it: review
        return []

    def _held_elsewhere(self, view: RequestView, bound: list):
        """An argument outside `bound` holding a held value whole, written as a value (not free
        text), that is no end of a route (`destination: "DUB"` for FRA-based crew)."""
        for lf in view.leaves:
            if lf in bound or lf.last_keys & _ROUTE_KEYS:
                continue
            # a held value as a key (`setpoints: {"SUB-114": 120}`): a thing the act reaches
            if any(self._compare(k) == _HIT for k in lf.path.split(".")) or any(
                rx.search(lf.path) for rx in self._code_patterns()
            ):
                return lf
            for v in scalars(lf.value):
                if isinstance(v, str) and len(v) <= 60 and self._compare(v) == _HIT:
                    return lf
                if isinstance(v, str) and (
                    (
                        _TOKENS.fullmatch(v.strip())
                        and any(rx.search(v) for rx in self._code_patterns())
                    )
                    or (len(v) <= 60 and any(rx.match(v.strip()) for rx in self._code_patterns()))
                ):
                    # 'vendors/VND-2310', 'VND-1044, VND-2310', 'VND-2310 Acme': written as a
                    # value or leading it, not in free text ('replaces VND-2310 while it is
                    # suspended' says which one it is not)
                    return lf
                if isinstance(v, str) and any(
                    not _STANDS_IN.search(v[: m.start()])
                    for rx in self._code_patterns()
                    for m in rx.finditer(v)
                ):
                    # free text naming a held code other than as the one replaced ('pass-through
                    # to GR-2291', 'sub-grant for GR-2291 programs'): the act may reach it
                    return lf
        return None

    def _code_patterns(self) -> list[re.Pattern]:
        """A held code with a digit or an '@', written whole (any joiner) within a longer value."""
        out = []
        for v in self.values:
            if _is_code(v) and re.search(r"[\d@]", v) and len(v) >= 4:
                body = r"[\s_\-.]*".join(re.escape(p) for p in re.split(r"[\s_\-.]+", v) if p)
                out.append(re.compile(r"(?<![\w@])" + body + r"(?![\w@]|[\-.]\w)", re.I))
        return out

    def _comparable(self, leaf) -> bool:
        codes = [v for v in self.values if _is_code(v)]
        if len(codes) < len(self.values):
            return True
        loose = {_loose_shape(v) for v in codes}
        return any(
            isinstance(v, str) and (_loose_shape(v) in loose or self._compare(v) != _OTHER)
            for v in scalars(leaf.value)
        )

    def _compare(self, value: str) -> str:
        got = re.sub(r"^the\s+", "", _norm(value))  # 'The Elm Court' is Elm Court
        an_id = bool(re.search(r"\d", got)) and not any(re.search(r"\d", v) for v in self.values)
        place = [k for k in self.kind_words if k in _PLACE_KINDS]
        doubt = False
        for v in self.values:
            want = re.sub(r"^the\s+", "", _norm(v))
            if (
                got == want
                or got.replace(" ", "") == want.replace(" ", "")
                or (
                    place
                    and got
                    in {f"{want} {p}" for p in ("county", "city", "parish", "district", "borough")}
                )
            ):
                return _HIT
            if got.startswith(want) and len(got) > len(want):
                doubt = True  # 'Elm Court East', 'PS-07A', 'acme-prod-eu'
            elif len(want) >= 6 and not re.search(r"\d", want + got) and _one_edit(got, want):
                doubt = True  # 'Harbor Pointe'
            elif _unpadded(got) == _unpadded(want):
                doubt = True  # 'SUB-0114', 'VND-02310': the same number written with zeros
            elif not re.search(r"\d", want + got) and _abbreviates(got, want):
                doubt = True  # 'Elm Ct.', 'Harbor Pt', 'Birchwood Twrs'
            elif re.search(r"(?:^|\s)" + re.escape(want) + r"(?:\s|$)", got):
                doubt = True  # 'Apartments at Elm Court', '4 Elm Court': the held name within
        if not doubt and len(self.values) and _PATTERN_VALUE.search(value):
            doubt = True  # 'SUB-11*', 'SUB-113..SUB-115', 'all': a pattern or a range may cover it
        if not doubt and re.fullmatch(r"[a-z]{2,5}", got.replace(" ", "")):
            doubt = any(_initials(v) == got.replace(" ", "") for v in self.values)  # 'HP'
        if doubt:
            return _DOUBT  # 'ELM-COURT-01' where Elm Court is held
        # `portfolio_id: 7` against 'Harbor Point': an id where a name is held may be it, unless
        # a name beside it says which one it is (see evaluate)
        return _ID if an_id else _OTHER


def _shape(value: str) -> str:
    """'VND-2310' and 'VND-1044' share a shape: their letters, joiners and digit positions; any
    two email addresses share one."""
    if re.fullmatch(r"[^@\s]+@[^@\s]+\.\w+", value.strip()):
        return "@"
    return re.sub(r"[\s_\-.]+", "-", re.sub(r"\d", "9", value.strip().upper()))


def _loose_shape(value: str) -> str:
    """'SUB-114' and 'SUB-2', 'FRA' and 'DUB', 'acme-dev' and 'acme-prod': runs of letters and
    of digits between the same joiners."""
    if "@" in value:
        return "@"
    return re.sub(r"\d+", "9", re.sub(r"[A-Za-z]+", "A", value.strip()))


# a value standing for many: a wildcard, a range, 'all'
_PATTERN_VALUE = re.compile(r"[*%?]|\.\.|\ball\b|\bany\b|\bevery\b", re.I)


def _initials(value: str) -> str:
    """'hp' for 'Harbor Point'; '' for a one-word value, which has no initials to abbreviate."""
    parts = [p for p in re.split(r"[\s_\-.]+", value.lower()) if p]
    return "".join(p[0] for p in parts) if len(parts) > 1 and value[:1].isalpha() else ""


def _unpadded(value: str) -> str:
    return re.sub(r"\b0+(?=\d)", "", value)


def _abbreviates(got: str, want: str) -> bool:
    """'elm ct' for 'elm court', 'harbor pt' for 'harbor point': word for word the same, one or
    more shortened to letters of the word in order, from its first."""
    a, b = got.split(), want.split()
    if len(a) != len(b) or a == b:
        return False
    return all(
        x == y or (len(x) >= 2 and x[0] == y[0] and _in_order(x, y))
        for x, y in zip(a, b, strict=True)
    )


def _in_order(short: str, long_: str) -> bool:
    it = iter(long_)
    return all(ch in it for ch in short)


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _listed(values: tuple[str, ...]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
