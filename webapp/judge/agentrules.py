"""Rules about the requesting agent, and per-agent rates and totals.

'Agents whose id starts with 'sandbox-' must not execute live payments', 'intake-bot may not
grant access at all (revoking is fine)', 'cx-bot-* agents may only issue vouchers under 100 EUR',
'Only rates-analyst-bot may use rates.* tools', 'Relay settings (scada.update_relay_settings):
only agents protection-eng-bot or relay-config-agent' name the agents a rule governs: one id, an
id prefix, or a glob, matched against the request's `agent_id` (never against an argument). A
rule about other agents than the one asking does not reach it.

'autopay retries: max 2/hr per agent', 'Daily cap per agent: $12,000 total', 'Daily refund total
per agent: EUR 20k max' are restated in the words the engine reads ('autopay retries: max 2 per
agent per hour', 'Per agent, the total may not exceed $12,000 per day'): `count_last_hour` and
`total_today` are this agent's history, so only 'per agent' is restated; 'per customer' is not.

Like actors.py, a rule is read here whole or not at all: every word is a form word of the
pattern, an agent id, or a word of the act (`checks.act_relation` compares it with the request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from webapp.judge.actors import _APPROVING, _groups, _verb_stem
from webapp.judge.actors import _act as _actor_act
from webapp.judge.checks import (
    _NOT_APPLICABLE,
    _READING_ACTS,
    _SATISFIED,
    NOT_APPLICABLE,
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Check,
    Outcome,
    _tool_acts,
    act_relation,
)
from webapp.judge.request_view import RequestView
from webapp.judge.text import content_stems, stem

_Q = r"[`'\"]?"
_IDRE = r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+"
# The agents a rule names, as globs over the requesting agent's id.
_WHO = (
    r"(?:(?:the\s+)?(?:(?P<pre>agent)\s+)?"
    + _Q
    + r"(?P<id>"
    + _IDRE
    + r")"
    + _Q
    + r"(?:\s+(?P<suffix>agent|bot))?"
    r"|" + _Q + r"(?P<glob>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_]?\*)" + _Q + r"\s+(?:agents|bots)"
    r"|(?:agents|bots)\s+(?:matching|named)\s+"
    + _Q
    + r"(?P<glob2>[a-z][a-z0-9\-_]*\*)"
    + _Q
    + r"|(?:(?:agents|bots)\s+(?:whose\s+(?:agent\s+)?ids?\s+(?:starts?|begins?)\s+with|with\s+an?\s+"
    r"(?:agent\s+)?id\s+(?:starting|beginning)\s+with|(?:with\s+ids?\s+)?prefixed(?:\s+with|\s+by)?)"
    r"|agent\s+ids?\s+(?:starting|beginning)\s+with)\s+" + _Q + r"(?P<prefix>[a-z][a-z0-9]*"
    r"(?:[-_][a-z0-9]+)*[-_])" + _Q + r")"
)
_VP = r"(?P<verb>[a-z]+)\s+(?P<obj>(?:(?:a|an|the)\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)"
_NOT = (
    r"(?:(?:must|may|shall|should|can)\s+not|(?:must|may|shall|can)\s+never|cannot|can't|mustn't)"
)
_END = r"\s*\.?\s*$"
_MONEY = (
    r"(?P<money>(?:[$€£]\s?\d[\d,]*(?:\.\d+)?k?|(?:USD|EUR|GBP|CHF|CAD|AUD)\s?\d[\d,]*(?:\.\d+)?k?|"
    r"\d[\d,]*(?:\.\d+)?k?\s?(?:USD|EUR|GBP|CHF|CAD|AUD)))"
)
_BOUND = r"(?P<bound>under|below|up\s+to|at\s+most|not\s+over|not\s+above|not\s+exceeding)"

_COMP = (
    r"(?:\s+(?P<prep>to|for|on|in|from)\s+(?:(?:the|a|an|any)\s+)?"
    r"(?P<comp>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?))?"
)
_BAR = re.compile(
    r"^"
    + _WHO
    + r"\s+"
    + _NOT
    + r"\s+"
    + _VP
    + _COMP
    + r"(?:\s+(?P<over>over|above|exceeding|more\s+than|under|below|less\s+than)\s+"
    + _MONEY
    + r")?"
    r"(?:\s+at\s+all)?"
    r"(?:\s*\(\s*(?P<fine>[a-z]+ing)(?:\s+(?:it|them))?\s+is\s+(?:fine|ok|okay|allowed|permitted)"
    r"\s*\))?" + _END,
    re.I,
)
_BLOCKED = re.compile(
    r"^(?:all\s+|any\s+)?(?:requests|calls|actions|tool\s+calls)\s+(?:from|by|made\s+by|issued\s+by)\s+"
    + _WHO
    + r"(?P<rest>\s+(?:on\s+behalf\s+of|for|to|about|during|outside|after|before|in|on|with|"
    r"without|that|which|when|if|unless|while)\s[^.;:]{1,80}?)?"
    r"\s+(?:(?:must|shall|should|will)\s+be\s+(?P<deny>denied|rejected|blocked|refused)|are\s+"
    r"(?:denied|rejected|blocked|refused|not\s+allowed|not\s+permitted)|"
    r"(?P<review>(?:need|require)s?\s+(?:a\s+)?(?:human\s+|manual\s+)?review|"
    r"(?:must|shall|should)\s+be\s+(?:manually\s+)?reviewed))" + _END,
    re.I,
)
_OTHERS = re.compile(
    r"^(?:(?:any|all)\s+)?(?:agents?|bots?)\s+(?:other\s+than|except(?:\s+for)?|besides)\s+"
    r"(?P<ids>"
    + _Q
    + _IDRE
    + _Q
    + r"(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*"
    + _Q
    + _IDRE
    + _Q
    + r")*)\s+(?=(?:must|may|shall|should|can)\s+(?:not|never)\b|cannot\b|can't\b|mustn't\b)",
    re.I,
)
_ONLY = re.compile(
    r"^"
    + _WHO
    + r"\s+(?:may|can)\s+only\s+"
    + _VP
    + r"(?:\s+"
    + _BOUND
    + r"\s+"
    + _MONEY
    + r")?"
    + _END,
    re.I,
)
_ONLY_AFTER = re.compile(r"^" + _WHO + r"\s+(?:may|can)\s+" + _VP + r"\s+only" + _END, re.I)
_TOOLS = re.compile(
    r"^only\s+(?P<ids>" + _IDRE + r"(?:\s*(?:,|or|and|,\s*or)\s*" + _IDRE + r")*)"
    r"\s+(?:may|can)\s+(?:use|call|invoke|run)\s+(?:the\s+)?"
    + _Q
    + r"(?P<tool>[a-z][\w]*(?:\.[\w*]+)*\.?\*?)"
    + _Q
    + r"\s+tools?"
    + _END,
    re.I,
)
_TOOL_ONLY = re.compile(
    r"^(?P<np>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3})\s*\(\s*"
    + _Q
    + r"(?P<tool>[a-z][\w]*(?:\.[\w*]+)+)"
    + _Q
    + r"\s*\)\s*:\s*only\s+(?:agents?\s+)?"
    r"(?P<ids>" + _IDRE + r"(?:\s*(?:,|or|and|,\s*or)\s*" + _IDRE + r")*)" + _END,
    re.I,
)


_AGENT_TOKENS = frozenset(
    "bot bots agent agents assistant copilot svc worker runner daemon automation ai".split()
)


def _agentlike(ident: str) -> bool:
    """An id that says it is an agent's ('-bot', '-agent'); 'DUS-2', 'non-employees',
    'co-signers' name a site, people or a kind as often as an agent."""
    return not _AGENT_TOKENS.isdisjoint(re.split(r"[-_]", ident))


# Words of a kind or a role of agent, not of an agent's name: 'Tier-2 agent', 'Third-party bot',
# 'The on-call bot', 'Night-shift agent', 'Read-only agent', 'Customer-facing bot'. Which agents
# are of that kind the request does not show.
_KIND_PARTS = frozenset(
    "tier level line shift night day weekend party third first second on off call duty read "
    "write only customer client user facing front back office non self external internal human "
    "trusted untrusted verified unverified senior junior new high low risk privileged "
    "unprivileged public private partner vendor hosted managed approved unapproved desk help "
    "support service care sales success field floor team staff station counter contact center "
    "centre".split()
)


def _kind(ident: str) -> bool:
    """'tier-2', 'third-party', 'on-call': an id named only by a following 'agent'/'bot' that is
    a kind or a role of agent ('Tier-2 agent may not …'), not one agent's id ('hr-sync')."""
    parts = re.split(r"[-_]", ident.lower())
    return not _agentlike(ident) and any(p in _KIND_PARTS for p in parts)


