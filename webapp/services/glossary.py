"""The tenant glossary (CONTRACT §6a): named categories the judge decides membership through.

Stored as the tenant's ``glossary`` settings document, so that every change is a
``settings_changed`` ledger event in the same transaction. Compiled policies are cached per
version and glossary fingerprint, so a change takes effect on the next decision.
"""

from __future__ import annotations

from typing import Any

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


def replace(client_id: str, new_terms: dict[str, list[str]], actor: str) -> dict[str, Any]:
    """Replace the tenant's terms (validated at the edge: ``GlossaryBody``); commits with a
    settings_changed ledger event."""
    old = terms(client_id)
    audit = {
        "added": sorted(set(new_terms) - set(old))[:50],
        "removed": sorted(set(old) - set(new_terms))[:50],
        "changed": sorted(t for t in set(old) & set(new_terms) if old[t] != new_terms[t])[:50],
    }
    settings.write(client_id, KIND, {"terms": new_terms}, actor=actor, audit=audit)
    return view(client_id)
