"""SQLite writers queue for their turn (webapp.sqlite_writers): taken at the first write, given
back at commit or rollback, exclusive across threads and processes, bounded by the timeout."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from webapp import sqlite_writers


def _connect(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    connection = sqlite3.connect(str(path), **sqlite_writers.connect_args(str(path), timeout))
    connection.execute("PRAGMA journal_mode=WAL")
    return connection


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "queue.sqlite3"
    with _connect(path) as connection:
        connection.execute("CREATE TABLE t (n INTEGER)")
    return path


def _turns(connection: sqlite3.Connection) -> sqlite_writers.WriterTurns:
    return connection.turns  # type: ignore[attr-defined]


def test_the_first_write_takes_the_turn_and_commit_gives_it_back(database: Path) -> None:
    connection = _connect(database)
    connection.execute("SELECT count(*) FROM t").fetchone()
    assert _turns(connection)._owner is None  # a read never queues
    connection.cursor().execute("INSERT INTO t VALUES (1)")
    assert _turns(connection)._owner == threading.get_ident()
    connection.commit()
    assert _turns(connection)._owner is None
    connection.execute("  update t SET n = 2")
    connection.rollback()
    assert _turns(connection)._owner is None
    assert connection.execute("SELECT n FROM t").fetchall() == [(1,)]


def test_a_second_writer_waits_for_the_commit_then_writes(database: Path) -> None:
    first = _connect(database)
    first.execute("INSERT INTO t VALUES (1)")
    written = threading.Event()

    def second_writer() -> None:
        connection = _connect(database)
        connection.execute("INSERT INTO t VALUES (2)")
        connection.commit()
        written.set()

    thread = threading.Thread(target=second_writer)
    thread.start()
    assert not written.wait(0.1)  # still queued behind the open transaction
    first.commit()
    thread.join(10)
    assert written.is_set()
    assert sorted(first.execute("SELECT n FROM t").fetchall()) == [(1,), (2,)]


def test_another_process_holding_the_turn_makes_a_writer_fail_after_the_timeout(
    database: Path,
) -> None:
    holder = os.open(f"{database}.writers", os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        connection = _connect(database, timeout=0.2)
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            connection.execute("INSERT INTO t VALUES (1)")
        assert _turns(connection)._owner is None  # the thread lock was given back too
    finally:
        os.close(holder)
    connection.execute("INSERT INTO t VALUES (1)")
    connection.commit()


def _write_in_child(path: str, result: multiprocessing.Queue) -> None:
    connection = _connect(Path(path), timeout=0.3)
    try:
        connection.execute("INSERT INTO t VALUES (9)")
        connection.commit()
        result.put("written")
    except sqlite3.OperationalError as error:
        result.put(str(error))


def test_a_forked_worker_queues_behind_its_parent(database: Path) -> None:
    parent = _connect(database)
    parent.execute("INSERT INTO t VALUES (1)")  # the parent holds the turn
    context = multiprocessing.get_context("fork")
    result = context.Queue()
    child = context.Process(target=_write_in_child, args=(str(database), result))
    child.start()
    child.join(30)
    assert result.get(timeout=5) == "database is locked"
    parent.commit()
    child = context.Process(target=_write_in_child, args=(str(database), result))
    child.start()
    child.join(30)
    assert result.get(timeout=5) == "written"


def test_a_second_connection_of_the_holding_thread_meets_sqlite_not_a_deadlock(
    database: Path,
) -> None:
    first = _connect(database)
    first.execute("INSERT INTO t VALUES (1)")
    second = _connect(database, timeout=0.1)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        second.execute("INSERT INTO t VALUES (2)")  # SQLite's own busy timeout answers
    second.rollback()
    assert _turns(first)._owner == threading.get_ident()
    first.commit()
    assert _turns(first)._owner is None


def test_the_wal_is_checkpointed_after_the_turn_every_so_many_writing_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_writers, "CHECKPOINT_EVERY", 3)
    path = tmp_path / "wal.sqlite3"
    connection = sqlite3.connect(str(path), **sqlite_writers.connect_args(str(path), 5.0))
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute("CREATE TABLE blobs (b BLOB)")
    connection.commit()
    _turns(connection)._commits = 0
    main_file_sizes = []
    for _ in range(3):
        connection.execute("INSERT INTO blobs VALUES (?)", (os.urandom(200_000),))
        connection.commit()
        main_file_sizes.append(path.stat().st_size)
    # The pages stay in the WAL until the third writing commit checkpoints them into the file.
    assert main_file_sizes[0] == main_file_sizes[1] < 100_000
    assert main_file_sizes[2] > 600_000
    connection.execute("SELECT count(*) FROM blobs").fetchone()
    connection.commit()  # a commit that wrote nothing does not count
    assert _turns(connection)._commits == 3


def test_begin_immediate_queues_like_a_write(database: Path) -> None:
    """Ledger sealing opens its transaction with BEGIN IMMEDIATE, which takes SQLite's write
    lock at once: it must hold the turn too, or a writer holding the turn would wait on SQLite
    while the sealer waits on the turn."""
    sealer = _connect(database)
    sealer.isolation_level = None  # the statement opens the transaction itself
    sealer.execute("begin  immediate")
    assert _turns(sealer)._owner == threading.get_ident()
    sealer.execute("INSERT INTO t VALUES (1)")
    sealer.execute("COMMIT")
    sealer.commit()  # what SQLAlchemy calls at the end; gives the turn back
    assert _turns(sealer)._owner is None
    reader = _connect(database)
    reader.isolation_level = None
    reader.execute("BEGIN")  # a deferred BEGIN reads until it writes
    assert _turns(reader)._owner is None
    reader.execute("ROLLBACK")
