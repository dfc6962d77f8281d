"""Sealing survives a crash at every step: a worker SIGKILLed mid-batch, or an error raised inside
the transaction, leaves no leaf index missing or repeated and the checkpoint chain intact."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ledger_support import leaves_of, seal, stored_tree, write_events
from webapp.extensions import db
from webapp.ledger import merkle
from webapp.models import Checkpoint
from webapp.services.sealing import STEPS

ROOT = Path(__file__).resolve().parents[2]
BATCH = 4
EVENTS = 14  # batches of 4, 4, 4, 2

# A worker that seals with the real service and kills itself (SIGKILL: no cleanup, no rollback
# from Python) when the named step of the named batch completes.
CHILD = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.conftest import make_config
from webapp import create_app
from webapp.services import sealing

workdir, database_url, redis_url, client_id, step, batch = sys.argv[2:8]
app = create_app(make_config(Path(workdir), database_url, redis_url))
seen = {"batch": 1}

def on_step(name):
    if name == step and seen["batch"] == int(batch):
        os.kill(os.getpid(), signal.SIGKILL)
    if name == "committed":
        seen["batch"] += 1

with app.app_context():
    sealing.seal_pending_events(client_id, batch_size=BATCH, on_step=on_step)
print("finished without being killed")
""".replace("BATCH", str(BATCH))


def assert_ledger_whole(app, client_id: str, sealed: int) -> None:
    """Leaves 0..sealed-1 exactly once, in seq order; chain 1..k linked; one node per subtree."""
    leaves = leaves_of(app, client_id)
    assert [index for _, index, _ in leaves] == list(range(sealed))
    seqs = [seq for seq, _, _ in leaves]
    assert seqs == sorted(seqs)
    hashes = [leaf for _, _, leaf in leaves]
    with app.app_context():
        checkpoints = list(
            db.session.scalars(Checkpoint.for_tenant(client_id).order_by(Checkpoint.checkpoint_id))
        )
    nodes = len(stored_tree(app, client_id))
    assert [c.checkpoint_id for c in checkpoints] == list(range(1, len(checkpoints) + 1))
    assert (checkpoints[-1].tree_size if checkpoints else 0) == sealed
    previous = ""
    for checkpoint in checkpoints:
        assert checkpoint.prev_checkpoint_hash == previous
        assert checkpoint.root_hash == merkle.root(hashes[: checkpoint.tree_size]).hex()
        previous = checkpoint.checkpoint_hash
    assert nodes == sum(sealed >> level for level in range(sealed.bit_length()))


def verify_intact(app, client_id: str) -> dict:
    from webapp.services.verification import verify_ledger

    with app.app_context():
        return verify_ledger(client_id)


@pytest.mark.parametrize("step", STEPS)
def test_worker_killed_between_steps_then_rerun(
    step, app, tenant, workdir, database_url, redis_url
):
    write_events(app, tenant.client_id, EVENTS)
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(ROOT),
            str(workdir),
            database_url,
            redis_url,
            tenant.client_id,
            step,
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]

    # Batch 1 committed; batch 2 is either wholly there (killed after its commit) or not at all.
    assert_ledger_whole(app, tenant.client_id, 2 * BATCH if step == "committed" else BATCH)

    seal(app, tenant.client_id, batch_size=BATCH)
    assert_ledger_whole(app, tenant.client_id, EVENTS)
    result = verify_intact(app, tenant.client_id)
    assert result["intact"], result["errors"]
    assert result["tree_size"] == EVENTS


class Crash(Exception):
    pass


@pytest.mark.parametrize("step", STEPS[:-1])  # an error after the commit changes nothing
def test_error_inside_the_transaction_leaves_nothing_behind(step, app, tenant):
    from webapp.services import sealing

    write_events(app, tenant.client_id, EVENTS)
    calls = {"batch": 1}

    def fail_in_second_batch(name: str) -> None:
        if name == step and calls["batch"] == 2:
            raise Crash(name)
        if name == "committed":
            calls["batch"] += 1

    with app.app_context(), pytest.raises(Crash):
        sealing.seal_pending_events(
            tenant.client_id, batch_size=BATCH, on_step=fail_in_second_batch
        )
    assert_ledger_whole(app, tenant.client_id, BATCH)

    seal(app, tenant.client_id, batch_size=BATCH)
    seal(app, tenant.client_id, batch_size=BATCH)  # and again: nothing left, nothing signed
    assert_ledger_whole(app, tenant.client_id, EVENTS)
    assert verify_intact(app, tenant.client_id)["intact"]


def test_child_worker_finishes_when_not_killed(app, tenant, workdir, database_url, redis_url):
    """The crash harness itself seals correctly when the step never comes."""
    write_events(app, tenant.client_id, 5)
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(ROOT),
            str(workdir),
            database_url,
            redis_url,
            tenant.client_id,
            "no-such-step",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert "finished without being killed" in child.stdout
    assert_ledger_whole(app, tenant.client_id, 5)
