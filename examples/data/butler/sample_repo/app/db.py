"""The SQLite connection, schema migrations and transactions."""

import sqlite3
from contextlib import contextmanager

SCHEMA_VERSION = 3

MIGRATIONS = {
    1: """
        CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                                email TEXT NOT NULL, country TEXT NOT NULL);
        CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL,
                               status TEXT NOT NULL, issued_at TEXT, due_at TEXT,
                               paid_at TEXT);
    """,
    2: """
        CREATE TABLE line_items (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL,
                                 description TEXT NOT NULL, quantity INTEGER NOT NULL,
                                 unit_price_cents INTEGER NOT NULL);
    """,
    3: """
        CREATE TABLE api_tokens (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL,
                                 token_hash TEXT NOT NULL UNIQUE, expires_at TEXT NOT NULL);
    """,
}


def connect(path):
    """Open the database at `path` with foreign keys on and rows as dictionaries."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def migrate(conn):
    """Apply every migration newer than the database's `user_version`, in order."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    for version in range(current + 1, SCHEMA_VERSION + 1):
        with transaction(conn):
            conn.executescript(MIGRATIONS[version])
            conn.execute(f"PRAGMA user_version = {version}")
    return SCHEMA_VERSION


@contextmanager
def transaction(conn):
    """Commit the block's changes, or roll them all back if it raises."""
    try:
        yield conn
        conn.commit()
    except Exception:
        conn.rollback()
        raise
