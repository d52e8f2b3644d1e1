"""Two ways to carry MCP messages: in memory (for lessons) and stdio (a real child process).

Pack §2.6 ("Transports"). With stdio the client starts the server as a child process and
they exchange one JSON message per line; the server's standard error is for logs only.
Both transports keep a ``log`` of ``("->", message)`` and ``("<-", message)`` pairs so a
lesson can show the wire.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import protocol as rpc
from .listening import cancel_notice
from .protocol import CONNECTION_CLOSED, METHOD_NOT_FOUND, MCPError, decode_line, encode_line

if TYPE_CHECKING:  # for the annotation only: a client that talks stdio never loads the server
    from .context import Outbox  # noqa: F401  (named in a docstring)
    from .server import MCPServer

__all__ = ["InMemoryTransport", "StdioTransport"]


class InMemoryTransport:
    """Hands each message straight to an :class:`~toolkit.mcp.server.MCPServer`.

    Messages still pass through JSON text both ways, so anything that would not survive
    the wire (a tuple, a set, a float key) fails here too.

    Notebook 06.
    """

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.log: list[tuple[str, Any]] = []
        self.closed = False
        self.on_message: Callable[[dict], dict | None] | None = None  # set by MCPClient
        if server.outbox is None:
            server.outbox = self

    def notify(self, msg: dict) -> None:
        """The server's notification, straight to the client (the :class:`Outbox` side)."""
        wire_msg = json.loads(encode_line(msg))
        self.log.append(("<-", wire_msg))
        if self.on_message is not None:
            self.on_message(wire_msg)

    def request(self, msg: dict) -> dict:
        """The server's request, answered by the client at once (the outbox side)."""
        wire_msg = json.loads(encode_line(msg))
        self.log.append(("<-", wire_msg))
        reply = self.on_message(wire_msg) if self.on_message is not None else None
        if reply is None:
            reply = rpc.error_response(msg["id"], METHOD_NOT_FOUND, "Method not found: no client is listening")
        wire_reply = json.loads(encode_line(reply))
        self.log.append(("->", wire_reply))
        return wire_reply

    def send(self, msg: dict) -> dict | None:
        if self.closed:
            raise MCPError(CONNECTION_CLOSED, "Connection closed: the transport was closed")
        wire_msg = json.loads(json.dumps(msg))
        self.log.append(("->", wire_msg))
        reply = self.server.handle(wire_msg, self)
        if reply is None:
            return None
        wire_reply = json.loads(encode_line(reply))
        self.log.append(("<-", wire_reply))
        return wire_reply

    def open_stream(self, msg: dict, on_end: Callable[[dict | None], None]) -> Callable[[], None]:
        """Send a ``subscriptions/listen`` request; what the server sends on the stream comes
        through :meth:`notify`. Returns the cancellation: ``notifications/cancelled``."""
        reply = self.send(msg)
        if reply is not None:  # refused (or ended at once): the reply is the stream's end
            on_end(reply)

        def cancel() -> None:
            if not self.closed:
                self.send(cancel_notice(msg["id"]))

        return cancel

    def close(self) -> None:
        self.closed = True
        self.server.connection_closed()


