"""The policy judge: compiled rules first, BM25 (+ vector) retrieval for evidence, an optional model.

Entry point: `webapp.judge.engine.evaluate(query, policies, history, evaluator=None)`. Nothing is
imported here, so that `webapp.judge.types` stays cheap for the web tier (no NumPy at import).
"""
