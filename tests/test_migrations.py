"""Migrations: one head, upgrade from an empty database, downgrade by one step and back."""

from __future__ import annotations

import os
import uuid

import pytest
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import create_engine, inspect, text

from tests.conftest import make_config


def test_single_head(app):
    from webapp.cli import init_migrations

    init_migrations(app)
    config = app.extensions["migrate"].migrate.get_config(
        directory=app.extensions["migrate"].directory
    )
    assert len(ScriptDirectory.from_config(config).get_heads()) == 1


@pytest.fixture
def empty_database_url(workdir):
    base = os.environ.get("TEST_DATABASE_URL")
    if not base:
        yield f"sqlite:///{workdir / f'empty-{uuid.uuid4().hex}.sqlite3'}"
        return
    name = f"vault_migr_{uuid.uuid4().hex[:10]}"
    server, _, _ = base.rpartition("/")
    admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield f"{server}/{name}"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def test_upgrade_from_empty_then_downgrade_one_step_and_back(
    workdir, redis_url, empty_database_url
):
    from webapp import create_app
    from webapp.cli import init_migrations
    from webapp.extensions import db

    app = create_app(make_config(workdir, empty_database_url, redis_url))
    init_migrations(app)
    with app.app_context():
        upgrade()
        tables = set(inspect(db.engine).get_table_names())
        assert {"tenants", "api_keys", "users", "clearance_requests", "ledger_events"} <= tables
        expected = {t.name for t in db.metadata.sorted_tables}
        assert expected <= tables, "models and migrations disagree"
        schema = _schema(db.engine)
        downgrade(revision="-1")
        # A step down may remove tables or columns or, where a revision replaced one, bring
        # the old back.
        assert _schema(db.engine) != schema, "the last revision's downgrade changed nothing"
        upgrade()
        assert _schema(db.engine) == schema
        db.engine.dispose()


def _schema(engine) -> dict[str, set[str]]:  # noqa: ANN001
    inspector = inspect(engine)
    return {
        table: {column["name"] for column in inspector.get_columns(table)}
        for table in inspector.get_table_names()
    }


def test_web_processes_do_not_load_alembic(app):
    import subprocess
    import sys

    code = (
        "import sys; from webapp import create_app; create_app(); print('alembic' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, "VAULT_INSTANCE_PATH": str(app.instance_path)},
    )
    assert result.stdout.strip().splitlines()[-1] == "False", result.stderr


def test_models_and_migrations_agree(app):
    """Autogenerate finds nothing to do: every model change has its revision."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from webapp.extensions import db

    with app.app_context(), db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, db.metadata)
    assert differences == []