def _globs(m: re.Match[str]) -> tuple[str, ...] | None:
    d = m.groupdict()
    if d.get("id"):
        ident = d["id"].lower()
        # 'Non-employees may not …', 'DUS-2 may not …': a hyphenated word or a site, not an
        # agent id; a bare id is one when it says so ('-bot', '-agent'), and the words before
        # '-bot' are not a kind of agent ('Tier-2 agent', 'Third-party bot')
        if not (d.get("suffix") or d.get("pre") or _agentlike(ident)) or _kind(ident):
            return None
        return (ident,)
    if d.get("glob") or d.get("glob2"):
        return ((d.get("glob") or d.get("glob2")).lower(),)
    if d.get("prefix"):
        return (d["prefix"].lower() + "*",)
    return None


def agent_matches(globs: tuple[str, ...], agent_id: str) -> bool:
    """The requesting agent's id matches one of `globs` (an exact id is a glob without '*')."""
    got = (agent_id or "").strip().lower()
    return bool(got) and any(fnmatchcase(got, g) for g in globs)


def _who_words(globs: tuple[str, ...]) -> str:
    return " or ".join(
        f"an id starting `{g[:-1]}`"
        if g.endswith("*") and "*" not in g[:-1] and g[-2:-1] in "-_"
        else (f"an id matching `{g}`" if "*" in g else f"`{g}`")
        for g in globs
    )


