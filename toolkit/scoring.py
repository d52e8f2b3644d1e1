"""Scoring tool calls the way BFCL does: parse the call, compare it with accepted answers.

Pack §2.9 ("BFCL: checking the call itself") and Gorilla's AST sub-tree matching (§2.4). A
model's reply such as ``[add(a=2, b=3), mult(a=4, b=5)]`` is parsed into calls without
running anything; each call is compared with gold calls whose parameters list every
acceptable value; parallel calls may come in any order.

BFCL's rules, followed here (checked reply by reply against ``bfcl_eval`` 2026.3.23's
``ast_checker`` and decoders by ``benchmarks/compare_bfcl.py``):

* Reading a reply: outer white space, a Markdown fence (```` ``` ```` or ```` ```python ````)
  and backticks are dropped, and missing list brackets are added, so ``f(a=1), g(b=2)`` is two
  calls and ``[f(a=1)`` is one. Prose before or after the calls, a tuple ``(f(), g())`` or
  calls on separate lines with no comma between them are not calls.
* ``""`` among a parameter's acceptable values makes it optional; an extra parameter fails.
  When the function schemas are known, an argument the schema does not declare, or a missing
  required one, also fails, whatever the gold answer lists.
* Types, when the schema is known: each value must have its declared type (BFCL's integer,
  float, string, boolean, array or tuple, dict, any; JSON Schema's number and object too). An
  int passes for a float; a float never passes for an integer (``3.0`` fails there); a bool is
  never a number; a tuple is no array; "any" is checked as a string, as BFCL does; list items
  are checked one level down. A value of the gold's own type passes too (BFCL's golds
  sometimes hold a variable's name, such as ``"data['sales']"``, for an array).
* ``''`` given as a value: it fails the type check for anything but a string. For a string
  parameter BFCL compares it with every listed text, ``""`` included, so it passes where
  ``""`` is listed (and ``[]`` passes for an array). Without a schema no type can be checked,
  and a listed ``""`` only ever means "may be left out": ``z=''`` fails.
* A dict-typed parameter's gold value may be BFCL's nested form ``{key: [acceptable values]}``
  (and a list of such dicts, matched in order); keys are checked one by one, with ``""`` again
  marking optional keys, and the dict's own values are not type-checked.
* On an irrelevance case (no gold calls), a reply that is not written as calls (prose, ``[]``)
  passes; any reply written as calls fails, fenced or not, even with arguments the parser
  below refuses (BFCL's decoder reads those).

Where this scorer differs from BFCL on purpose (MORE LENIENT unless it says stricter):

* Strings: here every character that is not a letter or digit is ignored, with case; BFCL
  lower-cases and removes only spaces and ``,./-_*^``. So "New York!" passes for "New York"
  (BFCL fails it), and so does "!" where ``""`` is listed. The same holds inside lists and
  dicts, where BFCL compares list items' text or a variable name exactly. Exercise 9 asks
  students to find where this is too lenient.
* Numbers: ``values_equal(3, 3.0)`` is True. With a schema the type check comes first, so this
  only passes ``3.0`` for an integer when no schema is known (BFCL always has one); inside a
  dict argument BFCL's ``==`` also makes ``True == 1``, which here is never so (stricter).
* Parallel calls: a true one-to-one matching (augmenting paths) decides whether the calls can
  be paired with the gold calls. BFCL pairs greedily, which can miss a valid pairing when one
  output fits two gold calls: such a reply passes here and fails there.
* Arguments must be literals (stricter): positional arguments, bare names such as
  ``city=Paris``, arithmetic and nested calls are a ``format_error``. BFCL's decoder drops
  positional arguments, reads a bare name as its text and evaluates arithmetic, so it can pass
  such a call. Of fence tags only ``python`` (and ``json``) are dropped, as BFCL's Phi decoder
  does; BFCL's default decoder sees through bare ```` ``` ```` fences only.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "parse_calls",
    "values_equal",
    "call_matches",
    "calls_match",
    "classify",
    "evaluate_calls",
    "exact_string_match",
    "format_calls",
    "load_bfcl",
    "gold_calls",
    "function_schemas",
    "case_category",
    "known_names",
    "is_nested_form",
    "FAILURE_TYPES",
    "FUNCS",
    "BFCL_CASES",
    "BFCL_OUTPUTS",
]

FAILURE_TYPES = (
    "format_error",
    "should_abstain",
    "missed_call",
    "hallucinated_function",
    "wrong_call_count",
    "wrong_function",
    "wrong_arguments",
)


# --------------------------------------------------------------------------------------------
# parsing


def _dotted_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted_name(node.value) + "." + node.attr
    raise ValueError("a function name must be a plain or dotted name, such as add or math.gcd")


def _parse_one(node: ast.AST) -> tuple[str, dict]:
    if not isinstance(node, ast.Call):
        raise ValueError(f"expected a call such as f(a=1), found a {type(node).__name__} expression")
    name = _dotted_name(node.func)
    if node.args:
        raise ValueError(f"{name}: positional arguments are not allowed; name each one, as in {name}(a=1)")
    kwargs: dict = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ValueError(f"{name}: **-unpacking is not allowed; write each argument out")
        if kw.arg in kwargs:
            raise ValueError(f"{name}: argument {kw.arg!r} is given twice")
        try:
            kwargs[kw.arg] = ast.literal_eval(kw.value)
        except Exception:
            raise ValueError(
                f"{name}: the value of {kw.arg!r} is not a literal (a number, string, bool, None, list or dict)"
            ) from None
    return name, kwargs


def _unwrap(text: str) -> str:
    """The reply as BFCL's decoders see it before parsing.

    ``default_decode_ast_prompting`` strips backticks, spaces and newlines from both ends and
    adds a ``[`` at the start and a ``]`` at the end when either is missing; the Phi handler's
    decoder first drops a leading ```` ```json ```` or ```` ```python ```` tag. So a fenced
    call, calls without their list brackets, and a list missing one bracket all read as a list
    of calls; prose before or after the calls does not.
    """
    source = text.strip()
    for tag in ("```json", "```python"):
        if source.startswith(tag):
            source = source[len(tag) :]
    source = source.strip("`\n ")  # only these three characters, as BFCL: not tabs or CR
    if not source.startswith("["):
        source = "[" + source
    if not source.endswith("]"):
        source += "]"
    return source


def _call_nodes(text: Any) -> list[ast.expr]:
    """The reply's top-level items as syntax trees (not yet checked to be calls)."""
    if not isinstance(text, str):
        raise ValueError(f"expected the reply as a string, got {type(text).__name__}")
    try:
        body = ast.parse(_unwrap(text), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(
            f"not valid call syntax, read as a list of calls ({exc.msg}); write keyword "
            "calls, f(a=1) or [f(a=1), g(b=2)], with no text around them"
        ) from None
    except Exception as exc:  # NUL bytes, RecursionError or MemoryError on absurd nesting, ...
        raise ValueError(f"could not parse the reply ({type(exc).__name__})") from None
    return body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]


