"""Tests of app.billing.tax."""

import pytest

from app.billing.tax import UnknownCountry, compute_tax, tax_note


def test_german_vat_is_rounded_half_up():
    assert compute_tax(1050, "DE") == 200  # 199.5 -> 200


def test_reverse_charge_for_eu_businesses():
    assert compute_tax(10_000, "FR", business_customer=True) == 0
    assert tax_note("FR", business_customer=True).startswith("VAT reverse charge")


def test_unknown_country_is_an_error():
    with pytest.raises(UnknownCountry):
        compute_tax(100, "XX")
