"""One multi-turn case scored the BFCL V3 way (notebook 09; pack §2.9, beyond the pack).

BFCL V3 runs the model's calls and the answer key's calls turn by turn on two copies of a
stateful API, then asks two things after every turn: is the state of the world the same, and
did the model's calls return everything the answer key's calls returned (the response check,
which sees read-only calls a state check cannot) [31]. Here the API is a tiny file system with
a message outbox, the case is in ``data/multi_turn.json``, and the trajectories are mocks'.
"""

from __future__ import annotations

import copy
from typing import Any

from ..data import load_json
from ..registry import ToolError
from ..scoring import parse_calls

__all__ = ["FileSystem", "MULTI_TURN_CASE", "run_turns", "score_state_and_response", "score_by_answer_key"]

MULTI_TURN_CASE: dict = load_json("multi_turn.json")


class FileSystem:
    """A stateful mock API: files by name and an outbox. Every method is one tool.

    Notebook 09.
    """

    def __init__(self, files: dict | None = None) -> None:
        self.files: dict[str, str] = dict(MULTI_TURN_CASE["files"] if files is None else files)
        self.outbox: list[dict] = []

    def ls(self) -> list:
        return sorted(self.files)

    def cat(self, file_name: str) -> str:
        return self._file(file_name)

    def mv(self, source: str, destination: str) -> str:
        self.files[destination] = self.files.pop(self._name(source))
        return f"moved {source} to {destination}"

    def cp(self, source: str, destination: str) -> str:
        self.files[destination] = self._file(source)
        return f"copied {source} to {destination}"

    def send_message(self, receiver: str, message: str) -> str:
        self.outbox.append({"to": receiver, "text": message})
        return f"sent to {receiver}"

    def state(self) -> dict:
        return {"files": dict(self.files), "outbox": copy.deepcopy(self.outbox)}

    def _name(self, name: str) -> str:
        if name not in self.files:
            raise ToolError(f"No file {name!r}. Files: {', '.join(sorted(self.files))}.")
        return name

    def _file(self, name: str) -> str:
        return self.files[self._name(name)]


TOOLS = ("ls", "cat", "mv", "cp", "send_message")


def run_turns(turns: list[list[str]]) -> tuple[list[dict], list[list[Any]]]:
    """Run each turn's calls (BFCL's call strings) on a fresh :class:`FileSystem`.

    Returns ``(states, responses)``: the state after each turn and each turn's results, an
    error as its message. Nothing is evaluated: the strings go through ``parse_calls``.

    Notebook 09.
    """
    fs, states, responses = FileSystem(), [], []
    for turn in turns:
        out: list[Any] = []
        for text in turn:
            for name, kwargs in parse_calls(text):
                if name not in TOOLS:
                    out.append(f"error: no tool {name!r}")
                    continue
                try:
                    out.append(getattr(fs, name)(**kwargs))
                except (ToolError, TypeError) as err:
                    out.append(f"error: {err}")
        states.append(fs.state())
        responses.append(out)
    return states, responses


def score_state_and_response(model_turns: list[list[str]], gold_turns: list[list[str]]) -> dict:
    """BFCL V3's verdict: after every turn the states are equal, and the answer key's responses are all among the model's.

    Returns ``{"state": bool, "response": bool, "pass": bool, "why": str}``.

    Notebook 09.
    """
    model_states, model_out = run_turns(model_turns)
    gold_states, gold_out = run_turns(gold_turns)
    state = response = True
    why = "state and responses match after every turn"
    for i in range(len(gold_turns)):
        if i >= len(model_turns) or model_states[i] != gold_states[i]:
            state, why = False, f"turn {i + 1}: the state differs from the answer key's"
            break
        missing = [r for r in gold_out[i] if r not in model_out[i]]
        if missing:
            response, why = False, f"turn {i + 1}: the model's calls never returned {missing[0]!r}"
            break
    return {"state": state, "response": response, "pass": state and response, "why": why}


def score_by_answer_key(model_turns: list[list[str]], gold_turns: list[list[str]]) -> bool:
    """Single-call-style scoring: each turn's parsed calls must be the answer key's, in any order.

    Notebook 09.
    """
    if len(model_turns) != len(gold_turns):
        return False

    def key(turn: list[str]) -> list:
        return sorted(repr(sorted(call_kwargs.items())) + name for t in turn for name, call_kwargs in parse_calls(t))

    return all(key(m) == key(g) for m, g in zip(model_turns, gold_turns))
