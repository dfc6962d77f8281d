"""RQ entry points: thin functions that load rows, call a service, and record the outcome."""
