"""Tests of app.auth."""

from datetime import datetime, timedelta, timezone

import pytest

from app import auth, db


@pytest.fixture
def conn(tmp_path):
    c = db.connect(tmp_path / "t.db")
    db.migrate(c)
    return c


def test_issued_tokens_verify_until_they_expire(conn):
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    token = auth.issue_token(conn, 7, now=now)
    assert auth.verify_token(conn, token, now=now) == 7
    with pytest.raises(auth.AuthError, match="expired"):
        auth.verify_token(conn, token, now=now + timedelta(days=91))


def test_bearer_header_parsing():
    assert auth.bearer_token("Bearer abc") == "abc"
    assert auth.bearer_token("Basic abc") is None
