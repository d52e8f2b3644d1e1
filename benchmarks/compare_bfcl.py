"""The toolkit's scorer against BFCL's own checker, reply by reply (run on demand).

Pack §2.9. For each of the 250 BFCL cases in data/bfcl/ (and the pack's seven) this writes a
few dozen replies, seeded: the right answer in several shapes (a list, calls without the
brackets, Markdown fences, half brackets, trailing text), and mutations (an empty string as a
value, a value of another type, an optional parameter left out, an extra or missing one, a
wrong value, other wording of a string, calls on an irrelevance case, positional arguments,
bare names). Each reply gets two verdicts: ``toolkit.classify(...) == "pass"``, and BFCL's, from
``bfcl_eval``'s evaluation runner itself (``_evaluate_single_ast_entry`` and
``_evaluate_single_relevance_entry``, which decode the reply and call ``ast_checker``).

BFCL decodes a reply with the model handler's ``decode_ast``. Two are compared:
``default`` is ``default_decode_ast_prompting`` (prompting models; it strips backticks, spaces
and newlines and adds missing brackets, so a ```` ```python ```` fence leaves "python" behind
and fails); ``phi`` is the Phi handler's decoder, which also drops a leading
```` ```python ```` first, as the toolkit does. Agreement is reported overall and for each
kind of reply; the three rules of issue 11 (empty strings and declared types, fences,
brackets) are expected to agree 100% with ``phi``. Every disagreement is listed with its kind,
so it can be checked against the deliberate differences in toolkit/scoring.py's docstring.

bfcl-eval is not a dependency of the course. To run this, use a throw-away environment:

    python3 -m venv /tmp/venv-bfcl
    /tmp/venv-bfcl/bin/pip install --no-deps bfcl-eval==2026.3.23
    /tmp/venv-bfcl/bin/pip install numpy pandas tqdm tenacity filelock python-dotenv overrides \\
        tree_sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4
    /tmp/venv-bfcl/bin/python benchmarks/compare_bfcl.py [--decoder phi|default] [--show 40]

(``pip install bfcl-eval`` with its dependencies works too, but pulls in every model SDK.)
Only ``bfcl_eval.constants.model_config`` is replaced, by a stub: it imports every model
handler, and the checker only asks it whether to turn dots in names into underscores (no).
Exits 1 if a reply of the three shared rules gets a different verdict, 2 if bfcl_eval is missing.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import types
from collections import Counter, defaultdict

import common  # puts the repository on sys.path

from toolkit.scoring import BFCL_CASES, FUNCS, case_category, classify, gold_calls, load_bfcl

SHARED = ("empty_string", "typed_value", "fence", "brackets")
INSTALL = """    python3 -m venv /tmp/venv-bfcl
    /tmp/venv-bfcl/bin/pip install --no-deps bfcl-eval==2026.3.23
    /tmp/venv-bfcl/bin/pip install numpy pandas tqdm tenacity filelock python-dotenv overrides \\
        tree_sitter==0.21.3 tree-sitter-java==0.21.0 tree-sitter-javascript==0.21.4
    /tmp/venv-bfcl/bin/python benchmarks/compare_bfcl.py"""
SEED = 11


# --------------------------------------------------------------------------------------------
# BFCL's side


def load_bfcl_eval():
    """BFCL's runner module and decoder, or exit with the install instructions."""
    stub = types.ModuleType("bfcl_eval.constants.model_config")

    class _Config:  # the only field the AST checker reads
        underscore_to_dot = False

    class _Mapping(dict):
        def __missing__(self, key):
            return _Config()

    stub.MODEL_CONFIG_MAPPING = _Mapping()
    sys.modules.setdefault("bfcl_eval.constants.model_config", stub)
    try:
        from bfcl_eval.constants.enums import Language, ReturnFormat
        from bfcl_eval.eval_checker import eval_runner
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    except ImportError as exc:
        print(
            f"bfcl_eval could not be imported ({exc}). It is not a course dependency; install it "
            "in a throw-away venv and run this script with that venv's python:\n" + INSTALL,
            file=sys.stderr,
        )
        sys.exit(2)
    return eval_runner, default_decode_ast_prompting, Language, ReturnFormat


