"""Review notifications: the messages (pure) and the channels that carry them (SMTP, webhook)."""
