"""Ingestion jobs: index an uploaded policy version; re-embed after a model change."""

from __future__ import annotations

from jobs.runtime import in_app_context


@in_app_context
def index_policy_version(job_id: str) -> None:
    """Chunk, embed and activate the version named by the job row ``job_id``."""
    from webapp.services import ingestion

    ingestion.index_version(job_id)


@in_app_context
def reindex_embeddings() -> int:
    """Re-embed chunks whose vectors came from another EMBEDDING_MODEL."""
    from webapp.services import ingestion

    return ingestion.reindex_stale_embeddings()
