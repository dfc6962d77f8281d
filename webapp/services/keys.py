"""The registry of signing keys: the active one, and every retired one, for the JWKS.

``flask vault bootstrap`` registers the configured key at start-up (and retires the previous
one after a change of ``VAULT_KEY_ID``). Anything that signs also makes sure its key is in the
registry, inside its own transaction, so nothing is ever signed by a key the JWKS cannot show.
"""

from __future__ import annotations

from flask import current_app
from sqlalchemy import inspect, select, update
from sqlalchemy.exc import IntegrityError

from webapp.errors import Unavailable
from webapp.extensions import db
from webapp.ledger.keys import public_jwk
from webapp.models import SigningKey, utcnow
from webapp.runtime import vault
from webapp.services import tenant_cache


def ensure_active_key_registered() -> SigningKey:
    """Record the configured key and retire the others; commits (start-up only)."""
    signer = vault().signer
    registered = current_app.extensions.setdefault("vault.registered_key_ids", set())
    if signer.key_id in registered:
        return  # found in the registry before, by this app: keys are never removed from it
    row = db.session.get(SigningKey, signer.key_id)
    _check_same_key(row)
    if row is not None:
        registered.add(signer.key_id)
    now = utcnow()
    db.session.execute(
        update(SigningKey)
        .where(SigningKey.key_id != signer.key_id, SigningKey.retired_at.is_(None))
        .values(retired_at=now)
    )
    if row is None:
        row = SigningKey(key_id=signer.key_id, public_key=signer.public_key(), active_from=now)
        db.session.add(row)
    else:
        row.retired_at = None
    try:
        db.session.commit()
    except IntegrityError:
        # Another process registered it first; theirs is the same key.
        db.session.rollback()
        row = db.session.get(SigningKey, signer.key_id)
    return row


def require_registered(client_id: str | None = None) -> None:
    """Inside the caller's transaction: make sure the active key is in the registry.

    A row found in the registry is remembered per process under the global generation of
    ``tenant_cache`` (read once per request anyway, with ``client_id``'s): any write to
    ``signing_keys`` renews that generation, so the decision path reads the registry only
    when something changed. A row this transaction adds is not remembered (it may roll back).
    """
    signer = vault().signer
    entry_key = (tenant_cache.GLOBAL, "signing-key", signer.key_id)
    stamp = tenant_cache.generation(client_id) if client_id else None
    global_stamp = (stamp[0], "") if stamp is not None else None
    if tenant_cache.lookup(entry_key, global_stamp)[0]:
        return
    row = db.session.info.get("vault.signing_key")
    if row is None or not (inspect(row).persistent or inspect(row).pending):
        row = db.session.get(SigningKey, signer.key_id)
    _check_same_key(row)
    if row is None:
        row = SigningKey(key_id=signer.key_id, public_key=signer.public_key(), active_from=utcnow())
        db.session.add(row)
    elif inspect(row).persistent:
        tenant_cache.remember(entry_key, global_stamp, True)
    # Held for the session: its identity map keeps rows only weakly, and the token and the
    # receipt of one decision both ask, so the second ask would read the row again.
    db.session.info["vault.signing_key"] = row


def all_keys() -> list[SigningKey]:
    return list(db.session.scalars(select(SigningKey).order_by(SigningKey.active_from)))


def public_key_for(key_id: str) -> bytes | None:
    """The public key for a kid: the active signer's, or a registered (possibly retired) one."""
    signer = vault().signer
    if key_id == signer.key_id:
        return signer.public_key()
    row = db.session.get(SigningKey, key_id)
    return row.public_key if row else None


def jwks() -> dict:
    """CONTRACT §4: the active key and every retired one (read-only)."""
    signer = vault().signer
    keys = {k.key_id: public_jwk(k.public_key, k.key_id) for k in all_keys()}
    keys.setdefault(signer.key_id, public_jwk(signer.public_key(), signer.key_id))
    return {"keys": list(keys.values())}


def _check_same_key(row: SigningKey | None) -> None:
    signer = vault().signer
    if row is not None and row.public_key != signer.public_key():
        # Reusing a key id for other key material would make old signatures unverifiable.
        raise Unavailable(
            f"VAULT_KEY_ID {signer.key_id} is already registered with a different key"
        )
