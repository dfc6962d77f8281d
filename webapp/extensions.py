"""Extension objects, created unbound and bound to the app in ``create_app``."""

from __future__ import annotations

from flask_login import LoginManager
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData

# Stable constraint names keep Alembic migrations identical on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Rows stay readable after commit: services hand committed rows to serialisers, and a
# reload per attribute would double the queries of the decision path.
db = SQLAlchemy(
    metadata=MetaData(naming_convention=NAMING), session_options={"expire_on_commit": False}
)
login_manager = LoginManager()
csrf = CSRFProtect()
