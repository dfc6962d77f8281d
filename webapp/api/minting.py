"""`POST /mint-token`: the clients' decision cache (CONTRACT §5a)."""

from __future__ import annotations

from flask import Blueprint, jsonify
from pydantic import Field, StrictStr

from webapp.api import openapi
from webapp.api.auth import current_client_id, protect_with_tenant_key
from webapp.api.openapi import Op
from webapp.api.parsing import idempotency_key, json_body, validated
from webapp.api.schemas import ClearanceRequestBody, MintTokenReply, reply
from webapp.services import minting

minting_api = Blueprint("minting", __name__)
protect_with_tenant_key(minting_api)


class MintTokenBody(ClearanceRequestBody):
    """What both public clients send: the clearance fields (read as for /request-clearance)
    plus what their cache remembers of the approval."""

    original_request_id: StrictStr = Field(min_length=1, max_length=64)
    policy_id: StrictStr | None = Field(default=None, max_length=128)
    policy_version_id: StrictStr | None = Field(default=None, max_length=128)
    policy_content_hash: StrictStr | None = Field(default=None, max_length=128)
    # Informational: the server answers with its own values, never the client's.
    confidence_bucket: StrictStr | None = Field(default=None, max_length=32)
    reason: StrictStr | None = Field(default=None, max_length=4000)


@minting_api.post("/mint-token")
def mint_token():
    body = validated(MintTokenBody, json_body())
    new = body.command()
    cached = minting.CachedApproval(
        original_request_id=body.original_request_id.strip(),
        policy_id=(body.policy_id or "").strip(),
        policy_version_id=body.policy_version_id or "",
        policy_content_hash=body.policy_content_hash or "",
    )
    minted = minting.mint(current_client_id(), new, cached, idempotency_key())
    return jsonify(reply(MintTokenReply, minting.minted_view(minted)))


openapi.register(
    Op(
        "post",
        "/mint-token",
        "A fresh token for a repeat of an earlier approval by rules (the clients' decision cache)",
        "Decision",
        body=MintTokenBody,
        idempotent_key=True,
        reply=MintTokenReply,
        responses={
            409: "Not re-mintable: the detail names the condition that failed; nothing minted",
            422: "Idempotency-Key reused with another body",
        },
    ),
)
