"""The stored Merkle tree of each tenant: complete-subtree hashes keyed by (level, index).

Every reader names the nodes it needs up front (the core's `nodes_needed_for_*`) and fetches
them in one query, so a proof costs O(log n) row reads whatever the size of the tree.

The queries are a UNION ALL of primary-key lookups (or primary-key ranges). An OR of
`(level = ? AND idx = ?)` terms, or a row-value IN, reads the same rows, but SQLite's planner
then uses only the key's `client_id` prefix and scans the tenant's whole tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from sqlalchemy import Connection, TextClause, text

from webapp.ledger import merkle
from webapp.models import MerkleNode

NODES = MerkleNode.__table__


class MissingNode(LookupError):
    """A node the tree should hold is not stored (the node table was altered or truncated)."""


def read_nodes(
    connection: Connection, client_id: str, wanted: Iterable[merkle.NodeKey]
) -> dict[merkle.NodeKey, bytes]:
    """The stored hashes of the wanted nodes, in one query; absent nodes are simply missing."""
    keys = sorted(set(wanted))
    if not keys:
        return {}
    params: dict[str, object] = {"client_id": client_id}
    for number, (level, idx) in enumerate(keys):
        params[f"l{number}"] = level
        params[f"i{number}"] = idx
    rows = connection.execute(_point_lookups(len(keys)), params)
    return {(level, idx): bytes(value) for level, idx, value in rows}


def read_node_ranges(
    connection: Connection, client_id: str, ranges: dict[int, tuple[int, int]]
) -> dict[merkle.NodeKey, bytes]:
    """Every stored node with `low <= idx <= high` at each given level, in one query."""
    if not ranges:
        return {}
    params: dict[str, object] = {"client_id": client_id}
    for number, (level, (low, high)) in enumerate(sorted(ranges.items())):
        params[f"l{number}"], params[f"a{number}"], params[f"b{number}"] = level, low, high
    rows = connection.execute(_range_lookups(len(ranges)), params)
    return {(level, idx): bytes(value) for level, idx, value in rows}


def insert_nodes(
    connection: Connection, client_id: str, nodes: list[tuple[int, int, bytes]]
) -> None:
    """Store new nodes in bulk, straight through the driver (COPY on PostgreSQL)."""
    if not nodes:
        return
    if connection.dialect.name == "postgresql":
        cursor = connection.connection.driver_connection.cursor()
        with cursor.copy("COPY merkle_nodes (client_id, level, idx, hash) FROM STDIN") as copy:
            for level, idx, value in nodes:
                copy.write_row((client_id, level, idx, value))
        return
    connection.exec_driver_sql(
        "INSERT INTO merkle_nodes (client_id, level, idx, hash) VALUES (?, ?, ?, ?)",
        [(client_id, level, idx, value) for level, idx, value in nodes],
    )


def node_reader(nodes: dict[merkle.NodeKey, bytes]) -> merkle.GetNode:
    """A `get_node` for the core that raises MissingNode instead of a bare KeyError."""

    def get(level: int, index: int) -> bytes:
        try:
            return nodes[(level, index)]
        except KeyError:
            raise MissingNode(f"tree node (level {level}, index {index}) is not stored") from None

    return get


@lru_cache(maxsize=256)
def _point_lookups(count: int) -> TextClause:
    return text(
        " UNION ALL ".join(
            "SELECT level, idx, hash FROM merkle_nodes "
            f"WHERE client_id = :client_id AND level = :l{n} AND idx = :i{n}"
            for n in range(count)
        )
    )


@lru_cache(maxsize=128)
def _range_lookups(count: int) -> TextClause:
    return text(
        " UNION ALL ".join(
            "SELECT level, idx, hash FROM merkle_nodes "
            f"WHERE client_id = :client_id AND level = :l{n} AND idx BETWEEN :a{n} AND :b{n}"
            for n in range(count)
        )
    )
