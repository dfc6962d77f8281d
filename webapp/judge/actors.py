"""Who may do an act: rules that name the requesting agent, or reserve an act to people.

'Only the payouts-orchestrator agent may initiate vendor payouts; other agents may only read
payout status', 'Migrations must be run by the migration-runner agent', 'Only agents with an id
beginning with support- may issue refunds', 'Password resets - agent ids prefixed helpdesk- only'
name a closed list of agent ids or id prefixes (the request's `agent_id`). 'Rotation of root or
master credentials is performed by humans only', 'Reserve holds are set by Risk only', 'Emergency
break-glass access is out of scope for agents' reserve an act to people: no agent may do it.
'Civil subpoenas are handled by outside counsel' (no 'only', no 'never') sends the act to review.

Such a rule is read by its own grammar, whole or not at all (like notation.py): every word is
either a form word of the pattern, the agent ids, the holder, or a word of the act (verb, nouns,
qualifiers), which `checks.ReservedAct` compares with the request. A rule with anything else (a
condition, an amount, a bracket, a second sentence) is not read here and keeps its reading.
"""

from __future__ import annotations

import re

from webapp.judge.checks import NOMINAL_ACTS, AgentScope, ReservedAct
from webapp.judge.request_view import ACT_STEMS, MONEY_GENERIC, MONEY_SPECIFIC, same_action
from webapp.judge.text import content_stems, stem

_ID = r"[`'\"]?(?P<id>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)[`'\"]?"
_PREFIX = r"[`'\"]?(?P<prefix>[a-z][a-z0-9]*[-_])[`'\"]?"
_BEGIN = r"(?:beginning|starting|that\s+(?:begins?|starts?)|which\s+(?:begins?|starts?))\s+with"
# The agents a rule names: one id ('the payouts-orchestrator agent', 'agent payroll-bot-uk'), or
# an id prefix ('agents with an id beginning with support-', 'agent ids prefixed helpdesk-').
_WHO = (
    r"(?:(?:the\s+)?(?:agent\s+)?" + _ID + r"(?:\s+(?:agent|bot))?"
    r"|agents?\s+(?:with\s+(?:an?\s+)?(?:agent\s+)?ids?|whose\s+(?:agent\s+)?ids?)\s+"
    r"(?:" + _BEGIN + r"|begins?\s+with|starts?\s+with|(?:is|are\s+)?prefixed(?:\s+with|\s+by)?)"
    r"\s+" + _PREFIX + r"|agents?\s+in\s+the\s+(?P<pool>[a-z0-9]+)\s+pool\s+\(agent\s+ids?\s+"
    r"prefix(?:ed)?(?:\s+with)?\s+" + _PREFIX.replace("prefix>", "pool_prefix>") + r"\)"
    r"|agent\s+ids?\s+(?:prefixed(?:\s+with|\s+by)?|"
    + _BEGIN
    + r")\s+"
    + _PREFIX.replace("prefix>", "id_prefix>")
    + r")"
)
_HUMANS = r"(?P<humans>(?:a\s+)?humans?|people|a\s+person|persons|staff)"
_TEAM = r"(?:the\s+)?(?P<team>(?-i:[A-Z][\w&]*)(?:\s+(?-i:[A-Z][\w&]*)){0,2})(?:\s+(?:team|desk|department|dept))?"
_TEAM_ANY = (
    r"(?:the\s+)?(?P<team>[a-z][\w&]*(?:\s+[a-z][\w&]*){0,2}?)(?:\s+(?:team|desk|department|dept))?"
)
_HOLDER = r"(?:" + _HUMANS + r"|" + _TEAM + r")"
_NP = r"(?P<np>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,5}?)"
_VP = r"(?P<verb>[a-z]+)\s+(?P<obj>(?:(?:a|an|the)\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)"
_PARTICIPLE = r"(?P<part>[a-z]+(?:ed|en)|run|done|set|made|sent|put|held|kept)"
_ONLY = r"(?:\s+only)?"
_AGENTS = r"(?:the\s+)?(?:an?\s+)?(?:ai\s+)?(?:agents?|bots?|automation)"
_END = r"\s*\.?\s*$"