def parse_calls(text: str) -> list[tuple[str, dict]]:
    """Parse a reply into ``[(name, kwargs)]`` without evaluating any code.

    Reads the reply the way BFCL's decoder does (see :func:`_unwrap`): a Markdown fence
    around it (```` ``` ```` or ```` ```python ````) is dropped, and calls written without the
    list brackets, ``f(a=1), g(b=2)``, are a list of two calls. Each call needs keyword
    arguments whose values are literals; dotted names like ``math.gcd`` are fine; ``""`` and
    ``"[]"`` mean no calls. Anything else (prose, trailing text, a tuple of calls in
    parentheses, positional arguments) raises :class:`ValueError` saying why, and nothing but
    ``ValueError``, whatever the input.

    Notebook 09.
    """
    nodes = _call_nodes(text)
    try:
        return [_parse_one(n) for n in nodes]
    except ValueError as exc:
        raise ValueError(str(exc)) from None
    except Exception as exc:  # RecursionError, MemoryError on absurd nesting, and the like
        raise ValueError(f"could not parse the reply ({type(exc).__name__})") from None


def _written_as_calls(text: Any) -> bool:
    """Is the reply call syntax, ``f(...)`` or a list of them, whatever the arguments?

    BFCL's decoder reads positional arguments, bare names and arithmetic too, so on an
    irrelevance case ``get_weather("Paris")`` is a call made, not an abstention.
    """
    try:
        nodes = _call_nodes(text)
        return bool(nodes) and all(isinstance(n, ast.Call) and _dotted_name(n.func) for n in nodes)
    except Exception:  # not a name, or nested past the recursion limit
        return False


