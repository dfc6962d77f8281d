"""The protected ledger payload (`GET /ledger/encrypted`): entries as stored, content sealed.

Public fields travel in clear; the sensitive ones (tool arguments, reason, citations, evidence,
action metadata) travel as the stored XChaCha20-Poly1305 ciphertext with everything a holder of
the transport key needs to open it: nonce, ciphertext, and the exact associated data.
"""

from __future__ import annotations

from typing import Any

from webapp.ledger.encoding import b64url_encode
from webapp.models import LedgerEvent
from webapp.services.at_rest import FORMAT_V1, NONCE_BYTES, ledger_associated_data
from webapp.services.ledger import SEALED_FIELDS, clear_fields

ALGORITHM = "XChaCha20-Poly1305-IETF"
ASSOCIATED_DATA_RECIPE = 'format byte 0x01 || UTF-8("ledger" 0x00 client_id 0x00 event_uuid)'
PLAINTEXT = "UTF-8 JSON object with " + ", ".join(SEALED_FIELDS)


def encrypted_entry_view(row: LedgerEvent) -> dict[str, Any]:
    """Every public field of a ledger entry, plus the sealed content as stored."""
    blob = bytes(row.sealed)
    nonce, ciphertext = blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :]
    associated = FORMAT_V1 + ledger_associated_data(row.client_id, row.event_uuid).encode()
    return {
        **clear_fields(row),
        "sealed": {
            "algorithm": ALGORITHM,
            "format": blob[0] if blob else 0,
            "nonce": b64url_encode(nonce),
            "ciphertext": b64url_encode(ciphertext),
            "associated_data": b64url_encode(associated),
            "associated_data_recipe": ASSOCIATED_DATA_RECIPE,
            "plaintext": PLAINTEXT,
            "key": "VAULT_TRANSPORT_KEY_BASE64",
        },
    }
