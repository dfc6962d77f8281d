"""A tool call seen the way rules speak about it: stems of the tool name, flattened arguments."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from webapp.judge.glossvalues import family_stems, same_value
from webapp.judge.places import country_code
from webapp.judge.quantities import ARG_UNIT_SUFFIXES, parse_number_value
from webapp.judge.text import STOPWORDS, content_stems, normalise_value, short_forms, stem, words

# Where a thing is ('vendors located outside the EU', 'foreign vendors'): a fact of its place, never
# ruled out by a state, kind or name argument (`vendor_status: "approved"` had ruled the rule out,
# and the payment to a US vendor was approved unread)
_WHERE_QUALIFIERS = frozenset(
    stem(w)
    for w in (
        "outside inside located based foreign domestic international overseas offshore abroad "
        "local cross-border resident non-resident destination location jurisdiction"
    ).split()
)

# Verbs that name what a tool does; a tool name holding one of them has a known action.
VERB_GROUPS: dict[str, frozenset[str]] = {
    "delete": frozenset(
        {"delet", "remov", "drop", "destroy", "purg", "eras", "wip", "truncat", "nuke", "nuk"}
    ),
    "change": frozenset(
        {
            "chang",
            "upd",
            "modify",
            "modif",
            "edit",
            "set",
            "put",
            "attach",
            "detach",
            "patch",
            "alter",
            "configur",
            "apply",
            "grant",
            "revok",
            "enabl",
            "disabl",
            "toggl",
            "add",
            "cre",
            "delet",
            "remov",
            "assign",
            "rot",
            "scal",
            "resiz",
            "writ",
        }
    ),
    "create": frozenset(
        {"cre", "add", "launch", "provision", "insert", "new", "open", "issu", "spin", "run"}
        # 'Vendors … may not be onboarded' on vendor_master.create: onboarding a party is
        # creating its record (it had ruled the rule out, and a Syrian vendor was approved)
        | {"onboard"}
    ),
    "read": frozenset(
        {"read", "get", "list", "describ", "view", "fetch", "show", "search", "query", "look"}
    ),
    "send": frozenset({"send", "email", "post", "notify", "messag", "mail"}),
    "grant": frozenset({"grant", "giv", "give", "assign", "attach", "add", "invit"}),
    # 'paus', 'nuk', 'hir': the stems of 'pause', 'nuke', 'hire' ('pause', 'nuke' and 'hire' are
    # not stems, so no word of a rule or a tool name reached them)
    "stop": frozenset({"stop", "halt", "shutdown", "shut", "pause", "paus", "suspend"}),
    "terminate": frozenset({"termin", "kill", "destroy", "fire", "dismiss", "offboard"}),
    "export": frozenset(
        {"export", "download", "extract", "dump", "shar", "transfer", "copy", "sync"}
    ),
    "deploy": frozenset({"deploy", "releas", "ship", "rollout", "promot", "launch"}),
}
# What each kind of action moves or touches, for judging which text rules are relevant.
RELATED_OBJECTS: dict[str, frozenset[str]] = {
    "export": frozenset({"data"}),
    "send": frozenset({"messag", "email", "recipient"}),
    "delete": frozenset({"data"}),
}
_RELATED_OBJECT_STEMS = frozenset({"data"})
# A kind of message that a tool's own word names by definition: a campaign or a newsletter is
# marketing ('Every marketing email …' and email.campaign.send). Read from the tool's name only:
# an argument's value may say anything.
_KIND_OF_TOOL: dict[str, frozenset[str]] = {
    kind: frozenset(stem(w) for w in "campaign campaigns newsletter newsletters".split())
    for kind in (stem("marketing"), stem("promotional"), stem("promotion"))
}
VERBS: frozenset[str] = frozenset().union(*VERB_GROUPS.values()) | frozenset(
    {
        "reboot",
        "restart",
        "start",
        "schedul",
        "rollback",
        "merg",
        "push",
        "migr",
        "access",
        "use",
        "call",
        "invok",
        "execut",
        "encrypt",
        "decrypt",
        "backup",
        "restor",
        "upload",
        "import",
        "approv",
        "skip",
        "bypass",
        "disabl",
        "generat",
        "sign",
        "hire",
        "hir",
        "onboard",
        "offboard",
        "publish",
        "contact",
        "apply",
        "pay",
        "payout",
        "refund",
        "wire",
        "transfer",
        "charg",
        "remit",
        "disburs",
        "terminat",
        # 'isolate_host' names its act ('Releasing a host from isolation …' is not about it:
        # the words after 'from' are never the rule's act, `checks.name_qualifiers`)
        "isol",
    }
)
# The words that name a mutation in general ('changes', 'updates', 'edits'): each covers every
# mutation. A specific mutation ('delete', 'add', 'grant') is not a synonym of the others, so the
# 'change' group is not joined up like the specific groups: before, 'deleted' matched `add_entry`
# through it, and 'Entries may not be deleted' forbade adding one.
_MUTATION_WORDS = frozenset({"chang", "upd", "modify", "modif", "edit", "alter", "patch"})
_VERB_SYNONYMS: dict[str, frozenset[str]] = {}
for _name, _group in VERB_GROUPS.items():
    for _v in _group:
        joined = _group if _name != "change" or _v in _MUTATION_WORDS else frozenset({_v})
        _VERB_SYNONYMS[_v] = _VERB_SYNONYMS.get(_v, frozenset({_v})) | joined

# Whether a rule the engine judges as text is about another action than the request's
# (`RequestView.other_action`, the rule's side in `actions.py`). Two actions are the same when
# one is a synonym of the other (_VERB_SYNONYMS), or when both lie in one of these families: the
# synonym groups miss acts that one domain names two ways (terminating an instance deletes it,
# sending an email may export a list, a reboot stops a host), so only actions of different
# families, or outside every family and not synonyms, are told apart.
_FAMILIES: dict[str, frozenset[str]] = {
    # acts that end, remove, stop or cut something off
    "ending": VERB_GROUPS["delete"]
    | frozenset({"retir", "mov"})  # rotation retires the old thing; a move removes the source
    | VERB_GROUPS["terminate"]
    | VERB_GROUPS["stop"]
    | frozenset(
        {"disabl", "revok", "detach", "isol", "offboard", "reboot", "restart", "scal", "resiz"}
        | {"rollback", "terminat", "ban", "quarantin", "lock", "block"}
    ),
    # acts that start, create, grant or put something in place ('list' an item for sale)
    "starting": VERB_GROUPS["create"]
    | VERB_GROUPS["deploy"]
    | VERB_GROUPS["grant"]
    | frozenset(
        {"enabl", "restor", "restart", "reboot", "start", "rollback", "merg", "push", "migr"}
        | {"rot", "generat", "hire", "onboard", "import", "upload", "publish", "scal", "resiz"}
        | {"list", "post", "transfer"}
    ),
    # acts that move data, goods or messages out to someone ('release records', 'ship')
    "moving": VERB_GROUPS["send"]
    | VERB_GROUPS["export"]
    | frozenset({"contact", "publish", "upload", "migr", "backup", "post", "releas", "ship"})
    | frozenset({"push", "list", "issu", "giv", "give", "mov"})
    # giving someone access to a thing (inviting, adding, granting, sharing) discloses it
    | VERB_GROUPS["grant"],
    # acts that move money ('release funds', 'issue a refund', 'give a bonus')
    "paying": frozenset({"pay", "payout", "refund", "wire", "wir", "transfer", "charg", "remit"})
    | frozenset({"disburs", "releas", "issu", "giv", "give", "send"}),
    # acts that read or take a copy
    "reading": VERB_GROUPS["read"] | VERB_GROUPS["export"] | frozenset({"backup"}),
}
# Acts that move data or messages out (the 'moving' family): a rule on one of them ('Exporting
# subscriber lists …') is not ruled out by a tool doing another ('send_campaign'): both may
# carry the data out. Compiled checks tell the other families' acts apart by their synonyms.
_MOVING_OUT = _FAMILIES["moving"]
# The rule's side: the acts that carry data itself out ('exporting', 'sent', 'shared',
# 'uploaded'), not those that only reach someone ('contact', 'notify': 'Never text contacts …'
# names the people, and a tool that sends is not shown to contact them).
_MOVES_DATA_OUT = VERB_GROUPS["export"] | frozenset(
    {"send", "mail", "email", "upload", "publish", "leav"}
)
# Words that name a movement out by where it ends ('leaves the company', 'outside the EU', 'to a
# research partner', 'a third party'): a text rule using them speaks to a tool that moves out.
_OUT_WORDS = frozenset(
    stem(w) for w in "leave outside external abroad offsite exit partner third".split()
)
_FAMILY_OF: dict[str, frozenset[str]] = {}
for _name, _family in _FAMILIES.items():
    for _v in _family:
        _FAMILY_OF[_v] = _FAMILY_OF.get(_v, frozenset()) | {_name}
# The words that name an act, for this comparison only: the verb lexicon and the families' few
# further acts ('isolate', 'ban', 'cancel'), which the compiled checks do not read as verbs.
ACT_STEMS: frozenset[str] = VERBS | frozenset(_FAMILY_OF)
# A tool verb that does not say which act it is (the brief's 'execute', 'run', 'process',
# 'submit', 'handle', 'apply', 'call', 'manage'), an umbrella for every mutation (the
# _MUTATION_WORDS), or an act that authorises or sets up others ('approve', 'configure', 'set'):
# a request so named may be any act, so every rule may speak of it.
BROAD_ACTIONS = _MUTATION_WORDS | frozenset(
    stem(w)
    for w in "execute run process submit perform do handle apply call invoke manage operate "
    "use access approve authorize authorise request set put configure write make skip bypass "
    "trigger".split()
)
# 'schedule_key_deletion' deletes a key (later): the scheduling verb says when, not what.
_WHEN_VERBS = frozenset({stem("schedule"), stem("queue")})
# Arguments that name how a known act is done ('mode': 'move').
_MODE_KEYS = frozenset(stem(w) for w in "mode method strategy".split())
# Arguments that name who receives what the tool makes ('recipients', 'send_to', 'cc').
_RECIPIENT_KEYS = frozenset(
    stem(w)
    for w in "recipient recipients to cc bcc destination dest audience invitee invitees "
    "sharee sharees forward deliver".split()
)
# The objects whose rotation keeps the old one (a key version stays for decryption).
_KEPT_ON_ROTATION = frozenset({stem("key"), stem("keys"), "kms"})
# Arguments that name the act a generic tool performs ('operation': 'rotate').
# Closed-dimension words other arguments may show (see RequestView._shown_otherwise).
_INTERNATIONAL = stem("international")
_REMOTE = stem("remote")
_COUNTRY_KEYS = frozenset(stem(w) for w in "country nation jurisdiction".split())
_REMOTE_CHANNELS = frozenset(
    stem(w) for w in "vpn rdp ssh vnc teamviewer anydesk citrix tunnel remote".split()
)
# Arguments that give a role or a privilege, and flags that make one (see argument_acts).
_PRIVILEGE_KEYS = frozenset(
    stem(w)
    for w in "role roles permission permissions privilege privileges entitlement entitlements "
    "access_level grants".split()
)
_PRIVILEGE_FLAGS = frozenset(
    stem(w) for w in "admin administrator superuser sudo sudoer root privileged".split()
)
_GRANTS = frozenset({stem("grant"), stem("assign")})
# Words that turn a flag named for an act around ('skip_delete', 'dry_run', 'keep_source').
_NEGATING_KEYS = frozenset(
    stem(w)
    for w in "skip no not dont without disable disabled dry prevent avoid keep retain preserve "
    "simulate simulation test preview".split()
)
_ACTION_KEYS = frozenset(
    stem(w) for w in "action operation op command cmd verb activity type kind".split()
)


def same_action(a: str, b: str) -> bool:
    """Whether two action stems may name one act: synonyms (_VERB_SYNONYMS) or one family."""
    if a == b or b in _VERB_SYNONYMS.get(a, ()) or a in _VERB_SYNONYMS.get(b, ()):
        return True
    fa = _FAMILY_OF.get(a)
    fb = _FAMILY_OF.get(b)
    return bool(fa and fb and not fa.isdisjoint(fb))


# Money words: generic ones apply to any money-moving tool, specific ones name one kind of tool.
MONEY_GENERIC = frozenset(
    {"pay", "transfer", "transact", "fund", "money", "amount", "spend", "cost"}
)
# Verbs that only say money moves ('payouts may only be sent to …'): any money tool does that.
MONEY_MOVEMENT_VERBS = frozenset({"send", "mak", "make", "remit", "wir", "mov"})
MONEY_SPECIFIC = frozenset(
    {
        "refund",
        "payout",
        "charg",
        "invoic",
        "wire",
        "bonus",
        "severanc",
        "salary",
        "expens",
        "disburs",
        "reimburs",
        "withdraw",
        "deposit",
        "subscript",
        "loan",
        "card",
    }
)
# The unions the view asks about, built once rather than per question.
_MONEY_WORDS = MONEY_GENERIC | MONEY_SPECIFIC
_MONEY_MOVES = MONEY_SPECIFIC | {"pay", "transfer"}
_MONEY_ALL = _MONEY_WORDS | MONEY_MOVEMENT_VERBS
# Words of an argument name that scale an amount ('notional_mm_usd' is in millions).
SCALE_WORDS: dict[str, float] = {
    **dict.fromkeys(("k", "thousand", "thousands", "kusd", "keur", "kgbp"), 1e3),
    **dict.fromkeys(("m", "mm", "mn", "mio", "million", "millions", "musd", "meur"), 1e6),
    **dict.fromkeys(("mmusd", "mgbp", "mchf", "mjpy"), 1e6),
    **dict.fromkeys(("b", "bn", "billion", "billions", "busd"), 1e9),
}
MONEY_KEYS = frozenset(
    stem(w)
    for w in "amount total value sum price cost fee charge pay balance salary bonus budget spend "
    "rate payout refund wage limit severance notional principal premium exposure".split()
)
COMMS = frozenset({"email", "messag", "sms", "slack", "chat", "text", "call", "mail"})
COMMS_GENERIC = frozenset({"messag", "communic", "correspond"})
# One channel, two names: 'never text contacts …' governs send_sms.
_COMMS_SAME: dict[str, frozenset[str]] = {
    "text": frozenset({"sms"}),
    "sms": frozenset({"text"}),
    "mail": frozenset({"email"}),
    "email": frozenset({"mail"}),
}
VALUE_CLASSES: dict[str, frozenset[str]] = {
    name: frozenset(stem(w) for w in ws.split())
    for name, ws in {
        "environment": "production development staging test qa sandbox preview uat local live",
        "visibility": "public private internal restricted confidential",
        "speed": "instant standard express sameday nextday regular",
        "person": "contractor employee intern temp freelancer consultant executive manager staff "
        "vendor",
        # where a person works from: 'remote sessions' against a session that is 'onsite'
        "presence": "remote onsite onprem inperson",
        # whether a trip, a shipment or a payment crosses a border
        "reach": "domestic international",
        "method": "crypto wallet card ach sepa swift cheque cash paypal bank",
        # closed dimensions of common nouns: an order's type, a customer's segment
        "order type": "market limit",
        "segment": "residential commercial industrial",
    }.items()
}
_VALUE_CLASSES_OF: dict[str, frozenset[str]] = {
    term: frozenset(name for name, klass in VALUE_CLASSES.items() if term in klass)
    for klass in VALUE_CLASSES.values()
    for term in klass
}
# Classes of people named by age ('posts by minors', 'accounts for children'), read from an
# argument holding an age in years (`author_age`: 15): (matched below, absent from). Between
# the two (a minor at 19 in a few jurisdictions) the word is neither shown nor ruled out.
_AGE_CLASSES: dict[str, tuple[float, float]] = {
    stem("minor"): (18, 21),
    stem("child"): (13, 18),
    stem("children"): (13, 18),
    stem("kid"): (13, 18),
}
_ADULT = stem("adult")
_AGE = stem("age")
_ID_KEYS = frozenset(
    {"id", "number", "no", "num", "ref", "nam", "name", "key", "cod", "uuid", "arn", "uri", "link"}
)
# Marks of a neighbour word in checks._groups: the noun before a state word, the noun after a name.
KEY_STATE = "<"
KEY_NAME = "="
# A word of a known value class in a rule naming another value of that class ('test … prod').
KEY_SAME_CLASS = "!"
# A word of a rule that names a state ('with SAP status Suspended'), never an action, whatever
# verb it shares a stem with: another tool's verb does not rule it out.
KEY_STATE_WORD = "~"
# A word of a rule that names a thing, written as a noun ('Posts by minors', 'the backups'),
# whose stem is also a verb: never the act, so another tool's verb does not rule it out.
KEY_THING = "^"
# Verb stems whose noun names the thing acted on ('posts', 'messages', 'backups'), as
# `actions._THING_NOUNS` says for text rules; and the things that hold each of them, so a tool
# acting on 'content' or a 'file' may act on a post or an upload (`checks._applicability`).
THING_NOUNS = frozenset(
    stem(w) for w in "post message email mail backup text listing upload dump copy snapshot".split()
)
THING_KINDS: dict[str, frozenset[str]] = {
    stem(kind): frozenset(stem(w) for w in things.split())
    for kind, things in {
        "content": "post message email mail text listing upload",
        "file": "upload backup dump copy snapshot",
        "asset": "upload",
        "snapshot": "backup",
        "item": "listing",
    }.items()
}
# Argument names whose value says where on one dimension the request's thing is, so another value
# there rules out a qualifier of the rule ('shipping_speed': 'standard' against 'expedited
# shipping', 'customer_tier': 'starter' against 'enterprise customers'), and those whose value
# says its state. A catch-all 'type', 'kind', 'class' or 'category' is not one of them: a thing
# has many kinds ('loan_type': 'consumer' says nothing of 'unsecured loans', 'purchase_type':
# 'software' nothing of 'sole-source purchases'); only a value of a known closed class
# (VALUE_CLASSES: 'limit' against 'market orders') rules a qualifier out there.
_STATE_KEYS = frozenset(stem(w) for w in "status state stage".split())
_KIND_KEYS = _STATE_KEYS | frozenset(
    stem(w) for w in "tier level plan grade speed priority sourcing".split()
)
_SAME_CLASS_MARK = frozenset({KEY_SAME_CLASS, KEY_STATE_WORD, KEY_THING})
_CODE = re.compile(r"^\s*[A-Z]{2,3}\s*$")
_ENUM_LIKE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,39}$")


@dataclass(frozen=True, init=False)
class Leaf:
    """One argument value, flattened: 'payout.amount.value' -> 12000."""

    path: str
    keys: frozenset[str]  # stems of every path segment
    last_keys: frozenset[str]  # stems of the last segment only
    value: Any
    unit: tuple[str, float] | None  # from a unit suffix of the name ('size_gb')

    def __init__(
        self,
        path: str,
        keys: frozenset[str],
        last_keys: frozenset[str],
        value: Any,
        unit: tuple[str, float] | None,
    ) -> None:
        # Built for every argument of every request: the fields are set in the instance's dict
        # rather than through object.__setattr__ each (still frozen afterwards).
        fields = self.__dict__
        fields["path"] = path
        fields["keys"] = keys
        fields["last_keys"] = last_keys
        fields["value"] = value
        fields["unit"] = unit


@lru_cache(maxsize=4096)
def _acronyms(tool_name: str) -> frozenset[str]:
    """Initials of 2 to 4 consecutive words of a tool's name ('create_purchase_order' -> 'po',
    'cpo'): what a rule's acronym for the tool's object reads as."""
    ws = [w for w in words(tool_name) if w.isalpha()]
    out = set()
    for n in (2, 3, 4):
        for i in range(len(ws) - n + 1):
            out.add("".join(w[0] for w in ws[i : i + n]))
    return frozenset(out)


@lru_cache(maxsize=65536)
def _slip_of(term: str, tool_stems: frozenset[str]) -> bool:
    """Whether `term` is one letter from a word of the tool's name (cached: rules repeat terms)."""
    return any(_one_letter_apart(term, t) for t in tool_stems)


