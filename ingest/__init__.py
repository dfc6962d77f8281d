"""Policy ingestion: bytes in, documents, chunks, rule statements and vectors out.

Pure code: it knows nothing of tenants, HTTP or the database. Names are loaded on first use
(PEP 562), so a process that only embeds (a judge worker) does not load the PDF, DOCX and HTML
parsers.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Chunk": "ingest.chunk",
    "chunk": "ingest.chunk",
    "Document": "ingest.document",
    "PolicySpec": "ingest.document",
    "Section": "ingest.document",
    "Embedder": "ingest.embed",
    "get_embedder": "ingest.embed",
    "EmbeddingUnavailable": "ingest.errors",
    "IngestError": "ingest.errors",
    "extract": "ingest.extract",
    "RuleStatement": "ingest.rules",
    "extract_rule_statements": "ingest.rules",
    "html_to_document": "ingest.wiki",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ingest' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
