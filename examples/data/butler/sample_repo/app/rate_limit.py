"""A token-bucket rate limiter per API token.

Each token gets CAPACITY requests that refill at REFILL_PER_SECOND; a request that finds
the bucket empty is refused with 429 and a Retry-After header.
"""

import time

CAPACITY = 60
REFILL_PER_SECOND = 1.0


class RateLimiter:
    """Buckets by key (the API token's hash)."""

    def __init__(self, capacity=CAPACITY, refill_per_second=REFILL_PER_SECOND, clock=time.monotonic):
        self.capacity = capacity
        self.refill = refill_per_second
        self.clock = clock
        self.buckets = {}

    def allow(self, key):
        """Whether a request for `key` may go ahead now; takes one token if so."""
        tokens, last = self.buckets.get(key, (self.capacity, self.clock()))
        now = self.clock()
        tokens = min(self.capacity, tokens + (now - last) * self.refill)
        if tokens < 1:
            self.buckets[key] = (tokens, now)
            return False
        self.buckets[key] = (tokens - 1, now)
        return True

    def retry_after(self, key):
        """Seconds until `key` has a token again (for the Retry-After header)."""
        tokens, _ = self.buckets.get(key, (self.capacity, self.clock()))
        return max(0.0, (1 - tokens) / self.refill)
