"""``python -m toolkit bfcl|passk``: a real model through BFCL scoring and pass^k, from the
command line (docs/real-models.md). The runs themselves are :mod:`toolkit.lessons.model_eval`'s;
this module parses the arguments, shows progress, writes ``--out`` and ``--summary`` and prints
the tables. A run that stops early (the endpoint failing) still writes its ``--out`` lines and a
``--summary`` marked ``"partial": true`` with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from ..lessons.endpoints import DEFAULT_MAX_TOKENS, EndpointError
from ..lessons.model_eval import (
    APIS,
    BFCL_CATEGORIES,
    _cost_line,
    _label,
    bfcl_summary,
    estimate_bfcl_cost,
    estimate_passk_cost,
    format_bfcl,
    format_passk,
    make_model,
    run_bfcl,
    run_passk,
    select_cases,
    settings_from_env,
)

__all__ = ["cli", "partial_summary"]


def partial_summary(command: str, model_name: str, records: Sequence[Mapping], reason: str) -> dict:
    """What a run that stopped early measured: the records so far, marked ``"partial": true``
    with the reason. BFCL's shape is :func:`bfcl_summary`'s; passk's counts successes out of
    the trials each task ran (no pass^k: the tasks ran unequal numbers of trials).

    Used by: python -m toolkit bfcl.
    """
    if command == "bfcl":
        summary: dict = bfcl_summary(model_name, records) if records else {"model": model_name, "cases": 0}
    else:
        tasks: dict[str, list[int]] = {}
        for r in records:
            ran = tasks.setdefault(r["task"], [0, 0])
            ran[0] += bool(r["success"])
            ran[1] += 1
        summary = {"model": model_name, "trials_run": len(records), "tasks": tasks}
    return {**summary, "partial": True, "stopped": reason}


class _Bar:
    """A progress bar on stderr: redrawn in place on a terminal, a line every tenth otherwise."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream, self.width = stream, width
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.shown = -1

    def __call__(self, i: int, n: int, what: str) -> None:
        filled = self.width * i // max(n, 1)
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {i}/{n} {what}"
        if self.tty:
            self.stream.write("\r" + text[:79].ljust(79))
            if i >= n:
                self.stream.write("\n")
        else:
            tenth = 10 * i // max(n, 1)
            if tenth == self.shown:
                return
            self.shown = tenth
            self.stream.write(text + "\n")
        self.stream.flush()


def _parser(command: str, environ: Mapping[str, str]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"python -m toolkit {command}",
        description=(
            "Score a real model on the shipped BFCL cases (pack §2.9)."
            if command == "bfcl"
            else "pass^k and pass@k of a real model in the retail world (pack §2.9)."
        ),
        epilog="--api, --base-url and --model default to $TOOLKIT_MODEL_API, $TOOLKIT_MODEL_BASE_URL and "
        "$TOOLKIT_MODEL; --timeout, --max-tokens, --tool-choice and --extra-body to $TOOLKIT_MODEL_TIMEOUT, "
        "$TOOLKIT_MODEL_MAX_TOKENS, $TOOLKIT_MODEL_TOOL_CHOICE and $TOOLKIT_MODEL_EXTRA_BODY.",
    )

    def env(var: str) -> str | None:
        return environ.get(var, "").strip() or None

    api = (env("TOOLKIT_MODEL_API") or "").lower() or None
    p.add_argument(
        "--api",
        choices=sorted(APIS),
        default=api,
        required=api not in APIS,
        help="wire format: openai (Chat Completions; also Ollama, vLLM, llama.cpp, LM Studio) or anthropic",
    )
    p.add_argument(
        "--base-url",
        default=env("TOOLKIT_MODEL_BASE_URL"),
        required=not env("TOOLKIT_MODEL_BASE_URL"),
        help="e.g. https://api.openai.com/v1, http://localhost:11434/v1, https://api.anthropic.com",
    )
    p.add_argument(
        "--model",
        default=env("TOOLKIT_MODEL"),
        required=not env("TOOLKIT_MODEL"),
        help="the model's name as the endpoint knows it",
    )
    key_help = (
        "environment variable holding the key (default OPENAI_API_KEY or ANTHROPIC_API_KEY; a local server needs none)"
    )
    p.add_argument("--api-key-env", default=env("TOOLKIT_MODEL_KEY_ENV"), help=key_help)
    p.add_argument(
        "--timeout",
        default=None,
        help="seconds to wait for each answer (default 60; 300 for a server on 127.0.0.1 or localhost)",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=None,
        help="retries after 429/5xx, timeouts and dropped connections (default 4; 1 for a server on this machine)",
    )
    temperature_help = (
        "sampling temperature (default: 0 for openai, left out for anthropic, whose API refuses it "
        "since version 2026-10-21); "
        "'none' leaves it out, for models that accept only their default"
    )
    p.add_argument("--temperature", default=None, help=temperature_help)
    p.add_argument(
        "--max-tokens",
        default=None,
        help=f"the most tokens one answer may have (default {DEFAULT_MAX_TOKENS}); 'none' sends no cap (openai)",
    )
    p.add_argument(
        "--tool-choice",
        default=None,
        help="auto (default), none, required, a tool's name, or omit (send no tool_choice)",
    )
    p.add_argument("--extra-body", default=None, help="a JSON object merged into every request, e.g. '{\"top_k\": 1}'")
    if command == "bfcl":
        p.add_argument(
            "--categories", default=None, help="comma-separated, from " + ",".join(BFCL_CATEGORIES) + " (default all)"
        )
        p.add_argument(
            "--limit",
            type=int,
            default=None,
            help="the first N cases of each category (default all: 50 each, 250 in all)",
        )
        p.add_argument("--out", default=None, help="write every raw reply here, one JSON line per case")
    else:
        p.add_argument("--trials", type=int, default=8, help="trials per task (default 8)")
        p.add_argument("--extended", action="store_true", help="add the extended world's tasks (T5, ordered writes)")
        p.add_argument("--out", default=None, help="write every trial's conversation here, one JSON line per trial")
    p.add_argument("--summary", default=None, help="write the summary here as JSON (marked partial if the run stops)")
    return p