# Each form: (pattern, effect). Agent forms carry _WHO, reserved forms _HOLDER.
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.I), effect)
    for p, effect in (
        # 'Only the ap-release-bot agent may release a payment; other agents may create drafts only'
        (
            r"^only\s+"
            + _WHO
            + r"\s+(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to)\s+"
            + _VP
            + r"(?:\s*[;,.]\s*(?P<tail>other\s+agents\s+.+?))?"
            + _END,
            "deny",
        ),
        # 'release-bot only: feature flag toggles'
        (r"^" + _WHO + r"\s+only\s*(?::|\s-)\s*" + _NP + _END, "deny"),
        # 'Migrations must be run by the migration-runner agent', 'Payroll runs are submitted by
        # payroll-agent only', 'Goodwill credits can only be issued by the support-tier2 agent'
        (
            r"^" + _NP + r"\s+(?:(?:must|shall|should|can|may)\s+(?:only\s+)?be|is|are)\s+"
            r"(?:only\s+)?" + _PARTICIPLE + r"\s+(?:only\s+)?by\s+" + _WHO + _ONLY + _END,
            "deny",
        ),
        # 'Feature flag toggles: release-bot only', 'Password resets - agent ids prefixed helpdesk- only'
        (r"^" + _NP + r"\s*(?::|\s-|->)\s*" + _WHO + r"\s+only" + _END, "deny"),
        # 'Only Risk may set reserve holds', 'Only humans may rotate root credentials'
        (
            r"^only\s+"
            + _HOLDER
            + r"\s+(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to)\s+"
            + _VP
            + _END,
            "deny",
        ),
        # 'Rotating root credentials is reserved for humans', 'Humans only: account closures'
        (
            r"^" + _NP + r"\s+(?:is|are)\s+reserved\s+(?:for|to)\s+" + _HOLDER + _ONLY + _END,
            "deny",
        ),
        (r"^" + _HOLDER + r"\s+only\s*(?::|\s-)\s*" + _NP + _END, "deny"),
        # 'Reserve holds are set by Risk only', 'Rotation of … is performed by humans only'
        (
            r"^"
            + _NP
            + r"\s+(?:(?:must|shall|can|may)\s+(?:only\s+)?be|is|are)\s+(?:only\s+)?"
            + _PARTICIPLE
            + r"\s+(?:only\s+)?by\s+"
            + _HOLDER
            + r"\s+only"
            + _END,
            "deny",
        ),
        (
            r"^"
            + _NP
            + r"\s+(?:must|shall|can|may)\s+only\s+be\s+"
            + _PARTICIPLE
            + r"\s+by\s+"
            + _HOLDER
            + _END,
            "deny",
        ),
        # 'TSRs may only be lifted by the Route Asset Mgr, never by automation'
        (
            r"^"
            + _NP
            + r"\s+(?:must|shall|can|may)\s+only\s+be\s+"
            + _PARTICIPLE
            + r"\s+by\s+"
            + _HOLDER
            + r"\s*[,;]\s*never\s+(?:by|via)\s+"
            + _AGENTS
            + _END,
            "deny",
        ),
        # 'Reversal of a completed payout is handled by Treasury, not by agents'
        (
            r"^"
            + _NP
            + r"\s+(?:is|are)\s+(?P<part>handled|done|performed|managed|owned)\s+by\s+"
            + _TEAM
            + r"\s*,\s*not\s+by\s+"
            + _AGENTS
            + _END,
            "deny",
        ),
        # 'deleting secrets: never by an agent, a person has to do it', 'Org Owner: never via
        # automation. Humans only, via the admin console'
        (
            r"^"
            + _NP
            + r"\s*(?::|\s-)\s*never\s+(?:by|via)\s+"
            + _AGENTS
            + r"(?:\s*[,;.]\s*(?:a\s+person|a\s+human|someone|people|humans?|staff)\s+"
            r"(?:has|have|must|needs?)\s+to\s+do\s+it|\s*[,;.]\s*" + _HOLDER + r"\s+only"
            r"(?:\s*,\s*via\s+the\s+[a-z]+(?:\s+[a-z]+){0,2})?)?" + _END,
            "deny",
        ),
        # 'Termination for cause is never served by the agent - Legal only'
        (
            r"^"
            + _NP
            + r"\s+(?:is|are)\s+never\s+"
            + _PARTICIPLE
            + r"\s+by\s+"
            + _AGENTS
            + r"(?:\s*(?:-|:|;|,)\s*"
            + _HOLDER
            + r"\s+only)?"
            + _END,
            "deny",
        ),
        # 'Emergency break-glass access is out of scope for agents'
        (r"^" + _NP + r"\s+(?:is|are)\s+out\s+of\s+scope\s+for\s+" + _AGENTS + _END, "deny"),
        # 'car allowance changes -> Reward team only', 'Account closures: humans only'
        (r"^" + _NP + r"\s*(?::|\s-|->)\s*" + _HOLDER + r"\s+only" + _END, "deny"),
        # 'Only support agents may issue refunds': a class of agents no id names; whether the
        # requesting agent is one is not known, so the act goes to review
        (
            r"^only\s+(?P<cls>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?\s+(?:agents|bots))\s+"
            r"(?:may|can|are\s+allowed\s+to)\s+" + _VP + _END,
            "review",
        ),
        # 'Civil subpoenas are handled by outside counsel': another party handles it, review
        (
            r"^"
            + _NP
            + r"\s+(?:is|are)\s+(?P<part>handled|maintained|managed|owned)\s+by\s+"
            + _TEAM_ANY
            + _END,
            "review",
        ),
    )
)
# What other agents may do instead: 'other agents may only read payout status', 'other agents may
# create drafts only', 'other agents may read but not erase' (the 'not' restates the act).
_TAIL = re.compile(
    r"^other\s+agents\s+(?:may|can)\s+(?:only\s+)?(?:(?P<read>read|view)\s+but\s+not\s+"
    r"(?P<restated>[a-z]+)|" + _VP + r"(?:\s+only)?)$",
    re.I,
)
_FORM_WORDS = frozenset("a an the of for or and any".split())
# Verbs that say only that the act is done ('performed', 'run', 'handled'): the act is then the
# noun phrase's own act word ('Rotation', 'Migrations'), or any act on its thing.
_LIGHT = frozenset(
    stem(w)
    for w in "perform performed do done carry carried conduct conducted handle handled run "
    "execute executed process processed serve served make made maintain maintained manage "
    "managed own owned".split()
)
_PARTICIPLE_BASE = {"run": "run", "done": "do", "set": "set", "made": "make", "sent": "send"}
# Words an act phrase never holds: a modal, a negation, a condition or a comparison ('without
# approval', 'unless …', 'over …'), the actor. A rule carrying one is not read here.
_NOT_ACT_PHRASE = frozenset(
    "only never not no must may can should shall will would agent agents bot bots also ever "
    "still just without unless if when while except once before after until over under above "
    "below more less than outside within during per each every all other non first".split()
)
# An approval by someone ('must be approved by payouts-approver', 'signed off by Risk'): a
# review of the act, not who does it; the rule keeps its other reading.
_APPROVING = frozenset(
    stem(w)
    for w in "approved reviewed signed authorised authorized checked verified validated "
    "countersigned confirmed cleared vetted accepted endorsed".split()
)
_MONEY_NOUNS = MONEY_GENERIC | MONEY_SPECIFIC
_ACT_WORDS = ACT_STEMS | NOMINAL_ACTS


