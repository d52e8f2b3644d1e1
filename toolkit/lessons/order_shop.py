"""A two-tool shop for chained calls (notebook 08; pack §2.8 "Many calls").

The second call needs what the first returned: ``find_order`` gives the id that
``cancel_order`` takes, so a model cannot ask for both in one turn. Exercise 5 uses fresh
order ids drawn at check time.
"""

from __future__ import annotations

from ..registry import ToolError, ToolRegistry

__all__ = ["order_registry"]


def order_registry(order_id: str = "K2", customer: str = "Dana") -> tuple[ToolRegistry, dict]:
    """A two-tool shop: ``find_order(customer)`` (read-only) and ``cancel_order(order_id)``.

    ``customer``'s latest order has id ``order_id``. Returns ``(registry, db)``; ``db`` maps
    each order id to its status, so you can see what was cancelled.

    Notebook 08.
    """
    db = {order_id: "pending", "Z1": "pending"}

    def find_order(customer: str) -> dict:
        """Find a customer's most recent order.

        Args:
            customer: the customer's first name, such as Dana
        """
        if customer.strip().lower() != customer_key:
            raise ToolError(f"No orders for {customer!r}. Try the first name the user gave.")
        return {"order_id": order_id, "status": db[order_id]}

    def cancel_order(order_id: str) -> dict:
        """Cancel one pending order.

        Args:
            order_id: the id that find_order returned
        """
        if order_id not in db:
            raise ToolError(f"No order {order_id!r}. Use the id find_order returned.")
        db[order_id] = "canceled"
        return {"order_id": order_id, "status": "canceled"}

    customer_key = customer.lower()
    registry = ToolRegistry()
    registry.add(find_order)
    registry.add(cancel_order, read_only=False)
    return registry, db
