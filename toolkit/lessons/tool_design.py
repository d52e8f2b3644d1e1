"""One tool written twice, badly and well, and a mock model that reads only what it is given.

Pack §2.7 (designing tools that models can use; Anthropic's advice on writing tools for agents
[21]), taught in notebook 07. Everything here is made up for the lesson: the orders, the two
tools, and the mock model.

* :func:`weak_registry` holds ``get``: a vague name, a one-word description, a parameter
  called ``id`` with no type, a raw record as the answer and ``"failed"`` as its only error.
* :func:`better_registry` holds ``orders_get``: a prefixed name, a description that says what
  the tool does, when to call it and what it never does, a typed ``order_id`` with an example,
  a ``response_format`` switch between a concise and a detailed answer, and an error that
  says what was wrong and what to do next.
* :class:`LiteralReader` is a mock model that acts only on the text in front of it: it fills a
  parameter from the words of the request that the parameter's name or description mentions,
  follows an error's advice when the error gives any, and otherwise repeats a failed call once
  and gives up. It is a cartoon of a careful reader, not a language model.
* :func:`order_book`, :func:`list_orders_tool` and :func:`search_orders_tool` compare a tool
  that dumps everything with one that filters (rule 1 and rule 4 of §2.7).
* :func:`token_estimate` is the course's rough rule: characters of the JSON text divided by 4.

Standard library only.
"""

from __future__ import annotations

import copy
import html
import json
import random
import re
from typing import Any, Literal

from ..registry import Tool, ToolError, ToolRegistry, to_text

__all__ = [
    "ORDERS",
    "concise_view",
    "weak_registry",
    "better_registry",
    "LiteralReader",
    "token_estimate",
    "order_book",
    "list_orders_tool",
    "search_orders_tool",
    "SideBySide",
    "id_tokens",
]

# Two made-up orders, each as an upstream service might store it: ids, codes and cents.
ORDERS: dict[str, dict] = {
    "A1": {
        "order_id": "A1",
        "customer_id": "C17",
        "status_code": 1,
        "status": "pending",
        "created_at": "2026-10-20T08:02:11Z",
        "updated_at": "2026-10-20T08:02:11Z",
        "warehouse": "WH-EU-04",
        "carrier": None,
        "items": [
            {
                "sku": "LMP-0311-GRN",
                "product_uuid": "9b2d6f10-55c4-4e0a-8f7e-3c1a2b9d0e44",
                "name": "Green desk lamp",
                "qty": 1,
                "unit_price_cents": 2899,
                "tax_cents": 551,
            },
        ],
        "shipping_address_id": "ADDR-99120",
        "billing_address_id": "ADDR-99120",
        "payment_method_id": "PM-5521",
        "flags": [],
    },
    "B7": {
        "order_id": "B7",
        "customer_id": "C17",
        "status_code": 3,
        "status": "shipped",
        "created_at": "2026-10-02T09:14:55Z",
        "updated_at": "2026-10-04T16:40:03Z",
        "warehouse": "WH-EU-04",
        "carrier": {"code": "DHL-EXP", "tracking": "JD014600003828491", "service_level": "EXPRESS_12"},
        "items": [
            {
                "sku": "KTL-0042-BLU",
                "product_uuid": "4f0c2a9e-8d1b-4c7e-9a55-2b1f0e6d7c31",
                "name": "Blue kettle",
                "qty": 1,
                "unit_price_cents": 3499,
                "tax_cents": 665,
            },
            {
                "sku": "MUG-0007-WHT",
                "product_uuid": "0a7e3b52-1f9d-4b86-b2c4-77d0e1f5a9c8",
                "name": "White mug",
                "qty": 2,
                "unit_price_cents": 899,
                "tax_cents": 171,
            },
        ],
        "shipping_address_id": "ADDR-99120",
        "billing_address_id": "ADDR-99120",
        "payment_method_id": "PM-5521",
        "flags": ["gift_wrap"],
    },
}

CARRIER_NAMES = {"DHL-EXP": "DHL Express"}


def token_estimate(value: Any) -> int:
    """A rough token count of what a model would read: the text (JSON for non-strings) / 4.

    The same rule of thumb the course uses everywhere (§2.4); a real tokenizer differs.

    Notebook 07.
    """
    return len(to_text(value)) // 4