def _as_calls(output: Any) -> list[tuple[Any, dict]]:
    """A reply as calls: text is parsed; a list of ``(name, kwargs)`` or call dicts is taken as is."""
    if isinstance(output, str):
        return parse_calls(output)
    if isinstance(output, (list, tuple)):
        return [_as_call(c) for c in output]
    raise ValueError(f"expected the reply as text or a list of calls, got {type(output).__name__}")


def _as_call(c: Any) -> tuple[Any, dict]:  # a dict's name is whatever the model sent
    if isinstance(c, Mapping):
        args = c.get("arguments", c.get("args", c.get("kwargs", {})))
        return c.get("name"), dict(args or {})
    if isinstance(c, (list, tuple)) and len(c) == 2 and isinstance(c[1], Mapping):
        return c[0], dict(c[1])
    raise ValueError(f"expected a call as (name, kwargs) or a dict, got {c!r}")


# --------------------------------------------------------------------------------------------
# comparing values and calls

_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def _norm_text(s: str) -> str:
    return _NOT_WORD.sub("", s).casefold()


def values_equal(a: Any, b: Any) -> bool:
    """Loose equality for scoring: strings ignore case, spaces and punctuation; ``3 == 3.0``;
    a bool equals only a bool; ``None`` equals ``None``; lists compare element by element and
    dicts key by key.

    Notebook 09.
    """
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return _norm_text(a) == _norm_text(b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# BFCL's types (ast_checker.PYTHON_TYPE_MAPPING, where "any" is checked as a string), and the
# JSON Schema spellings of MCP tools and the pack's cases.
_PY_TYPES = {
    "string": str,
    "any": str,
    "integer": int,
    "float": float,
    "number": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "object": dict,
}


def _declared_type(prop: Any) -> str | None:
    """A parameter's declared type, if it is one the checks know (else it is not checked)."""
    kind = prop.get("type") if isinstance(prop, Mapping) else None
    return kind if type(kind) is str and kind in _PY_TYPES else None


def _is_omit_marker(option: Any) -> bool:
    return isinstance(option, str) and option == ""


def _gold_type(options: list) -> type | None:
    """The type of the first acceptable value that is not the ``""`` marker."""
    return next((type(o) for o in options if not _is_omit_marker(o)), None)


def _type_ok(value: Any, options: list, prop: Mapping, declared: str) -> bool:
    """BFCL's type check (``ast_checker.type_checker``) for one argument.

    The value must be of the declared type, exactly: an int passes for a float (BFCL turns it
    into one), a float never passes for an integer, a bool is never a number, a tuple is no
    array (except for BFCL's ``tuple`` type). A value of the same type as the gold's own values
    passes too: BFCL's golds sometimes hold a variable's name, such as ``"data['sales']"``, for
    an array. For an array, each item is checked one level down the same way, against the
    ``items`` type or the type of the gold list's items.
    """
    expected = _PY_TYPES[declared]
    if declared == "tuple" and type(value) is tuple:
        value = list(value)
    if expected is float and type(value) is int:
        value = float(value)
    if type(value) is not expected:
        return type(value) is _gold_type(options)
    items = prop.get("items") if expected is list else None
    items_declared = _declared_type(items) if items else None
    item_type = _PY_TYPES[items_declared] if items_declared else None
    if item_type is None:
        return True
    assert isinstance(value, list)  # items are checked for arrays only
    for option in options:  # some acceptable list whose items have the types of the value's
        if not isinstance(option, list):
            return True  # BFCL: the "" marker (or any non-list) lets the items through
        gold = _gold_type(option)
        if all(type(v) is item_type or type(v) is gold for v in value):
            return True
    return False


def _matches_omitted(value: Any, declared: str | None) -> bool:
    """Does a given value match a listed ``""``? Only as BFCL's comparisons let it: a text
    that is empty once normalised (a string parameter compares texts, ``""`` included), or
    ``[]`` for an array. Never when the type is unknown: then ``""`` only marks "may be left out"."""
    if declared is None:
        return False
    if isinstance(value, str):
        return _norm_text(value) == ""
    return declared in ("array", "tuple") and isinstance(value, (list, tuple)) and not value


def is_nested_form(option: Any) -> bool:
    """Is a gold value written in BFCL's nested form, ``{key: [acceptable values]}``? (An empty
    dict is a plain value: it has no keys to list values for.)

    Used by: toolkit/checks/ex09.py.
    """
    return isinstance(option, dict) and bool(option) and all(isinstance(v, list) for v in option.values())


def _nested_ok(value: dict, gold: dict) -> bool:
    """BFCL's nested dict form: each gold key lists acceptable values; ``""`` makes it optional.
    As in BFCL, a dict's own values are compared without a type check ("any" below)."""
    for key, v in value.items():
        if key not in gold or not _value_ok(v, gold[key], "any"):
            return False
    return all(key in value or "" in opts for key, opts in gold.items())


def _value_ok(value: Any, acceptable: Any, declared: str | None = None) -> bool:
    """Is ``value`` one of the acceptable values? ``declared``: the parameter's type, already
    checked, or None when unknown (see :func:`_matches_omitted` for the ``""`` marker)."""
    options = acceptable if isinstance(acceptable, list) else [acceptable]
    for option in options:
        if _is_omit_marker(option):
            if _matches_omitted(value, declared):
                return True
            continue
        if values_equal(value, option):
            return True
        if isinstance(value, dict) and is_nested_form(option) and _nested_ok(value, option):
            return True
        if (
            isinstance(value, list)
            and isinstance(option, list)
            and option
            and all(is_nested_form(o) for o in option)
            and len(value) == len(option)
            and all(isinstance(v, dict) and _nested_ok(v, o) for v, o in zip(value, option))
        ):
            return True
    return False


def _argument_ok(value: Any, acceptable: Any, prop: Any) -> bool:
    """One argument: the declared type first, when the schema gives one, then the value."""
    declared = _declared_type(prop)
    options = acceptable if isinstance(acceptable, list) else [acceptable]
    if declared is not None and not _type_ok(value, options, prop, declared):
        return False
    return _value_ok(value, options, declared)


def call_matches(pred: Any, gold: Mapping, schema: Mapping | None = None) -> bool:
    """Does one predicted call fit one gold call ``{"name", "args": {param: [acceptable]}}``?

    Same name; every given argument has an acceptable value; every gold parameter missing
    from the call lists ``""`` (optional); no argument the gold call does not know. With the
    function's parameters ``schema`` (JSON Schema, or BFCL's ``parameters``), each value must
    also have its declared type, as BFCL checks it (see :func:`_type_ok`).

    Notebook 09.
    """
    name, kwargs = _as_call(pred)
    if name != gold.get("name"):
        return False
    args = gold.get("args") or {}
    props = (schema.get("properties") or {}) if isinstance(schema, Mapping) else {}
    for param, value in kwargs.items():
        if param not in args or not _argument_ok(value, args[param], props.get(param)):
            return False
    for param, options in args.items():
        if param not in kwargs and "" not in (options if isinstance(options, list) else [options]):
            return False
    return True


def calls_match(preds: Iterable, golds: Iterable[Mapping], schemas: Mapping | None = None) -> bool:
    """Can the predicted calls be paired one to one with the gold calls, in any order?

    The rule is :func:`call_matches` for each pair; the pairing itself is the speed-up
    :func:`pairs_one_to_one` (at most n² comparisons instead of trying all n! orders).
    ``schemas``: ``{name: parameters schema}`` (see :func:`function_schemas`), to check values
    against their declared types.

    Notebook 09, through classify.
    """
    preds = [_as_call(p) for p in preds]
    golds = list(golds)
    schemas = schemas or {}
    if len(preds) != len(golds):
        return False

    def fit(p: tuple[Any, dict], g: Mapping) -> bool:
        return call_matches(p, g, schemas.get(g.get("name")))

    if all(fit(p, g) for p, g in zip(preds, golds)):
        return True  # the calls came in the gold order: n comparisons settle it
    fits = [[j for j, g in enumerate(golds) if fit(p, g)] for p in preds]
    return pairs_one_to_one(fits)


def pairs_one_to_one(fits: list[list[int]]) -> bool:
    """Can each prediction ``i`` take its own gold call from ``fits[i]`` (the golds it fits)?

    A bipartite matching by augmenting paths (Kuhn's algorithm): each prediction takes a free
    gold call it fits, or one whose owner can move to another; n augmentations in all.
    """
    n = len(fits)
    if any(not f for f in fits):
        return False
    owner = [-1] * n  # owner[j]: the prediction currently paired with gold j

    def augment(i: int, seen: list[bool]) -> bool:
        for j in fits[i]:
            if not seen[j]:
                seen[j] = True
                if owner[j] == -1 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, [False] * n) for i in range(n))


