"""Why a model needs a calculator: a pattern-matching mock against an exact tool.

Pack §2.1 ("Why models need tools", the first gap: a text predictor cannot compute exactly).
Notebook 01 uses this module.

:class:`PatternMatchingModel` is a **mock**, built on purpose to behave like the failure the
pack describes: it answers from worked examples it has "seen" and, for a problem it has not
seen, copies the answer of the nearest one it has seen and patches the last digit. Its answers
look plausible (right length, right last digit, close in size) and are usually wrong once
the numbers get long. Dziri et al. report that real models seem to solve multi-step tasks
such as multi-digit multiplication by matching pieces of patterns they have seen, and that
accuracy can fall fast as the task grows [15]. This mock does not prove that; it makes the
mechanism visible.

:class:`CalculatorCallingModel` is the same kind of mock with one habit changed: it writes a
call to :func:`calculator` and reports what comes back. Both speak the loop's reply format, so
:func:`toolkit.run_agent` (pack §2.2) runs them.

Everything here is standard library and deterministic for a given seed.
"""

from __future__ import annotations

import ast
import bisect
import math
import operator
import random
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..loop import call, run_agent
from ..registry import ToolError, ToolRegistry

__all__ = [
    "calculate",
    "format_number",
    "make_calculator_registry",
    "make_problems",
    "question",
    "parse_question",
    "PatternMatchingModel",
    "CalculatorCallingModel",
    "DigitRow",
    "accuracy_by_digits",
    "format_accuracy_table",
]

# --------------------------------------------------------------------------------------------
# the tool: exact arithmetic, with errors that say what to do

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_MAX_EXPONENT = 1000
_MAX_BITS = 10_000  # results up to about 3,000 digits
_MAX_LENGTH = 500
_HOW = "Write numbers with + - * / // % ** and brackets, such as 12 * (3 + 4)."


