"""API-key authentication with a per-process cache that a revocation empties at once.

A key's principal is cached under the key's HMAC digest, stamped with the global generation of
``tenant_cache``; creating or revoking any key (or changing a tenant) renews that generation in
Redis, so every process drops its entries before the revocation's response is sent. A cached
key is checked with the one read of generations the request makes anyway (the global one and
its tenant's). Unknown and revoked keys are not cached: each such attempt reads the database.
"""

from __future__ import annotations

from webapp.services import tenant_cache, tenants
from webapp.services.tenants import API_KEY_PREFIX, Principal


def authenticate(raw: str | None) -> Principal | None:
    """Like ``tenants.authenticate_api_key``, answered from memory while nothing changed."""
    if not raw or not raw.startswith(API_KEY_PREFIX) or len(raw) > 200:
        return None
    digest = tenants.hash_api_key(raw)
    entry_key = (tenant_cache.GLOBAL, "api-key", digest)
    cached = tenant_cache.peek(entry_key)
    if cached is not None:
        # The tenant's generations, read once for this request: only the global one matters.
        stamp = tenant_cache.generation(cached.client_id)
        if stamp is not None and tenant_cache.lookup(entry_key, (stamp[0], ""))[0]:
            return cached
    stamp = tenant_cache.generation(tenant_cache.GLOBAL)
    principal = tenants.authenticate_api_key(raw)  # read after the stamp: a race shows as stale
    if principal is not None and stamp is not None:
        tenant_cache.remember(entry_key, (stamp[0], ""), principal)
    return principal
