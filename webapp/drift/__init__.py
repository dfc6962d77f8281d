"""Drift detection's pure core: what a decision adds to an agent's hourly counters, the signals
that compare a recent window with a baseline, and how they combine into a score and a risk.

Everything here takes values and returns values; the service (``webapp.services.drift``)
reads and writes the counters and rows.
"""
