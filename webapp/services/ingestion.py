"""Policy documents in: uploads, pasted text and wiki pages become indexed policy versions.

The upload request extracts the text at once, so a bad file gets a clear error and nothing is
stored. A good one is stored with its original bytes as an ``indexing`` version, and a job
chunks and embeds it; the version becomes active when that is done. A job that fails removes
the version whole, and its job row keeps the reason for the dashboard.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

import redis
from sqlalchemy import select

from webapp.errors import InvalidInput, Unavailable
from webapp.extensions import db
from webapp.models import JobRun, PolicyChunk, PolicyDocument, PolicyVersion, short_id, utcnow
from webapp.runtime import vault
from webapp.services import policies

log = logging.getLogger(__name__)

MAX_EXTRACTED_RULES = policies.MAX_RULES


@dataclass(frozen=True)
class Submission:
    job: JobRun | None
    version: PolicyVersion
    created: bool


def submit_document(
    client_id: str,
    *,
    policy_id: str,
    filename: str,
    content_type: str | None,
    data: bytes,
    description: str = "",
    tools: list[str] | None = None,
    source: str = "upload",
    source_ref: str = "",
    actor: str = "dashboard",
) -> Submission:
    """Extract a document now (bad files are refused whole) and queue its indexing."""
    import ingest  # parsers load NumPy, pypdf and lxml: only when a document arrives

    try:
        document = ingest.extract(
            data, filename, content_type, max_bytes=vault().config.upload_max_bytes
        )
    except ingest.IngestError as error:
        raise InvalidInput(
            error.message,
            code="invalid_request",
            errors=[{"field": "file", "message": error.message, "reason": error.code}],
        ) from None
    statements = [s.text for s in ingest.extract_rule_statements(document)]
    if not statements:
        raise InvalidInput(
            "no rule statements were found (sentences with must, shall, never, only, at most ...)",
            errors=[{"field": "file", "message": "no rule statements found"}],
        )
    if len(statements) > MAX_EXTRACTED_RULES:
        raise InvalidInput(
            f"the document states {len(statements)} rules; a policy holds at most {MAX_EXTRACTED_RULES}",
            errors=[{"field": "file", "message": "too many rule statements"}],
        )
    spec = document.policy
    content = policies.parse_content(
        {
            "policy_id": policy_id or (spec.policy_id if spec else None),
            "description": description
            or (spec.description if spec else "")
            or document.title[:2000],
            "rules": [s[: policies.MAX_RULE_CHARS] for s in statements],
            "tools": tools if tools else list(spec.tools) if spec else [],
        }
    )
    stored = PolicyDocument(
        document_id=short_id("doc", 10),
        client_id=client_id,
        policy_id=content.policy_id,
        filename=filename[:512],
        content_type=(content_type or "")[:128],
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        data=data,
    )
    db.session.add(stored)
    db.session.flush()
    registration = policies.register(
        client_id,
        content,
        source=source,
        source_ref=source_ref or filename,
        status="indexing",
        document_id=stored.document_id,
        actor=actor,
    )
    if not registration.created:
        # Same rules as the current version: nothing new to index; keep no duplicate bytes.
        db.session.execute(
            PolicyDocument.__table__.delete().where(
                PolicyDocument.document_id == stored.document_id
            )
        )
        db.session.commit()
        return Submission(None, registration.version, created=False)
    job = _queue_index_job(client_id, registration.version)
    return Submission(job, registration.version, created=True)


def submit_text(
    client_id: str,
    *,
    policy_id: str,
    text: str,
    description: str = "",
    tools: list[str] | None = None,
    actor: str = "dashboard",
) -> Submission:
    """Pasted policy text: Markdown headings are honoured."""
    if not text or not text.strip():
        raise InvalidInput(
            "paste some policy text", errors=[{"field": "text", "message": "is required"}]
        )
    return submit_document(
        client_id,
        policy_id=policy_id,
        filename="pasted.md",
        content_type="text/markdown",
        data=text.encode("utf-8"),
        description=description,
        tools=tools,
        source="paste",
        source_ref="pasted text",
        actor=actor,
    )


def submit_wiki_page(
    client_id: str,
    *,
    policy_id: str,
    url: str,
    description: str = "",
    tools: list[str] | None = None,
    actor: str = "dashboard",
) -> Submission:
    """Fetch a wiki page through the SSRF guard and ingest its main content."""
    from webapp.services import outbound

    try:
        page = outbound.guarded_get(url, max_bytes=vault().config.upload_max_bytes)
    except outbound.OutboundFailed as error:
        raise InvalidInput(
            f"could not fetch the page: {error}", errors=[{"field": "url", "message": str(error)}]
        ) from None
    if not page.ok:
        raise InvalidInput(
            f"the wiki answered HTTP {page.status_code}",
            errors=[{"field": "url", "message": f"HTTP {page.status_code}"}],
        )
    html = page.content
    return submit_document(
        client_id,
        policy_id=policy_id,
        filename="wiki.html",
        content_type="text/html",
        data=html,
        description=description,
        tools=tools,
        source="wiki",
        source_ref=url,
        actor=actor,
    )


def index_version(job_id: str, progress: Callable[[str, int], None] | None = None) -> None:
    """The indexing job: chunk, embed and activate one uploaded version."""
    import ingest

    job = db.session.get(JobRun, job_id)
    if job is None or job.status in ("done", "failed"):
        return
    version = db.session.get(PolicyVersion, job.subject)
    if version is None or version.status != "indexing":
        _finish(job, "done", "nothing to index", 100)
        return

    def step(stage: str, percent: int) -> None:
        job.status, job.stage, job.progress, job.updated_at = "running", stage, percent, utcnow()
        db.session.commit()
        if progress:
            progress(stage, percent)

    try:
        step("extracting", 10)
        stored = db.session.get(PolicyDocument, version.document_id)
        document = ingest.extract(
            stored.data,
            stored.filename,
            stored.content_type or None,
            max_bytes=vault().config.upload_max_bytes,
        )
        step("chunking", 30)
        pieces = ingest.chunk(document)
        chunks = policies.rule_chunks(version) + [
            PolicyChunk(
                chunk_id=f"{version.policy_version_id}:c{piece.chunk_id_suffix}",
                client_id=version.client_id,
                policy_id=version.policy_id,
                policy_version_id=version.policy_version_id,
                ordinal=len(version.rules) + piece.ordinal,
                text=piece.text,
                heading=(piece.section or "")[:1000],
                page=piece.page,
                is_rule=False,
            )
            for piece in pieces
        ]
        step("embedding", 50)
        embed_chunks(chunks)
        step("activating", 90)
        policies.activate_indexed_version(
            version.client_id, version.policy_version_id, chunks, actor="ingest"
        )
        _finish(job, "done", f"{len(version.rules)} rules and {len(pieces)} passages indexed", 100)
    except Exception as error:  # noqa: BLE001 - any failure removes the version whole
        db.session.rollback()
        log.exception("indexing %s failed", job.subject)
        message = (
            error.message
            if isinstance(error, ingest.IngestError)
            else "indexing failed; try uploading again"
        )
        policies.discard_failed_version(job.client_id, job.subject)
        job = db.session.get(JobRun, job_id)
        _finish(job, "failed", message, job.progress)


def embed_chunks(chunks: list[PolicyChunk]) -> None:
    """Give each chunk a vector from the configured EMBEDDING_MODEL (stored as float32 bytes)."""
    import numpy as np

    import ingest

    name = vault().config.embedding_model
    embedder = ingest.get_embedder(name)
    for start in range(0, len(chunks), 64):
        batch = chunks[start : start + 64]
        vectors = np.asarray(embedder.embed([c.text for c in batch]), dtype=np.float32)
        for chunk, vector in zip(batch, vectors, strict=True):
            chunk.embedding = vector.tobytes()
            chunk.embedding_model = embedder.name


def reindex_stale_embeddings(batch_size: int = 500) -> int:
    """Re-embed every chunk whose vectors came from another model; returns how many."""
    name = vault().config.embedding_model  # canonical: Config validated it
    if not db.session.scalar(
        select(PolicyChunk.chunk_id).where(PolicyChunk.embedding_model != name).limit(1)
    ):
        return 0  # the common case: nothing stale, and no need to load an embedder
    total = 0
    while True:
        rows = list(
            db.session.scalars(
                select(PolicyChunk).where(PolicyChunk.embedding_model != name).limit(batch_size)
            )
        )
        if not rows:
            return total
        embed_chunks(rows)
        db.session.commit()
        total += len(rows)


def job_view(job: JobRun) -> dict:
    return {
        "job_id": job.job_id,
        "status": job.status,
        "stage": job.stage,
        "progress": job.progress,
        "message": job.message,
        "subject": job.subject,
    }


def get_job(client_id: str, job_id: str) -> JobRun:
    return JobRun.get_for_tenant(client_id, job_id, "job")


def _queue_index_job(client_id: str, version: PolicyVersion) -> JobRun:
    from webapp import queueing

    job = JobRun(
        job_id=f"index-{version.policy_version_id}",
        client_id=client_id,
        kind="index_policy",
        subject=version.policy_version_id,
        status="queued",
        stage="queued",
        progress=0,
    )
    db.session.add(job)
    db.session.commit()  # commit, then enqueue: the job must find its row
    try:
        queueing.index_policy_version(job.job_id, client_id)
    except redis.RedisError:
        # A version that cannot be queued is not left behind.
        policies.discard_failed_version(client_id, version.policy_version_id)
        _finish(
            db.session.get(JobRun, job.job_id),
            "failed",
            "the indexing queue is unavailable; try again",
            0,
        )
        raise Unavailable(
            "the indexing queue is unavailable; try again", headers={"Retry-After": "5"}
        ) from None
    return job


def _finish(job: JobRun, status: str, message: str, progress: int) -> None:
    job.status, job.message, job.progress, job.updated_at = status, message, progress, utcnow()
    job.stage = status
    db.session.commit()