def format_number(value: float | int) -> str:
    """A result as a model should read it: whole numbers without ``.0``, others to 10
    significant digits (``1.714285714``).

    Notebook 01, through accuracy_by_digits.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError(
            f"The result is not a real number ({type(value).__name__}); a negative "
            "number to a fractional power has no real value."
        )
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ToolError(
                "The result is not a finite number. Check the expression for an overflow such as a huge power."
            )
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return f"{value:.10g}"
    return str(value)


def _evaluate(node: ast.AST, text: str):
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, text)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand, text))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left, text), _evaluate(node.right, text)
        if isinstance(node.op, ast.Pow) and (
            abs(right) > _MAX_EXPONENT or (abs(left) > 1 and abs(right) * math.log2(abs(left)) > _MAX_BITS)
        ):
            raise ToolError(
                f"The power in {text!r} is too large; keep exponents at or below "
                f"{_MAX_EXPONENT} and results under about {_MAX_BITS * 3 // 10} digits."
            )
        if (
            isinstance(node.op, ast.Mult)
            and isinstance(left, int)
            and isinstance(right, int)
            and left.bit_length() + right.bit_length() > _MAX_BITS
        ):
            raise ToolError(
                f"The product in {text!r} is too large; keep results under about {_MAX_BITS * 3 // 10} digits."
            )
        try:
            return _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ToolError(f"{text!r} divides by zero. Check the divisor.") from None
        except OverflowError:
            raise ToolError(f"{text!r} overflows. Use smaller numbers.") from None
    shown = ast.get_source_segment(text, node) or type(node).__name__
    where = "" if shown == text else f" in {text!r}"
    raise ToolError(
        f"The calculator only does arithmetic; {shown!r}{where} is not a number or an operator it knows. {_HOW}"
    )


def calculate(expression: str) -> str:
    """Work out an arithmetic expression exactly and return the result as text.

    Pack §2.1: the tool that closes the "cannot compute" gap. It parses the expression
    (``×`` and ``÷`` are accepted too) and evaluates only numbers and arithmetic operators;
    it never runs code. Anything else raises :class:`~toolkit.ToolError` with a sentence
    that says how to write the expression instead.

    Notebook 01, through accuracy_by_digits.
    """
    if not isinstance(expression, str):
        raise ToolError(f"The expression must be text, got {type(expression).__name__}. {_HOW}")
    text = expression.strip()
    if not text:
        raise ToolError(f"The expression is empty. {_HOW}")
    if len(text) > _MAX_LENGTH:
        raise ToolError(f"The expression has {len(text)} characters; the limit is {_MAX_LENGTH}.")
    cleaned = text.replace("×", "*").replace("÷", "/").replace("−", "-")
    cleaned = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", cleaned)  # 12,345 means 12345
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, ValueError):  # Python 3.10 and 3.11 raise ValueError for a NUL byte
        raise ToolError(f"Cannot read {text!r} as arithmetic. {_HOW}") from None
    return format_number(_evaluate(tree, cleaned))


def make_calculator_registry() -> ToolRegistry:
    """A registry with one tool, ``calculator(expression)`` (pack §2.1, §2.2).

    Notebook 01.
    """
    registry = ToolRegistry()

    def calculator(expression: str) -> str:
        """Work out an arithmetic expression exactly. Use it for any sum you need to get right.

        Args:
            expression: numbers and + - * / ( ), such as 1234 * 5678
        """
        return calculate(expression)

    registry.add(calculator)
    return registry


# --------------------------------------------------------------------------------------------
# problems and questions

_QUESTION = re.compile(r"(-?\d+)\s*[×x*]\s*(-?\d+)")


def _check_digits(digits: int) -> None:
    if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 12:
        raise ValueError(f"digits must be a whole number from 1 to 12, got {digits!r}")


def make_problems(digits: int, n: int, seed: int = 1) -> list[tuple[int, int]]:
    """``n`` multiplication problems whose two numbers both have exactly ``digits`` digits.

    The same ``seed`` always gives the same problems.

    Notebook 01.
    """
    _check_digits(digits)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number of problems, 0 or more, got {n!r}")
    rng = random.Random(seed * 1009 + digits)
    low, high = 10 ** (digits - 1), 10**digits - 1
    return [(rng.randint(low, high), rng.randint(low, high)) for _ in range(n)]


def question(a: int, b: int) -> str:
    """The question a user asks: ``What is 123 × 456?``

    Notebook 01.
    """
    return f"What is {a} × {b}?"


def parse_question(text: str) -> tuple[int, int]:
    """The two numbers of a question made by :func:`question`; ``ValueError`` otherwise.

    Notebook 01, through CalculatorCallingModel.
    """
    match = _QUESTION.search(text or "")
    if not match:
        raise ValueError(f"no multiplication found in {text!r}; ask like 'What is 12 × 34?'")
    return int(match.group(1)), int(match.group(2))


def _last_user_text(messages: list) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return message.get("content") or ""
    return ""


# --------------------------------------------------------------------------------------------
# the two mock models


def _digits_of(n: int) -> int:
    return len(str(abs(n)))


class PatternMatchingModel:
    """(mock) A "model" that multiplies by recalling worked examples, not by computing.

    While "training" it saw ``examples_per_size`` worked problems for each size (both
    numbers with 1, 2, … ``max_digits`` digits), drawn at random with ``seed``, and the
    whole one-digit times table. The same budget covers every small problem but only a
    sliver of the big ones: there are 81 one-digit problems, 8,100 two-digit ones and
    810,000 three-digit ones.

    To answer ``a × b`` it recalls the answer if it saw that exact problem. Otherwise it
    takes the seen problem of the same size whose numbers are nearest to ``a`` and ``b``,
    copies that answer, and swaps in the last digit that the units digits of ``a``
    and ``b`` predict. The answer looks right and is close in size, which is why this kind
    of error is easy to miss. It never calls a tool. Pack §2.1 [15].

    Notebook 01.
    """

    _WINDOW = 100  # how many remembered neighbours on each side it compares

    def __init__(self, seed: int = 0, examples_per_size: int = 6000, max_digits: int = 8) -> None:
        if not isinstance(examples_per_size, int) or examples_per_size < 1:
            raise ValueError(f"examples_per_size must be a whole number, 1 or more, got {examples_per_size!r}")
        _check_digits(max_digits)
        self.seed = seed
        self.examples_per_size = examples_per_size
        self.max_digits = max_digits
        rng = random.Random(seed)
        # memory[size] maps a -> sorted list of the b's seen with it
        self._memory: dict[int, dict[int, list[int]]] = {}
        for size in range(1, max_digits + 1):
            low, high = 10 ** (size - 1), 10**size - 1
            seen: dict[int, set[int]] = {}
            for _ in range(examples_per_size):
                seen.setdefault(rng.randint(low, high), set()).add(rng.randint(low, high))
            if size == 1:  # the whole times table
                for a in range(1, 10):
                    seen.setdefault(a, set()).update(range(1, 10))
            self._memory[size] = {a: sorted(bs) for a, bs in seen.items()}
        self._keys = {size: sorted(m) for size, m in self._memory.items()}

    def seen(self, a: int, b: int) -> bool:
        """Whether this exact problem was among the worked examples."""
        return b in self._memory.get(_digits_of(a), {}).get(a, ()) if _digits_of(a) == _digits_of(b) else False

    def coverage(self, size: int) -> float:
        """The share of all problems of this size (both numbers ``size`` digits long) that
        the mock remembers exactly."""
        _check_digits(size)
        if size not in self._memory:
            return 0.0
        remembered = sum(len(bs) for bs in self._memory[size].values())
        return remembered / (9 * 10 ** (size - 1)) ** 2

    @property
    def n_examples(self) -> int:
        """How many different problems the mock remembers."""
        return sum(len(bs) for m in self._memory.values() for bs in m.values())

    @staticmethod
    def _nearest(sorted_values: list[int], x: int) -> int:
        i = bisect.bisect_left(sorted_values, x)
        options = sorted_values[max(0, i - 1) : i + 1]
        return min(options, key=lambda v: (abs(v - x), v))

    def _closest_seen(self, size: int, a: int, b: int) -> tuple[int, int]:
        """The remembered problem nearest to ``a × b``: among the ``_WINDOW`` remembered
        first numbers on each side of ``a``, the pair with the smallest relative distance."""
        keys, memory = self._keys[size], self._memory[size]
        i = bisect.bisect_left(keys, a)
        best: tuple[float, int, int] | None = None
        for near_a in keys[max(0, i - self._WINDOW) : i + self._WINDOW]:
            near_b = self._nearest(memory[near_a], b)
            distance = (abs(near_a - a) / a + abs(near_b - b) / b, near_a, near_b)
            if best is None or distance < best:
                best = distance
        assert best is not None  # every size remembers at least one problem
        return best[1], best[2]

    def multiply(self, a: int, b: int) -> int:
        """The mock's answer to ``a × b`` (often wrong for long numbers; see the class doc)."""
        if a < 0 or b < 0:
            sign = -1 if (a < 0) != (b < 0) else 1
            return sign * self.multiply(abs(a), abs(b))
        if a == 0 or b == 0:
            return 0
        size = _digits_of(a)
        if size != _digits_of(b) or size not in self._memory:
            # no examples of this shape at all: guess from the leading digits alone
            lead = int(str(a)[0]) * int(str(b)[0]) * 10 ** (_digits_of(a) + _digits_of(b) - 2)
            return lead - lead % 10 + (a % 10) * (b % 10) % 10
        near_a, near_b = self._closest_seen(size, a, b)
        recalled = near_a * near_b
        if (near_a, near_b) == (a, b):
            return recalled
        units = (a % 10) * (b % 10) % 10
        return recalled - recalled % 10 + units

    def respond(self, messages: list, tools: list) -> dict:
        """Answer the user's question in text, ignoring any tools it was offered."""
        try:
            a, b = parse_question(_last_user_text(messages))
        except ValueError:
            return {"content": "I can only answer questions like 'What is 12 × 34?'."}
        return {"content": str(self.multiply(a, b))}