@dataclass(frozen=True)
class AgentBar(Check):
    """'intake-bot may not grant access at all (revoking is fine)': an act the named agents may
    not do. Another agent doing it satisfies the rule; the act itself is denied, surely another act is not
    governed, one that may be it goes to review."""

    globs: tuple[str, ...] = ()
    acts: tuple[str, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()
    act_phrase: str = ""
    fine: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] = ((), ())
    fine_phrase: str = ""
    body: Check | None = None  # the bound of the barred act ('over 500 USD'), when given
    # 'Agents other than payments-bot must not …': the bar is on every agent but `globs`
    others: bool = False
    kind: str = field(default="agent_bar", init=False)

    def reading(self) -> str:
        who = ("not " if self.others else "") + _who_words(self.globs)
        text = f"When the requesting agent is {who}: deny {self.act_phrase}"
        if self.body is not None:
            text += f" ({self.body.reading()})"
        text += "; review a request that may be that act"
        if self.fine_phrase:
            text += f"; {self.fine_phrase} is not governed"
        return text

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "agents": list(self.globs), "acts": list(self.acts)}

    def evaluate(self, view: RequestView) -> Outcome:
        relation = act_relation(view, self.acts, self.groups)
        if agent_matches(self.globs, view.agent_id) == self.others:
            # the act by an agent the rule does not name: the rule holds
            return _NOT_APPLICABLE if relation == "other" else _SATISFIED
        if self.fine[0] and act_relation(view, *self.fine) == "definite":
            return _SATISFIED  # 'revoking is fine'
        if relation == "other":
            return _NOT_APPLICABLE
        if self.body is not None:
            inner = self.body.evaluate(view)
            if inner.status == SATISFIED:
                return inner  # within the bound: not the barred act
            if inner.status in (REVIEW, UNKNOWN):
                return inner
            if inner.status != VIOLATED:
                return Outcome(
                    UNKNOWN, f"`{view.agent_id}` may not {self.act_phrase}; the bound is not shown"
                )
        if relation == "definite":
            return Outcome(VIOLATED, f"`{view.agent_id}` may not {self.act_phrase}")
        return Outcome(
            UNKNOWN,
            f"`{view.agent_id}` may not {self.act_phrase}; the request may be it "
            "(a human should decide)",
        )


