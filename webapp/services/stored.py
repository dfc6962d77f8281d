"""Reading stored JSON content that may not decode.

A clearance request's content columns (``tool_args``, citations, metadata, the judge's verdict)
are decoded when they are read. A row written before the edge bounded the content (arguments
thousands of levels deep, say) raises ``RecursionError`` or ``ValueError`` while decoding.
Queries that only show a request therefore defer those columns (``CONTENT_COLUMNS``), and
views read them through ``readable``: a row that cannot be decoded still shows what can be
read, with the unreadable part replaced by an empty value and logged, instead of failing the
whole answer with a 500.

Nothing here is used on a decision path: judging and terminal transitions still read the
content directly, so an unreadable row can never be approved (see ``services.reaper``).
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from sqlalchemy.orm import defer

from webapp.models import ClearanceRequest

log = logging.getLogger(__name__)

T = TypeVar("T")

CONTENT_COLUMNS = (
    ClearanceRequest.tool_args,
    ClearanceRequest.action_metadata,
    ClearanceRequest.citations,
    ClearanceRequest.evidence_chunks,
    ClearanceRequest.judge_verdict,
)


def deferred_content() -> list[Any]:
    """Loader options that leave the content columns to be decoded when first read."""
    return [defer(column) for column in CONTENT_COLUMNS]


def readable(row: Any, name: str, default: T, *, unreadable: Any = None) -> T:
    """``row.<name>``, or ``default`` when its stored value cannot be decoded (logged).

    ``unreadable``, when given, is returned instead of ``default`` for a value that cannot be
    decoded, so that a caller for whom "empty" and "unknown" differ can tell them apart."""
    try:
        value = getattr(row, name)
    except (RecursionError, ValueError) as error:
        log.error(
            "stored %s of %s %s cannot be decoded (%s); shown as empty",
            name,
            type(row).__name__,
            getattr(row, "request_id", "?"),
            type(error).__name__,
        )
        return default if unreadable is None else unreadable
    return default if value is None else value
