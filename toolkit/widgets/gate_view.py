"""Gate playground: switch the permission gate's controls and replay two attacks.

Pack §2.10 ("Controls that do not depend on reading the text") and lab exercise 12. Two
scenarios, each with a gullible mock model (not an LLM):

* **e-mail injection**: a fetched page orders the agent to mail the customer list
  (:func:`toolkit.injection_demo`'s attack). The gate's taint rule stops it.
* **exfiltration in a URL**: a fetched page asks for the customer list in a URL
  (:mod:`toolkit.lessons.exfiltration`, exercise 12). Every call only reads, so the gate lets it
  through whatever the toggles say, unless the allowlist drops the private tool.

Toggles: use the gate at all, the allowlist (and which tools are on it), pre-approval of the
state-changing tool, what a person answers when asked to confirm, taint tracking, and wrapping
tool output as untrusted. The view shows the verdict, what was sent, the gate's log, the
harness events and the whole conversation.

``gate_run`` is the pure computation. In a notebook::

    from toolkit.widgets import gate_playground
    gate_playground()
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..gate import PermissionGate
from ..lessons import exfiltration, injection
from ..loop import AgentResult
from ._base import InputError, LiveView, esc
from .palette import PANEL, TEXT
from .transcript_view import transcript_html

__all__ = ["SCENARIOS", "CONFIRM_ANSWERS", "GateState", "gate_run", "GatePlayground", "gate_playground", "NoTaintGate"]

EMAIL = "e-mail injection (§2.10)"
URL = "exfiltration in a URL (exercise 12)"
SCENARIOS: dict[str, dict[str, Any]] = {
    EMAIL: {"tools": ["fetch_page", "send_email"], "writer": "send_email"},
    URL: {"tools": ["fetch_url", "get_customers"], "writer": None},
}
CONFIRM_ANSWERS = {"nobody to ask": None, "person says yes": True, "person says no": False}


class NoTaintGate(PermissionGate):
    """The same gate with taint tracking switched off: reading outside content changes nothing.

    Notebook 11.
    """

    def note_result(self, tool) -> None:
        return None


@dataclass
class GateState:
    """One run of the gate playground: the scenario, the run, the gate and what left.

    Notebook 11.
    """

    scenario: str
    result: AgentResult
    gate: PermissionGate | None
    sent: list  # e-mails sent, or addresses that carried private data
    attack_succeeded: bool
    settings: dict = field(default_factory=dict)

    @property
    def log(self) -> list:
        return list(self.gate.log) if self.gate is not None else []

    @property
    def events(self) -> list:
        return list(self.result.events)

    @property
    def verdict(self) -> str:
        if self.scenario == EMAIL:
            return (
                "The attack worked: an e-mail went to the attacker."
                if self.attack_succeeded
                else "The attack failed: no e-mail was sent."
            )
        return (
            "The attack worked: the customer list left inside a URL."
            if self.attack_succeeded
            else "The attack failed: no private data left in a URL."
        )


def gate_run(
    scenario: str = EMAIL,
    use_gate: bool = True,
    allowlist: bool = True,
    allowed=None,
    pre_approve: bool = True,
    confirm: str = "nobody to ask",
    taint: bool = True,
    wrap: bool = True,
) -> GateState:
    """Run one scenario with the given gate settings; the same settings give the same run.

    Notebook 11.
    """
    if scenario not in SCENARIOS:
        raise InputError(f"unknown scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}.")
    if confirm not in CONFIRM_ANSWERS:
        raise InputError(f"the confirm answer must be one of: {', '.join(CONFIRM_ANSWERS)}.")
    spec = SCENARIOS[scenario]
    allowed = list(spec["tools"] if allowed is None else allowed)
    unknown = [t for t in allowed if t not in spec["tools"]]
    if unknown:
        raise InputError(
            f"{', '.join(unknown)} is not a tool in this scenario; its tools are {', '.join(spec['tools'])}."
        )
    gate = None
    if use_gate:
        answer = CONFIRM_ANSWERS[confirm]
        ask: Callable[[dict], bool] | None = None if answer is None else (lambda call: answer)
        cls = PermissionGate if taint else NoTaintGate
        gate = cls(
            allow=set(allowed) if allowlist else None,
            pre_approved={spec["writer"]} if (pre_approve and spec["writer"]) else (),
            confirm=ask,
        )
    if scenario == EMAIL:
        result, emails, _ = injection.injection_demo(False, gate=gate, wrap_outputs=wrap)
        sent = [f"to {to}: {body}" for to, body in emails]
        succeeded = any(to.endswith("attacker.test") for to, _ in emails)
    else:
        result, sent, _ = exfiltration.exfiltration_demo(False, gate=gate, wrap_outputs=wrap)
        succeeded = bool(sent)
    settings = {
        "use_gate": use_gate,
        "allowlist": allowlist,
        "allowed": allowed,
        "pre_approve": pre_approve,
        "confirm": confirm,
        "taint": taint,
        "wrap": wrap,
    }
    return GateState(scenario, result, gate, sent, succeeded, settings)


def verdict_html(state: GateState) -> str:
    """The verdict as a banner: white on the dark twin of vermillion (attack worked) or green."""
    colour = TEXT["vermillion"] if state.attack_succeeded else TEXT["green"]
    return (
        f"<div style='font-size:16px;font-weight:bold;color:#FFFFFF;background:{colour};"
        f"padding:6px 10px;border-radius:4px'>{'✗' if state.attack_succeeded else '✓'} "
        f"{esc(state.verdict)}</div>"
    )


def report_html(state: GateState) -> str:
    """What was sent, the gate's log (on a light panel) and the harness events."""
    bad, good = TEXT["vermillion"], TEXT["green"]
    parts = []
    what = "E-mails sent" if state.scenario == EMAIL else "Addresses fetched with private data in them"
    items = "".join(f"<li><code>{esc(s)}</code></li>" for s in state.sent) or "<li>(none)</li>"
    parts.append(f"<div style='font-size:14px;margin-top:6px'><b>{what}</b><ul style='margin:2px 0'>{items}</ul></div>")
    cell = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:left"
    if state.gate is None:
        parts.append("<div style='font-size:14px'><b>Gate log</b>: no gate, so every call ran unchecked.</div>")
    else:
        rows = "".join(
            f"<tr><td style='{cell};color:{good if d == 'allow' else bad};font-weight:bold'>{d}</td>"
            f"<td style='{cell}'><code>{esc(name)}</code></td><td style='{cell}'>{esc(reason) or '–'}</td></tr>"
            for d, name, reason in state.gate.log
        )
        parts.append(
            f"<div style='font-size:14px'><b>Gate log</b> (tainted at the end: "
            f"{'yes' if state.gate.tainted else 'no'})</div>"
            f"<table style='border-collapse:collapse;font-size:13px;{PANEL}'><tr><th style='{cell}'>decision</th>"
            f"<th style='{cell}'>tool</th><th style='{cell}'>reason</th></tr>{rows}</table>"
        )
    events = "".join(f"<li>{esc(e)}</li>" for e in state.result.events) or "<li>(none)</li>"
    parts.append(
        f"<div style='font-size:14px;margin-top:6px'><b>Harness events</b><ul style='margin:2px 0'>{events}</ul></div>"
    )
    return "".join(parts)


