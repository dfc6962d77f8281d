"""A runnable agent that asks this vault for clearance through the public client, unmodified.

    pip install ledgix-python==0.4.0
    LEDGIX_VAULT_URL=http://127.0.0.1:8000 LEDGIX_VAULT_API_KEY=<the demo tenant's key> \
        python examples/refund_agent.py

It registers a small refund policy, then tries three refunds. Each tool function runs only when
the vault approves; it then burns its token at the tool boundary (`POST /consume-token`), as a
real tool service (or the tool gateway) would, so a token can never be used twice. With
`--cache` the client's decision cache is on: an identical second refund gets a fresh token from
`POST /mint-token` instead of a new judgement.
"""

from __future__ import annotations

import argparse
import os
import sys

import httpx
from ledgix_python import (
    ClearanceDeniedError,
    LedgixClient,
    PolicyRegistration,
    ReviewPendingError,
    VaultConfig,
    vault_enforce,
)

RULES = [
    "Refunds above $500 are not allowed",
    "Refunds must include an order_id",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", action="store_true", help="turn the client's decision cache on")
    options = parser.parse_args(argv)
    config = VaultConfig(
        agent_id=os.environ.get("LEDGIX_AGENT_ID", "refund-agent"),
        review_mode="detach",  # a refund waiting for a reviewer is reported, not waited on
        decision_cache_enabled=options.cache,
        max_retries=1,
    )
    if not config.vault_api_key:
        print("set LEDGIX_VAULT_API_KEY (and LEDGIX_VAULT_URL) first", file=sys.stderr)
        return 2
    client = LedgixClient(config)
    client.register_policy(
        PolicyRegistration(policy_id="refunds", rules=RULES, tools=["issue_refund"])
    )

    @vault_enforce(client, tool_name="issue_refund")
    def issue_refund(order_id: str, amount: float, _clearance=None) -> str:
        # The tool side: burn the token for exactly these arguments before acting.
        burned = httpx.post(
            f"{config.vault_url}/consume-token",
            json={
                "token": _clearance.token,
                "tool_name": "issue_refund",
                "tool_args": {"order_id": order_id, "amount": amount},
            },
            headers={"X-Vault-API-Key": config.vault_api_key},
        )
        burned.raise_for_status()
        return f"refunded ${amount} on {order_id} (request {_clearance.request_id})"

    attempts = [("A-1001", 40), ("A-1001", 40), ("A-1002", 9_000)]
    for order_id, amount in attempts:
        try:
            print("approved:", issue_refund(order_id=order_id, amount=amount))
        except ClearanceDeniedError as denied:
            print(f"denied: {order_id} ${amount}: {denied.reason}")
        except ReviewPendingError as pending:
            print(f"waiting for a reviewer: request {pending.pending_approval.request_id}")
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
