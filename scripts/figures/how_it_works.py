"""Figures 1–5: the first half of the week, how tool use works (pack §2.2–2.6).

Each function draws one figure on the shared canvas (``@drawing`` gives it the titled figure
and returns it).
Numbers on a figure are the pack's cited facts, with the reference number beside them.
"""

from __future__ import annotations

from .canvas import BASE, COLORS, INK, MUTED, SMALL, arrow, box, drawing, note, region, source


@drawing("Figure 1. The tool-call loop", "The model asks in text. Your code (the harness) checks, runs and answers.")
def fig1_call_loop(ax):
    """Figure 1 (pack §2.2): the model only writes a request; the harness does the work."""
    blue, orange, green = COLORS["model"][0], COLORS["harness"][0], COLORS["tool"][0]
    # left to right: user | gap | model zone | gap | harness zone | gap | tools zone; each gap
    # is wide enough for the labels of the arrows that cross it
    box(ax, 0.35, 4.3, 1.6, 1.3, "User", "data", weight="bold")
    region(ax, 3.2, 2.3, 2.7, 5.1, "model", "model")
    box(ax, 3.35, 3.0, 2.4, 3.8, "Language\nmodel\n\nwrites text,\nruns nothing", "model")
    region(ax, 8.4, 1.45, 4.0, 5.95, "harness (your code)", "harness")
    jobs = [
        "1  check args vs schema",
        "2  is the call allowed?",
        "3  run with a time limit",
        "4  retry only if safe",
        "5  cap the result size",
        "6  cap the step count",
    ]
    for i, job in enumerate(jobs):
        box(ax, 8.6, 6.15 - i * 0.88, 3.6, 0.72, job, "harness", size=SMALL, align="left")
    region(ax, 13.7, 2.3, 1.95, 5.1, "tools", "tool")
    for i, name in enumerate(["get_weather", "cancel_order", "search"]):
        box(ax, 13.85, 5.7 - i * 1.3, 1.65, 0.9, name, "tool", size=SMALL - 2)

    arrow(ax, (1.95, 5.3), (3.35, 5.3), "ask", color=MUTED, text_at=0.45, text_offset=(0, 0.35))
    arrow(ax, (3.35, 4.6), (1.95, 4.6), "answer", color=MUTED, text_at=0.55, text_offset=(0, -0.35))
    arrow(ax, (5.75, 6.0), (8.6, 6.0), "tool_calls:\nname + JSON args", color=blue, text_at=0.48, text_offset=(0, 0.6))
    arrow(
        ax,
        (8.6, 3.6),
        (5.75, 3.6),
        "one tool message\nper call (same id)",
        color=orange,
        text_at=0.52,
        text_offset=(0, -0.6),
    )
    arrow(ax, (12.2, 5.05), (13.85, 5.05), "run", color=orange, text_offset=(0, 0.3), size=SMALL - 1)
    arrow(ax, (13.85, 3.85), (12.2, 3.85), "result\nor error", color=green, text_offset=(0, -0.5), size=SMALL - 1)
    note(
        ax, 4.55, 1.75, "loop until a reply has\nno tool calls, or the\nstep limit is hit", ha="center", size=SMALL - 1
    )
    source(
        ax,
        "The model never runs a tool; it only asks (§2.2). Message shapes: OpenAI [23], "
        "Anthropic [22]. Harness jobs: §2.2, §2.8.",
    )