class GatePlayground(LiveView):
    """Toggles for the gate; the run, its verdict and its logs follow.

    Notebook 11.
    """

    name = "gate playground"

    def __init__(self, scenario: str = EMAIL) -> None:
        super().__init__()
        W = self.W
        wide = W.Layout(width="auto")
        self.scenario = W.RadioButtons(options=list(SCENARIOS), value=scenario, description="attack", layout=wide)
        self.use_gate = W.Checkbox(value=True, description="use the permission gate", indent=False, layout=wide)
        self.allowlist = W.Checkbox(
            value=True, description="allowlist: only these tools may run", indent=False, layout=wide
        )
        self.allowed = W.SelectMultiple(
            options=SCENARIOS[scenario]["tools"],
            value=tuple(SCENARIOS[scenario]["tools"]),
            rows=2,
            description="may run",
            layout=W.Layout(width="260px"),
        )
        self.pre_approve = W.Checkbox(
            value=True, indent=False, layout=wide, description="pre-approve the state-changing tool (send_email)"
        )
        self.confirm = W.RadioButtons(
            options=list(CONFIRM_ANSWERS), value="nobody to ask", description="confirm:", layout=wide
        )
        self.taint = W.Checkbox(
            value=True,
            indent=False,
            layout=wide,
            description="taint tracking (after outside content, writes need a yes)",
        )
        self.wrap = W.Checkbox(value=True, indent=False, layout=wide, description="wrap tool output as untrusted")
        self.verdict = self.live(W.HTML())
        self.report = W.HTML()
        self.conversation = W.HTML()
        self._holding = False
        gate_box = W.VBox([W.HBox([self.allowlist, self.allowed]), self.pre_approve, self.confirm, self.taint])
        self._gate_controls = (self.allowlist, self.allowed, self.pre_approve, self.confirm, self.taint)
        self.widget = W.VBox(
            [
                self.scenario,
                self.use_gate,
                gate_box,
                self.wrap,
                self.message_box,
                self.verdict,
                self.report,
                W.HTML("<b>The conversation</b> (mock model)"),
                self.conversation,
            ]
        )
        self.accessible(
            {"attack": "the attack to replay", "confirm:": "what a person answers when the gate asks to confirm"}
        )
        self.scenario.observe(self._new_scenario, names="value")
        # one control per argument of gate_run, named alike; a new scenario first resets the tool list
        self._inputs = {name: getattr(self, name) for name in inspect.signature(gate_run).parameters}
        self.watch(*(control for name, control in self._inputs.items() if name != "scenario"))
        self.refresh()

    def _new_scenario(self, change=None) -> None:
        tools = SCENARIOS[self.scenario.value]["tools"]
        self._holding = True
        try:
            self.allowed.options = tools
            self.allowed.value = tuple(tools)
        finally:
            self._holding = False
        self.refresh()

    def _changed(self, change=None) -> None:
        if not self._holding:
            self.refresh()

    def compute(self) -> GateState:
        return gate_run(**{name: control.value for name, control in self._inputs.items()})

    def draw(self, state: GateState) -> None:
        for c in self._gate_controls:
            c.disabled = not state.settings["use_gate"]
        self.allowed.disabled = not (state.settings["use_gate"] and state.settings["allowlist"])
        self.pre_approve.disabled = (not state.settings["use_gate"]) or SCENARIOS[state.scenario]["writer"] is None
        self.verdict.value = verdict_html(state)
        self.report.value = report_html(state)
        self.conversation.value = transcript_html(state.result, events=False)


def gate_playground(**settings) -> GatePlayground:
    """The gate playground, ready to show: ``gate_playground()`` as a cell's last line.

    Notebook 11.
    """
    return GatePlayground(**settings)
