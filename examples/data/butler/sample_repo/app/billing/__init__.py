"""Billing: invoices and tax."""
