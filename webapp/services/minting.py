"""The clients' decision cache: a fresh token for a repeat of an earlier approval (CONTRACT §5a).

Both public clients can remember an approval and, for an identical call within their cache
lifetime, ask `POST /mint-token` instead of the judge. That is only safe because nothing here
trusts the client's memory: the original request is looked up, its binding (tenant, agent,
tool, canonical arguments, policy version) is checked again, the deterministic rules run again
(limits that span calls may have been reached meanwhile), and only an approval by those rules
alone mints. A reviewer's approval covers one action and is never repeated. Every token minted
here belongs to a new approved request with its own ledger event.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta

from webapp.errors import Conflict
from webapp.extensions import db
from webapp.judge.types import ClearanceQuery, Verdict
from webapp.models import APPROVED, ClearanceRequest, utcnow
from webapp.runtime import vault
from webapp.services import agents, clearance, idempotency, judging, policies, settings
from webapp.services.canonical import body_fingerprint, intent_hash

SCOPE = "mint-token"


@dataclass(frozen=True)
class CachedApproval:
    """What the client remembers of the approval it wants repeated."""

    original_request_id: str
    policy_id: str
    policy_version_id: str
    policy_content_hash: str


@dataclass(frozen=True)
class Minted:
    request: ClearanceRequest
    original: ClearanceRequest
    fresh: bool = True  # False for a replay of an earlier Idempotency-Key


def mint(
    client_id: str,
    new: clearance.NewRequest,
    cached: CachedApproval,
    idempotency_key: str | None,
) -> Minted:
    """Check every condition of CONTRACT §5a and mint; any failed condition is a 409 `conflict`
    naming it, with nothing written."""
    fingerprint = body_fingerprint(
        {
            "tool_name": new.tool_name,
            "tool_args": new.tool_args,
            "agent_id": new.agent_id,
            "session_id": new.session_id,
            "metadata": new.metadata,
            "cached": asdict(cached),
        }
    )
    minted = idempotency.in_transaction(
        client_id,
        SCOPE,
        idempotency_key,
        fingerprint,
        lambda: _mint_new(client_id, new, cached),
        lambda record: _replay(client_id, record),
    )
    if minted.fresh:
        clearance.after_decision(minted.request)
    return minted


def _mint_new(client_id: str, new: clearance.NewRequest, cached: CachedApproval):  # noqa: ANN202
    """Stage the new approved request (no commit); (its id, the answer)."""
    original = _original(client_id, cached.original_request_id)
    _check_binding(client_id, original, new, cached)
    threshold = settings.review_settings(client_id)["minimum_confidence_score"]
    verdict = _rules_verdict(client_id, original, new)
    _check_verdict(original, verdict, threshold)
    repeat = clearance.NewRequest(
        tool_name=original.tool_name,
        tool_args=new.tool_args,
        agent_id=original.agent_id,
        session_id=new.session_id,
        policy_hint=original.policy_hint,
        metadata={**new.metadata, "minted_from": original.request_id},
    )
    request = clearance.approve_by_rules(client_id, repeat, verdict)
    return request.request_id, Minted(request, original)


def minted_view(minted: Minted) -> dict[str, object]:
    """The 200 body of CONTRACT §5a."""
    request = minted.request
    return {
        "token": request.token,
        "request_id": request.request_id,
        "reason": request.reason,
        "original_request_id": minted.original.request_id,
        "confidence_bucket": clearance.confidence_bucket(request.confidence),
        "policy_version_id": request.policy_version_id,
        "policy_content_hash": request.policy_content_hash,
    }


# --- the conditions, in the order a client would want them explained ---------------------------


def _original(client_id: str, request_id: str) -> ClearanceRequest:
    # Another tenant's id reads exactly like an unknown one.
    original = db.session.scalar(
        ClearanceRequest.for_tenant(client_id).where(ClearanceRequest.request_id == request_id)
    )
    if original is None:
        raise Conflict(f"original request {request_id} is unknown")
    if original.status != APPROVED:
        raise Conflict(f"original request was not approved (it is {original.status})")
    if original.reason_code != "approved_by_policy":
        raise Conflict(
            "original request was approved by a reviewer; a reviewer's approval covers one "
            "action and is never re-minted"
        )
    if "minted_from" in (original.action_metadata or {}):
        raise Conflict(
            "original request was itself minted from an earlier approval; name that one as "
            "original_request_id"
        )
    ttl = vault().config.decision_cache_ttl_seconds
    if original.decided_at is None or utcnow() - original.decided_at > timedelta(seconds=ttl):
        raise Conflict(
            f"original request is older than VAULT_DECISION_CACHE_TTL_SECONDS ({ttl} s); "
            "request clearance again"
        )
    return original


def _check_binding(
    client_id: str, original: ClearanceRequest, new: clearance.NewRequest, cached: CachedApproval
) -> None:
    if new.agent_id != original.agent_id:
        raise Conflict("original request was made by another agent_id")
    if new.tool_name != original.tool_name:
        raise Conflict("original request was made for another tool_name")
    if intent_hash(new.tool_args) != original.tool_args_hash:
        raise Conflict("original request was made for other tool_args")
    if (
        cached.policy_version_id != original.policy_version_id
        or cached.policy_content_hash != original.policy_content_hash
    ):
        raise Conflict(
            "policy_version_id and policy_content_hash are not those the original was judged "
            "against"
        )
    if cached.policy_id and cached.policy_id not in (original.policy_id, original.policy_hint):
        raise Conflict("original request was judged under another policy_id")
    active = {
        version.policy_version_id: version.content_hash
        for version in policies.active_versions(client_id)
    }
    if active.get(original.policy_version_id) != original.policy_content_hash:
        raise Conflict(
            f"policy version {original.policy_version_id} the original was judged against is "
            "no longer active"
        )
    if agents.is_locked_down(agents.current_state(client_id, original.agent_id)):
        raise Conflict("the agent is locked down")


def _rules_verdict(
    client_id: str, original: ClearanceRequest, new: clearance.NewRequest
) -> Verdict:
    """The judge in this process with the deterministic rules alone, over the active policies
    and the request history: no model call (without an evaluator, a rule only the model could
    judge asks for review instead of approving)."""
    query = ClearanceQuery(
        tool_name=original.tool_name,
        tool_args=new.tool_args,
        agent_id=original.agent_id,
        session_id=new.session_id,
        policy_hint=original.policy_hint,
    )
    return judging.evaluate_locally(client_id, query, evaluator=None)


def _check_verdict(original: ClearanceRequest, verdict: Verdict, threshold: float) -> None:
    approved = (
        verdict.decision == "allow"
        and verdict.reason_code == "approved_by_policy"
        and verdict.layer == "rules"
    )
    if not approved:
        raise Conflict(f"the rules would no longer approve this call: {verdict.reason}")
    if (
        verdict.policy_version_id != original.policy_version_id
        or verdict.policy_content_hash != original.policy_content_hash
    ):
        raise Conflict("the rules would now judge this call under another policy version")
    if verdict.confidence < threshold:
        raise Conflict(
            f"the rules' confidence {verdict.confidence:.2f} is below the tenant's threshold "
            f"{threshold:.2f}"
        )


def _replay(client_id: str, record) -> Minted:  # noqa: ANN001
    request = ClearanceRequest.get_for_tenant(client_id, record.resource_id, "minted request")
    original = ClearanceRequest.get_for_tenant(
        client_id, request.action_metadata["minted_from"], "original request"
    )
    return Minted(request, original, fresh=False)
