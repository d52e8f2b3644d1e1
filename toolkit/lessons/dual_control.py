"""Dual control: the user has tools too (notebook 10; pack §2.9, beyond the pack).

In τ²-bench's telecom domain the agent and the user act on one shared world: the agent sees the
account, and only the user can touch the phone [6]. The tasks succeed when the world ends in the
goal state, so an agent that knows the fix but cannot get the user to apply it fails. Here the
world is a phone with two switches; the user is a mock that does exactly what it is told, and
only with its own tools; the agents are two scripted mocks.
"""

from __future__ import annotations

from ..registry import ToolRegistry

__all__ = ["Phone", "agent_tools", "user_tools", "LiteralUser", "run_dual_control", "AGENTS"]


class Phone:
    """The shared world: the phone's switches. Connected when airplane mode is off and data on.

    Notebook 10.
    """

    def __init__(self) -> None:
        self.airplane_mode, self.mobile_data = True, False

    def connected(self) -> bool:
        return not self.airplane_mode and self.mobile_data


def agent_tools(phone: Phone) -> ToolRegistry:
    """The agent's side: it can read the line's status from the network, and change nothing on the phone.

    Notebook 10.
    """
    registry = ToolRegistry()

    def line_status() -> dict:
        """What the network sees of the customer's phone."""
        return {"registered": not phone.airplane_mode, "data session": phone.connected()}

    registry.add(line_status)
    return registry


def user_tools(phone: Phone) -> ToolRegistry:
    """The user's side: the phone's own settings.

    Notebook 10.
    """
    registry = ToolRegistry()

    def toggle_airplane_mode() -> str:
        """Switch airplane mode on or off."""
        phone.airplane_mode = not phone.airplane_mode
        return f"airplane mode {'on' if phone.airplane_mode else 'off'}"

    def toggle_mobile_data() -> str:
        """Switch mobile data on or off."""
        phone.mobile_data = not phone.mobile_data
        return f"mobile data {'on' if phone.mobile_data else 'off'}"

    def status_bar() -> str:
        """What the phone's status bar shows."""
        return "airplane icon" if phone.airplane_mode else ("4G" if phone.mobile_data else "no data")

    registry.add(toggle_airplane_mode, read_only=False)
    registry.add(toggle_mobile_data, read_only=False)
    registry.add(status_bar)
    return registry


class LiteralUser:
    """A mock customer: runs a tool of its own only when a message names the action, and reports back.

    Notebook 10.
    """

    ACTIONS = {"turn off airplane mode": "toggle_airplane_mode", "turn on mobile data": "toggle_mobile_data"}

    def __init__(self, tools: ToolRegistry) -> None:
        self.tools = tools
        self.log: list[str] = []

    def hear(self, message: str) -> str:
        done = [self.tools.run(tool, {}).content for phrase, tool in self.ACTIONS.items() if phrase in message.lower()]
        self.log += done
        return "; ".join(done + [f"I see: {self.tools.run('status_bar', {}).content}"])


AGENTS: dict[str, list[str]] = {
    "tells the user what to do": [
        "Your line is not registered. Please turn off airplane mode.",
        "Thanks. Now please turn on mobile data in settings.",
        "You should be connected now.",
    ],
    "only checks its own side": [
        "I have checked your account and everything is active on our side.",
        "Try restarting your phone later if it still does not work.",
    ],
}


def run_dual_control(agent: str) -> dict:
    """Run one scripted mock agent (a key of :data:`AGENTS`) against the literal user.

    Returns the conversation, what the agent saw of the line before and after, and whether
    the shared world ended in the goal state (the phone connected).

    Notebook 10.
    """
    phone = Phone()
    agent_side, user = agent_tools(phone), LiteralUser(user_tools(phone))
    before = agent_side.run("line_status", {}).data
    turns = [(said, user.hear(said)) for said in AGENTS[agent]]
    after = agent_side.run("line_status", {}).data
    return {"turns": turns, "before": before, "after": after, "goal reached": phone.connected(), "user did": user.log}