def format_calls(calls: Iterable) -> str:
    """Calls as the text a model would write: ``add(a=2, b=3)`` for one, ``[f(a=1), g(b=2)]``
    for several, ``""`` for none. The toolkit's one call formatter.

    The inverse of :func:`parse_calls` for literal arguments, handy for mock callers. A call is
    ``(name, kwargs)`` or a dict as the loop records it; arguments a model sent as text are
    decoded as JSON, or written as sent when they are not JSON.

    Used by: toolkit/lessons/mock_callers.py.
    """
    parts = [_call_text(c) for c in calls]
    if len(parts) == 1:
        return parts[0]
    return "[" + ", ".join(parts) + "]" if parts else ""


def _call_text(c: Any) -> str:
    if isinstance(c, Mapping) and isinstance(c.get("arguments"), str):
        raw = c["arguments"]
        try:
            decoded = json.loads(raw) if raw.strip() else {}
        except ValueError:
            decoded = None
        if not isinstance(decoded, dict):
            return f"{c.get('name')}({raw})"
        c = {"name": c.get("name"), "arguments": decoded}
    name, kwargs = _as_call(c)
    return f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"


def load_bfcl(category: str | None = None) -> list[dict]:
    """The BFCL slice in ``data/bfcl/`` (250 cases, Apache-2.0, Patil et al. [7]), as raw
    BFCL records, which :func:`classify` accepts directly. ``category`` picks one file:
    simple_python, multiple, parallel, parallel_multiple or irrelevance.

    Notebook 09.
    """
    import json

    from .data import data_path

    names = [category] if category else ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]
    cases: list[dict] = []
    for name in names:
        with open(data_path(f"bfcl/{name}.jsonl"), encoding="utf-8") as fh:
            cases.extend(json.loads(line) for line in fh if line.strip())
    return cases


