"""Sign-in throttling: attempts counted in Redis per (email, IP) and per IP, atomically.

A fixed window per key: the first attempt starts a 15-minute window; the count is taken and
checked in one Redis step (INCR, with the expiry set by the same script) *before* the password
is checked, so any number of parallel attempts get at most ``per_account`` password checks for
one email from one address (and ``per_address`` from one address, whatever the emails). A
success forgets the account's count and gives the address its attempt back. Redis being
unreachable refuses sign-in rather than letting guesses through.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import redis

WINDOW_SECONDS = 15 * 60
PER_ACCOUNT = 5
PER_ADDRESS = 50

# Count one attempt on both keys; the window (expiry) starts with the first. Returns each
# key's count and remaining seconds.
_ATTEMPT = """
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  local ttl = redis.call('TTL', key)
  if count == 1 or ttl < 0 then
    redis.call('EXPIRE', key, ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out
"""

_SUCCEEDED = """
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECR', KEYS[2]) end
"""


class ThrottleUnavailable(RuntimeError):
    """Redis could not be asked; sign-in must be refused (fail closed)."""


@dataclass(frozen=True)
class SignInThrottle:
    """``attempt`` counts an attempt and says how long the caller must wait (0: may check)."""

    connection: redis.Redis
    per_account: int = PER_ACCOUNT
    per_address: int = PER_ADDRESS
    window_seconds: int = WINDOW_SECONDS

    def attempt(self, email: str, address: str) -> int:
        """Count this attempt; 0 when the password may be checked, else seconds to wait."""
        try:
            account_count, account_ttl, ip_count, ip_ttl = self.connection.eval(
                _ATTEMPT, 2, *self._keys(email, address), self.window_seconds
            )
        except redis.RedisError as error:
            raise ThrottleUnavailable(str(error)) from None
        waits = []
        if int(account_count) > self.per_account:
            waits.append(max(int(account_ttl), 1))
        if int(ip_count) > self.per_address:
            waits.append(max(int(ip_ttl), 1))
        return max(waits, default=0)

    def succeeded(self, email: str, address: str) -> None:
        """Forget the account's attempts after a successful sign-in; the address gets its
        attempt back (an office behind one address signs in all day)."""
        try:
            self.connection.eval(_SUCCEEDED, 2, *self._keys(email, address))
        except redis.RedisError:
            pass  # the window expires on its own

    @staticmethod
    def _keys(email: str, address: str) -> tuple[str, str]:
        # Hashed so that Redis holds no email addresses.
        normalised = (email or "").strip().lower()
        account = hashlib.sha256(f"{normalised}\x00{address}".encode()).hexdigest()[:32]
        ip = hashlib.sha256(address.encode()).hexdigest()[:32]
        return f"vault:signin:account:{account}", f"vault:signin:address:{ip}"
