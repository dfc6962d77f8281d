"""SQLite writers wait their turn on a lock that wakes them at once.

SQLite lets one connection write at a time. A writer that finds the database locked sleeps in
SQLite's busy handler for 1, 2, 5 … then 25, 50 and 100 ms before it looks again, however soon
the lock was released, so under concurrent approvals most of the time went to writers asleep
beside an unlocked database (a p99 of several hundred ms at 16 connections, and throughput
falling as connections were added).

Every connection made with this module's ``connect_args`` takes a write turn before the first
statement that writes (the statement that makes SQLite take its RESERVED lock) and gives it
back right after its commit or rollback: a thread lock, so the threads of one process queue
and are woken by the kernel; then an exclusive ``flock`` on a file beside the database, held
by one process at a time. Waiting for the file lock polls in steps of at most 1 ms, and both
waits give up after the connection's busy timeout with the same ``database is locked`` error
SQLite would raise, so a stuck writer still fails its waiters rather than hanging them.
Readers never take a turn: WAL lets them read beside the writer.

The WAL is checkpointed by the committing connection after it gave its turn back, every
``CHECKPOINT_EVERY`` writing commits of the process, rather than by SQLite inside the commit,
where the copy of the pages and the fsync held up every writer queued behind it.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import threading
import time

__all__ = ["WriterTurns", "connect_args"]

# A statement that makes SQLite take its write lock: the DML statements (the driver opens the
# transaction before them), and an explicit BEGIN IMMEDIATE or EXCLUSIVE (ledger sealing), which
# takes it at once and so must queue like any writer, or it could hold SQLite's lock while
# waiting for the turn that a writer blocked on that lock holds.
_WRITES = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|BEGIN\s+(IMMEDIATE|EXCLUSIVE))\b", re.I)
_POLL_FIRST = 0.0001
_POLL_MAX = 0.001
# SQLite's own automatic checkpoint comes every 1,000 WAL pages, about 250 decisions; this is
# the same order, counted per process.
CHECKPOINT_EVERY = 200
_REGISTRY: dict[tuple[int, str | None], WriterTurns] = {}
_REGISTRY_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    # A fork taken while another thread held the registry's lock must not leave the child stuck.
    global _REGISTRY_LOCK
    _REGISTRY_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


class WriterTurns:
    """One process's place in the queue of writers of one SQLite database file."""

    def __init__(self, lock_path: str | None) -> None:
        self._threads = threading.Lock()
        self._owner: int | None = None
        self._held = 0
        self._commits = 0
        self._fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600) if lock_path else None

    @classmethod
    def of(cls, lock_path: str | None) -> WriterTurns:
        """This process's turns for that file: one per process (a forked child, such as a
        gunicorn worker, gets its own file description, or flock would not tell them apart)."""
        key = (os.getpid(), lock_path)
        with _REGISTRY_LOCK:
            turns = _REGISTRY.get(key)
            if turns is None:
                turns = _REGISTRY[key] = cls(lock_path)
            return turns

    def take(self, timeout: float) -> None:
        me = threading.get_ident()
        if self._owner == me:
            # A second connection of the thread that has the turn: it meets SQLite's own lock
            # and busy timeout, exactly as it would without the queue, instead of waiting for
            # a turn its own thread holds.
            self._held += 1
            return
        deadline = time.monotonic() + timeout
        if not self._threads.acquire(timeout=timeout):
            raise sqlite3.OperationalError("database is locked")
        delay = _POLL_FIRST
        while self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    self._threads.release()
                    raise sqlite3.OperationalError("database is locked") from None
                time.sleep(delay)
                delay = min(delay * 2, _POLL_MAX)
        self._owner, self._held = me, 1

    def checkpoint_due(self) -> bool:
        """Every CHECKPOINT_EVERY commits that wrote, in this process (approximate under
        threads, which is all a checkpoint's cadence needs)."""
        self._commits += 1
        return self._commits % CHECKPOINT_EVERY == 0

    def give_back(self) -> None:
        self._held -= 1
        if self._held:
            return
        self._owner = None
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._threads.release()


class _Cursor(sqlite3.Cursor):
    def execute(self, sql, parameters=(), /):  # noqa: ANN001, ANN201 - the DBAPI signature
        self.connection.take_turn_for(sql)
        return super().execute(sql, parameters)

    def executemany(self, sql, seq_of_parameters, /):  # noqa: ANN001, ANN201
        self.connection.take_turn_for(sql)
        return super().executemany(sql, seq_of_parameters)


class _Connection(sqlite3.Connection):
    lock_path: str | None = None

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.turns = WriterTurns.of(self.lock_path)
        self.busy_timeout = float(kwargs.get("timeout", 5.0))
        self._has_turn = False

    def take_turn_for(self, sql: str) -> None:
        if not self._has_turn and _WRITES.match(sql):
            self.turns.take(self.busy_timeout)
            self._has_turn = True

    def cursor(self, factory=_Cursor):  # noqa: ANN001, ANN201
        return super().cursor(factory)

    def execute(self, sql, parameters=(), /):  # noqa: ANN001, ANN201
        self.take_turn_for(sql)
        return super().execute(sql, parameters)

    def commit(self) -> None:
        wrote = self._has_turn
        try:
            super().commit()
        finally:
            self._give_back()
        if wrote and self.turns.checkpoint_due():
            self._checkpoint()

    def _checkpoint(self) -> None:
        # Outside the turn: SQLite's automatic checkpoint (off, see webapp._enable_sqlite_pragmas)
        # ran inside a COMMIT, so every queued writer waited for its page copies and fsync.
        try:
            super().execute("PRAGMA wal_checkpoint(PASSIVE)").close()
        except sqlite3.Error:
            pass  # a busy or failed checkpoint is retried with the next one

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._give_back()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._give_back()

    def _give_back(self) -> None:
        if self._has_turn:
            self._has_turn = False
            self.turns.give_back()


def connect_args(database_path: str | None, timeout: float) -> dict:
    """``connect_args`` for SQLAlchemy's pysqlite dialect: connections that queue to write.

    ``database_path`` is the database file (``None`` for an in-memory database, whose writers
    are only this process's threads).
    """
    lock_path = f"{database_path}.writers" if database_path else None
    connection_class = type("WriterQueueConnection", (_Connection,), {"lock_path": lock_path})
    return {"timeout": timeout, "check_same_thread": False, "factory": connection_class}
