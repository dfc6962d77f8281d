"""Per-process caches of what every clearance reads, kept exact by a generation in Redis.

The decision path reads the same few rows on every request: the API key, the agent's lockdown,
the review settings, the active policies and their index. Each process keeps them in memory,
stamped with the tenant's *generation*: a random value in Redis that changes whenever one of
those rows changes. A request reads the generations once (one round trip) and uses a cached
value only when its stamp still matches, so a revoked key, a lockdown or a new policy version
takes effect on the very next request in every process.

Generations change by themselves: a session listener notes the tenants whose watched rows a
flush wrote, and replaces their generation in Redis just before the commit (so that a reader
racing the commit reloads) and again just after it (so that a value loaded from the old rows
before the commit is not kept). A bulk UPDATE or DELETE on a watched table replaces the global
generation, which every stamp includes. Without Redis nothing is cached: reads go to the
database. Entries also expire after ``MAX_AGE_SECONDS``, a bound for the one case the
generations cannot cover (Redis lost between a commit and its second replacement).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import redis
from flask import g, has_app_context
from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from webapp.runtime import vault

log = logging.getLogger(__name__)

T = TypeVar("T")
GLOBAL = "*"
KEY = "vault:generation:{}"
MAX_AGE_SECONDS = 30.0
MAX_ENTRIES = 20_000
# Tables whose rows the cached values come from.
WATCHED = {
    "tenants",
    "api_keys",
    "tenant_settings",
    "policies",
    "policy_versions",
    "policy_chunks",
    "agent_states",
    "webhook_endpoints",
    "signing_keys",
}

GLOBAL_TABLES = {"tenants", "api_keys", "signing_keys"}

_lock = threading.Lock()
_entries: OrderedDict[tuple, tuple[tuple[str, str], float, Any]] = OrderedDict()


def cached(client_id: str, name: str, key: Any, load: Callable[[], T]) -> T:
    """``load()``, or its value cached in this process while the tenant's generation holds."""
    stamp = generation(client_id)
    if stamp is None:
        return load()
    entry_key = (client_id, name, key)
    found, value = lookup(entry_key, stamp)
    if found:
        return value
    value = load()  # loaded after the stamp was read: a change since then shows as a new stamp
    remember(entry_key, stamp, value)
    return value


def lookup(entry_key: tuple, stamp: tuple[str, str] | None) -> tuple[bool, Any]:
    """(found, value) of an entry still valid under ``stamp`` (read before any reload)."""
    if stamp is None:
        return False, None
    with _lock:
        hit = _entries.get(entry_key)
    if hit is None or hit[0] != stamp or time.monotonic() - hit[1] >= MAX_AGE_SECONDS:
        return False, None
    return True, hit[2]


def peek(entry_key: tuple) -> Any:
    """The cached value, not yet checked against any generation (None when absent)."""
    with _lock:
        hit = _entries.get(entry_key)
    return hit[2] if hit is not None else None


def remember(entry_key: tuple, stamp: tuple[str, str] | None, value: Any) -> None:
    if stamp is None:
        return
    with _lock:
        _entries[entry_key] = (stamp, time.monotonic(), value)
        _entries.move_to_end(entry_key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)


def generation(client_id: str) -> tuple[str, str] | None:
    """The (global, tenant) generations, read once per web request; None without Redis."""
    memo: dict[str, tuple[str, str] | None] | None = None
    if has_app_context():
        memo = g.setdefault("vault_generations", {})
        if client_id in memo:
            return memo[client_id]
    stamp = _read(client_id)
    if memo is not None:
        memo[client_id] = stamp
    return stamp


def forget_request_memo() -> None:
    """Drop the memo of generations (at each request's start, and after a change)."""
    if has_app_context():
        g.pop("vault_generations", None)


def bump(client_ids: Iterable[str]) -> None:
    """Give each tenant (or ``GLOBAL``) a new generation; raises redis.RedisError."""
    names = sorted(set(client_ids))
    if not names:
        return
    pipe = vault().redis.pipeline(transaction=False)
    for name in names:
        pipe.set(KEY.format(name), uuid.uuid4().hex)
    pipe.execute()
    forget_request_memo()


