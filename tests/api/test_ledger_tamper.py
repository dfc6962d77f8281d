"""Tamper evidence: each change to the stored ledger makes GET /ledger/verify name exactly the
broken `seq` or `checkpoint_id` and what is wrong with it, and nothing else.

An event's place in the tree is its row in `ledger_leaves` (leaf_index → seq, checkpoint_id);
the events themselves are never updated by sealing."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text

from tests.ledger_support import seal, write_events
from webapp.extensions import db

EVENTS, BATCH = 12, 4  # three checkpoints of four events


@pytest.fixture
def ledger(app, tenant, client):
    """A sealed ledger of 12 events in 3 checkpoints, verified intact; returns its seqs."""
    write_events(app, tenant.client_id, EVENTS)
    seal(app, tenant.client_id, batch_size=BATCH)
    assert verify(client, tenant)["intact"]
    with app.app_context():
        return [
            seq
            for (seq,) in db.session.execute(
                text("SELECT seq FROM ledger_leaves WHERE client_id = :c ORDER BY leaf_index"),
                {"c": tenant.client_id},
            )
        ]


def verify(client, tenant) -> dict:
    response = client.get("/ledger/verify", headers=tenant.headers)
    assert response.status_code == 200
    return response.get_json()


def broken(client, tenant) -> list[dict]:
    result = verify(client, tenant)
    assert result["intact"] is False
    summary = client.get("/ledger/verification-summary", headers=tenant.headers).get_json()
    assert summary["last_verification"]["intact"] is False
    return result["errors"]


def column(app, seq: int, name: str):
    with app.app_context():
        return db.session.execute(
            text(f"SELECT {name} FROM ledger_events WHERE seq = :s"), {"s": seq}
        ).scalar()


def brief(errors: list[dict]) -> list[tuple[int, str]]:
    """(seq or checkpoint_id, problem), with hashes written as <hash>."""
    return [
        (
            error.get("seq", error.get("checkpoint_id")),
            re.sub(r"[0-9a-f]{64}", "<hash>", error["problem"]),
        )
        for error in errors
    ]


def node_differs(level: int, index: int) -> str:
    return (
        f"stored tree node (level {level}, index {index}) differs from the recomputed tree: "
        "proofs read from it would not verify"
    )


def root_differs(size: int) -> str:
    return (
        f"root_hash <hash> is not the root of the {size} stored leaves (<hash>): the leaves it "
        "signed were changed, removed or reordered"
    )


def flip_byte(value: bytes, position: int) -> bytes:
    data = bytearray(value)
    data[position] ^= 0x01
    return bytes(data)


def test_one_byte_of_the_sealed_content_changed(app, client, tenant, ledger, sql):
    seq = ledger[5]
    sealed = bytes(column(app, seq, "sealed"))
    sql("UPDATE ledger_events SET sealed = :v WHERE seq = :s", v=flip_byte(sealed, 40), s=seq)
    [error] = broken(client, tenant)
    assert error["seq"] == seq
    assert error["problem"].startswith("sealed content cannot be opened")
    assert "altered" in error["problem"]


def test_one_byte_of_a_clear_field_changed(app, client, tenant, ledger, sql):
    seq = ledger[2]
    name = column(app, seq, "tool_name")
    sql("UPDATE ledger_events SET tool_name = :v WHERE seq = :s", v="X" + name[1:], s=seq)
    [error] = broken(client, tenant)
    assert error["seq"] == seq
    assert "event_hash recomputed from the stored content" in error["problem"]
    assert "altered after it was written" in error["problem"]


def test_one_byte_of_the_receipt_signature_changed(app, client, tenant, ledger, sql):
    seq = ledger[7]
    signature = bytes(column(app, seq, "receipt_signature"))
    sql(
        "UPDATE ledger_events SET receipt_signature = :v WHERE seq = :s",
        v=flip_byte(signature, 3),
        s=seq,
    )
    [error] = broken(client, tenant)
    assert error == {
        "seq": seq,
        "problem": "receipt signature does not verify with key vault-key-001",
    }


def test_a_sealed_row_deleted(client, tenant, ledger, sql):
    sql("DELETE FROM ledger_events WHERE seq = :s", s=ledger[6])
    [error] = broken(client, tenant)
    assert error["checkpoint_id"] == 2
    assert error["problem"] == (
        f"leaf_index 6 (sealed by this checkpoint) has no event after seq {ledger[5]} before seq "
        f"{ledger[7]}: a sealed event was deleted"
    )


def test_the_last_sealed_row_deleted(client, tenant, ledger, sql):
    sql("DELETE FROM ledger_events WHERE seq = :s", s=ledger[-1])
    [error] = broken(client, tenant)
    assert error["checkpoint_id"] == 3
    assert error["problem"].startswith("leaf_index 11 (sealed by this checkpoint) has no event")


def swap_seq(sql, table: str, a: int, b: int) -> None:
    sql(f"UPDATE {table} SET seq = -1 WHERE seq = :a", a=a)
    sql(f"UPDATE {table} SET seq = :a WHERE seq = :b", a=a, b=b)
    sql(f"UPDATE {table} SET seq = :b WHERE seq = -1", b=b)


def test_two_rows_swapped_in_seq_order(client, tenant, ledger, sql):
    # The rows keep their content and leaf; their order in the ledger (seq) is exchanged, and
    # their leaf rows follow them (leaf 3 now names seq b, leaf 4 seq a).
    a, b = ledger[3], ledger[4]
    swap_seq(sql, "ledger_events", a, b)
    swap_seq(sql, "ledger_leaves", a, b)
    [error] = broken(client, tenant)
    assert error == {
        "seq": a,
        "problem": f"out of seq order: has leaf_index 4 but its seq is lower than seq {b} at "
        "leaf_index 3 (rows swapped or reordered)",
    }


def test_two_rows_seqs_swapped_without_their_leaves(client, tenant, ledger, sql):
    # The events exchange seq but the leaf rows stay: each leaf now names the other content.
    a, b = ledger[3], ledger[4]
    swap_seq(sql, "ledger_events", a, b)
    errors = broken(client, tenant)
    assert [(e["seq"], e["problem"].split(" (")[0]) for e in errors] == [
        (a, "leaf_hash is not leaf 3 of the sealed tree"),
        (b, "leaf_hash is not leaf 4 of the sealed tree"),
    ]


def test_two_rows_swapped_in_the_tree(client, tenant, ledger, sql):
    # The rows keep their seq; their leaf positions are exchanged (leaf 1 now names seq b, leaf
    # 2 seq a), while the stored tree stays as it was signed.
    a, b = ledger[1], ledger[2]
    swap_seq(sql, "ledger_leaves", a, b)
    errors = broken(client, tenant)
    assert [(e["seq"], e["problem"].split(" (")[0]) for e in errors] == [
        (
            a,
            "out of seq order: has leaf_index 2 but its seq is lower than seq "
            + f"{b} at leaf_index 1",
        ),
        (a, "leaf_hash is not leaf 2 of the sealed tree"),
        (b, "leaf_hash is not leaf 1 of the sealed tree"),
    ]
    assert errors[1]["problem"].endswith("moved to another leaf_index, after it was sealed")


def test_a_checkpoint_signature_replaced(app, client, tenant, ledger, sql):
    from nacl.signing import SigningKey

    with app.app_context():
        payload = db.session.execute(
            text("SELECT payload FROM checkpoints WHERE client_id = :c AND checkpoint_id = 2"),
            {"c": tenant.client_id},
        ).scalar()
    forged = SigningKey.generate().sign(bytes(payload)).signature  # valid, by the wrong key
    sql(
        "UPDATE checkpoints SET signature = :v WHERE client_id = :c AND checkpoint_id = 2",
        v=forged,
        c=tenant.client_id,
    )
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 2,
        "problem": "checkpoint signature does not verify with key vault-key-001",
    }


def test_a_checkpoint_removed_from_the_chain(app, client, tenant, ledger, sql):
    with app.app_context():
        link = db.session.execute(
            text(
                "SELECT prev_checkpoint_hash FROM checkpoints WHERE client_id = :c AND checkpoint_id = 3"
            ),
            {"c": tenant.client_id},
        ).scalar()
    sql("DELETE FROM checkpoints WHERE client_id = :c AND checkpoint_id = 2", c=tenant.client_id)
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 2,
        "problem": f"missing from the chain: checkpoint 3 follows checkpoint 1 and links to {link}, "
        "which no stored checkpoint has",
    }


def test_the_latest_checkpoint_removed(client, tenant, ledger, sql):
    sql("DELETE FROM checkpoints WHERE client_id = :c AND checkpoint_id = 3", c=tenant.client_id)
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 3,
        "problem": f"missing: 4 event(s) (seq {ledger[8]}..{ledger[11]}) were sealed by it but it "
        "is not stored; the chain ends at checkpoint 2",
    }


def test_a_checkpoint_root_changed(client, tenant, ledger, sql):
    sql(
        "UPDATE checkpoints SET root_hash = :r WHERE client_id = :c AND checkpoint_id = 1",
        r="0" * 64,
        c=tenant.client_id,
    )
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 1,
        "problem": "stored root_hash differs from the signed payload",
    }


def test_a_stored_tree_node_changed(app, client, tenant, ledger, sql):
    # Node (level 1, index 3) ends at leaf 7: it is the first 32 bytes of that row's nodes.
    nodes = bytes(
        sql(
            "SELECT nodes FROM ledger_leaves WHERE client_id = :c AND leaf_index = 7",
            c=tenant.client_id,
        ).scalar()
    )
    sql(
        "UPDATE ledger_leaves SET nodes = :n WHERE client_id = :c AND leaf_index = 7",
        n=b"\x00" * 32 + nodes[32:],
        c=tenant.client_id,
    )
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 2,
        "problem": "stored tree node (level 1, index 3) differs from the recomputed tree: proofs "
        "read from it would not verify",
    }


def test_stored_tree_nodes_cut_off(client, tenant, ledger, sql):
    # Leaf 11 completes nodes (1, 5) and (2, 2); the row loses the second.
    sql(
        "UPDATE ledger_leaves SET nodes = substr(nodes, 1, 32) "
        "WHERE client_id = :c AND leaf_index = 11",
        c=tenant.client_id,
    )
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 3,
        "problem": "stored tree node (level 2, index 2) is not stored: proofs read from it "
        "would not verify",
    }


def test_two_leaf_rows_exchanged_whole(client, tenant, ledger, sql):
    # Leaf rows 1 and 2 trade places with what they store: each event matches its leaf, but the
    # order breaks and the tree is no longer the one the checkpoints signed.
    a, b = ledger[1], ledger[2]
    sql("UPDATE ledger_leaves SET leaf_index = -1 WHERE seq = :a", a=a)
    sql("UPDATE ledger_leaves SET leaf_index = 1 WHERE seq = :b", b=b)
    sql("UPDATE ledger_leaves SET leaf_index = 2 WHERE seq = :a", a=a)
    assert brief(broken(client, tenant)) == [
        # Leaf 1 completed node (1, 0) and stored it; row 2, now at index 1, has no such node.
        (
            1,
            "stored tree node (level 1, index 0) is not stored: proofs read from it would not "
            "verify",
        ),
        (1, node_differs(1, 1)),
        (1, node_differs(2, 0)),
        (1, root_differs(4)),
        (2, node_differs(3, 0)),
        (2, root_differs(8)),
        (3, root_differs(12)),
        (
            a,
            f"out of seq order: has leaf_index 2 but its seq is lower than seq {b} at leaf_index 1 "
            "(rows swapped or reordered)",
        ),
    ]


def test_a_stored_leaf_changed(client, tenant, ledger, sql):
    # The tree's level 0 is ledger_leaves.hash: the event no longer matches its leaf, and the
    # nodes and roots above the changed leaf no longer match the tree the checkpoints signed.
    sql(
        "UPDATE ledger_leaves SET hash = :h WHERE client_id = :c AND leaf_index = 5",
        h=b"\x00" * 32,
        c=tenant.client_id,
    )
    assert brief(broken(client, tenant)) == [
        (2, node_differs(1, 2)),
        (2, node_differs(2, 1)),
        (2, node_differs(3, 0)),
        (2, root_differs(8)),
        (3, root_differs(12)),
        (
            ledger[5],
            "leaf_hash is not leaf 5 of the sealed tree (<hash>): the row was changed, or moved "
            "to another leaf_index, after it was sealed",
        ),
    ]


def test_a_sealed_rows_checkpoint_id_cleared(client, tenant, ledger, sql):
    sql("UPDATE ledger_leaves SET checkpoint_id = NULL WHERE seq = :s", s=ledger[9])
    [error] = broken(client, tenant)
    assert error == {"seq": ledger[9], "problem": "has leaf_index 9 but no checkpoint_id"}


def test_a_sealed_rows_checkpoint_id_changed(client, tenant, ledger, sql):
    sql("UPDATE ledger_leaves SET checkpoint_id = 1 WHERE seq = :s", s=ledger[9])
    [error] = broken(client, tenant)
    assert error == {
        "seq": ledger[9],
        "problem": "checkpoint_id 1 does not match: leaf_index 9 was first covered by checkpoint 3",
    }


@pytest.mark.parametrize(
    ("index", "checkpoint_id", "lost_nodes"),
    [(0, 1, []), (9, 3, [(1, 4)]), (11, 3, [(1, 5), (2, 2)])],
)
def test_a_sealed_rows_leaf_row_deleted(
    client, tenant, ledger, sql, index, checkpoint_id, lost_nodes
):
    # The event stays; the record of its place in the tree goes, with the nodes stored beside
    # it (the subtrees that leaf completed).
    sql("DELETE FROM ledger_leaves WHERE seq = :s", s=ledger[index])
    assert broken(client, tenant) == [
        {
            "checkpoint_id": checkpoint_id,
            "problem": f"stored tree node (level {level}, index {node}) is not stored: proofs "
            "read from it would not verify",
        }
        for level, node in lost_nodes
    ] + [
        {
            "seq": ledger[index],
            "problem": f"has no leaf row, yet it is leaf_index {index} of the sealed tree "
            f"(checkpoint {checkpoint_id}): its row in ledger_leaves was removed",
        }
    ]


def test_a_sealed_row_and_its_leaf_row_deleted(client, tenant, ledger, sql):
    sql("DELETE FROM ledger_events WHERE seq = :s", s=ledger[6])
    sql("DELETE FROM ledger_leaves WHERE seq = :s", s=ledger[6])
    [error] = broken(client, tenant)
    assert error["checkpoint_id"] == 2
    assert error["problem"] == (
        f"leaf_index 6 (sealed by this checkpoint) has no event after seq {ledger[5]} before seq "
        f"{ledger[7]}: a sealed event was deleted"
    )


def test_an_event_below_the_sealed_mark_without_a_leaf(app, client, tenant, ledger, sql):
    # An event that appears below the sealed high-water mark (as a writer that bypassed the seal
    # lock would leave it) is never sealed: verify names it.
    [late] = write_events(app, tenant.client_id, 1)
    sql("UPDATE ledger_events SET seq = -1 WHERE event_uuid = :u", u=late)
    [error] = broken(client, tenant)
    assert error == {
        "seq": -1,
        "problem": f"has no leaf, yet later events are sealed (up to seq {ledger[-1]}): its leaf "
        "row was removed, or sealing skipped it",
    }


def test_a_leaf_row_removed_and_its_events_leaf_hash_changed(client, tenant, ledger, sql):
    # The leaf row goes and the event's leaf_hash is changed: the event is still named in its
    # place, and the tree above it reports the leaf that no longer matches what was signed.
    seq = ledger[4]
    sql("DELETE FROM ledger_leaves WHERE seq = :s", s=seq)
    sql("UPDATE ledger_events SET leaf_hash = :h WHERE seq = :s", h="0" * 64, s=seq)
    assert brief(broken(client, tenant)) == [
        (2, node_differs(1, 2)),
        (2, node_differs(2, 1)),
        (2, node_differs(3, 0)),
        (2, root_differs(8)),
        (3, root_differs(12)),
        (seq, "leaf_hash is not SHA-256(0x00 || event_hash) (<hash>)"),
        (seq, "receipt payload does not bind this event's stored fields"),
        (
            seq,
            "has no leaf row, yet it is leaf_index 4 of the sealed tree (checkpoint 2): its row "
            "in ledger_leaves was removed",
        ),
    ]
