"""The checks of an argument named beside a list, a place or a bound (namedargs.py reads them).

Both compare only the argument the rule names (the exact key, or a path ending with it). The
argument missing, named at several places, or holding a value of another type is not known: a
human decides, never an approval.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from webapp.judge.checks import (
    _VERB,
    REVIEW,
    SATISFIED,
    UNKNOWN,
    VIOLATED,
    Check,
    Outcome,
    _fmt,
)
from webapp.judge.request_view import Leaf, RequestView
from webapp.judge.text import stem

# the territories of the United States: in or out of 'the US' is for a human to say
_US_TERRITORIES = frozenset({"PR", "GU", "VI", "AS", "MP", "UM"})


def _named_leaves(view: RequestView, path: str) -> list[Leaf] | Outcome:
    leaves = [lf for lf in view.leaves if lf.path == path or lf.path.endswith("." + path)]
    if not leaves:
        return Outcome(UNKNOWN, f"`{path}` is not among the arguments; a human should decide")
    if len({lf.path for lf in leaves}) > 1:
        return Outcome(
            UNKNOWN,
            f"`{path}` names several arguments ({', '.join(lf.path for lf in leaves)})",
            tuple(lf.path for lf in leaves),
        )
    return leaves


def _breach(act: str, view: RequestView, message: str, path: str) -> Outcome:
    """A value the rule refuses: violated, or unknown when the tool may not be the act the rule
    refuses (a refund rule on `ticket.exchange`)."""
    if act and act not in view.tool_stems:
        return Outcome(
            UNKNOWN, message + f"; the tool may not be the act the rule refuses ({act})", (path,)
        )
    return Outcome(VIOLATED, message, (path,))


@dataclass(frozen=True)
class NamedBound(Check):
    """'Group size 10-60 pax (pax_count)', 'Holds: 7 days max (hold_days)': the named argument
    must lie within the bound(s), both inclusive as the shapes namedargs reads state them."""

    path: str = ""
    low: float | None = None
    high: float | None = None
    unit: str = ""
    subject_words: str = ""
    # the act the rule refuses ('cannot be refunded'): a breach is certain only when the tool
    # does that act, otherwise a human decides
    act: str = ""
    kind: str = field(default="named_bound", init=False)

    def _want(self) -> str:
        unit = f" {self.unit}" if self.unit and self.unit != "%" else (self.unit or "")
        if self.low is not None and self.high is not None:
            return f"is not between {_fmt(self.low)} and {_fmt(self.high)}{unit} (inclusive)"
        if self.high is not None:
            return f"is above {_fmt(self.high)}{unit}"
        return f"is below {_fmt(float(self.low or 0))}{unit}"

    def reading(self) -> str:
        about = f" ({self.subject_words})" if self.subject_words else ""
        return f"{_VERB[self.effect]} when `{self.path}`{about} {self._want()}"

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(path=self.path, low=self.low, high=self.high, unit=self.unit)
        return d

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = _named_leaves(view, self.path)
        if isinstance(leaves, Outcome):
            return leaves
        for leaf in leaves:
            value = _number(leaf.value)
            if value is None:
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {leaf.value!r} is not a number; a human should decide",
                    (leaf.path,),
                )
            if value < 0 and self.low is None and (self.high or 0) >= 0:
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {_fmt(value)} is below zero, which the rule's bound does not "
                    "speak of; a human should decide",
                    (leaf.path,),
                )
            if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high
            ):
                message = f"{leaf.path} = {_fmt(value)} {self._want()}"
                return _breach(self.act, view, message, leaf.path)
        return Outcome(
            SATISFIED,
            f"`{self.path}` is within the rule's bound",
            tuple(lf.path for lf in leaves),
        )


# words that name a second one of the same thing ('channel_fallback', 'backup_channel')
_ANOTHER_OF_IT = frozenset(
    stem(w)
    for w in "fallback backup secondary second alt alternate alternative extra additional other "
    "also next failover".split()
)


@dataclass(frozen=True)
class NamedList(Check):
    """'Escrow pays only: property taxes, … (disbursement_type)': the named argument must be one
    of the listed values, matched through spelling (case, plural and singular, spaces, hyphens
    and underscores: 'property taxes' is `property_tax`); a value sharing a word with a listed
    one but not listed ('windstorm_insurance') goes to a human. `place`: the values are
    countries, matched by their ISO codes."""

    path: str = ""
    values: tuple[str, ...] = ()
    place: bool = False
    subject_words: str = ""
    mode: str = "allow"  # allow: must be one of the values; deny: must be none of them
    act: str = ""  # the act a deny-list refuses ('No comps on …'), as NamedBound.act
    kind: str = field(default="named_list", init=False)

    def reading(self) -> str:
        about = f" ({self.subject_words})" if self.subject_words else ""
        listed = ", ".join(f'"{v}"' for v in self.values)
        when = "unless" if self.mode == "allow" else "when"
        return f"{_VERB[self.effect]} {when} `{self.path}`{about} is one of {listed}"

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(path=self.path, values=list(self.values), place=self.place)
        return d

    def evaluate(self, view: RequestView) -> Outcome:
        leaves = _named_leaves(view, self.path)
        if isinstance(leaves, Outcome):
            return leaves
        for leaf in leaves:
            got = leaf.value
            if not isinstance(got, str) or not got.strip():
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {got!r} is not written as one value; a human should decide",
                    (leaf.path,),
                )
            held = self._holds(got)
            if self.mode == "deny" and re.search(r"[*?|%,;+]|^\s*(?:any|all)\s*$", got, re.I):
                held = None  # a pattern or several values ('*', 'any', 'rack|OTA'): not one value
            if held is None:
                return Outcome(
                    UNKNOWN,
                    f"{leaf.path} = {got!r} is close to a listed value but not listed; a human "
                    "should decide",
                    (leaf.path,),
                )
            if held is (self.mode == "deny"):
                message = (
                    f"{leaf.path} = {got!r} is one of {', '.join(self.values)}"
                    if held
                    else f"{leaf.path} = {got!r} is not one of {', '.join(self.values)}"
                )
                out = _breach(self.act, view, message, leaf.path)
                if out.status == VIOLATED and self.effect == "review":
                    # 'commodity_code: power, gas. Anything else -> desk head review'
                    return Outcome(REVIEW, message, out.args)
                return out
        other = self._another_of_it(view, leaves)
        if other is not None:
            # jred27: 'channel: sms | email. Nothing else.' with `channel: "sms"` beside
            # `channel_fallback: "whatsapp"`, `channels: ["whatsapp"]` or `payout_method_2`: a
            # second argument of the same thing holds a value the list leaves out; the named one
            # alone had approved
            return Outcome(
                UNKNOWN,
                f"{other} beside `{self.path}` is not one of {', '.join(self.values)}; which one "
                "the rule speaks of cannot be told",
                (other,),
            )
        kin = self._kin_listed(view, leaves)
        if kin is not None:
            # jred22: '… from tobacco, firearms or gambling companies (donor_industry)' with
            # `donor_industry: "education"` beside `parent_industry: "tobacco"`: another argument
            # of the same kind holds a listed value; which one the rule meant is for a human
            return Outcome(
                UNKNOWN,
                f"{kin} holds a listed value beside `{self.path}`; which one the rule speaks of "
                "cannot be told",
                (kin,),
            )
        return Outcome(
            SATISFIED,
            f"`{self.path}` is {'a' if self.mode == 'allow' else 'not a'} listed value",
            tuple(lf.path for lf in leaves),
        )

    @cached_property
    def _own_stems(self) -> frozenset[str]:
        last = re.split(r"\.", self.path.lower())[-1]
        return frozenset(stem(w) for w in re.split(r"[_\-]", last) if w)

    def _another_of_it(self, view: RequestView, leaves: Sequence[Leaf]) -> str | None:
        """For an allow-list, another argument named for the same thing (`channels`,
        `channel_fallback`, `payout_method_2`, a `channel` beside `order.channel`) whose value
        the list leaves out."""
        if self.mode != "allow" or not self._own_stems:
            return None
        named = {lf.path for lf in leaves}
        for leaf in view.leaves:
            if leaf.path in named or not self._own_stems <= leaf.last_keys:
                continue
            extra = leaf.last_keys - self._own_stems
            if any(not (w.isdigit() or w in _ANOTHER_OF_IT) for w in extra):
                continue
            for got in leaf.value if isinstance(leaf.value, (list, tuple)) else (leaf.value,):
                if isinstance(got, str) and got.strip() and self._holds(got) is not True:
                    return leaf.path
        return None

    def _kin_listed(self, view: RequestView, leaves: Sequence[Leaf]) -> str | None:
        """For a deny-list, another argument named for the same kind as the named one (its last
        word: `parent_industry` beside `donor_industry`) holding a listed or a close value."""
        if self.mode != "deny":
            return None
        kind_word = re.split(r"[_.\-]", self.path.lower())[-1]
        if len(kind_word) < 3:
            return None
        kind_stem = stem(kind_word)
        named = {lf.path for lf in leaves}
        for leaf in view.leaves:
            if leaf.path in named or kind_stem not in leaf.last_keys:
                continue
            got = leaf.value
            if isinstance(got, str) and got.strip() and self._holds(got) is not False:
                return leaf.path
        return None

    def _holds(self, got: str) -> bool | None:
        if self.place:
            from webapp.judge.places import country_code

            code = country_code(got)
            listed = {country_code(v) for v in self.values}
            if code is None or _spelling(got) in _AMBIGUOUS_PLACES:
                return None
            if code in listed:
                return True
            if "US" in listed and code in _US_TERRITORIES:
                return None
            return False
        want = [_spelling(v) for v in self.values]
        have = _spelling(got)
        # a sign or a mark at an end is part of the value ('B-' is not grade 'B', 'C+' not 'C')
        if re.search(r"^[^\w\s]|[^\w\s.]$", got.strip()) and got.strip() not in self.values:
            return None
        if have in want:
            return True
        # codes ('CA', 'NY'): a value written otherwise ('California') may be one of them
        codes = [v.strip() for v in self.values]
        if all(re.fullmatch(r"[A-Z]{1,3}", v) for v in codes) and not (
            got.strip().isalpha() and len(got.strip()) in {len(v) for v in codes}
        ):
            return None
        # an abbreviation and its words are one value ('OTA', 'online_travel_agency')
        if any(_abbreviates(v, got) or _abbreviates(got, v) for v in self.values):
            return True
        # an abbreviation written in capitals ('HOA dues') or the value's own code: not close
        for w in want:
            if set(have) & set(w) or _inside(have, w) or _inside(w, have):
                return None
        return False


# names written for more than one country ('Korea' is KR or KP): a human says which
_AMBIGUOUS_PLACES = frozenset(
    {
        ("korea",),
        ("congo",),
        ("the", "congo"),
        ("guinea",),
        ("virgin", "island"),
        ("samoa",),
        ("america",),
    }
)


def _abbreviates(short: str, long: str) -> bool:
    """`short` is written in capitals and spells the initials of `long`'s words ('OTA',
    'online travel agency')."""
    s = short.strip()
    if not (2 <= len(s) <= 6 and s.isalpha() and s.isupper()):
        return False
    parts = [p for p in re.split(r"[\s_\-/.']+", long.strip().lower()) if p]
    return len(parts) == len(s) and "".join(p[0] for p in parts) == s.lower()


def _spelling(value: str) -> tuple[str, ...]:
    """A value's words as stems, lower case, whatever joins them ('Property Taxes',
    'property_tax', 'property-tax' are one spelling)."""
    parts = [p for p in re.split(r"[\s_\-/.']+", value.strip().lower()) if p]
    return tuple(stem(p) for p in parts)


def _inside(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    ja, jb = "".join(a), "".join(b)
    return bool(ja) and len(ja) >= 3 and ja in jb


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", value):
        return float(value)
    return None