def exact_string_match(pred: str, gold_text: str) -> bool:
    """The brittle baseline: the reply must equal the gold text character for character
    (outer white space aside). ``add(a=2,b=3)`` and ``add(a=2, b=3)`` already differ.

    Notebook 09.
    """
    return isinstance(pred, str) and isinstance(gold_text, str) and pred.strip() == gold_text.strip()


# --------------------------------------------------------------------------------------------
# cases


def gold_calls(case: Mapping) -> list[dict]:
    """A case's gold calls as ``[{"name", "args"}]``, from this course's format (``gold``)
    or BFCL's (``ground_truth``: ``[{name: {param: [acceptable]}}]``).

    Notebook 09, through classify.
    """
    if "gold" in case:
        return list(case["gold"] or [])
    out = []
    for entry in case.get("ground_truth") or []:
        for name, args in entry.items():
            out.append({"name": name, "args": args})
    return out


def case_category(case: Mapping) -> str:
    """``category`` if given, else the case id without its number (``simple_python_19`` →
    ``simple_python``).

    Notebook 09.
    """
    if case.get("category"):
        return case["category"]
    return re.sub(r"_\d+$", "", str(case.get("id", "unknown")))


def known_names(functions: Any) -> set:
    """Function names from a dict of schemas, a list of names, or a list of schema dicts.

    Notebook 09, through classify.
    """
    if functions is None:
        return set()
    if isinstance(functions, Mapping):
        return set(functions)
    names = set()
    for f in functions:
        if isinstance(f, str):
            names.add(f)
        elif isinstance(f, Mapping) and "name" in f:
            names.add(f["name"])
        elif hasattr(f, "name"):
            names.add(f.name)
    return names


def function_schemas(functions: Any) -> dict:
    """``{name: parameters schema}`` for the functions whose schemas are known (BFCL's
    ``parameters`` or MCP's ``inputSchema``); names given without a schema are left out.

    Notebook 09, through classify.
    """
    items = functions.values() if isinstance(functions, Mapping) else (functions or [])
    out = {}
    for f in items:
        if isinstance(f, Mapping) and "name" in f:
            schema = f.get("parameters") or f.get("inputSchema")
            if isinstance(schema, Mapping):
                out[f["name"]] = schema
    return out


