"""Figure 9: a map of this toolkit, the pack's lab in six parts (pack §4; API.md §1–6).

The cards name the real modules of ``toolkit/``, so the figure doubles as a reading guide to
the code; a test checks that every file named here exists.
"""

from __future__ import annotations

from .canvas import COLORS, MUTED, SMALL, arrow, card, drawing, note, source

# (part, title, files, key names, role, (x, y), height): the six parts of the lab, numbered as
# in API.md and laid out to read in that order: 1 2 3 across the top (the loop, 2, sits a little
# lower so the MCP arrow can pass over it), 4 5 6 across the bottom
PARTS = [
    (
        1,
        "Tools from type hints",
        ("schema.py", "registry.py"),
        "schema_from_function\nvalidate_args, repair_args\nToolRegistry.run",
        "tool",
        (0.45, 4.1),
        2.6,
    ),
    (
        2,
        "The loop (harness)",
        ("loop.py", "gate.py"),
        "run_agent drives a mock model:\nparallel calls, timeouts, retries,\nstep limit; PermissionGate, taint",
        "harness",
        (5.7, 3.7),
        2.35,
    ),
    (
        3,
        "MCP",
        ("mcp/",),
        "MCPServer, MCPClient\nin-memory and stdio\ntransports, JSON-RPC 2.0",
        "sky",
        (10.95, 4.1),
        2.6,
    ),
    (
        4,
        "Picking tools",
        ("selection.py", "lessons/catalog.py"),
        "ToolIndex (BM25) over a\n48-tool catalog;\nrecall@k, token cost",
        "model",
        (0.45, 0.7),
        2.3,
    ),
    (
        5,
        "Scoring and pass^k",
        ("scoring.py", "reliability.py"),
        "parse_calls, evaluate_calls\npass_hat_k, pass_at_k\nlessons/retail.py: final state",
        "accent",
        (5.7, 0.7),
        2.3,
    ),
    (
        6,
        "Prompt injection",
        ("gate.py", "lessons/injection.py"),
        "attacker page, gullible\nmodel, defended run",
        "warn",
        (10.95, 0.7),
        2.3,
    ),
]
W = 4.6


@drawing(
    "Figure 9. The toolkit in six parts", "Each card is a part of the lab, with the files in toolkit/ that hold it."
)
def fig9_toolkit_parts(ax):
    """Figure 9 (pack §4): the six parts of the lab's toolkit and what each hands the next."""
    for num, title, files, names, role, (x, y), h in PARTS:
        card(ax, x, y, W, h, num, title, " ".join(files), names, role)

    arrow(
        ax,
        (5.05, 6.45),
        (10.95, 6.45),
        "a server offers a registry's tools;\na client makes remote tools local",
        color=MUTED,
        size=SMALL - 2,
        both=True,
        text_offset=(0, 0.55),
    )
    arrow(ax, (5.05, 4.9), (5.7, 4.9), color=COLORS["tool"][0])
    note(ax, 5.375, 5.45, "runs\ncalls", size=SMALL - 3, color=COLORS["tool"][0], ha="center")
    arrow(ax, (4.6, 3.0), (5.7, 3.9), "top-k tools", color=COLORS["model"][0], size=SMALL - 3, text_offset=(-0.7, 0.1))
    arrow(ax, (8.0, 3.7), (8.0, 3.0), "runs to score", color=MUTED, size=SMALL - 3, text_offset=(0.9, 0))
    arrow(ax, (11.4, 3.0), (10.3, 3.95), color=COLORS["warn"][0])
    source(ax, "python -m toolkit demo runs all six parts in turn.")
