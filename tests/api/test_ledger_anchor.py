"""Anchoring checkpoints: the folder store, and an S3-compatible store served by moto's real
server on 127.0.0.1 (versioning refusal, object lock, per-tenant buckets, failures and retries)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import boto3
import pytest

from tests.conftest import make_config
from tests.ledger_support import seal, write_events

REGION = "us-east-1"
PREFIX = "vault/anchors"


@pytest.fixture(scope="module")
def s3_endpoint():
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def aws_env(monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def s3(s3_endpoint, aws_env):
    return boto3.client("s3", region_name=REGION, endpoint_url=s3_endpoint)


def new_bucket(
    s3, *, versioned: bool = True, object_lock: bool = False, name: str | None = None
) -> str:
    name = name or f"anchors-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=object_lock)
    if versioned and not object_lock:  # object lock turns versioning on by itself
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    if object_lock:
        s3.put_object_lock_configuration(
            Bucket=name,
            ObjectLockConfiguration={
                "ObjectLockEnabled": "Enabled",
                "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}},
            },
        )
    return name


@pytest.fixture
def s3_app_factory(workdir, database_url, redis_url, _migrated, s3_endpoint, aws_env):
    from jobs.runtime import set_app
    from tests.conftest import _reset_state, bootstrap
    from webapp import create_app

    made = []

    def make(**overrides):
        settings = {
            "anchor_endpoint_url": s3_endpoint,
            "anchor_region": REGION,
            "anchor_prefix": PREFIX,
        }
        config = make_config(workdir, database_url, redis_url, **{**settings, **overrides})
        app = create_app(config)
        app.config["TESTING"] = True
        bootstrap(app)
        set_app(app)
        made.append(app)
        return app

    yield make
    set_app(None)
    if made:
        _reset_state(made[-1])


def tenant_of(app):
    from tests.conftest import make_tenant

    return make_tenant(app, "Anchor Co")


def export(app, client_id):
    from webapp.services import anchoring

    with app.app_context():
        return anchoring.export_pending(client_id)


def records(app, tenant):
    client = app.test_client()
    return client.get("/ledger/checkpoints", headers=tenant.headers).get_json()["checkpoints"]


def summary(app, tenant):
    client = app.test_client()
    return client.get("/ledger/verification-summary", headers=tenant.headers).get_json()


def bootstrap_cli(app):
    return app.test_cli_runner().invoke(args=["vault", "bootstrap"])


# --- S3 ----------------------------------------------------------------------------------------


def test_checkpoints_are_exported_to_a_versioned_bucket(s3, s3_app_factory):
    bucket = new_bucket(s3)
    app = s3_app_factory(anchor_bucket=bucket)
    assert bootstrap_cli(app).exit_code == 0
    tenant = tenant_of(app)
    write_events(app, tenant.client_id, 5)
    seal(app, tenant.client_id, batch_size=2)

    report = export(app, tenant.client_id)
    assert report.exported == [1, 2, 3] and report.failed == {}
    for record in records(app, tenant):
        key = f"{PREFIX}/{tenant.client_id}/checkpoints/{record['checkpoint_id']:020d}.json"
        assert record["export_target"] == f"s3://{bucket}/{key}"
        assert record["export_status"] == "exported" and record["exported_at"]
        stored = s3.get_object(Bucket=bucket, Key=key)
        assert record["export_uri"] == f"s3://{bucket}/{key}?versionId={stored['VersionId']}"
        anchored = json.loads(stored["Body"].read())
        assert anchored["client_id"] == tenant.client_id
        for name in (
            "checkpoint_id",
            "tree_size",
            "root_hash",
            "checkpoint_hash",
            "prev_checkpoint_hash",
            "checkpoint_signature",
            "checkpoint_payload",
        ):
            assert anchored[name] == record[name]  # fmt: skip

    # Nothing left to do; a forced second write of the same bytes is accepted, not duplicated.
    assert export(app, tenant.client_id).exported == []
    from webapp.extensions import db
    from webapp.models import Checkpoint

    with app.app_context():
        db.session.execute(db.update(Checkpoint).values(export_status="pending"))
        db.session.commit()
    assert export(app, tenant.client_id).exported == [1, 2, 3]
    versions = s3.list_object_versions(Bucket=bucket, Prefix=PREFIX)["Versions"]
    assert len(versions) == 3
    anchor = summary(app, tenant)["anchor"]
    assert anchor["backend"] == "s3" and anchor["exported"] == 3 and anchor["failed"] == 0
    assert anchor["location"] == f"s3://{bucket}/{PREFIX}"


def test_an_unversioned_bucket_is_refused_at_start_up_and_by_the_exporter(s3, s3_app_factory):
    bucket = new_bucket(s3, versioned=False)
    app = s3_app_factory(anchor_bucket=bucket)
    started = bootstrap_cli(app)
    assert started.exit_code != 0
    assert "versioning" in started.output and bucket in started.output

    tenant = tenant_of(app)
    write_events(app, tenant.client_id, 3)
    seal(app, tenant.client_id)
    report = export(app, tenant.client_id)
    assert report.exported == [] and "versioning" in report.failed[1]
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0
    anchor = summary(app, tenant)["anchor"]
    assert anchor["failed"] == 1
    [failure] = anchor["failed_exports"]
    assert failure["checkpoint_id"] == 1 and failure["export_attempts"] == 1
    assert "VAULT_LEDGER_REQUIRE_BUCKET_VERSIONING" in failure["export_error"]

    # The operator turns versioning on; the next export tick retries and succeeds.
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    from jobs.ledger import export_tick

    assert export_tick() == {tenant.client_id: {"exported": 1, "failed": []}}
    [record] = records(app, tenant)
    assert record["export_status"] == "exported"
    anchor = summary(app, tenant)["anchor"]
    assert anchor["failed"] == 0 and anchor["failed_exports"] == []


def test_versioning_is_not_required_when_switched_off(s3, s3_app_factory):
    bucket = new_bucket(s3, versioned=False)
    app = s3_app_factory(anchor_bucket=bucket, require_bucket_versioning=False)
    assert bootstrap_cli(app).exit_code == 0
    tenant = tenant_of(app)
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    assert export(app, tenant.client_id).exported == [1]
    assert records(app, tenant)[0]["export_uri"].startswith(f"s3://{bucket}/{PREFIX}/")


def test_object_lock_is_required_when_asked_and_objects_are_retained(s3, s3_app_factory):
    plain = new_bucket(s3)
    app = s3_app_factory(anchor_bucket=plain, require_object_lock=True)
    refused = bootstrap_cli(app)
    assert refused.exit_code != 0 and "object lock" in refused.output

    locked = new_bucket(s3, object_lock=True)
    app = s3_app_factory(anchor_bucket=locked, require_object_lock=True)
    assert bootstrap_cli(app).exit_code == 0
    tenant = tenant_of(app)
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    assert export(app, tenant.client_id).exported == [1]
    key = f"{PREFIX}/{tenant.client_id}/checkpoints/{1:020d}.json"
    head = s3.head_object(Bucket=locked, Key=key)  # moto answers GetObjectRetention with 500
    assert head["ObjectLockMode"] == "GOVERNANCE" and head["ObjectLockRetainUntilDate"]


def test_bucket_template_gives_each_tenant_its_bucket(s3, s3_app_factory):
    app = s3_app_factory(anchor_bucket_template="anchors-{client_id}")
    tenant = tenant_of(app)
    bucket = "anchors-" + tenant.client_id.lower().replace("_", "-")
    assert bootstrap_cli(app).exit_code != 0  # the tenant's bucket does not exist yet
    new_bucket(s3, name=bucket)
    assert bootstrap_cli(app).exit_code == 0
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    assert export(app, tenant.client_id).exported == [1]
    [record] = records(app, tenant)
    assert record["export_target"] == (
        f"s3://{bucket}/{PREFIX}/{tenant.client_id}/checkpoints/{1:020d}.json"
    )


def test_an_anchor_object_is_never_overwritten(s3, s3_app_factory):
    bucket = new_bucket(s3)
    app = s3_app_factory(anchor_bucket=bucket)
    tenant = tenant_of(app)
    key = f"{PREFIX}/{tenant.client_id}/checkpoints/{1:020d}.json"
    s3.put_object(Bucket=bucket, Key=key, Body=b'{"forged": true}')
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    report = export(app, tenant.client_id)
    assert "already holds a different checkpoint" in report.failed[1]
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b'{"forged": true}'
    assert summary(app, tenant)["anchor"]["failed"] == 1


def test_an_unreachable_store_fails_visibly_and_is_retried(s3_app_factory):
    import socket

    with socket.socket() as probe:  # a loopback port with nothing listening
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    app = s3_app_factory(anchor_bucket="anchors-unreachable", anchor_endpoint_url=dead)
    tenant = tenant_of(app)
    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    first = export(app, tenant.client_id)
    assert "anchors-unreachable" in first.failed[1]
    second = export(app, tenant.client_id)
    assert 1 in second.failed
    [failure] = summary(app, tenant)["anchor"]["failed_exports"]
    assert failure["export_attempts"] == 2


# --- folder ------------------------------------------------------------------------------------


def test_folder_store_is_write_once(app, tenant, client):
    from webapp.runtime import vault
    from webapp.services import anchoring

    write_events(app, tenant.client_id, 2)
    seal(app, tenant.client_id)
    with app.app_context():
        path = Path(vault().config.anchor_dir) / anchoring.object_key(
            vault().config, tenant.client_id, 1
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    report = export(app, tenant.client_id)
    assert "already holds a different checkpoint" in report.failed[1]
    assert path.read_text() == "{}"
    path.unlink()
    assert export(app, tenant.client_id).exported == [1]
    anchored = json.loads(path.read_text())
    record = client.get("/ledger/checkpoints", headers=tenant.headers).get_json()["checkpoints"][0]
    assert anchored["checkpoint_hash"] == record["checkpoint_hash"]
    assert record["export_uri"] == path.as_uri() == record["export_target"]
