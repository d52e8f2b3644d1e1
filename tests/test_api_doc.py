"""docs/API.md stays true to the code (issue 13, point 4).

The page's format is described in its "Reading this page" section: an entry is a list item that
opens with a code span and a colon, `` - `name(params) -> result`: text ``. Names are looked up
in ``toolkit``, or in the module named by the nearest heading that is a module path in backticks;
a dotted name starting ``toolkit.`` is looked up from the root. These tests hold that:

- every name in ``toolkit.__all__`` has its own entry, and every exported function or class that
  has a signature is written with one;
- every entry, and every ``T.name`` mentioned anywhere on the page, names something that exists;
- every written signature has the code's parameters, in order, of the same kind, with the same
  defaults (type hints and the result after ``->`` are not compared);
- every command and option of the page's command-line block is one ``python -m toolkit`` has.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import toolkit as T

ROOT = Path(__file__).resolve().parent.parent
API_DOC = ROOT / "docs" / "API.md"

ENTRY = re.compile(r"^(\s*)- `([^`]+)`:(.*)$")
HEADING = re.compile(r"^#{1,6}\s+(.*)$")
MODULE_HEADING = re.compile(r"^`(toolkit(?:\.\w+)*)`$")
NAME = re.compile(r"^[A-Za-z_][\w.]*$")
PLAIN_DEFAULTS = (type(None), bool, int, float, complex, str, bytes, tuple, frozenset)


@dataclass
class Entry:
    line: int
    namespace: str  # the module names are looked up in
    name: str  # as written: "run_agent", "ToolRegistry.add", "toolkit.checks.ex01.check"
    params: str | None  # the text between the parentheses, or None when no signature is written
    description: str


def parse_entries(text: str) -> list[Entry]:
    """The entries of a page written in docs/API.md's format (see the module docstring)."""
    entries: list[Entry] = []
    namespace = "toolkit"
    in_code = False
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = HEADING.match(line)
        if heading:
            module = MODULE_HEADING.match(heading.group(1).strip())
            namespace = module.group(1) if module else "toolkit"
            continue
        match = ENTRY.match(line)
        if not match:
            continue
        indent, span, rest = match.groups()
        head = span.partition(" -> ")[0].strip()
        name, params = head, None
        if "(" in head:
            if not head.endswith(")"):
                raise ValueError(f"docs/API.md:{number}: `{span}` opens a parenthesis it does not close")
            name, params = head[: head.index("(")], head[head.index("(") + 1 : -1]
        if not NAME.match(name):
            raise ValueError(f"docs/API.md:{number}: `{span}` does not start with a dotted name")
        description = [rest.strip()]
        for follow in lines[number:]:  # continuation lines, indented deeper than the item
            if (
                not follow.strip()
                or ENTRY.match(follow)
                or follow.lstrip().startswith("- ")
                or len(follow) - len(follow.lstrip()) <= len(indent)
            ):
                break
            description.append(follow.strip())
        entries.append(Entry(number, namespace, name, params, " ".join(d for d in description if d)))
    return entries


def resolve(namespace: str, dotted: str):
    """``(object, owner)`` for a documented name; ``owner`` is the class an attribute was read
    from, else None. An attribute a class only sets in ``self.name = ...`` (or a dataclass field
    without a default) resolves to the string "instance attribute". Raises LookupError."""
    if dotted.startswith("toolkit."):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):  # the longest importable module prefix
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            rest = parts[cut:]
            break
        else:
            raise LookupError(dotted)
    else:
        obj, rest = importlib.import_module(namespace), dotted.split(".")
    owner = None
    for attr in rest:
        if inspect.isclass(obj) and not hasattr(obj, attr) and attr in instance_attributes(obj):
            return "instance attribute", obj
        if not hasattr(obj, attr):
            raise LookupError(f"{dotted}: no attribute {attr!r} on {getattr(obj, '__name__', obj)!r}")
        owner = obj if inspect.isclass(obj) else None
        obj = getattr(obj, attr)
    return obj, owner


