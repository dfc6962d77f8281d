"""The stored Merkle tree of each tenant: every node, addressed by (level, index), in the
tenant's `ledger_leaves` rows.

A node is stored beside the leaf that completed it. Node (level, index) covers leaves
[index·2^level, (index+1)·2^level), so it is complete once leaf ((index + 1) << level) - 1 is in
the tree: level 0 is that row's `hash`, a level ≥ 1 is 32 bytes of that row's `nodes`, at offset
32·(level - 1). Leaf i completes one node per trailing 1 bit of i, all in the batch that
appends it, so sealing writes the whole tree with one row per event and never updates a row.

Every reader names the nodes it needs up front (the core's `nodes_needed_for_*`) and fetches
their rows in one query, so a proof costs O(log n) primary-key lookups whatever the size of the
tree. The query is a UNION ALL of primary-key lookups: an OR of terms reads the same rows, but
SQLite's planner then uses only the key's `client_id` prefix and scans the tenant's whole tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from sqlalchemy import Connection, TextClause, text

from webapp.ledger import merkle

HASH = merkle.HASH_SIZE


class MissingNode(LookupError):
    """A node the tree should hold is not stored (its leaf row was altered or removed)."""


def completing_leaf(level: int, index: int) -> int:
    """The leaf whose row stores node (level, index): the last leaf the node covers."""
    return ((index + 1) << level) - 1


def levels_completed(leaf_index: int) -> int:
    """How many nodes above level 0 leaf `leaf_index` completes: its trailing 1 bits."""
    following = leaf_index + 1
    return (following & -following).bit_length() - 1


def read_nodes(
    connection: Connection, client_id: str, wanted: Iterable[merkle.NodeKey]
) -> dict[merkle.NodeKey, bytes]:
    """The stored hashes of the wanted nodes, in one query; absent nodes are simply missing."""
    keys = set(wanted)
    if not keys:
        return {}
    leaves = sorted({completing_leaf(level, index) for level, index in keys})
    params: dict[str, object] = {"client_id": client_id}
    params.update({f"i{number}": leaf for number, leaf in enumerate(leaves)})
    rows = {
        leaf_index: (value, nodes)
        for leaf_index, value, nodes in connection.execute(_point_lookups(len(leaves)), params)
    }
    found = {}
    for level, index in keys:
        row = rows.get(completing_leaf(level, index))
        value = _node_in(row, level) if row is not None else None
        if value is not None:
            found[(level, index)] = value
    return found


def read_node_ranges(
    connection: Connection, client_id: str, ranges: dict[int, tuple[int, int]]
) -> dict[merkle.NodeKey, bytes]:
    """Every stored node with `low <= index <= high` at each given level, in one range read of
    the rows that store them."""
    if not ranges:
        return {}
    low = min(completing_leaf(level, first) for level, (first, _) in ranges.items())
    high = max(completing_leaf(level, last) for level, (_, last) in ranges.items())
    rows = connection.execute(_RANGE, {"client_id": client_id, "low": low, "high": high})
    found = {}
    for leaf_index, value, nodes in rows:
        for level in range(levels_completed(leaf_index) + 1):
            bounds = ranges.get(level)
            index = ((leaf_index + 1) >> level) - 1
            if bounds is None or not bounds[0] <= index <= bounds[1]:
                continue
            node = _node_in((value, nodes), level)
            if node is not None:
                found[(level, index)] = node
    return found


def insert_leaves(
    connection: Connection,
    client_id: str,
    checkpoint_id: int,
    first_index: int,
    seqs: list[int],
    new_nodes: list[tuple[int, int, bytes]],
) -> None:
    """Store the events `seqs` as leaves `first_index`, `first_index + 1`, … sealed by
    `checkpoint_id`, each row with the nodes it completes, in one bulk insert (binary COPY on
    PostgreSQL). `new_nodes` is every node the batch completes, leaves included (the core's
    `new_nodes_for_append`)."""
    if not seqs:
        return
    leaves: list[bytes | None] = [None] * len(seqs)
    above: list[list[bytes]] = [[] for _ in seqs]
    for level, index, value in new_nodes:  # in level order, so each row's list grows upwards
        position = completing_leaf(level, index) - first_index
        if not 0 <= position < len(seqs):
            raise ValueError(f"node ({level}, {index}) is not completed by leaves {first_index}…")
        if level == 0:
            leaves[position] = value
        else:
            above[position].append(value)
    rows = []
    for position, seq in enumerate(seqs):
        leaf_index = first_index + position
        if leaves[position] is None or len(above[position]) != levels_completed(leaf_index):
            raise ValueError(f"the batch does not hold every node leaf {leaf_index} completes")
        rows.append(
            (client_id, leaf_index, seq, checkpoint_id, leaves[position], b"".join(above[position]))
        )
    if connection.dialect.name == "postgresql":
        # Binary: the hashes go as raw bytes, not as hex text the server has to parse.
        with connection.connection.driver_connection.cursor() as cursor:
            with cursor.copy(_COPY) as copy:
                copy.set_types(["varchar", "int8", "int8", "int4", "bytea", "bytea"])
                for row in rows:
                    copy.write_row(row)
        return
    connection.exec_driver_sql(
        "INSERT INTO ledger_leaves (client_id, leaf_index, seq, checkpoint_id, hash, nodes) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )


def node_reader(nodes: dict[merkle.NodeKey, bytes]) -> merkle.GetNode:
    """A `get_node` for the core that raises MissingNode instead of a bare KeyError."""

    def get(level: int, index: int) -> bytes:
        try:
            return nodes[(level, index)]
        except KeyError:
            raise MissingNode(f"tree node (level {level}, index {index}) is not stored") from None

    return get


def _node_in(row: tuple[bytes | None, bytes | None], level: int) -> bytes | None:
    """Node `level` of a leaf row (0: the leaf itself), or None when it is not there whole."""
    value, nodes = row
    if level == 0:
        found = value
    else:
        found = nodes[HASH * (level - 1) : HASH * level] if nodes is not None else None
    return bytes(found) if found is not None and len(found) == HASH else None


_COPY = "COPY ledger_leaves (client_id, leaf_index, seq, checkpoint_id, hash, nodes) FROM STDIN "
_COPY += "(FORMAT BINARY)"
_ROW = "SELECT leaf_index, hash, nodes FROM ledger_leaves WHERE client_id = :client_id"
_RANGE = text(f"{_ROW} AND leaf_index BETWEEN :low AND :high")


@lru_cache(maxsize=256)
def _point_lookups(count: int) -> TextClause:
    return text(" UNION ALL ".join(f"{_ROW} AND leaf_index = :i{n}" for n in range(count)))
