"""The live views the browser tests move, and how each is found on the page.

A view is recognised by two stable things its module in ``toolkit/widgets`` sets: the public
function a notebook calls to show it, and the label (or CSS class) of one of its controls. The
test moves that control and expects the view's pictures or text to change. When a widget
changes a label, change it here too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class LiveView:
    name: str
    function: str  # the public name in toolkit.widgets that a notebook calls to show it
    kind: str  # the control the test moves: "slider", "checkbox" or "radio"
    label: str  # the control's label ("" for the second option of the first radio group)
    css: str = ""  # a CSS class the view puts on that control, when it has one

    @property
    def call(self) -> str:
        return self.function + "("

    def module_present(self) -> bool:
        """True when ``toolkit.widgets`` can give the view's function (its module exists)."""
        import toolkit.widgets

        try:
            getattr(toolkit.widgets, self.function)
        except (AttributeError, ImportError):
            return False
        return True


LIVE_VIEWS = [
    LiveView("pass^k explorer", "passk_explorer", "slider", "p_skip_check"),
    LiveView("recall@k explorer", "recall_explorer", "slider", "k"),
    LiveView("scoring panel", "scoring_panel", "slider", "invents names"),
    LiveView("gate playground", "gate_playground", "checkbox", "use the permission gate"),
    LiveView("quiz", "quiz", "radio", "", css="toolkit-quiz"),
    LiveView("Toolformer filter", "toolformer_explorer", "slider", "τ_f"),
]


def all_notebooks() -> list[Path]:
    """Every lesson notebook in the repository, in order (picked up as they are added)."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def code_of(notebook: Path) -> str:
    """All code cells of a notebook, joined."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c["cell_type"] == "code"
    )


def notebooks_showing(view: LiveView, notebooks: list[Path]) -> list[Path]:
    return [nb for nb in notebooks if view.call in code_of(nb)]


def notebooks_with_live_views(notebooks: list[Path]) -> list[Path]:
    return [nb for nb in notebooks if any(view.call in code_of(nb) for view in LIVE_VIEWS)]
