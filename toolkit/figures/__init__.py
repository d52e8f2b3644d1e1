"""The pack's nine figures, drawn by code, and a helper to show one in a notebook.

The pack refers to Figures 1–9 without including them. ``python -m toolkit.figures`` draws
each one into ``figures/`` as SVG and PNG (``--check`` compares instead of writing);
:func:`show` puts one in a notebook, or a clearly marked placeholder when the file has not been
drawn yet. The drawing code (matplotlib, imported only when drawing) is in ``draw.py`` and the
modules it names; importing this package needs only the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["FIGURES", "FIGURES_DIR", "figure_path", "show"]

FIGURES_DIR = Path(__file__).resolve().parent.parent.parent / "figures"
if not FIGURES_DIR.exists():  # a plain (non-editable) install keeps its copy under <prefix>/share
    FIGURES_DIR = Path(sys.prefix) / "share" / "tooluse-course" / "figures"

# number -> (file stem, caption); the stems are the files' names in figures/
FIGURES = {
    1: ("fig1_call_loop", "Figure 1. The tool-call loop: the model only asks; the harness checks, runs and answers."),
    2: ("fig2_toolformer_steps", "Figure 2. Toolformer's four steps: sample, execute, filter, fine-tune."),
    3: ("fig3_react_vs_dfsdt", "Figure 3. ReAct follows one path; DFSDT (panel B) can drop a dead branch and try another."),
    4: ("fig4_three_interfaces", "Figure 4. Three generations of tool interface: REST/OpenAPI, function calling, MCP."),
    5: ("fig5_mcp_roles", "Figure 5. MCP's roles (panel A: host, clients, servers) and a session's messages."),
    6: ("fig6_three_ways_to_score", "Figure 6. Three ways to score tool use: the call text, the output, the final state."),
    7: ("fig7_injection_controls", "Figure 7. Indirect prompt injection, and where the controls sit."),
    8: ("fig8_failure_groups", "Figure 8. Three groups of failure: single call, many steps, the conversation."),
    9: ("fig9_toolkit_parts", "Figure 9. The toolkit's six parts and how they connect."),
}


def figure_path(number: int, ext: str = "svg") -> Path:
    """Where Figure ``number`` is kept, as ``ext`` ("svg" or "png"); drawn by toolkit.figures.draw."""
    if number not in FIGURES:
        raise ValueError(f"there is no Figure {number}; the pack has Figures 1 to 9")
    return FIGURES_DIR / f"{FIGURES[number][0]}.{ext}"


def _find(number: int, ext: str) -> Path | None:
    """The drawn file: next to the package's repository first, then in a ``figures/``
    folder beside or above the working directory (a student edition copied elsewhere)."""
    name = figure_path(number, ext).name
    for folder in (FIGURES_DIR, Path.cwd() / "figures", Path.cwd().parent / "figures"):
        if (folder / name).exists():
            return folder / name
    return None


def show(number: int):
    """Display Figure ``number`` in a notebook (needs IPython), as PNG with its caption, or a
    clearly marked placeholder if it has not been drawn yet.

    PNG rather than SVG: JupyterLab scales it to the column, and nbval does not compare
    images, so redrawing a figure does not break every lesson that shows it.
    """
    from IPython.display import HTML, Image, display

    caption = FIGURES[number][1]
    path = _find(number, "png")
    if path is not None:
        display(Image(filename=str(path)))
        display(HTML(f"<p style='text-align:center'><em>{caption}</em></p>"))
    else:
        display(HTML(f"<div style='border:2px dashed #999;padding:1em;text-align:center'>"
                     f"[Placeholder: {caption} Run <code>python -m toolkit.figures</code> to draw it.]</div>"))
