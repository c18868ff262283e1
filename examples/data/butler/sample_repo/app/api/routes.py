"""HTTP routes: /invoices, /customers and /tokens, JSON in and out.

Every route but POST /tokens needs a bearer token; every request counts against the
token's rate limit.
"""

from app import auth
from app.billing import invoices
from app.rate_limit import RateLimiter

limiter = RateLimiter()


def authenticate(request, conn):
    """The customer id of the request's bearer token, or an error response."""
    token = auth.bearer_token(request.headers.get("Authorization"))
    try:
        customer_id = auth.verify_token(conn, token)
    except auth.AuthError as e:
        return None, ({"error": str(e)}, 401)
    key = auth.hash_token(token)
    if not limiter.allow(key):
        return None, ({"error": "rate limited"}, 429, {"Retry-After": str(int(limiter.retry_after(key)) + 1)})
    return customer_id, None


def post_invoice(request, conn):
    """POST /invoices: create a draft with the given line items."""
    customer_id, error = authenticate(request, conn)
    if error:
        return error
    invoice_id = invoices.create_invoice(conn, customer_id)
    for line in request.json.get("lines", []):
        invoices.add_line_item(conn, invoice_id, line["description"], line["quantity"], line["unitPriceCents"])
    return {"id": invoice_id, **invoices.invoice_totals(conn, invoice_id)}, 201


def get_invoice(request, conn, invoice_id):
    """GET /invoices/<id>: the invoice's totals."""
    _, error = authenticate(request, conn)
    if error:
        return error
    return invoices.invoice_totals(conn, invoice_id), 200


def post_issue(request, conn, invoice_id):
    """POST /invoices/<id>/issue: issue a draft invoice."""
    _, error = authenticate(request, conn)
    if error:
        return error
    try:
        invoices.issue_invoice(conn, invoice_id)
    except invoices.InvoiceError as e:
        return {"error": str(e)}, 409
    return {"id": invoice_id, "status": "issued"}, 200


def post_token(request, conn):
    """POST /tokens: issue an API token for a customer (admin only)."""
    token = auth.issue_token(conn, request.json["customerId"])
    return {"token": token}, 201


ROUTES = {
    ("POST", "/invoices"): post_invoice,
    ("GET", "/invoices/<id>"): get_invoice,
    ("POST", "/invoices/<id>/issue"): post_issue,
    ("POST", "/tokens"): post_token,
}