class Handler:
    """Just enough of a BFCL model handler: its ``decode_ast``."""

    def __init__(self, decode, phi: bool):
        self._decode, self._phi = decode, phi

    def decode_ast(self, result, language, has_tool_call_tag=False):
        if self._phi:  # bfcl_eval/model_handler/local_inference/phi.py, decode_ast
            result = result.strip()
            if result.startswith("```json"):
                result = result[len("```json") :]
            if result.startswith("```python"):
                result = result[len("```python") :]
        return self._decode(result, language, has_tool_call_tag)


def bfcl_verdict(bfcl, handler, case, reply) -> tuple[bool, str]:
    """``(passed, BFCL's error type)``, through BFCL's own entry evaluators."""
    runner, _, Language, ReturnFormat = bfcl
    category = case_category(case)
    if "irrelevance" in category:
        out = runner._evaluate_single_relevance_entry(handler, case["id"], reply, case, "stub", category)
    else:
        out = runner._evaluate_single_ast_entry(
            handler,
            case["id"],
            reply,
            case["ground_truth"],
            case,
            "stub",
            category,
            Language.PYTHON,
            ReturnFormat.PYTHON,
        )
    return out["valid"], out.get("error_type", "")


def as_bfcl_case(case) -> dict:
    """The pack's cases in BFCL's shape (functions with schemas, ``ground_truth``)."""
    if "ground_truth" in case:
        return case
    cat = {"simple": "simple_python"}.get(case["category"], case["category"])
    return {
        "id": f"{cat}_pack_{case['id']}",
        "function": [FUNCS[n] for n in case["functions"]],
        "ground_truth": [{g["name"]: g["args"]} for g in gold_calls(case)],
    }


# --------------------------------------------------------------------------------------------
# replies


def render(calls, brackets: bool | None = None) -> str:
    """Calls as text; ``brackets`` None: a list only for several calls."""
    parts = [f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})" for name, kwargs in calls]
    if brackets is None:
        brackets = len(parts) != 1
    body = ", ".join(parts)
    return f"[{body}]" if brackets else body


def first_value(options):
    """A concrete value from BFCL's acceptable values (nested dict forms included)."""
    value = next(o for o in options if o != "")
    if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
        return {k: first_value(v) for k, v in value.items() if any(o != "" for o in v)}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [first_value([v]) for v in value]
    return value


def right_calls(case, keep_optional=True):
    calls = []
    for g in gold_calls(case):
        kwargs = {}
        for param, options in g["args"].items():
            if not any(o != "" for o in options) or (not keep_optional and "" in options):
                continue
            kwargs[param] = first_value(options)
        calls.append((g["name"], kwargs))
    return calls


def other_types(value):
    """The same value (or as near as it gets) written as other types."""
    if isinstance(value, bool):
        return [int(value), str(value).lower(), [value]]
    if isinstance(value, int):
        return [float(value), str(value), value != 0, [value]]
    if isinstance(value, float):
        out = [str(value), [value]]
        if value.is_integer():
            out.insert(0, int(value))
        return out
    if isinstance(value, str):
        out = [[value], {"value": value}]
        try:
            out.insert(0, int(value))
        except ValueError:
            pass
        return out
    if isinstance(value, list):
        out = [tuple(value), str(value)]
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            out.append([float(v) for v in value])
        if value and all(isinstance(v, float) and v.is_integer() for v in value):
            out.append([int(v) for v in value])
        if value and all(isinstance(v, str) for v in value):
            out.append(value[0])
        return out
    if isinstance(value, dict):
        return [list(value.items()), str(value)]
    return ["x"]