def concise_view(record: dict) -> dict:
    """What a model usually needs from an order: readable names, no internal codes.

    Notebook 07, through better_registry.
    """
    out = {
        "order": record["order_id"],
        "status": record["status"],
        "items": [f"{it['qty']} x {it['name']}" for it in record["items"]],
    }
    carrier = record.get("carrier")
    if carrier:
        out["shipped_with"] = CARRIER_NAMES.get(carrier["code"], carrier["code"])
        out["tracking"] = carrier["tracking"]
    return out


# --------------------------------------------------------------------------------------------
# the same tool, twice


def weak_registry(orders: dict | None = None) -> ToolRegistry:
    """The tool as it often comes out first: ``get(id)``, "Gets stuff.", error "failed".

    Notebook 07.
    """
    book: dict[Any, dict] = copy.deepcopy(ORDERS if orders is None else orders)  # a model may send any id

    def get(**kwargs: Any) -> dict:
        record = book.get(kwargs.get("id"))
        if record is None:
            raise ToolError("failed")
        return record

    registry = ToolRegistry()
    registry.register(Tool("get", "Gets stuff.", get, {"type": "object", "properties": {"id": {}}, "required": ["id"]}))
    return registry


BETTER_DESCRIPTION = (
    "Fetch a single customer order by its id and report its status and what is in it. "
    "Call it once the user has told you an order id. Read-only: it never changes, cancels "
    "or refunds anything. Answers concisely unless you ask for response_format='detailed', "
    "which adds internal codes that are rarely needed."
)


def better_registry(orders: dict | None = None) -> ToolRegistry:
    """The same tool, rewritten: ``orders_get(order_id, response_format)``.

    Notebook 07.
    """
    orders = copy.deepcopy(ORDERS if orders is None else orders)

    def orders_get(order_id: str, response_format: Literal["concise", "detailed"] = "concise") -> dict:
        """Fetch one order.

        Args:
            order_id: the order's id as the user gave it, for example A1
            response_format: concise (readable summary) or detailed (the full record)
        """
        record = orders.get(order_id)
        if record is None:
            known = " or ".join(sorted(orders)[:2])
            raise ToolError(
                f"No order {order_id!r}. Order ids are one capital letter and a digit, "
                f"such as {known}. Ask the user to check the id; do not guess one."
            )
        return record if response_format == "detailed" else concise_view(record)

    registry = ToolRegistry()
    registry.add(orders_get, description=BETTER_DESCRIPTION)
    return registry


# --------------------------------------------------------------------------------------------
# a mock model that reads literally

_ID = re.compile(r"\b[A-Z]\d+\b")
_WORD = re.compile(r"[a-z]+")


def id_tokens(text: str) -> list[tuple[int, str]]:
    """Every id-like token (a capital letter and digits, such as B7 or C17) with its position.

    Notebook 07, through LiteralReader.
    """
    return [(m.start(), m.group()) for m in _ID.finditer(text or "")]


def _hint_words(name: str, spec: Any) -> set[str]:
    words = set(_WORD.findall(name.lower().replace("_", " ")))
    if isinstance(spec, dict):
        words |= set(_WORD.findall(str(spec.get("description", "")).lower()))
    return {w for w in words if len(w) > 2 and w not in {"the", "for", "and", "such", "example", "id", "ids"}}


def _fill(name: str, spec: Any, text: str) -> str | None:
    """The id the request gives for this parameter: the first id after a word the parameter's
    name or description mentions; failing that, the first id in the request."""
    ids = id_tokens(text)
    if not ids:
        return None
    lower = text.lower()
    for word in sorted(_hint_words(name, spec)):
        for m in re.finditer(rf"\b{re.escape(word)}\b", lower):
            after = [tok for pos, tok in ids if pos > m.start()]
            if after:
                return after[0]
    return ids[0][1]