def _one_letter_apart(a: str, b: str) -> bool:
    """Whether two words of 6+ letters differ by one letter left out or put in."""
    if abs(len(a) - len(b)) != 1 or min(len(a), len(b)) < 6:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    for i in range(len(long_)):
        if long_[:i] + long_[i + 1 :] == short:
            return True
    return False


# A word before another in a value that says the value is near that state, not in it:
# 'pre_collections', 'ex_employee', 'semi_annual'. The word after it is neither shown by the value
# (matched, 'in collections' denied a pre-collections account) nor ruled out. A negation ('not-
# test', 'no test', 'non_profit') is read where it is (it rules the word out), not here.
_MODIFIERS = frozenset("pre post ex former semi quasi near almost pending".split())
_VALUE_MODIFIER = re.compile(r"(?:^|[\W_])(?:" + "|".join(sorted(_MODIFIERS)) + r")[\W_]+\w", re.I)


def _modified_stems(value: str) -> frozenset[str]:
    """Stems of the words right after a modifier in `value` ('pre_collections': 'collect')."""
    ws = words(value)
    return frozenset(
        s
        for prev, w in zip(ws, ws[1:], strict=False)
        if prev.lower() in _MODIFIERS
        for s in content_stems(w)
    )


_RECEIVING = frozenset(stem(w) for w in ("receive", "receives", "obtain", "obtains"))