def inner_mutations(value):
    """A dict argument (or list of them) with one inner value emptied or given another type."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [[m] + value[1:] for m in inner_mutations(value[0])]
    if not isinstance(value, dict) or not value:
        return []
    key = next(iter(value))
    return [{**value, key: ""}, {**value, key: other_types(value[key])[0]}]


def nudge(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + " zz"
    if isinstance(value, list):
        return value + value[:1] if value else ["zz"]
    if isinstance(value, dict):
        return {**value, "zz": 1}
    return "zz"


def reword(value):
    """The same string as a person might write it: case, spaces, punctuation."""
    if not isinstance(value, str) or not value:
        return None
    return [value.upper(), value.replace(" ", "-"), value + ".", value + "!", f" {value}  "]


def with_arg(calls, i, key, value=None, drop=False):
    out = [(n, dict(kw)) for n, kw in calls]
    if drop:
        out[i][1].pop(key, None)
    else:
        out[i][1][key] = value
    return out


def fences(text):
    """The reply in the fences models write, and a few BFCL does not see through."""
    return [
        f"```\n{text}\n```",
        f"```python\n{text}\n```",
        f"\n  ```python\n{text}\n```  \n",
        f"```{text}```",
        f"`{text}`",
        f"```python\r\n{text}\r\n```",
        f"```json\n{text}\n```",
        f"```py\n{text}\n```",
        f"```Python\n{text}\n```",
        f"```python\n{text}\n```\nDone.",
        f"Here you go:\n```python\n{text}\n```",
        f"```python\n{text}",
    ]


def replies_for(case, rng):
    """``[(kind, reply)]`` for one case."""
    funcs = {f["name"]: f for f in case["function"]}
    out = []
    if not gold_calls(case):  # irrelevance: any call fails, prose and [] pass
        name, fdef = rng.choice(sorted(funcs.items()))
        props = fdef["parameters"].get("properties", {})
        kwargs = {p: (1 if spec.get("type") in ("integer", "float") else "x") for p, spec in props.items()}
        call = render([(name, kwargs)])
        out += [
            ("irrelevance", "I cannot help with that using these tools."),
            ("irrelevance", "[]"),
            ("irrelevance", ""),
            ("irrelevance", call),
            ("irrelevance", f"{name}()"),
        ]
        out += [("fence", f) for f in fences(call)] + [("fence", "```\nNo tool fits here.\n```")]
        two = render([(name, kwargs), (name, kwargs)], brackets=False)
        out += [("brackets", two), ("brackets", "[" + call), ("brackets", call + "]"), ("brackets", f"({two})")]
        out += [("fence", f) for f in fences(two)]
        if kwargs:
            out.append(("positional", f"{name}({', '.join(repr(v) for v in kwargs.values())})"))
            out.append(("bare_name", f"{name}({next(iter(kwargs))}=something)"))
        return out

    calls = right_calls(case)
    right = render(calls)
    out += [("right", right), ("right", render(calls, brackets=True)), ("right", render(right_calls(case, False)))]
    out += [("fence", f) for f in fences(right)] + [("fence", f) for f in fences(render(calls, brackets=True))]
    bare = render(calls, brackets=False)
    out += [
        ("brackets", bare),
        ("brackets", "[" + bare),
        ("brackets", bare + "]"),
        ("brackets", f"({bare})"),
        ("brackets", bare + ","),
    ]
    if len(calls) > 1:
        out += [
            ("brackets", "\n".join(render([c]) for c in calls)),
            ("brackets", "; ".join(render([c]) for c in calls)),
        ]
        shuffled = calls[:]
        rng.shuffle(shuffled)
        out.append(("right", render(shuffled, brackets=False)))
        out += [
            ("brackets", render(calls[:-1], brackets=False)),
            ("fence", f"```python\n{render(calls[:-1], brackets=False)}\n```"),
        ]
    else:
        out += [
            ("brackets", render(calls + calls, brackets=False)),
            ("fence", f"```python\n{render(calls + calls, brackets=False)}\n```"),
        ]
    out += [("brackets", f"[{bare}], [{bare}]"), ("brackets", f"[[{bare}]]"), ("brackets", f"[{bare}]]")]
    out += [
        ("trailing_text", right + " I hope this helps."),
        ("trailing_text", "Sure: " + right),
        ("trailing_text", right + "\n\nThat call answers it."),
    ]

    for i, (name, kwargs) in enumerate(calls):
        gold = next(g for g in gold_calls(case) if g["name"] == name)
        props = funcs[name]["parameters"].get("properties", {})
        for key, value in kwargs.items():
            optional = "" in gold["args"].get(key, [])
            out.append(("empty_string", render(with_arg(calls, i, key, ""))))
            out.append(("empty_string", render(with_arg(calls, i, key, " "))))
            if optional:
                out.append(("missing_optional", render(with_arg(calls, i, key, drop=True))))
            else:
                out.append(("missing_required", render(with_arg(calls, i, key, drop=True))))
            for v in other_types(value) + [None]:
                out.append(("typed_value", render(with_arg(calls, i, key, v))))
            if optional and isinstance(value, list):
                out.append(("empty_string", render(with_arg(calls, i, key, []))))
            for inner in inner_mutations(value):
                out.append(
                    (
                        "empty_string"
                        if "" in (inner if isinstance(inner, dict) else inner[0]).values()
                        else "typed_value",
                        render(with_arg(calls, i, key, inner)),
                    )
                )
            out.append(("wrong_value", render(with_arg(calls, i, key, nudge(value)))))
            for v in reword(value) or []:
                out.append(("wording", render(with_arg(calls, i, key, v))))
        for key, spec in props.items():  # optional parameters the answer leaves out
            if key in kwargs:
                continue
            out.append(("empty_string", render(with_arg(calls, i, key, ""))))
            out.append(("extra_declared", render(with_arg(calls, i, key, "x" if spec.get("type") == "string" else 1))))
            if spec.get("type") in ("array", "tuple"):
                out.append(("empty_string", render(with_arg(calls, i, key, []))))
        out.append(("extra_undeclared", render(with_arg(calls, i, "zz_extra", 1))))
        if kwargs:
            key = next(iter(kwargs))
            out.append(("positional", render(calls).replace(f"{key}=", "", 1)))
            if isinstance(kwargs[key], str) and kwargs[key].isidentifier():
                out.append(("bare_name", render(calls).replace(repr(kwargs[key]), kwargs[key], 1)))
    return out


# --------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decoder", choices=("phi", "default", "both"), default="both")
    parser.add_argument("--show", type=int, default=40, help="disagreements to print per decoder")
    args = parser.parse_args(argv)
    bfcl = load_bfcl_eval()
    rng = random.Random(SEED)
    cases = load_bfcl() + [as_bfcl_case(c) for c in BFCL_CASES]
    rows = [(case, kind, reply) for case in cases for kind, reply in replies_for(case, rng)]
    ours = [classify(case, reply) == "pass" for case, _, reply in rows]
    print(
        f"{len(rows):,} replies to {len(cases)} cases (250 BFCL + the pack's 7); "
        f"{sum(ours):,} pass the toolkit's classify"
    )
    failed_shared = False
    for name in ("phi", "default") if args.decoder == "both" else (args.decoder,):
        handler = Handler(bfcl[1], phi=name == "phi")
        per_kind = defaultdict(Counter)
        disagreements = []
        crashed = 0
        for (case, kind, reply), mine in zip(rows, ours):
            try:
                theirs, error = bfcl_verdict(bfcl, handler, copy.deepcopy(case), reply)
            except Exception:  # BFCL's checker itself raised: not a verdict
                crashed += 1
                per_kind[kind]["bfcl raised"] += 1
                continue
            per_kind[kind]["n"] += 1
            per_kind[kind]["agree"] += mine == theirs
            if mine != theirs:
                disagreements.append((kind, case["id"], reply, mine, theirs, error))
        n = sum(c["n"] for c in per_kind.values())
        agree = sum(c["agree"] for c in per_kind.values())
        print(
            f"\nBFCL decoder '{name}': agreement {agree:,}/{n:,} = {agree / n:.2%}"
            + (f" ({crashed} replies made BFCL's checker raise; left out)" if crashed else "")
        )
        common.table(
            ["kind of reply", "replies", "agree", "%", "shared rule"],
            [
                [k, c["n"], c["agree"], f"{c['agree'] / c['n']:.1%}" if c["n"] else "-", "yes" if k in SHARED else ""]
                for k, c in sorted(per_kind.items(), key=lambda kv: (kv[0] not in SHARED, kv[0]))
            ],
        )
        shared_n = sum(per_kind[k]["n"] for k in SHARED)
        shared_ok = sum(per_kind[k]["agree"] for k in SHARED)
        print(f"shared rules: {shared_ok:,}/{shared_n:,} = {shared_ok / shared_n:.2%}")
        if name == "phi" and shared_ok != shared_n:
            failed_shared = True
        for kind, cid, reply, mine, theirs, error in disagreements[: args.show]:
            print(
                f"  [{kind}] {cid}: toolkit {'pass' if mine else 'fail'}, BFCL {'pass' if theirs else 'fail'}"
                f" ({error or 'valid'}): {reply[:110]!r}"
            )
        if len(disagreements) > args.show:
            print(f"  ... and {len(disagreements) - args.show} more ({dict(Counter(d[0] for d in disagreements))})")
    return 1 if failed_shared else 0


if __name__ == "__main__":
    sys.exit(main())
