"""Command line: ``python -m toolkit demo`` or ``python -m toolkit serve``."""

from __future__ import annotations

import argparse
import sys

USAGE = """\
python -m toolkit demo     print the lab's eight demo sections
python -m toolkit serve    run the toy MCP server on stdin/stdout (tools: echo, add)
python -m toolkit doctor   check this computer can run the course (plain-words report)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit", usage=USAGE,
                                     description="The Week 3 tool-use toolkit.")
    parser.add_argument("command", choices=["demo", "serve", "doctor"], help="what to run")
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from .doctor import main as doctor
        return doctor()
    if args.command == "demo":
        from .demo import main as demo
        demo()
    elif args.command == "serve":
        from .demo_tools import make_server_registry
        from .mcp import MCPServer, serve_stdio
        serve_stdio(MCPServer(make_server_registry()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
