"""Code as action: the model writes a short program that calls tools (notebook 08; pack §2.8, beyond the pack).

Instead of one tool call per model turn, the model sends a program; the harness runs it, each
tool call inside it goes through the registry and the permission gate as usual, and only the
program's ``result`` goes back into the conversation (Anthropic offers this as programmatic
tool calling [38]). :func:`run_program` is a deliberately small sandbox: a tree walk over a
subset of Python (names, literals, arithmetic, comparisons, ``for``, ``if``, calls of the
registry's tools and of ``len``, ``sum``, ``sorted``, ``round``), with a step budget. No
imports, no attributes, no ``eval``: anything else is refused before it runs.
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable
from typing import Any

from ..gate import PermissionGate
from ..registry import ToolRegistry

__all__ = ["ProgramRefused", "run_program", "expense_registry", "context_cost", "OVER_BUDGET_PROGRAM"]

_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len,
    "sum": sum,
    "sorted": sorted,
    "round": round,
    "min": min,
    "max": max,
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


OVER_BUDGET_PROGRAM = """over = []
for person in list_team():
    total = 0
    for line in get_expenses(person=person):
        total = total + line["amount"]
    if total > 1100:
        over = over + [[person, total]]
result = over
"""  # what a model might write for "who spent more than 1,100?" (we wrote it; notebook 08)


class ProgramRefused(Exception):
    """The program uses something the sandbox does not allow, or ran past its budget.

    Notebook 08, through run_program.
    """


class _Sandbox:
    def __init__(self, registry: ToolRegistry, gate: PermissionGate | None, max_steps: int) -> None:
        self.registry, self.gate, self.steps_left = registry, gate, max_steps
        self.names: dict[str, Any] = {}
        self.calls: list[tuple[str, dict, str]] = []

    def tick(self, node: ast.AST) -> None:
        self.steps_left -= 1
        if self.steps_left < 0:
            raise ProgramRefused(f"line {getattr(node, 'lineno', '?')}: step budget used up; loop less")

    def run(self, statements: list[ast.stmt]) -> None:
        for node in statements:
            self.tick(node)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = self.value(node.value)
            elif isinstance(node, ast.Expr):
                self.value(node.value)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse:
                for item in self.value(node.iter):
                    self.names[node.target.id] = item
                    self.run(node.body)
            elif isinstance(node, ast.If):
                self.run(node.body if self.value(node.test) else node.orelse)
            else:
                raise ProgramRefused(f"line {node.lineno}: {type(node).__name__} is not allowed here")

    def value(self, node: ast.expr) -> Any:
        self.tick(node)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise ProgramRefused(f"line {node.lineno}: {node.id!r} is not defined")
            return self.names[node.id]
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](self.value(node.left), self.value(node.right))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](self.value(node.left), self.value(node.comparators[0]))
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self.value(node.slice)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self.call(node)
        if isinstance(node, (ast.Call, ast.Attribute)):
            allowed = ", ".join(_BUILTINS)
            raise ProgramRefused(f"line {node.lineno}: no attributes (x.y); call only the tools and {allowed}")
        raise ProgramRefused(f"line {node.lineno}: {type(node).__name__} is not allowed here")

    def call(self, node: ast.Call) -> Any:
        name = node.func.id  # type: ignore[attr-defined]
        args = [self.value(a) for a in node.args]
        kwargs = {k.arg: self.value(k.value) for k in node.keywords if k.arg is not None}
        if name in _BUILTINS:
            return _BUILTINS[name](*args, **kwargs)
        tool = self.registry.get(name)
        if tool is None:
            raise ProgramRefused(f"line {node.lineno}: no tool or function named {name!r}")
        if args:
            raise ProgramRefused(f"line {node.lineno}: call {name} with keyword arguments")
        ready, _, failed = self.registry.prepare(name, kwargs)  # as the harness does: repair, then gate
        if failed is None and self.gate is not None:
            ok, reason = self.gate.check({"name": name, "arguments": ready}, tool)
            if not ok:
                self.calls.append((name, kwargs, "blocked"))
                raise ProgramRefused(f"line {node.lineno}: the gate blocked {name}: {reason}")
        result = failed or self.registry.run(name, ready, repair=False)  # what the gate saw is what runs
        if self.gate is not None and failed is None:
            self.gate.note_result(tool)  # taint: the gate hears which tools ran
        self.calls.append((name, kwargs, result.kind))
        if not result.ok:
            raise ProgramRefused(f"line {node.lineno}: {name} failed: {result.content}")
        return result.data if result.data is not None else result.content


def run_program(source: str, registry: ToolRegistry, gate: PermissionGate | None = None, max_steps: int = 5000) -> dict:
    """Run a model's program in the sandbox; return ``{"result", "calls", "error"}``.

    ``result`` is the value the program assigned to ``result`` (the only thing that goes back
    to the model); ``calls`` lists ``(tool, arguments, outcome)`` for every tool call it made;
    ``error`` is ``None`` or the sentence saying why the program was stopped. A syntax error,
    a refused construct, a blocked call and a spent budget all end as ``error``, never as an
    exception.

    Notebook 08.
    """
    box = _Sandbox(registry, gate, max_steps)
    try:
        box.run(ast.parse(source).body)
        error = None
    except SyntaxError as err:
        error = f"line {err.lineno}: not valid Python ({err.msg})"
    except ProgramRefused as err:
        error = str(err)
    except (TypeError, KeyError, IndexError, ValueError, ZeroDivisionError) as err:
        error = f"the program failed: {type(err).__name__}: {err}"
    return {"result": box.names.get("result"), "calls": box.calls, "error": error}


def expense_registry(n_people: int = 12, items_each: int = 15) -> ToolRegistry:
    """``list_team()`` and ``get_expenses(person)``: many line items, of which a task needs a total.

    Deterministic: person ``i`` spends ``40 + 7 * ((i * 5 + j) % 11)`` on item ``j``. Also a
    ``reimburse(person, amount)`` tool that changes state, for the gate to stop.

    Notebook 08.
    """
    team = [f"p{i:02d}" for i in range(n_people)]
    registry = ToolRegistry()

    def list_team() -> list:
        """The ids of everyone on the team."""
        return list(team)

    def get_expenses(person: str) -> list:
        """Every expense line of one person this quarter.

        Args:
            person: an id from list_team, such as p03
        """
        i = team.index(person)
        return [{"item": f"receipt {j}", "amount": 40 + 7 * ((i * 5 + j) % 11)} for j in range(items_each)]

    def reimburse(person: str, amount: float) -> str:
        """Pay a person back.

        Args:
            person: an id from list_team
            amount: in euros
        """
        return f"paid {amount} to {person}"

    registry.add(list_team)
    registry.add(get_expenses)
    registry.add(reimburse, read_only=False)
    return registry


def context_cost(values: list) -> int:
    """Rough tokens (JSON characters / 4) that these tool results or outputs put into the conversation.

    Notebook 08.
    """
    return sum(len(json.dumps(v)) for v in values) // 4