def _verb_stem(word: str) -> str:
    w = word.lower()
    return stem(_PARTICIPLE_BASE.get(w, w))


def _groups(np: str) -> tuple[tuple[str, ...], ...] | None:
    """The nouns and qualifiers of a noun phrase, one group each, words joined by 'or' in one
    group ('root or master credentials' -> (root, master), (credenti,)); None when a word is not
    a plain word of an act phrase."""
    groups: list[list[str]] = []
    joined = False
    for token in np.split():
        low = token.lower()
        if low in _NOT_ACT_PHRASE:
            return None
        if low == "or":
            joined = bool(groups)
            continue
        if low in _FORM_WORDS:
            continue
        stems = list(content_stems(low))
        if not stems:
            return None
        if joined:
            groups[-1].extend(stems)
            joined = False
        else:
            groups.extend([s] for s in stems)
    return tuple(tuple(g) for g in groups) if groups else None


def _act(
    verb: str, np: str, passive: bool
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """(act stems, thing groups) of `verb` + `np`. A light verb ('performed', 'run') leaves the
    act to the noun phrase's own act words ('Rotation of …', 'Migrations'; money nouns there are
    things: 'vendor payouts'); with none, a light verb of a passive ('handled by …') is any act
    on the thing, and one of an active ('run reports') is the verb itself."""
    groups = _groups(np)
    low = verb.lower()
    if groups is None or low in _NOT_ACT_PHRASE or _verb_stem(low) in _APPROVING:
        return None
    if _verb_stem(low) in _LIGHT or not low:
        acts = tuple(
            g[0] for g in groups if len(g) == 1 and g[0] in _ACT_WORDS and g[0] not in _MONEY_NOUNS
        )
        if acts:
            return acts, tuple(g for g in groups if not (len(g) == 1 and g[0] in acts))
        if passive or not low:
            return (), groups
    return (_verb_stem(low),), groups


def _agents(m: re.Match[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    d = m.groupdict()
    if d.get("id"):
        return (d["id"].lower(),), ()
    if d.get("pool_prefix"):
        # 'the tier2 pool (agent id prefix tier2-)': the pool is named by its prefix
        if d["pool"].lower() != d["pool_prefix"].lower().rstrip("-_"):
            return None
        return (), (d["pool_prefix"].lower(),)
    prefix = d.get("prefix") or d.get("id_prefix")
    return ((), (prefix.lower(),)) if prefix else None


# 'The chat assistant (agent id support-chat-agent) may issue account credits only. It may never
# issue cash refunds.': what one named agent may do (its name glossed by its id), and never do.
_SCOPE = re.compile(
    r"^(?:the\s+)?(?P<name>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})\s+\(agent\s+id\s+" + _ID + r"\)"
    r"\s+(?:may|can)\s+(?:only\s+)?(?P<verb>[a-z]+)\s+(?P<obj>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)"
    r"(?:\s+only)?(?:\s*[.;]\s*(?:it|the\s+agent|this\s+agent|the\s+(?P=name))\s+"
    r"(?:may|must|can|shall)\s+never\s+(?P<verb2>[a-z]+)\s+"
    r"(?P<obj2>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?))?" + _END,
    re.I,
)


def _agent_scope(index: int, source: str, clean: str) -> list[AgentScope] | None:
    m = _SCOPE.match(clean)
    if m is None or not re.search(r"\bonly\b", clean[: m.end("obj") + 6], re.I):
        return None
    if _groups(m.group("name")) is None and m.group("name").lower().split()[-1] not in (
        "agent",
        "bot",
        "assistant",
    ):
        return None
    allowed = _act(m.group("verb"), m.group("obj"), passive=False)
    forbidden = ((), ())
    forbidden_phrase = ""
    if m.group("verb2"):
        barred = _act(m.group("verb2"), m.group("obj2"), passive=False)
        if barred is None:
            return None
        forbidden = barred
        forbidden_phrase = f"{m.group('verb2')} {m.group('obj2')}".lower()
    if allowed is None:
        return None
    return [
        AgentScope(
            index,
            source,
            "deny",
            tuple(w for g in allowed[1] for w in g),
            agent=m.group("id").lower(),
            allowed=allowed,
            forbidden=forbidden,
            allowed_phrase=f"{m.group('verb')} {m.group('obj')}".lower(),
            forbidden_phrase=forbidden_phrase,
        )
    ]


def reserved_act_rule(
    index: int, source: str, text: str
) -> list[ReservedAct] | list[AgentScope] | None:
    """The rule `text` read as who may do its act, or None when it is not wholly of that shape."""
    clean = re.sub(r"\s+", " ", text.replace("\u2013", "-").replace("\u2014", "-")).strip()
    clean = clean.replace("\u2019", "'")
    scoped = _agent_scope(index, source, clean)
    if scoped is not None:
        return scoped
    for pattern, effect in _FORMS:
        m = pattern.match(clean)
        if m is None:
            continue
        d = m.groupdict()
        if d.get("verb"):
            read = _act(d["verb"], d["obj"], passive=False)
            phrase = f"{d['verb']} {d['obj']}".lower()
        else:
            part = d.get("part") or ""
            read = _act(part, d["np"], passive=True)
            phrase = d["np"].lower() + (f" ({part.lower()})" if part else "")
        if read is None:
            return None
        acts, groups = read
        if not groups and not acts:
            return None
        agents, prefixes = (), ()
        if "id" in d or "prefix" in d:
            who = _agents(m)
            if who is None:
                return None
            agents, prefixes = who
        if d.get("cls") and (
            _groups(d["cls"].rsplit(None, 1)[0]) is None or d["cls"].split()[0].lower() == "the"
        ):
            return None  # 'Only the agents …', 'Only no agents …': not a class of agents
        if not agents and not prefixes and not (d.get("humans") or d.get("team") or d.get("cls")):
            if "out of scope" not in clean.lower() and "never" not in clean.lower():
                return None
        holder = (
            (d.get("humans") and "people")
            or (d.get("team") or "").strip()
            or (d.get("cls") or "").strip().lower()
            or "people"
        )
        if d.get("team") and re.search(r"\b(?:agents?|bots?|automation)\b", d["team"], re.I):
            return None  # 'handled by the agent': not another party
        permitted: tuple = ()
        permitted_phrase = ""
        if d.get("tail"):
            tail = _TAIL.match(d["tail"].strip())
            if tail is None:
                return None
            if tail.group("read"):
                restated = _verb_stem(tail.group("restated"))
                if not any(same_action(restated, a) for a in acts):
                    return None  # 'read but not erase' must restate the rule's own act
                permitted = (((stem("read"),), groups),)
                permitted_phrase = f"read but not {tail.group('restated').lower()}"
            else:
                other = _act(tail.group("verb"), tail.group("obj"), passive=False)
                if other is None:
                    return None
                permitted = (other,)
                permitted_phrase = f"only {tail.group('verb')} {tail.group('obj')}".lower()
        return [
            ReservedAct(
                index,
                source,
                effect,
                tuple(w for g in groups for w in g) + acts,
                agents=agents,
                prefixes=prefixes,
                holder=holder if not (agents or prefixes) else "",
                acts=acts,
                groups=groups,
                act_phrase=phrase,
                permitted=permitted,
                permitted_phrase=permitted_phrase,
            )
        ]
    return None