class CalculatorCallingModel:
    """(mock) A "model" that always hands the sum to the ``calculator`` tool.

    Turn 1: it reads the question and writes one call, ``calculator(expression="a * b")``.
    Turn 2: it repeats what the tool returned (or says the tool failed). Pack §2.1–2.2.

    Notebook 01.
    """

    def respond(self, messages: list, tools: list) -> dict:
        last = messages[-1] if messages else {}
        if last.get("role") == "tool":
            if last.get("is_error"):
                return {"content": f"The calculator failed: {last.get('content')}"}
            return {"content": last.get("content")}
        try:
            a, b = parse_question(_last_user_text(messages))
        except ValueError:
            return {"content": "I can only answer questions like 'What is 12 × 34?'."}
        return {"tool_calls": [call("c1", "calculator", expression=f"{a} * {b}")]}


# --------------------------------------------------------------------------------------------
# the experiment


@dataclass
class DigitRow:
    """One row of the accuracy table: problems of one size, asked of one model.

    Notebook 01, through accuracy_by_digits.
    """

    digits: int
    n: int
    correct: int
    tool_calls: int
    median_rel_error: float  # median of |answer − truth| / truth; 0.0 when all are right

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


def accuracy_by_digits(
    model, digits=(1, 2, 3, 4, 5), n: int = 100, seed: int = 1, registry: ToolRegistry | None = None
) -> list[DigitRow]:
    """Ask ``model`` ``n`` problems of each size through :func:`toolkit.run_agent` and count
    exact answers (pack §2.1).

    The model gets the calculator registry (or ``registry``); whether it uses it is up to the
    model. An answer counts only if it is exactly the right whole number.

    Notebook 01.
    """
    registry = registry or make_calculator_registry()
    rows = []
    for size in digits:
        correct, calls, errors = 0, 0, []
        problems = make_problems(size, n, seed)
        for a, b in problems:
            result = run_agent(model, registry, question(a, b), call_timeout=None, max_steps=4)
            calls += result.calls
            truth = a * b
            try:
                answer = int((result.final or "").strip())
            except ValueError:
                errors.append(1.0)
                continue
            correct += answer == truth
            errors.append(abs(answer - truth) / truth)
        median = statistics.median(errors) if errors else 0.0
        rows.append(DigitRow(size, len(problems), correct, calls, median))
    return rows


def format_accuracy_table(named_rows: dict[str, list[DigitRow]]) -> str:
    """A plain-text table: one line per digit count, one column per model, each cell
    "right/asked = accuracy, tool calls".

    Notebook 01.
    """
    names = list(named_rows)
    if not names:
        raise ValueError("give at least one model's rows, as {name: rows}")
    sizes = [row.digits for row in named_rows[names[0]]]
    columns = []
    for name in names:
        rows = named_rows[name]
        if [r.digits for r in rows] != sizes:
            raise ValueError(f"{name!r} was asked different digit counts from {names[0]!r}")
        columns.append([f"{r.correct}/{r.n} = {r.accuracy:.0%}, {r.tool_calls} calls" for r in rows])
    widths = [max(len(name), *(len(c) for c in col)) for name, col in zip(names, columns)]
    lines = ["digits | " + " | ".join(n.ljust(w) for n, w in zip(names, widths))]
    lines.append("-" * len(lines[0]))
    for i, size in enumerate(sizes):
        lines.append(f"{size:>6} | " + " | ".join(col[i].ljust(w) for col, w in zip(columns, widths)))
    return "\n".join(line.rstrip() for line in lines)
