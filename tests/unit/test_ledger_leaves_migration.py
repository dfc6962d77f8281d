"""Migration 0006 on a ledger with data: leaf assignments and the tree move from
`ledger_events` / `merkle_nodes` into `ledger_leaves`, and the downgrade puts them back."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import bootstrap, make_config, make_tenant
from tests.ledger_support import seal, stored_tree, write_events

BEFORE = "0005_ledger_sealing"


@pytest.fixture
def fresh_app(workdir, redis_url):
    """An app on an empty database of its own, with migrations bound."""
    from webapp import create_app
    from webapp.cli import init_migrations
    from webapp.extensions import db

    base = os.environ.get("TEST_DATABASE_URL")
    admin, name = None, f"vault_leaves_{uuid.uuid4().hex[:10]}"
    if base:
        server, _, _ = base.rpartition("/")
        admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = f"{server}/{name}"
    else:
        url = f"sqlite:///{workdir / f'{name}.sqlite3'}"
    app = create_app(make_config(workdir, url, redis_url))
    init_migrations(app)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if admin is not None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def rows(app, statement: str, **params) -> list[tuple]:
    from webapp.extensions import db

    with app.app_context(), db.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(statement), params)]


def test_leaves_survive_a_downgrade_and_upgrade(fresh_app):
    from flask_migrate import downgrade, upgrade

    from webapp.services.verification import verify_ledger

    app = fresh_app
    with app.app_context():
        upgrade()
    bootstrap(app)
    client_id = make_tenant(app, "Migrating Bank").client_id
    write_events(app, client_id, 7)
    seal(app, client_id, batch_size=3)  # leaves 0..6 in checkpoints 1, 2, 3
    write_events(app, client_id, 2)  # waiting for sealing
    leaves = rows(
        app,
        "SELECT client_id, leaf_index, seq, checkpoint_id, hash, nodes FROM ledger_leaves "
        "ORDER BY leaf_index",
    )
    tree = stored_tree(app, client_id)
    assert [leaf[1] for leaf in leaves] == list(range(7))
    assert len(tree) == 7 + 3 + 1  # leaves, then the complete subtrees of 2 and of 4

    with app.app_context():
        downgrade(revision=BEFORE)
    # As 0005 kept them: on the events, and every node (leaves too) in merkle_nodes.
    events = rows(app, "SELECT seq, leaf_index, checkpoint_id FROM ledger_events ORDER BY seq")
    assert events[:7] == [(seq, index, checkpoint) for _, index, seq, checkpoint, _, _ in leaves]
    assert [(index, checkpoint) for _, index, checkpoint in events[7:]] == [(None, None)] * 2
    nodes = rows(app, "SELECT client_id, level, idx, hash FROM merkle_nodes")
    assert {(level, idx): bytes(value) for _, level, idx, value in nodes} == tree
    assert {node[0] for node in nodes} == {client_id}
    pending = rows(
        app,
        "SELECT count(*) FROM ledger_events WHERE client_id = :c AND leaf_index IS NULL",
        c=client_id,
    )
    assert pending == [(2,)]

    with app.app_context():
        upgrade()
    assert (
        rows(
            app,
            "SELECT client_id, leaf_index, seq, checkpoint_id, hash, nodes FROM ledger_leaves "
            "ORDER BY leaf_index",
        )
        == leaves
    )
    with app.app_context():
        assert verify_ledger(client_id)["intact"]
    assert seal(app, client_id, batch_size=3) == [4]
    with app.app_context():
        result = verify_ledger(client_id)
    assert result["intact"] and result["tree_size"] == 9
