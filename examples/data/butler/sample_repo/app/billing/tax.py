"""VAT rates by country and tax computation.

Amounts are integer cents; tax is rounded half-up per invoice, not per line, which is what
the tax offices of the supported countries expect.
"""

from decimal import ROUND_HALF_UP, Decimal

VAT_RATES = {
    "DE": Decimal("0.19"),
    "FR": Decimal("0.20"),
    "NL": Decimal("0.21"),
    "AT": Decimal("0.20"),
    "IE": Decimal("0.23"),
}

REVERSE_CHARGE_NOTE = "VAT reverse charge: the recipient accounts for the tax."


class UnknownCountry(ValueError):
    """A country with no VAT rate configured."""


def vat_rate(country):
    """The VAT rate of `country` (ISO 3166 alpha-2)."""
    try:
        return VAT_RATES[country.upper()]
    except KeyError:
        raise UnknownCountry(f"no VAT rate for country {country!r}") from None


def compute_tax(subtotal_cents, country, business_customer=False, seller_country="DE"):
    """The VAT in cents on `subtotal_cents` for a customer in `country`.

    Business customers in another EU country pay no VAT (reverse charge).
    """
    if business_customer and country.upper() != seller_country:
        return 0
    tax = Decimal(subtotal_cents) * vat_rate(country)
    return int(tax.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def tax_note(country, business_customer=False, seller_country="DE"):
    """The note printed on the invoice about VAT, if any."""
    if business_customer and country.upper() != seller_country:
        return REVERSE_CHARGE_NOTE
    return None
