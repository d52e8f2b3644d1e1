"""The command line, ``python -m toolkit COMMAND``: argument parsing and reporting only.

Each command's work lives in the layer that owns it: ``demo`` and ``doctor`` in
``toolkit/course/``, ``serve`` in ``toolkit/mcp/`` (:mod:`toolkit.cli.serve` picks the server),
``grade`` in ``toolkit/course/grade.py`` (which parses its own arguments), and ``bfcl`` and
``passk`` in ``toolkit/lessons/model_eval.py`` (:mod:`toolkit.cli.model_eval` parses and prints).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

__all__ = ["main", "USAGE"]

USAGE = """\
python -m toolkit demo     print the lab's eight demo sections
python -m toolkit serve    run the toy MCP server on stdin/stdout (tools: echo, add; a resource,
                           a prompt that elicits a missing city, log messages)
python -m toolkit doctor   check this computer can run the course (plain-words report)
python -m toolkit serve --http [--port 8765] [--no-auth]
                           the same tools over Streamable HTTP at http://127.0.0.1:PORT/mcp;
                           prints a token that clients send as 'Authorization: Bearer TOKEN'
    serve options: --page-size N (page tools/list), --trace (wire log on stderr),
                   --latest (speak revision 2025-11-25 too, beyond the pack's 2025-06-18),
                   --modern (speak the stateless 2026-07-28 too, beside every handshake revision)
python -m toolkit bfcl  --api openai|anthropic --base-url URL --model NAME
                        [--api-key-env VAR] [--categories LIST] [--limit N]
                        [--out replies.jsonl] [--summary summary.json]
                           score a real model on the shipped BFCL cases (docs/real-models.md)
python -m toolkit grade SUBMISSIONS/ [--out grades.csv] [--cell-timeout S] [--notebook-timeout S] [--jobs N] [--no-sandbox]
                           run submitted notebooks with the course's own checks (docs/running-a-class.md)
python -m toolkit passk --api openai|anthropic --base-url URL --model NAME [--trials N]
                        [--out trials.jsonl] [--summary FILE]
                           a real model as the retail world's agent: pass^k and pass@k
    bfcl/passk options: --timeout S, --max-tokens N|none, --tool-choice auto|none|required|NAME|omit,
                        --extra-body JSON; --api, --base-url, --model and these default to the
                        TOOLKIT_MODEL_* variables (docs/real-models.md)
"""


def _grade(argv: Sequence[str]) -> int:
    from ..course.grade import main as grade

    return grade(list(argv))


def _model_eval(command: str) -> Callable[[Sequence[str]], int]:
    def run(argv: Sequence[str]) -> int:
        from .model_eval import cli

        return cli([command, *argv])

    return run


# Commands that parse their own arguments: the rest of the line goes to them untouched.
OWN_PARSERS: dict[str, Callable[[Sequence[str]], int]] = {
    "grade": _grade,
    "bfcl": _model_eval("bfcl"),
    "passk": _model_eval("passk"),
}


def _demo(args: argparse.Namespace) -> int:
    from ..course.demo import main as demo

    demo()
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from ..course.doctor import main as doctor

    return doctor()


def _serve(args: argparse.Namespace) -> int:
    from .serve import serve

    return serve(args)


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("must be between 0 and 65535")
    return port


def _page_size(text: str) -> int:
    size = int(text)
    if size < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return size


def parser() -> argparse.ArgumentParser:
    """``python -m toolkit``'s parser: one subcommand each; only ``serve`` takes options here."""
    top = argparse.ArgumentParser(
        prog="python -m toolkit",
        usage="python -m toolkit {demo,serve,doctor,grade,bfcl,passk} [options]",
        description="The Week 3 tool-use toolkit.\n\n" + USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", prog="python -m toolkit demo", help="print the lab's demo").set_defaults(run=_demo)
    serve = commands.add_parser(
        "serve", prog="python -m toolkit serve", help="the toy MCP server (toolkit/mcp, pack §2.6)"
    )
    serve.set_defaults(run=_serve)
    serve.add_argument("--http", action="store_true", help="Streamable HTTP on 127.0.0.1 instead of stdio")
    serve.add_argument("--port", type=_port, default=8765, help="HTTP port (default 8765; 0 picks a free one)")
    serve.add_argument(
        "--no-auth", action="store_true", help="HTTP without a token: any program on this computer can call the tools"
    )
    serve.add_argument("--page-size", type=_page_size, default=None, help="tools per tools/list page")
    serve.add_argument("--trace", action="store_true", help="echo every message on stderr")
    serve.add_argument(
        "--latest",
        action="store_true",
        help="also speak revision 2025-11-25 (LatestRevisionServer); by default the "
        "server speaks up to the pack's 2025-06-18",
    )
    serve.add_argument(
        "--modern",
        action="store_true",
        help="also speak the stateless revision 2026-07-28 beside every handshake revision (ModernServer)",
    )
    commands.add_parser(
        "doctor", prog="python -m toolkit doctor", help="is this computer ready for the course?"
    ).set_defaults(run=_doctor)
    for name in OWN_PARSERS:  # listed for --help; main() hands their arguments over before parsing
        commands.add_parser(name, help=f"python -m toolkit {name} --help for its options")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status is the command's (2 for a usage error).

    Used by: python -m toolkit demo.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in OWN_PARSERS:
        return OWN_PARSERS[argv[0]](argv[1:])
    top = parser()
    args, extra = top.parse_known_args(argv)
    if extra:
        hint = (
            ""
            if args.command == "serve"
            else f"; {args.command} takes no options (--http, --port and the like are serve's)"
        )
        top.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    if args.command == "serve":
        if args.latest and args.modern:
            top.error(
                "--modern already speaks 2025-11-25 (and every handshake revision); give one of --latest, --modern"
            )
        if args.no_auth and not args.http:
            top.error("--no-auth only applies to serve --http (stdio has no network to guard)")
    return args.run(args)