@dataclass(frozen=True)
class AgentOnly(Check):
    """'cx-bot-* agents may only issue vouchers under 100 EUR', 'refund-bot may only issue
    refunds': what the named agents may do. Another agent is not governed. For one of them the
    allowed act (within `body`, the bound, when the rule gives one) is satisfied; surely another
    act is denied; a read, or a request that may be either, goes to review."""

    globs: tuple[str, ...] = ()
    allowed: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] = ((), ())
    allowed_phrase: str = ""
    body: Check | None = None
    kind: str = field(default="agent_only", init=False)

    def reading(self) -> str:
        text = f"When the requesting agent is {_who_words(self.globs)}: allow only {self.allowed_phrase}"
        if self.body is not None:
            text += f" ({self.body.reading()})"
        return text + "; deny any surely other act, review one that may be either"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "agents": list(self.globs)}

    def evaluate(self, view: RequestView) -> Outcome:
        if not agent_matches(self.globs, view.agent_id):
            return _NOT_APPLICABLE
        relation = act_relation(view, *self.allowed)
        if relation == "other":
            tool_acts = _tool_acts(view, frozenset())
            if tool_acts and tool_acts <= _READING_ACTS:
                return Outcome(
                    UNKNOWN,
                    f"`{view.agent_id}` may only {self.allowed_phrase}; a read may be outside it",
                )
            return Outcome(
                VIOLATED, f"`{view.agent_id}` may only {self.allowed_phrase}: this is another act"
            )
        if relation != "definite":
            return Outcome(
                UNKNOWN,
                f"`{view.agent_id}` may only {self.allowed_phrase}; the request may be another "
                "act (a human should decide)",
            )
        if self.body is None:
            return _SATISFIED
        inner = self.body.evaluate(view)
        if inner.status in (VIOLATED, REVIEW, UNKNOWN):
            return inner
        if inner.status == NOT_APPLICABLE:
            return Outcome(
                UNKNOWN,
                f"`{view.agent_id}` may only {self.allowed_phrase}; the bound is not shown",
            )
        return Outcome(SATISFIED, inner.message, inner.args)


# Words a tool's label holds without narrowing it ('Relay settings changes (scada.…)')
_GENERIC = frozenset(
    stem(w)
    for w in "change changes setting settings update updates tool tools action actions call calls "
    "edit edits operation operations write writes use uses request requests".split()
)


@dataclass(frozen=True)
class AgentBlocked(Check):
    """'Requests from sandbox-* agents must be denied', 'Calls by intake-bot need review': every
    request from the named agents is denied (or reviewed); another agent's is not governed."""

    globs: tuple[str, ...] = ()
    review: bool = False
    # 'Requests from ops-agent on behalf of HR must be denied': which of the named agents'
    # requests are meant the request may not show; theirs go to review
    rest: str = ""
    # 'Requests from Tier-2 agent must be denied': a kind of agent, which the request does not
    # show the requester is or not: every request goes to review
    kind_of: str = ""
    kind: str = field(default="agent_blocked", init=False)

    def reading(self) -> str:
        what = "review" if self.review else "deny"
        if self.kind_of:
            return (
                f"Review every request: whether the requesting agent is a {self.kind_of} agent "
                f"(whose requests the rule would {what}) is not shown"
            )
        if self.rest:
            return (
                f"When the requesting agent is {_who_words(self.globs)}: review the request "
                f"(the rule would {what} its requests {self.rest}, which are not told apart)"
            )
        return f"When the requesting agent is {_who_words(self.globs)}: {what} the request"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "agents": list(self.globs)}

    def evaluate(self, view: RequestView) -> Outcome:
        if self.kind_of:
            return Outcome(
                UNKNOWN, f"whether `{view.agent_id}` is a {self.kind_of} agent is not shown"
            )
        if not agent_matches(self.globs, view.agent_id):
            return _NOT_APPLICABLE
        if self.rest:
            return Outcome(
                UNKNOWN,
                f"requests from `{view.agent_id}` {self.rest} are "
                f"{'reviewed' if self.review else 'denied'}; whether this is one is not shown",
            )
        if self.review:
            return Outcome(REVIEW, f"requests from `{view.agent_id}` need review")
        return Outcome(VIOLATED, f"requests from `{view.agent_id}` are denied")


