"""Ledger endpoints (spec §4.1 "Verification", CONTRACT §11): entries, checkpoints, proofs,
verification."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from pydantic import Field, StrictStr

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import cursor_arg, encode_cursor, limit_arg
from webapp.api.schemas import (
    Body,
    CheckpointListReply,
    ConsistencyProofReply,
    EncryptedListReply,
    InclusionProofReply,
    LedgerListReply,
    ProofBundleReply,
    SealReply,
    VerificationSummaryReply,
    VerifyReply,
    reply,
)
from webapp.errors import InvalidInput, field_error
from webapp.services import checkpoints, proofs, verification
from webapp.services import ledger as ledger_service
from webapp.services.encrypted_ledger import encrypted_entry_view

ledger_api = Blueprint("ledger", __name__, url_prefix="/ledger")
protect_with_tenant_key(ledger_api)

LEDGER_LIMIT = 100


class SealRequest(Body):
    """`POST /admin/ledger/seal`: one tenant, or every tenant when omitted."""

    client_id: StrictStr | None = Field(default=None, min_length=1, max_length=64)


@ledger_api.get("")
def list_entries():
    rows, next_before = _entries_page()
    page = {
        "entries": [ledger_service.entry_view(row) for row in rows],
        "next_cursor": _cursor(next_before, "before"),
    }
    return jsonify(reply(LedgerListReply, page))


@ledger_api.get("/encrypted")
def list_encrypted_entries():
    rows, next_before = _entries_page()
    page = {
        "entries": [encrypted_entry_view(row) for row in rows],
        "next_cursor": _cursor(next_before, "before"),
    }
    return jsonify(reply(EncryptedListReply, page))


@ledger_api.get("/verify")
def verify():
    return jsonify(reply(VerifyReply, verification.verify_ledger(current_client_id())))


@ledger_api.get("/verification-summary")
def verification_summary():
    summary = verification.verification_summary(current_client_id())
    return jsonify(reply(VerificationSummaryReply, summary))


@ledger_api.get("/checkpoints")
@ledger_api.get("/manifests")
def list_checkpoints():
    limit = limit_arg(LEDGER_LIMIT)
    order = request.args.get("order", "asc")
    if order not in ("asc", "desc"):
        raise field_error("order", "must be asc or desc")
    after = _cursor_position("after")
    rows, next_after = checkpoints.list_checkpoints(
        current_client_id(), limit, after=after, descending=order == "desc"
    )
    page = {
        "checkpoints": [checkpoints.checkpoint_view(row) for row in rows],
        "next_cursor": _cursor(next_after, "after"),
    }
    return jsonify(reply(CheckpointListReply, page))


@ledger_api.get("/proof/inclusion")
def inclusion_proof():
    proof = proofs.inclusion_proof(
        current_client_id(),
        request_id=request.args.get("request_id") or None,
        event_uuid=request.args.get("event_uuid") or None,
        checkpoint_id=_int_arg("checkpoint_id"),
    )
    return jsonify(reply(InclusionProofReply, proof))


@ledger_api.get("/proof/consistency")
def consistency_proof():
    from_id = _int_arg("from")
    if from_id is None:
        raise field_error("from", "is required (a checkpoint_id)")
    proof = proofs.consistency_proof(current_client_id(), from_id, _int_arg("to"))
    return jsonify(reply(ConsistencyProofReply, proof))


@ledger_api.get("/proof/bundle")
def proof_bundle():
    bundle = proofs.proof_bundle(
        current_client_id(),
        request_id=request.args.get("request_id") or None,
        event_uuid=request.args.get("event_uuid") or None,
    )
    return jsonify(reply(ProofBundleReply, bundle))


# --- parsing -----------------------------------------------------------------------------------


def _entries_page() -> tuple[list[Any], int | None]:
    limit = limit_arg(LEDGER_LIMIT)
    return ledger_service.list_entries(current_client_id(), limit, _cursor_position("before"))


def _cursor(position: int | None, name: str) -> str | None:
    return encode_cursor({name: position}) if position is not None else None


def _cursor_position(name: str) -> int | None:
    position = cursor_arg()
    if position is None:
        return None
    value = position.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(
            "cursor is not valid", errors=[{"field": "cursor", "message": "is not valid"}]
        )
    return value


def _int_arg(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    # isascii: str.isdigit() also accepts "²", which int() refuses.
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18 or int(raw) < 1:
        raise field_error(name, "must be a positive integer")
    return int(raw)


openapi.register(
    Op(
        "get",
        "/ledger",
        "Ledger entries, newest first",
        "Verification",
        query=("limit", "cursor"),
        reply=LedgerListReply,
    ),
    Op(
        "get",
        "/ledger/encrypted",
        "Ledger entries with their content as stored: XChaCha20-Poly1305 ciphertext (advanced)",
        "Verification",
        query=("limit", "cursor"),
        reply=EncryptedListReply,
    ),
    Op(
        "get",
        "/ledger/verify",
        "Recompute and verify the whole ledger: events, receipts, tree, checkpoints, chain",
        "Verification",
        reply=VerifyReply,
    ),
    Op(
        "get",
        "/ledger/verification-summary",
        "Anchor state, key versions, last verification, latest checkpoint, sealing delay",
        "Verification",
        reply=VerificationSummaryReply,
    ),
    Op(
        "get",
        "/ledger/checkpoints",
        "Signed checkpoints, oldest first (order=desc for newest first)",
        "Verification",
        query=("limit", "cursor", "order"),
        reply=CheckpointListReply,
    ),
    Op(
        "get",
        "/ledger/manifests",
        "Alias of /ledger/checkpoints",
        "Verification",
        query=("limit", "cursor", "order"),
        reply=CheckpointListReply,
    ),
    Op(
        "get",
        "/ledger/proof/inclusion",
        "Inclusion proof of a request's decision event (or any event by event_uuid)",
        "Verification",
        query=("request_id", "event_uuid", "checkpoint_id"),
        responses={
            404: "Unknown request, event or checkpoint",
            409: "No terminal decision yet, or not sealed yet; see Retry-After",
        },
        reply=InclusionProofReply,
    ),
    Op(
        "get",
        "/ledger/proof/consistency",
        "Consistency proof between two checkpoints (to defaults to the latest)",
        "Verification",
        query=("from", "to"),
        responses={404: "Unknown checkpoint"},
        reply=ConsistencyProofReply,
    ),
    Op(
        "get",
        "/ledger/proof/bundle",
        "Proof bundle: event, inclusion, consistency to the latest checkpoint, keys",
        "Verification",
        query=("request_id", "event_uuid"),
        responses={
            404: "Unknown request or event",
            409: "No terminal decision yet, or not sealed yet; see Retry-After",
        },
        reply=ProofBundleReply,
    ),
    Op(
        "post",
        "/admin/ledger/seal",
        "Seal every tenant's pending ledger events now (or one tenant's)",
        "Operator",
        body=SealRequest,
        auth="admin",
        body_optional=True,
        responses={404: "Unknown client_id"},
        reply=SealReply,
    ),
)
