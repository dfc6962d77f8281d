"""Per-principal token bucket kept in Redis (CONTRACT §1)."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import redis

from webapp.errors import RateLimited, Unavailable
from webapp.runtime import vault

log = logging.getLogger(__name__)

# One atomic step: refill by elapsed time, then take a token if there is one.
_BUCKET = """
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local state = redis.call('HMGET', key, 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then tokens = burst; ts = now end
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate); ts = now end
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('EXPIRE', key, ttl)
return {allowed, tostring(tokens)}
"""


@dataclass(frozen=True)
class Allowance:
    limit: int
    remaining: int
    reset_seconds: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }


def take(
    principal: str,
    rate: float | None = None,
    burst: int | None = None,
    *,
    fail_open: bool = False,
) -> Allowance | None:
    """Take one token for the principal; raise RateLimited when the bucket is empty.

    The rate and burst default to ``VAULT_RATE_LIMIT_*``; None is returned when the limit is
    switched off (rate 0). With Redis unreachable the call is refused (503), unless the
    caller passes ``fail_open`` for a request that cannot create an approval or a token
    (see ``webapp.api.auth.limiter_may_fail_open``): then it runs unmetered and None is
    returned, so a Redis outage does not stop what needs only the database.
    """
    config = vault().config
    rate = config.rate_limit_rps if rate is None else rate
    burst = config.rate_limit_burst if burst is None else burst
    if rate <= 0:
        return None
    try:
        allowed, tokens = vault().redis.eval(
            _BUCKET,
            1,
            f"vault:rl:{principal}",
            rate,
            burst,
            f"{time.time():.6f}",
            config.rate_limit_ttl_seconds,
        )
    except redis.RedisError:
        if fail_open:
            log.warning("rate limiter unavailable; %s runs unmetered", principal.split(":")[0])
            return None
        # Without its bucket the limiter cannot tell; refuse rather than run unmetered.
        raise Unavailable("rate limiter unavailable", headers={"Retry-After": "1"}) from None
    tokens = float(tokens)
    remaining = int(math.floor(tokens))
    reset = max(1, math.ceil((burst - tokens) / rate))
    allowance = Allowance(limit=burst, remaining=remaining, reset_seconds=reset)
    if not int(allowed):
        retry_after = max(1, math.ceil((1 - tokens) / rate))
        raise RateLimited(
            "rate limit exceeded; retry later",
            headers={**allowance.headers(), "Retry-After": str(retry_after)},
        )
    return allowance
