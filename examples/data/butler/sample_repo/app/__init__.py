"""ledgerline: an invoicing web service."""

__version__ = "0.4.2"
