"""Business rules and state transitions; the only code that commits transactions."""
