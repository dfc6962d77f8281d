"""Policies with immutable versions (CONTRACT §6) and the chunks retrieval searches."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from webapp.errors import InvalidInput, NotFound
from webapp.extensions import db
from webapp.models import Policy, PolicyChunk, PolicyDocument, PolicyVersion, iso, short_id, utcnow
from webapp.services.canonical import canonical_json, sha256_hex
from webapp.services.ledger import EventContent, append_event

POLICY_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
MAX_RULES = 500
MAX_RULE_CHARS = 2000
MAX_DESCRIPTION_CHARS = 2000


@dataclass(frozen=True)
class PolicyContent:
    policy_id: str
    description: str
    rules: list[str]
    tools: list[str]

    def canonical(self) -> dict[str, Any]:
        return {
            "policy_id": self.policy_id,
            "description": self.description,
            "rules": self.rules,
            "tools": self.tools,
        }

    @property
    def content_hash(self) -> str:
        """SHA-256 hex of the RFC 8785 form, rules and tools in the order given."""
        return sha256_hex(canonical_json(self.canonical()))


@dataclass(frozen=True)
class Registration:
    version: PolicyVersion
    created: bool
    reactivated: bool
    chunks: int


def parse_content(body: dict[str, Any]) -> PolicyContent:
    """Validate a registration body into content, with a field error for each problem."""
    errors: list[dict[str, str]] = []
    policy_id = body.get("policy_id")
    if not isinstance(policy_id, str) or not POLICY_ID.match(policy_id):
        errors.append({"field": "policy_id", "message": "must match [A-Za-z0-9._:-]{1,128}"})
    description = body.get("description", "")
    if description is None:
        description = ""
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION_CHARS:
        errors.append(
            {
                "field": "description",
                "message": f"must be a string of at most {MAX_DESCRIPTION_CHARS} characters",
            }
        )
    rules = body.get("rules")
    if not isinstance(rules, list) or not 1 <= len(rules) <= MAX_RULES:
        errors.append(
            {"field": "rules", "message": f"must be a list of 1 to {MAX_RULES} rule statements"}
        )
    else:
        for index, rule in enumerate(rules):
            if not isinstance(rule, str) or not rule.strip():
                errors.append({"field": f"rules[{index}]", "message": "must be a non-empty string"})
            elif len(rule) > MAX_RULE_CHARS:
                errors.append(
                    {
                        "field": f"rules[{index}]",
                        "message": f"must be at most {MAX_RULE_CHARS} characters",
                    }
                )
    tools = body.get("tools", [])
    if tools is None:
        tools = []
    if not isinstance(tools, list) or len(tools) > 500:
        errors.append({"field": "tools", "message": "must be a list of tool-name globs"})
    else:
        for index, tool in enumerate(tools):
            if not isinstance(tool, str) or not tool.strip() or len(tool) > 256:
                errors.append(
                    {
                        "field": f"tools[{index}]",
                        "message": "must be a non-empty glob of at most 256 characters",
                    }
                )
    if errors:
        raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
    return PolicyContent(
        policy_id, description.strip(), [r.strip() for r in rules], [t.strip() for t in tools]
    )


def register(
    client_id: str,
    content: PolicyContent,
    *,
    source: str = "api",
    source_ref: str = "",
    status: str = "active",
    document_id: str | None = None,
    actor: str = "api",
    examples: list[dict[str, Any]] | None = None,
) -> Registration:
    """Store a new version unless the latest has the same content; commits.

    Uploaded documents come in with ``status="indexing"`` and become active when their
    indexing job finishes; API registrations are active at once.
    """
    registration = stage_registration(
        client_id,
        content,
        source=source,
        source_ref=source_ref,
        status=status,
        document_id=document_id,
        actor=actor,
        examples=examples,
    )
    db.session.commit()
    after_registration(registration)
    return registration


def after_registration(registration: Registration) -> None:
    """After the commit of a registration: queue the embedding of new rule chunks."""
    if registration.created and registration.chunks:
        _queue_embedding()


def stage_registration(
    client_id: str,
    content: PolicyContent,
    *,
    source: str = "api",
    source_ref: str = "",
    status: str = "active",
    document_id: str | None = None,
    actor: str = "api",
    examples: list[dict[str, Any]] | None = None,
) -> Registration:
    """``register`` without its commit: the rows are added to the session only."""
    policy = db.session.scalar(
        Policy.for_tenant(client_id).where(Policy.policy_id == content.policy_id).with_for_update()
    )
    content_hash = content.content_hash
    if policy is not None and policy.current_version_id:
        current = db.session.get(PolicyVersion, policy.current_version_id)
        if (
            current is not None
            and current.content_hash == content_hash
            and current.status != "failed"
        ):
            reactivated = not policy.active
            if reactivated:
                policy.active = True
                policy.deactivated_at = None
                policy.updated_at = utcnow()
                _record(client_id, current, actor, "reactivated")
            return Registration(
                current, created=False, reactivated=reactivated, chunks=_chunk_count(current)
            )
    if policy is None:
        policy = Policy(client_id=client_id, policy_id=content.policy_id, active=True)
        db.session.add(policy)
        db.session.flush()
    number = (
        db.session.scalar(
            select(func.max(PolicyVersion.version)).where(
                PolicyVersion.client_id == client_id, PolicyVersion.policy_id == content.policy_id
            )
        )
        or 0
    ) + 1
    version = PolicyVersion(
        policy_version_id=short_id("pv", 10),
        client_id=client_id,
        policy_id=content.policy_id,
        version=number,
        description=content.description,
        rules=content.rules,
        tools=content.tools,
        content_hash=content_hash,
        source=source,
        source_ref=source_ref,
        status=status,
        document_id=document_id,
        examples=examples or None,
    )
    db.session.add(version)
    db.session.flush()  # chunks reference the version; no ORM relationship orders the inserts
    chunks: list[PolicyChunk] = []
    if status == "active":
        chunks = _rule_chunks(version)
        db.session.add_all(chunks)
        _activate(policy, version)
        # An upload is recorded when it becomes active, not while it is still indexing.
        _record(client_id, version, actor, "registered")
    return Registration(version, created=True, reactivated=False, chunks=len(chunks))


def activate_indexed_version(
    client_id: str, policy_version_id: str, chunks: list[PolicyChunk], actor: str
) -> PolicyVersion:
    """Store an upload's chunks and make it the policy's current version; commits."""
    version = PolicyVersion.get_for_tenant(client_id, policy_version_id, "policy version")
    policy = db.session.scalar(
        Policy.for_tenant(client_id).where(Policy.policy_id == version.policy_id)
    )
    db.session.execute(
        PolicyChunk.__table__.delete().where(PolicyChunk.policy_version_id == policy_version_id)
    )
    db.session.add_all(chunks)
    version.status = "active"
    version.status_detail = ""
    _activate(policy, version)
    _record(client_id, version, actor, "registered")
    db.session.commit()
    return version


def discard_failed_version(client_id: str, policy_version_id: str) -> None:
    """Remove an upload that could not be indexed, whole: nothing of it stays half-stored."""
    version = db.session.get(PolicyVersion, policy_version_id)
    if version is None or version.client_id != client_id or version.status == "active":
        return
    db.session.execute(
        PolicyChunk.__table__.delete().where(PolicyChunk.policy_version_id == policy_version_id)
    )
    if version.document_id:
        db.session.execute(
            PolicyDocument.__table__.delete().where(
                PolicyDocument.document_id == version.document_id
            )
        )
    policy = db.session.scalar(
        Policy.for_tenant(client_id).where(Policy.policy_id == version.policy_id)
    )
    db.session.delete(version)
    if policy is not None and policy.current_version_id is None:
        db.session.flush()
        others = db.session.scalar(
            select(func.count())
            .select_from(PolicyVersion)
            .where(
                PolicyVersion.client_id == client_id, PolicyVersion.policy_id == policy.policy_id
            )
        )
        if not others:
            db.session.delete(policy)
    db.session.commit()


def rule_chunks(version: PolicyVersion) -> list[PolicyChunk]:
    """The rule chunks of a version (chunk ids match the judge's citations)."""
    return _rule_chunks(version)


def deactivate(client_id: str, policy_id: str, actor: str = "api") -> Policy:
    """Stop the policy governing requests; its versions stay for audit. Idempotent."""
    policy = _get_policy(client_id, policy_id)
    if policy.active:
        policy.active = False
        policy.deactivated_at = utcnow()
        policy.updated_at = utcnow()
        current = (
            db.session.get(PolicyVersion, policy.current_version_id)
            if policy.current_version_id
            else None
        )
        append_event(
            client_id,
            EventContent(
                action_category="policy_registered",
                policy_id=policy_id,
                policy_version_id=current.policy_version_id if current else "",
                policy_content_hash=current.content_hash if current else "",
                reason=f"policy {policy_id} deactivated by {actor}",
                action_metadata={"change": "deactivated", "actor": actor},
            ),
        )
        db.session.commit()
    return policy


def list_policies(client_id: str) -> list[tuple[Policy, PolicyVersion | None]]:
    policies = list(db.session.scalars(Policy.for_tenant(client_id).order_by(Policy.policy_id)))
    ids = [p.current_version_id for p in policies if p.current_version_id]
    versions = (
        {
            v.policy_version_id: v
            for v in db.session.scalars(
                select(PolicyVersion).where(PolicyVersion.policy_version_id.in_(ids))
            )
        }
        if ids
        else {}
    )
    return [(p, versions.get(p.current_version_id)) for p in policies]


def get_policy(client_id: str, policy_id: str) -> tuple[Policy, list[PolicyVersion]]:
    policy = _get_policy(client_id, policy_id)
    versions = list(
        db.session.scalars(
            PolicyVersion.for_tenant(client_id)
            .where(PolicyVersion.policy_id == policy_id)
            .order_by(PolicyVersion.version.desc())
        )
    )
    return policy, versions


def active_versions(client_id: str) -> list[PolicyVersion]:
    """The current version of every active policy: what the judge governs requests with."""
    return list(
        db.session.scalars(
            select(PolicyVersion)
            .join(Policy, Policy.current_version_id == PolicyVersion.policy_version_id)
            .where(
                Policy.client_id == client_id,
                Policy.active.is_(True),
                PolicyVersion.status == "active",
            )
            .order_by(Policy.policy_id)
        )
    )


def version_view(version: PolicyVersion) -> dict[str, Any]:
    return {
        "policy_version_id": version.policy_version_id,
        "version": version.version,
        "description": version.description,
        "rules": version.rules,
        "tools": version.tools,
        "policy_content_hash": version.content_hash,
        "source": version.source,
        "source_ref": version.source_ref,
        "status": version.status,
        "created_at": iso(version.created_at),
    }


def policy_view(policy: Policy, current: PolicyVersion | None) -> dict[str, Any]:
    return {
        "policy_id": policy.policy_id,
        "active": policy.active,
        "current_version": version_view(current) if current else None,
        "created_at": iso(policy.created_at),
        "updated_at": iso(policy.updated_at),
        "deactivated_at": iso(policy.deactivated_at),
    }


def _get_policy(client_id: str, policy_id: str) -> Policy:
    policy = db.session.scalar(Policy.for_tenant(client_id).where(Policy.policy_id == policy_id))
    if policy is None:
        raise NotFound("no such policy")
    return policy


def _activate(policy: Policy, version: PolicyVersion) -> None:
    policy.current_version_id = version.policy_version_id
    policy.active = True
    policy.deactivated_at = None
    policy.updated_at = utcnow()


def _rule_chunks(version: PolicyVersion) -> list[PolicyChunk]:
    """A registered policy's chunks are its rules, each a citable unit, plus its description."""
    chunks = [
        PolicyChunk(
            chunk_id=f"{version.policy_version_id}:r{index}",
            client_id=version.client_id,
            policy_id=version.policy_id,
            policy_version_id=version.policy_version_id,
            ordinal=index,
            text=rule,
            heading=version.description[:1000],
            is_rule=True,
        )
        for index, rule in enumerate(version.rules)
    ]
    if version.description:
        chunks.append(
            PolicyChunk(
                chunk_id=f"{version.policy_version_id}:d",
                client_id=version.client_id,
                policy_id=version.policy_id,
                policy_version_id=version.policy_version_id,
                ordinal=len(version.rules),
                text=version.description,
                heading="",
                is_rule=False,
            )
        )
    return chunks


def _queue_embedding() -> None:
    """Vectors for new rule chunks come from a job; retrieval is lexical until then."""
    import redis

    from webapp import queueing

    try:
        queueing.reindex_embeddings()
    except redis.RedisError:
        pass  # the periodic re-embedding picks the chunks up later


def _chunk_count(version: PolicyVersion) -> int:
    return (
        db.session.scalar(
            select(func.count())
            .select_from(PolicyChunk)
            .where(PolicyChunk.policy_version_id == version.policy_version_id)
        )
        or 0
    )


def _record(client_id: str, version: PolicyVersion, actor: str, change: str) -> None:
    append_event(
        client_id,
        EventContent(
            action_category="policy_registered",
            policy_id=version.policy_id,
            policy_version_id=version.policy_version_id,
            policy_content_hash=version.content_hash,
            reason=f"policy {version.policy_id} version {version.version} {change} by {actor}",
            action_metadata={
                "change": change,
                "actor": actor,
                "version": version.version,
                "rules": len(version.rules),
                "tools": list(version.tools),
                "source": version.source,
            },
        ),
    )
