"""Anchoring: exporting every signed checkpoint to a store outside the database.

Each checkpoint record is written once to `<prefix>/<client_id>/checkpoints/<id, 20 digits>.json`
in a folder (the default, `VAULT_LEDGER_ANCHOR_DIR`) or an S3-compatible bucket (one bucket, or
one per tenant from `VAULT_LEDGER_ANCHOR_BUCKET_TEMPLATE`). Objects are write-once: an object
already there with the same bytes counts as exported (so retries and overlapping runs are
harmless), and one with other bytes is a failure that the verification summary shows.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from config import Config
from webapp.extensions import db
from webapp.models import Checkpoint, Tenant, iso, utcnow
from webapp.runtime import vault
from webapp.services.checkpoints import checkpoint_view

log = logging.getLogger(__name__)

EXPORTED, PENDING, FAILED = "exported", "pending", "failed"


class AnchorStoreRefused(RuntimeError):
    """The anchor store does not meet a start-up requirement (versioning, object lock)."""


class AnchorWriteError(RuntimeError):
    """One checkpoint could not be written to the anchor store."""


@dataclass
class ExportReport:
    """What one export run did for one tenant."""

    exported: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)


# --- where things go ---------------------------------------------------------------------------


def object_key(config: Config, client_id: str, checkpoint_id: int) -> str:
    """CONTRACT §11: `<prefix>/<client_id>/checkpoints/<checkpoint_id, 20 digits>.json`."""
    key = f"{client_id}/checkpoints/{checkpoint_id:020d}.json"
    return f"{config.anchor_prefix}/{key}" if config.anchor_prefix else key


def bucket_for(config: Config, client_id: str) -> str:
    """The tenant's bucket: the fixed one, or the template with an S3-safe client id."""
    if config.anchor_bucket:
        return config.anchor_bucket
    # Bucket names allow only a-z, 0-9, '.' and '-': client ids ("cl_…") need '_' → '-'.
    safe = re.sub(r"[^a-z0-9.-]", "-", client_id.lower())
    return config.anchor_bucket_template.replace("{client_id}", safe)


def export_target(config: Config, client_id: str, checkpoint_id: int) -> str:
    """Where a checkpoint will be written (signed into it as its `export_targets`)."""
    key = object_key(config, client_id, checkpoint_id)
    if config.anchor_backend == "s3":
        return f"s3://{bucket_for(config, client_id)}/{key}"
    return (Path(config.anchor_dir) / key).as_uri()


def anchor_document(client_id: str, row: Checkpoint) -> bytes:
    """The bytes written for a checkpoint: its signed record, deterministic JSON."""
    # The record as signed and listed, without the export bookkeeping it is about to change.
    exported = ("export_uri", "export_status", "exported_at")
    record = {
        "client_id": client_id,
        **{k: v for k, v in checkpoint_view(row).items() if k not in exported},
    }
    return (json.dumps(record, indent=2, sort_keys=True) + "\n").encode()


# --- start-up checks ---------------------------------------------------------------------------