# Words `_term_matches` and `_term_absent` read by a table of their own (money, messages, verbs,
# kinds of message, related objects, ages, receiving, closed dimensions). Any other word is
# matched by the request's names and values alone: such words are most of a tenant's subject
# words, and they skip the tables (the same answer, without a dozen look-ups per word).
_TABLED_FOR_MATCHES = frozenset().union(
    MONEY_GENERIC,
    MONEY_MOVEMENT_VERBS,
    COMMS_GENERIC,
    MONEY_SPECIFIC,
    COMMS,
    VERBS,
    _KIND_OF_TOOL,
    _RELATED_OBJECT_STEMS,
    _AGE_CLASSES,
    {_ADULT},
)
_TABLED_FOR_ABSENT = frozenset().union(
    _RECEIVING,
    MONEY_SPECIFIC,
    MONEY_GENERIC,
    MONEY_MOVEMENT_VERBS,
    COMMS,
    VERBS,
    _AGE_CLASSES,
    {_ADULT},
    _VALUE_CLASSES_OF,
)


def _moves_out(tool_name: str) -> bool:
    """Whether the tool's own act (its last segment, named verb first: `send_campaign`,
    not the `lists.` namespace) moves data or messages out to someone."""
    last = [w for w in words(tool_name.rsplit(".", 1)[-1]) if w not in STOPWORDS]
    return bool(last) and stem(last[0]) in _MOVING_OUT


