"""Gunicorn settings read from the working directory (``make run`` starts gunicorn here).

Each web worker warms the decision path before it serves: the judge engine is imported and
every tenant's active policies compiled, so the first clearance is answered at once. Then the
warmed heap (modules, compiled policies, caches) is frozen out of the garbage collector's
reach (``gc.freeze``): a full collection would otherwise walk all of it again, a pause taken
by whichever request happened to trigger it.
"""

import gc
import logging


def post_worker_init(worker):  # noqa: ANN001, ANN201 - gunicorn's hook signature
    from webapp.services import judging

    app = worker.wsgi
    try:
        with app.app_context():
            warmed = judging.warm_up()
        logging.getLogger("webapp.warm_up").info("decision path warmed for %d tenants", warmed)
    except Exception:  # noqa: BLE001 - a cold start is slower, not wrong
        logging.getLogger("webapp.warm_up").exception("warming the decision path failed")
    gc.collect()
    gc.freeze()
