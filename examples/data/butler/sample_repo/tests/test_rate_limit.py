"""Tests of app.rate_limit."""

from app.rate_limit import RateLimiter


def test_bucket_empties_and_refills():
    now = [0.0]
    limiter = RateLimiter(capacity=2, refill_per_second=1.0, clock=lambda: now[0])
    assert limiter.allow("k") and limiter.allow("k")
    assert not limiter.allow("k")
    now[0] += 1.0
    assert limiter.allow("k")