@lru_cache(maxsize=4096)
def _tool_reading(
    tool_name: str,
) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool, frozenset[str]]:
    """What a tool's name alone says, for every request to it: (its stems, the initials of its
    words, its verbs, whether its act moves data out, the words a rule may use for what it
    does). Kept per tool name: agents call the same tools over and over, and each request read
    it anew (a regex split, stems, the verb groups walked)."""
    tool_stems = frozenset(content_stems(tool_name))
    tool_verbs = frozenset(s for s in tool_stems if s in VERBS)
    related: set[str] = set()
    for verb in tool_verbs:
        for group_name, group in VERB_GROUPS.items():
            if verb in group:
                related |= group | RELATED_OBJECTS.get(group_name, frozenset())
    moving_out = _moves_out(tool_name)  # asked again by `_term_absent` for verbs moving data
    if moving_out:
        # 'PII must be encrypted before it leaves the company', 'before they go to a
        # research partner': a rule may name the act by where the data ends up
        related |= _OUT_WORDS
    # related: words a rule may use for what this tool does ('data leaving' for an export tool)
    return tool_stems, _acronyms(tool_name), tool_verbs, moving_out, frozenset(related)


class RequestView:
    """The request in the shape the checks need; built once per evaluation."""

    def __init__(self, tool_name: str, tool_args: dict, agent_id: str, history: Any) -> None:
        self.tool_name = tool_name
        self.tool_args = tool_args
        self.agent_id = agent_id
        self.history = _GuardedHistory(history)
        # Answers of term_matches and term_absent, read directly by the checks' hot loops.
        self.matches_memo: dict[str, bool] = {}
        self.absent_memo: dict[tuple[str, frozenset[str]], bool] = {}
        self._numeric: tuple[tuple[Leaf, float], ...] | None = None
        self.applicability_memo: dict[tuple, tuple[str, bool]] = {}
        self.bind_memo: dict[tuple, tuple] = {}
        # The currency of an amount, by its argument path: asked by every money rule.
        self.currency_memo: dict[str, Any] = {}
        # What the tool's name alone says: read once per tool name (see _tool_reading).
        (
            self.tool_stems,
            self.tool_acronyms,
            self.tool_verbs,
            self._moving_out,
            self.related_stems,
        ) = _tool_reading(tool_name)
        self.leaves: list[Leaf] = []
        self._object_lists: list[Leaf] = []
        _flatten(tool_args, "", self.leaves, self._object_lists)
        self.key_stems = (
            frozenset().union(*(lf.keys for lf in self.leaves)) if self.leaves else frozenset()
        )
        self.last_key_stems: frozenset[str] = frozenset(
            k for lf in self.leaves for k in lf.last_keys
        )
        vals: set[str] = set()
        norms: set[str] = set()
        hedged: set[str] = set()
        for leaf in self.leaves:
            for v in scalars(leaf.value):
                if isinstance(v, str):
                    norms.add(normalise_value(v))
                    found = content_stems(v[:500])
                    if _VALUE_MODIFIER.search(v):
                        near = _modified_stems(v[:500])
                        hedged.update(near)
                        found = tuple(s for s in found if s not in near)
                    vals.update(found)
                elif isinstance(v, bool) and v:
                    vals.update(leaf.last_keys)
        self.value_stems = frozenset(vals)
        self.value_norms = frozenset(norms)
        # Rules ask about the same few argument names over and over: answer from sets built once
        # per request instead of walking the leaves for every term of every rule.
        # A count of zero shows the thing is absent ('refills': 0 against a rule on refills).
        present: set[str] = set()
        empty: set[str] = set()
        for lf in self.leaves:
            if (
                isinstance(lf.value, str)
                and _DATE_VALUE.match(lf.value)
                and not lf.last_keys.isdisjoint(_STATE_STEMS)
            ):
                # `lot.expiry: "2026-08-31"` says when, not whether: 'Expired lots …' is neither
                # shown (an active lot was denied) nor ruled out by it (a human reads the date)
                states = lf.last_keys & _STATE_STEMS
                present.update(lf.keys - states)
                hedged.update(states - vals)
                continue
            if (
                isinstance(lf.value, str)
                and lf.value.strip() == "NO"
                and not lf.last_keys.isdisjoint(_COUNTRY_KEYS)
            ):
                # `customer_country: "NO"` is Norway, not a no: read as one, 'customers located
                # in the EEA need DPO review' was ruled out for a Norwegian customer
                present.update(lf.keys)
                continue
            if _single_letter_no(lf):
                # `is_permanent: "N"`, `recurring: "n"`: a yes/no written Y/N says no, as
                # "no" and false do; read as a value, 'Permanent bans are not allowed' denied a
                # temporary ban and 'Recurring payments may not exceed $2,000' a one-off payment
                empty.update(lf.keys)
                continue
            (present if truthy(lf.value) and not _zero(lf.value) else empty).update(lf.keys)
        # Words a value shows only behind a modifier ('pre_collections', 'non-profit'): close
        # to the rule's word but not it, so neither shown nor ruled out (see _modified_stems)
        self.hedged_stems = frozenset(hedged - vals)
        self._present_keys = frozenset(present)
        self._key_only: frozenset[str] | None = None  # see _key_only_stems
        self._empty_keys = frozenset(empty)
        # Arguments through which a qualifier of the rule's subject may be ruled out (see
        # checks._groups): a kind ('order_type': 'limit' against 'market orders'), a state
        # ('account_status': 'active' against 'accounts in collections', marked KEY_STATE) or a
        # name ('table': 'orders' against 'the salaries table', marked KEY_NAME). A plain name
        # never rules out a kind: 'customer_emails' does not show a table is not a PII table.
        category_keys: set[str] = set()
        for lf in self.leaves:
            if not _category_like(lf) or _CODE.match(lf.value):
                # a code ('TX', 'GB', 'FOK') abbreviates: it does not spell the rule's word
                # ('Texas customers'), so its spelling cannot rule that word out
                continue
            category_keys.update(KEY_NAME + k for k in lf.last_keys)
            if lf.last_keys & _KIND_KEYS:
                category_keys.update(lf.last_keys)
            if lf.last_keys & _STATE_KEYS:
                category_keys.update(KEY_STATE + k for k in lf.last_keys)
        self._category_keys = frozenset(category_keys)
        self.neighbour_keys = (
            self.last_key_stems
            | frozenset(m + k for k in self.last_key_stems for m in (KEY_STATE, KEY_NAME))
            | _SAME_CLASS_MARK
        )
        self._classes_shown: frozenset[str] | None = None
        self._acts: frozenset[str] | None = None  # see request_actions
        # other_action per set of a rule's acts: many text rules of a tenant name the same acts
        self._other_action_memo: dict[frozenset[str], frozenset[str]] = {}
        self._arg_acts: frozenset[str] | None = None  # see argument_acts
        self._family_stems: frozenset[str] | None = None  # see kind_family_stems
        self.money_tool = bool(self.tool_stems & _MONEY_WORDS) or any(
            lf.last_keys & MONEY_KEYS and isinstance(lf.value, (int, float)) for lf in self.leaves
        )

    def _key_only_stems(self) -> frozenset[str]:
        """Words shown only as the name of an argument whose value is a category naming
        something else ('refund_priority': 'low' shows the word 'priority', not a priority
        refund); derived when a permission first asks (rarely), not for every request."""
        if self._key_only is None:
            shown_otherwise = set(self.tool_stems) | self.value_stems
            for lf in self.leaves:
                if not (isinstance(lf.value, str) and _category_like(lf)):
                    shown_otherwise.update(lf.keys)
            self._key_only = self._present_keys - frozenset(shown_otherwise)
        return self._key_only

    def named_only_by_other_value(
        self,
        terms: tuple[str, ...],
        unrestricted: frozenset[str] = frozenset(),
        rule_words: frozenset[str] = frozenset(),
    ) -> bool:
        """Whether one of `terms` is shown only by an argument's name whose value is a category
        naming something else: the request shows the dimension, not the rule's value on it
        ('priority refunds' and refund_priority='low'). Not when that value is another word of
        the rule (`rule_words`: 'annual plans' and plan='annual') or the rule leaves the dimension
        open ('in any environment': `unrestricted`)."""
        key_only = self._key_only_stems().intersection(terms).difference(unrestricted)
        if not key_only:
            return False
        wanted = set(terms) | rule_words
        for t in key_only:
            if not any(
                t in lf.keys and not wanted.isdisjoint(content_stems(str(lf.value)))
                for lf in self.leaves
            ):
                return True
        return False

    def term_matches(self, term: str) -> bool:
        """Whether the request shows `term`: in the tool name, an argument name or value."""
        hit = self.matches_memo.get(term)
        if hit is None:
            hit = self.matches_memo[term] = self._term_matches(term)
        return hit

    def _term_matches(self, term: str) -> bool:
        if term in self.tool_stems or term in self.value_stems:
            return True
        if term in self.tool_acronyms:
            return True  # 'POs' on create_purchase_order: the initials of the tool's words
        if len(term) >= 6 and _slip_of(term, self.tool_stems):
            return True  # 'withdrawls' on process_withdrawal: a slip of the pen, not another word
        if term.endswith("er") and len(term) >= 6 and term[:-2] in self.tool_stems:
            return True  # 'waivers' on waive_fee: the tool's act named by its noun
        if term not in _TABLED_FOR_MATCHES:
            return term in self._present_keys  # what the last line answers for such a word
        if term in MONEY_GENERIC or (term in MONEY_MOVEMENT_VERBS and self.money_tool):
            return self.money_tool
        if term in COMMS_GENERIC:
            return bool(self.tool_stems & COMMS)
        if term in MONEY_SPECIFIC or term in COMMS:
            same = _COMMS_SAME.get(term)
            return term in self._present_keys or bool(same and same & self.tool_stems)
        if term in VERBS:
            syn = _VERB_SYNONYMS.get(term, frozenset({term}))
            return bool(syn & self.tool_stems) or term in self._present_keys
        kind_of = _KIND_OF_TOOL.get(term)
        if kind_of is not None and not kind_of.isdisjoint(self.tool_stems):
            return True  # 'marketing emails' and send_campaign: a campaign is marketing
        if term in _RELATED_OBJECT_STEMS and term in self.related_stems:
            return True  # 'exports of patient data' and an export tool: exporting moves data
        if term in _AGE_CLASSES or term == _ADULT:
            ages = self.ages()
            if ages:
                return all(_age_class(term, a) is True for a in ages)
        return term in self._present_keys

    def ages(self) -> tuple[float, ...]:
        """Ages in years the request states (`author_age`: 15; not `seller_age_days`)."""
        found = []
        for lf in self.leaves:
            if _AGE not in lf.last_keys or isinstance(lf.value, bool):
                continue
            if lf.unit is not None and not (lf.unit[0] == "time" and lf.unit[1] > 3e7):
                continue  # an age in days or months is an account's or a listing's age
            if isinstance(lf.value, (int, float)) and 0 <= lf.value < 130:
                found.append(float(lf.value))
        return tuple(found)

    def request_actions(self) -> frozenset[str]:
        """The acts this request performs, as verb stems: the tool name's verbs, and the verbs
        an argument naming the act carries ('operation': 'rotate'). Empty when the tool names no
        known verb, or a broad one (BROAD_ACTIONS: the request may be any act)."""
        acts = self._acts
        if acts is None:
            # A tool is named verb first ('rotate_key', 'payouts.create'): when its last
            # segment starts with a word that is no known act ('override_meter_read'), a later
            # act word is a noun of the object ('meter read'), and the act is unknown.
            last = [w for w in words(self.tool_name.rsplit(".", 1)[-1]) if w not in STOPWORDS]
            leading = stem(last[0]) if last else ""
            found = set(self.tool_stems & ACT_STEMS) if leading in ACT_STEMS else set()
            for lf in self.leaves:
                if lf.last_keys & _ACTION_KEYS and isinstance(lf.value, str):
                    found.update(s for s in content_stems(lf.value[:200]) if s in ACT_STEMS)
            if found:
                # Acts an argument shows beside the tool's own: a mode ('mode': 'move'), or a
                # recipient ('recipients', 'send_to'), which sends what the tool makes out. Only
                # added to a known act (they can only keep more rules relevant).
                for lf in self.leaves:
                    if lf.last_keys & _MODE_KEYS and isinstance(lf.value, str):
                        found.update(s for s in content_stems(lf.value[:200]) if s in ACT_STEMS)
                    if lf.last_keys & _RECIPIENT_KEYS and lf.value not in (None, "", [], {}):
                        found.add("send")
                found.update(self.argument_acts())
            found -= _WHEN_VERBS  # 'schedule_report': when, not what; alone it names no act
            if "rot" in found and not self.tool_stems & _KEPT_ON_ROTATION:
                # Rotating logs, certificates or credentials retires the old ones (deletes,
                # revokes); only a key's rotation keeps its old material (a KMS key version).
                found.add("retir")
            acts = self._acts = (
                frozenset()
                if not found or not found.isdisjoint(BROAD_ACTIONS)
                else frozenset(found)
            )
        return acts

    def argument_acts(self) -> frozenset[str]:
        """Acts the arguments perform beside the tool's own: a flag named for an act and set
        (`drop_source: true`, `delete_original: true`) performs it; a role or a privilege given
        (`role: "admin"`, `superuser: true`) grants it (`create_user`, `promote_user` grant the
        role they are given)."""
        acts = self._arg_acts
        if acts is None:
            found: set[str] = set()
            for lf in self.leaves:
                value = lf.value
                on = value is True or (
                    isinstance(value, str) and value.strip().lower() in ("true", "yes")
                )
                if on and not lf.last_keys & _NEGATING_KEYS:
                    # named verb first, in its base form ('drop_source', 'delete_original'); not
                    # a state ('unsubscribed', 'is_deleted') nor a noun ('unsubscribed_list')
                    name = [w for w in words(lf.path.rsplit(".", 1)[-1]) if w not in STOPWORDS]
                    first = name[0].lower() if name else ""
                    act = stem(first)
                    if (
                        act in ACT_STEMS
                        and act not in _WHEN_VERBS
                        and not first.endswith(("ed", "ing"))
                    ):
                        found.add(act)
                    if lf.last_keys & _PRIVILEGE_FLAGS:
                        found.update(_GRANTS)
                elif lf.last_keys & _PRIVILEGE_KEYS and value not in (None, "", [], {}, False):
                    found.update(_GRANTS)
            acts = self._arg_acts = frozenset(found)
        return acts

    def performs(self, term: str) -> bool:
        """Whether an argument performs the act `term` names (see argument_acts): the rule is
        anchored to the request but not matched by it (a flag's name is no proof of the act the
        rule means: review, never a denial on that alone)."""
        acts = self.argument_acts()
        return bool(acts) and any(same_action(term, a) for a in acts)

    def other_action(self, rule_acts: frozenset[str]) -> frozenset[str]:
        """The request's acts when none of `rule_acts` (every action word of a rule, read by
        `actions.rule_actions`) may be one of them; empty when one may, or when unsure.

        A rule word is the request's act when the request shows it (tool name, an argument's
        name or value: `term_matches`, `key_stems`), when both are money words on a money tool,
        or when it is a synonym or of the same family as one of the request's acts."""
        hit = self._other_action_memo.get(rule_acts)
        if hit is None:
            hit = self._other_action_memo[rule_acts] = self._other_action(rule_acts)
        return hit

    def _other_action(self, rule_acts: frozenset[str]) -> frozenset[str]:
        acts = self.request_actions()
        if not acts or not rule_acts:
            return frozenset()
        for a in rule_acts:
            if a in _MUTATION_WORDS:
                return frozenset()  # 'changes', 'updates': any mutation may be one
            if self.term_matches(a) or a in self.key_stems:
                return frozenset()
            if a in _MONEY_ALL and self.money_tool:
                return frozenset()
            for r in acts:
                if same_action(a, r):
                    return frozenset()
        return acts

    def term_absent(self, term: str, neighbours: frozenset[str]) -> bool:
        """Whether the request shows that `term` does not hold (another action, another value)."""
        key = (term, neighbours)
        hit = self.absent_memo.get(key)
        if hit is None:
            hit = self.absent_memo[key] = self._term_absent(term, neighbours)
        return hit

    def _term_absent(self, term: str, neighbours: frozenset[str]) -> bool:
        if term in self.hedged_stems:
            return False  # 'pre_collections' against 'in collections': close, not ruled out
        if term not in _TABLED_FOR_ABSENT:
            # what the steps below answer for a word of no table: an empty field, or a category
            # argument naming another value of the rule's qualifier
            return term in self._empty_keys or (
                term not in _WHERE_QUALIFIERS
                and not neighbours.isdisjoint(self._category_keys)
                # 'Permanent bans …' and `ban_type: "lifetime"`: the category argument names
                # the rule's kind in other words (glossvalues.VALUE_FAMILIES), not another kind
                and not self._written_otherwise(term)
            )
        if term in _RECEIVING:
            # 'Only verified sellers may receive payouts' on create_payout: receiving is the
            # other side of the tool's act, never another action
            return False
        if term in MONEY_SPECIFIC:
            others = self.tool_stems & _MONEY_MOVES
            # 'pay_claim' is a claim payout: a tool named only by a generic money verb may be
            # the specific movement a rule names, so that word is not shown absent.
            if others & MONEY_SPECIFIC and term not in others:
                return True
            if others:
                return False
        if term in MONEY_GENERIC:
            return bool(self.tool_verbs) and not self.money_tool
        if term in MONEY_MOVEMENT_VERBS and self.money_tool:
            return False
        if term in COMMS and term not in COMMS_GENERIC:
            others = self.tool_stems & COMMS
            if others and term not in others and not others & _COMMS_SAME.get(term, frozenset()):
                return True
        if (
            term in VERBS
            and term not in self.tool_stems
            and KEY_STATE_WORD not in neighbours
            and KEY_THING not in neighbours
        ):
            return (
                bool(self.tool_verbs)
                and not (self.tool_stems & _VERB_SYNONYMS.get(term, frozenset()))
                and not (term in _MOVES_DATA_OUT and self._moving_out)
                # 'Deleting customer data' and `drop_source: true`; 'Granting admin rights' and
                # create_user with `role: admin`: an argument performs the act
                and not self.performs(term)
            )
        if term in _AGE_CLASSES or term == _ADULT:
            ages = self.ages()
            if ages and all(_age_class(term, a) is False for a in ages):
                return True  # 'minors' and an author aged 34
        if term in self._empty_keys:
            return True  # a flag that is off, an empty field
        classes = _VALUE_CLASSES_OF.get(term)
        if (
            classes
            and KEY_SAME_CLASS not in neighbours
            and not classes.isdisjoint(self._value_classes_shown())
            and not self._shown_otherwise(term)
            and not self._holds_inside(term)
            and not self._written_otherwise(term)
        ):
            return True  # 'production' and the request names another environment
        # 'the salaries table' and the request's table is 'orders': the qualifier does not hold
        if term in _WHERE_QUALIFIERS:
            return False
        return not neighbours.isdisjoint(self._category_keys) and not self._written_otherwise(term)

    def kind_family_stems(self) -> frozenset[str]:
        """The rule words of the families the request's short string values belong to
        (glossvalues.VALUE_FAMILIES): `ban_type: "lifetime"` names a permanent ban in other
        words. Derived once per request, when a rule none of whose words is shown first asks."""
        found = self._family_stems
        if found is None:
            acc: set[str] = set()
            for lf in self.leaves:
                for v in scalars(lf.value):
                    if isinstance(v, str) and 0 < len(v) <= 40:
                        acc.update(family_stems(v))
            found = self._family_stems = frozenset(acc)
        return found

    def _written_otherwise(self, term: str) -> bool:
        """Whether a value of the request is `term` written another way ('prd' or 'live' for
        'production', jred23): its stems name another class member, yet it is the term."""
        return any(
            same_value(v, term)
            for lf in self.leaves
            for v in scalars(lf.value)
            if isinstance(v, str) and 0 < len(v) <= 40
        )

    def _holds_inside(self, term: str) -> bool:
        """Whether a value holds `term` inside a longer word ('preprod' for 'prod'): close to the
        rule's value, neither it nor plainly another one, so a human decides."""
        needles = {term, *short_forms(term)}  # 'preprod' holds 'prod', not 'production'
        return any(
            n in w and n != w
            for n in needles
            if len(n) >= 3
            for w in self.value_stems | self.hedged_stems
        )

    def _shown_otherwise(self, term: str) -> bool:
        """Whether the request shows a closed dimension's `term` by other arguments than the one
        naming the dimension: 'international' by two different countries (`wire_type:
        "domestic"` from US to DE), 'remote' by a remote channel (`session_type: "onsite"` with
        `via: "vpn"`). The arguments contradict each other, so the term is not ruled out."""
        if term == _INTERNATIONAL:
            countries = set()
            for lf in self.leaves:
                if (
                    lf.last_keys & _COUNTRY_KEYS
                    and isinstance(lf.value, str)
                    and len(lf.value) < 60
                ):
                    code = country_code(lf.value)
                    if code:
                        countries.add(code)
            return len(countries) >= 2
        if term == _REMOTE:
            return not _REMOTE_CHANNELS.isdisjoint(self.value_stems | self.key_stems)
        return False

    def _value_classes_shown(self) -> frozenset[str]:
        """Names of the VALUE_CLASSES some string value of the request belongs to."""
        if self._classes_shown is None:
            strings = [v for leaf in self.leaves for v in scalars(leaf.value) if isinstance(v, str)]
            # A class is shown when a word of it is among some value's stems: among the stems of
            # all the values, gathered once (not once per class and value).
            stems = frozenset().union(*(content_stems(v) for v in strings))
            self._classes_shown = frozenset(
                name for name, klass in VALUE_CLASSES.items() if not klass.isdisjoint(stems)
            )
        return self._classes_shown

    def object_lists(self) -> list[Leaf]:
        """Arguments holding a list of objects (`tests: [{"cpt": …}, …]`), as leaves whose value
        is the list: flattening reads their members' fields, so their count is kept apart (by
        the same walk), for a rule that counts them ('Max 10 tests per order')."""
        return list(self._object_lists)

    def numeric_leaves(self) -> list[tuple[Leaf, float]]:
        """Leaves holding a number (or a numeric string), with that number."""
        if self._numeric is not None:
            return list(self._numeric)
        out = []
        for leaf in self.leaves:
            v = parse_number_value(leaf.value)
            if v is not None:
                out.append((leaf, v))
        self._numeric = tuple(out)
        return out


