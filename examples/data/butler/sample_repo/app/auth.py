"""API tokens: issuing, hashing, verifying and expiry.

Tokens are random strings shown once to the customer; only their SHA-256 hash is stored.
"""

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta, timezone

TOKEN_BYTES = 32
TOKEN_LIFETIME = timedelta(days=90)


class AuthError(Exception):
    """A missing, unknown or expired API token."""


def hash_token(token):
    """The SHA-256 hex digest stored for `token`."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(conn, customer_id, now=None):
    """Create a token for `customer_id`, store its hash and expiry, return the token."""
    now = now or datetime.now(timezone.utc)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    conn.execute(
        "INSERT INTO api_tokens (customer_id, token_hash, expires_at) VALUES (?, ?, ?)",
        (customer_id, hash_token(token), (now + TOKEN_LIFETIME).isoformat()),
    )
    return token


def verify_token(conn, token, now=None):
    """The customer id owning `token`; raises AuthError when unknown or expired.

    The comparison is constant-time so response timing does not leak hash prefixes.
    """
    if not token:
        raise AuthError("missing token")
    now = now or datetime.now(timezone.utc)
    wanted = hash_token(token)
    row = conn.execute(
        "SELECT customer_id, token_hash, expires_at FROM api_tokens WHERE token_hash = ?",
        (wanted,),
    ).fetchone()
    if row is None or not hmac.compare_digest(row["token_hash"], wanted):
        raise AuthError("unknown token")
    if datetime.fromisoformat(row["expires_at"]) <= now:
        raise AuthError("token expired")
    return row["customer_id"]


def revoke_token(conn, token):
    """Delete `token`; returns whether it existed."""
    cur = conn.execute("DELETE FROM api_tokens WHERE token_hash = ?", (hash_token(token),))
    return cur.rowcount > 0


def bearer_token(header):
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not header or not header.startswith("Bearer "):
        return None
    return header[len("Bearer "):].strip() or None