def instance_attributes(cls) -> set[str]:
    """Names a class (or a base class) assigns as ``self.name``, plus its dataclass fields."""
    names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        for node in ast.walk(tree):
            target = node.target if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else None
            targets = node.targets if isinstance(node, ast.Assign) else [target] if target else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.add(t.attr)
    return names


def code_signature(obj, owner) -> inspect.Signature:
    """The signature a caller sees: a method read from its class loses ``self``."""
    signature = inspect.signature(obj)
    if owner is not None and inspect.isfunction(inspect.getattr_static(owner, obj.__name__, None)):
        parameters = list(signature.parameters.values())[1:]
        signature = signature.replace(parameters=parameters)
    return signature


def written_parameters(params: str) -> list[tuple[str, inspect._ParameterKind, ast.expr | None]]:
    """``[(name, kind, default expression or None)]`` of a signature as written on the page."""
    args = ast.parse(f"def _({params}): pass").body[0].args
    P = inspect.Parameter
    positional = [(a, P.POSITIONAL_ONLY) for a in args.posonlyargs] + [(a, P.POSITIONAL_OR_KEYWORD) for a in args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [(a.arg, kind, d) for (a, kind), d in zip(positional, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, P.VAR_POSITIONAL, None))
    out += [(a.arg, P.KEYWORD_ONLY, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        out.append((args.kwarg.arg, P.VAR_KEYWORD, None))
    return out


def default_problem(name: str, written: ast.expr, actual) -> str | None:
    """Why a written default differs from the code's, or None when they agree."""
    if isinstance(written, ast.Constant) and written.value is Ellipsis:
        return None  # "...": a long value the description shows
    if actual is dataclasses._HAS_DEFAULT_FACTORY:  # a dataclass field built by a factory
        return None
    text = ast.unparse(written)
    try:
        value = ast.literal_eval(written)
    except ValueError:
        module, _, attr = text.rpartition(".")
        try:
            value = getattr(importlib.import_module(module), attr) if module else None
        except ImportError:
            value = None
        return None if value is actual and value is not None else f"{name}={text} on the page, {actual!r} in the code"
    if type(value) is type(actual) and value == actual:
        return None
    return f"{name}={text} on the page, {actual!r} in the code"


def signature_problems(params: str, signature: inspect.Signature) -> list[str]:
    written = written_parameters(params)
    actual = list(signature.parameters.values())
    shape = [(n, k.name) for n, k, _ in written]
    real = [(p.name, p.kind.name) for p in actual]
    if shape != real:
        return [f"parameters {shape} on the page, {real} in the code"]
    problems = []
    for (name, _, default), param in zip(written, actual):
        if (default is None) != (param.default is inspect.Parameter.empty):
            problems.append(f"{name}: a default on one side only")
        elif default is not None:
            problem = default_problem(name, default, param.default)
            if problem:
                problems.append(problem)
    return problems


@pytest.fixture(scope="module")
def doc_text() -> str:
    assert API_DOC.exists(), "docs/API.md is missing: the public interface lives there"
    return API_DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def entries(doc_text) -> list[Entry]:
    return parse_entries(doc_text)


def test_every_export_has_its_own_entry(entries):
    top = {e.name for e in entries if e.namespace == "toolkit"}
    missing = [name for name in T.__all__ if name not in top]
    assert not missing, f"names in toolkit.__all__ without an entry in docs/API.md: {missing}"


def test_every_exported_callable_is_written_with_its_signature(entries):
    written = {e.name for e in entries if e.namespace == "toolkit" and e.params is not None}
    missing = []
    for name in T.__all__:
        obj = getattr(T, name)
        if not callable(obj):
            continue
        try:
            inspect.signature(obj)
        except (TypeError, ValueError):  # exception classes implemented in C: no signature
            continue
        if name not in written:
            missing.append(name)
    assert not missing, f"write these with their parameters in docs/API.md: {missing}"


def test_every_entry_names_something_that_exists(entries):
    problems = []
    for e in entries:
        try:
            resolve(e.namespace, e.name)
        except LookupError as err:
            problems.append(f"docs/API.md:{e.line}: {e.name} ({err})")
    assert not problems, "entries that name nothing in the code:\n" + "\n".join(problems)


def test_every_entry_says_what_it_is(entries):
    bare = [f"docs/API.md:{e.line}: {e.name}" for e in entries if len(e.description.split()) < 3]
    assert not bare, "entries without a description of their own:\n" + "\n".join(bare)


def test_every_written_signature_matches_the_code(entries):
    problems = []
    for e in [e for e in entries if e.params is not None]:
        obj, owner = resolve(e.namespace, e.name)
        try:
            signature = code_signature(obj, owner)
        except (TypeError, ValueError):
            problems.append(f"docs/API.md:{e.line}: {e.name} has no signature in the code")
            continue
        problems += [f"docs/API.md:{e.line}: {e.name}: {p}" for p in signature_problems(e.params, signature)]
    assert not problems, "signatures that differ from the code:\n" + "\n".join(problems)


def test_every_T_name_in_the_prose_exists(doc_text):
    missing = []
    for dotted in sorted(set(re.findall(r"\bT\.([A-Za-z_][\w.]*\w)", doc_text))):
        try:
            resolve("toolkit", dotted)
        except LookupError:
            missing.append(f"T.{dotted}")
    assert not missing, f"docs/API.md mentions names toolkit does not have: {missing}"


def test_the_command_line_block_matches_the_program(doc_text):
    help_text = subprocess.run(
        [sys.executable, "-m", "toolkit", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60
    ).stdout
    choices = re.search(r"\{([a-z,]+)\}", help_text).group(1).split(",")
    block = doc_text.split("## The command line", 1)[1].split("```")[1]
    written = set(re.findall(r"python -m toolkit (\w+)", block))
    assert written == set(choices), f"commands: {sorted(written)} on the page, {choices} in the program"
    unknown = sorted(
        f
        for f in set(re.findall(r"(--[a-z][a-z-]+)", block))
        if f not in help_text and f not in ("--api", "--base-url", "--model", "--trials")
    )
    assert not unknown, f"options on the page that python -m toolkit --help does not list: {unknown}"


# --- the checker can fail ----------------------------------------------------------------------


def test_the_checker_catches_a_wrong_signature_a_wrong_name_and_a_wrong_default():
    page = (
        "## 1. Part\n\n"
        "- `run_agent(model, registry)`: the loop, with its keyword options forgotten.\n"
        "- `ToolRegistry.prepare(name, args, repair=False)`: a default written wrong.\n"
        "- `no_such_function(x)`: a name the toolkit does not have.\n"
        "### `toolkit.lessons.retail`\n\n"
        "- `mangle_id(order_id)`: a module heading sets where names are looked up.\n"
    )
    entries = parse_entries(page)
    assert [(e.namespace, e.name) for e in entries] == [
        ("toolkit", "run_agent"),
        ("toolkit", "ToolRegistry.prepare"),
        ("toolkit", "no_such_function"),
        ("toolkit.lessons.retail", "mangle_id"),
    ]
    run_agent, prepare, missing, mangle = entries
    assert signature_problems(run_agent.params, code_signature(*resolve("toolkit", "run_agent")))
    assert signature_problems(prepare.params, code_signature(*resolve("toolkit", "ToolRegistry.prepare"))) == [
        "repair=False on the page, True in the code"
    ]
    with pytest.raises(LookupError):
        resolve(missing.namespace, missing.name)
    assert signature_problems(mangle.params, code_signature(*resolve(mangle.namespace, mangle.name))) == []


def test_defaults_compare_by_value_type_and_identity():
    import time

    P = inspect.Parameter
    sig = inspect.Signature([P("sleep", P.KEYWORD_ONLY, default=time.sleep), P("k", P.KEYWORD_ONLY, default=5)])
    assert signature_problems("*, sleep=time.sleep, k=5", sig) == []
    assert signature_problems("*, sleep=time.monotonic, k=5", sig)
    assert signature_problems("*, sleep=time.sleep, k=5.0", sig)  # 5.0 is not the int 5
    assert signature_problems("*, sleep=..., k=5", sig) == []
    assert signature_problems("sleep=time.sleep, k=5", sig)  # keyword-only on one side only
