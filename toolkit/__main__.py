"""Command line: ``python -m toolkit demo``, ``serve``, ``doctor``, and, with a real model,
``bfcl`` and ``passk`` (toolkit/lessons/model_eval.py)."""

from __future__ import annotations

import argparse
import sys

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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "grade":
        from .course.grade import main as grade

        return grade(argv[1:])
    if argv and argv[0] in ("bfcl", "passk"):
        from .lessons.model_eval import cli

        return cli(argv)
    parser = argparse.ArgumentParser(prog="python -m toolkit", usage=USAGE, description="The Week 3 tool-use toolkit.")
    parser.add_argument("command", choices=["demo", "serve", "doctor", "grade", "bfcl", "passk"], help="what to run")
    serve_opts = parser.add_argument_group("serve options (toolkit/mcp, pack §2.6)")
    serve_opts.add_argument("--http", action="store_true", help="Streamable HTTP on 127.0.0.1 instead of stdio")
    serve_opts.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765; 0 picks a free one)")
    serve_opts.add_argument(
        "--no-auth", action="store_true", help="HTTP without a token: any program on this computer can call the tools"
    )
    serve_opts.add_argument("--page-size", type=int, default=None, help="tools per tools/list page")
    serve_opts.add_argument("--trace", action="store_true", help="echo every message on stderr")
    serve_opts.add_argument(
        "--latest",
        action="store_true",
        help="also speak revision 2025-11-25 (LatestRevisionServer); by default the "
        "server speaks up to the pack's 2025-06-18",
    )
    serve_opts.add_argument(
        "--modern",
        action="store_true",
        help="also speak the stateless revision 2026-07-28 beside every handshake revision (ModernServer)",
    )
    args = parser.parse_args(argv)
    if args.command != "serve" and (
        args.http
        or args.trace
        or args.page_size is not None
        or args.port != 8765
        or args.no_auth
        or args.latest
        or args.modern
    ):
        parser.error("--http, --port, --no-auth, --page-size, --trace, --latest and --modern only apply to serve")
    if args.latest and args.modern:
        parser.error(
            "--modern already speaks 2025-11-25 (and every handshake revision); give one of --latest, --modern"
        )
    if args.no_auth and not args.http:
        parser.error("--no-auth only applies to serve --http (stdio has no network to guard)")
    if args.page_size is not None and args.page_size < 1:
        parser.error("--page-size must be 1 or more")
    if not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    if args.command == "doctor":
        from .course.doctor import main as doctor

        return doctor()
    if args.command == "demo":
        from .course.demo import main as demo

        demo()
    elif args.command == "serve":
        from .lessons.toy_tools import make_server_registry
        from .mcp import LatestRevisionServer, MCPServer, serve_http, serve_stdio
        from .mcp.course import course_server
        from .mcp.modern import ModernServer
        from .mcp.subscriptions import Subscriptions

        kind = ModernServer if args.modern else LatestRevisionServer if args.latest else MCPServer
        listens = Subscriptions()  # one list of listen streams for every server HTTP makes

        def make_server() -> MCPServer:
            server = course_server(kind, make_server_registry(), page_size=args.page_size)
            if isinstance(server, ModernServer):
                server.subscriptions = listens
            return server

        if args.http:
            return serve_http(make_server, port=args.port, trace=args.trace, token=False if args.no_auth else None)
        serve_stdio(make_server(), trace=args.trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