@drawing(
    "Figure 2. Toolformer's four steps",
    "The model writes its own tool-use training data; a loss test decides what stays [1].",
)
def fig2_toolformer_steps(ax):
    """Figure 2 (pack §2.3): Toolformer labels its own data in four steps [1]."""
    from matplotlib.patches import Rectangle

    steps = [
        (
            "1  Sample",
            "At each spot in plain\ntext, how likely is a\ncall? Keep likely spots,\nsample candidate calls.",
        ),
        ("2  Execute", "Run every candidate\ncall and collect\nits result."),
        (
            "3  Filter",
            "Keep a call only if it\nmakes the next tokens\neasier to predict:\n"
            r"$L^{-} - L^{+} \geq \tau_f$",
        ),
        ("4  Fine-tune", "Train the model on\nthe text that now\nholds the kept calls."),
    ]
    example = ["12 × 7 = [?] 84", "Calc(12*7) → 84", "loss on 84 falls: keep", "= [Calc(12*7) → 84] 84"]
    for i, (head, body) in enumerate(steps):
        x = 0.5 + i * 3.9
        role = "accent" if i == 2 else "model"
        box(ax, x, 6.65, 3.3, 0.75, head, role, weight="bold")
        box(ax, x, 4.65, 3.3, 1.9, body, role, size=SMALL + 1, filled=False)
        box(ax, x, 3.85, 3.3, 0.65, example[i], "data", size=SMALL - 1, mono=True)
        if i < 3:
            arrow(ax, (x + 3.3, 7.025), (x + 3.9, 7.025))
    note(
        ax,
        0.5,
        3.45,
        "A made-up sentence, followed through the steps. "
        r"$L^{-}$: loss without the call;  $L^{+}$: with the call and its result.",
        size=SMALL - 1,
    )
    # where it stops: the limits the paper lists, kept apart from how it ran its tests
    note(ax, 0.5, 2.8, "Limits the paper states [1]", size=BASE, color=INK, weight="bold")
    note(
        ax,
        0.5,
        2.45,
        "• no chains: each tool's calls were sampled on their own\n"
        "• no back-and-forth with a tool, such as refining a search\n"
        "• sensitive to how the input is worded",
        size=SMALL,
        color=INK,
        va="top",
    )
    note(ax, 0.5, 0.95, "Test setting, not a limit: at most one call per input [1]", size=SMALL - 1, color=INK)
    # the filter threshold trade-off from the paper's Table 2
    kept = [(0.5, 3680), (1.0, 994), (2.0, 138)]
    note(ax, 8.6, 2.8, "Calculator examples kept (Table 2 [1])", size=BASE, color=INK, weight="bold")
    for i, (tau, n) in enumerate(kept):
        w = 4.5 * n / 3680
        y = 2.25 - i * 0.42
        note(ax, 9.9, y, rf"$\tau_f$ = {tau}", ha="right", size=SMALL, color=INK)
        ax.add_patch(Rectangle((10.05, y - 0.15), w, 0.3, facecolor=COLORS["accent"][0], edgecolor="none"))
        note(ax, 10.15 + w, y, f"{n:,}", size=SMALL, color=INK)
    note(ax, 8.6, 0.95, "stricter filter: cleaner data, far less of it", size=SMALL - 1)
    source(ax, "GPT-J, 6.7 B parameters, five tools [1].")


