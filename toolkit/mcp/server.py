"""A small MCP server: the lifecycle, tools/list with paging, tools/call, and the stdio loop.

Pack §2.6. :class:`MCPServer`, the lesson server, wraps a :class:`~toolkit.registry.ToolRegistry`
and speaks the revisions that open with ``initialize`` up to the pack's, 2025-06-18, which is
therefore also its latest (see :mod:`toolkit.mcp.revisions`). Under 2025-06-18 it follows the
pack's reading of the two kinds of error: an unknown tool or arguments that break the schema
are protocol errors (-32602, handled by the host); a failure inside the tool is a normal
result with ``isError: true``, which the model reads and can act on.

:class:`LatestRevisionServer` is the same server speaking 2025-11-25 too, an extension beyond
the pack: in a session that negotiated 2025-11-25 (SEP-1303) schema-breaking arguments move to
the second kind; an unknown tool stays the first.
"""

from __future__ import annotations

import base64
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from ..registry import ToolRegistry
from ..schema import validate_args
from .context import Outbox, RequestContext
from .logs import check_level
from .prompts import Prompts
from .protocol import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MCPError,
    decode_line,
    encode_line,
    error_response,
    is_response,
    result_response,
    valid_id,
)
from .resources import Resources
from .revisions import (
    HANDSHAKE_VERSIONS,
    META_VERSION_KEY,
    STATELESS_VERSIONS,
    SUPPORTED_VERSIONS,
    accepts_batches,
    negotiate,
    schema_errors_are_tool_results,
)
from .tools import ServerTool

__all__ = [
    "MCPServer",
    "LatestRevisionServer",
    "serve_lines",
    "serve_stdio",
    "bounded_lines",
    "LineTooLong",
    "MAX_LINE_BYTES",
]

_CURSOR = re.compile(r"^[0-9]{1,9}$", re.ASCII)

#: What a handler returns for a request answered later, or never: the reply to a 2026-07-28
#: ``subscriptions/listen`` is due only when the stream ends (see toolkit/mcp/subscriptions.py).
NO_REPLY: Any = object()


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _decode_cursor(cursor: Any) -> int:
    if not isinstance(cursor, str):
        raise MCPError(INVALID_PARAMS, "Invalid cursor: it must be the string from a previous nextCursor")
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (ValueError, UnicodeError):
        text = ""
    prefix, _, number = text.partition(":")
    if prefix != "offset" or not _CURSOR.match(number):
        raise MCPError(INVALID_PARAMS, "Invalid cursor: it must be the string from a previous nextCursor")
    return int(number)