class HistoryUnavailable(Exception):
    """The request history could not be read: the judge as a whole is unavailable."""


class _GuardedHistory:
    """Wraps the caller's History so that its failures are told apart from rule-parsing surprises.

    One request asks each question once: the answers are kept for the request (a tenant's daily
    caps all read today's total of the same argument, a database query each), so every rule of
    one evaluation sees the same history. A failure is never kept: it ends the evaluation.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._totals: dict[tuple[str, str, str], float] = {}
        self._counts: dict[tuple[str, ...], int] = {}
        self._seen: dict[tuple[str, str, str, str], bool] = {}

    def total_today(self, agent_id: str, tool_name: str, arg: str) -> float:
        key = (agent_id, tool_name, arg)
        hit = self._totals.get(key)
        if hit is not None:
            return hit
        try:
            hit = self._totals[key] = float(self._inner.total_today(agent_id, tool_name, arg))
        except Exception as exc:
            raise HistoryUnavailable(type(exc).__name__) from exc
        return hit

    def count_last_hour(self, agent_id: str, tool_name: str) -> int:
        key = (agent_id, tool_name)
        hit = self._counts.get(key)
        if hit is not None:
            return hit
        try:
            hit = self._counts[key] = int(self._inner.count_last_hour(agent_id, tool_name))
        except Exception as exc:
            raise HistoryUnavailable(type(exc).__name__) from exc
        return hit

    def count_today(self, agent_id: str, tool_name: str) -> int | None:
        """Requests since midnight UTC, or None when the caller's history cannot say (it has no
        `count_today`): a daily count is then not known, and the rule goes to a human."""
        key = ("today", agent_id, tool_name)
        hit = self._counts.get(key)  # type: ignore[call-overload]
        if hit is not None:
            return hit
        ask = getattr(self._inner, "count_today", None)
        if ask is None:
            return None
        try:
            got = ask(agent_id, tool_name)
        except Exception as exc:
            raise HistoryUnavailable(type(exc).__name__) from exc
        if got is None:
            return None
        hit = self._counts[key] = int(got)  # type: ignore[index]
        return hit

    def seen_value(self, agent_id: str, tool_name: str, arg: str, value: str) -> bool:
        key = (agent_id, tool_name, arg, value)
        hit = self._seen.get(key)
        if hit is not None:
            return hit
        try:
            hit = self._seen[key] = bool(self._inner.seen_value(agent_id, tool_name, arg, value))
        except Exception as exc:
            raise HistoryUnavailable(type(exc).__name__) from exc
        return hit


def _age_class(term: str, age: float) -> bool | None:
    """Whether a person of `age` years is in the class `term` names; None when unsure."""
    if term == _ADULT:
        below, from_ = _AGE_CLASSES[stem("minor")]
        return True if age >= from_ else (False if age < below else None)
    below, from_ = _AGE_CLASSES[term]
    return True if age < below else (False if age >= from_ else None)


def _single_letter_no(leaf: Leaf) -> bool:
    """Whether a leaf is a yes/no written "N" (or "n"): the Y/N convention's no. Not under a name
    holding a country, a direction or a code, whose "N" is a value ('NO' is Norway, "N" north)."""
    value = leaf.value
    return (
        isinstance(value, str)
        and value.strip().lower() == "n"
        and leaf.last_keys.isdisjoint(_COUNTRY_KEYS)
        and leaf.last_keys.isdisjoint(_NOT_YES_NO_KEYS)
    )


# names whose one-letter value is a value of its own ('direction': "N" is north, 'grade': "N")
_NOT_YES_NO_KEYS = frozenset(
    stem(w)
    for w in "direction heading bearing compass side grade code class letter initial size "
    "rating tier band category level zone sector".split()
)


def _zero(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


# names of an argument holding a country, whose 'NO' is Norway
_COUNTRY_KEYS = frozenset(
    stem(w) for w in "country nationality residence jurisdiction nation".split()
)


def truthy(value: Any) -> bool:
    """Present and not empty, false, or white space only (CONTRACT §1: blank strings are empty)."""
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return bool(value.strip()) and value.strip().lower() not in ("false", "no", "0", "off")
    if isinstance(value, (list, tuple, dict, set)):
        return len(value) > 0
    return True


def scalars(value: Any) -> list[Any]:
    """The scalar values held by a leaf (a list leaf holds several)."""
    if isinstance(value, (list, tuple)):
        return [v for v in value if not isinstance(v, (list, tuple, dict))]
    return [value]


def _category_like(leaf: Leaf) -> bool:
    """A short categorical string value, under a name that is not an identifier."""
    value = leaf.value
    if leaf.last_keys & _ID_KEYS or not isinstance(value, str):
        return False
    return bool(_ENUM_LIKE.match(value.strip())) and not any(ch.isdigit() for ch in value)


# States a thing is in ('expired', 'recalled', 'closed'), as stems
_STATE_STEMS = frozenset(
    stem(w)
    for w in "expired recalled suspended cancelled canceled closed revoked lapsed terminated "
    "overdue delinquent frozen blocked".split()
)
_DATE_VALUE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}")


def _flatten(value: Any, prefix: str, out: list[Leaf], lists: list[Leaf]) -> None:
    """The leaves of `value` into `out`; each list of objects, whole, into `lists`."""
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, lists)
        return
    if isinstance(value, (list, tuple)) and any(isinstance(v, dict) for v in value):
        keys, last_keys, _ = _path_stems(prefix)
        lists.append(Leaf(prefix, keys, last_keys, list(value), None))
        for v in value:
            if isinstance(v, dict):
                _flatten(v, prefix, out, lists)
        return
    keys, last_keys, unit = _path_stems(prefix)
    out.append(Leaf(prefix, keys, last_keys, value, unit))


# Words naming a span of time, before a 'min' suffix that then means minutes (jred28)
_LOAD_WORDS = frozenset(
    "payload load weight mass cargo ballast stock tonnage haul freight capacity".split()
)
_SPAN_WORDS = frozenset(
    "duration length wait delay timeout runtime session appointment slot visit call drive "
    "travel transit break rest downtime outage turnaround".split()
)


_LENGTH_WORDS = frozenset(
    "depth length height width distance altitude elevation clearance radius span range reach "
    "draft draught headroom diameter thickness deep high long wide tall".split()
)


@lru_cache(maxsize=65536)
def _path_stems(path: str) -> tuple[frozenset[str], frozenset[str], tuple[str, float] | None]:
    """Stems of every segment of an argument path, of its last segment, and its unit suffix.

    Cached: agents call the same tools with the same argument names over and over.
    """
    segments = path.split(".")
    keys = frozenset(stem(w) for seg in segments for w in words(seg))
    last_words = words(segments[-1])
    if len(last_words) > 2 and last_words[-2] == "per":
        # 'dose_mg_per_day': a rate whose amount is in the unit before 'per' (never a duration)
        unit = ARG_UNIT_SUFFIXES.get(last_words[-3])
    else:
        unit = ARG_UNIT_SUFFIXES.get(last_words[-1]) if len(last_words) > 1 else None
        if unit is None and len(last_words) > 1 and last_words[-1] == "s":
            # jred32: 'stream_delay_s', 'rest_s', 'cooldown_s': seconds. Read bare, 30 seconds
            # passed 'Stream delay min 2 min' as 30 (minutes, the rule's unit)
            unit = ("time", 1.0)
        elif unit is None and len(last_words) > 1 and last_words[-1] == "t":
            if last_words[-2] in _LOAD_WORDS:
                # jred32: 'payload_t', 'load_t': tonnes ('delta_t' is no load)
                unit = ("mass", 1e3)
        if unit is None and len(last_words) > 1 and last_words[-1] == "min":
            if last_words[-2] in _SPAN_WORDS:
                # jred28: 'duration_min', 'wait_min': a span in minutes ('min' alone is no unit
                # suffix, 'order_min' is a minimum); read bare, 60 minutes was 'above 3 hours'
                unit = ("time", 60.0)
        if unit is None and len(last_words) > 1 and last_words[-1] == "m":
            if _LENGTH_WORDS.intersection(last_words[:-1]):
                # jred31: 'depth_m', 'reel_length_m': metres after a word of length (elsewhere
                # 'm' may be minutes or months, and no check reads it in a unit)
                unit = ("length", 1.0)
    last = frozenset(stem(w) for w in last_words)
    scale = next((SCALE_WORDS[w] for w in last_words[1:] if w in SCALE_WORDS), None)
    if scale is not None and last & MONEY_KEYS:
        # 'notional_mm_usd', 'loan_amount_k': an amount stated in thousands or millions. Its
        # number is not the amount; no check compares it (a human does).
        unit = ("scale", scale)
    return keys, last, unit