@drawing(
    "Figure 3. ReAct versus DFSDT", "ReAct commits to one chain of calls; DFSDT can drop a dead branch and try another."
)
def fig3_react_vs_dfsdt(ax):
    """Figure 3 (pack §2.4): one path versus a search that can back up (DFSDT) [4] [8]."""
    blue, warn, green = COLORS["model"][0], COLORS["warn"][0], COLORS["tool"][0]
    # panel A: one chain
    note(ax, 0.5, 7.2, "A  ReAct [8]", size=BASE + 2, color=INK, weight="bold")
    chain = ["think, then call", "observe, call", "observe, call"]
    for i, text in enumerate(chain):
        box(ax, 0.9, 6.0 - i * 1.35, 3.2, 0.85, text, "model", size=SMALL + 1)
        if i:
            arrow(ax, (2.5, 6.0 - (i - 1) * 1.35), (2.5, 6.85 - i * 1.35))
    arrow(ax, (2.5, 6.0 - 2 * 1.35), (2.5, 2.2), color=warn)
    box(ax, 0.9, 1.35, 3.2, 0.85, "dead end ✗", "warn", size=SMALL + 1, weight="bold")
    # panel B: a tree with backtracking
    note(ax, 5.2, 7.2, "B  DFSDT [4]", size=BASE + 2, color=INK, weight="bold")
    box(ax, 7.0, 6.0, 2.4, 0.85, "task", "model", size=SMALL + 1, weight="bold")
    box(ax, 4.9, 4.4, 2.4, 0.85, "branch 1", "model", size=SMALL + 1)
    box(ax, 9.1, 4.4, 2.4, 0.85, "branch 2", "model", size=SMALL + 1)
    box(ax, 4.9, 2.8, 2.4, 0.85, "dead end ✗", "warn", size=SMALL + 1, weight="bold")
    box(ax, 9.1, 2.8, 2.4, 0.85, "next call", "model", size=SMALL + 1)
    box(ax, 9.1, 1.35, 2.4, 0.85, "solved ✓", "tool", size=SMALL + 1, weight="bold")
    arrow(ax, (7.6, 6.0), (6.4, 5.25), "try 1", text_offset=(-0.45, 0.1))
    arrow(ax, (6.1, 4.4), (6.1, 3.65))
    arrow(ax, (8.8, 6.0), (10.0, 5.25), "try 2", text_offset=(0.45, 0.1))
    arrow(ax, (10.3, 4.4), (10.3, 3.65))
    arrow(ax, (10.3, 2.8), (10.3, 2.2), color=green)
    arrow(
        ax, (7.3, 3.3), (8.0, 6.0), "back up", color=warn, dashed=True, rad=0.3, text_at=0.5, text_offset=(0.65, -0.1)
    )
    # the paper's numbers
    note(ax, 12.05, 7.35, "Pass rate on ChatGPT\n(average, Table 3 [4])", size=BASE, color=INK, weight="bold", va="top")
    from matplotlib.patches import Rectangle

    for i, (name, value, color) in enumerate([("ReAct", 35.3, blue), ("DFSDT", 63.8, green)]):
        h = 4.0 * value / 100
        x = 12.5 + i * 1.6
        ax.add_patch(Rectangle((x, 1.6), 1.0, h, facecolor=color, edgecolor="none"))
        note(ax, x + 0.5, 1.6 + h + 0.3, f"{value}", ha="center", size=BASE, color=INK, weight="bold")
        note(ax, x + 0.5, 1.25, name, ha="center", size=SMALL, color=INK)
    ax.plot([12.3, 15.6], [1.6, 1.6], color=MUTED, linewidth=1.5)
    note(ax, 12.2, 0.75, "The price: more model calls.", size=SMALL, color=INK)
    source(ax, "Mean over the paper's three instruction types [4].")


@drawing(
    "Figure 4. Three generations of tool interface",
    "Each one describes a tool and carries a call, for a different reader.",
)
def fig4_three_interfaces(ax):
    """Figure 4 (pack §2.5–2.6): three generations of interface for describing and calling a tool."""
    cols = [
        (
            "REST + OpenAPI\n[25]",
            "data",
            [
                "a developer, once,\nwhile writing code",
                "an OpenAPI document:\npaths, parameters,\nresponses",
                "HTTP verb + URL\n+ JSON body",
                "developers; you write\nglue code per API",
            ],
        ),
        (
            "Function calling\n[22] [23] [24]",
            "model",
            [
                "the model, on\nevery request",
                "JSON Schema in the\nrequest's tool list",
                "the reply holds a call;\nyour code runs it",
                "one model API; each\napp wraps each tool",
            ],
        ),
        (
            "MCP\n[3] [26]",
            "tool",
            [
                "the model in any\nhost, after tools/list",
                "name, description,\ninputSchema,\nannotations",
                "tools/call over\nJSON-RPC 2.0\n(stdio or HTTP)",
                "an ecosystem: one\nserver, any host",
            ],
        ),
    ]
    rows = ["Who reads the\ndescription", "Described by", "A call is", "Built for"]
    for r, label in enumerate(rows):
        note(ax, 0.45, 5.3 - r * 1.3 + 0.55, label, size=BASE - 1, color=INK, weight="bold")
    for c, (head, role, cells) in enumerate(cols):
        x = 3.1 + c * 4.3
        box(ax, x, 6.55, 4.0, 1.15, head, role, weight="bold")
        for r, text in enumerate(cells):
            box(ax, x, 5.3 - r * 1.3, 4.0, 1.15, text, role, size=SMALL, filled=(r % 2 == 1))
    arrow(ax, (3.1, 0.7), (15.7, 0.7), "later, and more widely shared", color=MUTED)


