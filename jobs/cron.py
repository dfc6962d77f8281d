"""The periodic jobs, loaded by ``rq cron jobs.cron``. Run exactly one cron process.

Every job here is idempotent (sealing, reaping, expiry), because RQ's cron has no leader
election and a tick may overlap a slow previous one.
"""

from __future__ import annotations

from rq import cron

from config import Config
from jobs import queues

_config = Config.from_env()

# Each module adds its own periodic jobs below, with an explicit timeout.

from jobs.clearance import expire_pending_reviews, reap_stuck_requests  # noqa: E402

cron.register(
    reap_stuck_requests,
    queues.DEFAULT,
    # Often, and cheap: a crashed judge job is acted on at the next run, not after the cutoff.
    interval=max(
        5,
        _config.clearance_reap_interval_seconds or min(15, _config.clearance_reap_seconds // 4),
    ),
    job_timeout=300,
    name="reap-stuck-requests",
)
cron.register(
    expire_pending_reviews, queues.DEFAULT, interval=60, job_timeout=300, name="expire-reviews"
)

from jobs.ledger import export_tick, seal_tick  # noqa: E402

# Sealing drains every backlog on each tick, then queues the exports; the export tick retries
# whatever failed. Both are idempotent, so an overlapping tick is harmless.
cron.register(
    seal_tick,
    queues.LEDGER,
    interval=_config.anchor_interval_seconds,
    job_timeout=3600,
    name="ledger-seal",
)
cron.register(
    export_tick,
    queues.LEDGER,
    interval=_config.anchor_interval_seconds,
    job_timeout=1800,
    name="ledger-export",
)

from jobs.ingest import reindex_embeddings  # noqa: E402

# A safety net for chunks whose embedding job was lost (Redis blip) or a changed EMBEDDING_MODEL.
cron.register(
    reindex_embeddings, queues.INGEST, interval=300, job_timeout=1800, name="reindex-embeddings"
)

from jobs.drift import score_drift  # noqa: E402

# Rescoring reads each active agent's hourly buckets (no request rows); idempotent, since an
# event is written only on a crossing into high risk.
cron.register(score_drift, queues.DEFAULT, interval=60, job_timeout=600, name="drift-score")

from jobs.reports import reap_stuck_reports, run_report_schedules  # noqa: E402

# A report whose build was lost (Redis emptied, worker killed) is queued again, twice, then failed.
cron.register(
    reap_stuck_reports, queues.DEFAULT, interval=60, job_timeout=300, name="reap-stuck-reports"
)

# Hourly is plenty: a period is due once, at its end, and each is reported only once.
cron.register(
    run_report_schedules, queues.DEFAULT, interval=3600, job_timeout=600, name="report-schedules"
)
