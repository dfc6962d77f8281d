"""``flask vault …`` commands used by ``make run`` and operators."""

from __future__ import annotations

import secrets
from pathlib import Path

import click
from flask import Flask, g
from flask.cli import AppGroup, ScriptInfo, with_appcontext
from sqlalchemy import select

from webapp.extensions import db
from webapp.models import Tenant
from webapp.services import anchoring, keys, tenants

vault_cli = AppGroup("vault", help="Clearance vault operations.")
MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def init_migrations(app: Flask) -> None:
    """Bind Flask-Migrate (Alembic) to the app; done only where migrations are run."""
    from flask_migrate import Migrate

    from webapp.extensions import db
    from webapp.models.base import render_migration_item

    Migrate(
        app,
        db,
        directory=str(MIGRATIONS),
        render_as_batch=True,
        compare_type=True,
        render_item=render_migration_item,
    )


class _MigrationCommands(click.Group):
    """``flask db …`` from Flask-Migrate, loaded when a db command runs: Alembic costs every
    web and worker process 11 MiB that they never use."""

    def _commands(self, ctx: click.Context) -> click.Group:
        from flask_migrate.cli import db as commands

        app = ctx.ensure_object(ScriptInfo).load_app()
        if "migrate" not in app.extensions:
            init_migrations(app)
        return commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._commands(ctx).list_commands(ctx)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self._commands(ctx).get_command(ctx, name)


@with_appcontext
def _migration_options(directory: str | None, x_arg: tuple[str, ...]) -> None:
    # What Flask-Migrate's own `db` group does before its subcommands run.
    g.directory = directory
    g.x_arg = x_arg


migration_cli = _MigrationCommands(
    "db",
    help="Database migrations (Flask-Migrate / Alembic).",
    callback=_migration_options,
    params=[
        click.Option(["-d", "--directory"], default=None, help="Migration script directory."),
        click.Option(["-x", "--x-arg"], multiple=True, help="Additional arguments for env.py."),
    ],
)


@vault_cli.command("bootstrap")
def bootstrap() -> None:
    """Register the signing key; on a first start, create a demo tenant and print its key once."""
    keys.ensure_active_key_registered()
    try:
        anchoring.check_anchor_store()  # e.g. refuse a bucket without versioning
    except anchoring.AnchorStoreRefused as error:
        raise click.ClickException(f"anchor store refused: {error}") from None
    if db.session.scalar(select(Tenant.client_id).limit(1)) is not None:
        return
    tenant, raw_key = tenants.create_tenant("Demo tenant")
    password = secrets.token_urlsafe(12)
    user = tenants.create_user(tenant.client_id, "owner@demo.example", password, "owner")
    click.echo(
        "\n".join(
            [
                "",
                "  First start: a demo tenant was created. These are shown only once.",
                f"    client_id        {tenant.client_id}",
                f"    API key          {raw_key}",
                f"    dashboard login  {user.email} / {password}",
                "",
            ]
        )
    )


@vault_cli.command("reindex")
def reindex() -> None:
    """Re-embed every policy chunk with the current EMBEDDING_MODEL (after changing it)."""
    from webapp.services import ingestion

    count = ingestion.reindex_stale_embeddings()
    click.echo(f"re-embedded {count} chunks")
