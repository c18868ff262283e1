"""Invoices: create, add line items, compute totals, issue and mark paid.

An invoice is a draft until issued; only drafts can change. Issuing sets the due date
(net 30 by default) and sends the invoice email.
"""

from datetime import datetime, timedelta, timezone

from app.billing.tax import compute_tax, tax_note
from app.db import transaction

PAYMENT_TERMS = timedelta(days=30)


class InvoiceError(Exception):
    """An operation the invoice's status does not allow."""


def create_invoice(conn, customer_id):
    """A new draft invoice for `customer_id`; returns its id."""
    with transaction(conn):
        cur = conn.execute(
            "INSERT INTO invoices (customer_id, status) VALUES (?, 'draft')", (customer_id,)
        )
    return cur.lastrowid


def add_line_item(conn, invoice_id, description, quantity, unit_price_cents):
    """Add a line to a draft invoice."""
    if quantity <= 0 or unit_price_cents < 0:
        raise InvoiceError("quantity must be positive and the price not negative")
    _require_status(conn, invoice_id, "draft")
    with transaction(conn):
        conn.execute(
            "INSERT INTO line_items (invoice_id, description, quantity, unit_price_cents)"
            " VALUES (?, ?, ?, ?)",
            (invoice_id, description, quantity, unit_price_cents),
        )


def invoice_totals(conn, invoice_id):
    """Subtotal, tax and total in cents, and the VAT note, for `invoice_id`."""
    row = conn.execute(
        "SELECT c.country, c.business FROM invoices i JOIN customers c"
        " ON c.id = i.customer_id WHERE i.id = ?",
        (invoice_id,),
    ).fetchone()
    lines = conn.execute(
        "SELECT quantity, unit_price_cents FROM line_items WHERE invoice_id = ?",
        (invoice_id,),
    ).fetchall()
    subtotal = sum(l["quantity"] * l["unit_price_cents"] for l in lines)
    tax = compute_tax(subtotal, row["country"], bool(row["business"]))
    return {
        "subtotal": subtotal,
        "tax": tax,
        "total": subtotal + tax,
        "note": tax_note(row["country"], bool(row["business"])),
    }


def issue_invoice(conn, invoice_id, now=None, send=None):
    """Issue a draft: set issued and due dates, then send it with `send(invoice_id)`."""
    now = now or datetime.now(timezone.utc)
    _require_status(conn, invoice_id, "draft")
    with transaction(conn):
        conn.execute(
            "UPDATE invoices SET status = 'issued', issued_at = ?, due_at = ? WHERE id = ?",
            (now.isoformat(), (now + PAYMENT_TERMS).isoformat(), invoice_id),
        )
    if send is not None:
        send(invoice_id)


def mark_paid(conn, invoice_id, now=None):
    """Record the payment of an issued invoice."""
    now = now or datetime.now(timezone.utc)
    _require_status(conn, invoice_id, "issued")
    with transaction(conn):
        conn.execute(
            "UPDATE invoices SET status = 'paid', paid_at = ? WHERE id = ?",
            (now.isoformat(), invoice_id),
        )


def overdue_invoices(conn, now=None):
    """Issued invoices past their due date, oldest first."""
    now = now or datetime.now(timezone.utc)
    return conn.execute(
        "SELECT * FROM invoices WHERE status = 'issued' AND due_at < ? ORDER BY due_at",
        (now.isoformat(),),
    ).fetchall()


def _require_status(conn, invoice_id, wanted):
    row = conn.execute("SELECT status FROM invoices WHERE id = ?", (invoice_id,)).fetchone()
    if row is None:
        raise InvoiceError(f"no invoice {invoice_id}")
    if row["status"] != wanted:
        raise InvoiceError(f"invoice {invoice_id} is {row['status']}, not {wanted}")