class StdioTransport:
    """Starts an MCP server as a child process and talks to it over its stdin and stdout.

    ``send`` writes one line and, for a request, reads lines until the reply with the same
    id arrives. Notifications the server sends meanwhile (log messages, progress) are kept
    in ``log``; requests it sends (such as ``ping``) are answered, so the two sides never
    fall out of step. The child's standard error is collected in ``stderr_lines``.

    Notebook 06.
    """

    def __init__(self, cmd: list[str] | None = None, timeout: float = 30.0, env: dict | None = None) -> None:
        self.cmd = list(cmd) if cmd else [sys.executable, "-m", "toolkit", "serve"]
        self.timeout = timeout
        self.log: list[tuple[str, Any]] = []
        self.stderr_lines: list[str] = []
        self.proc = subprocess.Popen(
            self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr  # all three are pipes
        self._stdin, self._stdout, self._stderr = self.proc.stdin, self.proc.stdout, self.proc.stderr
        self._lines: queue.Queue = queue.Queue()
        self.on_message: Callable[[dict], dict | None] | None = None  # set by MCPClient
        self._heard = threading.Event()  # set when the child has written its first line
        self._write_lock = threading.Lock()
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        for line in self._stdout:
            self._heard.set()
            self._lines.put(line)
        self._heard.set()
        self._lines.put(None)  # end of stream

    def _pump_stderr(self) -> None:
        for line in self._stderr:
            self.stderr_lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    def _write(self, msg: dict) -> None:
        self._write_bytes(encode_line(msg).encode("ascii"))

    def _write_bytes(self, data: bytes) -> None:
        with self._write_lock:
            try:
                self._stdin.write(data)
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise MCPError(
                    CONNECTION_CLOSED, "Connection closed: the server is not running" + self._exit_note()
                ) from None

    def _exit_note(self) -> str:
        code = self.proc.poll()
        tail = " | ".join(self.stderr_lines[-3:])
        return (f" (exit code {code})" if code is not None else "") + (f"; its stderr ends: {tail}" if tail else "")

    def send(self, msg: dict) -> dict | None:
        self.log.append(("->", msg))
        self._write(msg)
        if "id" not in msg:
            return None
        while True:
            try:
                incoming = self._read(self.timeout)
            except queue.Empty:
                raise MCPError(CONNECTION_CLOSED, f"Request timed out: no reply within {self.timeout:g} s") from None
            if incoming is None:
                continue
            if rpc.is_response(incoming) and incoming.get("id") == msg["id"]:
                return incoming
            self._dispatch(incoming)

    def _read(self, wait: float) -> Any:
        """The next message the server wrote, within ``wait`` seconds (else queue.Empty): decoded
        and logged, or None for a blank or unparsable line (logged as unparsed); MCPError once the
        server has closed its output."""
        line = self._lines.get(timeout=wait)
        if line is None:
            self._lines.put(None)
            raise MCPError(CONNECTION_CLOSED, "Connection closed: the server closed its output" + self._exit_note())
        if not line.strip():
            return None
        try:
            incoming = decode_line(line)
        except MCPError:
            self.log.append(("<-", {"unparsed": line.decode("utf-8", "replace").rstrip()}))
            return None
        self.log.append(("<-", incoming))
        return incoming

    def _dispatch(self, incoming: Any) -> None:
        """A message that is not the awaited reply: a server request is answered; a
        notification, or the reply to a listen stream, goes to ``on_message``."""
        if isinstance(incoming, dict) and "method" in incoming and "id" in incoming:
            self._answer_server_request(incoming)
        elif isinstance(incoming, dict) and self.on_message is not None:
            self.on_message(incoming)  # progress, a log line, an update, a listen's reply
        # anything else (unparsed text) is logged and skipped

    def open_stream(self, msg: dict, on_end: Callable[[dict | None], None]) -> Callable[[], None]:
        """Send a ``subscriptions/listen`` request without waiting: its messages share stdout
        with every reply, tagged with its id, and are read whenever this transport reads (in
        :meth:`send`, or :meth:`pump` while nothing else is sent). Returns the cancellation,
        ``notifications/cancelled`` with the listen's id (2026-07-28 basic/patterns/cancellation)."""
        self.log.append(("->", msg))
        self._write(msg)

        def cancel() -> None:
            self.send(cancel_notice(msg["id"]))

        return cancel

    def pump(self, wait: float) -> None:
        """Read and dispatch what the server wrote, for up to ``wait`` seconds (one message)."""
        try:
            incoming = self._read(max(wait, 0.0))
        except queue.Empty:
            return
        if incoming is not None:
            self._dispatch(incoming)

    def send_line(self, text: str, wait: float = 1.0) -> Any:
        """Write ``text`` exactly as given (plus a newline) and return the next message back,
        or None if nothing arrives within ``wait`` seconds (as for a notification).

        For talking to a server by hand (exercise 6): malformed lines included. Until the
        child has written anything at all, a line that expects an answer may wait up to
        ``timeout`` instead: starting a Python child can take longer than ``wait`` on a busy
        machine, and a slow start must not look like a missing reply.
        """
        data = (text if text.endswith("\n") else text + "\n").encode("utf-8", "surrogateescape")
        self.log.append(("->", {"raw": text}))
        self._write_bytes(data)
        if not self._heard.is_set() and _expects_answer(text):
            wait = max(wait, self.timeout)
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)
            raise MCPError(CONNECTION_CLOSED, "Connection closed: the server closed its output" + self._exit_note())
        reply = decode_line(line)
        self.log.append(("<-", reply))
        return reply

    def _answer_server_request(self, request: dict) -> None:
        answered = self.on_message(request) if self.on_message is not None else None
        if answered is not None:
            reply = answered
        elif request.get("method") == "ping":
            reply = rpc.result_response(request["id"], {})
        else:
            reply = rpc.error_response(
                request["id"],
                METHOD_NOT_FOUND,
                f"Method not found: this client does not offer {request.get('method')!r}",
            )
        self.log.append(("->", reply))
        self._write(reply)

    def close(self) -> None:
        """Close the child's stdin, wait for it to exit, and stop it if it does not."""
        if self.proc.poll() is None:
            try:
                self._stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        for stream in (self._stdout, self._stderr):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self) -> StdioTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _expects_answer(text: str) -> bool:
    """False for a JSON object without an id (a notification or a response: no reply due)."""
    try:
        msg = json.loads(text)
    except ValueError:
        return True  # a parse error is answered
    return not (isinstance(msg, dict) and "id" not in msg)
