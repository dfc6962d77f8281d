"""Gunicorn settings read from the working directory (``make run`` starts gunicorn here).

Each web worker warms the decision path before it serves: the judge engine is imported and
every tenant's active policies compiled, so the first clearance is answered at once.
"""

import gc
import logging
import os
import sys


def post_worker_init(worker):  # noqa: ANN001, ANN201 - gunicorn's hook signature
    from webapp.services import judging

    app = worker.wsgi
    try:
        with app.app_context():
            warmed = judging.warm_up()
        logging.getLogger("webapp.warm_up").info("decision path warmed for %d tenants", warmed)
    except Exception:  # noqa: BLE001 - a cold start is slower, not wrong
        logging.getLogger("webapp.warm_up").exception("warming the decision path failed")
    if os.environ.get("VAULT_GC_FREEZE", "1") == "1":
        gc.collect()
        gc.freeze()
    if t := os.environ.get("VAULT_GC_GEN0"):
        gc.set_threshold(int(t), 50, 100)
    if s := os.environ.get("VAULT_SWITCH_INTERVAL"):
        sys.setswitchinterval(float(s))
