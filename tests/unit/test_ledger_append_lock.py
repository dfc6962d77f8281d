"""An uncommitted ledger event keeps the tenant's sealer out until it commits, so leaves follow
seq order (on PostgreSQL through a shared advisory lock; SQLite has a single writer)."""

from __future__ import annotations

import sqlite3

from sqlalchemy import create_engine, text


def test_an_open_event_write_blocks_the_sealers_lock(app, tenant, database_url):
    from webapp.extensions import db
    from webapp.services.ledger import EventContent, append_event
    from webapp.services.sealing import seal_lock_key

    with app.app_context():
        append_event(
            tenant.client_id, EventContent(action_category="settings_changed", reason="probe")
        )
        db.session.flush()
        try:
            if db.engine.dialect.name == "postgresql":
                other = create_engine(database_url)
                with other.connect() as connection:
                    got = connection.execute(
                        text("SELECT pg_try_advisory_xact_lock(:k)"),
                        {"k": seal_lock_key(tenant.client_id)},
                    ).scalar()
                other.dispose()
                assert got is False
            else:
                path = database_url.removeprefix("sqlite:///")
                connection = sqlite3.connect(path, timeout=0.05)
                try:
                    connection.execute("BEGIN IMMEDIATE")
                    raise AssertionError(
                        "the sealer could take the write lock during an open event write"
                    )
                except sqlite3.OperationalError as error:
                    assert "locked" in str(error)
                finally:
                    connection.close()
        finally:
            db.session.rollback()
