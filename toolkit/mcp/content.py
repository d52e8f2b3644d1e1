"""MCP's content blocks: what a tool result, a prompt message or a sampling reply carries.

Pack §2.6. A block is a JSON object with a ``type``: ``text``, ``image`` and ``audio`` (base64
``data`` and a ``mimeType``), ``resource_link`` (a URI the client may read later) and
``resource`` (an embedded resource: its ``uri`` with ``text`` or base64 ``blob``). Prompt
messages use the same blocks (2025-06-18 server/prompts); ``resource_link`` appeared in
2025-06-18.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .protocol import INTERNAL_ERROR, MCPError

__all__ = ["text", "image", "audio", "resource_link", "embedded", "CONTENT_TYPES", "check_block"]

CONTENT_TYPES = ("text", "image", "audio", "resource_link", "resource")


def text(value: str) -> dict:
    """A text block.

    Shown in section 5, "A prompt the user picks".
    Notebook 06, through mcp.course.course_server.
    """
    return {"type": "text", "text": value}


def image(data: str, mime_type: str = "image/png") -> dict:
    """An image block: ``data`` is base64.

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06.
    """
    return {"type": "image", "data": data, "mimeType": mime_type}


def audio(data: str, mime_type: str = "audio/wav") -> dict:
    """An audio block: ``data`` is base64.

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06.
    """
    return {"type": "audio", "data": data, "mimeType": mime_type}


def resource_link(uri: str, name: str, mime_type: str | None = None, description: str | None = None) -> dict:
    """A link to a resource the client can read with ``resources/read`` (not its contents).

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06.
    """
    out: dict = {"type": "resource_link", "uri": uri, "name": name}
    if mime_type:
        out["mimeType"] = mime_type
    if description:
        out["description"] = description
    return out


def embedded(uri: str, text: str | None = None, blob: str | None = None, mime_type: str = "text/plain") -> dict:
    """An embedded resource: its contents travel inside the block (exactly one of text/blob).

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06.
    """
    if (text is None) == (blob is None):
        raise ValueError("an embedded resource has exactly one of text or blob")
    contents: dict = {"uri": uri, "mimeType": mime_type}
    contents["text" if text is not None else "blob"] = text if text is not None else blob
    return {"type": "resource", "resource": contents}


def check_block(block: Any) -> dict:
    """``block`` if it is a well-formed content block, else :class:`MCPError` (-32603) naming
    what is wrong: a server bug must not reach the client as a malformed result.

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06, through mcp.ServerTool.
    """
    kind = block.get("type") if isinstance(block, dict) else None
    if kind not in CONTENT_TYPES:
        raise MCPError(INTERNAL_ERROR, f"Internal error: a content block has type {kind!r}, not one of {CONTENT_TYPES}")
    assert isinstance(block, dict)
    need = {"text": ("text",), "image": ("data", "mimeType"), "audio": ("data", "mimeType")}
    need.update({"resource_link": ("uri", "name"), "resource": ("resource",)})
    missing = [key for key in need[kind] if key not in block]
    if missing:
        raise MCPError(INTERNAL_ERROR, f"Internal error: a {kind} block lacks {', '.join(missing)}")
    if kind in ("image", "audio"):
        try:
            base64.b64decode(block["data"], validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise MCPError(INTERNAL_ERROR, f"Internal error: the {kind} block's data is not base64") from None
    return block
