"""Typed failures of the ledger core: every verification failure is a VerificationError."""

from __future__ import annotations


class VerificationError(Exception):
    """Something that was meant to prove a ledger fact does not."""


class InvalidProofError(VerificationError):
    """A proof is malformed: wrong hash sizes, wrong length, or sizes/indexes out of range."""


class RootMismatchError(VerificationError):
    """A well-formed proof leads to a different root than the one claimed."""


class SignatureError(VerificationError):
    """An Ed25519 signature does not verify, or the key or signature is malformed."""


class InvalidEventError(ValueError):
    """A ledger event does not have exactly the fields and types CONTRACT §11 requires."""