def _fits_declared(kwargs: dict, schema: Mapping | None) -> bool:
    """Every argument is a declared parameter and every required one is given (as BFCL checks)."""
    if schema is None:
        return True
    props = schema.get("properties") or {}
    return all(k in props for k in kwargs) and all(r in kwargs for r in schema.get("required") or [])


def classify(case: Mapping, output: Any, known_functions: Any = None) -> str:
    """``"pass"`` or the first failure that applies, in this order: ``format_error``,
    ``should_abstain`` (no call was right, calls were made), ``missed_call``,
    ``hallucinated_function`` (a name no tool has, Gorilla's hallucination [2]),
    ``wrong_call_count``, ``wrong_function``, ``wrong_arguments``.

    ``known_functions`` defaults to the case's own function list (``function`` in BFCL files,
    ``functions`` here). When it carries schemas, an argument the function does not declare,
    a missing required one, or a value of another type than declared (``z=''`` for an integer)
    is ``wrong_arguments`` even if the gold answer would allow it. Replies are read by
    :func:`parse_calls` (fences dropped, missing brackets added); on an irrelevance case any
    reply written as calls is ``should_abstain``, even one the parser refuses.

    Notebook 09.
    """
    gold = gold_calls(case)
    try:
        calls = _as_calls(output)
    except ValueError:
        if gold:
            return "format_error"
        return "should_abstain" if _written_as_calls(output) else "pass"
    if not gold:
        return "should_abstain" if calls else "pass"
    if not calls:
        return "missed_call"
    if known_functions is None:
        known_functions = case.get("function", case.get("functions"))
    known = known_names(known_functions)
    if known and any(name not in known for name, _ in calls):
        return "hallucinated_function"
    if len(calls) != len(gold):
        return "wrong_call_count"
    if Counter(name for name, _ in calls) != Counter(g["name"] for g in gold):
        return "wrong_function"
    schemas = function_schemas(known_functions)
    if any(not _fits_declared(kwargs, schemas.get(name)) for name, kwargs in calls):
        return "wrong_arguments"
    if not calls_match(calls, gold, schemas):
        return "wrong_arguments"
    return "pass"


def evaluate_calls(cases: Iterable[Mapping], outputs: Any, known_functions: Any = None) -> dict:
    """Score many replies: ``{"overall", "by_category": {cat: accuracy}, "failures": {type: n}}``.

    ``outputs`` is a list in case order, or a dict from case id to reply. Categories and
    failure types appear in the order they are first met.

    Notebook 09.
    """
    cases = list(cases)
    if not cases:
        raise ValueError("evaluate_calls needs at least one case")
    if isinstance(outputs, Mapping):
        replies = [outputs.get(c.get("id"), "") for c in cases]
    else:
        replies = list(outputs)
        if len(replies) != len(cases):
            raise ValueError(f"got {len(replies)} outputs for {len(cases)} cases; give one per case")
    totals: dict[str, list[int]] = {}
    failures: dict[str, int] = {}
    passed = 0
    for case, reply in zip(cases, replies):
        label = classify(case, reply, known_functions)
        cat = totals.setdefault(case_category(case), [0, 0])
        cat[1] += 1
        if label == "pass":
            passed += 1
            cat[0] += 1
        else:
            failures[label] = failures.get(label, 0) + 1
    return {
        "overall": passed / len(cases),
        "by_category": {c: ok / n for c, (ok, n) in totals.items()},
        "failures": failures,
    }


# --------------------------------------------------------------------------------------------
# the pack's seven cases (data/bfcl_pack.json)

FUNCS: dict
BFCL_CASES: list[dict]
BFCL_OUTPUTS: list
_PACK_KEYS = {"FUNCS": "functions", "BFCL_CASES": "cases", "BFCL_OUTPUTS": "outputs"}


def __getattr__(name: str) -> Any:
    """``FUNCS``, ``BFCL_CASES`` and ``BFCL_OUTPUTS`` are read on first use (PEP 562), so that
    importing the toolkit works even where the data folder is missing."""
    if name not in _PACK_KEYS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .data import load_json

    value = globals()[name] = load_json("bfcl_pack.json")[_PACK_KEYS[name]]
    return value
