"""Resources: data a server exposes by URI for the application to read (pack §2.6).

The host decides what to read and when (resources are "application-controlled", 2025-06-18
server/resources). ``resources/list`` names the fixed ones; ``resources/templates/list`` gives
URI templates (RFC 6570 level 1, ``file:///notes/{day}``) that a client fills in;
``resources/read`` returns ``contents``, each with the URI and ``text`` or base64 ``blob``.
A client that ``resources/subscribe``-d to a URI hears ``notifications/resources/updated``
when it changes; an unknown URI is error -32002.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .protocol import INVALID_PARAMS, MCPError

__all__ = ["Resource", "ResourceTemplate", "Resources", "RESOURCE_NOT_FOUND"]

RESOURCE_NOT_FOUND = -32002


@dataclass
class Resource:
    """One resource: its ``uri``, a ``name``, and ``read()`` giving its text (or ``blob``, base64).

    Shown in section 5, "A resource the application reads for the model".
    Notebook 06, through mcp.course.course_server.
    """

    uri: str
    name: str
    read: Callable[[], str]
    mime_type: str = "text/plain"
    title: str | None = None
    description: str | None = None
    binary: bool = False  # read() returns base64 to send as ``blob``

    def listing(self) -> dict:
        out = {"uri": self.uri, "name": self.name, "mimeType": self.mime_type}
        out.update({k: v for k, v in (("title", self.title), ("description", self.description)) if v})
        return out

    def contents(self, uri: str | None = None) -> dict:
        return {"uri": uri or self.uri, "mimeType": self.mime_type, ("blob" if self.binary else "text"): self.read()}


@dataclass
class ResourceTemplate:
    """A family of resources: ``uri_template`` such as ``test://template/{id}/data`` and
    ``read(variables)`` giving the text for one filled-in URI.

    Shown in section 5, "A resource the application reads for the model".
    Notebook 06, through mcp.course.course_server.
    """

    uri_template: str
    name: str
    read: Callable[[dict], str]
    mime_type: str = "text/plain"
    title: str | None = None
    description: str | None = None
    pattern: re.Pattern = field(init=False, repr=False)

    def __post_init__(self) -> None:
        parts = re.split(r"\{(\w+)\}", self.uri_template)
        regex = "".join(f"(?P<{p}>[^/]+)" if i % 2 else re.escape(p) for i, p in enumerate(parts))
        self.pattern = re.compile(regex + r"\Z")

    def listing(self) -> dict:
        out = {"uriTemplate": self.uri_template, "name": self.name, "mimeType": self.mime_type}
        out.update({k: v for k, v in (("title", self.title), ("description", self.description)) if v})
        return out

    def match(self, uri: str) -> dict | None:
        found = self.pattern.match(uri)
        return found.groupdict() if found else None


class Resources:
    """The resources and templates of one server, and which URIs the client subscribed to.

    Shown in section 5, "A resource the application reads for the model".
    Notebook 06, through mcp.course.course_server.
    """

    def __init__(self, resources: tuple = (), templates: tuple = ()) -> None:
        self.fixed = {r.uri: r for r in resources}
        self.templates = list(templates)
        self.subscribed: set[str] = set()

    def listing(self) -> list[dict]:
        return [r.listing() for r in self.fixed.values()]

    def template_listing(self) -> list[dict]:
        return [t.listing() for t in self.templates]

    def read(self, uri: object) -> dict:
        if not isinstance(uri, str):
            raise MCPError(INVALID_PARAMS, "Invalid params: resources/read needs a string 'uri'")
        if uri in self.fixed:
            return {"contents": [self.fixed[uri].contents()]}
        for template in self.templates:
            variables = template.match(uri)
            if variables is not None:
                text = template.read(variables)
                return {"contents": [{"uri": uri, "mimeType": template.mime_type, "text": text}]}
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})

    def subscribe(self, uri: object, on: bool = True) -> dict:
        if not isinstance(uri, str):
            raise MCPError(INVALID_PARAMS, "Invalid params: a subscription needs a string 'uri'")
        (self.subscribed.add if on else self.subscribed.discard)(uri)
        return {}
