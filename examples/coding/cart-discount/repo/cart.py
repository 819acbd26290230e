"""A tiny shopping cart: prices in cents, discount codes."""

DISCOUNTS = {"SAVE10": 10}  # code -> percent off
THRESHOLD = 5000  # cents: a code applies to subtotals of at least $50.00


def total(items: list[tuple[int, int]], code: str | None = None) -> int:
    """The total in cents of ``(unit_price_cents, quantity)`` items, after the code's discount."""
    subtotal = sum(price * quantity for price, quantity in items)
    if code in DISCOUNTS and subtotal > THRESHOLD:
        subtotal = subtotal * (100 - DISCOUNTS[code]) / 100
    return subtotal
