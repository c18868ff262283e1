"""Invoice and overdue-reminder emails."""

from dataclasses import dataclass

SENDER = "billing@ledgerline.example"
REMINDER_DAYS = (7, 14, 30)


@dataclass
class Email:
    """One outgoing email."""

    to: str
    subject: str
    body: str


def invoice_email(customer, invoice_id, totals):
    """The email that sends a newly issued invoice."""
    amount = totals["total"] / 100
    return Email(
        to=customer["email"],
        subject=f"Invoice #{invoice_id} from ledgerline",
        body=f"Hello {customer['name']},\n\nyour invoice #{invoice_id} of EUR {amount:.2f}"
        " is attached. Payment is due within 30 days.",
    )


def overdue_reminder(customer, invoice, days_overdue):
    """A payment reminder for an invoice `days_overdue` days past due, or None.

    Reminders go out only on the days listed in REMINDER_DAYS, so customers get at most
    three.
    """
    if days_overdue not in REMINDER_DAYS:
        return None
    return Email(
        to=customer["email"],
        subject=f"Reminder: invoice #{invoice['id']} is {days_overdue} days overdue",
        body=f"Hello {customer['name']},\n\ninvoice #{invoice['id']} was due on"
        f" {invoice['due_at'][:10]}. Please pay it at your earliest convenience.",
    )


def send(email, transport):
    """Hand `email` to `transport` (an SMTP client or a test double)."""
    transport.send_message(SENDER, email.to, email.subject, email.body)