def _meta_version(params: dict) -> str | None:
    """The protocol version a 2026-07-28 request names in ``params._meta``, if any."""
    meta = params.get("_meta")
    value = meta.get(META_VERSION_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


class MCPServer:
    """Answers MCP messages for the tools in ``registry``.

    :meth:`handle` takes one parsed message and returns the reply (a dict), or None for a
    notification. It never raises: malformed input gets a JSON-RPC error, and an unexpected
    fault inside a handler becomes -32603 with the request's id. In a session that
    negotiated 2025-03-26, the one revision with JSON-RPC batches, a batch (a JSON array)
    gets a list of replies, or None when it held only notifications.

    Notebook 06.
    """

    #: The revisions this server speaks: 2024-11-05 up to the pack's 2025-06-18, its latest.
    #: A subclass may change it (:class:`LatestRevisionServer` adds 2025-11-25); initialize
    #: answers a version outside it with the latest one inside, and the HTTP transport checks
    #: the MCP-Protocol-Version header against it.
    SUPPORTED: tuple[str, ...] = SUPPORTED_VERSIONS

    def __init__(
        self,
        registry: ToolRegistry,
        name: str = "toy-tools",
        version: str = "0.1.0",
        title: str = "Toy Tools",
        instructions: str | None = None,
        page_size: int | None = None,
        tools: tuple[ServerTool, ...] = (),
        resources: Resources | None = None,
        prompts: Prompts | None = None,
        logging: bool = False,
    ) -> None:
        if not self.SUPPORTED or not all(isinstance(v, str) for v in self.SUPPORTED):
            raise ValueError(
                f"{type(self).__name__}.SUPPORTED must list at least one protocol revision "
                f"as a string such as '2025-06-18' (it is {self.SUPPORTED!r})"
            )
        self.registry = registry
        self.name = name
        self.version = version
        self.title = title
        self.instructions = instructions
        self.page_size = page_size
        self.server_tools = {t.name: t for t in tools}
        self.resources = resources
        self.prompts = prompts
        self.logging = logging
        self.log_level: str | None = None  # set by logging/setLevel; None: send every level
        self.client_capabilities: dict | None = None
        self.outbox: Outbox | None = None  # the transport's channel for messages outside a request
        self.initialized = False
        self.ready = False
        self.protocol_version: str | None = None

    # -- entry point -------------------------------------------------------------------------

    def handle(self, msg: Any, outbox: Outbox | None = None) -> dict | list | None:
        if isinstance(msg, list):
            if self.initialized and accepts_batches(self.protocol_version):
                return self._batch(msg)
            return error_response(
                None,
                INVALID_REQUEST,
                "Invalid Request: batches (JSON arrays) are not supported; "
                "revision 2025-06-18 removed JSON-RPC batching (only a session "
                "that negotiated 2025-03-26 may send them)",
            )
        return self._message(msg, outbox)

    def _batch(self, batch: list) -> list | dict | None:
        """Each member handled on its own, replies in order (2025-03-26 only)."""
        if not batch:
            return error_response(None, INVALID_REQUEST, "Invalid Request: an empty batch")
        replies = []
        for item in batch:
            reply: dict | None
            if isinstance(item, list):
                reply = error_response(None, INVALID_REQUEST, "Invalid Request: a batch cannot hold a batch")
            elif isinstance(item, dict) and item.get("method") == "initialize" and "id" in item:
                reply = error_response(
                    item["id"], INVALID_REQUEST, "Invalid Request: initialize must not be part of a batch"
                )
            else:
                reply = self._message(item)
            if reply is not None:
                replies.append(reply)
        return replies or None

    def _message(self, msg: Any, outbox: Outbox | None = None) -> dict | None:
        if not isinstance(msg, dict):
            return error_response(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        if is_response(msg):
            return None  # this server sends no requests, so there is nothing to match it to
        has_id = "id" in msg
        id_ = msg.get("id")
        if has_id and not valid_id(id_):
            return error_response(
                None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer (not null or a boolean)"
            )
        if msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            return error_response(id_ if has_id else None, INVALID_REQUEST, "Invalid Request")
        method = msg["method"]
        params = msg.get("params", {})
        if not has_id:
            self._notification(method, params)
            return None
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return error_response(id_, INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            result = self._request(method, params, outbox)
            return None if result is NO_REPLY else result_response(id_, result)
        except MCPError as exc:
            return error_response(id_, exc.code, exc.message, exc.data)
        except Exception as exc:  # a bug in a handler must not kill the session
            return error_response(id_, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")

    # -- notifications and requests ----------------------------------------------------------

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/initialized" and self.initialized:
            self.ready = True

    def connection_closed(self) -> None:
        """The transport's connection ended (stdin closed); a subclass lets go of what it held."""

    def _request(self, method: str, params: dict, outbox: Outbox | None = None) -> dict:
        if method == "ping":
            return {}
        if method == "initialize":
            return self._initialize(params)
        if method == "server/discover":  # 2026-07-28's probe: answered as an older server would
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: server/discover; {self._speaks()}")
        if not self.initialized:
            hint = f"; {self._speaks()}" if _meta_version(params) is not None else ""
            raise MCPError(INVALID_REQUEST, "Server not initialized" + hint)
        if method == "tools/list":
            return self._tools_list(params)
        if method == "tools/call":
            return self._tools_call(params, RequestContext(self, outbox, params))
        handler = self._handlers().get(method)
        if handler is None:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler(params, RequestContext(self, outbox, params))

    def _handlers(self) -> dict[str, Callable[[dict, RequestContext], dict]]:
        """The methods beyond tools, each only when the server has that capability."""
        table: dict = {}
        if self.resources is not None:
            table.update({"resources/list": self._resources_list, "resources/read": self._resources_read})
            table.update({"resources/templates/list": self._templates_list})
            table.update({"resources/subscribe": self._subscribe, "resources/unsubscribe": self._unsubscribe})
        if self.prompts is not None:
            table.update({"prompts/list": self._prompts_list, "prompts/get": self._prompts_get})
        if self.logging:
            table["logging/setLevel"] = self._set_level
        if self.resources is not None or self.prompts is not None:
            table["completion/complete"] = self._complete
        return table

    def capabilities(self) -> dict:
        """What this server offers, as initialize announces it: only what it has."""
        caps: dict = {"tools": {"listChanged": False}}
        if self.resources is not None:
            caps["resources"] = {"subscribe": True, "listChanged": False}
        if self.prompts is not None:
            caps["prompts"] = {"listChanged": False}
        if self.logging:
            caps["logging"] = {}
        if self.resources is not None or self.prompts is not None:
            caps["completions"] = {}
        return caps

    def _speaks(self) -> str:
        """What a request of revision 2026-07-28 is told: this server knows only the handshake.

        Such a server must not answer with an error that revision defines (-32020 to -32022):
        a dual-era client takes one as a sign of a 2026-07-28 server and does not fall back to
        ``initialize`` (2026-07-28 basic/transports/stdio.mdx:129-141). So the lesson server
        answers like any server from before it: -32601 for ``server/discover``, "Server not
        initialized" for other requests, with its revisions named in the message."""
        return "this server speaks only the revisions that begin with initialize: " + ", ".join(self.SUPPORTED)

    def _initialize(self, params: dict) -> dict:
        missing = [k for k in ("protocolVersion", "capabilities", "clientInfo") if k not in params]
        if missing:
            raise MCPError(INVALID_PARAMS, "Invalid params: initialize needs " + ", ".join(missing))
        asked = params["protocolVersion"]
        if (
            not isinstance(asked, str)
            or not isinstance(params["capabilities"], dict)
            or not isinstance(params["clientInfo"], dict)
        ):
            raise MCPError(
                INVALID_PARAMS, "Invalid params: protocolVersion must be a string, capabilities and clientInfo objects"
            )
        version = negotiate(asked, [v for v in self.SUPPORTED if v not in STATELESS_VERSIONS])
        self.protocol_version = version
        self.client_capabilities = params["capabilities"]
        self.initialized = True
        result = {
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": {"name": self.name, "title": self.title, "version": self.version},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _tools_list(self, params: dict) -> dict:
        return self._page("tools", self.tool_specs(), params)

    def tool_specs(self) -> list[dict]:
        """Every tool as ``tools/list`` shows it: the registry's, then the ``ServerTool``s."""
        return [t.to_mcp() for t in self.registry.tools()] + [t.to_mcp() for t in self.server_tools.values()]

    def _page(self, key: str, items: list, params: dict) -> dict:
        """One page of a list method: ``page_size`` items from the cursor on, and the next cursor."""
        start = _decode_cursor(params["cursor"]) if params.get("cursor") is not None else 0
        if start > len(items):
            raise MCPError(INVALID_PARAMS, "Invalid cursor: it points past the end of the list")
        if not self.page_size:
            return {key: items[start:]}
        end = start + self.page_size
        out: dict = {key: items[start:end]}
        if end < len(items):
            out["nextCursor"] = _encode_cursor(end)
        return out

    def _tools_call(self, params: dict, context: RequestContext) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
        args = params.get("arguments", {})
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise MCPError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
        server_tool = self.server_tools.get(name)
        tool = server_tool or self.registry.get(name)
        if tool is None:
            available = self.registry.names() + list(self.server_tools)
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}", {"available": available})
        errors = validate_args(args, tool.input_schema)
        if errors and not schema_errors_are_tool_results(self.protocol_version):
            raise MCPError(INVALID_PARAMS, f"Invalid arguments for tool {name!r}: " + "; ".join(errors))
        if server_tool is not None:
            if errors:
                return {
                    "content": [{"type": "text", "text": "Invalid arguments: " + "; ".join(errors)}],
                    "isError": True,
                }
            return server_tool.call(args, context)
        # From 2025-11-25 the registry's own answer to bad arguments (kind invalid_args, text
        # that names each error and the expected parameters) goes back as an isError result.
        result = self.registry.run(name, args, repair=False)
        out: dict = {"content": [{"type": "text", "text": result.content}], "isError": not result.ok}
        if result.ok and isinstance(result.data, dict):
            out["structuredContent"] = result.data
        return out

    # -- resources, prompts, logging, completion (only with the capability) -------------------

    def _resources_list(self, params: dict, context: RequestContext) -> dict:
        assert self.resources is not None
        return self._page("resources", self.resources.listing(), params)

    def _templates_list(self, params: dict, context: RequestContext) -> dict:
        assert self.resources is not None
        return self._page("resourceTemplates", self.resources.template_listing(), params)

    def _resources_read(self, params: dict, context: RequestContext) -> dict:
        assert self.resources is not None
        return self.resources.read(params.get("uri"))

    def _subscribe(self, params: dict, context: RequestContext) -> dict:
        assert self.resources is not None
        return self.resources.subscribe(params.get("uri"))

    def _unsubscribe(self, params: dict, context: RequestContext) -> dict:
        assert self.resources is not None
        return self.resources.subscribe(params.get("uri"), on=False)

    def resource_updated(self, uri: str) -> bool:
        """Tell a subscribed client that ``uri`` changed (through :attr:`outbox`); True if sent."""
        if self.resources is None or uri not in self.resources.subscribed or self.outbox is None:
            return False
        self.outbox.notify({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
        return True

    def _prompts_list(self, params: dict, context: RequestContext) -> dict:
        assert self.prompts is not None
        return self._page("prompts", self.prompts.listing(), params)

    def _prompts_get(self, params: dict, context: RequestContext) -> dict:
        assert self.prompts is not None
        return self.prompts.get(params.get("name"), params.get("arguments"), context)

    def _set_level(self, params: dict, context: RequestContext) -> dict:
        self.log_level = check_level(params.get("level"))
        return {}

    def _complete(self, params: dict, context: RequestContext) -> dict:
        """completion/complete: the argument's known choices that start with what was typed."""
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, dict) or not isinstance(argument, dict):
            raise MCPError(INVALID_PARAMS, "Invalid params: completion/complete needs 'ref' and 'argument' objects")
        choices: tuple = ()
        if ref.get("type") == "ref/prompt" and self.prompts is not None:
            choices = self.prompts.choices(str(ref.get("name")), str(argument.get("name")))
        typed = str(argument.get("value", ""))
        values = [c for c in choices if c.startswith(typed)][:100]
        return {"completion": {"values": values, "total": len(values), "hasMore": False}}


class LatestRevisionServer(MCPServer):
    """:class:`MCPServer` that also speaks revision 2025-11-25, beyond the pack's 2025-06-18.

    Its latest, and so its answer to a version it does not speak, is 2025-11-25. A session
    that negotiated 2025-11-25 gets that revision's behaviour: arguments that break the schema
    come back as a result with ``isError: true`` the model can read (SEP-1303), while an
    unknown tool stays a protocol error. Sessions on older revisions behave exactly as with
    :class:`MCPServer`. ``python -m toolkit serve --latest`` runs this one (pack §2.6,
    assignment Part D).

    Notebook 06.
    """

    SUPPORTED: tuple[str, ...] = HANDSHAKE_VERSIONS


# One stdio message may be at most this many bytes (newline not counted). A longer line is
# read and dropped in pieces of _DISCARD_CHUNK bytes, so it never sits in memory whole.
MAX_LINE_BYTES = 1024 * 1024
_DISCARD_CHUNK = 64 * 1024


class LineTooLong:
    """Stands in for a line that was over the limit and has been discarded unread.

    Used by: python -m toolkit serve.
    """

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit

    def reply(self) -> dict:
        return error_response(
            None,
            INVALID_REQUEST,
            f"Invalid Request: a line of {self.size:,} bytes; this server reads at most "
            f"{self.limit:,} bytes per message, so the line was discarded unread. "
            "Send each JSON-RPC message on one line, within the limit",
            {"maxLineBytes": self.limit, "lineBytes": self.size},
        )


def bounded_lines(stream: BinaryIO, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | LineTooLong]:
    """The lines of a binary ``stream``, each at most ``max_line`` bytes before its newline.

    A longer line is not kept: the rest of it is read in small chunks up to its newline and
    dropped, and a :class:`LineTooLong` takes its place, so one huge line costs a bounded
    amount of memory and the lines after it are read as usual. (Pack §2.6: one message per line.)

    Used by: python -m toolkit serve.
    """
    if max_line < 1:
        raise ValueError(f"max_line must be at least 1 byte (got {max_line})")
    while True:
        line = stream.readline(max_line + 1)  # room for the newline after a line at the limit
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= max_line:
            yield line
            continue
        size = len(line)
        while not line.endswith(b"\n"):
            line = stream.readline(_DISCARD_CHUNK)
            if not line:
                break  # the stream ended inside the long line
            size += len(line)
        yield LineTooLong(size - line.endswith(b"\n"), max_line)


def _line_size(line: str | bytes, max_line: int) -> int:
    """The UTF-8 size of ``line``; a str is only encoded when it might be over the limit."""
    if isinstance(line, (bytes, bytearray)) or len(line) * 4 <= max_line:
        return len(line)
    return len(line.encode("utf-8", "surrogatepass"))


def serve_lines(
    server: MCPServer,
    lines: Iterable[str | bytes | LineTooLong],
    write: Callable[[str], Any],
    trace: Callable[[str, str], Any] | None = None,
    max_line: int = MAX_LINE_BYTES,
) -> None:
    """The stdio loop: one message per line in, one reply per request out.

    Blank lines are skipped; a line that is not JSON gets a -32700 reply with id null;
    notifications get nothing. A line over ``max_line`` bytes (newline not counted), or a
    :class:`LineTooLong` from :func:`bounded_lines`, gets one -32600 reply with id null that
    names the limit, and the loop goes on. ``write`` receives each reply as one encoded line.
    ``trace``, if given, sees the wire: ``("->", line)`` for each line read and ``("<-",
    line)`` for each line written. While a request is being handled the server may write
    notifications and requests of its own (progress, logs, elicitation); the loop keeps
    reading lines until the client's reply to such a request arrives.

    Used by: python -m toolkit serve.
    """
    loop = _LineLoop(server, iter(lines), write, trace, max_line)
    if server.outbox is None:
        server.outbox = loop  # resource updates go out on the same stream
    try:
        while loop.step():
            pass
    finally:
        server.connection_closed()


class _LineLoop:
    """One stdio session: reads lines, answers them, and is the server's outbox."""

    def __init__(self, server: MCPServer, lines: Iterator, write: Callable, trace: Callable | None, max_line: int):
        self.server, self.lines, self.write, self.trace, self.max_line = server, lines, write, trace, max_line
        self.waiting: set = set()  # ids of the server's requests still unanswered
        self.replies: dict = {}  # the client's replies to them, by id
        self.lock = threading.Lock()  # a change published from another thread writes here too

    def emit(self, text: str) -> None:
        with self.lock:
            if self.trace is not None:
                self.trace("<-", text.rstrip("\n"))
            self.write(text)

    def notify(self, msg: dict) -> None:
        self.emit(encode_line(msg))

    def request(self, msg: dict) -> dict:
        self.waiting.add(msg["id"])
        self.emit(encode_line(msg))
        while msg["id"] not in self.replies:
            if not self.step():
                raise MCPError(CONNECTION_CLOSED, "Connection closed: stdin ended before the client replied")
        self.waiting.discard(msg["id"])
        return self.replies.pop(msg["id"])

    def step(self) -> bool:
        """Read and answer one line; False when the input has ended."""
        line = next(self.lines, None)
        if line is None:
            return False
        if not isinstance(line, LineTooLong):
            if not line.strip():
                return True
            size = _line_size(line.rstrip(b"\r\n") if isinstance(line, bytes) else line.rstrip("\r\n"), self.max_line)
            if size > self.max_line:
                line = LineTooLong(size, self.max_line)
        if isinstance(line, LineTooLong):
            if self.trace is not None:
                self.trace("->", f"<a line of {line.size:,} bytes, over the {line.limit:,}-byte limit: discarded>")
            self.emit(encode_line(line.reply()))
            return True
        if self.trace is not None:
            self.trace("->", _printable(line))
        text = self.answer(line)
        if text is not None:
            self.emit(text)
        return True

    def answer(self, line: str | bytes) -> str | None:
        """The encoded reply to one line, or None when nothing is due (a notification, a reply)."""
        try:
            msg = decode_line(line)
        except MCPError as exc:
            return encode_line(error_response(None, exc.code, exc.message))
        if is_response(msg):
            if valid_id(msg.get("id")) and msg["id"] in self.waiting:
                self.replies[msg["id"]] = msg  # the client answering one of the server's requests
            return None
        reply = self.server.handle(msg, self)
        if reply is None:
            return None
        try:
            return encode_line(reply)
        except (ValueError, TypeError, RecursionError):
            id_ = reply.get("id") if isinstance(reply, dict) else None
            return encode_line(
                error_response(id_, INTERNAL_ERROR, "Internal error: the reply could not be encoded as JSON")
            )


def _printable(line: str | bytes) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, (bytes, bytearray)) else line
    return text.rstrip("\r\n")


def serve_stdio(server: MCPServer, trace: bool = False, max_line: int = MAX_LINE_BYTES) -> None:
    """Run ``server`` on this process's stdin and stdout until stdin closes.

    Standard output carries only MCP messages, so anything else that prints (a tool calling
    ``print``, say) is sent to standard error instead. With ``trace``, every line read and
    written is echoed to standard error as ``-> line`` or ``<- line`` (the wire log that
    ``python -m toolkit serve --trace`` shows). A line longer than ``max_line`` bytes is
    dropped as it is read and answered with one error (see :func:`bounded_lines`).

    Used by: python -m toolkit serve.
    """
    out = sys.stdout.buffer
    sys.stdout = sys.stderr

    def write(text: str) -> None:
        out.write(text.encode("ascii"))
        out.flush()

    def echo(arrow: str, text: str) -> None:
        sys.stderr.write(f"{arrow} {text}\n")
        sys.stderr.flush()

    serve_lines(
        server, bounded_lines(sys.stdin.buffer, max_line), write, trace=echo if trace else None, max_line=max_line
    )
