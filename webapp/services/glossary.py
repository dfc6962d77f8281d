"""The tenant glossary (CONTRACT §6a): named categories the judge decides membership through.

Stored as the tenant's ``glossary`` settings document, so that every change is a
``settings_changed`` ledger event in the same transaction. Compiled policies are cached per
version and glossary fingerprint, so a change takes effect on the next decision.
"""

from __future__ import annotations

from typing import Any

from webapp.errors import InvalidInput
from webapp.judge.vocabulary import MAX_TERMS, MAX_VALUE_CHARS, MAX_VALUES
from webapp.services import settings

KIND = "glossary"
MAX_TERM_CHARS = 200
# Categories the engine knows without a glossary (webapp/judge/places.py, quantities.py).
BUILTIN = ("countries", "country codes", "EU", "EEA", "currencies", "IBAN prefixes")


def terms(client_id: str) -> dict[str, list[str]]:
    """The tenant's terms, {} when none were set."""
    return dict(settings.read(client_id, KIND, {"terms": {}}).get("terms") or {})


def view(client_id: str) -> dict[str, Any]:
    return {"terms": terms(client_id), "builtin": list(BUILTIN)}


def parse_terms(body: Any) -> dict[str, list[str]]:
    """Validate a PUT body into terms; a clear field error for each problem."""
    if not isinstance(body, dict) or not isinstance(body.get("terms"), dict):
        raise InvalidInput(
            "terms must be an object of term -> list of values",
            errors=[{"field": "terms", "message": "must be an object"}],
        )
    raw = body["terms"]
    errors: list[dict[str, str]] = []
    if len(raw) > MAX_TERMS:
        errors.append({"field": "terms", "message": f"at most {MAX_TERMS} terms"})
    out: dict[str, list[str]] = {}
    for term, values in list(raw.items())[: MAX_TERMS + 1]:
        name = term.strip() if isinstance(term, str) else ""
        if not name or len(name) > MAX_TERM_CHARS:
            errors.append(
                {
                    "field": f"terms[{term!r}]",
                    "message": f"a term is 1 to {MAX_TERM_CHARS} characters",
                }
            )
            continue
        if not isinstance(values, list) or len(values) > MAX_VALUES:
            errors.append(
                {
                    "field": f"terms[{name!r}]",
                    "message": f"must be a list of at most {MAX_VALUES} values",
                }
            )
            continue
        clean: list[str] = []
        for i, value in enumerate(values):
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_VALUE_CHARS:
                errors.append(
                    {
                        "field": f"terms[{name!r}][{i}]",
                        "message": f"a value is a non-empty string of at most {MAX_VALUE_CHARS} characters",
                    }
                )
                break
            clean.append(value.strip())
        out[name] = list(dict.fromkeys(clean))
    if errors:
        raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
    return out


def replace(client_id: str, new_terms: dict[str, list[str]], actor: str) -> dict[str, Any]:
    """Replace the tenant's terms; commits with a settings_changed ledger event."""
    old = terms(client_id)
    audit = {
        "added": sorted(set(new_terms) - set(old))[:50],
        "removed": sorted(set(old) - set(new_terms))[:50],
        "changed": sorted(t for t in set(old) & set(new_terms) if old[t] != new_terms[t])[:50],
    }
    settings.write(client_id, KIND, {"terms": new_terms}, actor=actor, audit=audit)
    return view(client_id)