def check_anchor_store(config: Config | None = None, client_ids: list[str] | None = None) -> str:
    """Refuse (AnchorStoreRefused) a store that misses a requirement; returns what was checked.

    The folder must be writable. A bucket must exist, have versioning when
    `VAULT_LEDGER_REQUIRE_BUCKET_VERSIONING` is on, and object lock when
    `VAULT_LEDGER_REQUIRE_OBJECT_LOCK` is on. With a bucket template, every existing tenant's
    bucket is checked (a tenant created later is checked before its first export).
    """
    config = config or vault().config
    if config.anchor_backend == "folder":
        folder = Path(config.anchor_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise AnchorStoreRefused(f"anchor folder {folder} cannot be created: {error}") from None
        if not os.access(folder, os.W_OK):
            raise AnchorStoreRefused(f"anchor folder {folder} is not writable")
        return f"folder {folder}"
    if config.anchor_bucket:
        buckets = [config.anchor_bucket]
    else:
        if client_ids is None:
            client_ids = list(db.session.scalars(select(Tenant.client_id)))
        buckets = sorted({bucket_for(config, client_id) for client_id in client_ids})
    for bucket in buckets:
        _S3Store(config).check_bucket(bucket)
    return "buckets " + (", ".join(buckets) if buckets else "(none yet)")


# --- exporting ---------------------------------------------------------------------------------


def export_pending(client_id: str, *, batch_size: int | None = None) -> ExportReport:
    """Export every checkpoint not yet exported (failed ones are retried), batch by batch."""
    config = vault().config
    size = batch_size or config.anchor_batch_size
    store = _store(config)
    report = ExportReport()
    last = 0
    while True:
        rows = list(
            db.session.scalars(
                Checkpoint.for_tenant(client_id)
                .where(Checkpoint.export_status != EXPORTED, Checkpoint.checkpoint_id > last)
                .order_by(Checkpoint.checkpoint_id)
                .limit(size)
            )
        )
        if not rows:
            return report
        for row in rows:
            row.export_attempts += 1
            try:
                uri = store.put(client_id, row)
            except AnchorWriteError as error:
                row.export_status = FAILED
                row.export_error = str(error)[:2000]
                report.failed[row.checkpoint_id] = row.export_error
                log.warning(
                    "checkpoint export failed: %s",
                    row.export_error,
                    extra={"client_id": client_id, "checkpoint_id": row.checkpoint_id},
                )
                continue
            row.export_status = EXPORTED
            row.export_uri = uri
            row.export_error = ""
            row.exported_at = utcnow()
            report.exported.append(row.checkpoint_id)
        last = rows[-1].checkpoint_id
        db.session.commit()


def export_all_pending() -> dict[str, ExportReport]:
    """Export for every tenant that has checkpoints waiting; reports by tenant."""
    tenants = db.session.scalars(
        select(Checkpoint.client_id).where(Checkpoint.export_status != EXPORTED).distinct()
    )
    return {client_id: export_pending(client_id) for client_id in list(tenants)}


def queue_export(client_id: str) -> None:
    """Ask a ledger worker to export this tenant's new checkpoints (the cron tick is the backstop)."""
    from redis.exceptions import RedisError
    from rq.exceptions import DuplicateJobError

    from webapp import queueing

    try:
        queueing.export_checkpoints(client_id)
    except DuplicateJobError:
        pass  # one is already queued or running; it will pick these up
    except RedisError:
        log.warning("could not queue the checkpoint export", extra={"client_id": client_id})


def export_state(client_id: str) -> dict[str, Any]:
    """The anchor part of the verification summary: backend, counts, and every failure."""
    config = vault().config
    counts = dict(
        db.session.execute(
            select(Checkpoint.export_status, func.count())
            .where(Checkpoint.client_id == client_id)
            .group_by(Checkpoint.export_status)
        ).all()
    )
    last_exported_at = db.session.scalar(
        select(func.max(Checkpoint.exported_at)).where(Checkpoint.client_id == client_id)
    )
    failures = db.session.scalars(
        Checkpoint.for_tenant(client_id)
        .where(Checkpoint.export_status == FAILED)
        .order_by(Checkpoint.checkpoint_id)
        .limit(100)
    )
    return {
        "backend": config.anchor_backend,
        "location": _location(config, client_id),
        "require_bucket_versioning": config.require_bucket_versioning,
        "require_object_lock": config.require_object_lock,
        "exported": counts.get(EXPORTED, 0),
        "pending": counts.get(PENDING, 0),
        "failed": counts.get(FAILED, 0),
        "last_exported_at": iso(last_exported_at),
        "failed_exports": [
            {
                "checkpoint_id": row.checkpoint_id,
                "export_target": row.export_target,
                "export_attempts": row.export_attempts,
                "export_error": row.export_error,
            }
            for row in failures
        ],
    }


def _location(config: Config, client_id: str) -> str:
    if config.anchor_backend == "s3":
        prefix = f"/{config.anchor_prefix}" if config.anchor_prefix else ""
        return f"s3://{bucket_for(config, client_id)}{prefix}"
    return Path(config.anchor_dir).as_uri()


# --- the two backends --------------------------------------------------------------------------


def _store(config: Config) -> _FolderStore | _S3Store:
    return _S3Store(config) if config.anchor_backend == "s3" else _FolderStore(config)


class _FolderStore:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.root = Path(config.anchor_dir)

    def put(self, client_id: str, row: Checkpoint) -> str:
        path = self.root / object_key(self.config, client_id, row.checkpoint_id)
        body = anchor_document(client_id, row)
        try:
            if path.exists():
                if path.read_bytes() == body:
                    return path.as_uri()
                raise AnchorWriteError(f"{path.as_uri()} already holds a different checkpoint")
            path.parent.mkdir(parents=True, exist_ok=True)
            # Write beside it, flush to disk, then link into place: readers never see a partial
            # file, and link() refuses to replace an object another writer put there first.
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(handle.name, path)
            except FileExistsError:
                if path.read_bytes() != body:
                    raise AnchorWriteError(
                        f"{path.as_uri()} already holds a different checkpoint"
                    ) from None
            finally:
                os.unlink(handle.name)
        except OSError as error:
            raise AnchorWriteError(f"cannot write {path.as_uri()}: {error}") from None
        return path.as_uri()


class _S3Store:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.client = _s3_client(config.anchor_region, config.anchor_endpoint_url)

    def check_bucket(self, bucket: str) -> None:
        """Raise AnchorStoreRefused unless the bucket exists and meets the requirements."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.head_bucket(Bucket=bucket)
            versioning = self.client.get_bucket_versioning(Bucket=bucket).get("Status", "")
        except (BotoCoreError, ClientError) as error:
            raise AnchorStoreRefused(f"anchor bucket {bucket} is not usable: {error}") from None
        if self.config.require_bucket_versioning and versioning != "Enabled":
            raise AnchorStoreRefused(
                f"anchor bucket {bucket} has versioning {versioning or 'never enabled'}; "
                "VAULT_LEDGER_REQUIRE_BUCKET_VERSIONING=true requires it Enabled"
            )
        if self.config.require_object_lock:
            try:
                lock = self.client.get_object_lock_configuration(Bucket=bucket)
                enabled = lock.get("ObjectLockConfiguration", {}).get("ObjectLockEnabled")
            except ClientError:
                enabled = None
            if enabled != "Enabled":
                raise AnchorStoreRefused(
                    f"anchor bucket {bucket} has no object lock; "
                    "VAULT_LEDGER_REQUIRE_OBJECT_LOCK=true requires it"
                )
        _CHECKED_BUCKETS.add((self.config.anchor_endpoint_url, bucket))

    def put(self, client_id: str, row: Checkpoint) -> str:
        from botocore.exceptions import BotoCoreError, ClientError

        bucket = bucket_for(self.config, client_id)
        key = object_key(self.config, client_id, row.checkpoint_id)
        body = anchor_document(client_id, row)
        try:
            if (self.config.anchor_endpoint_url, bucket) not in _CHECKED_BUCKETS:
                self.check_bucket(bucket)
            try:
                # Write-once: never overwrite an anchored checkpoint, even with versioning on.
                response = self.client.put_object(
                    Bucket=bucket,
                    Key=key,
                    Body=body,
                    ContentType="application/json",
                    IfNoneMatch="*",
                )
                version = response.get("VersionId")
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "")
                if code not in ("PreconditionFailed", "412", "ConditionalRequestConflict"):
                    raise
                existing = self.client.get_object(Bucket=bucket, Key=key)
                if existing["Body"].read() != body:
                    raise AnchorWriteError(
                        f"s3://{bucket}/{key} already holds a different checkpoint"
                    ) from None
                version = existing.get("VersionId")
        except AnchorStoreRefused as error:
            raise AnchorWriteError(str(error)) from None
        except (BotoCoreError, ClientError) as error:
            raise AnchorWriteError(f"cannot write s3://{bucket}/{key}: {error}") from None
        uri = f"s3://{bucket}/{key}"
        return f"{uri}?versionId={version}" if version and version != "null" else uri


_CHECKED_BUCKETS: set[tuple[str, str]] = set()


@lru_cache(maxsize=8)
def _s3_client(region: str, endpoint_url: str) -> Any:
    import boto3
    from botocore.config import Config as BotoConfig

    return boto3.client(
        "s3",
        region_name=region or None,
        endpoint_url=endpoint_url or None,
        config=BotoConfig(
            retries={"max_attempts": 3, "mode": "standard"},
            connect_timeout=5,
            read_timeout=15,
        ),
    )