def _model_from_args(args: argparse.Namespace, environ: Mapping[str, str]):
    flags = {
        "TOOLKIT_MODEL_TIMEOUT": args.timeout,
        "TOOLKIT_MODEL_MAX_TOKENS": args.max_tokens,
        "TOOLKIT_MODEL_TOOL_CHOICE": args.tool_choice,
        "TOOLKIT_MODEL_EXTRA_BODY": args.extra_body,
    }
    given = {var: value for var, value in flags.items() if value is not None}
    options: dict = {**settings_from_env(environ), **settings_from_env(given)}
    if args.max_retries is not None:
        options["max_retries"] = args.max_retries
    if args.temperature is not None:
        options["temperature"] = None if args.temperature.lower() == "none" else float(args.temperature)
    if args.api == "anthropic" and options.get("max_tokens", DEFAULT_MAX_TOKENS) is None:
        raise ValueError("the Messages API requires max_tokens; give a number")
    return make_model(args.api, args.base_url, args.model, args.api_key_env, environ, **options)


def _write_json(path: str, data: Any, scrub: Callable[[str], str]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(scrub(json.dumps(data, indent=1)) + "\n")


def cli(
    argv: Sequence[str],
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """``python -m toolkit bfcl|passk …``: 0 when the run finished, 2 on a usage or endpoint error.

    Used by: python -m toolkit bfcl.
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    environ = os.environ if environ is None else environ
    command, rest = argv[0], list(argv[1:])
    args = _parser(command, environ).parse_args(rest)
    try:
        model = _model_from_args(args, environ)
        if command == "bfcl":
            categories = [c.strip() for c in args.categories.split(",") if c.strip()] if args.categories else None
            cases = select_cases(categories, args.limit)
        elif args.trials < 1:
            raise ValueError("--trials must be 1 or more")
    except ValueError as exc:
        print(f"python -m toolkit {command}: {exc}", file=stderr)
        return 2
    scrub = model._scrub
    bar = _Bar(stderr)
    records: list[dict] = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None

    def keep(record: dict) -> None:
        records.append(record)
        if out:
            out.write(scrub(json.dumps(record)) + "\n")
            out.flush()

    try:
        if command == "bfcl":
            cost = estimate_bfcl_cost(cases, model.max_tokens)
            print(f"{_label(model)} {len(cases)} cases: {_cost_line(cost)}.", file=stderr)
            records_done = run_bfcl(model, cases, progress=bar, on_result=keep)
            summary = bfcl_summary(model.model, records_done)
            print(scrub(format_bfcl(summary, records_done, model)), file=stdout)
        else:
            cost = estimate_passk_cost(args.trials, args.extended, model.max_tokens)
            print(f"{_label(model)} {args.trials} trials a task: {_cost_line(cost)}.", file=stderr)
            summary = run_passk(model, args.trials, extended=args.extended, progress=bar, on_trial=keep)
            print(scrub(format_passk(summary, model)), file=stdout)
    except EndpointError as exc:
        print(f"\npython -m toolkit {command}: stopped: {exc}", file=stderr)
        if args.summary:
            _write_json(args.summary, partial_summary(command, model.model, records, str(exc)), scrub)
            print(f"partial summary ({len(records)} done) written to {args.summary}", file=stderr)
        return 2
    finally:
        if out:
            out.close()
    if args.summary:
        _write_json(args.summary, summary, scrub)
    return 0