@drawing("Figure 5. MCP: who talks to whom, and in what order", "Revision 2025-06-18 of the specification [3].")
def fig5_mcp_roles(ax):
    """Figure 5 (pack §2.6): MCP's host, clients and servers (A) and a session's messages (B) [3]."""
    blue, green = COLORS["model"][0], COLORS["tool"][0]
    # panel A
    note(ax, 0.45, 7.35, "A  Roles", size=BASE + 2, color=INK, weight="bold")
    region(ax, 0.5, 1.35, 4.0, 5.35, "host (the app)", "harness")
    box(ax, 0.75, 5.1, 3.5, 1.1, "model, user interface,\npermissions", "harness", size=SMALL)
    gap_middle = (4.5 + 5.6) / 2  # the transport's name sits between the host's frame and the server
    for i, (name, how) in enumerate([("A", "stdio"), ("B", "HTTP"), ("C", "HTTP")]):
        y = 3.85 - i * 1.2
        box(ax, 1.25, y, 2.4, 0.85, f"client {i + 1}", "model", size=SMALL + 1)
        box(ax, 5.6, y, 2.3, 0.85, f"server {name}", "tool", size=SMALL + 1)
        arrow(
            ax,
            (3.65, y + 0.42),
            (5.6, y + 0.42),
            how,
            both=True,
            color=MUTED,
            lw=2,
            size=SMALL - 2,
            text_at=(gap_middle - 3.65) / (5.6 - 3.65),
            text_offset=(0, 0.25),
        )
    note(
        ax,
        0.5,
        0.85,
        "One client per server. A server sees neither the\nwhole chat nor the other servers; the host decides.",
        size=SMALL - 1,
    )
    # panel B: a sequence diagram
    note(ax, 8.6, 7.35, "B  A session", size=BASE + 2, color=INK, weight="bold")
    cx, sx = 9.4, 14.9
    box(ax, cx - 0.8, 6.25, 1.6, 0.7, "client", "model", size=SMALL + 1, weight="bold")
    box(ax, sx - 0.8, 6.25, 1.6, 0.7, "server", "tool", size=SMALL + 1, weight="bold")
    for x in (cx, sx):
        ax.plot([x, x], [0.75, 6.25], color=MUTED, linewidth=1.5, linestyle=(0, (4, 3)))
    msgs = [
        ("initialize  (id 1, version, capabilities)", True, blue),
        ("result: version, capabilities, serverInfo", False, green),
        ("notifications/initialized  (no id, no reply)", True, blue),
        ("tools/list  (id 2)", True, blue),
        ("result: tools [name, inputSchema, …]", False, green),
        ("tools/call  (id 3)  add {a: 2, b: 3}", True, blue),
        ('result: content "5", isError: false', False, green),
    ]
    for i, (text, forward, color) in enumerate(msgs):
        y = 5.85 - i * 0.7
        start, end = ((cx, y), (sx, y)) if forward else ((sx, y), (cx, y))
        arrow(ax, start, end, color=color, lw=2)
        note(ax, (cx + sx) / 2, y + 0.2, text, ha="center", size=SMALL - 1, color=INK)
    note(ax, (cx + sx) / 2, 0.85, "to end: close the transport", ha="center", size=SMALL - 1)
    source(ax, "")