def clear() -> None:
    """Empty this process's cache (tests, and after the database was reset)."""
    with _lock:
        _entries.clear()


def install(session_class: type[Session] = Session) -> None:
    """Listen to flushes and commits of every session; called once by ``create_app``."""
    if event.contains(session_class, "after_flush", _after_flush):
        return
    event.listen(session_class, "after_flush", _after_flush)
    event.listen(session_class, "do_orm_execute", _on_execute)
    event.listen(session_class, "before_commit", _before_commit)
    event.listen(session_class, "after_commit", _after_commit)
    event.listen(session_class, "after_rollback", _after_rollback)


# --- helpers ---------------------------------------------------------------------------------


def _read(client_id: str) -> tuple[str, str] | None:
    try:
        connection = vault().redis
        found = connection.mget(KEY.format(GLOBAL), KEY.format(client_id))
        if found[0] is None or found[1] is None:
            # First use (or Redis was emptied): start generations no earlier stamp can match.
            for index, name in enumerate((GLOBAL, client_id)):
                if found[index] is None:
                    connection.set(KEY.format(name), uuid.uuid4().hex, nx=True)
            found = connection.mget(KEY.format(GLOBAL), KEY.format(client_id))
            if found[0] is None or found[1] is None:
                return None
    except redis.RedisError:
        return None
    return (found[0].decode(), found[1].decode())


def _changed(session: Session) -> set[str]:
    return session.info.setdefault("vault.changed_tenants", set())


def _after_flush(session: Session, _context: Any) -> None:
    changed = None
    for instance in (*session.new, *session.dirty, *session.deleted):
        table = getattr(instance, "__tablename__", None)
        if table not in WATCHED:
            continue
        if table == "agent_states" and not _lock_changed(instance):
            continue  # activity (last_seen_at) is not cached; only the lockdown and drift risk
        if table == "webhook_endpoints" and not _targets_changed(instance):
            continue  # delivery counters are not cached; who receives which events is
        changed = changed if changed is not None else _changed(session)
        # Keys are looked up before the tenant is known: they hang on the global generation.
        scope = GLOBAL if table in GLOBAL_TABLES else getattr(instance, "client_id", None)
        changed.add(scope or GLOBAL)


def _lock_changed(instance: Any) -> bool:
    state = inspect(instance)
    if state.pending or state.deleted:
        return bool(getattr(instance, "locked_down", False)) or state.deleted
    # The drift risk is cached with the lockdown: its level changes rarely (its score often).
    return (
        state.attrs.locked_down.history.has_changes()
        or state.attrs.drift_risk.history.has_changes()
    )


def _targets_changed(instance: Any) -> bool:
    state = inspect(instance)
    if state.pending or state.deleted:
        return True
    return state.attrs.enabled.history.has_changes() or state.attrs.events.history.has_changes()


def _on_execute(state: Any) -> None:
    if not (state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    if getattr(table, "name", None) in WATCHED and getattr(table, "name", None) != "agent_states":
        _changed(state.session).add(GLOBAL)


def _before_commit(session: Session) -> None:
    if session.new or session.dirty or session.deleted:
        session.flush()  # the commit's own flush comes after this event: note its changes now
    changed = session.info.get("vault.changed_tenants")
    if changed:
        # Before: a reader between this commit and the bump below must not keep stale rows.
        try:
            bump(changed)
        except redis.RedisError:
            # Without Redis no process can read a generation, so none uses its cache.
            log.warning("could not renew cache generations before a commit")


def _after_commit(session: Session) -> None:
    changed = session.info.pop("vault.changed_tenants", None)
    if changed:
        try:
            bump(changed)
        except redis.RedisError:
            log.error("could not renew cache generations after a commit; entries age out")


def _after_rollback(session: Session) -> None:
    session.info.pop("vault.changed_tenants", None)
