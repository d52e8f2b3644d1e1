"""Readable views of a run and of an MCP session: who said what, and what went over the wire.

Pack §2.2 (the call loop: the model only asks, the harness checks and runs) and §2.6 (an MCP
session's JSON-RPC messages). :func:`transcript` shows an :class:`~toolkit.AgentResult` as a
conversation, with tool errors, blocked calls, repairs and retries marked; :func:`wire` shows a
transport's ``log`` of ``("->" | "<-", message)`` pairs as arrows with pretty JSON.

Standard library only: the views are HTML (``_repr_html_``) with a plain-text twin
(``.text``), so they also work in a terminal and in stored notebook outputs. In a notebook::

    from toolkit.widgets import transcript, wire
    transcript(result)           # result = T.run_agent(...)
    wire(transport.log)          # transport = T.InMemoryTransport(server)
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import Any

from .palette import INK, INK_MUTED, MARKS, PANEL, TEXT

__all__ = [
    "transcript",
    "wire",
    "Transcript",
    "Wire",
    "transcript_html",
    "transcript_text",
    "wire_html",
    "wire_text",
    "format_call",
    "wire_side_by_side",
    "WirePair",
]

# Text colours from the one palette (palette.py): the dark twins of the Okabe–Ito colours, which
# pass WCAG AA on the light panel every block of these views sits on. Borders use the marks.
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, GREY = (
    TEXT[c] for c in ("blue", "orange", "green", "vermillion", "purple", "grey")
)
ROLE_COLOUR = {"system": GREY, "user": BLUE, "assistant": GREEN, "tool": ORANGE}
MARK_OF = {TEXT[c]: MARKS[c] for c in TEXT}  # a text colour's brighter twin, for borders
# every view here is a light panel with dark text, so JupyterLab's dark theme cannot turn its
# text white on a pale block
BOX = PANEL + ";padding:6px 8px;border-radius:4px"
KIND_LABEL = {
    "unknown_tool": "unknown tool",
    "invalid_args": "invalid arguments",
    "tool_error": "tool error",
    "transient": "transient failure",
    "crash": "tool crashed",
    "timeout": "timed out",
    "blocked": "blocked by the gate",
}


def _e(value: Any) -> str:
    return html.escape(str(value), quote=False)


def format_call(c: dict) -> str:
    """A call as one line of Python-like text: ``get_weather(city='Paris')``.

    Notebooks 01, 02, 07, 08, 10, 11, 12, through transcript.
    """
    args = c.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return f"{c.get('name')}({args})"
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={v!r}" for k, v in args.items())
    else:
        inner = repr(args)
    return f"{c.get('name')}({inner})"


def _results_by_id(result) -> dict:
    out = {}
    for c, r in getattr(result, "results", None) or []:
        if isinstance(c, dict) and c.get("id") is not None:
            out[c["id"]] = r
    return out


def _marks(kind: str, notes: list, retries: int = 0) -> list[tuple[str, str]]:
    """(label, colour) badges for one tool result."""
    marks = []
    if kind and kind != "ok":
        colour = PURPLE if kind == "blocked" else VERMILLION
        marks.append((("⊘ " if kind == "blocked" else "✗ ") + KIND_LABEL.get(kind, kind), colour))
    if notes:
        marks.append(("✎ repaired: " + "; ".join(notes), ORANGE))
    if retries:
        marks.append((f"↻ retried {retries}×", ORANGE))
    return marks


def _retries(result) -> dict:
    """How many retries the harness logged per tool name."""
    out: dict = {}
    for ev in getattr(result, "events", None) or []:
        ev = str(ev)
        if ev.startswith("retry ") and " for " in ev:
            name = ev.split(" for ", 1)[1].rsplit(" (", 1)[0]
            out[name] = out.get(name, 0) + 1
    return out


def _events(result) -> list[tuple[str, str]]:
    out = []
    for ev in getattr(result, "events", None) or []:
        ev = str(ev)
        colour = (
            PURPLE
            if ev.startswith("blocked")
            else VERMILLION
            if ev.startswith("stopped")
            else ORANGE
            if ev.startswith(("retry", "repaired", "truncated"))
            else GREY
        )
        out.append((ev, colour))
    return out


def transcript_html(result, title: str | None = None, events: bool = True) -> str:
    """The conversation of a run as HTML: one block per message, problems marked.
    ``events=False`` leaves out the harness's event list (when it is shown elsewhere).

    Notebooks 01, 02, 07, 08, 10, 11, 12, through transcript.
    """
    by_id = _results_by_id(result)
    retried = _retries(result)
    blocks = []
    box = "margin:4px 0;padding:6px 10px;border-left:5px solid {c};background:{bg};border-radius:3px;font-size:14px"
    for m in result.messages:
        role = m.get("role", "?")
        colour = ROLE_COLOUR.get(role, GREY)
        label = f"<b style='color:{colour}'>{_e(role)}</b>"
        body = ""
        bg = "#f7f7f7"
        if role == "tool":
            r = by_id.get(m.get("tool_call_id"))
            kind = getattr(r, "kind", "tool_error" if m.get("is_error") else "ok")
            notes = list(getattr(r, "notes", []) or [])
            label += f" · <code>{_e(m.get('name'))}</code>"
            if m.get("is_error"):
                colour = PURPLE if kind == "blocked" else VERMILLION
                bg = "#fbeee8" if kind != "blocked" else "#f6eaf2"
            badges = "".join(
                f" <span style='color:{c};font-weight:bold'>{_e(t)}</span>"
                for t, c in _marks(kind, notes, retried.get(m.get("name"), 0))
            )
            label += badges
            body = f"<pre style='margin:2px 0;white-space:pre-wrap;font-size:13px'>{_e(m.get('content'))}</pre>"
        elif role == "assistant" and m.get("tool_calls"):
            calls = "".join(
                f"<div><code>{_e(format_call(c))}</code> <span style='color:{INK_MUTED}'>"
                f"id {_e(c.get('id'))}</span></div>"
                for c in m["tool_calls"]
            )
            text = f"<div>{_e(m['content'])}</div>" if m.get("content") else ""
            body = text + f"<div style='color:{INK_MUTED}'>asks the harness to run:</div>{calls}"
        else:
            content = m.get("content")
            body = f"<div style='white-space:pre-wrap'>{_e(content) if content is not None else '(empty)'}</div>"
            if role == "assistant":
                label += f" <span style='color:{INK_MUTED}'>(final answer)</span>"
        blocks.append(f"<div style='{box.format(c=MARK_OF[colour], bg=bg)}'>{label}{body}</div>")
    ending = _e(result.stop_reason)
    footer = (
        f"<div style='font-size:13px;margin-top:4px'>{result.steps} model turn(s), "
        f"{result.calls} tool call(s), stopped: <b>{ending}</b></div>"
    )
    marked = _events(result) if events else []
    if marked:
        footer += (
            "<div style='font-size:13px;margin-top:2px'><b>harness events</b><ul style='margin:2px 0'>"
            + "".join(f"<li style='color:{c}'>{_e(t)}</li>" for t, c in marked)
            + "</ul></div>"
        )
    head = f"<div style='font-size:15px;font-weight:bold;margin-bottom:4px'>{_e(title)}</div>" if title else ""
    return f"<div class='toolkit-transcript' style='{BOX}'>{head}{''.join(blocks)}{footer}</div>"


def transcript_text(result) -> str:
    """The same conversation as plain text, for terminals and stored outputs.

    Notebooks 01, 02, 07, 08, 10, 11, 12, through transcript.
    """
    by_id = _results_by_id(result)
    retried = _retries(result)
    lines = []
    for m in result.messages:
        role = m.get("role", "?")
        if role == "tool":
            r = by_id.get(m.get("tool_call_id"))
            kind = getattr(r, "kind", "tool_error" if m.get("is_error") else "ok")
            notes = list(getattr(r, "notes", []) or [])
            marks = "".join(f" [{t}]" for t, _ in _marks(kind, notes, retried.get(m.get("name"), 0)))
            lines.append(f"tool {m.get('name')}{marks}: {m.get('content')}")
        elif role == "assistant" and m.get("tool_calls"):
            lines.append("assistant calls: " + "; ".join(format_call(c) for c in m["tool_calls"]))
        else:
            lines.append(f"{role}: {m.get('content')}")
    lines.append(f"({result.steps} turns, {result.calls} calls, stopped: {result.stop_reason})")
    lines += [f"event: {t}" for t, _ in _events(result)]
    return "\n".join(lines)


class _Shown:
    """What a transcript and a wire view share: HTML in a notebook, plain text elsewhere.
    A subclass names the attribute it shows (``_field``) and its two renderers."""

    title: str | None = None
    _field = ""
    _render_html: Any = None
    _render_text: Any = None

    @property
    def html(self) -> str:
        return self._render_html(getattr(self, self._field), self.title)

    @property
    def text(self) -> str:
        return self._render_text(getattr(self, self._field))

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


class Transcript(_Shown):
    """A run shown as a conversation; displays itself in a notebook.

    Notebooks 01, 02, 07, 08, 10, 11, 12, through transcript.
    """

    _field, _render_html, _render_text = "result", staticmethod(transcript_html), staticmethod(transcript_text)

    def __init__(self, result, title: str | None = None) -> None:
        self.result, self.title = result, title


def transcript(result, title: str | None = None) -> Transcript:
    """Show an :class:`~toolkit.AgentResult` as a readable conversation.

    Notebooks 01, 02, 07, 08, 10, 11, 12.
    """
    if not hasattr(result, "messages"):
        raise TypeError(f"transcript() takes the AgentResult that run_agent returns, got {type(result).__name__}")
    return Transcript(result, title)


# ------------------------------------------------------------------------------------- the wire


def _summary(direction: str, msg: Any) -> tuple[str, str]:
    """A one-line description of a JSON-RPC message and its colour."""
    if not isinstance(msg, dict):
        return f"not a JSON-RPC object ({type(msg).__name__})", VERMILLION
    if "method" in msg:
        if "id" not in msg:
            return f"notification {msg['method']}", GREY
        return f"request {msg['method']} (id {msg['id']!r})", BLUE
    if "error" in msg:
        err = msg.get("error") or {}
        return f"error {err.get('code')} for id {msg.get('id')!r}: {err.get('message')}", VERMILLION
    result = msg.get("result")
    extra = " (isError: the tool failed)" if isinstance(result, dict) and result.get("isError") else ""
    return f"result for id {msg.get('id')!r}{extra}", (ORANGE if extra else GREEN)


def _entries(log: Iterable) -> list[tuple[str, Any]]:
    out = []
    for entry in log:
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            raise ValueError(f"a wire log holds (direction, message) pairs, got {entry!r}")
        out.append((entry[0], entry[1]))
    return out


def wire_html(log: Iterable, title: str | None = None, max_height: int = 260) -> str:
    """A transport's log as arrows: client → server requests and server → client replies.
    A message taller than ``max_height`` pixels scrolls inside its box.

    Notebook 06, through wire.
    """
    rows = []
    for number, (direction, msg) in enumerate(_entries(log), start=1):
        outgoing = direction == "->"
        arrow = "client ──▶ server" if outgoing else "client ◀── server"
        text, colour = _summary(direction, msg)
        pretty = json.dumps(msg, indent=2, ensure_ascii=False) if not isinstance(msg, str) else msg
        # a long message scrolls inside its box: tabindex lets the keyboard reach and scroll it
        where = "client to server" if outgoing else "server to client"
        name = _e(f"message {number}, {where}: {text}").replace("'", "&#x27;")
        rows.append(
            f"<div style='margin:4px 0;padding:4px 10px;border-left:5px solid {MARK_OF[colour]};"
            f"background:#f7f7f7;{'margin-left:40px;' if not outgoing else ''}font-size:14px'>"
            f"<span style='font-family:monospace;color:{colour};font-weight:bold'>{arrow}</span> "
            f"{_e(text)}<pre tabindex='0' role='region' aria-label='{name}' "
            # its own colours and wrapping: JupyterLab's dark theme would paint a bare <pre>
            # black inside the light panel, and its default breaks "2026-07-28" mid-token
            f"style='margin:2px 0;font-size:12.5px;max-height:{max_height}px;overflow:auto;"
            f"background:#f7f7f7;color:{INK};white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere'>"
            f"{_e(pretty)}</pre></div>"
        )
    head = f"<div style='font-size:15px;font-weight:bold'>{_e(title)}</div>" if title else ""
    if not rows:
        rows.append(f"<div style='color:{INK_MUTED}'>(no messages yet)</div>")
    return f"<div class='toolkit-wire' style='{BOX}'>{head}{''.join(rows)}</div>"


def wire_text(log: Iterable) -> str:
    """The same messages as plain text, one line each.

    Notebook 06, through wire.
    """
    lines = []
    for direction, msg in _entries(log):
        text, _ = _summary(direction, msg)
        arrow = "->" if direction == "->" else "<-"
        lines.append(f"{arrow} {text}: {json.dumps(msg, ensure_ascii=False, sort_keys=False)}")
    return "\n".join(lines)


class Wire(_Shown):
    """An MCP session's messages; displays itself in a notebook.

    Notebook 06, through wire.
    """

    _field, _render_html, _render_text = "log", staticmethod(wire_html), staticmethod(wire_text)

    def __init__(self, log, title: str | None = None) -> None:
        self.log, self.title = list(log), title
        _entries(self.log)  # a malformed log fails here, not when it is shown


def wire(log, title: str | None = None) -> Wire:
    """Show a transport's ``log`` (``[("->" | "<-", message), ...]``) as arrows with JSON.

    Notebook 06.
    """
    if hasattr(log, "log"):  # a transport was passed instead of its log
        log = log.log
    return Wire(log, title)


class WirePair(_Shown):
    """Two wire logs in two columns, to compare the same exchange under two revisions.

    Notebook 06, through wire_side_by_side.
    """

    def __init__(self, left, right, titles: tuple[str, str]) -> None:
        self.left, self.right, self.titles = list(left), list(right), titles
        _entries(self.left), _entries(self.right)  # a malformed log fails here

    @property
    def html(self) -> str:
        # minmax(0, 1fr): a long JSON line scrolls inside its own column instead of widening it
        columns = "".join(
            f"<div style='min-width:0'>{wire_html(log, title, max_height=560)}</div>"
            for log, title in zip((self.left, self.right), self.titles)
        )
        grid = "display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:10px;align-items:start"
        return f"<div class='toolkit-wire-pair' style='{grid}'>{columns}</div>"

    @property
    def text(self) -> str:
        return "\n\n".join(
            f"== {title} ==\n{wire_text(log)}" for log, title in zip((self.left, self.right), self.titles)
        )


def wire_side_by_side(left, right, titles: tuple[str, str] = ("left", "right")) -> WirePair:
    """Show two transports' logs (or slices of them) next to each other, each under its title.

    Notebook 06.
    """
    return WirePair(getattr(left, "log", left), getattr(right, "log", right), titles)
