"""A-JWT approval tokens (CONTRACT §4): minting at approval, verification and burning (§5).

Tokens are signed through the Signer interface (bytes in, Ed25519 signature out) so that a
managed-key backend can sign without exporting a private key; verification uses joserfc.
"""

from __future__ import annotations

import json
import time
import uuid
import warnings
from dataclasses import dataclass
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OKPKey
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from webapp import strict_json
from webapp.errors import TokenReplayed, Unprocessable
from webapp.extensions import db
from webapp.ledger.encoding import b64url_decode, b64url_encode
from webapp.ledger.keys import public_jwk
from webapp.models import BurnedToken, ClearanceRequest, iso, utcnow
from webapp.runtime import vault
from webapp.services import drift, keys
from webapp.services.canonical import intent_hash
from webapp.services.ledger import EventContent, append_event

# Clients pin alg "EdDSA" (CONTRACT §4); joserfc warns that RFC 9864 prefers "Ed25519".
warnings.filterwarnings("ignore", message="EdDSA is deprecated", module="joserfc")

SUBJECT = "clearance"
MAX_TOKEN_LENGTH = 8192


@dataclass(frozen=True)
class MintedToken:
    token: str
    jti: str
    expires_at: int


def mint(request: ClearanceRequest) -> MintedToken:
    """Sign an approval token bound to the request's tool and exact arguments."""
    config = vault().config
    signer = vault().signer
    keys.require_registered(request.client_id)
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": config.jwt_issuer,
        "aud": config.jwt_audience,
        "sub": SUBJECT,
        "iat": now,
        "nbf": now,
        "exp": now + config.jwt_ttl,
        "jti": str(uuid.uuid4()),
        "tool": request.tool_name,
        "tool_args_hash": request.tool_args_hash,
        "agent_id": request.agent_id,
        "policy_id": request.policy_id,
        "decision": "yes",
        "request_id": request.request_id,
        "client_id": request.client_id,
    }
    if request.session_id:
        claims["session_id"] = request.session_id
    header = {"alg": "EdDSA", "typ": "JWT", "kid": signer.key_id}
    signing_input = f"{_segment(header)}.{_segment(claims)}"
    signature = signer.sign(signing_input.encode("ascii"))
    return MintedToken(f"{signing_input}.{b64url_encode(signature)}", claims["jti"], claims["exp"])


def verify(token: str, client_id: str) -> dict[str, Any]:
    """The claims of a valid token of this tenant; Unprocessable(token_invalid|token_expired)."""
    if (
        not isinstance(token, str)
        or not token
        or len(token) > MAX_TOKEN_LENGTH
        or token.count(".") != 2
    ):
        raise _invalid("token is malformed")
    try:
        # Strict and bounded: a header nested thousands of levels deep is malformed, not a 500.
        header = strict_json.loads(b64url_decode(token.split(".", 1)[0]), max_depth=4)
    except (ValueError, UnicodeDecodeError):
        raise _invalid("token header is malformed") from None
    if (
        not isinstance(header, dict)
        or header.get("alg") != "EdDSA"
        or not isinstance(header.get("kid"), str)
    ):
        raise _invalid("token must be EdDSA-signed with a kid")
    public = keys.public_key_for(header["kid"])
    if public is None:
        raise _invalid("token was signed by an unknown key")
    try:
        decoded = jwt.decode(
            token, OKPKey.import_key(public_jwk(public, header["kid"])), algorithms=["EdDSA"]
        )
    except (JoseError, ValueError, RecursionError):
        raise _invalid("token signature does not verify") from None
    claims = decoded.claims
    config = vault().config
    if claims.get("iss") != config.jwt_issuer:
        raise _invalid("token issuer is wrong")
    if claims.get("aud") != config.jwt_audience:
        raise _invalid("token audience is wrong")
    if claims.get("sub") != SUBJECT or claims.get("decision") != "yes":
        raise _invalid("token is not an approval token")
    if claims.get("client_id") != client_id:
        # Another tenant's token is simply not valid here.
        raise _invalid("token was not issued to this tenant")
    for name in ("iat", "nbf", "exp"):
        if not isinstance(claims.get(name), int) or isinstance(claims.get(name), bool):
            raise _invalid(f"token {name} is missing")
    for name in ("jti", "tool", "tool_args_hash", "agent_id", "policy_id", "request_id"):
        if not isinstance(claims.get(name), str):
            raise _invalid(f"token {name} is missing")
    now = int(time.time())
    if now >= claims["exp"]:
        # No leeway: expired from the second exp names.
        raise Unprocessable("token has expired", code="token_expired", extra={"valid": False})
    if now < claims["nbf"]:
        raise _invalid("token is not valid yet")
    return claims


def consume(
    client_id: str, token: str, tool_name: str | None = None, tool_args: dict | None = None
) -> dict[str, Any]:
    """Verify and burn; exactly one of any number of concurrent consumers succeeds."""
    claims = verify(token, client_id)
    jti = claims["jti"]
    mismatch = (tool_name is not None and tool_name != claims["tool"]) or (
        tool_args is not None and intent_hash(tool_args) != claims["tool_args_hash"]
    )
    outcome = "args_mismatch" if mismatch else "consumed"
    consumed_at = utcnow()
    db.session.add(
        BurnedToken(
            jti=jti,
            client_id=client_id,
            request_id=claims["request_id"],
            outcome=outcome,
            consumed_at=consumed_at,
        )
    )
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        first = db.session.scalar(select(BurnedToken).where(BurnedToken.jti == jti))
        drift.record_token_event(client_id, claims["agent_id"], "replay")
        raise TokenReplayed(
            "token was already used; do not run the action",
            extra={
                "valid": False,
                "jti": jti,
                "consumed_at": iso(first.consumed_at) if first else None,
            },
        ) from None
    append_event(
        client_id,
        EventContent(
            action_category="token_consumed",
            request_id=claims["request_id"],
            agent_id=claims["agent_id"],
            tool_name=claims["tool"],
            tool_args=tool_args if tool_args is not None else None,
            reason="token presented with other arguments and burned"
            if mismatch
            else "token consumed",
            policy_id=claims["policy_id"],
            action_metadata={
                "jti": jti,
                "outcome": outcome,
                "session_id": claims.get("session_id", ""),
            },
        ),
    )
    db.session.commit()
    drift.record_token_event(client_id, claims["agent_id"], outcome)
    if mismatch:
        raise Unprocessable(
            "token does not match the tool call; it has been burned",
            code="args_mismatch",
            extra={"valid": False, "jti": jti},
        )
    body = {
        "valid": True,
        "jti": jti,
        "tool_name": claims["tool"],
        "agent_id": claims["agent_id"],
        "policy_id": claims["policy_id"],
        "request_id": claims["request_id"],
        "client_id": claims["client_id"],
        "tool_args_hash": claims["tool_args_hash"],
        "consumed_at": iso(consumed_at),
    }
    if claims.get("session_id"):
        body["session_id"] = claims["session_id"]
    return body


def _segment(value: dict[str, Any]) -> str:
    return b64url_encode(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _invalid(detail: str) -> Unprocessable:
    return Unprocessable(detail, code="token_invalid", extra={"valid": False})
