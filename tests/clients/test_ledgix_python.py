"""The real public Python client, `ledgix-python` 0.4.0, against a live vault: what agent
developers run, unmodified. Request, review, consume, the decision cache (`/mint-token`),
ledger and bundle verification, and signed webhooks checked with its `verify_webhook`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import jwt as pyjwt
import ledgix_python as ledgix
import pytest
from ledgix_python import (
    ClearanceDeniedError,
    ClearanceRequest,
    LedgixClient,
    PolicyRegistration,
    ReplayDetectedError,
    ReviewPendingError,
    VaultConfig,
)

from tests.helpers import LoopbackServer, wait_for

ROOT = Path(__file__).resolve().parents[2]

PAYMENT_RULES = ["Payments above $10,000 are not allowed", "Payments must include an invoice_id"]
ARGS = {"amount": 120, "invoice_id": "INV-7"}


@pytest.fixture
def tenant(live_vault, request):
    return live_vault.new_tenant(f"Client {request.node.name[:40]}")


def client_for(live_vault, tenant, **options) -> LedgixClient:
    config = VaultConfig(
        vault_url=live_vault.url,
        vault_api_key=tenant.api_key,
        agent_id="finance-agent",
        review_poll_interval=0.05,
        review_timeout=20,
        max_retries=0,
        **options,
    )
    return LedgixClient(config)


def register(client: LedgixClient, rules=PAYMENT_RULES) -> None:
    client.register_policy(PolicyRegistration(policy_id="payments", rules=rules, tools=["pay_*"]))


def consume(live_vault, tenant, token: str, tool_args=ARGS) -> httpx.Response:
    """What the tool side does before it acts (CONTRACT §5)."""
    return httpx.post(
        f"{live_vault.url}/consume-token",
        json={"token": token, "tool_name": "pay_invoice", "tool_args": tool_args},
        headers=tenant.headers,
    )


def test_approval_is_verified_by_the_client_and_burns_once(live_vault, tenant):
    with client_for(live_vault, tenant) as client:
        register(client)
        clearance = client.request_clearance(
            ClearanceRequest(tool_name="pay_invoice", tool_args=ARGS)
        )
        assert clearance.status == "approved" and clearance.decision_status == "approved"
        # The client verified the token against our JWKS (signature, iss, aud) and keeps its
        # jti: showing it again in this process is a replay to the client too.
        with pytest.raises(ReplayDetectedError):
            client.verify_token(clearance.token)
        claims = pyjwt.decode(clearance.token, options={"verify_signature": False})
        assert claims["request_id"] == clearance.request_id
        assert claims["tool"] == "pay_invoice"
    first = consume(live_vault, tenant, clearance.token)
    assert first.status_code == 200 and first.json()["valid"] is True
    replay = consume(live_vault, tenant, clearance.token)
    assert replay.status_code == 409 and replay.json()["code"] == "token_replayed"


def test_denial_raises_the_clients_denied_error(live_vault, tenant):
    with client_for(live_vault, tenant) as client:
        register(client)
        with pytest.raises(ClearanceDeniedError) as denied:
            client.request_clearance(
                ClearanceRequest(tool_name="pay_invoice", tool_args={"amount": 50_000})
            )
    assert denied.value.request_id


def test_review_in_detach_mode_then_a_reviewers_approval(live_vault, tenant):
    big = {"amount": 5_000, "invoice_id": "INV-9"}
    with client_for(live_vault, tenant, review_mode="detach") as client:
        register(client, [*PAYMENT_RULES, "Payments of $1,000 or more must be reviewed."])
        with pytest.raises(ReviewPendingError) as pending:
            client.request_clearance(ClearanceRequest(tool_name="pay_invoice", tool_args=big))
        request_id = pending.value.pending_approval.request_id
        decided = httpx.post(
            f"{live_vault.url}/reviews/{request_id}/decision",
            json={"approved": True, "reviewer_email": "lead@example.com", "reason": "known"},
            headers=tenant.headers,
        )
        assert decided.status_code == 200, decided.text
        clearance = pending.value.pending_approval.wait(timeout=20)
        assert clearance.status == "approved" and clearance.token
        client.verify_token(clearance.token)
    assert consume(live_vault, tenant, clearance.token, big).status_code == 200


def test_the_decision_cache_mints_through_the_vault_and_refuses_what_it_must(live_vault, tenant):
    with client_for(live_vault, tenant, decision_cache_enabled=True) as client:
        register(client)
        call = ClearanceRequest(tool_name="pay_invoice", tool_args=ARGS)
        first = client.request_clearance(call)
        repeat = client.request_clearance(call)  # from the cache: POST /mint-token
        assert repeat.token and repeat.token != first.token
        assert repeat.request_id != first.request_id
        with pytest.raises(ReplayDetectedError):  # verified by the client already
            client.verify_token(repeat.token)
        assert consume(live_vault, tenant, first.token).status_code == 200
        assert consume(live_vault, tenant, repeat.token).status_code == 200

        # A policy change since the cached approval: the vault refuses, the client surfaces it.
        register(client, [*PAYMENT_RULES, "Payments need a memo"])
        with pytest.raises(ledgix.VaultConnectionError, match="409"):
            client.request_clearance(call)
    ledger = httpx.get(f"{live_vault.url}/ledger", headers=tenant.headers).json()["entries"]
    minted = [e for e in ledger if e["request_id"] == repeat.request_id]
    assert minted and minted[-1]["action_metadata"]["minted_from"] == first.request_id


def test_ledger_records_and_bundles_verify_in_the_client(live_vault, tenant):
    with client_for(live_vault, tenant) as client:
        register(client)
        first = client.request_clearance(ClearanceRequest(tool_name="pay_invoice", tool_args=ARGS))
        live_vault.seal(tenant.client_id)
        # The sealing checkpoint is the latest: no consistency in the bundle, and still intact.
        bundle = client.fetch_ledger_proof_bundle(first.request_id)
        assert bundle.consistency is None
        assert client.verify_ledger_proof_bundle(bundle).intact

        second = client.request_clearance(
            ClearanceRequest(tool_name="pay_invoice", tool_args={**ARGS, "invoice_id": "INV-8"})
        )
        live_vault.seal(tenant.client_id)
        bundle = client.fetch_ledger_proof_bundle(first.request_id)
        assert bundle.consistency is not None
        result = client.verify_ledger_proof_bundle(bundle)
        assert result.intact, result.error
        assert client.verify_ledger_proof_bundle(
            client.fetch_ledger_proof_bundle(second.request_id)
        ).intact

        checkpoints = client.fetch_ledger_checkpoints()
        assert [c.microblock_id for c in checkpoints] == [c.checkpoint_id for c in checkpoints]
        assert client.fetch_ledger_inclusion_proof(first.request_id).leaf_index >= 0
        verified = client.verify_ledger_proof()
        assert verified.intact, verified.error

    # The TypeScript client rejects null in these places: they are left out instead.
    raw = httpx.get(
        f"{live_vault.url}/ledger/proof/bundle",
        params={"request_id": second.request_id},
        headers=tenant.headers,
    ).json()
    assert "consistency" not in raw
    assert all("retired_at" not in key for key in raw["keys"])
    assert raw["inclusion"]["checkpoint"].get("exported_at", "left out") is not None


def test_the_example_agent_runs_against_the_vault(live_vault, tenant):
    env = {
        **os.environ,
        "LEDGIX_VAULT_URL": live_vault.url,
        "LEDGIX_VAULT_API_KEY": tenant.api_key,
    }
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "refund_agent.py"), "--cache"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["approved", "approved", "denied"], lines
    # The second refund came from the decision cache: a minted approval in the ledger.
    entries = httpx.get(f"{live_vault.url}/ledger", headers=tenant.headers).json()["entries"]
    assert any("minted_from" in e["action_metadata"] for e in entries)


def test_webhooks_from_a_live_vault_verify_with_the_clients_verify_webhook(live_vault, tenant):
    received = []

    def handler(method, path, headers, body):  # noqa: ANN001, ANN202
        received.append((headers, body))
        return 204, {}, b""

    server = LoopbackServer(handler)
    with server, client_for(live_vault, tenant) as client:
        created = httpx.post(
            f"{live_vault.url}/webhooks",
            json={"url": f"{server.url}/ledgix", "events": ["clearance.decided"]},
            headers=tenant.headers,
        )
        assert created.status_code == 201, created.text
        secret = created.json()["secret"]
        register(client)
        clearance = client.request_clearance(
            ClearanceRequest(tool_name="pay_invoice", tool_args=ARGS)
        )
        wait_for(lambda: received, what="the clearance.decided webhook")
    headers, body = received[0]
    headers = {k.lower(): v for k, v in headers.items()}
    assert ledgix.verify_webhook(body, headers["x-ledgix-signature"], secret)
    event = json.loads(body)
    assert event["type"] == "clearance.decided"
    assert event["data"]["request_id"] == clearance.request_id
    assert headers["x-ledgix-timestamp"] == event["created_at"]
    assert headers["x-ledgix-delivery"] == event["event_id"]
    assert not ledgix.verify_webhook(body + b" ", headers["x-ledgix-signature"], secret)


def test_the_async_client_and_its_decision_cache(live_vault, tenant):
    async def run() -> tuple:
        async with client_for(live_vault, tenant, decision_cache_enabled=True) as client:
            await client.aregister_policy(
                PolicyRegistration(policy_id="payments", rules=PAYMENT_RULES, tools=["pay_*"])
            )
            call = ClearanceRequest(tool_name="pay_invoice", tool_args=ARGS)
            return await client.arequest_clearance(call), await client.arequest_clearance(call)

    first, repeat = asyncio.run(run())
    assert first.status == "approved" and repeat.token and repeat.token != first.token
    assert consume(live_vault, tenant, repeat.token).status_code == 200