def _tool_in(name: str, tool: str) -> bool | None:
    """`name` is one of the tools `tool` names (True), may be (False), or surely is not (None).
    A glob matches as written; a family named without one ('deploy.rollout tools') holds the
    tool itself and those under it ('deploy.rollout_canary', 'deploy.rollout.v2'), and a name
    that merely starts with it ('deploy.rollouts') may be one."""
    if fnmatchcase(name, tool):
        return True
    if "*" in tool:
        return None
    if name.startswith((tool + ".", tool + "_")):
        return True
    return False if name.startswith(tool) else None


@dataclass(frozen=True)
class ToolReserved(Check):
    """'Only rates-analyst-bot may use rates.* tools': the tools matching `tool_glob` are reserved
    to the named agents; any other agent asking for one is denied."""

    globs: tuple[str, ...] = ()
    tool_glob: str = ""
    # 'Emergency relay changes (scada.update_relay_settings): only agents …': the label names
    # more than the tool ('emergency'); which calls are those the request may not show
    scope: str = ""
    kind: str = field(default="tool_reserved", init=False)

    def reading(self) -> str:
        if self.scope:
            return (
                f"Review a request for a tool matching `{self.tool_glob}` from an agent other "
                f"than {_who_words(self.globs)} (the requesting agent's id): only {self.scope} "
                "calls are reserved"
            )
        return (
            f"Deny a request for a tool matching `{self.tool_glob}` from an agent other than "
            f"{_who_words(self.globs)} (the requesting agent's id)"
        )

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "agents": list(self.globs), "tools": [self.tool_glob]}

    def evaluate(self, view: RequestView) -> Outcome:
        name = view.tool_name.lower()
        governed = _tool_in(name, self.tool_glob)
        if governed is None:
            return _NOT_APPLICABLE
        if agent_matches(self.globs, view.agent_id):
            return _SATISFIED
        if not governed or self.scope:
            return Outcome(
                UNKNOWN,
                f"only {_who_words(self.globs)} may use `{self.tool_glob}`"
                + (f" for {self.scope}" if self.scope else " tools")
                + f"; `{name}` may be one of them (a human should decide)",
            )
        return Outcome(
            VIOLATED,
            f"only {_who_words(self.globs)} may use `{self.tool_glob}`; the requesting agent is "
            f"`{view.agent_id}`",
        )


