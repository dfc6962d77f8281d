"""Tamper evidence: each change to the stored ledger makes GET /ledger/verify name exactly the
broken `seq` or `checkpoint_id` and what is wrong with it, and nothing else."""

from __future__ import annotations

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
                text("SELECT seq FROM ledger_events WHERE client_id = :c ORDER BY leaf_index"),
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


def test_two_rows_swapped_in_seq_order(client, tenant, ledger, sql):
    # The rows keep their content and leaf; their order in the ledger (seq) is exchanged.
    a, b = ledger[3], ledger[4]
    sql("UPDATE ledger_events SET seq = -1 WHERE seq = :a", a=a)
    sql("UPDATE ledger_events SET seq = :a WHERE seq = :b", a=a, b=b)
    sql("UPDATE ledger_events SET seq = :b WHERE seq = -1", b=b)
    [error] = broken(client, tenant)
    assert error == {
        "seq": a,
        "problem": f"out of seq order: has leaf_index 4 but its seq is lower than seq {b} at "
        "leaf_index 3 (rows swapped or reordered)",
    }


def test_two_rows_swapped_in_the_tree(client, tenant, ledger, sql):
    # The rows keep their seq; their leaf positions are exchanged.
    a, b = ledger[1], ledger[2]
    sql("UPDATE ledger_events SET leaf_index = -1 WHERE seq = :a", a=a)
    sql("UPDATE ledger_events SET leaf_index = 1 WHERE seq = :b", b=b)
    sql("UPDATE ledger_events SET leaf_index = 2 WHERE seq = :a", a=a)
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


def test_a_stored_tree_node_changed(client, tenant, ledger, sql):
    sql(
        "UPDATE merkle_nodes SET hash = :h WHERE client_id = :c AND level = 1 AND idx = 3",
        h=b"\x00" * 32,
        c=tenant.client_id,
    )
    [error] = broken(client, tenant)
    assert error == {
        "checkpoint_id": 2,
        "problem": "stored tree node (level 1, index 3) differs from the recomputed tree: proofs "
        "read from it would not verify",
    }


def test_a_sealed_rows_checkpoint_id_cleared(client, tenant, ledger, sql):
    sql("UPDATE ledger_events SET checkpoint_id = NULL WHERE seq = :s", s=ledger[9])
    [error] = broken(client, tenant)
    assert error == {"seq": ledger[9], "problem": "has leaf_index 9 but no checkpoint_id"}
