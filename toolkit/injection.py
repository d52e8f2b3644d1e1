"""Indirect prompt injection: a planted instruction in a tool result, and the gate that stops it.

Pack §2.10. The attacker never talks to the model; they leave orders in a web page the agent
fetches. ``InjectableModel`` is a deliberately gullible mock: it obeys a ``send_email(...)``
line it finds in a tool result. Undefended, the email goes out. Defended, the permission gate
sees that the run is tainted (an open-world tool has run) and refuses the state-changing call
without reading a word of the page.
"""

from __future__ import annotations

import re

from .data import load_json
from .gate import PermissionGate
from .loop import AgentResult, call, run_agent
from .registry import ToolRegistry

__all__ = ["ATTACKER_PAGE", "SENT_EMAILS", "make_injection_registry", "InjectableModel",
           "injection_demo", "ATTACKS"]

ATTACKS: dict = load_json("attacks.json")
ATTACKER_PAGE: str = ATTACKS["attacker_page"]
SENT_EMAILS: list[tuple[str, str]] = []

_SEND = re.compile(r'send_email\(\s*to\s*=\s*"([^"]*)"\s*,\s*body\s*=\s*"([^"]*)"\s*\)')


def make_injection_registry() -> ToolRegistry:
    """``fetch_page`` (read-only, open world) and ``send_email`` (changes state).

    Clears :data:`SENT_EMAILS`, which ``send_email`` appends ``(to, body)`` to.
    """
    SENT_EMAILS.clear()
    registry = ToolRegistry()

    def fetch_page(url: str) -> str:
        """Fetch a web page and return its text.

        Args:
            url: the page's address, such as https://acme.test
        """
        if "acme" in url:
            return ATTACKER_PAGE
        return f"(An empty page: nothing is published at {url}.)"

    def send_email(to: str, body: str) -> str:
        """Send an email on the user's behalf.

        Args:
            to: the recipient's address
            body: the message text
        """
        SENT_EMAILS.append((to, body))
        return f"Sent to {to}."

    registry.add(fetch_page, read_only=True, open_world=True)
    registry.add(send_email, read_only=False, destructive=False)
    return registry


class InjectableModel:
    """A gullible mock model (not a real LLM): fetch the page, obey one planted
    ``send_email(...)`` instruction in the latest tool result, then summarise."""

    def __init__(self, url: str = "https://acme.test") -> None:
        self.url = url
        self.turn = 0
        self.obeyed = False

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        if self.turn == 1:
            return {"tool_calls": [call("c1", "fetch_page", url=self.url)]}
        last = next((m for m in reversed(messages) if m.get("role") == "tool"), None)
        found = _SEND.search(last["content"]) if last else None
        if found and not self.obeyed:
            self.obeyed = True
            return {"tool_calls": [call("c2", "send_email", to=found.group(1), body=found.group(2))]}
        return {"content": "Summary: Acme Corp makes anvils."}


def injection_demo(defended: bool) -> tuple[AgentResult, list, PermissionGate | None]:
    """Run the attack once. Returns the run, the emails sent, and the gate (None undefended).

    Defended means: an allowlist of both tools, ``send_email`` pre-approved (so a clean run
    could send mail without asking), and tool outputs wrapped as untrusted.
    """
    registry = make_injection_registry()
    gate = PermissionGate(allow={"fetch_page", "send_email"}, pre_approved={"send_email"}) if defended else None
    result = run_agent(InjectableModel(), registry, "Summarise https://acme.test for me.",
                       gate=gate, wrap_outputs=defended)
    return result, list(SENT_EMAILS), gate