class LiteralReader:
    """A mock model (a rule, not a language model) that acts only on the text it is given.

    Turn 1: it calls the first tool offered and fills each required parameter with an id from
    the user's message, chosen by :func:`_fill`. After a tool error it does what the error
    text asks if it asks anything ("ask the user"); otherwise it repeats the same call once,
    then apologises. After a success it reports what the tool returned.

    Notebook 07.
    """

    def __init__(self) -> None:
        self.turn = 0

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        user = next(m["content"] for m in messages if m["role"] == "user")
        last = messages[-1]
        if last["role"] == "user":
            tool = tools[0]
            schema = tool.get("inputSchema") or {}
            props = schema.get("properties") or {}
            args = {}
            for pname in schema.get("required") or []:
                value = _fill(pname, props.get(pname), user)
                if value is not None:
                    args[pname] = value
            return {"tool_calls": [{"id": f"call_{self.turn}", "name": tool["name"], "arguments": args}]}
        if last["role"] == "tool" and last.get("is_error"):
            error = last["content"]
            if "ask the user" in error.lower():
                return {
                    "content": f"I could not find that order, and the system says why: {error} "
                    "Could you check the order id for me?"
                }
            tries = sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
            if tries < 2:
                previous = next(m for m in reversed(messages) if m["role"] == "assistant")["tool_calls"][0]
                return {"tool_calls": [dict(previous, id=f"call_{self.turn}")]}
            return {"content": "Sorry, I could not look that up. The tool said only: " + error}
        return {"content": "Here is what I found: " + str(last.get("content"))}


# --------------------------------------------------------------------------------------------
# dump everything, or filter first


def order_book(n: int = 120, seed: int = 0) -> list[dict]:
    """``n`` made-up orders (detailed records) for a handful of customers, reproducible for a seed.

    Notebook 07.
    """
    rng = random.Random(seed)
    names = ["Blue kettle", "White mug", "Green desk lamp", "Oak shelf", "Wool blanket", "Steel bottle"]
    statuses = ["pending", "shipped", "delivered", "canceled"]
    book = []
    for i in range(n):
        items = []
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(names)
            items.append(
                {
                    "sku": f"{name[:3].upper()}-{rng.randint(1000, 9999)}",
                    "product_uuid": f"{rng.getrandbits(128):032x}",
                    "name": name,
                    "qty": rng.randint(1, 3),
                    "unit_price_cents": rng.randint(500, 9000),
                }
            )
        book.append(
            {
                "order_id": f"{'ABCDEFGH'[i % 8]}{i // 8 + 1}",
                "customer_id": f"C{rng.randint(10, 29)}",
                "status": rng.choice(statuses),
                "created_at": f"2026-10-{rng.randint(1, 28):02d}",
                "warehouse": f"WH-EU-0{rng.randint(1, 6)}",
                "items": items,
                "carrier": None,
            }
        )
    return book


def list_orders_tool(book: list[dict]) -> Tool:
    """``list_orders()``: every order, every field. The model has to scan it all.

    Notebook 07.
    """

    def list_orders() -> list:
        return book

    return Tool(
        "list_orders",
        "List all orders.",
        list_orders,
        {"type": "object", "properties": {}, "additionalProperties": False},
    )


def search_orders_tool(book: list[dict]) -> Tool:
    """``orders_search(customer_id, status=None)``: only the matching orders, concisely.

    Notebook 07.
    """

    def orders_search(customer_id: str, status: str | None = None) -> list:
        hits = [o for o in book if o["customer_id"] == customer_id and (status is None or o["status"] == status)]
        if not hits:
            raise ToolError(
                f"No orders for customer {customer_id!r}"
                + (f" with status {status!r}" if status else "")
                + ". Customer ids look like C17; check the id, or drop the status filter."
            )
        return [concise_view(o) for o in hits]

    schema = {
        "type": "object",
        "properties": {
            "customer_id": {"type": "string", "description": "such as C17"},
            "status": {
                "type": "string",
                "enum": ["pending", "shipped", "delivered", "canceled"],
                "description": "only orders with this status",
            },
        },
        "required": ["customer_id"],
        "additionalProperties": False,
    }
    return Tool(
        "orders_search",
        "Find one customer's orders, optionally only those with one status. Returns a short summary of each.",
        orders_search,
        schema,
    )


# --------------------------------------------------------------------------------------------
# showing two things next to each other


class SideBySide:
    """Columns of JSON (or text) next to each other in a notebook; plain text elsewhere.

    Notebook 07.
    """

    def __init__(self, columns: dict[str, Any]) -> None:
        self.columns = dict(columns)

    @staticmethod
    def _text(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)

    def _repr_html_(self) -> str:
        cols = "".join(
            f"<div><b>{html.escape(title)}</b><pre style='font-size:12px;white-space:pre-wrap'>"
            f"{html.escape(self._text(value))}</pre></div>"
            for title, value in self.columns.items()
        )
        return f"<div style='display:grid;grid-template-columns:repeat({len(self.columns)},1fr);gap:14px'>{cols}</div>"

    def __repr__(self) -> str:
        return "\n\n".join(f"== {title} ==\n{self._text(value)}" for title, value in self.columns.items())
