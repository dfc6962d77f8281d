"""Typed errors of the ingestion core.

Each error carries a stable machine `code` and a `message` written for the person who uploaded
the file: the dashboard shows the message as is.
"""

from __future__ import annotations


class IngestError(Exception):
    """A document that cannot be ingested; nothing of it may be stored."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"IngestError(code={self.code!r}, message={self.message!r})"


class EmbeddingUnavailable(Exception):
    """The embedding model that was asked for cannot be used on this installation."""

    def __init__(self, model: str, message: str) -> None:
        super().__init__(message)
        self.model = model
        self.message = message
