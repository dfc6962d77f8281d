"""The pure ledger core: deterministic CBOR, event and checkpoint hashing, RFC 9162 Merkle proofs,
receipts and checkpoint signatures, and the offline proof-bundle verifier (CONTRACT §11).

It imports neither Flask nor a database, and uses only relative imports, so the folder can be
copied out and run on its own: `python -m ledger verify-bundle bundle.json`.
"""