def _act(
    verb: str, obj: str, passive: bool
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """actors._act, and an approving verb read as the act itself ('may only approve expenses':
    actors.py sets it aside as a review of someone else's act)."""
    if _verb_stem(verb) in _APPROVING:
        groups = _groups(obj)
        return ((_verb_stem(verb),), groups) if groups else None
    return _actor_act(verb, obj, passive)


def _ids(text: str) -> tuple[str, ...]:
    return tuple(i.lower() for i in re.findall(_IDRE, text, re.I))


def _bound_rule(obj: str, bound: str, money: str) -> str:
    """'vouchers', 'under', '100 EUR' -> 'Vouchers must be under 100 EUR.'"""
    phrase = re.sub(r"\s+", " ", bound.lower())
    if phrase.startswith("not "):
        phrase = re.sub(r"^exceeding\b", "over", phrase[4:])
        return f"{obj.capitalize()} must not be {phrase} {money}."
    return f"{obj.capitalize()} must be {phrase} {money}."


def agent_rule(index: int, source: str, text: str, compile_prose: Any = None) -> list[Check] | None:
    """The rule `text` read whole as a rule about the requesting agent, or None.

    `compile_prose(text)` compiles a bound restated as its own rule ('Vouchers must be under 100
    EUR.'); it returns the checks when that rule is understood, else None."""
    clean = re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip()
    if len(clean) > 300:
        return None
    m = _TOOLS.match(clean) or _TOOL_ONLY.match(clean)
    if m is not None:
        tool = m.group("tool").lower()
        if m.re is _TOOLS and tool.endswith("."):
            tool += "*"
        ids = _ids(m.group("ids"))
        said = m.re is _TOOL_ONLY and re.search(r":\s*only\s+agents?\b", clean, re.I)
        if not ids or not (said or all(_agentlike(i) for i in ids)):
            return None  # 'Only co-signers may use loan.* tools': people, not agent ids
        scope = ""
        if m.re is _TOOL_ONLY:
            named = set(content_stems(re.sub(r"[._*]", " ", tool)))
            more = [
                w
                for w in m.group("np").lower().split()
                if content_stems(w)
                and not named.issuperset(content_stems(w))
                and not _GENERIC.issuperset(content_stems(w))
            ]
            scope = " ".join(more)
        return [ToolReserved(index, source, "deny", (), globs=ids, tool_glob=tool, scope=scope)]
    m = _BLOCKED.match(clean)
    if m is not None:
        globs = _globs(m)
        review = bool(m.group("review"))
        rest = re.sub(r"\s+", " ", m.group("rest") or "").strip().lower()
        ident = (m.group("id") or "").lower()
        if globs is None and ident and _kind(ident) and (m.group("suffix") or m.group("pre")):
            return [
                AgentBlocked(
                    index, source, "review", (), globs=(ident,), review=review, kind_of=ident
                )
            ]
        if globs is None:
            return None
        return [
            AgentBlocked(
                index,
                source,
                "review" if review or rest else "deny",
                (),
                globs=globs,
                review=review,
                rest=rest,
            )
        ]
    m = _OTHERS.match(clean)
    if m is not None:
        # 'Agents other than payments-bot must not execute live payments': the bar read with
        # a stand-in subject, then turned on every agent but the ones named
        ids = _ids(m.group("ids"))
        if not ids or not all(_agentlike(i) for i in ids):
            return None
        read = agent_rule(index, source, "stand-in-bot " + clean[m.end() :], compile_prose)
        if not read or len(read) != 1 or not isinstance(read[0], AgentBar):
            return None
        return [replace(read[0], globs=ids, others=True)]
    m = _BAR.match(clean)
    if m is not None:
        globs = _globs(m)
        read = _act(m.group("verb"), m.group("obj"), passive=False)
        if globs is None or read is None or not (read[0] or read[1]):
            return None
        phrase = f"{m.group('verb')} {m.group('obj')}".lower()
        if m.group("comp"):
            # 'may not grant access to contractors': the complement is one more thing the
            # request must show to be surely the act (else a human decides)
            more = _groups(m.group("comp"))
            if more is None:
                return None
            read = (read[0], read[1] + more)
            phrase += f" {m.group('prep')} {m.group('comp')}".lower()
        body = None
        if m.group("over"):
            if compile_prose is None:
                return None
            made = compile_prose(
                _bound_rule(m.group("obj"), "not " + m.group("over"), m.group("money"))
            )
            if not made or len(made) != 1:
                return None
            body = made[0]
            phrase += f" {m.group('over').lower()} {m.group('money')}"
        fine: tuple = ((), ())
        fine_phrase = ""
        if m.group("fine"):
            gerund = m.group("fine").lower()
            base = stem(re.sub(r"ing$", "", gerund))
            if not base or base in read[0] or stem(gerund) in read[0]:
                return None
            fine = ((stem(gerund),), read[1])
            fine_phrase = gerund
        return [
            AgentBar(
                index,
                source,
                "deny",
                tuple(w for g in read[1] for w in g) + read[0],
                globs=globs,
                acts=read[0],
                groups=read[1],
                act_phrase=phrase,
                fine=fine,
                fine_phrase=fine_phrase,
                body=body,
            )
        ]
    m = _ONLY.match(clean) or _ONLY_AFTER.match(clean)
    if m is not None:
        globs = _globs(m)
        read = _act(m.group("verb"), m.group("obj"), passive=False)
        if globs is None or read is None or not read[0] or not read[1]:
            return None
        body = None
        d = m.groupdict()
        if d.get("bound"):
            if compile_prose is None:
                return None
            made = compile_prose(_bound_rule(m.group("obj"), d["bound"], d["money"]))
            if not made or len(made) != 1:
                return None
            body = made[0]
        return [
            AgentOnly(
                index,
                source,
                "deny",
                tuple(w for g in read[1] for w in g),
                globs=globs,
                allowed=read,
                allowed_phrase=f"{m.group('verb')} {m.group('obj')}".lower(),
                body=body,
            )
        ]
    return None


# -- per-agent rates and totals, restated ---------------------------------------------------
_NP = r"(?P<np>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3})"
_RATE = re.compile(
    r"^(?:[A-Z]{1,3}\d+(?:\.\d+)*\s*[-:.)]\s*)?"
    + _NP
    + r"\s*:\s*(?:max(?:imum)?|at\s+most|no\s+more\s+than|up\s+to)\s+(?P<n>\d+)\s*"
    r"(?:/|per\s+|an?\s+)\s*(?P<w>hr|hrs|hour|h|day|d)\s+per\s+agent" + _END,
    re.I,
)
# 'Max 2 autopay retries/hr per agent'
_RATE_FRONT = re.compile(
    r"^(?:[A-Z]{1,3}\d+(?:\.\d+)*\s*[-:.)]\s*)?(?:max(?:imum)?|at\s+most|no\s+more\s+than)\s+"
    r"(?P<n>\d+)\s+"
    + _NP
    + r"\s*(?:/|per\s+|an?\s+)\s*(?P<w>hr|hrs|hour|h|day|d)\s+per\s+agent"
    + _END,
    re.I,
)
_DAILY_CAP = re.compile(
    r"^(?:daily\s+(?:cap|limit|max(?:imum)?)\s+per\s+agent|per[-\s]agent\s+daily\s+"
    r"(?:cap|limit|max(?:imum)?))\s*:\s*" + _MONEY + r"(?:\s+(?:total|in\s+total))?" + _END,
    re.I,
)
_DAILY_TOTAL = re.compile(
    r"^daily\s+(?P<np>[a-z]+(?:\s+[a-z]+)?)\s+total\s+per\s+agent\s*:\s*"
    + _MONEY
    + r"\s+(?:max(?:imum)?|cap|limit)"
    + _END,
    re.I,
)
_WINDOW = {"hr": "hour", "hrs": "hour", "hour": "hour", "h": "hour", "day": "day", "d": "day"}


# The kinds of check that read the requesting agent's id (here and in actors.py)
AGENT_KINDS = frozenset(
    {"agent_blocked", "agent_bar", "agent_only", "tool_reserved", "reserved_act", "agent_scope"}
)
_SUBJECT = re.compile(
    r"^" + _WHO + r"\s+(?:only\s+)?(?:may|must|can|shall|should|cannot|can't|mustn't)\b", re.I
)


def agent_subject(text: str) -> str | None:
    """The agent id (or glob) a rule is about when its subject is the agent ('intake-bot may not
    grant access unless …'), else None."""
    m = _SUBJECT.match(re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip())
    if m is None:
        return None
    if m.group("id") and (m.group("suffix") or m.group("pre")) and _kind(m.group("id")):
        return m.group("id").lower()  # 'Tier-2 agent may not …': no agent check reads it
    globs = _globs(m)
    if not globs:
        return None
    ident = globs[0].rstrip("*")
    if (
        m.group("id")
        and not m.group("suffix")
        and not m.group("pre")
        and _AGENT_TOKENS.isdisjoint(re.split(r"[-_]", ident))
    ):
        return None  # 'DUS-2 may not …': a site, a system or a value as often as an agent
    return ident


def restated(text: str) -> str | None:
    """A per-agent rate or daily total in the words the engine reads, or None."""
    clean = re.sub(r"\s+", " ", text).strip()
    m = _RATE.match(clean)
    if m is not None:
        return f"{m.group('np')}: max {m.group('n')} per agent per {_WINDOW[m.group('w').lower()]}."
    m = _RATE_FRONT.match(clean)
    if m is not None:
        return f"Max {m.group('n')} {m.group('np')} per agent per {_WINDOW[m.group('w').lower()]}."
    m = _DAILY_CAP.match(clean)
    if m is not None:
        return f"Per agent, the total may not exceed {m.group('money')} per day."
    m = _DAILY_TOTAL.match(clean)
    if m is not None:
        return f"Per agent, the {m.group('np')} total may not exceed {m.group('money')} per day."
    return None


_EVERY_AGENT = re.compile(
    r"\b(?:per[-\s]agent|(?:each|every|any|all)\s+(?:agents?|bots?)|agents?'s?\s+own)\b", re.I
)
_LEAD = re.compile(
    r"^(?:the\s+)?(?:agent\s+)?"
    + _Q
    + r"(?P<id>"
    + _IDRE
    + r")"
    + _Q
    + r"(?:\s+(?:agents?|bots?))?\b",
    re.I,
)


def reaches_agent(text: str, agent_id: str) -> bool:
    """Whether a rule the engine cannot check speaks to the request through its agent
    (`_reaches_agent`). Asked for every unread rule of every request: kept per rule text and
    agent id, since a tenant's rules and agents are few and asked about again and again."""
    return _reaches_agent_kept(text, agent_id)


_WHO_LEADS = re.compile(r"^" + _WHO + r"\b", re.I)


def _reaches_agent(text: str, agent_id: str) -> bool:
    """A rule the engine cannot check speaks to the request through its agent, whatever its
    words share with the request's: 'Daily cap per agent: $12,000 total per vendor' (every
    agent), 'intake-bot may not do anything after hours' or 'sandbox-* agents must stay
    read-only' naming the requester, 'Tier-2 agents must escalate everything' naming a kind of
    agent the requester may be. Its text is then kept for review, not set aside as irrelevant."""
    clean = re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip()
    if _EVERY_AGENT.search(clean):
        return True
    m = _WHO_LEADS.match(clean)
    if m is not None:
        globs = _globs(m)
        if globs and agent_matches(globs, agent_id):
            return True
    m = _LEAD.match(clean)
    if m is not None and _kind(m.group("id")):
        return True
    # 'Daily cap for ap-agent-07: $12,000 total', 'Requests from sandbox-* agents must be
    # denied': the requester named anywhere in the rule (an id that says it is an agent's, or a
    # glob), or a kind of agent ('… for tier-2 agents') it may be
    if _KIND_ANYWHERE.search(clean) and any(_kind(k) for k in _KIND_ANYWHERE.findall(clean)):
        return True
    for token in _NAMED.findall(clean):
        low = token.lower()
        if ("*" in low or _agentlike(low)) and agent_matches((low,), agent_id):
            return True
    return False


_reaches_agent_kept = lru_cache(maxsize=65536)(_reaches_agent)

_NAMED = re.compile(
    r"(?<![\w.*-])[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*(?:[-_]?\*|(?:[-_][a-z0-9]+))", re.I
)
_KIND_ANYWHERE = re.compile(r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\s+(?:agents?|bots?)\b", re.I)
