"""The ``_meta`` keys of revision 2026-07-28, where each request carries what the handshake
used to settle once (schema/2026-07-28/schema.ts, ``RequestMetaObject``; pack §2.6), and the
parts of a request that Streamable HTTP repeats in headers: ``Mcp-Name`` and the
``Mcp-Param-{name}`` of tool parameters marked ``x-mcp-header``
(basic/transports/streamable-http.mdx, "Request Metadata").
"""

from __future__ import annotations

import base64
import re
from typing import Any

from .logs import LEVELS
from .revisions import META_VERSION_KEY

__all__ = ["MODERN", "CAPABILITIES_KEY", "CLIENT_INFO_KEY", "LOG_LEVEL_KEY", "SERVER_INFO_KEY"]
__all__ += ["modern_meta", "meta_problem", "header_value", "header_text", "param_headers", "param_value", "param_text"]

MODERN = "2026-07-28"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"  # required on every request
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"  # SHOULD
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"  # optional: without it, no log messages
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"  # in each result's _meta


def modern_meta(client_name: str, client_version: str, capabilities: dict, log_level: str | None = None) -> dict:
    """The ``_meta`` a 2026-07-28 client sends on every request.

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.MCPClient.
    """
    meta = {META_VERSION_KEY: MODERN, CLIENT_INFO_KEY: {"name": client_name, "version": client_version}}
    meta[CAPABILITIES_KEY] = capabilities
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    return meta


def meta_problem(meta: object) -> str | None:
    """Why a 2026-07-28 request's ``_meta`` is malformed, or None when it is not.

    The client's capabilities are required (basic/index.mdx:380-382: without them, -32602,
    and over HTTP 400); a log level, if given, must be one of the eight
    (server/utilities/logging.mdx:100-104: -32602).

    Used by: toolkit/mcp/modern.py.
    """
    if not isinstance(meta, dict) or not isinstance(meta.get(CAPABILITIES_KEY), dict):
        return f"_meta needs {CAPABILITIES_KEY} (an object)"
    if LOG_LEVEL_KEY in meta and meta[LOG_LEVEL_KEY] not in LEVELS:
        return f"{LOG_LEVEL_KEY} must be one of {', '.join(LEVELS)} (got {meta[LOG_LEVEL_KEY]!r})"
    return None


# ---- request metadata in HTTP headers (2026-07-28 basic/transports/streamable-http.mdx) ----------

_OPEN, _CLOSE = "=?base64?", "?="  # the sentinel around a Base64 value, lower case (line 494)
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 tchar: what x-mcp-header may hold
_HEADER_TYPES = ("string", "integer", "boolean")  # not number (line 381)


def _plain(text: str) -> bool:
    """Visible ASCII, inner spaces and tabs: what a header value may carry as it is (line 483)."""
    return all(" " <= c <= "~" or c == "\t" for c in text) and text == text.strip(" \t")


def header_value(text: str) -> str:
    """``text`` as ``Mcp-Name`` or ``Mcp-Param-*`` carries it: as it is when plain, else the
    Base64 of its UTF-8 between ``=?base64?`` and ``?=``; so is a plain value that looks like
    that form (streamable-http.mdx:479-508).

    Used by: toolkit/mcp/http/transport.py.
    """
    if _plain(text) and not (text.startswith(_OPEN) and text.endswith(_CLOSE)):
        return text
    return _OPEN + base64.b64encode(text.encode("utf-8")).decode("ascii") + _CLOSE


def header_text(value: str) -> str | None:
    """What a received header value says: decoded when Base64, else as it is; None when it
    holds characters a header may not, or broken Base64 (both a mismatch, lines 624-630).

    Used by: toolkit/mcp/http/server.py.
    """
    if not all(" " <= c <= "~" or c == "\t" for c in value):
        return None
    if not (value.startswith(_OPEN) and value.endswith(_CLOSE) and len(value) >= len(_OPEN + _CLOSE)):
        return value
    try:
        return base64.b64decode(value[len(_OPEN) : -len(_CLOSE)], validate=True).decode("utf-8")
    except ValueError:  # binascii.Error and UnicodeDecodeError are both ValueErrors
        return None


def param_headers(input_schema: Any) -> dict[str, tuple[str, ...]]:
    """``{name: property path}`` for each parameter of ``input_schema`` marked ``x-mcp-header``
    (sent as ``Mcp-Param-{name}``). Raises ValueError naming the rule a mark breaks: a token
    (RFC 9110), unique ignoring case, on a string, integer or boolean, reached from the root
    through ``properties`` alone (streamable-http.mdx:364-407).

    Used by: toolkit/mcp/http/transport.py and toolkit/mcp/http/server.py.
    """
    found: dict[str, tuple[str, ...]] = {}
    _marks(input_schema, (), True, found)
    return found


def _marks(schema: Any, path: tuple[str, ...], reachable: bool, found: dict) -> None:
    if isinstance(schema, list):
        for item in schema:
            _marks(item, path, False, found)
    if not isinstance(schema, dict):
        return
    if "x-mcp-header" in schema:
        name = schema["x-mcp-header"]
        where = ".".join(path) or "the root"
        if not reachable or not path:
            raise ValueError(f"x-mcp-header at {where}: only properties reached through 'properties' may carry it")
        if not isinstance(name, str) or not _TOKEN.fullmatch(name):
            raise ValueError(f"x-mcp-header {name!r} at {where}: it must be a non-empty HTTP token")
        if schema.get("type") not in _HEADER_TYPES:
            raise ValueError(f"x-mcp-header at {where}: the type must be one of {', '.join(_HEADER_TYPES)}")
        if name.lower() in (known.lower() for known in found):
            raise ValueError(f"x-mcp-header {name!r} at {where}: the names must be unique, ignoring case")
        found[name] = path
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            for prop, sub in value.items():
                _marks(sub, (*path, str(prop)), reachable, found)
        elif key not in ("const", "enum", "default", "examples", "x-mcp-header"):  # those hold values
            _marks(value, path, False, found)


def param_value(arguments: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` (a chain of property names) in a call's ``arguments``, or None.

    Used by: toolkit/mcp/http/transport.py and toolkit/mcp/http/server.py.
    """
    for key in path:
        arguments = arguments.get(key) if isinstance(arguments, dict) else None
    return arguments


def param_text(value: Any) -> str | None:
    """A parameter's value as its header's text: ``true``/``false``, a decimal integer or the
    string (line 470); None, so no header, for anything else (null, or absent).

    Used by: toolkit/mcp/http/transport.py and toolkit/mcp/http/server.py.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value) if isinstance(value, (int, str)) else None
