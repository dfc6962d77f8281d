"""Sign-in throttling: failed attempts counted in Redis per (email, IP) and per IP.

A fixed window per key: the first failure starts a 15-minute window; five failures for one
email from one address (or fifty from one address, whatever the emails) close it until the
window ends. Redis being unreachable refuses sign-in rather than letting guesses through.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import redis

WINDOW_SECONDS = 15 * 60
PER_ACCOUNT = 5
PER_ADDRESS = 50


class ThrottleUnavailable(RuntimeError):
    """Redis could not be asked; sign-in must be refused (fail closed)."""


@dataclass(frozen=True)
class SignInThrottle:
    """Counts failed sign-ins; ``retry_after`` says how long a caller must wait (0: may try)."""

    connection: redis.Redis
    per_account: int = PER_ACCOUNT
    per_address: int = PER_ADDRESS
    window_seconds: int = WINDOW_SECONDS

    def retry_after(self, email: str, address: str) -> int:
        """Seconds until another attempt is allowed; 0 when one is allowed now."""
        account, ip = self._keys(email, address)
        try:
            pipe = self.connection.pipeline()
            pipe.get(account)
            pipe.ttl(account)
            pipe.get(ip)
            pipe.ttl(ip)
            account_count, account_ttl, ip_count, ip_ttl = pipe.execute()
        except redis.RedisError as error:
            raise ThrottleUnavailable(str(error)) from None
        waits = []
        if int(account_count or 0) >= self.per_account:
            waits.append(max(int(account_ttl), 1))
        if int(ip_count or 0) >= self.per_address:
            waits.append(max(int(ip_ttl), 1))
        return max(waits, default=0)

    def record_failure(self, email: str, address: str) -> None:
        """Count one failed attempt against both keys; the window starts at the first."""
        try:
            pipe = self.connection.pipeline()
            for key in self._keys(email, address):
                # SET NX starts the window; INCR keeps its expiry (EXPIRE NX needs Redis 7).
                pipe.set(key, 0, ex=self.window_seconds, nx=True)
                pipe.incr(key)
            pipe.execute()
        except redis.RedisError as error:
            raise ThrottleUnavailable(str(error)) from None

    def clear(self, email: str, address: str) -> None:
        """Forget the account's failures after a successful sign-in (the address count stays)."""
        try:
            self.connection.delete(self._keys(email, address)[0])
        except redis.RedisError:
            pass  # the window expires on its own

    @staticmethod
    def _keys(email: str, address: str) -> tuple[str, str]:
        # Hashed so that Redis holds no email addresses.
        normalised = (email or "").strip().lower()
        account = hashlib.sha256(f"{normalised}\x00{address}".encode()).hexdigest()[:32]
        ip = hashlib.sha256(address.encode()).hexdigest()[:32]
        return f"vault:signin:account:{account}", f"vault:signin:address:{ip}"
